//! The Yew playground (wasm32 only): panels that show engine snapshots and send
//! commands, with no engine logic of their own.
//!
//! Contract: [`App`] is the root component; [`mount`] renders it into a given DOM
//! element and returns the handle that keeps it alive (tests mount into a detached
//! `div` with [`mount_with`] and their own [`AppProps`]; the page mounts into `#app`
//! through the crate's exported `run_app`). Every panel carries a stable
//! `data-testid` so browser tests and users' scripts can find it; the ids are listed
//! in [`components`].
//!
//! Modules: [`app`] (root: URL, frame loop, commands, keyboard), [`sim`] (the engine
//! as the UI holds it: bounded slices, snapshots cut only on change), [`layout`]
//! (job-view geometry), [`command`], [`format`], [`components`] (one per panel),
//! [`chart_export`] (charts as data and as standalone SVG), [`clipboard`] (clipboard
//! and downloads), [`panic`] (the page's answer to a panic: an overlay with the report and a
//! way back to the scenario),
//! [`pacer`] (pace-sized engine slices within a frame budget, for both loops),
//! [`frame_budget`] (that budget, from the display's period and what the frames cost), [`shared`]
//! (snapshots compared by identity in the panels' props),
//! [`compare`] (two runs of one scenario in lockstep for the comparison view),
//! [`flink_download`] (*Export Flink job*: the scenario's Flink job as a zip).

pub mod app;
pub mod chart_export;
pub mod clipboard;
pub mod command;
pub mod compare;
pub mod components;
pub mod flink_download;
pub mod format;
pub mod frame_budget;
pub mod i18n;
pub mod layout;
pub mod markers;
pub mod offscreen;
pub mod pacer;
pub mod panel_watch;
pub mod panic;
pub mod play_clock;
pub mod resubmit_form;
pub mod run_spans;
pub mod series;
pub mod shared;
pub mod sim;
pub mod theme;

pub use app::{App, AppProps};

use web_sys::Element;
use yew::AppHandle;

/// Renders [`App`] into `root` with default properties (link from `location.hash`).
///
/// The returned handle owns the app: dropping it leaves the app mounted (Yew keeps
/// it alive), calling `destroy()` on it unmounts it.
pub fn mount(root: Element) -> AppHandle<App> {
    yew::Renderer::<App>::with_root(root).render()
}

/// Renders [`App`] into `root` with the given properties (tests: a link, a virtual
/// time to run to).
pub fn mount_with(root: Element, props: AppProps) -> AppHandle<App> {
    yew::Renderer::<App>::with_root_and_props(root, props).render()
}

/// Mounts [`App`] into the element with id `app`, or into `<body>` when the page has
/// no such element, after installing the panic hook ([`panic::install`]) so that a
/// panic shows what happened over the page instead of leaving a dead tab. Panics (with
/// a clear message in the console) only when the page has no document at all.
pub fn mount_in_page() {
    panic::install();
    let document = web_sys::window()
        .and_then(|window| window.document())
        .expect("the playground needs a browser window with a document");
    let root = document
        .get_element_by_id("app")
        .or_else(|| document.body().map(Element::from))
        .expect("the page has neither an #app element nor a <body>");
    // The handle is deliberately leaked: the app lives as long as the page.
    std::mem::forget(mount(root));
}
