//! What the time-travel timeline marks: checkpoints, failures, recoveries and actions.
//!
//! Contract: [`TimelineMarks`] is a read-only snapshot cut from the engine by
//! [`crate::ui::sim::Sim`] only while the engine stands at the furthest time reached (a seek
//! back replays the same run, so the marks of its future stay valid until a fork) and only
//! when [`marks_key`] changes. Times are virtual microseconds. Pure data, no DOM.

use crate::engine::spec::Action;
use crate::engine::time::Micros;
use crate::engine::Engine;
use crate::ui::format;

/// A checkpoint on the timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointMark {
    pub id: u64,
    pub trigger: Micros,
    /// When it completed, failed or expired (`None` while in progress).
    pub end: Option<Micros>,
    /// `completed`, `in_progress`, `failed`, `expired` or `aborted`.
    pub status: &'static str,
}

/// A failure and, once every task runs again, its recovery.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureMark {
    pub at: Micros,
    pub recovered: Option<Micros>,
    pub what: String,
}

/// An action of the run: from the scenario, or recorded from the user.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionMark {
    pub at: Micros,
    pub label: String,
    pub recorded: bool,
}

/// Everything the timeline marks.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TimelineMarks {
    pub duration: Micros,
    pub checkpoints: Vec<CheckpointMark>,
    pub failures: Vec<FailureMark>,
    pub actions: Vec<ActionMark>,
    /// Where the run was last forked (a new action after seeking back), if it was.
    pub forked_at: Option<Micros>,
}

/// Changes whenever the marks cut from `e` would.
pub fn marks_key(e: &Engine, forked_at: Option<Micros>) -> u64 {
    let mut k = e.coordinator.history.len() as u64;
    for c in &e.coordinator.history {
        k = k.wrapping_mul(31).wrapping_add(c.status as u64 + 1);
    }
    for f in &e.failures {
        k = k
            .wrapping_mul(31)
            .wrapping_add(1 + f.recovery_ms.is_some() as u64);
    }
    k = k.wrapping_mul(31).wrapping_add(e.spec.events.len() as u64);
    k.wrapping_mul(31)
        .wrapping_add(forked_at.map_or(u64::MAX, |t| t))
}

/// The marks of the run `e` has played so far.
pub fn cut_marks(e: &Engine, forked_at: Option<Micros>) -> TimelineMarks {
    let recorded_from = e.spec.events.len() - e.recorded_actions().len();
    TimelineMarks {
        duration: e.spec.duration,
        checkpoints: e
            .coordinator
            .history
            .iter()
            .map(|c| CheckpointMark {
                id: c.id,
                trigger: c.trigger_at,
                end: c.completed_at,
                status: c.status.name(),
            })
            .collect(),
        failures: e
            .failures
            .iter()
            .map(|f| {
                let at = (f.at_ms * 1e3).round() as Micros;
                FailureMark {
                    at,
                    recovered: f.recovery_ms.map(|r| at + (r * 1e3).round() as Micros),
                    what: format!("{}#{}: {}", f.operator, f.subtask, f.reason),
                }
            })
            .collect(),
        actions: e
            .spec
            .events
            .iter()
            .enumerate()
            .map(|(i, a)| ActionMark {
                at: a.at,
                label: action_label(&a.action),
                recorded: i >= recorded_from,
            })
            .collect(),
        forked_at,
    }
}

/// A short human name of an action, for tooltips.
pub fn action_label(a: &Action) -> String {
    match a {
        Action::SetCost { operator, cost } => {
            format!("{operator}: cost {} per record", format::dur(*cost))
        }
        Action::SetRate { operator, rate } => format!("{operator}: rate {rate} records/s"),
        Action::Fail { operator, subtask } => format!("fail {operator}#{subtask}"),
        Action::TriggerCheckpoint => "trigger a checkpoint".into(),
        Action::Savepoint => "savepoint".into(),
        Action::StopWithSavepoint { drain: true } => "stop --drain".into(),
        Action::StopWithSavepoint { drain: false } => "stop with savepoint".into(),
        Action::SetConfig { key, value } => format!("{key} = {value}"),
        Action::SetPartitioner {
            from,
            to,
            partitioner,
        } => format!("{from} -> {to}: {}", partitioner.name()),
        Action::Resubmit(r) => format!("resubmit from {}", r.from.text()),
    }
}

impl CheckpointMark {
    /// Completed checkpoints are marked green, failed, expired and aborted ones red.
    pub fn failed(&self) -> bool {
        !matches!(self.status, "completed" | "in_progress")
    }
}
