//! The operator chain of a task: the spec operators one subtask runs (a Flink `JobVertex`
//! of the physical plan), each with its own state and record counters, and the push of one
//! record through them.
//!
//! It follows Flink 2.3's `OperatorChain` (flink-streaming-java,
//! `org.apache.flink.streaming.runtime.tasks`): a record an operator emits goes, for each
//! of its outputs in edge order, either to the next chained operator by a method call
//! (`ChainingOutput.pushToOperator` / `CopyingChainingOutput`: no buffer, no channel, no
//! serialization) or to a `RecordWriterOutput` (one of the task's result partitions);
//! several outputs are a `BroadcastingOutputCollector` that hands each its copy. The task's
//! busy time per input record is the sum of what each chained operator spent on the records
//! it processed, so a flat_map multiplies the cost of the rest of the chain. A checkpoint's
//! sync phase snapshots every chained operator into one `TaskStateSnapshot`
//! (`RegularOperatorChain.snapshotState` → `buildOperatorSnapshotFutures`, one
//! `OperatorSnapshotFutures` per `OperatorID`, driven by
//! `SubtaskCheckpointCoordinatorImpl.takeSnapshotSync`), and a restore hands each operator
//! its own state back (`StreamTask.restoreStateAndGates` →
//! `OperatorChain.initializeStateAndOpenOperators`, by `OperatorID` through
//! `TaskStateManager.prioritizedOperatorState`).
//!
//! [`Layout`] turns the [`PhysicalPlan`]'s vertices into the runtime's tasks. Simplified,
//! and why: a two-phase-commit sink's `CommitterOperator` runs inside its writer's task
//! (the engine's sink commits on `notifyCheckpointComplete` itself), so a vertex holding
//! only a committer (chaining disabled, or the writer → committer edge split) adds no task;
//! and a record handed on is not copied (`ChainingOutput` rather than
//! `CopyingChainingOutput`: records here are immutable values, object reuse changes
//! nothing).

use super::op_state::{OpState, SinkTxns, TaskState};
use super::physical_plan::PhysicalPlan;
use super::record::Record;
use super::spec::{JobSpec, OperatorKind, SinkDelivery};
use super::time::Micros;
use std::collections::BTreeMap;

/// Where one output of a chained operator goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChainOutput {
    /// `ChainingOutput`: the chained operator at this slot of the chain.
    Chained(usize),
    /// `RecordWriterOutput`: this result partition (an index into the engine's partitions).
    Partition(usize),
}

/// One operator of a task's chain.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainedOperator {
    /// The spec operator.
    pub operator: usize,
    pub state: OpState,
    /// Records this operator processed (Flink's `numRecordsIn` of the operator).
    pub records_in: u64,
    /// Records this operator emitted, chained or written (`numRecordsOut`).
    pub records_out: u64,
    /// Its outputs in the order of its outgoing edges.
    pub outputs: Vec<ChainOutput>,
}

/// What a pushed record needs from the task around the chain.
pub trait ChainHost {
    /// The operator's cost per record it processes (live: `set_cost` changes it).
    fn cost(&self, operator: usize) -> Micros;
    fn kind(&self, operator: usize) -> &OperatorKind;
    /// Writes a record into a result partition (the partitioner picks the channel).
    fn emit(&mut self, partition: usize, record: Record);
    /// Writes a record into a non-transactional sink's external system.
    fn write_external(&mut self, operator: usize, record: &Record);
}

/// The chain of a task, head first (`chainIndex` order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OperatorChain {
    pub ops: Vec<ChainedOperator>,
}

/// A fresh operator's state.
pub fn initial_state(kind: &OperatorKind) -> OpState {
    match kind {
        OperatorKind::Source(_) => OpState::Source { offset: 0 },
        OperatorKind::KeyedAggregate => OpState::Keyed(BTreeMap::new()),
        OperatorKind::Sink { .. } => OpState::Sink(SinkTxns::default()),
        _ => OpState::Stateless,
    }
}

impl OperatorChain {
    pub fn head(&self) -> usize {
        self.ops[0].operator
    }

    /// The slot running spec operator `op`.
    pub fn slot_of(&self, op: usize) -> Option<usize> {
        self.ops.iter().position(|o| o.operator == op)
    }

    pub fn state_of(&self, op: usize) -> Option<&OpState> {
        self.slot_of(op).map(|s| &self.ops[s].state)
    }

    pub fn state_of_mut(&mut self, op: usize) -> Option<&mut OpState> {
        self.slot_of(op).map(move |s| &mut self.ops[s].state)
    }

    /// The head's state (a source's position).
    pub fn head_state(&self) -> &OpState {
        &self.ops[0].state
    }

    pub fn head_state_mut(&mut self) -> &mut OpState {
        &mut self.ops[0].state
    }

    /// Each sink operator of the chain with its transactions.
    pub fn sinks_mut(&mut self) -> impl Iterator<Item = (usize, &mut SinkTxns)> {
        self.ops.iter_mut().filter_map(|o| match &mut o.state {
            OpState::Sink(txns) => Some((o.operator, txns)),
            _ => None,
        })
    }

    /// The sync-phase snapshot: every chained operator's state.
    pub fn snapshot(&self, subtask: u32) -> TaskState {
        TaskState {
            subtask,
            operators: self
                .ops
                .iter()
                .map(|o| (o.operator, o.state.clone()))
                .collect(),
        }
    }

    /// Gives each chained operator its own state back from a checkpoint's task states
    /// (found by operator and subtask index, whatever task held them); an operator with
    /// no state there keeps its fresh state.
    pub fn restore<'a>(&mut self, subtask: u32, states: impl Iterator<Item = &'a TaskState>) {
        let mut by_op: BTreeMap<usize, &OpState> = BTreeMap::new();
        for s in states.filter(|s| s.subtask == subtask) {
            for (op, state) in &s.operators {
                by_op.insert(*op, state);
            }
        }
        for o in self.ops.iter_mut() {
            if let Some(state) = by_op.get(&o.operator) {
                o.state = (*state).clone();
            }
        }
    }

    /// Pushes one record into the operator at `slot` and on through the chain, as
    /// `ChainingOutput.pushToOperator` does; returns the busy time it cost, summed over
    /// every chained operator that processed a record.
    pub fn push(&mut self, slot: usize, record: Record, host: &mut dyn ChainHost) -> Micros {
        let op = self.ops[slot].operator;
        self.ops[slot].records_in += 1;
        let mut cost = host.cost(op);
        // What the operator does, copied out of the host so the record can be handed on
        // (no per-record `Vec` of outputs: most operators emit exactly one record).
        enum Does {
            Pass,
            Fan(u32),
            Aggregate,
            Sink(SinkDelivery),
        }
        let does = match host.kind(op) {
            OperatorKind::Map | OperatorKind::Source(_) => Does::Pass,
            OperatorKind::FlatMap { fan_out } => Does::Fan(*fan_out),
            OperatorKind::KeyedAggregate => Does::Aggregate,
            OperatorKind::Sink { delivery } => Does::Sink(*delivery),
        };
        match does {
            Does::Pass => cost += self.emit(slot, record, host),
            Does::Fan(fan_out) => {
                for i in 0..fan_out {
                    let lineage = if fan_out > 1 {
                        record.lineage.child(i)
                    } else {
                        record.lineage.clone()
                    };
                    let child = Record { lineage, ..record };
                    cost += self.emit(slot, child, host);
                }
            }
            Does::Aggregate => {
                let OpState::Keyed(sums) = &mut self.ops[slot].state else {
                    unreachable!("a keyed aggregate holds keyed state")
                };
                let sum = sums.entry(record.key).or_insert(0);
                *sum += record.value;
                let value = *sum;
                cost += self.emit(slot, Record { value, ..record }, host);
            }
            Does::Sink(delivery) => {
                if delivery == SinkDelivery::TwoPhaseCommit {
                    if let OpState::Sink(txns) = &mut self.ops[slot].state {
                        txns.open.push(record);
                    }
                } else {
                    host.write_external(op, &record);
                }
            }
        }
        cost
    }

    /// One emitted record to every output of the operator at `slot` (an edge ordinal
    /// lineage branch where it has several).
    fn emit(&mut self, slot: usize, record: Record, host: &mut dyn ChainHost) -> Micros {
        let n = self.ops[slot].outputs.len();
        if n == 1 {
            self.ops[slot].records_out += 1;
            return match self.ops[slot].outputs[0] {
                ChainOutput::Chained(next) => self.push(next, record, host),
                ChainOutput::Partition(p) => {
                    host.emit(p, record);
                    0
                }
            };
        }
        let mut cost = 0;
        for ordinal in 0..n {
            let record = Record {
                lineage: record.lineage.child(ordinal as u32),
                ..record
            };
            self.ops[slot].records_out += 1;
            match self.ops[slot].outputs[ordinal] {
                ChainOutput::Chained(next) => cost += self.push(next, record, host),
                ChainOutput::Partition(p) => host.emit(p, record),
            }
        }
        cost
    }
}

/// The runtime's tasks as the physical plan groups the operators.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Per runtime vertex: its spec operators in chain order, head first. Ordered by their
    /// head's index in the spec (so with chaining off, one vertex per operator in spec
    /// order, as before the runtime read the plan).
    pub vertices: Vec<Vec<usize>>,
    /// Flink's vertex name of each (`Source: orders -> explode`).
    pub names: Vec<String>,
    /// The runtime vertex of each spec operator.
    pub vertex_of: Vec<usize>,
    /// Per spec edge: chained (a method call inside a task, no channel).
    pub chained: Vec<bool>,
    /// Subtask names in Flink's web UI form (`name (i/p)`); `false` keeps the playground's
    /// `operator#index` names of version-1 runs (chaining off), so their logs stay as they
    /// were.
    pub flink_names: bool,
}

impl Layout {
    pub fn of(plan: &PhysicalPlan, spec: &JobSpec) -> Layout {
        let n = spec.operators.len();
        let mut assigned = vec![false; n];
        let mut vertices: Vec<(Vec<usize>, String)> = Vec::new();
        for v in &plan.vertices {
            let ops: Vec<usize> = v
                .spec_operators
                .iter()
                .copied()
                .filter(|&o| !assigned[o])
                .collect();
            if ops.is_empty() {
                continue; // a committer alone: it runs in its writer's task
            }
            for &o in &ops {
                assigned[o] = true;
            }
            vertices.push((ops, v.name.clone()));
        }
        crate::compact_sort::sort_by_key(&mut vertices, |(ops, _)| ops[0]);
        let mut vertex_of = vec![0; n];
        for (i, (ops, _)) in vertices.iter().enumerate() {
            for &o in ops {
                vertex_of[o] = i;
            }
        }
        let mut chained = vec![false; spec.edges.len()];
        for e in &plan.edges {
            if let Some(i) = e.spec_edge {
                chained[i] = e.chained;
            }
        }
        let (vertices, names) = vertices.into_iter().unzip();
        Layout {
            vertices,
            names,
            vertex_of,
            chained,
            flink_names: plan.chaining_enabled,
        }
    }

    /// The name of subtask `index` of runtime vertex `v`.
    pub fn subtask_name(&self, spec: &JobSpec, v: usize, index: u32) -> String {
        let head = &spec.operators[self.vertices[v][0]];
        if self.flink_names {
            format!("{} ({}/{})", self.names[v], index + 1, head.parallelism)
        } else {
            format!("{}#{}", head.id, index)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::record::Lineage;

    struct Host {
        kinds: Vec<OperatorKind>,
        costs: Vec<Micros>,
        emitted: Vec<(usize, Record)>,
        external: Vec<(usize, Record)>,
    }

    impl ChainHost for Host {
        fn cost(&self, op: usize) -> Micros {
            self.costs[op]
        }
        fn kind(&self, op: usize) -> &OperatorKind {
            &self.kinds[op]
        }
        fn emit(&mut self, p: usize, record: Record) {
            self.emitted.push((p, record));
        }
        fn write_external(&mut self, op: usize, record: &Record) {
            self.external.push((op, record.clone()));
        }
    }

    fn record(key: u64) -> Record {
        Record {
            key,
            value: 5,
            size: 100,
            lineage: Lineage::root(0, 0, key),
        }
    }

    fn op(operator: usize, state: OpState, outputs: Vec<ChainOutput>) -> ChainedOperator {
        ChainedOperator {
            operator,
            state,
            records_in: 0,
            records_out: 0,
            outputs,
        }
    }

    /// `flat_map(x3) -> agg -> sink`: the chain costs 10 + 3·(20 + 7), the aggregate sums
    /// each key, the sink writes three records, nothing goes through a partition.
    #[test]
    fn a_record_runs_through_the_chain_and_costs_the_sum() {
        let mut host = Host {
            kinds: vec![
                OperatorKind::FlatMap { fan_out: 3 },
                OperatorKind::KeyedAggregate,
                OperatorKind::Sink {
                    delivery: SinkDelivery::AtLeastOnce,
                },
            ],
            costs: vec![10, 20, 7],
            emitted: vec![],
            external: vec![],
        };
        let mut chain = OperatorChain {
            ops: vec![
                op(0, OpState::Stateless, vec![ChainOutput::Chained(1)]),
                op(
                    1,
                    OpState::Keyed(BTreeMap::new()),
                    vec![ChainOutput::Chained(2)],
                ),
                op(2, OpState::Sink(SinkTxns::default()), vec![]),
            ],
        };
        let cost = chain.push(0, record(4), &mut host);
        assert_eq!(cost, 10 + 3 * (20 + 7));
        assert!(host.emitted.is_empty());
        assert_eq!(host.external.len(), 3);
        let values: Vec<i64> = host.external.iter().map(|(_, r)| r.value).collect();
        assert_eq!(values, vec![5, 10, 15]);
        let paths: Vec<Vec<u32>> = host
            .external
            .iter()
            .map(|(_, r)| r.lineage.path.to_vec())
            .collect();
        assert_eq!(paths, vec![vec![0], vec![1], vec![2]]);
        assert_eq!((chain.ops[0].records_in, chain.ops[0].records_out), (1, 3));
        assert_eq!(chain.ops[1].records_in, 3);
        assert_eq!(chain.state_of(1), Some(&OpState::Keyed([(4, 15)].into())));
    }

    /// An operator with a chained and a written output hands each its own lineage branch
    /// (edge ordinal), as the unchained route over several partitions does.
    #[test]
    fn several_outputs_branch_by_edge_ordinal() {
        let mut host = Host {
            kinds: vec![OperatorKind::Map, OperatorKind::Map],
            costs: vec![1, 2],
            emitted: vec![],
            external: vec![],
        };
        let mut chain = OperatorChain {
            ops: vec![
                op(
                    0,
                    OpState::Stateless,
                    vec![ChainOutput::Partition(7), ChainOutput::Chained(1)],
                ),
                op(1, OpState::Stateless, vec![ChainOutput::Partition(8)]),
            ],
        };
        assert_eq!(chain.push(0, record(1), &mut host), 3);
        let got: Vec<(usize, Vec<u32>)> = host
            .emitted
            .iter()
            .map(|(p, r)| (*p, r.lineage.path.to_vec()))
            .collect();
        assert_eq!(got, vec![(7, vec![0]), (8, vec![1])]);
    }

    /// One snapshot holds every chained operator's state; a restore gives each its own.
    #[test]
    fn snapshot_and_restore_per_operator() {
        let chain = OperatorChain {
            ops: vec![
                op(
                    0,
                    OpState::Source { offset: 9 },
                    vec![ChainOutput::Chained(1)],
                ),
                op(3, OpState::Keyed([(1, 2)].into()), vec![]),
            ],
        };
        let snap = chain.snapshot(1);
        assert_eq!(snap.operators.len(), 2);
        let mut fresh = OperatorChain {
            ops: vec![
                op(
                    0,
                    OpState::Source { offset: 0 },
                    vec![ChainOutput::Chained(1)],
                ),
                op(3, OpState::Keyed(BTreeMap::new()), vec![]),
            ],
        };
        let other = TaskState {
            subtask: 0,
            operators: vec![(3, OpState::Keyed([(5, 5)].into()))],
        };
        fresh.restore(1, [snap.clone(), other].iter());
        assert_eq!(fresh, chain);
    }
}
