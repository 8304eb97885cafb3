//! The scenario layer: the versioned JSON document, its conversion to and from the
//! engine's job, presets, and links — everything the playground, the URL, the headless
//! runner and the tests share. No web dependency.
//!
//! Contract (`shared/SCENARIO.md`, extended): a scenario is one JSON document with
//! `"version": 2` (omitted config keys take real Flink's defaults), or `"version": 1`, read
//! as the version-2 document that pins the old defaults (see `document::CURRENT_VERSION`);
//! reading it either gives a [`Document`] or a [`ScenarioError`] naming the offending
//! field (`path: message`). The flow is
//! `text --parse_json--> Document --to_spec--> JobSpec --Engine::new--> run`, and back
//! `JobSpec --from_spec--> Document --encode_link--> "z2:…"` for a link that replays
//! exactly what the user did. `to_spec(&from_spec(&spec)) == Ok(spec)` for every valid
//! spec, and `decode_link(&encode_link(&doc)) == Ok(doc)` for every document.
//!
//! ```
//! use checkpoint_playground_core::scenario;
//! let doc = scenario::parse_json(r#"{
//!   "version": 2, "name": "tiny", "duration": "10s",
//!   "config": {"execution.checkpointing.interval": "2s"},
//!   "operators": [{"id": "src", "kind": "source", "rate": 500},
//!                 {"id": "out", "kind": "sink", "cost": "1ms"}],
//!   "edges": [{"from": "src", "to": "out"}]
//! }"#).unwrap();
//! let spec = scenario::to_spec(&doc).unwrap();
//! assert_eq!(spec.config.checkpoint_interval, Some(2_000_000));
//! let fragment = scenario::encode_link(&scenario::from_spec(&spec));
//! assert!(fragment.starts_with("z2:"));
//! let back = scenario::decode_link(&format!("https://example.org/#{fragment}")).unwrap();
//! assert_eq!(scenario::to_spec(&back).unwrap(), spec);
//!
//! let err = scenario::parse_json(r#"{"version": 1, "operators": [{"id": "x", "kind": "teleport"}]}"#)
//!     .unwrap_err();
//! assert_eq!(err.path, "operators[0].kind");
//! ```
//!
//! Modules: [`cost`] (what a scenario costs to run, and the limits past which it is
//! refused), [`compare`] (two runs of one scenario differing only in checkpoint mode),
//! [`document`] (the serde types and the reader, with the defaults table),
//! [`convert`] (document <-> `JobSpec`), [`link`] (URL fragment encoding), [`presets`]
//! (named example scenarios), [`file`] (export / import as a JSON file), [`guide`] (what a
//! preset teaches and promises), [`error`]; for the job editor: [`check`] (every problem of a
//! draft, tied to its operators and edges), [`edit`] (pure edit operations) and
//! [`dag_layout`] (the editor's layered diagram).

// User input (documents, links, config values, events) flows through this layer: it
// answers with an error naming the field, never a panic. The few `allow`s document
// why a value is not the user's (built-in presets, serializing a document).
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod check;
pub mod compare;
pub mod convert;
pub mod cost;
pub mod dag_layout;
pub mod document;
pub mod edit;
pub mod error;
pub mod file;
pub mod guide;
pub mod link;
pub mod moment;
pub mod presets;
pub mod remedies;

pub use document::{
    resubmit_from_json, ActionDoc, ConfigValue, Document, EdgeDoc, EventDoc, Kind, OperatorDoc,
    SizeValue, CURRENT_VERSION,
};
pub use error::ScenarioError;
pub use file::{export_json, file_name, import_json, MAX_IMPORT_BYTES};

use crate::engine::config::canonical_key;
use crate::engine::log::{text, Arg, Msg};
use crate::engine::spec::JobSpec;

/// Reads a scenario document from JSON text (syntax, version, field names and types).
pub fn parse_json(text: &str) -> Result<Document, ScenarioError> {
    Document::from_json(text)
}

/// The validated engine job a document describes.
pub fn to_spec(doc: &Document) -> Result<JobSpec, ScenarioError> {
    convert::to_spec(doc)
}

/// The document describing an engine job, with defaults left out.
pub fn from_spec(spec: &JobSpec) -> Document {
    convert::from_spec(spec)
}

/// The document as pretty JSON (what "export" and `--help` examples show).
pub fn to_json_pretty(doc: &Document) -> String {
    doc.to_json_pretty()
}

/// The URL fragment (without `#`) that opens `doc`: `z2:` + base64url(CRC-32 ‖
/// deflate(JSON)).
pub fn encode_link(doc: &Document) -> String {
    link::encode(doc)
}

/// The document in a link: a whole URL, `#z2:…` or `z2:…` (old `z:…` links too).
pub fn decode_link(text: &str) -> Result<Document, ScenarioError> {
    link::decode(text)
}

/// A warning text for a link of `len` characters that is long enough to be cut off.
pub fn link_warning(len: usize) -> Option<String> {
    link::link_warning(len)
}

/// A named example scenario, or `None`.
pub fn preset(name: &str) -> Option<Document> {
    presets::preset(name)
}

/// The names of all presets, in the order the playground lists them.
pub fn preset_names() -> &'static [&'static str] {
    presets::NAMES
}

/// The scenario the playground opens with (and falls back to after a bad link).
// Built-in data: `tests/scenario_presets.rs` opens every preset, the default included.
#[allow(clippy::expect_used)]
pub fn default_document() -> Document {
    presets::preset(presets::DEFAULT).expect("the default preset exists")
}

/// What an opened document sets that this playground ignores, one sentence each, naming
/// the path: a config key that was removed (`engine::config::REMOVED_KEYS`), in `config`,
/// in a `set_config` event or in a guide's try. An old scenario or link with such a key still opens and
/// runs as if the key were absent; hosts show these notes (the CLI on standard error,
/// the page in its banner).
pub fn notes(doc: &Document) -> Vec<String> {
    note_msgs(doc).iter().map(Msg::english).collect()
}

/// [`notes`] in their structured form (the page shows them in the viewer's language; the
/// reason why a key is gone is an engine word, `RemovedKey::why`).
pub fn note_msgs(doc: &Document) -> Vec<Msg> {
    let note = |path: String, key: &str| {
        crate::engine::config::removed_key(key).map(|r| {
            Msg::new(
                "{0}: '{1}' is no longer a setting and was ignored — {2}.",
                vec![text(path), text(r.key), Arg::Word(r.why)],
            )
        })
    };
    let in_config = doc
        .config
        .keys()
        .filter_map(|k| note(format!("config.{k}"), k));
    let in_events = doc
        .events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.action {
            document::ActionDoc::SetConfig { key, .. } => {
                note(format!("events[{i}].set_config.key"), key)
            }
            _ => None,
        });
    let in_tries = doc
        .guide
        .iter()
        .flat_map(|g| g.tries.iter())
        .enumerate()
        .flat_map(|(i, t)| {
            t.set
                .keys()
                .filter_map(move |k| note(format!("guide.try[{i}].set.{k}"), k))
        });
    in_config.chain(in_events).chain(in_tries).collect()
}

impl Document {
    /// Sets a config option in Flink syntax over the document (`--set KEY=VALUE`, a UI
    /// edit). An old alias is stored under the current key, replacing any spelling of
    /// the same option; the value is checked when the document is converted. A removed
    /// key is refused with the reason.
    pub fn set_config(&mut self, key: &str, value: &str) -> Result<(), ScenarioError> {
        if let Some(r) = crate::engine::config::removed_key(key) {
            return Err(ScenarioError::of(
                format!("config.{key}"),
                Msg::new(
                    "'{0}' is no longer a setting: {1}",
                    vec![text(r.key), Arg::Word(r.why)],
                ),
            ));
        }
        let Some(canonical) = canonical_key(key) else {
            return Err(convert::config_error(
                format!("config.{key}"),
                key,
                convert::unknown_key(key),
            ));
        };
        self.config
            .retain(|k, _| canonical_key(k) != Some(canonical));
        self.config
            .insert(canonical.to_string(), ConfigValue::Text(value.to_string()));
        Ok(())
    }
}
