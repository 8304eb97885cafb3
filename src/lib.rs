//! Checkpoint Playground: Apache Flink's checkpoint runtime as a deterministic engine.
//!
//! Layers, with dependencies pointing one way (`ui -> scenario -> engine`):
//! - [`engine`]: the checkpoint runtime in plain Rust (no web dependency), driven by
//!   virtual time; the same code runs natively, in the CLI, and in wasm.
//! - [`scenario`]: the versioned scenario document, validation, presets and links.
//! - [`flink_export`]: a scenario as a runnable Apache Flink job, and calibration of the
//!   simulator against real Flink (`scenario -> flink_export`, never the other way).
//! - [`ui`] (wasm; natively only its pure parts): the Yew playground, which reads engine
//!   views and sends commands.
//!
//! The first three live in the package `checkpoint-playground-core` (`src/lib_core.rs`),
//! the UI in `checkpoint-playground-ui` (`src/lib_ui.rs`); this crate re-exports them
//! and is the wasm module the page loads. They are packages of their own so that the
//! release build optimises the engine for speed and the UI for size (`Cargo.toml`).

pub use checkpoint_playground_ui::{engine, flink_export, scenario, ui};

/// The wasm module's allocator: Talc (single-threaded, growing the wasm memory as it
/// needs), not Rust's default for `wasm32-unknown-unknown`, dlmalloc. Issue 19: in the
/// page's CPU profile of `large` at 100× (`www/bench/profile.mjs`), dlmalloc's `malloc`
/// and `free` took 4.8 % of all samples, ~17 % of the engine's; the engine then allocated
/// per record (a source record's lineage, a buffer's record list; both gone since, see
/// `engine::record::Path` and `engine::network::RecordLists`). An allocator
/// decides addresses only, never what the engine computes, so every run (and its event
/// hash) is the same with either; native hosts keep the system allocator. Measured
/// (`scripts/bench-wasm.sh`, `large`, idle, Dec 7): wasm 2.51 -> 2.54 M record-hops/s
/// under node, ~1 %, far less than the profile's share suggested; the site's module is
/// ~0.6 KB gzip smaller.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

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
