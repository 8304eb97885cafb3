//! The engine in the browser: every fixture of `tests/golden/fixtures.json` — the same list
//! `tests/engine_golden.rs` checks natively — gives its recorded event hash in wasm, so a
//! shared link reproduces its author's run.
#![cfg(target_arch = "wasm32")]

#[path = "golden/fixtures.rs"]
mod golden;

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn golden_hashes_hold_in_the_browser() {
    let fixtures = golden::fixtures();
    let wrong = golden::check_all();
    web_sys::console::log_1(
        &format!(
            "golden: {} fixtures checked in wasm, {} differ",
            fixtures.len(),
            wrong.len()
        )
        .into(),
    );
    assert!(
        wrong.is_empty(),
        "wasm hashes differ from the native ones:\n{}",
        wrong.join("\n")
    );
}
