//! Time travel: seek a run to any earlier virtual time by replaying from the nearest kept
//! snapshot of the whole engine.
//!
//! [`Rewinder`] keeps a clone of the engine every `every` of virtual time while a host plays
//! it forward. Seeking to `t` clones the newest snapshot at or before `t` and runs it up to
//! `t`; because the engine is deterministic this is the same state a straight run reaches
//! at `t`. Playing on from there after a user action forks the run: the action is recorded
//! in the forked engine's spec, so its link describes the fork.

use super::runtime::Engine;
use super::time::Micros;

#[derive(Clone, Debug)]
pub struct Rewinder {
    every: Micros,
    snapshots: Vec<Engine>,
    limit: usize,
}

impl Rewinder {
    /// Keeps a snapshot every `every` of virtual time, at most `limit` of them (older ones
    /// are thinned out, keeping every other one, so any run length fits).
    pub fn new(start: &Engine, every: Micros, limit: usize) -> Self {
        Rewinder {
            every: every.max(1),
            snapshots: vec![start.clone()],
            limit: limit.max(2),
        }
    }

    /// Call after advancing the engine: keeps a snapshot when one is due.
    pub fn observe(&mut self, engine: &Engine) {
        let last = self.snapshots.last().map_or(0, |e| e.now);
        if engine.now >= last + self.every {
            self.snapshots.push(engine.clone());
            if self.snapshots.len() > self.limit {
                let kept: Vec<Engine> = self
                    .snapshots
                    .drain(..)
                    .enumerate()
                    .filter(|(i, _)| i % 2 == 0)
                    .map(|(_, e)| e)
                    .collect();
                self.snapshots = kept;
                self.every *= 2;
            }
        }
    }

    /// The engine as it was at virtual time `t`.
    pub fn seek(&self, t: Micros) -> Engine {
        let base = self
            .snapshots
            .iter()
            .rev()
            .find(|e| e.now <= t)
            .unwrap_or(&self.snapshots[0]);
        let mut e = base.clone();
        e.run_until(t);
        e
    }

    /// Virtual times of the kept snapshots.
    pub fn snapshot_times(&self) -> Vec<Micros> {
        self.snapshots.iter().map(|e| e.now).collect()
    }

    /// Drops snapshots after `t` (after seeking back and forking the run there).
    pub fn truncate_after(&mut self, t: Micros) {
        self.snapshots.retain(|e| e.now <= t);
        if self.snapshots.is_empty() {
            unreachable!("the first snapshot is at time 0");
        }
    }
}
