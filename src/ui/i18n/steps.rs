//! The checkpoint step's notes in the viewer's language.
//!
//! Contract: a [`StepLine`] is one line of the note: the engine's log entry (its English
//! `text` and, where the engine gives it, its structured form `engine::log::Msg`: a code,
//! which is the English template, and arguments) or one of the playground's own phase
//! stops (sync phase / async phase begins, with the subtasks they name). [`render`] shows
//! a line in a language: the code's catalogue entry filled with the arguments (engine
//! words such as `aligned` translated, ids, names, sizes and durations as they are);
//! English, or a line without a structured form, is the engine's text unchanged.

use crate::engine::log::{Arg, Msg};
use crate::engine::time::Micros;

use super::{fill, t_in, Lang};

/// One line of the checkpoint step's note.
#[derive(Clone, Debug, PartialEq)]
pub struct StepLine {
    pub at: Micros,
    /// The English text (the engine's log text, or the phase stop's sentence).
    pub text: String,
    pub msg: Option<Msg>,
    /// The subtasks a phase stop names, with their checkpoint (`msg`'s `{0}`).
    pub tasks: Vec<(String, u64)>,
}

/// The phase stops the playground adds to the engine's steps (codes of [`StepLine::phase`]).
pub const SYNC_PHASE: &str = "sync phase: {0} takes its synchronous snapshot (the task thread is held; barriers go to the outputs)";
pub const ASYNC_BEGINS: &str = "async phase begins: {0} finished the synchronous snapshot; its state and channel state are now written in the background";
/// How a phase stop names one subtask.
pub const TASK: &str = "{0} (checkpoint {1})";

fn task_list(lang: Lang, tasks: &[(String, u64)]) -> String {
    let sep = if lang == Lang::Zh { "、" } else { ", " };
    tasks
        .iter()
        .map(|(name, id)| fill(t_in(lang, TASK), &[name as &dyn std::fmt::Display, id]))
        .collect::<Vec<_>>()
        .join(sep)
}

impl StepLine {
    /// A phase stop at `at` (`code`: [`SYNC_PHASE`] or [`ASYNC_BEGINS`]) naming `tasks`.
    pub fn phase(at: Micros, code: &'static str, tasks: Vec<(String, u64)>) -> StepLine {
        let msg = Msg::new(code, vec![Arg::Text(task_list(Lang::En, &tasks))]);
        StepLine {
            at,
            text: msg.english(),
            msg: Some(msg),
            tasks,
        }
    }

    /// A line of the engine's log.
    pub fn logged(at: Micros, text: String, msg: Option<Msg>) -> StepLine {
        StepLine {
            at,
            text,
            msg,
            tasks: vec![],
        }
    }
}

/// The line's text in `lang`, after its virtual time (`12.345s  …`).
pub fn render(line: &StepLine, lang: Lang) -> String {
    format!("{:.3}s  {}", line.at as f64 / 1e6, render_body(line, lang))
}

/// The line's text in `lang`.
pub fn render_body(line: &StepLine, lang: Lang) -> String {
    match (&line.msg, lang) {
        (Some(msg), Lang::Zh) => {
            let args: Vec<String> = msg
                .args
                .iter()
                .enumerate()
                .map(|(i, a)| match a {
                    Arg::Text(_) if i == 0 && !line.tasks.is_empty() => {
                        task_list(lang, &line.tasks)
                    }
                    other => super::messages::render_arg(other, lang),
                })
                .collect();
            crate::engine::log::fill(t_in(lang, msg.code), |i| {
                args.get(i).cloned().unwrap_or_default()
            })
        }
        _ => line.text.clone(),
    }
}
