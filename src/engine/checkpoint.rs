//! The subtask side of a checkpoint: the sync phase (snapshot, barriers to the outputs,
//! capture of overtaken buffers), the async phase (write state and channel state), and the
//! acknowledgement (Flink's `SubtaskCheckpointCoordinatorImpl` + `AsyncCheckpointRunnable`).
//!
//! A [`SubtaskCheckpoint`] is created when the first barrier (or the trigger RPC) reaches
//! the subtask and is acknowledged when: the snapshot was taken, the operator state was
//! written, every input channel's barrier arrived (unaligned: in-flight input captured up to
//! it), every timeout-capable output barrier left or was turned unaligned, and every
//! captured buffer was written by the channel-state writer.

use super::channel_state::{file_complete, write_time, SharerState};
use super::config::BarrierKind;
use super::log::{bytes, text, Arg, LogKind, Msg};
use super::network::{Barrier, Buffer, Event, Item, Persist};
use super::record::Record;
use super::runtime::{Engine, Ev};
use super::task::{Mail, OpState, TaskState, TaskStatus};
use super::time::Micros;
use serde::Serialize;
use std::collections::BTreeMap;

/// Virtual time the synchronous part of a snapshot keeps the task thread (copy-on-write
/// snapshot of heap state, plus the pre-barrier flush).
pub const SYNC_PHASE_COST: Micros = 50;

/// Serialized size of one pending two-phase-commit transaction handle in state.
pub const TXN_HANDLE_BYTES: u64 = 64;

#[derive(Clone, Debug, Serialize)]
pub struct SubtaskCheckpoint {
    pub id: u64,
    #[serde(skip)]
    pub barrier: Barrier,
    /// Switched to unaligned (first barrier was unaligned, or the timeout passed).
    pub unaligned: bool,
    pub timed_out: bool,
    pub first_barrier_at: Micros,
    pub start_delay: Micros,
    pub alignment_end: Option<Micros>,
    pub sync_start: Option<Micros>,
    pub sync_end: Option<Micros>,
    #[serde(skip)]
    pub state: Option<TaskState>,
    pub state_bytes: u64,
    pub state_written: bool,
    /// Captured input: channel → records not yet processed at the snapshot.
    #[serde(skip)]
    pub input_state: BTreeMap<usize, Vec<Record>>,
    /// Captured output: channel → records queued behind the unaligned barrier.
    #[serde(skip)]
    pub output_state: BTreeMap<usize, Vec<Record>>,
    pub persisted_bytes: u64,
    pub captured_buffers: u32,
    pub processed_bytes: u64,
    pub input_done: bool,
    pub outputs_awaiting: u32,
    pub writes_pending: u32,
    pub acked_at: Option<Micros>,
}

impl SubtaskCheckpoint {
    /// The phase at virtual time `now`, for the job view: `sync` while the synchronous
    /// part of the snapshot holds the task thread (`sync_start <= now < sync_end`, Flink's
    /// `SubtaskCheckpointCoordinatorImpl.checkpointState` → `takeSnapshotSync`), then the
    /// asynchronous part (`AsyncCheckpointRunnable`, started by `finishAndReportAsync`)
    /// until the acknowledgement. View data only: nothing in the run reads it.
    pub fn phase_at(&self, now: Micros) -> &'static str {
        match (self.sync_start, self.sync_end) {
            (Some(start), Some(end)) if self.acked_at.is_none() && start <= now && now < end => {
                "sync"
            }
            _ => self.phase(),
        }
    }

    pub fn phase(&self) -> &'static str {
        if self.acked_at.is_some() {
            "acknowledged"
        } else if self.sync_start.is_none() {
            "aligning"
        } else if self.sync_end.is_some_and(|e| e > 0) && !self.input_done {
            "async (persisting in-flight data)"
        } else {
            "async"
        }
    }
}

/// Bytes of a subtask's snapshot: the sum over its chained operators.
pub fn task_state_size(state: &TaskState, bytes_per_key: u32) -> u64 {
    state
        .operators
        .iter()
        .map(|(_, s)| state_size(s, bytes_per_key))
        .sum()
}

pub fn state_size(state: &OpState, bytes_per_key: u32) -> u64 {
    match state {
        OpState::Source { .. } => 16,
        OpState::Stateless => 0,
        OpState::Keyed(m) => m.len() as u64 * bytes_per_key as u64,
        OpState::Sink(txns) => txns.pending.len() as u64 * TXN_HANDLE_BYTES,
    }
}

/// Whether a subtask holding `barrier` writes channel state for its checkpoint
/// (`CheckpointOptions.needsChannelState` after `SubtaskCheckpointCoordinatorImpl
/// .checkpointState`, Flink 2.3): unaligned and timeout-capable aligned barriers do, and so
/// does a barrier forced aligned on a pointwise edge of such a checkpoint, since
/// `checkpointState` reverts it (`options.withUnalignedSupported()`) and calls
/// `initInputsCheckpoint`, which starts the channel-state writer (`ChannelStateWriterImpl
/// .start`: the subtask registers its result with the shared file) before the barrier
/// overtakes the output. Only a checkpoint aligned from the start (no unaligned checkpoints
/// configured, or a savepoint) needs none; no subtask starts a channel-state file for it.
fn needs_channel_state(barrier: Barrier) -> bool {
    let writes =
        |k: BarrierKind| matches!(k, BarrierKind::Unaligned | BarrierKind::TimeoutableAligned);
    match barrier.kind {
        BarrierKind::ForcedAligned => writes(barrier.original),
        kind => writes(kind),
    }
}

fn records_bytes(records: &[Record]) -> u64 {
    records.iter().map(|r| r.size as u64).sum()
}

impl Engine {
    /// The first barrier (or trigger) of checkpoint `barrier.id` reached task `t`.
    pub(crate) fn begin_subtask_checkpoint(&mut self, t: usize, barrier: Barrier) {
        let now = self.now;
        self.tasks[t]
            .checkpoints
            .entry(barrier.id)
            .or_insert_with(|| SubtaskCheckpoint {
                id: barrier.id,
                barrier,
                unaligned: false,
                timed_out: false,
                first_barrier_at: now,
                start_delay: now.saturating_sub(barrier.timestamp),
                alignment_end: None,
                sync_start: None,
                sync_end: None,
                state: None,
                state_bytes: 0,
                state_written: false,
                input_state: BTreeMap::new(),
                output_state: BTreeMap::new(),
                persisted_bytes: 0,
                captured_buffers: 0,
                processed_bytes: 0,
                input_done: false,
                outputs_awaiting: 0,
                writes_pending: 0,
                acked_at: None,
            });
        self.coordinator_subtask_started(barrier.id, t);
    }

    /// Captures the data buffers among the first `upto` items of channel `c`'s input queue
    /// that arrived before the checkpoint's unaligned barrier on that channel, if one came.
    ///
    /// A local channel captures nothing here (`LocalInputChannel.checkpointStarted` starts
    /// persisting with no buffers): what it has not read is still the producer's
    /// subpartition, which the producer's unaligned barrier takes as output state.
    pub(crate) fn capture_queued_input(&mut self, t: usize, id: u64, c: usize, upto: usize) -> u32 {
        if self.channels[c].is_local() {
            return 0;
        }
        let limit = match self.channels[c].priority_boundary {
            Some((b, seq)) if b == id => seq,
            _ => u64::MAX,
        };
        let mut captured = Vec::new();
        for item in self.channels[c].received.iter_mut().take(upto) {
            if let Item::Data(b) = item {
                if b.captured != Some(id) && (b.replayed_input || b.seq < limit) {
                    b.captured = Some(id);
                    captured.push(b.clone());
                }
            }
        }
        let n = captured.len() as u32;
        for b in captured {
            self.capture_input(t, id, c, &b);
        }
        n
    }

    /// Captures the unread records of the buffer being deserialized.
    pub(crate) fn capture_current_buffer(&mut self, t: usize, id: u64) -> u32 {
        let Some((c, records)) = &self.tasks[t].current else {
            return 0;
        };
        if records.is_empty() {
            return 0;
        }
        let c = *c;
        let records: Vec<Record> = records.iter().cloned().collect();
        let size = records_bytes(&records) as u32;
        let b = Buffer {
            id: 0,
            bytes: size,
            capacity: size,
            records,
            captured: Some(id),
            recovered: false,
            replayed_input: false,
            seq: 0,
        };
        self.capture_input(t, id, c, &b);
        1
    }

    /// Records one captured input buffer as channel state and sends it to the writer.
    pub(crate) fn capture_input(&mut self, t: usize, id: u64, c: usize, b: &Buffer) {
        let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) else {
            return;
        };
        cp.input_state
            .entry(c)
            .or_default()
            .extend(b.records.iter().cloned());
        cp.persisted_bytes += b.bytes as u64;
        cp.captured_buffers += 1;
        self.add_channel_state_write(t, id, b.bytes as u64);
    }

    /// The sync phase: snapshot the operator, send the barrier downstream, start the async phase.
    pub(crate) fn perform_checkpoint(&mut self, t: usize, id: u64, unaligned: bool) {
        let Some(cp) = self.tasks[t].checkpoints.get(&id) else {
            return;
        };
        if cp.sync_start.is_some() {
            return;
        }
        let original = cp.barrier.original;
        let barrier = cp.barrier;
        let switched = cp.unaligned || unaligned;
        // Two-phase commit: pre-commit each chained sink's open transaction into the snapshot.
        for (_, txns) in self.tasks[t].chain.sinks_mut() {
            let open = std::mem::take(&mut txns.open);
            txns.pending.insert(id, open);
        }
        // One snapshot of every chained operator (`RegularOperatorChain.snapshotState`).
        let state = self.tasks[t].chain.snapshot(self.tasks[t].index);
        let state_bytes = task_state_size(&state, self.config.state_bytes_per_key);
        // Barriers to the outputs.
        let mut output_captured = 0u32;
        let mut awaiting = 0u32;
        for p in self.tasks[t].partitions.clone() {
            let e = self.partitions[p].edge;
            let capable = self.edges[e].unaligned_capable;
            let kind = if !capable
                && matches!(
                    original,
                    BarrierKind::Unaligned | BarrierKind::TimeoutableAligned
                ) {
                BarrierKind::ForcedAligned
            } else if original == BarrierKind::Unaligned
                || (original == BarrierKind::TimeoutableAligned && switched)
            {
                BarrierKind::Unaligned
            } else {
                original
            };
            let out = Barrier { kind, ..barrier };
            for c in self.partitions[p].channels.clone() {
                self.trace_barrier_sent(id, c, kind == BarrierKind::Unaligned);
                if kind == BarrierKind::Unaligned {
                    self.enqueue_priority_event(c, Event::Barrier(out));
                    output_captured += self.capture_output_behind_barrier(t, id, c);
                } else {
                    self.enqueue_event(c, Event::Barrier(out));
                    let ch = &self.channels[c];
                    let unread = if ch.is_local() { ch.received.len() } else { 0 };
                    let still_queued = ch.queue.iter().chain(ch.received.iter().take(unread)).any(
                        |i| matches!(i, Item::Event { event: Event::Barrier(b), .. } if b.id == id),
                    );
                    if kind == BarrierKind::TimeoutableAligned && still_queued {
                        awaiting += 1;
                    }
                }
            }
        }
        let now = self.now;
        let sync_end = now + SYNC_PHASE_COST;
        self.stop_at_synchronous_savepoint(t, id);
        let finishing = self.tasks[t].status == TaskStatus::Finishing;
        // Without a pending alignment (sources, tasks whose inputs ended) there is no input to wait for.
        let aligning = self.tasks[t].handler.is_collecting(id);
        let task = &mut self.tasks[t];
        task.busy_until = task.busy_until.max(sync_end);
        if finishing {
            task.final_checkpoint = Some(id);
        }
        let cp = task.checkpoints.get_mut(&id).expect("checked above");
        cp.unaligned = switched || cp.unaligned;
        cp.sync_start = Some(now);
        cp.sync_end = Some(sync_end);
        cp.state = Some(state);
        cp.state_bytes = state_bytes;
        cp.outputs_awaiting += awaiting;
        if !cp.unaligned || !aligning {
            cp.input_done = true;
        }
        if cp.alignment_end.is_none() && !cp.unaligned {
            cp.alignment_end = Some(now);
        }
        if awaiting > 0 {
            let at = barrier.timestamp + self.config.aligned_checkpoint_timeout;
            self.schedule(at.max(now), Ev::Mail(t, Mail::OutputTimeout(id)));
        }
        let written = if state_bytes > self.config.memory_threshold {
            self.create_file(sync_end) + write_time(state_bytes, self.config.storage_throughput)
        } else {
            sync_end
        };
        self.schedule(written, Ev::StateWritten(t, id));
        let name = self.tasks[t].name.clone();
        let mode = if switched { "unaligned" } else { "aligned" };
        let mut args = vec![
            text(id),
            text(name),
            Arg::Word(mode),
            text(bytes(state_bytes)),
        ];
        let code = if output_captured > 0 {
            args.push(text(output_captured));
            "checkpoint {0}: {1} took its {2} snapshot ({3} state); barrier overtook {4} output buffers (captured as channel state)"
        } else {
            "checkpoint {0}: {1} took its {2} snapshot ({3} state)"
        };
        self.log
            .push_msg(now, LogKind::Snapshot, Msg::new(code, args));
    }

    /// Captures the data queued behind the unaligned barrier at the head of channel `c`
    /// (`PipelinedSubpartition.processPriorityBuffer`). On a local channel the subpartition
    /// also holds what the consumer has not polled yet (its queue is the subpartition view).
    fn capture_output_behind_barrier(&mut self, t: usize, id: u64, c: usize) -> u32 {
        let mut records = Vec::new();
        let mut total = 0u64;
        let mut n = 0;
        let ch = &mut self.channels[c];
        let unread = if ch.is_local() { ch.received.len() } else { 0 };
        for item in ch
            .received
            .iter_mut()
            .take(unread)
            .chain(ch.queue.iter_mut())
        {
            if let Item::Data(b) = item {
                if b.captured != Some(id) {
                    b.captured = Some(id);
                    records.extend(b.records.iter().cloned());
                    total += b.bytes as u64;
                    n += 1;
                }
            }
        }
        if n == 0 {
            return 0;
        }
        if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
            cp.output_state.entry(c).or_default().extend(records);
            cp.persisted_bytes += total;
            cp.captured_buffers += n;
        }
        self.add_channel_state_write(t, id, total);
        n
    }

    /// Every input channel delivered its barrier: the input side of an unaligned checkpoint ends.
    pub(crate) fn finish_input(&mut self, t: usize, id: u64) {
        if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
            cp.input_done = true;
        }
        self.maybe_ack(t, id);
    }

    /// A timeout-capable aligned barrier left an output subpartition in time.
    pub(crate) fn output_barrier_sent(&mut self, t: usize, id: u64) {
        if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
            if cp.outputs_awaiting > 0 {
                cp.outputs_awaiting -= 1;
                self.maybe_ack(t, id);
            }
        }
    }

    /// The aligned-checkpoint timeout passed with barriers still queued at the output: they
    /// overtake the data ahead of them, which becomes output channel state (FLINK-27251).
    pub(crate) fn output_timeout(&mut self, t: usize, id: u64) {
        if !self.tasks[t].checkpoints.contains_key(&id) {
            return;
        }
        let mut converted = 0;
        let mut captured = 0;
        for p in self.tasks[t].partitions.clone() {
            for c in self.partitions[p].channels.clone() {
                let is_barrier = |i: &Item| matches!(i, Item::Event { event: Event::Barrier(b), priority: false } if b.id == id && b.kind == BarrierKind::TimeoutableAligned);
                // A local channel's consumer reads the subpartition in place: a barrier it
                // has not polled yet is still in the subpartition (`received`).
                let ch = &mut self.channels[c];
                let in_received = ch.is_local() && ch.received.iter().any(is_barrier);
                let q = if in_received {
                    &mut ch.received
                } else {
                    &mut ch.queue
                };
                let Some(pos) = q.iter().position(is_barrier) else {
                    continue;
                };
                let Some(Item::Event {
                    event: Event::Barrier(b),
                    ..
                }) = q.remove(pos)
                else {
                    unreachable!()
                };
                let mut records = Vec::new();
                let mut total = 0;
                for item in q.iter_mut().take(pos) {
                    if let Item::Data(buf) = item {
                        buf.captured = Some(id);
                        records.extend(buf.records.iter().cloned());
                        total += buf.bytes as u64;
                        captured += 1;
                    }
                }
                if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
                    cp.output_state.entry(c).or_default().extend(records);
                    cp.persisted_bytes += total;
                    cp.outputs_awaiting = cp.outputs_awaiting.saturating_sub(1);
                    cp.unaligned = true;
                    cp.timed_out = true;
                }
                if total > 0 {
                    self.add_channel_state_write(t, id, total);
                }
                self.enqueue_priority_event(
                    c,
                    Event::Barrier(Barrier {
                        kind: BarrierKind::Unaligned,
                        ..b
                    }),
                );
                converted += 1;
            }
        }
        if converted > 0 {
            let name = self.tasks[t].name.clone();
            self.log.push_msg(
                self.now,
                LogKind::Barrier,
                Msg::new(
                    "checkpoint {0}: aligned-checkpoint timeout at {1}'s output: {2} queued barriers turned unaligned, overtaking {3} buffers",
                    vec![text(id), text(name), text(converted), text(captured)],
                ),
            );
        }
        self.maybe_ack(t, id);
    }

    fn add_channel_state_write(&mut self, t: usize, id: u64, size: u64) {
        if size == 0 {
            return;
        }
        let Some(w) = self.writers.iter().position(|w| w.tasks.contains(&t)) else {
            return;
        };
        if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
            cp.writes_pending += 1;
        }
        self.writers[w]
            .queue
            .push_back(super::channel_state::WriteRequest {
                task: t,
                checkpoint: id,
                bytes: size,
            });
        if self.writers[w].in_progress.is_none() {
            self.start_next_write(w);
        }
    }

    fn start_next_write(&mut self, w: usize) {
        let Some(req) = self.writers[w].queue.pop_front() else {
            return;
        };
        let threshold = self.config.memory_threshold;
        let file = self.writers[w].files.entry(req.checkpoint).or_default();
        file.bytes += req.bytes;
        let new_file = !file.is_file && file.bytes > threshold;
        file.is_file |= new_file;
        let start = if new_file {
            self.create_file(self.now)
        } else {
            self.now
        };
        let done = start + write_time(req.bytes, self.config.storage_throughput);
        self.writers[w].in_progress = Some(req);
        self.schedule(done, Ev::WriterDone(w));
    }

    /// Creates a file in checkpoint storage, asked for at `at`; returns when it exists.
    /// Creations queue at the storage's metadata service (an HDFS NameNode, an object
    /// store's request rate): this shared cost is what makes many small files expensive.
    fn create_file(&mut self, at: Micros) -> Micros {
        let start = at.max(self.storage_metadata_free_at);
        self.storage_metadata_free_at = start + self.config.storage_file_cost;
        self.storage_files_created += 1;
        self.storage_metadata_free_at
    }

    pub(crate) fn writer_done(&mut self, w: usize) {
        if let Some(req) = self.writers[w].in_progress.take() {
            if let Some(cp) = self.tasks[req.task].checkpoints.get_mut(&req.checkpoint) {
                cp.writes_pending = cp.writes_pending.saturating_sub(1);
                self.maybe_ack(req.task, req.checkpoint);
            }
        }
        self.start_next_write(w);
    }

    pub(crate) fn state_written(&mut self, t: usize, id: u64) {
        if let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) {
            cp.state_written = true;
        }
        self.maybe_ack(t, id);
    }

    /// Acknowledges `t`'s checkpoint `id` if it is complete; once `t` wrote all its channel
    /// state, its file may have waited only for it, so its sharers are looked at too.
    fn maybe_ack(&mut self, t: usize, id: u64) {
        self.try_ack(t, id);
        if self.sharer_state(t, id) == SharerState::Written {
            for s in self.file_sharers(t) {
                self.try_ack(s, id);
            }
        }
    }

    fn try_ack(&mut self, t: usize, id: u64) {
        let now = self.now;
        let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) else {
            return;
        };
        if cp.acked_at.is_some()
            || cp.sync_end.is_none_or(|e| e > now)
            || !cp.state_written
            || !cp.input_done
            || cp.outputs_awaiting > 0
            || cp.writes_pending > 0
        {
            return;
        }
        if !self.channel_state_file_complete(t, id) {
            return;
        }
        let Some(cp) = self.tasks[t].checkpoints.get_mut(&id) else {
            return;
        };
        cp.acked_at = Some(now);
        let (state_bytes, persisted) = (cp.state_bytes, cp.persisted_bytes);
        let name = self.tasks[t].name.clone();
        self.log.push_msg(
            now,
            LogKind::Checkpoint,
            Msg::new(
                "{0} acknowledged checkpoint {1}: {2} state, {3} in-flight",
                vec![
                    text(name),
                    text(id),
                    text(bytes(state_bytes)),
                    text(bytes(persisted)),
                ],
            ),
        );
        self.schedule(now + self.config.rpc_latency, Ev::Ack(t, id));
        if self.tasks[t].status == TaskStatus::Finishing {
            // A finishing task waits for its checkpoints in progress to be acknowledged.
            self.wake(t, now);
        }
    }

    /// The other tasks writing into `t`'s channel-state file (none with
    /// `playground.channel-state.writers-per-taskmanager: false`, whose acknowledgements
    /// are not coupled).
    fn file_sharers(&self, t: usize) -> Vec<usize> {
        if !self.config.writers_per_task_manager {
            return Vec::new();
        }
        self.writers
            .iter()
            .find(|w| w.tasks.contains(&t))
            .map(|w| w.tasks.iter().copied().filter(|&s| s != t).collect())
            .unwrap_or_default()
    }

    /// `ChannelStateCheckpointWriter.tryFinishResult` for `t`'s file of checkpoint `id`:
    /// true when `t` needs no channel state for it, or every sharer is done writing.
    fn channel_state_file_complete(&self, t: usize, id: u64) -> bool {
        if self.sharer_state(t, id) != SharerState::Written {
            return true;
        }
        file_complete(
            self.file_sharers(t)
                .into_iter()
                .map(|s| self.sharer_state(s, id)),
        )
    }

    fn sharer_state(&self, s: usize, id: u64) -> SharerState {
        let task = &self.tasks[s];
        if matches!(task.status, TaskStatus::Finished | TaskStatus::Canceled) {
            return SharerState::Released;
        }
        let Some(cp) = task.checkpoints.get(&id) else {
            return if task.last_checkpoint_id >= id {
                SharerState::Released
            } else {
                SharerState::NotStarted
            };
        };
        if !needs_channel_state(cp.barrier) {
            SharerState::NoChannelState
        } else if cp.barrier.kind == BarrierKind::ForcedAligned && cp.sync_start.is_none() {
            // Registers its result only when `checkpointState` reverts the forced alignment.
            SharerState::NotStarted
        } else if cp.sync_end.is_some_and(|e| e <= self.now)
            && cp.input_done
            && cp.outputs_awaiting == 0
            && cp.writes_pending == 0
        {
            SharerState::Written
        } else {
            SharerState::Writing
        }
    }

    /// `ChannelStateWriteRequestDispatcherImpl` on `SubtaskReleaseRequest` →
    /// `ChannelStateCheckpointWriter.releaseSubtask`: task `t` finished, so the files it
    /// shares stop waiting for it (`tryFinishResult`), and sharers that waited only for it
    /// acknowledge now.
    pub(crate) fn release_channel_state_sharer(&mut self, t: usize) {
        let sharers = self.file_sharers(t);
        if sharers.is_empty() {
            return;
        }
        let pending: Vec<u64> = self.coordinator.pending.iter().copied().collect();
        for id in pending {
            for &s in &sharers {
                self.try_ack(s, id);
            }
        }
    }

    pub(crate) fn decline(&mut self, t: usize, id: u64, reason: &str) {
        self.schedule(
            self.now + self.config.rpc_latency,
            Ev::Decline(t, id, reason.to_string()),
        );
    }

    pub(crate) fn abort_subtask_checkpoint(&mut self, t: usize, id: u64) {
        if self.tasks[t].checkpoints.remove(&id).is_none() {
            return;
        }
        for w in self.writers.iter_mut() {
            w.queue.retain(|r| !(r.task == t && r.checkpoint == id));
        }
        for c in self.tasks[t].inputs.clone() {
            if matches!(self.channels[c].persist, Persist::BarrierPending(x) | Persist::BarrierReceived(x) if x == id)
            {
                self.channels[c].persist = Persist::Idle;
            }
        }
    }

    /// The coordinator's trigger RPC reached a task (a source, or a task whose inputs all ended).
    ///
    /// A trigger for a checkpoint this task already started is dropped: the task reached the
    /// end of its input while the RPC was on its way and took the checkpoint then
    /// (`trigger_pending_after_inputs_ended`); Flink sends one RPC per task and checkpoint,
    /// so the second one must not reach `checkpointState`'s out-of-order path, which would
    /// abort the checkpoint this task already acknowledged.
    pub(crate) fn trigger_at_task(&mut self, t: usize, barrier: Barrier) {
        let id = barrier.id;
        if self.tasks[t].checkpoints.contains_key(&id) || self.tasks[t].last_checkpoint_id >= id {
            return;
        }
        if self.tasks[t].status == TaskStatus::Recovering {
            self.decline(t, id, "CHECKPOINT_DECLINED_TASK_NOT_READY");
            self.broadcast_cancel(t, id);
            return;
        }
        let open: Vec<usize> = self.tasks[t]
            .inputs
            .iter()
            .copied()
            .filter(|&c| !self.channels[c].closed)
            .collect();
        if open.is_empty() {
            // No alignment for a triggered task (`triggerCheckpointAsyncInMailbox`).
            self.checkpoint_state(t, barrier, barrier.kind == BarrierKind::Unaligned);
            return;
        }
        // Inputs that ended but still hold data: the barrier goes in just before their end
        // of partition, so the data ahead of it is in this checkpoint (FLIP-147).
        for c in open {
            let q = &mut self.channels[c].received;
            let pos = q
                .iter()
                .position(|i| {
                    matches!(
                        i,
                        Item::Event {
                            event: Event::EndOfPartition,
                            ..
                        }
                    )
                })
                .unwrap_or(q.len());
            q.insert(
                pos,
                Item::Event {
                    event: Event::Barrier(Barrier {
                        kind: BarrierKind::ForcedAligned,
                        ..barrier
                    }),
                    priority: false,
                },
            );
            self.notify_data(c);
        }
    }

    pub(crate) fn notify_complete_at_task(&mut self, t: usize, id: u64) {
        let sub = self.tasks[t].index;
        let mut chain = std::mem::take(&mut self.tasks[t].chain);
        for (op, txns) in chain.sinks_mut() {
            let ready: Vec<u64> = txns.pending.range(..=id).map(|(k, _)| *k).collect();
            let mut committed = 0;
            for k in ready {
                let records = txns.pending.remove(&k).expect("listed");
                committed += records.len();
                self.external[op]
                    .as_mut()
                    .expect("sink")
                    .commit(sub, k, &records);
            }
            if committed > 0 {
                let name = self.tasks[t].name.clone();
                self.log.push(
                    self.now,
                    LogKind::Sink,
                    format!("{name} committed {committed} records (checkpoint {id})"),
                );
            }
        }
        self.tasks[t].chain = chain;
        let done: Vec<u64> = self.tasks[t]
            .checkpoints
            .range(..=id)
            .map(|(k, _)| *k)
            .collect();
        for k in done {
            if self.tasks[t]
                .checkpoints
                .get(&k)
                .is_some_and(|c| c.acked_at.is_some())
            {
                self.tasks[t].checkpoints.remove(&k);
            }
        }
        if self.tasks[t].status == TaskStatus::Finishing
            && self.tasks[t].final_checkpoint.is_some_and(|f| f <= id)
        {
            self.tasks[t].final_checkpoint_completed = true;
            self.maybe_finish(t);
        }
    }

    /// `SubtaskCheckpointCoordinatorImpl.notifyCheckpointAborted` (Flink 2.x): cancels the
    /// checkpoint's async part if it already ran its sync phase here, otherwise remembers the
    /// id (only one not yet triggered at this task) so `checkpoint_state` skips it, and
    /// aborts its channel-state writes. It does not reach the barrier handler: channels it
    /// blocked stay blocked until the checkpoint's remaining barriers, a cancel marker or a
    /// newer barrier arrive, and a task whose first barrier of it comes later still aligns
    /// before skipping it.
    pub(crate) fn notify_aborted_at_task(&mut self, t: usize, id: u64) {
        let canceled = self.tasks[t]
            .checkpoints
            .get(&id)
            .is_some_and(|c| c.sync_start.is_some());
        let task = &mut self.tasks[t];
        if !canceled && id > task.last_checkpoint_id && !task.aborted.contains(&id) {
            task.aborted.push(id);
            if task.aborted.len() > 64 {
                task.aborted.remove(0);
            }
        }
        self.abort_subtask_checkpoint(t, id);
        // A two-phase-commit sink keeps an aborted checkpoint's transaction pending: the
        // next completed checkpoint commits it (`notify_complete_at_task`).
        if self.tasks[t].status == TaskStatus::Finishing
            && self.tasks[t].final_checkpoint == Some(id)
        {
            self.tasks[t].final_checkpoint = None;
        }
    }

    /// `SubtaskCheckpointCoordinatorImpl.checkpointState`, step (0): the handler (or the
    /// trigger RPC) started checkpoint `barrier.id` at this task. An id not newer than the
    /// last one triggered here is out of order and dropped; one notified as aborted before
    /// is skipped with a `CancelCheckpointMarker` downstream (no decline: the coordinator
    /// already ended it), so downstream tasks stop aligning on it. Otherwise the sync phase
    /// runs (`perform_checkpoint`).
    pub(crate) fn checkpoint_state(&mut self, t: usize, barrier: Barrier, unaligned: bool) {
        let id = barrier.id;
        if self.tasks[t].last_checkpoint_id >= id {
            self.abort_subtask_checkpoint(t, id);
            return;
        }
        self.tasks[t].last_checkpoint_id = id;
        if let Some(pos) = self.tasks[t].aborted.iter().position(|&a| a == id) {
            self.tasks[t].aborted.remove(pos);
            self.abort_subtask_checkpoint(t, id);
            self.broadcast_cancel(t, id);
            let name = self.tasks[t].name.clone();
            self.log.push_msg(
                self.now,
                LogKind::Checkpoint,
                Msg::new(
                    "{0} skips checkpoint {1}: it was notified as aborted; cancel marker sent downstream",
                    vec![text(name), text(id)],
                ),
            );
            return;
        }
        if !self.tasks[t].checkpoints.contains_key(&id) {
            self.begin_subtask_checkpoint(t, barrier);
        }
        self.perform_checkpoint(t, id, unaligned);
    }

    /// `SubtaskCheckpointCoordinatorImpl.abortCheckpointOnBarrier`: the handler aborted
    /// checkpoint `id` (subsumed, cancel marker, end of input): abort its channel-state
    /// writes, decline it, and tell downstream with a `CancelCheckpointMarker`.
    pub(crate) fn abort_checkpoint_on_barrier(&mut self, t: usize, id: u64, reason: &str) {
        let task = &mut self.tasks[t];
        task.last_checkpoint_id = task.last_checkpoint_id.max(id);
        let last = task.last_checkpoint_id;
        task.aborted.retain(|&a| a >= last);
        self.abort_subtask_checkpoint(t, id);
        self.decline(t, id, reason);
        self.broadcast_cancel(t, id);
    }

    /// Without checkpointing, transactional sinks commit at the end of their input.
    pub(crate) fn commit_everything_at_end(&mut self, t: usize) {
        let sub = self.tasks[t].index;
        for (op, txns) in self.tasks[t].chain.sinks_mut() {
            let mut all: Vec<Record> = Vec::new();
            for (_, r) in std::mem::take(&mut txns.pending) {
                all.extend(r);
            }
            all.extend(std::mem::take(&mut txns.open));
            self.external[op]
                .as_mut()
                .expect("sink")
                .commit(sub, u64::MAX, &all);
        }
    }
}
