//! Browser tests of the playground: the Yew app mounted into a detached `div` in a
//! real headless Chromium, opened from links and run to a virtual time through the
//! app's `run_to` property (no animation frames needed), a link's moment (`&t=31s`) or
//! "Pause at" + Play. Whatever runs on animation frames is awaited on the state the app
//! exposes on its root (`data-now-us`, `data-run`; [`wait_until`]), never on a fixed
//! delay, so the tests hold on a machine of any speed.
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

fn click(root: &Element, testid: &str) {
    by_testid(root, testid)
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
}

/// Types `text` into a textarea as a user would (value, then a bubbling `input`).
fn type_into(root: &Element, testid: &str, text: &str) {
    let area: web_sys::HtmlTextAreaElement = by_testid(root, testid).dyn_into().unwrap();
    area.set_value(text);
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let input = web_sys::Event::new_with_event_init_dict("input", &init).unwrap();
    area.dispatch_event(&input).unwrap();
}

fn text_of(root: &Element, testid: &str) -> String {
    by_testid(root, testid).text_content().unwrap_or_default()
}

#[wasm_bindgen_test]
async fn an_invalid_import_shows_its_error_and_keeps_the_run_a_valid_one_replaces_it() {
    let root = fresh_root();
    let handle = ui::mount_with(
        root.clone(),
        props(&preset_link("healthy"), Some(5_000_000)),
    );
    yew::scheduler::flush().await;
    let clock = text_of(&root, "clock");
    assert!(clock.contains("5.0s"), "{clock}");
    let rows = all(&root, "[data-testid=\"checkpoint-row\"]").len();
    assert!(rows >= 2, "{rows} checkpoints by 5s");

    click(&root, "import-json");
    yew::scheduler::flush().await;
    by_testid(&root, "import-dialog");
    let mut bad: serde_json::Value =
        serde_json::from_str(scenario::presets::preset_json("unaligned").unwrap()).unwrap();
    bad["edges"][0]["to"] = serde_json::json!("nowhere");
    let bad = serde_json::to_string_pretty(&bad).unwrap();
    type_into(&root, "import-text", &bad);
    click(&root, "import-open");
    yew::scheduler::flush().await;
    let error = text_of(&root, "import-error");
    assert!(
        error.contains("edges[0].to") && error.contains("unknown operator 'nowhere'"),
        "{error}"
    );
    let area: web_sys::HtmlTextAreaElement = by_testid(&root, "import-text").dyn_into().unwrap();
    assert_eq!(area.value(), bad, "the text stays to be fixed");
    assert_eq!(text_of(&root, "clock"), clock, "the run is untouched");
    assert_eq!(all(&root, "[data-testid=\"checkpoint-row\"]").len(), rows);
    let select: web_sys::HtmlSelectElement = by_testid(&root, "preset-select").dyn_into().unwrap();
    assert_eq!(select.value(), "healthy");

    // Bad JSON syntax: the error names the line and column.
    type_into(&root, "import-text", "{\n  \"version\": 1,\n  oops\n}");
    click(&root, "import-open");
    yew::scheduler::flush().await;
    let error = text_of(&root, "import-error");
    assert!(error.contains("line 3 column 3"), "{error}");

    // A preset's JSON replaces the run, stopped at zero, and closes the dialog.
    type_into(
        &root,
        "import-text",
        scenario::presets::preset_json("unaligned").unwrap(),
    );
    click(&root, "import-open");
    yew::scheduler::flush().await;
    assert!(
        root.query_selector("[data-testid=\"import-dialog\"]")
            .unwrap()
            .is_none(),
        "the dialog closes"
    );
    let select: web_sys::HtmlSelectElement = by_testid(&root, "preset-select").dyn_into().unwrap();
    assert_eq!(
        select.value(),
        "unaligned",
        "the imported preset is running"
    );
    assert!(text_of(&root, "clock").contains("0.0s"));
    assert!(all(&root, "[data-testid=\"checkpoint-row\"]").is_empty());
    handle.destroy();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn every_chart_has_copy_buttons() {
    let root = fresh_root();
    let handle = ui::mount_with(
        root.clone(),
        props(&preset_link("healthy"), Some(6_000_000)),
    );
    yew::scheduler::flush().await;
    for name in ["throughput", "duration", "persisted", "inflight"] {
        by_testid(&root, &format!("chart-{name}"));
        by_testid(&root, &format!("chart-copy-svg-{name}"));
        by_testid(&root, &format!("chart-copy-png-{name}"));
    }
    handle.destroy();
    yew::scheduler::flush().await;
}

// ---- the job editor ------------------------------------------------------------------

/// Sets a field's value and fires a bubbling `change`, as a user's edit does.
fn change(root: &Element, testid: &str, value: &str) {
    let el = by_testid(root, testid);
    if let Some(select) = el.dyn_ref::<web_sys::HtmlSelectElement>() {
        select.set_value(value);
        assert_eq!(select.value(), value, "{testid} has an option {value:?}");
    } else {
        el.dyn_ref::<web_sys::HtmlInputElement>()
            .expect("an input or a select")
            .set_value(value);
    }
    let document = web_sys::window().unwrap().document().unwrap();
    let event = document.create_event("Event").unwrap();
    event.init_event_with_bubbles("change", true);
    el.dispatch_event(&event).unwrap();
}

fn problem_texts(root: &Element) -> Vec<String> {
    all(root, "[data-testid=\"editor-problem\"]")
        .iter()
        .map(|p| p.text_content().unwrap())
        .collect()
}

fn apply_disabled(root: &Element) -> bool {
    by_testid(root, "editor-apply").has_attribute("disabled")
}

#[wasm_bindgen_test]
async fn the_editor_adds_and_connects_an_operator_and_the_new_run_s_link_carries_it() {
    let root = fresh_root();
    let handle = ui::mount_with(
        root.clone(),
        AppProps {
            link: Some(preset_link("healthy").into()),
            run_to: Some(3_000_000),
            use_location: true,
        },
    );
    yew::scheduler::flush().await;
    assert!(root
        .query_selector("[data-testid=\"editor\"]")
        .unwrap()
        .is_none());
    click(&root, "edit-job");
    yew::scheduler::flush().await;
    by_testid(&root, "editor");
    assert!(problem_texts(&root).is_empty() && !apply_disabled(&root));
    by_testid(&root, "editor-node-src");

    change(&root, "editor-add-kind", "flat_map");
    yew::scheduler::flush().await;
    click(&root, "editor-add");
    yew::scheduler::flush().await;
    let node = by_testid(&root, "editor-node-flatmap");
    assert_eq!(node.get_attribute("data-problem").as_deref(), Some("true"));
    assert_eq!(
        problem_texts(&root),
        [
            "operators[3]: 'flatmap' has no input",
            "operators[3]: 'flatmap' has no output (end the path in a sink)"
        ]
    );
    assert!(apply_disabled(&root), "a dangling operator cannot run");

    for (from, to, partitioner) in [("src", "flatmap", "hash"), ("flatmap", "out", "")] {
        change(&root, "editor-connect-from", from);
        change(&root, "editor-connect-to", to);
        change(&root, "editor-connect-partitioner", partitioner);
        yew::scheduler::flush().await;
        click(&root, "editor-connect");
        yew::scheduler::flush().await;
    }
    change(&root, "editor-op-flatmap-parallelism", "3");
    change(&root, "editor-op-flatmap-fan_out", "4");
    yew::scheduler::flush().await;
    assert_eq!(problem_texts(&root), Vec::<String>::new());
    by_testid(&root, "editor-ok");
    assert!(!apply_disabled(&root));
    assert_eq!(
        by_testid(&root, "editor-node-flatmap")
            .get_attribute("data-problem")
            .as_deref(),
        Some("false")
    );

    click(&root, "editor-apply");
    yew::scheduler::flush().await;
    assert!(
        root.query_selector("[data-testid=\"editor\"]")
            .unwrap()
            .is_none(),
        "the editor closes"
    );
    assert!(
        by_testid(&root, "clock")
            .text_content()
            .unwrap()
            .contains("0.0s"),
        "a new run from t = 0"
    );
    let select: web_sys::HtmlSelectElement = by_testid(&root, "preset-select").dyn_into().unwrap();
    assert_eq!(select.value(), "", "no longer the healthy preset");
    let location = web_sys::window().unwrap().location();
    let doc = scenario::decode_link(&location.hash().unwrap()).expect("the link decodes");
    let flatmap = doc
        .operators
        .iter()
        .find(|o| o.id == "flatmap")
        .expect("the link carries the new operator");
    assert_eq!(
        (flatmap.kind, flatmap.parallelism, flatmap.fan_out),
        (scenario::Kind::FlatMap, Some(3), Some(4))
    );
    let edges: Vec<(String, String)> = doc
        .edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect();
    assert!(edges.contains(&("src".into(), "flatmap".into())));
    assert!(edges.contains(&("flatmap".into(), "out".into())));
    // An edited job gets its own name (issue 17 item 1): the preset's describes its job.
    assert_eq!(
        doc.name,
        format!("{} (edited)", scenario::preset("healthy").unwrap().name)
    );

    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#"))
        .unwrap();
    handle.destroy();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn an_invalid_draft_shows_its_problems_inline_and_cannot_run() {
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&preset_link("healthy"), None));
    yew::scheduler::flush().await;
    click(&root, "edit-job");
    yew::scheduler::flush().await;

    // map (×2) -> out (×1) forced to forward; a cycle map -> map2 -> map.
    change(&root, "editor-edge-1-partitioner", "forward");
    click(&root, "editor-add");
    yew::scheduler::flush().await;
    for (from, to) in [("map", "map2"), ("map2", "map")] {
        change(&root, "editor-connect-from", from);
        change(&root, "editor-connect-to", to);
        yew::scheduler::flush().await;
        click(&root, "editor-connect");
        yew::scheduler::flush().await;
    }
    assert_eq!(
        problem_texts(&root),
        [
            "edges[1].partitioner: forward edge map -> out joins different parallelisms (2 vs 1); use rebalance or rescale",
            "edges: the graph has a cycle through 'map' -> 'map2' -> 'map'",
        ]
    );
    assert!(apply_disabled(&root));
    let title = by_testid(&root, "editor-apply")
        .get_attribute("title")
        .unwrap();
    assert!(title.contains("Fix the 2 problems"), "{title}");
    for id in ["map", "map2"] {
        let node = by_testid(&root, &format!("editor-node-{id}"));
        assert_eq!(node.get_attribute("data-problem").as_deref(), Some("true"));
        assert!(
            node.text_content().unwrap().contains("cycle"),
            "reason on hover"
        );
    }
    assert_eq!(
        by_testid(&root, "editor-node-src")
            .get_attribute("data-problem")
            .as_deref(),
        Some("false")
    );

    // A value that does not parse is refused with its path; the draft is unchanged.
    change(&root, "editor-op-src-rate", "fast");
    yew::scheduler::flush().await;
    assert_eq!(
        by_testid(&root, "editor-note").text_content().unwrap(),
        "operators[0].rate: 'fast' is not a number"
    );
    assert_eq!(problem_texts(&root).len(), 2);

    click(&root, "editor-discard");
    yew::scheduler::flush().await;
    assert!(root
        .query_selector("[data-testid=\"editor\"]")
        .unwrap()
        .is_none());
    let select: web_sys::HtmlSelectElement = by_testid(&root, "preset-select").dyn_into().unwrap();
    assert_eq!(select.value(), "healthy", "discarding keeps the run");
    handle.destroy();
    yew::scheduler::flush().await;
}

// ---- time travel ------------------------------------------------------------------

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

/// The app's exposed run state: (`data-now-us`, `data-run`).
fn run_state(root: &Element) -> (u64, String) {
    let app = by_testid(root, "app");
    let now = app
        .get_attribute("data-now-us")
        .and_then(|v| v.parse().ok())
        .expect("data-now-us");
    (now, app.get_attribute("data-run").unwrap_or_default())
}

/// Yields to the browser (animation frames, Yew's scheduler) until `ready` holds. The
/// wall-clock limit only bounds a failure; no test relies on how long anything takes.
async fn wait_until(root: &Element, what: &str, ready: impl Fn(&Element) -> bool) {
    let start = js_sys::Date::now();
    loop {
        yew::scheduler::flush().await;
        if ready(root) {
            return;
        }
        assert!(
            js_sys::Date::now() - start < 120_000.0,
            "still waiting after 120 s for {what}; the app is at {:?}",
            run_state(root)
        );
        gloo_timers::future::TimeoutFuture::new(5).await;
    }
}

/// Waits until the app stands paused at exactly `t` (µs), its seeks carried out.
async fn paused_at(root: &Element, t: u64) {
    wait_until(root, &format!("paused at {t} µs"), |r| {
        run_state(r) == (t, "paused".to_string())
    })
    .await;
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
    paused_at(&root, 0).await;
    for i in 1..=10 {
        press(&knob, "ArrowRight");
        paused_at(&root, i * 1_000_000).await;
    }
    let clock = by_testid(&root, "clock").text_content().unwrap();
    assert!(clock.starts_with("10.0s"), "clock after seeking: {clock}");

    // End goes back to the furthest time reached: the same run as a straight one.
    press(&knob, "End");
    paused_at(&root, 30_000_000).await;
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
    paused_at(&root, 10_000_000).await;
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

// ---- comparison mode ----------------------------------------------------------------

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

// ---- moments: links with a time, "Pause at" -------------------------------------------

/// The panels whose content is the run's state (no wall-clock figures in them).
const STATE_PANELS: [&str; 2] = ["checkpoints", "sinks-recovery"];

#[wasm_bindgen_test]
async fn a_link_with_a_time_opens_paused_at_exactly_that_moment() {
    let link = preset_link("unaligned");
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&format!("#{link}&t=31s"), None));
    paused_at(&root, 31_000_000).await;
    assert!(all(&root, "[data-testid=\"error-banner\"]").is_empty());
    assert!(text_of(&root, "clock").starts_with("31.0s"));
    let tl = root.query_selector(".tl").unwrap().unwrap();
    assert_eq!(tl.get_attribute("data-now").as_deref(), Some("31000000"));
    // The same state as running there directly.
    let straight_root = fresh_root();
    let straight = ui::mount_with(straight_root.clone(), props(&link, Some(31_000_000)));
    yew::scheduler::flush().await;
    for panel in STATE_PANELS {
        assert_eq!(
            by_testid(&root, panel).inner_html(),
            by_testid(&straight_root, panel).inner_html(),
            "{panel}: link at 31 s vs run to 31 s"
        );
    }
    straight.destroy();
    handle.destroy();

    // A bad time is named and loses nothing: the scenario opens, at 0.
    let bad_root = fresh_root();
    let bad = ui::mount_with(bad_root.clone(), props(&format!("#{link}&t=soon"), None));
    yew::scheduler::flush().await;
    let banner = text_of(&bad_root, "error-banner");
    assert!(
        banner.contains("t: 'soon' is not a virtual time"),
        "{banner}"
    );
    assert_eq!(
        text_of(&bad_root, "scenario-name"),
        scenario::preset("unaligned").unwrap().name
    );
    assert_eq!(run_state(&bad_root), (0, "paused".to_string()));
    bad.destroy();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn pause_at_stops_a_playing_run_exactly_there_in_the_state_of_a_straight_run() {
    let link = preset_link("unaligned");
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&link, None));
    yew::scheduler::flush().await;
    // Not a time: refused in the field, nothing set.
    change(&root, "pause-at", "soon");
    yew::scheduler::flush().await;
    let field = by_testid(&root, "pause-at");
    assert_eq!(field.get_attribute("aria-invalid").as_deref(), Some("true"));
    assert!(field
        .closest("label")
        .unwrap()
        .unwrap()
        .get_attribute("title")
        .unwrap()
        .contains("t: 'soon'"));
    assert_eq!(
        by_testid(&root, "app")
            .get_attribute("data-pause-at-us")
            .as_deref(),
        Some("")
    );

    change(&root, "pause-at", "12s");
    yew::scheduler::flush().await;
    assert_eq!(
        field.get_attribute("aria-invalid").as_deref(),
        Some("false")
    );
    assert_eq!(
        by_testid(&root, "app")
            .get_attribute("data-pause-at-us")
            .as_deref(),
        Some("12000000")
    );
    // The highest speed (1000×): however few frames it takes, none passes 12 s.
    let speed: web_sys::HtmlInputElement = by_testid(&root, "speed").dyn_into().unwrap();
    speed.set_value("100");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    speed
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    yew::scheduler::flush().await;
    assert!(
        text_of(&root, "speed-value").contains("1000"),
        "{}",
        text_of(&root, "speed-value")
    );
    click(&root, "play");
    paused_at(&root, 12_000_000).await;
    let straight_root = fresh_root();
    let straight = ui::mount_with(straight_root.clone(), props(&link, Some(12_000_000)));
    yew::scheduler::flush().await;
    for panel in STATE_PANELS {
        assert_eq!(
            by_testid(&root, panel).inner_html(),
            by_testid(&straight_root, panel).inner_html(),
            "{panel}: played to a pause at 12 s vs run to 12 s"
        );
    }
    straight.destroy();

    // Play again goes on past it (the pause is behind), to a later pause.
    change(&root, "pause-at", "13s");
    yew::scheduler::flush().await;
    click(&root, "play");
    paused_at(&root, 13_000_000).await;
    handle.destroy();
    yew::scheduler::flush().await;
}

/// A trigger that finds a task INITIALIZING takes no checkpoint id (Flink's
/// `DefaultCheckpointPlanCalculator`), so it has no history row: the summary counts it.
#[wasm_bindgen_test]
async fn triggers_while_a_task_restores_are_counted_in_the_summary() {
    // The recovery-checkpoints preset without FLIP-547's checkpointing during recovery:
    // its tasks stay INITIALIZING for seconds after the failure at 10 s.
    let mut doc = scenario::preset("recovery-checkpoints").unwrap();
    doc.config.insert(
        "execution.checkpointing.unaligned.during-recovery.enabled".into(),
        scenario::document::ConfigValue::Bool(false),
    );
    let link = scenario::encode_link(&doc);
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&link, Some(9_000_000)));
    yew::scheduler::flush().await;
    assert!(
        root.query_selector("[data-testid=\"trigger-failures\"]")
            .unwrap()
            .is_none(),
        "no restore before the failure at 10 s, nothing to count"
    );
    handle.destroy();

    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&link, Some(14_000_000)));
    yew::scheduler::flush().await;
    let mut e =
        checkpoint_playground::engine::Engine::new(scenario::to_spec(&doc).unwrap()).unwrap();
    e.run_until(14_000_000);
    let expected = e.report().trigger_failures;
    assert!(
        expected > 0,
        "the restore after the failure at 10 s holds back a trigger"
    );
    let span = root
        .query_selector("[data-testid=\"trigger-failures\"]")
        .unwrap()
        .expect("the summary counts the triggers that took no id");
    assert_eq!(
        span.text_content().unwrap(),
        format!("{expected} not triggered (a task not running)")
    );
    handle.destroy();
}

#[wasm_bindgen_test]
async fn a_long_history_draws_the_newest_fifty_checkpoints_and_keeps_the_selected_one() {
    // `healthy` checkpointing every 100 ms: well over 50 checkpoints by 20 s.
    let mut doc = scenario::preset("healthy").unwrap();
    doc.config.insert(
        "execution.checkpointing.interval".into(),
        scenario::document::ConfigValue::Text("100ms".into()),
    );
    let link = scenario::encode_link(&doc);
    let mut e =
        checkpoint_playground::engine::Engine::new(scenario::to_spec(&doc).unwrap()).unwrap();
    e.run_until(20_000_000);
    let total = e.report().checkpoints.len();
    assert!(total > 60, "{total} checkpoints by 20 s");
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&link, Some(20_000_000)));
    yew::scheduler::flush().await;
    let ids = |root: &Element| -> Vec<u64> {
        all(root, "[data-testid=\"checkpoint-row\"]")
            .iter()
            .map(|r| r.get_attribute("data-id").unwrap().parse().unwrap())
            .collect()
    };
    let newest: Vec<u64> = (total as u64 - 49..=total as u64).rev().collect();
    assert_eq!(ids(&root), newest, "the newest 50, newest first");
    let limit = by_testid(&root, "checkpoint-history-limit");
    assert_eq!(limit.get_attribute("data-shown").as_deref(), Some("50"));
    assert_eq!(
        limit.get_attribute("data-total"),
        Some(total.to_string()),
        "the footer counts every checkpoint"
    );

    click(&root, "checkpoint-history-all");
    yew::scheduler::flush().await;
    assert_eq!(ids(&root).len(), total, "every row on request");
    let first: HtmlElement = root
        .query_selector("[data-testid=\"checkpoint-row\"][data-id=\"1\"]")
        .unwrap()
        .expect("checkpoint 1 drawn")
        .dyn_into()
        .unwrap();
    first.click();
    yew::scheduler::flush().await;
    click(&root, "checkpoint-history-all");
    yew::scheduler::flush().await;
    let mut kept = newest[..49].to_vec();
    kept.push(1);
    assert_eq!(
        ids(&root),
        kept,
        "bounded again: the newest 49 and the selected one"
    );
    assert_eq!(
        by_testid(&root, "checkpoint-detail")
            .get_attribute("data-id")
            .as_deref(),
        Some("1"),
        "the selected checkpoint's detail"
    );
    handle.destroy();
}

#[wasm_bindgen_test]
async fn a_long_run_s_timeline_and_history_charts_draw_a_bounded_number_of_marks() {
    use checkpoint_playground::ui::chart_export::BINS;
    use checkpoint_playground::ui::markers::{MAX_TICKS, TICK_BINS};
    // `healthy` with an unbounded source, checkpointing every 100 ms, played for 40 s of
    // its 120: ~400 checkpoints, well over MAX_TICKS.
    let mut doc = scenario::preset("healthy").unwrap();
    doc.duration = "120s".into();
    doc.operators[0].records = None;
    doc.config.insert(
        "execution.checkpointing.interval".into(),
        scenario::document::ConfigValue::Text("100ms".into()),
    );
    let to = 40_000_000;
    let link = scenario::encode_link(&doc);
    let mut e =
        checkpoint_playground::engine::Engine::new(scenario::to_spec(&doc).unwrap()).unwrap();
    e.run_until(to);
    let report = e.report();
    let ended = report
        .checkpoints
        .iter()
        .filter(|c| c.status != "in_progress")
        .count();
    let failed = report
        .checkpoints
        .iter()
        .filter(|c| !matches!(&*c.status, "in_progress" | "completed"))
        .count();
    assert!(ended > MAX_TICKS, "{ended} checkpoints ended by 40 s");
    let root = fresh_root();
    let handle = ui::mount_with(root.clone(), props(&link, Some(to)));
    yew::scheduler::flush().await;

    let marks = all(&root, ".tl-mark.tl-span");
    assert!(
        !marks.is_empty() && marks.len() <= TICK_BINS,
        "{} span marks",
        marks.len()
    );
    let count = |kind: Option<&str>| -> usize {
        marks
            .iter()
            .filter(|m| kind.is_none_or(|k| m.get_attribute("data-kind").as_deref() == Some(k)))
            .map(|m| {
                m.get_attribute("data-count")
                    .unwrap()
                    .parse::<usize>()
                    .unwrap()
            })
            .sum()
    };
    assert_eq!(count(None), ended, "every ended checkpoint is in one span");
    assert_eq!(
        all(
            &root,
            ".tl-mark.tl-checkpoint:not(.tl-span), .tl-mark.tl-checkpoint-failed:not(.tl-span)"
        )
        .len(),
        0,
        "no mark of its own"
    );
    if failed > 0 {
        assert!(count(Some("checkpoint-failed")) >= failed);
    }
    for chart in ["chart-duration", "chart-persisted"] {
        let bars = all(&root, &format!("[data-testid=\"{chart}\"] rect"));
        assert!(
            !bars.is_empty() && bars.len() <= BINS,
            "{chart}: {} bars for {} checkpoints",
            bars.len(),
            report.checkpoints.len()
        );
    }
    handle.destroy();
}
