//! A scenario as a file: what the playground's "Export JSON" writes and what "Import"
//! reads back. No web dependency, so the same code is tested natively and runs in the
//! browser.
//!
//! Contract: [`export_document`] is the running job (`from_spec` of the engine's spec,
//! so every action the user took is in `events`), with the name of the spec and the
//! description of the document it started from; [`export_json`] is that document as
//! pretty JSON ending in a newline — a file the headless runner runs to the same event
//! hash as the browser. [`file_name`] is the download's name: the [`slug`] of the
//! scenario name plus `.json`. [`import_json`] reads pasted or uploaded text: more than
//! [`MAX_IMPORT_BYTES`] or blank text is refused before parsing; otherwise the error is
//! the reader's own (`line 3 column 7: invalid JSON…`, `edges[0].to: unknown
//! operator…`). A successful import is a document whose spec validated, so opening it
//! cannot fail afterwards.

use crate::engine::log::{text, Msg};
use crate::engine::spec::JobSpec;

use super::{from_spec, parse_json, to_spec, Document, ScenarioError};

/// The largest scenario text an import accepts (1 MB; presets are a few KB).
pub const MAX_IMPORT_BYTES: usize = 1_000_000;

/// The document that replays the job `spec` (recorded actions included); when the spec
/// carries no description, `description` (the one of the document the run started
/// from) is kept.
pub fn export_document(spec: &JobSpec, description: Option<&str>) -> Document {
    let mut doc = from_spec(spec);
    if doc.description.is_none() {
        doc.description = description.map(str::to_string);
    }
    doc
}

/// [`export_document`] as pretty JSON with a final newline: the exported file.
pub fn export_json(spec: &JobSpec, description: Option<&str>) -> String {
    let mut text = export_document(spec, description).to_json_pretty();
    text.push('\n');
    text
}

/// A file-name slug of a scenario name: lower-case ASCII letters and digits, runs of
/// anything else as one `-`, at most 60 characters, `scenario` when nothing is left.
/// `"Aligned: timeout → unaligned"` → `aligned-timeout-unaligned`.
pub fn slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if slug.len() == 60 {
                break;
            }
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() { "scenario" } else { slug }.to_string()
}

/// The exported file's name for a scenario called `name`: its [`slug`] + `.json`.
pub fn file_name(name: &str) -> String {
    format!("{}.json", slug(name))
}

/// Reads a scenario from imported text (a file's content or pasted JSON) and checks that
/// it runs. The error names the offending part: `input` for blank or oversized text, a
/// line and column for bad JSON, a field path for everything else.
pub fn import_json(text: &str) -> Result<(Document, JobSpec), ScenarioError> {
    check_size(text.len())?;
    if text.trim().is_empty() {
        return Err(ScenarioError::of(
            "input",
            Msg::new(
                "nothing to open: paste a scenario's JSON or choose a .json file",
                vec![],
            ),
        ));
    }
    let doc = parse_json(text)?;
    let spec = to_spec(&doc)?;
    Ok((doc, spec))
}

/// Refuses an import of `len` bytes over [`MAX_IMPORT_BYTES`] (checked before a file is
/// even read).
pub fn check_size(len: usize) -> Result<(), ScenarioError> {
    if len > MAX_IMPORT_BYTES {
        return Err(ScenarioError::of(
            "input",
            Msg::new(
                "the scenario is {0} MB; the limit is {1} MB (a scenario is a few KB: is this the right file?)",
                vec![
                    text(format!("{:.1}", len as f64 / 1e6)),
                    text(MAX_IMPORT_BYTES / 1_000_000),
                ],
            ),
        ));
    }
    Ok(())
}
