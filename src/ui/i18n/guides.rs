//! The presets' guides in Chinese, from their own files (`presets/i18n/zh/<preset>.json`),
//! never inside `presets/*.json`: the scenario document and its link stay as they are.
//!
//! Contract: [`zh`] is a preset's translation (parsed once, on first use: only a viewer of
//! the Chinese interface pays for it), `None` for a preset without one; [`translate`]
//! gives a copy of a guide with its sentences (what to watch, each promise's claim, each
//! try's label and reason) in Chinese where the translation has them, figures, bounds,
//! settings and metric names untouched. A file's shape: `name`, `description`, `watch`
//! (one per sentence of the guide), `expect` (one `says` per promise), `tries`
//! (`label`, `why`, `expect`), in the guide's order; [`FILES`] lists them (the native
//! test checks each against its preset: same counts, every sentence present).

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Deserialize;

use crate::scenario::guide::Guide;

/// A preset's Chinese texts.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GuideZh {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub watch: Vec<String>,
    #[serde(default)]
    pub expect: Vec<String>,
    #[serde(default)]
    pub tries: Vec<TryZh>,
}

/// A try's Chinese texts.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TryZh {
    pub label: String,
    pub why: String,
    #[serde(default)]
    pub expect: Vec<String>,
}

/// (preset, its translation's JSON).
pub const FILES: &[(&str, &str)] = &[
    (
        "aligned-timeout",
        include_str!("../../../presets/i18n/zh/aligned-timeout.json"),
    ),
    (
        "backpressure",
        include_str!("../../../presets/i18n/zh/backpressure.json"),
    ),
    (
        "flatmap-stuck",
        include_str!("../../../presets/i18n/zh/flatmap-stuck.json"),
    ),
    (
        "healthy",
        include_str!("../../../presets/i18n/zh/healthy.json"),
    ),
    ("large", include_str!("../../../presets/i18n/zh/large.json")),
    (
        "legacy-source",
        include_str!("../../../presets/i18n/zh/legacy-source.json"),
    ),
    (
        "operator-removed",
        include_str!("../../../presets/i18n/zh/operator-removed.json"),
    ),
    (
        "recovery-checkpoints",
        include_str!("../../../presets/i18n/zh/recovery-checkpoints.json"),
    ),
    (
        "rescale-unaligned",
        include_str!("../../../presets/i18n/zh/rescale-unaligned.json"),
    ),
    (
        "seed-settings",
        include_str!("../../../presets/i18n/zh/seed-settings.json"),
    ),
    (
        "serializer-change",
        include_str!("../../../presets/i18n/zh/serializer-change.json"),
    ),
    (
        "serializer-change-savepoint",
        include_str!("../../../presets/i18n/zh/serializer-change-savepoint.json"),
    ),
    (
        "small-files",
        include_str!("../../../presets/i18n/zh/small-files.json"),
    ),
    (
        "stop-with-savepoint",
        include_str!("../../../presets/i18n/zh/stop-with-savepoint.json"),
    ),
    (
        "stop-with-savepoint-backpressure",
        include_str!("../../../presets/i18n/zh/stop-with-savepoint-backpressure.json"),
    ),
    (
        "topology-change",
        include_str!("../../../presets/i18n/zh/topology-change.json"),
    ),
    (
        "topology-change-savepoint",
        include_str!("../../../presets/i18n/zh/topology-change-savepoint.json"),
    ),
    (
        "two-phases",
        include_str!("../../../presets/i18n/zh/two-phases.json"),
    ),
    (
        "unaligned",
        include_str!("../../../presets/i18n/zh/unaligned.json"),
    ),
    (
        "why-uc",
        include_str!("../../../presets/i18n/zh/why-uc.json"),
    ),
];

thread_local! {
    static PARSED: RefCell<HashMap<&'static str, Option<&'static GuideZh>>> = RefCell::new(HashMap::new());
}

/// Parses a translation file (the test reports the error).
pub fn parse(json: &str) -> Result<GuideZh, String> {
    serde_json::from_str(json).map_err(|e| e.to_string())
}

/// The Chinese texts of `preset`, if it has them.
pub fn zh(preset: &str) -> Option<&'static GuideZh> {
    let (name, json) = FILES.iter().find(|(n, _)| *n == preset)?;
    PARSED.with(|p| {
        *p.borrow_mut()
            .entry(name)
            .or_insert_with(|| parse(json).ok().map(|g| &*Box::leak(Box::new(g))))
    })
}

fn replace(target: &mut String, with: Option<&String>) {
    if let Some(s) = with.filter(|s| !s.is_empty()) {
        target.clone_from(s);
    }
}

/// `guide` with the sentences of `zh` in place of its own.
pub fn translate(guide: &Guide, zh: &GuideZh) -> Guide {
    let mut g = guide.clone();
    for (i, w) in g.watch.iter_mut().enumerate() {
        replace(w, zh.watch.get(i));
    }
    for (i, e) in g.expect.iter_mut().enumerate() {
        replace(&mut e.says, zh.expect.get(i));
    }
    for (i, t) in g.tries.iter_mut().enumerate() {
        let Some(tz) = zh.tries.get(i) else { continue };
        replace(&mut t.label, Some(&tz.label));
        replace(&mut t.why, Some(&tz.why));
        for (j, e) in t.expect.iter_mut().enumerate() {
            replace(&mut e.says, tz.expect.get(j));
        }
    }
    g
}
