//! Named example scenarios, one per point the playground teaches.
//!
//! Each preset is a JSON document in the crate's `presets/` folder (embedded at build
//! time, so the same files also run directly: `checkpoint-playground run
//! presets/unaligned.json`). Each has a `description` saying what to watch. Every preset
//! parses, validates and survives the link and `from_spec` round trips (tested), and runs
//! 20–60s of virtual time so that the headless runner finishes quickly.

use super::document::Document;

/// Preset names in the order the playground lists them.
pub const NAMES: &[&str] = &[
    "backpressure",
    "unaligned",
    "aligned-timeout",
    "seed-settings",
    "why-uc",
    "two-phases",
    "flatmap-stuck",
    "legacy-source",
    "small-files",
    "topology-change",
    "serializer-change",
    "topology-change-savepoint",
    "serializer-change-savepoint",
    "rescale-unaligned",
    "operator-removed",
    "recovery-checkpoints",
    "stop-with-savepoint",
    "stop-with-savepoint-backpressure",
    "large",
    "healthy",
];

/// The preset the playground opens with.
pub const DEFAULT: &str = "backpressure";

/// The JSON text of a preset.
pub fn preset_json(name: &str) -> Option<&'static str> {
    Some(match name {
        "backpressure" => include_str!("../../presets/backpressure.json"),
        "unaligned" => include_str!("../../presets/unaligned.json"),
        "aligned-timeout" => include_str!("../../presets/aligned-timeout.json"),
        "seed-settings" => include_str!("../../presets/seed-settings.json"),
        "why-uc" => include_str!("../../presets/why-uc.json"),
        "two-phases" => include_str!("../../presets/two-phases.json"),
        "flatmap-stuck" => include_str!("../../presets/flatmap-stuck.json"),
        "legacy-source" => include_str!("../../presets/legacy-source.json"),
        "small-files" => include_str!("../../presets/small-files.json"),
        "topology-change" => include_str!("../../presets/topology-change.json"),
        "serializer-change" => include_str!("../../presets/serializer-change.json"),
        "topology-change-savepoint" => {
            include_str!("../../presets/topology-change-savepoint.json")
        }
        "serializer-change-savepoint" => {
            include_str!("../../presets/serializer-change-savepoint.json")
        }
        "rescale-unaligned" => include_str!("../../presets/rescale-unaligned.json"),
        "operator-removed" => include_str!("../../presets/operator-removed.json"),
        "recovery-checkpoints" => include_str!("../../presets/recovery-checkpoints.json"),
        "stop-with-savepoint" => include_str!("../../presets/stop-with-savepoint.json"),
        "stop-with-savepoint-backpressure" => {
            include_str!("../../presets/stop-with-savepoint-backpressure.json")
        }
        "large" => include_str!("../../presets/large.json"),
        "healthy" => include_str!("../../presets/healthy.json"),
        _ => return None,
    })
}

/// A preset as a document, or `None` for an unknown name.
// Built-in data, not user input: `tests/scenario_presets.rs` reads and runs every
// preset, so a broken one fails the tests rather than a user's page.
#[allow(clippy::panic)]
pub fn preset(name: &str) -> Option<Document> {
    let json = preset_json(name)?;
    Some(Document::from_json(json).unwrap_or_else(|e| panic!("preset '{name}' is broken: {e}")))
}

/// Which preset — and which of its guide's tries, if any — a document runs unchanged
/// (same job, config, seed and events; formatting and defaults may differ, as in a link
/// made by Share). The playground uses it to show a shared preset's guide.
pub fn recognize(doc: &Document) -> Option<(String, Option<usize>)> {
    let spec = super::to_spec(doc).ok()?;
    let same = |d: &Document| super::to_spec(d).is_ok_and(|s| s == spec);
    for name in NAMES {
        let p = preset(name)?;
        if same(&p) {
            return Some((name.to_string(), None));
        }
        for (i, t) in p.guide.iter().flat_map(|g| g.tries.iter()).enumerate() {
            if t.apply(&p).is_ok_and(|d| same(&d)) {
                return Some((name.to_string(), Some(i)));
            }
        }
    }
    None
}
