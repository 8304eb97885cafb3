//! The golden event hashes hold natively: every fixture of `tests/golden/fixtures.json`
//! (every preset, plus scenarios with skew, debloating, legacy sources, every sink delivery,
//! every partitioner and event kind, and time-travel seeks) gives its recorded hash. The
//! browser test (`tests/wasm_engine.rs`) checks the same list in headless Chromium.

#[path = "golden/fixtures.rs"]
mod golden;

use checkpoint_playground::scenario::presets::NAMES;

#[test]
fn golden_hashes_hold_natively() {
    let wrong = golden::check_all();
    assert!(
        wrong.is_empty(),
        "event hashes changed; if intended, update tests/golden/fixtures.json:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_fixtures_cover_every_preset_and_the_promised_features() {
    let fixtures = golden::fixtures();
    for name in NAMES {
        assert!(
            fixtures.iter().any(|f| f.preset.as_deref() == Some(name)),
            "preset {name} has no golden fixture"
        );
    }
    let json = golden::FIXTURES_JSON;
    for needle in [
        "\"skew\"",
        "buffer-debloat.enabled",
        "\"legacy\": true",
        "\"idempotent\"",
        "\"at_least_once\"",
        "\"forward\"",
        "\"rebalance\"",
        "\"rescale\"",
        "\"hash\"",
        "\"broadcast\"",
        "\"set_cost\"",
        "\"set_rate\"",
        "\"fail\"",
        "\"trigger_checkpoint\"",
        "\"set_config\"",
        "\"set_partitioner\"",
        "\"seek_to\"",
        "\"live\"",
    ] {
        assert!(json.contains(needle), "no golden fixture uses {needle}");
    }
}
