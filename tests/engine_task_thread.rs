//! The task thread under hard backpressure (issue 6): the output availability check,
//! overdraft buffers, the two kinds of sources (legacy `SourceFunction` vs FLIP-27 `Source`)
//! and buffer debloating, each switched on and off.

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

/// src (of kind `api`) -> map -> slow sink, unaligned checkpoints every second: the same
/// backpressure reaches the source whichever API it uses. Segments are pinned at 4 kb and
/// overdraft at 5 so the figures do not move with the engine's defaults.
fn sourced(api: SourceApi, record_size: u32) -> JobSpec {
    let mut src = source("src", 2, 2000.0, None);
    if let OperatorKind::Source(s) = &mut src.kind {
        s.api = api;
        s.record_size = record_size;
    }
    job(
        "sources",
        "20s",
        &[
            ("execution.checkpointing.interval", "1s"),
            ("execution.checkpointing.unaligned.enabled", "true"),
            ("taskmanager.memory.segment-size", "4kb"),
            (
                "taskmanager.network.memory.max-overdraft-buffers-per-gate",
                "5",
            ),
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

/// What one run shows of the source task `src#0`, step by step.
#[derive(Debug, Default)]
struct SourceTrace {
    /// Longest time a checkpoint-trigger mail waited in the mailbox while the source
    /// was blocked mid-record (holding the checkpoint lock, for a legacy source), ms.
    longest_trigger_wait_blocked_ms: f64,
    /// Steps that saw the source blocked mid-record / waiting on availability.
    hard_steps: u64,
    soft_steps: u64,
    /// Most overdraft buffers the source's output held at once.
    max_overdraft: u32,
}

fn trace_source(spec: JobSpec) -> SourceTrace {
    use checkpoint_playground::engine::task::{Activity, Mail};
    let mut e = Engine::new(spec).unwrap();
    let t = e.tasks.iter().position(|t| t.name == "src#0").unwrap();
    let mut out = SourceTrace::default();
    let mut waiting_since: Option<u64> = None;
    loop {
        let task = &e.tasks[t];
        let trigger_queued = task
            .mailbox
            .iter()
            .any(|m| matches!(m, Mail::TriggerCheckpoint(_)));
        let blocked = !task.pending_out.is_empty() && task.activity == Activity::HardBackpressured;
        match task.activity {
            Activity::HardBackpressured => out.hard_steps += 1,
            Activity::SoftBackpressured => out.soft_steps += 1,
            _ => {}
        }
        match (trigger_queued && blocked, waiting_since) {
            (true, None) => waiting_since = Some(e.now()),
            (false, Some(since)) => {
                let waited = (e.now() - since) as f64 / 1000.0;
                out.longest_trigger_wait_blocked_ms =
                    out.longest_trigger_wait_blocked_ms.max(waited);
                waiting_since = None;
            }
            _ => {}
        }
        for &p in &task.partitions {
            out.max_overdraft = out.max_overdraft.max(e.partitions[p].overdraft_in_use());
        }
        if !e.step() {
            break;
        }
    }
    out
}

/// Issue 14 item 4, the lesson of the seed's legacy-source section. Under the same
/// backpressure a legacy `SourceFunction` (`SourceStreamTask`) emits without looking at
/// availability, blocks mid-record in the buffer request holding the checkpoint lock, and
/// the checkpoint trigger (a mail, run under the lock by `synchronizedExecutor`) waits;
/// a FLIP-27 source (`SourceOperatorStreamTask`) stops at the availability check, so it is
/// only softly backpressured and the trigger runs at once. Fails if a legacy source
/// checks availability (the removed `legacy-compat` "fix") or a FLIP-27 source does not.
#[test]
fn a_legacy_source_blocks_holding_the_lock_and_delays_the_trigger_a_flip27_source_does_not() {
    let legacy = trace_source(sourced(SourceApi::Legacy, 256));
    let flip27 = trace_source(sourced(SourceApi::Flip27, 256));
    let legacy_delay = median_start_delay(&completed(sourced(SourceApi::Legacy, 256)), "src");
    let flip27_delay = median_start_delay(&completed(sourced(SourceApi::Flip27, 256)), "src");
    println!("median trigger-to-snapshot delay at the source: legacy SourceFunction {legacy_delay:.2} ms, FLIP-27 Source {flip27_delay:.2} ms");
    println!("legacy: {legacy:?}\nFLIP-27: {flip27:?}");
    assert!(
        legacy.longest_trigger_wait_blocked_ms > 5.0,
        "a legacy source's trigger waits for the lock: {legacy:?}"
    );
    assert!(
        legacy.hard_steps > 0 && legacy.soft_steps == 0,
        "{legacy:?}"
    );
    assert_eq!(
        flip27.longest_trigger_wait_blocked_ms, 0.0,
        "a FLIP-27 source never holds a trigger back: {flip27:?}"
    );
    assert!(
        flip27.soft_steps > 0 && flip27.hard_steps == 0,
        "{flip27:?}"
    );
    assert!(
        legacy_delay > 5.0 * flip27_delay.max(1.0),
        "{legacy_delay} vs {flip27_delay}"
    );
}

/// FLINK-27789 (Flink 1.16): `SourceStreamTask.init` sets the record writer's overdraft to
/// 0, because a thread that never checks availability would take every overdraft buffer
/// on every backpressured record. With records of 1.5 segments a FLIP-27 source borrows
/// overdraft buffers to finish a record it started on an available output; a legacy
/// source with the same settings never holds one.
#[test]
fn legacy_sources_get_no_overdraft_buffers() {
    let legacy = trace_source(sourced(SourceApi::Legacy, 6 * 1024));
    let flip27 = trace_source(sourced(SourceApi::Flip27, 6 * 1024));
    println!(
        "most overdraft buffers held: legacy {}, FLIP-27 {}",
        legacy.max_overdraft, flip27.max_overdraft
    );
    assert_eq!(legacy.max_overdraft, 0, "{legacy:?}");
    assert!(flip27.max_overdraft > 0, "{flip27:?}");
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
