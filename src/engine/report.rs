//! The run report: the JSON contract of `checkpoint-playground run --json`
//! (`shared/SCENARIO.md`). Field names are part of the contract; add fields, never rename.

use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    pub name: String,
    pub seed: u64,
    pub virtual_time_ms: u64,
    /// All tasks finished (bounded sources drained and committed).
    pub finished: bool,
    /// `RUNNING`, `FINISHED`, `RESTARTING` or `FAILED` (a restore was refused).
    pub job_status: String,
    /// FNV-1a hash of the engine's event log: equal runs have equal hashes on every host.
    pub event_hash: String,
    pub checkpoints: Vec<CheckpointReport>,
    /// Checkpoint attempts that failed before an id was taken because a task was not
    /// RUNNING (`NOT_ALL_REQUIRED_TASKS_RUNNING`, e.g. while restoring): Flink counts them
    /// as failed checkpoints without a history entry.
    pub trigger_failures: u64,
    pub failures: Vec<FailureReport>,
    /// Resubmissions of a changed job (`resubmit` events), in order.
    pub resubmissions: Vec<ResubmissionReport>,
    pub sinks: Vec<SinkReport>,
    pub operators: Vec<OperatorReport>,
    /// Per running subtask (task order): its input channels by kind.
    pub input_channels: Vec<SubtaskChannelsReport>,
    /// The latest stop-with-savepoint (`None`: the job was never stopped).
    pub stop_with_savepoint: Option<StopReport>,
    /// Min / avg / max and p50 / p90 / p99 over the completed checkpoints (Flink's summary).
    pub summary: super::diagnosis::summary::CheckpointSummary,
    /// The bottleneck over the last 5 s, as Flink's docs find it (`src/engine/diagnosis/`).
    pub bottleneck: super::diagnosis::Bottleneck,
    /// Flink's task metrics per subtask, under Flink's names (`src/engine/diagnosis/metrics.rs`).
    pub metrics: Vec<super::diagnosis::metrics::SubtaskMetrics>,
    /// Busy, soft / hard backpressured and idle ms per second per subtask, per 5 s window
    /// of the run (the newest 12), oldest first.
    pub metrics_windows: Vec<super::diagnosis::metrics::MetricsWindow>,
    /// The newest pending checkpoint: where each barrier is and what it waits for.
    pub pending_barriers: Option<super::diagnosis::live::BarrierTree>,
}

/// A subtask's input channels: `LocalInputChannel`s (producer in its TaskManager) and
/// credit-based `RemoteInputChannel`s.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SubtaskChannelsReport {
    pub operator: String,
    pub subtask: u32,
    pub local_inputs: u32,
    pub remote_inputs: u32,
}

/// A stop-with-savepoint as `flink stop [--drain]` reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StopReport {
    pub drain: bool,
    pub requested_ms: f64,
    /// The synchronous savepoint's id (`None`: it could not be triggered).
    pub savepoint_id: Option<u64>,
    /// The savepoint's path once completed (what `flink stop` prints).
    pub savepoint_path: Option<String>,
    /// `waiting_for_savepoint`, `savepoint_created`, `finished` or `failed`.
    pub status: String,
    pub failure: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CheckpointReport {
    pub id: u64,
    /// Flink's REST `checkpoint_type`: `CHECKPOINT`, `UNALIGNED_CHECKPOINT`, `SAVEPOINT` or
    /// `SYNC_SAVEPOINT` (stop-with-savepoint).
    pub checkpoint_type: String,
    /// Flink's REST `is_savepoint`.
    pub is_savepoint: bool,
    /// Flink's REST `external_path` of a completed checkpoint or savepoint.
    pub external_path: Option<String>,
    /// `completed`, `in_progress`, `failed`, `expired` or `aborted`.
    pub status: String,
    pub unaligned: bool,
    /// Started aligned and switched to unaligned after the aligned-checkpoint timeout.
    pub timed_out_to_unaligned: bool,
    pub trigger_ms: f64,
    pub latest_ack_ms: Option<f64>,
    pub acknowledged: u32,
    pub total_subtasks: u32,
    pub end_to_end_ms: Option<f64>,
    pub alignment_ms: f64,
    pub start_delay_ms: f64,
    pub sync_ms: f64,
    pub async_ms: f64,
    pub checkpointed_bytes: u64,
    pub state_bytes: u64,
    pub processed_inflight_bytes: u64,
    pub persisted_inflight_bytes: u64,
    pub channel_state_files: u32,
    pub failure_reason: Option<String>,
    /// Shared between reports while the checkpoint does not change (`report_rows`).
    pub subtasks: super::report_rows::Rows,
    /// Why it took its time: the critical path (`src/engine/diagnosis/critical_path.rs`).
    /// Filled by the full report (`Engine::report`), `None` in the bare history rows.
    pub diagnosis: Option<super::diagnosis::CheckpointDiagnosis>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SubtaskCheckpointReport {
    /// The head operator of the subtask's chain (the operator itself when not chained).
    pub operator: String,
    pub subtask: u32,
    /// Flink's name of the subtask's vertex (`Source: orders -> explode`).
    pub vertex: String,
    /// Every operator the subtask runs, in chain order (its snapshot holds each one's state).
    pub chained_operators: Vec<String>,
    pub acknowledged: bool,
    pub unaligned: bool,
    /// When the first barrier (or the trigger, for sources) reached the subtask.
    pub first_barrier_ms: Option<f64>,
    pub ack_ms: Option<f64>,
    /// When the synchronous part of the snapshot started (after alignment, if any).
    pub sync_start_ms: Option<f64>,
    pub end_to_end_ms: Option<f64>,
    pub start_delay_ms: f64,
    pub alignment_ms: f64,
    pub sync_ms: f64,
    pub async_ms: f64,
    pub state_bytes: u64,
    pub processed_inflight_bytes: u64,
    pub persisted_inflight_bytes: u64,
}

/// One resubmission of a changed job from a retained checkpoint or savepoint.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ResubmissionReport {
    pub at_ms: f64,
    /// The `from` of the event (`latest`, `savepoint`, `checkpoint:N`, `savepoint:N`).
    pub from: String,
    /// The snapshot restored (`None`: none was found).
    pub restored_checkpoint: Option<u64>,
    /// The restored snapshot is a savepoint.
    pub savepoint: bool,
    /// In-flight records of the snapshot assigned to the new job's channels.
    pub recovered_inflight_records: u64,
    /// Of those, the records that moved to another channel (rescaling).
    pub moved_inflight_records: u64,
    /// Sink records lost because the in-flight data was dropped
    /// (`recover-without-channel-state.checkpoint-id`) or skipped with the state of a
    /// removed operator (`allow_non_restored_state`).
    pub lost_records: u64,
    /// Operators of the snapshot the new job lacks, whose state was skipped
    /// (`allow_non_restored_state`; Flink's "Skipping savepoint state for operator …").
    pub skipped_operators: Vec<String>,
    /// In-flight records of the skipped state, dropped.
    pub skipped_inflight_records: u64,
    /// Why the new job failed to start, in Flink's words (`None`: it started).
    pub restore_error: Option<String>,
}

/// One failure of the job and its recovery.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FailureReport {
    pub at_ms: f64,
    pub operator: String,
    pub subtask: u32,
    pub reason: String,
    pub restored_checkpoint: Option<u64>,
    /// Failure until every task is running again (its recovered in-flight data consumed).
    pub recovery_ms: Option<f64>,
    /// Source records read again (rewind distance) plus recovered in-flight records.
    pub replayed_records: u64,
    pub recovered_inflight_records: u64,
    /// Expected sink records (summed over sinks) this failure lost: expired from a source's
    /// retention while recovering from it, dropped with channel state at its restore, or
    /// missing at the end of the run when only this failure's restore can have lost them
    /// (`src/engine/loss.rs`).
    pub lost_records: u64,
    pub restore_error: Option<String>,
    /// The restart strategy's delay before the restart (`None`: it gave up, the job FAILED).
    pub restart_delay_ms: Option<f64>,
    /// The subtasks this failure restarted (`operator#index`): its failover region, or every
    /// subtask when the whole job restarted (`full`, or a region that is the whole job).
    pub restarted_subtasks: Vec<String>,
    /// Failure until every recovered in-flight buffer was consumed: `recovery_ms`, or later
    /// when FLIP-547's checkpointing during recovery let the tasks run before that.
    pub input_recovered_ms: Option<f64>,
    /// Checkpoints that completed while recovered in-flight data was still being consumed
    /// (only with FLIP-547's `unaligned.during-recovery.enabled`).
    pub checkpoints_during_recovery: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SinkReport {
    pub operator: String,
    pub delivery: String,
    /// Records visible in the external system (committed, or written for non-transactional sinks).
    pub committed_records: u64,
    /// Records visible more than once (repeats of one lineage).
    pub duplicates: u64,
    /// Expected records that are not visible and never will be.
    pub lost: u64,
    /// Of `lost`, the records no failure explains: lost with no failure to blame, or by one
    /// of several restores the run cannot tell apart. A correct engine keeps it at 0.
    pub unattributed_lost: u64,
    /// Records written into open transactions, not yet visible.
    pub pending_records: u64,
    pub exactly_once: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OperatorReport {
    pub id: String,
    pub kind: String,
    pub parallelism: u32,
    /// Flink's name of the vertex (chain) running it; its busy/backpressured/idle ratios
    /// are that chain's tasks', its records and state its own.
    pub vertex: String,
    pub records_in: u64,
    pub records_out: u64,
    pub busy_ratio: f64,
    pub backpressured_ratio: f64,
    pub idle_ratio: f64,
    /// Of the backpressured time, the share spent blocked mid-record on a buffer request.
    pub hard_backpressured_ratio: f64,
    pub state_bytes: u64,
}

/// One record visible in a sink, for `--sink-output` (one JSON object a line).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SinkRecord {
    pub sink: String,
    pub sink_subtask: u32,
    pub key: u64,
    pub value: i64,
    pub lineage: LineageOut,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LineageOut {
    pub source: String,
    pub source_subtask: u32,
    pub offset: u64,
    /// Branch indices taken after the source: flat_map child index, broadcast target, edge
    /// ordinal where an operator feeds several edges.
    pub path: Vec<u32>,
}
