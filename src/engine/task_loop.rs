//! The mailbox loop of a subtask (Flink's `MailboxProcessor.runMailboxStep`) and the
//! task's side of its operator chain ([`super::chain`]): what a chained operator's record
//! needs from the engine (partitioning into the task's result partitions, the external
//! sink systems, the live costs).
//!
//! One call of [`Engine::run_task`] runs at most one step: finish writing the previous
//! record's output (blocking mid-record if no buffer is free — no mail runs then); else one
//! mail; else the default action, which with the availability check waits for a free output
//! buffer first, then emits one source record or processes one input record — pushing it
//! through the whole chain by method calls — and stays busy for the chain's cost.
//!
//! Sources come in Flink's two kinds ([`super::spec::SourceApi`]): a FLIP-27 source is a mailbox task
//! like any other (it respects the availability check and emits between mails); a legacy
//! `SourceFunction` emits from its own thread under the checkpoint lock with no
//! availability check, so under backpressure it blocks mid-record holding the lock, and
//! the task's mails — the checkpoint trigger included — wait for the lock (step 1 below).

use super::chain::ChainHost;
use super::log::LogKind;
use super::network::{Event, Item};
use super::record::{key_group_target, source_key, source_value, Lineage, Record};
use super::runtime::Engine;
use super::spec::{OperatorKind, Partitioner};
use super::task::{Activity, Emit, Mail, OpState, TaskStatus};
use super::time::Micros;
use std::collections::VecDeque;

/// What the default action found to do.
enum Input {
    Record(Record),
    Event(usize, Event),
}

impl Engine {
    pub(crate) fn run_task(&mut self, t: usize) {
        if !self.tasks[t].is_live() || !self.job_is_running() {
            return;
        }
        if self.now < self.tasks[t].busy_until {
            let at = self.tasks[t].busy_until;
            self.wake(t, at);
            return;
        }
        // 1. The previous record's output, possibly stuck on a buffer request.
        if !self.tasks[t].pending_out.is_empty() {
            if !self.write_pending_output(t) {
                self.set_activity(t, Activity::HardBackpressured);
                return;
            }
            self.after_step(t);
        }
        // 2. Mails before the default action.
        if let Some(mail) = self.tasks[t].mailbox.pop_front() {
            self.set_activity(t, Activity::Busy);
            self.run_mail(t, mail);
            self.reschedule(t);
            return;
        }
        if self.tasks[t].status == TaskStatus::Finishing {
            self.set_activity(t, Activity::Idle);
            self.maybe_finish(t);
            return;
        }
        // 3. The default action.
        if self.checks_availability(t) && !self.output_available(t) {
            self.set_activity(t, Activity::SoftBackpressured);
            return;
        }
        if self.tasks[t].is_source {
            self.source_step(t);
        } else {
            self.input_step(t);
        }
    }

    /// Whether the task looks at its output's availability before taking the next record.
    ///
    /// A mailbox task (every non-source task and a FLIP-27 source) follows
    /// `StreamTask.processInput` (Flink 1.11+, FLINK-14396): when the record writer is
    /// unavailable it suspends the default action until `RecordWriter.getAvailableFuture`
    /// completes, so mails still run (`playground.task.availability-check` turns this
    /// off to show the task thread before the optimization). A legacy `SourceFunction`
    /// never checks: `SourceStreamTask.processInput` suspends the default action for good
    /// and the `LegacySourceFunctionThread` calls `SourceContext.collect` (under the
    /// checkpoint lock, `StreamSourceContexts`) whatever the output's state, blocking in
    /// the buffer request (`LocalBufferPool.requestMemorySegmentBlocking`) with the lock
    /// held. Flink has no switch that makes it wait; its only change for legacy sources is
    /// FLINK-27789 (no overdraft buffers, see `graph.rs`), and the remedy is a FLIP-27
    /// source.
    fn checks_availability(&self, t: usize) -> bool {
        !self.tasks[t].legacy_source && self.config.availability_check
    }

    /// Schedules the next step after this one's busy time.
    fn reschedule(&mut self, t: usize) {
        let at = self.tasks[t].busy_until.max(self.now);
        self.wake(t, at);
    }

    /// After a record's output is fully written.
    fn after_step(&mut self, t: usize) {
        self.set_activity(t, Activity::Busy);
    }

    fn source_step(&mut self, t: usize) {
        let op = self.tasks[t].operator;
        let OperatorKind::Source(src) = &self.operators[op].kind else {
            unreachable!()
        };
        let src = src.clone();
        let rate = self.operators[op].rate;
        let OpState::Source { offset } = *self.tasks[t].chain.head_state() else {
            unreachable!()
        };
        let mut offset = offset;
        if src.records.is_some_and(|n| offset >= n) {
            self.reach_end_of_input(t);
            return;
        }
        // The external system produces records at `rate`; the source reads behind it.
        let produced = ((self.now as f64) * rate / 1e6).floor() as u64 + 1;
        let produced = src.records.map_or(produced, |n| produced.min(n));
        if let Some(retention) = src.retention {
            let oldest = ((self.now.saturating_sub(retention)) as f64 * rate / 1e6).ceil() as u64;
            if offset < oldest {
                let lost = oldest.min(produced) - offset;
                self.records_expired(t, op, offset, lost);
                offset = oldest.min(produced);
                *self.tasks[t].chain.head_state_mut() = OpState::Source { offset };
            }
        }
        if offset >= produced {
            let next_at = ((offset as f64) * 1e6 / rate).ceil() as Micros;
            self.set_activity(t, Activity::Idle);
            self.wake(t, next_at.max(self.now + 1));
            return;
        }
        let index = self.tasks[t].index as u16;
        let seed = self.spec.seed;
        let tag = self.operators[op].lineage_source;
        let record = Record {
            key: source_key(seed, tag, index, offset, src.keys, src.skew),
            value: source_value(seed, tag, index, offset),
            size: src.record_size,
            lineage: Lineage::root(tag, index, offset),
        };
        *self.tasks[t].chain.head_state_mut() = OpState::Source { offset: offset + 1 };
        self.tasks[t].high_water = self.tasks[t].high_water.max(offset + 1);
        self.log.fold(offset ^ ((t as u64) << 40));
        let cost = self.push_through_chain(t, record);
        self.busy_for(t, cost);
    }

    /// Hands `record` to the head of task `t`'s chain and on through it; returns the
    /// chain's busy time for it.
    fn push_through_chain(&mut self, t: usize, record: Record) -> Micros {
        let mut chain = std::mem::take(&mut self.tasks[t].chain);
        let cost = chain.push(0, record, &mut TaskSide { engine: self, t });
        self.tasks[t].chain = chain;
        cost
    }

    fn busy_for(&mut self, t: usize, cost: Micros) {
        self.set_activity(t, Activity::Busy);
        self.tasks[t].busy_until = self.now + cost;
        self.reschedule(t);
    }

    fn input_step(&mut self, t: usize) {
        match self.next_input(t) {
            None => {
                self.set_activity(t, Activity::Idle);
                self.maybe_end_of_input(t);
            }
            Some(Input::Event(c, event)) => {
                self.set_activity(t, Activity::Busy);
                self.handle_event(t, c, event);
                self.reschedule(t);
            }
            Some(Input::Record(record)) => {
                self.tasks[t].metrics.records_in += 1;
                self.tasks[t].metrics.bytes_in += record.size as u64;
                if let Some((c, _)) = &self.tasks[t].current {
                    let g = self.channels[*c].gate;
                    self.gates[g].bytes_consumed += record.size as u64;
                }
                self.log
                    .fold(record.lineage.offset ^ ((t as u64) << 40) ^ self.now.rotate_left(20));
                let cost = self.push_through_chain(t, record);
                self.busy_for(t, cost);
            }
        }
    }

    /// Polls the union input gate: the next record of the buffer being deserialized, else
    /// the next buffer or event of the first channel with data.
    fn next_input(&mut self, t: usize) -> Option<Input> {
        loop {
            if let Some((c, records)) = &mut self.tasks[t].current {
                let c = *c;
                if let Some(r) = records.pop_front() {
                    return Some(Input::Record(r));
                }
                let recovered = self.tasks[t].current_recovered;
                if let Some((_, list)) = self.tasks[t].current.take() {
                    self.record_lists.give(list);
                }
                self.buffer_consumed(c, recovered);
                continue;
            }
            // A channel the barrier handler blocked stays readable: what is queued there was
            // sent before its aligned barrier (Flink 2.x `SingleInputGate.blockConsumption`
            // is a no-op; the sender's blocked subpartition stops the rest). That is the
            // data an announced barrier was prioritized ahead of.
            let c = self.tasks[t].channels_with_data.pop_front()?;
            self.channels[c].listed_with_data = false;
            let Some(mut item) = self.channels[c].received.pop_front() else {
                continue;
            };
            self.local_polled(c, &mut item);
            if !self.channels[c].received.is_empty() {
                self.channels[c].listed_with_data = true;
                self.tasks[t].channels_with_data.push_back(c);
            }
            match item {
                Item::Data(b) => {
                    // `CheckpointedInputGate.pollNext` → `addProcessedBytes`.
                    self.tasks[t].handler.add_processed_bytes(b.bytes as u64);
                    self.tasks[t].current_recovered = b.replayed_input;
                    if b.recovered && self.stale_serializer.is_some() {
                        self.recovered_buffer_polled(t);
                    }
                    self.tasks[t].current = Some((c, VecDeque::from(b.records)));
                }
                Item::Event { event, .. } => return Some(Input::Event(c, event)),
            }
        }
    }

    /// Partitions a record into result partition `p` of task `t` as pending output
    /// (`RecordWriterOutput` → `ChannelSelectorRecordWriter`).
    fn route_to_partition(&mut self, t: usize, p: usize, record: Record) {
        let edge = self.partitions[p].edge;
        let channels = &self.partitions[p].channels;
        let size = record.size;
        let push = |task: &mut super::task::Task, channel: usize, record: Record| {
            task.pending_out.push_back(Emit {
                channel,
                record,
                remaining: size,
            });
        };
        match self.edges[edge].partitioner {
            Partitioner::Forward => {
                let c = channels[0];
                push(&mut self.tasks[t], c, record);
            }
            Partitioner::Rebalance | Partitioner::Rescale => {
                let part = &mut self.partitions[p];
                let c = part.channels[part.next_channel % part.channels.len()];
                part.next_channel = (part.next_channel + 1) % part.channels.len();
                push(&mut self.tasks[t], c, record);
            }
            Partitioner::Hash => {
                let n = channels.len() as u32;
                let max = self.operators[self.edges[edge].to_op].max_parallelism;
                let c = channels[key_group_target(record.key, n, max) as usize];
                push(&mut self.tasks[t], c, record);
            }
            Partitioner::Broadcast => {
                for (i, &c) in channels.clone().iter().enumerate() {
                    let copy = Record {
                        lineage: record.lineage.child(i as u32),
                        ..record
                    };
                    push(&mut self.tasks[t], c, copy);
                }
            }
        }
        // Output is written when the step's busy time ends (see run_task).
    }

    fn run_mail(&mut self, t: usize, mail: Mail) {
        match mail {
            Mail::TriggerCheckpoint(barrier) => self.trigger_at_task(t, barrier),
            Mail::PriorityEvent(c) => {
                let q = &mut self.channels[c].received;
                if q.front().is_some_and(|i| i.is_priority()) {
                    if let Some(Item::Event { event, .. }) = q.pop_front() {
                        self.handle_event(t, c, event);
                    }
                }
            }
            Mail::Announcement(c) => self.handler_announcement(t, c),
            Mail::AlignmentTimeout(id) => self.handler_alignment_timeout(t, id),
            Mail::OutputTimeout(id) => self.output_timeout(t, id),
            Mail::Debloat => self.debloat(t),
            Mail::NotifyComplete(id) => self.notify_complete_at_task(t, id),
            Mail::NotifyAborted(id) => self.notify_aborted_at_task(t, id),
        }
        self.set_activity(t, Activity::Busy);
    }

    fn handle_event(&mut self, t: usize, c: usize, event: Event) {
        match event {
            Event::Barrier(b) => self.handler_barrier(t, c, b),
            Event::CancelCheckpointMarker(id) => self.handler_cancel_marker(t, c, id),
            Event::EndOfPartition => {
                self.channels[c].closed = true;
                self.handler_end_of_partition(t, c);
                self.maybe_end_of_input(t);
            }
        }
    }

    /// A non-source task whose every input ended (and was drained) reached end of input.
    fn maybe_end_of_input(&mut self, t: usize) {
        let task = &self.tasks[t];
        if task.status != TaskStatus::Running
            || task.current.is_some()
            || !task.pending_out.is_empty()
            || !task
                .inputs
                .iter()
                .all(|&c| self.channels[c].closed && self.channels[c].received.is_empty())
        {
            return;
        }
        self.reach_end_of_input(t);
    }

    /// End of input: with checkpointing, wait for a checkpoint taken after this point to
    /// complete (FLIP-147) before finishing; without, finish now (committing sinks).
    pub(crate) fn reach_end_of_input(&mut self, t: usize) {
        if self.tasks[t].status != TaskStatus::Running {
            return;
        }
        self.set_activity(t, Activity::Idle);
        if self.config.checkpoint_interval.is_some() {
            self.tasks[t].status = TaskStatus::Finishing;
            self.tasks[t].final_checkpoint = None;
            let name = self.tasks[t].name.clone();
            self.log.push(
                self.now,
                LogKind::Task,
                format!("{name} reached end of input; waits for a final checkpoint"),
            );
            if !self.tasks[t].is_source {
                self.trigger_pending_after_inputs_ended(t);
            }
        } else {
            self.commit_everything_at_end(t);
            self.finish_task(t);
        }
    }

    /// Finishes a task at end of input once Flink's termination conditions hold
    /// (`StreamTask.afterInvoke`, Flink 1.14+ with `checkpoints-after-tasks-finish`): its
    /// final checkpoint completed (`finalCheckpointCompleted`), every consumer processed all
    /// the data it produced (`ResultPartition.getAllDataProcessedFuture`, completed when each
    /// consumer reads `EndOfData` behind the last record and calls
    /// `acknowledgeAllRecordsProcessed`), and no checkpoint it snapshotted is still
    /// unacknowledged (`waitForPendingCheckpoints`). Until then the task keeps taking part
    /// in checkpoints, so an unaligned barrier that overtook its queued output leaves that
    /// output in every checkpoint's channel state; a task that finished with output still
    /// queued would drop it from the checkpoints after its final one, which hold only its
    /// finished state. Simplification: there is no `EndOfData` event; "processed" is read
    /// off the channels (nothing queued, on the wire, received or being deserialized), and
    /// the acknowledgement needs no network hop.
    pub(crate) fn maybe_finish(&mut self, t: usize) {
        let task = &self.tasks[t];
        if task.status != TaskStatus::Finishing
            || !task.final_checkpoint_completed
            || task
                .checkpoints
                .values()
                .any(|c| c.sync_start.is_some() && c.acked_at.is_none())
            || !self.output_processed(t)
        {
            return;
        }
        self.finish_task(t);
    }

    /// Every record this task wrote was read by its consumers.
    pub(crate) fn output_processed(&self, t: usize) -> bool {
        self.tasks[t].partitions.iter().all(|&p| {
            self.partitions[p].channels.iter().all(|&c| {
                let ch = &self.channels[c];
                let reading = matches!(&self.tasks[ch.to_task].current,
                    Some((from, records)) if *from == c && !records.is_empty());
                ch.building.as_ref().is_none_or(|b| b.bytes == 0)
                    && !ch.queue.iter().any(Item::is_data)
                    && ch.in_flight_data == 0
                    && !ch.received.iter().any(Item::is_data)
                    && !reading
            })
        })
    }

    pub(crate) fn finish_task(&mut self, t: usize) {
        self.flush_task(t);
        self.emit_end_of_partition(t);
        self.release_task_buffers(t);
        self.tasks[t].status = TaskStatus::Finished;
        self.set_activity(t, Activity::Idle);
        self.task_finished_during_checkpoints(t);
        self.release_channel_state_sharer(t);
        self.check_job_finished();
    }

    fn flush_task(&mut self, t: usize) {
        for p in self.tasks[t].partitions.clone() {
            for c in self.partitions[p].channels.clone() {
                self.finish_building(c);
            }
        }
    }
}

/// The engine as the chain of task `t` sees it while a record runs through.
struct TaskSide<'a> {
    engine: &'a mut Engine,
    t: usize,
}

impl ChainHost for TaskSide<'_> {
    fn cost(&self, operator: usize) -> Micros {
        self.engine.operators[operator].cost
    }

    fn kind(&self, operator: usize) -> &OperatorKind {
        &self.engine.operators[operator].kind
    }

    fn emit(&mut self, partition: usize, record: Record) {
        self.engine.route_to_partition(self.t, partition, record);
    }

    fn write_external(&mut self, operator: usize, record: &Record) {
        let sub = self.engine.tasks[self.t].index;
        self.engine.external[operator]
            .as_mut()
            .expect("sink")
            .write(sub, record);
    }
}
