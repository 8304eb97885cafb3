//! What the full report costs as a run grows (issue 19): runs a scenario file in steps of
//! `STEP_S` virtual seconds (default 300) and, at each step, times `REPEAT` (default 20)
//! calls of `Engine::report` (each reusing the unchanged history entries' reports, as the
//! playground's refresh every 400 ms does) and as many of `Engine::report_uncached` (every
//! entry built again, as every report was before `engine::report_rows`), in one process.
//!
//! `cargo run --release --example report_cost -- www/bench/jobs/large1200.json`

use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;
use std::time::Instant;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: report_cost SCENARIO.json");
        std::process::exit(2);
    };
    let fail = |e: String| -> ! {
        eprintln!("report_cost: {path}: {e}");
        std::process::exit(2)
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(e.to_string()));
    let doc = scenario::parse_json(&text).unwrap_or_else(|e| fail(e.to_string()));
    let spec = scenario::to_spec(&doc).unwrap_or_else(|e| fail(e.to_string()));
    let mut engine = Engine::new(spec).unwrap_or_else(|e| fail(e.to_string()));
    engine.keep_sink_records(false);
    let (step, repeat) = (env("STEP_S", 300) * 1_000_000, env("REPEAT", 20).max(1));
    let time = |f: &dyn Fn()| {
        let started = Instant::now();
        for _ in 0..repeat {
            f();
        }
        started.elapsed().as_secs_f64() * 1e3 / repeat as f64
    };
    while !engine.is_done() {
        engine.run_until(engine.now() + step);
        engine.report();
        let reused = time(&|| {
            std::hint::black_box(engine.report());
        });
        let fresh = time(&|| {
            std::hint::black_box(engine.report_uncached());
        });
        println!(
            "{:>6.0} s, {:>5} checkpoints: report {reused:6.2} ms, built fresh {fresh:6.2} ms",
            engine.now() as f64 / 1e6,
            engine.coordinator.history.len()
        );
    }
}
