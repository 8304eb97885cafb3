//! Failure and recovery.
//!
//! Failover strategy: the whole job restarts. Flink's default is region failover, but in a
//! streaming job every pipelined edge joins its ends into one region, so a connected job is
//! one region and region failover restarts all of it — which is what this models. After
//! `restart-strategy.fixed-delay.delay` the job is redeployed and restored from the latest
//! completed checkpoint, in Flink's order (`StreamTask.restoreStateAndGates`): recovered
//! output buffers go into their subpartitions before any new record; operator state is
//! restored (two-phase-commit sinks commit the transactions pending in it, idempotently);
//! recovered input buffers are read before anything new on their channel, and the upstream
//! holds new data on a channel until that is done; sources rewind to their offsets. A task
//! replaying recovered input is RECOVERING and declines checkpoints.
//!
//! A checkpoint that holds in-flight data cannot be restored when the topology or the
//! record serializer changed since it was taken; the restore is refused and the job fails,
//! unless `execution.checkpointing.recover-without-channel-state.checkpoint-id` names it —
//! then its in-flight data is dropped and counted as lost.

use super::coordinator::ChannelKey;
use super::log::{dur, LogKind};
use super::network::{Buffer, Item};
use super::record::Record;
use super::report::FailureReport;
use super::runtime::{Engine, Ev, JobStatus};
use super::spec::OperatorKind;
use super::task::{Activity, OpState, TaskStatus};
use std::collections::BTreeMap;

impl Engine {
    /// A subtask fails (user action or injected failure).
    pub(crate) fn fail_task(&mut self, t: usize, reason: String) {
        if self.status != JobStatus::Running || !self.tasks[t].is_live() {
            return;
        }
        self.failover(Some(t), reason);
    }

    /// Fails the running job over: cancel every task, abort checkpoints, restart later.
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
        for t in 0..self.tasks.len() {
            let key = (self.tasks[t].operator, self.tasks[t].index);
            let hw = self.source_high_water.entry(key).or_insert(0);
            *hw = (*hw).max(self.tasks[t].high_water);
        }
        self.coordinator_abort_all("TASK_FAILURE");
        for t in 0..self.tasks.len() {
            self.set_activity(t, Activity::Idle);
            if self.tasks[t].status != TaskStatus::Finished {
                self.tasks[t].status = TaskStatus::Canceled;
            }
        }
        self.epoch += 1;
        self.status = JobStatus::Restarting;
        let who = if task.is_some() {
            format!("{operator}#{subtask} failed")
        } else {
            "job failover".to_string()
        };
        self.log.push(
            self.now,
            LogKind::Failure,
            format!(
                "{who}: {reason}; restarting the job in {}",
                dur(self.config.restart_delay)
            ),
        );
        self.failures.push(FailureReport {
            at_ms: self.now as f64 / 1e3,
            operator,
            subtask,
            reason,
            ..Default::default()
        });
        self.recovery_started = Some(self.now);
        self.schedule(self.now + self.config.restart_delay, Ev::Restart);
    }

    pub(crate) fn restart(&mut self) {
        if self.status != JobStatus::Restarting {
            return;
        }
        let topology_changed = self
            .edges
            .iter()
            .zip(&self.next_partitioners)
            .any(|(e, p)| e.partitioner != *p);
        if topology_changed {
            self.topology_version += 1;
        }
        self.deploy();
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
            let has_inflight = cp.inflight_records() > 0;
            let mut problem = None;
            if cp.topology_version != self.topology_version {
                problem = Some(format!(
                    "the job's topology changed since checkpoint {} (an edge's partitioner differs), so its in-flight data cannot be assigned to the new channels",
                    cp.id
                ));
            } else if cp.serializer_version != self.serializer_version {
                problem = Some(format!(
                    "the record serializer changed (version {} -> {}): the in-flight data of checkpoint {} was written with the old serializer and cannot be read",
                    cp.serializer_version, self.serializer_version, cp.id
                ));
            }
            let mut drop_inflight = false;
            if let (Some(problem), true) = (&problem, has_inflight) {
                if self.config.recover_without_channel_state_checkpoint_id == cp.id as i64 {
                    drop_inflight = true;
                    self.log.push(self.now, LogKind::Recovery, format!("restoring checkpoint {} WITHOUT its in-flight data ({} records dropped): {problem}", cp.id, cp.inflight_records()));
                } else {
                    let msg = format!("cannot restore unaligned checkpoint {}: {problem}", cp.id);
                    if let Some(f) = self.failures.last_mut() {
                        f.restored_checkpoint = Some(cp.id);
                        f.restore_error = Some(msg.clone());
                    }
                    for t in 0..self.tasks.len() {
                        self.tasks[t].status = TaskStatus::Canceled;
                    }
                    self.fail_job_for_good(msg);
                    return;
                }
            }
            // Operator state.
            let mut offsets = BTreeMap::new();
            for t in 0..self.tasks.len() {
                if let Some(state) = cp.states.get(&t) {
                    self.tasks[t].state = state.clone();
                }
                let sub = self.tasks[t].index;
                let op = self.tasks[t].operator;
                if let OpState::Source { offset } = self.tasks[t].state {
                    offsets.insert((op, sub), offset);
                    let hw = self.source_high_water.get(&(op, sub)).copied().unwrap_or(0);
                    replayed += hw.saturating_sub(offset);
                    self.tasks[t].high_water = offset;
                }
                if let OpState::Sink(txns) = &mut self.tasks[t].state {
                    for (k, records) in std::mem::take(&mut txns.pending) {
                        self.external[op]
                            .as_mut()
                            .expect("sink")
                            .commit(sub, k, &records);
                    }
                }
            }
            self.note_restored_offsets(offsets);
            // Channel state.
            if drop_inflight {
                lost += self.count_dropped(&cp.input_state) + self.count_dropped(&cp.output_state);
            } else {
                for (key, records) in &cp.output_state {
                    recovered_inflight += records.len() as u64;
                    if let Some(c) = self.channel_by_key(*key) {
                        self.restore_output(c, records);
                    }
                }
                for (key, records) in &cp.input_state {
                    recovered_inflight += records.len() as u64;
                    if let Some(c) = self.channel_by_key(*key) {
                        self.restore_input(c, records);
                    }
                }
            }
            replayed += recovered_inflight;
            self.log.push(
                self.now,
                LogKind::Recovery,
                format!("job restarted from checkpoint {}: sources rewound, {recovered_inflight} in-flight records recovered", cp.id),
            );
        } else {
            self.note_restored_offsets(BTreeMap::new());
            for t in 0..self.tasks.len() {
                let key = (self.tasks[t].operator, self.tasks[t].index);
                if self.tasks[t].is_source {
                    replayed += self.source_high_water.get(&key).copied().unwrap_or(0);
                }
            }
            self.log.push(
                self.now,
                LogKind::Recovery,
                "job restarted from scratch (no completed checkpoint)".into(),
            );
        }
        if let Some(f) = self.failures.last_mut() {
            f.restored_checkpoint = restored_id;
            f.replayed_records = replayed;
            f.recovered_inflight_records = recovered_inflight;
            f.lost_records += lost;
        }
        for t in 0..self.tasks.len() {
            if self.tasks[t]
                .inputs
                .iter()
                .any(|&c| self.channels[c].recovered_buffers > 0)
            {
                self.tasks[t].status = TaskStatus::Recovering;
            }
        }
        self.check_recovery_complete();
    }

    fn channel_by_key(&self, key: ChannelKey) -> Option<usize> {
        self.channels.iter().position(|c| {
            (
                c.edge,
                self.tasks[c.from_task].index,
                self.tasks[c.to_task].index,
            ) == key
        })
    }

    /// Books the dropped in-flight records as lost; returns the sink records they were.
    fn count_dropped(&mut self, state: &BTreeMap<ChannelKey, Vec<Record>>) -> u64 {
        let mut lost = 0;
        for ((edge, _, _), records) in state {
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

    /// Recovered input is read before anything new on its channel.
    fn restore_input(&mut self, c: usize, records: &[Record]) {
        let buffers = self.pack(c, records);
        if buffers.is_empty() {
            // Only parts of records spanning buffers: the upstream's output state has them.
            return;
        }
        let ch = &mut self.channels[c];
        ch.recovered_buffers += buffers.len() as u32;
        ch.held_for_recovery = true;
        for mut b in buffers {
            b.replayed_input = true;
            ch.received.push_back(Item::Data(b));
        }
        self.notify_data(c);
    }

    /// All recovered input of channel `c` was read: new data may flow.
    pub(crate) fn channel_recovered(&mut self, c: usize) {
        self.channels[c].held_for_recovery = false;
        self.try_send(c);
        let t = self.channels[c].to_task;
        if self.tasks[t].status == TaskStatus::Recovering
            && self.tasks[t]
                .inputs
                .iter()
                .all(|&i| self.channels[i].recovered_buffers == 0)
        {
            self.tasks[t].status = TaskStatus::Running;
            self.check_recovery_complete();
        }
    }

    fn check_recovery_complete(&mut self) {
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
            self.log.push(
                self.now,
                LogKind::Recovery,
                format!(
                    "recovery complete after {}: every task is RUNNING",
                    dur(took)
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
        let mut lineages = 0;
        for off in from..from + lost {
            lineages += self.book_known_loss(op, (op as u16, sub, off), 1);
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
        self.log.push(
            self.now,
            LogKind::Failure,
            format!("{name}: {lost} records expired from the source's retention ({}) before they were read — lost", dur(kind.unwrap_or(0))),
        );
    }
}
