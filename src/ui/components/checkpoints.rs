//! The checkpoints panel, as Flink's web UI defines it: history, summary, per-subtask
//! detail and a per-subtask phase timeline.
//!
//! Contract: `data-testid="checkpoints"`. One `checkpoint-row` per checkpoint, newest
//! first — past 50 checkpoints the newest 50 and the selected one, said by
//! `checkpoint-history-limit` with its `checkpoint-history-all` button (`row_limit`) —
//! with `data-id`, `data-status` (`completed`, `in_progress`, `failed`, `expired`,
//! `aborted`), `data-unaligned="true|false"`, `data-persisted` (bytes) and
//! `data-checkpoint-type` (Flink's REST `checkpoint_type`: a savepoint row says
//! `SAVEPOINT` / `SYNC_SAVEPOINT` and its type pill `savepoint (aligned)`);
//! clicking a row selects it; a completed row's `resubmit-from-here` opens the Resubmit
//! dialog preset to that checkpoint or savepoint. `checkpoint-summary` gives min / avg / max and p50 / p90 / p99 over completed
//! checkpoints. `checkpoint-detail` lists the selected (or else the newest)
//! checkpoint's subtasks, and `checkpoint-timeline` draws for each subtask its phases
//! as bars: start delay (trigger → first barrier), alignment (first barrier → sync
//! start), sync, async (→ acknowledgement) — so the two phases of an unaligned
//! checkpoint can be compared across subtasks. Past 50 subtasks both draw 50 rows
//! (`row_limit`: the timeline the last to finish, the table the slowest end to end) and
//! say so (`checkpoint-timeline-limit`, `checkpoint-subtasks-limit`).

use crate::ui::shared::Shared;
use std::rc::Rc;

use yew::prelude::*;

use crate::engine::config::BarrierKind;
use crate::engine::report::{CheckpointReport, Report};
use crate::ui::command::Command;
use crate::ui::format;
use crate::ui::i18n;
use crate::ui::resubmit_form::Snapshot;

use super::panel::Panel;
use super::row_limit;

const COLUMNS: [(&str, &str); 13] = [
    ("ID", "Checkpoint id, increasing from 1"),
    ("Status", "in progress, completed, or failed / expired / aborted (with the reason)"),
    ("Type", "Aligned or unaligned (Flink marks a checkpoint unaligned when it persisted in-flight data); 'aligned → unaligned' switched after the aligned-checkpoint timeout; savepoints are always aligned"),
    ("Acknowledged", "Subtasks that acknowledged / subtasks that must"),
    ("Trigger time", "Virtual time at which the coordinator triggered the checkpoint"),
    ("End to end", "From the trigger to the last acknowledgement"),
    ("Checkpointed size", "State plus persisted in-flight data written by this checkpoint"),
    ("Processed in-flight", "Bytes processed during alignment (aligned checkpoints)"),
    ("Persisted in-flight", "Channel state: buffered input and output data written with the checkpoint (unaligned)"),
    ("Alignment", "Longest alignment over subtasks (first to last barrier)"),
    ("Start delay", "Longest time from the trigger until a subtask saw its first barrier"),
    ("Files", "Channel-state files written (several subtasks may share one file)"),
    ("Resubmit", "Resubmit the job, changed, from this completed checkpoint or savepoint (opens the Resubmit dialog on it)"),
];

#[derive(Properties, PartialEq)]
pub struct CheckpointsProps {
    pub report: Shared<Report>,
    pub selected: Option<u64>,
    pub on_command: Callback<Command>,
    /// The barrier kind of each checkpoint in progress.
    #[prop_or_default]
    pub pending_kinds: Rc<Vec<(u64, BarrierKind)>>,
}

pub use crate::ui::chart_export::type_label;

/// The type of a checkpoint as the table shows it: a finished one by what it did
/// ([`type_label`]); one in progress by the barriers it was triggered with, since
/// nothing has been persisted yet before its first acknowledgement.
fn kind_label(c: &CheckpointReport, kinds: &[(u64, BarrierKind)]) -> &'static str {
    let pending = kinds.iter().find(|(id, _)| *id == c.id).map(|(_, k)| *k);
    match pending {
        Some(_) if c.timed_out_to_unaligned || c.unaligned => type_label(c),
        Some(BarrierKind::Unaligned) => "unaligned",
        Some(BarrierKind::TimeoutableAligned) => "aligned (timeout → unaligned)",
        Some(BarrierKind::ForcedAligned) => "aligned (forced)",
        Some(BarrierKind::AtLeastOnce) => "at-least-once",
        _ => type_label(c),
    }
}

/// A savepoint's label in the type column (Flink's web UI shows `Savepoint` /
/// `Sync Savepoint` there; savepoints are always aligned).
fn savepoint_label(c: &CheckpointReport) -> Option<&'static str> {
    match c.checkpoint_type.as_str() {
        "SAVEPOINT" => Some("savepoint (aligned)"),
        "SYNC_SAVEPOINT" => Some("stop savepoint (aligned)"),
        _ => None,
    }
}

/// The CSS class of a checkpoint's type pill.
fn kind_class(c: &CheckpointReport, kinds: &[(u64, BarrierKind)]) -> &'static str {
    if c.is_savepoint {
        return "type-savepoint";
    }
    match kind_label(c, kinds) {
        "aligned → unaligned" => "type-switched",
        "unaligned" => "type-unaligned",
        _ => "type-aligned",
    }
}

fn status_label(c: &CheckpointReport) -> String {
    match (&*c.status, &c.failure_reason) {
        ("in_progress", _) => i18n::t("in progress").into(),
        (s, Some(r)) => format!("{}: {}", i18n::t_dyn(s), i18n::t_dyn(r)),
        (s, None) => i18n::t_dyn(s),
    }
}

fn summary(report: &Report) -> Html {
    let done: Vec<&CheckpointReport> = report
        .checkpoints
        .iter()
        .filter(|c| c.status == "completed")
        .collect();
    if done.is_empty() {
        return html! {};
    }
    // min / avg / max and Flink's p50 / p90 / p99 (`src/engine/diagnosis/summary.rs`).
    let stat = |vals: Vec<f64>| crate::engine::diagnosis::summary::stat(&vals).unwrap_or_default();
    let e2e = stat(done.iter().filter_map(|c| c.end_to_end_ms).collect());
    let size = stat(done.iter().map(|c| c.checkpointed_bytes as f64).collect());
    let processed = stat(
        done.iter()
            .map(|c| c.processed_inflight_bytes as f64)
            .collect(),
    );
    let persisted = stat(
        done.iter()
            .map(|c| c.persisted_inflight_bytes as f64)
            .collect(),
    );
    let align = stat(done.iter().map(|c| c.alignment_ms).collect());
    type S = crate::engine::diagnosis::summary::Stat;
    let t = |v: S| [v.min, v.avg, v.max, v.p50, v.p90, v.p99].map(format::ms);
    let b = |v: S| [v.min, v.avg, v.max, v.p50, v.p90, v.p99].map(|x| format::bytes(x as u64));
    let rows = [
        (i18n::t("End to end"), t(e2e)),
        (i18n::t("Checkpointed size"), b(size)),
        (i18n::t("Processed in-flight"), b(processed)),
        (i18n::t("Persisted in-flight"), b(persisted)),
        (i18n::t("Alignment"), t(align)),
    ];
    let failed = report
        .checkpoints
        .iter()
        .filter(|c| !matches!(&*c.status, "completed" | "in_progress"))
        .count();
    html! {
        <div class="summary" data-testid="checkpoint-summary">
            <div class="summary-counts">
                <span>{ i18n::tf("{0} completed", &[&done.len()]) }</span>
                <span>{ i18n::tf("{0} failed", &[&failed]) }</span>
                <span>{ i18n::tf("{0} unaligned", &[&done.iter().filter(|c| c.unaligned).count()]) }</span>
                if report.trigger_failures > 0 {
                    <span data-testid="trigger-failures" title={i18n::t("Periodic triggers that took no checkpoint id because a task was not RUNNING (INITIALIZING while it restores): Flink's DefaultCheckpointPlanCalculator fails the attempt with NOT_ALL_REQUIRED_TASKS_RUNNING before an id is taken, so it has no row in the history")}>
                        { i18n::tf("{0} not triggered (a task not running)", &[&report.trigger_failures]) }
                    </span>
                }
            </div>
            <table class="table summary-table">
                <thead><tr><th>{ i18n::t("over completed") }</th><th>{ i18n::t("min") }</th><th>{ i18n::t("avg") }</th><th>{ i18n::t("max") }</th>
                    <th title={i18n::t("Percentiles as Flink's StatsSummary computes them")}>{ "p50" }</th><th>{ "p90" }</th><th>{ "p99" }</th></tr></thead>
                <tbody>
                    { for rows.into_iter().map(|(name, v)| html! {
                        <tr><td>{ name }</td>{ for v.into_iter().map(|x| html! { <td>{ x }</td> }) }</tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn timeline(c: &CheckpointReport, now_ms: f64, all: &UseStateHandle<bool>) -> Html {
    if c.subtasks.is_empty() {
        return html! {};
    }
    // Past the row limit: the subtasks that finished last (an open one counts as now).
    let scores: Vec<f64> = c
        .subtasks
        .iter()
        .map(|s| s.ack_ms.unwrap_or(f64::INFINITY))
        .collect();
    let picked = row_limit::pick(&scores, **all);
    let rows = picked.len();
    let t0 = c.trigger_ms;
    let t_end = c
        .subtasks
        .iter()
        .filter_map(|s| s.ack_ms)
        .fold(t0, f64::max)
        .max(if c.status == "in_progress" {
            now_ms
        } else {
            t0
        })
        // At least 1 ms, so that a checkpoint that just started has a readable axis
        // (and not "+1us +1us +1us").
        .max(t0 + 1.0);
    let (label_w, width, row_h) = (92.0, 640.0, 13.0);
    let plot_w = width - label_w - 8.0;
    let x = |t: f64| label_w + (t - t0).max(0.0) / (t_end - t0) * plot_w;
    let height = rows as f64 * row_h + 22.0;
    let bars = picked.iter().map(|&k| &c.subtasks[k]).enumerate().map(|(i, s)| {
        let y = i as f64 * row_h + 2.0;
        let mut parts = Vec::new();
        let end = s.ack_ms.unwrap_or(now_ms.max(t0));
        if let Some(first) = s.first_barrier_ms {
            let sync_start = s
                .sync_start_ms
                .unwrap_or(first + s.alignment_ms)
                .max(first);
            let sync_end = (sync_start + s.sync_ms).min(end.max(sync_start));
            parts.push(("tl-delay", t0, first, i18n::tf("start delay {0}", &[&format::ms(first - t0)])));
            parts.push(("tl-align", first, sync_start, i18n::tf("alignment {0}", &[&format::ms(sync_start - first)])));
            if s.sync_start_ms.is_some() || s.acknowledged {
                parts.push(("tl-sync", sync_start, sync_end, i18n::tf("sync {0}", &[&format::ms(s.sync_ms)])));
                parts.push((
                    if s.acknowledged { "tl-async" } else { "tl-async tl-open" },
                    sync_end,
                    end,
                    format!("{}{}", i18n::tf("async {0}", &[&format::ms(end - sync_end)]), if s.persisted_inflight_bytes > 0 {
                        i18n::tf(", persisted {0} in-flight", &[&format::bytes(s.persisted_inflight_bytes)])
                    } else { String::new() }),
                ));
            }
        } else {
            parts.push(("tl-delay tl-open", t0, end, i18n::t("waiting for the first barrier").into()));
        }
        let name = format!("{}#{}", s.operator, s.subtask);
        html! {
            <g>
                <text class="ph-label" x={format!("{:.1}", label_w - 6.0)} y={format!("{:.1}", y + 9.0)} text-anchor="end">{ name.clone() }</text>
                { for parts.into_iter().filter(|p| p.2 > p.1).map(|(class, a, b, title)| html! {
                    <rect class={class} x={format!("{:.1}", x(a))} y={format!("{:.1}", y + 1.0)}
                        width={format!("{:.2}", (x(b) - x(a)).max(0.8))} height={format!("{:.1}", row_h - 3.0)}>
                        <title>{ format!("{name}: {title}") }</title>
                    </rect>
                }) }
                if s.acknowledged {
                    <circle class="tl-ack" cx={format!("{:.1}", x(end))} cy={format!("{:.1}", y + row_h / 2.0 - 0.5)} r="2" />
                }
            </g>
        }
    });
    let axis_y = rows as f64 * row_h + 6.0;
    let ticks = (0..=4).map(|k| {
        let t = t0 + (t_end - t0) * k as f64 / 4.0;
        html! {
            <text class="ph-tick" x={format!("{:.1}", x(t))} y={format!("{:.1}", axis_y + 12.0)}
                text-anchor={if k == 0 { "start" } else if k == 4 { "end" } else { "middle" }}>
                { format!("+{}", format::ms(t - t0)) }
            </text>
        }
    });
    html! {
        <div class="phase-timeline" data-testid="checkpoint-timeline">
            <div class="phase-timeline-legend">
                <span><i class="tl-delay"></i>{ i18n::t("start delay") }</span>
                <span><i class="tl-align"></i>{ i18n::t("alignment") }</span>
                <span><i class="tl-sync"></i>{ i18n::t("sync phase") }</span>
                <span><i class="tl-async"></i>{ i18n::t("async phase (state + in-flight data written)") }</span>
                <span><i class="tl-ack-i"></i>{ i18n::t("acknowledged") }</span>
            </div>
            <svg viewBox={format!("0 0 {width} {height:.1}")} width="100%" preserveAspectRatio="xMinYMin meet" class="phase-timeline-svg">
                <line class="ph-axis" x1={format!("{label_w}")} x2={format!("{:.1}", label_w + plot_w)} y1={format!("{axis_y:.1}")} y2={format!("{axis_y:.1}")} />
                { for bars }
                { for ticks }
            </svg>
            { row_limit::footer("checkpoint-timeline", row_limit::Rows::Subtasks, scores.len(), all, i18n::t("the last to finish")) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct DetailProps {
    c: CheckpointReport,
    kind: AttrValue,
    /// Virtual time for open bars (0 once the checkpoint is over: no re-render).
    now_ms: f64,
    explicit: bool,
    /// The per-subtask table (only for an explicitly selected checkpoint).
    table: bool,
}

/// The selected checkpoint; re-renders only when that checkpoint changes.
#[function_component(CheckpointDetail)]
fn checkpoint_detail(props: &DetailProps) -> Html {
    i18n::use_lang();
    let all_timeline = use_state(|| false);
    let all_table = use_state(|| false);
    let (c, now_ms) = (&props.c, props.now_ms);
    // The table's rows past the row limit: the slowest end to end (pending ones first).
    let scores: Vec<f64> = c
        .subtasks
        .iter()
        .map(|s| s.end_to_end_ms.unwrap_or(f64::INFINITY))
        .collect();
    let rows = row_limit::pick(&scores, *all_table);
    html! {
        <div class="checkpoint-detail" data-testid="checkpoint-detail" data-id={c.id.to_string()}>
            <h3 class="subsection-title">
                { i18n::tf("Checkpoint {0} — {1} · {2} · trigger {3}{4}", &[&c.id, &i18n::t_dyn(&props.kind), &status_label(c), &format::ms(c.trigger_ms),
                    &if props.explicit { "" } else { i18n::t(" (newest; click a row for its per-subtask table)") }]) }
            </h3>
            { timeline(c, now_ms, &all_timeline) }
            if props.table {
                { subtask_table(c, &rows) }
                { row_limit::footer("checkpoint-subtasks", row_limit::Rows::Subtasks, scores.len(), &all_table, i18n::t("the slowest end to end")) }
            }
        </div>
    }
}

/// The per-subtask table of an explicitly selected checkpoint: rows `rows` of it.
fn subtask_table(c: &CheckpointReport, rows: &[usize]) -> Html {
    html! {
        <div class="table-scroll">
            <table class="table compact">
                <thead><tr>
                    <th>{ i18n::t("Subtask") }</th><th>{ i18n::t("Ack") }</th><th>{ i18n::t("End to end") }</th><th>{ i18n::t("Start delay") }</th>
                    <th>{ i18n::t("Alignment") }</th><th>{ i18n::t("Sync") }</th><th>{ i18n::t("Async") }</th><th>{ i18n::t("State") }</th>
                    <th>{ i18n::t("Processed in-flight") }</th><th>{ i18n::t("Persisted in-flight") }</th><th>{ i18n::t("Unaligned") }</th>
                </tr></thead>
                <tbody>
                    { for rows.iter().map(|&i| &c.subtasks[i]).map(|s| html! {
                        <tr class={classes!((!s.acknowledged).then_some("pending"))}>
                            <td>{ format!("{}#{}", s.operator, s.subtask) }</td>
                            <td>{ if s.acknowledged { "✓" } else { "…" } }</td>
                            <td>{ format::opt_ms(s.end_to_end_ms) }</td>
                            <td>{ format::ms(s.start_delay_ms) }</td>
                            <td>{ format::ms(s.alignment_ms) }</td>
                            <td>{ format::ms(s.sync_ms) }</td>
                            <td>{ format::ms(s.async_ms) }</td>
                            <td>{ format::bytes(s.state_bytes) }</td>
                            <td>{ format::bytes(s.processed_inflight_bytes) }</td>
                            <td>{ format::bytes(s.persisted_inflight_bytes) }</td>
                            <td>{ if s.unaligned { i18n::t("yes") } else { i18n::t("no") } }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The checkpoint history panel.
#[function_component(CheckpointsPanel)]
pub fn checkpoints_panel(props: &CheckpointsProps) -> Html {
    i18n::use_lang();
    let report = &props.report;
    let count = report.checkpoints.len();
    let actions = html! {
        <span class="badge" data-testid="checkpoint-count">{ if count == 1 { i18n::tf("{0} checkpoint", &[&count]) } else { i18n::tf("{0} checkpoints", &[&count]) } }</span>
    };
    // Newest first. Past `ROW_LIMIT` checkpoints the newest are drawn, and the selected
    // one wherever it is; the report keeps them all (Flink's web UI remembers only the
    // last `web.checkpoints.history`, 10 by default).
    let all_rows = use_state(|| false);
    let scores: Vec<f64> = (report.checkpoints.iter().enumerate())
        .map(|(i, c)| {
            if props.selected == Some(c.id) {
                f64::INFINITY
            } else {
                i as f64
            }
        })
        .collect();
    let picked = row_limit::pick(&scores, *all_rows);
    let which = if props.selected.is_some() {
        i18n::t("the newest, and the selected one")
    } else {
        i18n::t("the newest")
    };
    let rows = picked.iter().rev().map(|&i| &report.checkpoints[i]).map(|c| {
        let id = c.id;
        let selected = props.selected == Some(id);
        let onclick = {
            let cb = props.on_command.clone();
            Callback::from(move |_: MouseEvent| {
                cb.emit(Command::SelectCheckpoint(if selected { None } else { Some(id) }))
            })
        };
        let resubmit = {
            let cb = props.on_command.clone();
            let from = Snapshot::of_row(id, c.is_savepoint);
            Callback::from(move |e: MouseEvent| {
                // The row's own click selects it; this one only opens the dialog.
                e.stop_propagation();
                cb.emit(Command::OpenResubmit(Some(from.clone())))
            })
        };
        let kind = savepoint_label(c).unwrap_or_else(|| kind_label(c, &props.pending_kinds));
        let kind_title = c.external_path.clone().unwrap_or_default();
        html! {
            <tr key={id} class={classes!("checkpoint-row", format!("status-{}", c.status), selected.then_some("selected"), c.is_savepoint.then_some("savepoint-row"))}
                data-testid="checkpoint-row" data-id={id.to_string()} data-status={c.status.clone()}
                data-unaligned={c.unaligned.to_string()} data-persisted={c.persisted_inflight_bytes.to_string()}
                data-checkpoint-type={c.checkpoint_type.clone()}
                {onclick}>
                <td class="num">{ id }</td>
                <td><span class={classes!("status-pill", format!("pill-{}", c.status))} title={c.failure_reason.clone().unwrap_or_default()}>{ status_label(c) }</span></td>
                <td><span class={classes!("type-pill", kind_class(c, &props.pending_kinds))} data-testid="checkpoint-type" title={kind_title}>{ i18n::t_dyn(kind) }</span></td>
                <td>{ format!("{}/{}", c.acknowledged, c.total_subtasks) }</td>
                <td>{ format::ms(c.trigger_ms) }</td>
                <td>{ format::opt_ms(c.end_to_end_ms) }</td>
                <td>{ format::bytes(c.checkpointed_bytes) }</td>
                <td>{ format::bytes(c.processed_inflight_bytes) }</td>
                <td class="persisted" data-testid="persisted-inflight">{ format::bytes(c.persisted_inflight_bytes) }</td>
                <td>{ format::ms(c.alignment_ms) }</td>
                <td>{ format::ms(c.start_delay_ms) }</td>
                <td>{ c.channel_state_files }</td>
                <td>
                    if c.status == "completed" {
                        <button type="button" class="row-action" data-testid="resubmit-from-here"
                            title={if c.is_savepoint { i18n::t("Resubmit the job, changed, from this savepoint") } else { i18n::t("Resubmit the job, changed, from this checkpoint") }}
                            onclick={resubmit}>{ i18n::t("Resubmit from here") }</button>
                    }
                </td>
            </tr>
        }
    });
    let shown = props
        .selected
        .and_then(|id| report.checkpoints.iter().find(|c| c.id == id))
        .map(|c| (c, true))
        .or_else(|| report.checkpoints.last().map(|c| (c, false)));
    let now_ms = report.virtual_time_ms as f64;
    html! {
        <Panel id="checkpoints" title={i18n::t("Checkpoints")} testid="checkpoints" class="area-checkpoints"
            description={i18n::t("History as in Flink's web UI (newest first); click a row for its subtasks and their phases.")}
            actions={actions}>
            { summary(report) }
            <div class="table-scroll history-scroll">
                <table class="table history">
                    <thead><tr>
                        { for COLUMNS.iter().map(|(name, hint)| html! { <th scope="col" title={i18n::t_dyn(hint)}>{ i18n::t_dyn(name) }</th> }) }
                    </tr></thead>
                    <tbody>
                        if count == 0 {
                            <tr class="table-empty"><td colspan={COLUMNS.len().to_string()}>{ i18n::t("No checkpoints yet.") }</td></tr>
                        }
                        // Keyed rows in a fragment of their own (see the timeline's marks).
                        <>{ for rows }</>
                    </tbody>
                </table>
            </div>
            { row_limit::footer("checkpoint-history", row_limit::Rows::Checkpoints, count, &all_rows, which) }
            if let Some((c, explicit)) = shown {
                <CheckpointDetail c={c.clone()} kind={AttrValue::from(kind_label(c, &props.pending_kinds))} explicit={explicit} table={explicit}
                    now_ms={if c.status == "in_progress" { now_ms } else { 0.0 }} />
            }
        </Panel>
    }
}
