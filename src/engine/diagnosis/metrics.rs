//! Flink's task metrics per subtask, under Flink's names, computed as Flink's classes do
//! from the engine's network and task state.
//!
//! Contract: [`subtask_metrics`] reads the engine (never changes it) and gives one
//! [`SubtaskMetrics`] per subtask for a window of virtual time ending now:
//! - `busyTimeMsPerSecond`, `backPressuredTimeMsPerSecond` (with its soft / hard split of
//!   Flink 1.16+), `idleTimeMsPerSecond`: `TaskIOMetricGroup`'s `TimerGauge`s, which report
//!   the milliseconds per second measured over the last `View.UPDATE_INTERVAL_SECONDS` (5 s);
//!   here over the engine's 250 ms samples covering the last 5 s of virtual time, which
//!   keep the hard part apart, so soft and hard are the window's own.
//!   [`metrics_windows`] gives the same busy / soft / hard / idle split per 5 s window of
//!   the run (the report's `metrics_windows`).
//! - `outPoolUsage`: `OutputBufferPoolUsageGauge.getValue` (Flink 1.15–2.x): used buffers of
//!   every result partition's `LocalBufferPool` / their pool sizes (overdraft buffers count
//!   as used, so it can pass 1 as `bestEffortGetNumOfUsedBuffers` does).
//! - `inputExclusiveBuffersUsage`: `ExclusiveBuffersUsageGauge` — per remote input channel
//!   the exclusive buffers holding data (`unsynchronizedGetExclusiveBuffersUsed`) over the
//!   initial credit; `inputFloatingBuffersUsage`: `FloatingBuffersUsageGauge` — floating
//!   buffers requested and holding data over the gate pool's floating buffers;
//!   `inPoolUsage`: `CreditBasedInputBuffersUsageGauge` — both together over both totals.
//!   Data buffers are counted against a channel's exclusive buffers first (Flink's
//!   `BufferManager` hands out floating buffers only once the exclusive ones are in use).
//! - `debloatedBufferSize`: the gate's debloater size (`SingleInputGate.getDebloatedBufferSize`
//!   via `TaskIOMetricGroup`), the segment size when debloating is off;
//!   `estimatedTimeToConsumeBuffersMs`: `BufferDebloater`'s estimate, the bytes queued for
//!   the gate (`getBuffersInUseCount` × buffer size) over its measured throughput.
//! - `numRecordsInPerSecond` / `numRecordsOutPerSecond`: `MeterView`s over the same window
//!   in Flink; here over the attempt (the samples keep records per operator only).

use super::super::log::{text, Msg};
use super::super::runtime::Engine;
use super::super::time::Micros;
use serde::Serialize;

/// Flink's `View.UPDATE_INTERVAL_SECONDS`: the window of the per-second gauges.
pub const WINDOW: Micros = 5_000_000;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[allow(non_snake_case)]
pub struct SubtaskMetrics {
    /// `operator#index`, as the report names subtasks.
    pub subtask: String,
    pub busyTimeMsPerSecond: f64,
    pub backPressuredTimeMsPerSecond: f64,
    pub softBackPressuredTimeMsPerSecond: f64,
    pub hardBackPressuredTimeMsPerSecond: f64,
    pub idleTimeMsPerSecond: f64,
    pub outPoolUsage: f64,
    pub inPoolUsage: f64,
    pub inputExclusiveBuffersUsage: f64,
    pub inputFloatingBuffersUsage: f64,
    /// Bytes (the smallest over the subtask's gates); `None` without inputs.
    pub debloatedBufferSize: Option<u32>,
    pub estimatedTimeToConsumeBuffersMs: Option<f64>,
    pub numRecordsInPerSecond: f64,
    pub numRecordsOutPerSecond: f64,
    /// The network-tuning guide's reading of the two pool usages: exactly
    /// `pool_reading_msg`'s English.
    pub pool_reading: String,
    /// [`SubtaskMetrics::pool_reading`]'s structured form, for the interface; not in the
    /// report's JSON.
    #[serde(skip)]
    pub pool_reading_msg: Option<Msg>,
}

impl SubtaskMetrics {
    /// The pool reading's structured form (its English text as one value when a row
    /// was made without one).
    pub fn reading(&self) -> Msg {
        self.pool_reading_msg
            .clone()
            .unwrap_or_else(|| Msg::new("{0}", vec![text(&self.pool_reading)]))
    }
}

fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Busy, soft-backpressured, hard-backpressured and idle micros of task `t` within
/// [from, now] from the samples (and the live counters at `now`).
pub fn window_activity4(engine: &Engine, t: usize, from: Micros) -> (f64, f64, f64, f64) {
    activity_between(engine, t, from, None)
}

/// The same over [from, to] (`to = None`: now, with the live counters); both ends read
/// from the newest sample at or before them.
fn activity_between(
    engine: &Engine,
    t: usize,
    from: Micros,
    to: Option<Micros>,
) -> (f64, f64, f64, f64) {
    let at = |time: Micros| {
        let n = engine.samples.partition_point(|x| x.at <= time);
        n.checked_sub(1).and_then(|i| {
            let s = &engine.samples[i];
            let (b, bp, i) = *s.activity.get(t)?;
            let h = s.hard.get(t).copied().unwrap_or(0).min(bp);
            Some((b, bp - h, h, i))
        })
    };
    let base = at(from).unwrap_or((0, 0, 0, 0));
    let end = match to {
        None => engine.tasks[t].activity_until(engine.now),
        Some(to) => at(to).unwrap_or(base),
    };
    let d = |a: Micros, b: Micros| a.saturating_sub(b) as f64;
    (
        d(end.0, base.0),
        d(end.1, base.1),
        d(end.2, base.2),
        d(end.3, base.3),
    )
}

/// Task `t`'s shares within [from, to]: `from` reads the newest sample at or before it,
/// `to` the oldest sample at or after it, so the window covers [from, to] whole, to the
/// [`super::super::runtime::SAMPLE_PERIOD`]; while no sample is at or after `to` yet (a
/// window that reaches now) the live counters at now close it, as [`window_shares`] does.
/// Whether a window is closed: [`window_closed`].
pub fn window_shares_until(engine: &Engine, t: usize, from: Micros, to: Micros) -> Shares {
    let closing = engine.samples.partition_point(|x| x.at < to);
    let closed = engine.samples.get(closing).map(|s| s.at);
    shares_of(activity_between(engine, t, from, closed))
}

/// Whether a sample at or after `to` exists: [`window_shares_until`] then reads no live
/// counter, and reads the same on every later call.
pub fn window_closed(engine: &Engine, to: Micros) -> bool {
    engine.samples.last().is_some_and(|s| s.at >= to)
}

/// Busy, backpressured and idle micros of task `t` within [from, now] from the samples
/// (and the live counters at `now`).
pub fn window_activity(engine: &Engine, t: usize, from: Micros) -> (f64, f64, f64) {
    let (busy, soft, hard, idle) = window_activity4(engine, t, from);
    (busy, soft + hard, idle)
}

/// Shares of busy, backpressured (soft, hard) and idle time of task `t` in [from, now].
pub fn window_shares(engine: &Engine, t: usize, from: Micros) -> Shares {
    shares_of(window_activity4(engine, t, from))
}

/// Busy, soft, hard and idle micros as shares of their sum.
fn shares_of((busy, soft, hard, idle): (f64, f64, f64, f64)) -> Shares {
    let total = (busy + soft + hard + idle).max(1.0);
    Shares {
        busy: busy / total,
        backpressured: (soft + hard) / total,
        hard: hard / total,
        idle: idle / total,
    }
}

/// One subtask's activity in one metrics window, in ms per second as Flink's
/// `TaskIOMetricGroup` gauges report them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[allow(non_snake_case)]
pub struct WindowActivity {
    pub subtask: String,
    pub busyTimeMsPerSecond: f64,
    pub softBackPressuredTimeMsPerSecond: f64,
    pub hardBackPressuredTimeMsPerSecond: f64,
    pub idleTimeMsPerSecond: f64,
}

/// The activity of every subtask in one [`WINDOW`] of virtual time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MetricsWindow {
    pub from_ms: u64,
    pub to_ms: u64,
    pub subtasks: Vec<WindowActivity>,
}

/// How many windows the report keeps (the newest; one minute at 5 s each).
pub const WINDOWS_KEPT: usize = 12;

/// The run cut into [`WINDOW`]s from t = 0 (the last one ends now and may be shorter),
/// the newest [`WINDOWS_KEPT`] of them, oldest first: per subtask busy, soft and hard
/// backpressured, and idle ms per second. Soft is `softBackPressuredTimeMsPerSecond`:
/// the task waits for output availability in its mailbox (`StreamTask.processInput`
/// suspends the default action; mails — a checkpoint trigger, an unaligned barrier —
/// still run); hard is `hardBackPressuredTimeMsPerSecond`: the task thread is blocked in
/// a buffer request (`BufferWritingResultPartition.requestNewBufferBuilderFromPool`
/// times `hardBackPressuredTimeMsPerSecond` around `requestBufferBuilderBlocking`,
/// Flink 1.16–2.x), unresponsive to mails. `backPressuredTimeMsPerSecond` is their sum
/// (`TaskIOMetricGroup.getBackPressuredTimeMsPerSecond`).
pub fn metrics_windows(engine: &Engine) -> Vec<MetricsWindow> {
    let now = engine.now;
    let count = now.div_ceil(WINDOW) as usize;
    let first = count.saturating_sub(WINDOWS_KEPT);
    (first..count)
        .map(|k| {
            let from = k as Micros * WINDOW;
            let to = ((k + 1) as Micros * WINDOW).min(now);
            let live = to == now;
            let subtasks = (0..engine.tasks.len())
                .map(|t| {
                    let (b, s, h, i) = activity_between(engine, t, from, (!live).then_some(to));
                    let total = (b + s + h + i).max(1.0);
                    let per_s = |x: f64| round(x / total * 1e3);
                    WindowActivity {
                        subtask: engine.tasks[t].name.clone(),
                        busyTimeMsPerSecond: per_s(b),
                        softBackPressuredTimeMsPerSecond: per_s(s),
                        hardBackPressuredTimeMsPerSecond: per_s(h),
                        idleTimeMsPerSecond: per_s(i),
                    }
                })
                .collect();
            MetricsWindow {
                from_ms: from / 1000,
                to_ms: to / 1000,
                subtasks,
            }
        })
        .collect()
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shares {
    pub busy: f64,
    pub backpressured: f64,
    pub hard: f64,
    pub idle: f64,
}

/// The network-tuning guide's table for `inPoolUsage` × `outPoolUsage` (Flink docs,
/// "Monitoring back pressure" / "Network memory tuning", and the Flink Network Stack Vol. 2
/// post), with its floating / exclusive refinement.
pub fn pool_reading(
    in_pool: f64,
    out_pool: f64,
    exclusive: f64,
    floating: f64,
    has_inputs: bool,
) -> Msg {
    const HIGH: f64 = 0.9;
    let out_high = out_pool >= HIGH;
    let in_high = has_inputs && in_pool >= HIGH;
    let base = Msg::new(
        match (out_high, in_high) {
            (false, false) => "outPool low, inPool low: OK, no backpressure here",
            (true, false) => "outPool full, inPool low: backpressured by its downstream (the upstream not (yet) backpressured by this one)",
            (false, true) => "outPool low, inPool full: the input piles up while the output drains: if the upstream outPools are full too, this subtask is the source of backpressure",
            (true, true) => "outPool full and inPool full: backpressured by its downstream and backpressuring its upstream: the cause is further downstream",
        },
        vec![],
    );
    if !(has_inputs && floating >= HIGH) {
        return base;
    }
    let buffers = Msg::new(
        if exclusive >= HIGH {
            "floating and exclusive buffers full: all input channels are backpressured"
        } else {
            "floating buffers full, exclusive not: some channels are backpressured (data skew?)"
        },
        vec![],
    );
    Msg::new("{0}; {1}", vec![base.into(), buffers.into()])
}

pub fn subtask_metrics(engine: &Engine) -> Vec<SubtaskMetrics> {
    let from = engine.now.saturating_sub(WINDOW);
    let seg = engine.config.segment_size;
    engine
        .tasks
        .iter()
        .enumerate()
        .map(|(t, task)| {
            let sh = window_shares(engine, t, from);
            let (mut used, mut size) = (0u32, 0u32);
            for &p in &task.partitions {
                used += engine.partitions[p].used;
                size += engine.partitions[p].pool_size;
            }
            let out_pool = if size == 0 {
                0.0
            } else {
                used as f64 / size as f64
            };
            let (mut ex_used, mut ex_total, mut fl_used, mut fl_total) = (0u32, 0u32, 0u32, 0u32);
            let mut debloated: Option<u32> = None;
            let mut estimate: Option<f64> = None;
            for &g in &task.gates {
                let gate = &engine.gates[g];
                fl_total += gate.floating_total;
                let mut in_use = 0u32;
                for &c in &gate.channels {
                    let ch = &engine.channels[c];
                    let holding = ch.in_flight_data + ch.received_data;
                    let ex = holding.min(ch.exclusive);
                    ex_used += ex;
                    ex_total += ch.exclusive;
                    fl_used += (holding - ex).min(ch.floating);
                    in_use += ch.received.iter().filter(|i| i.is_data()).count() as u32
                        + ch.sender_backlog;
                }
                let size = if engine.config.debloat_enabled && gate.debloat_size > 0 {
                    gate.debloat_size
                } else {
                    seg
                };
                debloated = Some(debloated.map_or(size, |d| d.min(size)));
                // Throughput: bytes per second of non-idle time over the attempt.
                let (b, s, h, _) = task.activity_until(engine.now);
                let active = (b + s + h).max(1) as f64 / 1e6;
                let throughput = task.metrics.bytes_in as f64 / active;
                if throughput > 0.0 {
                    let ms = in_use as f64 * size as f64 / throughput * 1e3;
                    estimate = Some(estimate.map_or(ms, |e: f64| e.max(ms)));
                }
            }
            let ratio = |u: u32, t: u32| if t == 0 { 0.0 } else { u as f64 / t as f64 };
            let exclusive = ratio(ex_used, ex_total);
            let floating = ratio(fl_used, fl_total);
            let in_pool = ratio(ex_used + fl_used, ex_total + fl_total);
            let reading = pool_reading(
                in_pool,
                out_pool,
                exclusive,
                floating,
                !task.gates.is_empty(),
            );
            let (b, s, h, i) = task.activity_until(engine.now);
            let alive_s = ((b + s + h + i).max(1)) as f64 / 1e6;
            SubtaskMetrics {
                subtask: task.name.clone(),
                busyTimeMsPerSecond: round(sh.busy * 1e3),
                backPressuredTimeMsPerSecond: round(sh.backpressured * 1e3),
                softBackPressuredTimeMsPerSecond: round((sh.backpressured - sh.hard) * 1e3),
                hardBackPressuredTimeMsPerSecond: round(sh.hard * 1e3),
                idleTimeMsPerSecond: round(sh.idle * 1e3),
                outPoolUsage: round(out_pool),
                inPoolUsage: round(in_pool),
                inputExclusiveBuffersUsage: round(exclusive),
                inputFloatingBuffersUsage: round(floating),
                debloatedBufferSize: debloated,
                estimatedTimeToConsumeBuffersMs: estimate.map(round),
                numRecordsInPerSecond: round(task.metrics.records_in as f64 / alive_s),
                numRecordsOutPerSecond: round(task.metrics.records_out as f64 / alive_s),
                pool_reading: reading.english(),
                pool_reading_msg: Some(reading),
            }
        })
        .collect()
}
