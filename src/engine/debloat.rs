//! Buffer debloating (FLIP-183, Flink 1.14): size network buffers so that the data in
//! flight to a task takes about `buffer-debloat.target` to consume.
//!
//! As in Flink's `StreamTask.scheduleBufferDebloater`, every task with inputs runs a
//! mailbox action every `buffer-debloat.period`. Per input gate it measures the throughput
//! (bytes consumed per second of the task's non-idle time, `ThroughputCalculator`), wants
//! `throughput × target` bytes in flight, divides that by the gate's buffers in use — queued
//! received buffers plus the backlog its senders announced (`getBuffersInUseCount`), at
//! least one —
//! and smooths the result with an exponential moving average (α = 2 / (samples + 1), at most
//! doubling per step, `BufferSizeEMA`), clamped to [`min-segment-size`, `segment-size`]. A
//! size that differs by at least `threshold-percentages` from the announced one (or hits a
//! bound) is sent upstream to every channel of the gate; the producer cuts new buffers at it.
//! Only the size changes, never the number of buffers.

// Input-facing: reads user config / specs / actions, so no panics on their values.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use super::runtime::{Engine, Ev};
use super::task::{Mail, TaskStatus};

impl Engine {
    /// Starts the periodic debloating action on every task with inputs, if enabled.
    pub(crate) fn schedule_debloating(&mut self) {
        if !self.config.debloat_enabled || self.debloat_scheduled_epoch == Some(self.epoch) {
            return;
        }
        self.debloat_scheduled_epoch = Some(self.epoch);
        let at = self.now + self.config.debloat_period;
        for t in 0..self.tasks.len() {
            if !self.tasks[t].gates.is_empty() {
                self.schedule(at, Ev::Mail(t, Mail::Debloat));
            }
        }
    }

    pub(crate) fn debloat(&mut self, t: usize) {
        if !self.config.debloat_enabled {
            self.debloat_scheduled_epoch = None;
            return;
        }
        // The non-idle time up to now, the running activity included: the booked counters
        // alone lag by whatever the host's `run_until` slicing left open, which made
        // debloated runs depend on the slicing (the UI's 20 ms slices against the CLI's).
        let (busy, soft, hard, _) = self.tasks[t].activity_until(self.now);
        let active = busy + soft + hard;
        let last_active = std::mem::replace(&mut self.tasks[t].debloat_mark, active);
        let non_idle = active.saturating_sub(last_active).max(1);
        let alpha = 2.0 / (self.config.debloat_samples as f64 + 1.0);
        // `EngineConfig::validate` keeps min <= max for every config a run can have
        // (initial, events, live changes); the `min(max)` keeps `f64::clamp` from
        // panicking should a config ever slip past it.
        let max = self.config.segment_size.max(1);
        let min = self.config.min_segment_size.min(max);
        for g in self.tasks[t].gates.clone() {
            let bytes = std::mem::take(&mut self.gates[g].bytes_consumed);
            let throughput = bytes as f64 * 1e6 / non_idle as f64;
            let desired_total = throughput * self.config.debloat_target as f64 / 1e6;
            // `SingleInputGate.getBuffersInUseCount`: per channel the queued received
            // buffers plus the announced backlog (`RemoteInputChannel.getBuffersInUseCount`:
            // `getNumberOfQueuedBuffers() + max(0, numRequiredBuffers - initialCredit)`).
            let in_use: u32 = self.gates[g]
                .channels
                .iter()
                .map(|&c| {
                    let ch = &self.channels[c];
                    let queued = ch.received.iter().filter(|i| i.is_data()).count() as u32;
                    queued + ch.sender_backlog
                })
                .sum();
            let last = self.gates[g].debloat_size as f64;
            let desired = (desired_total / in_use.max(1) as f64).min(2.0 * last);
            let next = (last + alpha * (desired - last))
                .clamp(min as f64, max as f64)
                .round() as u32;
            self.gates[g].debloat_size = next;
            let Some(&first) = self.gates[g].channels.first() else {
                continue;
            };
            let announced = self.channels[first].buffer_size;
            let diff = (next as f64 - announced as f64).abs() / announced.max(1) as f64 * 100.0;
            let at_bound = (next == min || next == max) && next != announced;
            if diff >= self.config.debloat_threshold_percentages as f64 || at_bound {
                for c in self.gates[g].channels.clone() {
                    self.schedule(
                        self.now + self.config.network_latency,
                        Ev::BufferSize(c, next),
                    );
                }
            }
        }
        if self.tasks[t].status != TaskStatus::Finished {
            self.schedule(
                self.now + self.config.debloat_period,
                Ev::Mail(t, Mail::Debloat),
            );
        }
    }
}
