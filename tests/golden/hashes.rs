//! Golden event hashes: the same scenario must give the same run on every host. The native
//! test (`tests/engine_golden.rs`) and the browser test (`tests/wasm_engine.rs`) both check
//! these values; when the engine's behaviour changes on purpose, the native test prints the
//! new values to paste here.

/// (preset, virtual time to run to in µs, event hash).
pub const GOLDEN: &[(&str, u64, u64)] = &[
    ("unaligned", 30_000_000, 0x4e0e_3fce_33dc_9dc2),
    ("aligned-timeout", 30_000_000, 0xd1fb_cd12_8748_d40b),
    ("why-uc", 60_000_000, 0xfd91_81fb_48db_0ed0),
];

use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;

pub fn hash_of(preset: &str, until: u64) -> u64 {
    let doc = scenario::preset(preset).expect("preset exists");
    let mut e = Engine::new(scenario::to_spec(&doc).expect("valid")).expect("valid");
    e.run_until(until);
    e.event_hash()
}
