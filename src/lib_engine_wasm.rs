//! The root of the `checkpoint-playground-engine-wasm` package (`crates/engine-wasm`):
//! the engine with the scenario format and nothing else, as a wasm module of its own.
//!
//! Contract: [`run_link`] takes a playground link (a whole URL, `#z2:…` or `z2:…`), runs
//! its scenario to the end headless and returns the engine's report as JSON, the same
//! report (and event hash) as `checkpoint-playground run --link … --json` gives natively.
//! It exists to measure what the page's bundle cannot go below (issue 19, item 1):
//! decoding a link, validating the scenario, running it and reporting are the least a
//! page that runs this engine must ship, so `scripts/bundle-floor.sh` builds this module
//! at the site's optimisation levels and prints its size beside the budget. The page
//! itself is the root package (`src/lib.rs`), which adds the UI.

use checkpoint_playground_core::engine::Engine;
use checkpoint_playground_core::scenario;
use wasm_bindgen::prelude::*;

/// The scenario in `link`, run to its end: the report as JSON, or what is wrong.
pub fn run_link_report(link: &str) -> Result<String, String> {
    let doc = scenario::decode_link(link).map_err(|e| format!("the link: {e}"))?;
    let spec = scenario::to_spec(&doc).map_err(|e| format!("the scenario: {e}"))?;
    let mut engine = Engine::new(spec).map_err(|e| format!("the job: {e}"))?;
    engine.run_to_end();
    serde_json::to_string(&engine.report()).map_err(|e| format!("the report: {e}"))
}

/// [`run_link_report`] for JavaScript: the report's JSON, or an error string.
#[wasm_bindgen]
pub fn run_link(link: &str) -> Result<String, JsValue> {
    run_link_report(link).map_err(|e| JsValue::from_str(&e))
}

#[cfg(test)]
mod tests {
    use super::run_link_report;
    use checkpoint_playground_core::scenario;

    #[test]
    fn runs_a_presets_link_to_the_report_the_engine_gives() {
        let doc = scenario::preset("unaligned").expect("the preset");
        let json = run_link_report(&scenario::encode_link(&doc)).expect("it runs");
        let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let mut engine =
            checkpoint_playground_core::engine::Engine::new(scenario::to_spec(&doc).expect("spec"))
                .expect("engine");
        engine.run_to_end();
        assert_eq!(
            report["event_hash"].as_str(),
            Some(format!("{:016x}", engine.event_hash()).as_str())
        );
        assert!(report["checkpoints"]
            .as_array()
            .is_some_and(|c| !c.is_empty()));
    }

    #[test]
    fn a_broken_link_says_so() {
        let err = run_link_report("#z2:not-a-link").expect_err("refused");
        assert!(err.starts_with("the link: "), "{err}");
    }
}
