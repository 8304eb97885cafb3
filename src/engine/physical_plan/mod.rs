//! The physical plan: what Flink 2.3 would deploy for a job — its chains (job vertices),
//! slot-sharing groups, TaskManagers and slots, where each subtask runs, which channels are
//! local and which remote, and the failover regions. Computed once from the job and its
//! config ([`PhysicalPlan::build`]), as plain, ordered data, for the runtime to read and the
//! UI to draw. The runtime runs its chains as one task each (`engine::chain`), reads its
//! placement for channel kinds (`graph.rs`: local channels inside a TaskManager) and
//! channel-state writers (per TaskManager), and its regions for failover.
//!
//! It follows, read in apache/flink's 2.x sources:
//! - [`chaining`]: `StreamingJobGraphGenerator.createChain` / `isChainable` /
//!   `isChainableInput` / `areOperatorsChainable` / `arePartitionerAndExchangeModeChainable`
//!   / `createChainedName`, the operator names of `SourceTransformationTranslator`
//!   (`"Source: " + name`) and `SinkTransformationTranslator` (`name: Writer`,
//!   `name: Committer`), and `SingleOutputStreamOperator.disableChaining` (`NEVER`) /
//!   `startNewChain` (`HEAD`);
//! - [`placement`]: `StreamingJobGraphGenerator.setSlotSharing` (a streaming job puts every
//!   vertex of the `"default"` group into one `SlotSharingGroup`),
//!   `LocalInputPreferredSlotSharingStrategy` (the default scheduler's slot-sharing
//!   strategy: a subtask joins its first producer's execution slot-sharing group, else the
//!   first group without a subtask of its vertex, else a new one), the number of slots and
//!   TaskManagers an active resource manager requests (one slot per execution slot-sharing
//!   group, `ceil(slots / taskmanager.numberOfTaskSlots)` TaskManagers), the slot selection
//!   of `taskmanager.load-balance.mode` (`NONE`: the first free slot, so TaskManagers fill
//!   up one after the other; `SLOTS`, or 1.x's `cluster.evenly-spread-out-slots`: the
//!   TaskManager with the fewest used slots, `EvenlySpreadOutLocationPreferenceSlotSelection
//!   Strategy` / `LeastUtilizationResourceMatchingStrategy`), and the channel kind Flink's
//!   shuffle descriptor gives (producer on the consumer's TaskManager → `LocalInputChannel`,
//!   else `RemoteInputChannel`);
//! - [`regions`]: `SchedulingPipelinedRegionComputeUtil.computePipelinedRegions` /
//!   `PipelinedRegionComputeUtil.buildRawRegions` over the execution graph, and
//!   `RestartPipelinedRegionFailoverStrategy` (`jobmanager.execution.failover-strategy:
//!   region`) / `RestartAllFailoverStrategy` (`full`).
//!
//! Simplified, and why:
//! - A streaming job's edges are all pipelined (`ALL_EDGES_PIPELINED`, so
//!   `PIPELINED_BOUNDED`), so a region is a connected component of the execution graph:
//!   all-to-all edges join every producer with every consumer, pointwise edges only their
//!   slices. Blocking exchanges (batch mode) do not exist here, so the merge of regions on
//!   cycles of blocking edges (FLINK-17330) never applies.
//! - Flink hands execution slot-sharing groups to slots through hash sets and the order in
//!   which TaskManagers register, so which groups share a TaskManager can differ between
//!   two real submissions. The plan takes the groups in creation order and the slots in
//!   (TaskManager, slot) order: one deterministic choice among Flink's possible ones.
//! - Not modelled: co-location groups (iterations only), `HEAD_WITH_SOURCES` and chained
//!   sources of multi-input operators, yielding operators next to legacy sources,
//!   fine-grained resources, `taskmanager.load-balance.mode: TASKS`, max-parallelism checks
//!   (every operator here keeps the default max parallelism), local recovery.
//! - Names are those of a DataStream program that names every operator by its id
//!   (`fromSource(…, "orders")`, `.name("explode")`, `.sinkTo(…).name("sink")`), as Flink's
//!   web UI shows them: `Source: orders -> explode`, `agg -> sink: Writer -> sink:
//!   Committer`. A two-phase-commit sink is a writer and a committer operator (Sink V2 with
//!   a committer); the other deliveries are a writer alone.

pub mod chaining;
pub mod placement;
pub mod regions;
#[cfg(test)]
mod tests;

use super::config::EngineConfig;
use super::log::{text, Msg};
use super::spec::{ChainingStrategy, JobSpec, Partitioner, SpecError};
use serde::Serialize;

/// The name of Flink's default slot-sharing group (`StreamGraphGenerator.DEFAULT_SLOT_SHARING_GROUP`).
pub const DEFAULT_SLOT_SHARING_GROUP: &str = "default";

/// Config keys that shape the physical plan. Flink reads them when the job is submitted
/// (chaining) or the cluster starts (slots, TaskManagers, slot selection, failover
/// strategy); a running job cannot change them, so a `set_config` event of one is refused.
pub const SUBMISSION_KEYS: &[&str] = &[
    "pipeline.operator-chaining.enabled",
    "taskmanager.numberOfTaskSlots",
    "minicluster.number-of-taskmanagers",
    "taskmanager.load-balance.mode",
    "cluster.evenly-spread-out-slots",
    "jobmanager.execution.failover-strategy",
    "playground.network.local-channels",
    "playground.channel-state.writers-per-taskmanager",
];

/// Why a `set_config` event of `key` is refused, if it is one of [`SUBMISSION_KEYS`].
pub fn submission_key_change(key: &str) -> Option<Msg> {
    let canonical = super::config::canonical_key(key)?;
    SUBMISSION_KEYS.contains(&canonical).then(|| {
        Msg::new(
            "'{0}' is fixed when the job is submitted and its cluster starts; set it in the scenario's config instead",
            vec![text(canonical)],
        )
    })
}

/// What an operator of the plan is to the spec operator it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OperatorRole {
    /// The spec operator itself (source, map, flat_map, keyed_aggregate).
    Operator,
    /// A sink's `SinkWriterOperator`.
    SinkWriter,
    /// A two-phase-commit sink's `CommitterOperator`, fed by its writer over a forward edge.
    SinkCommitter,
}

/// One operator of the stream graph (a `StreamNode`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanOperator {
    /// The operator name Flink shows (`Source: orders`, `explode`, `sink: Writer`).
    pub name: String,
    /// Index of the spec operator it belongs to.
    pub spec_operator: usize,
    pub role: OperatorRole,
    pub parallelism: u32,
    pub strategy: ChainingStrategy,
    /// Index into [`PhysicalPlan::slot_sharing_groups`].
    pub slot_sharing_group: usize,
    /// Index into [`PhysicalPlan::vertices`] of the chain holding it.
    pub vertex: usize,
}

/// Flink's `DistributionPattern` of a job edge (`StreamPartitioner.isPointwise`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DistributionPattern {
    Pointwise,
    AllToAll,
}

/// One edge of the stream graph, with the chaining decision on it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanEdge {
    /// Index of the spec edge; `None` for a sink's writer → committer edge.
    pub spec_edge: Option<usize>,
    /// Plan operators it joins.
    pub from: usize,
    pub to: usize,
    pub partitioner: Partitioner,
    /// Chained: a method call inside one task, no channel.
    pub chained: bool,
    /// Why it is (not) chained: the first of `isChainable`'s conditions that fails.
    pub reason: String,
    /// Index into [`PhysicalPlan::job_edges`] when not chained.
    pub job_edge: Option<usize>,
}

/// A chain: one task per subtask (a `JobVertex`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobVertex {
    /// The chained name Flink's web UI shows (`Source: orders -> explode`).
    pub name: String,
    /// Plan operators in chain order (head first, `chainIndex` order).
    pub operators: Vec<usize>,
    /// The spec operators it runs, in chain order, each once.
    pub spec_operators: Vec<usize>,
    pub parallelism: u32,
    pub slot_sharing_group: usize,
    /// Its subtasks' indices into [`PhysicalPlan::subtasks`], by subtask index.
    pub subtasks: Vec<usize>,
}

/// A non-chained edge between two vertices: an intermediate result and its channels.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobEdge {
    /// The stream edge it carries ([`PhysicalPlan::edges`]).
    pub edge: usize,
    pub from_vertex: usize,
    pub to_vertex: usize,
    pub partitioner: Partitioner,
    pub pattern: DistributionPattern,
    /// Its channels' indices into [`PhysicalPlan::channels`].
    pub channels: Vec<usize>,
}

/// A slot-sharing group: its vertices may share slots, one subtask of each per slot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SlotSharingGroupPlan {
    pub name: String,
    pub vertices: Vec<usize>,
    /// Slots it needs: the largest parallelism among its vertices.
    pub slots: u32,
}

/// Where a channel runs (`LocalInputChannel` or `RemoteInputChannel` at the consumer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ChannelKind {
    /// Producer and consumer in one TaskManager: no credit, no receiver buffers, the
    /// consumer reads the producer's subpartition.
    Local,
    /// Across TaskManagers: credit-based, through Netty.
    Remote,
}

/// One execution edge: a producer subtask's subpartition read by one consumer subtask.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanChannel {
    pub job_edge: usize,
    /// Subtask indices ([`PhysicalPlan::subtasks`]).
    pub from: usize,
    pub to: usize,
    pub kind: ChannelKind,
}

/// One parallel instance of a vertex (an `ExecutionVertex`), where it runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlanSubtask {
    pub vertex: usize,
    /// 0-based; Flink's UI writes `name (index+1/parallelism)`.
    pub index: u32,
    pub task_manager: u32,
    /// Slot within its TaskManager.
    pub slot: u32,
    /// Index of its execution slot-sharing group (= the slot it shares with others).
    pub shared_slot: usize,
    pub local_inputs: u32,
    pub remote_inputs: u32,
    pub local_outputs: u32,
    pub remote_outputs: u32,
    /// Index into [`PhysicalPlan::regions`].
    pub region: usize,
}

/// A pipelined region: the subtasks a failure of any of them restarts (with `region`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Region {
    /// Subtask indices, ascending.
    pub subtasks: Vec<usize>,
}

/// `taskmanager.load-balance.mode` as the plan applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LoadBalance {
    /// Fill one TaskManager's slots before the next.
    None,
    /// Spread slots over the TaskManagers.
    Slots,
}

/// `jobmanager.execution.failover-strategy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FailoverStrategy {
    Region,
    Full,
}

/// The plan of a job: every collection ordered, indices into each other.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhysicalPlan {
    pub chaining_enabled: bool,
    pub operators: Vec<PlanOperator>,
    pub edges: Vec<PlanEdge>,
    /// In topological order.
    pub vertices: Vec<JobVertex>,
    pub job_edges: Vec<JobEdge>,
    pub slot_sharing_groups: Vec<SlotSharingGroupPlan>,
    /// Slots the job needs (sum over its slot-sharing groups).
    pub slots_needed: u32,
    pub slots_per_task_manager: u32,
    pub task_managers: u32,
    /// Whether the TaskManager count was pinned (`minicluster.number-of-taskmanagers`)
    /// rather than what an active resource manager would request.
    pub task_managers_pinned: bool,
    pub load_balance: LoadBalance,
    /// By vertex, then subtask index.
    pub subtasks: Vec<PlanSubtask>,
    /// By job edge, producer, consumer.
    pub channels: Vec<PlanChannel>,
    /// Ordered by their first subtask.
    pub regions: Vec<Region>,
    pub failover: FailoverStrategy,
}

impl PhysicalPlan {
    /// The plan of a validated job (`JobSpec::validate`); an invalid job gets the first
    /// problem that keeps it from having a plan.
    pub fn build(spec: &JobSpec) -> Result<PhysicalPlan, SpecError> {
        spec.validate()?;
        let graph = chaining::chain(spec);
        let placed = placement::place(&graph, &spec.config)?;
        let regions = regions::compute(graph.subtask_count(), &placed.channels);
        Ok(assemble(graph, placed, regions, &spec.config))
    }

    /// The subtask running `spec_operator`'s subtask `index` (its chain's subtask).
    pub fn subtask_of(&self, spec_operator: usize, index: u32) -> Option<usize> {
        let op = self
            .operators
            .iter()
            .find(|o| o.spec_operator == spec_operator)?;
        self.vertices[op.vertex]
            .subtasks
            .get(index as usize)
            .copied()
    }

    /// The subtasks a failure of `subtask` restarts: its region (`region`), or every
    /// subtask (`full`). `RestartPipelinedRegionFailoverStrategy` also restarts the
    /// consumer regions of blocking results; a streaming job has none.
    pub fn restarted_by(&self, subtask: usize) -> Vec<usize> {
        match self.failover {
            FailoverStrategy::Full => (0..self.subtasks.len()).collect(),
            FailoverStrategy::Region => self
                .subtasks
                .get(subtask)
                .map(|s| self.regions[s.region].subtasks.clone())
                .unwrap_or_default(),
        }
    }

    /// `Source: orders -> explode (2/2)`, as Flink's web UI names a subtask.
    pub fn subtask_name(&self, subtask: usize) -> String {
        let s = &self.subtasks[subtask];
        let v = &self.vertices[s.vertex];
        format!("{} ({}/{})", v.name, s.index + 1, v.parallelism)
    }
}

/// Why the job cannot get its slots, if the TaskManager count is pinned too low. Flink
/// would wait `slot.request.timeout` (5 min) and fail with `NoResourceAvailableException`.
pub fn slot_problem(spec: &JobSpec) -> Option<SpecError> {
    let pinned = spec.config.task_managers?;
    let needed = placement::slots_needed_of(spec)?;
    let per = spec.config.slots_per_task_manager;
    let have = pinned.saturating_mul(per);
    (have < needed).then(|| {
        SpecError::of(
            "config.minicluster.number-of-taskmanagers".into(),
            Msg::new(
                "{0} TaskManager(s) with {1} slot(s) each (taskmanager.numberOfTaskSlots) hold {2} slot(s), but the job needs {3} (one per subtask of its widest vertex, per slot-sharing group); Flink would fail it with NoResourceAvailableException",
                vec![text(pinned), text(per), text(have), text(needed)],
            ),
        )
    })
}

fn assemble(
    graph: chaining::ChainedGraph,
    placed: placement::Placement,
    regions: Vec<Region>,
    config: &EngineConfig,
) -> PhysicalPlan {
    let mut subtasks = placed.subtasks;
    for (r, region) in regions.iter().enumerate() {
        for &s in &region.subtasks {
            subtasks[s].region = r;
        }
    }
    PhysicalPlan {
        chaining_enabled: config.operator_chaining,
        operators: graph.operators,
        edges: graph.edges,
        vertices: graph.vertices,
        job_edges: placed.job_edges,
        slot_sharing_groups: graph.slot_sharing_groups,
        slots_needed: placed.slots_needed,
        slots_per_task_manager: config.slots_per_task_manager,
        task_managers: placed.task_managers,
        task_managers_pinned: config.task_managers.is_some(),
        load_balance: placement::load_balance(config),
        subtasks,
        channels: placed.channels,
        regions,
        failover: if config.failover_full {
            FailoverStrategy::Full
        } else {
            FailoverStrategy::Region
        },
    }
}
