//! Production-sized jobs (issue 19 item 4): a hash exchange at parallelism 128 builds and
//! runs with its invariants (every record once, no leaked buffer, credit conservation),
//! and the limits past it are refused with a message naming them. Not timed: the job is
//! small in records (a bounded source) and wide in channels (16,384), so it costs what
//! the width costs.

mod common;

use checkpoint_playground::engine::config::EngineConfig;
use checkpoint_playground::engine::runtime::JobStatus;
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::time_travel::Rewinder;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;
use common::{d, edge, op, sink, source};

/// source(p) -hash-> keyed_aggregate(p) -forward-> 2PC sink(p), version-2 defaults
/// (chaining, local channels), checkpoints every 200 ms.
fn hash_job(p: u32, records: Option<u64>, rate: f64, duration: &str) -> JobSpec {
    let mut config = EngineConfig::default();
    config
        .set("execution.checkpointing.interval", "200ms")
        .unwrap();
    JobSpec {
        name: format!("hash at {p}"),
        seed: 11,
        duration: d(duration),
        config,
        operators: vec![
            source("src", p, rate, records),
            op("agg", OperatorKind::KeyedAggregate, p, "50us"),
            sink("out", p, "100us", SinkDelivery::TwoPhaseCommit),
        ],
        edges: vec![
            edge("src", "agg", Partitioner::Hash),
            edge("agg", "out", Partitioner::Forward),
        ],
        events: vec![],
    }
}

#[test]
fn a_hash_job_at_parallelism_128_delivers_every_record_once_and_returns_every_buffer() {
    let mut e = Engine::new(hash_job(128, Some(30), 100.0, "20s")).unwrap();
    assert_eq!(e.channels.len(), 128 * 128);
    let mut steps = 0u64;
    while e.step() {
        steps += 1;
        // The checker walks all 16,384 channels: every 2,000th step and at the end.
        if steps.is_multiple_of(2000) {
            e.check_invariants()
                .unwrap_or_else(|m| panic!("after {steps} steps: {m}"));
        }
    }
    e.check_invariants().unwrap();
    assert_eq!(e.status, JobStatus::Finished, "at {} µs", e.now);
    e.check_no_leak().unwrap();
    let v = e.sink_verdict(2);
    assert_eq!(v.expected, Some(128 * 30));
    assert!(v.exactly_once, "{v:?}");
    assert_eq!(v.committed_records, 128 * 30);
    assert!(e.coordinator.history.len() >= 2, "checkpoints completed");
}

/// Time travel keeps its memory budget at that width: the snapshots' estimate never
/// exceeds it, and more than the start snapshot fits (a seek does not replay from 0).
#[test]
fn time_travel_holds_its_budget_at_parallelism_128() {
    let mut e = Engine::new(hash_job(128, None, 20.0, "4s")).unwrap();
    let mut rw = Rewinder::for_host(&e);
    while !e.is_done() {
        let t = e.now + 100_000;
        e.run_until(t);
        rw.observe(&e);
        assert!(
            rw.total_bytes() <= rw.budget(),
            "{} bytes",
            rw.total_bytes()
        );
    }
    assert!(
        rw.snapshot_times().len() > 1,
        "only the start snapshot was kept"
    );
}

#[test]
fn parallelism_past_the_limit_is_refused_naming_it() {
    let err = Engine::new(hash_job(1025, Some(1), 1.0, "1s")).unwrap_err();
    assert_eq!(err.path, "operators[0].parallelism");
    assert!(
        err.message.contains("1 to 1024, the limit per operator"),
        "{}",
        err.message
    );
    // 1,024 itself builds (all forward, the aggregate a map since keyed state needs a hash
    // input: one chain per subtask, 1,024 tasks).
    let mut wide = hash_job(1024, Some(1), 1.0, "1s");
    wide.edges[0].partitioner = Partitioner::Forward;
    wide.operators[1].kind = OperatorKind::Map;
    let e = Engine::new(wide).unwrap();
    assert_eq!(e.tasks.len(), 1024);
}

/// An all-to-all edge wider than the channel limit is refused when the document is read,
/// naming the limit (300 × 300 = 90,000 channels > 65,536).
#[test]
fn a_hash_exchange_past_the_channel_limit_is_refused_naming_it() {
    let json = |p: u32| {
        format!(
            r#"{{"version": 2, "name": "wide", "duration": "1s",
            "operators": [{{"id": "src", "kind": "source", "parallelism": {p}, "rate": 1}},
                          {{"id": "out", "kind": "sink", "parallelism": {p}}}],
            "edges": [{{"from": "src", "to": "out", "partitioner": "hash"}}]}}"#
        )
    };
    let doc = scenario::parse_json(&json(300)).unwrap();
    let err = scenario::to_spec(&doc).unwrap_err().to_string();
    assert!(
        err.contains("90000 channels, past the limit of 65536"),
        "{err}"
    );
}
