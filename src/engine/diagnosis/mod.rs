//! "Why is this checkpoint slow?" — the playground's answer, as its own concept.
//!
//! Contract: reads the engine through a narrow interface — the coordinator's checkpoint
//! statistics, the per-subtask report rows, the [`trace::BarrierTrace`] the engine records
//! at barrier time, the activity samples and the network state — and never changes the
//! run. It names subtasks as the report does (`operator#index`, the task's name), so it
//! follows whatever the runtime deploys as tasks. What it gives:
//! - per checkpoint a [`CheckpointDiagnosis`] ([`critical_path`]): the subtask whose
//!   acknowledgement ended it, the dominating phase of that subtask (start delay,
//!   alignment, sync, async, or waiting for the coordinator), and the cause in the engine's
//!   terms: the channel the deciding barrier queued behind (buffers ahead, credit), the task
//!   thread that did not take it (hard backpressure, a legacy source's lock), who
//!   backpressured whom and how busy it was; stragglers by [`summary::STRAGGLER_RULE`], and
//!   Flink's per-operator rollup;
//! - the [`bottleneck::Bottleneck`] as Flink's docs find it, with [`metrics`] under Flink's
//!   names;
//! - for a pending checkpoint, a [`live::BarrierTree`] from the coordinator down.
//!
//! Every sentence it writes (a critical path, the bottleneck, a pool reading, what a
//! barrier-tree node waits for) is built as an `engine::log::Msg` — a code, its English
//! template, with arguments and nested clauses — and kept next to its text, which is that
//! message's English exactly (the report's JSON and the CLI show the text; the interface
//! renders the message in the viewer's language, `ui::i18n::messages`).
//!
//! Flink's web UI shows the per-subtask durations and leaves the reasoning to the user
//! (`CheckpointStatsTracker`, `SubtaskStateStats`); the reasoning here is the playground's.

pub mod bottleneck;
pub mod critical_path;
pub mod live;
pub mod metrics;
pub mod summary;
pub mod trace;

pub use bottleneck::Bottleneck;
pub use critical_path::CheckpointDiagnosis;

use super::network::Item;
use super::runtime::Engine;

impl Engine {
    /// Records, for the diagnosis, a barrier of checkpoint `id` entering channel `c`'s
    /// subpartition (called before it is enqueued).
    pub(crate) fn trace_barrier_sent(&mut self, id: u64, c: usize, priority: bool) {
        let ch = &self.channels[c];
        let queued_ahead = ch
            .queue
            .iter()
            .filter(|i| matches!(i, Item::Data(_)))
            .count() as u32
            + ch.building.as_ref().is_some_and(|b| b.bytes > 0) as u32;
        let hop = trace::Hop {
            from_task: ch.from_task,
            to_task: ch.to_task,
            sent_at: self.now,
            queued_ahead,
            credit: ch.credit,
            priority,
            arrived_at: None,
            queued_at_receiver: 0,
            processed_at: None,
        };
        self.barrier_trace.sent(id, c, hop);
    }
}

/// Milliseconds of a micros figure, rounded to 0.001 ms.
pub(crate) fn ms(us: u64) -> f64 {
    (us as f64 / 1e3 * 1000.0).round() / 1000.0
}

/// A duration as the UI writes it: "1.90 s", "31 ms", "0.4 ms".
pub fn dur(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms >= 10.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{ms:.1} ms")
    }
}

pub fn pct(share: f64) -> String {
    format!("{:.0} %", share * 100.0)
}
