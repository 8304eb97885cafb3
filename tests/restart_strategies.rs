//! Restart strategies in a run (issue 13 item 5): the delay each failure waits is the one the
//! strategy gives (Flink's default exponential-delay with checkpointing on, jittered from the
//! seed; fixed-delay; failure-rate; disable), the report says it and which subtasks
//! restarted, and a strategy that gives up leaves the job FAILED. Version-1 documents keep
//! their fixed 1 s restarts.

use checkpoint_playground::engine::{Engine, JobStatus};
use checkpoint_playground::scenario;
use serde_json::{json, Value};

/// A small job with one failure at 5s (two with `second`), and `config` merged in.
fn doc(version: u64, config: Value, second: bool) -> Value {
    let mut events = vec![json!({"at": "5s", "fail": {"operator": "map", "subtask": 1}})];
    if second {
        events.push(json!({"at": "9s", "fail": {"operator": "map", "subtask": 0}}));
    }
    let mut c = json!({"execution.checkpointing.interval": "1s"});
    for (k, v) in config.as_object().unwrap() {
        c[k] = v.clone();
    }
    json!({
        "version": version, "seed": 3, "duration": "15s", "config": c,
        "operators": [
            {"id": "src", "kind": "source", "parallelism": 2, "rate": 500},
            {"id": "map", "kind": "map", "parallelism": 2},
            {"id": "out", "kind": "sink", "parallelism": 1}
        ],
        "edges": [{"from": "src", "to": "map"}, {"from": "map", "to": "out", "partitioner": "rebalance"}],
        "events": events
    })
}

fn run(v: &Value) -> Engine {
    let d = scenario::parse_json(&v.to_string()).unwrap();
    let mut e = Engine::new(scenario::to_spec(&d).unwrap()).unwrap();
    e.run_to_end();
    e
}

#[test]
fn flinks_default_with_checkpointing_is_exponential_delay_with_jitter() {
    let e = run(&doc(2, json!({}), true));
    let r = e.report();
    assert_eq!(r.failures.len(), 2);
    let first = r.failures[0].restart_delay_ms.unwrap();
    // initial-backoff 1s, jitter-factor 0.1: [900, 1100] ms, clamped up to the initial 1000.
    assert!((1000.0..=1100.0).contains(&first), "{first}");
    // The second failure (4 s later, well within the 1 h reset threshold): 1.5 s ± 10 %.
    let second = r.failures[1].restart_delay_ms.unwrap();
    assert!((1350.0..=1650.0).contains(&second), "{second}");
    // Version 2 chains `src -> map` (forward, equal parallelism): three tasks, named as
    // Flink's web UI names subtasks.
    assert_eq!(
        r.failures[0].restarted_subtasks,
        vec![
            "Source: src -> map (1/2)",
            "Source: src -> map (2/2)",
            "out: Writer -> out: Committer (1/1)"
        ]
    );
    // Seeded: the same document gives the same delays.
    let again = run(&doc(2, json!({}), true)).report();
    assert_eq!(again.failures[0].restart_delay_ms, Some(first));
    assert_eq!(again.failures[1].restart_delay_ms, Some(second));
}

#[test]
fn the_jitter_differs_between_seeds() {
    let delays: std::collections::BTreeSet<u64> = (0..12)
        .map(|seed| {
            let mut v = doc(2, json!({}), false);
            v["seed"] = json!(seed);
            run(&v).report().failures[0].restart_delay_ms.unwrap() as u64
        })
        .collect();
    assert!(delays.len() > 3, "{delays:?}");
}

#[test]
fn without_checkpointing_flink_does_not_restart() {
    let mut v = doc(2, json!({}), false);
    v["config"] = json!({});
    let e = run(&v);
    assert_eq!(e.status, JobStatus::Failed);
    let f = &e.report().failures[0];
    assert_eq!(f.restart_delay_ms, None);
    assert!(f.restarted_subtasks.is_empty());
}

#[test]
fn disable_fails_the_job_and_fixed_delay_counts_its_attempts() {
    let e = run(&doc(2, json!({"restart-strategy.type": "disable"}), false));
    assert_eq!(e.status, JobStatus::Failed);
    assert!(
        e.log
            .entries
            .iter()
            .any(|l| l.text.contains("allows no further restart")),
        "the log says why"
    );

    let fixed = json!({"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.delay": "300ms"});
    let e = run(&doc(2, fixed.clone(), false));
    assert_ne!(
        e.status,
        JobStatus::Failed,
        "1 attempt (Flink's default) allows one restart"
    );
    assert_eq!(e.report().failures[0].restart_delay_ms, Some(300.0));
    let e = run(&doc(2, fixed, true));
    assert_eq!(
        e.status,
        JobStatus::Failed,
        "the second failure exceeds 1 attempt"
    );
    assert_eq!(e.report().failures[1].restart_delay_ms, None);

    let rate = json!({"restart-strategy.type": "failure-rate",
        "restart-strategy.failure-rate.max-failures-per-interval": 1,
        "restart-strategy.failure-rate.failure-rate-interval": "10s"});
    let e = run(&doc(2, rate, true));
    assert_eq!(
        e.status,
        JobStatus::Failed,
        "2 failures within 10 s exceed 1 per interval"
    );
}

#[test]
fn a_version_1_document_keeps_its_fixed_one_second_restarts() {
    let e = run(&doc(1, json!({}), true));
    let r = e.report();
    assert_ne!(e.status, JobStatus::Failed);
    assert_eq!(r.failures[0].restart_delay_ms, Some(1000.0));
    assert_eq!(r.failures[1].restart_delay_ms, Some(1000.0));
    // And it reads as the version-2 document that pins those defaults.
    let d = scenario::parse_json(&doc(1, json!({}), true).to_string()).unwrap();
    assert_eq!(d.version, 2);
    let pinned: Vec<&str> = d.config.keys().map(String::as_str).collect();
    for k in [
        "playground.flink.version",
        "restart-strategy.type",
        "restart-strategy.fixed-delay.attempts",
        "taskmanager.memory.segment-size",
    ] {
        assert!(pinned.contains(&k), "{k} pinned: {pinned:?}");
    }
    // A version-1 document that sets a pinned key keeps its own value.
    let own = doc(1, json!({"taskmanager.memory.segment-size": "8kb"}), false);
    let spec = scenario::to_spec(&scenario::parse_json(&own.to_string()).unwrap()).unwrap();
    assert_eq!(spec.config.segment_size, 8 * 1024);
}
