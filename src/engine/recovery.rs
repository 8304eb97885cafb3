//! Failure and recovery.
//!
//! Failover strategy (`jobmanager.execution.failover-strategy`): with `region` (Flink's
//! default) a subtask's failure restarts its pipelined region only, see
//! [`super::region_failover`]; this module restarts the whole job — with `full`
//! (`RestartAllFailoverStrategy`), on a global failure (the checkpoint failure manager's),
//! and when the failed subtask's region is the whole job (a streaming job's all-to-all edges
//! join everything into one region). The job waits the delay the restart strategy gives
//! (`super::restart_strategy`; when it gives up the job goes FAILED). After
//! that delay the job is redeployed and restored from the latest
//! completed checkpoint, in Flink's order (`StreamTask.restoreStateAndGates`): recovered
//! output buffers go into their subpartitions before any new record; operator state is
//! restored (two-phase-commit sinks commit the transactions pending in it, idempotently);
//! recovered input buffers are read before anything new on their channel, and the upstream
//! holds new data on a gate's channels until that gate's recovered input is consumed;
//! sources rewind to their offsets. Restoring takes time: every task is INITIALIZING while
//! it reads its state back from checkpoint storage and consumes its recovered input (see
//! `begin_restores`), and the coordinator triggers no checkpoint until all are RUNNING.
//!
//! A failover restarts the job as it runs: nothing of it can change, so nothing is checked
//! (a changed job is a resubmission, [`super::resubmission`]). The restored in-flight data
//! is read by the job's serializer; bytes an older serializer wrote (a resubmitted job that
//! restored them) fail the task that reads them again, every time.
//! When `execution.checkpointing.recover-without-channel-state.checkpoint-id` names the
//! restored checkpoint, its in-flight data is dropped (and counted as lost) whatever else
//! is true of it, as Flink's `CheckpointCoordinator.extractOperatorStates` does.

use super::channel_state::{write_time, ChannelStateReader, ReadDone, ReadStep};
use super::coordinator::{ChannelKey, CompletedCheckpoint};
use super::log::{dur, reason as reason_arg, text, LogKind, Msg};
use super::network::{Buffer, Item};
use super::record::Record;
use super::report::FailureReport;
use super::restart_strategy::{RestartDecision, RestartStrategy};
use super::runtime::{Engine, Ev, JobStatus};
use super::spec::OperatorKind;
use super::task::{Activity, OpState, TaskStatus};
use std::collections::BTreeMap;

/// A task being restored: its input reader and the recovered output not yet put back.
#[derive(Clone, Debug, Default)]
pub struct TaskRestore {
    pub reader: ChannelStateReader,
    pub output: Vec<(usize, Vec<Record>)>,
    /// Operator state and recovered output are back (`StateRestored` happened).
    pub restored: bool,
}

impl Engine {
    /// A subtask fails (user action or injected failure).
    pub(crate) fn fail_task(&mut self, t: usize, reason: String) {
        if self.status != JobStatus::Running || !self.tasks[t].is_live() {
            return;
        }
        match self.region_to_restart(t) {
            Some(region) => self.fail_region(t, region, reason),
            None => self.failover(Some(t), reason),
        }
    }

    /// Fails the running job over as a whole (`full`, a global failure, or a region that is
    /// the whole job): cancel every task, abort checkpoints,
    /// restart later.
    pub(crate) fn failover(&mut self, task: Option<usize>, reason: String) {
        if self.status != JobStatus::Running {
            return;
        }
        let (operator, subtask) = match task {
            Some(t) => (
                self.operators[self.tasks[t].operator].id.clone(),
                self.tasks[t].index,
            ),
            None => ("(job)".to_string(), 0),
        };
        self.cancel_all_tasks("TASK_FAILURE");
        // The restart strategy decides the delay, or that the job fails for good. Whether
        // checkpointing is enabled is decided at submission, as Flink's loader does.
        let strategy =
            RestartStrategy::resolve(&self.config, self.spec.config.checkpoint_interval.is_some());
        let decision = self.restart_backoff.on_failure(&strategy, self.now);
        let delay = match decision {
            RestartDecision::Restart { delay, .. } => Some(delay),
            RestartDecision::GiveUp => None,
        };
        let who = match task {
            Some(_) => format!("{operator}#{subtask} failed"),
            None => "job failover".to_string(),
        };
        let mut args = match task {
            Some(_) => vec![text(&operator), text(subtask), reason_arg(&reason)],
            None => vec![reason_arg(&reason)],
        };
        let code = match (task.is_some(), delay) {
            (true, Some(d)) => {
                args.push(text(dur(d)));
                "{0}#{1} failed: {2}; restarting the job in {3}"
            }
            (false, Some(d)) => {
                args.push(text(dur(d)));
                "job failover: {0}; restarting the job in {1}"
            }
            (true, None) => {
                args.push(text(strategy.describe()));
                "{0}#{1} failed: {2}; the restart strategy {3} allows no further restart"
            }
            (false, None) => {
                args.push(text(strategy.describe()));
                "job failover: {0}; the restart strategy {1} allows no further restart"
            }
        };
        self.log
            .push_msg(self.now, LogKind::Failure, Msg::new(code, args));
        let restarted_subtasks = match delay {
            Some(_) => self.tasks.iter().map(|t| t.name.clone()).collect(),
            None => Vec::new(),
        };
        self.failures.push(FailureReport {
            at_ms: self.now as f64 / 1e3,
            operator,
            subtask,
            reason: reason.clone(),
            restart_delay_ms: delay.map(|d| d as f64 / 1e3),
            restarted_subtasks,
            ..Default::default()
        });
        match delay {
            Some(d) => {
                self.recovery_started = Some(self.now);
                self.schedule(self.now + d, Ev::Restart);
            }
            None => self.fail_job_for_good(format!(
                "{who} ({reason}) and the restart strategy {} gives up",
                strategy.describe()
            )),
        }
    }

    /// Cancels every task of the running job, as a failover of the whole job
    /// (`RestartAllFailoverStrategy` / a global failure: `DefaultScheduler` cancels every
    /// `Execution`, `SchedulerBase.stopCheckpointScheduler` aborts the pending checkpoints)
    /// and `flink cancel` before a resubmission (`SchedulerBase.cancel`, the coordinator
    /// shut down) both do; `reason` is the aborted checkpoints' failure reason
    /// (`TASK_FAILURE`, `CHECKPOINT_COORDINATOR_SHUTDOWN`). The sources' high-water offsets
    /// are kept (what a restore will read again), every pending checkpoint is aborted and the
    /// periodic trigger stopped, every task not FINISHED is CANCELED and idle, the attempt
    /// number (`epoch`) moves on so the old attempt's events die with it, and region restarts
    /// still waiting are superseded (Flink's `ExecutionVertexVersioner`: their vertices were
    /// modified since). The job is RESTARTING until the caller redeploys it or fails it.
    /// Simplified: cancellation is instant (Flink's tasks go CANCELING, then CANCELED once
    /// their threads stop).
    pub(crate) fn cancel_all_tasks(&mut self, reason: &str) {
        for t in 0..self.tasks.len() {
            let key = (self.tasks[t].operator, self.tasks[t].index);
            let hw = self.source_high_water.entry(key).or_insert(0);
            *hw = (*hw).max(self.tasks[t].high_water);
        }
        self.coordinator_abort_all(reason);
        for t in 0..self.tasks.len() {
            self.set_activity(t, Activity::Idle);
            if self.tasks[t].status != TaskStatus::Finished {
                self.tasks[t].status = TaskStatus::Canceled;
            }
        }
        self.epoch += 1;
        self.region_restarts.clear();
        self.status = JobStatus::Restarting;
    }

    pub(crate) fn restart(&mut self) {
        if self.status != JobStatus::Restarting {
            return;
        }
        self.deploy();
        self.restores.clear();
        self.status = JobStatus::Running;
        // The job is RUNNING again: the coordinator restarts its periodic trigger
        // (`CheckpointCoordinatorDeActivator`), with a new random initial delay.
        self.coordinator_start();
        let latest = self.coordinator.latest.clone();
        let mut replayed = 0u64;
        let mut recovered_inflight = 0u64;
        let mut lost = 0u64;
        let restored_id = latest.as_ref().map(|c| c.id);
        if let Some(cp) = latest {
            // `CheckpointCoordinator.extractOperatorStates`: when the restored checkpoint has
            // the id of `recover-without-channel-state.checkpoint-id`, every operator state is
            // restored `copyAndDiscardInFlightData` — whether or not anything is wrong with it.
            let drop_inflight =
                self.config.recover_without_channel_state_checkpoint_id == cp.id as i64;
            if drop_inflight {
                self.log.push(
                    self.now,
                    LogKind::Recovery,
                    format!(
                        "restoring checkpoint {} WITHOUT its in-flight data ({} records dropped)",
                        cp.id,
                        cp.inflight_records(),
                    ),
                );
            }
            // The restored bytes are read by the running job's serializer (a failover
            // restarts the same job; see `super::resubmission`).
            self.stale_serializer = (!drop_inflight
                && cp.inflight_records() > 0
                && cp.serializer_version != self.serializer_version)
                .then_some(cp.serializer_version);
            // Operator state.
            let all: Vec<usize> = (0..self.tasks.len()).collect();
            let (offsets, rewound) = self.restore_operator_states(&cp, &all);
            replayed += rewound;
            let failure = self.failures.len().saturating_sub(1);
            self.note_restored_offsets(failure, offsets);
            // Channel state, and the time each task takes to read its state back.
            if drop_inflight {
                lost += self.count_dropped(&cp.input_state, |_| true)
                    + self.count_dropped(&cp.output_state, |_| true);
            } else {
                recovered_inflight = cp.inflight_records();
            }
            self.begin_restores(&cp, drop_inflight, &all);
            replayed += recovered_inflight;
            self.log.push_msg(
                self.now,
                LogKind::Recovery,
                Msg::new(
                    "job restarted from checkpoint {0}: sources rewound, {1} in-flight records recovered",
                    vec![text(cp.id), text(recovered_inflight)],
                ),
            );
        } else {
            let failure = self.failures.len().saturating_sub(1);
            self.note_restored_offsets(failure, BTreeMap::new());
            let all: Vec<usize> = (0..self.tasks.len()).collect();
            replayed += self.replayed_from_scratch(&all);
            self.log.push_msg(
                self.now,
                LogKind::Recovery,
                Msg::new(
                    "job restarted from scratch (no completed checkpoint)",
                    vec![],
                ),
            );
        }
        if let Some(f) = self.failures.last_mut() {
            f.restored_checkpoint = restored_id;
            f.replayed_records = replayed;
            f.recovered_inflight_records = recovered_inflight;
            f.lost_records += lost;
        }
        self.check_recovery_complete();
        self.check_input_recovered();
    }

    /// Puts checkpoint `cp`'s operator state back into `tasks` (Flink's
    /// `CheckpointCoordinator.restoreLatestCheckpointedStateToSubtasks` /
    /// `restoreLatestCheckpointedStateToAll` assign it, the task's
    /// `StreamTask.restoreStateAndGates` reads it): sources rewind to their offsets, and a
    /// two-phase-commit sink commits the transactions pending in its state
    /// (`CommitterOperator.initializeState` re-commits them; the commit is idempotent).
    /// Returns the restored source offsets and how many source records will be read again.
    /// Records the sources among `tasks` read again when they restart with no checkpoint:
    /// everything they had emitted (their high-water offsets).
    pub(crate) fn replayed_from_scratch(&self, tasks: &[usize]) -> u64 {
        tasks
            .iter()
            .filter(|&&t| self.tasks[t].is_source)
            .map(|&t| {
                let key = (self.tasks[t].operator, self.tasks[t].index);
                self.source_high_water.get(&key).copied().unwrap_or(0)
            })
            .sum()
    }

    pub(crate) fn restore_operator_states(
        &mut self,
        cp: &CompletedCheckpoint,
        tasks: &[usize],
    ) -> (BTreeMap<(usize, u32), u64>, u64) {
        let mut offsets = BTreeMap::new();
        let mut replayed = 0;
        for &t in tasks {
            // Each chained operator gets its own state back, by operator and subtask
            // (`OperatorChain.initializeStateAndOpenOperators`).
            let sub = self.tasks[t].index;
            self.tasks[t].chain.restore(sub, cp.states.values());
            let op = self.tasks[t].operator;
            if let OpState::Source { offset } = *self.tasks[t].chain.head_state() {
                offsets.insert((op, sub), offset);
                let hw = self.source_high_water.get(&(op, sub)).copied().unwrap_or(0);
                replayed += hw.saturating_sub(offset);
                self.tasks[t].high_water = offset;
            }
            for (op, txns) in self.tasks[t].chain.sinks_mut() {
                for (k, records) in std::mem::take(&mut txns.pending) {
                    self.external[op]
                        .as_mut()
                        .expect("sink")
                        .commit(sub, k, &records);
                }
            }
        }
        (offsets, replayed)
    }

    /// Every task is INITIALIZING while it restores (`StreamTask.restoreInternal`, Flink
    /// 1.15–2.x): it reads its recovered output (`readOutputData`) and operator state
    /// (`initializeStateAndOpenOperators`) back from checkpoint storage — the task thread
    /// is busy that long — then reads its recovered input in the background
    /// ([`ChannelStateReader`]) while the mailbox consumes it. Each input gate requests its
    /// partitions (new data may flow) once its own recovered input is consumed
    /// (`getStateConsumedFuture().thenRun(requestPartitions)`), and the task switches to
    /// RUNNING when every gate is (`allGatesRecoveredFuture`). Until then the coordinator
    /// triggers no checkpoint (`DefaultCheckpointPlanCalculator`).
    ///
    /// FLIP-547 (Flink 2.3, both off by default): with
    /// `unaligned.recover-output-on-downstream.enabled` the upstream's recovered output is
    /// restored on the downstream task, behind the downstream's own recovered input of that
    /// channel; with `unaligned.during-recovery.enabled` as well, a task switches to RUNNING
    /// before its recovered input is consumed, so checkpoints run during recovery and
    /// persist what is not consumed yet. The reader then spills what finds no buffer to
    /// local disk (FLIP-547 § 4.5, [`ChannelStateReader`]), so storage is read out at its
    /// throughput however slow the task is, and the task switches to RUNNING then: a
    /// checkpoint taken from there on holds every recovered buffer not yet consumed, in a
    /// channel or on disk ([`Engine::capture_spilled_input`]). Simplified: FLIP-547 lets a
    /// checkpoint be triggered during the read (§ 4.5.2: it then waits for the read to end
    /// before it can snapshot the filtered buffers); here the task is RUNNING only once the
    /// read has ended, which completes such a checkpoint at the same moment at the earliest.
    ///
    /// Only `tasks` restore (all of them, or a failover region's): they read the channel
    /// state of their own channels, which a region shares with no other region.
    pub(crate) fn begin_restores(
        &mut self,
        cp: &CompletedCheckpoint,
        drop_inflight: bool,
        tasks: &[usize],
    ) {
        for t in tasks {
            self.restores.remove(t);
        }
        let on_downstream = self.config.unaligned_recover_output_on_downstream;
        let mut inputs: BTreeMap<usize, Vec<Record>> = BTreeMap::new();
        let mut outputs: BTreeMap<usize, Vec<(usize, Vec<Record>)>> = BTreeMap::new();
        if !drop_inflight {
            for (key, records) in &cp.input_state {
                if let Some(c) = self.channel_by_key(*key) {
                    inputs.entry(c).or_default().extend(records.iter().cloned());
                }
            }
            for (key, records) in &cp.output_state {
                if let Some(c) = self.channel_by_key(*key) {
                    if on_downstream {
                        inputs.entry(c).or_default().extend(records.iter().cloned());
                    } else {
                        let from = self.channels[c].from_task;
                        outputs.entry(from).or_default().push((c, records.clone()));
                    }
                }
            }
        }
        for &t in tasks {
            let mut restore = TaskRestore::default();
            restore.reader.spill = self.config.unaligned_during_recovery;
            let mut read_bytes = cp.state_bytes.get(&t).copied().unwrap_or(0);
            if let Some(out) = outputs.remove(&t) {
                read_bytes += out
                    .iter()
                    .flat_map(|(_, r)| r.iter())
                    .map(|r| r.size as u64)
                    .sum::<u64>();
                restore.output = out;
            }
            for c in self.tasks[t].inputs.clone() {
                self.channels[c].held_for_recovery = true;
                let Some(records) = inputs.remove(&c) else {
                    continue;
                };
                let gate = self.channels[c].gate;
                let buffers = self.pack(c, &records);
                self.channels[c].recovered_buffers += buffers.len() as u32;
                for mut b in buffers {
                    b.replayed_input = true;
                    restore.reader.to_read.push_back((c, gate, b));
                }
            }
            let took = write_time(read_bytes, self.config.storage_throughput);
            self.tasks[t].status = TaskStatus::Recovering;
            self.tasks[t].busy_until = self.now + took;
            self.restores.insert(t, restore);
            self.schedule(self.now + took, Ev::StateRestored(t));
        }
    }

    /// Task `t` has its operator state and recovered output back: recovered output goes
    /// into its subpartitions before any new record, and its input reader starts.
    pub(crate) fn state_restored(&mut self, t: usize) {
        let Some(restore) = self.restores.get_mut(&t) else {
            return;
        };
        restore.restored = true;
        for (c, records) in std::mem::take(&mut restore.output) {
            self.restore_output(c, &records);
        }
        self.read_next_input(t);
        self.check_gates_recovered(t);
    }

    /// Starts the next read of task `t`'s recovered input, if a buffer is free for it.
    fn read_next_input(&mut self, t: usize) {
        let (bpc, fpg, tp, now) = (
            self.config.buffers_per_channel,
            self.config.floating_buffers_per_gate,
            self.config.storage_throughput,
            self.now,
        );
        let channels = &self.channels;
        let Some(restore) = self.restores.get_mut(&t) else {
            return;
        };
        if let ReadStep::Read(took) = restore.reader.next(bpc, fpg, tp, now, |c| channels[c].gate) {
            self.schedule(now + took, Ev::ChannelStateRead(t));
        }
    }

    /// One recovered input buffer of task `t` is read: it goes into its channel.
    pub(crate) fn channel_state_read(&mut self, t: usize) {
        let Some(done) = self.restores.get_mut(&t).and_then(|r| r.reader.read_done()) else {
            return;
        };
        if let ReadDone::Channel(c, b) = done {
            self.deliver_recovered(c, b);
        }
        self.read_next_input(t);
        self.check_gates_recovered(t);
    }

    /// A recovered buffer goes into its channel, behind what is there.
    fn deliver_recovered(&mut self, c: usize, b: Buffer) {
        self.channels[c].received.push_back(Item::Data(b));
        self.notify_data(c);
    }

    /// Task `t` polled a recovered buffer: with a stale serializer
    /// ([`Engine::stale_serializer`]) its deserializer fails on the bytes
    /// (`SpillingAdaptiveSpanningRecordDeserializer`), and the task fails at this instant.
    pub(crate) fn recovered_buffer_polled(&mut self, t: usize) {
        if let Some(old) = self.stale_serializer {
            let now = self.now;
            let text = format!(
                "java.io.IOException: Serializer consumed more bytes than the record had. This indicates broken serialization. (in-flight data restored from a snapshot written with serializer version {old}, read by version {})",
                self.serializer_version
            );
            self.schedule(now, Ev::ReadFailure(t, text));
        }
    }

    /// The task consumed a recovered input buffer of channel `c`: its buffer takes spilled
    /// data first (FLIP-547's P3), then the reader may go on.
    pub(crate) fn recovered_buffer_consumed(&mut self, c: usize) {
        let t = self.channels[c].to_task;
        let (bpc, fpg) = (
            self.config.buffers_per_channel,
            self.config.floating_buffers_per_gate,
        );
        let channels = &self.channels;
        let Some(r) = self.restores.get_mut(&t) else {
            return;
        };
        r.reader.consumed(c);
        let unspilled = r.reader.unspill(bpc, fpg, |ch| channels[ch].gate);
        if let Some((ch, b)) = unspilled {
            self.deliver_recovered(ch, b);
        }
        self.read_next_input(t);
    }

    /// Captures, for unaligned checkpoint `id` at task `t`, the recovered buffers of
    /// channel `c` still on local disk (FLIP-547's spill): they come after the channel's
    /// queued buffers and before anything new, so they are part of its channel state.
    /// They are marked, so they are not captured again when they enter the channel.
    pub(crate) fn capture_spilled_input(&mut self, t: usize, id: u64, c: usize) -> u32 {
        let Some(r) = self.restores.get_mut(&t) else {
            return 0;
        };
        let mut captured = Vec::new();
        for (ch, _, b) in r.reader.spilled.iter_mut() {
            if *ch == c && b.captured != Some(id) {
                b.captured = Some(id);
                captured.push(b.clone());
            }
        }
        let n = captured.len() as u32;
        for b in captured {
            self.capture_input(t, id, c, &b);
        }
        n
    }

    /// All recovered input of channel `c` was consumed.
    pub(crate) fn channel_recovered(&mut self, c: usize) {
        let t = self.channels[c].to_task;
        self.check_gates_recovered(t);
    }

    /// Gates of `t` whose recovered input is consumed request their partitions; the task
    /// is RUNNING once all are (or earlier with FLIP-547's checkpointing during recovery).
    fn check_gates_recovered(&mut self, t: usize) {
        let Some(restore) = self.restores.get(&t) else {
            return;
        };
        if !restore.restored {
            return;
        }
        let all_read = restore.reader.storage_read();
        for g in self.tasks[t].gates.clone() {
            let channels = self.gates[g].channels.clone();
            let held = channels.iter().any(|&c| self.channels[c].held_for_recovery);
            if held
                && channels
                    .iter()
                    .all(|&c| self.channels[c].recovered_buffers == 0)
            {
                for c in channels {
                    self.channels[c].held_for_recovery = false;
                    self.try_send(c);
                }
            }
        }
        let gates_done = self.tasks[t]
            .inputs
            .iter()
            .all(|&c| !self.channels[c].held_for_recovery);
        let early = self.config.unaligned_during_recovery && all_read;
        if self.tasks[t].status == TaskStatus::Recovering && (gates_done || early) {
            self.tasks[t].status = TaskStatus::Running;
            self.wake(t, self.now);
            if gates_done {
                self.restores.remove(&t);
            }
            self.check_recovery_complete();
        } else if gates_done {
            self.restores.remove(&t);
        }
        self.check_input_recovered();
    }

    /// Every recovered in-flight buffer is consumed: the failure's input recovery ends
    /// (the same moment as its recovery, unless FLIP-547 let tasks run earlier).
    fn check_input_recovered(&mut self) {
        if !self.restores.is_empty() || self.status != JobStatus::Running {
            return;
        }
        if let Some(f) = self.failures.last_mut() {
            if f.input_recovered_ms.is_none() {
                let failed_at = (f.at_ms * 1e3).round() as u64;
                f.input_recovered_ms = Some(self.now.saturating_sub(failed_at) as f64 / 1e3);
            }
        }
    }

    /// A checkpoint completed: counted when recovered input is still being consumed.
    pub(crate) fn note_checkpoint_during_recovery(&mut self) {
        if self.restores.is_empty() {
            return;
        }
        if let Some(f) = self.failures.last_mut() {
            if f.input_recovered_ms.is_none() {
                f.checkpoints_during_recovery += 1;
            }
        }
    }

    pub(crate) fn channel_by_key(&self, key: ChannelKey) -> Option<usize> {
        self.channels.iter().position(|c| {
            (
                c.edge,
                self.tasks[c.from_task].index,
                self.tasks[c.to_task].index,
            ) == key
        })
    }

    /// Books the dropped in-flight records of the channels `keep` selects as lost; returns
    /// the sink records they were.
    pub(crate) fn count_dropped(
        &mut self,
        state: &BTreeMap<ChannelKey, Vec<Record>>,
        keep: impl Fn(ChannelKey) -> bool,
    ) -> u64 {
        let mut lost = 0;
        for ((edge, _, _), records) in state.iter().filter(|(k, _)| keep(**k)) {
            let to = self.edges[*edge].to_op;
            for r in records {
                let pos = (r.lineage.source, r.lineage.subtask, r.lineage.offset);
                lost += self.book_known_loss(to, pos, 1);
            }
        }
        lost
    }

    fn pack(&mut self, c: usize, records: &[Record]) -> Vec<Buffer> {
        let cap = self.channels[c].buffer_size.max(1);
        let mut out: Vec<Buffer> = Vec::new();
        for r in records {
            let fits = out.last().is_some_and(|b| b.bytes + r.size <= cap);
            if !fits {
                let id = self.new_buffer_id();
                out.push(Buffer {
                    id,
                    records: Vec::new(),
                    bytes: 0,
                    capacity: cap.max(r.size),
                    captured: None,
                    recovered: true,
                    replayed_input: false,
                    seq: 0,
                });
            }
            let b = out.last_mut().expect("pushed");
            b.bytes += r.size;
            b.records.push(r.clone());
        }
        out
    }

    /// Recovered output goes into the subpartition before any new record.
    fn restore_output(&mut self, c: usize, records: &[Record]) {
        let buffers = self.pack(c, records);
        let n = buffers.len() as u32;
        let p = self.channels[c].partition;
        self.partitions[p].used += n;
        self.channels[c].sender_buffers += n;
        for b in buffers {
            self.channels[c].queue.push_back(Item::Data(b));
        }
        self.try_send(c);
    }

    pub(crate) fn check_recovery_complete(&mut self) {
        self.check_regions_recovered();
        let Some(started) = self.recovery_started else {
            return;
        };
        if self.status == JobStatus::Running
            && self
                .tasks
                .iter()
                .all(|t| t.status != TaskStatus::Recovering)
        {
            self.recovery_started = None;
            let took = self.now - started;
            if let Some(f) = self.failures.last_mut() {
                f.recovery_ms = Some(took as f64 / 1e3);
            }
            self.log.push_msg(
                self.now,
                LogKind::Recovery,
                Msg::new(
                    "recovery complete after {0}: every task is RUNNING",
                    vec![text(dur(took))],
                ),
            );
        }
    }

    /// A source skipped the records at offsets `from..from + lost`, which expired from the
    /// external system's retention.
    pub(crate) fn records_expired(&mut self, t: usize, op: usize, from: u64, lost: u64) {
        if lost == 0 {
            return;
        }
        let sub = self.tasks[t].index as u16;
        let tag = self.operators[op].lineage_source;
        let mut lineages = 0;
        for off in from..from + lost {
            lineages += self.book_known_loss(op, (tag, sub, off), 1);
        }
        if let Some(f) = self.failures.last_mut() {
            f.lost_records += lineages;
        }
        self.expired_records += lost;
        let name = self.tasks[t].name.clone();
        let kind = if let OperatorKind::Source(s) = &self.operators[op].kind {
            s.retention
        } else {
            None
        };
        self.log.push_msg(
            self.now,
            LogKind::Failure,
            Msg::new(
                "{0}: {1} records expired from the source's retention ({2}) before they were read — lost",
                vec![text(name), text(lost), text(dur(kind.unwrap_or(0)))],
            ),
        );
    }
}
