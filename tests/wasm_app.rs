//! Browser tests of the playground: the Yew app mounted into a detached `div` in a
//! real headless Chromium, opened from links and run to a virtual time through the
//! app's `run_to` property (no animation frames needed).
//!
//! Runs with `cargo test --target wasm32-unknown-unknown --test wasm_app` (the
//! runner is `wasm-bindgen-test-runner`, see `scripts/test.sh`); natively this file
//! compiles to an empty test binary.
#![cfg(target_arch = "wasm32")]

use checkpoint_playground::scenario;
use checkpoint_playground::ui::{self, AppProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh `div` appended to `<body>`, so each test mounts into its own root.
fn fresh_root() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

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

fn preset_link(name: &str) -> String {
    scenario::encode_link(&scenario::preset(name).expect("preset"))
}

fn props(link: &str, run_to: Option<u64>) -> AppProps {
    AppProps {
        link: Some(link.to_string().into()),
        run_to,
        use_location: false,
    }
}

#[wasm_bindgen_test]
async fn unaligned_link_run_to_20s_shows_a_completed_unaligned_checkpoint_with_persisted_data() {
    let root = fresh_root();
    let handle = ui::mount_with(
        root.clone(),
        props(&preset_link("unaligned"), Some(20_000_000)),
    );
    yew::scheduler::flush().await;

    assert!(
        root.query_selector("[data-testid=\"error-banner\"]")
            .unwrap()
            .is_none(),
        "a good link shows no error"
    );
    let rows = all(&root, "[data-testid=\"checkpoint-row\"]");
    assert!(rows.len() >= 5, "checkpoints every 2s: {} rows", rows.len());
    let unaligned: Vec<&Element> = rows
        .iter()
        .filter(|r| {
            r.get_attribute("data-status").as_deref() == Some("completed")
                && r.get_attribute("data-unaligned").as_deref() == Some("true")
        })
        .collect();
    assert!(
        !unaligned.is_empty(),
        "a completed unaligned checkpoint row"
    );
    let persisted: u64 = unaligned[0]
        .get_attribute("data-persisted")
        .unwrap()
        .parse()
        .unwrap();
    assert!(persisted > 0, "persisted in-flight bytes > 0");
    let cell = unaligned[0]
        .query_selector("[data-testid=\"persisted-inflight\"]")
        .unwrap()
        .unwrap();
    assert_ne!(
        cell.text_content().unwrap(),
        "0 B",
        "the cell shows the bytes"
    );

    // The job view has every subtask of the preset, coloured by backpressure level.
    for (op, n) in [
        ("orders", 2),
        ("clicks", 2),
        ("explode", 2),
        ("count", 2),
        ("out", 1),
    ] {
        for i in 0..n {
            let node = by_testid(&root, &format!("subtask-{op}-{i}"));
            let level = node.get_attribute("data-backpressure").unwrap();
            assert!(["OK", "LOW", "HIGH"].contains(&level.as_str()), "{level}");
        }
    }
    // The channel lanes are painted onto the job view's canvas, not built as DOM.
    let lanes = by_testid(&root, "job-lanes");
    assert_eq!(lanes.tag_name().to_ascii_lowercase(), "canvas");
    let drawn: usize = lanes
        .get_attribute("data-channels")
        .expect("the lane canvas was painted")
        .parse()
        .unwrap();
    assert!(drawn > 0, "lanes drawn: {drawn}");
    assert!(
        all(&root, "[data-testid=\"job-graph\"] .lane").is_empty(),
        "no SVG lane elements"
    );
    // The clock shows the virtual time the app was run to.
    assert!(by_testid(&root, "clock")
        .text_content()
        .unwrap()
        .contains("20.0s"));
    // Charts and log are filled.
    assert!(!all(&root, "[data-testid=\"chart-throughput\"] polyline").is_empty());
    assert!(!all(&root, "[data-testid=\"log-entry\"]").is_empty());

    handle.destroy();
    yew::scheduler::flush().await;
    assert_eq!(root.child_element_count(), 0, "destroy() unmounts the app");
}

#[wasm_bindgen_test]
async fn a_bad_link_shows_the_error_banner_and_opens_the_default_scenario() {
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props("#z:%%%not-base64", None));
    yew::scheduler::flush().await;

    let banner = by_testid(&root, "error-banner");
    let text = banner.text_content().unwrap();
    assert!(text.contains("could not be opened"), "{text}");
    assert!(
        text.contains("link"),
        "the message says what is wrong: {text}"
    );

    // The default scenario still loads and runs.
    let default = scenario::default_document();
    assert_eq!(
        by_testid(&root, "scenario-name").text_content().unwrap(),
        default.name
    );
    let select: web_sys::HtmlSelectElement = by_testid(&root, "preset-select").dyn_into().unwrap();
    assert_eq!(select.value(), scenario::presets::DEFAULT);
    let play: HtmlElement = by_testid(&root, "play").dyn_into().unwrap();
    assert!(
        !play.has_attribute("disabled"),
        "the default scenario can play"
    );

    // An unknown encoding prefix also gets its own message.
    let root2 = fresh_root();
    let handle2 = ui::mount_with(root2.clone(), props("#q:abc", None));
    yew::scheduler::flush().await;
    assert!(by_testid(&root2, "error-banner")
        .text_content()
        .unwrap()
        .contains("unknown link encoding"));

    handle.destroy();
    handle2.destroy();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
fn a_link_round_trips_to_the_same_scenario() {
    for name in scenario::preset_names() {
        let doc = scenario::preset(name).unwrap();
        let spec = scenario::to_spec(&doc).unwrap();
        let fragment = scenario::encode_link(&scenario::from_spec(&spec));
        let url = format!("https://example.org/playground/#{fragment}");
        let back = scenario::decode_link(&url).unwrap();
        assert_eq!(scenario::to_spec(&back).unwrap(), spec, "preset {name}");
    }
}

#[wasm_bindgen_test]
async fn recorded_actions_travel_in_the_link_and_replay_exactly() {
    use checkpoint_playground::engine::spec::Action;
    use checkpoint_playground::engine::Engine;

    // What the UI does on Fail + Share: apply through the engine, encode from_spec.
    let doc = scenario::preset("unaligned").unwrap();
    let mut live = Engine::new(scenario::to_spec(&doc).unwrap()).unwrap();
    live.run_until(7_000_000);
    live.apply(Action::Fail {
        operator: "count".into(),
        subtask: 0,
    })
    .unwrap();
    live.run_until(15_000_000);
    let fragment = scenario::encode_link(&scenario::from_spec(&live.spec));

    let mut replay =
        Engine::new(scenario::to_spec(&scenario::decode_link(&fragment).unwrap()).unwrap())
            .unwrap();
    replay.run_until(15_000_000);
    assert_eq!(
        replay.event_hash(),
        live.event_hash(),
        "same run, bit for bit"
    );

    // The app opened from that link at 15s shows the failure and its restore.
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&fragment, Some(15_000_000)));
    yew::scheduler::flush().await;
    let failures = all(&root, "[data-testid=\"failure-row\"]");
    assert_eq!(failures.len(), 1);
    assert!(failures[0].text_content().unwrap().contains("count#0"));
    let verdict = by_testid(&root, "sink-verdict");
    assert!(verdict.get_attribute("data-exactly-once").is_some());
    handle.destroy();
    yew::scheduler::flush().await;
}

fn compare_link(name: &str, compare: &str) -> String {
    let mut doc = scenario::preset(name).expect("preset");
    doc.compare = Some(scenario::compare::Comparison::parse(compare, "compare").unwrap());
    scenario::encode_link(&doc)
}

fn series_points(root: &Element, chart: &str, side: &str) -> usize {
    all(
        root,
        &format!("[data-testid=\"{chart}\"] [data-series=\"{side}\"] circle.dot"),
    )
    .len()
}

#[wasm_bindgen_test]
async fn a_compare_link_opens_both_runs_side_by_side_with_two_series_per_chart() {
    let root = fresh_root();
    let handle = ui::mount_with(
        root.clone(),
        props(
            &compare_link("backpressure", "aligned|unaligned"),
            Some(30_000_000),
        ),
    );
    yew::scheduler::flush().await;

    assert!(root
        .query_selector("[data-testid=\"error-banner\"]")
        .unwrap()
        .is_none());
    by_testid(&root, "compare");
    let a = by_testid(&root, "compare-run-a");
    let b = by_testid(&root, "compare-run-b");
    assert_eq!(a.get_attribute("data-mode").as_deref(), Some("aligned"));
    assert_eq!(b.get_attribute("data-mode").as_deref(), Some("unaligned"));
    assert!(a.text_content().unwrap().contains("aligned (AC)"));
    assert!(b.text_content().unwrap().contains("unaligned (UC)"));
    // Each run draws its own job: 2+2+2+2+1 subtasks.
    for run in [&a, &b] {
        assert_eq!(all(run, "[data-testid^=\"subtask-\"]").len(), 9);
    }
    // Both runs completed checkpoints by 30s, drawn as two series on shared charts.
    for chart in [
        "compare-chart-duration",
        "compare-chart-alignment",
        "compare-chart-persisted",
    ] {
        let (pa, pb) = (
            series_points(&root, chart, "a"),
            series_points(&root, chart, "b"),
        );
        assert!(
            pa >= 5 && pb >= 5,
            "{chart}: {pa} and {pb} completed checkpoints"
        );
    }
    assert_eq!(
        all(
            &root,
            "[data-testid=\"compare-chart-replay\"] [data-series]"
        )
        .len(),
        2
    );
    let summary = by_testid(&root, "compare-summary").text_content().unwrap();
    assert!(summary.contains("Median end-to-end duration"), "{summary}");
    assert!(summary.contains("Median persisted in-flight"), "{summary}");
    // The clock shows the shared virtual time.
    assert!(by_testid(&root, "clock")
        .text_content()
        .unwrap()
        .contains("30"));

    // Leaving comparison mode returns to the single run.
    by_testid(&root, "compare-toggle")
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    yew::scheduler::flush().await;
    assert!(root
        .query_selector("[data-testid=\"compare\"]")
        .unwrap()
        .is_none());
    by_testid(&root, "job-graph");
    by_testid(&root, "charts");
    handle.destroy();
}

#[wasm_bindgen_test]
fn compare_runs_stay_in_lockstep_and_record_actions_in_both() {
    use checkpoint_playground::engine::spec::Action;
    use checkpoint_playground::scenario::compare::Comparison;
    use checkpoint_playground::ui::compare::Compare;

    let doc = scenario::preset("backpressure").unwrap();
    let mut c = Compare::new(
        doc,
        Comparison::parse("aligned|timeout:200ms", "t").unwrap(),
    )
    .unwrap();
    // A tiny budget: the pair stops together, wherever the budget ran out.
    for _ in 0..20 {
        let reached = c.advance(c.now() + 700_000, 0.01);
        assert_eq!(c.a.now(), reached);
        assert_eq!(c.b.now(), reached);
    }
    let at = c.now();
    assert!(at > 0);
    c.apply(Action::Fail {
        operator: "count".into(),
        subtask: 0,
    })
    .unwrap();
    c.step();
    assert_eq!(c.a.now(), c.b.now());
    for sim in [&c.a, &c.b] {
        let e = sim.engine.borrow();
        assert_eq!(
            e.spec.events.len(),
            3,
            "the preset's two events and the failure"
        );
        assert_eq!(e.spec.events[2].at, at);
    }
    // The link reopens the comparison with the recorded failure.
    let back = scenario::decode_link(&c.link_fragment()).unwrap();
    assert_eq!(back.compare, Some(c.comparison.clone()));
    assert_eq!(back.events.len(), 3);
    assert!(!back
        .config
        .contains_key("execution.checkpointing.unaligned.enabled"));
}
