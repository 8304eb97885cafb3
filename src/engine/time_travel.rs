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
//! Memory: a snapshot is a whole engine, and an engine grows with the run (the sinks'
//! kept records, ~100 bytes each, unless the host turns them off with
//! `Engine::keep_sink_records(false)`; state, checkpoint history, samples), so the
//! snapshots are bounded both in count (`limit`) and in estimated bytes
//! ([`approx_bytes`], `budget`): when either is exceeded the snapshot with the closest
//! neighbours is dropped (the first stays) and new snapshots are spaced at least as far
//! apart as the closest kept ones. The budget holds: [`Rewinder::total_bytes`] never
//! exceeds it after [`Rewinder::observe`] — a new snapshot that does not fit even after
//! every middle one was dropped is not kept (seeks past the newest kept snapshot then
//! replay further), and the spacing doubles so the engine is not cloned again at once.
//! The one exception is the start snapshot (the job at t = 0, before it ran), which
//! seeking cannot do without: it counts against the budget and is kept even if it alone
//! exceeds it (its size is bounded by the scenario's cost limits: tasks and channels,
//! see `scenario::cost`).

use super::coordinator::{CheckpointStats, CompletedCheckpoint};
use super::log::LogEntry;
use super::runtime::{Engine, Sample};
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
    /// The virtual time from which [`Rewinder::observe`] takes the next snapshot.
    next_due: Micros,
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
            next_due: start.now.saturating_add(every.max(1)),
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
        engine.now >= self.next_due
    }

    /// Call after advancing the engine: keeps a snapshot when one is due, within the
    /// count limit and the byte budget (see the module doc).
    pub fn observe(&mut self, engine: &Engine) {
        if !self.due(engine) {
            return;
        }
        let bytes = approx_bytes(engine);
        let start = self.bytes[0];
        if start.saturating_add(bytes) > self.budget {
            // It cannot fit whatever is dropped: keep what there is, try again later.
            self.every = self.every.saturating_mul(2);
            self.next_due = engine.now.saturating_add(self.every);
            return;
        }
        self.snapshots.push(engine.clone());
        self.bytes.push(bytes);
        while self.snapshots.len() > 2
            && (self.snapshots.len() > self.limit || self.total_bytes() > self.budget)
        {
            self.drop_one();
        }
        self.next_due = engine.now.saturating_add(self.every);
    }

    /// The byte budget of the snapshots.
    pub fn budget(&self) -> usize {
        self.budget
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
        self.snapshots.truncate(kept.max(1));
        self.bytes.truncate(kept.max(1));
        let last = self.snapshots.last().map_or(0, |e| e.now);
        self.next_due = last.saturating_add(self.every);
    }
}

/// An estimate of the heap bytes a clone of `e` holds: the parts that grow with the run
/// (sink contents, keyed and checkpointed state, the log, samples, checkpoint history)
/// counted entry by entry, plus a fixed allowance per task; a channel counts what it holds
/// ([`channel_bytes`]: its struct, its queues' capacity and the records in its buffers).
/// A record in flight counts at its own size only: its lineage is inline, and a branch
/// path (`record::Path`) is shared between clones.
pub fn approx_bytes(e: &Engine) -> usize {
    const NODE: usize = 16; // allocator and B-tree node overhead per entry, roughly
    let sinks: usize = e.external.iter().flatten().map(|x| x.approx_bytes()).sum();
    let record = size_of::<super::record::Record>();
    let state = |s: &OpState| match s {
        OpState::Keyed(m) => m.len() * (16 + NODE),
        OpState::Sink(t) => {
            (t.open.len() + t.pending.values().map(Vec::len).sum::<usize>()) * record
        }
        _ => 0,
    };
    let checkpoint = |c: &CompletedCheckpoint| {
        c.states
            .values()
            .flat_map(|s| s.operators.iter().map(|(_, s)| state(s)))
            .sum::<usize>()
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
        .map(|t| {
            2048 + t.chain.ops.iter().map(|o| state(&o.state)).sum::<usize>()
                + t.checkpoints.len() * 128
        })
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
        .map(|s| {
            size_of::<Sample>() + s.records.len() * 8 + s.activity.len() * 24 + s.hard.len() * 8
        })
        .sum();
    size_of::<Engine>()
        + sinks
        + checkpoints
        + tasks
        + e.channels.iter().map(channel_bytes).sum::<usize>()
        + log
        + samples
        + e.spec.events.len() * 128
}

/// Heap bytes a clone of channel `c` holds. A fixed 4 KB per channel (the estimate before
/// issue 19) made a hash exchange at parallelism 128 (16,384 channels) weigh the whole
/// 64 MB budget before it held a record, so only its start snapshot fitted; an idle
/// channel is its struct (~400 bytes) with empty queues.
pub fn channel_bytes(c: &super::network::Channel) -> usize {
    use super::network::{Buffer, InFlight, Item};
    const NODE: usize = 16;
    let record = size_of::<super::record::Record>();
    let buffer = |b: &Buffer| b.records.capacity() * record + NODE;
    let item = |i: &Item| match i {
        Item::Data(b) => buffer(b),
        Item::Event { .. } => 0,
    };
    size_of::<super::network::Channel>()
        + (c.queue.capacity() + c.received.capacity()) * size_of::<Item>()
        + c.in_flight.capacity() * size_of::<InFlight>()
        + c.queue
            .iter()
            .chain(c.received.iter())
            .map(item)
            .sum::<usize>()
        + c.in_flight.iter().map(|f| item(&f.item)).sum::<usize>()
        + c.building.as_ref().map_or(0, buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_budget_holds_whatever_the_snapshots_weigh() {
        let doc = crate::scenario::preset("large").unwrap();
        let spec = crate::scenario::to_spec(&doc).unwrap();
        let mut engine = Engine::new(spec).unwrap();
        let start = approx_bytes(&engine);
        let mut probe = engine.clone();
        probe.run_until(5_000_000);
        let at_5s = approx_bytes(&probe);
        // Room for the start and about two snapshots of 5 s: later ones are bigger.
        let budget = start + 2 * at_5s;
        let mut rewinder = Rewinder::new(&engine, 500_000, 32).with_budget(budget);
        let mut t = 0;
        while t < 20_000_000 {
            t += 100_000;
            engine.run_until(t);
            rewinder.observe(&engine);
            assert!(
                rewinder.total_bytes() <= rewinder.budget(),
                "{} > {} at {t}",
                rewinder.total_bytes(),
                rewinder.budget()
            );
        }
        let times = rewinder.snapshot_times();
        assert!(times.len() >= 2, "{times:?}");
        // Seeking still gives the state a straight run reaches.
        let seek = rewinder.seek(17_300_000, &engine).unwrap();
        let mut straight = Engine::new(engine.spec.clone()).unwrap();
        straight.run_until(17_300_000);
        assert_eq!(seek.event_hash(), straight.event_hash());
    }

    #[test]
    fn a_snapshot_too_big_for_the_budget_is_not_kept() {
        let doc = crate::scenario::preset("healthy").unwrap();
        let mut engine = Engine::new(crate::scenario::to_spec(&doc).unwrap()).unwrap();
        let start = approx_bytes(&engine);
        let mut rewinder = Rewinder::new(&engine, 1_000_000, 32).with_budget(start + 1);
        for s in 1..=5 {
            engine.run_until(s * 1_000_000);
            rewinder.observe(&engine);
            assert!(rewinder.total_bytes() <= rewinder.budget());
        }
        assert_eq!(rewinder.snapshot_times(), vec![0]);
        assert!(rewinder.every() > 1_000_000, "spaced out after a miss");
    }
}
