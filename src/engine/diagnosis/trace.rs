//! The barrier trace: the little the engine records for the diagnosis, at barrier time.
//!
//! Contract: per checkpoint and channel one [`Hop`] — when the sender put the barrier into
//! its result subpartition, how many data buffers were queued ahead of it there and how much
//! credit the subpartition held at that instant, when the barrier arrived at the receiving
//! input channel and when the receiving task processed it (`CheckpointedInputGate` handing
//! it to the barrier handler). Nothing here changes the run: the trace is written beside the
//! engine's state, never read by it, and takes no part in the event log or its hash.
//!
//! Flink keeps none of this (its web UI shows per-subtask phase durations only); the trace is
//! what lets the playground say *why* a barrier was late. Only the newest
//! [`KEPT_CHECKPOINTS`] checkpoints keep their hops, so a long run's trace (and the engine
//! snapshots time travel clones) stays small; older checkpoints are diagnosed from their
//! phase figures alone.

use super::super::time::Micros;
use std::collections::BTreeMap;

/// Checkpoints whose hops are kept (the newest ones).
pub const KEPT_CHECKPOINTS: usize = 16;

/// One barrier's way over one channel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Hop {
    pub from_task: usize,
    pub to_task: usize,
    /// The sender enqueued the barrier (the end of its synchronous phase).
    pub sent_at: Micros,
    /// Data buffers queued ahead of it in the subpartition (the one being filled included).
    pub queued_ahead: u32,
    /// Credit the subpartition held when the barrier was enqueued.
    pub credit: u32,
    /// Unaligned (priority) barrier: it overtook the queued buffers.
    pub priority: bool,
    pub arrived_at: Option<Micros>,
    /// Data buffers ahead of it in the input channel when it arrived (0 for a priority one).
    pub queued_at_receiver: u32,
    pub processed_at: Option<Micros>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BarrierTrace {
    /// Checkpoint id → channel → hop.
    pub hops: BTreeMap<u64, BTreeMap<usize, Hop>>,
}

impl BarrierTrace {
    pub fn sent(&mut self, id: u64, channel: usize, hop: Hop) {
        if !self.hops.contains_key(&id) {
            while self.hops.len() >= KEPT_CHECKPOINTS {
                self.hops.pop_first();
            }
        }
        self.hops.entry(id).or_default().insert(channel, hop);
    }

    pub fn arrived(&mut self, id: u64, channel: usize, now: Micros, ahead: u32) {
        if let Some(h) = self.hops.get_mut(&id).and_then(|m| m.get_mut(&channel)) {
            if h.arrived_at.is_none() {
                h.arrived_at = Some(now);
                h.queued_at_receiver = ahead;
            }
        }
    }

    pub fn processed(&mut self, id: u64, channel: usize, now: Micros) {
        if let Some(h) = self.hops.get_mut(&id).and_then(|m| m.get_mut(&channel)) {
            h.processed_at.get_or_insert(now);
        }
    }

    /// The hops of checkpoint `id` into task `t`.
    pub fn into_task(&self, id: u64, t: usize) -> impl Iterator<Item = (usize, &Hop)> {
        self.hops
            .get(&id)
            .into_iter()
            .flat_map(|m| m.iter())
            .filter(move |(_, h)| h.to_task == t)
            .map(|(&c, h)| (c, h))
    }
}
