//! Checkpoint Playground: Apache Flink's checkpoint runtime as a deterministic engine.
//!
//! Layers, with dependencies pointing one way (`ui -> scenario -> engine`):
//! - [`engine`]: the checkpoint runtime in plain Rust (no web dependency), driven by
//!   virtual time; the same code runs natively, in the CLI, and in wasm.
//! - [`scenario`]: the versioned scenario document, validation, presets and links.
//! - [`flink_export`]: a scenario as a runnable Apache Flink job, and calibration of the
//!   simulator against real Flink (`scenario -> flink_export`, never the other way).
//! - `ui` (wasm only): the Yew playground, which reads engine views and sends commands.

pub mod engine;
pub mod flink_export;
pub mod scenario;

#[cfg(target_arch = "wasm32")]
pub mod ui;

/// The UI's pure parts (no DOM), compiled natively too so that they are tested
/// without a browser; the wasm build has the whole `ui`.
#[cfg(not(target_arch = "wasm32"))]
pub mod ui {
    pub mod chart_export;
    pub mod format;
    pub mod i18n;
    pub mod pacer;
    pub mod resubmit_form;
    pub mod components {
        pub mod job_view;
        pub mod row_limit;
    }
}

/// Starts the playground in the current page: mounts the Yew app into `#app`.
///
/// Exported to JavaScript and called by `index.html` after the module is
/// initialised. It is deliberately not a `#[wasm_bindgen(start)]` function, which
/// would also run inside wasm test binaries.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn run_app() {
    ui::mount_in_page();
}
