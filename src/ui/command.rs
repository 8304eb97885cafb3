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
    /// Run to the next checkpoint step (trigger, barrier, snapshot, ack, completion).
    CheckpointStep,
    /// Start the loaded scenario over at virtual time zero.
    Reset,
    /// Put the scenario (with recorded actions) in the URL and copy the link.
    Share,
    /// Speed factor: virtual seconds per wall second.
    SetSpeed(f64),
    /// While playing, pause on reaching this virtual time (`None`: play on).
    SetPauseAt(Option<crate::engine::time::Micros>),
    /// Whether Share appends the current moment (`&t=…`) to the link.
    ShareAtTime(bool),
    /// A user action on the engine (recorded).
    Apply(Action),
    SelectTask(Option<usize>),
    SelectCheckpoint(Option<u64>),
    /// Start the remedy experiment `name` for checkpoint `id` (`scenario::remedies`), or
    /// cancel / close the one shown (`None`).
    Remedy(Option<(String, u64)>),
    LoadPreset(String),
    /// Re-run the guide's preset with one of its tries (`None`: the preset itself).
    Try(Option<usize>),
    ToggleHelp,
    /// Switch the colour theme between dark and light (the viewer's, not the scenario's).
    ToggleTheme,
    /// Switch the interface between English and Chinese (the viewer's, kept in
    /// `localStorage`; not part of the scenario or the link).
    ToggleLang,
    /// Presentation mode on / off: the job view alone, full screen, larger marks, high
    /// contrast (the viewer's, not the scenario's).
    TogglePresentation,
    DismissBanner,
    /// Download the run (recorded actions included) as a scenario JSON file.
    ExportJson,
    /// Download the run's scenario as a zip of its Flink job (issue 16).
    ExportFlink,
    /// Copy the run's scenario JSON to the clipboard.
    CopyJson,
    /// Show / hide the import dialog.
    ToggleImport,
    /// Open this scenario JSON text in place of the run (if it is valid).
    ImportJson(String),
    /// Copy the chart `chart-<name>` to the clipboard in this format.
    CopyChart(&'static str, ChartFormat),
    /// Open the job editor on a draft of the running document.
    OpenEditor,
    /// Close the job editor, dropping its draft.
    CloseEditor,
    /// Replace the run with a new one of this (edited) document, from t = 0.
    RunDocument(Box<Document>),
    /// Travel to a virtual time (pauses; carried out on the next animation frame).
    Seek(crate::engine::time::Micros),
    /// Enter or switch to the comparison `A|B` (e.g. `aligned|unaligned`), or with
    /// `None` go back to the single run.
    Compare(Option<String>),
    /// Open the Resubmit dialog on this snapshot, or close it (`None`).
    OpenResubmit(Option<crate::ui::resubmit_form::Snapshot>),
    /// Resubmit the job: this scenario event (`{"at": …, "resubmit": {…}}`), read by the
    /// scenario document layer like a link's events and recorded at the current time.
    Resubmit(serde_json::Value),
}

/// How a chart is copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartFormat {
    Svg,
    Png,
}

/// The control an action came from, so that its panel shows a refusal next to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// A settings field, by its canonical Flink key.
    Setting(String),
    /// An operator's cost slider.
    Cost(String),
    /// A source's rate slider.
    Rate(String),
    /// Anything else (a subtask's Fail button, a key, a seek, the editor's Run).
    Other,
}

impl Control {
    pub fn of(action: &Action) -> Control {
        match action {
            Action::SetConfig { key, .. } => Control::Setting(
                crate::engine::config::canonical_key(key)
                    .unwrap_or(key)
                    .to_string(),
            ),
            Action::SetCost { operator, .. } => Control::Cost(operator.clone()),
            Action::SetRate { operator, .. } => Control::Rate(operator.clone()),
            _ => Control::Other,
        }
    }
}

/// Why the last action or time move was refused, in plain words, and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionError {
    pub control: Control,
    pub message: yew::AttrValue,
}

impl ActionError {
    pub fn other(message: impl Into<String>) -> ActionError {
        ActionError {
            control: Control::Other,
            message: message.into().into(),
        }
    }
    /// The message if it belongs to `control`.
    pub fn at(this: &Option<ActionError>, control: &Control) -> Option<yew::AttrValue> {
        this.as_ref()
            .filter(|e| &e.control == control)
            .map(|e| e.message.clone())
    }
}
