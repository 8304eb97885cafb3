//! Guides: what a preset teaches, what to watch, which control to touch, and the figures
//! it promises — machine-checkable against the run's [`Report`].
//!
//! A [`Guide`] is an optional `guide` object in a scenario document (an extension of
//! SCENARIO.md; the engine ignores it, and links made by Share do not carry it — the
//! playground finds a preset's guide by recognising the preset). It names the section of
//! the source article it belongs to, lists what to watch, offers [`Try`]s (the same
//! scenario re-run with a few Flink options changed, e.g. "turn on unaligned
//! checkpoints") and states [`Expectation`]s: a named [`Metric`] read from the report,
//! optionally for one operator and for checkpoints triggered in a time window, with a
//! lower and/or upper bound and the sentence it backs up.
//!
//! Contract: [`Expectation::evaluate`] is a pure function of a [`Report`]; it gives the
//! current value (`None` while there is nothing to measure yet, e.g. no completed
//! checkpoint in the window) and whether the bounds hold. The tests run every preset and
//! every try to its end and require every expectation to hold, so a guide never promises
//! a figure the engine does not produce; the playground shows the same evaluation live.
//! Medians over checkpoints (the upper middle value for an even count, as the comparison
//! table takes them) use the checkpoints *completed* in the window; scoped to an
//! operator, a checkpoint counts with its slowest subtask of that operator (as Flink's
//! checkpoint details show the maximum per operator).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::compare::median;
use super::document::{ConfigValue, Obj, Res};
use super::error::ScenarioError;
use crate::engine::config::removed_key;
use crate::engine::log::{text, Msg};
use crate::engine::report::{CheckpointReport, Report};
use crate::engine::time::parse_duration;

/// The sections of the source article (`shared/MISSION.md`), by number.
pub const SECTIONS: &[(u32, &str)] = &[
    (1, "Why unaligned checkpoints"),
    (2, "How unaligned checkpoints work: two phases"),
    (3, "Optimizations: the stuck task thread"),
    (4, "Risks of unaligned checkpoints"),
    (5, "Aligned vs unaligned, and the timeout switch"),
];

/// The title of article section `n`.
pub fn section_title(n: u32) -> Option<&'static str> {
    SECTIONS.iter().find(|(i, _)| *i == n).map(|(_, t)| *t)
}

/// What a scenario teaches and promises.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Guide {
    /// Section of the article (1 to 5); absent for baselines and benchmarks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<u32>,
    /// Where to look, one sentence each.
    pub watch: Vec<String>,
    /// Figures the run reaches.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<Expectation>,
    /// Controls to touch: the same scenario with a few options changed.
    #[serde(rename = "try", skip_serializing_if = "Vec::is_empty")]
    pub tries: Vec<Try>,
}

/// One control to touch: re-run the scenario with `set` applied to its config and
/// `operators` to its operators' fields (e.g. `{"src": {"legacy": false}}`: the remedy of
/// moving a source to FLIP-27 is a change of the job, not of a Flink option).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Try {
    pub label: String,
    /// What changes and why, in a sentence.
    pub why: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub set: BTreeMap<String, ConfigValue>,
    /// Operator id -> field (as the editor names it, `edit::Setting`) -> value.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub operators: BTreeMap<String, BTreeMap<String, ConfigValue>>,
    /// Figures the changed run reaches.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<Expectation>,
}

/// A figure a run promises: `min <= metric <= max`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expectation {
    pub metric: Metric,
    /// Scope to one operator (checkpoint metrics per operator, operator ratios).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    /// Only checkpoints triggered at or after this virtual time (e.g. `"20s"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Only checkpoints triggered before this virtual time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// The claim, in words ("aligned checkpoints take seconds under backpressure").
    pub says: String,
}

/// What an expectation measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    CompletedCheckpoints,
    /// Checkpoints that failed, expired or were aborted.
    FailedCheckpoints,
    /// Completed checkpoints that started aligned and timed out to unaligned.
    SwitchedToUnaligned,
    /// Completed checkpoints that were unaligned (from the start or switched).
    UnalignedCheckpoints,
    MedianEndToEndMs,
    MedianAlignmentMs,
    MedianStartDelayMs,
    MedianSyncMs,
    MedianAsyncMs,
    MedianPersistedBytes,
    MedianChannelStateFiles,
    Failures,
    /// Failures the job recovered from by restoring a checkpoint.
    Recoveries,
    /// Restores that failed with Flink's error: a resubmitted job that failed to start (a
    /// failover restores the job as it runs and is never refused).
    RefusedRestores,
    /// Records the sources emitted again after restores (summed over failures).
    ReplayedRecords,
    /// How far back a restore rewound: failure time minus the restored checkpoint's
    /// trigger time, in ms (the largest over failures).
    RewindMs,
    /// Records lost for good (source retention, dropped channel state), summed over
    /// failures and resubmissions.
    LostRecords,
    /// Checkpoints completed while recovered in-flight data was still being consumed
    /// (FLIP-547's checkpointing during recovery), summed over failures.
    CheckpointsDuringRecovery,
    /// Records a sink wrote more than once (summed over sinks).
    Duplicates,
    /// 1 when every sink's output is exactly-once, else 0.
    ExactlyOnce,
    /// Operator's share of time backpressured (soft + hard).
    BackpressuredRatio,
    /// Operator's share of time blocked mid-record waiting for a buffer.
    HardBackpressuredRatio,
    BusyRatio,
    /// 1 when the job finished (bounded sources drained), else 0.
    Finished,
    /// The longest end-to-end duration of the completed savepoints in the window (the
    /// checkpoint medians leave savepoints out).
    SavepointEndToEndMs,
    /// In-flight records a resubmission moved to another channel (rescaling), summed.
    MovedInflightRecords,
}

impl Metric {
    pub const ALL: [Metric; 26] = [
        Metric::CompletedCheckpoints,
        Metric::FailedCheckpoints,
        Metric::SwitchedToUnaligned,
        Metric::UnalignedCheckpoints,
        Metric::MedianEndToEndMs,
        Metric::MedianAlignmentMs,
        Metric::MedianStartDelayMs,
        Metric::MedianSyncMs,
        Metric::MedianAsyncMs,
        Metric::MedianPersistedBytes,
        Metric::MedianChannelStateFiles,
        Metric::Failures,
        Metric::Recoveries,
        Metric::RefusedRestores,
        Metric::ReplayedRecords,
        Metric::RewindMs,
        Metric::LostRecords,
        Metric::CheckpointsDuringRecovery,
        Metric::Duplicates,
        Metric::ExactlyOnce,
        Metric::BackpressuredRatio,
        Metric::HardBackpressuredRatio,
        Metric::BusyRatio,
        Metric::Finished,
        Metric::SavepointEndToEndMs,
        Metric::MovedInflightRecords,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::CompletedCheckpoints => "completed_checkpoints",
            Metric::SavepointEndToEndMs => "savepoint_end_to_end_ms",
            Metric::MovedInflightRecords => "moved_inflight_records",
            Metric::FailedCheckpoints => "failed_checkpoints",
            Metric::SwitchedToUnaligned => "switched_to_unaligned",
            Metric::UnalignedCheckpoints => "unaligned_checkpoints",
            Metric::MedianEndToEndMs => "median_end_to_end_ms",
            Metric::MedianAlignmentMs => "median_alignment_ms",
            Metric::MedianStartDelayMs => "median_start_delay_ms",
            Metric::MedianSyncMs => "median_sync_ms",
            Metric::MedianAsyncMs => "median_async_ms",
            Metric::MedianPersistedBytes => "median_persisted_bytes",
            Metric::MedianChannelStateFiles => "median_channel_state_files",
            Metric::Failures => "failures",
            Metric::Recoveries => "recoveries",
            Metric::RefusedRestores => "refused_restores",
            Metric::ReplayedRecords => "replayed_records",
            Metric::RewindMs => "rewind_ms",
            Metric::LostRecords => "lost_records",
            Metric::CheckpointsDuringRecovery => "checkpoints_during_recovery",
            Metric::Duplicates => "duplicates",
            Metric::ExactlyOnce => "exactly_once",
            Metric::BackpressuredRatio => "backpressured_ratio",
            Metric::HardBackpressuredRatio => "hard_backpressured_ratio",
            Metric::BusyRatio => "busy_ratio",
            Metric::Finished => "finished",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Medians over checkpoints that can be read per operator.
    fn per_checkpoint_subtask(self) -> bool {
        matches!(
            self,
            Metric::MedianEndToEndMs
                | Metric::MedianAlignmentMs
                | Metric::MedianStartDelayMs
                | Metric::MedianSyncMs
                | Metric::MedianAsyncMs
                | Metric::MedianPersistedBytes
        )
    }

    /// Whether the metric reads per-operator figures (and so needs or allows `operator`).
    fn scope(self) -> Scope {
        match self {
            m if m.per_checkpoint_subtask() => Scope::JobOrOperator,
            Metric::BackpressuredRatio | Metric::HardBackpressuredRatio | Metric::BusyRatio => {
                Scope::Operator
            }
            _ => Scope::Job,
        }
    }

    /// Whether `after` / `before` apply (metrics over checkpoints).
    fn windowed(self) -> bool {
        self.per_checkpoint_subtask()
            || matches!(
                self,
                Metric::CompletedCheckpoints
                    | Metric::FailedCheckpoints
                    | Metric::SwitchedToUnaligned
                    | Metric::UnalignedCheckpoints
                    | Metric::MedianChannelStateFiles
                    | Metric::SavepointEndToEndMs
            )
    }

    /// The unit the value is shown in.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::MedianEndToEndMs
            | Metric::MedianAlignmentMs
            | Metric::MedianStartDelayMs
            | Metric::MedianSyncMs
            | Metric::MedianAsyncMs
            | Metric::SavepointEndToEndMs
            | Metric::RewindMs => "ms",
            Metric::MedianPersistedBytes => "bytes",
            Metric::BackpressuredRatio | Metric::HardBackpressuredRatio | Metric::BusyRatio => {
                "ratio"
            }
            Metric::ExactlyOnce | Metric::Finished => "yes/no",
            _ => "count",
        }
    }
}

impl Serialize for Metric {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Job,
    Operator,
    JobOrOperator,
}

/// An expectation read against a report.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// `None` while there is nothing to measure yet.
    pub value: Option<f64>,
    /// `Some(true)` when the value is within bounds.
    pub met: Option<bool>,
}

impl Expectation {
    fn window_ms(&self) -> (f64, f64) {
        let ms = |d: &Option<String>| {
            d.as_deref()
                .and_then(|t| parse_duration(t).ok())
                .map(|us| us as f64 / 1000.0)
        };
        (
            ms(&self.after).unwrap_or(0.0),
            ms(&self.before).unwrap_or(f64::INFINITY),
        )
    }

    /// A checkpoint's figure for this metric: the job's, or the slowest subtask's of the
    /// operator.
    fn checkpoint_value(&self, c: &CheckpointReport) -> Option<f64> {
        let pick =
            |job: f64, sub: &dyn Fn(&crate::engine::report::SubtaskCheckpointReport) -> f64| {
                match &self.operator {
                    None => Some(job),
                    Some(op) => c
                        .subtasks
                        .iter()
                        .filter(|s| &s.operator == op)
                        .map(sub)
                        .reduce(f64::max),
                }
            };
        match self.metric {
            Metric::MedianEndToEndMs => match &self.operator {
                None => c.end_to_end_ms,
                Some(_) => pick(0.0, &|s| s.end_to_end_ms.unwrap_or(0.0)),
            },
            Metric::MedianAlignmentMs => pick(c.alignment_ms, &|s| s.alignment_ms),
            Metric::MedianStartDelayMs => pick(c.start_delay_ms, &|s| s.start_delay_ms),
            Metric::MedianSyncMs => pick(c.sync_ms, &|s| s.sync_ms),
            Metric::MedianAsyncMs => pick(c.async_ms, &|s| s.async_ms),
            Metric::MedianPersistedBytes => pick(c.persisted_inflight_bytes as f64, &|s| {
                s.persisted_inflight_bytes as f64
            }),
            Metric::MedianChannelStateFiles => Some(c.channel_state_files as f64),
            _ => None,
        }
    }

    /// The metric's current value in `report`.
    pub fn value(&self, report: &Report) -> Option<f64> {
        let (after, before) = self.window_ms();
        let in_window = || {
            report
                .checkpoints
                .iter()
                .filter(move |c| c.trigger_ms >= after && c.trigger_ms < before)
        };
        let completed = || in_window().filter(|c| c.status == "completed");
        let count = |n: usize| Some(n as f64);
        let operator = || {
            self.operator
                .as_ref()
                .and_then(|id| report.operators.iter().find(|o| &o.id == id))
        };
        match self.metric {
            Metric::CompletedCheckpoints => count(completed().count()),
            Metric::FailedCheckpoints => count(
                in_window()
                    .filter(|c| c.status != "completed" && c.status != "in_progress")
                    .count(),
            ),
            Metric::SwitchedToUnaligned => {
                count(completed().filter(|c| c.timed_out_to_unaligned).count())
            }
            Metric::UnalignedCheckpoints => count(completed().filter(|c| c.unaligned).count()),
            Metric::MedianEndToEndMs
            | Metric::MedianAlignmentMs
            | Metric::MedianStartDelayMs
            | Metric::MedianSyncMs
            | Metric::MedianAsyncMs
            | Metric::MedianPersistedBytes
            | Metric::MedianChannelStateFiles => median(
                &mut completed()
                    .filter(|c| !c.is_savepoint)
                    .filter_map(|c| self.checkpoint_value(c))
                    .collect::<Vec<_>>(),
            ),
            Metric::Failures => count(report.failures.len()),
            Metric::Recoveries => count(
                report
                    .failures
                    .iter()
                    .filter(|f| f.restore_error.is_none() && f.recovery_ms.is_some())
                    .count(),
            ),
            Metric::RefusedRestores => count(
                report
                    .failures
                    .iter()
                    .filter(|f| f.restore_error.is_some())
                    .count()
                    + report
                        .resubmissions
                        .iter()
                        .filter(|r| r.restore_error.is_some())
                        .count(),
            ),
            Metric::MovedInflightRecords => Some(
                report
                    .resubmissions
                    .iter()
                    .map(|r| r.moved_inflight_records)
                    .sum::<u64>() as f64,
            ),
            Metric::ReplayedRecords => Some(
                report
                    .failures
                    .iter()
                    .map(|f| f.replayed_records)
                    .sum::<u64>() as f64,
            ),
            Metric::RewindMs => report
                .failures
                .iter()
                .filter_map(|f| {
                    let id = f.restored_checkpoint?;
                    let c = report.checkpoints.iter().find(|c| c.id == id)?;
                    Some(f.at_ms - c.trigger_ms)
                })
                .reduce(f64::max),
            Metric::LostRecords => Some(
                (report.failures.iter().map(|f| f.lost_records).sum::<u64>()
                    + report
                        .resubmissions
                        .iter()
                        .map(|r| r.lost_records)
                        .sum::<u64>()) as f64,
            ),
            Metric::CheckpointsDuringRecovery => Some(
                report
                    .failures
                    .iter()
                    .map(|f| f.checkpoints_during_recovery)
                    .sum::<u32>() as f64,
            ),
            Metric::Duplicates => {
                Some(report.sinks.iter().map(|s| s.duplicates).sum::<u64>() as f64)
            }
            Metric::ExactlyOnce => Some(f64::from(u8::from(
                report.sinks.iter().all(|s| s.exactly_once),
            ))),
            Metric::BackpressuredRatio => operator().map(|o| o.backpressured_ratio),
            Metric::HardBackpressuredRatio => operator().map(|o| o.hard_backpressured_ratio),
            Metric::BusyRatio => operator().map(|o| o.busy_ratio),
            Metric::Finished => Some(f64::from(u8::from(report.finished))),
            Metric::SavepointEndToEndMs => completed()
                .filter(|c| c.is_savepoint)
                .filter_map(|c| c.end_to_end_ms)
                .reduce(f64::max),
        }
    }

    /// Value and verdict in `report`.
    pub fn evaluate(&self, report: &Report) -> Outcome {
        let value = self.value(report);
        let met = value
            .map(|v| self.min.is_none_or(|min| v >= min) && self.max.is_none_or(|max| v <= max));
        Outcome { value, met }
    }

    /// The bounds in words: "≥ 1000 ms", "≤ 50 ms", "= 1".
    pub fn bounds_text(&self) -> String {
        let unit = match self.metric.unit() {
            "count" | "ratio" | "yes/no" => String::new(),
            u => format!(" {u}"),
        };
        self.bounds_with(|v| {
            if v.fract() == 0.0 {
                format!("{v:.0}{unit}")
            } else {
                format!("{v}{unit}")
            }
        })
    }

    /// The bounds with each value written by `value`: "≥ 1s", "0 B – 5 KB".
    pub fn bounds_with(&self, value: impl Fn(f64) -> String) -> String {
        match (self.min, self.max) {
            (Some(a), Some(b)) if a == b => format!("= {}", value(a)),
            (Some(a), Some(b)) => format!("{} to {}", value(a), value(b)),
            (Some(a), None) => format!("≥ {}", value(a)),
            (None, Some(b)) => format!("≤ {}", value(b)),
            (None, None) => String::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

/// Reads the `guide` object of a document.
pub(super) fn read_guide(v: &Value, path: &str) -> Res<Guide> {
    let g = Obj::new(v, path)?;
    g.only(&["section", "watch", "expect", "try"])?;
    let section = g.u32("section")?;
    if let Some(s) = section {
        if section_title(s).is_none() {
            return Err(ScenarioError::new(
                g.at("section"),
                format!(
                    "{s} is not a section of the article (1 to {})",
                    SECTIONS.len()
                ),
            ));
        }
    }
    let watch = strings(&g, "watch")?;
    let expect = expectations(&g, "expect")?;
    let tries = g
        .array("try")?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let t = Obj::new(v, &format!("{}[{i}]", g.at("try")))?;
            t.only(&["label", "why", "set", "operators", "expect"])?;
            let values = |v: &Value, path: &str| -> Res<BTreeMap<String, ConfigValue>> {
                let s = Obj::new(v, path)?;
                let mut out = BTreeMap::new();
                for key in s_keys(v) {
                    let value = s.config_value(&key)?.ok_or_else(|| {
                        ScenarioError::new(s.at(&key), "expected a value, got null")
                    })?;
                    out.insert(key, value);
                }
                Ok(out)
            };
            let set = match t.get("set") {
                Some(v) => values(v, &t.at("set"))?,
                None => BTreeMap::new(),
            };
            let mut operators = BTreeMap::new();
            if let Some(v) = t.get("operators") {
                let o = Obj::new(v, &t.at("operators"))?;
                for id in s_keys(v) {
                    let path = o.at(&id);
                    let fields = values(&v[id.as_str()], &path)?;
                    for field in fields.keys() {
                        if setting_named(field).is_none() {
                            let names: Vec<&str> =
                                super::edit::Setting::ALL.iter().map(|s| s.name()).collect();
                            return Err(ScenarioError::new(
                                format!("{path}.{field}"),
                                format!("unknown operator field (use {})", names.join(", ")),
                            ));
                        }
                    }
                    if !fields.is_empty() {
                        operators.insert(id, fields);
                    }
                }
            }
            if set.is_empty() && operators.is_empty() {
                let at = if t.get("set").is_some() || t.get("operators").is_none() {
                    t.at("set")
                } else {
                    t.at("operators")
                };
                return Err(ScenarioError::new(at, "changes nothing"));
            }
            Ok(Try {
                label: t.required("label", Obj::string)?,
                why: t.required("why", Obj::string)?,
                set,
                operators,
                expect: expectations(&t, "expect")?,
            })
        })
        .collect::<Res<Vec<_>>>()?;
    Ok(Guide {
        section,
        watch,
        expect,
        tries,
    })
}

fn s_keys(v: &Value) -> Vec<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

fn strings(o: &Obj, field: &str) -> Res<Vec<String>> {
    o.array(field)?
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::String(s) => Ok(s.clone()),
            _ => Err(ScenarioError::new(
                format!("{}[{i}]", o.at(field)),
                "expected a string",
            )),
        })
        .collect()
}

fn expectations(o: &Obj, field: &str) -> Res<Vec<Expectation>> {
    o.array(field)?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let e = Obj::new(v, &format!("{}[{i}]", o.at(field)))?;
            e.only(&[
                "metric", "operator", "after", "before", "min", "max", "says",
            ])?;
            let name = e.required("metric", Obj::string)?;
            let metric = Metric::parse(&name).ok_or_else(|| {
                ScenarioError::new(
                    e.at("metric"),
                    format!(
                        "unknown metric '{name}' (use {})",
                        Metric::ALL.map(|m| m.name()).join(", ")
                    ),
                )
            })?;
            let operator = e.string("operator")?;
            match (metric.scope(), &operator) {
                (Scope::Operator, None) => {
                    return Err(ScenarioError::new(
                        e.at("operator"),
                        format!("{name} is measured per operator: name one"),
                    ))
                }
                (Scope::Job, Some(_)) => {
                    return Err(ScenarioError::new(
                        e.at("operator"),
                        format!("{name} is a figure of the whole job, not of one operator"),
                    ))
                }
                _ => {}
            }
            let window = |field: &str| -> Res<Option<String>> {
                let d = e.duration(field)?;
                if let Some(text) = &d {
                    if !metric.windowed() {
                        return Err(ScenarioError::new(
                            e.at(field),
                            format!(
                                "{name} is not a figure over checkpoints, so it has no time window"
                            ),
                        ));
                    }
                    parse_duration(text).map_err(|m| ScenarioError::new(e.at(field), m))?;
                }
                Ok(d)
            };
            let after = window("after")?;
            let before = window("before")?;
            let (min, max) = (e.float("min")?, e.float("max")?);
            if min.is_none() && max.is_none() {
                return Err(ScenarioError::new(
                    format!("{}[{i}]", o.at(field)),
                    "needs a bound: min, max or both",
                ));
            }
            Ok(Expectation {
                metric,
                operator,
                after,
                before,
                min,
                max,
                says: e.required("says", Obj::string)?,
            })
        })
        .collect()
}

/// Checks what the reader cannot: operators named by expectations exist, and the keys a
/// try sets are Flink options the engine knows (with valid values).
pub fn check(guide: &Guide, doc: &super::Document) -> Result<(), ScenarioError> {
    let ops = |list: &[Expectation], path: &str| -> Result<(), ScenarioError> {
        for (i, e) in list.iter().enumerate() {
            if let Some(op) = &e.operator {
                if !doc.operators.iter().any(|o| &o.id == op) {
                    return Err(ScenarioError::of(
                        format!("{path}[{i}].operator"),
                        Msg::new("unknown operator '{0}'", vec![text(op)]),
                    ));
                }
            }
        }
        Ok(())
    };
    ops(&guide.expect, "guide.expect")?;
    for (i, t) in guide.tries.iter().enumerate() {
        ops(&t.expect, &format!("guide.try[{i}].expect"))?;
        let at = |field: &str| format!("guide.try[{i}].{field}");
        // The try's own error, named by its path ("path: message").
        let named = |path: String, e: ScenarioError| {
            let msg = Msg::new("{0}: {1}", vec![text(&e.path), e.structured().into()]);
            ScenarioError::of(path, msg)
        };
        let mut changed = with_settings(doc, &t.set).map_err(|e| named(at("set"), e))?;
        t.apply_operators(&mut changed)
            .map_err(|e| named(at("operators"), e))?;
        changed.guide = None;
        let field = if t.operators.is_empty() {
            "set"
        } else {
            "operators"
        };
        super::to_spec(&changed).map_err(|e| named(at(field), e))?;
    }
    Ok(())
}

fn setting_named(name: &str) -> Option<super::edit::Setting> {
    super::edit::Setting::ALL
        .into_iter()
        .find(|s| s.name() == name)
}

impl Try {
    /// `doc` with this try applied: its `set` to the config (as `--set KEY=VALUE` would),
    /// then its `operators` fields (as the job editor would set them).
    pub fn apply(&self, doc: &super::Document) -> Result<super::Document, ScenarioError> {
        let mut d = with_settings(doc, &self.set)?;
        self.apply_operators(&mut d)?;
        Ok(d)
    }

    /// Sets this try's `operators` fields on `d`.
    fn apply_operators(&self, d: &mut super::Document) -> Result<(), ScenarioError> {
        for (id, fields) in &self.operators {
            for (field, value) in fields {
                let setting = setting_named(field).ok_or_else(|| {
                    ScenarioError::new(format!("operators.{id}.{field}"), "unknown operator field")
                })?;
                super::edit::set_setting(d, id, setting, &value.to_flink_string())?;
            }
        }
        Ok(())
    }

    /// Every change the try makes, as `key = value` texts (config keys, then
    /// `operators.<id>.<field>`), for a page to list.
    pub fn changes(&self) -> Vec<String> {
        let config = self
            .set
            .iter()
            .map(|(k, v)| format!("{k} = {}", v.to_flink_string()));
        let ops = self.operators.iter().flat_map(|(id, fields)| {
            fields
                .iter()
                .map(move |(f, v)| format!("operators.{id}.{f} = {}", v.to_flink_string()))
        });
        config.chain(ops).collect()
    }
}

/// `doc` with a try's `set` applied to its config (as `--set KEY=VALUE` would).
pub fn with_settings(
    doc: &super::Document,
    set: &BTreeMap<String, ConfigValue>,
) -> Result<super::Document, ScenarioError> {
    let mut d = doc.clone();
    // A removed key (in a guide written by an older playground) changes nothing.
    for (k, v) in set.iter().filter(|(k, _)| removed_key(k).is_none()) {
        d.set_config(k, &v.to_flink_string())?;
    }
    Ok(d)
}
