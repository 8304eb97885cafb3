//! The engine: a deterministic single-threaded executor over virtual time.
//!
//! All state lives in [`Engine`] as plain, public data (tasks, channels, partitions, gates,
//! the checkpoint coordinator, the external sink systems, the log), so a host can draw any
//! of it at any moment. Time advances only through the event queue: events are ordered by
//! (time, class, sequence number), so equal inputs give equal runs on every host. User
//! actions sort after everything else at their instant, so an action applied live between
//! two [`Engine::run_until`] calls and the same action replayed from a link land at the same
//! point of the run. Events of a failed job attempt are dropped by their epoch.

// Input-facing: reads user config / specs / actions, so no panics on their values.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use super::barrier_handler::BarrierHandler;
use super::chain::{initial_state, ChainOutput, ChainedOperator, Layout, OperatorChain};
use super::channel_state::ChannelStateWriter;
use super::config::{BarrierKind, EngineConfig};
use super::coordinator::Coordinator;
use super::event_queue::EventQueue;
use super::graph::{self, EdgeRuntime};
use super::log::{EventLog, LogKind};
use super::network::{Channel, Gate, Partition};
use super::physical_plan::PhysicalPlan;
use super::report::{FailureReport, Report, SinkRecord};
use super::rng::Rng;
use super::sinks::ExternalSink;
use super::spec::{Action, JobSpec, OperatorKind, Partitioner, SpecError, TimedAction};
use super::task::{Activity, Mail, Task, TaskMetrics, TaskStatus};
use super::time::Micros;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Something scheduled to happen at a virtual time.
#[derive(Clone, Debug)]
pub(crate) enum Ev {
    Wake(usize),
    Arrive(usize),
    Credit(usize, u32, u32),
    Resume(usize),
    /// A consumer's debloater announced a new buffer size for this channel.
    BufferSize(usize, u32),
    Backlog(usize, u32),
    Flush,
    Mail(usize, Mail),
    Ack(usize, u64),
    Decline(usize, u64, String),
    /// The coordinator's periodic trigger timer of this generation.
    Trigger(u64),
    Expire(u64),
    WriterDone(usize),
    StateWritten(usize, u64),
    Action(usize),
    Restart,
    /// The region of failure `f` (its index in `failures`) restarts (region failover).
    RestartRegion(usize),
    /// Task `t` read its operator state and output channel state back (restore).
    StateRestored(usize),
    /// Task `t`'s channel-state reader finished reading one recovered input buffer.
    ChannelStateRead(usize),
    /// Task `t` failed to deserialize recovered in-flight data (see `recovery`).
    ReadFailure(usize, String),
    Sample,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum JobStatus {
    Running,
    Restarting,
    Finished,
    /// A restore was refused (or the job cannot run): terminal.
    Failed,
}

/// Per-operator live settings that actions change.
#[derive(Clone, Debug)]
pub struct OperatorRuntime {
    pub id: String,
    pub kind: OperatorKind,
    pub parallelism: u32,
    pub cost: Micros,
    pub rate: f64,
    pub tasks: Vec<usize>,
    /// Key groups of its keyed state (`pipeline.max-parallelism` or derived from the
    /// parallelism; a restore may take over the snapshot's, see `state_assignment`).
    pub max_parallelism: u32,
    /// A source's number in its records' lineage ([`super::record::Lineage::source`]):
    /// its index in the scenario's job, kept when a resubmission renumbers the operators
    /// (see [`super::topology_change`]).
    pub lineage_source: u16,
}

/// A periodic sample for charts: cumulative counters at a virtual time.
#[derive(Clone, Debug, Serialize)]
pub struct Sample {
    pub at: Micros,
    /// Per operator: records out (sources, operators) or in (sinks), cumulative.
    pub records: Vec<u64>,
    /// Per task: (busy, backpressured, idle) cumulative micros.
    pub activity: Vec<(Micros, Micros, Micros)>,
    /// Per task: the hard part of its backpressured micros, cumulative (Flink's
    /// `hardBackPressuredTimeMsPerSecond`: blocked in a buffer request; the rest is soft).
    pub hard: Vec<Micros>,
    /// Bytes of data buffers queued or in flight, over all channels.
    pub inflight_bytes: u64,
}

pub const SAMPLE_PERIOD: Micros = 250_000;

#[derive(Clone, Debug)]
pub struct Engine {
    /// The job as specified, with every applied user action appended to `events`.
    pub spec: JobSpec,
    pub config: EngineConfig,
    pub now: Micros,
    /// Events by (time, class, sequence number) ([`super::event_queue`]).
    queue: EventQueue<Ev>,
    seq: u64,
    /// Job attempt; bumped by every failover.
    pub epoch: u32,
    pub status: JobStatus,
    pub operators: Vec<OperatorRuntime>,
    /// What Flink deploys for the running topology (built at submission, rebuilt when a
    /// topology change takes effect at a restart).
    pub plan: PhysicalPlan,
    /// The plan's chains as the runtime's tasks.
    pub layout: Layout,
    pub edges: Vec<EdgeRuntime>,
    /// The partitioners of the running job's edges (changed only by a resubmission).
    pub next_partitioners: Vec<Partitioner>,
    /// Edge partitioners a `set_partitioner` asked for: the next resubmission uses them.
    pub pending_partitioners: Vec<Partitioner>,
    /// The record serializer of the running job: `playground.serializer.version` as it was
    /// when the job was submitted (new job code needs a resubmission).
    pub serializer_version: u32,
    /// The job that runs: the scenario's job (without events), changed by resubmissions
    /// ([`super::resubmission`]); what is deployed is built from it.
    pub job: JobSpec,
    /// Retained checkpoints (see [`super::retained`]).
    pub retained: super::retained::RetainedCheckpoints,
    /// Resubmissions so far (the report's `resubmissions`).
    pub resubmissions: Vec<super::report::ResubmissionReport>,
    /// The checkpoint history of jobs before the last resubmission, as reported.
    pub previous_checkpoints: Vec<super::report::CheckpointReport>,
    /// Deployments of the tasks so far (the first, every restart, every resubmission):
    /// report rows built in one deployment name its tasks ([`super::report_rows`]).
    pub(crate) deployments: u64,
    /// The history's reports without their diagnosis, reused while an entry is unchanged.
    pub(crate) entry_reports: std::cell::RefCell<super::report_rows::BareReports>,
    /// The settled checkpoints' reports with their diagnosis, reused while the entry and
    /// the config values the diagnosis quotes are unchanged.
    pub(crate) diagnosed_reports: std::cell::RefCell<super::report_rows::DiagnosedReports>,
    /// The restored snapshot's in-flight data was written by this other serializer: the
    /// running job's tasks fail when they read it ([`super::resubmission`]).
    pub(crate) stale_serializer: Option<u32>,
    /// Resubmit actions scheduled and not yet performed: a FINISHED or FAILED job still
    /// runs on to them (a new job is submitted then).
    pub(crate) resubmits_ahead: u32,
    pub tasks: Vec<Task>,
    pub channels: Vec<Channel>,
    pub partitions: Vec<Partition>,
    pub gates: Vec<Gate>,
    pub writers: Vec<ChannelStateWriter>,
    /// When the checkpoint storage's metadata service can create the next file.
    pub storage_metadata_free_at: Micros,
    /// Files created in checkpoint storage over the run (state and channel state).
    pub storage_files_created: u64,
    pub coordinator: Coordinator,
    /// Savepoints and stop-with-savepoint (see [`super::lifecycle`]).
    pub lifecycle: super::lifecycle::Lifecycle,
    /// External systems behind the sinks, by operator index (`None` for non-sinks).
    pub external: Vec<Option<ExternalSink>>,
    /// `paths[op][sink]`: sink lineages per record entering `op`.
    pub paths: Vec<Vec<u64>>,
    /// The running job's topology as its checkpoints record it ([`super::state_mapping`]).
    pub topology: std::rc::Rc<super::state_mapping::SnapshotTopology>,
    /// The expected sink lineages across resubmissions that changed what a source record
    /// yields ([`super::expected_output`]).
    pub expected_output: super::expected_output::ExpectedOutput,
    pub failures: Vec<FailureReport>,
    pub log: EventLog,
    pub samples: Vec<Sample>,
    /// Per sink operator: expected records known lost (expired, dropped channel state).
    pub lost_by_sink: Vec<u64>,
    /// Per sink operator: known losses by source position (see [`super::loss`]).
    pub(crate) known_lost: Vec<BTreeMap<super::loss::SourcePos, u64>>,
    /// Per failure: the source offsets its restore resumed from.
    pub(crate) restored_offsets: Vec<BTreeMap<(usize, u32), u64>>,
    /// Per sink operator: missing records no failure explains (set when the job finished).
    pub unattributed_lost: Vec<u64>,
    pub(crate) losses_attributed: bool,
    pub expired_records: u64,
    /// Highest offset each source subtask read in any attempt: (operator, subtask) → offset.
    pub source_high_water: BTreeMap<(usize, u32), u64>,
    pub(crate) recovery_started: Option<Micros>,
    /// The restart strategy's state (attempts, backoff, jitter stream).
    pub(crate) restart_backoff: super::restart_strategy::RestartBackoff,
    /// Per task being restored: its reader and the state still to put back.
    pub(crate) restores: BTreeMap<usize, super::recovery::TaskRestore>,
    /// Region failovers not yet recovered, by failure index (see [`super::region_failover`]).
    pub(crate) region_restarts: BTreeMap<usize, super::region_failover::RegionRestart>,
    /// Regions redeployed so far (names the seeded stream of each redeployment).
    pub(crate) region_deploys: u64,
    /// The job attempt whose tasks run the debloater.
    pub(crate) debloat_scheduled_epoch: Option<u32>,
    pub(crate) next_buffer_id: u64,
    /// Consumed buffers' record lists, reused by the next buffers.
    pub(crate) record_lists: super::network::RecordLists,
    /// The spec's actions in time order (the live ones appended).
    pub(crate) timeline: Vec<TimedAction>,
    /// How many of `spec.events` came with the scenario; the rest are recorded actions
    /// (applied live, or adopted from the live run after seeking back), in time order,
    /// at the same indices in `timeline`.
    pub(crate) scenario_events: usize,
    /// Recorded actions already performed (a prefix of the recorded ones).
    pub(crate) recorded_done: usize,
    /// Where each barrier was when (for the diagnosis only; never read by the run).
    pub barrier_trace: super::diagnosis::trace::BarrierTrace,
}

impl Engine {
    /// Validates the job and deploys it at virtual time 0.
    pub fn new(spec: JobSpec) -> Result<Engine, SpecError> {
        spec.validate()?;
        let plan = PhysicalPlan::build(&spec)?;
        let layout = Layout::of(&plan, &spec);
        let partitioners: Vec<Partitioner> = spec.edges.iter().map(|e| e.partitioner).collect();
        let config = spec.config.clone();
        let operators = spec
            .operators
            .iter()
            .enumerate()
            .map(|(i, o)| OperatorRuntime {
                id: o.id.clone(),
                lineage_source: i as u16,
                kind: o.kind.clone(),
                parallelism: o.parallelism,
                cost: o.cost,
                rate: match &o.kind {
                    OperatorKind::Source(s) => s.rate,
                    _ => 0.0,
                },
                tasks: Vec::new(),
                max_parallelism: spec
                    .config
                    .max_parallelism
                    .unwrap_or_else(|| super::record::default_max_parallelism(o.parallelism)),
            })
            .collect();
        let mut job = spec.clone();
        job.events.clear();
        let mut timeline = spec.events.clone();
        crate::compact_sort::sort_by_key(&mut timeline, |e| e.at);
        let external = spec
            .operators
            .iter()
            .map(|o| match o.kind {
                OperatorKind::Sink { delivery } => Some(ExternalSink::new(delivery)),
                _ => None,
            })
            .collect();
        let mut engine = Engine {
            config,
            now: 0,
            queue: EventQueue::default(),
            seq: 0,
            epoch: 0,
            status: JobStatus::Running,
            operators,
            plan,
            layout,
            edges: Vec::new(),
            pending_partitioners: partitioners.clone(),
            next_partitioners: partitioners,
            serializer_version: spec.config.serializer_version,
            job,
            retained: Default::default(),
            resubmissions: Vec::new(),
            previous_checkpoints: Vec::new(),
            deployments: 0,
            entry_reports: Default::default(),
            diagnosed_reports: Default::default(),
            stale_serializer: None,
            resubmits_ahead: 0,
            tasks: Vec::new(),
            channels: Vec::new(),
            partitions: Vec::new(),
            gates: Vec::new(),
            writers: Vec::new(),
            storage_metadata_free_at: 0,
            storage_files_created: 0,
            coordinator: Coordinator::new(spec.seed),
            lifecycle: Default::default(),
            external,
            paths: Vec::new(),
            topology: Default::default(),
            expected_output: Default::default(),
            failures: Vec::new(),
            lost_by_sink: vec![0; spec.operators.len()],
            known_lost: vec![BTreeMap::new(); spec.operators.len()],
            restored_offsets: Vec::new(),
            unattributed_lost: vec![0; spec.operators.len()],
            losses_attributed: false,
            expired_records: 0,
            source_high_water: BTreeMap::new(),
            recovery_started: None,
            restart_backoff: super::restart_strategy::RestartBackoff::new(spec.seed),
            restores: BTreeMap::new(),
            region_restarts: BTreeMap::new(),
            region_deploys: 0,
            debloat_scheduled_epoch: None,
            log: EventLog::default(),
            samples: Vec::new(),
            next_buffer_id: 0,
            record_lists: Default::default(),
            timeline,
            scenario_events: spec.events.len(),
            recorded_done: 0,
            barrier_trace: Default::default(),
            spec,
        };
        engine.deploy();
        for i in 0..engine.timeline.len() {
            let at = engine.timeline[i].at;
            engine.schedule_action(at, i);
        }
        engine.schedule(0, Ev::Sample);
        engine.coordinator_start();
        Ok(engine)
    }

    /// Builds the execution graph and fresh tasks for a new job attempt.
    pub(crate) fn deploy(&mut self) {
        self.deployments += 1;
        self.replan();
        let mut g = graph::build(
            &self.job,
            &self.next_partitioners,
            &self.layout,
            &self.config,
        );
        // Flink's rebalance/rescale partitioners start at a random channel
        // (`RebalancePartitioner.setup`); one seeded stream per deployment.
        let mut rng = Rng::new(self.spec.seed).fork(0x5EED_0000 + self.epoch as u64);
        for p in g.partitions.iter_mut() {
            p.next_channel = rng.below(p.channels.len().max(1) as u64) as usize;
        }
        let mut tasks = self.fresh_tasks(&g);
        self.paths = graph::sink_paths(&self.job, &g.edges);
        self.topology = std::rc::Rc::new(super::state_mapping::SnapshotTopology {
            operator_ids: self.job.operators.iter().map(|o| o.id.clone()).collect(),
            edges: self
                .job
                .edges
                .iter()
                .map(|e| {
                    let at = |id: &str| self.job.operator_index(id).unwrap_or(0);
                    (at(&e.from), at(&e.to))
                })
                .collect(),
            paths: self.paths.clone(),
        });
        self.edges = g.edges;
        self.channels = g.channels;
        self.partitions = g.partitions;
        self.gates = g.gates;
        for o in self.operators.iter_mut() {
            o.tasks.clear();
        }
        // Every operator of a chain runs in the chain's tasks.
        for t in &tasks {
            for o in &t.chain.ops {
                self.operators[o.operator].tasks.push(t.id);
            }
        }
        // Carry metrics over attempts so ratios cover the whole run (the old attempt's
        // running activity booked up to now first, whatever the host's slicing was).
        if self.tasks.len() == tasks.len() {
            self.close_activity();
            for (new, old) in tasks.iter_mut().zip(self.tasks.iter()) {
                new.metrics = old.metrics.clone();
                for (a, b) in new.chain.ops.iter_mut().zip(&old.chain.ops) {
                    if a.operator == b.operator {
                        (a.records_in, a.records_out) = (b.records_in, b.records_out);
                    }
                }
                let m = &new.metrics;
                new.debloat_mark = m.busy + m.soft_backpressured + m.hard_backpressured;
            }
        }
        self.tasks = tasks;
        self.writers = super::channel_state::assign_writers(
            &g.task_managers,
            self.config.max_subtasks_per_channel_state_file as usize,
            self.config.writers_per_task_manager,
        );
        for t in 0..self.tasks.len() {
            self.wake(t, self.now);
        }
        if self.config.buffer_timeout > 0 {
            self.schedule(self.now + self.config.buffer_timeout, Ev::Flush);
        }
        self.schedule_debloating();
    }

    /// The tasks of a new attempt of execution graph `g`, in their initial state.
    pub(crate) fn fresh_tasks(&self, g: &graph::ExecutionGraph) -> Vec<Task> {
        let mut tasks = Vec::with_capacity(g.task_ids.len());
        for (id, &(vertex, index)) in g.task_ids.iter().enumerate() {
            let chain = self.chain_of(vertex, &g.task_partitions[id], g);
            let op = chain.head();
            let o = &self.operators[op];
            let (is_source, legacy) = match &o.kind {
                OperatorKind::Source(s) => (true, s.api.is_legacy()),
                _ => (false, false),
            };
            let mut upstream: Vec<usize> = g.task_inputs[id]
                .iter()
                .map(|&c| g.channels[c].from_task)
                .collect();
            upstream.sort_unstable();
            upstream.dedup();
            tasks.push(Task {
                id,
                operator: op,
                vertex,
                index,
                name: self.layout.subtask_name(&self.job, vertex, index),
                is_source,
                legacy_source: legacy,
                inputs: g.task_inputs[id].clone(),
                gates: g.task_gates[id].clone(),
                partitions: g.task_partitions[id].clone(),
                upstream_tasks: upstream,
                status: TaskStatus::Running,
                activity: Activity::Idle,
                activity_since: self.now,
                busy_until: self.now,
                wake_at: None,
                mailbox: Default::default(),
                debloat_mark: 0,
                current: None,
                current_recovered: false,
                pending_out: Default::default(),
                channels_with_data: Default::default(),
                handler: BarrierHandler::new(&self.config, g.task_inputs[id].len()),
                chain,
                metrics: TaskMetrics::default(),
                checkpoints: BTreeMap::new(),
                aborted: Vec::new(),
                last_checkpoint_id: 0,
                final_checkpoint: None,
                final_checkpoint_completed: false,
                high_water: 0,
            });
        }
        tasks
    }

    /// Rebuilds the physical plan and layout when a topology change (a partitioner set
    /// for the next restart) takes effect: a forward edge turned into another partitioner
    /// splits its chain. The plan's other inputs are fixed at submission.
    fn replan(&mut self) {
        if self.plan_partitioners() == self.next_partitioners {
            return;
        }
        let mut deployed = self.job.clone();
        for (e, p) in deployed.edges.iter_mut().zip(&self.next_partitioners) {
            e.partitioner = *p;
        }
        // Validated with the change (`check_action`); an unplannable one keeps the old plan.
        if let Ok(plan) = PhysicalPlan::build(&deployed) {
            self.layout = Layout::of(&plan, &deployed);
            self.plan = plan;
        }
    }

    /// The partitioners of the spec edges the current plan was built with.
    fn plan_partitioners(&self) -> Vec<Partitioner> {
        let mut out: Vec<Partitioner> = self.job.edges.iter().map(|e| e.partitioner).collect();
        for e in &self.plan.edges {
            if let Some(i) = e.spec_edge {
                out[i] = e.partitioner;
            }
        }
        out
    }

    /// The operator chain of a task of layout vertex `vertex` whose result partitions are
    /// `partitions` (its non-chained out-edges, in edge order): each operator's outputs in
    /// the order of its outgoing edges, chained ones to their slot, the others to their
    /// partition.
    fn chain_of(
        &self,
        vertex: usize,
        partitions: &[usize],
        g: &graph::ExecutionGraph,
    ) -> OperatorChain {
        let members = &self.layout.vertices[vertex];
        let ops = members
            .iter()
            .map(|&op| {
                let outputs = g
                    .edges
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.from_op == op)
                    .filter_map(|(i, e)| {
                        if e.chained {
                            members
                                .iter()
                                .position(|&m| m == e.to_op)
                                .map(ChainOutput::Chained)
                        } else {
                            partitions
                                .iter()
                                .copied()
                                .find(|&p| g.partitions[p].edge == i)
                                .map(ChainOutput::Partition)
                        }
                    })
                    .collect();
                ChainedOperator {
                    operator: op,
                    state: initial_state(&self.operators[op].kind),
                    records_in: 0,
                    records_out: 0,
                    outputs,
                }
            })
            .collect();
        OperatorChain { ops }
    }

    // ------------------------------------------------------------------ scheduling

    pub(crate) fn schedule(&mut self, at: Micros, ev: Ev) {
        self.schedule_class(at, 0, ev)
    }

    /// Schedules timeline action `i` (user actions sort after everything else at `at`).
    fn schedule_action(&mut self, at: Micros, i: usize) {
        if matches!(self.timeline[i].action, Action::Resubmit(_)) {
            self.resubmits_ahead += 1;
        }
        self.schedule_class(at, 1, Ev::Action(i));
    }

    fn schedule_class(&mut self, at: Micros, class: u8, ev: Ev) {
        self.seq += 1;
        let epoch = self.epoch;
        self.queue
            .push(at.max(self.now), class, self.seq, epoch, ev, self.now);
    }

    /// Drops the queued events of the attempt of `tasks` and `channels` that a region
    /// failover cancels (what the global epoch does for a restart of the whole job): their
    /// wake-ups, mails, acknowledgements, snapshot and restore steps, and every transfer,
    /// credit and announcement on those channels. Channel-state writers, the buffer-timeout
    /// flusher and the job's own timers are shared with the other regions and stay.
    pub(crate) fn drop_events_of(&mut self, tasks: &BTreeSet<usize>, channels: &BTreeSet<usize>) {
        self.queue.retain(|ev| match ev {
            Ev::Wake(t)
            | Ev::Mail(t, _)
            | Ev::Ack(t, _)
            | Ev::Decline(t, _, _)
            | Ev::StateWritten(t, _)
            | Ev::StateRestored(t)
            | Ev::ReadFailure(t, _)
            | Ev::ChannelStateRead(t) => !tasks.contains(t),
            Ev::Arrive(c)
            | Ev::Credit(c, _, _)
            | Ev::Resume(c)
            | Ev::BufferSize(c, _)
            | Ev::Backlog(c, _) => !channels.contains(c),
            _ => true,
        });
    }

    /// Makes sure task `t` runs a mailbox step at `at` (or earlier, if already due).
    pub(crate) fn wake(&mut self, t: usize, at: Micros) {
        let at = at.max(self.now);
        if self.tasks[t].wake_at.is_some_and(|w| w <= at) {
            return;
        }
        self.tasks[t].wake_at = Some(at);
        self.schedule(at, Ev::Wake(t));
    }

    // ------------------------------------------------------------------ host API

    pub fn spec(&self) -> &JobSpec {
        &self.spec
    }

    pub fn now(&self) -> Micros {
        self.now
    }

    /// The run is over: the duration is reached, the job finished, or it failed for good.
    pub fn is_done(&self) -> bool {
        self.now >= self.spec.duration
            || (matches!(self.status, JobStatus::Finished | JobStatus::Failed)
                && self.resubmits_ahead == 0)
    }

    /// Runs the next event; false when the run is over.
    pub fn step(&mut self) -> bool {
        if self.is_done() {
            return false;
        }
        let Some(next) = self.queue.pop_at_most(self.spec.duration) else {
            self.now = self.spec.duration;
            if !self.queue.is_empty() {
                self.close_activity();
            }
            return false;
        };
        self.run_popped(next);
        true
    }

    /// Runs one event taken off the queue (dropped if it belongs to an earlier attempt).
    fn run_popped(&mut self, next: super::event_queue::Popped<Ev>) {
        self.now = next.at;
        let epoch_bound = !matches!(
            next.ev,
            Ev::Action(_) | Ev::Sample | Ev::Restart | Ev::Trigger(_) | Ev::Expire(_)
        );
        if epoch_bound && next.epoch != self.epoch {
            return;
        }
        self.dispatch(next.ev);
        if matches!(self.status, JobStatus::Finished | JobStatus::Failed) {
            self.close_activity();
        }
    }

    /// Runs every event up to and including virtual time `t` (capped at the duration).
    pub fn run_until(&mut self, t: Micros) {
        let t = t.min(self.spec.duration);
        while !self.is_done() {
            // `t` is capped at the duration, so this is `step` for an event due by `t`.
            match self.queue.pop_at_most(t) {
                Some(next) => self.run_popped(next),
                None => break,
            }
        }
        if !matches!(self.status, JobStatus::Finished | JobStatus::Failed) && self.now < t {
            self.now = t;
            self.close_activity();
        }
    }

    /// Runs until the duration is reached, the job finished, or it failed for good.
    pub fn run_to_end(&mut self) {
        self.run_until(self.spec.duration);
    }

    /// Applies a user action now and records it in the spec's timeline, so a link replays
    /// it at the same point of the run. After seeking back this forks the run: recorded
    /// actions that had not happened yet are dropped first (see [`Engine::fork`]). An
    /// action that does not validate changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), SpecError> {
        self.check_action(&action)?;
        self.fork();
        // Finish everything else due at this instant, as a replay would before the action.
        let now = self.now;
        while let Some((at, class)) = self.queue.peek() {
            if at > now || class > 0 || self.is_done() {
                break;
            }
            self.step();
        }
        self.spec.events.push(TimedAction {
            at: self.now,
            action: action.clone(),
        });
        self.timeline.push(TimedAction {
            at: self.now,
            action: action.clone(),
        });
        self.recorded_done += 1;
        self.perform(&action);
        Ok(())
    }

    /// Whether [`Engine::apply`] would take `action` now, without changing anything: the
    /// job with the action appended at this instant (after the actions performed so far,
    /// and with the scenario's own events) must validate as a document would
    /// ([`JobSpec::validate`]), so a live `set_config` meets the same checks, cross-key
    /// rules included, against the config in effect now. The error's `path` names the
    /// action's field (`set_config`), its `message` is the one a document with that event
    /// gets; an action that would make a later scenario event invalid says so.
    pub fn check_action(&self, action: &Action) -> Result<(), SpecError> {
        /// The refusal of an action that would make a later scenario event invalid.
        const REFUSED_BY_LATER_EVENT: &str =
            "refused: with this change, the scenario's {0} would be invalid — {1}";
        let mut probe = self.spec.clone();
        probe
            .events
            .truncate(self.scenario_events + self.recorded_done);
        let index = probe.events.len();
        probe.events.push(TimedAction {
            at: self.now,
            action: action.clone(),
        });
        let Err(e) = probe.validate() else {
            return Ok(());
        };
        let own = format!("events[{index}]");
        Err(match e.path.strip_prefix(&own) {
            Some(field) => SpecError {
                path: field.trim_start_matches('.').to_string(),
                message: e.message,
                msg: e.msg,
            },
            None => {
                let why = e
                    .msg
                    .map_or_else(|| super::log::text(&e.message), super::log::Arg::from);
                SpecError::of(
                    e.path.clone(),
                    super::log::Msg::new(
                        REFUSED_BY_LATER_EVENT,
                        vec![super::log::text(&e.path), why],
                    ),
                )
            }
        })
    }

    /// The recorded actions (live ones, not the scenario's), in time order.
    pub fn recorded_actions(&self) -> &[TimedAction] {
        &self.spec.events[self.scenario_events..]
    }

    /// Recorded actions that lie in this engine's future (it was seeked back).
    pub fn pending_recorded(&self) -> usize {
        self.spec.events.len() - self.scenario_events - self.recorded_done
    }

    /// Drops the recorded actions that have not happened yet, so the run goes on from
    /// here as a new branch (its spec, and so its link, no longer contains them).
    /// Scenario events stay. Returns how many were dropped.
    pub fn fork(&mut self) -> usize {
        let keep = self.scenario_events + self.recorded_done;
        let dropped = self.spec.events.len() - keep;
        if dropped > 0 {
            let resubmits = self.timeline[keep..]
                .iter()
                .filter(|a| matches!(a.action, Action::Resubmit(_)))
                .count() as u32;
            self.resubmits_ahead = self.resubmits_ahead.saturating_sub(resubmits);
            self.spec.events.truncate(keep);
            self.timeline.truncate(keep);
            self.queue
                .retain(|ev| !matches!(ev, Ev::Action(i) if *i >= keep));
        }
        dropped
    }

    /// Gives this engine — a snapshot of an earlier instant of the same run — the
    /// recorded actions of the live run (`recorded`, as [`Engine::recorded_actions`]
    /// returns them) that lie in its future, scheduled at their instants, so playing on
    /// replays the live run exactly. Its own not-yet-performed recorded actions are
    /// replaced. `Err` says why when this engine is not an earlier instant of that run.
    pub fn adopt_recorded(&mut self, recorded: &[TimedAction]) -> Result<(), String> {
        let done = self.recorded_done;
        let own = &self.spec.events[self.scenario_events..self.scenario_events + done];
        if recorded.len() < done || own != &recorded[..done] {
            return Err(format!(
                "the snapshot at {} µs performed recorded actions the run does not have",
                self.now
            ));
        }
        if let Some(late) = recorded[done..].iter().find(|a| a.at < self.now) {
            return Err(format!(
                "a recorded action at {} µs lies before the snapshot at {} µs but was not performed in it",
                late.at, self.now
            ));
        }
        self.fork();
        for a in &recorded[done..] {
            self.spec.events.push(a.clone());
            self.timeline.push(a.clone());
            let i = self.timeline.len() - 1;
            self.schedule_action(a.at, i);
        }
        Ok(())
    }

    pub fn event_hash(&self) -> u64 {
        self.log.hash()
    }

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Wake(t) => {
                if self.tasks[t].wake_at.is_some_and(|w| w <= self.now) {
                    self.tasks[t].wake_at = None;
                }
                self.run_task(t);
            }
            Ev::Arrive(c) => self.arrive(c),
            Ev::Credit(c, n, epoch) => self.credit_arrived(c, n, epoch),
            Ev::Resume(c) => self.resume_arrived(c),
            Ev::BufferSize(c, size) => self.channels[c].buffer_size = size,
            Ev::Backlog(c, b) => self.backlog_arrived(c, b),
            Ev::Flush => {
                self.flush_all();
                if self.config.buffer_timeout > 0 {
                    self.schedule(self.now + self.config.buffer_timeout, Ev::Flush);
                }
            }
            Ev::Mail(t, mail) => {
                if self.tasks[t].is_live() {
                    // Flink 2.x `StreamTask.triggerCheckpointAsync` sends the trigger of an
                    // unaligned checkpoint as an urgent mail (`MailOptions.urgent()`), which
                    // `TaskMailboxImpl.put` puts at the head of the mailbox (`putFirst`);
                    // every other mail (aligned triggers included) goes to the tail.
                    let urgent = matches!(&mail, Mail::TriggerCheckpoint(b) if b.original == BarrierKind::Unaligned);
                    if urgent {
                        self.tasks[t].mailbox.push_front(mail);
                    } else {
                        self.tasks[t].mailbox.push_back(mail);
                    }
                    self.wake(t, self.now);
                }
            }
            Ev::Ack(t, id) => self.coordinator_ack(t, id),
            Ev::Decline(t, id, reason) => self.coordinator_decline(t, id, reason),
            Ev::Trigger(generation) => self.coordinator_timer(generation),
            Ev::Expire(id) => self.coordinator_expire(id),
            Ev::WriterDone(w) => self.writer_done(w),
            Ev::StateWritten(t, id) => self.state_written(t, id),
            Ev::Action(i) => {
                if i >= self.scenario_events {
                    self.recorded_done += 1;
                }
                let action = self.timeline[i].action.clone();
                if matches!(action, Action::Resubmit(_)) {
                    self.resubmits_ahead = self.resubmits_ahead.saturating_sub(1);
                }
                self.perform(&action);
            }
            Ev::Restart => self.restart(),
            Ev::RestartRegion(f) => self.restart_region(f),
            Ev::StateRestored(t) => self.state_restored(t),
            Ev::ChannelStateRead(t) => self.channel_state_read(t),
            Ev::ReadFailure(t, reason) => self.fail_task(t, reason),
            Ev::Sample => {
                self.take_sample();
                self.schedule(self.now + SAMPLE_PERIOD, Ev::Sample);
            }
        }
    }

    fn perform(&mut self, action: &Action) {
        match action {
            Action::SetCost { operator, cost } => {
                if let Some(o) = self.operators.iter_mut().find(|o| &o.id == operator) {
                    o.cost = *cost;
                    let text = format!("{operator}: cost set to {}", super::log::dur(*cost));
                    self.log.push(self.now, LogKind::User, text);
                }
            }
            Action::SetRate { operator, rate } => {
                if let Some(o) = self.operators.iter_mut().find(|o| &o.id == operator) {
                    o.rate = *rate;
                    let text =
                        format!("{operator}: source rate set to {rate} records/s per subtask");
                    self.log.push(self.now, LogKind::User, text);
                    // Re-evaluate sources now: their next record may come sooner.
                    for t in o.tasks.clone() {
                        self.wake(t, self.now);
                    }
                }
            }
            Action::Fail { operator, subtask } => {
                if let Some(o) = self.operators.iter().find(|o| &o.id == operator) {
                    if let Some(&t) = o.tasks.get(*subtask as usize) {
                        self.fail_task(t, "user-injected failure".to_string());
                    }
                }
            }
            Action::TriggerCheckpoint => {
                self.log.push(
                    self.now,
                    LogKind::User,
                    "checkpoint requested by the user".into(),
                );
                self.coordinator_user_request();
            }
            Action::Savepoint => self.request_savepoint(),
            Action::StopWithSavepoint { drain } => self.stop_with_savepoint(*drain),
            Action::Resubmit(r) => {
                // A `set_partitioner` waiting for the next submission joins this one.
                let mut r = (**r).clone();
                for (e, (p, now)) in self.job.edges.iter().zip(
                    self.pending_partitioners
                        .iter()
                        .zip(&self.next_partitioners),
                ) {
                    if p != now
                        && !r
                            .partitioners
                            .iter()
                            .any(|c| c.from == e.from && c.to == e.to)
                    {
                        r.partitioners.push(super::resubmission::EdgeChange {
                            from: e.from.clone(),
                            to: e.to.clone(),
                            partitioner: *p,
                        });
                    }
                }
                self.resubmit(&r);
                self.pending_partitioners = self.next_partitioners.clone();
            }
            Action::SetConfig { key, value } => {
                // Validated with the spec; an invalid change is never half-applied.
                if super::config::removed_key(key).is_some() {
                    let text = format!("config {key} is no longer a setting; ignored");
                    self.log.push(self.now, LogKind::User, text);
                } else if let Ok(next) = self.config.with_change(key, value) {
                    self.config = next;
                    let text = format!("config {key} = {value}");
                    self.log.push(self.now, LogKind::User, text);
                    self.config_changed();
                }
            }
            Action::SetPartitioner {
                from,
                to,
                partitioner,
            } => {
                if let Some(i) = self
                    .job
                    .edges
                    .iter()
                    .position(|e| &e.from == from && &e.to == to)
                {
                    if self.pending_partitioners[i] != *partitioner {
                        self.pending_partitioners[i] = *partitioner;
                        let text = format!(
                            "edge {from} -> {to} will use {} when the job is resubmitted (a failover restarts the job as it runs)",
                            partitioner.name()
                        );
                        self.log.push(self.now, LogKind::User, text);
                    }
                }
            }
        }
    }

    /// Live config changes: checkpointing settings apply now; buffer counts at the next
    /// deployment (as in Flink, where they need a restart).
    fn config_changed(&mut self) {
        self.coordinator_config_changed();
        self.schedule_debloating();
        for t in 0..self.tasks.len() {
            self.wake(t, self.now);
        }
    }

    // ------------------------------------------------------------------ activity

    pub(crate) fn set_activity(&mut self, t: usize, a: Activity) {
        let task = &mut self.tasks[t];
        if task.activity != a {
            task.book_activity(self.now);
            task.activity = a;
        }
    }

    /// Books the time up to now into every task's current activity.
    fn close_activity(&mut self) {
        for task in self.tasks.iter_mut() {
            task.book_activity(self.now);
        }
    }

    fn take_sample(&mut self) {
        self.close_activity();
        let records = self
            .operators
            .iter()
            .enumerate()
            .map(|(op, o)| {
                o.tasks
                    .iter()
                    .map(|&t| {
                        let (records_in, records_out) = self.tasks[t].operator_records(op);
                        if matches!(o.kind, OperatorKind::Sink { .. }) {
                            records_in
                        } else {
                            records_out
                        }
                    })
                    .sum()
            })
            .collect();
        let activity = self
            .tasks
            .iter()
            .map(|t| {
                let m = &t.metrics;
                (m.busy, m.soft_backpressured + m.hard_backpressured, m.idle)
            })
            .collect();
        let hard = self
            .tasks
            .iter()
            .map(|t| t.metrics.hard_backpressured)
            .collect();
        let inflight_bytes = self
            .channels
            .iter()
            .map(super::flow::channel_data_bytes)
            .sum();
        self.samples.push(Sample {
            at: self.now,
            records,
            activity,
            hard,
            inflight_bytes,
        });
    }

    /// The JSON report of the run so far (`shared/SCENARIO.md`).
    pub fn report(&self) -> Report {
        super::stats::build_report(self)
    }

    /// [`Engine::report`] built without reusing any history entry's earlier report (see
    /// [`super::report_rows`]): what the property tests hold the reusing report to.
    #[doc(hidden)]
    pub fn report_uncached(&self) -> Report {
        let held = (self.entry_reports.take(), self.diagnosed_reports.take());
        let report = self.report();
        self.entry_reports.replace(held.0);
        self.diagnosed_reports.replace(held.1);
        report
    }

    /// The checkpoint history as the report shows it, without the diagnoses and without
    /// the sinks' and operators' sections (an unchanged entry's report is reused).
    pub fn checkpoint_reports(&self) -> Vec<super::report::CheckpointReport> {
        let current = self
            .coordinator
            .history
            .iter()
            .map(|s| super::stats::checkpoint_report(self, s));
        self.previous_checkpoints
            .iter()
            .cloned()
            .chain(current)
            .collect()
    }

    /// Every record visible in every sink, deterministically ordered.
    pub fn sink_output(&self) -> Vec<SinkRecord> {
        super::sinks::sink_output(self)
    }

    pub(crate) fn new_buffer_id(&mut self) -> u64 {
        self.next_buffer_id += 1;
        self.next_buffer_id
    }

    /// Marks the job finished once every task is.
    pub(crate) fn check_job_finished(&mut self) {
        if self.status == JobStatus::Running
            && self.tasks.iter().all(|t| t.status == TaskStatus::Finished)
        {
            self.status = JobStatus::Finished;
            let text = self
                .lifecycle_job_finished()
                .unwrap_or_else(|| "job finished: every task reached the end of its input".into());
            self.log.push(self.now, LogKind::Task, text);
            self.attribute_losses();
        }
    }

    pub(crate) fn fail_job_for_good(&mut self, reason: String) {
        self.status = JobStatus::Failed;
        self.log.push_msg(
            self.now,
            LogKind::Failure,
            super::log::Msg::new("job FAILED: {0}", vec![super::log::text(reason)]),
        );
    }

    pub(crate) fn job_is_running(&self) -> bool {
        self.status == JobStatus::Running
    }

    /// Sink operator indices.
    pub fn sink_operators(&self) -> Vec<usize> {
        (0..self.operators.len())
            .filter(|&o| self.external[o].is_some())
            .collect()
    }
}

impl Engine {
    #[doc(hidden)]
    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }
}
