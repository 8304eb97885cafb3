//! The critical path of one checkpoint: whose acknowledgement ended it, which phase of that
//! subtask dominated, and why, in the engine's terms.
//!
//! Contract: [`diagnose`] reads one checkpoint's coordinator statistics, its report row, the
//! barrier trace and the activity samples of the checkpoint's window [trigger, end] and
//! gives a [`CheckpointDiagnosis`]. The window is rounded out to the samples around it
//! (`metrics::window_shares_until`); until Dec 7 it ran from the trigger to *now*, so an
//! old checkpoint's receiver was judged by the rest of the run, not by its own window.
//! Once the checkpoint is [`settled`] its diagnosis no longer changes. The rule, stated:
//! 1. The *ending* subtask is the one acknowledged last (Flink's end-to-end duration is the
//!    latest acknowledgement minus the trigger, `AbstractCheckpointStats.getEndToEndDuration`);
//!    for a checkpoint that never completed, the unacknowledged subtask furthest behind
//!    (no barrier yet, then still aligning, then still writing).
//! 2. Its end-to-end time splits into start delay, alignment, sync and async (Flink's
//!    `SubtaskStateStats` figures) and the remainder ("coordinator": trigger and
//!    acknowledgement RPCs, finalisation); the largest part dominates.
//! 3. A start delay or alignment is explained by the deciding barrier — the first one
//!    processed (start delay) or the last one (alignment) — split into: leaving its sender
//!    late (then the same question is asked of the sender, up the path), queueing behind
//!    data in the channel (buffers ahead of it when sent, the credit then; why the receiver
//!    drained slowly: its backpressure and who caused it, how busy), or waiting in the
//!    receiver's input because its task thread did not take it (hard backpressure). A
//!    source's start delay is the trigger RPC plus the wait for its mailbox (a legacy
//!    source's checkpoint lock). Async is the write to checkpoint storage.
//!
//! Checkpoints older than the trace keeps (see [`super::trace::KEPT_CHECKPOINTS`]) get
//! rules 1–2 and a cause from the figures only.

use super::super::coordinator::{CheckpointStats, CheckpointStatus};
use super::super::log::{bytes, list_of, text, Arg, Msg};
use super::super::report::CheckpointReport;
use super::super::runtime::Engine;
use super::super::time::Micros;
use super::metrics::{window_shares_until, Shares};
use super::summary::{operator_rollup, stragglers, OperatorRollup};
use super::{dur, ms, pct};
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Phases {
    pub start_delay_ms: f64,
    pub alignment_ms: f64,
    pub sync_ms: f64,
    pub async_ms: f64,
    pub coordinator_ms: f64,
}

/// Why the dominating phase took its time.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Cause {
    /// `queued_behind_data`, `input_not_taken`, `trigger_waited`, `storage`, `sync`,
    /// `coordinator`, `not_traced`.
    pub kind: String,
    /// `from → to` of the deciding barrier's channel.
    pub channel: Option<String>,
    pub queued_buffers: Option<u32>,
    pub credit: Option<u32>,
    pub waited_ms: Option<f64>,
    /// The subtask that drained the channel (or did not take the barrier / trigger).
    pub subtask: Option<String>,
    pub busy: Option<f64>,
    pub backpressured: Option<f64>,
    pub hard_backpressured: Option<f64>,
    /// Its downstream that backpressured it, and how busy that one was.
    pub backpressured_by: Option<String>,
    pub backpressured_by_busy: Option<f64>,
    pub bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CheckpointDiagnosis {
    pub id: u64,
    pub status: String,
    pub ending_subtask: Option<String>,
    /// `start_delay`, `alignment`, `sync`, `async` or `coordinator`.
    pub phase: String,
    pub phase_ms: f64,
    pub phases: Phases,
    /// Subtasks the delay came through, from where it began to the ending subtask.
    pub path: Vec<String>,
    pub cause: Cause,
    /// The critical path in words: exactly `msg`'s English.
    pub text: String,
    /// [`CheckpointDiagnosis::text`]'s structured form (the interface shows it in the
    /// viewer's language); not part of the report's JSON.
    #[serde(skip)]
    pub msg: Option<Msg>,
    pub stragglers: Vec<String>,
    pub straggler_threshold_ms: Option<f64>,
    pub operators: Vec<OperatorRollup>,
}

fn name(engine: &Engine, t: usize) -> String {
    engine
        .tasks
        .get(t)
        .map_or_else(|| format!("task {t}"), |x| x.name.clone())
}

/// The subtask downstream of `t` that was busiest in the window (who backpressured it).
fn busiest_downstream(
    engine: &Engine,
    t: usize,
    from: Micros,
    to: Micros,
) -> Option<(usize, Shares)> {
    let mut best: Option<(usize, Shares)> = None;
    let mut seen = std::collections::BTreeSet::new();
    let outputs = engine.tasks[t]
        .partitions
        .iter()
        .flat_map(|&p| engine.partitions[p].channels.iter());
    for ch in outputs.map(|&c| &engine.channels[c]) {
        if !seen.insert(ch.to_task) || ch.to_task >= engine.tasks.len() {
            continue;
        }
        let sh = window_shares_until(engine, ch.to_task, from, to);
        if best.is_none_or(|(_, b)| sh.busy > b.busy) {
            best = Some((ch.to_task, sh));
        }
    }
    best
}

/// Fills the receiver part of a cause: how `t` fared in the window [from, to] (to the
/// checkpoint's end) and who slowed it.
fn explain_receiver(
    engine: &Engine,
    t: usize,
    (from, to): (Micros, Micros),
    cause: &mut Cause,
) -> Msg {
    let sh = window_shares_until(engine, t, from, to);
    cause.subtask = Some(name(engine, t));
    cause.busy = Some(sh.busy);
    cause.backpressured = Some(sh.backpressured);
    cause.hard_backpressured = Some(sh.hard);
    if sh.backpressured > 0.10 {
        let how = if sh.hard >= sh.backpressured / 2.0 {
            "hard-backpressured"
        } else {
            "backpressured"
        };
        let was = vec![
            text(name(engine, t)),
            Arg::Word(how),
            text(pct(sh.backpressured)),
        ];
        // Follow the backpressure down to the first busy, not backpressured subtask.
        let mut cur = t;
        for _ in 0..16 {
            let Some((d, dsh)) = busiest_downstream(engine, cur, from, to) else {
                break;
            };
            if dsh.backpressured > 0.10 && busiest_downstream(engine, d, from, to).is_some() {
                cur = d;
                continue;
            }
            cause.backpressured_by = Some(name(engine, d));
            cause.backpressured_by_busy = Some(dsh.busy);
            let mut by = was;
            by.extend([text(name(engine, d)), text(pct(dsh.busy))]);
            return Msg::new("{0} was {1} ({2}) by {3} (busy {4})", by);
        }
        Msg::new("{0} was {1} ({2})", was)
    } else {
        Msg::new(
            "{0} was busy {1}",
            vec![text(name(engine, t)), text(pct(sh.busy))],
        )
    }
}

/// Phase of an acknowledged or in-progress subtask, and whether its barrier arrived.
fn phases_of(engine: &Engine, s: &CheckpointStats, t: usize, end: Micros) -> Phases {
    if let Some(st) = s.subtasks.get(&t).filter(|x| x.ack_at.is_some()) {
        let e2e = st.ack_at.unwrap_or(0).saturating_sub(s.trigger_at);
        let parts = st.start_delay + st.alignment + st.sync + st.async_duration;
        return Phases {
            start_delay_ms: ms(st.start_delay),
            alignment_ms: ms(st.alignment),
            sync_ms: ms(st.sync),
            async_ms: ms(st.async_duration),
            coordinator_ms: ms(e2e.saturating_sub(parts)),
        };
    }
    // Not acknowledged: where it is now (or was when the checkpoint ended).
    let cp = engine.tasks.get(t).and_then(|x| x.checkpoints.get(&s.id));
    match cp {
        None => Phases {
            start_delay_ms: ms(end.saturating_sub(s.trigger_at)),
            ..Default::default()
        },
        Some(cp) => {
            let sync_start = cp.sync_start.unwrap_or(end).min(end);
            let sync_end = cp.sync_end.unwrap_or(sync_start).min(end);
            Phases {
                start_delay_ms: ms(cp.start_delay),
                alignment_ms: ms(sync_start.saturating_sub(cp.first_barrier_at)),
                sync_ms: ms(sync_end.saturating_sub(sync_start)),
                async_ms: ms(end.saturating_sub(sync_end).min(end - sync_start.min(end))),
                coordinator_ms: 0.0,
            }
        }
    }
}

fn dominant(p: &Phases) -> (&'static str, f64) {
    let mut best = ("start_delay", p.start_delay_ms);
    for (n, v) in [
        ("alignment", p.alignment_ms),
        ("sync", p.sync_ms),
        ("async", p.async_ms),
        ("coordinator", p.coordinator_ms),
    ] {
        if v > best.1 {
            best = (n, v);
        }
    }
    best
}

/// A checkpoint status in words (`in_progress` → `in progress`), an engine word.
fn status_words(s: CheckpointStatus) -> &'static str {
    match s {
        CheckpointStatus::InProgress => "in progress",
        CheckpointStatus::Completed => "completed",
        CheckpointStatus::Failed => "failed",
        CheckpointStatus::Expired => "expired",
        CheckpointStatus::Aborted => "aborted",
    }
}

fn phase_words(p: &str) -> &'static str {
    match p {
        "start_delay" => "start delay",
        "alignment" => "alignment",
        "sync" => "sync phase",
        "async" => "async phase",
        _ => "waiting for the coordinator",
    }
}

/// The subtask the checkpoint waited for last (see the module's rule 1).
fn ending_task(engine: &Engine, s: &CheckpointStats) -> Option<usize> {
    let acked_all = s
        .expected
        .iter()
        .all(|t| s.subtasks.get(t).is_some_and(|x| x.ack_at.is_some()));
    if acked_all {
        return s
            .expected
            .iter()
            .filter_map(|&t| s.subtasks.get(&t).and_then(|x| x.ack_at).map(|a| (a, t)))
            .max_by_key(|&(a, t)| (a, std::cmp::Reverse(t)))
            .map(|(_, t)| t);
    }
    // Furthest behind: no barrier yet (rank 0), aligning (1), writing (2); then the one
    // whose upstream barriers are all sent (the front of the barrier wave), lowest index.
    let rank = |t: usize| -> (u8, bool, usize) {
        let cp = engine.tasks.get(t).and_then(|x| x.checkpoints.get(&s.id));
        let r = match cp {
            None => 0,
            Some(c) if c.sync_start.is_none() => 1,
            Some(_) => 2,
        };
        let reached = engine.barrier_trace.into_task(s.id, t).next().is_some();
        (r, !reached, t)
    };
    s.expected
        .iter()
        .copied()
        .filter(|t| s.subtasks.get(t).is_none_or(|x| x.ack_at.is_none()))
        .min_by_key(|&t| rank(t))
}

/// Whether checkpoint `s`'s diagnosis can no longer change but through `s` itself, the
/// config values it quotes ([`quoted_config`]) and the deployment: the checkpoint ended at
/// a time that is not now (it has a completion or an acknowledgement), a sample closes its
/// activity window ([`super::metrics::window_closed`]), the barrier trace no longer holds
/// its hops and no task holds a record of it. Until then [`diagnose`] reads the trace,
/// the tasks' records and the live counters, which move; after it, the report reuses the
/// diagnosis ([`super::super::report_rows`]).
pub fn settled(engine: &Engine, s: &CheckpointStats) -> bool {
    s.status != CheckpointStatus::InProgress
        && s.completed_at.or_else(|| s.latest_ack()).is_some()
        && super::metrics::window_closed(engine, diagnosed_end(engine, s))
        && !engine.barrier_trace.hops.contains_key(&s.id)
        && engine
            .tasks
            .iter()
            .all(|t| !t.checkpoints.contains_key(&s.id))
}

/// The config values a diagnosis quotes: the RPC latency, the storage throughput and the
/// cost per file.
pub fn quoted_config(engine: &Engine) -> (Micros, u64, Micros) {
    (
        engine.config.rpc_latency,
        engine.config.storage_throughput,
        engine.config.storage_file_cost,
    )
}

/// Where the diagnosis of `s` ends: its completion, else (ended) its last acknowledgement,
/// else now.
fn diagnosed_end(engine: &Engine, s: &CheckpointStats) -> Micros {
    if s.status == CheckpointStatus::InProgress {
        return engine.now;
    }
    s.completed_at
        .or_else(|| s.latest_ack())
        .unwrap_or(engine.now)
        .max(s.trigger_at)
}

pub fn diagnose(
    engine: &Engine,
    s: &CheckpointStats,
    rep: &CheckpointReport,
) -> CheckpointDiagnosis {
    let end = diagnosed_end(engine, s);
    let (stragglers, threshold) = stragglers(rep);
    let mut d = CheckpointDiagnosis {
        id: s.id,
        status: s.status.name().to_string(),
        stragglers,
        straggler_threshold_ms: threshold,
        operators: operator_rollup(rep),
        ..Default::default()
    };
    let Some(t) = ending_task(engine, s) else {
        d.phase = "coordinator".into();
        let msg = Msg::new("checkpoint {0}: no subtask to wait for", vec![text(s.id)]);
        d.text = msg.english();
        d.msg = Some(msg);
        return d;
    };
    let acked = s.subtasks.get(&t).is_some_and(|x| x.ack_at.is_some());
    d.ending_subtask = Some(name(engine, t));
    d.phases = phases_of(engine, s, t, end);
    let (phase, phase_ms) = dominant(&d.phases);
    d.phase = phase.into();
    d.phase_ms = phase_ms;
    let total = if acked {
        ms(s.subtasks[&t]
            .ack_at
            .unwrap_or(0)
            .saturating_sub(s.trigger_at))
    } else {
        ms(end.saturating_sub(s.trigger_at))
    };
    let head = if acked {
        Msg::new(
            "checkpoint {0}: {1}'s acknowledgement ended it {2} after the trigger; {3} dominated ({4} of {5})",
            vec![
                text(s.id),
                text(name(engine, t)),
                text(dur(total)),
                Arg::Word(phase_words(phase)),
                text(dur(phase_ms)),
                text(dur(total)),
            ],
        )
    } else {
        Msg::new(
            "checkpoint {0} ({1}): waiting for {2} {3} after the trigger, in its {4} ({5})",
            vec![
                text(s.id),
                Arg::Word(status_words(s.status)),
                text(name(engine, t)),
                text(dur(total)),
                Arg::Word(phase_words(phase)),
                text(dur(phase_ms)),
            ],
        )
    };
    let why = match phase {
        "start_delay" | "alignment" => {
            barrier_cause(engine, s, t, phase == "alignment", end, &mut d)
        }
        "async" => {
            let st = s.subtasks.get(&t).cloned().unwrap_or_default();
            let written = st.state_bytes + st.persisted_bytes;
            d.cause = Cause {
                kind: "storage".into(),
                subtask: Some(name(engine, t)),
                bytes: Some(written),
                ..Default::default()
            };
            Msg::new(
                "{0} wrote {1} of state and {2} of in-flight data to checkpoint storage (playground.storage.throughput {3}/s per writer, {4} per file)",
                vec![
                    text(name(engine, t)),
                    text(bytes(st.state_bytes)),
                    text(bytes(st.persisted_bytes)),
                    text(bytes(engine.config.storage_throughput)),
                    text(super::super::log::dur(engine.config.storage_file_cost)),
                ],
            )
        }
        "sync" => {
            d.cause = Cause {
                kind: "sync".into(),
                subtask: Some(name(engine, t)),
                ..Default::default()
            };
            Msg::new(
                "{0}'s synchronous snapshot kept its task thread",
                vec![text(name(engine, t))],
            )
        }
        _ => {
            d.cause = Cause {
                kind: "coordinator".into(),
                ..Default::default()
            };
            Msg::new(
                "the trigger and acknowledgement RPCs (playground.rpc.latency {0}) and the coordinator's finalisation",
                vec![text(super::super::log::dur(engine.config.rpc_latency))],
            )
        }
    };
    let msg = if d.stragglers.is_empty() {
        Msg::new("{0}: {1}", vec![head.into(), why.into()])
    } else {
        Msg::new(
            "{0}: {1}. Stragglers (end-to-end ≥ {2}): {3}",
            vec![
                head.into(),
                why.into(),
                text(dur(threshold.unwrap_or(0.0))),
                list_of(&d.stragglers, ", "),
            ],
        )
    };
    d.text = msg.english();
    d.msg = Some(msg);
    d
}

/// Rule 3 of the module: why the deciding barrier reached `t` when it did.
fn barrier_cause(
    engine: &Engine,
    s: &CheckpointStats,
    mut t: usize,
    mut last: bool,
    end: Micros,
    d: &mut CheckpointDiagnosis,
) -> Msg {
    let from = s.trigger_at;
    let mut path = vec![name(engine, t)];
    // The clauses "the barrier left X … after the trigger; " up the path.
    let mut prefix: Vec<Arg> = Vec::new();
    let chain = |prefix: Vec<Arg>, last: Msg| {
        if prefix.is_empty() {
            last
        } else {
            Msg::new("{0}{1}", vec![Arg::List(prefix, ""), last.into()])
        }
    };
    for _ in 0..32 {
        let hops: Vec<_> = engine.barrier_trace.into_task(s.id, t).collect();
        let task = engine.tasks.get(t);
        let is_source = task.is_some_and(|x| x.is_source);
        if hops.is_empty() {
            path.reverse();
            d.path = path;
            if is_source || task.is_some_and(|x| x.inputs.is_empty()) {
                return chain(prefix, trigger_cause(engine, s, t, end, d));
            }
            if engine.barrier_trace.hops.contains_key(&s.id)
                || engine
                    .barrier_trace
                    .hops
                    .keys()
                    .next()
                    .is_some_and(|&k| k < s.id)
            {
                // The trace has this checkpoint: no upstream sent a barrier to `t` yet.
                d.cause = Cause {
                    kind: "upstream_not_sent".into(),
                    subtask: Some(name(engine, t)),
                    ..Default::default()
                };
                return chain(
                    prefix,
                    Msg::new(
                        "no barrier was sent to {0} yet: its upstream have not taken their snapshots",
                        vec![text(name(engine, t))],
                    ),
                );
            }
            d.cause = Cause {
                kind: "not_traced".into(),
                subtask: Some(name(engine, t)),
                ..Default::default()
            };
            return chain(
                prefix,
                Msg::new(
                    "(the barrier trace keeps only the newest checkpoints)",
                    vec![],
                ),
            );
        }
        // The deciding hop: first processed (start delay) or last (alignment; a barrier not
        // processed yet counts as latest).
        let key = |h: &super::trace::Hop| h.processed_at.unwrap_or(Micros::MAX);
        let (c, hop) = if last {
            *hops
                .iter()
                .max_by_key(|(c, h)| (key(h), std::cmp::Reverse(*c)))
                .expect("non-empty")
        } else {
            *hops
                .iter()
                .min_by_key(|(c, h)| (key(h), *c))
                .expect("non-empty")
        };
        let upstream_late = hop.sent_at.saturating_sub(from);
        let arrived = hop.arrived_at.unwrap_or(end).min(end.max(hop.sent_at));
        let queued = arrived.saturating_sub(hop.sent_at);
        let processed = hop.processed_at.unwrap_or(end).max(arrived);
        let waited = processed.saturating_sub(arrived);
        let channel = format!(
            "{} → {}",
            name(engine, hop.from_task),
            name(engine, hop.to_task)
        );
        let _ = c;
        if upstream_late >= queued && upstream_late >= waited && hop.from_task != t {
            // The sender itself was late: ask the same of it.
            prefix.push(
                Msg::new(
                    "the barrier left {0} {1} after the trigger; ",
                    vec![
                        text(name(engine, hop.from_task)),
                        text(dur(ms(upstream_late))),
                    ],
                )
                .into(),
            );
            t = hop.from_task;
            path.push(name(engine, t));
            // The sender's own lateness: its alignment or its start delay, whichever is longer.
            let p = phases_of(engine, s, t, end);
            last = p.alignment_ms > p.start_delay_ms;
            continue;
        }
        path.reverse();
        d.path = path;
        let barrier = Arg::Word(if hop.priority {
            "unaligned barrier"
        } else {
            "barrier"
        });
        if queued >= waited {
            d.cause = Cause {
                kind: "queued_behind_data".into(),
                channel: Some(channel.clone()),
                queued_buffers: Some(hop.queued_ahead),
                credit: Some(hop.credit),
                waited_ms: Some(ms(queued)),
                ..Default::default()
            };
            let receiver = explain_receiver(engine, hop.to_task, (from, end), &mut d.cause);
            let mut args = vec![
                barrier,
                text(name(engine, hop.to_task)),
                text(dur(ms(processed.saturating_sub(from)))),
                text(dur(ms(queued))),
                text(hop.queued_ahead),
                text(channel),
            ];
            let code = if hop.credit == 0 {
                "the {0} reached {1} {2} after the trigger: it queued {3} behind {4} buffers on {5}, which had no credit because {6}"
            } else {
                args.push(text(hop.credit));
                "the {0} reached {1} {2} after the trigger: it queued {3} behind {4} buffers on {5}, with credit {6} while {7}"
            };
            args.push(receiver.into());
            return chain(prefix, Msg::new(code, args));
        }
        d.cause = Cause {
            kind: "input_not_taken".into(),
            channel: Some(channel.clone()),
            queued_buffers: Some(hop.queued_at_receiver),
            credit: Some(hop.credit),
            waited_ms: Some(ms(waited)),
            ..Default::default()
        };
        let receiver = explain_receiver(engine, hop.to_task, (from, end), &mut d.cause);
        let blocked = d.cause.hard_backpressured.unwrap_or(0.0) > 0.10;
        let why = if blocked && hop.priority {
            Msg::new("its task thread was blocked on an output buffer request (hard backpressure: no mail runs, not even an unaligned barrier)", vec![])
        } else if blocked {
            Msg::new(
                "it arrived behind {0} buffers and the task thread, blocked on output buffer requests (hard backpressure), took them slowly",
                vec![text(hop.queued_at_receiver)],
            )
        } else {
            Msg::new(
                "it arrived behind {0} buffers, processed before it",
                vec![text(hop.queued_at_receiver)],
            )
        };
        return chain(
            prefix,
            Msg::new(
                "the {0} on {1} waited {2} in {3}'s input: {4}; {5}",
                vec![
                    barrier,
                    text(channel),
                    text(dur(ms(waited))),
                    text(name(engine, hop.to_task)),
                    why.into(),
                    receiver.into(),
                ],
            ),
        );
    }
    Msg::new("the barrier path is too long to follow", vec![])
}

/// A source (or a task whose inputs ended): the trigger RPC, then the wait for its mailbox.
fn trigger_cause(
    engine: &Engine,
    s: &CheckpointStats,
    t: usize,
    end: Micros,
    d: &mut CheckpointDiagnosis,
) -> Msg {
    let task = &engine.tasks[t];
    let started = s
        .subtasks
        .get(&t)
        .and_then(|x| x.started_at)
        .or_else(|| task.checkpoints.get(&s.id).map(|c| c.first_barrier_at))
        .unwrap_or(end);
    let delay = started.saturating_sub(s.trigger_at);
    let rpc = engine.config.rpc_latency.min(delay);
    let waited = delay - rpc;
    d.cause = Cause {
        kind: "trigger_waited".into(),
        waited_ms: Some(ms(waited)),
        ..Default::default()
    };
    let receiver = explain_receiver(engine, t, (s.trigger_at, end), &mut d.cause);
    let held = if task.legacy_source {
        Msg::new(
            "the trigger waited {0} for the checkpoint lock, held by the legacy source thread blocked mid-record on a buffer request (SourceStreamTask: no availability check, no overdraft)",
            vec![text(dur(ms(waited)))],
        )
    } else if d.cause.hard_backpressured.unwrap_or(0.0) > 0.10 {
        Msg::new(
            "the trigger waited {0} in the mailbox while the task thread was blocked on an output buffer request",
            vec![text(dur(ms(waited)))],
        )
    } else {
        Msg::new(
            "the trigger RPC took {0} and waited {1} for the mailbox",
            vec![text(dur(ms(rpc))), text(dur(ms(waited)))],
        )
    };
    Msg::new("{0}; {1}", vec![held.into(), receiver.into()])
}
