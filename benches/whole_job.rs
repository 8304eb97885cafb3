//! The native half of the wasm-versus-native benchmark (`scripts/bench-wasm.sh` runs both
//! halves and prints their ratio): whole-job runs of one preset (default `large`), timed
//! with the wall clock, as record-hops per second. The wasm half (`benches/wasm/run.mjs`)
//! does exactly the same: one warm-up run capped at 2 s of virtual time, then full runs
//! until at least `--min-secs` (default 3) of wall time have passed.
//!
//! `cargo bench --bench whole_job -- [--preset NAME] [--min-secs S]`. The last line,
//! `RESULT native hops_per_sec=… runs=… hash=…`, is what the script reads.

#[path = "support/whole_job.rs"]
mod whole_job;

use std::time::Instant;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let preset = arg("--preset").unwrap_or_else(|| "large".into());
    let min_secs: f64 = arg("--min-secs").map_or(3.0, |s| s.parse().expect("--min-secs: seconds"));
    let fail = |e: String| -> ! {
        eprintln!("whole_job: {e}");
        std::process::exit(2)
    };
    whole_job::run(&preset, Some(2_000_000)).unwrap_or_else(|e| fail(e));
    let started = Instant::now();
    let (mut runs, mut hops) = (0u64, 0u64);
    let mut last = None;
    while runs == 0 || started.elapsed().as_secs_f64() < min_secs {
        let job = whole_job::run(&preset, None).unwrap_or_else(|e| fail(e));
        runs += 1;
        hops += job.hops;
        last = Some(job);
    }
    let secs = started.elapsed().as_secs_f64();
    let job = last.expect("one run");
    let rate = hops as f64 / secs;
    println!(
        "native {preset}: {} subtasks, {:.0} s virtual, {} record-hops and {} checkpoints a run; {runs} runs in {secs:.2} s: {:.2} M record-hops/s",
        job.subtasks,
        job.virtual_us as f64 / 1e6,
        job.hops,
        job.checkpoints,
        rate / 1e6
    );
    println!(
        "RESULT native hops_per_sec={rate:.0} runs={runs} hash={:#018x}",
        job.event_hash
    );
}
