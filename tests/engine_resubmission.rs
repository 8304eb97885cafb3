//! Resubmitting a changed job from a retained checkpoint or savepoint (issue 15): each
//! outcome as Flink produces it — a rescaled hash edge from an unaligned checkpoint works
//! exactly-once; a rescaled pointwise edge with in-flight data and a changed max
//! parallelism fail the new job with Flink's messages; in-flight bytes of an old
//! serializer fail the task at runtime until the restart strategy gives up; and
//! `recover-without-channel-state.checkpoint-id` is the way out, losses counted.

use checkpoint_playground::engine::report::Report;
use checkpoint_playground::engine::state_assignment::UNSUPPORTED_MESSAGE;
use checkpoint_playground::engine::state_mapping::{non_restored_message, removed_edge_message};
use checkpoint_playground::engine::{Engine, JobStatus};
use checkpoint_playground::scenario;
use serde_json::{json, Value};

/// A job under backpressure with unaligned checkpoints: src -(hash)-> count -(edge)-> out,
/// with `events` and extra config.
fn doc(edge: &str, config: Value, events: Value) -> Value {
    let mut c = json!({
        "execution.checkpointing.interval": "2s",
        "execution.checkpointing.unaligned.enabled": true,
        "execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION",
        "taskmanager.memory.segment-size": "4kb"
    });
    for (k, v) in config.as_object().expect("object") {
        c[k] = v.clone();
    }
    json!({
        "version": 2, "name": "resubmission", "seed": 7, "duration": "40s",
        "config": c,
        "operators": [
            {"id": "src", "kind": "source", "parallelism": 2, "rate": 1000, "record_size": 256, "keys": 64},
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "1200us"},
            {"id": "out", "kind": "sink", "parallelism": 2, "cost": "100us"}
        ],
        "edges": [
            {"from": "src", "to": "count", "partitioner": "hash"},
            {"from": "count", "to": "out", "partitioner": edge}
        ],
        "events": events
    })
}

fn run(d: &Value) -> (Engine, Report) {
    let doc = scenario::parse_json(&d.to_string()).expect("document");
    let mut e = Engine::new(scenario::to_spec(&doc).expect("spec")).expect("engine");
    e.run_to_end();
    let r = e.report();
    (e, r)
}

#[test]
fn rescaling_a_hash_edge_from_an_unaligned_checkpoint_is_exactly_once() {
    let events =
        json!([{"at": "20s", "resubmit": {"from": "latest", "parallelism": {"count": 3}}}]);
    let (e, r) = run(&doc("rebalance", json!({}), events));
    assert_eq!(e.status, JobStatus::Running);
    let s = &r.resubmissions[0];
    assert_eq!(s.restore_error, None);
    assert!(!s.savepoint);
    assert!(s.recovered_inflight_records > 0, "{s:?}");
    assert!(s.moved_inflight_records > 0, "{s:?}");
    assert_eq!(e.operators[1].parallelism, 3);
    assert_eq!(e.operators[1].tasks.len(), 3);
    // The new job checkpoints again, and the old history is still reported.
    assert!(r
        .checkpoints
        .iter()
        .any(|c| c.status == "completed" && c.trigger_ms > 20_000.0));
    assert!(r
        .checkpoints
        .iter()
        .any(|c| c.status == "completed" && c.trigger_ms < 20_000.0));
    for sink in &r.sinks {
        assert!(sink.exactly_once, "{sink:?}");
        assert_eq!(sink.duplicates, 0);
        assert!(sink.committed_records > 10_000, "{sink:?}");
    }
}

#[test]
fn rescaling_a_pointwise_edge_with_inflight_data_fails_the_new_job() {
    // count -> out is rebalance, with in-flight data under backpressure; the new job makes
    // it rescale and changes out's parallelism.
    let events = json!([{"at": "20s", "resubmit": {
        "from": "latest",
        "parallelism": {"out": 3},
        "partitioners": [{"from": "count", "to": "out", "partitioner": "rescale"}]
    }}]);
    let (e, r) = run(&doc(
        "rebalance",
        json!({"playground.storage.throughput": "1mb"}),
        events,
    ));
    let s = &r.resubmissions[0];
    assert_eq!(e.status, JobStatus::Failed);
    assert_eq!(s.restore_error.as_deref(), Some(UNSUPPORTED_MESSAGE));
    assert!(UNSUPPORTED_MESSAGE.starts_with("Cannot rescale the given pointwise partitioner.\nDid you change the partitioner to forward or rescale?\nIt may also help to add an explicit shuffle()."));
}

#[test]
fn the_same_rescale_from_a_savepoint_works() {
    // `flink stop` (the job FINISHED with its final savepoint), then `flink run -s`.
    let events = json!([
        {"at": "19s", "stop_with_savepoint": {}},
        {"at": "24s", "resubmit": {
            "from": "savepoint",
            "parallelism": {"out": 3},
            "partitioners": [{"from": "count", "to": "out", "partitioner": "rescale"}]
        }}
    ]);
    let (e, r) = run(&doc("rebalance", json!({}), events));
    let s = &r.resubmissions[0];
    assert_eq!(s.restore_error, None, "{s:?}");
    assert!(s.savepoint);
    assert_eq!(s.recovered_inflight_records, 0, "a savepoint is aligned");
    assert_eq!(e.status, JobStatus::Running);
    assert_eq!(e.operators[2].tasks.len(), 3);
    assert!(
        r.sinks.iter().all(|k| k.exactly_once && k.duplicates == 0),
        "{:?}",
        r.sinks
    );
    assert!(
        r.sinks.iter().all(|k| k.committed_records > 20_000),
        "{:?}",
        r.sinks
    );
}

#[test]
fn a_configured_max_parallelism_that_differs_fails_the_restore() {
    let events = json!([{"at": "20s", "resubmit": {
        "from": "latest", "config": {"pipeline.max-parallelism": "256"}
    }}]);
    let (e, r) = run(&doc("rebalance", json!({}), events));
    assert_eq!(e.status, JobStatus::Failed);
    let err = r.resubmissions[0].restore_error.clone().expect("failed");
    assert!(
        err.starts_with("The maximum parallelism (128) with which the latest checkpoint of the execution job vertex ")
            && err.ends_with(" has been taken and the current maximum parallelism (256) changed. This is currently not supported."),
        "{err}"
    );
}

#[test]
fn a_parallelism_above_the_restored_max_parallelism_fails_the_restore() {
    let events =
        json!([{"at": "20s", "resubmit": {"from": "latest", "parallelism": {"count": 3}}}]);
    let (e, r) = run(&doc(
        "rebalance",
        json!({"pipeline.max-parallelism": "2"}),
        events,
    ));
    assert_eq!(e.status, JobStatus::Failed);
    let err = r.resubmissions[0].restore_error.clone().expect("failed");
    assert_eq!(err, "The state for task count can not be restored. The maximum parallelism (2) of the restored state is lower than the configured parallelism (3). Please reduce the parallelism of the task to be lower or equal to the maximum parallelism.");
}

#[test]
fn old_serializer_bytes_fail_the_task_until_the_restart_strategy_gives_up() {
    let events = json!([{"at": "20s", "resubmit": {
        "from": "latest", "config": {"playground.serializer.version": "2"}
    }}]);
    let config = json!({"restart-strategy.type": "fixed-delay", "restart-strategy.fixed-delay.attempts": "2"});
    let (e, r) = run(&doc("rebalance", config, events));
    assert_eq!(
        r.resubmissions[0].restore_error, None,
        "the restore itself works"
    );
    assert!(r.resubmissions[0].recovered_inflight_records > 0);
    assert_eq!(e.status, JobStatus::Failed, "{:?}", r.failures);
    assert_eq!(
        r.failures.len(),
        3,
        "two restarts, then it gives up: {:?}",
        r.failures
    );
    for f in &r.failures {
        assert!(
            f.reason.starts_with(
                "java.io.IOException: Serializer consumed more bytes than the record had."
            ),
            "{}",
            f.reason
        );
    }
    assert!(r.failures[2].restart_delay_ms.is_none());
}

#[test]
fn recover_without_channel_state_is_the_way_out_with_losses_counted() {
    // Find the checkpoint a resubmission at 20 s restores, then name it.
    let events = json!([{"at": "20s", "resubmit": {
        "from": "latest", "config": {"playground.serializer.version": "2"}
    }}]);
    let (_, r) = run(&doc("rebalance", json!({}), events.clone()));
    let id = r.resubmissions[0].restored_checkpoint.expect("restored");
    let config = json!({"execution.checkpointing.recover-without-channel-state.checkpoint-id": id.to_string()});
    let (e, r) = run(&doc("rebalance", config, events));
    let s = &r.resubmissions[0];
    assert_eq!(e.status, JobStatus::Running);
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    assert_eq!(s.recovered_inflight_records, 0);
    assert!(s.lost_records > 0, "{s:?}");
    for sink in &r.sinks {
        assert_eq!(sink.duplicates, 0);
        assert!(
            sink.lost > 0,
            "the dropped in-flight records are missing: {sink:?}"
        );
    }
}

#[test]
fn without_retention_the_checkpoints_are_gone_after_the_cancellation() {
    let events = json!([{"at": "20s", "resubmit": {"from": "latest"}}]);
    let config = json!({"execution.checkpointing.externalized-checkpoint-retention": "NO_EXTERNALIZED_CHECKPOINTS"});
    let (e, r) = run(&doc("rebalance", config, events));
    assert_eq!(e.status, JobStatus::Failed);
    let err = r.resubmissions[0].restore_error.clone().expect("failed");
    assert!(
        err.contains("were discarded when it was cancelled"),
        "{err}"
    );
}

#[test]
fn a_bad_resubmit_event_names_its_field() {
    let events = json!([{"at": "20s", "resubmit": {"from": "latest", "parallelism": {"nope": 3}}}]);
    let d = doc("rebalance", json!({}), events);
    let doc = scenario::parse_json(&d.to_string()).expect("document");
    let err = scenario::to_spec(&doc).expect_err("unknown operator");
    assert!(
        err.to_string()
            .contains("events[0].resubmit.parallelism.nope"),
        "{err}"
    );
    let events = json!([{"at": "20s", "resubmit": {"from": "checkpoint:x"}}]);
    let d = doc_with(events);
    let err = scenario::parse_json(&d.to_string()).expect_err("bad from");
    assert!(err.to_string().contains("resubmit.from"), "{err}");
}

fn doc_with(events: Value) -> Value {
    doc("rebalance", json!({}), events)
}

#[test]
fn a_resubmission_replays_the_same_from_a_clone_at_any_instant() {
    let events = json!([
        {"at": "10s", "resubmit": {"from": "latest", "parallelism": {"count": 3}}},
        {"at": "12s", "resubmit": {"from": "latest", "parallelism": {"count": 1}}}
    ]);
    let d = doc("rebalance", json!({}), events);
    let doc = scenario::parse_json(&d.to_string()).expect("document");
    let spec = scenario::to_spec(&doc).expect("spec");
    let mut straight = Engine::new(spec.clone()).expect("engine");
    straight.run_until(20_000_000);
    for at in [9_999_999, 10_000_000, 11_000_000, 12_000_000, 15_000_000] {
        let mut e = Engine::new(spec.clone()).expect("engine");
        e.run_until(at);
        let mut clone = e.clone();
        clone.run_until(20_000_000);
        assert_eq!(clone.event_hash(), straight.event_hash(), "clone at {at}");
        assert!(clone.pending_events() < 100_000);
    }
    assert_eq!(straight.report().resubmissions.len(), 2);
}

/// The shape of property seed 207 (issue 15): a keyed aggregate fed by `rebalance`, with
/// bounded sources of 2,000 records, rescaled 2 → 3 from a retained checkpoint.
fn keyed_doc(partitioner: &str, events: Value) -> Value {
    json!({
        "version": 2, "name": "keyed input", "seed": 207, "duration": "30s",
        "config": {
            "execution.checkpointing.interval": "500ms",
            "execution.checkpointing.unaligned.enabled": true,
            "execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION"
        },
        "operators": [
            {"id": "src", "kind": "source", "parallelism": 2, "rate": 1000, "records": 2000, "record_size": 64, "keys": 16},
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "300us"},
            {"id": "out", "kind": "sink", "parallelism": 1, "cost": "100us"}
        ],
        "edges": [
            {"from": "src", "to": "count", "partitioner": partitioner},
            {"from": "count", "to": "out", "partitioner": "rebalance"}
        ],
        "events": events
    })
}

/// Each key's count summed over the keyed aggregate's subtasks.
fn key_totals(e: &Engine) -> std::collections::BTreeMap<u64, i64> {
    use checkpoint_playground::engine::task::OpState;
    let mut totals = std::collections::BTreeMap::new();
    for o in e.tasks.iter().flat_map(|t| &t.chain.ops) {
        if let OpState::Keyed(m) = &o.state {
            for (k, v) in m {
                *totals.entry(*k).or_insert(0) += v;
            }
        }
    }
    totals
}

/// Keyed state needs a keyed stream: in Flink only `keyBy` (a `KeyGroupStreamPartitioner`,
/// the playground's `hash`) gives an operator keyed state, so each key lives on exactly one
/// subtask. A keyed aggregate fed by `rebalance` split a key's sum over several subtasks,
/// and a rescale kept only one part (the key-group redistribution puts each key on one
/// new subtask). Such a job is refused where it is read, naming the edge.
#[test]
fn a_keyed_aggregate_needs_a_hash_input() {
    let events = json!([{"at": "2s", "resubmit": {"from": "latest", "parallelism": {"count": 3}}}]);
    for p in ["rebalance", "broadcast", "rescale", "forward"] {
        let d = keyed_doc(p, events.clone());
        let doc = scenario::parse_json(&d.to_string()).expect("document");
        let err = scenario::to_spec(&doc).expect_err(p);
        assert_eq!(err.path, "edges[0].partitioner", "{p}: {err}");
        assert_eq!(
            err.message,
            format!("{p} edge src -> count: 'count' is a keyed aggregate, and keyed state needs a keyed input (keyBy, a hash edge); use hash"),
        );
    }
}

/// The same job fed by `hash` keeps every key's total through the rescale: each key group
/// is on one old subtask and goes whole to one new subtask.
#[test]
fn a_rescaled_keyed_aggregate_keeps_every_keys_total() {
    let (plain, _) = run(&keyed_doc("hash", json!([])));
    let events = json!([{"at": "2s", "resubmit": {"from": "latest", "parallelism": {"count": 3}}}]);
    let (e, r) = run(&keyed_doc("hash", events));
    assert_eq!(r.resubmissions.len(), 1);
    assert_eq!(r.resubmissions[0].restore_error, None);
    assert_eq!(e.operators[1].tasks.len(), 3);
    assert_eq!(plain.status, JobStatus::Finished);
    assert_eq!(e.status, JobStatus::Finished);
    let totals = key_totals(&plain);
    assert_eq!(totals.len(), 16);
    assert_eq!(key_totals(&e), totals);
}

/// A resubmission or a live `set_partitioner` that would feed a keyed aggregate by
/// anything but hash is refused at its own field.
#[test]
fn changing_a_keyed_input_away_from_hash_is_refused_at_its_field() {
    use checkpoint_playground::engine::spec::{Action, Partitioner};
    let events = json!([{"at": "2s", "resubmit": {"from": "latest",
        "partitioners": [{"from": "src", "to": "count", "partitioner": "rebalance"}]}}]);
    let doc = scenario::parse_json(&keyed_doc("hash", events).to_string()).expect("document");
    let err = scenario::to_spec(&doc).expect_err("refused");
    assert_eq!(err.path, "events[0].resubmit.partitioners[0]", "{err}");
    assert!(
        err.message.contains("'count' is a keyed aggregate"),
        "{err}"
    );
    let doc = scenario::parse_json(&keyed_doc("hash", json!([])).to_string()).expect("document");
    let mut e = Engine::new(scenario::to_spec(&doc).expect("spec")).expect("engine");
    e.run_until(1_000_000);
    let err = e
        .apply(Action::SetPartitioner {
            from: "src".into(),
            to: "count".into(),
            partitioner: Partitioner::Broadcast,
        })
        .expect_err("refused");
    assert_eq!(err.path, "set_partitioner.partitioner", "{err}");
    assert!(
        err.message.starts_with("broadcast edge src -> count"),
        "{err}"
    );
    // To or from other operators any partitioner still goes.
    e.apply(Action::SetPartitioner {
        from: "count".into(),
        to: "out".into(),
        partitioner: Partitioner::Broadcast,
    })
    .expect("not a keyed input");
}

// ---------------------------------------------------------------- operators added or removed

/// A bounded job, so every sink's verdict is checked against the records it should hold:
/// `operators` and `edges` after src (2 × 24000 records, backpressured by count's cost);
/// unaligned checkpoints unless `aligned`.
fn bounded(operators: Value, edges: Value, aligned: bool, events: Value) -> Value {
    let mut ops = vec![
        json!({"id": "src", "kind": "source", "parallelism": 2, "rate": 1000, "records": 24000, "record_size": 256, "keys": 64}),
    ];
    ops.extend(operators.as_array().expect("array").iter().cloned());
    json!({
        "version": 2, "name": "operators changed", "seed": 7, "duration": "90s",
        "config": {
            "execution.checkpointing.interval": "2s",
            "execution.checkpointing.unaligned.enabled": !aligned,
            "execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION",
            "taskmanager.memory.segment-size": "4kb"
        },
        "operators": ops,
        "edges": edges,
        "events": events
    })
}

/// src -(hash)-> count -(rebalance)-> out.
fn counting(aligned: bool, events: Value) -> Value {
    bounded(
        json!([
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "1200us"},
            {"id": "out", "kind": "sink", "parallelism": 2, "cost": "100us"}
        ]),
        json!([
            {"from": "src", "to": "count", "partitioner": "hash"},
            {"from": "count", "to": "out", "partitioner": "rebalance"}
        ]),
        aligned,
        events,
    )
}

fn without_count(allow: bool) -> Value {
    json!([{"at": "20s", "resubmit": {
        "from": "latest",
        "remove_operators": ["count"],
        "add_edges": [{"from": "src", "to": "out", "partitioner": "rebalance"}],
        "allow_non_restored_state": allow
    }}])
}

/// Every sink holds exactly the lineages the new topology should have produced: not one
/// missing, none beyond (`lost` alone would not see records no lineage expects).
fn holds_exactly_the_expected(e: &Engine) {
    for s in e.sink_operators() {
        let v = e.sink_verdict(s);
        assert_eq!(
            Some(v.committed_records),
            v.expected,
            "{}: {v:?}",
            e.operators[s].id
        );
    }
}

fn pointer(r: &Report) -> String {
    let s = &r.resubmissions[0];
    let id = s.restored_checkpoint.expect("a snapshot was found");
    checkpoint_playground::engine::coordinator::external_path(7, id, s.savepoint)
}

#[test]
fn a_removed_stateful_operator_fails_the_new_job_without_allow_non_restored_state() {
    let (e, r) = run(&counting(false, without_count(false)));
    assert_eq!(e.status, JobStatus::Failed);
    let err = r.resubmissions[0].restore_error.clone().expect("failed");
    assert_eq!(err, non_restored_message(&pointer(&r), "count"));
    assert!(err.starts_with("Failed to rollback to checkpoint/savepoint file:/flink/checkpoints/"));
    assert!(err.ends_with("Cannot map checkpoint/savepoint state for operator count to the new program, because the operator is not available in the new program. If you want to allow to skip this, you can set the --allowNonRestoredState option on the CLI."), "{err}");
    // The old job stays what runs (the new one never started).
    assert!(e.job().operator_index("count").is_some());
}

#[test]
fn with_allow_non_restored_state_the_state_is_skipped_and_its_inflight_records_lost() {
    let (e, r) = run(&counting(false, without_count(true)));
    let s = &r.resubmissions[0];
    assert_eq!(s.restore_error, None);
    assert_eq!(s.skipped_operators, vec!["count".to_string()]);
    assert!(
        s.skipped_inflight_records > 100,
        "an unaligned checkpoint under backpressure holds count's input: {s:?}"
    );
    // Each dropped record was one sink record (count -> out yields one).
    assert_eq!(s.lost_records, s.skipped_inflight_records);
    assert_eq!(e.status, JobStatus::Finished, "{:?}", r.failures);
    assert!(e.job().operator_index("count").is_none());
    assert_eq!(e.operators.len(), 2);
    let sink = &r.sinks[0];
    assert_eq!(sink.operator, "out");
    assert_eq!(sink.duplicates, 0, "{sink:?}");
    assert_eq!(sink.lost, s.lost_records, "{sink:?}");
    assert_eq!(sink.unattributed_lost, 0, "{sink:?}");
    assert!(!sink.exactly_once);
    let broken = e.broken_guarantees();
    assert_eq!(broken.len(), 1, "only the loss, and it adds up: {broken:?}");
    let v = e.sink_verdict(e.sink_operators()[0]);
    assert_eq!(
        v.expected,
        Some(v.committed_records + s.lost_records),
        "{v:?}"
    );
}

/// src -(rebalance)-> m -(hash)-> count -(rebalance)-> out.
fn with_map(aligned: bool, events: Value) -> Value {
    bounded(
        json!([
            {"id": "m", "kind": "map", "parallelism": 2, "cost": "50us"},
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "1200us"},
            {"id": "out", "kind": "sink", "parallelism": 2, "cost": "100us"}
        ]),
        json!([
            {"from": "src", "to": "m", "partitioner": "rebalance"},
            {"from": "m", "to": "count", "partitioner": "hash"},
            {"from": "count", "to": "out", "partitioner": "rebalance"}
        ]),
        aligned,
        events,
    )
}

fn without_m() -> Value {
    json!([{"at": "20s", "resubmit": {
        "from": "latest",
        "remove_operators": ["m"],
        "add_edges": [{"from": "src", "to": "count", "partitioner": "hash"}]
    }}])
}

#[test]
fn a_removed_stateless_operator_has_no_state_in_an_aligned_checkpoint() {
    // "Skipping empty savepoint state for operator m": no flag needed.
    let (e, r) = run(&with_map(true, without_m()));
    let s = &r.resubmissions[0];
    assert_eq!(s.restore_error, None);
    assert!(s.skipped_operators.is_empty());
    assert_eq!(e.status, JobStatus::Finished, "{:?}", r.failures);
    for sink in &r.sinks {
        assert!(sink.exactly_once, "{sink:?}");
    }
    assert!(e.broken_guarantees().is_empty());
    holds_exactly_the_expected(&e);
}

#[test]
fn a_removed_stateless_operator_holding_inflight_data_fails_the_new_job() {
    // Its input channels' buffers are its state in an unaligned checkpoint.
    let (e, r) = run(&with_map(false, without_m()));
    assert_eq!(e.status, JobStatus::Failed);
    let err = r.resubmissions[0].restore_error.clone().expect("failed");
    assert_eq!(err, non_restored_message(&pointer(&r), "m"));
}

#[test]
fn an_added_sink_and_flat_map_are_exactly_once_from_an_unaligned_checkpoint() {
    // A second branch: count -> explode (fan-out 3) -> audit. In-flight records entering
    // count now reach both sinks; those already past count only `out`.
    let events = json!([{"at": "20s", "resubmit": {
        "from": "latest",
        "add_operators": [
            {"id": "explode", "kind": "flat_map", "parallelism": 3, "fan_out": 3, "cost": "20us"},
            {"id": "audit", "kind": "sink", "parallelism": 3, "cost": "20us"}
        ],
        "add_edges": [
            {"from": "count", "to": "explode", "partitioner": "rebalance"},
            {"from": "explode", "to": "audit", "partitioner": "forward"}
        ]
    }}]);
    let (e, r) = run(&counting(false, events));
    let s = &r.resubmissions[0];
    assert_eq!(s.restore_error, None);
    assert!(s.recovered_inflight_records > 100, "{s:?}");
    assert_eq!(e.status, JobStatus::Finished, "{:?}", r.failures);
    assert_eq!(r.sinks.len(), 2);
    for sink in &r.sinks {
        assert!(sink.exactly_once, "{sink:?}");
        assert_eq!(sink.duplicates, 0);
    }
    let audit = r
        .sinks
        .iter()
        .find(|k| k.operator == "audit")
        .expect("audit");
    let out = r.sinks.iter().find(|k| k.operator == "out").expect("out");
    assert!(audit.committed_records > 0);
    assert!(
        audit.committed_records < 3 * out.committed_records,
        "audit sees only what count emits after the restore: {audit:?} {out:?}"
    );
    assert!(e.broken_guarantees().is_empty());
    holds_exactly_the_expected(&e);
}

#[test]
fn a_removed_flat_map_and_an_inserted_map_are_exactly_once_from_a_savepoint() {
    // src -> explode (fan-out 2) -> out; the new program drops explode and puts a map
    // between src and out.
    let events = json!([
        {"at": "10s", "stop_with_savepoint": {}},
        {"at": "12s", "resubmit": {
            "from": "savepoint",
            "remove_operators": ["explode"],
            "add_operators": [{"id": "m", "kind": "map", "parallelism": 3, "cost": "20us"}],
            "add_edges": [
                {"from": "src", "to": "m", "partitioner": "rebalance"},
                {"from": "m", "to": "out", "partitioner": "rebalance"}
            ]
        }}
    ]);
    let d = bounded(
        json!([
            {"id": "explode", "kind": "flat_map", "parallelism": 2, "fan_out": 2, "cost": "300us"},
            {"id": "out", "kind": "sink", "parallelism": 2, "cost": "100us"}
        ]),
        json!([
            {"from": "src", "to": "explode", "partitioner": "forward"},
            {"from": "explode", "to": "out", "partitioner": "rebalance"}
        ]),
        false,
        events,
    );
    let (e, r) = run(&d);
    let s = &r.resubmissions[0];
    assert_eq!(s.restore_error, None, "{s:?}");
    assert!(s.savepoint);
    assert_eq!(e.status, JobStatus::Finished, "{:?}", r.failures);
    let out = &r.sinks[0];
    assert!(out.exactly_once, "{out:?}");
    // Fewer than two per source record: the later ones yield one each.
    assert!(
        out.committed_records < 2 * 48_000 && out.committed_records > 48_000,
        "{out:?}"
    );
    assert!(e.broken_guarantees().is_empty());
    holds_exactly_the_expected(&e);
}

#[test]
fn inflight_data_on_a_removed_edge_between_kept_operators_is_refused() {
    // A map inserted between count and out, from an unaligned checkpoint with data on
    // count -> out.
    let events = json!([{"at": "20s", "resubmit": {
        "from": "latest",
        "remove_edges": [{"from": "count", "to": "out"}],
        "add_operators": [{"id": "m", "kind": "map", "parallelism": 2}],
        "add_edges": [
            {"from": "count", "to": "m", "partitioner": "rebalance"},
            {"from": "m", "to": "out", "partitioner": "forward"}
        ]
    }}]);
    let (e, r) = run(&counting(false, events));
    assert_eq!(e.status, JobStatus::Failed);
    let err = r.resubmissions[0].restore_error.clone().expect("failed");
    assert_eq!(err, removed_edge_message("count", "out"));
}

#[test]
fn a_bad_operator_change_names_its_field() {
    for (body, field) in [
        (
            json!({"from": "latest", "remove_operators": ["src"]}),
            "remove_operators[0]",
        ),
        (
            json!({"from": "latest", "remove_operators": ["out"]}),
            "remove_operators[0]",
        ),
        (
            json!({"from": "latest", "remove_operators": ["nope"]}),
            "remove_operators[0]",
        ),
        (
            json!({"from": "latest", "remove_edges": [{"from": "src", "to": "out"}]}),
            "remove_edges[0]",
        ),
        (
            json!({"from": "latest", "add_operators": [{"id": "count", "kind": "map"}]}),
            "add_operators[0].id",
        ),
        (
            json!({"from": "latest", "add_edges": [{"from": "count", "to": "x", "partitioner": "rebalance"}]}),
            "add_edges[0]",
        ),
    ] {
        let d = counting(false, json!([{"at": "20s", "resubmit": body}]));
        let doc = scenario::parse_json(&d.to_string()).expect("document");
        let err = scenario::to_spec(&doc).expect_err("refused");
        assert!(
            err.to_string()
                .contains(&format!("events[0].resubmit.{field}")),
            "{err}"
        );
    }
    // A later resubmission may remove what an earlier one added.
    let events = json!([
        {"at": "10s", "resubmit": {"from": "latest",
            "add_operators": [{"id": "audit", "kind": "sink", "parallelism": 2}],
            "add_edges": [{"from": "count", "to": "audit", "partitioner": "forward"}]}},
        {"at": "20s", "resubmit": {"from": "latest", "remove_edges": [{"from": "count", "to": "audit"}],
            "add_edges": [{"from": "src", "to": "audit", "partitioner": "rebalance"}]}}
    ]);
    let doc = scenario::parse_json(&counting(true, events).to_string()).expect("document");
    scenario::to_spec(&doc).expect("valid in time order");
}

#[test]
fn an_operator_change_round_trips_through_the_document() {
    let d = counting(false, without_count(true));
    let doc = scenario::parse_json(&d.to_string()).expect("document");
    let again = scenario::parse_json(&doc.to_json_pretty()).expect("written back");
    assert_eq!(doc, again);
    let text = doc.to_json_compact();
    assert!(text.contains("\"remove_operators\":[\"count\"]"), "{text}");
    assert!(text.contains("\"allow_non_restored_state\":true"), "{text}");
}
