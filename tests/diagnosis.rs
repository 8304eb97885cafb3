//! The diagnosis ("why is this checkpoint slow?", `src/engine/diagnosis/`) on scenarios
//! built for it: it names the subtask that ended the checkpoint, the dominating phase and
//! the cause in the engine's terms, and finds the bottleneck as Flink's docs teach.

use checkpoint_playground::engine::report::{CheckpointReport, Report};
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::document::ConfigValue;
use checkpoint_playground::scenario::{parse_json, preset, to_spec};
use serde_json::{json, Value};

fn run(doc: Value) -> Report {
    let doc = parse_json(&doc.to_string()).unwrap();
    let spec = to_spec(&doc).unwrap();
    let mut e = Engine::new(spec.clone()).unwrap();
    e.run_until(spec.duration);
    e.report()
}

fn run_preset(name: &str) -> Report {
    run_preset_with(name, &[])
}

/// A preset with some config keys set (`key`, `value`).
fn run_preset_with(name: &str, set: &[(&str, &str)]) -> Report {
    let mut doc = preset(name).unwrap();
    for (k, v) in set {
        doc.config
            .insert(k.to_string(), ConfigValue::Text(v.to_string()));
    }
    let spec = to_spec(&doc).unwrap();
    let mut e = Engine::new(spec.clone()).unwrap();
    e.run_until(spec.duration);
    e.report()
}

/// The slowest completed checkpoint whose barrier trace is kept (the newest ones).
fn slowest(r: &Report) -> &CheckpointReport {
    let done: Vec<&CheckpointReport> = r
        .checkpoints
        .iter()
        .filter(|c| c.status == "completed")
        .collect();
    let newest = &done[done.len().saturating_sub(8)..];
    newest
        .iter()
        .max_by(|a, b| {
            a.end_to_end_ms
                .unwrap()
                .total_cmp(&b.end_to_end_ms.unwrap())
        })
        .copied()
        .expect("a completed checkpoint")
}

fn show(label: &str, c: &CheckpointReport) {
    let d = c.diagnosis.as_ref().unwrap();
    println!(
        "{label}: checkpoint {} {:?} ms: {}",
        c.id, c.end_to_end_ms, d.text
    );
}

/// A version-2 job with chaining off, so that each operator the diagnosis should name is a
/// task of its own (`op#i`); the chained case is `a_chained_task_is_named_by_its_vertex`.
fn job(config: Value, operators: Value, edges: Value, duration: &str) -> Value {
    let mut config = config;
    config
        .as_object_mut()
        .expect("config object")
        .entry("pipeline.operator-chaining.enabled")
        .or_insert(json!(false));
    json!({"version": 2, "name": "diagnosis", "seed": 3, "duration": duration,
           "config": config, "operators": operators, "edges": edges, "events": []})
}

#[test]
fn slow_sink_ends_aligned_checkpoints_and_is_the_bottleneck() {
    let r = run(job(
        json!({"execution.checkpointing.interval": "2s"}),
        json!([
            {"id": "src", "kind": "source", "parallelism": 2, "rate": 2000, "record_size": 256, "keys": 64},
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "50us"},
            {"id": "out", "kind": "sink", "parallelism": 1, "cost": "2ms"}
        ]),
        json!([{"from": "src", "to": "count", "partitioner": "hash"},
               {"from": "count", "to": "out", "partitioner": "rebalance"}]),
        "30s",
    ));
    let c = slowest(&r);
    show("slow sink", c);
    println!("bottleneck: {}", r.bottleneck.text);
    let d = c.diagnosis.as_ref().unwrap();
    assert!(
        c.end_to_end_ms.unwrap() > 500.0,
        "backpressure makes it slow"
    );
    assert_eq!(d.ending_subtask.as_deref(), Some("out#0"), "{}", d.text);
    assert!(
        d.phase == "start_delay" || d.phase == "alignment",
        "{}",
        d.text
    );
    assert!(
        d.cause.kind == "queued_behind_data" || d.cause.kind == "input_not_taken",
        "{}",
        d.text
    );
    assert!(d.text.contains("out#0 (busy"), "{}", d.text);
    assert_eq!(r.bottleneck.subtask.as_deref(), Some("out#0"));
    assert_eq!(r.bottleneck.operator.as_deref(), Some("out"));
    let m = r.metrics.iter().find(|m| m.subtask == "out#0").unwrap();
    assert!(m.busyTimeMsPerSecond > 900.0 && m.backPressuredTimeMsPerSecond < 100.0);
    let up = r.metrics.iter().find(|m| m.subtask == "count#0").unwrap();
    assert!(
        up.backPressuredTimeMsPerSecond > 500.0 && up.outPoolUsage > 0.9,
        "{up:?}"
    );
}

#[test]
fn slow_checkpoint_storage_shows_as_the_async_phase() {
    let r = run(job(
        json!({"execution.checkpointing.interval": "3s",
               "playground.storage.throughput": "200kb",
               "playground.state.bytes-per-key": "1kb"}),
        json!([
            {"id": "src", "kind": "source", "parallelism": 1, "rate": 200, "record_size": 64, "keys": 2000},
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 1, "cost": "10us"},
            {"id": "out", "kind": "sink", "parallelism": 1, "cost": "10us"}
        ]),
        json!([{"from": "src", "to": "count", "partitioner": "hash"},
               {"from": "count", "to": "out", "partitioner": "forward"}]),
        "30s",
    ));
    let c = slowest(&r);
    show("slow storage", c);
    let d = c.diagnosis.as_ref().unwrap();
    assert_eq!(d.phase, "async", "{}", d.text);
    assert_eq!(d.cause.kind, "storage");
    assert_eq!(d.ending_subtask.as_deref(), Some("count#0"), "{}", d.text);
    assert!(d.text.contains("checkpoint storage"), "{}", d.text);
    assert_eq!(r.bottleneck.subtask, None, "{}", r.bottleneck.text);
}

#[test]
fn a_legacy_source_under_its_lock_delays_the_trigger() {
    // The preset as it is (physical plan: source and map share a TaskManager, their
    // channel is local). The lock comes free when the map recycles one of the source's
    // buffers, and the map gets through a buffer (16 records) only as fast as the 5 ms
    // sink takes its output, so the trigger waits for the lock tens of ms — longer than
    // the unaligned checkpoint's async part. (With a 1 ms sink the buffer cycle was
    // 16 ms and the 2 s trigger landed at the same point of it each time, ~2 ms before
    // the recycle: every checkpoint was async-dominated.)
    let r = run_preset("legacy-source");
    let done: Vec<&CheckpointReport> = r
        .checkpoints
        .iter()
        .filter(|c| c.status == "completed")
        .collect();
    let by_lock = done
        .iter()
        .filter(|c| {
            c.diagnosis
                .as_ref()
                .is_some_and(|d| d.cause.kind == "trigger_waited")
        })
        .count();
    assert!(
        by_lock * 2 > done.len(),
        "the lock should end most checkpoints: {by_lock} of {}",
        done.len()
    );
    let c = slowest(&r);
    show("legacy source", c);
    let d = c.diagnosis.as_ref().unwrap();
    assert_eq!(d.cause.kind, "trigger_waited", "{}", d.text);
    assert!(
        d.path.first().is_some_and(|p| p.contains("source")),
        "{:?}",
        d.path
    );
    assert_eq!(d.phase, "start_delay", "{}", d.text);
    assert!(d.text.contains("checkpoint lock"), "{}", d.text);
    assert!(d.cause.hard_backpressured.unwrap() > 0.5);
}

#[test]
fn a_flat_map_stuck_on_output_without_overdraft_holds_the_unaligned_barrier() {
    // The preset: no availability check, no overdraft; one flat_map record needs about six
    // buffers, so the task threads block mid-record and even unaligned barriers wait.
    let r = run_preset("flatmap-stuck");
    let c = slowest(&r);
    show("flat_map stuck", c);
    let d = c.diagnosis.as_ref().unwrap();
    assert!(c.unaligned);
    // The task blocked mid-record: the flat_map, or (with the local channel between them)
    // the source feeding it.
    let ending = d.ending_subtask.as_deref().unwrap();
    assert!(
        ending.starts_with("explode") || ending.starts_with("Source: src"),
        "{}",
        d.text
    );
    assert_eq!(d.phase, "start_delay", "{}", d.text);
    assert!(
        d.text.contains("blocked on an output buffer request"),
        "{}",
        d.text
    );
    assert!(d.cause.hard_backpressured.unwrap() > 0.5, "{:?}", d.cause);
    let m = r
        .metrics
        .iter()
        .find(|m| m.subtask.starts_with("explode"))
        .unwrap();
    assert!(m.hardBackPressuredTimeMsPerSecond > 900.0, "{m:?}");
    assert_eq!(r.bottleneck.operator.as_deref(), Some("out"));
}

#[test]
fn a_skewed_key_makes_one_straggler() {
    let r = run(job(
        json!({"execution.checkpointing.interval": "2s"}),
        json!([
            {"id": "src", "kind": "source", "parallelism": 4, "rate": 500, "record_size": 128, "keys": 64, "skew": 0.95},
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 4, "cost": "1ms"},
            {"id": "out", "kind": "sink", "parallelism": 4, "cost": "10us"}
        ]),
        json!([{"from": "src", "to": "count", "partitioner": "hash"},
               {"from": "count", "to": "out", "partitioner": "forward"}]),
        "30s",
    ));
    let c = slowest(&r);
    show("skewed key", c);
    let d = c.diagnosis.as_ref().unwrap();
    println!(
        "stragglers {:?} ≥ {:?}",
        d.stragglers, d.straggler_threshold_ms
    );
    let ending = d.ending_subtask.clone().unwrap();
    assert!(!d.stragglers.is_empty(), "{}", d.text);
    assert!(d.stragglers.len() <= 2, "{:?}", d.stragglers);
    assert!(
        d.stragglers.contains(&ending),
        "{:?} / {ending}",
        d.stragglers
    );
}

#[test]
fn summary_has_percentiles_and_checkpoints_an_operator_rollup() {
    let r = run_preset("backpressure");
    let s = r.summary.end_to_end_ms.as_ref().unwrap();
    assert!(
        s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max,
        "{s:?}"
    );
    let c = r
        .checkpoints
        .iter()
        .find(|c| c.status == "completed")
        .unwrap();
    let d = c.diagnosis.as_ref().unwrap();
    let ops: Vec<&str> = d.operators.iter().map(|o| o.operator.as_str()).collect();
    assert_eq!(ops, ["orders", "clicks", "explode", "count", "out"]);
    let total: u64 = d.operators.iter().map(|o| o.checkpointed_bytes).sum();
    assert_eq!(total, c.checkpointed_bytes);
    // The JSON report carries it all.
    let v = serde_json::to_value(&r).unwrap();
    for k in ["summary", "bottleneck", "metrics"] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert!(v["checkpoints"][0]["diagnosis"]["text"].is_string());
    assert!(v["metrics"][0]["busyTimeMsPerSecond"].is_number());
}

#[test]
fn the_pending_checkpoint_has_a_barrier_tree() {
    let doc = preset("backpressure").unwrap();
    let spec = to_spec(&doc).unwrap();
    let mut e = Engine::new(spec).unwrap();
    e.run_until(25_000_000);
    let r = e.report();
    let tree = r
        .pending_barriers
        .expect("a checkpoint is pending under backpressure");
    assert_eq!(tree.nodes[0].name, "coordinator");
    assert_eq!(tree.nodes.len(), 1 + r.metrics.len());
    for n in &tree.nodes {
        println!(
            "{}{} [{}] {}",
            "  ".repeat(n.depth as usize),
            n.name,
            n.state,
            n.waits_for
        );
    }
    assert!(tree.nodes.iter().any(|n| n.waits_for.contains("behind")));
}

fn slow_sink_job() -> Value {
    job(
        json!({"execution.checkpointing.interval": "2s"}),
        json!([
            {"id": "src", "kind": "source", "parallelism": 2, "rate": 2000, "record_size": 256, "keys": 64},
            {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "50us"},
            {"id": "out", "kind": "sink", "parallelism": 1, "cost": "2ms"}
        ]),
        json!([{"from": "src", "to": "count", "partitioner": "hash"},
               {"from": "count", "to": "out", "partitioner": "rebalance"}]),
        "30s",
    )
}

#[test]
fn remedies_are_measured_and_point_the_expected_way() {
    use checkpoint_playground::scenario::remedies::{measure, Effect, RemedyRun, NAMES};
    let doc = parse_json(&slow_sink_job().to_string()).unwrap();
    let x = measure(&doc, None).unwrap();
    let base = x.base.median_end_to_end_ms.unwrap();
    let fig = |name: &str| {
        x.remedies
            .iter()
            .find(|m| m.remedy.name == name)
            .unwrap_or_else(|| panic!("{name} measured; skipped {:?}", x.skipped))
            .figures
            .clone()
    };
    for m in &x.remedies {
        println!(
            "{:<45} median end-to-end {:>9.1} ms → {:>9.1} ms, persisted {:?} → {:?}, completed {} → {}",
            m.remedy.label,
            base,
            m.figures.median_end_to_end_ms.unwrap_or(f64::NAN),
            x.base.median_persisted_bytes,
            m.figures.median_persisted_bytes,
            x.base.completed,
            m.figures.completed
        );
    }
    println!("skipped: {:?}", x.skipped);
    let uc = fig("unaligned");
    assert!(
        uc.median_end_to_end_ms.unwrap() < base / 5.0,
        "{uc:?} vs {base}"
    );
    assert!(uc.median_persisted_bytes.unwrap() > 0);
    assert!(fig("alignment_timeout").median_end_to_end_ms.unwrap() < base);
    assert!(fig("fewer_buffers").median_end_to_end_ms.unwrap() < base);
    assert!(fig("parallelism").median_end_to_end_ms.unwrap() < base);

    // The effect on the slowest checkpoint itself (the same window in both runs).
    let id = x.checkpoint.expect("a slowest checkpoint");
    let effect = |name: &str| {
        x.remedies
            .iter()
            .find(|m| m.remedy.name == name)
            .and_then(|m| m.effect.clone())
            .unwrap_or_else(|| panic!("{name}: an effect on checkpoint {id}"))
    };
    for name in NAMES {
        println!("{name}: {}", effect(name).text);
    }
    let e2e = |e: &Effect| {
        (
            e.before.end_to_end_ms.unwrap(),
            e.after.as_ref().unwrap().end_to_end_ms.unwrap(),
        )
    };
    for name in [
        "unaligned",
        "alignment_timeout",
        "fewer_buffers",
        "parallelism",
    ] {
        let e = effect(name);
        let (before, after) = e2e(&e);
        assert!(after < before / 2.0, "{name}: {}", e.text);
        assert!(e.replay_after_ms < e.replay_before_ms, "{name}: {}", e.text);
    }
    let uc = effect("unaligned");
    let after = uc.after.as_ref().unwrap();
    assert!(
        after.unaligned && after.persisted_inflight_bytes > 0,
        "{}",
        uc.text
    );
    assert_eq!(uc.before.persisted_inflight_bytes, 0);
    // Overdraft buffers change nothing here (no record needs more than one buffer).
    let (before, after) = e2e(&effect("overdraft"));
    assert_eq!(before, after);

    // The UI's path (one RemedyRun in slices) gives the CLI's figures.
    let one = RemedyRun::new(&doc, "fewer_buffers", Some(id))
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(
        Some(one.effect.clone().unwrap()),
        Some(effect("fewer_buffers"))
    );
    assert_eq!(one.base, x.base);
}

#[test]
fn soft_and_hard_backpressure_are_split_per_window() {
    // flatmap-stuck: the flat_map blocks mid-record (hard); the slow-sink job's sources
    // wait at the availability check (soft).
    let r = run_preset("flatmap-stuck");
    assert!(r.metrics_windows.len() >= 2);
    for w in &r.metrics_windows {
        assert_eq!(w.to_ms - w.from_ms, 5000, "{} – {}", w.from_ms, w.to_ms);
        for m in &w.subtasks {
            let sum = m.busyTimeMsPerSecond
                + m.softBackPressuredTimeMsPerSecond
                + m.hardBackPressuredTimeMsPerSecond
                + m.idleTimeMsPerSecond;
            assert!((sum - 1000.0).abs() < 1.0, "{m:?}");
        }
    }
    let last = r.metrics_windows.last().unwrap();
    let explode = last
        .subtasks
        .iter()
        .find(|m| m.subtask.starts_with("explode"))
        .unwrap();
    assert!(
        explode.hardBackPressuredTimeMsPerSecond > 900.0,
        "{explode:?}"
    );
    let s = run(slow_sink_job());
    let src = s.metrics_windows.last().unwrap();
    let src = src
        .subtasks
        .iter()
        .find(|m| m.subtask.starts_with("src"))
        .unwrap();
    assert!(src.softBackPressuredTimeMsPerSecond > 500.0, "{src:?}");
    assert!(src.hardBackPressuredTimeMsPerSecond < 100.0, "{src:?}");
    // The report's newest window agrees with `metrics` (the last 5 s) on soft and hard.
    let m = s.metrics.iter().find(|m| m.subtask == src.subtask).unwrap();
    assert!(
        (m.softBackPressuredTimeMsPerSecond - src.softBackPressuredTimeMsPerSecond).abs() < 1.0,
        "{m:?} / {src:?}"
    );
}

#[test]
fn the_ui_document_of_a_run_gives_the_cli_remedy_figures() {
    // The UI re-runs the document exported from the running engine's spec (recorded
    // actions included); for a run without actions it must measure what the CLI does.
    use checkpoint_playground::scenario::file::export_document;
    use checkpoint_playground::scenario::remedies::{RemedyRun, NAMES};
    let doc = parse_json(&slow_sink_job().to_string()).unwrap();
    let exported = export_document(&to_spec(&doc).unwrap(), None);
    for name in NAMES {
        let a = RemedyRun::new(&doc, name, Some(1))
            .unwrap()
            .finish()
            .unwrap();
        let b = RemedyRun::new(&exported, name, Some(1))
            .unwrap()
            .finish()
            .unwrap();
        assert_eq!(a.effect, b.effect, "{name}");
        // The UI advances in 20 ms slices of virtual time: the run does not depend on them.
        let mut sliced = RemedyRun::new(&exported, name, Some(1)).unwrap();
        while !sliced.advance(20_000) {}
        let c = sliced.outcome().unwrap().clone().unwrap();
        assert_eq!(a.effect, c.effect, "{name} in 20 ms slices");
    }
    // The UI's cache: a second remedy on the same document starts from the first
    // experiment's as-is report, runs only its variant, and measures what a fresh one does.
    let mut first = RemedyRun::new(&exported, "unaligned", Some(1)).unwrap();
    while !first.advance(20_000) {}
    let base = first.base_report().unwrap().clone();
    let cached = RemedyRun::with_base(&exported, "debloating", Some(1), base.clone()).unwrap();
    assert_eq!(
        cached.progress(),
        0.0,
        "nothing of the as-is run is left to do"
    );
    let fresh = RemedyRun::new(&exported, "debloating", Some(1)).unwrap();
    assert_eq!(cached.finish(), fresh.finish());
    assert!(RemedyRun::with_base(&exported, "nonsense", Some(1), base).is_err());
}
