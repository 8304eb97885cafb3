//! A history entry's report, built once per change of what it reads and reused by every
//! report after that; its per-subtask rows shared between reports.
//!
//! Contract: [`EntryCache::get`] returns exactly what its `build` closure would return
//! now, and calls `build` only when what the value reads changed since the value it holds
//! was built. "Changed" is what the caller's key says, within one deployment of one job
//! (`Scope`: a restart redeploys the tasks, so a subtask index may name another chain; a
//! resubmission starts a new history). Two keys are used ([`super::stats`]):
//! - [`BareReports`], the report without its diagnosis: the entry's id and its
//!   [`super::coordinator::CheckpointStats::revision`] (the coordinator bumps it on every
//!   write to the entry). The bare report reads the entry and the tasks' names, chains and
//!   vertices, nothing else.
//! - [`DiagnosedReports`], with its diagnosis, only for a *settled* checkpoint
//!   ([`super::diagnosis::critical_path::settled`]: ended, its activity window closed by
//!   a sample, its barrier hops gone from the trace, no task holding a record of it); the
//!   key adds the config values the diagnosis quotes. Until it settles, the diagnosis
//!   reads the trace, the tasks' records and the live counters, and is built fresh.
//!
//! Why: the full report ([`super::Engine::report`]) rendered every checkpoint of the
//! history again, each with one row per subtask (three names and the chain's operator ids
//! cloned per row), so the playground's report refresh (every 400 ms while playing) grew
//! with the run: ~10 µs per checkpoint of `large` natively, 33 ms at 3,300 checkpoints,
//! and the diagnoses as much again (`examples/report_cost.rs`). Flink's history keeps a
//! stats object per checkpoint too (`CheckpointStatsHistory.replacePendingCheckpointById`
//! swaps the pending entry for its completed or failed stats; the REST handlers read
//! `createSnapshot()`'s copy, not the tasks; Flink 2.x, `org.apache.flink.runtime.checkpoint`).
//! What this adds is only the reuse; every report reads as a fresh build would (a property
//! test holds it to that).
//!
//! [`Rows`] is an immutable list behind an `Arc`: clones share it, and equality looks at
//! identity first, so comparing two reports that share their history costs a pointer
//! compare per checkpoint.

use super::report::{CheckpointReport, SubtaskCheckpointReport};
use super::time::Micros;
use serde::{Serialize, Serializer};
use std::ops::Deref;
use std::sync::Arc;

/// One checkpoint's subtask rows, shared (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Rows(Arc<Vec<SubtaskCheckpointReport>>);

impl Rows {
    pub fn new(rows: Vec<SubtaskCheckpointReport>) -> Self {
        Rows(Arc::new(rows))
    }

    /// Whether `self` and `other` are one shared list (not just equal ones).
    pub fn shares(&self, other: &Rows) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl From<Vec<SubtaskCheckpointReport>> for Rows {
    fn from(rows: Vec<SubtaskCheckpointReport>) -> Self {
        Rows::new(rows)
    }
}

impl Deref for Rows {
    type Target = Vec<SubtaskCheckpointReport>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Rows {
    type Item = &'a SubtaskCheckpointReport;
    type IntoIter = std::slice::Iter<'a, SubtaskCheckpointReport>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl PartialEq for Rows {
    fn eq(&self, other: &Self) -> bool {
        self.shares(other) || *self.0 == *other.0
    }
}

impl Serialize for Rows {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// What the held rows are valid for: the history they belong to (its first id, as
/// `Coordinator::history_base`) and the deployment of the tasks they name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    pub history_base: u64,
    pub deployment: u64,
}

/// The history's reports without their diagnosis, keyed by (id, revision).
pub type BareReports = EntryCache<(u64, u64), CheckpointReport>;

/// The settled history entries' reports with their diagnosis, keyed by (id, revision) and
/// the config values the diagnosis quotes (RPC latency, storage throughput, file cost).
pub type DiagnosedReports = EntryCache<(u64, u64, (Micros, u64, Micros)), CheckpointReport>;

/// A value built from each history entry (its report, in [`super::stats`]), by
/// position, with the key it was built for: the entry's (id, revision) and whatever else
/// the value reads that can change (`K`).
#[derive(Clone, Debug)]
pub struct EntryCache<K, T> {
    scope: Scope,
    held: Vec<Option<(K, T)>>,
}

impl<K, T> Default for EntryCache<K, T> {
    fn default() -> Self {
        EntryCache {
            scope: Scope::default(),
            held: Vec::new(),
        }
    }
}

impl<K: PartialEq + Clone, T: Clone> EntryCache<K, T> {
    /// The value of history entry `index` for `key`: the held one when it was built for
    /// this `scope` and an equal key, else `build()`'s (then held).
    pub fn get(&mut self, scope: Scope, index: usize, key: K, build: impl FnOnce() -> T) -> T {
        if scope != self.scope {
            self.held.clear();
            self.scope = scope;
        }
        if let Some(Some((held, value))) = self.held.get(index) {
            if *held == key {
                return value.clone();
            }
        }
        let value = build();
        if self.held.len() <= index {
            self.held.resize_with(index + 1, || None);
        }
        self.held[index] = Some((key, value.clone()));
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(subtask: u32) -> SubtaskCheckpointReport {
        SubtaskCheckpointReport {
            operator: "op".into(),
            subtask,
            ..Default::default()
        }
    }

    const SCOPE: Scope = Scope {
        history_base: 0,
        deployment: 1,
    };

    #[test]
    fn an_unchanged_entry_is_built_once_and_shared() {
        let mut cache = EntryCache::default();
        let mut builds = 0;
        let mut build = || {
            builds += 1;
            Rows::new(vec![row(0), row(1)])
        };
        let a = cache.get(SCOPE, 0, (1, 5), &mut build);
        let b = cache.get(SCOPE, 0, (1, 5), &mut build);
        assert_eq!(builds, 1);
        assert!(a.shares(&b));
        assert_eq!(a, b);
    }

    #[test]
    fn a_new_revision_id_deployment_or_history_rebuilds() {
        let mut cache = EntryCache::default();
        let mut builds = 0;
        let mut build = |n: u32| {
            builds += 1;
            Rows::new(vec![row(n)])
        };
        let first = cache.get(SCOPE, 0, (1, 5), || build(0));
        let bumped = cache.get(SCOPE, 0, (1, 6), || build(1));
        assert_eq!(bumped[0].subtask, 1, "a write to the entry is seen");
        let other_id = cache.get(SCOPE, 0, (9, 6), || build(2));
        assert_eq!(other_id[0].subtask, 2);
        let redeployed = Scope {
            deployment: 2,
            ..SCOPE
        };
        cache.get(redeployed, 0, (9, 6), || build(3));
        let resubmitted = Scope {
            history_base: 9,
            ..redeployed
        };
        cache.get(resubmitted, 0, (9, 6), || build(4));
        assert_eq!(builds, 5);
        assert!(!first.shares(&bumped));
    }

    #[test]
    fn equal_lists_compare_equal_without_sharing_and_serialize_as_a_list() {
        let a = Rows::new(vec![row(3)]);
        let b = Rows::new(vec![row(3)]);
        assert!(!a.shares(&b));
        assert_eq!(a, b);
        assert_ne!(a, Rows::new(vec![row(4)]));
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&vec![row(3)]).unwrap()
        );
    }
}
