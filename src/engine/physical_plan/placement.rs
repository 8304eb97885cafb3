//! Slots, TaskManagers, where each subtask runs, and each channel's kind.
//!
//! 1. Execution slot-sharing groups (the subtasks that share one slot), built as the
//!    default scheduler's `LocalInputPreferredSlotSharingStrategy` builds them (2.x,
//!    `ExecutionSlotSharingGroupBuilder.build`): vertices in topological order; each subtask
//!    first tries the group of the producer of the first partition of each of its consumed
//!    partition groups (in input order) — for an all-to-all input that is producer subtask
//!    0, for a pointwise input its own slice's first producer — if that producer is in the
//!    same slot-sharing group and the group holds no subtask of this vertex yet; the
//!    subtasks left over then take, in order, the first group of their slot-sharing group
//!    without a subtask of their vertex, else a new one. So a slot-sharing group needs as
//!    many slots as its widest vertex has subtasks.
//! 2. TaskManagers: `minicluster.number-of-taskmanagers` when pinned, else what an active
//!    resource manager requests: `ceil(slots needed / taskmanager.numberOfTaskSlots)`.
//! 3. Slots: the groups in creation order take the first free slot, TaskManager after
//!    TaskManager (`taskmanager.load-balance.mode: NONE`), or a slot of the TaskManager
//!    with the fewest used slots, lowest index on ties (`SLOTS`, or 1.x's
//!    `cluster.evenly-spread-out-slots: true`, as `TaskManagerLoadBalanceMode
//!    .loadFromConfiguration` read it). Flink's real order here comes from hash sets and
//!    TaskManager registration; this is one of its outcomes, the same on every run.
//! 4. Channels: each non-chained edge connects producer and consumer subtasks as the
//!    execution graph does (`graph::targets`: forward one-to-one, rescale pointwise ranges,
//!    the rest all-to-all); a channel whose producer runs in the consumer's TaskManager is
//!    local (`LocalInputChannel`), any other remote (`RemoteInputChannel`), whatever the
//!    slots.

use super::chaining::ChainedGraph;
use super::{ChannelKind, DistributionPattern, JobEdge, LoadBalance, PlanChannel, PlanSubtask};
use crate::engine::config::EngineConfig;
use crate::engine::graph::targets;
use crate::engine::spec::{JobSpec, SpecError};

/// Placement of a chained graph.
pub struct Placement {
    pub subtasks: Vec<PlanSubtask>,
    pub job_edges: Vec<JobEdge>,
    pub channels: Vec<PlanChannel>,
    pub slots_needed: u32,
    pub task_managers: u32,
}

/// The slot selection the config asks for.
pub fn load_balance(config: &EngineConfig) -> LoadBalance {
    if config.load_balance_slots || config.evenly_spread_out_slots {
        LoadBalance::Slots
    } else {
        LoadBalance::None
    }
}

/// Slots a job needs, from the spec alone, for validation (any spec: `None` when it has a
/// cycle): per slot-sharing group (specified, else inherited as
/// `StreamGraphGenerator.determineSlotSharingGroup` does) the largest parallelism, summed.
/// Chaining changes neither (a chain has one parallelism and one group), so a valid job's
/// plan needs exactly this many (`slots_needed`).
pub fn slots_needed_of(spec: &JobSpec) -> Option<u32> {
    let order = spec.topological_order()?;
    let mut group: Vec<&str> = vec![super::DEFAULT_SLOT_SHARING_GROUP; spec.operators.len()];
    for &o in &order {
        let op = &spec.operators[o];
        group[o] = match &op.chaining.slot_sharing_group {
            Some(g) => g,
            None => {
                let mut inputs = spec
                    .edges
                    .iter()
                    .filter(|e| e.to == op.id)
                    .filter_map(|e| spec.operator_index(&e.from))
                    .map(|f| group[f]);
                match inputs.next() {
                    Some(first) if inputs.all(|g| g == first) => first,
                    _ => super::DEFAULT_SLOT_SHARING_GROUP,
                }
            }
        };
    }
    let mut widest: std::collections::BTreeMap<&str, u32> = Default::default();
    for (o, op) in spec.operators.iter().enumerate() {
        let w = widest.entry(group[o]).or_insert(0);
        *w = (*w).max(op.parallelism);
    }
    Some(widest.values().fold(0u32, |a, &b| a.saturating_add(b)))
}

/// Places `graph` on the cluster `config` describes.
pub fn place(graph: &ChainedGraph, config: &EngineConfig) -> Result<Placement, SpecError> {
    let shared = shared_slots(graph);
    let slots_needed = shared.len() as u32;
    let per = config.slots_per_task_manager.max(1);
    let task_managers = match config.task_managers {
        Some(n) => n,
        None => slots_needed.div_ceil(per).max(1),
    };
    if task_managers.saturating_mul(per) < slots_needed {
        return Err(SpecError {
            path: "config.minicluster.number-of-taskmanagers".into(),
            message: format!(
                "{task_managers} TaskManager(s) with {per} slot(s) each hold fewer than the \
                 {slots_needed} slot(s) the job needs"
            ),
            msg: None,
        });
    }
    // (TaskManager, slot) of each execution slot-sharing group.
    let mut used = vec![0u32; task_managers as usize];
    let mut location = Vec::with_capacity(shared.len());
    for k in 0..shared.len() as u32 {
        let tm = match load_balance(config) {
            LoadBalance::None => k / per,
            LoadBalance::Slots => {
                let mut best = 0;
                for (tm, &n) in used.iter().enumerate() {
                    if n < used[best] {
                        best = tm;
                    }
                }
                best as u32
            }
        };
        location.push((tm, used[tm as usize]));
        used[tm as usize] += 1;
    }
    let mut group_of = vec![0usize; graph.subtask_count()];
    for (g, members) in shared.iter().enumerate() {
        for &s in members {
            group_of[s] = g;
        }
    }
    let mut subtasks: Vec<PlanSubtask> = Vec::with_capacity(group_of.len());
    for (v, vertex) in graph.vertices.iter().enumerate() {
        for (i, &s) in vertex.subtasks.iter().enumerate() {
            let (task_manager, slot) = location[group_of[s]];
            subtasks.push(PlanSubtask {
                vertex: v,
                index: i as u32,
                task_manager,
                slot,
                shared_slot: group_of[s],
                local_inputs: 0,
                remote_inputs: 0,
                local_outputs: 0,
                remote_outputs: 0,
                region: 0,
            });
        }
    }
    let mut job_edges = graph.job_edges.clone();
    let mut channels = Vec::new();
    for (j, je) in job_edges.iter_mut().enumerate() {
        let (from, to) = (
            &graph.vertices[je.from_vertex],
            &graph.vertices[je.to_vertex],
        );
        for a in 0..from.parallelism {
            for b in targets(je.partitioner, a, from.parallelism, to.parallelism) {
                let (p, c) = (from.subtasks[a as usize], to.subtasks[b as usize]);
                let kind = if subtasks[p].task_manager == subtasks[c].task_manager {
                    subtasks[p].local_outputs += 1;
                    subtasks[c].local_inputs += 1;
                    ChannelKind::Local
                } else {
                    subtasks[p].remote_outputs += 1;
                    subtasks[c].remote_inputs += 1;
                    ChannelKind::Remote
                };
                je.channels.push(channels.len());
                channels.push(PlanChannel {
                    job_edge: j,
                    from: p,
                    to: c,
                    kind,
                });
            }
        }
    }
    Ok(Placement {
        subtasks,
        job_edges,
        channels,
        slots_needed,
        task_managers,
    })
}

/// `LocalInputPreferredSlotSharingStrategy`'s execution slot-sharing groups, in creation
/// order, each its subtasks (ascending).
fn shared_slots(graph: &ChainedGraph) -> Vec<Vec<usize>> {
    let n = graph.subtask_count();
    let mut group_of: Vec<Option<usize>> = vec![None; n];
    // Per group: its slot-sharing group and the vertices it holds a subtask of.
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (v, vertex) in graph.vertices.iter().enumerate() {
        let ssg = vertex.slot_sharing_group;
        let inputs: Vec<&JobEdge> = graph
            .job_edges
            .iter()
            .filter(|e| e.to_vertex == v)
            .collect();
        let mut remaining = Vec::new();
        for (b, &s) in vertex.subtasks.iter().enumerate() {
            let mut found = None;
            for e in &inputs {
                let producer = &graph.vertices[e.from_vertex];
                if producer.slot_sharing_group != ssg {
                    continue;
                }
                // The producer of the first partition this subtask consumes on `e`.
                let first = match e.pattern {
                    DistributionPattern::AllToAll => Some(0),
                    DistributionPattern::Pointwise => (0..producer.parallelism).find(|&a| {
                        targets(e.partitioner, a, producer.parallelism, vertex.parallelism)
                            .contains(&(b as u32))
                    }),
                };
                let Some(a) = first else { continue };
                let Some(g) = group_of[producer.subtasks[a as usize]] else {
                    continue;
                };
                if !groups[g].1.contains(&v) {
                    found = Some(g);
                    break;
                }
            }
            match found {
                Some(g) => {
                    group_of[s] = Some(g);
                    groups[g].1.push(v);
                    members[g].push(s);
                }
                None => remaining.push(s),
            }
        }
        for s in remaining {
            let g = match groups
                .iter()
                .position(|(group_ssg, vs)| *group_ssg == ssg && !vs.contains(&v))
            {
                Some(g) => g,
                None => {
                    groups.push((ssg, Vec::new()));
                    members.push(Vec::new());
                    groups.len() - 1
                }
            };
            group_of[s] = Some(g);
            groups[g].1.push(v);
            members[g].push(s);
        }
    }
    for m in members.iter_mut() {
        m.sort_unstable();
    }
    members
}
