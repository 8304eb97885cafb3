//! Job → stream graph → chains (job vertices), as Flink 2.x's `StreamGraphGenerator` and
//! `StreamingJobGraphGenerator` build them.
//!
//! Stream graph: one operator per spec operator; a sink is its `SinkWriterOperator`
//! (`name: Writer`), and a two-phase-commit sink also its `CommitterOperator`
//! (`name: Committer`) behind a forward edge (`SinkTransformationTranslator`; the writer →
//! committer exchange is marked `BATCH`, which `PartitionTransformationTranslator` resets
//! to `UNDEFINED`, so pipelined, in streaming mode). The committer inherits the sink's
//! parallelism, chaining strategy and slot-sharing group (`adjustTransformations`).
//! Slot-sharing group of an operator: the one it specifies, else the one all its inputs
//! share, else `"default"` (`StreamGraphGenerator.determineSlotSharingGroup`).
//!
//! An edge is chained when `StreamingJobGraphGenerator.isChainable` holds, checked in its
//! order: the downstream operator has exactly one input edge; `pipeline.operator-chaining
//! .enabled`; same slot-sharing group; `areOperatorsChainable` (upstream not `NEVER`,
//! downstream `ALWAYS`, equal parallelism); the partitioner is `forward`. The chains are
//! the trees of chained edges; a vertex is named by `createChainedName`: `a -> b`, and
//! `a -> (b, c)` where an operator chains to several outputs. Vertices are numbered in a
//! topological order of their heads (Kahn's, lowest operator first); Flink numbers them
//! by its own traversal, which neither the chains nor their names depend on.

use super::{
    DistributionPattern, JobEdge, JobVertex, OperatorRole, PlanEdge, PlanOperator,
    SlotSharingGroupPlan, DEFAULT_SLOT_SHARING_GROUP,
};
use crate::engine::spec::{ChainingStrategy, JobSpec, OperatorKind, Partitioner, SinkDelivery};
use std::collections::BTreeSet;

/// The stream graph with its chains, before placement.
pub struct ChainedGraph {
    pub operators: Vec<PlanOperator>,
    pub edges: Vec<PlanEdge>,
    pub vertices: Vec<JobVertex>,
    /// Non-chained edges; their channels are filled in by `placement`.
    pub job_edges: Vec<JobEdge>,
    pub slot_sharing_groups: Vec<SlotSharingGroupPlan>,
}

impl ChainedGraph {
    pub fn subtask_count(&self) -> usize {
        self.vertices.iter().map(|v| v.subtasks.len()).sum()
    }
}

/// `StreamPartitioner.isPointwise`: forward and rescale.
pub fn pattern(p: Partitioner) -> DistributionPattern {
    match p {
        Partitioner::Forward | Partitioner::Rescale => DistributionPattern::Pointwise,
        _ => DistributionPattern::AllToAll,
    }
}

/// Flink's ship-strategy name of a partitioner (`StreamPartitioner.toString`), as the web
/// UI labels an edge.
pub fn ship_strategy(p: Partitioner) -> &'static str {
    match p {
        Partitioner::Forward => "FORWARD",
        Partitioner::Rebalance => "REBALANCE",
        Partitioner::Rescale => "RESCALE",
        Partitioner::Hash => "HASH",
        Partitioner::Broadcast => "BROADCAST",
    }
}

/// A stream-graph operator before its group and vertex are known.
struct Node {
    name: String,
    spec_operator: usize,
    role: OperatorRole,
    parallelism: u32,
    strategy: ChainingStrategy,
    specified_group: Option<String>,
}

/// Builds the stream graph of a validated `spec` and chains it.
pub fn chain(spec: &JobSpec) -> ChainedGraph {
    let (nodes, mut edges) = stream_graph(spec);
    let n = nodes.len();
    let mut inputs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut outputs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in edges.iter().enumerate() {
        inputs[e.to].push(i);
        outputs[e.from].push(i);
    }
    let order = topological(n, &edges);
    // Slot-sharing groups, in topological order so inputs are decided first.
    let mut group_name = vec![String::new(); n];
    for &v in &order {
        group_name[v] = match &nodes[v].specified_group {
            Some(g) => g.clone(),
            None => {
                let mut names = inputs[v].iter().map(|&e| &group_name[edges[e].from]);
                match names.next() {
                    None => DEFAULT_SLOT_SHARING_GROUP.to_string(),
                    Some(first) if names.all(|g| g == first) => first.clone(),
                    Some(_) => DEFAULT_SLOT_SHARING_GROUP.to_string(),
                }
            }
        };
    }
    let chaining_enabled = spec.config.operator_chaining;
    for e in edges.iter_mut() {
        let (chained, reason) = is_chainable(e, &nodes, &inputs, &group_name, chaining_enabled);
        e.chained = chained;
        e.reason = reason;
    }
    // Chains: a head is an operator without a chained input; members follow chained
    // outputs depth-first in edge order (`createChain`).
    let heads: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&v| !inputs[v].iter().any(|&e| edges[e].chained))
        .collect();
    let mut vertex_of = vec![usize::MAX; n];
    let mut vertices = Vec::new();
    let mut next_subtask = 0;
    for &head in &heads {
        let id = vertices.len();
        let mut members = Vec::new();
        collect_chain(head, &edges, &outputs, &mut members);
        for &m in &members {
            vertex_of[m] = id;
        }
        let mut spec_operators: Vec<usize> = Vec::new();
        for &m in &members {
            if !spec_operators.contains(&nodes[m].spec_operator) {
                spec_operators.push(nodes[m].spec_operator);
            }
        }
        let parallelism = nodes[head].parallelism;
        vertices.push(JobVertex {
            name: chained_name(head, &nodes, &edges, &outputs),
            operators: members,
            spec_operators,
            parallelism,
            slot_sharing_group: usize::MAX,
            subtasks: (next_subtask..next_subtask + parallelism as usize).collect(),
        });
        next_subtask += parallelism as usize;
    }
    // Slot-sharing groups, numbered by their first vertex (`setSlotSharing`: a vertex
    // takes its head's group).
    let mut slot_sharing_groups: Vec<SlotSharingGroupPlan> = Vec::new();
    for (id, v) in vertices.iter_mut().enumerate() {
        let name = &group_name[v.operators[0]];
        let g = match slot_sharing_groups.iter().position(|g| &g.name == name) {
            Some(g) => g,
            None => {
                slot_sharing_groups.push(SlotSharingGroupPlan {
                    name: name.clone(),
                    vertices: Vec::new(),
                    slots: 0,
                });
                slot_sharing_groups.len() - 1
            }
        };
        v.slot_sharing_group = g;
        slot_sharing_groups[g].vertices.push(id);
        slot_sharing_groups[g].slots = slot_sharing_groups[g].slots.max(v.parallelism);
    }
    let mut job_edges = Vec::new();
    for (i, e) in edges.iter_mut().enumerate() {
        if e.chained {
            continue;
        }
        e.job_edge = Some(job_edges.len());
        job_edges.push(JobEdge {
            edge: i,
            from_vertex: vertex_of[e.from],
            to_vertex: vertex_of[e.to],
            partitioner: e.partitioner,
            pattern: pattern(e.partitioner),
            channels: Vec::new(),
        });
    }
    let operators = nodes
        .into_iter()
        .enumerate()
        .map(|(i, node)| PlanOperator {
            name: node.name,
            spec_operator: node.spec_operator,
            role: node.role,
            parallelism: node.parallelism,
            strategy: node.strategy,
            slot_sharing_group: vertices[vertex_of[i]].slot_sharing_group,
            vertex: vertex_of[i],
        })
        .collect();
    ChainedGraph {
        operators,
        edges,
        vertices,
        job_edges,
        slot_sharing_groups,
    }
}

/// The stream graph's nodes and edges: spec edges first (edge `i` is spec edge `i`), then
/// the sinks' writer → committer edges.
fn stream_graph(spec: &JobSpec) -> (Vec<Node>, Vec<PlanEdge>) {
    let mut nodes = Vec::new();
    let mut first = Vec::new();
    let mut last = Vec::new();
    let mut internal = Vec::new();
    for (i, op) in spec.operators.iter().enumerate() {
        let node = |name: String, role| Node {
            name,
            spec_operator: i,
            role,
            parallelism: op.parallelism,
            strategy: op.chaining.strategy,
            specified_group: op.chaining.slot_sharing_group.clone(),
        };
        first.push(nodes.len());
        match &op.kind {
            OperatorKind::Source(_) => {
                nodes.push(node(format!("Source: {}", op.id), OperatorRole::Operator))
            }
            OperatorKind::Sink { delivery } => {
                nodes.push(node(format!("{}: Writer", op.id), OperatorRole::SinkWriter));
                if *delivery == SinkDelivery::TwoPhaseCommit {
                    internal.push((nodes.len() - 1, nodes.len()));
                    nodes.push(node(
                        format!("{}: Committer", op.id),
                        OperatorRole::SinkCommitter,
                    ));
                }
            }
            _ => nodes.push(node(op.id.clone(), OperatorRole::Operator)),
        }
        last.push(nodes.len() - 1);
    }
    let plan_edge = |spec_edge, from, to, partitioner| PlanEdge {
        spec_edge,
        from,
        to,
        partitioner,
        chained: false,
        reason: String::new(),
        job_edge: None,
    };
    let mut edges = Vec::new();
    for (i, e) in spec.edges.iter().enumerate() {
        // Validated: both ends exist.
        let (Some(f), Some(t)) = (spec.operator_index(&e.from), spec.operator_index(&e.to)) else {
            continue;
        };
        edges.push(plan_edge(Some(i), last[f], first[t], e.partitioner));
    }
    for (w, c) in internal {
        edges.push(plan_edge(None, w, c, Partitioner::Forward));
    }
    (nodes, edges)
}

/// Kahn's order, the lowest ready operator first (deterministic).
fn topological(n: usize, edges: &[PlanEdge]) -> Vec<usize> {
    let mut indegree = vec![0usize; n];
    for e in edges {
        indegree[e.to] += 1;
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(v) = ready.pop_first() {
        order.push(v);
        for e in edges.iter().filter(|e| e.from == v) {
            indegree[e.to] -= 1;
            if indegree[e.to] == 0 {
                ready.insert(e.to);
            }
        }
    }
    order
}

/// `isChainable(edge)`: the decision and, for the report, the first condition that fails
/// (in the order Flink checks them) or what made it chain.
fn is_chainable(
    e: &PlanEdge,
    nodes: &[Node],
    inputs: &[Vec<usize>],
    group: &[String],
    enabled: bool,
) -> (bool, String) {
    let (up, down) = (&nodes[e.from], &nodes[e.to]);
    let no = |reason: String| (false, reason);
    if inputs[e.to].len() != 1 {
        return no(format!(
            "'{}' has {} inputs (a union is read through the network)",
            down.name,
            inputs[e.to].len()
        ));
    }
    if !enabled {
        return no("pipeline.operator-chaining.enabled is false".into());
    }
    if group[e.from] != group[e.to] {
        return no(format!(
            "different slot-sharing groups ('{}' vs '{}')",
            group[e.from], group[e.to]
        ));
    }
    if up.strategy == ChainingStrategy::Never {
        return no(format!(
            "'{}' has chaining disabled (disableChaining)",
            up.name
        ));
    }
    match down.strategy {
        ChainingStrategy::Never => {
            return no(format!(
                "'{}' has chaining disabled (disableChaining)",
                down.name
            ))
        }
        ChainingStrategy::Head => {
            return no(format!(
                "'{}' starts a new chain (startNewChain)",
                down.name
            ))
        }
        ChainingStrategy::Always => {}
    }
    if up.parallelism != down.parallelism {
        return no(format!(
            "different parallelism ({} vs {})",
            up.parallelism, down.parallelism
        ));
    }
    if e.partitioner != Partitioner::Forward {
        return no(format!(
            "{} partitioner (only forward edges chain)",
            ship_strategy(e.partitioner)
        ));
    }
    (
        true,
        "forward, equal parallelism, one input, same slot-sharing group".into(),
    )
}

/// The head and its chained successors, depth-first in edge order.
fn collect_chain(v: usize, edges: &[PlanEdge], outputs: &[Vec<usize>], out: &mut Vec<usize>) {
    out.push(v);
    for &e in &outputs[v] {
        if edges[e].chained {
            collect_chain(edges[e].to, edges, outputs, out);
        }
    }
}

/// `StreamingJobGraphGenerator.createChainedName`.
fn chained_name(v: usize, nodes: &[Node], edges: &[PlanEdge], outputs: &[Vec<usize>]) -> String {
    let chained: Vec<String> = outputs[v]
        .iter()
        .filter(|&&e| edges[e].chained)
        .map(|&e| chained_name(edges[e].to, nodes, edges, outputs))
        .collect();
    match chained.len() {
        0 => nodes[v].name.clone(),
        1 => format!("{} -> {}", nodes[v].name, chained[0]),
        _ => format!("{} -> ({})", nodes[v].name, chained.join(", ")),
    }
}
