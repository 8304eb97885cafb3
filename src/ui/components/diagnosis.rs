//! The diagnosis panel: "why is this checkpoint slow?" answered at a glance.
//!
//! Contract: `data-testid="diagnosis"`. Renders what the report's diagnosis holds
//! (`src/engine/diagnosis/`, computed by the engine, never here): a strip of recent
//! checkpoints (`diagnosis-strip`, one `diagnosis-bar` each with `data-id`, height = end to
//! end, colour = kind and status; click pins one, `diagnosis-follow` follows the newest
//! again), the picked checkpoint's critical path (`diagnosis-text`, with `data-phase` and
//! `data-ending`), its subtasks sortable by duration (`diagnosis-subtasks`, stragglers
//! marked `data-straggler="true"`), its operator rollup (`diagnosis-operators`), the
//! bottleneck (`diagnosis-bottleneck`) with Flink's metrics per subtask
//! (`diagnosis-metrics`), and for a pending checkpoint the barrier tree
//! (`diagnosis-tree`). The per-window split of backpressure into soft and hard
//! (`diagnosis-windows`: the report's `metrics_windows` for the 5 s window holding the
//! picked checkpoint's trigger, one row per subtask with `data-subtask`, `data-soft`,
//! `data-hard`). Remedies (`diagnosis-remedies`): one button per remedy
//! (`remedy-<name>`, [`Command::Remedy`]) for the picked checkpoint, and the running or
//! finished experiment below them ([`RemedyComparison`]). The only state is the pin and
//! the sort order, and which per-subtask tables show every row. Past 50 subtasks the
//! subtasks, windows and metrics tables draw 50 rows (`row_limit`: the slowest end to
//! end, the most backpressured, the least idle) and say so (`<table>-limit`).

use crate::ui::shared::Shared;
use std::rc::Rc;

use yew::prelude::*;

use crate::engine::report::{CheckpointReport, Report};
use crate::scenario::remedies::NAMES;
use crate::ui::command::Command;
use crate::ui::format;
use crate::ui::i18n::messages::text_of;
use crate::ui::i18n::{t, t_dyn, tf, use_lang};

use super::compare_view::{RemedyComparison, RemedyView};
use super::panel::Panel;
use super::row_limit::{footer, pick, Rows};

#[derive(Properties, PartialEq)]
pub struct DiagnosisProps {
    pub report: Shared<Report>,
    /// The remedy experiment running or shown.
    #[prop_or_default]
    pub remedy: Option<Rc<RemedyView>>,
    #[prop_or_default]
    pub on_command: Callback<Command>,
}

/// A remedy's name (one of `scenario::remedies::NAMES`) in the viewer's language.
pub(crate) fn remedy_label(name: &str) -> &'static str {
    match name {
        "unaligned" => t("Unaligned checkpoints"),
        "alignment_timeout" => t("Alignment timeout 200 ms"),
        "debloating" => t("Buffer debloating"),
        "fewer_buffers" => t("Fewer buffers"),
        "overdraft" => t("Overdraft buffers"),
        "parallelism" => t("Parallelism ×2 at the bottleneck"),
        _ => "",
    }
}

fn remedies_view(
    c: &CheckpointReport,
    remedy: Option<&Rc<RemedyView>>,
    on_command: &Callback<Command>,
    sinks: bool,
) -> Html {
    let running = remedy.is_some_and(|r| r.outcome.is_none());
    html! {
        <div class="diag-remedies" data-testid="diagnosis-remedies">
            <h3 class="diag-h">{ tf("Remedies, measured on checkpoint {0}", &[&c.id]) }</h3>
            <p class="muted">{ t("Each button re-runs this scenario from t = 0 with one change and compares this checkpoint's window. In Flink none of these changes a running job: they are job or TaskManager configuration, and a new parallelism is a rescale (a restart from a checkpoint or savepoint).") }</p>
            <div class="diag-remedy-buttons">
                { for NAMES.iter().map(|&name| {
                    let cb = on_command.clone();
                    let id = c.id;
                    let active = remedy.is_some_and(|r| r.name == name && r.checkpoint == Some(id));
                    html! {
                        <button class={classes!("btn", active.then_some("active"))} data-testid={format!("remedy-{name}")}
                            disabled={running} aria-pressed={active.to_string()}
                            onclick={Callback::from(move |_| cb.emit(Command::Remedy(Some((name.to_string(), id)))))}>
                            { remedy_label(name) }</button>
                    }
                }) }
            </div>
            if let Some(r) = remedy {
                <RemedyComparison view={r.clone()} on_command={on_command.clone()} sinks={sinks} />
            }
        </div>
    }
}

/// The soft / hard backpressure split per subtask in the 5 s window holding `at_ms`
/// (the newest window when none holds it).
fn windows_table(report: &Report, at_ms: f64, all: &UseStateHandle<bool>) -> Html {
    let w = report
        .metrics_windows
        .iter()
        .find(|w| (w.from_ms as f64) <= at_ms && at_ms < w.to_ms as f64)
        .or(report.metrics_windows.last());
    let Some(w) = w else {
        return html! {};
    };
    let scores: Vec<f64> = w
        .subtasks
        .iter()
        .map(|m| m.softBackPressuredTimeMsPerSecond + m.hardBackPressuredTimeMsPerSecond)
        .collect();
    let rows = pick(&scores, **all);
    html! {
        <>
        <h3 class="diag-h">{ tf("Backpressure, soft and hard, {0} – {1}", &[&format::ms(w.from_ms as f64), &format::ms(w.to_ms as f64)]) }</h3>
        <p class="muted">{ t("Soft (softBackPressuredTimeMsPerSecond): the task waits for output in its mailbox and still runs mails — a trigger, an unaligned barrier. Hard (hardBackPressuredTimeMsPerSecond): the task thread is blocked in a buffer request and runs nothing.") }</p>
        <div class="diag-scroll">
        <table class="table diag-windows" data-testid="diagnosis-windows" data-from={w.from_ms.to_string()} data-to={w.to_ms.to_string()}>
            <thead><tr><th>{ t("subtask") }</th><th>{ t("busy") }</th><th>{ t("soft") }</th><th>{ t("hard") }</th><th>{ t("idle") }</th></tr></thead>
            <tbody>
                { for rows.iter().map(|&i| &w.subtasks[i]).map(|m| html! {
                    <tr data-subtask={m.subtask.clone()} data-soft={m.softBackPressuredTimeMsPerSecond.to_string()}
                        data-hard={m.hardBackPressuredTimeMsPerSecond.to_string()}>
                        <td>{ m.subtask.clone() }</td>
                        <td>{ format!("{:.0}", m.busyTimeMsPerSecond) }</td>
                        <td>{ format!("{:.0}", m.softBackPressuredTimeMsPerSecond) }</td>
                        <td>{ format!("{:.0}", m.hardBackPressuredTimeMsPerSecond) }</td>
                        <td>{ format!("{:.0}", m.idleTimeMsPerSecond) }</td>
                    </tr>
                }) }
            </tbody>
        </table>
        </div>
        { footer("diagnosis-windows", Rows::Subtasks, scores.len(), all, t("the most backpressured")) }
        </>
    }
}

const STRIP: usize = 30;

fn bar_class(c: &CheckpointReport) -> &'static str {
    match (&*c.status, c.unaligned || c.timed_out_to_unaligned) {
        ("completed", true) => "diag-bar unaligned",
        ("completed", false) => "diag-bar aligned",
        ("in_progress", _) => "diag-bar pending",
        _ => "diag-bar failed",
    }
}

#[function_component(DiagnosisPanel)]
pub fn diagnosis_panel(props: &DiagnosisProps) -> Html {
    use_lang();
    let pinned = use_state(|| None::<u64>);
    let by_duration = use_state(|| true);
    let all_subtasks = use_state(|| false);
    let all_windows = use_state(|| false);
    let all_metrics = use_state(|| false);
    let report = &props.report;
    let recent: Vec<&CheckpointReport> = report
        .checkpoints
        .iter()
        .rev()
        .take(STRIP)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let picked = pinned
        .and_then(|id| report.checkpoints.iter().find(|c| c.id == id))
        .or_else(|| report.checkpoints.last());
    let now_ms = report.virtual_time_ms as f64;
    let dur_of = |c: &CheckpointReport| c.end_to_end_ms.unwrap_or((now_ms - c.trigger_ms).max(0.0));
    let longest = recent.iter().map(|c| dur_of(c)).fold(1.0, f64::max);
    let follow = {
        let pinned = pinned.clone();
        Callback::from(move |_| pinned.set(None))
    };
    let actions = html! {
        <button class="btn" data-testid="diagnosis-follow" disabled={pinned.is_none()} onclick={follow}
            title={t("Show the newest checkpoint as it comes")}>{ t("Follow newest") }</button>
    };
    let strip = html! {
        <div class="diag-strip" data-testid="diagnosis-strip" role="list" aria-label={t("Recent checkpoints: height is the end-to-end duration")}>
            // Keyed, in a fragment of its own: the strip slides as checkpoints come.
            <>{ for recent.iter().map(|c| {
                let id = c.id;
                let pinned = pinned.clone();
                let h = (dur_of(c) / longest * 100.0).max(4.0);
                let selected = picked.is_some_and(|p| p.id == id);
                let title = tf("checkpoint {0}: {1} · {2}", &[&id, &t_dyn(&c.status.replace('_', " ")), &format::ms(dur_of(c))]);
                html! {
                    <button key={id} role="listitem" class={classes!(bar_class(c), selected.then_some("selected"))}
                        data-testid="diagnosis-bar" data-id={id.to_string()} title={title}
                        style={format!("height:{h:.0}%")}
                        onclick={Callback::from(move |_| pinned.set(Some(id)))}></button>
                }
            }) }</>
        </div>
    };
    let body = match picked {
        None => html! { <p class="muted">{ t("No checkpoint yet.") }</p> },
        Some(c) => checkpoint_view(
            c,
            *by_duration,
            {
                let by_duration = by_duration.clone();
                Callback::from(move |_| by_duration.set(!*by_duration))
            },
            &all_subtasks,
        ),
    };
    let b = &report.bottleneck;
    let sinks = !report.sinks.is_empty();
    let remedies = picked
        .filter(|c| c.status != "in_progress")
        .map(|c| remedies_view(c, props.remedy.as_ref(), &props.on_command, sinks))
        .unwrap_or_default();
    let windows = windows_table(
        report,
        picked.map_or(now_ms, |c| c.trigger_ms),
        &all_windows,
    );
    html! {
        <Panel id="diagnosis" title={t("Why is this checkpoint slow?")} testid="diagnosis" class="area-diagnosis"
            description={t("The critical path of a checkpoint, the bottleneck as Flink's docs find it, and Flink's task metrics per subtask")}
            actions={actions}>
            { strip }
            { body }
            { remedies }
            { windows }
            <h3 class="diag-h">{ t("Bottleneck (last 5 s)") }</h3>
            <p data-testid="diagnosis-bottleneck" data-subtask={b.subtask.clone().unwrap_or_default()}>{ text_of(b.msg.as_ref(), &b.text) }</p>
            { metrics_table(report, &all_metrics) }
            if let Some(tree) = &report.pending_barriers {
                <h3 class="diag-h">{ tf("Checkpoint {0} in progress: where each barrier is", &[&tree.checkpoint]) }</h3>
                <ul class="diag-tree" data-testid="diagnosis-tree">
                    { for tree.nodes.iter().map(|n| html! {
                        <li style={format!("padding-left:{}em", n.depth as f64 * 1.2)} data-state={n.state.clone()}>
                            <b>{ t_dyn(&n.name) }</b>{ format!(" [{}] ", t_dyn(&n.state)) }<span class="muted">{ text_of(n.waits_for_msg.as_ref(), &n.waits_for) }</span>
                        </li>
                    }) }
                </ul>
            }
        </Panel>
    }
}

fn checkpoint_view(
    c: &CheckpointReport,
    by_duration: bool,
    on_sort: Callback<MouseEvent>,
    all: &UseStateHandle<bool>,
) -> Html {
    let Some(d) = &c.diagnosis else {
        return html! {};
    };
    let p = &d.phases;
    let mut subtasks: Vec<_> = c.subtasks.iter().collect();
    if by_duration {
        crate::compact_sort::sort_by(&mut subtasks, |a, b| {
            b.end_to_end_ms
                .unwrap_or(f64::INFINITY)
                .total_cmp(&a.end_to_end_ms.unwrap_or(f64::INFINITY))
        });
    }
    let longest = subtasks
        .iter()
        .filter_map(|s| s.end_to_end_ms)
        .fold(1.0, f64::max);
    // Past the row limit: the slowest end to end (a pending subtask counts as slowest).
    let scores: Vec<f64> = subtasks
        .iter()
        .map(|s| s.end_to_end_ms.unwrap_or(f64::INFINITY))
        .collect();
    let subtasks: Vec<_> = pick(&scores, **all)
        .into_iter()
        .map(|i| subtasks[i])
        .collect();
    html! {
        <div class="diag-checkpoint">
            <p class="diag-text" data-testid="diagnosis-text" data-phase={d.phase.clone()}
                data-ending={d.ending_subtask.clone().unwrap_or_default()}>{ text_of(d.msg.as_ref(), &d.text) }</p>
            <p class="muted">{ tf(
                "phases of {0}: start delay {1} · alignment {2} · sync {3} · async {4} · coordinator {5}",
                &[&d.ending_subtask.clone().unwrap_or_default(),
                &format::ms(p.start_delay_ms), &format::ms(p.alignment_ms), &format::ms(p.sync_ms),
                &format::ms(p.async_ms), &format::ms(p.coordinator_ms)]) }
                if let Some(th) = d.straggler_threshold_ms {
                    { tf(" · stragglers: end-to-end ≥ max(p95, 1.5 × median) = {0}", &[&format::ms(th)]) }
                }
            </p>
            <table class="table diag-subtasks" data-testid="diagnosis-subtasks">
                <thead><tr>
                    <th>{ t("subtask") }</th>
                    <th><button class="btn-link" data-testid="diagnosis-sort" onclick={on_sort}
                        title={t("Sort by end-to-end duration or keep the subtask order")}>
                        { if by_duration { tf("{0} ▼", &[&t("end to end")]) } else { t("end to end").to_string() } }</button></th>
                    <th>{ t("start delay") }</th><th>{ t("alignment") }</th><th>{ t("sync") }</th><th>{ t("async") }</th><th>{ "" }</th>
                </tr></thead>
                <tbody>
                    { for subtasks.iter().map(|s| {
                        let name = format!("{}#{}", s.operator, s.subtask);
                        let straggler = d.stragglers.contains(&name);
                        let w = s.end_to_end_ms.map_or(0.0, |e| e / longest * 100.0);
                        html! {
                            <tr data-straggler={straggler.to_string()} class={classes!(straggler.then_some("straggler"))}>
                                <td>{ name }{ if straggler { " ⚑" } else { "" } }</td>
                                <td>{ format::opt_ms(s.end_to_end_ms) }</td>
                                <td>{ format::ms(s.start_delay_ms) }</td>
                                <td>{ format::ms(s.alignment_ms) }</td>
                                <td>{ format::ms(s.sync_ms) }</td>
                                <td>{ format::ms(s.async_ms) }</td>
                                <td class="diag-barcell"><span class="diag-hbar" style={format!("width:{w:.0}%")}></span></td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            { footer("diagnosis-subtasks", Rows::Subtasks, scores.len(), all, t("the slowest end to end")) }
            <table class="table diag-operators" data-testid="diagnosis-operators">
                <thead><tr><th>{ t("operator") }</th><th>{ t("acknowledged") }</th><th>{ t("end to end") }</th>
                    <th>{ t("checkpointed") }</th><th>{ t("persisted in-flight") }</th><th>{ t("start delay") }</th><th>{ t("alignment") }</th><th>{ t("async") }</th></tr></thead>
                <tbody>
                    { for d.operators.iter().map(|o| html! {
                        <tr><td>{ o.operator.clone() }</td><td>{ format!("{}/{}", o.acknowledged, o.subtasks) }</td>
                            <td>{ format::opt_ms(o.end_to_end_ms) }</td><td>{ format::bytes(o.checkpointed_bytes) }</td>
                            <td>{ format::bytes(o.persisted_inflight_bytes) }</td><td>{ format::ms(o.start_delay_ms) }</td>
                            <td>{ format::ms(o.alignment_ms) }</td><td>{ format::ms(o.async_ms) }</td></tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn metrics_table(report: &Report, all: &UseStateHandle<bool>) -> Html {
    // Past the row limit: the subtasks least idle (busy or backpressured).
    let scores: Vec<f64> = report
        .metrics
        .iter()
        .map(|m| m.busyTimeMsPerSecond + m.backPressuredTimeMsPerSecond)
        .collect();
    let rows = pick(&scores, **all);
    html! {
        <>
        <div class="diag-scroll">
        <table class="table diag-metrics" data-testid="diagnosis-metrics">
            <thead><tr>
                <th>{ t("subtask") }</th>
                <th title="busyTimeMsPerSecond">{ t("busy") }</th>
                <th title="backPressuredTimeMsPerSecond (soft / hard)">{ t("backpressured (soft/hard)") }</th>
                <th title="idleTimeMsPerSecond">{ t("idle") }</th>
                <th title="outPoolUsage">{ "outPool" }</th>
                <th title="inPoolUsage">{ "inPool" }</th>
                <th title="inputExclusiveBuffersUsage / inputFloatingBuffersUsage">{ t("excl / float") }</th>
                <th title="debloatedBufferSize">{ t("buffer size") }</th>
                <th title="estimatedTimeToConsumeBuffersMs">{ t("time to consume") }</th>
                <th title="numRecordsInPerSecond / numRecordsOutPerSecond">{ t("records in/out /s") }</th>
                <th>{ t("reading (network tuning guide)") }</th>
            </tr></thead>
            <tbody>
                { for rows.iter().map(|&i| &report.metrics[i]).map(|m| html! {
                    <tr data-subtask={m.subtask.clone()}>
                        <td>{ m.subtask.clone() }</td>
                        <td>{ format!("{:.0}", m.busyTimeMsPerSecond) }</td>
                        <td>{ format!("{:.0} ({:.0}/{:.0})", m.backPressuredTimeMsPerSecond, m.softBackPressuredTimeMsPerSecond, m.hardBackPressuredTimeMsPerSecond) }</td>
                        <td>{ format!("{:.0}", m.idleTimeMsPerSecond) }</td>
                        <td>{ format!("{:.2}", m.outPoolUsage) }</td>
                        <td>{ format!("{:.2}", m.inPoolUsage) }</td>
                        <td>{ format!("{:.2} / {:.2}", m.inputExclusiveBuffersUsage, m.inputFloatingBuffersUsage) }</td>
                        <td>{ m.debloatedBufferSize.map(|b| format::bytes(b as u64)).unwrap_or_else(|| "–".into()) }</td>
                        <td>{ format::opt_ms(m.estimatedTimeToConsumeBuffersMs) }</td>
                        <td>{ format!("{:.0} / {:.0}", m.numRecordsInPerSecond, m.numRecordsOutPerSecond) }</td>
                        <td class="muted">{ text_of(m.pool_reading_msg.as_ref(), &m.pool_reading) }</td>
                    </tr>
                }) }
            </tbody>
        </table>
        </div>
        { footer("diagnosis-metrics", Rows::Subtasks, scores.len(), all, t("the busiest and most backpressured")) }
        </>
    }
}
