//! Throughput of the engine: simulated record-hops per second of wall time on the `large`
//! preset (28 subtasks), next to a bare ring-buffer loop moving the same number of records
//! through the same number of hops, as a ratio measured in the same run.
//!
//! Two engine runs: the engine's default, whose sinks keep every committed record (what
//! the CLI's `--sink-output` writes; the run issue 19's 1 : 77 was measured on), and the
//! sinks as the playground and the CLI without `--sink-output` run them, keeping only the
//! lineage runs the verdict needs (`Engine::keep_sink_records(false)`). Same events, same
//! verdict; the second skips a B-tree insert per committed record.
//!
//! Run with `cargo bench` (or `cargo bench -- --quick`). Wall-clock numbers vary with the
//! machine's load; the ratio is the figure to compare.

use checkpoint_playground::engine::spec::JobSpec;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;
use std::collections::VecDeque;
use std::hint::black_box;
use std::rc::Rc;
use std::time::Instant;

#[derive(Clone)]
struct Rec {
    key: u64,
    value: i64,
    size: u32,
    lineage: Rc<(u16, u16, u64)>,
}

/// Moves `records` records through `hops` ring buffers each, doing the minimum a hop does
/// (enqueue, dequeue, touch the key and value).
fn ring_loop(records: u64, hops: usize) -> u64 {
    let mut rings: Vec<VecDeque<Rec>> = (0..hops).map(|_| VecDeque::with_capacity(64)).collect();
    let mut checksum = 0u64;
    let lineage = Rc::new((0u16, 0u16, 0u64));
    for i in 0..records {
        rings[0].push_back(Rec {
            key: i % 64,
            value: i as i64,
            size: 256,
            lineage: lineage.clone(),
        });
        for h in 0..hops {
            let r = rings[h].pop_front().expect("pushed");
            checksum = checksum.wrapping_add(r.key ^ r.value as u64 ^ r.size as u64 ^ r.lineage.2);
            if h + 1 < hops {
                rings[h + 1].push_back(r);
            }
        }
    }
    checksum
}

/// Calls `f` once to warm up, then again until `secs` of wall time have passed (at least
/// once): the last result and the wall seconds per call.
fn per_call<T>(secs: f64, mut f: impl FnMut() -> T) -> (T, f64) {
    black_box(f());
    let started = Instant::now();
    let mut calls = 0u32;
    loop {
        let out = f();
        calls += 1;
        let elapsed = started.elapsed().as_secs_f64();
        if elapsed >= secs {
            return (out, elapsed / calls as f64);
        }
    }
}

/// One whole run of `spec`, its sinks keeping every committed record or not.
fn whole_run(spec: &JobSpec, keep_records: bool) -> Engine {
    let mut e = Engine::new(spec.clone()).expect("valid");
    e.keep_sink_records(keep_records);
    e.run_to_end();
    e
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let doc = scenario::preset("large").expect("the large preset");
    let mut spec = scenario::to_spec(&doc).expect("valid preset");
    if quick {
        spec.duration = spec.duration.min(10_000_000);
    }
    let secs = if quick { 0.3 } else { 1.5 };
    let subtasks: u32 = spec.operators.iter().map(|o| o.parallelism).sum();
    let (e, engine_secs) = per_call(secs, || whole_run(&spec, true));
    let (lean, lean_secs) = per_call(secs, || whole_run(&spec, false));
    assert_eq!(
        lean.event_hash(),
        e.event_hash(),
        "the sinks' bookkeeping changed the run"
    );
    let hops: u64 = e.tasks.iter().map(|t| t.metrics.records_in).sum();
    let sources: u64 = e
        .tasks
        .iter()
        .filter(|t| t.is_source)
        .map(|t| t.metrics.records_out)
        .sum();
    let depth = (hops as f64 / sources.max(1) as f64).round().max(1.0) as usize;

    let (_, ring_secs) = per_call(secs / 3.0, || ring_loop(hops / depth as u64, depth));

    let engine_rate = hops as f64 / engine_secs;
    let ring_rate = hops as f64 / ring_secs;
    let cps = e.coordinator.history.len();
    println!("engine: {subtasks} subtasks, {:.0}s virtual, {hops} record-hops, {cps} checkpoints, {engine_secs:.3}s wall a run (warm, repeated for {secs} s)", e.now as f64 / 1e6);
    println!(
        "engine: {:.2} M record-hops/s ({:.0}x faster than real time)",
        engine_rate / 1e6,
        e.now as f64 / 1e6 / engine_secs
    );
    println!(
        "ring buffer: {:.2} M record-hops/s over {depth} hops",
        ring_rate / 1e6
    );
    println!(
        "ratio engine / bare ring buffer: 1 : {:.1}",
        ring_rate / engine_rate
    );
    let lean_rate = hops as f64 / lean_secs;
    println!(
        "engine, sinks keeping only lineage runs (as the playground): {:.2} M record-hops/s ({:.0}x faster than real time), ratio 1 : {:.1}",
        lean_rate / 1e6,
        e.now as f64 / 1e6 / lean_secs,
        ring_rate / lean_rate
    );
}
