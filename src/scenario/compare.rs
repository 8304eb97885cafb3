//! Comparison runs: one scenario run twice, differing only in how checkpoints align.
//!
//! Contract: a [`Comparison`] names two checkpoint [`Mode`]s, run `a` and run `b`. It
//! travels in the scenario document as the optional top-level field
//! `"compare": {"a": "aligned", "b": "unaligned"}`, each side one of `aligned`,
//! `unaligned` or `timeout:<duration>` (aligned first, switching to unaligned after the
//! duration, e.g. `timeout:200ms`). [`Comparison::read`] rejects anything else with an
//! error naming `compare`, `compare.a` or `compare.b`. A document without the field is
//! an ordinary single run, so links made before the field existed open unchanged.
//!
//! [`variants`] derives the two documents that are run: copies of the document whose
//! only difference is the two config keys of the mode
//! (`execution.checkpointing.unaligned.enabled` and
//! `execution.checkpointing.aligned-checkpoint-timeout`, always both written) — same
//! job, seed, duration, other config and events — each named after its mode, without
//! the `compare` field. Each variant is validated; an error says which run failed
//! (`compare.b: …`). [`Figures`] are the key figures of one run's report that a
//! comparison shows side by side (medians over completed checkpoints, totals over
//! failures and sinks); the UI and the headless runner both use them.

use super::convert::duration_text;
use super::document::Document;
use super::error::ScenarioError;
use crate::engine::report::Report;
use crate::engine::time::{format_duration, parse_duration};
use serde::Serialize;
use serde_json::Value;

/// The config key that turns unaligned checkpoints on.
pub const UNALIGNED_KEY: &str = "execution.checkpointing.unaligned.enabled";
/// The config key of the aligned-checkpoint timeout (0 = unaligned at once).
pub const TIMEOUT_KEY: &str = "execution.checkpointing.aligned-checkpoint-timeout";

/// How one run of a comparison takes its checkpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Aligned checkpoints (unaligned disabled).
    Aligned,
    /// Unaligned checkpoints from the start.
    Unaligned,
    /// Aligned first, unaligned once this much time passed since the trigger (µs).
    Timeout(u64),
}

impl Mode {
    /// The text the document carries: `aligned`, `unaligned`, `timeout:200ms` (the
    /// timeout exactly, in the largest unit that states it: `timeout:1234us`).
    pub fn text(&self) -> String {
        match self {
            Mode::Aligned => "aligned".into(),
            Mode::Unaligned => "unaligned".into(),
            Mode::Timeout(t) => format!("timeout:{}", duration_text(*t)),
        }
    }

    /// A label for people: `aligned`, `unaligned`, `aligned, 200ms timeout`.
    pub fn label(&self) -> String {
        match self {
            Mode::Aligned => "aligned (AC)".into(),
            Mode::Unaligned => "unaligned (UC)".into(),
            Mode::Timeout(t) => format!("aligned → UC after {}", format_duration(*t)),
        }
    }

    /// A short label for legends and table heads: `AC`, `UC`, `AC→UC 200ms`.
    pub fn short(&self) -> String {
        match self {
            Mode::Aligned => "AC".into(),
            Mode::Unaligned => "UC".into(),
            Mode::Timeout(t) => format!("AC→UC {}", format_duration(*t)),
        }
    }

    /// Reads a mode; the error message says what is accepted.
    pub fn parse(text: &str) -> Result<Mode, String> {
        let t = text.trim();
        match t {
            "aligned" => Ok(Mode::Aligned),
            "unaligned" => Ok(Mode::Unaligned),
            _ => match t.strip_prefix("timeout:") {
                Some(d) => match parse_duration(d.trim()) {
                    Ok(0) => Err(format!(
                        "'{t}': a timeout of 0 is unaligned from the start; write \"unaligned\""
                    )),
                    Ok(us) => Ok(Mode::Timeout(us)),
                    Err(e) => Err(format!("'{t}': bad timeout duration ({e})")),
                },
                None => Err(format!(
                    "unknown checkpoint mode '{t}' (use aligned, unaligned or timeout:<duration>, e.g. timeout:200ms)"
                )),
            },
        }
    }

    /// The values of [`UNALIGNED_KEY`] and [`TIMEOUT_KEY`] for this mode (the timeout
    /// exact to the microsecond, not rounded for display).
    pub fn config(&self) -> (&'static str, String) {
        match self {
            Mode::Aligned => ("false", "0ms".into()),
            Mode::Unaligned => ("true", "0ms".into()),
            Mode::Timeout(t) => ("true", duration_text(*t)),
        }
    }
}

/// Two checkpoint modes compared on the same scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub a: Mode,
    pub b: Mode,
}

impl Serialize for Comparison {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("a", &self.a.text())?;
        m.serialize_entry("b", &self.b.text())?;
        m.end()
    }
}

impl Comparison {
    /// Aligned against unaligned: the comparison the playground offers first.
    pub fn ac_vs_uc() -> Comparison {
        Comparison {
            a: Mode::Aligned,
            b: Mode::Unaligned,
        }
    }

    /// The compact form used by the UI's select and the runner's `--compare`:
    /// `aligned|unaligned`, `aligned|timeout:200ms`.
    pub fn text(&self) -> String {
        format!("{}|{}", self.a.text(), self.b.text())
    }

    /// Reads the compact form `A|B` (path `--compare` or the given one in errors).
    pub fn parse(text: &str, path: &str) -> Result<Comparison, ScenarioError> {
        let Some((a, b)) = text.split_once('|') else {
            return Err(ScenarioError::new(
                path,
                format!(
                    "'{text}' is not a comparison; write two modes as A|B, e.g. aligned|unaligned"
                ),
            ));
        };
        let a = Mode::parse(a).map_err(|m| ScenarioError::new(format!("{path}.a"), m))?;
        let b = Mode::parse(b).map_err(|m| ScenarioError::new(format!("{path}.b"), m))?;
        Comparison::checked(a, b, path)
    }

    /// Reads the document field `compare` (an object with `a` and `b`).
    pub fn read(v: &Value) -> Result<Comparison, ScenarioError> {
        let Value::Object(map) = v else {
            return Err(ScenarioError::new(
                "compare",
                "expected an object such as {\"a\": \"aligned\", \"b\": \"unaligned\"}",
            ));
        };
        if let Some(k) = map.keys().find(|k| *k != "a" && *k != "b") {
            return Err(ScenarioError::new(
                format!("compare.{k}"),
                "unknown field (known fields: a, b)",
            ));
        }
        let side = |k: &str| -> Result<Mode, ScenarioError> {
            let path = format!("compare.{k}");
            match map.get(k) {
                None | Some(Value::Null) => {
                    Err(ScenarioError::new(path, "is required but missing"))
                }
                Some(Value::String(s)) => Mode::parse(s).map_err(|m| ScenarioError::new(path, m)),
                Some(other) => Err(ScenarioError::new(
                    path,
                    format!("expected a string such as \"aligned\", got {other}"),
                )),
            }
        };
        Comparison::checked(side("a")?, side("b")?, "compare")
    }

    fn checked(a: Mode, b: Mode, path: &str) -> Result<Comparison, ScenarioError> {
        if a == b {
            return Err(ScenarioError::new(
                path,
                format!("both runs use '{}'; compare two different modes", a.text()),
            ));
        }
        Ok(Comparison { a, b })
    }

    /// A label for people: `aligned (AC) vs unaligned (UC)`.
    pub fn label(&self) -> String {
        format!("{} vs {}", self.a.label(), self.b.label())
    }
}

/// The document run with checkpoint mode `mode`: only the two mode keys differ.
pub fn variant(doc: &Document, mode: &Mode) -> Document {
    let mut v = doc.clone();
    v.compare = None;
    // A variant is not the preset: its guide's promises and tries do not apply.
    v.guide = None;
    let (unaligned, timeout) = mode.config();
    // Both keys are in the engine's table, so `set_config` takes them (it checks only
    // the key; the values are checked when the variant is converted).
    let _ = v.set_config(UNALIGNED_KEY, unaligned);
    let _ = v.set_config(TIMEOUT_KEY, &timeout);
    v.name = format!("{} — {}", doc.name, mode.label());
    v
}

/// The two validated documents of a comparison, run `a` then run `b`.
pub fn variants(doc: &Document, cmp: &Comparison) -> Result<(Document, Document), ScenarioError> {
    let check = |mode: &Mode, side: &str| {
        let v = variant(doc, mode);
        super::to_spec(&v).map_err(|e| {
            ScenarioError::new(
                format!("compare.{side}"),
                format!(
                    "run '{}' does not validate: {}: {}",
                    mode.text(),
                    e.path,
                    e.message
                ),
            )
        })?;
        Ok::<_, ScenarioError>(v)
    };
    Ok((check(&cmp.a, "a")?, check(&cmp.b, "b")?))
}

/// The key figures of one run, as a comparison shows them side by side.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    pub completed: usize,
    /// Checkpoints that failed, expired or were aborted.
    pub failed: usize,
    /// Medians over completed checkpoints (ms, bytes); `None` without one.
    pub median_end_to_end_ms: Option<f64>,
    pub median_alignment_ms: Option<f64>,
    pub median_persisted_bytes: Option<u64>,
    pub max_end_to_end_ms: Option<f64>,
    pub failures: usize,
    /// Over all failures.
    pub replayed_records: u64,
    /// Over all sinks.
    pub duplicates: u64,
    pub lost: u64,
}

/// The median of `values` (the upper one for an even count), `None` when empty.
pub fn median<T: Copy + PartialOrd>(values: &mut [T]) -> Option<T> {
    crate::compact_sort::sort_by(values, |a, b| {
        a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
    });
    values.get(values.len() / 2).copied()
}

impl Figures {
    pub fn of(r: &Report) -> Figures {
        let done: Vec<_> = r
            .checkpoints
            .iter()
            .filter(|c| c.status == "completed")
            .collect();
        let mut e2e: Vec<f64> = done.iter().filter_map(|c| c.end_to_end_ms).collect();
        let mut align: Vec<f64> = done.iter().map(|c| c.alignment_ms).collect();
        let mut persisted: Vec<u64> = done.iter().map(|c| c.persisted_inflight_bytes).collect();
        Figures {
            completed: done.len(),
            failed: r
                .checkpoints
                .iter()
                .filter(|c| c.status != "completed" && c.status != "in_progress")
                .count(),
            median_end_to_end_ms: median(&mut e2e),
            median_alignment_ms: median(&mut align),
            median_persisted_bytes: median(&mut persisted),
            max_end_to_end_ms: e2e.last().copied(),
            failures: r.failures.len(),
            replayed_records: r.failures.iter().map(|f| f.replayed_records).sum(),
            duplicates: r.sinks.iter().map(|s| s.duplicates).sum(),
            lost: r.sinks.iter().map(|s| s.lost).sum(),
        }
    }
}
