//! What a scenario will cost to run, estimated when it is read, and the limits past which
//! it is refused.
//!
//! Contract: [`estimate`] looks only at the job (operators, edges, config, events, run
//! length) — O(operators + edges + events), no simulation — and gives a [`Cost`]:
//!
//! - **record-hops per virtual second**: records entering a non-source subtask per second
//!   of virtual time, summed over the job — the unit the engine's throughput is measured
//!   in (`cargo bench`, [`ENGINE_HOPS_PER_SEC`]). Rates flow along the edges in
//!   topological order: a source emits `rate × parallelism` (at most `1/cost` per
//!   subtask); every outgoing edge carries all of an operator's output, a `broadcast`
//!   edge once per consumer subtask; a `flat_map` multiplies by `fan_out`; an operator
//!   processes at most `parallelism / cost` records per second, and backpressure slows
//!   every source upstream of a saturated operator by the same factor (iterated to a
//!   fixed point). The highest rate and lowest cost any `set_rate` / `set_cost` event
//!   gives an operator are used, so the figure bounds the run from above.
//! - **engine work** per virtual second, in the same unit: the record-hops plus the
//!   barriers of every checkpoint crossing every channel, buffer-timeout flushes (at
//!   most one per channel per timeout, and no more than the records) and the samples'
//!   visits of every subtask and channel every [`SAMPLE_PERIOD`] — what makes a wide,
//!   slow job expensive although few records move.
//! - the **pace** the page can keep: `ENGINE_HOPS_PER_SEC / hops per virtual second`
//!   times real time; below 1 the page says so ([`Cost::pace_note`], "runs at ~0.2× real
//!   time") next to its speed control, and the headless runner on standard error.
//! - **channels** (result subpartition + input channel pairs, as `engine::graph` builds
//!   them) and an estimate of the **memory** the run needs at its end: records in flight
//!   in every buffer and in two-phase-commit sinks' open transactions, keyed state (with the copies the latest and pending checkpoints
//!   hold), the chart samples (one per [`SAMPLE_PERIOD`] per subtask), the checkpoint
//!   history (one entry per checkpoint per subtask) and a fixed allowance per task and
//!   channel. Sinks are not counted: they keep compact lineage runs (`engine::sinks`).
//!
//! [`check`] refuses a job past any of [`limits`], naming the limit, the estimate and the
//! operator (or setting) that contributes most; `scenario::to_spec` runs it on every
//! document, so the page, links, imports and the headless runner refuse the same jobs.

use super::error::ScenarioError;
use crate::engine::graph::targets;
use crate::engine::log::{text, Arg, Msg};
use crate::engine::runtime::SAMPLE_PERIOD;
use crate::engine::spec::{Action, JobSpec, OperatorKind, Partitioner};

/// Measured engine throughput: simulated record-hops per second of one core, release
/// build, the `large` preset (28 subtasks, 30 s, 357,587 record-hops) as `cargo bench`
/// runs it (`benches/engine.rs`): 0.35–0.38 s of CPU time over three runs on this
/// project's machine, ~1.0 M record-hops per CPU second (the wall-clock figure the
/// bench prints was 0.39–0.67 M with four other builds sharing the two cores; the
/// README's idle-machine figure is ~1 M). A wide job agrees: 8 operators × 32 subtasks
/// at 22.4 M record-hops per virtual second, 2 s, took 43 s of CPU. The page's wasm
/// build runs the same code somewhat slower; the note rounds to one significant digit.
pub const ENGINE_HOPS_PER_SEC: f64 = 1.0e6;

/// The limits past which a scenario is refused, each in the README's "Limits" section.
pub mod limits {
    /// Record-hops per virtual second: 50 M is ~0.02× real time, 50 s of wall time
    /// per virtual second — the page would show nothing moving for a minute.
    pub const MAX_HOPS_PER_SEC: f64 = 50.0e6;
    /// Record-hops of the whole run: 10⁹ is ~17 min of one core at
    /// [`super::ENGINE_HOPS_PER_SEC`].
    pub const MAX_RUN_HOPS: f64 = 1.0e9;
    /// Channels of the execution graph (every subtask pair of an all-to-all edge is one).
    pub const MAX_CHANNELS: u64 = 65_536;
    /// Estimated memory of the run at its end: 1 GiB.
    pub const MAX_MEMORY_BYTES: f64 = (1u64 << 30) as f64;
}

/// Bytes of one record in flight (the `Record` and its share of a lineage).
const RECORD_BYTES: f64 = 96.0;
/// Bytes of one keyed-state entry (key, value and B-tree overhead).
const STATE_ENTRY_BYTES: f64 = 48.0;
/// Bytes of one sample per subtask (activity) and per operator (counts).
const SAMPLE_TASK_BYTES: f64 = 24.0;
const SAMPLE_OPERATOR_BYTES: f64 = 8.0;
/// Bytes of one checkpoint's statistics, and per subtask that acknowledges it.
const CHECKPOINT_BYTES: f64 = 256.0;
const CHECKPOINT_SUBTASK_BYTES: f64 = 160.0;
/// Fixed allowance per task and per channel (queues, metrics, barrier handler).
const TASK_BYTES: f64 = 2048.0;
const CHANNEL_BYTES: f64 = 4096.0;

/// The estimated cost of running a job.
#[derive(Clone, Debug, PartialEq)]
pub struct Cost {
    /// Engine work per virtual second, in record-hops: the records plus the barriers
    /// crossing channels, buffer-timeout flushes and sample visits (an upper bound).
    pub hops_per_sec: f64,
    /// Records entering non-source subtasks per virtual second (an upper bound).
    pub record_hops_per_sec: f64,
    /// Record-hops of the whole run.
    pub run_hops: f64,
    /// Multiple of real time the engine keeps ([`ENGINE_HOPS_PER_SEC`] / hops per second).
    pub pace: f64,
    pub subtasks: u64,
    pub channels: u64,
    /// Estimated bytes at the end of the run, and its parts (`inflight_bytes`: records
    /// in buffers and in two-phase-commit sinks' open transactions).
    pub memory_bytes: f64,
    pub inflight_bytes: f64,
    pub state_bytes: f64,
    pub samples_bytes: f64,
    pub history_bytes: f64,
    /// The operator with the most record-hops per second (index, hops per second).
    pub busiest: Option<(usize, f64)>,
}

impl Cost {
    /// "runs at ~0.2× real time …" when the engine cannot keep real time, else `None`.
    pub fn pace_note(&self) -> Option<String> {
        (self.pace < 1.0).then(|| {
            format!(
                "runs at ~{}× real time (about {} record-hops of work per virtual second; the engine simulates ~{} a second)",
                one_digit(self.pace),
                count(self.hops_per_sec),
                count(ENGINE_HOPS_PER_SEC)
            )
        })
    }
}

/// `v` with one significant digit: 0.2, 0.03, 0.5.
fn one_digit(v: f64) -> String {
    if v <= 0.0 || !v.is_finite() {
        return "0".into();
    }
    let digits = (-v.log10().floor()).max(0.0) as usize;
    format!("{v:.digits$}")
}

/// A count for people: 1.2 M, 35 k, 900.
fn count(v: f64) -> String {
    if v >= 1e9 {
        format!("{:.1} G", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.1} M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0} k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

fn mib(v: f64) -> String {
    format!("{:.0} MiB", v / (1u64 << 20) as f64)
}

/// The estimated cost of `spec` (see the module doc). `spec` must be valid
/// (`JobSpec::validate`): known endpoints, no cycle.
pub fn estimate(spec: &JobSpec) -> Cost {
    let n = spec.operators.len();
    let order = spec.topological_order().unwrap_or_else(|| (0..n).collect());
    let index: std::collections::BTreeMap<&str, usize> = spec
        .operators
        .iter()
        .enumerate()
        .rev()
        .map(|(i, o)| (o.id.as_str(), i))
        .collect();
    // The highest rate and the lowest cost the timeline gives each operator.
    let mut rate: Vec<f64> = spec
        .operators
        .iter()
        .map(|o| match &o.kind {
            OperatorKind::Source(s) => s.rate,
            _ => 0.0,
        })
        .collect();
    let mut cost: Vec<u64> = spec.operators.iter().map(|o| o.cost).collect();
    for e in &spec.events {
        match &e.action {
            Action::SetRate { operator, rate: r } => {
                if let Some(&i) = index.get(operator.as_str()) {
                    rate[i] = rate[i].max(*r);
                }
            }
            Action::SetCost { operator, cost: c } => {
                if let Some(&i) = index.get(operator.as_str()) {
                    cost[i] = cost[i].min(*c);
                }
            }
            _ => {}
        }
    }
    let par = |i: usize| spec.operators[i].parallelism.max(1) as f64;
    let capacity = |i: usize| match cost[i] {
        0 => f64::INFINITY,
        c => par(i) * 1e6 / c as f64,
    };
    let mut outgoing: Vec<Vec<(usize, Partitioner)>> = vec![Vec::new(); n];
    for e in &spec.edges {
        if let (Some(&f), Some(&t)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) {
            outgoing[f].push((t, e.partitioner));
        }
    }
    // Sources scaled down by the backpressure of what they feed, to a fixed point.
    let mut scale = vec![1.0f64; n];
    let mut processed = vec![0.0f64; n];
    for _ in 0..8 {
        let mut input = vec![0.0f64; n];
        let mut ratio = vec![1.0f64; n];
        for &i in &order {
            let op = &spec.operators[i];
            let out = match &op.kind {
                OperatorKind::Source(_) => {
                    processed[i] = (rate[i] * par(i)).min(capacity(i)) * scale[i];
                    processed[i]
                }
                kind => {
                    processed[i] = input[i].min(capacity(i));
                    if input[i] > 0.0 {
                        ratio[i] = (processed[i] / input[i]).min(1.0);
                    }
                    match kind {
                        OperatorKind::FlatMap { fan_out } => processed[i] * *fan_out as f64,
                        OperatorKind::Sink { .. } => 0.0,
                        _ => processed[i],
                    }
                }
            };
            for &(t, p) in &outgoing[i] {
                let copies = if p == Partitioner::Broadcast {
                    par(t)
                } else {
                    1.0
                };
                input[t] += out * copies;
            }
        }
        // The smallest ratio downstream of each operator, in reverse topological order.
        let mut worst = ratio.clone();
        for &i in order.iter().rev() {
            for &(t, _) in &outgoing[i] {
                worst[i] = worst[i].min(worst[t]);
            }
        }
        let mut changed = false;
        for i in 0..n {
            if matches!(spec.operators[i].kind, OperatorKind::Source(_)) && worst[i] < 0.999 {
                scale[i] *= worst[i];
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let hops: Vec<f64> = (0..n)
        .map(|i| match spec.operators[i].kind {
            OperatorKind::Source(_) => 0.0,
            _ => processed[i],
        })
        .collect();
    let hops_per_sec: f64 = hops.iter().sum();
    let busiest = hops
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, h)| h > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let seconds = spec.duration as f64 / 1e6;

    // Channels, buffers and the records they can hold.
    let c = &spec.config;
    let mut channels = 0u64;
    let mut inflight_bytes = 0.0;
    for e in &spec.edges {
        let (Some(&f), Some(&t)) = (index.get(e.from.as_str()), index.get(e.to.as_str())) else {
            continue;
        };
        let (pf, pt) = (spec.operators[f].parallelism, spec.operators[t].parallelism);
        let edge_channels: u64 =
            if matches!(e.partitioner, Partitioner::Forward | Partitioner::Rescale) {
                (0..pf)
                    .map(|a| targets(e.partitioner, a, pf, pt).len() as u64)
                    .sum()
            } else {
                pf as u64 * pt as u64
            };
        channels += edge_channels;
        let record_size = source_record_size(spec).max(1) as f64;
        let per_buffer = (c.segment_size as f64 / record_size).ceil().max(1.0);
        // Sender and receiver side of each channel, the floating buffers of the gate
        // and its overdraft shared over its channels.
        let gate_extra =
            (c.floating_buffers_per_gate + c.max_overdraft_buffers_per_gate) as f64 * pt as f64;
        let buffers = edge_channels as f64 * 2.0 * c.buffers_per_channel as f64 + gate_extra;
        inflight_bytes += buffers * per_buffer * RECORD_BYTES;
    }
    // Keyed state: every key once over the subtasks of each keyed operator, plus the
    // copies the latest and the pending checkpoints keep.
    let keys: f64 = spec
        .operators
        .iter()
        .map(|o| match &o.kind {
            OperatorKind::Source(s) => s.keys as f64,
            _ => 0.0,
        })
        .sum();
    let keyed = spec
        .operators
        .iter()
        .filter(|o| matches!(o.kind, OperatorKind::KeyedAggregate))
        .count() as f64;
    let state_bytes = keyed * keys * STATE_ENTRY_BYTES * (2.0 + c.max_concurrent as f64);
    // Two-phase-commit sinks hold what they received since the last checkpoint in open
    // and pending transactions (the whole run when nothing checkpoints).
    let held_for = match c.checkpoint_interval {
        Some(i) => (i.max(c.min_pause) as f64 / 1e6) * (1.0 + c.max_concurrent as f64),
        None => seconds,
    }
    .min(seconds);
    let txn_bytes: f64 = (0..n)
        .filter(|&i| {
            matches!(
                spec.operators[i].kind,
                OperatorKind::Sink {
                    delivery: crate::engine::spec::SinkDelivery::TwoPhaseCommit
                }
            )
        })
        .map(|i| processed[i] * held_for * RECORD_BYTES)
        .sum();
    let inflight_bytes = inflight_bytes + txn_bytes;
    let subtasks: u64 = spec.operators.iter().map(|o| o.parallelism as u64).sum();
    let samples = seconds / (SAMPLE_PERIOD as f64 / 1e6);
    let samples_bytes =
        samples * (subtasks as f64 * SAMPLE_TASK_BYTES + n as f64 * SAMPLE_OPERATOR_BYTES);
    let triggers = spec
        .events
        .iter()
        .filter(|e| matches!(e.action, Action::TriggerCheckpoint))
        .count() as f64;
    let checkpoints = match c.checkpoint_interval {
        Some(i) => seconds / (i.max(c.min_pause).max(1) as f64 / 1e6),
        None => 0.0,
    } + triggers;
    let history_bytes =
        checkpoints * (CHECKPOINT_BYTES + subtasks as f64 * CHECKPOINT_SUBTASK_BYTES);
    // Work beside the records, in the same unit: every checkpoint's barriers cross every
    // channel, a buffer timeout flushes each channel with data (at most once per
    // record), and every sample visits every subtask and channel.
    let per_sec = |x: f64| if seconds > 0.0 { x / seconds } else { 0.0 };
    let barrier_hops = per_sec(checkpoints) * channels as f64;
    let flushes = match c.buffer_timeout {
        0 => 0.0,
        t => (channels as f64 * 1e6 / t as f64).min(hops_per_sec),
    };
    let sample_visits = (subtasks + channels) as f64 * 1e6 / SAMPLE_PERIOD as f64;
    let work_per_sec = hops_per_sec + barrier_hops + flushes + sample_visits;
    let memory_bytes = inflight_bytes
        + state_bytes
        + samples_bytes
        + history_bytes
        + subtasks as f64 * TASK_BYTES
        + channels as f64 * CHANNEL_BYTES;
    Cost {
        hops_per_sec: work_per_sec,
        record_hops_per_sec: hops_per_sec,
        run_hops: work_per_sec * seconds,
        pace: if work_per_sec > 0.0 {
            ENGINE_HOPS_PER_SEC / work_per_sec
        } else {
            f64::INFINITY
        },
        subtasks,
        channels,
        memory_bytes,
        inflight_bytes,
        state_bytes,
        samples_bytes,
        history_bytes,
        busiest,
    }
}

/// The smallest record size of the job's sources (records keep their size downstream;
/// the smallest packs the most records into a buffer).
fn source_record_size(spec: &JobSpec) -> u32 {
    spec.operators
        .iter()
        .filter_map(|o| match &o.kind {
            OperatorKind::Source(s) => Some(s.record_size),
            _ => None,
        })
        .min()
        .unwrap_or(1)
}

/// The cost of `spec`, or an error naming the limit it is past (path `cost`).
pub fn check(spec: &JobSpec) -> Result<Cost, ScenarioError> {
    let cost = estimate(spec);
    let busiest = || match cost.busiest {
        Some((i, h)) => Msg::new(
            "; {0} '{1}' alone takes ~{2}/s",
            vec![
                text(format!("operators[{i}]")),
                text(&spec.operators[i].id),
                text(count(h)),
            ],
        )
        .into(),
        None => text(""),
    };
    let refuse = |m: Msg| Err(ScenarioError::of("cost", m));
    if cost.channels > limits::MAX_CHANNELS {
        return refuse(Msg::new(
            "the job has {0} channels, past the limit of {1} (lower the parallelism of all-to-all edges)",
            vec![text(cost.channels), text(limits::MAX_CHANNELS)],
        ));
    }
    if cost.hops_per_sec > limits::MAX_HOPS_PER_SEC {
        return refuse(Msg::new(
            "~{0} record-hops per virtual second, past the limit of {1} (~{2}× real time){3} — lower rates, parallelism or fan-out",
            vec![
                text(count(cost.hops_per_sec)),
                text(count(limits::MAX_HOPS_PER_SEC)),
                text(one_digit(ENGINE_HOPS_PER_SEC / limits::MAX_HOPS_PER_SEC)),
                busiest(),
            ],
        ));
    }
    if cost.run_hops > limits::MAX_RUN_HOPS {
        return refuse(Msg::new(
            "~{0} record-hops over the whole run, past the limit of {1} (~{2} min of simulation){3} — shorten the duration or lower rates",
            vec![
                text(count(cost.run_hops)),
                text(count(limits::MAX_RUN_HOPS)),
                text((limits::MAX_RUN_HOPS / ENGINE_HOPS_PER_SEC / 60.0).round()),
                busiest(),
            ],
        ));
    }
    if cost.memory_bytes > limits::MAX_MEMORY_BYTES {
        let parts = [
            (
                "records in buffers and open sink transactions",
                cost.inflight_bytes,
            ),
            ("keyed state", cost.state_bytes),
            (
                "chart samples (one per 250 ms per subtask)",
                cost.samples_bytes,
            ),
            (
                "checkpoint history (one entry per checkpoint per subtask)",
                cost.history_bytes,
            ),
        ];
        let (what, bytes) = parts
            .iter()
            .copied()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or(("", 0.0));
        return refuse(Msg::new(
            "the run needs ~{0} of memory, past the limit of {1}; most of it is {2} (~{3})",
            vec![
                text(mib(cost.memory_bytes)),
                text(mib(limits::MAX_MEMORY_BYTES)),
                Arg::Word(what),
                text(mib(bytes)),
            ],
        ));
    }
    Ok(cost)
}

/// The pace note of a job ("runs at ~0.2× real time …"), for hosts that only have the
/// engine's spec; `None` when it keeps real time.
pub fn pace_note(spec: &JobSpec) -> Option<String> {
    estimate(spec).pace_note()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `n` operators of parallelism `p`, all-to-all, sources at `rate`.
    fn chain(n: usize, p: u32, rate: u32, duration: &str) -> JobSpec {
        let mut ops = vec![format!(
            r#"{{"id": "o0", "kind": "source", "parallelism": {p}, "rate": {rate}}}"#
        )];
        for i in 1..n {
            let kind = if i == n - 1 { "sink" } else { "map" };
            ops.push(format!(
                r#"{{"id": "o{i}", "kind": "{kind}", "parallelism": {p}}}"#
            ));
        }
        let edges: Vec<String> = (1..n)
            .map(|i| {
                format!(
                    r#"{{"from": "o{}", "to": "o{i}", "partitioner": "rebalance"}}"#,
                    i - 1
                )
            })
            .collect();
        let doc = crate::scenario::parse_json(&format!(
            r#"{{"version": 1, "duration": "{duration}", "config": {{"execution.checkpointing.interval": "1s"}},
                "operators": [{}], "edges": [{}]}}"#,
            ops.join(","),
            edges.join(",")
        ))
        .unwrap();
        let spec = crate::scenario::convert::unvalidated_spec(&doc).unwrap();
        spec.validate().unwrap();
        spec
    }

    #[test]
    fn limits_are_named_when_refused() {
        // 64 x 32 for 30 min: buffers, samples and checkpoint history pass 1 GiB.
        let e = check(&chain(64, 32, 1, "30min")).unwrap_err();
        assert_eq!(e.path, "cost");
        assert!(
            e.message.contains("of memory, past the limit of 1024 MiB"),
            "{e}"
        );
        // A slow operator bounds what flows: 32 x 1000/s into maps of 100us cost.
        let c = check(&chain(3, 32, 1000, "10s")).unwrap();
        assert!(c.record_hops_per_sec <= 2.0 * 32_000.0 + 1.0, "{c:?}");
        assert!(c.pace_note().is_none(), "{c:?}");
        let e = check(&chain(3, 32, 1000, "24h")).unwrap_err();
        assert!(e.message.contains("over the whole run"), "{e}");
    }

    #[test]
    fn digits_and_counts() {
        assert_eq!(one_digit(0.2), "0.2");
        assert_eq!(one_digit(0.034), "0.03");
        assert_eq!(one_digit(0.5), "0.5");
        assert_eq!(count(1.25e6), "1.2 M");
        assert_eq!(count(35_000.0), "35 k");
    }
}
