//! What the page does when the Rust code panics anyway: never a dead tab.
//!
//! Contract: [`install`] (called once by the page, `mount_in_page`; not by tests, whose
//! runner has its own hook) sets a `std::panic` hook that logs the panic to the console
//! and puts a plain-DOM overlay over the page (`data-testid="panic-overlay"`) saying what
//! happened — the panic message and where, the virtual time of the last good frame, and
//! the scenario's link — and how to report it, with buttons to reopen the scenario from
//! its link at the last good moment (`&t=`, see [`reopen_fragment`]) and to copy the report. After a panic in wasm the Rust state is poisoned (a
//! `RefCell` borrowed when it happened stays borrowed), so the overlay is built with
//! `web_sys` alone, from what the app recorded beforehand with [`remember_link`] and
//! [`remember_time`], and recovery is a fresh load of the page with the link. Only the
//! first panic shows; later ones (a poisoned app panicking again) are logged.
//!
//! [`render_overlay`] builds the overlay from a [`PanicReport`] and is what the browser
//! tests check; [`report_text`] is the text a bug report carries.

use std::cell::{Cell, RefCell};

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element};

use crate::engine::time::{format_duration, Micros};

/// What the overlay says about one panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PanicReport {
    /// The panic message (`payload` as text) and, when known, `file:line:column`.
    pub message: String,
    pub location: Option<String>,
    /// Virtual time of the last frame that ran without a panic.
    pub virtual_time: Micros,
    /// The scenario's link fragment (`z2:…`) as it was then, recorded actions included;
    /// empty if the app had not recorded one yet.
    pub link: String,
}

thread_local! {
    static LINK: RefCell<String> = const { RefCell::new(String::new()) };
    static TIME: Cell<Micros> = const { Cell::new(0) };
    static SHOWN: Cell<bool> = const { Cell::new(false) };
}

/// Records the link that reopens the current scenario (call when it changes).
pub fn remember_link(fragment: String) {
    LINK.with(|l| {
        if let Ok(mut l) = l.try_borrow_mut() {
            *l = fragment;
        }
    });
}

/// Records the virtual time of a frame that completed.
pub fn remember_time(t: Micros) {
    TIME.with(|c| c.set(t));
}

/// Installs the panic hook (idempotent in effect: a second call replaces the first).
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let message = match info.payload().downcast_ref::<&str>() {
            Some(s) => (*s).to_string(),
            None => match info.payload().downcast_ref::<String>() {
                Some(s) => s.clone(),
                None => "a panic without a message".to_string(),
            },
        };
        let report = PanicReport {
            message,
            location: info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())),
            virtual_time: TIME.with(Cell::get),
            link: LINK.with(|l| l.try_borrow().map(|l| l.clone()).unwrap_or_default()),
        };
        web_sys::console::error_1(&report_text(&report).into());
        if SHOWN.with(|s| s.replace(true)) {
            return;
        }
        let document = web_sys::window().and_then(|w| w.document());
        if let Some((document, body)) = document.and_then(|d| d.body().map(|b| (d, b))) {
            if let Some(overlay) = render_overlay(&document, &report) {
                let _ = body.append_child(&overlay);
            }
        }
    }));
}

/// The fragment that reopens the scenario at the last good state: its link with the moment
/// of the last frame that completed (`z2:…&t=12500ms`, see `scenario::moment`), re-simulated
/// there and paused; the link alone when no frame had completed (or nothing was recorded).
pub fn reopen_fragment(r: &PanicReport) -> String {
    if r.link.is_empty() || r.virtual_time == 0 {
        r.link.clone()
    } else {
        format!(
            "{}{}",
            r.link,
            crate::scenario::moment::suffix(r.virtual_time)
        )
    }
}

/// The URL that opens `link` in this page afresh (the page's address with the fragment).
fn reopen_url(link: &str) -> String {
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default();
    format!("{base}#{link}")
}

/// The text of a bug report: what panicked, where, when, and the link that replays it.
pub fn report_text(r: &PanicReport) -> String {
    let mut text = format!(
        "Checkpoint Playground crashed (a Rust panic).\nMessage: {}\n",
        r.message
    );
    if let Some(loc) = &r.location {
        text.push_str(&format!("Where: {loc}\n"));
    }
    text.push_str(&format!(
        "Virtual time of the last good frame: {}\n",
        format_duration(r.virtual_time)
    ));
    if r.link.is_empty() {
        text.push_str("Scenario link: (not recorded)\n");
    } else {
        text.push_str(&format!("Scenario link: #{}\n", r.link));
    }
    text
}

/// Builds the overlay for `report` (not attached): a dialog with the message, the time,
/// the link, how to report it, and the buttons *Reopen the scenario*
/// (`panic-reopen`: loads the page afresh with the link at the last good moment) and *Copy the report*
/// (`panic-copy`). `None` only if the document refuses to create elements.
pub fn render_overlay(document: &Document, report: &PanicReport) -> Option<Element> {
    let el = |tag: &str, class: &str, text: &str| -> Option<Element> {
        let e = document.create_element(tag).ok()?;
        if !class.is_empty() {
            e.set_class_name(class);
        }
        if !text.is_empty() {
            e.set_text_content(Some(text));
        }
        Some(e)
    };
    let overlay = el("div", "panic-overlay", "")?;
    overlay.set_attribute("data-testid", "panic-overlay").ok()?;
    overlay.set_attribute("role", "alertdialog").ok()?;
    overlay
        .set_attribute("aria-labelledby", "panic-title")
        .ok()?;
    overlay
        .set_attribute(
            "style",
            "position:fixed;inset:0;z-index:10000;background:rgba(20,20,30,0.72);\
             display:flex;align-items:center;justify-content:center;",
        )
        .ok()?;
    let card = el("div", "panic-card", "")?;
    card.set_attribute(
        "style",
        "max-width:44rem;background:#fff;color:#222;border-radius:8px;padding:1.2rem 1.5rem;\
         box-shadow:0 8px 32px rgba(0,0,0,0.4);font:14px/1.45 system-ui,sans-serif;",
    )
    .ok()?;
    let title = el("h2", "", "The playground crashed")?;
    title.set_id("panic-title");
    card.append_child(&title).ok()?;
    let intro = el(
        "p",
        "",
        "A bug in the simulation stopped it (a Rust panic). The page's state cannot be trusted \
         after that, but your scenario is kept: reopen it below, and please report the bug.",
    )?;
    card.append_child(&intro).ok()?;
    let message = el("pre", "panic-message", &report.message)?;
    message.set_attribute("data-testid", "panic-message").ok()?;
    message
        .set_attribute(
            "style",
            "white-space:pre-wrap;background:#f6f0f0;padding:0.5rem;border-radius:4px;",
        )
        .ok()?;
    card.append_child(&message).ok()?;
    let when = format!(
        "At virtual time {} (the last frame that ran){}.",
        format_duration(report.virtual_time),
        report
            .location
            .as_ref()
            .map(|l| format!("; in {l}"))
            .unwrap_or_default()
    );
    let time = el("p", "panic-time", &when)?;
    time.set_attribute("data-testid", "panic-time").ok()?;
    card.append_child(&time).ok()?;
    let how = el(
        "p",
        "",
        "To report it: copy the report (it holds the message and the scenario link, which \
         replays the run up to the crash) into an issue of the Checkpoint Playground project.",
    )?;
    card.append_child(&how).ok()?;
    let text = el("textarea", "panic-report", "")?;
    text.set_attribute("data-testid", "panic-report").ok()?;
    text.set_attribute("readonly", "").ok()?;
    text.set_attribute("rows", "5").ok()?;
    text.set_attribute("style", "width:100%;font-family:monospace;font-size:12px;")
        .ok()?;
    text.set_text_content(Some(&report_text(report)));
    card.append_child(&text).ok()?;
    let buttons = el("div", "panic-buttons", "")?;
    buttons
        .set_attribute("style", "display:flex;gap:0.6rem;margin-top:0.6rem;")
        .ok()?;
    let label = if report.link.is_empty() {
        "Reload the page".to_string()
    } else if report.virtual_time > 0 {
        format!(
            "Reopen the scenario at {}",
            crate::scenario::moment::format(report.virtual_time)
        )
    } else {
        "Reopen the scenario".to_string()
    };
    let reopen = el("button", "", &label)?;
    reopen.set_attribute("type", "button").ok()?;
    reopen.set_attribute("data-testid", "panic-reopen").ok()?;
    let url = reopen_url(&reopen_fragment(report));
    reopen.set_attribute("data-href", &url).ok()?;
    let on_reopen = Closure::<dyn FnMut()>::new(move || {
        if let Some(location) = web_sys::window().map(|w| w.location()) {
            // Same document with a new fragment does not reload by itself.
            let _ = location.set_href(&url);
            let _ = location.reload();
        }
    });
    reopen
        .add_event_listener_with_callback("click", on_reopen.as_ref().unchecked_ref())
        .ok()?;
    on_reopen.forget();
    buttons.append_child(&reopen).ok()?;
    let copy = el("button", "", "Copy the report")?;
    copy.set_attribute("type", "button").ok()?;
    copy.set_attribute("data-testid", "panic-copy").ok()?;
    let report_copy = report_text(report);
    let on_copy = Closure::<dyn FnMut()>::new(move || {
        let text = report_copy.clone();
        wasm_bindgen_futures::spawn_local(async move {
            // Where the clipboard refuses, the report stays selectable in the text area.
            let _ = crate::ui::clipboard::write_text(&text).await;
        });
    });
    copy.add_event_listener_with_callback("click", on_copy.as_ref().unchecked_ref())
        .ok()?;
    on_copy.forget();
    buttons.append_child(&copy).ok()?;
    card.append_child(&buttons).ok()?;
    overlay.append_child(&card).ok()?;
    Some(overlay)
}
