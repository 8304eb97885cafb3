//! The checkpoint coordinator (Flink's `CheckpointCoordinator` with its
//! `CheckpointRequestDecider` and `CheckpointFailureManager`).
//!
//! Periodic triggers every `execution.checkpointing.interval`; a request that would exceed
//! `max-concurrent-checkpoints` or come sooner than `min-pause` after the last completion is
//! queued (one at most) and fired when allowed. A trigger sends an RPC to every running task
//! with no running upstream (the sources, or the first tasks after finished ones); other
//! tasks are reached by barriers. A checkpoint completes when every task that was running
//! at the trigger acknowledged (finished tasks count with their final state); then every
//! task gets "checkpoint complete". One still pending after `execution.checkpointing.timeout`
//! expires (`CHECKPOINT_EXPIRED`). Failures that Flink counts (expired, declined) beyond
//! `tolerable-failed-checkpoints` in a row fail the job over.

use super::config::BarrierKind;
use super::log::{bytes, dur, LogKind};
use super::network::Barrier;
use super::record::Record;
use super::runtime::{Engine, Ev};
use super::task::{Mail, OpState, TaskStatus};
use super::time::Micros;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CheckpointStatus {
    InProgress,
    Completed,
    Failed,
    Expired,
    Aborted,
}

impl CheckpointStatus {
    pub fn name(self) -> &'static str {
        match self {
            CheckpointStatus::InProgress => "in_progress",
            CheckpointStatus::Completed => "completed",
            CheckpointStatus::Failed => "failed",
            CheckpointStatus::Expired => "expired",
            CheckpointStatus::Aborted => "aborted",
        }
    }
}

/// What Flink's web UI shows for one subtask of one checkpoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SubtaskStats {
    pub started_at: Option<Micros>,
    pub ack_at: Option<Micros>,
    pub start_delay: Micros,
    pub alignment: Micros,
    pub sync_start: Micros,
    pub sync: Micros,
    pub async_duration: Micros,
    pub state_bytes: u64,
    pub processed_bytes: u64,
    pub persisted_bytes: u64,
    pub unaligned: bool,
    pub timed_out: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckpointStats {
    pub id: u64,
    pub status: CheckpointStatus,
    pub kind: BarrierKind,
    pub trigger_at: Micros,
    pub completed_at: Option<Micros>,
    pub failure_reason: Option<String>,
    /// Tasks that must acknowledge.
    pub expected: BTreeSet<usize>,
    pub subtasks: BTreeMap<usize, SubtaskStats>,
    pub channel_state_files: u32,
}

impl CheckpointStats {
    pub fn acknowledged(&self) -> usize {
        self.subtasks
            .values()
            .filter(|s| s.ack_at.is_some())
            .count()
    }
    pub fn persisted_bytes(&self) -> u64 {
        self.subtasks.values().map(|s| s.persisted_bytes).sum()
    }
    pub fn processed_bytes(&self) -> u64 {
        self.subtasks.values().map(|s| s.processed_bytes).sum()
    }
    pub fn state_bytes(&self) -> u64 {
        self.subtasks.values().map(|s| s.state_bytes).sum()
    }
    /// Flink marks a checkpoint unaligned when it persisted in-flight data (FLINK-31588).
    pub fn unaligned(&self) -> bool {
        self.persisted_bytes() > 0
    }
    pub fn timed_out_to_unaligned(&self) -> bool {
        self.kind == BarrierKind::TimeoutableAligned && self.subtasks.values().any(|s| s.timed_out)
    }
    pub fn end_to_end(&self) -> Option<Micros> {
        let last = self.subtasks.values().filter_map(|s| s.ack_at).max()?;
        (self.status == CheckpointStatus::Completed).then(|| last - self.trigger_at)
    }
    pub fn latest_ack(&self) -> Option<Micros> {
        self.subtasks.values().filter_map(|s| s.ack_at).max()
    }
}

/// Key of a channel that survives redeployment: (edge, producer subtask, consumer subtask).
pub type ChannelKey = (usize, u32, u32);

/// A completed checkpoint's data: what a restore puts back.
#[derive(Clone, Debug, PartialEq)]
pub struct CompletedCheckpoint {
    pub id: u64,
    pub states: BTreeMap<usize, OpState>,
    pub input_state: BTreeMap<ChannelKey, Vec<Record>>,
    pub output_state: BTreeMap<ChannelKey, Vec<Record>>,
    pub topology_version: u32,
    pub serializer_version: u32,
}

impl CompletedCheckpoint {
    pub fn inflight_records(&self) -> u64 {
        self.input_state
            .values()
            .chain(self.output_state.values())
            .map(|r| r.len() as u64)
            .sum()
    }
}

#[derive(Clone, Debug, Default)]
pub struct Coordinator {
    pub history: Vec<CheckpointStats>,
    pub pending: BTreeSet<u64>,
    pub(crate) pending_data: BTreeMap<u64, CompletedCheckpoint>,
    pub latest: Option<CompletedCheckpoint>,
    pub next_id: u64,
    pub consecutive_failures: u32,
    pub queued_request: bool,
    pub last_completed_at: Option<Micros>,
    pub periodic_scheduled: bool,
}

impl Coordinator {
    pub fn stats(&self, id: u64) -> Option<&CheckpointStats> {
        self.history.get((id as usize).checked_sub(1)?)
    }
    fn stats_mut(&mut self, id: u64) -> Option<&mut CheckpointStats> {
        self.history.get_mut((id as usize).checked_sub(1)?)
    }
}

impl Engine {
    pub(crate) fn coordinator_start(&mut self) {
        if let Some(interval) = self.config.checkpoint_interval {
            self.coordinator.periodic_scheduled = true;
            self.schedule(interval, Ev::Trigger(true));
        }
    }

    pub(crate) fn coordinator_config_changed(&mut self) {
        if !self.coordinator.periodic_scheduled {
            if let Some(interval) = self.config.checkpoint_interval {
                self.coordinator.periodic_scheduled = true;
                self.schedule(self.now + interval, Ev::Trigger(true));
            }
        }
    }

    pub(crate) fn coordinator_trigger_event(&mut self, periodic: bool) {
        if periodic {
            match self.config.checkpoint_interval {
                Some(interval) => self.schedule(self.now + interval, Ev::Trigger(true)),
                None => {
                    self.coordinator.periodic_scheduled = false;
                    return;
                }
            }
        } else {
            self.coordinator.queued_request = false;
        }
        self.coordinator_trigger_request();
    }

    /// A checkpoint is wanted now (periodic, or the user's "trigger now").
    pub(crate) fn coordinator_trigger_request(&mut self) {
        if !self.job_is_running() {
            return;
        }
        if self.coordinator.pending.len() >= self.config.max_concurrent as usize {
            self.coordinator.queued_request = true;
            return;
        }
        if let Some(done) = self.coordinator.last_completed_at {
            let allowed = done + self.config.min_pause;
            if self.now < allowed {
                if !self.coordinator.queued_request {
                    self.coordinator.queued_request = true;
                    self.schedule(allowed, Ev::Trigger(false));
                }
                return;
            }
        }
        self.trigger_checkpoint_now();
    }

    fn trigger_checkpoint_now(&mut self) {
        let live: BTreeSet<usize> = self
            .tasks
            .iter()
            .filter(|t| t.is_live())
            .map(|t| t.id)
            .collect();
        if live.is_empty() {
            return;
        }
        self.coordinator.next_id += 1;
        let id = self.coordinator.next_id;
        let kind = self.config.barrier_kind();
        let mut data = CompletedCheckpoint {
            id,
            states: BTreeMap::new(),
            input_state: BTreeMap::new(),
            output_state: BTreeMap::new(),
            topology_version: self.topology_version,
            serializer_version: self.serializer_version,
        };
        for t in self
            .tasks
            .iter()
            .filter(|t| t.status == TaskStatus::Finished)
        {
            data.states.insert(t.id, t.state.clone());
        }
        self.coordinator.history.push(CheckpointStats {
            id,
            status: CheckpointStatus::InProgress,
            kind,
            trigger_at: self.now,
            completed_at: None,
            failure_reason: None,
            expected: live.clone(),
            subtasks: BTreeMap::new(),
            channel_state_files: 0,
        });
        self.coordinator.pending.insert(id);
        self.coordinator.pending_data.insert(id, data);
        let barrier = Barrier {
            id,
            timestamp: self.now,
            kind,
            original: kind,
        };
        let mut targets = 0;
        for t in live.iter().copied() {
            let upstream_running = self.tasks[t]
                .upstream_tasks
                .iter()
                .any(|&u| self.tasks[u].status != TaskStatus::Finished);
            if !upstream_running {
                targets += 1;
                self.schedule(
                    self.now + self.config.rpc_latency,
                    Ev::Mail(t, Mail::TriggerCheckpoint(barrier)),
                );
            }
        }
        self.schedule(self.now + self.config.checkpoint_timeout, Ev::Expire(id));
        let mode = match kind {
            BarrierKind::Unaligned => "unaligned",
            BarrierKind::TimeoutableAligned => "aligned with timeout",
            BarrierKind::AtLeastOnce => "at-least-once",
            _ => "aligned",
        };
        self.log.push(
            self.now,
            LogKind::Checkpoint,
            format!("checkpoint {id} triggered ({mode}) at {targets} tasks"),
        );
    }

    pub(crate) fn coordinator_subtask_started(&mut self, id: u64, t: usize) {
        let now = self.now;
        if let Some(s) = self.coordinator.stats_mut(id) {
            s.subtasks
                .entry(t)
                .or_default()
                .started_at
                .get_or_insert(now);
        }
    }

    pub(crate) fn coordinator_ack(&mut self, t: usize, id: u64) {
        if !self.coordinator.pending.contains(&id) {
            return;
        }
        let Some(cp) = self.tasks[t].checkpoints.get(&id) else {
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
        let state = cp.state.clone().expect("acknowledged after the snapshot");
        let key = |c: usize| -> ChannelKey {
            let ch = &self.channels[c];
            (
                ch.edge,
                self.tasks[ch.from_task].index,
                self.tasks[ch.to_task].index,
            )
        };
        let inputs: Vec<(ChannelKey, Vec<Record>)> = cp
            .input_state
            .iter()
            .map(|(c, r)| (key(*c), r.clone()))
            .collect();
        let outputs: Vec<(ChannelKey, Vec<Record>)> = cp
            .output_state
            .iter()
            .map(|(c, r)| (key(*c), r.clone()))
            .collect();
        if let Some(data) = self.coordinator.pending_data.get_mut(&id) {
            data.states.insert(t, state);
            for (k, r) in inputs {
                data.input_state.entry(k).or_default().extend(r);
            }
            for (k, r) in outputs {
                data.output_state.entry(k).or_default().extend(r);
            }
        }
        let s = self.coordinator.stats_mut(id).expect("pending has stats");
        let started = s.subtasks.get(&t).and_then(|x| x.started_at);
        s.subtasks.insert(
            t,
            SubtaskStats {
                started_at: started.or(stats.started_at),
                ..stats
            },
        );
        self.coordinator_maybe_complete(id);
    }

    fn coordinator_maybe_complete(&mut self, id: u64) {
        let Some(s) = self.coordinator.stats(id) else {
            return;
        };
        if !s
            .expected
            .iter()
            .all(|t| s.subtasks.get(t).is_some_and(|x| x.ack_at.is_some()))
        {
            return;
        }
        self.coordinator.pending.remove(&id);
        let data = self
            .coordinator
            .pending_data
            .remove(&id)
            .expect("pending data");
        let files = self
            .writers
            .iter()
            .filter(|w| w.files.get(&id).is_some_and(|f| f.is_file))
            .count() as u32;
        let now = self.now;
        let s = self.coordinator.stats_mut(id).expect("exists");
        s.status = CheckpointStatus::Completed;
        s.completed_at = Some(now);
        s.channel_state_files = files;
        let e2e = s.end_to_end().unwrap_or(0);
        let (persisted, state, unaligned) = (s.persisted_bytes(), s.state_bytes(), s.unaligned());
        self.coordinator.latest = Some(data);
        self.coordinator.consecutive_failures = 0;
        self.coordinator.last_completed_at = Some(now);
        self.log.push(
            now,
            LogKind::Checkpoint,
            format!(
                "checkpoint {id} completed in {} ({}; {} state, {} in-flight data persisted in {files} channel-state files)",
                dur(e2e),
                if unaligned { "unaligned" } else { "aligned" },
                bytes(state),
                bytes(persisted)
            ),
        );
        // Older pending checkpoints are subsumed.
        let older: Vec<u64> = self.coordinator.pending.range(..id).copied().collect();
        for o in older {
            self.fail_checkpoint(o, CheckpointStatus::Aborted, "CHECKPOINT_SUBSUMED");
        }
        for w in self.writers.iter_mut() {
            w.files.retain(|&k, _| k > id);
        }
        for t in 0..self.tasks.len() {
            if self.tasks[t].is_live() {
                self.schedule(
                    now + self.config.rpc_latency,
                    Ev::Mail(t, Mail::NotifyComplete(id)),
                );
            }
        }
        if self.coordinator.queued_request {
            self.coordinator.queued_request = false;
            self.coordinator_trigger_request();
        }
    }

    pub(crate) fn coordinator_decline(&mut self, t: usize, id: u64, reason: String) {
        if self.coordinator.pending.contains(&id) {
            let name = self.tasks[t].name.clone();
            self.log.push(
                self.now,
                LogKind::Checkpoint,
                format!("{name} declined checkpoint {id}: {reason}"),
            );
            self.fail_checkpoint(id, CheckpointStatus::Failed, &reason);
        }
    }

    pub(crate) fn coordinator_expire(&mut self, id: u64) {
        if self.coordinator.pending.contains(&id) {
            self.fail_checkpoint(id, CheckpointStatus::Expired, "CHECKPOINT_EXPIRED");
        }
    }

    /// Ends a pending checkpoint unsuccessfully and applies the failure policy.
    pub(crate) fn fail_checkpoint(&mut self, id: u64, status: CheckpointStatus, reason: &str) {
        if !self.coordinator.pending.remove(&id) {
            return;
        }
        self.coordinator.pending_data.remove(&id);
        if let Some(s) = self.coordinator.stats_mut(id) {
            s.status = status;
            s.failure_reason = Some(reason.to_string());
        }
        self.log.push(
            self.now,
            LogKind::Checkpoint,
            format!("checkpoint {id} {}: {reason}", status.name()),
        );
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
        // CheckpointFailureManager: only some reasons count towards the tolerable limit.
        let counted = matches!(
            reason,
            "CHECKPOINT_EXPIRED"
                | "CHECKPOINT_DECLINED"
                | "CHECKPOINT_ASYNC_EXCEPTION"
                | "IO_EXCEPTION"
        );
        if counted {
            self.coordinator.consecutive_failures += 1;
            if self.coordinator.consecutive_failures > self.config.tolerable_failed {
                let n = self.coordinator.consecutive_failures;
                self.coordinator.consecutive_failures = 0;
                self.failover(
                    None,
                    format!(
                        "Exceeded checkpoint tolerable failure threshold ({n} failed in a row)"
                    ),
                );
                return;
            }
        }
        if self.coordinator.queued_request
            && self.coordinator.pending.len() < self.config.max_concurrent as usize
        {
            self.coordinator.queued_request = false;
            self.coordinator_trigger_request();
        }
    }

    /// A task finished: pending checkpoints take its final state as its acknowledgement.
    pub(crate) fn task_finished_during_checkpoints(&mut self, t: usize) {
        let pending: Vec<u64> = self.coordinator.pending.iter().copied().collect();
        for id in pending {
            let acked = self
                .coordinator
                .stats(id)
                .and_then(|s| s.subtasks.get(&t))
                .is_some_and(|x| x.ack_at.is_some());
            if acked
                || self.tasks[t]
                    .checkpoints
                    .get(&id)
                    .is_some_and(|c| c.acked_at.is_some())
            {
                continue;
            }
            let state = self.tasks[t].state.clone();
            if let Some(data) = self.coordinator.pending_data.get_mut(&id) {
                data.states.insert(t, state);
            }
            let now = self.now;
            if let Some(s) = self.coordinator.stats_mut(id) {
                s.subtasks.insert(
                    t,
                    SubtaskStats {
                        started_at: Some(now),
                        ack_at: Some(now),
                        ..Default::default()
                    },
                );
            }
            self.tasks[t].checkpoints.remove(&id);
            self.coordinator_maybe_complete(id);
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

    /// A failover aborts every pending checkpoint (not counted as a checkpoint failure).
    pub(crate) fn coordinator_abort_all(&mut self, reason: &str) {
        let pending: Vec<u64> = self.coordinator.pending.iter().copied().collect();
        for id in pending {
            self.coordinator.pending.remove(&id);
            self.coordinator.pending_data.remove(&id);
            if let Some(s) = self.coordinator.stats_mut(id) {
                s.status = CheckpointStatus::Failed;
                s.failure_reason = Some(reason.to_string());
            }
        }
        self.coordinator.queued_request = false;
    }
}
