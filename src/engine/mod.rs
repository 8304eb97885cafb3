//! The checkpoint runtime: a deterministic, single-threaded model of Flink's network stack,
//! tasks and checkpointing, driven by virtual time. No web dependency: the same code runs
//! natively (tests, CLI, benchmarks) and in wasm (the playground, browser tests).
//!
//! Entry point: [`Engine`] — built from a [`spec::JobSpec`], advanced by the host with
//! [`Engine::step`], [`Engine::run_until`] or [`Engine::run_to_end`], read through its public
//! state and [`Engine::report`].

pub mod config;
pub mod report;
pub mod rng;
pub mod runtime;
pub mod spec;
pub mod time;

pub use runtime::Engine;
