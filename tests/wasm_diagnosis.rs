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

/// The slow-sink job of `tests/diagnosis.rs` (chaining off: one task per operator).
fn slow_sink_doc() -> scenario::Document {
    scenario::parse_json(
        r#"{"version": 2, "name": "slow sink", "seed": 3, "duration": "30s",
            "config": {"execution.checkpointing.interval": "2s", "pipeline.operator-chaining.enabled": false},
            "operators": [
              {"id": "src", "kind": "source", "parallelism": 2, "rate": 2000, "record_size": 256, "keys": 64},
              {"id": "count", "kind": "keyed_aggregate", "parallelism": 2, "cost": "50us"},
              {"id": "out", "kind": "sink", "parallelism": 1, "cost": "2ms"}],
            "edges": [{"from": "src", "to": "count", "partitioner": "hash"},
                      {"from": "count", "to": "out", "partitioner": "rebalance"}],
            "events": []}"#,
    )
    .unwrap()
}

/// Clicking a remedy re-runs the scenario in frame slices (progress shows, the page
/// stays live) and then shows the effect on the pinned checkpoint: the very figures
/// the CLI's `remedies` prints (`scenario::remedies::measure`, the same function).
#[wasm_bindgen_test]
async fn a_remedy_click_shows_the_measured_comparison_of_the_cli() {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let doc = slow_sink_doc();
    let handle = ui::mount_with(
        root.clone(),
        AppProps {
            link: Some(scenario::encode_link(&doc).into()),
            run_to: Some(30_000_000),
            use_location: false,
        },
    );
    yew::scheduler::flush().await;
    let measured = scenario::remedies::measure(&doc, None).unwrap();
    let id = measured.checkpoint.expect("a slow checkpoint");
    let bar = all(&root, "[data-testid=\"diagnosis-bar\"]")
        .into_iter()
        .find(|b| b.get_attribute("data-id") == Some(id.to_string()))
        .expect("the slow checkpoint's bar");
    bar.dyn_into::<HtmlElement>().unwrap().click();
    yew::scheduler::flush().await;
    for name in ["unaligned", "fewer_buffers"] {
        by_testid(&root, &format!("remedy-{name}"))
            .dyn_into::<HtmlElement>()
            .unwrap()
            .click();
        yew::scheduler::flush().await;
        let result = by_testid(&root, "remedy-result");
        assert_eq!(result.get_attribute("data-remedy").as_deref(), Some(name));
        // Wait on the page's own state (bounded count, not a wall-clock promise).
        let mut polls = 0;
        while by_testid(&root, "remedy-result")
            .get_attribute("data-state")
            .as_deref()
            == Some("running")
        {
            polls += 1;
            assert!(polls < 20_000, "the remedy run never ended");
            gloo_timers::future::TimeoutFuture::new(10).await;
        }
        let cli = measured
            .remedies
            .iter()
            .find(|m| m.remedy.name == name)
            .unwrap();
        let effect = cli.effect.as_ref().unwrap();
        assert_eq!(
            by_testid(&root, "remedy-effect").text_content().unwrap(),
            effect.text
        );
        let row = root
            .query_selector(
                "[data-testid=\"remedy-effect-table\"] tr[data-figure=\"end_to_end_ms\"]",
            )
            .unwrap()
            .unwrap();
        let after: f64 = row.get_attribute("data-after").unwrap().parse().unwrap();
        let before: f64 = row.get_attribute("data-before").unwrap().parse().unwrap();
        assert_eq!(Some(before), effect.before.end_to_end_ms);
        assert_eq!(Some(after), effect.after.as_ref().unwrap().end_to_end_ms);
        assert!(after < before, "{name}: {before} → {after}");
        by_testid(&root, "remedy-flink");
        by_testid(&root, "remedy-summary");
    }
    // The soft / hard split of the checkpoint's window shows per subtask.
    let rows = all(&root, "[data-testid=\"diagnosis-windows\"] tbody tr");
    assert_eq!(rows.len(), 5);
    handle.destroy();
}
