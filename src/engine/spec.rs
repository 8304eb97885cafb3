//! The job the engine runs: a logical dataflow (operators, edges), its configuration, a
//! seed, a run length and a timeline of actions.
//!
//! This is the engine's own input type. The scenario layer (`crate::scenario`) parses the
//! versioned JSON document and the URL into a [`JobSpec`]; the engine never sees JSON.
//! [`JobSpec::validate`] checks what the engine relies on (known endpoints, no cycle,
//! forward edges between equal parallelisms, numbers in range) and names the offending part.

use super::config::EngineConfig;
use super::time::Micros;
use serde::Serialize;

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
    pub fn validate(&self) -> Result<(), SpecError> {
        let fail = |path: String, message: String| Err(SpecError { path, message });
        if self.operators.is_empty() {
            return fail(
                "operators".into(),
                "a job needs at least one operator".into(),
            );
        }
        if self.operators.len() > 64 {
            return fail("operators".into(), "at most 64 operators".into());
        }
        if self.duration == 0 || self.duration > 24 * 3600 * 1_000_000 {
            return fail("duration".into(), "must be between 1us and 24h".into());
        }
        for (i, op) in self.operators.iter().enumerate() {
            let p = |f: &str| format!("operators[{i}].{f}");
            if op.id.is_empty() || op.id.len() > 64 {
                return fail(p("id"), "must be 1 to 64 characters".into());
            }
            if self.operators[..i].iter().any(|o| o.id == op.id) {
                return fail(p("id"), format!("duplicate operator id '{}'", op.id));
            }
            if !(1..=32).contains(&op.parallelism) {
                return fail(
                    p("parallelism"),
                    format!("{} is out of range (1 to 32)", op.parallelism),
                );
            }
            if op.cost > 10_000_000 {
                return fail(p("cost"), "at most 10s per record".into());
            }
            match &op.kind {
                OperatorKind::Source(s) => {
                    if !(s.rate > 0.0 && s.rate <= 1_000_000.0) {
                        return fail(
                            p("rate"),
                            format!("{} is out of range (0 < rate <= 1000000)", s.rate),
                        );
                    }
                    if !(1..=1_000_000).contains(&s.record_size) {
                        return fail(p("record_size"), "must be 1b to 1mb".into());
                    }
                    if !(1..=1_000_000).contains(&s.keys) {
                        return fail(p("keys"), "must be 1 to 1000000".into());
                    }
                    if !(0.0..1.0).contains(&s.skew) {
                        return fail(p("skew"), "must be in [0, 1)".into());
                    }
                    if s.records == Some(0) || s.records.is_some_and(|r| r > 100_000_000) {
                        return fail(
                            p("records"),
                            "must be 1 to 100000000 (omit for unbounded)".into(),
                        );
                    }
                    if s.retention == Some(0) {
                        return fail(
                            p("retention"),
                            "must be positive (omit for infinite)".into(),
                        );
                    }
                }
                OperatorKind::FlatMap { fan_out } if !(1..=1000).contains(fan_out) => {
                    return fail(
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
                return fail(p("from"), format!("unknown operator '{}'", e.from));
            };
            let Some(to) = self.operator_index(&e.to) else {
                return fail(p("to"), format!("unknown operator '{}'", e.to));
            };
            if from == to {
                return fail(p("to"), format!("'{}' cannot feed itself", e.to));
            }
            if self.edges[..i]
                .iter()
                .any(|o| o.from == e.from && o.to == e.to)
            {
                return fail(p("to"), format!("duplicate edge {} -> {}", e.from, e.to));
            }
            if matches!(self.operators[to].kind, OperatorKind::Source(_)) {
                return fail(
                    p("to"),
                    format!("'{}' is a source and takes no input", e.to),
                );
            }
            if matches!(self.operators[from].kind, OperatorKind::Sink { .. }) {
                return fail(
                    p("from"),
                    format!("'{}' is a sink and has no output", e.from),
                );
            }
            let (pf, pt) = (
                self.operators[from].parallelism,
                self.operators[to].parallelism,
            );
            if e.partitioner == Partitioner::Forward && pf != pt {
                return fail(
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
                        return fail(
                            p,
                            format!("source '{}' is not connected to anything", op.id),
                        );
                    }
                }
                OperatorKind::Sink { .. } => {
                    if inputs == 0 {
                        return fail(p, format!("sink '{}' has no input", op.id));
                    }
                }
                _ => {
                    if inputs == 0 {
                        return fail(p, format!("'{}' has no input", op.id));
                    }
                    if outputs == 0 {
                        return fail(
                            p,
                            format!("'{}' has no output (end the path in a sink)", op.id),
                        );
                    }
                }
            }
        }
        if let Some(cycle_at) = self.find_cycle() {
            return fail(
                "edges".into(),
                format!("the graph has a cycle through '{cycle_at}'"),
            );
        }
        self.config.validate().map_err(|e| SpecError {
            path: format!("config.{}", e.key),
            message: e.message,
        })?;
        for (i, ev) in self.events.iter().enumerate() {
            let p = format!("events[{i}]");
            if ev.at > self.duration {
                return fail(format!("{p}.at"), "is after the end of the run".into());
            }
            let known = |id: &str| self.operator_index(id);
            match &ev.action {
                Action::SetCost { operator, cost } => {
                    if known(operator).is_none() {
                        return fail(
                            format!("{p}.set_cost.operator"),
                            format!("unknown operator '{operator}'"),
                        );
                    }
                    if *cost > 10_000_000 {
                        return fail(
                            format!("{p}.set_cost.cost"),
                            "at most 10s per record".into(),
                        );
                    }
                }
                Action::SetRate { operator, rate } => match known(operator) {
                    Some(o) if matches!(self.operators[o].kind, OperatorKind::Source(_)) => {
                        if !(*rate > 0.0 && *rate <= 1_000_000.0) {
                            return fail(
                                format!("{p}.set_rate.rate"),
                                "out of range (0 < rate <= 1000000)".into(),
                            );
                        }
                    }
                    Some(_) => {
                        return fail(
                            format!("{p}.set_rate.operator"),
                            format!("'{operator}' is not a source"),
                        )
                    }
                    None => {
                        return fail(
                            format!("{p}.set_rate.operator"),
                            format!("unknown operator '{operator}'"),
                        )
                    }
                },
                Action::Fail { operator, subtask } => match known(operator) {
                    Some(o) if *subtask < self.operators[o].parallelism => {}
                    Some(o) => {
                        return fail(
                            format!("{p}.fail.subtask"),
                            format!(
                                "'{operator}' has subtasks 0 to {}",
                                self.operators[o].parallelism - 1
                            ),
                        )
                    }
                    None => {
                        return fail(
                            format!("{p}.fail.operator"),
                            format!("unknown operator '{operator}'"),
                        )
                    }
                },
                Action::TriggerCheckpoint => {}
                Action::SetConfig { key, value } => {
                    let mut probe = self.config.clone();
                    probe.set(key, value).map_err(|e| SpecError {
                        path: format!("{p}.set_config"),
                        message: e.to_string(),
                    })?;
                }
                Action::SetPartitioner {
                    from,
                    to,
                    partitioner,
                } => {
                    let Some(edge) = self.edges.iter().find(|e| &e.from == from && &e.to == to)
                    else {
                        return fail(
                            format!("{p}.set_partitioner"),
                            format!("no edge {from} -> {to}"),
                        );
                    };
                    let (pf, pt) = (
                        self.operators[self.operator_index(&edge.from).unwrap()].parallelism,
                        self.operators[self.operator_index(&edge.to).unwrap()].parallelism,
                    );
                    if *partitioner == Partitioner::Forward && pf != pt {
                        return fail(
                            format!("{p}.set_partitioner.partitioner"),
                            "forward needs equal parallelisms".into(),
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Operators in an order where every edge points forward; `None` if there is a cycle.
    pub fn topological_order(&self) -> Option<Vec<usize>> {
        let n = self.operators.len();
        let mut indegree = vec![0usize; n];
        let idx = |id: &str| self.operator_index(id).expect("validated endpoint");
        for e in &self.edges {
            indegree[idx(&e.to)] += 1;
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
        ready.reverse();
        let mut order = Vec::with_capacity(n);
        while let Some(i) = ready.pop() {
            order.push(i);
            for e in self.edges.iter().filter(|e| idx(&e.from) == i) {
                let t = idx(&e.to);
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.insert(0, t);
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    fn find_cycle(&self) -> Option<String> {
        if self.topological_order().is_some() {
            return None;
        }
        // Report an operator that is still blocked: one on (or behind) the cycle.
        let n = self.operators.len();
        let idx = |id: &str| self.operator_index(id).expect("validated endpoint");
        let mut indegree = vec![0usize; n];
        for e in &self.edges {
            indegree[idx(&e.to)] += 1;
        }
        let mut removed = vec![false; n];
        while let Some(i) = (0..n).find(|&i| !removed[i] && indegree[i] == 0) {
            removed[i] = true;
            for e in self.edges.iter().filter(|e| idx(&e.from) == i) {
                indegree[idx(&e.to)] -= 1;
            }
        }
        (0..n)
            .find(|&i| !removed[i])
            .map(|i| self.operators[i].id.clone())
    }
}
