//! The task thread under hard backpressure (issue 6): the output availability check,
//! overdraft buffers, legacy sources and buffer debloating, each switched on and off.

mod common;
use checkpoint_playground::engine::report::CheckpointReport;
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::Engine;
use common::*;

fn completed(spec: JobSpec) -> Vec<CheckpointReport> {
    let mut e = Engine::new(spec).unwrap();
    e.run_to_end();
    e.report()
        .checkpoints
        .into_iter()
        .filter(|c| c.status == "completed")
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    assert!(!v.is_empty(), "no completed checkpoints");
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The largest start delay over subtasks of the middle operator (index 1), per checkpoint.
fn median_start_delay(cps: &[CheckpointReport], operator: &str) -> f64 {
    median(
        cps.iter()
            .map(|c| {
                c.subtasks
                    .iter()
                    .filter(|s| s.operator == operator)
                    .map(|s| s.start_delay_ms)
                    .fold(0.0, f64::max)
            })
            .collect(),
    )
}

/// src -> middle -> slow sink, unaligned checkpoints; `middle` is a map or a flat_map.
fn stuck(middle: OperatorKind, record_size: u32, availability: &str, overdraft: &str) -> JobSpec {
    let mut src = source("src", 2, 1000.0, None);
    if let OperatorKind::Source(s) = &mut src.kind {
        s.record_size = record_size;
    }
    job(
        "task thread",
        "30s",
        &[
            ("execution.checkpointing.interval", "1s"),
            ("execution.checkpointing.unaligned.enabled", "true"),
            ("playground.task.availability-check", availability),
            (
                "taskmanager.network.memory.max-overdraft-buffers-per-gate",
                overdraft,
            ),
        ],
        vec![
            src,
            op("mid", middle, 2, "1ms"),
            sink("out", 2, "4ms", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "mid", Partitioner::Rebalance),
            edge("mid", "out", Partitioner::Rebalance),
        ],
    )
}

#[test]
fn a_flat_map_stuck_mid_record_delays_unaligned_checkpoints_until_both_optimizations() {
    let flat = || OperatorKind::FlatMap { fan_out: 100 };
    let neither = median_start_delay(&completed(stuck(flat(), 256, "false", "0")), "mid");
    let check_only = median_start_delay(&completed(stuck(flat(), 256, "true", "0")), "mid");
    let both = median_start_delay(&completed(stuck(flat(), 256, "true", "5")), "mid");
    println!("flat_map fan-out 100, median UC start delay at flat_map: neither {neither:.1} ms, availability check only {check_only:.1} ms, both {both:.1} ms");
    assert!(
        neither >= 5.0 * both,
        "both optimizations: {both} ms vs neither {neither} ms"
    );
    // The check alone still leaves the flat_map stuck mid-record (one record needs ~6
    // buffers); only overdraft buffers get it to the map's level.
    assert!(
        check_only >= 10.0 * both,
        "the availability check alone is not enough for a large fan-out: {check_only} vs {both}"
    );
}

#[test]
fn the_availability_check_alone_helps_a_map() {
    let neither = median_start_delay(
        &completed(stuck(OperatorKind::Map, 256, "false", "0")),
        "mid",
    );
    let check = median_start_delay(
        &completed(stuck(OperatorKind::Map, 256, "true", "0")),
        "mid",
    );
    println!(
        "map, median UC start delay: no check {neither:.2} ms, availability check {check:.2} ms"
    );
    assert!(
        check * 10.0 < neither,
        "the check fixes a map: {check} vs {neither}"
    );
    assert!(
        check < 5.0,
        "a map with the check is as quick as it gets: {check} ms"
    );
}

fn legacy(compat: &str) -> JobSpec {
    let mut src = source("src", 2, 2000.0, None);
    if let OperatorKind::Source(s) = &mut src.kind {
        s.legacy = true;
    }
    job(
        "legacy",
        "20s",
        &[
            ("execution.checkpointing.interval", "1s"),
            ("execution.checkpointing.unaligned.enabled", "true"),
            ("playground.source.legacy-compat", compat),
        ],
        vec![
            src,
            op("map", OperatorKind::Map, 2, "100us"),
            sink("out", 1, "2ms", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "map", Partitioner::Rebalance),
            edge("map", "out", Partitioner::Rebalance),
        ],
    )
}

#[test]
fn a_legacy_source_delays_checkpoints_unless_it_waits_for_a_buffer_before_the_lock() {
    let without = median_start_delay(&completed(legacy("false")), "src");
    let with = median_start_delay(&completed(legacy("true")), "src");
    println!("legacy source, median trigger-to-snapshot delay at the source: without the fix {without:.2} ms, with {with:.2} ms");
    assert!(without > 5.0 * with.max(1.0), "{without} vs {with}");
}

#[test]
fn buffer_debloating_reduces_in_flight_data_and_aligned_checkpoint_time() {
    let run = |debloat: &str| {
        let spec = job(
            "debloat",
            "40s",
            &[
                ("execution.checkpointing.interval", "2s"),
                ("taskmanager.memory.segment-size", "32kb"),
                ("taskmanager.network.memory.buffer-debloat.enabled", debloat),
                ("taskmanager.network.memory.buffer-debloat.target", "100ms"),
            ],
            vec![
                source("src", 2, 2000.0, None),
                op("map", OperatorKind::Map, 2, "50us"),
                sink("out", 1, "1ms", SinkDelivery::TwoPhaseCommit),
            ],
            vec![
                edge("src", "map", Partitioner::Rebalance),
                edge("map", "out", Partitioner::Rebalance),
            ],
        );
        let mut e = Engine::new(spec).unwrap();
        e.run_to_end();
        let late: Vec<u64> = e
            .samples
            .iter()
            .filter(|s| s.at > 20_000_000)
            .map(|s| s.inflight_bytes)
            .collect();
        let inflight = late.iter().sum::<u64>() / late.len() as u64;
        let cps: Vec<f64> = e
            .report()
            .checkpoints
            .iter()
            .filter(|c| c.status == "completed" && c.trigger_ms > 20_000.0)
            .filter_map(|c| c.end_to_end_ms)
            .collect();
        (inflight, median(cps))
    };
    let (off_bytes, off_ms) = run("false");
    let (on_bytes, on_ms) = run("true");
    println!("debloating off: {off_bytes} B in flight, aligned median {off_ms:.1} ms; on: {on_bytes} B, {on_ms:.1} ms");
    assert!(on_bytes * 2 < off_bytes);
    assert!(on_ms * 2.0 < off_ms);
}
