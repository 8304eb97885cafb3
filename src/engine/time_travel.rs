//! Time travel: seek a run to any earlier virtual time by replaying from the nearest kept
//! snapshot of the whole engine.
//!
//! [`Rewinder`] keeps a clone of the engine every `every` of virtual time while a host plays
//! it forward. Seeking to `t` clones the newest snapshot at or before `t` and runs it up to
//! `t`; because the engine is deterministic this is the same state a straight run reaches
//! at `t`. A snapshot does not know the actions the user applied after it was taken, so
//! seeking hands it the live run's recorded actions ([`Engine::adopt_recorded`]): playing
//! on from a seek replays the same run, later live actions at their instants. Seeking is
//! not a fork; a new user action after seeking back is ([`Engine::apply`] drops the
//! recorded actions after `t`), and the host then calls [`Rewinder::truncate_after`] so no
//! snapshot of the abandoned branch is used again. The forked engine's spec records the
//! new action, so its link describes the fork.
//!
//! Memory: a snapshot is a whole engine, and an engine grows with the run (sinks keep the
//! records they committed: ~100 bytes each, 25 MB for the `large` preset at 60 s), so the
//! snapshots are bounded both in count (`limit`) and in estimated bytes
//! ([`approx_bytes`], `budget`): when either is exceeded the snapshot with the closest
//! neighbours is dropped (the first and the newest stay) and new snapshots are spaced at
//! least as far apart as the closest kept ones.

use super::coordinator::{CheckpointStats, CompletedCheckpoint};
use super::log::LogEntry;
use super::record::Lineage;
use super::runtime::{Engine, Sample};
use super::sinks::Visible;
use super::task::OpState;
use super::time::Micros;
use std::mem::size_of;

/// Default snapshot spacing for hosts (virtual time): a seek replays at most this much
/// until the run is long enough to thin (measured in `tests/engine_time_travel.rs`).
pub const SNAPSHOT_EVERY: Micros = 1_000_000;
/// Default snapshot count bound for hosts.
pub const SNAPSHOT_LIMIT: usize = 32;
/// Default bound of the snapshots' estimated bytes for hosts. Measured (native, see
/// `tests/engine_time_travel.rs`) for `large` at 60 s: 7 snapshots (0, 6, 14, 22, 35, 47,
/// 59 s), a seek replays at most 13 s (~230 ms); 48 MB left gaps of 23 s, 96 MB cost
/// 160 MB of RSS.
pub const SNAPSHOT_BUDGET: usize = 64 << 20;

#[derive(Clone, Debug)]
pub struct Rewinder {
    every: Micros,
    snapshots: Vec<Engine>,
    /// [`approx_bytes`] of each snapshot.
    bytes: Vec<usize>,
    limit: usize,
    budget: usize,
}

impl Rewinder {
    /// Keeps a snapshot every `every` of virtual time, at most `limit` of them (thinned
    /// out, see [`Rewinder::observe`], so any run length fits).
    pub fn new(start: &Engine, every: Micros, limit: usize) -> Self {
        Rewinder {
            every: every.max(1),
            snapshots: vec![start.clone()],
            bytes: vec![approx_bytes(start)],
            limit: limit.max(2),
            budget: usize::MAX,
        }
    }

    /// The rewinder a host keeps: [`SNAPSHOT_EVERY`], [`SNAPSHOT_LIMIT`], [`SNAPSHOT_BUDGET`].
    pub fn for_host(start: &Engine) -> Self {
        Rewinder::new(start, SNAPSHOT_EVERY, SNAPSHOT_LIMIT).with_budget(SNAPSHOT_BUDGET)
    }

    /// Also bounds the snapshots' estimated bytes ([`approx_bytes`]) by `budget`.
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.budget = budget;
        self
    }

    /// Whether [`Rewinder::observe`] would keep a snapshot of `engine` now.
    pub fn due(&self, engine: &Engine) -> bool {
        let last = self.snapshots.last().map_or(0, |e| e.now);
        engine.now >= last + self.every
    }

    /// Call after advancing the engine: keeps a snapshot when one is due.
    pub fn observe(&mut self, engine: &Engine) {
        if self.due(engine) {
            self.snapshots.push(engine.clone());
            self.bytes.push(approx_bytes(engine));
            while self.snapshots.len() > 2
                && (self.snapshots.len() > self.limit || self.total_bytes() > self.budget)
            {
                self.drop_one();
            }
        }
    }

    /// Drops the snapshot whose neighbours are closest (the first and the newest stay;
    /// among equals the biggest goes), then spaces new snapshots at least as far apart
    /// as the closest kept ones, so thinning keeps the gaps even as the run grows.
    fn drop_one(&mut self) {
        let times = self.snapshot_times();
        let victim = (1..times.len() - 1)
            .min_by_key(|&i| {
                (
                    times[i + 1] - times[i - 1],
                    std::cmp::Reverse(self.bytes[i]),
                )
            })
            .expect("more than two snapshots");
        self.snapshots.remove(victim);
        self.bytes.remove(victim);
        let closest = self
            .snapshots
            .windows(2)
            .map(|w| w[1].now - w[0].now)
            .min()
            .unwrap_or(self.every);
        self.every = self.every.max(closest);
    }

    /// Estimated bytes held by the kept snapshots.
    pub fn total_bytes(&self) -> usize {
        self.bytes.iter().sum()
    }

    /// The engine of the run `live` as it was at virtual time `t`, with the actions
    /// `live` recorded after `t` still ahead of it. `Err` when no kept snapshot is an
    /// earlier instant of `live` (it was not observed through this rewinder).
    pub fn seek(&self, t: Micros, live: &Engine) -> Result<Engine, String> {
        let mut why = String::from("no snapshot at or before that time");
        for base in self.snapshots.iter().rev().filter(|e| e.now <= t) {
            let mut e = base.clone();
            match e.adopt_recorded(live.recorded_actions()) {
                Ok(()) => {
                    e.run_until(t);
                    return Ok(e);
                }
                Err(e) => why = e,
            }
        }
        Err(format!("cannot seek to {t} µs: {why}"))
    }

    /// The time of the snapshot a seek to `t` starts from (its replay distance is
    /// `t` minus this).
    pub fn base_time(&self, t: Micros) -> Micros {
        self.snapshots
            .iter()
            .rev()
            .find(|e| e.now <= t)
            .map_or(0, |e| e.now)
    }

    /// Current spacing of new snapshots (grows as thinning spreads them out).
    pub fn every(&self) -> Micros {
        self.every
    }

    /// Virtual times of the kept snapshots.
    pub fn snapshot_times(&self) -> Vec<Micros> {
        self.snapshots.iter().map(|e| e.now).collect()
    }

    /// Drops snapshots after `t` (after seeking back and forking the run there).
    pub fn truncate_after(&mut self, t: Micros) {
        let kept = self.snapshots.iter().filter(|e| e.now <= t).count();
        self.snapshots.truncate(kept);
        self.bytes.truncate(kept);
        if self.snapshots.is_empty() {
            unreachable!("the first snapshot is at time 0");
        }
    }
}

/// An estimate of the heap bytes a clone of `e` holds: the parts that grow with the run
/// (sink contents, keyed and checkpointed state, the log, samples, checkpoint history)
/// counted entry by entry, plus a fixed allowance per task and channel. Records in flight
/// share their lineage (`Rc`) between clones and count at their own size only.
pub fn approx_bytes(e: &Engine) -> usize {
    const NODE: usize = 16; // allocator and B-tree node overhead per entry, roughly
    let lineage = |l: &Lineage| size_of::<Lineage>() + l.path.capacity() * 4;
    let sinks: usize = e
        .external
        .iter()
        .flatten()
        .map(|x| {
            x.visible
                .keys()
                .map(|l| lineage(l) + size_of::<Visible>() + NODE)
                .sum::<usize>()
                + x.committed_txns.len() * (16 + NODE)
        })
        .sum();
    let record = size_of::<super::record::Record>();
    let state = |s: &OpState| match s {
        OpState::Keyed(m) => m.len() * (16 + NODE),
        OpState::Sink(t) => {
            (t.open.len() + t.pending.values().map(Vec::len).sum::<usize>()) * record
        }
        _ => 0,
    };
    let checkpoint = |c: &CompletedCheckpoint| {
        c.states.values().map(state).sum::<usize>()
            + c.input_state
                .values()
                .chain(c.output_state.values())
                .map(|r| r.len() * record + NODE)
                .sum::<usize>()
    };
    let coordinator = &e.coordinator;
    let checkpoints = coordinator.latest.iter().map(checkpoint).sum::<usize>()
        + coordinator
            .pending_data
            .values()
            .map(checkpoint)
            .sum::<usize>()
        + coordinator
            .history
            .iter()
            .map(|h| size_of::<CheckpointStats>() + h.subtasks.len() * 96)
            .sum::<usize>();
    let tasks: usize = e
        .tasks
        .iter()
        .map(|t| 2048 + state(&t.state) + t.checkpoints.len() * 128)
        .sum();
    let log: usize = e
        .log
        .entries
        .iter()
        .map(|l| size_of::<LogEntry>() + l.text.capacity())
        .sum();
    let samples: usize = e
        .samples
        .iter()
        .map(|s| size_of::<Sample>() + s.records.len() * 8 + s.activity.len() * 24)
        .sum();
    size_of::<Engine>()
        + sinks
        + checkpoints
        + tasks
        + e.channels.len() * 4096
        + log
        + samples
        + e.spec.events.len() * 128
}
