//! One whole-job run of a preset, as the wasm-versus-native benchmark measures it: the
//! same function is compiled natively (`benches/whole_job.rs`) and to wasm32
//! (`benches/wasm/lib.rs`, run by `scripts/bench-wasm.sh` under node), so both sides
//! execute exactly the same engine work. The run's event hash comes back with its figures:
//! the two sides must agree on it, which proves they simulated the same run.

use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;

/// What one run did: simulated work, not wall time (the caller times it).
pub struct WholeJob {
    pub subtasks: u32,
    /// Records taken in by every subtask: the figure `benches/engine.rs` calls record-hops.
    pub hops: u64,
    pub virtual_us: u64,
    pub checkpoints: usize,
    pub event_hash: u64,
}

/// Runs preset `name` to its end, or to `cap_us` of virtual time if that is shorter.
pub fn run(name: &str, cap_us: Option<u64>) -> Result<WholeJob, String> {
    let doc = scenario::preset(name).ok_or_else(|| format!("no preset named {name:?}"))?;
    let mut spec = scenario::to_spec(&doc).map_err(|e| format!("preset {name}: {e}"))?;
    if let Some(cap) = cap_us {
        spec.duration = spec.duration.min(cap);
    }
    let subtasks = spec.operators.iter().map(|o| o.parallelism).sum();
    let mut engine = Engine::new(spec).map_err(|e| format!("preset {name}: {e}"))?;
    // As the playground (`ui::sim`) and the CLI without `--sink-output` run it: the sinks
    // keep the lineage runs the verdict needs, not every committed record.
    engine.keep_sink_records(false);
    engine.run_to_end();
    Ok(WholeJob {
        subtasks,
        hops: engine.tasks.iter().map(|t| t.metrics.records_in).sum(),
        virtual_us: engine.now,
        checkpoints: engine.coordinator.history.len(),
        event_hash: engine.event_hash(),
    })
}
