//! The job the engine runs: a logical dataflow (operators, edges), its configuration, a
//! seed, a run length and a timeline of actions.
//!
//! This is the engine's own input type. The scenario layer (`crate::scenario`) parses the
//! versioned JSON document and the URL into a [`JobSpec`]; the engine never sees JSON.
//! [`JobSpec::validate`] checks what the engine relies on (known endpoints, no cycle,
//! forward edges between equal parallelisms, numbers in range) and names the offending part;
//! [`JobSpec::problems`] lists every such problem (for the job editor), `validate` is its first.

// Input-facing: reads user config / specs / actions, so no panics on their values.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use super::config::EngineConfig;
use super::time::{format_duration, Micros};
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// A legacy `SourceFunction` running in its own thread under the checkpoint lock.
    pub legacy: bool,
    /// How long the external system (e.g. a Kafka topic) keeps a record after it was
    /// produced; a rewind to an offset older than that loses the expired records.
    pub retention: Option<Micros>,
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
    /// A Flink-syntax config change; checkpoint and task settings apply at once, network
    /// sizes at the next (re)start of the job.
    SetConfig {
        key: String,
        value: String,
    },
    /// Changes an edge's partitioner; takes effect when the job next restarts (a
    /// topology change between a checkpoint and its restore).
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
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl JobSpec {
    pub fn operator_index(&self, id: &str) -> Option<usize> {
        self.operators.iter().position(|o| o.id == id)
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
        let mut fail = |path: String, message: String| out.push(SpecError { path, message });
        if self.operators.is_empty() {
            fail(
                "operators".into(),
                "a job needs at least one operator".into(),
            );
        }
        if self.operators.len() > 64 {
            fail("operators".into(), "at most 64 operators".into());
        }
        if self.duration == 0 || self.duration > 24 * 3600 * 1_000_000 {
            fail("duration".into(), "must be between 1us and 24h".into());
        }
        for (i, op) in self.operators.iter().enumerate() {
            let p = |f: &str| format!("operators[{i}].{f}");
            if op.id.is_empty() || op.id.len() > 64 {
                fail(p("id"), "must be 1 to 64 characters".into());
            }
            if self.operators[..i].iter().any(|o| o.id == op.id) {
                fail(p("id"), format!("duplicate operator id '{}'", op.id));
            }
            if !(1..=32).contains(&op.parallelism) {
                fail(
                    p("parallelism"),
                    format!("{} is out of range (1 to 32)", op.parallelism),
                );
            }
            if op.cost > 10_000_000 {
                fail(p("cost"), "at most 10s per record".into());
            }
            match &op.kind {
                OperatorKind::Source(s) => {
                    if !(s.rate > 0.0 && s.rate <= 1_000_000.0) {
                        fail(
                            p("rate"),
                            format!("{} is out of range (0 < rate <= 1000000)", s.rate),
                        );
                    }
                    if !(1..=1_000_000).contains(&s.record_size) {
                        fail(p("record_size"), "must be 1b to 1mb".into());
                    }
                    if !(1..=1_000_000).contains(&s.keys) {
                        fail(p("keys"), "must be 1 to 1000000".into());
                    }
                    if !(0.0..1.0).contains(&s.skew) {
                        fail(p("skew"), "must be in [0, 1)".into());
                    }
                    if s.records == Some(0) || s.records.is_some_and(|r| r > 100_000_000) {
                        fail(
                            p("records"),
                            "must be 1 to 100000000 (omit for unbounded)".into(),
                        );
                    }
                    if s.retention == Some(0) {
                        fail(
                            p("retention"),
                            "must be positive (omit for infinite)".into(),
                        );
                    }
                }
                OperatorKind::FlatMap { fan_out } if !(1..=1000).contains(fan_out) => {
                    fail(
                        p("fan_out"),
                        format!("{fan_out} is out of range (1 to 1000)"),
                    );
                }
                _ => {}
            }
        }
        for (i, e) in self.edges.iter().enumerate() {
            let p = |f: &str| format!("edges[{i}].{f}");
            let Some(from) = self.operator_index(&e.from) else {
                fail(p("from"), format!("unknown operator '{}'", e.from));
                continue;
            };
            let Some(to) = self.operator_index(&e.to) else {
                fail(p("to"), format!("unknown operator '{}'", e.to));
                continue;
            };
            if from == to {
                fail(p("to"), format!("'{}' cannot feed itself", e.to));
                continue;
            }
            if self.edges[..i]
                .iter()
                .any(|o| o.from == e.from && o.to == e.to)
            {
                fail(p("to"), format!("duplicate edge {} -> {}", e.from, e.to));
            }
            if matches!(self.operators[to].kind, OperatorKind::Source(_)) {
                fail(
                    p("to"),
                    format!("'{}' is a source and takes no input", e.to),
                );
            }
            if matches!(self.operators[from].kind, OperatorKind::Sink { .. }) {
                fail(
                    p("from"),
                    format!("'{}' is a sink and has no output", e.from),
                );
            }
            let (pf, pt) = (
                self.operators[from].parallelism,
                self.operators[to].parallelism,
            );
            if e.partitioner == Partitioner::Forward && pf != pt {
                fail(
                    p("partitioner"),
                    format!("forward edge {} -> {} joins different parallelisms ({pf} vs {pt}); use rebalance or rescale", e.from, e.to),
                );
            }
        }
        for (i, op) in self.operators.iter().enumerate() {
            let inputs = self.edges.iter().filter(|e| e.to == op.id).count();
            let outputs = self.edges.iter().filter(|e| e.from == op.id).count();
            let p = format!("operators[{i}]");
            match op.kind {
                OperatorKind::Source(_) => {
                    if outputs == 0 {
                        fail(
                            p,
                            format!("source '{}' is not connected to anything", op.id),
                        );
                    }
                }
                OperatorKind::Sink { .. } => {
                    if inputs == 0 {
                        fail(p, format!("sink '{}' has no input", op.id));
                    }
                }
                _ => {
                    if inputs == 0 {
                        fail(p.clone(), format!("'{}' has no input", op.id));
                    }
                    if outputs == 0 {
                        fail(
                            p,
                            format!("'{}' has no output (end the path in a sink)", op.id),
                        );
                    }
                }
            }
        }
        if let Some(cycle) = self.cycle() {
            let mut names: Vec<String> = cycle
                .iter()
                .map(|&i| format!("'{}'", self.operators[i].id))
                .collect();
            names.push(names[0].clone());
            fail(
                "edges".into(),
                format!("the graph has a cycle through {}", names.join(" -> ")),
            );
        }
        let config_ok = match self.config.validate() {
            Ok(()) => true,
            Err(e) => {
                fail(format!("config.{}", e.key), e.message);
                false
            }
        };
        let mut config_changes = self.config_change_problems(config_ok);
        for (i, ev) in self.events.iter().enumerate() {
            let p = format!("events[{i}]");
            if ev.at > self.duration {
                fail(format!("{p}.at"), "is after the end of the run".into());
            }
            let known = |id: &str| self.operator_index(id);
            match &ev.action {
                Action::SetCost { operator, cost } => {
                    if known(operator).is_none() {
                        fail(
                            format!("{p}.set_cost.operator"),
                            format!("unknown operator '{operator}'"),
                        );
                    }
                    if *cost > 10_000_000 {
                        fail(
                            format!("{p}.set_cost.cost"),
                            "at most 10s per record".into(),
                        );
                    }
                }
                Action::SetRate { operator, rate } => match known(operator) {
                    Some(o) if matches!(self.operators[o].kind, OperatorKind::Source(_)) => {
                        if !(*rate > 0.0 && *rate <= 1_000_000.0) {
                            fail(
                                format!("{p}.set_rate.rate"),
                                "out of range (0 < rate <= 1000000)".into(),
                            );
                        }
                    }
                    Some(_) => fail(
                        format!("{p}.set_rate.operator"),
                        format!("'{operator}' is not a source"),
                    ),
                    None => fail(
                        format!("{p}.set_rate.operator"),
                        format!("unknown operator '{operator}'"),
                    ),
                },
                Action::Fail { operator, subtask } => match known(operator) {
                    Some(o) if *subtask < self.operators[o].parallelism => {}
                    Some(o) => fail(
                        format!("{p}.fail.subtask"),
                        format!(
                            "'{operator}' has subtasks 0 to {}",
                            self.operators[o].parallelism.saturating_sub(1)
                        ),
                    ),
                    None => fail(
                        format!("{p}.fail.operator"),
                        format!("unknown operator '{operator}'"),
                    ),
                },
                Action::TriggerCheckpoint => {}
                Action::SetConfig { .. } => {
                    if let Some(message) = config_changes.remove(&i) {
                        fail(format!("{p}.set_config"), message);
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
                            format!("no edge {from} -> {to}"),
                        );
                        continue;
                    };
                    let par = |id: &str| known(id).map(|o| self.operators[o].parallelism);
                    if *partitioner == Partitioner::Forward && par(&edge.from) != par(&edge.to) {
                        fail(
                            format!("{p}.set_partitioner.partitioner"),
                            "forward needs equal parallelisms".into(),
                        );
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
    fn config_change_problems(&self, rules: bool) -> BTreeMap<usize, String> {
        let mut order: Vec<usize> = (0..self.events.len()).collect();
        order.sort_by_key(|&i| self.events.get(i).map_or(0, |e| e.at));
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
                    out.insert(i, e.to_string());
                }
                continue;
            }
            match effective.with_change(key, value) {
                Ok(next) => effective = next,
                Err(e) => {
                    // A value that parses was refused for the config it meets: say when.
                    let conflict = effective.clone().set(key, value).is_ok();
                    let message = if conflict {
                        format!("{e}, with the config in effect at {}", format_duration(*at))
                    } else {
                        e.to_string()
                    };
                    out.insert(i, message);
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
        for e in &self.edges {
            if let (Some(f), Some(t)) = (self.operator_index(&e.from), self.operator_index(&e.to)) {
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
        let known: Vec<(usize, usize)> = self
            .edges
            .iter()
            .filter_map(|e| Some((self.operator_index(&e.from)?, self.operator_index(&e.to)?)))
            .collect();
        for &(_, t) in &known {
            indegree[t] += 1;
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        ready.reverse();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = ready.pop() {
            order.push(i);
            for &(_, t) in known.iter().filter(|(f, _)| *f == i) {
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.insert(0, t);
                }
            }
        }
        (order.len() == n).then_some(order)
    }
}
