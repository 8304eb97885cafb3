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
//!
//! Memory: the verdict needs only *which* lineages are visible, so every sink keeps them
//! as a [`LineageSet`] — per (source operator, source subtask, branch path) the sorted,
//! disjoint runs of visible offsets. Sources emit offsets in order and channels keep
//! order, so the runs merge as records arrive: the set holds a few runs per source
//! subtask and path (out-of-order arrivals through different paths leave short-lived
//! gaps), not one entry per record — a run of 60 s that commits 10⁸ records keeps
//! kilobytes, where the full records (~100 B each) took gigabytes. The records
//! themselves (key, value, sink subtask, copies), which only `--sink-output` and tests
//! read, are kept in [`ExternalSink::visible`] only while [`ExternalSink::keep_records`]
//! is on (the default; a host turns it off with [`Engine::keep_sink_records`] before
//! running, and the verdict stays exact either way).

use super::record::{Lineage, Record};
use super::report::{LineageOut, SinkRecord};
use super::runtime::Engine;
use super::spec::{OperatorKind, SinkDelivery};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::mem::size_of;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Visible {
    pub count: u32,
    pub key: u64,
    pub value: i64,
    pub sink_subtask: u32,
}

/// A set of lineages as sorted runs of offsets per (source, subtask, path).
///
/// Two levels, (source, subtask) then the branch path, so a record's lineage is found
/// through borrowed keys: one map keyed by the whole (source, subtask, path) took a copy
/// of the path per lookup, an allocation per record for every record that went through
/// a fan-out or a `flat_map` (issue 19; `large` has no branches, so its run is unchanged
/// but for the cheaper lookup: 949.2 M -> 945.2 M instructions under callgrind).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LineageSet {
    /// (source, subtask) -> its paths, sorted, each with its runs (a subtask's records
    /// take a few paths: one per route through the fan-outs and `flat_map` children).
    runs: BTreeMap<(u16, u16), Vec<PathRuns>>,
    len: u64,
    run_count: usize,
}

/// One branch path of a (source, subtask) and the runs of its visible offsets.
type PathRuns = (Vec<u32>, Runs);

/// Where `path` is in `paths` (sorted by path), or where it would go.
fn find_path(paths: &[PathRuns], path: &[u32]) -> Result<usize, usize> {
    paths.binary_search_by(|(p, _)| p.as_slice().cmp(path))
}

/// The visible offsets of one (source, subtask, path): sorted, disjoint, never adjacent
/// runs `[start, end)` (adjacent runs are merged), in a vector searched from its end.
///
/// Offsets arrive almost in order (a source emits them in order and channels keep it;
/// records of one source subtask reach a sink through several channels, which interleave
/// within a few buffers), so nearly every insert touches one of the last runs: a look at
/// the last [`Runs::TAIL`] runs finds it, a binary search the rest. A vector of a few
/// runs costs a fraction of a B-tree's searches, removals and insertions per record
/// (issue 19: the B-tree version was ~10 % of the `large` preset's instructions).
#[derive(Clone, Debug, Default, PartialEq)]
struct Runs(Vec<(u64, u64)>);

impl Runs {
    /// How many runs at the end are scanned before a binary search.
    const TAIL: usize = 4;

    /// The index of the last run starting at or before `x`.
    fn floor(&self, x: u64) -> Option<usize> {
        let v = &self.0;
        let tail = v.len().saturating_sub(Self::TAIL);
        if let Some(i) = (tail..v.len()).rev().find(|&i| v[i].0 <= x) {
            return Some(i);
        }
        v[..tail].partition_point(|r| r.0 <= x).checked_sub(1)
    }

    fn contains(&self, x: u64) -> bool {
        self.floor(x).is_some_and(|i| x < self.0[i].1)
    }

    /// Adds `x`: `None` when it was already there, else how the number of runs changed
    /// (-1 when `x` joined two runs, 0 when it extended one, +1 when it started one).
    fn insert(&mut self, x: u64) -> Option<isize> {
        let prev = self.floor(x);
        if prev.is_some_and(|i| x < self.0[i].1) {
            return None;
        }
        let after = x.saturating_add(1);
        let next = prev.map_or(0, |i| i + 1);
        let joins_prev = prev.filter(|&i| self.0[i].1 == x);
        let joins_next = self.0.get(next).is_some_and(|r| r.0 == after);
        Some(match (joins_prev, joins_next) {
            (Some(i), true) => {
                self.0[i].1 = self.0[next].1;
                self.0.remove(next);
                -1
            }
            (Some(i), false) => {
                self.0[i].1 = after;
                0
            }
            (None, true) => {
                self.0[next].0 = x;
                0
            }
            (None, false) => {
                self.0.insert(next, (x, after));
                1
            }
        })
    }
}

impl LineageSet {
    /// Whether `l` is in the set.
    pub fn contains(&self, l: &Lineage) -> bool {
        self.runs.get(&(l.source, l.subtask)).is_some_and(|paths| {
            find_path(paths, &l.path).is_ok_and(|i| paths[i].1.contains(l.offset))
        })
    }

    /// Adds `l`; `false` when it was already there.
    pub fn insert(&mut self, l: &Lineage) -> bool {
        let paths = self.runs.entry((l.source, l.subtask)).or_default();
        let at = match find_path(paths, &l.path) {
            Ok(i) => i,
            Err(i) => {
                paths.insert(i, (l.path.to_vec(), Runs::default()));
                i
            }
        };
        match paths[at].1.insert(l.offset) {
            None => false,
            Some(delta) => {
                self.run_count = self.run_count.wrapping_add_signed(delta);
                self.len += 1;
                true
            }
        }
    }

    /// How many lineages of source record (`source`, `subtask`, `offset`) are in the set:
    /// one per branch path (a `flat_map` child or a route through a fan-out) it reached.
    pub fn count_at(&self, source: u16, subtask: u16, offset: u64) -> u64 {
        self.runs.get(&(source, subtask)).map_or(0, |paths| {
            paths
                .iter()
                .filter(|(_, runs)| runs.contains(offset))
                .count() as u64
        })
    }

    /// Lineages in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Runs kept (what the set's memory grows with).
    pub fn runs(&self) -> usize {
        self.run_count
    }

    /// Estimated heap bytes (the B-tree's entries, the run vectors' capacity).
    pub fn approx_bytes(&self) -> usize {
        const NODE: usize = 16;
        self.runs
            .values()
            .flatten()
            .map(|(path, runs)| {
                64 + path.capacity() * 4 + NODE + runs.0.capacity() * size_of::<(u64, u64)>()
            })
            .sum()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ExternalSink {
    pub delivery: SinkDelivery,
    /// Every visible record with its copies, while [`ExternalSink::keep_records`] is on
    /// (else empty): what `--sink-output` writes.
    pub visible: BTreeMap<Lineage, Visible>,
    /// Whether [`ExternalSink::visible`] is kept (the verdict never needs it).
    pub keep_records: bool,
    /// The visible lineages, always kept: the verdict's ground truth.
    pub seen: LineageSet,
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
            keep_records: true,
            seen: LineageSet::default(),
            committed_txns: BTreeSet::new(),
            rewrites: 0,
            committed: 0,
            repeated: 0,
        }
    }

    /// A non-transactional write (idempotent or at-least-once).
    pub fn write(&mut self, subtask: u32, r: &Record) {
        if self.delivery == SinkDelivery::Idempotent && self.seen.contains(&r.lineage) {
            if let Some(v) = self.visible.get_mut(&r.lineage) {
                v.value = r.value;
            }
            self.rewrites += 1;
        } else {
            self.make_visible(subtask, r);
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
        if !self.seen.insert(&r.lineage) {
            self.repeated += 1;
        }
        if !self.keep_records {
            return;
        }
        // One search of the map (the clone of a lineage without branches allocates nothing).
        self.visible
            .entry(r.lineage.clone())
            .and_modify(|v| v.count += 1)
            .or_insert(Visible {
                count: 1,
                key: r.key,
                value: r.value,
                sink_subtask: subtask,
            });
    }

    pub fn committed_records(&self) -> u64 {
        self.committed
    }

    pub fn duplicates(&self) -> u64 {
        self.repeated
    }

    pub fn distinct(&self) -> u64 {
        self.seen.len()
    }

    /// Estimated heap bytes: the lineage runs, the kept records and the commit keys.
    pub fn approx_bytes(&self) -> usize {
        const NODE: usize = 16;
        let records: usize = self
            .visible
            .keys()
            .map(|l| size_of::<Lineage>() + l.path.heap_bytes() + size_of::<Visible>() + NODE)
            .sum();
        self.seen.approx_bytes() + records + self.committed_txns.len() * (16 + NODE)
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
    /// Whether the sinks keep every committed record for [`Engine::sink_output`] (the
    /// default) or only the compact lineage runs the verdict needs. Call before running:
    /// turning it off drops the records kept so far, and turning it on later keeps only
    /// the records committed from then on.
    pub fn keep_sink_records(&mut self, keep: bool) {
        for ext in self.external.iter_mut().flatten() {
            ext.keep_records = keep;
            if !keep {
                ext.visible = BTreeMap::new();
            }
        }
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
            .map(|&t| match self.tasks[t].chain.state_of(sink) {
                Some(super::task::OpState::Sink(txns)) => {
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

/// Every committed record of every sink, sorted; empty for sinks that do not keep their
/// records ([`Engine::keep_sink_records`]).
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
                        source: engine
                            .operators
                            .iter()
                            .find(|o| {
                                matches!(o.kind, OperatorKind::Source(_))
                                    && o.lineage_source == lineage.source
                            })
                            .map(|o| o.id.clone())
                            .unwrap_or_default(),
                        source_subtask: lineage.subtask as u32,
                        offset: lineage.offset,
                        path: lineage.path.to_vec(),
                    },
                });
            }
        }
    }
    crate::compact_sort::sort(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lineage(subtask: u16, offset: u64, path: &[u32]) -> Lineage {
        Lineage {
            source: 0,
            subtask,
            offset,
            path: path.to_vec().into(),
        }
    }

    #[test]
    fn lineage_runs_merge_and_find_repeats() {
        let mut set = LineageSet::default();
        // Out of order, as records from different channels arrive.
        for o in [0, 2, 1, 5, 3, 4, 9] {
            assert!(set.insert(&lineage(0, o, &[])), "{o} is new");
        }
        assert_eq!((set.len(), set.runs()), (7, 2), "0..6 and 9");
        for o in [0, 3, 5, 9] {
            assert!(!set.insert(&lineage(0, o, &[])), "{o} repeats");
            assert!(set.contains(&lineage(0, o, &[])));
        }
        for (s, o, p) in [(0, 6, &[][..]), (0, 8, &[]), (1, 0, &[]), (0, 0, &[1])] {
            assert!(!set.contains(&lineage(s, o, p)), "{s} {o} {p:?}");
        }
        assert!(set.insert(&lineage(0, 0, &[1])), "another branch path");
        assert_eq!(set.len(), 8);
    }

    /// Whatever the arrival order (mostly in order, with gaps, repeats and late offsets,
    /// as channels deliver them), the runs hold exactly the inserted offsets: `insert`,
    /// `contains`, `len` and `runs` agree with a plain ordered set.
    #[test]
    fn lineage_runs_match_an_ordered_set() {
        let mut rng = crate::engine::rng::Rng::new(19);
        let mut set = LineageSet::default();
        let mut model = BTreeSet::new();
        let mut next = [0u64; 3];
        for _ in 0..20_000 {
            let sub = rng.below(3) as usize;
            let o = match rng.below(10) {
                0..=5 => next[sub],
                6 => next[sub] + rng.below(5),
                _ => next[sub].saturating_sub(rng.below(8)),
            };
            next[sub] = next[sub].max(o + 1);
            let l = lineage(sub as u16, o, &[]);
            assert_eq!(set.insert(&l), model.insert((sub, o)), "{sub} {o}");
            assert!(set.contains(&l));
        }
        assert_eq!(set.len(), model.len() as u64);
        let mut runs = 0;
        let mut prev: Option<(usize, u64)> = None;
        for &(sub, o) in &model {
            if prev != Some((sub, o.wrapping_sub(1))) {
                runs += 1;
            }
            prev = Some((sub, o));
        }
        assert_eq!(set.runs(), runs);
        for sub in 0..3u16 {
            for o in 0..next[sub as usize] + 2 {
                let inside = model.contains(&(sub as usize, o));
                assert_eq!(set.contains(&lineage(sub, o, &[])), inside, "{sub} {o}");
            }
        }
    }

    #[test]
    fn the_verdict_is_the_same_without_the_records() {
        for name in ["backpressure", "topology-change", "large", "healthy"] {
            let doc = crate::scenario::preset(name).unwrap();
            let spec = crate::scenario::to_spec(&doc).unwrap();
            let mut full = Engine::new(spec.clone()).unwrap();
            let mut compact = Engine::new(spec).unwrap();
            compact.keep_sink_records(false);
            full.run_to_end();
            compact.run_to_end();
            assert_eq!(full.event_hash(), compact.event_hash(), "{name}");
            for s in full.sink_operators() {
                assert_eq!(full.sink_verdict(s), compact.sink_verdict(s), "{name}");
                let (f, c) = (
                    full.external[s].as_ref().unwrap(),
                    compact.external[s].as_ref().unwrap(),
                );
                assert!(c.visible.is_empty());
                assert_eq!(f.seen, c.seen);
                assert!(
                    c.approx_bytes() * 10 < f.approx_bytes().max(1000),
                    "{name}: {} vs {} bytes",
                    c.approx_bytes(),
                    f.approx_bytes()
                );
            }
        }
    }
}
