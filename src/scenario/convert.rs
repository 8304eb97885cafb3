//! Document <-> engine job: [`to_spec`] and [`from_spec`].
//!
//! [`to_spec`] gives every omitted field its documented default (table in `document`),
//! parses durations and sizes with the engine's own `time` functions, applies `config`
//! through `EngineConfig::set` (JSON numbers and booleans become their Flink string form;
//! an old alias and its current key given together is an error), and finally runs
//! `JobSpec::validate` and the cost limits (`scenario::cost::check`). Every error names the field (`operators[2].cost`,
//! `config.execution.checkpointing.interval`, `events[0].at`).
//!
//! [`from_spec`] goes back, e.g. after the UI recorded a user action into the engine's
//! spec: it writes only what differs from the defaults (config keys that differ from
//! Flink's default, operator fields that differ from the kind's default), with durations
//! and sizes in the largest unit that states them exactly (`"10min"`, `"250us"`, `"4kb"`).
//! The contract, tested for every preset and every config key:
//! `to_spec(&from_spec(&spec)) == Ok(spec)` for any valid spec.

use super::document::{
    ActionDoc, ConfigValue, Document, EdgeDoc, EventDoc, Kind, OperatorDoc, SizeValue,
    CURRENT_VERSION,
};
use super::error::ScenarioError;
use crate::engine::config::{
    canonical_key, removed_key, CheckpointingMode, ConfigError, EngineConfig, KEYS,
};
use crate::engine::log::{text, Msg};
use crate::engine::spec::{
    Action, ChainingStrategy, EdgeSpec, JobSpec, OperatorChaining, OperatorKind, OperatorSpec,
    Partitioner, SinkDelivery, SourceApi, SourceSpec, TimedAction,
};
use crate::engine::time::{parse_duration_msg, parse_size_msg, Micros};

/// Defaults for omitted operator fields (see the table in `document`).
pub mod defaults {
    use super::Micros;
    pub const PARALLELISM: u32 = 1;
    pub const SOURCE_COST: Micros = 0;
    pub const MAP_COST: Micros = 100;
    pub const FLAT_MAP_COST: Micros = 100;
    pub const KEYED_AGGREGATE_COST: Micros = 200;
    pub const SINK_COST: Micros = 100;
    pub const RATE: f64 = 1000.0;
    pub const RECORD_SIZE: u32 = 256;
    pub const KEYS: u32 = 64;
    pub const SKEW: f64 = 0.0;
    pub const FAN_OUT: u32 = 2;
}

fn default_cost(kind: Kind) -> Micros {
    match kind {
        Kind::Source => defaults::SOURCE_COST,
        Kind::Map => defaults::MAP_COST,
        Kind::FlatMap => defaults::FLAT_MAP_COST,
        Kind::KeyedAggregate => defaults::KEYED_AGGREGATE_COST,
        Kind::Sink => defaults::SINK_COST,
    }
}

fn duration_at(text: &str, path: impl Into<String>) -> Result<Micros, ScenarioError> {
    parse_duration_msg(text).map_err(|m| ScenarioError::of(path, m))
}

/// Flink's default partitioner: forward between equal parallelisms, else rebalance; into a
/// keyed aggregate `hash`, the `keyBy` every keyed operator follows (keyed state exists
/// only on a `KeyedStream`; `JobSpec::validate` refuses any other input). `from` and `to`
/// are the parallelisms of the edge's ends (`None`: no such operator), `keyed` says
/// whether `to` is a keyed aggregate.
pub(crate) fn default_partitioner(from: Option<u32>, to: Option<u32>, keyed: bool) -> Partitioner {
    match (from, to) {
        _ if keyed => Partitioner::Hash,
        (Some(a), Some(b)) if a == b => Partitioner::Forward,
        _ => Partitioner::Rebalance,
    }
}

/// The engine job a document describes, validated.
pub fn to_spec(doc: &Document) -> Result<JobSpec, ScenarioError> {
    let spec = unvalidated_spec(doc)?;
    spec.validate()?;
    super::cost::check(&spec)?;
    if let Some(guide) = &doc.guide {
        super::guide::check(guide, doc)?;
    }
    Ok(spec)
}

/// The engine job a document describes, with every field parsed and defaulted but the
/// job not yet validated (`check` lists all its problems from here).
pub(crate) fn unvalidated_spec(doc: &Document) -> Result<JobSpec, ScenarioError> {
    check_sizes(doc)?;
    if doc.version != CURRENT_VERSION {
        return Err(ScenarioError::of(
            "version",
            Msg::new(
                "scenario version {0} is not the one this playground understands ({1})",
                vec![text(doc.version), text(CURRENT_VERSION)],
            ),
        ));
    }
    let duration = duration_at(&doc.duration, "duration")?;
    let config = build_config(doc)?;
    let mut operators = Vec::with_capacity(doc.operators.len());
    for (i, o) in doc.operators.iter().enumerate() {
        operators.push(operator_spec(o, &format!("operators[{i}]"))?);
    }
    let mut first = std::collections::BTreeMap::new();
    for o in &operators {
        first.entry(o.id.as_str()).or_insert(o);
    }
    let parallelism = |id: &str| first.get(id).map(|o| o.parallelism);
    let keyed = |id: &str| {
        first
            .get(id)
            .is_some_and(|o| matches!(o.kind, OperatorKind::KeyedAggregate))
    };
    let edges = doc
        .edges
        .iter()
        .map(|e| EdgeSpec {
            from: e.from.clone(),
            to: e.to.clone(),
            partitioner: e.partitioner.unwrap_or_else(|| {
                default_partitioner(parallelism(&e.from), parallelism(&e.to), keyed(&e.to))
            }),
        })
        .collect();
    let mut events = Vec::with_capacity(doc.events.len());
    for (i, e) in doc.events.iter().enumerate() {
        let p = format!("events[{i}]");
        let at = duration_at(&e.at, format!("{p}.at"))?;
        let action = match &e.action {
            ActionDoc::SetCost { operator, cost } => Action::SetCost {
                operator: operator.clone(),
                cost: duration_at(cost, format!("{p}.set_cost.cost"))?,
            },
            ActionDoc::SetRate { operator, rate } => Action::SetRate {
                operator: operator.clone(),
                rate: *rate,
            },
            ActionDoc::Fail { operator, subtask } => Action::Fail {
                operator: operator.clone(),
                subtask: *subtask,
            },
            ActionDoc::TriggerCheckpoint => Action::TriggerCheckpoint,
            ActionDoc::Savepoint => Action::Savepoint,
            ActionDoc::StopWithSavepoint { drain } => Action::StopWithSavepoint { drain: *drain },
            ActionDoc::SetConfig { key, value } => {
                // A removed key still converts (the engine ignores it; `notes` says so).
                if canonical_key(key).is_none() && removed_key(key).is_none() {
                    return Err(config_error(
                        format!("{p}.set_config.key"),
                        key,
                        unknown_key(key),
                    ));
                }
                Action::SetConfig {
                    key: key.clone(),
                    value: value.to_flink_string(),
                }
            }
            ActionDoc::SetPartitioner {
                from,
                to,
                partitioner,
            } => Action::SetPartitioner {
                from: from.clone(),
                to: to.clone(),
                partitioner: *partitioner,
            },
            ActionDoc::Resubmit(r) => Action::Resubmit(Box::new(r.clone())),
        };
        events.push(TimedAction { at, action });
    }
    Ok(JobSpec {
        name: doc.name.clone(),
        seed: doc.seed,
        duration,
        config,
        operators,
        edges,
        events,
    })
}

/// Size first (for documents built in memory, e.g. by the editor; `Document::from_json`
/// already refused larger ones): more operators, edges or events than a job may have is
/// refused before any of them is converted.
pub(crate) fn check_sizes(doc: &Document) -> Result<(), ScenarioError> {
    use crate::engine::spec::limits;
    let sizes = [
        ("operators", doc.operators.len(), limits::MAX_OPERATORS),
        ("edges", doc.edges.len(), limits::MAX_EDGES),
        ("events", doc.events.len(), limits::MAX_EVENTS),
        ("config", doc.config.len(), limits::MAX_CONFIG_KEYS),
    ];
    for (field, len, max) in sizes {
        if len > max {
            return Err(ScenarioError::of(
                field,
                Msg::new(
                    "{0} {1}; a scenario has at most {2}",
                    vec![text(len), text(field), text(max)],
                ),
            ));
        }
    }
    Ok(())
}

fn build_config(doc: &Document) -> Result<EngineConfig, ScenarioError> {
    let mut config = EngineConfig::default();
    let mut seen: Vec<(&'static str, &str)> = Vec::new();
    // The Flink version first: it decides the defaults the other keys replace.
    let version_first = doc
        .config
        .iter()
        .filter(|(k, _)| canonical_key(k) == Some(VERSION_KEY))
        .chain(
            doc.config
                .iter()
                .filter(|(k, _)| canonical_key(k) != Some(VERSION_KEY)),
        );
    for (key, value) in version_first {
        let path = format!("config.{key}");
        if let Some(canonical) = canonical_key(key) {
            if let Some((_, other)) = seen.iter().find(|(c, _)| *c == canonical) {
                return Err(ScenarioError::of(
                    path,
                    Msg::new(
                        "is the same option as '{0}'; give it once",
                        vec![text(other)],
                    ),
                ));
            }
            seen.push((canonical, key));
        }
        config
            .set(key, &value.to_flink_string())
            .map_err(|e| config_error(path, key, e))?;
    }
    Ok(config)
}

/// The error [`EngineConfig::set`] gives for a key it does not know (with its "did you
/// mean"), for a caller that found the key unknown with `canonical_key`.
pub(crate) fn unknown_key(key: &str) -> ConfigError {
    match EngineConfig::default().set(key, "") {
        Err(e) => e,
        Ok(()) => ConfigError::new(key, Msg::new("unknown configuration key", vec![])),
    }
}

/// A config error at `path`; an unknown key is named in the message too.
pub(crate) fn config_error(path: impl Into<String>, key: &str, e: ConfigError) -> ScenarioError {
    const UNKNOWN: &str = "unknown configuration key";
    let named = text(super::error::excerpt(key));
    let msg = match e.msg.code {
        UNKNOWN => Msg::new("unknown configuration key '{0}'", vec![named]),
        "unknown configuration key (did you mean '{0}'?)" => Msg::new(
            "unknown configuration key '{0}' (did you mean '{1}'?)",
            [vec![named], e.msg.args.clone()].concat(),
        ),
        _ => e.msg.clone(),
    };
    // The structured form states exactly the English (an unknown key's message is the
    // engine's with the key named after its first words).
    let message = match e.message.strip_prefix(UNKNOWN) {
        Some(rest) => format!("{UNKNOWN} '{}'{rest}", super::error::excerpt(key)),
        None => e.message,
    };
    if msg.english() == message {
        ScenarioError::of(path, msg)
    } else {
        ScenarioError::new(path, message)
    }
}

pub(crate) fn operator_spec(o: &OperatorDoc, path: &str) -> Result<OperatorSpec, ScenarioError> {
    let at = |f: &str| format!("{path}.{f}");
    let cost = match &o.cost {
        Some(c) => duration_at(c, at("cost"))?,
        None => default_cost(o.kind),
    };
    let kind = match o.kind {
        Kind::Source => {
            let record_size = match &o.record_size {
                None => defaults::RECORD_SIZE,
                Some(SizeValue::Bytes(b)) => u32::try_from(*b).unwrap_or(u32::MAX),
                Some(SizeValue::Text(t)) => {
                    let b =
                        parse_size_msg(t).map_err(|m| ScenarioError::of(at("record_size"), m))?;
                    u32::try_from(b).unwrap_or(u32::MAX)
                }
            };
            OperatorKind::Source(SourceSpec {
                rate: o.rate.unwrap_or(defaults::RATE),
                records: o.records,
                record_size,
                keys: o.keys.unwrap_or(defaults::KEYS),
                skew: o.skew.unwrap_or(defaults::SKEW),
                api: match o.legacy {
                    Some(true) => SourceApi::Legacy,
                    _ => SourceApi::Flip27,
                },
                retention: match &o.retention {
                    Some(r) => Some(duration_at(r, at("retention"))?),
                    None => None,
                },
            })
        }
        Kind::Map => OperatorKind::Map,
        Kind::FlatMap => OperatorKind::FlatMap {
            fan_out: o.fan_out.unwrap_or(defaults::FAN_OUT),
        },
        Kind::KeyedAggregate => OperatorKind::KeyedAggregate,
        Kind::Sink => OperatorKind::Sink {
            delivery: o.delivery.unwrap_or(SinkDelivery::TwoPhaseCommit),
        },
    };
    Ok(OperatorSpec {
        id: o.id.clone(),
        kind,
        parallelism: o.parallelism.unwrap_or(defaults::PARALLELISM),
        cost,
        chaining: operator_chaining(o, path)?,
    })
}

/// `disable_chaining` / `start_new_chain` / `slot_sharing_group` as the engine's
/// [`OperatorChaining`]; both overrides at once is refused (in Flink the later call wins,
/// which a document cannot order). A group given is kept even when it is `"default"`:
/// Flink takes a specified group as it is, and only an unspecified one is inherited from
/// the inputs (`StreamGraphGenerator.determineSlotSharingGroup`).
fn operator_chaining(o: &OperatorDoc, path: &str) -> Result<OperatorChaining, ScenarioError> {
    let strategy = match (o.disable_chaining, o.start_new_chain) {
        (Some(true), Some(true)) => {
            return Err(ScenarioError::of(
                format!("{path}.start_new_chain"),
                Msg::new(
                    "give disable_chaining or start_new_chain, not both (disableChaining() already keeps the operator out of every chain)",
                    vec![],
                ),
            ))
        }
        (Some(true), _) => ChainingStrategy::Never,
        (_, Some(true)) => ChainingStrategy::Head,
        _ => ChainingStrategy::Always,
    };
    Ok(OperatorChaining {
        strategy,
        slot_sharing_group: o.slot_sharing_group.clone(),
    })
}

const VERSION_KEY: &str = "playground.flink.version";

/// The document describing `spec`, with defaults left out (the defaults of its Flink
/// version; the version itself is written when it is not the default one).
pub fn from_spec(spec: &JobSpec) -> Document {
    let version_defaults = EngineConfig::for_version(spec.config.flink_version);
    let plain_defaults = EngineConfig::default();
    let config = KEYS
        .iter()
        .filter_map(|k| {
            let v = config_value(k.key, &spec.config)?;
            let default_config = match k.key {
                VERSION_KEY => &plain_defaults,
                _ => &version_defaults,
            };
            (Some(&v) != config_value(k.key, default_config).as_ref())
                .then(|| (k.key.to_string(), v))
        })
        .collect();
    let operators = spec.operators.iter().map(operator_doc).collect();
    let edges = spec
        .edges
        .iter()
        .map(|e| EdgeDoc {
            from: e.from.clone(),
            to: e.to.clone(),
            partitioner: Some(e.partitioner),
        })
        .collect();
    let events = spec
        .events
        .iter()
        .map(|e| EventDoc {
            at: duration_text(e.at),
            action: match &e.action {
                Action::SetCost { operator, cost } => ActionDoc::SetCost {
                    operator: operator.clone(),
                    cost: duration_text(*cost),
                },
                Action::SetRate { operator, rate } => ActionDoc::SetRate {
                    operator: operator.clone(),
                    rate: *rate,
                },
                Action::Fail { operator, subtask } => ActionDoc::Fail {
                    operator: operator.clone(),
                    subtask: *subtask,
                },
                Action::TriggerCheckpoint => ActionDoc::TriggerCheckpoint,
                Action::Savepoint => ActionDoc::Savepoint,
                Action::StopWithSavepoint { drain } => {
                    ActionDoc::StopWithSavepoint { drain: *drain }
                }
                Action::SetConfig { key, value } => ActionDoc::SetConfig {
                    key: key.clone(),
                    value: ConfigValue::Text(value.clone()),
                },
                Action::SetPartitioner {
                    from,
                    to,
                    partitioner,
                } => ActionDoc::SetPartitioner {
                    from: from.clone(),
                    to: to.clone(),
                    partitioner: *partitioner,
                },
                Action::Resubmit(r) => ActionDoc::Resubmit((**r).clone()),
            },
        })
        .collect();
    Document {
        version: CURRENT_VERSION,
        name: spec.name.clone(),
        description: None,
        seed: spec.seed,
        duration: duration_text(spec.duration),
        config,
        operators,
        edges,
        events,
        guide: None,
        compare: None,
    }
}

pub(crate) fn operator_doc(o: &OperatorSpec) -> OperatorDoc {
    let kind = match o.kind {
        OperatorKind::Source(_) => Kind::Source,
        OperatorKind::Map => Kind::Map,
        OperatorKind::FlatMap { .. } => Kind::FlatMap,
        OperatorKind::KeyedAggregate => Kind::KeyedAggregate,
        OperatorKind::Sink { .. } => Kind::Sink,
    };
    let mut d = OperatorDoc::new(o.id.clone(), kind);
    d.parallelism = Some(o.parallelism);
    d.cost = (o.cost != default_cost(kind)).then(|| duration_text(o.cost));
    d.disable_chaining = (o.chaining.strategy == ChainingStrategy::Never).then_some(true);
    d.start_new_chain = (o.chaining.strategy == ChainingStrategy::Head).then_some(true);
    d.slot_sharing_group = o.chaining.slot_sharing_group.clone();
    match &o.kind {
        OperatorKind::Source(s) => {
            d.rate = (s.rate != defaults::RATE).then_some(s.rate);
            d.records = s.records;
            d.record_size = (s.record_size != defaults::RECORD_SIZE)
                .then_some(SizeValue::Bytes(s.record_size as u64));
            d.keys = (s.keys != defaults::KEYS).then_some(s.keys);
            d.skew = (s.skew != defaults::SKEW).then_some(s.skew);
            d.legacy = s.api.is_legacy().then_some(true);
            d.retention = s.retention.map(duration_text);
        }
        OperatorKind::FlatMap { fan_out } => {
            d.fan_out = (*fan_out != defaults::FAN_OUT).then_some(*fan_out);
        }
        OperatorKind::Sink { delivery } => {
            d.delivery = (*delivery != SinkDelivery::TwoPhaseCommit).then_some(*delivery);
        }
        OperatorKind::Map | OperatorKind::KeyedAggregate => {}
    }
    d
}

/// A duration in the largest unit that states it exactly: `10min`, `2s`, `100ms`, `250us`.
pub fn duration_text(us: Micros) -> String {
    const MIN: Micros = 60_000_000;
    if us == 0 {
        "0s".into()
    } else if us.is_multiple_of(MIN) {
        format!("{}min", us / MIN)
    } else if us.is_multiple_of(1_000_000) {
        format!("{}s", us / 1_000_000)
    } else if us.is_multiple_of(1_000) {
        format!("{}ms", us / 1_000)
    } else {
        format!("{us}us")
    }
}

/// A size in the largest unit that states it exactly: `1mb`, `4kb`, `300b`.
pub fn size_text(bytes: u64) -> String {
    if bytes != 0 && bytes.is_multiple_of(1 << 20) {
        format!("{}mb", bytes >> 20)
    } else if bytes != 0 && bytes.is_multiple_of(1024) {
        format!("{}kb", bytes >> 10)
    } else {
        format!("{bytes}b")
    }
}

/// The value of `key` in `c`, as `from_spec` writes it; `None` for a key this layer
/// does not know (a test checks every key of `KEYS` is known).
pub fn config_value(key: &str, c: &EngineConfig) -> Option<ConfigValue> {
    use ConfigValue::{Bool, Number, Text};
    let dur = |v: Micros| Some(Text(duration_text(v)));
    let size = |v: u64| Some(Text(size_text(v)));
    let count = |v: u32| Some(Number(v.into()));
    match key {
        "execution.checkpointing.interval" => Some(Text(match c.checkpoint_interval {
            None => "none".into(),
            Some(v) => duration_text(v),
        })),
        "execution.checkpointing.mode" => Some(Text(
            match c.mode {
                CheckpointingMode::ExactlyOnce => "EXACTLY_ONCE",
                CheckpointingMode::AtLeastOnce => "AT_LEAST_ONCE",
            }
            .into(),
        )),
        "execution.checkpointing.unaligned.enabled" => Some(Bool(c.unaligned)),
        "execution.checkpointing.unaligned.forced" => Some(Bool(c.unaligned_forced)),
        "execution.checkpointing.aligned-checkpoint-timeout" => dur(c.aligned_checkpoint_timeout),
        "execution.checkpointing.timeout" => dur(c.checkpoint_timeout),
        "execution.checkpointing.min-pause" => dur(c.min_pause),
        "execution.checkpointing.max-concurrent-checkpoints" => count(c.max_concurrent),
        "execution.checkpointing.tolerable-failed-checkpoints" => count(c.tolerable_failed),
        "execution.checkpointing.unaligned.max-subtasks-per-channel-state-file" => {
            count(c.max_subtasks_per_channel_state_file)
        }
        "execution.checkpointing.recover-without-channel-state.checkpoint-id" => {
            Some(Number(c.recover_without_channel_state_checkpoint_id.into()))
        }
        "execution.checkpointing.unaligned.recover-output-on-downstream.enabled" => {
            Some(Bool(c.unaligned_recover_output_on_downstream))
        }
        "execution.checkpointing.unaligned.during-recovery.enabled" => {
            Some(Bool(c.unaligned_during_recovery))
        }
        "taskmanager.memory.segment-size" => size(c.segment_size as u64),
        "taskmanager.memory.min-segment-size" => size(c.min_segment_size as u64),
        "taskmanager.network.memory.buffers-per-channel" => count(c.buffers_per_channel),
        "taskmanager.network.memory.floating-buffers-per-gate" => {
            count(c.floating_buffers_per_gate)
        }
        "taskmanager.network.memory.max-buffers-per-channel" => count(c.max_buffers_per_channel),
        "taskmanager.network.memory.max-overdraft-buffers-per-gate" => {
            count(c.max_overdraft_buffers_per_gate)
        }
        "execution.buffer-timeout.interval" => dur(c.buffer_timeout),
        "taskmanager.network.memory.buffer-debloat.enabled" => Some(Bool(c.debloat_enabled)),
        "taskmanager.network.memory.buffer-debloat.target" => dur(c.debloat_target),
        "taskmanager.network.memory.buffer-debloat.period" => dur(c.debloat_period),
        "taskmanager.network.memory.buffer-debloat.samples" => count(c.debloat_samples),
        "taskmanager.network.memory.buffer-debloat.threshold-percentages" => {
            count(c.debloat_threshold_percentages)
        }
        "state.storage.fs.memory-threshold" => size(c.memory_threshold),
        "playground.flink.version" => Some(Text(c.flink_version.name().into())),
        "restart-strategy.type" => Some(Text(
            c.restart_strategy.map(|t| t.name()).unwrap_or("").into(),
        )),
        "restart-strategy.fixed-delay.attempts" => count(c.fixed_delay_attempts),
        "restart-strategy.fixed-delay.delay" => dur(c.restart_delay),
        "pipeline.operator-chaining.enabled" => Some(Bool(c.operator_chaining)),
        "taskmanager.numberOfTaskSlots" => count(c.slots_per_task_manager),
        "minicluster.number-of-taskmanagers" => match c.task_managers {
            None => Some(Text("none".into())),
            Some(n) => count(n),
        },
        "taskmanager.load-balance.mode" => Some(Text(
            if c.load_balance_slots {
                "SLOTS"
            } else {
                "NONE"
            }
            .into(),
        )),
        "cluster.evenly-spread-out-slots" => Some(Bool(c.evenly_spread_out_slots)),
        "jobmanager.execution.failover-strategy" => {
            Some(Text(if c.failover_full { "full" } else { "region" }.into()))
        }
        "restart-strategy.failure-rate.max-failures-per-interval" => {
            count(c.failure_rate_max_failures)
        }
        "restart-strategy.failure-rate.failure-rate-interval" => dur(c.failure_rate_interval),
        "restart-strategy.failure-rate.delay" => dur(c.failure_rate_delay),
        "restart-strategy.exponential-delay.initial-backoff" => dur(c.exp_initial_backoff),
        "restart-strategy.exponential-delay.max-backoff" => dur(c.exp_max_backoff),
        "restart-strategy.exponential-delay.backoff-multiplier" => {
            Some(Text(c.exp_multiplier.to_string()))
        }
        "restart-strategy.exponential-delay.reset-backoff-threshold" => dur(c.exp_reset_threshold),
        "restart-strategy.exponential-delay.jitter-factor" => Some(Text(c.exp_jitter.to_string())),
        "restart-strategy.exponential-delay.attempts-before-reset-backoff" => count(c.exp_attempts),
        "playground.network.latency" => dur(c.network_latency),
        "playground.rpc.latency" => dur(c.rpc_latency),
        "playground.storage.throughput" => size(c.storage_throughput),
        "playground.storage.file-cost" => dur(c.storage_file_cost),
        "playground.state.bytes-per-key" => size(c.state_bytes_per_key as u64),
        "playground.task.availability-check" => Some(Bool(c.availability_check)),
        "playground.serializer.version" => count(c.serializer_version),
        "execution.checkpointing.externalized-checkpoint-retention" => {
            Some(Text(c.checkpoint_retention.name().into()))
        }
        "execution.checkpointing.num-retained" => count(c.num_retained),
        "execution.state-recovery.claim-mode" => Some(Text(c.claim_mode.name().into())),
        "execution.state-recovery.ignore-unclaimed-state" => Some(Bool(c.ignore_unclaimed_state)),
        "pipeline.max-parallelism" => Some(Number(c.max_parallelism.map_or(-1, i64::from).into())),
        "playground.network.local-channels" => Some(Bool(c.local_channels)),
        "playground.channel-state.writers-per-taskmanager" => {
            Some(Bool(c.writers_per_task_manager))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{parse_duration, parse_size};

    #[test]
    fn every_engine_key_has_a_writer() {
        let c = EngineConfig::default();
        for k in KEYS {
            assert!(config_value(k.key, &c).is_some(), "{} has no writer", k.key);
        }
    }

    #[test]
    fn texts_are_exact() {
        for us in [
            0,
            1,
            999,
            1_000,
            1_500,
            2_000_000,
            2_500_000,
            600_000_000,
            90_000_000,
        ] {
            assert_eq!(parse_duration(&duration_text(us)).unwrap(), us);
        }
        for b in [0, 1, 300, 1024, 4096, 1 << 20, 3 << 20, 1025] {
            assert_eq!(parse_size(&size_text(b)).unwrap(), b);
        }
        assert_eq!(duration_text(600_000_000), "10min");
        assert_eq!(size_text(4096), "4kb");
    }
}
