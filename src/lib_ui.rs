//! The root of the `checkpoint-playground-ui` package (`crates/ui`): the Yew
//! playground in wasm, and natively its pure parts (no DOM) so that they are tested
//! without a browser. It reads engine views and sends commands; it holds no engine
//! logic. It is a package of its own only so that a release build can optimise it for
//! size while the engine keeps opt-level 3 (root `Cargo.toml`); users name it as
//! `checkpoint_playground::ui`.
//!
//! The core's modules are re-exported at this crate's root so that the UI names them
//! as it always has (`crate::engine`, `crate::scenario`).

// The standard sorts are fine in unit tests, which the page does not ship (clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub use checkpoint_playground_core::{compact_sort, engine, flink_export, scenario};

#[cfg(target_arch = "wasm32")]
pub mod ui;

/// The UI's pure parts (no DOM), compiled natively too so that they are tested
/// without a browser; the wasm build has the whole `ui`.
#[cfg(not(target_arch = "wasm32"))]
pub mod ui {
    pub mod chart_export;
    pub mod format;
    pub mod frame_budget;
    pub mod i18n;
    pub mod markers;
    pub mod offscreen;
    pub mod pacer;
    pub mod play_clock;
    pub mod resubmit_form;
    pub mod run_spans;
    pub mod series;
    pub mod shared;
    pub mod components {
        pub mod job_view;
        pub mod row_limit;
    }
}
