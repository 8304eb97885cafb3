//! Checkpoint Playground: Apache Flink's checkpoint runtime as a deterministic engine.
//!
//! Layers, with dependencies pointing one way (`ui -> scenario -> engine`):
//! - [`engine`]: the checkpoint runtime in plain Rust (no web dependency), driven by
//!   virtual time; the same code runs natively, in the CLI, and in wasm.
//! - [`scenario`]: the versioned scenario document, validation, presets and links.
//! - `ui` (wasm only): the Yew playground, which reads engine views and sends commands.

pub mod engine;
pub mod scenario;
