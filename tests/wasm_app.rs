//! Browser test of the UI shell: mounts the Yew app into a detached `div` in a real
//! headless Chromium and checks that the header and every panel are rendered.
//!
//! Runs with `cargo test --target wasm32-unknown-unknown --test wasm_app` (the
//! runner is `wasm-bindgen-test-runner`, see `scripts/test.sh`); natively this file
//! compiles to an empty test binary.
#![cfg(target_arch = "wasm32")]

use checkpoint_playground::ui;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlButtonElement};

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
        .unwrap_or_else(|| {
            panic!(
                "no element with data-testid={testid:?} in {}",
                root.inner_html()
            )
        })
}

#[wasm_bindgen_test]
async fn app_renders_header_and_all_panels() {
    let root = fresh_root();
    let handle = ui::mount(root.clone());
    yew::scheduler::flush().await;

    let title = root.query_selector("h1").unwrap().expect("an <h1>");
    assert_eq!(title.text_content().unwrap(), "Checkpoint Playground");

    for (testid, heading) in [
        ("job-graph", "Job graph"),
        ("controls", "Controls"),
        ("checkpoints", "Checkpoints"),
        ("sinks-recovery", "Sinks & recovery"),
    ] {
        let panel = by_testid(&root, testid);
        // Each panel is a region named by its own heading.
        let label_id = panel
            .get_attribute("aria-labelledby")
            .expect("aria-labelledby");
        let label = root
            .query_selector(&format!("#{label_id}"))
            .unwrap()
            .expect("the panel heading");
        assert_eq!(
            label.text_content().unwrap(),
            heading,
            "heading of {testid}"
        );
    }

    // No engine is attached yet: the buttons exist and are disabled.
    for testid in ["play", "pause", "step", "reset"] {
        let button: HtmlButtonElement = by_testid(&root, testid).dyn_into().unwrap();
        assert!(
            button.disabled(),
            "{testid} should be disabled without an engine"
        );
    }

    assert!(by_testid(&root, "checkpoints")
        .text_content()
        .unwrap()
        .contains("No checkpoints yet."));

    handle.destroy();
    yew::scheduler::flush().await;
    assert_eq!(root.child_element_count(), 0, "destroy() unmounts the app");
}
