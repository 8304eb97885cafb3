//! JobGraph → ExecutionGraph: each vertex of the runtime layout (a chain of the physical
//! plan, [`super::chain::Layout`]) expands into subtasks; each non-chained edge into one
//! result partition per producer subtask (a subpartition per connected consumer) and one
//! input gate per consumer subtask (an input channel per connected producer). A chained
//! edge gets neither: its records are handed on by method call inside the task.
//!
//! Connection patterns follow Flink: `forward` one-to-one; `rescale` pointwise (each
//! producer feeds a contiguous range of consumers, or a range of producers feeds one
//! consumer); `rebalance`, `hash` and `broadcast` all-to-all. An operator with several
//! incoming edges reads them as one union input.
//!
//! Channel kinds come from the physical plan ([`PhysicalPlan::build`]): a channel whose
//! producer and consumer subtasks the plan places in one TaskManager is a
//! `LocalInputChannel` (Flink 2.x `SingleInputGateFactory.createInputChannel`: a producer on
//! the consumer's TaskManager gives a local channel), with no exclusive buffers and no
//! credit; every other channel is a credit-based `RemoteInputChannel`. With
//! `playground.network.local-channels: false` (version-1 scenarios) every channel is remote.

use super::chain::Layout;
use super::config::EngineConfig;
use super::network::{Channel, ChannelKind, Gate, Partition};
use super::physical_plan::PhysicalPlan;
use super::spec::{JobSpec, OperatorKind, Partitioner};

/// An edge of the running job (its partitioner may differ from the spec after a change).
#[derive(Clone, Debug)]
pub struct EdgeRuntime {
    pub from_op: usize,
    pub to_op: usize,
    pub partitioner: Partitioner,
    /// Unaligned barriers may travel this edge (otherwise they are forced aligned).
    pub unaligned_capable: bool,
    /// Inside a chain: no partition, gate or channel.
    pub chained: bool,
}

/// The expanded graph, before any task state.
pub struct ExecutionGraph {
    pub edges: Vec<EdgeRuntime>,
    /// Task ids of each operator's subtasks (its chain's tasks, by subtask index).
    pub operator_tasks: Vec<Vec<usize>>,
    /// (layout vertex, subtask index) per task.
    pub task_ids: Vec<(usize, u32)>,
    pub channels: Vec<Channel>,
    pub partitions: Vec<Partition>,
    pub gates: Vec<Gate>,
    /// Per task: its TaskManager in the physical plan (0 when there is no plan).
    pub task_managers: Vec<u32>,
    /// Per task: its gates, its partitions (edge order), its input channels.
    pub task_gates: Vec<Vec<usize>>,
    pub task_partitions: Vec<Vec<usize>>,
    pub task_inputs: Vec<Vec<usize>>,
}

/// Consumer subtasks that producer `a` feeds.
pub fn targets(partitioner: Partitioner, a: u32, p_from: u32, p_to: u32) -> Vec<u32> {
    match partitioner {
        Partitioner::Forward => vec![a],
        Partitioner::Rescale => {
            if p_from >= p_to {
                vec![a * p_to / p_from]
            } else {
                (a * p_to / p_from..(a + 1) * p_to / p_from).collect()
            }
        }
        _ => (0..p_to).collect(),
    }
}

pub fn build(
    spec: &JobSpec,
    partitioners: &[Partitioner],
    layout: &Layout,
    config: &EngineConfig,
) -> ExecutionGraph {
    let ops = &spec.operators;
    let mut edges: Vec<EdgeRuntime> = spec
        .edges
        .iter()
        .zip(partitioners)
        .enumerate()
        .map(|(i, (e, p))| EdgeRuntime {
            from_op: spec.operator_index(&e.from).expect("validated"),
            to_op: spec.operator_index(&e.to).expect("validated"),
            partitioner: *p,
            unaligned_capable: true,
            chained: layout.chained.get(i).copied().unwrap_or(false),
        })
        .collect();
    // If any input edge of an operator cannot carry unaligned barriers, none of them can
    // (Flink 2.x `StreamGraphGenerator.generate`: every input edge of a node with an edge
    // whose partitioner is not `isSupportsUnalignedCheckpoint` gets
    // `setSupportsUnalignedCheckpoints(false)`). `execution.checkpointing.unaligned.forced`
    // plays no part here: in Flink it only lifts the submission-time rejections of
    // `StreamingJobGraphGenerator.preValidate` (iterative jobs, custom partitioners), and the
    // playground has neither, so it changes nothing at run time.
    for op in 0..ops.len() {
        let all_support = edges
            .iter()
            .filter(|e| e.to_op == op)
            .all(|e| e.partitioner.supports_unaligned());
        for e in edges.iter_mut().filter(|e| e.to_op == op) {
            e.unaligned_capable = all_support;
        }
    }
    let mut vertex_tasks = Vec::new();
    let mut task_ids = Vec::new();
    for (v, members) in layout.vertices.iter().enumerate() {
        let mut ids = Vec::new();
        for i in 0..ops[members[0]].parallelism {
            ids.push(task_ids.len());
            task_ids.push((v, i));
        }
        vertex_tasks.push(ids);
    }
    let operator_tasks: Vec<Vec<usize>> = (0..ops.len())
        .map(|o| vertex_tasks[layout.vertex_of[o]].clone())
        .collect();
    let n_tasks = task_ids.len();
    // Where each task runs: its (chain's) subtask in the plan. A spec that has no plan
    // (it failed validation later than this) keeps every channel remote.
    let plan = PhysicalPlan::build(spec).ok();
    let task_managers: Vec<u32> = task_ids
        .iter()
        .map(|&(op, i)| {
            plan.as_ref()
                .and_then(|p| p.subtask_of(op, i).map(|s| p.subtasks[s].task_manager))
                .unwrap_or(0)
        })
        .collect();
    let local_channels = config.local_channels && plan.is_some();
    let mut channels = Vec::new();
    let mut partitions = Vec::new();
    let mut gates: Vec<Gate> = Vec::new();
    let mut task_gates = vec![Vec::new(); n_tasks];
    let mut task_partitions = vec![Vec::new(); n_tasks];
    let mut task_inputs = vec![Vec::new(); n_tasks];
    for (e_idx, e) in edges.iter().enumerate().filter(|(_, e)| !e.chained) {
        let (pf, pt) = (ops[e.from_op].parallelism, ops[e.to_op].parallelism);
        // Gates first, so channels can name them.
        let mut gate_of_consumer = Vec::new();
        for b in 0..pt {
            let task = operator_tasks[e.to_op][b as usize];
            let id = gates.len();
            gates.push(Gate {
                id,
                task,
                edge: e_idx,
                channels: Vec::new(),
                floating_total: config.floating_buffers_per_gate,
                floating_free: config.floating_buffers_per_gate,
                bytes_consumed: 0,
                debloat_size: config.segment_size,
                waiting: Default::default(),
            });
            task_gates[task].push(id);
            gate_of_consumer.push(id);
        }
        for a in 0..pf {
            let producer = operator_tasks[e.from_op][a as usize];
            // FLINK-27789 (1.16): `SourceStreamTask.init` sets
            // `recordWriter.setMaxOverdraftBuffersPerGate(0)` for a legacy source.
            let legacy =
                matches!(&ops[e.from_op].kind, OperatorKind::Source(s) if s.api.is_legacy());
            let pid = partitions.len();
            let mut part_channels = Vec::new();
            for b in targets(e.partitioner, a, pf, pt) {
                let consumer = operator_tasks[e.to_op][b as usize];
                let gate = gate_of_consumer[b as usize];
                let cid = channels.len();
                let mut ch = Channel::new(cid, e_idx, producer, consumer, pid, gate);
                if local_channels && task_managers[producer] == task_managers[consumer] {
                    // `LocalInputChannel`: no exclusive buffers, no credit.
                    ch.kind = ChannelKind::Local;
                } else {
                    ch.exclusive = config.buffers_per_channel;
                    ch.credit = config.buffers_per_channel;
                }
                ch.buffer_size = config.segment_size;
                channels.push(ch);
                gates[gate].channels.push(cid);
                task_inputs[consumer].push(cid);
                part_channels.push(cid);
            }
            let n_sub = part_channels.len() as u32;
            partitions.push(Partition {
                id: pid,
                task: producer,
                edge: e_idx,
                pool_size: (n_sub * config.buffers_per_channel + config.floating_buffers_per_gate)
                    .max(n_sub + 1),
                used: 0,
                max_overdraft: if legacy {
                    0
                } else {
                    config.max_overdraft_buffers_per_gate
                },
                next_channel: 0,
                channels: part_channels,
            });
            task_partitions[producer].push(pid);
        }
    }
    // Input channels of a task in (gate, producer) order.
    for inputs in task_inputs.iter_mut() {
        crate::compact_sort::sort_by_key(inputs, |&c| (channels[c].gate, channels[c].from_task));
    }
    for g in gates.iter_mut() {
        crate::compact_sort::sort_by_key(&mut g.channels, |&c| channels[c].from_task);
    }
    ExecutionGraph {
        edges,
        operator_tasks,
        task_ids,
        task_managers,
        channels,
        partitions,
        gates,
        task_gates,
        task_partitions,
        task_inputs,
    }
}

/// Lineages each record entering operator `op` yields at each sink, per operator and sink:
/// `paths[op][sink]`. Flat_map multiplies by its fan-out, broadcast by the consumer count,
/// and several outgoing edges add up.
pub fn sink_paths(spec: &JobSpec, edges: &[EdgeRuntime]) -> Vec<Vec<u64>> {
    let n = spec.operators.len();
    let mut paths = vec![vec![0u64; n]; n];
    let order = spec.topological_order().expect("validated: acyclic");
    for &op in order.iter().rev() {
        match spec.operators[op].kind {
            OperatorKind::Sink { .. } => paths[op][op] = 1,
            _ => {
                let factor = match spec.operators[op].kind {
                    OperatorKind::FlatMap { fan_out } => fan_out as u64,
                    _ => 1,
                };
                for e in edges.iter().filter(|e| e.from_op == op) {
                    let copies = if e.partitioner == Partitioner::Broadcast {
                        spec.operators[e.to_op].parallelism as u64
                    } else {
                        1
                    };
                    let downstream = paths[e.to_op].clone();
                    for (here, there) in paths[op].iter_mut().zip(downstream) {
                        *here += factor * copies * there;
                    }
                }
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rescale_connects_contiguous_ranges() {
        assert_eq!(targets(Partitioner::Rescale, 1, 2, 4), vec![2, 3]);
        assert_eq!(targets(Partitioner::Rescale, 3, 4, 2), vec![1]);
        assert_eq!(targets(Partitioner::Forward, 2, 3, 3), vec![2]);
        assert_eq!(targets(Partitioner::Hash, 0, 2, 3), vec![0, 1, 2]);
    }
}
