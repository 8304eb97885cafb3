//! Operator state as plain data: what a subtask's snapshot copies and a restore puts back.
//! A leaf module (it imports only records), so the checkpoint coordinator can hold
//! completed checkpoints without depending on the task runtime.

use super::record::Record;
use std::collections::BTreeMap;

/// Transactions of a two-phase-commit sink subtask.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SinkTxns {
    pub open: Vec<Record>,
    /// Pre-committed in the snapshot of checkpoint `id`, committed on its completion.
    pub pending: BTreeMap<u64, Vec<Record>>,
}

/// Operator state: what a snapshot copies and a restore puts back.
#[derive(Clone, Debug, PartialEq)]
pub enum OpState {
    /// Next offset to read (Kafka-style position).
    Source {
        offset: u64,
    },
    Stateless,
    /// Keyed running sums.
    Keyed(BTreeMap<u64, i64>),
    Sink(SinkTxns),
}

/// A subtask's snapshot of its operators (Flink's `TaskStateSnapshot`: one
/// `OperatorSubtaskState` per chained operator): each operator's state by spec operator,
/// in chain order, with the subtask index, so a restore finds every operator's own state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskState {
    pub subtask: u32,
    pub operators: Vec<(usize, OpState)>,
}
