//! The checkpoint coordinator as a component: Flink's `CheckpointCoordinator` with its
//! `CheckpointRequestDecider`, periodic trigger, `DefaultCheckpointPlanCalculator` check and
//! `CheckpointFailureManager` (Flink 1.15–2.x; each piece names its class below).
//!
//! Contract: [`Coordinator`] owns every piece of coordinator state (pending and completed
//! checkpoints, the queued requests, the periodic trigger, the failure counters) and knows
//! nothing of the engine. It is driven through narrow inputs — the periodic timer fired, a
//! user request, a task acknowledged / declined / finished, a checkpoint expired, the job
//! failed over or restarted — and answers each with [`Command`]s for the host to carry out
//! in order: arm a timer, start triggering a chosen request, send trigger RPCs, arm an
//! expiry, notify tasks of a completed or aborted checkpoint, fail the job, log. The engine
//! glue (`coordinator_glue.rs`) only applies those commands, so the coordinator is tested
//! alone (the tests at the end follow Flink's `CheckpointCoordinatorTest` /
//! `CheckpointRequestDeciderTest` / `CheckpointFailureManagerTest`). It imports only leaf
//! modules (config, time, records, operator state, the barrier type, the RNG).
//!
//! Time is virtual and triggering is synchronous: Flink computes the plan and takes the id
//! on other threads (`isTriggering`), which here takes no time, so the decider never sees a
//! trigger in progress.
//!
//! Savepoints (issue 15) are requests like any other with Flink's `CheckpointProperties`
//! for them (`CheckpointCoordinator.triggerSavepoint` / `triggerSynchronousSavepoint`, 2.x):
//! a [`SavepointKind`] (Flink's `SavepointType`), *forced* when unaligned checkpoints are
//! disabled (`CheckpointProperties.forSavepoint(!unalignedCheckpointsEnabled, …)`), queued
//! before every checkpoint request, always aligned whatever the checkpointing mode
//! (`CheckpointOptions.forConfig`: a savepoint is `alignedNoTimeout`, so neither unaligned
//! barriers nor the aligned-checkpoint timeout apply; only `AT_LEAST_ONCE` mode gives it
//! non-blocking barriers, as for checkpoints). A completed savepoint is not added to the
//! completed-checkpoint store (`completePendingCheckpoint`: `if (!props.isSavepoint())
//! addCompletedCheckpointToStoreAndSubsumeOldest`), so a failover never restores it; it
//! is kept in [`Coordinator::savepoints`] for a resubmission. A savepoint cannot be subsumed
//! (`PendingCheckpoint.canBeSubsumed`) and its failure does not count towards the tolerable
//! failures (`CheckpointFailureManager.handleJobLevelCheckpointException` /
//! `handleTaskLevelCheckpointException` skip savepoints).

use super::config::{BarrierKind, EngineConfig};
use super::log::{text, Arg, Msg};
use super::network::Barrier;
use super::op_state::TaskState;
use super::record::Record;
use super::rng::Rng;
use super::state_mapping::SnapshotTopology;
use super::time::Micros;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

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

/// Flink's `SavepointType` (2.x) by its `PostCheckpointAction`: what the job does once the
/// savepoint completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum SavepointKind {
    /// `SavepointType.savepoint`: `NONE`, the job keeps running (`flink savepoint`).
    Savepoint,
    /// `SavepointType.terminate`: `TERMINATE`, stop-with-savepoint `--drain`
    /// (`shouldDrain()`: the sources emit `MAX_WATERMARK` and end their input).
    Terminate,
    /// `SavepointType.suspend`: `SUSPEND`, stop-with-savepoint without `--drain`.
    Suspend,
}

impl SavepointKind {
    /// `SavepointType.isSynchronous`: the tasks stop at it (stop-with-savepoint).
    pub fn is_synchronous(self) -> bool {
        self != SavepointKind::Savepoint
    }
    /// `SavepointType.shouldDrain`.
    pub fn should_drain(self) -> bool {
        self == SavepointKind::Terminate
    }
    /// Flink's REST `checkpoint_type` (`CheckpointingStatistics.RestAPICheckpointType`).
    pub fn rest_type(self) -> &'static str {
        if self.is_synchronous() {
            "SYNC_SAVEPOINT"
        } else {
            "SAVEPOINT"
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckpointStats {
    pub id: u64,
    /// `Some` for a savepoint (Flink's REST `is_savepoint`).
    pub savepoint: Option<SavepointKind>,
    /// Where the completed snapshot lives (Flink's `external_path`), once completed.
    pub external_path: Option<String>,
    pub status: CheckpointStatus,
    pub kind: BarrierKind,
    pub trigger_at: Micros,
    pub completed_at: Option<Micros>,
    pub failure_reason: Option<String>,
    /// Tasks that must acknowledge.
    pub expected: BTreeSet<usize>,
    pub subtasks: BTreeMap<usize, SubtaskStats>,
    pub channel_state_files: u32,
    /// Bumped on every write to this entry after it was pushed ([`Coordinator`]'s
    /// `stats_mut`), so a reader can tell an unchanged entry (`report_rows`) without
    /// comparing it. Not part of the entry's content: it is not serialized.
    #[serde(skip)]
    pub revision: u64,
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
    /// Per task: its operators' states (`TaskStateSnapshot`).
    pub states: BTreeMap<usize, TaskState>,
    /// Per task: bytes of its operator state (what a restore reads back).
    pub state_bytes: BTreeMap<usize, u64>,
    pub input_state: BTreeMap<ChannelKey, Vec<Record>>,
    pub output_state: BTreeMap<ChannelKey, Vec<Record>>,
    /// Per spec operator: its parallelism and max parallelism (key groups) when taken
    /// (Flink's `OperatorState.getParallelism` / `getMaxParallelism`).
    pub parallelism: Vec<u32>,
    pub max_parallelism: Vec<u32>,
    /// The record serializer the in-flight data was written with.
    pub serializer_version: u32,
    /// `Some` for a savepoint.
    pub savepoint: Option<SavepointKind>,
    /// The job that took it: operator ids, edges, sink lineages
    /// ([`super::state_mapping`]).
    pub topology: Rc<SnapshotTopology>,
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

// ---------------------------------------------------------------------------- inputs/outputs

/// A task as the coordinator sees it at a trigger: Flink's `ExecutionState`, reduced to what
/// `DefaultCheckpointPlanCalculator` asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskPhase {
    /// `RUNNING` (a task that reached the end of its input and waits for its final
    /// checkpoint is still `RUNNING` in Flink).
    Running,
    /// `INITIALIZING`: deployed, restoring state or consuming recovered input.
    Initializing,
    Finished,
    /// Canceled / failed (the job is restarting).
    Other,
}

/// One task of the plan: its phase, its upstream tasks, its name (for the log).
#[derive(Clone, Debug)]
pub struct PlanTask {
    pub phase: TaskPhase,
    pub upstream: Vec<usize>,
    pub name: String,
}

/// What a trigger needs to know of the job: tasks by id, the final state of finished tasks,
/// and the versions a restore checks.
#[derive(Clone, Debug, Default)]
pub struct TriggerContext {
    pub tasks: Vec<PlanTask>,
    pub finished_states: BTreeMap<usize, TaskState>,
    pub parallelism: Vec<u32>,
    pub max_parallelism: Vec<u32>,
    pub serializer_version: u32,
    pub topology: Rc<SnapshotTopology>,
}

/// A task's acknowledgement: its figures and its snapshot (Flink's `AcknowledgeCheckpoint`
/// with `TaskStateSnapshot` and `CheckpointMetrics`).
#[derive(Clone, Debug)]
pub struct Ack {
    pub stats: SubtaskStats,
    pub state: TaskState,
    pub input_state: Vec<(ChannelKey, Vec<Record>)>,
    pub output_state: Vec<(ChannelKey, Vec<Record>)>,
}

/// A request for a checkpoint (Flink's `CheckpointTriggerRequest`). Ordered as the
/// decider's queue orders them (`checkpointTriggerRequestsComparator`): savepoints first,
/// then forced requests, then user requests before periodic ones, then by time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub periodic: bool,
    pub at: Micros,
    pub seq: u64,
    pub savepoint: Option<SavepointKind>,
    /// `CheckpointProperties.forceCheckpoint`: ignores `max-concurrent-checkpoints` and
    /// `min-pause` (savepoints while unaligned checkpoints are disabled).
    pub forced: bool,
}

impl Request {
    fn order_key(&self) -> (bool, bool, bool, Micros, u64) {
        (
            self.savepoint.is_none(),
            !self.forced,
            self.periodic,
            self.at,
            self.seq,
        )
    }
}

impl PartialOrd for Request {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Request {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.order_key().cmp(&o.order_key())
    }
}

/// What the host must do, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Call [`Coordinator::timer_fired`] with `generation` at `at`.
    ArmTrigger {
        at: Micros,
        generation: u64,
    },
    /// Build a [`TriggerContext`] and call [`Coordinator::start_triggering`] now.
    StartTriggering(Request),
    /// Send the trigger RPC carrying `barrier` to these tasks.
    TriggerTasks {
        barrier: Barrier,
        tasks: Vec<usize>,
    },
    /// Call [`Coordinator::expire`] for `id` at `at`.
    ArmExpiry {
        at: Micros,
        id: u64,
    },
    /// Checkpoint `id` completed: record its channel-state files, log it, notify the tasks.
    Completed {
        id: u64,
    },
    /// Checkpoint `id` ended unsuccessfully: drop its channel state, notify the tasks.
    Aborted {
        id: u64,
    },
    /// The failure manager's limit is exceeded: fail the job over.
    FailJob {
        reason: String,
    },
    Log(String),
    /// A log text in its structured form (the checkpoint steps the playground translates).
    LogMsg(super::log::Msg),
}

// ---------------------------------------------------------------------------- request decider

/// Flink's `CheckpointRequestDecider.chooseRequestToExecute` (1.12–2.x, unchanged since):
/// a new request joins the queue (at most [`MAX_QUEUED_REQUESTS`]; beyond, a periodic one is
/// dropped with `TOO_MANY_CHECKPOINT_REQUESTS`); the first queued request runs unless
/// `max-concurrent-checkpoints` are pending (it waits for one to end); a *periodic* request
/// that comes sooner than `min-pause` after the last completion is dropped
/// (`MINIMUM_TIME_BETWEEN_CHECKPOINTS`) and the periodic trigger is rescheduled to the end
/// of the pause. A user request ignores the pause. A forced request (a savepoint while
/// unaligned checkpoints are disabled) runs even at the concurrency limit.
#[derive(Clone, Debug, Default)]
pub struct RequestDecider {
    pub queued: BTreeSet<Request>,
    seq: u64,
}

/// `CheckpointRequestDecider.DEFAULT_MAX_QUEUED_REQUESTS`.
pub const MAX_QUEUED_REQUESTS: usize = 1000;

/// The decider's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Execute(Request),
    /// Nothing to run now (queue empty, or the concurrency limit reached).
    Wait,
    /// The first request was periodic and inside the min-pause: it was dropped; reschedule
    /// the periodic trigger after this delay.
    Reschedule(Micros),
}

impl RequestDecider {
    pub fn new_request(&mut self, periodic: bool, at: Micros) -> Request {
        self.seq += 1;
        Request {
            periodic,
            at,
            seq: self.seq,
            savepoint: None,
            forced: false,
        }
    }

    /// Submits `request`, then decides (Flink's `chooseRequestToExecute(newRequest, …)`).
    pub fn submit(
        &mut self,
        request: Request,
        pending: usize,
        last_completion: Option<Micros>,
        now: Micros,
        config: &EngineConfig,
    ) -> Decision {
        if self.queued.len() >= MAX_QUEUED_REQUESTS
            && self.queued.last().is_some_and(|r| !r.periodic)
        {
            return Decision::Wait; // only user requests queued: the new one is dropped
        }
        self.queued.insert(request);
        if self.queued.len() > MAX_QUEUED_REQUESTS {
            self.queued.pop_last();
        }
        self.choose(pending, last_completion, now, config)
    }

    /// Decides on the queued requests (Flink's `chooseQueuedRequestToExecute`).
    pub fn choose(
        &mut self,
        pending: usize,
        last_completion: Option<Micros>,
        now: Micros,
        config: &EngineConfig,
    ) -> Decision {
        let Some(first) = self.queued.first().copied() else {
            return Decision::Wait;
        };
        if pending >= config.max_concurrent as usize {
            if first.forced {
                self.queued.pop_first();
                return Decision::Execute(first);
            }
            return Decision::Wait;
        }
        if first.periodic && !first.forced {
            if let Some(done) = last_completion {
                let allowed = done + config.min_pause;
                if now < allowed {
                    self.queued.pop_first();
                    return Decision::Reschedule(allowed - now);
                }
            }
        }
        self.queued.pop_first();
        Decision::Execute(first)
    }

    /// Flink's `abortAll`: the job stops (failover).
    pub fn abort_all(&mut self) {
        self.queued.clear();
    }
}

// ---------------------------------------------------------------------------- periodic trigger

/// The periodic trigger of Flink's `CheckpointCoordinator` (`startCheckpointScheduler`,
/// `ScheduledTrigger`, `rescheduleTrigger`, `getRandomInitDelay`; 1.19–2.x reschedule the
/// trigger after each firing, earlier versions `scheduleAtFixedRate` — the same timing).
/// Started whenever the job (re)enters RUNNING (`CheckpointCoordinatorDeActivator`), its
/// first firing comes after a random delay in `[min-pause, interval]`; the base interval is
/// raised to `min-pause` if shorter, as Flink's constructor does. The random delay is drawn
/// from the scenario's seed (per start), so runs stay reproducible.
#[derive(Clone, Debug, Default)]
pub struct PeriodicTrigger {
    /// Bumped whenever the armed timer is cancelled; a firing of an older one is ignored.
    pub generation: u64,
    pub armed: bool,
    pub next_at: Option<Micros>,
    starts: u64,
}

impl PeriodicTrigger {
    fn base_interval(config: &EngineConfig) -> Option<Micros> {
        config.checkpoint_interval.map(|i| i.max(config.min_pause))
    }

    fn arm(&mut self, at: Micros) -> Command {
        self.generation += 1;
        self.armed = true;
        self.next_at = Some(at);
        Command::ArmTrigger {
            at,
            generation: self.generation,
        }
    }

    /// `startCheckpointScheduler`: the first trigger after `getRandomInitDelay()`.
    pub fn start(&mut self, now: Micros, seed: u64, config: &EngineConfig) -> Option<Command> {
        let interval = Self::base_interval(config)?;
        if self.armed {
            return None;
        }
        self.starts += 1;
        let mut rng = Rng::new(seed).fork(0xC0_0D1A_7000 + self.starts);
        let delay = rng.range(config.min_pause.min(interval), interval);
        Some(self.arm(now + delay))
    }

    /// `stopCheckpointScheduler` / `cancelPeriodicTrigger`.
    pub fn stop(&mut self) {
        self.generation += 1;
        self.armed = false;
        self.next_at = None;
    }

    /// `rescheduleTrigger`: cancel the armed timer, fire after `delay`.
    pub fn reschedule(&mut self, now: Micros, delay: Micros) -> Option<Command> {
        self.armed.then(|| self.arm(now + delay))
    }

    /// A timer fired: whether it is the armed one, and the next firing if so.
    fn fired(&mut self, now: Micros, generation: u64, config: &EngineConfig) -> Option<Command> {
        if !self.armed || generation != self.generation {
            return None;
        }
        match Self::base_interval(config) {
            Some(interval) => Some(self.arm(now + interval)),
            None => {
                self.stop();
                None
            }
        }
    }
}

// ---------------------------------------------------------------------------- failure manager

/// Flink's `CheckpointFailureManager` (1.15–2.x `checkFailureCounter`): only
/// `CHECKPOINT_EXPIRED`, `CHECKPOINT_DECLINED`, `CHECKPOINT_ASYNC_EXCEPTION`,
/// `IO_EXCEPTION` and `FINALIZE_CHECKPOINT_FAILURE` count, each checkpoint id once; a
/// success resets the count; more than `tolerable-failed-checkpoints` in a row fail the job
/// (and reset the count). Everything else — subsumed, task not ready, declined on a
/// cancellation barrier, not all tasks running, task failure — is ignored.
#[derive(Clone, Debug, Default)]
pub struct FailureManager {
    pub continuous_failures: u32,
    counted: BTreeSet<u64>,
}

impl FailureManager {
    pub fn counts(reason: &str) -> bool {
        matches!(
            reason,
            "CHECKPOINT_EXPIRED"
                | "CHECKPOINT_DECLINED"
                | "CHECKPOINT_ASYNC_EXCEPTION"
                | "IO_EXCEPTION"
                | "FINALIZE_CHECKPOINT_FAILURE"
        )
    }

    /// A checkpoint failed; `Some(reason)` when the job must fail.
    pub fn failed(&mut self, id: Option<u64>, reason: &str, tolerable: u32) -> Option<String> {
        if !Self::counts(reason) {
            return None;
        }
        if id.is_none_or(|id| self.counted.insert(id)) {
            self.continuous_failures += 1;
        }
        if self.continuous_failures > tolerable {
            let n = self.continuous_failures;
            self.succeeded();
            return Some(format!(
                "Exceeded checkpoint tolerable failure threshold ({n} failed in a row)"
            ));
        }
        None
    }

    /// `handleCheckpointSuccess`: clears the count.
    pub fn succeeded(&mut self) {
        self.continuous_failures = 0;
        self.counted.clear();
    }
}

// ---------------------------------------------------------------------------- coordinator

/// The job's id as Flink would print it (32 hex digits), drawn from the scenario's seed.
pub fn job_id(seed: u64) -> String {
    let mut rng = Rng::new(seed).fork(0x0001_0B1D);
    format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64())
}

/// Where a completed snapshot lives, as Flink names it under the playground's storage root
/// `file:/flink`: a checkpoint in `<checkpoint-dir>/<job-id>/chk-<id>`
/// (`FsCheckpointStorageAccess`, `CHECKPOINT_DIR_PREFIX`), a savepoint in
/// `<savepoint-dir>/savepoint-<first 6 of the job id>-<12 random hex>`
/// (`AbstractFsCheckpointStorageAccess.initializeLocationForSavepoint` with
/// `FileUtils.getRandomFilename`; the random part drawn from the seed).
pub fn external_path(seed: u64, id: u64, savepoint: bool) -> String {
    let job = job_id(seed);
    if savepoint {
        let mut rng = Rng::new(seed).fork(0x005A_7E00 + id);
        let random = format!("{:016x}", rng.next_u64());
        format!(
            "file:/flink/savepoints/savepoint-{}-{}",
            &job[..6],
            &random[..12]
        )
    } else {
        format!("file:/flink/checkpoints/{job}/chk-{id}")
    }
}

/// Flink's `CheckpointCoordinator`, driven by the engine through the methods below.
#[derive(Clone, Debug, Default)]
pub struct Coordinator {
    pub history: Vec<CheckpointStats>,
    /// Ids before the running job's history (taken by jobs before a resubmission).
    pub history_base: u64,
    pub pending: BTreeSet<u64>,
    pub(crate) pending_data: BTreeMap<u64, CompletedCheckpoint>,
    pub latest: Option<CompletedCheckpoint>,
    /// Completed savepoints, oldest first (never in the store a failover restores from).
    pub savepoints: Vec<CompletedCheckpoint>,
    pub next_id: u64,
    pub decider: RequestDecider,
    pub trigger: PeriodicTrigger,
    pub failure_manager: FailureManager,
    /// Trigger attempts that failed before an id was taken (`NOT_ALL_REQUIRED_TASKS_RUNNING`):
    /// Flink's `CheckpointStatsTracker.reportFailedCheckpointsWithoutInProgress` — they add
    /// to the failed count but have no history entry.
    pub failed_without_id: u64,
    pub last_completed_at: Option<Micros>,
    seed: u64,
}

impl Coordinator {
    pub fn new(seed: u64) -> Self {
        Coordinator {
            seed,
            ..Default::default()
        }
    }

    pub fn stats(&self, id: u64) -> Option<&CheckpointStats> {
        let i = (id as usize).checked_sub(1 + self.history_base as usize)?;
        self.history.get(i)
    }
    fn stats_mut(&mut self, id: u64) -> Option<&mut CheckpointStats> {
        let i = (id as usize).checked_sub(1 + self.history_base as usize)?;
        let s = self.history.get_mut(i)?;
        s.revision += 1;
        Some(s)
    }

    /// A new job (a resubmission) starts its own history; the ids go on from here.
    pub fn new_history(&mut self) {
        self.history_base = self.next_id;
        self.history.clear();
        self.latest = None;
    }

    /// The job (re)entered RUNNING: start the periodic trigger (Flink's
    /// `CheckpointCoordinatorDeActivator.jobStatusChanges` → `startCheckpointScheduler`).
    pub fn job_running(&mut self, now: Micros, config: &EngineConfig) -> Vec<Command> {
        self.trigger
            .start(now, self.seed, config)
            .into_iter()
            .collect()
    }

    /// The job left RUNNING (failover): stop the trigger, drop the queued requests and
    /// abort every pending checkpoint (not counted; `stopCheckpointScheduler` →
    /// `abortPendingAndQueuedCheckpoints`).
    pub fn job_stopped(&mut self, reason: &str) {
        self.trigger.stop();
        self.decider.abort_all();
        let pending: Vec<u64> = std::mem::take(&mut self.pending).into_iter().collect();
        for id in pending {
            self.pending_data.remove(&id);
            if let Some(s) = self.stats_mut(id) {
                s.status = CheckpointStatus::Failed;
                s.failure_reason = Some(reason.to_string());
            }
        }
    }

    /// The periodic timer of `generation` fired (Flink's `ScheduledTrigger.run`).
    pub fn timer_fired(
        &mut self,
        now: Micros,
        generation: u64,
        config: &EngineConfig,
    ) -> Vec<Command> {
        let Some(next) = self.trigger.fired(now, generation, config) else {
            return Vec::new();
        };
        let mut out = vec![next];
        out.extend(self.submit(now, true, config));
        out
    }

    /// A user asked for a checkpoint now (a non-periodic request).
    pub fn user_request(&mut self, now: Micros, config: &EngineConfig) -> Vec<Command> {
        self.submit(now, false, config)
    }

    /// A savepoint request (`triggerSavepoint`, or `triggerSynchronousSavepoint` for
    /// stop-with-savepoint), forced unless unaligned checkpoints are enabled.
    pub fn savepoint_request(
        &mut self,
        now: Micros,
        kind: SavepointKind,
        config: &EngineConfig,
    ) -> Vec<Command> {
        let mut request = self.decider.new_request(false, now);
        request.savepoint = Some(kind);
        request.forced = !config.unaligned;
        self.submit_request(now, request, config)
    }

    /// `stopCheckpointScheduler` with the job still running (stop-with-savepoint, Flink's
    /// `SchedulerBase.stopWithSavepoint`): the periodic trigger stops, queued requests are
    /// dropped and every pending checkpoint is aborted with `CHECKPOINT_COORDINATOR_SUSPEND`
    /// (`abortPendingAndQueuedCheckpoints`; not counted by the failure manager), so that only
    /// the synchronous savepoint's data is committed.
    pub fn suspend(&mut self, now: Micros, config: &EngineConfig) -> Vec<Command> {
        self.trigger.stop();
        self.decider.abort_all();
        let pending: Vec<u64> = self.pending.iter().copied().collect();
        let mut out = Vec::new();
        for id in pending {
            out.extend(self.abort(
                now,
                id,
                CheckpointStatus::Aborted,
                "CHECKPOINT_COORDINATOR_SUSPEND",
                config,
            ));
        }
        out
    }

    fn submit(&mut self, now: Micros, periodic: bool, config: &EngineConfig) -> Vec<Command> {
        let request = self.decider.new_request(periodic, now);
        self.submit_request(now, request, config)
    }

    fn submit_request(
        &mut self,
        now: Micros,
        request: Request,
        config: &EngineConfig,
    ) -> Vec<Command> {
        let d = self.decider.submit(
            request,
            self.pending.len(),
            self.last_completed_at,
            now,
            config,
        );
        self.decided(now, d)
    }

    fn decided(&mut self, now: Micros, d: Decision) -> Vec<Command> {
        match d {
            Decision::Execute(r) => vec![Command::StartTriggering(r)],
            Decision::Wait => Vec::new(),
            Decision::Reschedule(delay) => {
                self.trigger.reschedule(now, delay).into_iter().collect()
            }
        }
    }

    /// Flink's `executeQueuedRequest`, after a checkpoint ended or a trigger failed.
    fn execute_queued(&mut self, now: Micros, config: &EngineConfig) -> Vec<Command> {
        let d = self
            .decider
            .choose(self.pending.len(), self.last_completed_at, now, config);
        self.decided(now, d)
    }

    /// Flink's `startTriggeringCheckpoint`: the plan first
    /// (`DefaultCheckpointPlanCalculator.calculateCheckpointPlan`, 1.15+: every task still
    /// running must be `RUNNING` — `checkTasksStarted(tasksToWaitFor)`), and only then the
    /// id (`checkpointIdCounter.getAndIncrement`). A plan that fails takes no id and leaves
    /// no history entry; it counts in [`Coordinator::failed_without_id`] and not towards
    /// the tolerable failures (`NOT_ALL_REQUIRED_TASKS_RUNNING` is ignored). Tasks to
    /// trigger: the running tasks without a running upstream task
    /// (`calculateAfterTasksFinished`; the sources while none finished).
    pub fn start_triggering(
        &mut self,
        now: Micros,
        request: Request,
        ctx: TriggerContext,
        config: &EngineConfig,
    ) -> Vec<Command> {
        let live: BTreeSet<usize> = (0..ctx.tasks.len())
            .filter(|&t| ctx.tasks[t].phase != TaskPhase::Finished)
            .collect();
        if live.is_empty() {
            return Vec::new();
        }
        if let Some(&t) = live
            .iter()
            .find(|&&t| ctx.tasks[t].phase != TaskPhase::Running)
        {
            self.failed_without_id += 1;
            let phase = match ctx.tasks[t].phase {
                TaskPhase::Initializing => "INITIALIZING",
                _ => "not running",
            };
            let mut out = vec![Command::Log(format!(
                "checkpoint not triggered (NOT_ALL_REQUIRED_TASKS_RUNNING): {} is {phase}; no checkpoint id taken",
                ctx.tasks[t].name
            ))];
            out.extend(self.execute_queued(now, config));
            return out;
        }
        self.next_id += 1;
        let id = self.next_id;
        let savepoint = request.savepoint;
        let kind = match savepoint {
            // `CheckpointOptions.forConfig`: not exactly-once first, then savepoint → aligned.
            Some(_) if config.mode == super::config::CheckpointingMode::AtLeastOnce => {
                BarrierKind::AtLeastOnce
            }
            Some(_) => BarrierKind::Aligned,
            None => config.barrier_kind(),
        };
        let data = CompletedCheckpoint {
            id,
            states: ctx.finished_states,
            state_bytes: BTreeMap::new(),
            input_state: BTreeMap::new(),
            output_state: BTreeMap::new(),
            parallelism: ctx.parallelism,
            max_parallelism: ctx.max_parallelism,
            serializer_version: ctx.serializer_version,
            savepoint,
            topology: ctx.topology,
        };
        self.history.push(CheckpointStats {
            id,
            savepoint,
            external_path: None,
            status: CheckpointStatus::InProgress,
            kind,
            trigger_at: now,
            completed_at: None,
            failure_reason: None,
            expected: live.clone(),
            subtasks: BTreeMap::new(),
            channel_state_files: 0,
            revision: 0,
        });
        self.pending.insert(id);
        self.pending_data.insert(id, data);
        let barrier = Barrier {
            id,
            timestamp: now,
            kind,
            original: kind,
        };
        let targets: Vec<usize> = live
            .iter()
            .copied()
            .filter(|&t| {
                !ctx.tasks[t]
                    .upstream
                    .iter()
                    .any(|&u| ctx.tasks[u].phase != TaskPhase::Finished)
            })
            .collect();
        let mode = match kind {
            BarrierKind::Unaligned => "unaligned",
            BarrierKind::TimeoutableAligned => "aligned with timeout",
            BarrierKind::AtLeastOnce => "at-least-once",
            _ => "aligned",
        };
        let n = targets.len();
        let what = match savepoint {
            None => "checkpoint",
            Some(SavepointKind::Savepoint) => "savepoint",
            Some(SavepointKind::Terminate) => "synchronous savepoint (stop --drain)",
            Some(SavepointKind::Suspend) => "synchronous savepoint (stop)",
        };
        vec![
            Command::TriggerTasks {
                barrier,
                tasks: targets,
            },
            Command::ArmExpiry {
                at: now + config.checkpoint_timeout,
                id,
            },
            Command::LogMsg(Msg::new(
                "{0} {1} triggered ({2}) at {3} tasks",
                vec![Arg::Word(what), text(id), Arg::Word(mode), text(n)],
            )),
        ]
    }

    /// The first barrier (or the trigger) of `id` reached task `t`.
    pub fn subtask_started(&mut self, now: Micros, id: u64, t: usize) {
        if let Some(s) = self.stats_mut(id) {
            s.subtasks
                .entry(t)
                .or_default()
                .started_at
                .get_or_insert(now);
        }
    }

    /// Whether `t` still owes checkpoint `id` an acknowledgement.
    pub fn awaits(&self, id: u64, t: usize) -> bool {
        self.pending.contains(&id)
            && self.stats(id).is_some_and(|s| {
                s.expected.contains(&t) && s.subtasks.get(&t).is_none_or(|x| x.ack_at.is_none())
            })
    }

    /// Task `t` acknowledged `id` (Flink's `receiveAcknowledgeMessage`).
    pub fn acknowledge(
        &mut self,
        now: Micros,
        t: usize,
        id: u64,
        ack: Ack,
        config: &EngineConfig,
    ) -> Vec<Command> {
        if !self.pending.contains(&id) {
            return Vec::new();
        }
        let state_bytes = ack.stats.state_bytes;
        if let Some(data) = self.pending_data.get_mut(&id) {
            data.states.insert(t, ack.state);
            data.state_bytes.insert(t, state_bytes);
            for (k, r) in ack.input_state {
                data.input_state.entry(k).or_default().extend(r);
            }
            for (k, r) in ack.output_state {
                data.output_state.entry(k).or_default().extend(r);
            }
        }
        if let Some(s) = self.stats_mut(id) {
            let started = s.subtasks.get(&t).and_then(|x| x.started_at);
            s.subtasks.insert(
                t,
                SubtaskStats {
                    started_at: started.or(ack.stats.started_at),
                    ..ack.stats
                },
            );
        }
        self.maybe_complete(now, id, config)
    }

    /// A task finished before acknowledging `id`: its final state is its acknowledgement.
    pub fn task_finished(
        &mut self,
        now: Micros,
        t: usize,
        id: u64,
        state: TaskState,
        config: &EngineConfig,
    ) -> Vec<Command> {
        if !self.awaits(id, t) {
            return Vec::new();
        }
        if let Some(data) = self.pending_data.get_mut(&id) {
            data.states.insert(t, state);
        }
        if let Some(s) = self.stats_mut(id) {
            s.subtasks.insert(
                t,
                SubtaskStats {
                    started_at: Some(now),
                    ack_at: Some(now),
                    ..Default::default()
                },
            );
        }
        self.maybe_complete(now, id, config)
    }

    fn maybe_complete(&mut self, now: Micros, id: u64, config: &EngineConfig) -> Vec<Command> {
        let Some(s) = self.stats(id) else {
            return Vec::new();
        };
        if !s
            .expected
            .iter()
            .all(|t| s.subtasks.get(t).is_some_and(|x| x.ack_at.is_some()))
        {
            return Vec::new();
        }
        self.pending.remove(&id);
        let Some(data) = self.pending_data.remove(&id) else {
            return Vec::new();
        };
        let path = external_path(self.seed, id, data.savepoint.is_some());
        if let Some(s) = self.stats_mut(id) {
            s.status = CheckpointStatus::Completed;
            s.completed_at = Some(now);
            s.external_path = Some(path);
        }
        if data.savepoint.is_some() {
            self.savepoints.push(data);
        } else {
            self.latest = Some(data);
        }
        self.failure_manager.succeeded();
        self.last_completed_at = Some(now);
        let mut out = vec![Command::Completed { id }];
        // Older pending checkpoints are subsumed (`dropSubsumedCheckpoints`); savepoints
        // cannot be (`canBeSubsumed`).
        let older: Vec<u64> = self
            .pending
            .range(..id)
            .copied()
            .filter(|&o| self.stats(o).is_some_and(|s| s.savepoint.is_none()))
            .collect();
        for o in older {
            out.extend(self.abort(
                now,
                o,
                CheckpointStatus::Aborted,
                "CHECKPOINT_SUBSUMED",
                config,
            ));
        }
        out.extend(self.execute_queued(now, config));
        out
    }

    /// Task `t` declined `id` (`receiveDeclineMessage`).
    pub fn decline(
        &mut self,
        now: Micros,
        id: u64,
        task_name: &str,
        reason: &str,
        config: &EngineConfig,
    ) -> Vec<Command> {
        if !self.pending.contains(&id) {
            return Vec::new();
        }
        let mut out = vec![Command::Log(format!(
            "{task_name} declined checkpoint {id}: {reason}"
        ))];
        out.extend(self.abort(now, id, CheckpointStatus::Failed, reason, config));
        out
    }

    /// `id` is still pending after `execution.checkpointing.timeout`.
    pub fn expire(&mut self, now: Micros, id: u64, config: &EngineConfig) -> Vec<Command> {
        self.abort(
            now,
            id,
            CheckpointStatus::Expired,
            "CHECKPOINT_EXPIRED",
            config,
        )
    }

    /// Ends a pending checkpoint unsuccessfully and applies the failure policy
    /// (`abortPendingCheckpoint` → `CheckpointFailureManager.handleCheckpointException`).
    fn abort(
        &mut self,
        now: Micros,
        id: u64,
        status: CheckpointStatus,
        reason: &str,
        config: &EngineConfig,
    ) -> Vec<Command> {
        if !self.pending.remove(&id) {
            return Vec::new();
        }
        self.pending_data.remove(&id);
        let savepoint = self.stats(id).and_then(|s| s.savepoint);
        if let Some(s) = self.stats_mut(id) {
            s.status = status;
            s.failure_reason = Some(reason.to_string());
        }
        let what = if savepoint.is_some() {
            "savepoint"
        } else {
            "checkpoint"
        };
        let mut out = vec![
            Command::Log(format!("{what} {id} {}: {reason}", status.name())),
            Command::Aborted { id },
        ];
        let counted = if savepoint.is_some() {
            None
        } else {
            self.failure_manager
                .failed(Some(id), reason, config.tolerable_failed)
        };
        if let Some(fail) = counted {
            out.push(Command::FailJob { reason: fail });
            return out;
        }
        out.extend(self.execute_queued(now, config));
        out
    }

    /// `abortPendingCheckpoints(exception)`: every pending checkpoint fails with `reason`
    /// (through the failure manager, which ignores `JOB_FAILOVER_REGION`), the trigger keeps
    /// running. `SchedulerBase.restoreState` calls it before a region restores.
    pub fn abort_pending(
        &mut self,
        now: Micros,
        reason: &str,
        config: &EngineConfig,
    ) -> Vec<Command> {
        let pending: Vec<u64> = self.pending.iter().copied().collect();
        let mut out = Vec::new();
        for id in pending {
            out.extend(self.abort(now, id, CheckpointStatus::Failed, reason, config));
        }
        out
    }

    /// The host counted the channel-state files of completed checkpoint `id`.
    pub fn set_channel_state_files(&mut self, id: u64, files: u32) {
        if let Some(s) = self.stats_mut(id) {
            s.channel_state_files = files;
        }
    }
}

#[cfg(test)]
mod tests {
    //! Shaped like Flink's `CheckpointRequestDeciderTest`, `CheckpointCoordinatorTest` and
    //! `CheckpointFailureManagerTest`: the coordinator alone, no engine.
    use super::*;

    const MS: Micros = 1_000;

    fn config(interval_ms: u64, min_pause_ms: u64) -> EngineConfig {
        EngineConfig {
            checkpoint_interval: Some(interval_ms * MS),
            min_pause: min_pause_ms * MS,
            ..Default::default()
        }
    }

    /// source -> sink, both in `phase`.
    fn ctx(phases: [TaskPhase; 2]) -> TriggerContext {
        TriggerContext {
            tasks: vec![
                PlanTask {
                    phase: phases[0],
                    upstream: vec![],
                    name: "source#0".into(),
                },
                PlanTask {
                    phase: phases[1],
                    upstream: vec![0],
                    name: "sink#0".into(),
                },
            ],
            ..Default::default()
        }
    }

    fn ack(t: usize) -> Ack {
        Ack {
            stats: SubtaskStats {
                ack_at: Some(1),
                state_bytes: 10 * (t as u64 + 1),
                ..Default::default()
            },
            state: TaskState::default(),
            input_state: vec![],
            output_state: vec![],
        }
    }

    /// Runs `StartTriggering` commands with `ctx`, returning everything else.
    fn run(
        c: &mut Coordinator,
        now: Micros,
        cmds: Vec<Command>,
        ctx: &TriggerContext,
        cfg: &EngineConfig,
    ) -> Vec<Command> {
        let mut out = Vec::new();
        for cmd in cmds {
            match cmd {
                Command::StartTriggering(r) => {
                    let more = c.start_triggering(now, r, ctx.clone(), cfg);
                    out.extend(run(c, now, more, ctx, cfg));
                }
                other => out.push(other),
            }
        }
        out
    }

    fn triggered(cmds: &[Command]) -> Option<u64> {
        cmds.iter().find_map(|c| match c {
            Command::TriggerTasks { barrier, .. } => Some(barrier.id),
            _ => None,
        })
    }

    // ---- CheckpointRequestDeciderTest

    #[test]
    fn decider_queues_at_max_concurrent_and_runs_on_release() {
        let cfg = config(100, 0);
        let mut d = RequestDecider::default();
        let r = d.new_request(true, 0);
        assert_eq!(d.submit(r, 1, None, 0, &cfg), Decision::Wait);
        assert_eq!(d.queued.len(), 1);
        assert_eq!(d.choose(0, None, 5, &cfg), Decision::Execute(r));
        assert!(d.queued.is_empty());
    }

    #[test]
    fn decider_drops_periodic_request_inside_min_pause_and_reschedules() {
        let cfg = config(100, 30);
        let mut d = RequestDecider::default();
        let r = d.new_request(true, 50 * MS);
        // last completion at 40 ms: allowed from 70 ms, 20 ms from now
        assert_eq!(
            d.submit(r, 0, Some(40 * MS), 50 * MS, &cfg),
            Decision::Reschedule(20 * MS)
        );
        assert!(
            d.queued.is_empty(),
            "the periodic request is dropped, not kept"
        );
    }

    #[test]
    fn decider_user_request_ignores_min_pause_and_goes_first() {
        let cfg = config(100, 30);
        let mut d = RequestDecider::default();
        let p = d.new_request(true, 10);
        assert_eq!(d.submit(p, 1, None, 10, &cfg), Decision::Wait);
        let u = d.new_request(false, 20);
        assert_eq!(d.submit(u, 1, None, 20, &cfg), Decision::Wait);
        assert_eq!(d.choose(0, Some(20), 21, &cfg), Decision::Execute(u));
    }

    #[test]
    fn decider_bounds_its_queue() {
        let cfg = config(100, 0);
        let mut d = RequestDecider::default();
        for i in 0..(MAX_QUEUED_REQUESTS as u64 + 5) {
            let r = d.new_request(true, i);
            d.submit(r, 1, None, i, &cfg);
        }
        assert_eq!(d.queued.len(), MAX_QUEUED_REQUESTS);
        assert_eq!(
            d.queued.last().map(|r| r.at),
            Some(MAX_QUEUED_REQUESTS as u64 - 1)
        );
    }

    // ---- CheckpointCoordinatorTest: periodic trigger

    #[test]
    fn first_periodic_trigger_after_seeded_random_delay_in_min_pause_to_interval() {
        let cfg = config(1_000, 200);
        let mut seen = BTreeSet::new();
        for seed in 0..50 {
            let mut c = Coordinator::new(seed);
            let cmds = c.job_running(0, &cfg);
            let [Command::ArmTrigger { at, .. }] = cmds.as_slice() else {
                panic!("one timer armed: {cmds:?}");
            };
            assert!((200 * MS..=1_000 * MS).contains(at), "seed {seed}: {at}");
            seen.insert(*at);
            let again = Coordinator::new(seed).job_running(0, &cfg);
            assert_eq!(cmds, again, "seed {seed}: same seed, same delay");
        }
        assert!(seen.len() > 40, "delays spread over the range");
    }

    #[test]
    fn stale_timer_is_ignored_after_stop_and_restart() {
        let cfg = config(100, 0);
        let mut c = Coordinator::new(1);
        let first = c.job_running(0, &cfg);
        let Command::ArmTrigger { generation: g1, .. } = first[0] else {
            panic!()
        };
        c.job_stopped("TASK_FAILURE");
        assert!(c.timer_fired(50, g1, &cfg).is_empty());
        let second = c.job_running(60, &cfg);
        let Command::ArmTrigger { at, generation: g2 } = second[0] else {
            panic!()
        };
        assert!(g2 > g1 && at >= 60);
        let fired = c.timer_fired(at, g2, &cfg);
        assert!(matches!(fired[0], Command::ArmTrigger { at: next, .. } if next == at + 100 * MS));
        assert!(matches!(fired[1], Command::StartTriggering(_)));
    }

    #[test]
    fn min_pause_reschedules_the_periodic_trigger() {
        let cfg = config(100, 60);
        let mut c = Coordinator::new(3);
        let all = ctx([TaskPhase::Running; 2]);
        let Command::ArmTrigger { at, generation } = c.job_running(0, &cfg)[0] else {
            panic!()
        };
        // Trigger and complete checkpoint 1 at `at + 90 ms`.
        let fired = c.timer_fired(at, generation, &cfg);
        let out = run(&mut c, at, fired, &all, &cfg);
        assert_eq!(triggered(&out), Some(1));
        let done = at + 90 * MS;
        c.acknowledge(done, 0, 1, ack(0), &cfg);
        let out = c.acknowledge(done, 1, 1, ack(1), &cfg);
        assert_eq!(out[0], Command::Completed { id: 1 });
        // The next periodic firing (at + 100 ms) is inside the pause (until at + 150 ms).
        let next_gen = c.trigger.generation;
        let fired = c.timer_fired(at + 100 * MS, next_gen, &cfg);
        let out = run(&mut c, at + 100 * MS, fired, &all, &cfg);
        assert!(
            out.iter()
                .any(|x| matches!(x, Command::ArmTrigger { at: a, .. } if *a == at + 150 * MS)),
            "rescheduled to the end of the pause: {out:?}"
        );
        assert_eq!(c.next_id, 1, "no checkpoint inside the pause");
    }

    // ---- CheckpointCoordinatorTest: triggering (DefaultCheckpointPlanCalculator)

    #[test]
    fn no_checkpoint_while_a_task_is_initializing_and_no_id_is_taken() {
        let cfg = config(100, 0);
        let mut c = Coordinator::new(0);
        let r = c.decider.new_request(true, 0);
        let out = c.start_triggering(
            0,
            r,
            ctx([TaskPhase::Running, TaskPhase::Initializing]),
            &cfg,
        );
        assert_eq!(triggered(&out), None);
        assert_eq!(c.next_id, 0);
        assert!(c.history.is_empty(), "no history entry");
        assert_eq!(c.failed_without_id, 1);
        assert_eq!(
            c.failure_manager.continuous_failures, 0,
            "NOT_ALL_REQUIRED_TASKS_RUNNING is not counted"
        );
        let r = c.decider.new_request(true, 10);
        let out = c.start_triggering(10, r, ctx([TaskPhase::Running; 2]), &cfg);
        assert_eq!(
            triggered(&out),
            Some(1),
            "the first checkpoint once all run gets id 1"
        );
    }

    #[test]
    fn triggers_only_tasks_without_running_upstream() {
        let cfg = config(100, 0);
        let mut c = Coordinator::new(0);
        let r = c.decider.new_request(false, 0);
        let out = c.start_triggering(0, r, ctx([TaskPhase::Finished, TaskPhase::Running]), &cfg);
        let tasks = out.iter().find_map(|x| match x {
            Command::TriggerTasks { tasks, .. } => Some(tasks.clone()),
            _ => None,
        });
        assert_eq!(tasks, Some(vec![1]));
        assert_eq!(
            c.stats(1).map(|s| s.expected.clone()),
            Some(BTreeSet::from([1]))
        );
    }

    #[test]
    fn completes_when_all_acknowledged_and_subsumes_older() {
        let mut cfg = config(100, 0);
        cfg.max_concurrent = 2;
        let all = ctx([TaskPhase::Running; 2]);
        let mut c = Coordinator::new(0);
        for at in [0, 10] {
            let r = c.decider.new_request(false, at);
            c.start_triggering(at, r, all.clone(), &cfg);
        }
        c.acknowledge(20, 0, 2, ack(0), &cfg);
        let out = c.acknowledge(20, 1, 2, ack(1), &cfg);
        assert_eq!(out[0], Command::Completed { id: 2 });
        assert!(out.contains(&Command::Aborted { id: 1 }));
        assert_eq!(
            c.stats(1).map(|s| s.status),
            Some(CheckpointStatus::Aborted)
        );
        assert_eq!(
            c.latest.as_ref().map(|l| l.state_bytes.clone()),
            Some(BTreeMap::from([(0, 10), (1, 20)]))
        );
        assert!(c.pending.is_empty());
    }

    // ---- savepoints (CheckpointCoordinatorTest / CheckpointRequestDeciderTest)

    #[test]
    fn savepoint_is_aligned_forced_without_uc_and_kept_out_of_the_store() {
        let mut cfg = config(100, 0);
        cfg.unaligned = true;
        cfg.aligned_checkpoint_timeout = 0;
        let all = ctx([TaskPhase::Running; 2]);
        let mut c = Coordinator::new(0);
        let out = c.savepoint_request(0, SavepointKind::Savepoint, &cfg);
        let out = run(&mut c, 0, out, &all, &cfg);
        let kind = out.iter().find_map(|x| match x {
            Command::TriggerTasks { barrier, .. } => Some(barrier.kind),
            _ => None,
        });
        assert_eq!(
            kind,
            Some(BarrierKind::Aligned),
            "forConfig: savepoint → aligned"
        );
        c.acknowledge(5, 0, 1, ack(0), &cfg);
        let out = c.acknowledge(5, 1, 1, ack(1), &cfg);
        assert_eq!(out[0], Command::Completed { id: 1 });
        assert!(c.latest.is_none(), "not in the completed-checkpoint store");
        assert_eq!(c.savepoints.len(), 1);
        assert!(c.stats(1).unwrap().external_path.is_some());
        // With unaligned checkpoints on, a savepoint is not forced: it waits at the limit.
        let r = c.decider.new_request(false, 6);
        c.start_triggering(6, r, all.clone(), &cfg);
        assert!(c
            .savepoint_request(7, SavepointKind::Savepoint, &cfg)
            .is_empty());
        // Without: forced, it runs beside the pending checkpoint.
        cfg.unaligned = false;
        let out = c.savepoint_request(8, SavepointKind::Savepoint, &cfg);
        assert!(matches!(out.as_slice(), [Command::StartTriggering(r)] if r.forced));
    }

    #[test]
    fn savepoints_go_first_are_not_subsumed_and_their_failures_are_not_counted() {
        let mut cfg = config(100, 0);
        cfg.max_concurrent = 2;
        let mut d = RequestDecider::default();
        let p = d.new_request(true, 1);
        let u = d.new_request(false, 2);
        let mut s = d.new_request(false, 3);
        s.savepoint = Some(SavepointKind::Savepoint);
        assert!(s < u && u < p, "savepoint, user, periodic");
        let all = ctx([TaskPhase::Running; 2]);
        let mut c = Coordinator::new(0);
        let out = c.savepoint_request(0, SavepointKind::Suspend, &cfg);
        run(&mut c, 0, out, &all, &cfg);
        let r = c.decider.new_request(false, 1);
        c.start_triggering(1, r, all.clone(), &cfg);
        c.acknowledge(2, 0, 2, ack(0), &cfg);
        let out = c.acknowledge(2, 1, 2, ack(1), &cfg);
        assert!(!out.contains(&Command::Aborted { id: 1 }), "{out:?}");
        assert!(c.pending.contains(&1));
        let out = c.expire(3, 1, &cfg);
        assert!(!out.iter().any(|x| matches!(x, Command::FailJob { .. })));
        assert_eq!(c.failure_manager.continuous_failures, 0);
        assert_eq!(
            c.stats(1).map(|s| s.savepoint),
            Some(Some(SavepointKind::Suspend))
        );
    }

    // ---- CheckpointFailureManagerTest

    #[test]
    fn failure_manager_counts_each_id_once_and_ignores_not_ready() {
        let mut f = FailureManager::default();
        assert_eq!(
            f.failed(Some(1), "CHECKPOINT_DECLINED_TASK_NOT_READY", 0),
            None
        );
        assert_eq!(f.failed(Some(1), "CHECKPOINT_SUBSUMED", 0), None);
        assert_eq!(f.failed(Some(2), "CHECKPOINT_EXPIRED", 1), None);
        assert_eq!(
            f.failed(Some(2), "CHECKPOINT_DECLINED", 1),
            None,
            "id 2 counted once"
        );
        assert_eq!(f.continuous_failures, 1);
        assert!(
            f.failed(Some(3), "CHECKPOINT_EXPIRED", 1).is_some(),
            "2 > 1 tolerable"
        );
        assert_eq!(f.continuous_failures, 0, "reset after failing the job");
    }

    #[test]
    fn expiry_beyond_tolerable_fails_the_job() {
        let cfg = config(100, 0);
        let mut c = Coordinator::new(0);
        let r = c.decider.new_request(false, 0);
        c.start_triggering(0, r, ctx([TaskPhase::Running; 2]), &cfg);
        let out = c.expire(5, 1, &cfg);
        assert!(
            out.iter().any(|x| matches!(x, Command::FailJob { .. })),
            "{out:?}"
        );
        assert_eq!(
            c.stats(1).map(|s| s.status),
            Some(CheckpointStatus::Expired)
        );
    }
}
