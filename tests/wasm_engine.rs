//! The engine in the browser: the same scenarios give the same event hashes in wasm as
//! natively (`tests/engine_golden.rs`), so a shared link reproduces its author's run.
#![cfg(target_arch = "wasm32")]

#[path = "golden/hashes.rs"]
mod golden;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn golden_hashes_hold_in_the_browser() {
    for &(preset, until, expected) in golden::GOLDEN {
        let got = golden::hash_of(preset, until);
        assert_eq!(
            got, expected,
            "{preset}: wasm hash 0x{got:016x}, native 0x{expected:016x}"
        );
    }
}
