//! What the panels ask the app to do: one enum, sent through a single callback.
//!
//! Contract: components never touch the engine; they emit a [`Command`] and the app
//! (`app.rs`) carries it out — engine actions always through `Engine::apply`, so they
//! are recorded in the scenario's events and replay from a shared link.

use crate::engine::spec::Action;
use crate::scenario::Document;

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
    /// Open the job editor on a draft of the running document.
    OpenEditor,
    /// Close the job editor, dropping its draft.
    CloseEditor,
    /// Replace the run with a new one of this (edited) document, from t = 0.
    RunDocument(Box<Document>),
}
