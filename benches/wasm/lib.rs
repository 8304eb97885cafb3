//! The wasm half of the wasm-versus-native benchmark: `benches/support/whole_job.rs`
//! compiled to wasm32 as a module of its own (the example `bench_wasm`, built and run
//! by `scripts/bench-wasm.sh` under node with `benches/wasm/run.mjs`), with the same
//! profile and `wasm-opt` level as the site, so it measures the engine the page ships.
//! JavaScript times the calls; one call is one whole-job run.
#![cfg(target_arch = "wasm32")]

#[path = "../support/whole_job.rs"]
mod whole_job;

use wasm_bindgen::prelude::*;

/// Runs preset `name` to its end (or to `cap_us` of virtual time when that is > 0) and
/// returns `"subtasks hops virtual_us checkpoints 0xhash"`.
#[wasm_bindgen]
pub fn run_whole_job(name: &str, cap_us: f64) -> Result<String, JsValue> {
    let cap = (cap_us > 0.0).then_some(cap_us as u64);
    let job = whole_job::run(name, cap).map_err(|e| JsValue::from_str(&e))?;
    Ok(format!(
        "{} {} {} {} {:#018x}",
        job.subtasks, job.hops, job.virtual_us, job.checkpoints, job.event_hash
    ))
}
