//! The barrier handler of one subtask's input, as a component that owns its state and
//! touches nothing else: Flink 2.x `SingleCheckpointBarrierHandler` with its
//! `BarrierHandlerState`s (exactly-once, aligned or alternating), and
//! `CheckpointBarrierTracker` (at-least-once), both on top of `CheckpointBarrierHandler`'s
//! alignment metrics.
//!
//! Contract: the handler is driven through narrow inputs — a barrier processed from a
//! channel ([`BarrierHandler::barrier_received`]), a barrier announcement
//! ([`BarrierHandler::announcement_received`]), a `CancelCheckpointMarker`, an
//! `EndOfPartition`, the alignment timer, and the bytes of every buffer the task polled
//! ([`BarrierHandler::add_processed_bytes`]) — and acts only by returning
//! [`HandlerAction`]s, in the order Flink performs them, which the engine glue
//! (`checkpointed_input.rs`) applies: block or resume a channel, prioritize an announced
//! barrier, start capturing in-flight input, trigger the snapshot, end the input side of an
//! unaligned checkpoint, abort (decline + cancel marker), record alignment metrics, arm the
//! alignment timer. It reads no clock of its own ([`Ctx`] brings the virtual time and the
//! aligned-checkpoint timeout) and knows channels only by id, so unit tests drive it alone,
//! as Flink's `SingleCheckpointBarrierHandlerTest`, `AlternatingCheckpointsTest` and
//! `CheckpointBarrierTrackerTest` do.
//!
//! What it deliberately does not do: a checkpoint the coordinator aborted or expired is not
//! known here (Flink's `notifyCheckpointAborted` never reaches the handler; the subtask
//! side skips it when the handler triggers it, `SubtaskCheckpointCoordinatorImpl
//! .checkpointState`). Simplifications: one handler per task over the union of its gates
//! (Flink has one per task too, over all gates); `checkpoints-after-tasks-finish` is always
//! on (the playground has no switch for it); a channel is an index, not a
//! `(gate, channel)` pair.

use super::config::{BarrierKind, CheckpointingMode, EngineConfig};
use super::network::Barrier;
use super::time::Micros;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// An input channel of the task, as the engine numbers channels.
pub type ChannelId = usize;

/// `CheckpointFailureReason`s the handler aborts with.
pub const DECLINED_SUBSUMED: &str = "CHECKPOINT_DECLINED_SUBSUMED";
pub const DECLINED_ON_CANCELLATION_BARRIER: &str = "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER";

/// Flink's `CheckpointBarrierTracker.MAX_CHECKPOINTS_TO_TRACK`.
pub const MAX_CHECKPOINTS_TO_TRACK: usize = 50;

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

/// What the handler asks its task to do (Flink's `BarrierHandlerState.Controller`,
/// `ChannelState`, `CheckpointableInput` and `CheckpointableTask` calls).
#[derive(Clone, Debug, PartialEq)]
pub enum HandlerAction {
    /// `ChannelState.blockChannel`: the task reads nothing more from this channel (its
    /// sender already blocked the subpartition when it sent the aligned barrier).
    Block(ChannelId),
    /// `CheckpointableInput.resumeConsumption`: the sender may send again.
    Resume(ChannelId),
    /// `markAlignmentStart`: the first barrier of this checkpoint was processed (start delay).
    AlignmentStarted(Barrier),
    /// `markAlignmentEnd`: alignment duration ends now; bytes polled since its start.
    AlignmentEnded { id: u64, processed_bytes: u64 },
    /// `CheckpointableInput.convertToPriorityEvent`: move the announced barrier of this
    /// checkpoint to the head of the channel, as a priority event.
    Prioritize { channel: ChannelId, id: u64 },
    /// `Controller.initInputsCheckpoint` + `checkpointStarted` on every input: capture the
    /// unread input before each channel's barrier (`received` lists the channels whose
    /// barrier was already processed) and persist later arrivals until each barrier.
    StartCapture {
        barrier: Barrier,
        received: Vec<ChannelId>,
        timed_out: bool,
    },
    /// `Controller.triggerGlobalCheckpoint` → `triggerCheckpointOnBarrier` → the task's
    /// `checkpointState` (snapshot, barriers downstream).
    Trigger { barrier: Barrier, unaligned: bool },
    /// `checkpointStopped` on every input after the last barrier of an unaligned checkpoint:
    /// its input channel state is complete.
    InputFinished(u64),
    /// `notifyAbort` → `abortCheckpointOnBarrier`: decline, cancel marker downstream, abort
    /// the channel-state writer.
    Abort { id: u64, reason: &'static str },
    /// A checkpoint the handler stops tracking without telling anyone (the tracker's
    /// subsumed or overflowing entries, an older one replaced by a cancel marker): drop what
    /// the task holds for it locally.
    Discard(u64),
    /// `registerAlignmentTimer`: call [`BarrierHandler::alignment_timer`] at `at`.
    ScheduleTimer { id: u64, at: Micros },
}

/// What the handler reads from its task at each input: the virtual time and the
/// aligned-checkpoint timeout (in Flink the barrier's `CheckpointOptions` carry it).
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub now: Micros,
    pub aligned_timeout: Micros,
}

/// One tracked checkpoint of the at-least-once tracker (`CheckpointBarrierCount`).
#[derive(Clone, Debug)]
struct BarrierCount {
    id: u64,
    barrier: Option<Barrier>,
    channels: BTreeSet<ChannelId>,
    target: usize,
    aborted: bool,
}

impl BarrierCount {
    fn mark(&mut self, c: ChannelId) -> usize {
        self.channels.insert(c);
        self.channels.len()
    }
    /// True the first time.
    fn mark_aborted(&mut self) -> bool {
        !std::mem::replace(&mut self.aborted, true)
    }
}

#[derive(Clone, Debug)]
pub struct BarrierHandler {
    state: HandlerState,
    alternating: bool,
    /// `currentCheckpointId` (0 = none yet; checkpoint ids start at 1).
    current_id: u64,
    last_cancelled_or_completed: u64,
    pending_barrier: Option<Barrier>,
    /// Channels whose barrier (or end of partition) counted for the current checkpoint.
    aligned: BTreeSet<ChannelId>,
    target: usize,
    num_open: usize,
    /// `ChannelState.blockedChannels`.
    blocked: BTreeSet<ChannelId>,
    /// `ChannelState.sequenceNumberInAnnouncedChannels`: channel → announced checkpoint.
    announced: BTreeMap<ChannelId, u64>,
    /// The checkpoint the armed alignment timer is for.
    timer: Option<u64>,
    /// `allBarriersReceivedFuture.isDone()` for the current checkpoint.
    all_received_done: bool,
    /// The switch to unaligned came from the timeout (not from an unaligned barrier).
    timed_out: bool,
    /// `startAlignmentCheckpointId` while an alignment is measured.
    alignment: Option<u64>,
    bytes_processed_during_alignment: u64,
    // ---- CheckpointBarrierTracker ----
    tracked: VecDeque<BarrierCount>,
    latest_pending: u64,
}

impl BarrierHandler {
    /// The handler `InputProcessorUtil.createCheckpointBarrierHandler` picks: the tracker
    /// for at-least-once, `alternating` with unaligned checkpoints enabled (whatever the
    /// timeout: the barrier's options decide), else `aligned`.
    pub fn new(config: &EngineConfig, num_open_channels: usize) -> Self {
        let state = match (config.mode, config.unaligned) {
            (CheckpointingMode::AtLeastOnce, _) => HandlerState::BarrierTracker,
            (_, true) => HandlerState::AlternatingWaitingForFirstBarrier,
            (_, false) => HandlerState::WaitingForFirstBarrier,
        };
        Self::with_state(state, num_open_channels)
    }

    /// A handler starting in `state` (one of the three initial ones) over `num_open` channels.
    pub fn with_state(state: HandlerState, num_open: usize) -> Self {
        BarrierHandler {
            state,
            alternating: state == HandlerState::AlternatingWaitingForFirstBarrier,
            current_id: 0,
            last_cancelled_or_completed: 0,
            pending_barrier: None,
            aligned: BTreeSet::new(),
            target: 0,
            num_open,
            blocked: BTreeSet::new(),
            announced: BTreeMap::new(),
            timer: None,
            all_received_done: true,
            timed_out: false,
            alignment: None,
            bytes_processed_during_alignment: 0,
            tracked: VecDeque::new(),
            latest_pending: 0,
        }
    }

    pub fn state(&self) -> HandlerState {
        self.state
    }

    fn is_tracker(&self) -> bool {
        self.state == HandlerState::BarrierTracker
    }

    /// `isCheckpointPending`.
    fn is_checkpoint_pending(&self) -> bool {
        if self.is_tracker() {
            return !self.tracked.is_empty();
        }
        self.current_id != self.last_cancelled_or_completed && self.current_id > 0
    }

    /// Checkpoint `id` still waits for barriers at this handler (its input side is open).
    pub fn is_collecting(&self, id: u64) -> bool {
        !self.is_tracker() && self.is_checkpoint_pending() && self.current_id == id
    }

    /// Some barrier of a pending checkpoint was processed and others are still awaited.
    pub fn is_aligning(&self) -> bool {
        if self.is_tracker() {
            return !self.tracked.is_empty();
        }
        self.is_checkpoint_pending() && !self.aligned.is_empty()
    }

    /// Channels the handler holds blocked.
    pub fn blocked_channels(&self) -> impl Iterator<Item = &ChannelId> {
        self.blocked.iter()
    }

    /// `CheckpointBarrierHandler.addProcessedBytes`, called by `CheckpointedInputGate
    /// .pollNext` for every buffer polled: counted only while an alignment is measured
    /// (first to last barrier), in every handler. Like Flink, it counts whole buffers at
    /// poll time, not records as they are deserialized (FLINK-19537).
    pub fn add_processed_bytes(&mut self, bytes: u64) {
        if self.alignment.is_some() {
            self.bytes_processed_during_alignment += bytes;
        }
    }

    fn mark_alignment_start(&mut self, barrier: Barrier, out: &mut Vec<HandlerAction>) {
        self.reset_alignment();
        self.alignment = Some(barrier.id);
        out.push(HandlerAction::AlignmentStarted(barrier));
    }

    fn mark_alignment_end(&mut self, out: &mut Vec<HandlerAction>) {
        if let Some(id) = self.alignment.take() {
            out.push(HandlerAction::AlignmentEnded {
                id,
                processed_bytes: std::mem::take(&mut self.bytes_processed_during_alignment),
            });
        }
    }

    /// `resetAlignment`: an unfinished measurement is dropped.
    fn reset_alignment(&mut self) {
        self.alignment = None;
        self.bytes_processed_during_alignment = 0;
    }

    // ------------------------------------------------------------------ inputs

    /// `processBarrier` (`isRpcTriggered` = false: the barrier came through the channel).
    pub fn barrier_received(&mut self, ctx: Ctx, c: ChannelId, b: Barrier) -> Vec<HandlerAction> {
        let mut out = Vec::new();
        if self.is_tracker() {
            self.tracker_barrier(c, b, &mut out);
            return out;
        }
        if self.current_id > b.id || (self.current_id == b.id && !self.is_checkpoint_pending()) {
            if !b.kind.is_unaligned() {
                out.push(HandlerAction::Resume(c));
            }
            return out;
        }
        self.check_new_checkpoint(ctx, b, &mut out);
        self.mark_aligned(c, b, &mut out);
        self.state_barrier_received(ctx, c, b, true, &mut out);
        self.after_transform();
        out
    }

    /// A task that cannot take part (still recovering) skips barrier `b`: the handler
    /// treats the checkpoint as cancelled so later barriers of it are obsolete.
    pub fn skip_barrier(&mut self, c: ChannelId, b: Barrier) -> Vec<HandlerAction> {
        let mut out = Vec::new();
        if self.is_tracker() {
            self.latest_pending = self.latest_pending.max(b.id);
            return out;
        }
        self.current_id = self.current_id.max(b.id);
        self.last_cancelled_or_completed = self.last_cancelled_or_completed.max(b.id);
        if !b.kind.is_unaligned() {
            out.push(HandlerAction::Resume(c));
        }
        out
    }

    /// `processBarrierAnnouncement`: an announcement may start a checkpoint (or subsume the
    /// pending one) before any of its barriers is processed (`checkNewCheckpoint`).
    pub fn announcement_received(
        &mut self,
        ctx: Ctx,
        c: ChannelId,
        b: Barrier,
    ) -> Vec<HandlerAction> {
        let mut out = Vec::new();
        if self.is_tracker() {
            return out;
        }
        self.check_new_checkpoint(ctx, b, &mut out);
        if self.current_id > b.id || (self.current_id == b.id && !self.is_checkpoint_pending()) {
            return out;
        }
        match self.state {
            HandlerState::AlternatingWaitingForFirstBarrier
            | HandlerState::AlternatingCollectingBarriers => {
                self.announced.insert(c, b.id);
            }
            HandlerState::AlternatingWaitingForFirstBarrierUnaligned
            | HandlerState::AlternatingCollectingBarriersUnaligned => {
                out.push(HandlerAction::Prioritize {
                    channel: c,
                    id: b.id,
                });
            }
            _ => {}
        }
        out
    }

    /// `processCancellationBarrier`.
    pub fn cancel_received(&mut self, c: ChannelId, id: u64) -> Vec<HandlerAction> {
        let mut out = Vec::new();
        if self.is_tracker() {
            self.tracker_cancel(c, id, &mut out);
            return out;
        }
        if id > self.current_id || (id == self.current_id && !self.aligned.is_empty()) {
            // A newer cancel marker replaces a checkpoint still pending here; Flink only
            // notifies the marker's id, the older one is dropped locally.
            if self.is_checkpoint_pending() && self.current_id < id {
                out.push(HandlerAction::Discard(self.current_id));
            }
            self.abort_internal(id, DECLINED_ON_CANCELLATION_BARRIER, &mut out);
        }
        out
    }

    /// `processEndOfPartition` (with checkpoints after tasks finish: an ended channel
    /// counts as aligned for the pending checkpoint).
    pub fn end_of_partition(&mut self, ctx: Ctx, c: ChannelId) -> Vec<HandlerAction> {
        let mut out = Vec::new();
        self.num_open = self.num_open.saturating_sub(1);
        if self.is_tracker() {
            self.tracker_end_of_partition(c, &mut out);
            return out;
        }
        let Some(pending) = self
            .pending_barrier
            .filter(|_| self.is_checkpoint_pending())
        else {
            return out;
        };
        self.mark_aligned(c, pending, &mut out);
        self.state_end_of_partition(ctx, c, pending, &mut out);
        self.after_transform();
        out
    }

    /// The alignment timer registered for checkpoint `id` fired.
    pub fn alignment_timer(&mut self, ctx: Ctx, id: u64) -> Vec<HandlerAction> {
        let mut out = Vec::new();
        if self.timer != Some(id) {
            return out;
        }
        self.timer = None;
        if self.current_id == id && !self.all_received_done {
            if let Some(b) = self.pending_barrier {
                self.aligned_checkpoint_timeout(ctx, b, true, &mut out);
            }
        }
        out
    }

    // ------------------------------------------------------------------ SingleCheckpointBarrierHandler

    fn check_new_checkpoint(&mut self, ctx: Ctx, b: Barrier, out: &mut Vec<HandlerAction>) {
        if self.current_id >= b.id {
            return;
        }
        if self.is_checkpoint_pending() {
            let old = self.current_id;
            self.abort_internal(old, DECLINED_SUBSUMED, out);
        }
        self.current_id = b.id;
        self.pending_barrier = Some(b);
        self.aligned.clear();
        self.target = self.num_open;
        self.all_received_done = false;
        self.timed_out = false;
        if self.alternating && b.kind == BarrierKind::TimeoutableAligned {
            // `BarrierAlignmentUtil.getTimerDelay`: measured from the trigger time.
            let at = (b.timestamp + ctx.aligned_timeout).max(ctx.now);
            self.timer = Some(b.id);
            out.push(HandlerAction::ScheduleTimer { id: b.id, at });
        }
    }

    /// `markCheckpointAlignedAndTransformState`, the part before the transformation.
    fn mark_aligned(&mut self, c: ChannelId, b: Barrier, out: &mut Vec<HandlerAction>) {
        self.aligned.insert(c);
        if self.aligned.len() == 1 {
            self.mark_alignment_start(b, out);
            if self.target == 1 {
                self.mark_alignment_end(out);
            }
        }
        if self.aligned.len() == self.target && self.target > 1 {
            self.mark_alignment_end(out);
        }
    }

    /// The part after it: all channels aligned ends the checkpoint at this handler.
    fn after_transform(&mut self) {
        if self.aligned.len() == self.target {
            self.aligned.clear();
            self.last_cancelled_or_completed = self.current_id;
            self.timer = None;
            self.all_received_done = true;
        }
    }

    fn all_barriers_received(&self) -> bool {
        self.aligned.len() == self.target
    }

    /// `Controller.isTimedOut`.
    fn is_timed_out(&self, ctx: Ctx, b: Barrier) -> bool {
        b.kind == BarrierKind::TimeoutableAligned
            && b.id <= self.current_id
            && ctx.aligned_timeout < ctx.now.saturating_sub(b.timestamp)
    }

    /// The last aligned barrier is in (`AbstractAlignedBarrierHandlerState` /
    /// `AbstractAlternatingAlignedBarrierHandlerState.triggerGlobalCheckpoint`): snapshot,
    /// unblock every channel, wait for the next first barrier in `next`.
    fn trigger_aligned(&mut self, b: Barrier, next: HandlerState, out: &mut Vec<HandlerAction>) {
        out.push(HandlerAction::Trigger {
            barrier: b,
            unaligned: false,
        });
        self.unblock_all(out);
        self.state = next;
    }

    fn abort_internal(&mut self, id: u64, reason: &'static str, out: &mut Vec<HandlerAction>) {
        self.current_id = self.current_id.max(id);
        self.last_cancelled_or_completed = self.last_cancelled_or_completed.max(id);
        self.pending_barrier = None;
        self.aligned.clear();
        self.target = 0;
        self.timer = None;
        // `currentState.abort`: every state unblocks what it blocked.
        self.unblock_all(out);
        self.state = self.waiting_state();
        if id == self.current_id {
            self.reset_alignment();
        }
        out.push(HandlerAction::Abort { id, reason });
        self.all_received_done = true;
    }

    fn waiting_state(&self) -> HandlerState {
        if self.alternating {
            HandlerState::AlternatingWaitingForFirstBarrier
        } else {
            HandlerState::WaitingForFirstBarrier
        }
    }

    fn block(&mut self, c: ChannelId, out: &mut Vec<HandlerAction>) {
        self.blocked.insert(c);
        out.push(HandlerAction::Block(c));
    }

    /// `ChannelState.unblockAllChannels` (and `emptyState`).
    fn unblock_all(&mut self, out: &mut Vec<HandlerAction>) {
        for c in std::mem::take(&mut self.blocked) {
            out.push(HandlerAction::Resume(c));
        }
        self.announced.clear();
    }

    /// `ChannelState.channelFinished`.
    fn channel_finished(&mut self, c: ChannelId) {
        self.blocked.remove(&c);
        self.announced.remove(&c);
    }

    /// `ChannelState.prioritizeAllAnnouncements`.
    fn prioritize_all_announcements(&mut self, out: &mut Vec<HandlerAction>) {
        for (channel, id) in std::mem::take(&mut self.announced) {
            out.push(HandlerAction::Prioritize { channel, id });
        }
    }

    fn start_unaligned(&mut self, b: Barrier, out: &mut Vec<HandlerAction>) {
        let unaligned = Barrier {
            kind: BarrierKind::Unaligned,
            ..b
        };
        out.push(HandlerAction::StartCapture {
            barrier: unaligned,
            received: self.aligned.iter().copied().collect(),
            timed_out: self.timed_out,
        });
        out.push(HandlerAction::Trigger {
            barrier: unaligned,
            unaligned: true,
        });
    }

    /// `BarrierHandlerState.alignedCheckpointTimeout`.
    fn aligned_checkpoint_timeout(
        &mut self,
        _ctx: Ctx,
        b: Barrier,
        timed_out: bool,
        out: &mut Vec<HandlerAction>,
    ) {
        match self.state {
            HandlerState::AlternatingWaitingForFirstBarrier => {
                self.timed_out |= timed_out;
                self.prioritize_all_announcements(out);
                self.state = HandlerState::AlternatingWaitingForFirstBarrierUnaligned;
            }
            HandlerState::AlternatingCollectingBarriers => {
                self.timed_out |= timed_out;
                self.prioritize_all_announcements(out);
                self.start_unaligned(b, out);
                self.state = HandlerState::AlternatingCollectingBarriersUnaligned;
            }
            // Already unaligned, or a handler without timeouts: nothing to switch.
            _ => {}
        }
    }

    /// `BarrierHandlerState.barrierReceived` of the current state.
    fn state_barrier_received(
        &mut self,
        ctx: Ctx,
        c: ChannelId,
        b: Barrier,
        mark_blocked: bool,
        out: &mut Vec<HandlerAction>,
    ) {
        match self.state {
            // AbstractAlignedBarrierHandlerState (aligned checkpoints only).
            HandlerState::WaitingForFirstBarrier | HandlerState::CollectingBarriers => {
                if mark_blocked {
                    self.block(c, out);
                }
                if self.all_barriers_received() {
                    self.trigger_aligned(b, HandlerState::WaitingForFirstBarrier, out);
                } else {
                    self.state = HandlerState::CollectingBarriers;
                }
            }
            // AbstractAlternatingAlignedBarrierHandlerState.
            HandlerState::AlternatingWaitingForFirstBarrier
            | HandlerState::AlternatingCollectingBarriers => {
                if b.kind.is_unaligned() {
                    self.aligned_checkpoint_timeout(ctx, b, false, out);
                    return self.state_barrier_received(ctx, c, b, mark_blocked, out);
                }
                self.announced.remove(&c);
                if mark_blocked {
                    self.block(c, out);
                }
                if self.all_barriers_received() {
                    self.trigger_aligned(b, HandlerState::AlternatingWaitingForFirstBarrier, out);
                } else if self.is_timed_out(ctx, b) {
                    // The block above is not repeated: the channel is blocked already.
                    self.aligned_checkpoint_timeout(ctx, b, true, out);
                    self.state_barrier_received(ctx, c, b, false, out);
                } else {
                    self.state = HandlerState::AlternatingCollectingBarriers;
                }
            }
            HandlerState::AlternatingWaitingForFirstBarrierUnaligned => {
                // An aligned barrier still blocked its sender's subpartition: book it.
                if mark_blocked && !b.kind.is_unaligned() {
                    self.block(c, out);
                }
                self.start_unaligned(b, out);
                if self.all_barriers_received() {
                    out.push(HandlerAction::InputFinished(b.id));
                    self.unblock_all(out);
                    self.state = self.waiting_state();
                } else {
                    self.state = HandlerState::AlternatingCollectingBarriersUnaligned;
                }
            }
            HandlerState::AlternatingCollectingBarriersUnaligned => {
                if mark_blocked && !b.kind.is_unaligned() {
                    self.block(c, out);
                }
                if self.all_barriers_received() {
                    out.push(HandlerAction::InputFinished(b.id));
                    self.unblock_all(out);
                    self.state = self.waiting_state();
                }
            }
            HandlerState::BarrierTracker => {}
        }
    }

    /// `BarrierHandlerState.endOfPartitionReceived` of the current state.
    fn state_end_of_partition(
        &mut self,
        ctx: Ctx,
        c: ChannelId,
        pending: Barrier,
        out: &mut Vec<HandlerAction>,
    ) {
        self.channel_finished(c);
        match self.state {
            HandlerState::WaitingForFirstBarrier
            | HandlerState::CollectingBarriers
            | HandlerState::AlternatingCollectingBarriers => {
                if self.all_barriers_received() {
                    out.push(HandlerAction::Trigger {
                        barrier: pending,
                        unaligned: false,
                    });
                    self.unblock_all(out);
                    self.state = self.waiting_state();
                } else if self.state == HandlerState::AlternatingCollectingBarriers
                    && self.is_timed_out(ctx, pending)
                {
                    self.aligned_checkpoint_timeout(ctx, pending, true, out);
                    self.state_end_of_partition(ctx, c, pending, out);
                }
            }
            HandlerState::AlternatingCollectingBarriersUnaligned => {
                if self.all_barriers_received() {
                    out.push(HandlerAction::InputFinished(pending.id));
                    self.unblock_all(out);
                    self.state = self.waiting_state();
                }
            }
            // No barrier processed yet: nothing to do.
            HandlerState::AlternatingWaitingForFirstBarrier
            | HandlerState::AlternatingWaitingForFirstBarrierUnaligned
            | HandlerState::BarrierTracker => {}
        }
    }

    // ------------------------------------------------------------------ CheckpointBarrierTracker

    fn tracker_barrier(&mut self, c: ChannelId, b: Barrier, out: &mut Vec<HandlerAction>) {
        let id = b.id;
        // Fast path for one open channel (only for new checkpoints).
        if id > self.latest_pending && self.num_open == 1 {
            self.mark_alignment_start(b, out);
            self.mark_alignment_end(out);
            out.push(HandlerAction::Trigger {
                barrier: b,
                unaligned: false,
            });
            return;
        }
        if let Some(pos) = self.tracked.iter().position(|x| x.id == id) {
            let count = &mut self.tracked[pos];
            if count.mark(c) == count.target {
                self.tracker_complete(pos, out);
            }
        } else if id > self.latest_pending {
            // First barrier of a newer checkpoint; an older id that was never seen cannot
            // complete anyway.
            self.mark_alignment_start(b, out);
            self.latest_pending = id;
            self.tracked.push_back(BarrierCount {
                id,
                barrier: Some(b),
                channels: BTreeSet::from([c]),
                target: self.num_open,
                aborted: false,
            });
            if self.tracked.len() > MAX_CHECKPOINTS_TO_TRACK {
                if let Some(old) = self.tracked.pop_front() {
                    out.push(HandlerAction::Discard(old.id));
                }
            }
        }
    }

    /// Entry `pos` saw every channel: it and all older entries leave; it triggers unless
    /// it was aborted.
    fn tracker_complete(&mut self, pos: usize, out: &mut Vec<HandlerAction>) {
        let mut done = None;
        for _ in 0..=pos {
            if let Some(x) = self.tracked.pop_front() {
                if let Some(prev) = done.replace(x) {
                    let prev: BarrierCount = prev;
                    if !prev.aborted {
                        out.push(HandlerAction::Discard(prev.id));
                    }
                }
            }
        }
        let Some(count) = done else { return };
        if count.aborted {
            return;
        }
        if count.id == self.latest_pending {
            self.mark_alignment_end(out);
        }
        if let Some(barrier) = count.barrier {
            out.push(HandlerAction::Trigger {
                barrier,
                unaligned: false,
            });
        }
    }

    fn tracker_cancel(&mut self, c: ChannelId, id: u64, out: &mut Vec<HandlerAction>) {
        if id > self.latest_pending && self.num_open == 1 {
            self.reset_alignment();
            out.push(HandlerAction::Abort {
                id,
                reason: DECLINED_ON_CANCELLATION_BARRIER,
            });
            return;
        }
        while let Some(front) = self.tracked.front_mut() {
            if front.id >= id {
                break;
            }
            let first = front.mark_aborted();
            let old = front.id;
            self.tracked.pop_front();
            if first {
                out.push(HandlerAction::Abort {
                    id: old,
                    reason: DECLINED_ON_CANCELLATION_BARRIER,
                });
            }
        }
        match self.tracked.front_mut() {
            Some(front) if front.id == id => {
                if front.mark_aborted() {
                    out.push(HandlerAction::Abort {
                        id,
                        reason: DECLINED_ON_CANCELLATION_BARRIER,
                    });
                }
                // Still counted, so the entry goes once every channel delivered its marker
                // or barrier.
                if front.mark(c) == front.target {
                    self.tracked.pop_front();
                }
            }
            _ if id > self.latest_pending => {
                // A cancel marker before any barrier of that checkpoint: remember it as
                // aborted, so its barriers are counted but never trigger.
                out.push(HandlerAction::Abort {
                    id,
                    reason: DECLINED_ON_CANCELLATION_BARRIER,
                });
                self.latest_pending = id;
                self.tracked.push_front(BarrierCount {
                    id,
                    barrier: None,
                    channels: BTreeSet::from([c]),
                    target: self.num_open,
                    aborted: true,
                });
            }
            _ => {}
        }
    }

    fn tracker_end_of_partition(&mut self, c: ChannelId, out: &mut Vec<HandlerAction>) {
        // The newest pending checkpoint that waited only for this channel completes.
        let mut found = None;
        for pos in (0..self.tracked.len()).rev() {
            let count = &mut self.tracked[pos];
            if count.mark(c) == count.target {
                found = Some(pos);
                break;
            }
        }
        if let Some(pos) = found {
            self.tracker_complete(pos, out);
        }
    }
}

#[cfg(test)]
mod tests {
    //! Shaped like Flink's `SingleCheckpointBarrierHandlerTest`,
    //! `AlternatingCheckpointsTest` and `CheckpointBarrierTrackerTest`: a handler alone,
    //! fed a sequence of barriers and events, checked by the actions it returns.
    use super::HandlerAction::*;
    use super::*;

    const TIMEOUT: Micros = 10_000;

    fn ctx(now: Micros) -> Ctx {
        Ctx {
            now,
            aligned_timeout: TIMEOUT,
        }
    }

    fn barrier(id: u64, kind: BarrierKind) -> Barrier {
        Barrier {
            id,
            timestamp: 0,
            kind,
            original: kind,
        }
    }

    fn aligned(id: u64) -> Barrier {
        barrier(id, BarrierKind::Aligned)
    }

    fn timeoutable(id: u64) -> Barrier {
        barrier(id, BarrierKind::TimeoutableAligned)
    }

    fn triggers(acts: &[HandlerAction]) -> Vec<(u64, bool)> {
        acts.iter()
            .filter_map(|a| match a {
                Trigger { barrier, unaligned } => Some((barrier.id, *unaligned)),
                _ => None,
            })
            .collect()
    }

    fn aborts(acts: &[HandlerAction]) -> Vec<(u64, &'static str)> {
        acts.iter()
            .filter_map(|a| match a {
                Abort { id, reason } => Some((*id, *reason)),
                _ => None,
            })
            .collect()
    }

    fn processed(acts: &[HandlerAction]) -> Option<u64> {
        acts.iter().find_map(|a| match a {
            AlignmentEnded {
                processed_bytes, ..
            } => Some(*processed_bytes),
            _ => None,
        })
    }

    // ---- SingleCheckpointBarrierHandlerTest (aligned) ----

    #[test]
    fn aligned_blocks_each_channel_and_triggers_on_the_last_barrier() {
        let mut h = BarrierHandler::with_state(HandlerState::WaitingForFirstBarrier, 3);
        let a = h.barrier_received(ctx(1), 0, aligned(1));
        assert!(a.contains(&Block(0)) && triggers(&a).is_empty());
        assert!(matches!(a[0], AlignmentStarted(_)));
        assert_eq!(h.state(), HandlerState::CollectingBarriers);
        h.barrier_received(ctx(2), 2, aligned(1));
        let a = h.barrier_received(ctx(3), 1, aligned(1));
        assert_eq!(triggers(&a), vec![(1, false)]);
        for c in 0..3 {
            assert!(a.contains(&Resume(c)), "{a:?}");
        }
        assert_eq!(h.state(), HandlerState::WaitingForFirstBarrier);
        assert!(!h.is_collecting(1));
    }

    #[test]
    fn processed_bytes_count_from_first_to_last_barrier() {
        // testMetrics: buffers polled between the first and the last barrier.
        let mut h = BarrierHandler::with_state(HandlerState::WaitingForFirstBarrier, 2);
        h.add_processed_bytes(100); // before the alignment: not counted
        h.barrier_received(ctx(1), 0, aligned(1));
        h.add_processed_bytes(100);
        h.add_processed_bytes(100);
        let a = h.barrier_received(ctx(2), 1, aligned(1));
        assert_eq!(processed(&a), Some(200));
        h.add_processed_bytes(100); // after it: not counted
                                    // One channel: start and end at once, nothing counted.
        let mut h = BarrierHandler::with_state(HandlerState::WaitingForFirstBarrier, 1);
        let a = h.barrier_received(ctx(1), 0, aligned(1));
        assert_eq!(processed(&a), Some(0));
    }

    #[test]
    fn obsolete_aligned_barrier_resumes_its_channel() {
        let mut h = BarrierHandler::with_state(HandlerState::WaitingForFirstBarrier, 2);
        h.barrier_received(ctx(1), 0, aligned(2));
        let a = h.barrier_received(ctx(2), 1, aligned(1));
        assert_eq!(a, vec![Resume(1)]);
    }

    #[test]
    fn newer_barrier_subsumes_the_pending_checkpoint() {
        let mut h = BarrierHandler::with_state(HandlerState::WaitingForFirstBarrier, 2);
        h.barrier_received(ctx(1), 0, aligned(1));
        let a = h.barrier_received(ctx(2), 1, aligned(2));
        assert_eq!(aborts(&a), vec![(1, DECLINED_SUBSUMED)]);
        assert!(a.contains(&Resume(0)) && a.contains(&Block(1)));
        assert!(h.is_collecting(2));
    }

    #[test]
    fn cancel_marker_aborts_and_unblocks() {
        // testCancelBarrier: a marker of the pending checkpoint with a channel aligned.
        let mut h = BarrierHandler::with_state(HandlerState::WaitingForFirstBarrier, 2);
        h.barrier_received(ctx(1), 0, aligned(1));
        let a = h.cancel_received(1, 1);
        assert_eq!(aborts(&a), vec![(1, DECLINED_ON_CANCELLATION_BARRIER)]);
        assert!(a.contains(&Resume(0)));
        // Its remaining barrier is obsolete now.
        assert_eq!(h.barrier_received(ctx(2), 0, aligned(1)), vec![Resume(0)]);
        // A marker of a checkpoint never seen aborts it too (decline + marker downstream).
        let a = h.cancel_received(0, 5);
        assert_eq!(aborts(&a), vec![(5, DECLINED_ON_CANCELLATION_BARRIER)]);
    }

    #[test]
    fn end_of_partition_counts_as_aligned() {
        let mut h = BarrierHandler::with_state(HandlerState::WaitingForFirstBarrier, 2);
        h.barrier_received(ctx(1), 0, aligned(1));
        let a = h.end_of_partition(ctx(2), 1);
        assert_eq!(triggers(&a), vec![(1, false)]);
        assert!(a.contains(&Resume(0)));
        // The next checkpoint waits for the one open channel only.
        let a = h.barrier_received(ctx(3), 0, aligned(2));
        assert_eq!(triggers(&a), vec![(2, false)]);
    }

    // ---- AlternatingCheckpointsTest ----

    #[test]
    fn unaligned_barrier_triggers_at_once_and_finishes_input_on_the_last() {
        let mut h = BarrierHandler::with_state(HandlerState::AlternatingWaitingForFirstBarrier, 2);
        let a = h.barrier_received(ctx(1), 0, barrier(1, BarrierKind::Unaligned));
        assert_eq!(triggers(&a), vec![(1, true)]);
        assert!(matches!(&a[1], StartCapture { received, .. } if received == &vec![0]));
        assert!(!a.contains(&Block(0)));
        assert!(h.is_collecting(1));
        h.add_processed_bytes(300);
        let a = h.barrier_received(ctx(2), 1, barrier(1, BarrierKind::Unaligned));
        assert!(a.contains(&InputFinished(1)));
        // Unaligned checkpoints count processed bytes too (item 1).
        assert_eq!(processed(&a), Some(300));
        assert_eq!(h.state(), HandlerState::AlternatingWaitingForFirstBarrier);
    }

    #[test]
    fn aligned_checkpoint_times_out_on_a_barrier_after_the_timeout() {
        // testTimeoutAlignmentOnFirstBarrier / testActiveTimeoutAfterBarrier.
        let mut h = BarrierHandler::with_state(HandlerState::AlternatingWaitingForFirstBarrier, 3);
        let a = h.barrier_received(ctx(1), 0, timeoutable(1));
        assert!(a.contains(&ScheduleTimer { id: 1, at: TIMEOUT }));
        assert!(triggers(&a).is_empty());
        let a = h.barrier_received(ctx(TIMEOUT + 1), 1, timeoutable(1));
        assert_eq!(triggers(&a), vec![(1, true)]);
        assert!(a.contains(&Block(1)));
        assert!(
            matches!(a.iter().find(|x| matches!(x, StartCapture { .. })),
            Some(StartCapture { timed_out: true, received, .. }) if received == &vec![0, 1])
        );
        assert_eq!(
            h.state(),
            HandlerState::AlternatingCollectingBarriersUnaligned
        );
        // The already blocked channels stay blocked until the last barrier (FLINK-22638).
        let a = h.barrier_received(ctx(TIMEOUT + 2), 2, timeoutable(1));
        assert!(a.contains(&InputFinished(1)));
        assert!(a.contains(&Resume(0)) && a.contains(&Resume(1)) && a.contains(&Resume(2)));
    }

    #[test]
    fn timer_before_any_barrier_prioritizes_announcements_without_triggering() {
        // AlternatingWaitingForFirstBarrier.alignedCheckpointTimeout: no trigger until the
        // prioritized barrier is processed.
        let mut h = BarrierHandler::with_state(HandlerState::AlternatingWaitingForFirstBarrier, 2);
        let a = h.announcement_received(ctx(1), 1, timeoutable(1));
        assert_eq!(a, vec![ScheduleTimer { id: 1, at: TIMEOUT }]);
        let a = h.alignment_timer(ctx(TIMEOUT), 1);
        assert_eq!(a, vec![Prioritize { channel: 1, id: 1 }]);
        assert_eq!(
            h.state(),
            HandlerState::AlternatingWaitingForFirstBarrierUnaligned
        );
        // The prioritized (still aligned) barrier arrives: block, capture, trigger unaligned.
        let a = h.barrier_received(ctx(TIMEOUT + 1), 1, timeoutable(1));
        assert!(a.contains(&Block(1)));
        assert_eq!(triggers(&a), vec![(1, true)]);
        // An announcement now is prioritized at once.
        let a = h.announcement_received(ctx(TIMEOUT + 2), 0, timeoutable(1));
        assert_eq!(a, vec![Prioritize { channel: 0, id: 1 }]);
    }

    #[test]
    fn announcement_starts_and_subsumes_a_checkpoint() {
        // processBarrierAnnouncement → checkNewCheckpoint (item 11).
        let mut h = BarrierHandler::with_state(HandlerState::AlternatingWaitingForFirstBarrier, 2);
        h.barrier_received(ctx(1), 0, timeoutable(1));
        let a = h.announcement_received(ctx(2), 1, timeoutable(2));
        assert_eq!(aborts(&a), vec![(1, DECLINED_SUBSUMED)]);
        assert!(a.contains(&Resume(0)));
        assert!(a.contains(&ScheduleTimer { id: 2, at: TIMEOUT }));
        assert!(h.is_collecting(2));
        // A late barrier of checkpoint 1 is obsolete.
        assert_eq!(
            h.barrier_received(ctx(3), 0, timeoutable(1)),
            vec![Resume(0)]
        );
        // A cancel marker of the announced-only checkpoint is ignored (no channel aligned).
        assert!(h.cancel_received(0, 2).is_empty());
    }

    #[test]
    fn timer_of_a_completed_checkpoint_is_ignored() {
        let mut h = BarrierHandler::with_state(HandlerState::AlternatingWaitingForFirstBarrier, 1);
        let a = h.barrier_received(ctx(1), 0, timeoutable(1));
        assert_eq!(triggers(&a), vec![(1, false)]);
        assert!(h.alignment_timer(ctx(TIMEOUT), 1).is_empty());
    }

    // ---- CheckpointBarrierTrackerTest ----

    #[test]
    fn tracker_triggers_when_every_channel_was_seen_and_never_blocks() {
        let mut h = BarrierHandler::with_state(HandlerState::BarrierTracker, 2);
        let a = h.barrier_received(ctx(1), 0, barrier(1, BarrierKind::AtLeastOnce));
        assert!(!a.iter().any(|x| matches!(x, Block(_) | Trigger { .. })));
        h.add_processed_bytes(64);
        let a = h.barrier_received(ctx(2), 1, barrier(1, BarrierKind::AtLeastOnce));
        assert_eq!(triggers(&a), vec![(1, false)]);
        // At-least-once counts processed in-flight data as well (item 1).
        assert_eq!(processed(&a), Some(64));
    }

    #[test]
    fn tracker_newer_completion_drops_older_ones() {
        let mut h = BarrierHandler::with_state(HandlerState::BarrierTracker, 2);
        h.barrier_received(ctx(1), 0, barrier(1, BarrierKind::AtLeastOnce));
        h.barrier_received(ctx(2), 0, barrier(2, BarrierKind::AtLeastOnce));
        let a = h.barrier_received(ctx(3), 1, barrier(2, BarrierKind::AtLeastOnce));
        assert_eq!(triggers(&a), vec![(2, false)]);
        assert!(a.contains(&Discard(1)));
        // Checkpoint 1's late barrier is ignored.
        assert!(h
            .barrier_received(ctx(4), 1, barrier(1, BarrierKind::AtLeastOnce))
            .is_empty());
    }

    #[test]
    fn tracker_cancel_marker_before_any_barrier() {
        // testSingleChannelAbortCheckpoint / testMultiChannelAbortCheckpoint (item 11): the
        // marker comes first; the barriers that follow are counted but never trigger.
        let mut h = BarrierHandler::with_state(HandlerState::BarrierTracker, 2);
        let a = h.cancel_received(0, 3);
        assert_eq!(aborts(&a), vec![(3, DECLINED_ON_CANCELLATION_BARRIER)]);
        let a = h.barrier_received(ctx(1), 1, barrier(3, BarrierKind::AtLeastOnce));
        assert!(triggers(&a).is_empty() && aborts(&a).is_empty());
        // The entry is gone; checkpoint 4 works normally.
        h.barrier_received(ctx(2), 0, barrier(4, BarrierKind::AtLeastOnce));
        let a = h.barrier_received(ctx(3), 1, barrier(4, BarrierKind::AtLeastOnce));
        assert_eq!(triggers(&a), vec![(4, false)]);
    }

    #[test]
    fn tracker_cancel_marker_aborts_older_pending_ones() {
        let mut h = BarrierHandler::with_state(HandlerState::BarrierTracker, 2);
        h.barrier_received(ctx(1), 0, barrier(1, BarrierKind::AtLeastOnce));
        h.barrier_received(ctx(2), 0, barrier(2, BarrierKind::AtLeastOnce));
        let a = h.cancel_received(1, 2);
        assert_eq!(
            aborts(&a),
            vec![
                (1, DECLINED_ON_CANCELLATION_BARRIER),
                (2, DECLINED_ON_CANCELLATION_BARRIER)
            ]
        );
    }

    #[test]
    fn tracker_end_of_partition_completes_the_checkpoint_waiting_for_it() {
        let mut h = BarrierHandler::with_state(HandlerState::BarrierTracker, 2);
        h.barrier_received(ctx(1), 0, barrier(1, BarrierKind::AtLeastOnce));
        let a = h.end_of_partition(ctx(2), 1);
        assert_eq!(triggers(&a), vec![(1, false)]);
    }
}
