//! Remedies as measured experiments (issue 18 item 4): the scenario re-run with one change
//! each, and the effect in figures — not advice, a measurement.
//!
//! Contract: [`remedies`] derives from a document one variant per remedy — unaligned
//! checkpoints, an aligned-checkpoint timeout (200 ms), buffer debloating, fewer buffers
//! (1 exclusive per channel, 2 floating per gate), overdraft buffers (Flink's default 5),
//! and twice the parallelism at the bottleneck operator when one is named — each a copy
//! that differs only in those settings (same job, seed, duration and events, like
//! [`super::compare::variant`]); a variant that does not validate (e.g. a forward edge at
//! the doubled operator) is left out with its reason. [`measure`] runs the base and each
//! variant to the document's end and gives their [`Figures`] side by side. The change
//! applies from t = 0, not from the slow checkpoint's instant: parallelism cannot change
//! live, and the same seed makes the runs otherwise identical until the change matters.

use super::compare::{Figures, Mode, TIMEOUT_KEY, UNALIGNED_KEY};
use super::document::Document;
use crate::engine::Engine;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Remedy {
    /// `unaligned`, `alignment_timeout`, `debloating`, `fewer_buffers`, `overdraft`,
    /// `parallelism`.
    pub name: String,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measured {
    pub remedy: Remedy,
    pub figures: Figures,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Experiment {
    pub base: Figures,
    pub remedies: Vec<Measured>,
    /// Remedies that could not run, with the reason.
    pub skipped: Vec<(String, String)>,
}

fn with(doc: &Document, name: &str, label: &str, keys: &[(&str, &str)]) -> (Remedy, Document) {
    let mut v = doc.clone();
    v.compare = None;
    v.guide = None;
    for (k, val) in keys {
        let _ = v.set_config(k, val);
    }
    v.name = format!("{} — {label}", doc.name);
    (
        Remedy {
            name: name.into(),
            label: label.into(),
        },
        v,
    )
}

/// The remedy variants of `doc` (see the module), `bottleneck` naming the operator whose
/// parallelism doubles.
pub fn remedies(doc: &Document, bottleneck: Option<&str>) -> Vec<(Remedy, Document)> {
    let timeout = Mode::Timeout(200_000).config();
    let mut out = vec![
        with(
            doc,
            "unaligned",
            "unaligned checkpoints",
            &[(UNALIGNED_KEY, "true"), (TIMEOUT_KEY, "0s")],
        ),
        with(
            doc,
            "alignment_timeout",
            "aligned, 200ms timeout",
            &[(UNALIGNED_KEY, timeout.0), (TIMEOUT_KEY, &timeout.1)],
        ),
        with(
            doc,
            "debloating",
            "buffer debloating",
            &[("taskmanager.network.memory.buffer-debloat.enabled", "true")],
        ),
        with(
            doc,
            "fewer_buffers",
            "fewer buffers (1 per channel, 2 floating)",
            &[
                ("taskmanager.network.memory.buffers-per-channel", "1"),
                ("taskmanager.network.memory.floating-buffers-per-gate", "2"),
            ],
        ),
        with(
            doc,
            "overdraft",
            "overdraft buffers (5 per gate)",
            &[(
                "taskmanager.network.memory.max-overdraft-buffers-per-gate",
                "5",
            )],
        ),
    ];
    if let Some(op) = bottleneck {
        let (r, mut v) = with(doc, "parallelism", &format!("parallelism ×2 at {op}"), &[]);
        if let Some(o) = v.operators.iter_mut().find(|o| o.id == op) {
            o.parallelism = Some(o.parallelism.unwrap_or(1) * 2);
            out.push((r, v));
        }
    }
    out
}

fn run(doc: &Document) -> Result<Figures, String> {
    let spec = super::to_spec(doc).map_err(|e| format!("{}: {}", e.path, e.message))?;
    let end = spec.duration;
    let mut e = Engine::new(spec).map_err(|e| e.to_string())?;
    e.run_until(end);
    Ok(Figures::of(&e.report()))
}

/// Runs the base document and every remedy to the end; the bottleneck is the base run's.
pub fn measure(doc: &Document) -> Result<Experiment, String> {
    let spec = super::to_spec(doc).map_err(|e| format!("{}: {}", e.path, e.message))?;
    let end = spec.duration;
    let mut e = Engine::new(spec).map_err(|e| e.to_string())?;
    e.run_until(end);
    let report = e.report();
    let base = Figures::of(&report);
    let mut out = Experiment {
        base,
        remedies: Vec::new(),
        skipped: Vec::new(),
    };
    for (remedy, v) in remedies(doc, report.bottleneck.operator.as_deref()) {
        match run(&v) {
            Ok(figures) => out.remedies.push(Measured { remedy, figures }),
            Err(why) => out.skipped.push((remedy.name, why)),
        }
    }
    Ok(out)
}
