//! The golden event hashes hold natively (the browser test checks the same values in wasm).

#[path = "golden/hashes.rs"]
mod golden;

#[test]
fn golden_hashes_hold_natively() {
    let mut wrong = Vec::new();
    for &(preset, until, expected) in golden::GOLDEN {
        let got = golden::hash_of(preset, until);
        if got != expected {
            wrong.push(format!("    (\"{preset}\", {until}, 0x{got:016x}),"));
        }
    }
    assert!(
        wrong.is_empty(),
        "event hashes changed; if intended, update tests/golden/hashes.rs with:\n{}",
        wrong.join("\n")
    );
}
