//! Engine glue of the checkpoint coordinator: turns engine events into the
//! [`Coordinator`]'s inputs and carries out the [`Command`]s it answers with (timers, trigger
//! RPCs, notifications, failover, log lines). No coordinator decision is taken here; what
//! the glue computes is what the coordinator cannot see — the tasks' phases and final
//! states, a task's local snapshot, the channel-state writers' files.

use super::coordinator::{
    Ack, ChannelKey, Command, PlanTask, SubtaskStats, TaskPhase, TriggerContext,
};
use super::log::{bytes, dur, text, Arg, LogKind, Msg};
use super::network::Barrier;
use super::record::Record;
use super::runtime::{Engine, Ev};
use super::task::{Mail, TaskStatus};

impl Engine {
    fn apply_coordinator(&mut self, commands: Vec<Command>) {
        for c in commands {
            match c {
                Command::ArmTrigger { at, generation } => {
                    self.schedule(at, Ev::Trigger(generation))
                }
                Command::StartTriggering(request) => {
                    let ctx = self.trigger_context();
                    let out =
                        self.coordinator
                            .start_triggering(self.now, request, ctx, &self.config);
                    self.apply_coordinator(out);
                }
                Command::TriggerTasks { barrier, tasks } => {
                    for t in tasks {
                        self.schedule(
                            self.now + self.config.rpc_latency,
                            Ev::Mail(t, Mail::TriggerCheckpoint(barrier)),
                        );
                    }
                }
                Command::ArmExpiry { at, id } => self.schedule(at, Ev::Expire(id)),
                Command::Completed { id } => {
                    self.checkpoint_completed(id);
                    self.lifecycle_completed(id);
                    if let Some(cp) = self.coordinator.latest.as_ref().filter(|c| c.id == id) {
                        let cp = cp.clone();
                        self.retained.completed(cp, self.config.num_retained);
                    }
                }
                Command::Aborted { id } => {
                    for t in 0..self.tasks.len() {
                        if self.tasks[t].is_live() {
                            self.schedule(
                                self.now + self.config.rpc_latency,
                                Ev::Mail(t, Mail::NotifyAborted(id)),
                            );
                        }
                    }
                    for w in self.writers.iter_mut() {
                        w.files.remove(&id);
                    }
                    self.lifecycle_aborted(id);
                }
                Command::FailJob { reason } => self.failover(None, reason),
                Command::Log(text) => self.log.push(self.now, LogKind::Checkpoint, text),
                Command::LogMsg(msg) => self.log.push_msg(self.now, LogKind::Checkpoint, msg),
            }
        }
    }

    /// The tasks as `DefaultCheckpointPlanCalculator` sees them.
    fn trigger_context(&self) -> TriggerContext {
        let tasks = self
            .tasks
            .iter()
            .map(|t| PlanTask {
                phase: match t.status {
                    TaskStatus::Running | TaskStatus::Finishing => TaskPhase::Running,
                    TaskStatus::Recovering => TaskPhase::Initializing,
                    TaskStatus::Finished => TaskPhase::Finished,
                    TaskStatus::Canceled => TaskPhase::Other,
                },
                upstream: t.upstream_tasks.clone(),
                name: t.name.clone(),
            })
            .collect();
        let finished_states = self
            .tasks
            .iter()
            .filter(|t| t.status == TaskStatus::Finished)
            .map(|t| (t.id, t.chain.snapshot(t.index)))
            .collect();
        TriggerContext {
            tasks,
            finished_states,
            parallelism: self.operators.iter().map(|o| o.parallelism).collect(),
            max_parallelism: self.operators.iter().map(|o| o.max_parallelism).collect(),
            serializer_version: self.serializer_version,
            topology: self.topology.clone(),
        }
    }

    fn checkpoint_completed(&mut self, id: u64) {
        let files = self
            .writers
            .iter()
            .filter(|w| w.files.get(&id).is_some_and(|f| f.is_file))
            .count() as u32;
        self.coordinator.set_channel_state_files(id, files);
        if let Some(s) = self.coordinator.stats(id) {
            let e2e = s.end_to_end().unwrap_or(0);
            let (persisted, state, unaligned) =
                (s.persisted_bytes(), s.state_bytes(), s.unaligned());
            self.log.push_msg(
                self.now,
                LogKind::Checkpoint,
                Msg::new(
                    "{0} {1} completed in {2} ({3}; {4} state, {5} in-flight data persisted in {6} channel-state files)",
                    vec![
                        Arg::Word(if s.savepoint.is_some() { "savepoint" } else { "checkpoint" }),
                        text(id),
                        text(dur(e2e)),
                        Arg::Word(if unaligned { "unaligned" } else { "aligned" }),
                        text(bytes(state)),
                        text(bytes(persisted)),
                        text(files),
                    ],
                ),
            );
        }
        for w in self.writers.iter_mut() {
            w.files.retain(|&k, _| k > id);
        }
        self.note_checkpoint_during_recovery();
        for t in 0..self.tasks.len() {
            if self.tasks[t].is_live() {
                self.schedule(
                    self.now + self.config.rpc_latency,
                    Ev::Mail(t, Mail::NotifyComplete(id)),
                );
            }
        }
    }

    /// The job (re)entered RUNNING: the coordinator starts its periodic trigger.
    pub(crate) fn coordinator_start(&mut self) {
        let out = self.coordinator.job_running(self.now, &self.config);
        self.apply_coordinator(out);
    }

    /// Checkpointing settings changed live: a newly set interval starts the trigger.
    pub(crate) fn coordinator_config_changed(&mut self) {
        if self.job_is_running() {
            self.coordinator_start();
        }
    }

    pub(crate) fn coordinator_timer(&mut self, generation: u64) {
        let out = self
            .coordinator
            .timer_fired(self.now, generation, &self.config);
        self.apply_coordinator(out);
    }

    /// A savepoint (or stop-with-savepoint's synchronous savepoint) request.
    pub(crate) fn coordinator_savepoint_request(
        &mut self,
        kind: super::coordinator::SavepointKind,
    ) {
        let out = self
            .coordinator
            .savepoint_request(self.now, kind, &self.config);
        self.apply_coordinator(out);
    }

    /// Stop-with-savepoint stops the checkpoint scheduler, aborting pending checkpoints.
    pub(crate) fn coordinator_suspend(&mut self) {
        let out = self.coordinator.suspend(self.now, &self.config);
        self.apply_coordinator(out);
    }

    /// The user's "trigger now".
    pub(crate) fn coordinator_user_request(&mut self) {
        let out = self.coordinator.user_request(self.now, &self.config);
        self.apply_coordinator(out);
    }

    pub(crate) fn coordinator_subtask_started(&mut self, id: u64, t: usize) {
        self.coordinator.subtask_started(self.now, id, t);
    }

    pub(crate) fn coordinator_ack(&mut self, t: usize, id: u64) {
        if !self.coordinator.pending.contains(&id) {
            return;
        }
        let Some(cp) = self.tasks[t].checkpoints.get(&id) else {
            return;
        };
        let Some(state) = cp.state.clone() else {
            return;
        };
        let stats = SubtaskStats {
            started_at: Some(cp.first_barrier_at),
            ack_at: Some(self.now),
            start_delay: cp.start_delay,
            alignment: cp
                .alignment_end
                .map_or(0, |e| e.saturating_sub(cp.first_barrier_at)),
            sync_start: cp.sync_start.unwrap_or(0),
            sync: cp
                .sync_end
                .unwrap_or(0)
                .saturating_sub(cp.sync_start.unwrap_or(0)),
            async_duration: cp
                .acked_at
                .unwrap_or(0)
                .saturating_sub(cp.sync_end.unwrap_or(0)),
            state_bytes: cp.state_bytes,
            processed_bytes: cp.processed_bytes,
            persisted_bytes: cp.persisted_bytes,
            unaligned: cp.unaligned,
            timed_out: cp.timed_out,
        };
        let key = |c: usize| -> ChannelKey {
            let ch = &self.channels[c];
            (
                ch.edge,
                self.tasks[ch.from_task].index,
                self.tasks[ch.to_task].index,
            )
        };
        let collect = |m: &std::collections::BTreeMap<usize, Vec<Record>>| {
            m.iter()
                .map(|(c, r)| (key(*c), r.clone()))
                .collect::<Vec<_>>()
        };
        let ack = Ack {
            stats,
            state,
            input_state: collect(&cp.input_state),
            output_state: collect(&cp.output_state),
        };
        let out = self
            .coordinator
            .acknowledge(self.now, t, id, ack, &self.config);
        self.apply_coordinator(out);
    }

    pub(crate) fn coordinator_decline(&mut self, t: usize, id: u64, reason: String) {
        let name = self.tasks[t].name.clone();
        let out = self
            .coordinator
            .decline(self.now, id, &name, &reason, &self.config);
        self.apply_coordinator(out);
    }

    pub(crate) fn coordinator_expire(&mut self, id: u64) {
        let out = self.coordinator.expire(self.now, id, &self.config);
        self.apply_coordinator(out);
    }

    /// A task finished: pending checkpoints take its final state as its acknowledgement
    /// (unless its own acknowledgement is already on its way).
    pub(crate) fn task_finished_during_checkpoints(&mut self, t: usize) {
        let pending: Vec<u64> = self.coordinator.pending.iter().copied().collect();
        for id in pending {
            if self.tasks[t]
                .checkpoints
                .get(&id)
                .is_some_and(|c| c.acked_at.is_some())
                || !self.coordinator.awaits(id, t)
            {
                continue;
            }
            let state = self.tasks[t].chain.snapshot(self.tasks[t].index);
            self.tasks[t].checkpoints.remove(&id);
            let out = self
                .coordinator
                .task_finished(self.now, t, id, state, &self.config);
            self.apply_coordinator(out);
        }
    }

    /// A task whose inputs all ended before a pending checkpoint's barrier reached it takes
    /// that checkpoint itself, as the coordinator triggers tasks whose predecessors finished.
    pub(crate) fn trigger_pending_after_inputs_ended(&mut self, t: usize) {
        let pending: Vec<u64> = self.coordinator.pending.iter().copied().collect();
        for id in pending {
            let Some(s) = self.coordinator.stats(id) else {
                continue;
            };
            if !s.expected.contains(&t)
                || self.tasks[t].checkpoints.contains_key(&id)
                || self.tasks[t].aborted.contains(&id)
            {
                continue;
            }
            let barrier = Barrier {
                id,
                timestamp: s.trigger_at,
                kind: s.kind,
                original: s.kind,
            };
            self.trigger_at_task(t, barrier);
        }
    }

    /// A region restores: every pending checkpoint is aborted, the trigger keeps running.
    pub(crate) fn coordinator_abort_pending(&mut self, reason: &str) {
        let out = self
            .coordinator
            .abort_pending(self.now, reason, &self.config);
        self.apply_coordinator(out);
    }

    /// A failover: the coordinator stops its trigger and aborts every pending checkpoint.
    pub(crate) fn coordinator_abort_all(&mut self, reason: &str) {
        self.coordinator.job_stopped(reason);
        self.lifecycle_failover();
    }
}
