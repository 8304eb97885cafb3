//! Mapping a snapshot's state onto a resubmitted job whose operators changed: which old
//! operator's state goes to which new operator, and what happens to the state of an
//! operator the new job no longer has.
//!
//! Contract: every [`CompletedCheckpoint`] carries the [`SnapshotTopology`] of the job
//! that took it (operator ids, spec edges by operator index, and that job's sink lineages
//! per record entering each operator). [`map_to_new_job`] is a pure function from such a
//! snapshot and the new job's operator ids and edges to the same snapshot in the new job's
//! operator and edge indices, ready for [`super::state_assignment::assign`] — or to
//! Flink's error when state of a removed operator cannot be mapped and
//! `allowNonRestoredState` is off. With the flag, the unmapped operators are named and the
//! in-flight records their state held are returned, so the engine books them as lost.
//!
//! Flink 2.3, followed: `Checkpoints.loadAndValidateCheckpoint` looks every `OperatorState`
//! of the snapshot up by its `OperatorID` (the hash of the operator's uid) among the new
//! job's vertices; an operator it does not find is skipped when
//! `SavepointRestoreSettings.allowNonRestoredState` (`--allowNonRestoredState`,
//! `execution.state-recovery.ignore-unclaimed-state`, formerly
//! `execution.savepoint.ignore-unclaimed-state`) is set ("Skipping savepoint state for
//! operator …"), skipped as well when none of its `OperatorSubtaskState`s `hasState()`
//! ("Skipping empty savepoint state for operator …": a stateless operator of an aligned
//! snapshot), and otherwise fails the restore in `throwNonRestoredStateException` with
//! [`non_restored_message`]. `OperatorSubtaskState.hasState` counts managed and raw
//! operator and keyed state and the input-channel and result-subpartition state, so a
//! stateless map holding in-flight data of an unaligned checkpoint has state. A new
//! operator with no state in the snapshot starts empty (`TaskStateAssignment` gives it no
//! `OperatorSubtaskState`). `StateAssignmentOperation.checkStateMappingCompleteness` is the
//! same check for a failover of one job, which never has an unmapped operator here.
//!
//! Simplified: the operator id stands for the uid and is printed where Flink prints the
//! hex `OperatorID`; Flink keeps the input-channel state with the head operator of the
//! reading chain and the result-subpartition state with the tail operator of the writing
//! chain (`SubtaskCheckpointCoordinatorImpl`), and would restore an upstream task's output
//! buffers into whichever of its partitions keeps the index — here the channel state of an
//! edge to or from a removed operator belongs to that removed operator (its input or
//! output), an edge is matched by its two operator ids, and in-flight data on an edge the
//! new program removed between two operators it keeps is refused
//! ([`removed_edge_message`]) rather than restored by index.

use super::coordinator::{ChannelKey, CompletedCheckpoint};
use super::op_state::{OpState, TaskState};
use super::record::Record;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The job a snapshot was taken by, as state mapping and the exactly-once proof need it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SnapshotTopology {
    /// Operator ids (the uids), by operator index.
    pub operator_ids: Vec<String>,
    /// Spec edges as (from, to) operator indices, by edge index.
    pub edges: Vec<(usize, usize)>,
    /// `paths[op][sink]`: sink lineages per record entering `op` in that job
    /// (`graph::sink_paths`).
    pub paths: Vec<Vec<u64>>,
}

/// `throwNonRestoredStateException`'s message.
pub fn non_restored_message(pointer: &str, operator: &str) -> String {
    format!(
        "Failed to rollback to checkpoint/savepoint {pointer}. Cannot map checkpoint/savepoint state for operator {operator} to the new program, because the operator is not available in the new program. If you want to allow to skip this, you can set the --allowNonRestoredState option on the CLI."
    )
}

/// The playground's refusal of in-flight data on an edge the new program removed between
/// two operators it keeps (see the module doc).
pub fn removed_edge_message(from: &str, to: &str) -> String {
    format!(
        "The snapshot holds in-flight data on the edge {from} -> {to}, which the new program no longer has. Flink keeps channel state by input gate and result subpartition index, not by edge, and would restore it into whatever the reading and writing tasks' gates and partitions of those indices are now; the playground does not model that. Resubmit from a savepoint or an aligned checkpoint, or keep the edge."
    )
}

/// A snapshot in the new job's indices.
#[derive(Clone, Debug)]
pub struct Mapped {
    /// The snapshot with operators and edges renumbered, the unmapped state left out;
    /// `parallelism` / `max_parallelism` of an added operator are its new ones (`new_par`,
    /// `new_max`), as if it had been there with no state.
    pub checkpoint: CompletedCheckpoint,
    /// Old operator index → new operator index.
    pub operator_map: Vec<Option<usize>>,
    /// Operators of the snapshot the new job lacks whose state was skipped
    /// (`allowNonRestoredState`), with or without state, in the snapshot's order.
    pub skipped: Vec<String>,
    /// In-flight records of the skipped state: (old operator the record was entering in
    /// the snapshot's job, the record).
    pub dropped: Vec<(usize, Record)>,
}

/// Maps `cp` onto a new job of operators `new_ids` (with parallelism `new_par` and max
/// parallelism `new_max`) and edges `new_edges` ((from, to) by new operator index), see
/// the module doc. `pointer` is the snapshot's path, for the message.
pub fn map_to_new_job(
    cp: &CompletedCheckpoint,
    new_ids: &[String],
    new_par: &[u32],
    new_max: &[u32],
    new_edges: &[(usize, usize)],
    allow_non_restored_state: bool,
    pointer: &str,
) -> Result<Mapped, String> {
    let old = &cp.topology;
    let operator_map: Vec<Option<usize>> = old
        .operator_ids
        .iter()
        .map(|id| new_ids.iter().position(|n| n == id))
        .collect();
    let edge_map: Vec<Option<usize>> = old
        .edges
        .iter()
        .map(|&(f, t)| {
            let (f, t) = (operator_map[f]?, operator_map[t]?);
            new_edges.iter().position(|&e| e == (f, t))
        })
        .collect();
    // Which unmapped operators have state (`OperatorSubtaskState.hasState`).
    let mut has_state = vec![false; old.operator_ids.len()];
    for s in cp.states.values() {
        for (op, st) in &s.operators {
            if operator_map.get(*op).is_some_and(|m| m.is_none())
                && !matches!(st, OpState::Stateless)
            {
                has_state[*op] = true;
            }
        }
    }
    // The removed operator an unmapped edge's channel state belongs to: the reader's
    // input (`input`), the writer's output (`!input`), else the other end.
    let owner = |e: usize, input: bool| -> usize {
        let (f, t) = old.edges[e];
        let (first, second) = if input { (t, f) } else { (f, t) };
        if operator_map[first].is_none() {
            first
        } else {
            second
        }
    };
    for (input, state) in [(true, &cp.input_state), (false, &cp.output_state)] {
        for (&(e, _, _), records) in state {
            if edge_map.get(e).is_some_and(|m| m.is_none()) && !records.is_empty() {
                let (f, t) = old.edges[e];
                if operator_map[f].is_some() && operator_map[t].is_some() {
                    return Err(removed_edge_message(
                        &old.operator_ids[f],
                        &old.operator_ids[t],
                    ));
                }
                has_state[owner(e, input)] = true;
            }
        }
    }
    let unmapped: Vec<usize> = (0..old.operator_ids.len())
        .filter(|&o| operator_map[o].is_none())
        .collect();
    if !allow_non_restored_state {
        if let Some(&o) = unmapped.iter().find(|&&o| has_state[o]) {
            return Err(non_restored_message(pointer, &old.operator_ids[o]));
        }
    }
    let skipped = if allow_non_restored_state {
        unmapped
            .iter()
            .map(|&o| old.operator_ids[o].clone())
            .collect()
    } else {
        Vec::new()
    };
    let mut states = BTreeMap::new();
    for (&k, s) in &cp.states {
        let operators: Vec<(usize, OpState)> = s
            .operators
            .iter()
            .filter_map(|(op, st)| Some((operator_map.get(*op).copied().flatten()?, st.clone())))
            .collect();
        if !operators.is_empty() {
            states.insert(
                k,
                TaskState {
                    subtask: s.subtask,
                    operators,
                },
            );
        }
    }
    let mut dropped = Vec::new();
    let mut remap = |state: &BTreeMap<ChannelKey, Vec<Record>>| {
        let mut out: BTreeMap<ChannelKey, Vec<Record>> = BTreeMap::new();
        for (&(e, from, to), records) in state {
            match edge_map.get(e).copied().flatten() {
                Some(n) => {
                    out.insert((n, from, to), records.clone());
                }
                None => {
                    let entering = old.edges.get(e).map_or(0, |&(_, t)| t);
                    dropped.extend(records.iter().map(|r| (entering, r.clone())));
                }
            }
        }
        out
    };
    let input_state = remap(&cp.input_state);
    let output_state = remap(&cp.output_state);
    let mut parallelism = new_par.to_vec();
    let mut max_parallelism = new_max.to_vec();
    for (o, m) in operator_map.iter().enumerate() {
        if let Some(n) = *m {
            if let Some(&p) = cp.parallelism.get(o) {
                parallelism[n] = p;
            }
            if let Some(&p) = cp.max_parallelism.get(o) {
                max_parallelism[n] = p;
            }
        }
    }
    Ok(Mapped {
        checkpoint: CompletedCheckpoint {
            id: cp.id,
            states,
            state_bytes: BTreeMap::new(),
            input_state,
            output_state,
            parallelism,
            max_parallelism,
            serializer_version: cp.serializer_version,
            savepoint: cp.savepoint,
            topology: Rc::new(SnapshotTopology {
                operator_ids: new_ids.to_vec(),
                edges: new_edges.to_vec(),
                paths: Vec::new(),
            }),
        },
        operator_map,
        skipped,
        dropped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::record::Lineage;

    fn rec(offset: u64) -> Record {
        Record {
            key: offset,
            value: 1,
            size: 8,
            lineage: Lineage::root(0, 0, offset),
        }
    }

    /// src -> m -> out, `m` holding `m_state`, with in-flight data on `inflight` edges.
    fn snapshot(m_state: OpState, inflight: &[usize]) -> CompletedCheckpoint {
        let mut states = BTreeMap::new();
        for (t, (op, st)) in [
            (0, OpState::Source { offset: 5 }),
            (1, m_state),
            (2, OpState::Stateless),
        ]
        .into_iter()
        .enumerate()
        {
            states.insert(
                t,
                TaskState {
                    subtask: 0,
                    operators: vec![(op, st)],
                },
            );
        }
        CompletedCheckpoint {
            id: 4,
            states,
            state_bytes: BTreeMap::new(),
            input_state: inflight
                .iter()
                .map(|&e| ((e, 0, 0), vec![rec(1)]))
                .collect(),
            output_state: BTreeMap::new(),
            parallelism: vec![1, 1, 1],
            max_parallelism: vec![128, 128, 128],
            serializer_version: 1,
            savepoint: None,
            topology: Rc::new(SnapshotTopology {
                operator_ids: vec!["src".into(), "m".into(), "out".into()],
                edges: vec![(0, 1), (1, 2)],
                paths: vec![vec![0, 0, 1]; 3],
            }),
        }
    }

    fn without_m(cp: &CompletedCheckpoint, allow: bool) -> Result<Mapped, String> {
        let ids = ["src".to_string(), "out".to_string()];
        map_to_new_job(cp, &ids, &[1, 1], &[128, 128], &[(0, 1)], allow, "p")
    }

    #[test]
    fn a_removed_stateless_operator_without_inflight_data_is_skipped_as_empty_state() {
        let m = without_m(&snapshot(OpState::Stateless, &[]), false).expect("empty state");
        assert!(m.skipped.is_empty());
        assert_eq!(m.operator_map, vec![Some(0), None, Some(1)]);
        assert_eq!(m.checkpoint.states.len(), 2);
    }

    #[test]
    fn state_of_a_removed_operator_fails_the_restore_unless_allowed() {
        for cp in [
            snapshot(OpState::Keyed(BTreeMap::from([(3, 1)])), &[]),
            // A stateless operator with in-flight input (an unaligned checkpoint).
            snapshot(OpState::Stateless, &[0]),
            // ... or with in-flight output on its out-edge.
            snapshot(OpState::Stateless, &[1]),
        ] {
            let err = without_m(&cp, false).unwrap_err();
            assert_eq!(err, non_restored_message("p", "m"));
            let m = without_m(&cp, true).expect("allowed");
            assert_eq!(m.skipped, vec!["m".to_string()]);
            assert_eq!(m.dropped.len(), cp.inflight_records() as usize);
            assert!(m.checkpoint.input_state.is_empty());
        }
    }

    #[test]
    fn an_added_operator_starts_without_state_and_kept_edges_keep_their_data() {
        let cp = snapshot(OpState::Stateless, &[1]);
        let ids = ["src".into(), "m".into(), "out".into(), "m2".into()];
        let m = map_to_new_job(
            &cp,
            &ids,
            &[1, 1, 1, 3],
            &[128; 4],
            &[(0, 1), (1, 3), (3, 2), (1, 2)],
            false,
            "p",
        )
        .expect("mapped");
        // m -> out is edge 3 in the new job.
        assert_eq!(m.checkpoint.input_state.keys().next(), Some(&(3, 0, 0)));
        assert_eq!(m.checkpoint.parallelism, vec![1, 1, 1, 3]);
        assert!(m
            .checkpoint
            .states
            .values()
            .all(|s| s.operators.iter().all(|(op, _)| *op != 3)));
    }
}
