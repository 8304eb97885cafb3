//! The job's lifecycle beyond running: savepoints and stop-with-savepoint (issue 15).
//!
//! Contract: [`Lifecycle`] holds what the engine must remember of a stop-with-savepoint (the
//! request, its synchronous savepoint, how it ended) and the offsets at which it stopped the
//! sources; the engine methods here turn the user's `savepoint` / `stop_with_savepoint`
//! actions into coordinator inputs and stop each task at the synchronous savepoint. No
//! checkpoint decision is taken here (the [`super::coordinator::Coordinator`] takes them).
//!
//! Flink 2.x, followed:
//! - `flink savepoint`: `CheckpointCoordinator.triggerSavepoint` — a savepoint request the
//!   coordinator handles like a forced checkpoint, always aligned (see the coordinator).
//! - `flink stop [--drain]`: `SchedulerBase.stopWithSavepoint` stops the checkpoint scheduler
//!   (`stopCheckpointScheduler`, aborting pending checkpoints), then triggers a synchronous
//!   savepoint (`triggerSynchronousSavepoint(terminate = drain)`, `SavepointType.terminate` /
//!   `suspend`); `StopWithSavepointTerminationManager` waits for the savepoint and then for
//!   every execution to be FINISHED. A source task receiving the synchronous savepoint's
//!   trigger stops its source first (`SourceOperatorStreamTask.triggerStopWithSavepointAsync`
//!   → `SourceOperator.stop(StopMode.DRAIN | NO_DRAIN)`), ends its data (`StreamTask.endData`:
//!   with `DRAIN` it advances to `MAX_WATERMARK` and calls `endInput` on its operators) and
//!   then takes the savepoint; every task takes it as its final checkpoint and finishes once
//!   it is complete (`StreamTask.afterInvoke` waits for `finalCheckpointCompleted`), so
//!   the sinks commit exactly the savepoint's transactions and their output is final.
//!   If the savepoint fails, the scheduler restarts the checkpoint scheduler
//!   (`StopWithSavepointTerminationHandlerImpl.terminateExceptionally`).
//!
//! Simplifications: the source stops at the trigger mail of the savepoint, which in the
//! model is the same instant as its snapshot (Flink stops it in a mail just before); there
//! is no event time, so `--drain` differs from a plain stop only in what the tasks log and
//! what the savepoint records (`SavepointType.terminate`: a drained job's savepoint is meant
//! as its end, not to resume from); a task already stopped whose synchronous savepoint fails
//! takes the next checkpoint as its final one and finishes then (Flink resumes it).

use super::coordinator::SavepointKind;
use super::log::LogKind;
use super::runtime::{Engine, JobStatus};
use super::spec::OperatorKind;
use super::task::{OpState, TaskStatus};
use super::time::Micros;
use serde::Serialize;
use std::collections::BTreeMap;

/// How a stop-with-savepoint went (`StopWithSavepointTerminationHandlerImpl`'s states).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum StopStatus {
    /// `WaitingForSavepoint`.
    WaitingForSavepoint,
    /// `SavepointCreated`: waiting for every task to finish.
    SavepointCreated,
    /// Every task FINISHED: the job is FINISHED.
    Finished,
    /// The savepoint failed (or the job failed over): the job runs on.
    Failed(String),
}

/// One stop-with-savepoint request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StopRequest {
    pub drain: bool,
    pub requested_at: Micros,
    /// The synchronous savepoint's id, once one was triggered.
    pub savepoint: Option<u64>,
    pub status: StopStatus,
}

/// The lifecycle state of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lifecycle {
    /// The latest stop-with-savepoint request.
    pub stop: Option<StopRequest>,
    /// Per source subtask `(operator, index)`: the offset at which the synchronous
    /// savepoint stopped it (its input ends there, as a bounded source's would).
    pub stopped_sources: BTreeMap<(usize, u32), u64>,
}

impl Lifecycle {
    fn stop_in_progress(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| {
            matches!(
                s.status,
                StopStatus::WaitingForSavepoint | StopStatus::SavepointCreated
            )
        })
    }
}

impl Engine {
    /// The user's `savepoint`: a savepoint request (the job keeps running).
    pub(crate) fn request_savepoint(&mut self) {
        self.log.push(
            self.now,
            LogKind::User,
            "savepoint requested by the user".into(),
        );
        self.coordinator_savepoint_request(SavepointKind::Savepoint);
    }

    /// The user's `stop_with_savepoint` (`SchedulerBase.stopWithSavepoint`).
    pub(crate) fn stop_with_savepoint(&mut self, drain: bool) {
        let flag = if drain { " --drain" } else { "" };
        if self.lifecycle.stop_in_progress() {
            self.log.push(
                self.now,
                LogKind::User,
                format!("stop{flag} refused: a stop-with-savepoint is already in progress"),
            );
            return;
        }
        if self.status != JobStatus::Running {
            self.log.push(
                self.now,
                LogKind::User,
                format!("stop{flag} refused: the job is not RUNNING"),
            );
            return;
        }
        self.log.push(
            self.now,
            LogKind::User,
            format!("stop-with-savepoint{flag} requested: the checkpoint scheduler stops"),
        );
        self.lifecycle.stop = Some(StopRequest {
            drain,
            requested_at: self.now,
            savepoint: None,
            status: StopStatus::WaitingForSavepoint,
        });
        let kind = if drain {
            SavepointKind::Terminate
        } else {
            SavepointKind::Suspend
        };
        self.coordinator_suspend();
        let before = self.coordinator.next_id;
        self.coordinator_savepoint_request(kind);
        let taken = self
            .coordinator
            .history
            .iter()
            .rev()
            .take_while(|s| s.id > before)
            .find(|s| s.savepoint == Some(kind))
            .map(|s| s.id);
        match taken {
            Some(id) => {
                if let Some(s) = self.lifecycle.stop.as_mut() {
                    s.savepoint = Some(id);
                }
            }
            // The trigger failed before an id was taken (a task not RUNNING): the
            // savepoint future fails and the scheduler is restarted.
            None => self.stop_failed("the synchronous savepoint could not be triggered".into()),
        }
    }

    /// The synchronous savepoint `id` reached task `t`'s sync phase: the task stops there
    /// (a source stops reading: `SourceOperator.stop`), the savepoint is its final checkpoint.
    pub(crate) fn stop_at_synchronous_savepoint(&mut self, t: usize, id: u64) {
        let Some(kind) = self
            .coordinator
            .stats(id)
            .and_then(|s| s.savepoint)
            .filter(|k| k.is_synchronous())
        else {
            return;
        };
        if self.tasks[t].status != TaskStatus::Running {
            return;
        }
        let task = &mut self.tasks[t];
        task.status = TaskStatus::Finishing;
        task.final_checkpoint = None;
        let (op, index, name) = (task.operator, task.index, task.name.clone());
        if let (OperatorKind::Source(_), OpState::Source { offset }) =
            (&self.operators[op].kind, self.tasks[t].chain.head_state())
        {
            self.lifecycle.stopped_sources.insert((op, index), *offset);
        }
        let how = if kind.should_drain() {
            "drained (MAX_WATERMARK, end of input)"
        } else {
            "suspended (no drain)"
        };
        self.log.push(
            self.now,
            LogKind::Task,
            format!(
                "{name} stops at synchronous savepoint {id}: {how}; finishes once it completes"
            ),
        );
    }

    /// Checkpoint `id` completed: a stop's savepoint moves the stop on.
    pub(crate) fn lifecycle_completed(&mut self, id: u64) {
        if let Some(s) = self.lifecycle.stop.as_mut() {
            if s.savepoint == Some(id) && s.status == StopStatus::WaitingForSavepoint {
                s.status = StopStatus::SavepointCreated;
            }
        }
    }

    /// Checkpoint `id` ended unsuccessfully: a stop's savepoint fails the stop.
    pub(crate) fn lifecycle_aborted(&mut self, id: u64) {
        let ours = self.lifecycle.stop.as_ref().is_some_and(|s| {
            s.savepoint == Some(id) && s.status == StopStatus::WaitingForSavepoint
        });
        if ours {
            let reason = self
                .coordinator
                .stats(id)
                .and_then(|s| s.failure_reason.clone())
                .unwrap_or_default();
            self.stop_failed(format!("savepoint {id} failed: {reason}"));
        }
    }

    /// The job failed over: a stop in progress fails, the sources run again.
    pub(crate) fn lifecycle_failover(&mut self) {
        if self.lifecycle.stop_in_progress() {
            if let Some(s) = self.lifecycle.stop.as_mut() {
                s.status = StopStatus::Failed("the job failed over".into());
            }
        }
        self.lifecycle.stopped_sources.clear();
    }

    /// Every task finished: the stop is complete.
    pub(crate) fn lifecycle_job_finished(&mut self) -> Option<String> {
        let s = self.lifecycle.stop.as_mut()?;
        if s.status != StopStatus::SavepointCreated {
            return None;
        }
        s.status = StopStatus::Finished;
        let id = s.savepoint?;
        let path = self.coordinator.stats(id)?.external_path.clone()?;
        Some(format!(
            "job FINISHED by stop-with-savepoint{}: savepoint {id} at {path}",
            if s.drain { " --drain" } else { "" }
        ))
    }

    /// `terminateExceptionally`: the checkpoint scheduler starts again, the job runs on.
    fn stop_failed(&mut self, reason: String) {
        if let Some(s) = self.lifecycle.stop.as_mut() {
            s.status = StopStatus::Failed(reason.clone());
        }
        self.log.push(
            self.now,
            LogKind::Checkpoint,
            format!("stop-with-savepoint failed ({reason}); the checkpoint scheduler restarts"),
        );
        if self.job_is_running() {
            self.coordinator_start();
        }
    }

    /// Where source subtask `(op, index)`'s input ends: its stop offset if a synchronous
    /// savepoint stopped it, else its bounded record count (`None`: unbounded).
    pub fn source_end(&self, op: usize, index: u32) -> Option<u64> {
        let records = match &self.operators[op].kind {
            OperatorKind::Source(s) => s.records,
            _ => None,
        };
        match self.lifecycle.stopped_sources.get(&(op, index)) {
            Some(&at) => Some(records.map_or(at, |n| n.min(at))),
            None => records,
        }
    }
}
