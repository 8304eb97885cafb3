//! The one error type of the scenario layer.
//!
//! Every failure to read a scenario — bad JSON, an unknown or newer `version`, a field of
//! the wrong type, an unknown field, a failed validation, a corrupted link — is a
//! [`ScenarioError`] whose `path` names the offending part (`operators[2].fan_out`,
//! `config.execution.checkpointing.interval`, `line 3 column 7`, `link`) and whose
//! `message` says what is wrong in plain words. It displays as `path: message`, which is
//! exactly what the headless runner prints after `error: ` and what the playground shows
//! in place of a scenario it cannot open.

use crate::engine::spec::SpecError;

/// A scenario that cannot be read or run, naming the offending part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Where the problem is: a JSON path (`operators[1].kind`), a position in the text
    /// (`line 3 column 7`), or `link`.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
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
        ScenarioError {
            path: e.path,
            message: e.message,
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
        ScenarioError {
            path: format!("line {} column {}", e.line(), e.column()),
            message: format!("invalid JSON: {message}"),
        }
    }
}
