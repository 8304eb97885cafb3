//! The scenario document: parsing, validation errors that name the field, conversion to
//! the engine's job and back.

use checkpoint_playground::engine::config::{EngineConfig, KEYS};
use checkpoint_playground::engine::spec::{Action, OperatorKind, Partitioner, SinkDelivery};
use checkpoint_playground::scenario::{
    self, from_spec, parse_json, to_spec, ConfigValue, Document, ScenarioError,
};
use serde_json::{json, Value};

/// The example of `shared/SCENARIO.md`, verbatim.
const CONTRACT_EXAMPLE: &str = r#"{
  "version": 1,
  "name": "Backpressured sink",
  "seed": 7,
  "duration": "60s",
  "config": {
    "execution.checkpointing.interval": "2s",
    "execution.checkpointing.mode": "EXACTLY_ONCE",
    "execution.checkpointing.unaligned.enabled": true,
    "execution.checkpointing.aligned-checkpoint-timeout": "0s",
    "taskmanager.network.memory.buffers-per-channel": 2,
    "taskmanager.network.memory.floating-buffers-per-gate": 8
  },
  "operators": [
    {"id": "src", "kind": "source", "parallelism": 2, "rate": 2000, "records": 50000,
     "record_size": 256, "keys": 64},
    {"id": "explode", "kind": "flat_map", "parallelism": 2, "cost": "50us", "fan_out": 3},
    {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "200us"},
    {"id": "out", "kind": "sink", "parallelism": 1, "cost": "1ms",
     "delivery": "two_phase_commit"}
  ],
  "edges": [
    {"from": "src", "to": "explode", "partitioner": "forward"},
    {"from": "explode", "to": "count", "partitioner": "hash"},
    {"from": "count", "to": "out", "partitioner": "rebalance"}
  ],
  "events": [
    {"at": "20s", "set_cost": {"operator": "out", "cost": "5ms"}},
    {"at": "30s", "fail": {"operator": "count", "subtask": 1}}
  ]
}"#;

fn example() -> Value {
    serde_json::from_str(CONTRACT_EXAMPLE).unwrap()
}

/// Parses and converts; the error of whichever step fails.
fn load(v: &Value) -> Result<checkpoint_playground::engine::spec::JobSpec, ScenarioError> {
    to_spec(&parse_json(&v.to_string())?)
}

fn err(v: &Value) -> ScenarioError {
    load(v).expect_err("should be rejected")
}

#[track_caller]
fn assert_err(v: &Value, path: &str, needle: &str) {
    let e = err(v);
    assert_eq!(e.path, path, "{e}");
    assert!(
        e.message.contains(needle),
        "message of '{e}' lacks '{needle}'"
    );
}

#[test]
fn the_contract_example_parses_into_the_expected_job() {
    let spec = load(&example()).unwrap();
    assert_eq!(spec.name, "Backpressured sink");
    assert_eq!(spec.seed, 7);
    assert_eq!(spec.duration, 60_000_000);
    assert_eq!(spec.config.checkpoint_interval, Some(2_000_000));
    assert!(spec.config.unaligned);
    assert_eq!(spec.operators.len(), 4);
    match &spec.operators[0].kind {
        OperatorKind::Source(s) => {
            assert_eq!(s.rate, 2000.0);
            assert_eq!(s.records, Some(50_000));
            assert_eq!(s.record_size, 256);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(spec.operators[1].cost, 50);
    assert_eq!(spec.operators[1].kind, OperatorKind::FlatMap { fan_out: 3 });
    assert_eq!(
        spec.operators[3].kind,
        OperatorKind::Sink {
            delivery: SinkDelivery::TwoPhaseCommit
        }
    );
    assert_eq!(spec.edges[1].partitioner, Partitioner::Hash);
    assert_eq!(spec.events[0].at, 20_000_000);
    assert_eq!(
        spec.events[1].action,
        Action::Fail {
            operator: "count".into(),
            subtask: 1
        }
    );
}

#[test]
fn omitted_fields_take_the_documented_defaults() {
    let mut v = json!({"version": 2, "operators": [
        {"id": "s", "kind": "source"}, {"id": "m", "kind": "map"},
        {"id": "f", "kind": "flat_map"}, {"id": "k", "kind": "sink"}],
        "edges": [{"from": "s", "to": "m"}, {"from": "m", "to": "f"}, {"from": "f", "to": "k"}]});
    let spec = load(&v).unwrap();
    assert_eq!(spec.seed, 1);
    assert_eq!(spec.duration, 60_000_000);
    assert_eq!(spec.config, EngineConfig::default());
    assert_eq!(
        spec.config.segment_size,
        32 * 1024,
        "Flink's 32 KB segments"
    );
    // The same document as version 1 keeps the old defaults (4 KB segments, overdraft 5,
    // fixed-delay restarts after 1 s without limit).
    v["version"] = json!(1);
    assert_eq!(load(&v).unwrap().config, EngineConfig::version_1());
    let OperatorKind::Source(s) = &spec.operators[0].kind else {
        panic!()
    };
    assert_eq!(
        (s.rate, s.records, s.record_size, s.keys),
        (1000.0, None, 256, 64)
    );
    assert_eq!(spec.operators[0].cost, 0);
    assert_eq!(spec.operators[1].cost, 100);
    assert_eq!(spec.operators[2].kind, OperatorKind::FlatMap { fan_out: 2 });
    assert_eq!(spec.edges[0].partitioner, Partitioner::Forward);
}

#[test]
fn unknown_version_is_refused_clearly() {
    let mut v = example();
    v["version"] = json!(3);
    let e = err(&v);
    assert_eq!(
        e.to_string(),
        "version: scenario version 3 is newer than this playground understands (2)"
    );
    // A newer document's unknown fields don't mask the version message.
    v["hologram"] = json!(true);
    assert_eq!(err(&v).path, "version");
    v["version"] = json!("one");
    assert_err(&v, "version", "not a scenario version");
    v.as_object_mut().unwrap().remove("version");
    assert_err(&v, "version", "missing");
}

#[test]
fn bad_json_names_line_and_column() {
    let e = parse_json("{\n  \"version\": 1,\n  \"name\": \"x\",,\n}").unwrap_err();
    assert!(e.path.starts_with("line 3 column"), "{e}");
    assert!(e.message.starts_with("invalid JSON"), "{e}");
    assert!(!e.message.contains(" at line "), "{e}");
}

#[test]
fn unknown_operator_kind_names_the_field() {
    let mut v = example();
    v["operators"][2]["kind"] = json!("reduce");
    assert_err(&v, "operators[2].kind", "unknown operator kind 'reduce'");
}

#[test]
fn unknown_fields_are_named_with_a_suggestion() {
    let mut v = example();
    v["operators"][1]["fan_outt"] = json!(3);
    assert_err(&v, "operators[1].fan_outt", "did you mean 'fan_out'");
    let mut v = example();
    v["sed"] = json!(3);
    assert_err(&v, "sed", "unknown field");
    let mut v = example();
    v["edges"][0]["weight"] = json!(3);
    assert_err(&v, "edges[0].weight", "unknown field");
    let mut v = example();
    v["events"][0]["set_cost"]["subtask"] = json!(3);
    assert_err(&v, "events[0].set_cost.subtask", "unknown field");
}

#[test]
fn a_field_of_another_kind_is_rejected() {
    let mut v = example();
    v["operators"][2]["fan_out"] = json!(3);
    assert_err(&v, "operators[2].fan_out", "only flat_map operators");
    let mut v = example();
    v["operators"][3]["rate"] = json!(3);
    assert_err(&v, "operators[3].rate", "only source operators");
}

#[test]
fn wrong_types_name_the_field() {
    let mut v = example();
    v["operators"][0]["parallelism"] = json!("2");
    assert_err(&v, "operators[0].parallelism", "expected a whole number");
    let mut v = example();
    v["operators"][1]["cost"] = json!(50);
    assert_err(&v, "operators[1].cost", "with a unit");
    let mut v = example();
    v["config"]["execution.checkpointing.interval"] = json!(["2s"]);
    assert_err(
        &v,
        "config.execution.checkpointing.interval",
        "expected a string",
    );
    let mut v = example();
    v["events"][0]["set_cost"]["cost"] = json!("5 parsecs");
    assert_err(&v, "events[0].set_cost.cost", "parsecs");
}

#[test]
fn unknown_edge_endpoint_names_the_edge() {
    let mut v = example();
    v["edges"][1]["to"] = json!("counter");
    assert_err(&v, "edges[1].to", "unknown operator 'counter'");
}

#[test]
fn cycles_are_rejected() {
    let mut v = example();
    v["operators"][2]["parallelism"] = json!(2);
    v["edges"]
        .as_array_mut()
        .unwrap()
        .push(json!({"from": "count", "to": "explode", "partitioner": "hash"}));
    assert_err(&v, "edges", "cycle");
}

#[test]
fn forward_between_different_parallelisms_is_rejected() {
    let mut v = example();
    v["operators"][1]["parallelism"] = json!(3);
    assert_err(&v, "edges[0].partitioner", "(2 vs 3)");
}

#[test]
fn out_of_range_numbers_are_rejected() {
    let mut v = example();
    v["operators"][0]["parallelism"] = json!(0);
    assert_err(&v, "operators[0].parallelism", "out of range");
    let mut v = example();
    v["operators"][1]["fan_out"] = json!(5000);
    assert_err(&v, "operators[1].fan_out", "out of range");
    let mut v = example();
    v["operators"][0]["rate"] = json!(-5);
    assert_err(&v, "operators[0].rate", "out of range");
    let mut v = example();
    v["operators"][0]["parallelism"] = json!(1u64 << 40);
    assert_err(&v, "operators[0].parallelism", "out of range");
    let mut v = example();
    v["config"]["taskmanager.network.memory.buffers-per-channel"] = json!(-3);
    assert_err(
        &v,
        "config.taskmanager.network.memory.buffers-per-channel",
        "",
    );
    let mut v = example();
    v["events"][1]["fail"]["subtask"] = json!(2);
    assert_err(&v, "events[1].fail.subtask", "subtasks 0 to 1");
}

#[test]
fn unknown_config_keys_are_named() {
    let mut v = example();
    v["config"]["execution.checkpointing.aligned-checkpoint.timeout"] = json!("10min");
    let e = err(&v);
    assert!(
        e.to_string()
            .contains("execution.checkpointing.aligned-checkpoint.timeout"),
        "{e}"
    );
    assert!(
        e.message.contains(
            "unknown configuration key 'execution.checkpointing.aligned-checkpoint.timeout'"
        ),
        "{e}"
    );
    assert!(e.message.contains("did you mean"), "{e}");
    let mut v = example();
    v["events"][0] = json!({"at": "1s", "set_config": {"key": "no.such.key", "value": 1}});
    assert_err(
        &v,
        "events[0].set_config.key",
        "unknown configuration key 'no.such.key'",
    );
}

#[test]
fn an_alias_and_its_key_together_are_refused() {
    let mut v = example();
    v["config"]["execution.checkpointing.unaligned"] = json!(false);
    let e = err(&v);
    assert!(e.message.contains("same option"), "{e}");
}

#[test]
fn events_need_exactly_one_action() {
    let mut v = example();
    v["events"][0] = json!({"at": "1s"});
    assert_err(&v, "events[0]", "needs one action");
    v["events"][0] = json!({"at": "1s", "trigger_checkpoint": {}, "fail": {"operator": "out"}});
    assert_err(&v, "events[0]", "several actions");
    v["events"][0] = json!({"at": "90s", "trigger_checkpoint": {}});
    assert_err(&v, "events[0].at", "after the end");
}

#[test]
fn every_event_kind_round_trips() {
    let mut v = example();
    v["events"] = json!([
        {"at": "1s", "set_cost": {"operator": "out", "cost": "250us"}},
        {"at": "2s", "set_rate": {"operator": "src", "rate": 1500.5}},
        {"at": "3s", "fail": {"operator": "out"}},
        {"at": "4s", "trigger_checkpoint": {}},
        {"at": "5s", "set_config": {"key": "execution.checkpointing.interval", "value": "1s"}},
        {"at": "6s", "set_partitioner": {"from": "count", "to": "out", "partitioner": "hash"}},
    ]);
    let spec = load(&v).unwrap();
    assert_eq!(spec.events.len(), 6);
    assert_eq!(spec.events[3].action, Action::TriggerCheckpoint);
    let back = from_spec(&spec);
    assert_eq!(to_spec(&back).unwrap(), spec);
    let json = back.to_json_pretty();
    assert_eq!(to_spec(&parse_json(&json).unwrap()).unwrap(), spec);
}

#[test]
fn from_spec_keeps_defaults_out() {
    let spec = load(&example()).unwrap();
    let doc = from_spec(&spec);
    // buffers-per-channel 2 and floating 8 are Flink's defaults: not written back. The
    // example is a version-1 document: its old defaults are written as the pins they are.
    let keys: Vec<&str> = doc.config.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "execution.checkpointing.interval",
            "execution.checkpointing.unaligned.enabled",
            "jobmanager.execution.failover-strategy",
            "pipeline.operator-chaining.enabled",
            "playground.channel-state.writers-per-taskmanager",
            "playground.flink.version",
            "playground.network.local-channels",
            "restart-strategy.fixed-delay.attempts",
            "restart-strategy.type",
            "taskmanager.memory.segment-size"
        ]
    );
    assert_eq!(
        doc.config["execution.checkpointing.unaligned.enabled"],
        ConfigValue::Bool(true)
    );
    let src = &doc.operators[0];
    assert_eq!(src.record_size, None, "256 is the default");
    assert_eq!(src.keys, None, "64 is the default");
    assert_eq!(src.records, Some(50_000));
    assert_eq!(doc.operators[3].delivery, None);
    assert_eq!(doc.operators[3].cost.as_deref(), Some("1ms"));
    let json = doc.to_json_pretty();
    assert!(!json.contains("record_size"), "{json}");
    assert!(
        json.contains("\"rate\": 2000,"),
        "whole rates print as integers: {json}"
    );
    assert_eq!(to_spec(&doc).unwrap(), spec);
}

#[test]
fn every_config_key_round_trips_with_a_non_default_value() {
    // One non-default value per key, in Flink syntax.
    let samples: &[(&str, &str)] = &[
        ("execution.checkpointing.interval", "1500ms"),
        ("execution.checkpointing.mode", "AT_LEAST_ONCE"),
        ("execution.checkpointing.unaligned.enabled", "true"),
        ("execution.checkpointing.unaligned.forced", "true"),
        (
            "execution.checkpointing.aligned-checkpoint-timeout",
            "250us",
        ),
        ("execution.checkpointing.timeout", "90s"),
        ("execution.checkpointing.min-pause", "10min"),
        ("execution.checkpointing.max-concurrent-checkpoints", "3"),
        ("execution.checkpointing.tolerable-failed-checkpoints", "7"),
        (
            "execution.checkpointing.unaligned.max-subtasks-per-channel-state-file",
            "1",
        ),
        (
            "execution.checkpointing.recover-without-channel-state.checkpoint-id",
            "12",
        ),
        (
            "execution.checkpointing.unaligned.recover-output-on-downstream.enabled",
            "true",
        ),
        (
            "execution.checkpointing.unaligned.during-recovery.enabled",
            "true",
        ),
        ("taskmanager.memory.segment-size", "1000b"),
        ("taskmanager.memory.min-segment-size", "512b"),
        ("taskmanager.network.memory.buffers-per-channel", "0"),
        ("taskmanager.network.memory.floating-buffers-per-gate", "3"),
        ("taskmanager.network.memory.max-buffers-per-channel", "4"),
        (
            "taskmanager.network.memory.max-overdraft-buffers-per-gate",
            "0",
        ),
        ("execution.buffer-timeout.interval", "0ms"),
        ("taskmanager.network.memory.buffer-debloat.enabled", "true"),
        ("taskmanager.network.memory.buffer-debloat.target", "2500ms"),
        ("taskmanager.network.memory.buffer-debloat.period", "1s"),
        ("taskmanager.network.memory.buffer-debloat.samples", "5"),
        (
            "taskmanager.network.memory.buffer-debloat.threshold-percentages",
            "10",
        ),
        ("state.storage.fs.memory-threshold", "1mb"),
        ("restart-strategy.type", "failure-rate"),
        ("restart-strategy.fixed-delay.attempts", "4"),
        ("restart-strategy.fixed-delay.delay", "3s"),
        (
            "restart-strategy.failure-rate.max-failures-per-interval",
            "3",
        ),
        ("restart-strategy.failure-rate.failure-rate-interval", "30s"),
        ("restart-strategy.failure-rate.delay", "250ms"),
        ("restart-strategy.exponential-delay.initial-backoff", "2s"),
        ("restart-strategy.exponential-delay.max-backoff", "2min"),
        (
            "restart-strategy.exponential-delay.backoff-multiplier",
            "2.5",
        ),
        (
            "restart-strategy.exponential-delay.reset-backoff-threshold",
            "10min",
        ),
        ("restart-strategy.exponential-delay.jitter-factor", "0.25"),
        (
            "restart-strategy.exponential-delay.attempts-before-reset-backoff",
            "9",
        ),
        ("playground.flink.version", "1.20"),
        ("playground.network.latency", "7us"),
        ("playground.rpc.latency", "2ms"),
        ("playground.storage.throughput", "3000b"),
        ("playground.storage.file-cost", "1s"),
        ("playground.state.bytes-per-key", "100b"),
        ("playground.task.availability-check", "false"),
        ("playground.serializer.version", "2"),
        ("pipeline.operator-chaining.enabled", "false"),
        ("taskmanager.numberOfTaskSlots", "2"),
        ("minicluster.number-of-taskmanagers", "8"),
        ("taskmanager.load-balance.mode", "SLOTS"),
        ("cluster.evenly-spread-out-slots", "true"),
        ("jobmanager.execution.failover-strategy", "full"),
        ("playground.network.local-channels", "false"),
        ("playground.channel-state.writers-per-taskmanager", "false"),
        (
            "execution.checkpointing.externalized-checkpoint-retention",
            "RETAIN_ON_CANCELLATION",
        ),
        ("execution.checkpointing.num-retained", "3"),
        ("execution.state-recovery.claim-mode", "CLAIM"),
        ("execution.state-recovery.ignore-unclaimed-state", "true"),
        ("pipeline.max-parallelism", "256"),
    ];
    for k in KEYS {
        assert!(
            samples.iter().any(|(key, _)| *key == k.key),
            "add a sample for {}",
            k.key
        );
    }
    let base = scenario::preset("healthy").unwrap();
    for (key, value) in samples {
        let mut doc = base.clone();
        if *key == "execution.checkpointing.unaligned.during-recovery.enabled" {
            // FLIP-547: checkpointing during recovery needs the output on the downstream.
            let needs = "execution.checkpointing.unaligned.recover-output-on-downstream.enabled";
            doc.set_config(needs, "true").unwrap();
        }
        doc.set_config(key, value).unwrap();
        let spec = match to_spec(&doc) {
            Ok(s) => s,
            // Settings Flink rejects in combination (e.g. AT_LEAST_ONCE with UC) aren't
            // the point here; the healthy preset is aligned, so all of these pass.
            Err(e) => panic!("{key}={value}: {e}"),
        };
        assert_ne!(
            spec.config,
            EngineConfig::default(),
            "{key} is not a default"
        );
        let back = from_spec(&spec);
        assert!(back.config.contains_key(*key), "{key} written back");
        assert_eq!(to_spec(&back).unwrap(), spec, "{key}={value}");
    }
}

#[test]
fn set_config_replaces_aliases_and_checks_keys() {
    let mut doc: Document = scenario::preset("unaligned").unwrap();
    doc.set_config("execution.checkpointing.unaligned", "false")
        .unwrap();
    assert_eq!(
        doc.config["execution.checkpointing.unaligned.enabled"],
        ConfigValue::Text("false".into())
    );
    assert!(!doc.config.contains_key("execution.checkpointing.unaligned"));
    assert!(!to_spec(&doc).unwrap().config.unaligned);
    let e = doc.set_config("nope", "1").unwrap_err();
    assert_eq!(e.path, "config.nope");
    assert!(e.message.contains("'nope'"), "{e}");
}

#[test]
fn record_size_accepts_units() {
    let mut v = example();
    v["operators"][0]["record_size"] = json!("1kb");
    let spec = load(&v).unwrap();
    let OperatorKind::Source(s) = &spec.operators[0].kind else {
        panic!()
    };
    assert_eq!(s.record_size, 1024);
    v["operators"][0]["record_size"] = json!("2mb");
    assert_err(&v, "operators[0].record_size", "1mb");
}

#[test]
fn a_non_object_document_is_refused() {
    let e = parse_json("[1, 2]").unwrap_err();
    assert_eq!(e.to_string(), "scenario: expected an object, got an array");
}

/// `playground.source.legacy-compat` modelled a fix Flink never had and is gone: an old
/// scenario or link that sets it (in `config` or in a recorded `set_config`) still opens
/// and runs exactly as without it, with a note naming where it was and why it is ignored;
/// setting it anew (`--set`, the settings panel) is refused with the same reason.
#[test]
fn the_removed_legacy_compat_key_still_opens_with_a_note() {
    let mut v = example();
    v["operators"][0]["legacy"] = json!(true);
    let without = load(&v).unwrap();
    v["config"]["playground.source.legacy-compat"] = json!(true);
    v["events"]
        .as_array_mut()
        .unwrap()
        .push(json!({"at": "25s", "set_config": {"key": "playground.source.legacy-compat", "value": false}}));
    let doc = parse_json(&v.to_string()).unwrap();
    let with = to_spec(&doc).unwrap();
    assert_eq!(with.config, without.config, "the key changes nothing");
    let notes = scenario::notes(&doc);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].starts_with("config.playground.source.legacy-compat: "),
        "{}",
        notes[0]
    );
    assert!(
        notes[1].starts_with("events[2].set_config.key: "),
        "{}",
        notes[1]
    );
    for n in &notes {
        assert!(
            n.contains("no longer a setting") && n.contains("FLINK-27789") && n.contains("FLIP-27"),
            "{n}"
        );
    }
    assert!(scenario::notes(&scenario::preset("legacy-source").unwrap()).is_empty());
    let mut fresh = scenario::preset("legacy-source").unwrap();
    let e = fresh
        .set_config("playground.source.legacy-compat", "true")
        .unwrap_err();
    assert_eq!(e.path, "config.playground.source.legacy-compat");
    assert!(e.message.contains("no longer a setting"), "{e}");
}

/// A source is a FLIP-27 `Source` unless `legacy` is true (a `SourceFunction`); the kind
/// survives a round trip and `legacy: false` is not written back (it is the default).
#[test]
fn sources_have_flinks_two_kinds() {
    use checkpoint_playground::engine::spec::SourceApi;
    let api = |v: &Value| match &load(v).unwrap().operators[0].kind {
        OperatorKind::Source(s) => s.api,
        _ => unreachable!(),
    };
    let mut v = example();
    assert_eq!(api(&v), SourceApi::Flip27);
    v["operators"][0]["legacy"] = json!(false);
    assert_eq!(api(&v), SourceApi::Flip27);
    v["operators"][0]["legacy"] = json!(true);
    assert_eq!(api(&v), SourceApi::Legacy);
    let spec = load(&v).unwrap();
    let back = from_spec(&spec);
    assert_eq!(back.operators[0].legacy, Some(true));
    assert_eq!(to_spec(&back).unwrap(), spec);
    v["operators"][0]["legacy"] = json!(false);
    assert_eq!(from_spec(&load(&v).unwrap()).operators[0].legacy, None);
}
