//! Where the records a sink misses went: the attribution of losses to failures.
//!
//! Contract: when a job with bounded sources finishes, every expected sink record that is
//! not visible is counted exactly once, either in the `lost_records` of one failure or as
//! the sink's `unattributed_lost` — so the failures' rows and the sink's verdict always add
//! up (`Σ lost_records + Σ unattributed_lost + losses before any failure = Σ sink lost`).
//! Known losses are booked when they happen: records that expired from a source's retention
//! (to the failure being recovered from, if any) and in-flight data dropped by
//! `recover-without-channel-state` (to that restore). Any other missing record is found at
//! the end by its source position (source operator, subtask, offset) and blamed on a
//! failure only when exactly one can have lost it: the only restore that resumed that
//! source subtask past the record, so that record could come back only from that
//! checkpoint. When several restores resumed past it, or none did (it was lost in a run
//! without a failure to blame), the report says it cannot tell: `unattributed_lost`. A
//! correct engine leaves both at zero without retention or dropped channel state.

use super::runtime::{Engine, JobStatus};
use super::spec::OperatorKind;
use std::collections::BTreeMap;

/// A source record's position: (source operator, subtask, offset).
pub type SourcePos = (u16, u16, u64);

impl Engine {
    /// Books sink records known lost at source position `pos` entering operator `op`
    /// (`n` records): the sinks' known losses, and the failure being recovered from.
    pub(crate) fn book_known_loss(&mut self, op: usize, pos: SourcePos, n: u64) -> u64 {
        let mut lineages = 0;
        for s in 0..self.operators.len() {
            let k = self.paths[op][s] * n;
            if k > 0 {
                self.lost_by_sink[s] += k;
                *self.known_lost[s].entry(pos).or_insert(0) += k;
                lineages += k;
            }
        }
        lineages
    }

    /// Source offsets the restore of failure `failure` (its index in `failures`) resumed
    /// from, kept per failure for the attribution. A region's restore holds only its own
    /// sources; restores of different regions may come in any order.
    pub(crate) fn note_restored_offsets(
        &mut self,
        failure: usize,
        offsets: BTreeMap<(usize, u32), u64>,
    ) {
        if self.restored_offsets.len() <= failure {
            self.restored_offsets.resize(failure + 1, BTreeMap::new());
        }
        self.restored_offsets[failure] = offsets;
    }

    /// At the end of a finished run with bounded sources: finds every missing expected sink
    /// record and books it to the one failure that can have lost it, or as unattributed.
    pub(crate) fn attribute_losses(&mut self) {
        if self.status != JobStatus::Finished || self.losses_attributed {
            return;
        }
        self.losses_attributed = true;
        for s in self.sink_operators() {
            let Some(ext) = self.external[s].as_ref() else {
                continue;
            };
            // The compact lineage runs, not the kept records: they are there whether or not
            // the host keeps the records (`Engine::keep_sink_records`).
            let seen = &ext.seen;
            let mut to_failure = vec![0u64; self.failures.len()];
            let mut unattributed = 0u64;
            for (o, op) in self.operators.iter().enumerate() {
                let OperatorKind::Source(_) = &op.kind else {
                    continue;
                };
                let changed = !self.expected_output.segments.is_empty();
                if !changed && self.paths[o][s] == 0 {
                    continue;
                }
                let tag = op.lineage_source;
                for sub in 0..op.parallelism {
                    let Some(records) = self.source_end(o, sub) else {
                        continue;
                    };
                    for off in 0..records {
                        let per = self.expected_lineages(o, sub, off, s);
                        let pos = (tag, sub as u16, off);
                        let visible = seen.count_at(pos.0, pos.1, pos.2);
                        let known = self.known_lost[s].get(&pos).copied().unwrap_or(0);
                        let missing = per.saturating_sub(visible).saturating_sub(known);
                        if missing == 0 {
                            continue;
                        }
                        let resumed_past: Vec<usize> = self
                            .restored_offsets
                            .iter()
                            .enumerate()
                            .filter(|(_, r)| r.get(&(o, sub)).is_some_and(|&at| at > off))
                            .map(|(i, _)| i)
                            .collect();
                        match resumed_past.as_slice() {
                            [only] => to_failure[*only] += missing,
                            _ => unattributed += missing,
                        }
                    }
                }
            }
            for (i, n) in to_failure.into_iter().enumerate() {
                self.failures[i].lost_records += n;
                self.lost_by_sink[s] += n;
            }
            self.unattributed_lost[s] += unattributed;
        }
    }
}
