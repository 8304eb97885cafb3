//! The job the engine runs: a logical dataflow (operators, edges), its configuration, a
//! seed, a run length and a timeline of actions.
//!
//! This is the engine's own input type. The scenario layer (`crate::scenario`) parses the
//! versioned JSON document and the URL into a [`JobSpec`]; the engine never sees JSON.
//! [`JobSpec::validate`] checks what the engine relies on (known endpoints, no cycle,
//! forward edges between equal parallelisms, keyed aggregates fed by hash edges only,
//! numbers in range) and names the offending part;
//! [`JobSpec::problems`] lists every such problem (for the job editor), `validate` is its first;
//! each carries its message as an `engine::log::Msg` (code + values, English exactly the
//! message) so the editor shows it in the viewer's language.
//!
//! Size first: the bounds of [`limits`] on the number of operators, edges and events are
//! checked before anything else, and a job past them gets only those problems, so
//! validation costs O(operators + edges + events) look-ups (by map, not by scan)
//! whatever it is handed.

// Input-facing: reads user config / specs / actions, so no panics on their values.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use super::config::EngineConfig;
use super::log::{text, Arg, Msg};
use super::time::{format_duration, Micros};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The bounds of a job, each stated in the README's "Limits" section.
pub mod limits {
    use super::Micros;
    /// Operators in a job: enough for every DAG the playground draws legibly.
    pub const MAX_OPERATORS: usize = 64;
    /// Edges: every pair of 64 operators once in one direction (an acyclic graph
    /// without duplicate edges has at most n·(n−1)/2).
    pub const MAX_EDGES: usize = MAX_OPERATORS * (MAX_OPERATORS - 1) / 2;
    /// Timed events (user actions) in a scenario: hours of a user dragging sliders.
    pub const MAX_EVENTS: usize = 10_000;
    /// Config keys a scenario sets (the engine knows about 40, with aliases).
    pub const MAX_CONFIG_KEYS: usize = 256;
    /// Parallelism of one operator: production jobs run at 100–1,000 (issue 19). Wide
    /// all-to-all edges meet the channel limit first (`scenario::cost::limits::MAX_CHANNELS`:
    /// a hash exchange at 128 × 128 is 16,384 channels, 256 × 256 is exactly the 65,536
    /// allowed). Whether a parallelism above the job's max parallelism (key groups) is
    /// refused is `pipeline.max-parallelism`'s rule, not this bound.
    pub const MAX_PARALLELISM: u32 = 1024;
    /// Characters of an operator id.
    pub const MAX_ID_CHARS: usize = 64;
    /// Virtual length of a run.
    pub const MAX_DURATION: Micros = 24 * 3600 * 1_000_000;
    /// Records per second per source subtask.
    pub const MAX_RATE: f64 = 1_000_000.0;
    /// Bytes of one record (1 MiB, Flink's record size is unbounded; a record larger
    /// than a segment spans buffers).
    pub const MAX_RECORD_SIZE: u32 = 1 << 20;
    /// Records per source subtask of a bounded source.
    pub const MAX_RECORDS: u64 = 100_000_000;
    /// Virtual processing time of one record.
    pub const MAX_COST: Micros = 10_000_000;
    /// Children per record of a flat_map.
    pub const MAX_FAN_OUT: u32 = 1000;
    /// Distinct keys of a source.
    pub const MAX_KEYS: u32 = 1_000_000;
}

/// At most 80 characters of a user-given name, for messages.
fn quote(s: &str) -> String {
    match s.char_indices().nth(80) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSpec {
    pub name: String,
    pub seed: u64,
    /// Virtual run length; the run stops here even if sources are unbounded.
    pub duration: Micros,
    pub config: EngineConfig,
    pub operators: Vec<OperatorSpec>,
    pub edges: Vec<EdgeSpec>,
    /// Timed actions, replayed in time order (ties keep their order in the list).
    pub events: Vec<TimedAction>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperatorSpec {
    pub id: String,
    pub kind: OperatorKind,
    pub parallelism: u32,
    /// Virtual processing time per input record (for sources: per emitted record).
    pub cost: Micros,
    /// Chaining overrides and slot-sharing group, as the DataStream API sets them; read by
    /// [`super::physical_plan`], whose chains the runtime runs as one task each.
    pub chaining: OperatorChaining,
}

/// Flink's `ChainingStrategy` as the DataStream API sets it on an operator:
/// `disableChaining()` is `NEVER`, `startNewChain()` is `HEAD`, and every operator the
/// playground models is `ALWAYS` by default (`AbstractStreamOperatorFactory`,
/// `SinkWriterOperatorFactory`, `CommitterOperatorFactory`, the FLIP-27 source).
/// `HEAD_WITH_SOURCES` (multi-input operators with chained sources) is not modelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum ChainingStrategy {
    #[default]
    Always,
    Head,
    Never,
}

/// An operator's chaining strategy and slot-sharing group (`slotSharingGroup(name)`;
/// `None` = not specified: the group its inputs share, else `"default"`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OperatorChaining {
    pub strategy: ChainingStrategy,
    pub slot_sharing_group: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum OperatorKind {
    Source(SourceSpec),
    Map,
    FlatMap { fan_out: u32 },
    KeyedAggregate,
    Sink { delivery: SinkDelivery },
}

impl OperatorKind {
    pub fn name(&self) -> &'static str {
        match self {
            OperatorKind::Source(_) => "source",
            OperatorKind::Map => "map",
            OperatorKind::FlatMap { .. } => "flat_map",
            OperatorKind::KeyedAggregate => "keyed_aggregate",
            OperatorKind::Sink { .. } => "sink",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SourceSpec {
    /// Records per second per subtask.
    pub rate: f64,
    /// Records per subtask; `None` = unbounded.
    pub records: Option<u64>,
    pub record_size: u32,
    pub keys: u32,
    /// Zipf-like skew of keys in `[0, 1)`: 0 = uniform.
    pub skew: f64,
    /// Which of Flink's two source APIs runs the source (see [`SourceApi`]).
    pub api: SourceApi,
    /// How long the external system (e.g. a Kafka topic) keeps a record after it was
    /// produced; a rewind to an offset older than that loses the expired records.
    pub retention: Option<Micros>,
}

/// Flink's two source APIs, which emit differently under backpressure.
///
/// - [`SourceApi::Flip27`]: a FLIP-27 `Source` (`org.apache.flink.api.connector.source`,
///   Flink 1.12+) read by `SourceOperator` in a `SourceOperatorStreamTask`. The reader is
///   polled from the mailbox's default action (`StreamTask.processInput` →
///   `StreamTaskSourceInput.emitNext` → `SourceOperator.emitNext`), one record per step,
///   so mails (the checkpoint trigger included) run between records, and the task stops
///   emitting while its output is unavailable (`StreamTask.processInput` suspends the
///   default action until `RecordWriter.getAvailableFuture`). It may use overdraft
///   buffers (FLIP-227, Flink 1.16) when one record needs several buffers.
/// - [`SourceApi::Legacy`]: a `SourceFunction` run by `SourceStreamTask` (deprecated; in
///   2.x the interface lives on in `...functions.source.legacy` and the task is
///   unchanged in this respect): its `LegacySourceFunctionThread` calls
///   `SourceFunction.run`, which emits through `StreamSourceContexts` (`collect` inside
///   `synchronized (lock)`) with no availability check, so under backpressure
///   it blocks in the buffer request (`LocalBufferPool.requestMemorySegmentBlocking`)
///   mid-record, holding the lock. Every mail of a `SourceStreamTask` runs through
///   `StreamTaskActionExecutor.synchronizedExecutor(lock)`, so the checkpoint trigger
///   waits for that lock. `SourceStreamTask.init` sets
///   `recordWriter.setMaxOverdraftBuffersPerGate(0)` (FLINK-27789, Flink 1.16): a thread
///   that never checks availability would otherwise take every overdraft buffer on
///   every backpressured record. Flink has no other fix for it; the remedy is to move to
///   a FLIP-27 source.
///
/// Simplification: the legacy thread and the mailbox thread are modelled as one loop
/// with a fair lock — between two records the lock is free and waiting mails run
/// (Java's monitor is unfair and a busy legacy thread may re-take it at once), and the
/// source's per-record cost is spent inside the lock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum SourceApi {
    /// FLIP-27 `Source` in the mailbox (Flink's recommended API; the default).
    #[default]
    Flip27,
    /// Legacy `SourceFunction` in its own thread under the checkpoint lock.
    Legacy,
}

impl SourceApi {
    /// The Flink class that runs a source of this kind.
    pub fn task_class(self) -> &'static str {
        match self {
            SourceApi::Flip27 => "SourceOperatorStreamTask",
            SourceApi::Legacy => "SourceStreamTask",
        }
    }

    /// Whether the source is a legacy `SourceFunction`.
    pub fn is_legacy(self) -> bool {
        self == SourceApi::Legacy
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SinkDelivery {
    /// Transactions pre-committed in the snapshot, committed on checkpoint completion.
    TwoPhaseCommit,
    /// Upsert by key: repeated writes of a key overwrite.
    Idempotent,
    /// Writes at once; everything since the last checkpoint repeats after a failure.
    AtLeastOnce,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Partitioner {
    Forward,
    Rebalance,
    Rescale,
    Hash,
    Broadcast,
}

impl Partitioner {
    pub fn name(self) -> &'static str {
        match self {
            Partitioner::Forward => "forward",
            Partitioner::Rebalance => "rebalance",
            Partitioner::Rescale => "rescale",
            Partitioner::Hash => "hash",
            Partitioner::Broadcast => "broadcast",
        }
    }
    /// Pointwise and broadcast edges get forced-aligned barriers
    /// (`StreamPartitioner.isSupportsUnalignedCheckpoint`).
    pub fn supports_unaligned(self) -> bool {
        matches!(self, Partitioner::Rebalance | Partitioner::Hash)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeSpec {
    pub from: String,
    pub to: String,
    pub partitioner: Partitioner,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimedAction {
    pub at: Micros,
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Action {
    SetCost {
        operator: String,
        cost: Micros,
    },
    SetRate {
        operator: String,
        rate: f64,
    },
    Fail {
        operator: String,
        subtask: u32,
    },
    TriggerCheckpoint,
    /// `flink savepoint <job>`: a savepoint (always aligned, `CheckpointOptions.forConfig`),
    /// the job keeps running (see `super::lifecycle`).
    Savepoint,
    /// `flink stop [--drain] <job>`: the sources stop, a synchronous savepoint is taken and
    /// the job ends FINISHED (`SchedulerBase.stopWithSavepoint`, see `super::lifecycle`).
    StopWithSavepoint {
        drain: bool,
    },
    /// A Flink-syntax config change; checkpoint and task settings apply at once, network
    /// sizes at the next (re)start of the job.
    SetConfig {
        key: String,
        value: String,
    },
    /// Cancel the job and submit it changed, restored from a retained checkpoint or a
    /// savepoint (see `super::resubmission`).
    Resubmit(Box<super::resubmission::Resubmit>),
    /// Changes an edge's partitioner for the next resubmission (a failover restarts the
    /// job as it runs; a changed job is a new submission).
    SetPartitioner {
        from: String,
        to: String,
        partitioner: Partitioner,
    },
}

/// A validation failure naming the offending part of the job (`operators[2].parallelism`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub path: String,
    pub message: String,
    /// `message`'s structured form (every problem of [`JobSpec::problems`] and
    /// `Resubmit::changed_job` has one; the interface shows it in the viewer's
    /// language), its English `message`.
    pub msg: Option<Msg>,
}

impl SpecError {
    /// An error whose message is `msg`'s English.
    pub fn of(path: String, msg: Msg) -> SpecError {
        SpecError {
            path,
            message: msg.english(),
            msg: Some(msg),
        }
    }

    /// The structured message: `msg`, or the English `message` as one value (`"{0}"`,
    /// shown as it is in every language) for an error built without one.
    pub fn structured(&self) -> Msg {
        self.msg
            .clone()
            .unwrap_or_else(|| Msg::new("{0}", vec![text(&self.message)]))
    }
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Why `partitioner` cannot feed operator `to`, if it cannot: a keyed aggregate's keyed
/// state needs a keyed stream. In Flink keyed state exists only on a `KeyedStream`
/// (`DataStream.keyBy`), whose edge is always a `KeyGroupStreamPartitioner` (the
/// playground's `hash`): each key group lives on exactly one subtask, which is what
/// `StateAssignmentOperation.reDistributeKeyedStates` relies on when it hands each new
/// subtask the key groups of its range. Fed by any other partitioner, one key's running
/// sum would be split over several subtasks, and a rescale could keep only one part.
/// (`DataStreamUtils.reinterpretAsKeyedStream`, which makes a pre-partitioned stream keyed
/// over a forward edge, is experimental and not modelled.)
pub fn keyed_input_problem(from: &str, to: &OperatorSpec, partitioner: Partitioner) -> Option<Msg> {
    (matches!(to.kind, OperatorKind::KeyedAggregate) && partitioner != Partitioner::Hash).then(
        || {
            Msg::new(
                "{0} edge {1} -> {2}: '{3}' is a keyed aggregate, and keyed state needs a keyed input (keyBy, a hash edge); use hash",
                vec![
                    text(partitioner.name()),
                    text(quote(from)),
                    text(quote(&to.id)),
                    text(quote(&to.id)),
                ],
            )
        },
    )
}

impl JobSpec {
    /// Each resubmit event's problem, by event index: the events in time order (ties in
    /// list order), each resubmission applied to the job as the earlier ones changed it
    /// (one may remove an operator an earlier one added).
    fn resubmit_problems(&self) -> BTreeMap<usize, SpecError> {
        let mut order: Vec<usize> = (0..self.events.len()).collect();
        crate::compact_sort::sort_by_key(&mut order, |&i| self.events[i].at);
        let mut job = std::borrow::Cow::Borrowed(self);
        let mut out = BTreeMap::new();
        for i in order {
            if let Action::Resubmit(r) = &self.events[i].action {
                match r.changed_job(&job) {
                    Ok(next) => job = std::borrow::Cow::Owned(next),
                    Err(e) => {
                        out.insert(i, e);
                    }
                }
            }
        }
        out
    }

    pub fn operator_index(&self, id: &str) -> Option<usize> {
        self.operators.iter().position(|o| o.id == id)
    }

    /// Operator id -> index of its first operator, for look-ups in O(log n).
    fn index(&self) -> BTreeMap<&str, usize> {
        let mut index = BTreeMap::new();
        for (i, o) in self.operators.iter().enumerate() {
            index.entry(o.id.as_str()).or_insert(i);
        }
        index
    }

    /// Checks everything the engine relies on; the error names the offending field.
    /// It is the first of [`JobSpec::problems`].
    pub fn validate(&self) -> Result<(), SpecError> {
        match self.problems().into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every problem of the job, in the order `validate` checks them (operators, edges,
    /// dangling operators, cycle, config, events), each naming its field by path. Unlike
    /// `validate` it does not stop at the first, so an editor can show them all; edges
    /// with an unknown endpoint are left out of the later graph checks.
    pub fn problems(&self) -> Vec<SpecError> {
        let mut out = Vec::new();
        // Every problem is structured (the editor shows it in the viewer's language);
        // its English, the CLI's and the tests' text, is `msg.english()`.
        let mut fail = |path: String, msg: Msg| out.push(SpecError::of(path, msg));
        let unknown = |id: &str| Msg::new("unknown operator '{0}'", vec![text(quote(id))]);
        if self.operators.is_empty() {
            fail(
                "operators".into(),
                Msg::new("a job needs at least one operator", vec![]),
            );
        }
        let sizes = [
            ("operators", self.operators.len(), limits::MAX_OPERATORS),
            ("edges", self.edges.len(), limits::MAX_EDGES),
            ("events", self.events.len(), limits::MAX_EVENTS),
        ];
        let mut oversized = false;
        for (field, len, max) in sizes {
            if len > max {
                fail(
                    field.into(),
                    Msg::new(
                        "{0} {1}; at most {2}",
                        vec![text(len), text(field), text(max)],
                    ),
                );
                oversized = true;
            }
        }
        if oversized {
            // Nothing else is checked: the job cannot run, and checking every part of
            // an arbitrarily large job would cost what the limits are there to prevent.
            return out;
        }
        if self.duration == 0 || self.duration > limits::MAX_DURATION {
            fail(
                "duration".into(),
                Msg::new("must be between 1us and 24h", vec![]),
            );
        }
        let index = self.index();
        for (i, op) in self.operators.iter().enumerate() {
            let p = |f: &str| format!("operators[{i}].{f}");
            if op.id.is_empty() || op.id.len() > limits::MAX_ID_CHARS {
                fail(p("id"), Msg::new("must be 1 to 64 characters", vec![]));
            }
            if index.get(op.id.as_str()).is_some_and(|&first| first < i) {
                fail(
                    p("id"),
                    Msg::new("duplicate operator id '{0}'", vec![text(quote(&op.id))]),
                );
            }
            if !(1..=limits::MAX_PARALLELISM).contains(&op.parallelism) {
                fail(
                    p("parallelism"),
                    Msg::new(
                        "{0} is out of range (1 to {1}, the limit per operator)",
                        vec![text(op.parallelism), text(limits::MAX_PARALLELISM)],
                    ),
                );
            }
            if op.cost > limits::MAX_COST {
                fail(p("cost"), Msg::new("at most 10s per record", vec![]));
            }
            if let Some(g) = &op.chaining.slot_sharing_group {
                if g.is_empty() || g.chars().count() > limits::MAX_ID_CHARS {
                    fail(
                        p("slot_sharing_group"),
                        Msg::new("must be 1 to 64 characters", vec![]),
                    );
                }
            }
            match &op.kind {
                OperatorKind::Source(s) => {
                    if !(s.rate > 0.0 && s.rate <= limits::MAX_RATE) {
                        fail(
                            p("rate"),
                            Msg::new(
                                "{0} is out of range (0 < rate <= 1000000)",
                                vec![text(s.rate)],
                            ),
                        );
                    }
                    if !(1..=limits::MAX_RECORD_SIZE).contains(&s.record_size) {
                        fail(
                            p("record_size"),
                            // 1mb is 1,048,576 bytes (`time::parse_size`): the
                            // bound is exactly what the message says.
                            Msg::new("must be 1b to 1mb", vec![]),
                        );
                    }
                    if !(1..=limits::MAX_KEYS).contains(&s.keys) {
                        fail(p("keys"), Msg::new("must be 1 to 1000000", vec![]));
                    }
                    if !(0.0..1.0).contains(&s.skew) {
                        fail(p("skew"), Msg::new("must be in [0, 1)", vec![]));
                    }
                    if s.records == Some(0) || s.records.is_some_and(|r| r > limits::MAX_RECORDS) {
                        fail(
                            p("records"),
                            Msg::new("must be 1 to 100000000 (omit for unbounded)", vec![]),
                        );
                    }
                    if s.retention == Some(0) {
                        fail(
                            p("retention"),
                            Msg::new("must be positive (omit for infinite)", vec![]),
                        );
                    }
                }
                OperatorKind::FlatMap { fan_out }
                    if !(1..=limits::MAX_FAN_OUT).contains(fan_out) =>
                {
                    fail(
                        p("fan_out"),
                        Msg::new("{0} is out of range (1 to 1000)", vec![text(fan_out)]),
                    );
                }
                _ => {}
            }
        }
        let mut seen_edges = BTreeSet::new();
        let mut inputs = vec![0usize; self.operators.len()];
        let mut outputs = vec![0usize; self.operators.len()];
        for (i, e) in self.edges.iter().enumerate() {
            let p = |f: &str| format!("edges[{i}].{f}");
            let (from, to) = (index.get(e.from.as_str()), index.get(e.to.as_str()));
            // Counted as a scan of the edges by id counts them: every edge naming the
            // operator, whatever its other end.
            if let Some(&t) = to {
                inputs[t] += 1;
            }
            if let Some(&f) = from {
                outputs[f] += 1;
            }
            let Some(&from) = from else {
                fail(p("from"), unknown(&e.from));
                continue;
            };
            let Some(&to) = to else {
                fail(p("to"), unknown(&e.to));
                continue;
            };
            if from == to {
                fail(
                    p("to"),
                    Msg::new("'{0}' cannot feed itself", vec![text(&e.to)]),
                );
                continue;
            }
            if !seen_edges.insert((from, to)) {
                fail(
                    p("to"),
                    Msg::new(
                        "duplicate edge {0} -> {1}",
                        vec![text(&e.from), text(&e.to)],
                    ),
                );
            }
            if matches!(self.operators[to].kind, OperatorKind::Source(_)) {
                fail(
                    p("to"),
                    Msg::new("'{0}' is a source and takes no input", vec![text(&e.to)]),
                );
            }
            if matches!(self.operators[from].kind, OperatorKind::Sink { .. }) {
                fail(
                    p("from"),
                    Msg::new("'{0}' is a sink and has no output", vec![text(&e.from)]),
                );
            }
            let (pf, pt) = (
                self.operators[from].parallelism,
                self.operators[to].parallelism,
            );
            if e.partitioner == Partitioner::Forward && pf != pt {
                fail(
                    p("partitioner"),
                    Msg::new(
                        "forward edge {0} -> {1} joins different parallelisms ({2} vs {3}); use rebalance or rescale",
                        vec![text(&e.from), text(&e.to), text(pf), text(pt)],
                    ),
                );
            }
            if let Some(msg) = keyed_input_problem(&e.from, &self.operators[to], e.partitioner) {
                fail(p("partitioner"), msg);
            }
        }
        // An id given twice is counted under its first operator (as `operator_index`
        // finds it); its duplicates have no edges of their own.
        for (i, op) in self.operators.iter().enumerate() {
            let first = index.get(op.id.as_str()) == Some(&i);
            let (inputs, outputs) = if first {
                (inputs[i], outputs[i])
            } else {
                (
                    inputs[index[op.id.as_str()]],
                    outputs[index[op.id.as_str()]],
                )
            };
            let p = format!("operators[{i}]");
            match op.kind {
                OperatorKind::Source(_) => {
                    if outputs == 0 {
                        fail(
                            p,
                            Msg::new(
                                "source '{0}' is not connected to anything",
                                vec![text(&op.id)],
                            ),
                        );
                    }
                }
                OperatorKind::Sink { .. } => {
                    if inputs == 0 {
                        fail(p, Msg::new("sink '{0}' has no input", vec![text(&op.id)]));
                    }
                }
                _ => {
                    if inputs == 0 {
                        fail(
                            p.clone(),
                            Msg::new("'{0}' has no input", vec![text(&op.id)]),
                        );
                    }
                    if outputs == 0 {
                        fail(
                            p,
                            Msg::new(
                                "'{0}' has no output (end the path in a sink)",
                                vec![text(&op.id)],
                            ),
                        );
                    }
                }
            }
        }
        if let Some(cycle) = self.cycle() {
            let mut names: Vec<Arg> = cycle
                .iter()
                .map(|&i| text(format!("'{}'", self.operators[i].id)))
                .collect();
            names.push(names[0].clone());
            fail(
                "edges".into(),
                Msg::new(
                    "the graph has a cycle through {0}",
                    vec![Arg::List(names, " -> ")],
                ),
            );
        }
        let config_ok = match self.config.validate() {
            Ok(()) => true,
            Err(e) => {
                fail(format!("config.{}", e.key), e.msg);
                false
            }
        };
        if config_ok {
            if let Some(e) = super::physical_plan::slot_problem(self) {
                let msg = e.structured();
                fail(e.path, msg);
            }
        }
        let mut config_changes = self.config_change_problems(config_ok);
        let resubmit_problems = self.resubmit_problems();
        for (i, ev) in self.events.iter().enumerate() {
            let p = format!("events[{i}]");
            if ev.at > self.duration {
                fail(
                    format!("{p}.at"),
                    Msg::new("is after the end of the run", vec![]),
                );
            }
            let known = |id: &str| index.get(id).copied();
            match &ev.action {
                Action::SetCost { operator, cost } => {
                    if known(operator).is_none() {
                        fail(format!("{p}.set_cost.operator"), unknown(operator));
                    }
                    if *cost > 10_000_000 {
                        fail(
                            format!("{p}.set_cost.cost"),
                            Msg::new("at most 10s per record", vec![]),
                        );
                    }
                }
                Action::SetRate { operator, rate } => match known(operator) {
                    Some(o) if matches!(self.operators[o].kind, OperatorKind::Source(_)) => {
                        if !(*rate > 0.0 && *rate <= 1_000_000.0) {
                            fail(
                                format!("{p}.set_rate.rate"),
                                Msg::new("out of range (0 < rate <= 1000000)", vec![]),
                            );
                        }
                    }
                    Some(_) => fail(
                        format!("{p}.set_rate.operator"),
                        Msg::new("'{0}' is not a source", vec![text(operator)]),
                    ),
                    None => fail(format!("{p}.set_rate.operator"), unknown(operator)),
                },
                Action::Fail { operator, subtask } => match known(operator) {
                    Some(o) if *subtask < self.operators[o].parallelism => {}
                    Some(o) => fail(
                        format!("{p}.fail.subtask"),
                        Msg::new(
                            "'{0}' has subtasks 0 to {1}",
                            vec![
                                text(operator),
                                text(self.operators[o].parallelism.saturating_sub(1)),
                            ],
                        ),
                    ),
                    None => fail(format!("{p}.fail.operator"), unknown(operator)),
                },
                Action::TriggerCheckpoint
                | Action::Savepoint
                | Action::StopWithSavepoint { .. } => {}
                Action::Resubmit(_) => {
                    if let Some(e) = resubmit_problems.get(&i) {
                        fail(format!("{p}.resubmit.{}", e.path), e.structured());
                    }
                }
                Action::SetConfig { key, .. } => {
                    if let Some(msg) = super::physical_plan::submission_key_change(key) {
                        fail(format!("{p}.set_config.key"), msg);
                    } else if let Some(msg) = config_changes.remove(&i) {
                        fail(format!("{p}.set_config"), msg);
                    }
                }
                Action::SetPartitioner {
                    from,
                    to,
                    partitioner,
                } => {
                    let Some(edge) = self.edges.iter().find(|e| &e.from == from && &e.to == to)
                    else {
                        fail(
                            format!("{p}.set_partitioner"),
                            Msg::new(
                                "no edge {0} -> {1}",
                                vec![text(quote(from)), text(quote(to))],
                            ),
                        );
                        continue;
                    };
                    let par = |id: &str| known(id).map(|o| self.operators[o].parallelism);
                    if *partitioner == Partitioner::Forward && par(&edge.from) != par(&edge.to) {
                        fail(
                            format!("{p}.set_partitioner.partitioner"),
                            Msg::new("forward needs equal parallelisms", vec![]),
                        );
                    }
                    let target = known(&edge.to).map(|o| &self.operators[o]);
                    if let Some(msg) =
                        target.and_then(|o| keyed_input_problem(from, o, *partitioner))
                    {
                        fail(format!("{p}.set_partitioner.partitioner"), msg);
                    }
                }
            }
        }
        out
    }

    /// Why `set_config` events are refused, by event index: each is checked with
    /// [`EngineConfig::with_change`] against the config in effect at its instant — the
    /// scenario's config changed by the valid `set_config` events before it, in the order
    /// the engine performs them (time order, ties in list order). So an event that is
    /// fine alone but breaks a rule together with an earlier change (a segment size under
    /// the minimum, unaligned after a switch to at-least-once) is refused where the
    /// document is read, not when the run reaches it. A refused event is left out of the
    /// config the later ones are checked against. Without `rules` (the scenario's own
    /// config breaks one, reported once at `config.…`) only the values are checked.
    fn config_change_problems(&self, rules: bool) -> BTreeMap<usize, Msg> {
        let mut order: Vec<usize> = (0..self.events.len()).collect();
        crate::compact_sort::sort_by_key(&mut order, |&i| self.events.get(i).map_or(0, |e| e.at));
        let mut effective = self.config.clone();
        let mut out = BTreeMap::new();
        for i in order {
            let Some(TimedAction {
                at,
                action: Action::SetConfig { key, value },
            }) = self.events.get(i)
            else {
                continue;
            };
            if !rules {
                if let Err(e) = effective.clone().set(key, value) {
                    out.insert(i, e.named());
                }
                continue;
            }
            match effective.with_change(key, value) {
                Ok(next) => effective = next,
                Err(e) => {
                    // A value that parses was refused for the config it meets: say when.
                    let conflict = effective.clone().set(key, value).is_ok();
                    let msg = if conflict {
                        Msg::new(
                            "{0}, with the config in effect at {1}",
                            vec![e.named().into(), text(format_duration(*at))],
                        )
                    } else {
                        e.named()
                    };
                    out.insert(i, msg);
                }
            }
        }
        out
    }

    /// The operators (indices) of one cycle, in edge order, or `None` for an acyclic
    /// graph. Self-loops and edges with an unknown endpoint are ignored (`problems`
    /// reports those separately). Deterministic: depth-first in operator and edge order.
    pub fn cycle(&self) -> Option<Vec<usize>> {
        let n = self.operators.len();
        let mut succ = vec![Vec::new(); n];
        let index = self.index();
        for e in &self.edges {
            if let (Some(&f), Some(&t)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
                if f != t {
                    succ[f].push(t);
                }
            }
        }
        // 0 = unvisited, 1 = on the current path, 2 = done.
        let mut state = vec![0u8; n];
        for root in 0..n {
            if state[root] != 0 {
                continue;
            }
            let mut path: Vec<(usize, usize)> = vec![(root, 0)];
            state[root] = 1;
            while let Some((node, next)) = path.last().copied() {
                if let Some(&t) = succ[node].get(next) {
                    if let Some(top) = path.last_mut() {
                        top.1 += 1;
                    }
                    match state[t] {
                        0 => {
                            state[t] = 1;
                            path.push((t, 0));
                        }
                        1 => {
                            let start = path.iter().position(|&(v, _)| v == t)?;
                            return Some(path[start..].iter().map(|&(v, _)| v).collect());
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    path.pop();
                }
            }
        }
        None
    }

    /// Operators in an order where every edge points forward; `None` if there is a cycle.
    pub fn topological_order(&self) -> Option<Vec<usize>> {
        let n = self.operators.len();
        let mut indegree = vec![0usize; n];
        // Edges with an unknown endpoint are left out (`problems` reports them).
        let index = self.index();
        let mut succ = vec![Vec::new(); n];
        for e in &self.edges {
            if let (Some(&f), Some(&t)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
                indegree[t] += 1;
                succ[f].push(t);
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        ready.reverse();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = ready.pop() {
            order.push(i);
            for &t in &succ[i] {
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.insert(0, t);
                }
            }
        }
        (order.len() == n).then_some(order)
    }
}
