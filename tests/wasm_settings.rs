//! Browser tests of refused changes and of the panic overlay (issue 21, items 1 and 2):
//! a live setting the engine refuses shows its message next to its field and the field
//! goes back to the value that runs, while the run goes on; the overlay a panic puts over
//! the page says what happened, when, with the scenario's link and a way to reopen it.
//!
//! Runs with `cargo test --target wasm32-unknown-unknown --test wasm_settings`
//! (`scripts/test.sh` runs every `tests/wasm_*.rs`); natively it is an empty binary.
#![cfg(target_arch = "wasm32")]

use checkpoint_playground::scenario;
use checkpoint_playground::ui::panic::{render_overlay, report_text, PanicReport};
use checkpoint_playground::ui::{self, AppProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

fn fresh_root() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

fn find(root: &Element, testid: &str) -> Option<Element> {
    root.query_selector(&format!("[data-testid=\"{testid}\"]"))
        .unwrap()
}

fn by_testid(root: &Element, testid: &str) -> Element {
    find(root, testid).unwrap_or_else(|| panic!("no element with data-testid={testid:?}"))
}

fn mount(preset: &str, run_to: u64) -> (Element, yew::AppHandle<ui::App>) {
    let root = fresh_root();
    let link = scenario::encode_link(&scenario::preset(preset).unwrap());
    let handle = ui::mount_with(
        root.clone(),
        AppProps {
            link: Some(link.into()),
            run_to: Some(run_to),
            use_location: false,
        },
    );
    (root, handle)
}

fn fire_change(el: &Element) {
    let document = web_sys::window().unwrap().document().unwrap();
    let event = document.create_event("Event").unwrap();
    event.init_event_with_bubbles("change", true);
    el.dispatch_event(&event).unwrap();
}

/// Types `value` into a settings text field and leaves it, as a user does.
fn set_text(root: &Element, key: &str, value: &str) {
    let el = by_testid(root, &format!("setting-{key}"));
    el.dyn_ref::<HtmlInputElement>().unwrap().set_value(value);
    fire_change(&el);
}

fn text_value(root: &Element, key: &str) -> String {
    by_testid(root, &format!("setting-{key}"))
        .dyn_into::<HtmlInputElement>()
        .unwrap()
        .value()
}

fn error_of(root: &Element, key: &str) -> Option<String> {
    find(root, &format!("setting-error-{key}")).map(|e| e.text_content().unwrap_or_default())
}

fn recorded(root: &Element) -> String {
    root.query_selector(".recorded summary")
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
        .unwrap_or_default()
}

const EXCLUSIVE: &str = "taskmanager.network.memory.buffers-per-channel";
const FLOATING: &str = "taskmanager.network.memory.floating-buffers-per-gate";
const INTERVAL: &str = "execution.checkpointing.interval";
const MODE: &str = "execution.checkpointing.mode";
const UNALIGNED: &str = "execution.checkpointing.unaligned.enabled";

#[wasm_bindgen_test]
async fn a_refused_text_setting_shows_its_message_next_to_the_field_and_the_field_reverts() {
    let (root, handle) = mount("healthy", 2_000_000);
    yew::scheduler::flush().await;
    assert_eq!(text_value(&root, FLOATING), "8");

    // 0 exclusive buffers is fine with 8 floating ones: taken, the field shows it.
    set_text(&root, EXCLUSIVE, "0");
    yew::scheduler::flush().await;
    assert_eq!(text_value(&root, EXCLUSIVE), "0");
    assert_eq!(error_of(&root, EXCLUSIVE), None);
    assert!(
        recorded(&root).starts_with("1 recorded"),
        "{}",
        recorded(&root)
    );

    // 0 floating buffers on top is refused (no buffer left for a channel).
    set_text(&root, FLOATING, "0");
    yew::scheduler::flush().await;
    let message = error_of(&root, FLOATING).expect("the refusal next to the field");
    assert!(
        message.contains("at least one floating buffer"),
        "{message}"
    );
    assert!(message.contains(EXCLUSIVE), "{message}");
    assert!(
        !message.contains("events["),
        "plain words, no path: {message}"
    );
    assert_eq!(
        text_value(&root, FLOATING),
        "8",
        "the field shows what runs"
    );
    assert_eq!(
        error_of(&root, EXCLUSIVE),
        None,
        "only next to its own field"
    );
    assert!(
        find(&root, "action-error").is_none(),
        "not repeated in the inspector"
    );
    assert!(
        recorded(&root).starts_with("1 recorded"),
        "nothing recorded"
    );

    // A bad value alone is refused the same way; a good change clears the message.
    set_text(&root, INTERVAL, "5ms");
    yew::scheduler::flush().await;
    let message = error_of(&root, INTERVAL).expect("the refusal next to the interval");
    assert!(message.contains("out of range"), "{message}");
    assert_eq!(text_value(&root, INTERVAL), "2s");
    assert_eq!(error_of(&root, FLOATING), None);
    set_text(&root, INTERVAL, "3s");
    yew::scheduler::flush().await;
    assert_eq!(error_of(&root, INTERVAL), None);
    assert_eq!(text_value(&root, INTERVAL), "3s");
    handle.destroy();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn a_refused_choice_or_toggle_goes_back_to_the_running_value() {
    let (root, handle) = mount("unaligned", 1_000_000);
    yew::scheduler::flush().await;
    let select = || {
        by_testid(&root, &format!("setting-{MODE}"))
            .dyn_into::<HtmlSelectElement>()
            .unwrap()
    };
    assert_eq!(select().value(), "EXACTLY_ONCE");
    select().set_value("AT_LEAST_ONCE");
    fire_change(&select());
    yew::scheduler::flush().await;
    let message = error_of(&root, MODE).expect("refused: unaligned needs exactly-once");
    assert!(message.contains("EXACTLY_ONCE"), "{message}");
    assert_eq!(
        select().value(),
        "EXACTLY_ONCE",
        "the select shows what runs"
    );

    // Turn unaligned off (taken), then at-least-once (taken), then unaligned on: refused.
    let toggle = || {
        by_testid(&root, &format!("setting-{UNALIGNED}"))
            .dyn_into::<HtmlInputElement>()
            .unwrap()
    };
    assert!(toggle().checked());
    toggle().click();
    yew::scheduler::flush().await;
    assert!(!toggle().checked());
    select().set_value("AT_LEAST_ONCE");
    fire_change(&select());
    yew::scheduler::flush().await;
    assert_eq!(select().value(), "AT_LEAST_ONCE");
    assert_eq!(error_of(&root, MODE), None);
    toggle().click();
    yew::scheduler::flush().await;
    let message = error_of(&root, UNALIGNED).expect("refused next to the toggle");
    assert!(message.contains("AT_LEAST_ONCE"), "{message}");
    assert!(!toggle().checked(), "the toggle shows what runs");
    handle.destroy();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
fn the_panic_overlay_says_what_when_and_how_to_report_and_offers_the_link() {
    let document = web_sys::window().unwrap().document().unwrap();
    let report = PanicReport {
        message: "min > max, or either was NaN. min = 256.0, max = 64.0".into(),
        location: Some("src/engine/debloat.rs:55:18".into()),
        virtual_time: 12_500_000,
        link: "z:abc123".into(),
    };
    let overlay = render_overlay(&document, &report).expect("an overlay");
    document.body().unwrap().append_child(&overlay).unwrap();
    assert_eq!(
        overlay.get_attribute("role").as_deref(),
        Some("alertdialog")
    );
    let text = overlay.text_content().unwrap();
    assert!(text.contains("The playground crashed"), "{text}");
    assert!(text.contains("report"), "{text}");
    assert!(
        by_testid(&overlay, "panic-message")
            .text_content()
            .unwrap()
            .contains("min = 256.0, max = 64.0"),
        "{text}"
    );
    let time = by_testid(&overlay, "panic-time").text_content().unwrap();
    assert!(time.contains("12.5s"), "{time}");
    assert!(time.contains("debloat.rs:55"), "{time}");
    let body = by_testid(&overlay, "panic-report")
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap()
        .value();
    assert_eq!(body, report_text(&report));
    assert!(body.contains("Scenario link: #z:abc123"), "{body}");
    let reopen = by_testid(&overlay, "panic-reopen");
    assert_eq!(
        reopen.text_content().unwrap(),
        "Reopen the scenario at 12500ms"
    );
    assert!(
        reopen
            .get_attribute("data-href")
            .unwrap()
            .ends_with("#z:abc123&t=12500ms"),
        "reopens the link at the last good moment"
    );
    assert!(find(&overlay, "panic-copy").is_some());
    overlay.remove();

    // Without a recorded link it still renders, offering a plain reload.
    let bare = PanicReport {
        link: String::new(),
        location: None,
        ..report
    };
    let overlay = render_overlay(&document, &bare).unwrap();
    assert_eq!(
        by_testid(&overlay, "panic-reopen").text_content().unwrap(),
        "Reload the page"
    );
    assert!(report_text(&bare).contains("(not recorded)"));
}
