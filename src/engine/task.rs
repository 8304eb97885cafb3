//! A subtask in Flink's mailbox model, as plain data.
//!
//! A task runs one mailbox step at a time: a mail (checkpoint trigger, barrier or
//! announcement arriving as a priority event, checkpoint-complete notification, timers)
//! before the default action (emit one source record, or process one input record). A step
//! that needs an output buffer and finds none blocks *inside* the step: the task is
//! hard-backpressured and runs no mail until a buffer frees up. With the availability check
//! the default action does not start while the output is unavailable (soft backpressure),
//! so mails keep running. Time spent in each [`Activity`] is measured as Flink's
//! `busyTimeMsPerSecond` / `backPressuredTimeMsPerSecond` / `idleTimeMsPerSecond`.

use super::barrier_handler::BarrierHandler;
pub use super::chain::OperatorChain;
use super::checkpoint::SubtaskCheckpoint;
use super::network::Barrier;
pub use super::op_state::{OpState, SinkTxns, TaskState};
use super::record::Record;
use super::time::Micros;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum TaskStatus {
    /// Flink's `INITIALIZING`: deployed, reading its state back and consuming its recovered
    /// input channel state (see `recovery.rs`); no checkpoint is triggered meanwhile.
    Recovering,
    Running,
    /// End of input reached; waits for a checkpoint taken after it to complete.
    Finishing,
    Finished,
    Canceled,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Activity {
    Idle,
    Busy,
    /// Waiting for output availability before taking a record (soft backpressure).
    SoftBackpressured,
    /// Blocked mid-record on a buffer request (hard backpressure): no mail runs.
    HardBackpressured,
}

#[derive(Clone, Debug)]
pub enum Mail {
    /// RPC from the checkpoint coordinator (sources, or tasks whose inputs all ended).
    TriggerCheckpoint(Barrier),
    /// A priority event reached the head of this input channel.
    PriorityEvent(usize),
    /// An aligned barrier that may time out was announced on this channel.
    Announcement(usize),
    AlignmentTimeout(u64),
    /// The buffer debloater's periodic mailbox action.
    Debloat,
    OutputTimeout(u64),
    NotifyComplete(u64),
    NotifyAborted(u64),
}

/// One record's worth of output not yet written into buffers.
#[derive(Clone, Debug)]
pub struct Emit {
    pub channel: usize,
    pub record: Record,
    /// Bytes of the record still to be written (records may span buffers).
    pub remaining: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskMetrics {
    pub busy: Micros,
    pub soft_backpressured: Micros,
    pub hard_backpressured: Micros,
    pub idle: Micros,
    pub records_in: u64,
    pub records_out: u64,
    pub bytes_in: u64,
}

#[derive(Clone, Debug)]
pub struct Task {
    pub id: usize,
    /// The head operator of its chain (the spec operator the task's inputs reach).
    pub operator: usize,
    /// Index of its vertex in the runtime layout ([`super::chain::Layout`]).
    pub vertex: usize,
    pub index: u32,
    /// Flink's web UI subtask name, `Source: orders -> explode (1/2)` (version-1 runs:
    /// `operator#index`).
    pub name: String,
    pub is_source: bool,
    /// A legacy `SourceFunction` (`SourceStreamTask`): emits with no availability check
    /// and without overdraft buffers (see [`super::spec::SourceApi`]).
    pub legacy_source: bool,
    /// Input channels (all gates, the union of incoming edges).
    pub inputs: Vec<usize>,
    pub gates: Vec<usize>,
    /// One partition per non-chained outgoing edge of any chained operator, in edge order
    /// (the chain's `RecordWriterOutput`s).
    pub partitions: Vec<usize>,
    pub upstream_tasks: Vec<usize>,
    pub status: TaskStatus,
    pub activity: Activity,
    pub activity_since: Micros,
    pub busy_until: Micros,
    pub wake_at: Option<Micros>,
    pub mailbox: VecDeque<Mail>,
    /// Busy and backpressured time at the last debloating sample (its non-idle clock).
    pub debloat_mark: Micros,
    /// Buffer being deserialized: (channel, records left).
    pub current: Option<(usize, VecDeque<Record>)>,
    /// The buffer being deserialized was restored from channel state.
    pub current_recovered: bool,
    pub pending_out: VecDeque<Emit>,
    /// Channels with items the default action can read, in arrival order.
    pub channels_with_data: VecDeque<usize>,
    pub handler: BarrierHandler,
    /// The chained operators and their states (`OperatorChain`).
    pub chain: OperatorChain,
    pub metrics: TaskMetrics,
    /// In-progress checkpoints of this subtask (sync done, async running).
    pub checkpoints: BTreeMap<u64, SubtaskCheckpoint>,
    /// Checkpoint ids this task was told were aborted before it triggered them
    /// (`SubtaskCheckpointCoordinatorImpl.abortedCheckpointIds`).
    pub aborted: Vec<u64>,
    /// The newest checkpoint triggered (or aborted on a barrier) at this task
    /// (`SubtaskCheckpointCoordinatorImpl.lastCheckpointId`).
    pub last_checkpoint_id: u64,
    /// The id of a checkpoint snapshotted after end of input (what finishing waits for).
    pub final_checkpoint: Option<u64>,
    /// That checkpoint (or a later one) completed: the first of the two conditions of
    /// finishing; the other is that the consumers processed all this task's output.
    pub final_checkpoint_completed: bool,
    /// Highest source offset emitted in this attempt (for the replay distance).
    pub high_water: u64,
}

impl Task {
    /// Records in and out of spec operator `op` in this task: the task's own counters for
    /// a single-operator task (what its channels saw), else the chained operator's.
    pub fn operator_records(&self, op: usize) -> (u64, u64) {
        if self.chain.ops.len() == 1 {
            return (self.metrics.records_in, self.metrics.records_out);
        }
        self.chain.slot_of(op).map_or((0, 0), |s| {
            (self.chain.ops[s].records_in, self.chain.ops[s].records_out)
        })
    }

    /// Busy, soft-backpressured, hard-backpressured and idle time up to `now`, including
    /// the activity still running.
    pub fn activity_until(&self, now: Micros) -> (Micros, Micros, Micros, Micros) {
        let m = &self.metrics;
        let (mut busy, mut soft, mut hard, mut idle) =
            (m.busy, m.soft_backpressured, m.hard_backpressured, m.idle);
        let open = now.saturating_sub(self.activity_since);
        match self.activity {
            Activity::Busy => busy += open,
            Activity::SoftBackpressured => soft += open,
            Activity::HardBackpressured => hard += open,
            Activity::Idle => idle += open,
        }
        (busy, soft, hard, idle)
    }

    /// Books the running activity's time up to `now` into the metrics.
    pub fn book_activity(&mut self, now: Micros) {
        let (busy, soft, hard, idle) = self.activity_until(now);
        let m = &mut self.metrics;
        (m.busy, m.soft_backpressured, m.hard_backpressured, m.idle) = (busy, soft, hard, idle);
        self.activity_since = now;
    }

    pub fn is_live(&self) -> bool {
        matches!(
            self.status,
            TaskStatus::Recovering | TaskStatus::Running | TaskStatus::Finishing
        )
    }
}
