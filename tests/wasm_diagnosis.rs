//! Browser test of the diagnosis panel (`src/ui/components/diagnosis.rs`): the legacy-source
//! preset run to 20 s shows the critical path the report holds (the trigger waiting for the
//! legacy source's lock), the bottleneck, Flink's metrics per subtask and the checkpoint
//! strip; clicking a bar pins that checkpoint, "Follow newest" lets go again.
//!
//! Runs with `cargo test --target wasm32-unknown-unknown --test wasm_diagnosis`.
#![cfg(target_arch = "wasm32")]

use checkpoint_playground::scenario;
use checkpoint_playground::ui::{self, AppProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

fn by_testid(root: &Element, testid: &str) -> Element {
    root.query_selector(&format!("[data-testid=\"{testid}\"]"))
        .unwrap()
        .unwrap_or_else(|| panic!("no element with data-testid={testid:?}"))
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .map(|i| list.item(i).unwrap().dyn_into::<Element>().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn the_diagnosis_panel_names_the_critical_path_and_pins_a_checkpoint() {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let doc = scenario::preset("legacy-source").unwrap();
    let link = scenario::encode_link(&doc);
    let handle = ui::mount_with(
        root.clone(),
        AppProps {
            link: Some(link.into()),
            run_to: Some(20_000_000),
            use_location: false,
        },
    );
    yew::scheduler::flush().await;

    // What the engine's report says is what the panel shows.
    let mut e =
        checkpoint_playground::engine::Engine::new(scenario::to_spec(&doc).unwrap()).unwrap();
    e.run_until(20_000_000);
    let report = e.report();
    let newest = report.checkpoints.last().unwrap();
    let text = by_testid(&root, "diagnosis-text");
    assert_eq!(
        text.text_content().unwrap(),
        newest.diagnosis.as_ref().unwrap().text
    );
    let bottleneck = by_testid(&root, "diagnosis-bottleneck");
    assert_eq!(
        bottleneck.get_attribute("data-subtask"),
        report.bottleneck.subtask
    );
    assert!(
        report.bottleneck.subtask.is_some(),
        "the sink is the bottleneck"
    );
    let rows = all(&root, "[data-testid=\"diagnosis-metrics\"] tbody tr");
    assert_eq!(rows.len(), report.metrics.len());

    // Pin an older checkpoint: the panel shows its diagnosis, not the newest one's.
    let lock = report
        .checkpoints
        .iter()
        .rev()
        .filter(|c| c.diagnosis.is_some())
        .nth(2)
        .expect("three diagnosed checkpoints");
    let pinned = lock.diagnosis.as_ref().unwrap();
    let bars = all(&root, "[data-testid=\"diagnosis-bar\"]");
    assert!(!bars.is_empty());
    let bar = bars
        .iter()
        .find(|b| b.get_attribute("data-id") == Some(lock.id.to_string()))
        .expect("its bar in the strip");
    bar.clone().dyn_into::<HtmlElement>().unwrap().click();
    yew::scheduler::flush().await;
    let text = by_testid(&root, "diagnosis-text");
    assert_eq!(text.text_content().unwrap(), pinned.text);
    assert_eq!(
        text.get_attribute("data-phase").as_deref(),
        Some(pinned.phase.as_str())
    );
    by_testid(&root, "diagnosis-follow")
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    yew::scheduler::flush().await;
    assert_eq!(
        by_testid(&root, "diagnosis-text").text_content().unwrap(),
        newest.diagnosis.as_ref().unwrap().text
    );
    handle.destroy();
}
