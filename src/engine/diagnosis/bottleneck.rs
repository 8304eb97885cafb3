//! The bottleneck, found as Flink's documentation teaches ("Monitoring Back Pressure":
//! look for the first operator downstream of the backpressured ones that is busy and not
//! backpressured itself — the source of the backpressure).
//!
//! Contract: [`find`] reads the per-subtask [`SubtaskMetrics`] (Flink's names, the last 5 s)
//! and the job's channels, and names the bottleneck subtask and its operator, with the
//! backpressured subtasks upstream of it. Thresholds are the web UI's: backpressured above
//! 10 % (`backPressuredTimeMsPerSecond` > 100, the UI's OK / LOW boundary), busy at least
//! 50 % (HIGH). Without backpressure there is no bottleneck to name.

use super::super::log::{list_of, text, Msg};
use super::super::runtime::Engine;
use super::metrics::SubtaskMetrics;
use super::pct;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Bottleneck {
    /// The busy, not backpressured subtask downstream of backpressured ones (`None`: none).
    pub subtask: Option<String>,
    pub operator: Option<String>,
    pub busy_time_ms_per_second: f64,
    /// The backpressured subtasks directly upstream of it.
    pub backpressured_upstream: Vec<String>,
    /// Every subtask backpressured above 10 % in the window.
    pub backpressured: Vec<String>,
    /// In words: exactly `msg`'s English.
    pub text: String,
    /// [`Bottleneck::text`]'s structured form, for the interface; not in the report's JSON.
    #[serde(skip)]
    pub msg: Option<Msg>,
}

pub fn find(engine: &Engine, metrics: &[SubtaskMetrics]) -> Bottleneck {
    let bp = |t: usize| {
        metrics
            .get(t)
            .is_some_and(|m| m.backPressuredTimeMsPerSecond > 100.0)
    };
    let backpressured: Vec<String> = (0..metrics.len())
        .filter(|&t| bp(t))
        .map(|t| metrics[t].subtask.clone())
        .collect();
    let mut best: Option<(usize, f64, Vec<String>)> = None;
    for (t, m) in metrics.iter().enumerate() {
        if bp(t) || m.busyTimeMsPerSecond < 500.0 {
            continue;
        }
        let mut ups: Vec<usize> = engine.tasks[t]
            .inputs
            .iter()
            .map(|&c| engine.channels[c].from_task)
            .filter(|&u| bp(u))
            .collect();
        ups.sort_unstable();
        ups.dedup();
        if ups.is_empty() {
            continue;
        }
        if best.as_ref().is_none_or(|b| m.busyTimeMsPerSecond > b.1) {
            let names = ups.iter().map(|&u| metrics[u].subtask.clone()).collect();
            best = Some((t, m.busyTimeMsPerSecond, names));
        }
    }
    match best {
        Some((t, busy, ups)) => {
            let op = engine.operators[engine.tasks[t].operator].id.clone();
            let msg = Msg::new(
                if ups.len() == 1 {
                    "{0} is the bottleneck: busy {1} (busyTimeMsPerSecond {2}), not backpressured, while {3} upstream is backpressured; {4}"
                } else {
                    "{0} is the bottleneck: busy {1} (busyTimeMsPerSecond {2}), not backpressured, while {3} upstream are backpressured; {4}"
                },
                vec![
                    text(&metrics[t].subtask),
                    text(pct(busy / 1000.0)),
                    text(format!("{busy:.0}")),
                    list_of(&ups, ", "),
                    metrics[t].reading().into(),
                ],
            );
            Bottleneck {
                subtask: Some(metrics[t].subtask.clone()),
                operator: Some(op),
                busy_time_ms_per_second: busy,
                backpressured_upstream: ups,
                backpressured,
                text: msg.english(),
                msg: Some(msg),
            }
        }
        None => {
            let msg = if backpressured.is_empty() {
                Msg::new("no backpressure in the last 5 s: no bottleneck", vec![])
            } else {
                Msg::new(
                    "backpressured ({0}) but no busy, not backpressured subtask downstream of them",
                    vec![list_of(&backpressured, ", ")],
                )
            };
            Bottleneck {
                text: msg.english(),
                msg: Some(msg),
                backpressured,
                ..Default::default()
            }
        }
    }
}
