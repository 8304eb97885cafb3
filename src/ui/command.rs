//! What the panels ask the app to do: one enum, sent through a single callback.
//!
//! Contract: components never touch the engine; they emit a [`Command`] and the app
//! (`app.rs`) carries it out — engine actions always through `Engine::apply`, so they
//! are recorded in the scenario's events and replay from a shared link.

use crate::engine::spec::Action;

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Play,
    Pause,
    /// Run the next engine event.
    Step,
    /// Start the loaded scenario over at virtual time zero.
    Reset,
    /// Put the scenario (with recorded actions) in the URL and copy the link.
    Share,
    /// Speed factor: virtual seconds per wall second.
    SetSpeed(f64),
    /// A user action on the engine (recorded).
    Apply(Action),
    SelectTask(Option<usize>),
    SelectCheckpoint(Option<u64>),
    LoadPreset(String),
    ToggleHelp,
    DismissBanner,
    /// Enter or switch to the comparison `A|B` (e.g. `aligned|unaligned`), or with
    /// `None` go back to the single run.
    Compare(Option<String>),
}
