//! Credit-based flow control and buffer lifecycles, as engine operations.
//!
//! Sender: records are serialized into the subpartition's buffer being filled; a full (or
//! flushed) buffer joins the subpartition queue; a queued data buffer is sent only against
//! credit, after which its memory returns to the producer's pool. Events go without credit;
//! an aligned barrier blocks the subpartition until the consumer resumes consumption, and a
//! blocked subpartition sends nothing at all, priority events included (Flink 2.x
//! `PipelinedSubpartition`: `isBlocked` makes it unavailable with backlog 0).
//! Receiver: an arriving data buffer occupies one of the channel's buffers; its backlog
//! makes the channel ask the gate for floating buffers; each freed buffer is announced back
//! as credit (or returned to the gate when no longer needed). Priority events go to the head
//! of the input queue and reach the task as a mail.
//!
//! Local channels (Flink 2.x `LocalInputChannel` reading a `PipelinedSubpartitionView`):
//! nothing travels and nothing needs credit. What the subpartition may send is handed to
//! the consumer's queue at once ([`Engine::try_send`] → `send_local`), but a data buffer
//! stays a buffer of the producer's `LocalBufferPool` (`used`, `sender_buffers`) until the
//! consumer recycles it after deserializing it ([`Engine::buffer_consumed`]) — so the
//! producer's pool and `max-buffers-per-channel` alone bound the channel and carry the
//! backpressure. A priority event goes to the head, ahead of the data the consumer has not
//! read (`PipelinedSubpartition.add` with `isPriorityEvent` → `notifyPriorityEvent`,
//! `LocalInputChannel.getNextBuffer` then returns it first); an aligned barrier blocks the
//! subpartition once the consumer polled it (nothing behind it is readable before), until
//! `LocalInputChannel.resumeConsumption` (a method call: no latency).
//! Unaligned capture differs from a remote channel's: `LocalInputChannel.checkpointStarted`
//! persists nothing (the receiver holds no buffers), the buffers the consumer polls before
//! the channel's barrier are persisted as they are polled (`getNextBuffer` →
//! `ChannelStatePersister.maybePersist`, see [`Engine::local_polled`]), and what the
//! unaligned barrier overtakes in the subpartition is the producer's output state
//! (`PipelinedSubpartition.processPriorityBuffer`). The simplification: events reach the
//! consumer at the instant they are added (Flink's `notifyDataAvailable` is also immediate
//! within a TaskManager, but the consumer thread takes them at its next poll, which the
//! task loop does here too).

use super::config::BarrierKind;
use super::log::LogKind;
use super::network::{push_priority, Barrier, Buffer, Channel, Event, InFlight, Item, Persist};
use super::runtime::{Engine, Ev};
use super::task::{Activity, Mail, TaskStatus};

/// Bytes of data buffers queued, being filled, on the wire or received on a channel.
pub fn channel_data_bytes(c: &Channel) -> u64 {
    let items = c
        .queue
        .iter()
        .chain(c.in_flight.iter().map(|f| &f.item))
        .chain(c.received.iter());
    let queued: u64 = items
        .map(|i| match i {
            Item::Data(b) => b.bytes as u64,
            _ => 0,
        })
        .sum();
    queued + c.building.as_ref().map_or(0, |b| b.bytes as u64)
}

impl Engine {
    // ------------------------------------------------------------------ sender side

    /// Takes a buffer from the producer's pool for `channel`; overdraft only if allowed.
    fn request_buffer(&mut self, channel: usize, allow_overdraft: bool, record_size: u32) -> bool {
        let p = self.channels[channel].partition;
        let part = &mut self.partitions[p];
        let limit = if allow_overdraft {
            part.pool_size + part.max_overdraft
        } else {
            part.pool_size
        };
        if part.used >= limit {
            return false;
        }
        part.used += 1;
        let capacity = self.channels[channel].buffer_size.max(1);
        let id = self.new_buffer_id();
        let ch = &mut self.channels[channel];
        ch.sender_buffers += 1;
        // Room for the records of this size that fit (at most 16 up front): a buffer's
        // record list grows once or not at all instead of doubling from one.
        let fits = (capacity / record_size.max(1)).clamp(1, 16) as usize;
        ch.building = Some(Buffer {
            id,
            records: self.record_lists.take(fits),
            bytes: 0,
            capacity,
            captured: None,
            recovered: false,
            replayed_input: false,
            seq: 0,
        });
        true
    }

    /// Writes the task's pending output into buffers. False if it blocked on a buffer request.
    pub(crate) fn write_pending_output(&mut self, t: usize) -> bool {
        let allow_overdraft = !self.tasks[t].legacy_source;
        while let Some(emit) = self.tasks[t].pending_out.front() {
            let (c, size) = (emit.channel, emit.record.size);
            if self.channels[c].building.is_none() && !self.request_buffer(c, allow_overdraft, size)
            {
                return false;
            }
            let emit = self.tasks[t]
                .pending_out
                .front_mut()
                .expect("checked above");
            let buffer = self.channels[c].building.as_mut().expect("requested above");
            let written = emit.remaining.min(buffer.capacity - buffer.bytes);
            buffer.bytes += written;
            emit.remaining -= written;
            let full = buffer.bytes >= buffer.capacity;
            if emit.remaining == 0 {
                let emit = self.tasks[t]
                    .pending_out
                    .pop_front()
                    .expect("checked above");
                self.channels[c]
                    .building
                    .as_mut()
                    .expect("requested above")
                    .records
                    .push(emit.record);
                self.tasks[t].metrics.records_out += 1;
            }
            if full {
                self.finish_building(c);
            }
        }
        if self.config.buffer_timeout == 0 {
            let parts = self.tasks[t].partitions.clone();
            for p in parts {
                for c in self.partitions[p].channels.clone() {
                    self.finish_building(c);
                }
            }
        }
        true
    }

    /// Moves the buffer being filled (if it holds anything) into the subpartition queue.
    pub(crate) fn finish_building(&mut self, c: usize) {
        let ch = &mut self.channels[c];
        match ch.building.take() {
            Some(b) if b.bytes > 0 => {
                ch.queue.push_back(Item::Data(b));
                self.try_send(c);
            }
            Some(b) => ch.building = Some(b),
            None => {}
        }
    }

    /// The output flusher (`execution.buffer-timeout.interval`).
    pub(crate) fn flush_all(&mut self) {
        for c in 0..self.channels.len() {
            if self.tasks[self.channels[c].from_task].is_live() {
                self.finish_building(c);
            }
        }
    }

    /// Appends an event behind queued data (aligned barriers, cancel markers, end of partition).
    pub(crate) fn enqueue_event(&mut self, c: usize, event: Event) {
        self.finish_building(c);
        self.channels[c].queue.push_back(Item::Event {
            event,
            priority: false,
        });
        self.try_send(c);
    }

    /// Puts a priority event at the head of the subpartition, behind earlier priority events.
    pub(crate) fn enqueue_priority_event(&mut self, c: usize, event: Event) {
        self.finish_building(c);
        push_priority(&mut self.channels[c].queue, event);
        self.try_send(c);
    }

    /// Sends what the subpartition may send now.
    pub(crate) fn try_send(&mut self, c: usize) {
        if self.channels[c].is_local() {
            self.send_local(c);
            return;
        }
        let latency = self.config.network_latency;
        loop {
            let ch = &self.channels[c];
            let Some(head) = ch.queue.front() else { return };
            match head {
                Item::Event { event, .. } => {
                    if ch.blocked {
                        return;
                    }
                    let blocks = matches!(event, Event::Barrier(b) if b.kind.blocks_upstream());
                    let sent_barrier = match event {
                        Event::Barrier(b) => Some(*b),
                        _ => None,
                    };
                    let ch = &mut self.channels[c];
                    let item = ch.queue.pop_front().expect("head exists");
                    ch.in_flight.push_back(InFlight {
                        arrives: self.now + latency,
                        item,
                        backlog: 0,
                    });
                    if blocks {
                        ch.blocked = true;
                    }
                    self.schedule(self.now + latency, Ev::Arrive(c));
                    if let Some(b) = sent_barrier {
                        if b.kind == BarrierKind::TimeoutableAligned {
                            let t = self.channels[c].from_task;
                            self.output_barrier_sent(t, b.id);
                        }
                    }
                }
                Item::Data(_) => {
                    if ch.blocked || ch.held_for_recovery {
                        return;
                    }
                    if ch.credit == 0 {
                        if !ch.backlog_announced && ch.exclusive == 0 {
                            let backlog = ch.backlog();
                            self.channels[c].backlog_announced = true;
                            self.schedule(self.now + latency, Ev::Backlog(c, backlog));
                        }
                        return;
                    }
                    let ch = &mut self.channels[c];
                    let item = ch.queue.pop_front().expect("head exists");
                    ch.credit -= 1;
                    ch.in_flight_data += 1;
                    ch.sender_buffers -= 1;
                    let backlog = ch.backlog();
                    ch.in_flight.push_back(InFlight {
                        arrives: self.now + latency,
                        item,
                        backlog,
                    });
                    let p = ch.partition;
                    self.partitions[p].used -= 1;
                    self.schedule(self.now + latency, Ev::Arrive(c));
                    self.output_freed(p);
                }
            }
        }
    }

    /// A local channel: the consumer reads the subpartition in place. What it may read
    /// moves to its queue now; data buffers stay in the producer's pool (no credit, no
    /// receiver buffers) until [`Engine::buffer_consumed`] recycles them.
    fn send_local(&mut self, c: usize) {
        loop {
            let ch = &self.channels[c];
            let Some(head) = ch.queue.front() else { return };
            if ch.blocked || (head.is_data() && ch.held_for_recovery) {
                return;
            }
            // The subpartition blocks when the consumer polls an aligned barrier
            // (`PipelinedSubpartition.pollBuffer`: `isBlockingUpstream` → `isBlocked`); until
            // then nothing behind it is readable, priority events excepted.
            let behind_barrier = ch.received.iter().any(|i| {
                matches!(i, Item::Event { event: Event::Barrier(b), priority: false } if b.kind.blocks_upstream())
            });
            if behind_barrier && !head.is_priority() {
                return;
            }
            let ch = &mut self.channels[c];
            match ch.queue.pop_front().expect("head exists") {
                Item::Data(mut b) => {
                    b.seq = ch.next_seq;
                    ch.next_seq += 1;
                    ch.received.push_back(Item::Data(b));
                    self.notify_data(c);
                }
                Item::Event { event, priority } => self.deliver_event(c, event, priority),
            }
        }
    }

    /// The consumer polled `item` from channel `c` (`LocalInputChannel.getNextBuffer`). On a
    /// local channel a data buffer polled while an unaligned checkpoint waits for this
    /// channel's barrier is persisted now (`ChannelStatePersister.maybePersist`; the barrier
    /// overtook nothing of it, or the producer would have taken it as output state), and an
    /// aligned barrier leaves the producer's subpartition only now: it blocks the
    /// subpartition, and a timeout-capable one can no longer be overtaken at the output.
    /// Remote channels did all three when the buffer or barrier was sent or arrived.
    pub(crate) fn local_polled(&mut self, c: usize, item: &mut Item) {
        if !self.channels[c].is_local() {
            return;
        }
        match item {
            Item::Data(b) => {
                if let Persist::BarrierPending(id) = self.channels[c].persist {
                    if b.captured != Some(id) && !b.replayed_input {
                        b.captured = Some(id);
                        let t = self.channels[c].to_task;
                        self.capture_input(t, id, c, b);
                    }
                }
            }
            Item::Event {
                event: Event::Barrier(b),
                priority: false,
            } => {
                if b.kind.blocks_upstream() {
                    self.channels[c].blocked = true;
                }
                if b.kind == BarrierKind::TimeoutableAligned {
                    let producer = self.channels[c].from_task;
                    self.output_barrier_sent(producer, b.id);
                }
            }
            _ => {}
        }
    }

    /// A buffer of partition `p` was recycled: a producer waiting for output may go on.
    fn output_freed(&mut self, p: usize) {
        let t = self.partitions[p].task;
        if matches!(
            self.tasks[t].activity,
            Activity::SoftBackpressured | Activity::HardBackpressured
        ) {
            self.wake(t, self.now);
        }
    }

    /// Flink's `LocalBufferPool` availability: a free buffer, no subpartition over
    /// `max-buffers-per-channel`, no overdraft buffer in use.
    pub(crate) fn partition_available(&self, p: usize) -> bool {
        let part = &self.partitions[p];
        let max = self.config.max_buffers_per_channel;
        // `used` is the sum of the subpartitions' buffers (checked in `invariants.rs`), so
        // below `max` no subpartition can be at it: no need to look at each of them.
        part.used < part.pool_size
            && (part.used < max
                || part
                    .channels
                    .iter()
                    .all(|&c| self.channels[c].sender_buffers < max))
    }

    pub(crate) fn output_available(&self, t: usize) -> bool {
        self.tasks[t]
            .partitions
            .iter()
            .all(|&p| self.partition_available(p))
    }

    pub(crate) fn credit_arrived(&mut self, c: usize, n: u32, epoch: u32) {
        let ch = &mut self.channels[c];
        if epoch != ch.credit_epoch {
            return;
        }
        ch.credit_in_transit -= n;
        if ch.closed {
            return;
        }
        ch.credit += n;
        ch.backlog_announced = false;
        self.try_send(c);
    }

    /// `ResumeConsumption` reached the sender (`CreditBasedSequenceNumberingViewReader
    /// .resumeConsumption`): the subpartition sends again.
    pub(crate) fn resume_arrived(&mut self, c: usize) {
        self.channels[c].blocked = false;
        self.try_send(c);
    }

    pub(crate) fn backlog_arrived(&mut self, c: usize, backlog: u32) {
        self.channels[c].sender_backlog = backlog;
        self.request_floating(c);
    }

    // ------------------------------------------------------------------ receiver side

    pub(crate) fn arrive(&mut self, c: usize) {
        let Some(InFlight { item, backlog, .. }) = self.channels[c].in_flight.pop_front() else {
            return;
        };
        let t = self.channels[c].to_task;
        if let Item::Event {
            event: Event::Barrier(b),
            priority,
        } = &item
        {
            let ahead = if *priority {
                0
            } else {
                self.channels[c].received_data
            };
            self.barrier_trace.arrived(b.id, c, self.now, ahead);
        }
        match item {
            Item::Data(mut b) => {
                let ch = &mut self.channels[c];
                ch.in_flight_data -= 1;
                ch.received_data += 1;
                ch.sender_backlog = backlog;
                b.seq = ch.next_seq;
                ch.next_seq += 1;
                if let Persist::BarrierPending(id) = ch.persist {
                    b.captured = Some(id);
                    self.capture_input(t, id, c, &b);
                }
                self.channels[c].received.push_back(Item::Data(b));
                self.request_floating(c);
                self.notify_data(c);
            }
            Item::Event { event, priority } => self.deliver_event(c, event, priority),
        }
    }

    /// An event reaches input channel `c`: a priority event goes to the head of the queue
    /// and reaches the task as a mail; others queue behind the data.
    fn deliver_event(&mut self, c: usize, event: Event, priority: bool) {
        let t = self.channels[c].to_task;
        if priority {
            if let Event::Barrier(b) = &event {
                // As Flink's ChannelStatePersister does on arrival: what comes after an
                // unaligned barrier is not this channel's state for that checkpoint.
                let ch = &mut self.channels[c];
                ch.priority_boundary = Some((b.id, ch.next_seq));
                if ch.persist == Persist::BarrierPending(b.id) {
                    ch.persist = Persist::BarrierReceived(b.id);
                }
            }
            push_priority(&mut self.channels[c].received, event);
            self.tasks[t].mailbox.push_back(Mail::PriorityEvent(c));
            self.wake(t, self.now);
            return;
        }
        if matches!(&event, Event::Barrier(b) if b.kind.blocks_upstream())
            && !self.channels[c].is_local()
        {
            self.on_blocking_upstream(c);
        }
        let announce = matches!(
            &event,
            Event::Barrier(Barrier {
                kind: BarrierKind::TimeoutableAligned,
                ..
            })
        );
        if matches!(event, Event::EndOfPartition) {
            self.channels[c].eop_received = true;
        }
        self.channels[c].received.push_back(Item::Event {
            event,
            priority: false,
        });
        if announce {
            self.tasks[t].mailbox.push_back(Mail::Announcement(c));
            self.wake(t, self.now);
        }
        self.notify_data(c);
    }

    /// The channel has something to read: queue it for the task's default action.
    pub(crate) fn notify_data(&mut self, c: usize) {
        let ch = &self.channels[c];
        if ch.received.is_empty() {
            return;
        }
        let t = ch.to_task;
        if !ch.listed_with_data {
            self.channels[c].listed_with_data = true;
            self.tasks[t].channels_with_data.push_back(c);
        }
        if self.tasks[t].activity == Activity::Idle {
            self.wake(t, self.now);
        }
    }

    /// Asks the gate for floating buffers until the channel can take its sender's backlog.
    pub(crate) fn request_floating(&mut self, c: usize) {
        let g = self.channels[c].gate;
        loop {
            let ch = &self.channels[c];
            let needed = ch.sender_backlog + ch.exclusive;
            if ch.free_buffers() >= needed {
                break;
            }
            if self.gates[g].floating_free == 0 {
                if !self.channels[c].waiting_for_floating {
                    self.channels[c].waiting_for_floating = true;
                    self.gates[g].waiting.push_back(c);
                }
                break;
            }
            self.gates[g].floating_free -= 1;
            self.channels[c].floating += 1;
        }
        self.announce_credit(c);
    }

    pub(crate) fn announce_credit(&mut self, c: usize) {
        let ch = &mut self.channels[c];
        let n = ch.unannounced_credit();
        if n > 0 && !ch.closed {
            ch.credit_in_transit += n;
            let epoch = ch.credit_epoch;
            let at = self.now + self.config.network_latency;
            self.schedule(at, Ev::Credit(c, n, epoch));
        }
    }

    /// The task finished deserializing a buffer of channel `c`.
    pub(crate) fn buffer_consumed(&mut self, c: usize, recovered: bool) {
        // The producer may be waiting at end of input for its consumers to read everything.
        let producer = self.channels[c].from_task;
        if self.tasks[producer].status == TaskStatus::Finishing {
            self.wake(producer, self.now);
        }
        if recovered {
            self.recovered_buffer_consumed(c);
            let ch = &mut self.channels[c];
            ch.recovered_buffers -= 1;
            if ch.recovered_buffers == 0 {
                self.channel_recovered(c);
            }
            return;
        }
        if self.channels[c].is_local() {
            // `LocalInputChannel`: the consumer recycles the producer's buffer.
            let p = self.channels[c].partition;
            self.channels[c].sender_buffers -= 1;
            self.partitions[p].used -= 1;
            self.output_freed(p);
            return;
        }
        self.channels[c].received_data -= 1;
        let g = self.channels[c].gate;
        let ch = &self.channels[c];
        let surplus = ch.floating > 0
            && ch.unannounced_credit() > 0
            && ch.free_buffers() > ch.sender_backlog + ch.exclusive;
        if surplus {
            self.channels[c].floating -= 1;
            self.gates[g].floating_free += 1;
            self.hand_out_floating(g);
        }
        self.announce_credit(c);
    }

    /// An aligned barrier arrived on channel `c` (Flink 2.x `RemoteInputChannel.onBuffer` →
    /// `onBlockingUpstream`): its sender blocked the subpartition and reports backlog 0.
    /// Only a channel without exclusive buffers (`buffers-per-channel` = 0) gives its free
    /// floating buffers back to the gate (FLINK-16404: a blocked channel cannot recycle
    /// them, and would starve the channels whose barriers are still on the way); the credit
    /// they stood for is void. With exclusive buffers nothing is revoked: the blocked sender
    /// keeps its credit and the channel its buffers.
    fn on_blocking_upstream(&mut self, c: usize) {
        let g = self.channels[c].gate;
        let ch = &mut self.channels[c];
        ch.sender_backlog = 0;
        if ch.exclusive > 0 {
            return;
        }
        ch.credit = 0;
        ch.credit_in_transit = 0;
        ch.credit_epoch += 1;
        let release = ch.floating.min(ch.free_buffers());
        ch.floating -= release;
        self.gates[g].floating_free += release;
        self.hand_out_floating(g);
    }

    /// Gives free floating buffers of gate `g` to the channels waiting for them.
    fn hand_out_floating(&mut self, g: usize) {
        while self.gates[g].floating_free > 0 {
            let Some(w) = self.gates[g].waiting.pop_front() else {
                break;
            };
            self.channels[w].waiting_for_floating = false;
            self.request_floating(w);
        }
    }

    /// `RemoteInputChannel.resumeConsumption` after an alignment (or for an obsolete aligned
    /// barrier): the task reads the channel again and the sender is told to resume. Without
    /// exclusive buffers the credit starts from zero again (the unannounced credit and the
    /// sender's credit are reset), and the channel asks for floating buffers anew.
    pub(crate) fn resume_consumption(&mut self, c: usize) {
        let ch = &mut self.channels[c];
        ch.blocked_at_receiver = false;
        if ch.is_local() {
            // `LocalInputChannel.resumeConsumption`: a call on the subpartition view, in
            // this TaskManager (no network hop, no credit).
            self.schedule(self.now, Ev::Resume(c));
            self.notify_data(c);
            return;
        }
        if ch.exclusive == 0 {
            ch.credit = 0;
            ch.credit_in_transit = 0;
            ch.credit_epoch += 1;
        }
        self.schedule(self.now + self.config.network_latency, Ev::Resume(c));
        self.request_floating(c);
        self.notify_data(c);
    }

    /// A finishing task gives back its empty buffers (builders) and its input buffers.
    pub(crate) fn release_task_buffers(&mut self, t: usize) {
        for p in self.tasks[t].partitions.clone() {
            for c in self.partitions[p].channels.clone() {
                if self.channels[c]
                    .building
                    .as_ref()
                    .is_some_and(|b| b.bytes == 0)
                {
                    self.channels[c].building = None;
                    self.channels[c].sender_buffers -= 1;
                    self.partitions[p].used -= 1;
                }
            }
        }
        for c in self.tasks[t].inputs.clone() {
            let g = self.channels[c].gate;
            let n = std::mem::take(&mut self.channels[c].floating);
            self.gates[g].floating_free += n;
            self.hand_out_floating(g);
            let ch = &mut self.channels[c];
            ch.closed = true;
            ch.exclusive = 0;
            ch.credit = 0;
        }
    }

    /// Emits end-of-partition on every output, after flushing.
    pub(crate) fn emit_end_of_partition(&mut self, t: usize) {
        for p in self.tasks[t].partitions.clone() {
            for c in self.partitions[p].channels.clone() {
                self.enqueue_event(c, Event::EndOfPartition);
            }
        }
        let name = self.tasks[t].name.clone();
        self.log.push(
            self.now,
            LogKind::Task,
            format!("{name} finished and sent end-of-partition"),
        );
    }
}
