//! State assignment of a resubmitted job: which subtask of the new job gets which part of
//! a snapshot's operator state, keyed state and channel state.
//!
//! Contract: [`assign`] is a pure function from a snapshot (a [`CompletedCheckpoint`] of
//! the old job), the old and the new job's operators and edges, to the snapshot as the new
//! job's subtasks restore it (states by new subtask index, channel state by the new
//! channels), or to the error with which Flink fails the restore. The engine then restores
//! that like any checkpoint ([`super::recovery`]).
//!
//! Flink 2.3, followed:
//! - `StateAssignmentOperation.assignStates` / `assignAttemptState` per execution job
//!   vertex with state, and `checkParallelismPreconditions`: a max parallelism of the
//!   restored state below the new parallelism fails the restore ("The state for task … can
//!   not be restored. The maximum parallelism (…) of the restored state is lower than the
//!   configured parallelism (…). …"); a different max parallelism is adopted from the state
//!   when the new job's was derived (`ExecutionJobVertex.canRescaleMaxParallelism`), and
//!   fails the restore when it was configured ("The maximum parallelism (…) with which the
//!   latest checkpoint of the execution job vertex … has been taken and the current maximum
//!   parallelism (…) changed. This is currently not supported.").
//! - keyed state: `reDistributeKeyedStates` with `createKeyGroupPartitions` — unchanged
//!   parallelism keeps each subtask's state, a changed one gives each new subtask the key
//!   groups of its range (`KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex`).
//! - operator (non-keyed) state: unchanged parallelism 1:1; a rescaled two-phase-commit sink's
//!   pending committables are re-committed by the committer on restore (each under its old
//!   subtask's transaction), its open transaction is aborted.
//! - channel state: `TaskStateAssignment` with each edge's `SubtaskStateMapper` —
//!   `reDistributeInputChannelStates` / `reDistributeResultSubpartitionStates` apply a
//!   mapper only when a side's parallelism changed (else 1:1 by subtask index, whatever the
//!   partitioner, with no check of partitioner or serializer). The downstream side uses the
//!   new job's partitioner's `getDownstreamSubtaskStateMapper` (`KeyGroupStreamPartitioner`
//!   → `RANGE`, rebalance → `ROUND_ROBIN`, broadcast → `ROUND_ROBIN`, forward / rescale →
//!   `UNSUPPORTED`), the upstream side its `getUpstreamSubtaskStateMapper` (`ARBITRARY`,
//!   broadcast `DISCARD_EXTRA_STATE`, forward / rescale `UNSUPPORTED`). `RANGE` hands an old
//!   channel's data to every new subtask whose key groups overlap, and the demultiplexing
//!   deserializer (`DemultiplexingRecordDeserializer`, `RescalingStreamTaskNetworkInput`)
//!   drops the records whose key group the subtask does not own: the net effect, computed
//!   here directly, is that each record lands on the subtask owning its key group.
//!   `UNSUPPORTED` throws "Cannot rescale the given pointwise partitioner. …".
//!
//! Simplified: sources keep their parallelism (a source subtask is its split here, see
//! `resubmission`), so their offsets restore 1:1; merged old channels are concatenated in
//! channel order (Flink interleaves virtual channels); the vertex is named by its operator
//! chain where Flink prints a `JobVertexID`.

use super::coordinator::{ChannelKey, CompletedCheckpoint};
use super::op_state::{OpState, SinkTxns, TaskState};
use super::record::{key_group_target, Record};
use super::spec::Partitioner;
use std::collections::BTreeMap;

/// `SubtaskStateMapper`, the variants the playground's partitioners use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubtaskStateMapper {
    Range,
    RoundRobin,
    Arbitrary,
    DiscardExtraState,
    Unsupported,
}

/// `SubtaskStateMapper.UNSUPPORTED`'s message.
pub const UNSUPPORTED_MESSAGE: &str = "Cannot rescale the given pointwise partitioner.\n\
Did you change the partitioner to forward or rescale?\n\
It may also help to add an explicit shuffle().";

impl SubtaskStateMapper {
    /// `StreamPartitioner.getDownstreamSubtaskStateMapper`.
    pub fn downstream(p: Partitioner) -> Self {
        match p {
            Partitioner::Hash => SubtaskStateMapper::Range,
            Partitioner::Rebalance | Partitioner::Broadcast => SubtaskStateMapper::RoundRobin,
            Partitioner::Forward | Partitioner::Rescale => SubtaskStateMapper::Unsupported,
        }
    }

    /// `StreamPartitioner.getUpstreamSubtaskStateMapper`.
    pub fn upstream(p: Partitioner) -> Self {
        match p {
            Partitioner::Broadcast => SubtaskStateMapper::DiscardExtraState,
            Partitioner::Forward | Partitioner::Rescale => SubtaskStateMapper::Unsupported,
            Partitioner::Hash | Partitioner::Rebalance => SubtaskStateMapper::Arbitrary,
        }
    }

    /// The new subtask that old subtask `old`'s channel data goes to, when the side's
    /// parallelism changed from `old_n` to `new_n` (the inverse of `getOldSubtasks`, which
    /// for `ROUND_ROBIN` / `ARBITRARY` gives new subtask `i` the old ones `≡ i mod new_n`);
    /// `Ok(None)`: the data is dropped (`DISCARD_EXTRA_STATE`). `RANGE` is resolved per
    /// record by key group, not here.
    fn new_subtask(self, old: u32, new_n: u32) -> Result<Option<u32>, String> {
        match self {
            SubtaskStateMapper::RoundRobin | SubtaskStateMapper::Arbitrary => {
                Ok(Some(old % new_n.max(1)))
            }
            SubtaskStateMapper::DiscardExtraState => Ok((old < new_n).then_some(old)),
            SubtaskStateMapper::Range => Ok(Some(old.min(new_n.saturating_sub(1)))),
            SubtaskStateMapper::Unsupported => Err(UNSUPPORTED_MESSAGE.to_string()),
        }
    }
}

/// One operator of a job as the assignment sees it.
#[derive(Clone, Debug)]
pub struct OperatorShape {
    pub id: String,
    pub parallelism: u32,
    /// The max parallelism the new job derives or is configured with.
    pub max_parallelism: u32,
    /// `pipeline.max-parallelism` was set (the max parallelism cannot be taken over from
    /// the state).
    pub max_parallelism_configured: bool,
    pub is_sink: bool,
}

/// One edge of the new job.
#[derive(Clone, Debug)]
pub struct EdgeShape {
    pub from_op: usize,
    pub to_op: usize,
    pub partitioner: Partitioner,
}

/// The snapshot as the new job restores it.
#[derive(Clone, Debug)]
pub struct Assignment {
    /// States by new subtask (keyed by a running number; `subtask` is the new index),
    /// channel state by the new channels; `state_bytes` is left empty (the engine sizes
    /// each new task's share).
    pub checkpoint: CompletedCheckpoint,
    /// The max parallelism each operator of the new job runs with (adopted from the state
    /// where it was derived).
    pub max_parallelism: Vec<u32>,
    /// Pending committables of rescaled sinks: (operator, old subtask, checkpoint, records),
    /// committed on restore.
    pub commits: Vec<(usize, u32, u64, Vec<Record>)>,
    /// In-flight records restored, and how many of them moved to another channel.
    pub inflight_records: u64,
    pub moved_records: u64,
}

/// Assigns `cp` (taken by a job whose operators had `cp.parallelism`) to a new job of
/// `ops` and `edges` (same operators, same edges by index).
pub fn assign(
    cp: &CompletedCheckpoint,
    ops: &[OperatorShape],
    edges: &[EdgeShape],
) -> Result<Assignment, String> {
    let old_par = |op: usize| {
        cp.parallelism
            .get(op)
            .copied()
            .unwrap_or(ops[op].parallelism)
    };
    // Which operators have state (`TaskStateAssignment.hasState`): any but stateless, or
    // channel state on one of their edges.
    let mut has_state = vec![false; ops.len()];
    for s in cp.states.values() {
        for (op, st) in &s.operators {
            if *op < ops.len() && !matches!(st, OpState::Stateless) {
                has_state[*op] = true;
            }
        }
    }
    for (e, _, _) in cp.input_state.keys().chain(cp.output_state.keys()) {
        if let Some(edge) = edges.get(*e) {
            has_state[edge.to_op] = true;
            has_state[edge.from_op] = true;
        }
    }
    // `checkParallelismPreconditions`.
    let mut max_parallelism: Vec<u32> = ops.iter().map(|o| o.max_parallelism).collect();
    for (op, o) in ops.iter().enumerate() {
        let Some(&old_max) = cp.max_parallelism.get(op) else {
            continue;
        };
        if !has_state[op] {
            continue;
        }
        if old_max < o.parallelism {
            return Err(format!(
                "The state for task {} can not be restored. The maximum parallelism ({old_max}) of the restored state is lower than the configured parallelism ({}). Please reduce the parallelism of the task to be lower or equal to the maximum parallelism.",
                o.id, o.parallelism
            ));
        }
        if old_max != o.max_parallelism {
            if o.max_parallelism_configured {
                return Err(format!(
                    "The maximum parallelism ({old_max}) with which the latest checkpoint of the execution job vertex {} has been taken and the current maximum parallelism ({}) changed. This is currently not supported.",
                    o.id, o.max_parallelism
                ));
            }
            max_parallelism[op] = old_max;
        }
    }
    // Operator and keyed state, per operator and new subtask.
    let mut by_op: BTreeMap<usize, Vec<(u32, &OpState)>> = BTreeMap::new();
    for s in cp.states.values() {
        for (op, st) in &s.operators {
            if *op < ops.len() {
                by_op.entry(*op).or_default().push((s.subtask, st));
            }
        }
    }
    let mut states: BTreeMap<(usize, u32), OpState> = BTreeMap::new();
    let mut commits = Vec::new();
    for (&op, olds) in &by_op {
        let new_p = ops[op].parallelism;
        if old_par(op) == new_p {
            for (sub, st) in olds {
                states.insert((op, *sub), (*st).clone());
            }
            continue;
        }
        for (sub, st) in olds {
            match st {
                OpState::Keyed(map) => {
                    for (&k, &v) in map {
                        let to = key_group_target(k, new_p, max_parallelism[op]);
                        let e = states
                            .entry((op, to))
                            .or_insert_with(|| OpState::Keyed(BTreeMap::new()));
                        if let OpState::Keyed(m) = e {
                            // No key is on two old subtasks: a keyed aggregate's inputs are
                            // hash edges (`JobSpec::validate`), so key groups are disjoint.
                            let before = m.insert(k, v);
                            debug_assert!(before.is_none(), "key {k} on two subtasks of {op}");
                        }
                    }
                }
                OpState::Sink(txns) => {
                    for (k, records) in &txns.pending {
                        commits.push((op, *sub, *k, records.clone()));
                    }
                }
                // Sources keep their parallelism (checked before); stateless has nothing.
                OpState::Source { .. } => {
                    states.insert((op, *sub), (*st).clone());
                }
                OpState::Stateless => {}
            }
        }
        if ops[op].is_sink {
            for sub in 0..new_p {
                states
                    .entry((op, sub))
                    .or_insert_with(|| OpState::Sink(SinkTxns::default()));
            }
        }
    }
    let mut task_states: BTreeMap<usize, TaskState> = BTreeMap::new();
    for (i, ((op, sub), st)) in states.into_iter().enumerate() {
        task_states.insert(
            i,
            TaskState {
                subtask: sub,
                operators: vec![(op, st)],
            },
        );
    }
    // Channel state.
    let mut inflight = 0u64;
    let mut moved = 0u64;
    let mut remap = |state: &BTreeMap<ChannelKey, Vec<Record>>| -> Result<
        BTreeMap<ChannelKey, Vec<Record>>,
        String,
    > {
        let mut out: BTreeMap<ChannelKey, Vec<Record>> = BTreeMap::new();
        for (&(e, from, to), records) in state {
            let Some(edge) = edges.get(e) else {
                continue;
            };
            let (old_up, new_up) = (old_par(edge.from_op), ops[edge.from_op].parallelism);
            let (old_down, new_down) = (old_par(edge.to_op), ops[edge.to_op].parallelism);
            let from_new = if old_up == new_up {
                Some(from)
            } else {
                SubtaskStateMapper::upstream(edge.partitioner).new_subtask(from, new_up)?
            };
            let down = SubtaskStateMapper::downstream(edge.partitioner);
            let to_new = if old_down == new_down {
                Some(to)
            } else {
                down.new_subtask(to, new_down)?
            };
            let (Some(f), Some(t)) = (from_new, to_new) else {
                continue;
            };
            for r in records {
                let t = if old_down != new_down && down == SubtaskStateMapper::Range {
                    key_group_target(r.key, new_down, max_parallelism[edge.to_op])
                } else {
                    t
                };
                inflight += 1;
                if (f, t) != (from, to) {
                    moved += 1;
                }
                out.entry((e, f, t)).or_default().push(r.clone());
            }
        }
        Ok(out)
    };
    let input_state = remap(&cp.input_state)?;
    let output_state = remap(&cp.output_state)?;
    Ok(Assignment {
        checkpoint: CompletedCheckpoint {
            id: cp.id,
            states: task_states,
            state_bytes: BTreeMap::new(),
            input_state,
            output_state,
            parallelism: ops.iter().map(|o| o.parallelism).collect(),
            max_parallelism: max_parallelism.clone(),
            serializer_version: cp.serializer_version,
            savepoint: cp.savepoint,
            topology: cp.topology.clone(),
        },
        max_parallelism,
        commits,
        inflight_records: inflight,
        moved_records: moved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::record::Lineage;

    fn rec(key: u64) -> Record {
        Record {
            key,
            value: 1,
            size: 8,
            lineage: Lineage::root(0, 0, key),
        }
    }

    fn shape(id: &str, parallelism: u32) -> OperatorShape {
        OperatorShape {
            id: id.into(),
            parallelism,
            max_parallelism: 128,
            max_parallelism_configured: false,
            is_sink: false,
        }
    }

    fn snapshot(input: Vec<(ChannelKey, Vec<Record>)>) -> CompletedCheckpoint {
        CompletedCheckpoint {
            id: 3,
            states: BTreeMap::new(),
            state_bytes: BTreeMap::new(),
            input_state: input.into_iter().collect(),
            output_state: BTreeMap::new(),
            parallelism: vec![2, 2],
            max_parallelism: vec![128, 128],
            serializer_version: 1,
            savepoint: None,
            topology: Default::default(),
        }
    }

    #[test]
    fn a_rescaled_hash_edge_puts_each_record_on_its_key_group_owner() {
        let records: Vec<Record> = (0..200).map(rec).collect();
        let cp = snapshot(vec![((0, 0, 0), records.clone()), ((0, 1, 1), records)]);
        let edges = [EdgeShape {
            from_op: 0,
            to_op: 1,
            partitioner: Partitioner::Hash,
        }];
        let a = assign(&cp, &[shape("a", 2), shape("b", 3)], &edges).expect("assigned");
        assert_eq!(a.inflight_records, 400);
        assert!(a.moved_records > 0);
        for (&(_, _, to), rs) in &a.checkpoint.input_state {
            for r in rs {
                assert_eq!(key_group_target(r.key, 3, 128), to);
            }
        }
    }

    #[test]
    fn a_rescaled_pointwise_edge_with_inflight_data_fails_as_flink_does() {
        let cp = snapshot(vec![((0, 0, 0), vec![rec(1)])]);
        let edges = [EdgeShape {
            from_op: 0,
            to_op: 1,
            partitioner: Partitioner::Rescale,
        }];
        let err = assign(&cp, &[shape("a", 2), shape("b", 3)], &edges).unwrap_err();
        assert_eq!(err, UNSUPPORTED_MESSAGE);
        // Unchanged parallelism: 1:1, whatever the partitioner.
        let a = assign(&cp, &[shape("a", 2), shape("b", 2)], &edges).expect("1:1");
        assert_eq!(a.moved_records, 0);
    }

    #[test]
    fn max_parallelism_preconditions() {
        let mut cp = snapshot(vec![((0, 0, 0), vec![rec(1)])]);
        cp.max_parallelism = vec![128, 2];
        let edges = [EdgeShape {
            from_op: 0,
            to_op: 1,
            partitioner: Partitioner::Hash,
        }];
        let err = assign(&cp, &[shape("a", 2), shape("b", 3)], &edges).unwrap_err();
        assert!(err.starts_with("The state for task b can not be restored. The maximum parallelism (2) of the restored state is lower than the configured parallelism (3)."), "{err}");
        cp.max_parallelism = vec![128, 128];
        let mut b = shape("b", 2);
        b.max_parallelism = 256;
        b.max_parallelism_configured = true;
        let err = assign(&cp, &[shape("a", 2), b.clone()], &edges).unwrap_err();
        assert!(err.contains("The maximum parallelism (128) with which the latest checkpoint of the execution job vertex b has been taken and the current maximum parallelism (256) changed. This is currently not supported."), "{err}");
        b.max_parallelism_configured = false;
        let a = assign(&cp, &[shape("a", 2), b], &edges).expect("adopted");
        assert_eq!(a.max_parallelism, vec![128, 128]);
    }
}
