//! Comparable checkpoint figures of one run, from Flink's REST statistics or from the
//! simulator's report, and the side-by-side rows of a calibration.
//!
//! Contract: [`Figures`] holds, over the checkpoints triggered within the measured window:
//! completed / failed counts, median and max end-to-end, median and max alignment and median
//! start delay (each checkpoint's figure is its maximum over subtasks, as Flink's checkpoint
//! summary and the playground's report give it), median persisted in-flight bytes, median
//! checkpointed size, the number of completed unaligned checkpoints, and the throughput into
//! the bottleneck operator (records/s over a window of scenario time). [`from_flink`] reads
//! the JSON of `/jobs/:id/checkpoints` (history entries: `status`, `trigger_timestamp`,
//! `end_to_end_duration`, `persisted_data`, `checkpointed_size`, `checkpoint_type`) and of
//! `/jobs/:id/checkpoints/details/:cid/subtasks/:vid` (per subtask `alignment.duration`,
//! `start_delay`); [`from_report`] reads the simulator's [`Report`]. [`rows`] pairs them with
//! the ratio simulator / Flink. Pure: the HTTP and the processes are `calibrate`'s.

use crate::engine::report::Report;
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Figures {
    pub completed: u32,
    pub failed: u32,
    pub median_end_to_end_ms: Option<f64>,
    pub max_end_to_end_ms: Option<f64>,
    pub median_alignment_ms: Option<f64>,
    pub max_alignment_ms: Option<f64>,
    pub median_start_delay_ms: Option<f64>,
    pub median_persisted_bytes: Option<f64>,
    pub median_checkpointed_bytes: Option<f64>,
    pub unaligned_completed: u32,
    /// Records per second into the bottleneck operator (out of it for a source).
    pub bottleneck_throughput: Option<f64>,
}

/// One completed or failed checkpoint, reduced to what [`Figures`] needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Checkpoint {
    pub id: u64,
    pub completed: bool,
    pub unaligned: bool,
    /// Trigger, ms of scenario time.
    pub trigger_ms: f64,
    pub end_to_end_ms: f64,
    pub alignment_ms: f64,
    pub start_delay_ms: f64,
    pub persisted_bytes: f64,
    pub checkpointed_bytes: f64,
}

pub fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    crate::compact_sort::sort_by(&mut v, f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn max(v: impl Iterator<Item = f64>) -> Option<f64> {
    v.fold(None, |m, x| Some(m.map_or(x, |m: f64| m.max(x))))
}

/// Figures of checkpoints (only those triggered in `[0, until_ms]` count).
pub fn of(checkpoints: &[Checkpoint], until_ms: f64, throughput: Option<f64>) -> Figures {
    let window: Vec<&Checkpoint> = checkpoints
        .iter()
        .filter(|c| c.trigger_ms >= 0.0 && c.trigger_ms <= until_ms)
        .collect();
    let done: Vec<&&Checkpoint> = window.iter().filter(|c| c.completed).collect();
    let col = |f: fn(&Checkpoint) -> f64| done.iter().map(|c| f(c)).collect::<Vec<f64>>();
    Figures {
        completed: done.len() as u32,
        failed: (window.len() - done.len()) as u32,
        median_end_to_end_ms: median(col(|c| c.end_to_end_ms)),
        max_end_to_end_ms: max(col(|c| c.end_to_end_ms).into_iter()),
        median_alignment_ms: median(col(|c| c.alignment_ms)),
        max_alignment_ms: max(col(|c| c.alignment_ms).into_iter()),
        median_start_delay_ms: median(col(|c| c.start_delay_ms)),
        median_persisted_bytes: median(col(|c| c.persisted_bytes)),
        median_checkpointed_bytes: median(col(|c| c.checkpointed_bytes)),
        unaligned_completed: done.iter().filter(|c| c.unaligned).count() as u32,
        bottleneck_throughput: throughput,
    }
}

/// The simulator's checkpoints (in-progress ones do not count, as in Flink's history).
pub fn report_checkpoints(r: &Report) -> Vec<Checkpoint> {
    r.checkpoints
        .iter()
        .filter(|c| c.status != "in_progress")
        .map(|c| Checkpoint {
            id: c.id,
            completed: c.status == "completed",
            unaligned: c.unaligned,
            trigger_ms: c.trigger_ms,
            end_to_end_ms: c.end_to_end_ms.unwrap_or(0.0),
            alignment_ms: c.alignment_ms,
            start_delay_ms: c.start_delay_ms,
            persisted_bytes: c.persisted_inflight_bytes as f64,
            checkpointed_bytes: c.checkpointed_bytes as f64,
        })
        .collect()
}

/// The simulator's figures up to `until_ms`.
pub fn from_report(r: &Report, until_ms: f64, throughput: Option<f64>) -> Figures {
    of(&report_checkpoints(r), until_ms, throughput)
}

fn num(v: &Value, path: &[&str]) -> Option<f64> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_f64()
}

/// One Flink history entry (with the per-subtask details of its vertices, if fetched), its
/// trigger made relative to the scenario clock's start `t0_epoch_ms`. `None` while in progress.
pub fn flink_checkpoint(entry: &Value, subtasks: &[Value], t0_epoch_ms: f64) -> Option<Checkpoint> {
    let status = entry.get("status")?.as_str()?;
    if status == "IN_PROGRESS" {
        return None;
    }
    let mut alignment: f64 = 0.0;
    let mut start_delay: f64 = 0.0;
    for vertex in subtasks {
        for s in vertex
            .get("subtasks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            alignment = alignment.max(num(s, &["alignment", "duration"]).unwrap_or(0.0));
            start_delay = start_delay.max(num(s, &["start_delay"]).unwrap_or(0.0));
        }
    }
    Some(Checkpoint {
        id: num(entry, &["id"])? as u64,
        completed: status == "COMPLETED",
        unaligned: entry
            .get("checkpoint_type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.contains("UNALIGNED")),
        trigger_ms: num(entry, &["trigger_timestamp"]).unwrap_or(0.0) - t0_epoch_ms,
        end_to_end_ms: num(entry, &["end_to_end_duration"]).unwrap_or(0.0),
        alignment_ms: alignment,
        start_delay_ms: start_delay,
        persisted_bytes: num(entry, &["persisted_data"]).unwrap_or(0.0),
        checkpointed_bytes: num(entry, &["checkpointed_size"]).unwrap_or(0.0),
    })
}

/// One side-by-side row: figure, Flink, simulator, simulator / Flink.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub figure: &'static str,
    pub flink: Option<f64>,
    pub simulator: Option<f64>,
    pub ratio: Option<f64>,
}

/// The rows of a calibration, in a fixed order.
pub fn rows(flink: &Figures, sim: &Figures) -> Vec<Row> {
    let pairs: [(&'static str, Option<f64>, Option<f64>); 11] = [
        (
            "completed",
            Some(flink.completed as f64),
            Some(sim.completed as f64),
        ),
        ("failed", Some(flink.failed as f64), Some(sim.failed as f64)),
        (
            "median end-to-end ms",
            flink.median_end_to_end_ms,
            sim.median_end_to_end_ms,
        ),
        (
            "max end-to-end ms",
            flink.max_end_to_end_ms,
            sim.max_end_to_end_ms,
        ),
        (
            "median alignment ms",
            flink.median_alignment_ms,
            sim.median_alignment_ms,
        ),
        (
            "max alignment ms",
            flink.max_alignment_ms,
            sim.max_alignment_ms,
        ),
        (
            "median start delay ms",
            flink.median_start_delay_ms,
            sim.median_start_delay_ms,
        ),
        (
            "median persisted in-flight B",
            flink.median_persisted_bytes,
            sim.median_persisted_bytes,
        ),
        (
            "median checkpointed size B",
            flink.median_checkpointed_bytes,
            sim.median_checkpointed_bytes,
        ),
        (
            "unaligned completed",
            Some(flink.unaligned_completed as f64),
            Some(sim.unaligned_completed as f64),
        ),
        (
            "bottleneck throughput rec/s",
            flink.bottleneck_throughput,
            sim.bottleneck_throughput,
        ),
    ];
    pairs
        .into_iter()
        .map(|(figure, f, s)| Row {
            figure,
            flink: f,
            simulator: s,
            ratio: match (f, s) {
                (Some(f), Some(s)) if f != 0.0 => Some(s / f),
                (Some(f), Some(s)) if f == 0.0 && s == 0.0 => Some(1.0),
                _ => None,
            },
        })
        .collect()
}

/// A figure for a table: integers plain, small values with one decimal, `-` for none.
pub fn show(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v.abs() >= 100.0 || v.fract() == 0.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.1}"),
    }
}

/// A ratio for a table: `1.23×`, `∞` when Flink's figure is 0 and the simulator's is not.
pub fn show_ratio(r: &Row) -> String {
    match (r.ratio, r.flink, r.simulator) {
        (Some(x), _, _) => format!("{x:.2}×"),
        (None, Some(f), Some(s)) if f == 0.0 && s != 0.0 => "∞".into(),
        _ => "-".into(),
    }
}
