//! What each sink should see of each source record when resubmissions changed the job:
//! the expected lineages per source position, the ground truth of the exactly-once proof.
//!
//! Contract: without a resubmission, a source record yields `paths[source][sink]` lineages
//! at a sink (`graph::sink_paths`), and [`ExpectedOutput`] is empty. A resubmission from a
//! snapshot that read source subtask `(s, i)` up to offset `R` starts a [`Segment`]: the
//! records from `R` on are read by the new job and yield the new job's paths; a record
//! before `R` keeps the count of the segment it was read in — except for its descendants
//! that were in flight in the snapshot's channel state, which the new job processes from
//! the operator they were entering: each of them yields the new job's paths from that
//! operator instead of the old job's ([`ExpectedOutput::corrections`]). In-flight records
//! of an operator the new job lacks (skipped by `allowNonRestoredState`) are not corrected
//! away but booked as known losses ([`super::loss`]), so the verdict counts them lost.
//! [`Engine::expected_lineages`] answers for one position, [`Engine::expected_at_sink`]
//! for a whole sink.
//!
//! Flink has no such ledger (it does not know what a sink should contain); this is the
//! playground's proof. Simplified: a resubmission from a snapshot of an earlier job than
//! the running one counts the records before its offsets by the latest segment that read
//! them (records read again after the snapshot are duplicates in Flink too).

use super::loss::SourcePos;
use super::runtime::Engine;
use super::spec::OperatorKind;
use std::collections::BTreeMap;

/// The records read by one job from given source offsets on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segment {
    /// Per (lineage source, subtask): the first offset this job read (absent: 0).
    pub from: BTreeMap<(u16, u32), u64>,
    /// Per lineage source: sink lineages per source record, by operator index (sinks
    /// non-zero).
    pub per_record: BTreeMap<u16, Vec<u64>>,
}

/// The segments and corrections (see the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpectedOutput {
    /// In time order, the first one from offset 0; empty: the running job's paths hold.
    pub segments: Vec<Segment>,
    /// Per operator index (sinks): per source position, lineages added (or taken away)
    /// by in-flight records that a resubmission sent through a changed topology.
    pub corrections: Vec<BTreeMap<SourcePos, i64>>,
}

impl ExpectedOutput {
    /// Renumbers the operators: `map[old] = new`, `len` operators now.
    pub(crate) fn renumber(&mut self, map: &[Option<usize>], len: usize) {
        let move_vec = |v: &Vec<u64>| {
            let mut out = vec![0; len];
            for (o, &n) in map.iter().enumerate() {
                if let (Some(n), Some(&x)) = (n, v.get(o)) {
                    out[n] = x;
                }
            }
            out
        };
        for s in self.segments.iter_mut() {
            for v in s.per_record.values_mut() {
                *v = move_vec(v);
            }
        }
        if !self.corrections.is_empty() {
            let mut out = vec![BTreeMap::new(); len];
            for (o, c) in std::mem::take(&mut self.corrections)
                .into_iter()
                .enumerate()
            {
                if let Some(Some(n)) = map.get(o) {
                    out[*n] = c;
                }
            }
            self.corrections = out;
        }
    }

    /// The segment that read offset `off` of `(tag, sub)`: the latest one starting at or
    /// before it.
    fn segment_of(&self, tag: u16, sub: u32, off: u64) -> Option<&Segment> {
        self.segments
            .iter()
            .rev()
            .find(|s| s.from.get(&(tag, sub)).copied().unwrap_or(0) <= off)
    }
}

impl Engine {
    /// Lineages sink `sink` should see of source record `off` of source operator `o`'s
    /// subtask `sub`.
    pub fn expected_lineages(&self, o: usize, sub: u32, off: u64, sink: usize) -> u64 {
        let tag = self.operators[o].lineage_source;
        let base = match self.expected_output.segment_of(tag, sub, off) {
            Some(s) => s
                .per_record
                .get(&tag)
                .and_then(|v| v.get(sink))
                .copied()
                .unwrap_or(0),
            None => self.paths[o][sink],
        };
        let c = self
            .expected_output
            .corrections
            .get(sink)
            .and_then(|c| c.get(&(tag, sub as u16, off)))
            .copied()
            .unwrap_or(0);
        (base as i64 + c).max(0) as u64
    }

    /// Lineages the sink should see when every bounded source was read completely.
    pub fn expected_at_sink(&self, sink: usize) -> Option<u64> {
        let mut total = 0u64;
        let x = &self.expected_output;
        for (o, op) in self.operators.iter().enumerate() {
            if let OperatorKind::Source(_) = &op.kind {
                let tag = op.lineage_source;
                for sub in 0..op.parallelism {
                    let end = self.source_end(o, sub)?;
                    if x.segments.is_empty() {
                        total += end * self.paths[o][sink];
                        continue;
                    }
                    // Each segment counts from its start up to where a later one starts.
                    let mut upper = end;
                    for s in x.segments.iter().rev() {
                        let start = s.from.get(&(tag, sub)).copied().unwrap_or(0);
                        if start < upper {
                            let per = s
                                .per_record
                                .get(&tag)
                                .and_then(|v| v.get(sink))
                                .copied()
                                .unwrap_or(0);
                            total += (upper - start) * per;
                            upper = start;
                        }
                    }
                }
            }
        }
        let c: i64 = x
            .corrections
            .get(sink)
            .map_or(0, |c| c.values().sum::<i64>());
        Some((total as i64 + c).max(0) as u64)
    }

    /// A resubmission: before the operators are renumbered, the running job's paths
    /// become the first segment (if none was started yet).
    pub(crate) fn expected_before_resubmission(&mut self) {
        if !self.expected_output.segments.is_empty() {
            return;
        }
        let mut base = Segment::default();
        for (o, op) in self.operators.iter().enumerate() {
            if matches!(op.kind, OperatorKind::Source(_)) {
                base.per_record
                    .insert(op.lineage_source, self.paths[o].clone());
            }
        }
        self.expected_output.segments.push(base);
        self.expected_output.corrections = vec![BTreeMap::new(); self.operators.len()];
    }

    /// A resubmission: after the new job is deployed (its paths computed), its segment
    /// from the restored source offsets `from` (by operator index) on.
    pub(crate) fn expected_after_resubmission(&mut self, from: &BTreeMap<(usize, u32), u64>) {
        let mut seg = Segment::default();
        for (&(o, sub), &off) in from {
            seg.from
                .insert((self.operators[o].lineage_source, sub), off);
        }
        for (o, op) in self.operators.iter().enumerate() {
            if matches!(op.kind, OperatorKind::Source(_)) {
                seg.per_record
                    .insert(op.lineage_source, self.paths[o].clone());
            }
        }
        self.expected_output.segments.push(seg);
    }

    /// A restored in-flight record at `pos` entering operator `now_entering` of the new
    /// job, which in the snapshot's job yielded `before` lineages per sink (by the new
    /// job's operator index).
    pub(crate) fn correct_expected(&mut self, pos: SourcePos, now_entering: usize, before: &[u64]) {
        let n = self.operators.len();
        if self.expected_output.corrections.len() < n {
            self.expected_output.corrections.resize(n, BTreeMap::new());
        }
        for s in 0..n {
            let after = self.paths[now_entering][s] as i64;
            let was = before.get(s).copied().unwrap_or(0) as i64;
            if after != was {
                *self.expected_output.corrections[s].entry(pos).or_insert(0) += after - was;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_segment_starting_at_or_before_an_offset_counts_it() {
        let x = ExpectedOutput {
            segments: vec![
                Segment {
                    from: BTreeMap::new(),
                    per_record: BTreeMap::from([(0, vec![0, 1])]),
                },
                Segment {
                    from: BTreeMap::from([((0, 0), 10)]),
                    per_record: BTreeMap::from([(0, vec![0, 2])]),
                },
                // A resubmission from an older snapshot: offsets 6.. are read again.
                Segment {
                    from: BTreeMap::from([((0, 0), 6)]),
                    per_record: BTreeMap::from([(0, vec![0, 3])]),
                },
            ],
            corrections: Vec::new(),
        };
        let per = |off| x.segment_of(0, 0, off).map(|s| s.per_record[&0][1]);
        assert_eq!(per(5), Some(1));
        assert_eq!(per(6), Some(3));
        assert_eq!(per(12), Some(3));
        // Subtask 1 was never rewound: the latest segment counts it from 0.
        assert_eq!(x.segment_of(0, 1, 0).map(|s| s.per_record[&0][1]), Some(3));
    }

    #[test]
    fn renumbering_moves_sinks_and_drops_removed_operators() {
        let mut x = ExpectedOutput {
            segments: vec![Segment {
                from: BTreeMap::new(),
                per_record: BTreeMap::from([(0, vec![0, 5, 1])]),
            }],
            corrections: vec![
                BTreeMap::new(),
                BTreeMap::new(),
                BTreeMap::from([((0, 0, 1), 2)]),
            ],
        };
        // Operator 1 removed, operator 2 becomes 1, a new one at 2.
        x.renumber(&[Some(0), None, Some(1)], 3);
        assert_eq!(x.segments[0].per_record[&0], vec![0, 1, 0]);
        assert_eq!(x.corrections[1].get(&(0, 0, 1)), Some(&2));
        assert!(x.corrections[2].is_empty());
    }
}
