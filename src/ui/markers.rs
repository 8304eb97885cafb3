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
use crate::ui::run_spans::RunSpans;

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

/// Up to this many ended checkpoints the timeline marks each one; past it, it marks each
/// [`TICK_BINS`]th of the run that holds any (issue 19, item 5). Every mark is an
/// absolutely positioned element, and appending one to thousands made the page lay out and
/// paint all of them again: on `large` run for an hour, at 2,500 s the timeline's marks
/// took 3.7 ms of paint and 1.2 ms of layout per frame, and the page played at 77× instead
/// of 98× (measured with the marks hidden).
pub const MAX_TICKS: usize = 300;
/// The number of equal spans of the run past [`MAX_TICKS`] ([`RunSpans`]): ~4 px each on a
/// 1,200-px track, about a mark's width.
pub const TICK_BINS: usize = 300;

/// The ended checkpoints of one span of the run, marked as one.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointSpan {
    /// The span's number, `0..TICK_BINS`.
    pub bin: usize,
    /// The span's middle, where the mark sits.
    pub at: Micros,
    /// The lowest and highest checkpoint id that ended in the span.
    pub first: u64,
    pub last: u64,
    /// The earliest and latest end in the span.
    pub from: Micros,
    pub to: Micros,
    pub completed: usize,
    /// Failed, expired or aborted.
    pub failed: usize,
}

/// How the timeline marks the checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckpointTicks<'a> {
    /// A mark per ended checkpoint (at most [`MAX_TICKS`]).
    Each(Vec<&'a CheckpointMark>),
    /// A mark per span of the run holding ended checkpoints, in time order.
    Spans(Vec<CheckpointSpan>),
}

impl TimelineMarks {
    /// The checkpoint marks to draw: each ended checkpoint, or past [`MAX_TICKS`] of them
    /// the spans of the run they ended in. In-progress checkpoints are not marked.
    pub fn checkpoint_ticks(&self) -> CheckpointTicks<'_> {
        let ended: Vec<(&CheckpointMark, Micros)> = (self.checkpoints.iter())
            .filter_map(|c| Some((c, c.end?)))
            .collect();
        if ended.len() <= MAX_TICKS {
            return CheckpointTicks::Each(ended.into_iter().map(|(c, _)| c).collect());
        }
        let run = RunSpans::new(self.duration, TICK_BINS);
        let mut spans: std::collections::BTreeMap<usize, CheckpointSpan> = Default::default();
        for (c, end) in ended {
            let bin = run.of(end);
            let span = spans.entry(bin).or_insert_with(|| CheckpointSpan {
                bin,
                at: run.middle(bin),
                first: c.id,
                last: c.id,
                from: end,
                to: end,
                completed: 0,
                failed: 0,
            });
            span.first = span.first.min(c.id);
            span.last = span.last.max(c.id);
            span.from = span.from.min(end);
            span.to = span.to.max(end);
            if c.failed() {
                span.failed += 1;
            } else {
                span.completed += 1;
            }
        }
        CheckpointTicks::Spans(spans.into_values().collect())
    }
}

impl CheckpointMark {
    /// Completed checkpoints are marked green, failed, expired and aborted ones red.
    pub fn failed(&self) -> bool {
        !matches!(self.status, "completed" | "in_progress")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Micros = 1_000_000;

    /// `n` checkpoints, one a second, each ending 300 ms after its trigger; those in
    /// `failed` expired, the last one is in progress.
    fn marks(n: u64, failed: &[u64]) -> TimelineMarks {
        TimelineMarks {
            duration: 3_600 * S,
            checkpoints: (1..=n)
                .map(|id| CheckpointMark {
                    id,
                    trigger: id * S,
                    end: (id < n).then_some(id * S + 300_000),
                    status: if failed.contains(&id) {
                        "expired"
                    } else if id < n {
                        "completed"
                    } else {
                        "in_progress"
                    },
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn few_checkpoints_are_marked_each_and_in_progress_ones_not() {
        let m = marks(MAX_TICKS as u64 + 1, &[]);
        let CheckpointTicks::Each(each) = m.checkpoint_ticks() else {
            panic!("marked each");
        };
        assert_eq!(each.len(), MAX_TICKS);
        assert!(each.iter().all(|c| c.end.is_some()));
    }

    #[test]
    fn many_checkpoints_are_marked_by_span_and_none_is_lost() {
        let failed = [777, 2_001];
        let m = marks(3_600, &failed);
        let CheckpointTicks::Spans(spans) = m.checkpoint_ticks() else {
            panic!("marked by span");
        };
        assert_eq!(
            spans.len(),
            TICK_BINS,
            "an hour of checkpoints fills every span"
        );
        let span_len = m.duration / TICK_BINS as Micros;
        let mut next = 1;
        for (i, s) in spans.iter().enumerate() {
            assert_eq!(s.bin, i);
            assert_eq!(s.first, next, "span {i}: ids follow on");
            assert_eq!((s.last - s.first + 1) as usize, s.completed + s.failed);
            next = s.last + 1;
            let (start, end) = (i as Micros * span_len, (i as Micros + 1) * span_len);
            assert!(
                start <= s.from && s.from <= s.to && s.to < end,
                "span {i}: {s:?}"
            );
            assert!(start < s.at && s.at < end, "span {i}: the mark sits inside");
            let holds = failed.iter().any(|f| (s.first..=s.last).contains(f));
            assert_eq!(s.failed > 0, holds, "span {i}: {s:?}");
        }
        assert_eq!(
            next, 3_600,
            "every ended checkpoint, not the one in progress"
        );
        // Later, the spans drawn before are drawn the same, but for the newest.
        let CheckpointTicks::Spans(early) = marks(1_000, &failed).checkpoint_ticks() else {
            panic!()
        };
        assert_eq!(early[..early.len() - 1], spans[..early.len() - 1]);
    }
}
