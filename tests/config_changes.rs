//! One validation for every way the config changes (issue 21, item 1): the scenario's
//! `config`, each `set_config` event checked against the config in effect at its instant,
//! and live actions through `Engine::apply` all meet the same rules, cross-key ones
//! included. A refused document names the event by path and the keys and values in its
//! message; a refused live action changes nothing (the run's event hash is that of a run
//! without it). Regression cases of the issue: a segment size under the minimum set by an
//! event crashed the debloater's `f64::clamp` at 0.5 s.

use checkpoint_playground::engine::spec::Action;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::{self, Document, ScenarioError};
use serde_json::{json, Value};

/// The `backpressure` preset, shortened to 3 s, with `config` added and `events` replaced.
fn backpressure(config: Value, events: Value) -> Value {
    let doc = scenario::preset("backpressure").unwrap();
    let mut v: Value = serde_json::from_str(&scenario::to_json_pretty(&doc)).unwrap();
    v["duration"] = json!("3s");
    v.as_object_mut().unwrap().remove("guide");
    for (k, val) in config.as_object().unwrap() {
        v["config"][k] = val.clone();
    }
    v["events"] = events;
    v
}

fn read(v: &Value) -> Result<Document, ScenarioError> {
    let doc = scenario::parse_json(&v.to_string())?;
    scenario::to_spec(&doc)?;
    Ok(doc)
}

fn refused(v: &Value) -> ScenarioError {
    match read(v) {
        Ok(_) => panic!("accepted: {v}"),
        Err(e) => e,
    }
}

fn assert_names(e: &ScenarioError, path: &str, parts: &[&str]) {
    assert_eq!(e.path, path, "{e}");
    for p in parts {
        assert!(e.message.contains(p), "{e}\nmissing: {p}");
    }
}

fn set(at: &str, key: &str, value: Value) -> Value {
    json!({"at": at, "set_config": {"key": key, "value": value}})
}

const SEGMENT: &str = "taskmanager.memory.segment-size";
const MIN_SEGMENT: &str = "taskmanager.memory.min-segment-size";
const DEBLOAT: &str = "taskmanager.network.memory.buffer-debloat.enabled";
const MODE: &str = "execution.checkpointing.mode";
const UNALIGNED: &str = "execution.checkpointing.unaligned.enabled";
const CONCURRENT: &str = "execution.checkpointing.max-concurrent-checkpoints";
const EXCLUSIVE: &str = "taskmanager.network.memory.buffers-per-channel";
const FLOATING: &str = "taskmanager.network.memory.floating-buffers-per-gate";

/// One cross-key rule: a config that breaks it (path and message parts of the refusal),
/// and a base config plus the one change that breaks it from there.
struct Rule {
    name: &'static str,
    broken: Value,
    config_path: &'static str,
    base: Value,
    change: (&'static str, Value),
    parts: &'static [&'static str],
}

fn rules() -> Vec<Rule> {
    vec![
        Rule {
            name: "segment size under the minimum",
            broken: json!({SEGMENT: "128b", MIN_SEGMENT: "256b"}),
            config_path: "config.taskmanager.memory.min-segment-size",
            base: json!({DEBLOAT: true}),
            change: (SEGMENT, json!("64b")),
            parts: &[MIN_SEGMENT, "(256b)", SEGMENT, "(64b)"],
        },
        Rule {
            name: "minimum above the segment size",
            broken: json!({MIN_SEGMENT: "8kb"}),
            config_path: "config.taskmanager.memory.min-segment-size",
            base: json!({DEBLOAT: true}),
            change: (MIN_SEGMENT, json!("8kb")),
            parts: &[MIN_SEGMENT, "(8kb)", SEGMENT, "(4kb)"],
        },
        Rule {
            name: "unaligned with at-least-once",
            broken: json!({UNALIGNED: true, MODE: "AT_LEAST_ONCE"}),
            config_path: "config.execution.checkpointing.unaligned.enabled",
            base: json!({UNALIGNED: true}),
            change: (MODE, json!("AT_LEAST_ONCE")),
            parts: &[MODE, "EXACTLY_ONCE", "AT_LEAST_ONCE"],
        },
        Rule {
            name: "unaligned with concurrent checkpoints",
            broken: json!({UNALIGNED: true, CONCURRENT: 16}),
            config_path: "config.execution.checkpointing.max-concurrent-checkpoints",
            base: json!({UNALIGNED: true}),
            change: (CONCURRENT, json!(16)),
            parts: &[CONCURRENT, "is 16", UNALIGNED, "one concurrent"],
        },
        Rule {
            name: "no buffer at all",
            broken: json!({EXCLUSIVE: 0, FLOATING: 0}),
            config_path: "config.taskmanager.network.memory.floating-buffers-per-gate",
            base: json!({EXCLUSIVE: 0}),
            change: (FLOATING, json!(0)),
            parts: &[EXCLUSIVE, FLOATING, "0 buffers per channel"],
        },
    ]
}

#[test]
fn every_rule_refuses_the_scenario_config_with_its_path() {
    for r in rules() {
        let e = refused(&backpressure(r.broken.clone(), json!([])));
        assert_eq!(e.path, r.config_path, "{}: {e}", r.name);
        // And the base config alone is fine.
        read(&backpressure(r.base.clone(), json!([])))
            .unwrap_or_else(|e| panic!("{}: base refused: {e}", r.name));
    }
}

#[test]
fn every_rule_refuses_a_set_config_event_with_its_path() {
    for r in rules() {
        let events = json!([
            {"at": "100ms", "trigger_checkpoint": {}},
            {"at": "200ms", "set_cost": {"operator": "out", "cost": "1ms"}},
            set("500ms", r.change.0, r.change.1.clone()),
        ]);
        let e = refused(&backpressure(r.base.clone(), events));
        assert_names(&e, "events[2].set_config", r.parts);
        assert!(e.message.contains("is refused"), "{}: {e}", r.name);
        assert!(e.message.contains("at 500ms"), "{}: {e}", r.name);
    }
}

/// The crash: debloating on, `segment-size` 64b at 0.5 s under the default
/// minimum of 256b. It opened fine and panicked in `f64::clamp` (min > max) at 0.5 s.
#[test]
fn regression_segment_size_event_under_the_minimum_is_refused_when_read() {
    let v = backpressure(
        json!({DEBLOAT: true}),
        json!([set("500ms", SEGMENT, json!("64b"))]),
    );
    let e = refused(&v);
    assert_eq!(
        e.to_string(),
        "events[0].set_config: config key 'taskmanager.memory.segment-size': 64b is refused: \
         taskmanager.memory.min-segment-size (256b) is larger than taskmanager.memory.segment-size \
         (64b); the debloater sizes buffers between the two, with the config in effect at 500ms"
    );
    // The same through a link, as a stranger would open it.
    let doc = scenario::parse_json(&v.to_string()).unwrap();
    let link = scenario::encode_link(&doc);
    let back = scenario::decode_link(&link).unwrap();
    assert_eq!(scenario::to_spec(&back).unwrap_err(), e);
}

#[test]
fn regression_min_segment_size_event_above_the_segment_size_is_refused() {
    let v = backpressure(
        json!({DEBLOAT: true, SEGMENT: "1kb"}),
        json!([set("500ms", MIN_SEGMENT, json!("2kb"))]),
    );
    assert_names(
        &refused(&v),
        "events[0].set_config",
        &[MIN_SEGMENT, "(2kb)", SEGMENT, "(1kb)"],
    );
}

/// Events are checked in the order the engine performs them — time order — against the
/// config each one meets, not in list order and not against the initial config.
#[test]
fn events_meet_the_config_in_effect_at_their_instant() {
    // Listed first but later in time: the minimum is 512b from 1s on, so 256b at 2s breaks it.
    let v = backpressure(
        json!({}),
        json!([
            set("2s", SEGMENT, json!("256b")),
            set("1s", MIN_SEGMENT, json!("512b")),
        ]),
    );
    assert_names(
        &refused(&v),
        "events[0].set_config",
        &["256b is refused", "(512b)", "at 2s"],
    );
    // Each change alone is fine, and in the other time order both are.
    read(&backpressure(
        json!({}),
        json!([set("2s", SEGMENT, json!("256b"))]),
    ))
    .unwrap();
    read(&backpressure(
        json!({}),
        json!([
            set("1s", SEGMENT, json!("1kb")),
            set("2s", MIN_SEGMENT, json!("512b")),
        ]),
    ))
    .unwrap();
    // Two steps to no buffer: 0 exclusive at 1s is fine (8 floating), 0 floating at 2s is not.
    let v = backpressure(
        json!({}),
        json!([
            set("1s", EXCLUSIVE, json!(0)),
            set("2s", FLOATING, json!(0))
        ]),
    );
    assert_names(&refused(&v), "events[1].set_config", &[EXCLUSIVE, FLOATING]);
    // Switching back in time order is fine: unaligned off at 1s, then at-least-once at 2s.
    read(&backpressure(
        json!({UNALIGNED: true}),
        json!([
            set("2s", MODE, json!("AT_LEAST_ONCE")),
            set("1s", UNALIGNED, json!(false)),
        ]),
    ))
    .unwrap();
}

#[test]
fn a_bad_value_in_an_event_keeps_its_message() {
    let v = backpressure(json!({}), json!([set("1s", SEGMENT, json!("1b"))]));
    assert_names(
        &refused(&v),
        "events[0].set_config",
        &[
            "config key 'taskmanager.memory.segment-size'",
            "out of range",
        ],
    );
}

fn engine(v: &Value) -> Engine {
    let doc = scenario::parse_json(&v.to_string()).unwrap();
    Engine::new(scenario::to_spec(&doc).unwrap()).unwrap()
}

/// A live change that breaks a rule is refused by `Engine::apply` with the message a
/// document with that event gets; the run goes on as if it had not been tried.
#[test]
fn every_rule_refuses_a_live_action_and_the_run_goes_on_unchanged() {
    for r in rules() {
        let v = backpressure(r.base.clone(), json!([]));
        let mut plain = engine(&v);
        plain.run_to_end();

        let mut live = engine(&v);
        live.run_until(500_000);
        let config_before = live.config.clone();
        let value = match &r.change.1 {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let e = live
            .apply(Action::SetConfig {
                key: r.change.0.into(),
                value: value.clone(),
            })
            .unwrap_err();
        assert_eq!(e.path, "set_config", "{}: {e}", r.name);
        for p in r.parts {
            assert!(e.message.contains(p), "{}: {e}\nmissing: {p}", r.name);
        }
        // The same message as the document with this event at 500ms.
        let doc_err = refused(&backpressure(
            r.base.clone(),
            json!([set("500ms", r.change.0, r.change.1.clone())]),
        ));
        assert_eq!(doc_err.message, e.message, "{}", r.name);
        assert_eq!(live.config, config_before, "{}", r.name);
        assert!(live.recorded_actions().is_empty(), "{}", r.name);
        live.run_to_end();
        assert_eq!(live.event_hash(), plain.event_hash(), "{}", r.name);
        assert_eq!(live.report().checkpoints, plain.report().checkpoints);
    }
}

/// A live change that is fine now but would make a later scenario event invalid is
/// refused too, naming that event.
#[test]
fn a_live_action_that_breaks_a_later_scenario_event_is_refused() {
    let v = backpressure(json!({}), json!([set("2s", UNALIGNED, json!(true))]));
    let mut e = engine(&v);
    e.run_until(1_000_000);
    let err = e
        .apply(Action::SetConfig {
            key: CONCURRENT.into(),
            value: "2".into(),
        })
        .unwrap_err();
    assert_eq!(err.path, "events[0].set_config", "{err}");
    assert!(
        err.message
            .contains("events[0].set_config would be invalid"),
        "{err}"
    );
    // Valid live changes still go through.
    e.apply(Action::SetConfig {
        key: SEGMENT.into(),
        value: "1kb".into(),
    })
    .unwrap();
    assert_eq!(e.config.segment_size, 1024);
}

/// The debloater itself no longer trusts the config to be valid: a config forced past
/// validation (the engine's fields are public) runs instead of panicking in `f64::clamp`.
#[test]
fn the_debloater_survives_an_empty_size_range() {
    let mut e = engine(&backpressure(json!({DEBLOAT: true}), json!([])));
    e.run_until(300_000);
    e.config.segment_size = 64;
    e.config.min_segment_size = 256;
    e.run_until(1_500_000);
    assert!(e.now() >= 1_500_000);
}
