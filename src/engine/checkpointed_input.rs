//! The glue between a task's input and its [`BarrierHandler`], in Flink's terms
//! `CheckpointedInputGate` (feeds the handler the barriers, announcements, cancel markers
//! and ends of partition the task polls, plus the bytes of every polled buffer) and the
//! handler's `Controller`/`CheckpointableInput` side (applies the [`HandlerAction`]s it
//! returns to the channels and to the subtask's checkpoint).
//!
//! Contract: this file holds no barrier-handling decision; it only translates between
//! engine state and the handler's narrow interface. Each action maps to one engine
//! operation: block/resume a channel (`flow.rs`), prioritize an announced barrier
//! (`RemoteInputChannel.convertToPriorityEvent`), capture in-flight input
//! (`checkpointStarted`), the snapshot (`checkpoint.rs`, `checkpointState`), the end of an
//! unaligned checkpoint's input side, an abort (`abortCheckpointOnBarrier`).

use super::barrier_handler::{Ctx, HandlerAction};
use super::log::{text, LogKind, Msg};
use super::network::{Barrier, Event, Item, Persist};
use super::runtime::{Engine, Ev};
use super::task::{Mail, TaskStatus};

impl Engine {
    fn handler_ctx(&self) -> Ctx {
        Ctx {
            now: self.now,
            aligned_timeout: self.config.aligned_checkpoint_timeout,
        }
    }

    /// A barrier polled from channel `c` (or taken as a priority event).
    pub(crate) fn handler_barrier(&mut self, t: usize, c: usize, barrier: Barrier) {
        self.barrier_trace.processed(barrier.id, c, self.now);
        if self.tasks[t].status == TaskStatus::Recovering {
            let acts = self.tasks[t].handler.skip_barrier(c, barrier);
            self.apply_handler_actions(t, acts);
            self.decline(t, barrier.id, "CHECKPOINT_DECLINED_TASK_NOT_READY");
            return;
        }
        let ctx = self.handler_ctx();
        let acts = self.tasks[t].handler.barrier_received(ctx, c, barrier);
        self.apply_handler_actions(t, acts);
        // `ChannelStatePersister`: once a channel's barrier is in, its later buffers belong
        // to the next checkpoint.
        if self.channels[c].persist == Persist::BarrierPending(barrier.id) {
            self.channels[c].persist = Persist::BarrierReceived(barrier.id);
        }
    }

    /// `EventAnnouncement` of the timeout-capable barrier queued on channel `c`.
    pub(crate) fn handler_announcement(&mut self, t: usize, c: usize) {
        let announced = self.channels[c]
            .received
            .iter()
            .rev()
            .find_map(|i| match i {
                Item::Event {
                    event: Event::Barrier(b),
                    priority: false,
                } if b.kind == super::config::BarrierKind::TimeoutableAligned => Some(*b),
                _ => None,
            });
        let Some(barrier) = announced else { return };
        let ctx = self.handler_ctx();
        let acts = self.tasks[t].handler.announcement_received(ctx, c, barrier);
        self.apply_handler_actions(t, acts);
    }

    pub(crate) fn handler_cancel_marker(&mut self, t: usize, c: usize, id: u64) {
        let acts = self.tasks[t].handler.cancel_received(c, id);
        self.apply_handler_actions(t, acts);
    }

    pub(crate) fn handler_end_of_partition(&mut self, t: usize, c: usize) {
        let ctx = self.handler_ctx();
        let acts = self.tasks[t].handler.end_of_partition(ctx, c);
        self.apply_handler_actions(t, acts);
    }

    pub(crate) fn handler_alignment_timeout(&mut self, t: usize, id: u64) {
        let ctx = self.handler_ctx();
        let acts = self.tasks[t].handler.alignment_timer(ctx, id);
        self.apply_handler_actions(t, acts);
    }

    fn apply_handler_actions(&mut self, t: usize, acts: Vec<HandlerAction>) {
        for act in acts {
            match act {
                HandlerAction::Block(c) => self.channels[c].blocked_at_receiver = true,
                HandlerAction::Resume(c) => self.resume_consumption(c),
                HandlerAction::AlignmentStarted(b) => self.begin_subtask_checkpoint(t, b),
                HandlerAction::AlignmentEnded {
                    id,
                    processed_bytes,
                } => {
                    let now = self.now;
                    if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
                        cp.alignment_end = Some(now);
                        cp.processed_bytes = processed_bytes;
                    }
                }
                HandlerAction::Prioritize { channel, id } => {
                    self.prioritize_barrier(t, channel, id)
                }
                HandlerAction::StartCapture {
                    barrier,
                    received,
                    timed_out,
                } => self.start_input_capture(t, barrier.id, &received, timed_out),
                HandlerAction::Trigger { barrier, unaligned } => {
                    self.checkpoint_state(t, barrier, unaligned)
                }
                HandlerAction::InputFinished(id) => {
                    self.stop_persisting(t, id);
                    self.finish_input(t, id);
                }
                HandlerAction::Abort { id, reason } => {
                    self.abort_checkpoint_on_barrier(t, id, reason)
                }
                HandlerAction::Discard(id) => self.abort_subtask_checkpoint(t, id),
                HandlerAction::ScheduleTimer { id, at } => {
                    self.schedule(at.max(self.now), Ev::Mail(t, Mail::AlignmentTimeout(id)))
                }
            }
        }
    }

    /// `checkpointStopped` on every input: channel-state persistence of `id` ends.
    fn stop_persisting(&mut self, t: usize, id: u64) {
        for c in self.tasks[t].inputs.clone() {
            if matches!(self.channels[c].persist, Persist::BarrierPending(x) | Persist::BarrierReceived(x) if x == id)
            {
                self.channels[c].persist = Persist::Idle;
            }
        }
    }

    /// `RemoteInputChannel.convertToPriorityEvent`: the announced barrier moves to the head
    /// of the channel's queue and reaches the task as a priority event; the data it was
    /// queued behind stays, numbered below it (`priority_boundary`), so the capture that
    /// starts the unaligned checkpoint takes it as this channel's state.
    fn prioritize_barrier(&mut self, t: usize, c: usize, id: u64) {
        let ch = &mut self.channels[c];
        let Some(pos) = ch.received.iter().position(|i| {
            matches!(i, Item::Event { event: Event::Barrier(b), priority: false } if b.id == id)
        }) else {
            return;
        };
        let boundary = ch
            .received
            .iter()
            .skip(pos)
            .find_map(|i| match i {
                Item::Data(b) => Some(b.seq),
                _ => None,
            })
            .unwrap_or(ch.next_seq);
        let Some(Item::Event { event, .. }) = ch.received.remove(pos) else {
            return;
        };
        ch.priority_boundary = Some((id, boundary));
        super::network::push_priority(&mut ch.received, event);
        self.tasks[t].mailbox.push_back(Mail::PriorityEvent(c));
        self.wake(t, self.now);
    }

    /// `initInputsCheckpoint` + `checkpointStarted` on every input of an unaligned
    /// checkpoint: the deserializer's unread records, then per channel the data buffers
    /// queued before its barrier (all of them where the barrier has not come); channels
    /// still waiting for their barrier persist each arriving buffer until it comes.
    fn start_input_capture(&mut self, t: usize, id: u64, received: &[usize], timed_out: bool) {
        if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
            cp.unaligned = true;
            cp.timed_out |= timed_out;
        }
        let mut overtaken = self.capture_current_buffer(t, id);
        for c in self.tasks[t].inputs.clone() {
            if self.channels[c].closed && self.channels[c].received.is_empty() {
                continue;
            }
            let seen = received.contains(&c);
            let barrier_pos = self.channels[c].received.iter().position(
                |i| matches!(i, Item::Event { event: Event::Barrier(b), .. } if b.id == id),
            );
            // A priority barrier overtook everything queued here (what it overtook at the
            // sender is numbered above `priority_boundary`); an aligned one is behind its data.
            let len = self.channels[c].received.len();
            let upto = match barrier_pos {
                _ if seen => len,
                Some(pos) if self.channels[c].received[pos].is_priority() => len,
                Some(pos) => pos,
                None => len,
            };
            overtaken += self.capture_queued_input(t, id, c, upto);
            overtaken += self.capture_spilled_input(t, id, c);
            self.channels[c].persist = if seen || barrier_pos.is_some() {
                Persist::BarrierReceived(id)
            } else {
                Persist::BarrierPending(id)
            };
        }
        let name = self.tasks[t].name.clone();
        let code = if timed_out {
            "checkpoint {0}: unaligned barrier at {1} (aligned-checkpoint timeout passed): overtook {2} input buffers; sync phase starts"
        } else {
            "checkpoint {0}: unaligned barrier at {1}: overtook {2} input buffers; sync phase starts"
        };
        self.log.push_msg(
            self.now,
            LogKind::Barrier,
            Msg::new(code, vec![text(id), text(name), text(overtaken)]),
        );
    }

    /// Sends a `CancelCheckpointMarker` on every output channel.
    pub(crate) fn broadcast_cancel(&mut self, t: usize, id: u64) {
        for p in self.tasks[t].partitions.clone() {
            for c in self.partitions[p].channels.clone() {
                self.enqueue_event(c, Event::CancelCheckpointMarker(id));
            }
        }
    }
}
