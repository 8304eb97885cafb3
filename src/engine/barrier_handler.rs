//! Barrier handling as an explicit state machine, in Flink's terms
//! (`SingleCheckpointBarrierHandler` with its `BarrierHandlerState`s, and
//! `CheckpointBarrierTracker` for at-least-once).
//!
//! The state is plain data in [`BarrierHandler`]; the transitions are engine operations
//! below because they act on channels (block, capture, unblock) and trigger snapshots.
//! - Aligned: a barrier blocks its channel; when every open channel delivered its barrier
//!   the task snapshots, forwards the barrier behind its queued output and unblocks.
//! - Unaligned: the first barrier (a priority event that overtook the queued input) starts
//!   the sync phase at once: queued input before each channel's barrier is captured, later
//!   arrivals are captured until that channel's barrier, and the task snapshots and puts
//!   unaligned barriers at the head of its outputs. The input side finishes when every
//!   barrier arrived.
//! - Alternating (unaligned enabled with an aligned-checkpoint timeout): starts aligned and
//!   switches to unaligned when the time since the trigger exceeds the timeout — by a timer,
//!   eagerly on a barrier, or when an unaligned barrier arrives from upstream.
//! - Tracker (at-least-once): never blocks; snapshots once every open channel's barrier was seen.

use super::config::{BarrierKind, CheckpointingMode, EngineConfig};
use super::log::LogKind;
use super::network::{Barrier, Event, Item, Persist};
use super::runtime::{Engine, Ev};
use super::task::{Mail, TaskStatus};
use super::time::Micros;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum HandlerState {
    WaitingForFirstBarrier,
    CollectingBarriers,
    AlternatingWaitingForFirstBarrier,
    AlternatingCollectingBarriers,
    AlternatingWaitingForFirstBarrierUnaligned,
    AlternatingCollectingBarriersUnaligned,
    /// `CheckpointBarrierTracker` (at-least-once).
    BarrierTracker,
}

impl HandlerState {
    pub fn name(self) -> &'static str {
        match self {
            HandlerState::WaitingForFirstBarrier => "WaitingForFirstBarrier",
            HandlerState::CollectingBarriers => "CollectingBarriers",
            HandlerState::AlternatingWaitingForFirstBarrier => "AlternatingWaitingForFirstBarrier",
            HandlerState::AlternatingCollectingBarriers => "AlternatingCollectingBarriers",
            HandlerState::AlternatingWaitingForFirstBarrierUnaligned => {
                "AlternatingWaitingForFirstBarrierUnaligned"
            }
            HandlerState::AlternatingCollectingBarriersUnaligned => {
                "AlternatingCollectingBarriersUnaligned"
            }
            HandlerState::BarrierTracker => "CheckpointBarrierTracker",
        }
    }
}

#[derive(Clone, Debug)]
pub struct BarrierHandler {
    pub state: HandlerState,
    pub alternating: bool,
    pub current_id: u64,
    pub pending: bool,
    pub unaligned: bool,
    /// Channels whose barrier (or end of partition) arrived for the current checkpoint.
    pub aligned_channels: BTreeSet<usize>,
    pub target: usize,
    pub last_cancelled_or_completed: u64,
    pub trigger_ts: Micros,
    /// Aligned barriers announced ahead of their position: channel → barrier.
    pub announcements: BTreeMap<usize, Barrier>,
    /// At-least-once: checkpoint id → channels seen.
    pub tracked: BTreeMap<u64, BTreeSet<usize>>,
}

impl BarrierHandler {
    pub fn new(config: &EngineConfig) -> Self {
        let (state, alternating) = match (config.mode, config.unaligned) {
            (CheckpointingMode::AtLeastOnce, _) => (HandlerState::BarrierTracker, false),
            (_, true) => (HandlerState::AlternatingWaitingForFirstBarrier, true),
            (_, false) => (HandlerState::WaitingForFirstBarrier, false),
        };
        BarrierHandler {
            state,
            alternating,
            current_id: 0,
            pending: false,
            unaligned: false,
            aligned_channels: BTreeSet::new(),
            target: 0,
            last_cancelled_or_completed: 0,
            trigger_ts: 0,
            announcements: BTreeMap::new(),
            tracked: BTreeMap::new(),
        }
    }

    fn waiting_state(&self) -> HandlerState {
        if self.alternating {
            HandlerState::AlternatingWaitingForFirstBarrier
        } else {
            HandlerState::WaitingForFirstBarrier
        }
    }
}

impl Engine {
    pub(crate) fn handler_barrier(&mut self, t: usize, c: usize, barrier: Barrier, priority: bool) {
        if self.tasks[t].handler.state == HandlerState::BarrierTracker {
            return self.tracker_barrier(t, c, barrier);
        }
        let id = barrier.id;
        let h = &self.tasks[t].handler;
        let obsolete = id < h.current_id
            || (id == h.current_id && !h.pending)
            || id <= h.last_cancelled_or_completed;
        if obsolete {
            if barrier.kind.blocks_upstream() {
                self.block_channel(c);
                self.unblock_channel(c);
            }
            return;
        }
        // A newer barrier subsumes the pending checkpoint first, whatever happens to the
        // newer one (`checkNewCheckpoint` → `cancelSubsumedCheckpoint`); otherwise the
        // branches below would move on and leave the old one half-done at this task.
        if self.tasks[t].handler.pending && id > self.tasks[t].handler.current_id {
            let old = self.tasks[t].handler.current_id;
            self.abort_pending_at_task(t, old, "CHECKPOINT_DECLINED_SUBSUMED", true);
        }
        if self.tasks[t].aborted.contains(&id) {
            // Notified as aborted before its barrier came: skip it, tell downstream.
            self.tasks[t].handler.current_id = id;
            self.tasks[t].handler.last_cancelled_or_completed = id;
            if barrier.kind.blocks_upstream() {
                self.block_channel(c);
                self.unblock_channel(c);
            }
            self.broadcast_cancel(t, id);
            return;
        }
        if self.tasks[t].status == TaskStatus::Recovering {
            self.tasks[t].handler.current_id = id;
            self.tasks[t].handler.last_cancelled_or_completed = id;
            if barrier.kind.blocks_upstream() {
                self.block_channel(c);
                self.unblock_channel(c);
            }
            self.decline(t, id, "CHECKPOINT_DECLINED_TASK_NOT_READY");
            return;
        }
        if !self.tasks[t].handler.pending {
            self.start_alignment(t, barrier);
        }
        self.tasks[t].handler.aligned_channels.insert(c);
        self.tasks[t].handler.announcements.remove(&c);
        if barrier.kind.blocks_upstream() {
            self.block_channel(c);
        }
        let unaligned_barrier = barrier.kind.is_unaligned() || priority;
        let h = &self.tasks[t].handler;
        if h.unaligned {
            self.channels[c].persist = Persist::BarrierReceived(id);
        } else if unaligned_barrier {
            self.switch_to_unaligned(t, false);
        } else if h.alternating
            && barrier.kind == BarrierKind::TimeoutableAligned
            && self.timed_out(t)
        {
            self.switch_to_unaligned(t, true);
        } else {
            self.tasks[t].handler.state = if h.alternating {
                HandlerState::AlternatingCollectingBarriers
            } else {
                HandlerState::CollectingBarriers
            };
        }
        self.check_alignment_complete(t);
    }

    fn timed_out(&self, t: usize) -> bool {
        let h = &self.tasks[t].handler;
        self.config.aligned_checkpoint_timeout > 0
            && self.now >= h.trigger_ts + self.config.aligned_checkpoint_timeout
    }

    /// First barrier (or announcement-driven start) of a checkpoint at this task.
    fn start_alignment(&mut self, t: usize, barrier: Barrier) {
        let open = self.tasks[t]
            .inputs
            .iter()
            .filter(|&&c| !self.channels[c].closed)
            .count();
        let h = &mut self.tasks[t].handler;
        h.current_id = barrier.id;
        h.pending = true;
        h.unaligned = false;
        h.aligned_channels.clear();
        h.target = open;
        h.trigger_ts = barrier.timestamp;
        self.begin_subtask_checkpoint(t, barrier);
        // Only a timeout-capable barrier registers the alignment timer (`checkNewCheckpoint`:
        // `barrier.getCheckpointOptions().isTimeoutable()`). A forced-aligned one, on an
        // input of a task with a pointwise or broadcast input, is not: that task aligns
        // however long it takes, and only its outputs may turn unaligned.
        if self.tasks[t].handler.alternating && barrier.kind == BarrierKind::TimeoutableAligned {
            let at = barrier.timestamp + self.config.aligned_checkpoint_timeout;
            if at > self.now {
                self.schedule(at, Ev::Mail(t, Mail::AlignmentTimeout(barrier.id)));
            }
        }
    }

    /// Channels still open that count for the current checkpoint.
    fn check_alignment_complete(&mut self, t: usize) {
        let h = &self.tasks[t].handler;
        if !h.pending || h.aligned_channels.len() < h.target {
            return;
        }
        let id = h.current_id;
        let unaligned = h.unaligned;
        let waiting = h.waiting_state();
        self.alignment_finished(t, id);
        if !unaligned {
            self.perform_checkpoint(t, id, false);
        } else {
            self.finish_input(t, id);
        }
        let h = &mut self.tasks[t].handler;
        h.pending = false;
        h.state = waiting;
        self.unblock_all(t);
    }

    fn unblock_all(&mut self, t: usize) {
        for c in self.tasks[t].inputs.clone() {
            self.unblock_channel(c);
            if let Persist::BarrierPending(_) | Persist::BarrierReceived(_) =
                self.channels[c].persist
            {
                self.channels[c].persist = Persist::Idle;
            }
        }
    }

    /// Switches the current checkpoint to unaligned: Flink's `checkpointStarted` on every
    /// input (capture what is queued before each channel's barrier, keep capturing where
    /// the barrier has not come), then the sync phase with unaligned output barriers.
    pub(crate) fn switch_to_unaligned(&mut self, t: usize, timed_out: bool) {
        let id = self.tasks[t].handler.current_id;
        self.tasks[t].handler.unaligned = true;
        self.tasks[t].handler.state = HandlerState::AlternatingCollectingBarriersUnaligned;
        if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
            cp.unaligned = true;
            cp.timed_out = timed_out;
        }
        // The deserializer's unread records come first, then each channel's queue.
        let mut overtaken = self.capture_current_buffer(t, id);
        for c in self.tasks[t].inputs.clone() {
            if self.channels[c].closed && self.channels[c].received.is_empty() {
                continue;
            }
            let seen = self.tasks[t].handler.aligned_channels.contains(&c);
            let barrier_pos = self.channels[c].received.iter().position(
                |i| matches!(i, Item::Event { event: Event::Barrier(b), .. } if b.id == id),
            );
            // Captured: the data sent before this channel's barrier. A priority barrier
            // already overtook everything queued here; an aligned one is behind its data.
            let len = self.channels[c].received.len();
            let upto = match barrier_pos {
                _ if seen => len,
                Some(pos) if self.channels[c].received[pos].is_priority() => len,
                Some(pos) => pos,
                None => len,
            };
            overtaken += self.capture_queued_input(t, id, c, upto);
            if seen {
                self.channels[c].persist = Persist::BarrierReceived(id);
            } else if let Some(pos) = barrier_pos {
                // An announced aligned barrier is pulled ahead of the data it was queued behind.
                let item = self.channels[c].received.remove(pos).expect("found above");
                if let Item::Event {
                    event: Event::Barrier(b),
                    ..
                } = item
                {
                    if b.kind.blocks_upstream() {
                        self.block_channel(c);
                    }
                }
                self.tasks[t].handler.aligned_channels.insert(c);
                self.tasks[t].handler.announcements.remove(&c);
                self.channels[c].persist = Persist::BarrierReceived(id);
            } else {
                self.channels[c].persist = Persist::BarrierPending(id);
            }
        }
        let name = self.tasks[t].name.clone();
        let why = if timed_out {
            " (aligned-checkpoint timeout passed)"
        } else {
            ""
        };
        self.log.push(
            self.now,
            LogKind::Barrier,
            format!("checkpoint {id}: unaligned barrier at {name}{why}: overtook {overtaken} input buffers; sync phase starts"),
        );
        self.perform_checkpoint(t, id, true);
    }

    pub(crate) fn handler_cancel_marker(&mut self, t: usize, _c: usize, id: u64) {
        if self.tasks[t].handler.state == HandlerState::BarrierTracker {
            if self.tasks[t].handler.tracked.remove(&id).is_some() {
                self.abort_subtask_checkpoint(t, id);
                self.broadcast_cancel(t, id);
            }
            return;
        }
        let h = &self.tasks[t].handler;
        if id > h.current_id || (id == h.current_id && h.pending) {
            if h.pending {
                let cur = h.current_id;
                self.abort_pending_at_task(
                    t,
                    cur,
                    "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER",
                    false,
                );
            }
            let h = &mut self.tasks[t].handler;
            h.current_id = id;
            h.last_cancelled_or_completed = id;
            self.decline(t, id, "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER");
            self.broadcast_cancel(t, id);
        }
    }

    pub(crate) fn handler_end_of_partition(&mut self, t: usize, c: usize) {
        if self.tasks[t].handler.state == HandlerState::BarrierTracker {
            let ids: Vec<u64> = self.tasks[t].handler.tracked.keys().copied().collect();
            for id in ids {
                self.tracker_maybe_complete(t, id);
            }
            return;
        }
        if self.tasks[t].handler.pending {
            // checkpoints-after-tasks-finish: an ended channel counts as aligned.
            self.tasks[t].handler.aligned_channels.insert(c);
            if self.tasks[t].handler.unaligned {
                self.channels[c].persist =
                    Persist::BarrierReceived(self.tasks[t].handler.current_id);
            }
            self.check_alignment_complete(t);
        }
    }

    pub(crate) fn handler_announcement(&mut self, t: usize, c: usize) {
        let Some(barrier) = self.channels[c]
            .received
            .iter()
            .rev()
            .find_map(|i| match i {
                Item::Event {
                    event: Event::Barrier(b),
                    ..
                } if b.kind == BarrierKind::TimeoutableAligned => Some(*b),
                _ => None,
            })
        else {
            return;
        };
        let h = &self.tasks[t].handler;
        if !h.alternating
            || barrier.id < h.current_id
            || barrier.id <= h.last_cancelled_or_completed
        {
            return;
        }
        if h.pending && h.current_id == barrier.id && h.unaligned {
            // Already unaligned: the announced barrier is prioritized at once.
            self.switch_channel_barrier_to_priority(t, c, barrier.id);
            return;
        }
        self.tasks[t].handler.announcements.insert(c, barrier);
        if !self.tasks[t].handler.pending {
            self.tasks[t].handler.state = HandlerState::AlternatingWaitingForFirstBarrier;
        }
        let at = barrier.timestamp + self.config.aligned_checkpoint_timeout;
        self.schedule(
            at.max(self.now),
            Ev::Mail(t, Mail::AlignmentTimeout(barrier.id)),
        );
    }

    fn switch_channel_barrier_to_priority(&mut self, t: usize, c: usize, id: u64) {
        let pos = self.channels[c]
            .received
            .iter()
            .position(|i| matches!(i, Item::Event { event: Event::Barrier(b), .. } if b.id == id));
        if let Some(pos) = pos {
            self.capture_queued_input(t, id, c, pos);
            self.channels[c].received.remove(pos);
            self.block_channel(c);
            self.channels[c].persist = Persist::BarrierReceived(id);
            self.tasks[t].handler.aligned_channels.insert(c);
            self.tasks[t].handler.announcements.remove(&c);
            self.check_alignment_complete(t);
        }
    }

    pub(crate) fn handler_alignment_timeout(&mut self, t: usize, id: u64) {
        let h = &self.tasks[t].handler;
        if !h.alternating || id < h.current_id || id <= h.last_cancelled_or_completed {
            return;
        }
        if h.pending && h.current_id == id {
            if !h.unaligned {
                self.switch_to_unaligned(t, true);
                self.check_alignment_complete(t);
            }
            return;
        }
        if h.pending {
            return;
        }
        // A checkpoint notified as aborted, or a task still recovering, starts nothing here:
        // the barrier stays queued and `handler_barrier` skips or declines it when read.
        if self.tasks[t].aborted.contains(&id) || self.tasks[t].status == TaskStatus::Recovering {
            return;
        }
        // Timed out before any barrier was processed: prioritize an announced barrier.
        let announced = self.tasks[t]
            .handler
            .announcements
            .iter()
            .find(|(_, b)| b.id == id)
            .map(|(c, b)| (*c, *b));
        if let Some((c, barrier)) = announced {
            self.tasks[t].handler.state = HandlerState::AlternatingWaitingForFirstBarrierUnaligned;
            let pos = self.channels[c].received.iter().position(
                |i| matches!(i, Item::Event { event: Event::Barrier(b), .. } if b.id == id),
            );
            if let Some(pos) = pos {
                self.start_alignment(t, barrier);
                self.tasks[t].handler.aligned_channels.insert(c);
                // The barrier leaves the queue; switch_to_unaligned captures the data that
                // was ahead of it (everything queued on a channel whose barrier is in).
                self.channels[c].received.remove(pos);
                self.block_channel(c);
                self.tasks[t].handler.announcements.remove(&c);
                self.switch_to_unaligned(t, true);
                self.check_alignment_complete(t);
            }
        }
    }

    /// Bytes processed while aligning (Flink's `bytesProcessedDuringAlignment`).
    pub(crate) fn handler_record_processed(&mut self, t: usize, bytes: u64) {
        let h = &self.tasks[t].handler;
        if h.pending && !h.unaligned {
            let id = h.current_id;
            if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
                cp.processed_bytes += bytes;
            }
        }
    }

    /// Aborts the checkpoint pending at this task's handler.
    pub(crate) fn abort_pending_at_task(&mut self, t: usize, id: u64, reason: &str, decline: bool) {
        let h = &mut self.tasks[t].handler;
        if h.pending && h.current_id == id {
            h.pending = false;
            h.unaligned = false;
            h.state = h.waiting_state();
            h.aligned_channels.clear();
            self.unblock_all(t);
        }
        self.abort_subtask_checkpoint(t, id);
        if decline {
            self.decline(t, id, reason);
            self.broadcast_cancel(t, id);
        }
    }

    pub(crate) fn broadcast_cancel(&mut self, t: usize, id: u64) {
        for p in self.tasks[t].partitions.clone() {
            for c in self.partitions[p].channels.clone() {
                self.enqueue_event(c, Event::CancelCheckpointMarker(id));
            }
        }
    }

    fn tracker_barrier(&mut self, t: usize, c: usize, barrier: Barrier) {
        let id = barrier.id;
        if id <= self.tasks[t].handler.last_cancelled_or_completed
            || self.tasks[t].aborted.contains(&id)
        {
            return;
        }
        if let std::collections::btree_map::Entry::Vacant(slot) =
            self.tasks[t].handler.tracked.entry(id)
        {
            slot.insert(BTreeSet::new());
            self.tasks[t].handler.current_id = self.tasks[t].handler.current_id.max(id);
            self.begin_subtask_checkpoint(t, barrier);
            // Flink tracks at most 50 pending checkpoints.
            while self.tasks[t].handler.tracked.len() > 50 {
                let oldest = *self.tasks[t]
                    .handler
                    .tracked
                    .keys()
                    .next()
                    .expect("non-empty");
                self.tasks[t].handler.tracked.remove(&oldest);
                self.abort_subtask_checkpoint(t, oldest);
            }
        }
        self.tasks[t]
            .handler
            .tracked
            .get_mut(&id)
            .expect("inserted")
            .insert(c);
        self.tracker_maybe_complete(t, id);
    }

    fn tracker_maybe_complete(&mut self, t: usize, id: u64) {
        let open_or_seen = self.tasks[t].inputs.iter().all(|&c| {
            self.tasks[t]
                .handler
                .tracked
                .get(&id)
                .is_some_and(|s| s.contains(&c))
                || self.channels[c].closed
        });
        if !open_or_seen {
            return;
        }
        self.alignment_finished(t, id);
        self.perform_checkpoint(t, id, false);
        let h = &mut self.tasks[t].handler;
        h.last_cancelled_or_completed = h.last_cancelled_or_completed.max(id);
        let older: Vec<u64> = h.tracked.range(..=id).map(|(k, _)| *k).collect();
        for k in older {
            self.tasks[t].handler.tracked.remove(&k);
            if k != id {
                self.abort_subtask_checkpoint(t, k);
            }
        }
    }
}
