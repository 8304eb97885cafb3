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

/// Dispatches a bubbling `keydown` of `key` at `el`.
fn press(el: &Element, key: &str) {
    let window = web_sys::window().unwrap();
    let ctor: js_sys::Function = js_sys::Reflect::get(&window, &"KeyboardEvent".into())
        .unwrap()
        .unchecked_into();
    let init = js_sys::Object::new();
    js_sys::Reflect::set(&init, &"key".into(), &key.into()).unwrap();
    js_sys::Reflect::set(&init, &"bubbles".into(), &true.into()).unwrap();
    let args = js_sys::Array::of2(&"keydown".into(), &init);
    let event: web_sys::Event = js_sys::Reflect::construct(&ctor, &args)
        .unwrap()
        .unchecked_into();
    el.dispatch_event(&event).unwrap();
}

/// Lets the app carry out pending seeks (they run on animation frames).
async fn frames() {
    gloo_timers::future::TimeoutFuture::new(120).await;
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
fn sim_seek_back_replays_the_same_run_and_a_new_action_forks_the_link() {
    use checkpoint_playground::engine::spec::Action;
    use checkpoint_playground::ui::sim::Sim;
    const S: u64 = 1_000_000;

    let doc = scenario::preset("backpressure").unwrap();
    let mut sim = Sim::new(doc, Some("backpressure".into())).unwrap();
    sim.run_to(20 * S);
    let fail = Action::Fail {
        operator: "explode".into(),
        subtask: 0,
    };
    sim.apply(fail.clone()).unwrap();
    sim.run_to(30 * S);
    let hash = sim.engine.borrow().event_hash();
    let link = sim.link_fragment();

    // The marks of the run up to 30 s: checkpoints, the failure and its recovery, and the
    // actions (the scenario's cost change at 20 s, the recorded Fail).
    let marks = sim.snapshots.timeline.clone();
    assert!(
        marks
            .checkpoints
            .iter()
            .filter(|c| c.status == "completed")
            .count()
            >= 10
    );
    assert_eq!(marks.failures.len(), 1);
    assert!(marks.failures[0].what.contains("explode#0"));
    assert!(marks.failures[0].recovered.is_some());
    let actions: Vec<(u64, bool)> = marks.actions.iter().map(|a| (a.at, a.recorded)).collect();
    assert!(
        actions.contains(&(20 * S, true)),
        "recorded Fail: {actions:?}"
    );
    assert!(
        actions.contains(&(45 * S, false)),
        "scenario failure: {actions:?}"
    );

    sim.seek(10 * S).unwrap();
    assert_eq!(sim.now(), 10 * S);
    assert!(
        std::rc::Rc::ptr_eq(&marks, &sim.snapshots.timeline),
        "seeking back keeps the marks of the run ahead"
    );
    assert_eq!(sim.furthest, 30 * S);
    assert_eq!(sim.link_fragment(), link, "seeking alone is not a fork");
    sim.run_to(30 * S);
    assert_eq!(
        sim.engine.borrow().event_hash(),
        hash,
        "same run after a seek"
    );
    assert_eq!(sim.forked_at, None);

    // A new action after seeking back forks: the Fail at 20 s is dropped from the link.
    sim.seek(12 * S).unwrap();
    sim.apply(Action::TriggerCheckpoint).unwrap();
    assert_eq!(sim.forked_at, Some(12 * S));
    assert_eq!(sim.furthest, 12 * S);
    let spec = scenario::to_spec(&scenario::decode_link(&sim.link_fragment()).unwrap()).unwrap();
    let original = scenario::to_spec(&scenario::preset("backpressure").unwrap()).unwrap();
    let added: Vec<_> = spec.events[original.events.len()..]
        .iter()
        .map(|e| (e.at, e.action.clone()))
        .collect();
    assert_eq!(added, vec![(12 * S, Action::TriggerCheckpoint)]);
    assert!(!spec.events.iter().any(|e| e.action == fail));
    assert_eq!(sim.snapshots.timeline.forked_at, Some(12 * S));
}

#[wasm_bindgen_test]
async fn the_timeline_handle_seeks_the_app_and_an_action_after_it_forks() {
    let link = preset_link("backpressure");
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&link, Some(30_000_000)));
    yew::scheduler::flush().await;
    let timeline = by_testid(&root, "timeline");
    let marks = all(&timeline, "[data-testid=\"timeline-mark\"]");
    assert!(
        marks
            .iter()
            .any(|m| m.get_attribute("data-kind").as_deref() == Some("checkpoint")),
        "completed checkpoints are marked"
    );
    let knob: HtmlElement = by_testid(&root, "timeline-handle").unchecked_into();
    knob.focus().unwrap();
    press(&knob, "Home");
    frames().await;
    for _ in 0..10 {
        press(&knob, "ArrowRight");
        frames().await;
    }
    let clock = by_testid(&root, "clock").text_content().unwrap();
    assert!(clock.starts_with("10.0s"), "clock after seeking: {clock}");

    // End goes back to the furthest time reached: the same run as a straight one.
    press(&knob, "End");
    frames().await;
    frames().await;
    let clock = by_testid(&root, "clock").text_content().unwrap();
    assert!(clock.starts_with("30.0s"), "clock at the end: {clock}");
    let straight_root = fresh_root();
    let straight = ui::mount_with(straight_root.clone(), props(&link, Some(30_000_000)));
    yew::scheduler::flush().await;
    for panel in ["checkpoints", "sinks-recovery"] {
        assert_eq!(
            by_testid(&root, panel).inner_html(),
            by_testid(&straight_root, panel).inner_html(),
            "{panel} after seeking back and forth"
        );
    }
    straight.destroy();

    // Back to 10 s, then a user action (c: trigger a checkpoint) forks the run there.
    for _ in 0..20 {
        press(&knob, "ArrowLeft");
        yew::scheduler::flush().await;
    }
    frames().await;
    frames().await;
    let body = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .body()
        .unwrap();
    press(&body, "c");
    yew::scheduler::flush().await;
    let fork = by_testid(&root, "timeline-fork");
    assert_eq!(fork.get_attribute("data-at").as_deref(), Some("10000000"));
    assert!(fork.text_content().unwrap().contains("forked at 10.0s"));
    handle.destroy();
    yew::scheduler::flush().await;
}
