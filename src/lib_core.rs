//! The root of the `checkpoint-playground-core` package (`crates/core`): the engine,
//! the scenario format and the Flink export, everything that runs the same natively,
//! in the CLI and in wasm, with no web dependency. Users name it through the
//! `checkpoint_playground` crate, which re-exports these modules; it is a package of
//! its own only so that a release build can optimise it for speed while the UI is
//! optimised for size (root `Cargo.toml`). Layers point one way:
//! `scenario -> engine`, `flink_export -> scenario`.

// The standard sorts are fine in unit tests, which the page does not ship (clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod compact_sort;
pub mod engine;
pub mod flink_export;
pub mod scenario;

/// The repository's root directory (where `.flink-venv`, `presets/` and `tests/` are),
/// as this package's manifest (`crates/core/Cargo.toml`) sits two levels below it.
pub fn repository_root() -> &'static std::path::Path {
    std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}
