//! The external systems behind the sinks, and the per-run exactly-once verdict.
//!
//! Each sink operator writes into an [`ExternalSink`] that stands for what a user would see
//! in the outside system: a two-phase-commit sink makes a transaction visible once, when
//! its checkpoint completes (a commit repeated on restore is a no-op: commits are keyed by
//! subtask and checkpoint); an idempotent sink upserts by the record's identity, so a
//! replayed record overwrites itself; an at-least-once sink appends at once, so everything
//! replayed after a failure shows up twice. Because every record carries its lineage, the
//! verdict is a proof, not an estimate: duplicates are lineages visible more than once, and
//! losses are expected lineages that are not visible and never will be.

use super::record::{Lineage, Record};
use super::report::{LineageOut, SinkRecord};
use super::runtime::Engine;
use super::spec::{OperatorKind, SinkDelivery};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Visible {
    pub count: u32,
    pub key: u64,
    pub value: i64,
    pub sink_subtask: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExternalSink {
    pub delivery: SinkDelivery,
    pub visible: BTreeMap<Lineage, Visible>,
    /// Transactions committed: (sink subtask, checkpoint id).
    pub committed_txns: BTreeSet<(u32, u64)>,
    /// Idempotent sinks: writes that overwrote an existing row.
    pub rewrites: u64,
    /// Visible records, and visible repeats of a lineage, kept up to date on every write.
    committed: u64,
    repeated: u64,
}

impl ExternalSink {
    pub fn new(delivery: SinkDelivery) -> Self {
        ExternalSink {
            delivery,
            visible: BTreeMap::new(),
            committed_txns: BTreeSet::new(),
            rewrites: 0,
            committed: 0,
            repeated: 0,
        }
    }

    /// A non-transactional write (idempotent or at-least-once).
    pub fn write(&mut self, subtask: u32, r: &Record) {
        match self.visible.get_mut(&*r.lineage) {
            Some(v) if self.delivery == SinkDelivery::Idempotent => {
                v.value = r.value;
                self.rewrites += 1;
            }
            _ => self.make_visible(subtask, r),
        }
    }

    /// Commits a transaction; committing the same one again does nothing.
    pub fn commit(&mut self, subtask: u32, checkpoint: u64, records: &[Record]) {
        if checkpoint != u64::MAX && !self.committed_txns.insert((subtask, checkpoint)) {
            return;
        }
        for r in records {
            self.make_visible(subtask, r);
        }
    }

    /// One more visible copy of `r`.
    fn make_visible(&mut self, subtask: u32, r: &Record) {
        self.committed += 1;
        match self.visible.get_mut(&*r.lineage) {
            Some(v) => {
                v.count += 1;
                self.repeated += 1;
            }
            None => {
                let v = Visible {
                    count: 1,
                    key: r.key,
                    value: r.value,
                    sink_subtask: subtask,
                };
                self.visible.insert((*r.lineage).clone(), v);
            }
        }
    }

    pub fn committed_records(&self) -> u64 {
        self.committed
    }

    pub fn duplicates(&self) -> u64 {
        self.repeated
    }

    pub fn distinct(&self) -> u64 {
        self.visible.len() as u64
    }
}

/// The verdict for one sink.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SinkVerdict {
    pub committed_records: u64,
    pub duplicates: u64,
    pub lost: u64,
    /// Of `lost`, the records no failure explains (see [`super::loss`]).
    pub unattributed_lost: u64,
    pub pending_records: u64,
    pub exactly_once: bool,
    /// Lineages every source record of the job yields here, when all sources are bounded.
    pub expected: Option<u64>,
}

impl Engine {
    /// Lineages the sink should see when every bounded source was read completely.
    pub fn expected_at_sink(&self, sink: usize) -> Option<u64> {
        let mut total = 0;
        for (o, op) in self.operators.iter().enumerate() {
            if let OperatorKind::Source(s) = &op.kind {
                total += s.records? * op.parallelism as u64 * self.paths[o][sink];
            }
        }
        Some(total)
    }

    pub fn sink_verdict(&self, sink: usize) -> SinkVerdict {
        let ext = self.external[sink].as_ref().expect("a sink");
        let duplicates = ext.duplicates();
        let expected = self.expected_at_sink(sink);
        let lost = match (self.status, expected) {
            (super::runtime::JobStatus::Finished, Some(e)) => e.saturating_sub(ext.distinct()),
            _ => self.lost_by_sink[sink],
        };
        let pending_records = self.operators[sink]
            .tasks
            .iter()
            .map(|&t| match &self.tasks[t].state {
                super::task::OpState::Sink(txns) => {
                    txns.open.len() as u64
                        + txns.pending.values().map(|v| v.len() as u64).sum::<u64>()
                }
                _ => 0,
            })
            .sum();
        SinkVerdict {
            committed_records: ext.committed_records(),
            duplicates,
            lost,
            unattributed_lost: self.unattributed_lost[sink],
            pending_records,
            exactly_once: duplicates == 0 && lost == 0,
            expected,
        }
    }
}

/// The delivery guarantee a sink promises in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Guarantee {
    /// Two-phase commit or idempotent, with `execution.checkpointing.mode: EXACTLY_ONCE`
    /// (or no checkpointing): every expected record visible once.
    ExactlyOnce,
    /// An at-least-once sink, or any sink under `AT_LEAST_ONCE`: nothing lost.
    AtLeastOnce,
}

impl Engine {
    pub fn sink_guarantee(&self, sink: usize) -> Guarantee {
        let delivery = match self.operators[sink].kind {
            OperatorKind::Sink { delivery } => delivery,
            _ => return Guarantee::AtLeastOnce,
        };
        match (delivery, self.config.mode) {
            (
                SinkDelivery::TwoPhaseCommit | SinkDelivery::Idempotent,
                super::config::CheckpointingMode::ExactlyOnce,
            ) => Guarantee::ExactlyOnce,
            _ => Guarantee::AtLeastOnce,
        }
    }

    /// One line per sink that broke the guarantee it promises (an exactly-once sink with a
    /// duplicate or a loss, any sink with a loss), and one if the losses and the failures'
    /// rows do not add up; empty when every sink kept its promise. The headless runner's
    /// `--require-exactly-once` and the property tests both decide with this.
    pub fn broken_guarantees(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in self.sink_operators() {
            let v = self.sink_verdict(s);
            let guarantee = self.sink_guarantee(s);
            let broken = match guarantee {
                Guarantee::ExactlyOnce => !v.exactly_once,
                Guarantee::AtLeastOnce => v.lost > 0,
            };
            if !broken {
                continue;
            }
            let of = v.expected.map(|e| format!(" of {e}")).unwrap_or_default();
            let promise = match guarantee {
                Guarantee::ExactlyOnce => "exactly-once",
                Guarantee::AtLeastOnce => "at-least-once",
            };
            let blame: Vec<String> = self
                .failures
                .iter()
                .filter(|f| f.lost_records > 0)
                .map(|f| {
                    format!(
                        "{} by the failure of {}#{} at {}ms",
                        f.lost_records, f.operator, f.subtask, f.at_ms
                    )
                })
                .chain(
                    (v.unattributed_lost > 0)
                        .then(|| format!("{} that no failure explains", v.unattributed_lost)),
                )
                .collect();
            let blame = if v.lost > 0 && !blame.is_empty() {
                format!(" ({})", blame.join(", "))
            } else {
                String::new()
            };
            out.push(format!(
                "sink {} promises {promise} but has {} duplicates and {} lost{of}{blame}",
                self.operators[s].id, v.duplicates, v.lost
            ));
        }
        if self.status == super::runtime::JobStatus::Finished {
            let lost: u64 = self
                .sink_operators()
                .iter()
                .map(|&s| self.sink_verdict(s).lost)
                .sum();
            let booked: u64 = self
                .sink_operators()
                .iter()
                .map(|&s| self.lost_by_sink[s] + self.unattributed_lost[s])
                .sum();
            if lost != booked {
                out.push(format!(
                    "loss accounting disagrees: the sinks miss {lost} records, the failures and the unattributed count book {booked}"
                ));
            }
        }
        out
    }
}

pub fn sink_output(engine: &Engine) -> Vec<SinkRecord> {
    let mut out = Vec::new();
    for s in engine.sink_operators() {
        let ext = engine.external[s].as_ref().expect("sink");
        for (lineage, v) in &ext.visible {
            for _ in 0..v.count {
                out.push(SinkRecord {
                    sink: engine.operators[s].id.clone(),
                    sink_subtask: v.sink_subtask,
                    key: v.key,
                    value: v.value,
                    lineage: LineageOut {
                        source: engine.operators[lineage.source as usize].id.clone(),
                        source_subtask: lineage.subtask as u32,
                        offset: lineage.offset,
                        path: lineage.path.clone(),
                    },
                });
            }
        }
    }
    out.sort();
    out
}
