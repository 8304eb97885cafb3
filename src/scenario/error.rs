//! The one error type of the scenario layer.
//!
//! Every failure to read a scenario — bad JSON, an unknown or newer `version`, a field of
//! the wrong type, an unknown field, a failed validation, a corrupted link — is a
//! [`ScenarioError`] whose `path` names the offending part (`operators[2].fan_out`,
//! `config.execution.checkpointing.interval`, `line 3 column 7`, `link`) and whose
//! `message` says what is wrong in plain words. It displays as `path: message`, which is
//! exactly what the headless runner prints after `error: ` and what the playground shows
//! in place of a scenario it cannot open.
//!
//! Bounded: a message quotes user input only through [`excerpt`] (at most
//! [`EXCERPT_CHARS`] characters, then `…`). As a safety net for the engine's messages,
//! which quote values as `'…'` without knowing their length, [`ScenarioError::new`]
//! shortens every quoted part of a message longer than [`LONG_MESSAGE_CHARS`] to an
//! excerpt, and cuts a path to [`MAX_PATH_CHARS`] and a message to
//! [`MAX_MESSAGE_CHARS`], so a hostile document can never make an error line as long
//! as itself.
//!
//! An error may carry its message's structured form (`msg`, an `engine::log::Msg` whose
//! English is exactly `message`: the job editor, the error banner and the import dialog
//! show it in the viewer's language, the whole error through [`ScenarioError::as_msg`]).
//! Every reader's own error has one — the document's, a link's, a moment's, an import's;
//! one whose message had to be cut carries none, and shows in English.

use crate::engine::log::Msg;
use crate::engine::spec::SpecError;

/// A scenario that cannot be read or run, naming the offending part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where the problem is: a JSON path (`operators[1].kind`), a position in the text
    /// (`line 3 column 7`), or `link`.
    pub path: String,
    pub message: String,
    /// `message`'s structured form, where the check gives one.
    pub msg: Option<Msg>,
}

/// A message longer than this has its quoted (`'…'`) parts cut to excerpts.
pub const LONG_MESSAGE_CHARS: usize = 300;
/// The most characters of user input an error message quotes.
pub const EXCERPT_CHARS: usize = 80;
/// The longest path an error carries (a path is built from user keys).
pub const MAX_PATH_CHARS: usize = 200;
/// The longest message an error carries (long enough for a cycle through 64 operators).
pub const MAX_MESSAGE_CHARS: usize = 5000;

/// `text` cut to at most `max` characters, with `…` when something was cut.
pub fn excerpt_n(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

/// A short excerpt of user input to quote in a message: at most [`EXCERPT_CHARS`]
/// characters, then `…`.
pub fn excerpt(text: &str) -> String {
    excerpt_n(text, EXCERPT_CHARS)
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        let (path, message) = (path.into(), message.into());
        let message = if message.len() > LONG_MESSAGE_CHARS {
            message
                .split('\'')
                .enumerate()
                .map(|(i, part)| {
                    if i % 2 == 1 {
                        excerpt(part)
                    } else {
                        part.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("'")
        } else {
            message
        };
        let bound = |s: String, max: usize| {
            if s.len() > max {
                excerpt_n(&s, max)
            } else {
                s
            }
        };
        ScenarioError {
            path: bound(path, MAX_PATH_CHARS),
            message: bound(message, MAX_MESSAGE_CHARS),
            msg: None,
        }
    }

    /// The structured message: `msg`, or the English `message` as one value (`"{0}"`,
    /// shown as it is in every language) for an error built without one.
    pub fn structured(&self) -> Msg {
        self.msg
            .clone()
            .unwrap_or_else(|| Msg::new("{0}", vec![crate::engine::log::text(&self.message)]))
    }

    /// The whole error as one message, `path: message` (its English is exactly the
    /// error's `Display`): what the playground's banner and import dialog quote, in the
    /// viewer's language.
    pub fn as_msg(&self) -> Msg {
        Msg::new(
            "{0}: {1}",
            vec![
                crate::engine::log::text(&self.path),
                self.structured().into(),
            ],
        )
    }

    /// An error whose message is `msg`'s English (bounded as [`ScenarioError::new`]
    /// bounds it; `msg` is kept only when the message was not cut).
    pub fn of(path: impl Into<String>, msg: Msg) -> Self {
        let english = msg.english();
        let mut e = ScenarioError::new(path, english.as_str());
        if e.message == english {
            e.msg = Some(msg);
        }
        e
    }
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ScenarioError {}

impl From<SpecError> for ScenarioError {
    fn from(e: SpecError) -> Self {
        match e.msg {
            Some(msg) if msg.english() == e.message => ScenarioError::of(e.path, msg),
            _ => ScenarioError::new(e.path, e.message),
        }
    }
}

impl From<serde_json::Error> for ScenarioError {
    /// A JSON syntax error, located by line and column (serde's own suffix removed).
    fn from(e: serde_json::Error) -> Self {
        let text = e.to_string();
        let message = match text.rfind(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        ScenarioError::of(
            format!("line {} column {}", e.line(), e.column()),
            Msg::new("invalid JSON: {0}", vec![crate::engine::log::text(message)]),
        )
    }
}
