//! The comparison view: one scenario run twice in lockstep (aligned vs unaligned, or
//! with an aligned-checkpoint timeout), the two live jobs side by side and their
//! checkpoint figures on shared charts — the classic AC-vs-UC figure, live.
//!
//! Contract: [`CompareToggle`] is the entry (`data-testid="compare-bar"`): a select of
//! comparisons (`compare-mode`, values `A|B` as `scenario::compare` writes them) and a
//! button (`compare-toggle`, `aria-pressed`) that enters the chosen comparison or leaves
//! it; changing the select while comparing switches the comparison. It emits
//! [`Command::Compare`] only. [`CompareView`] (`data-testid="compare"`) shows run A and
//! run B (`compare-run-a`, `compare-run-b`, each labelled with its mode, with a compact
//! [`JobGraphPanel`]), four charts over the same virtual-time axis where both runs share
//! the y axis and each has its mode's colour (aligned orange, unaligned purple, timeout
//! red, as elsewhere in the playground) with a legend: `compare-chart-duration`
//! (end-to-end duration per checkpoint), `compare-chart-alignment`,
//! `compare-chart-persisted` (persisted in-flight bytes), `compare-chart-replay`
//! (records replayed per failure, labelled with the restored checkpoint and its age);
//! each series is a `<g data-series="a|b">`. `compare-summary` is a table of
//! medians and totals ([`Figures`]). Pure function of the snapshots it is given.
//!
//! [`RemedyComparison`] (`data-testid="remedy-result"`, `data-remedy`, `data-state`
//! `running|done|failed`) shows one remedy experiment of the diagnosis panel
//! (`scenario::remedies::RemedyRun`, computed there): while it runs a progress bar
//! (`remedy-progress`, `data-progress` in [0, 1]) and a cancel button (`remedy-cancel`,
//! [`Command::Remedy`]`(None)`); then the effect on the picked checkpoint — its text
//! (`remedy-effect`, the CLI's `remedies` line word for word) and a table
//! (`remedy-effect-table`, one row per figure with `data-figure`, `data-before`,
//! `data-after`) — how Flink applies the remedy (`remedy-flink`), and the whole-run
//! figures as in the comparison's summary (`remedy-summary`).

use crate::ui::shared::Shared;
use std::rc::Rc;

use yew::prelude::*;

use crate::engine::log::Msg;
use crate::engine::report::{CheckpointReport, Report};
use crate::engine::time::Micros;
use crate::scenario::compare::{Comparison, Figures, Mode};
use crate::scenario::remedies::{how_in_flink, Outcome};
use crate::ui::command::Command;
use crate::ui::format;
use crate::ui::i18n::{current, messages, t, t_dyn, t_in, tf, use_lang};
use crate::ui::layout::Layout;
use crate::ui::sim::LiveView;

use super::job_graph::JobGraphPanel;
use super::panel::Panel;
use crate::ui::chart_export::{nice, sx, sy, B, H, L, R, T, W};

/// One run as the view shows it.
#[derive(Clone, PartialEq)]
pub struct RunView {
    pub mode: Mode,
    pub layout: Rc<Layout>,
    pub live: Rc<LiveView>,
    pub report: Shared<Report>,
}

#[derive(Properties, PartialEq)]
pub struct CompareViewProps {
    pub comparison: Comparison,
    pub a: RunView,
    pub b: RunView,
    pub duration: Micros,
    pub selected: Option<usize>,
    pub on_select: Callback<Option<usize>>,
}

/// A mode's label for people in the viewer's language (`Mode::label`'s words).
fn mode_label(m: &Mode) -> String {
    match m {
        Mode::Aligned => t("aligned (AC)").into(),
        Mode::Unaligned => t("unaligned (UC)").into(),
        Mode::Timeout(d) => tf(
            "aligned → UC after {0}",
            &[&crate::engine::time::format_duration(*d)],
        ),
    }
}

/// A comparison's label in the viewer's language (`Comparison::label`'s words).
fn comparison_label(c: &Comparison) -> String {
    tf("{0} vs {1}", &[&mode_label(&c.a), &mode_label(&c.b)])
}

/// The CSS class (and colour) of a mode.
fn mode_class(m: &Mode) -> &'static str {
    match m {
        Mode::Aligned => "mode-aligned",
        Mode::Unaligned => "mode-unaligned",
        Mode::Timeout(_) => "mode-timeout",
    }
}

fn legend(a: &Mode, b: &Mode) -> Html {
    html! {
        <span class="chart-legend">
            <span><i class={mode_class(a)}></i>{ format!("A · {}", a.short()) }</span>
            <span><i class={mode_class(b)}></i>{ format!("B · {}", b.short()) }</span>
        </span>
    }
}

/// One run's per-checkpoint series: a line through completed checkpoints (x = trigger
/// time), a dot per checkpoint, and a cross on the axis for failed ones.
fn checkpoint_series(
    side: &str,
    mode: &Mode,
    report: &Report,
    value: fn(&CheckpointReport) -> f64,
    show: fn(&CheckpointReport) -> String,
    max: f64,
    dur: f64,
) -> Html {
    let done: Vec<&CheckpointReport> = report
        .checkpoints
        .iter()
        .filter(|c| c.status == "completed")
        .collect();
    let points: String = done
        .iter()
        .map(|c| {
            format!(
                "{:.1},{:.1} ",
                sx(c.trigger_ms * 1e3, dur),
                sy(value(c), max)
            )
        })
        .collect();
    let dots = done.iter().map(|c| {
        html! {
            <circle class="dot" cx={format!("{:.1}", sx(c.trigger_ms * 1e3, dur))}
                cy={format!("{:.1}", sy(value(c), max))} r="2.2">
                <title>{ tf("{0}: checkpoint {1} — {2}", &[&side, &c.id, &show(c)]) }</title>
            </circle>
        }
    });
    let failed = report
        .checkpoints
        .iter()
        .filter(|c| c.status != "completed" && c.status != "in_progress")
        .map(|c| {
            html! {
                <text class="fail-mark" x={format!("{:.1}", sx(c.trigger_ms * 1e3, dur))}
                    y={format!("{:.1}", H - B - 2.0)} text-anchor="middle">{ "×" }
                    <title>{ tf("{0}: checkpoint {1} {2} ({3})", &[&side, &c.id, &t_dyn(&c.status),
                        &c.failure_reason.clone().unwrap_or_default()]) }</title>
                </text>
            }
        });
    html! {
        <g class={classes!("series-group", mode_class(mode))} data-series={side.to_ascii_lowercase()}>
            <polyline class="series" points={points} />
            { for dots }
            { for failed }
        </g>
    }
}

fn checkpoint_chart(
    props: &CompareViewProps,
    title: &str,
    testid: &str,
    value: fn(&CheckpointReport) -> f64,
    show: fn(&CheckpointReport) -> String,
    label: fn(f64) -> String,
    unit: fn(f64) -> f64,
) -> Html {
    let dur = props.duration as f64;
    let raw = [&props.a.report, &props.b.report]
        .iter()
        .flat_map(|r| r.checkpoints.iter())
        .filter(|c| c.status == "completed")
        .map(value)
        .fold(0.0, f64::max);
    // A round axis in the unit the label shows (KB are 1024 bytes).
    let unit = unit(raw);
    let max = nice(raw / unit) * unit;
    let body = html! {
        <>
            { checkpoint_series("A", &props.a.mode, &props.a.report, value, show, max, dur) }
            { checkpoint_series("B", &props.b.mode, &props.b.report, value, show, max, dur) }
        </>
    };
    frame(
        title,
        testid,
        label(max),
        dur / 1e6,
        body,
        legend(&props.a.mode, &props.b.mode),
    )
}

/// A byte count short enough for the y axis: `500 KB`, `2 MB`.
fn axis_bytes(v: f64) -> String {
    match v {
        v if v >= 1024.0 * 1024.0 => format!("{:.0} MB", v / (1024.0 * 1024.0)),
        v if v >= 1024.0 => format!("{:.0} KB", v / 1024.0),
        v => format!("{v:.0} B"),
    }
}

/// The unit [`axis_bytes`] labels `max` bytes in.
fn byte_unit(max: f64) -> f64 {
    if max >= 1024.0 * 1024.0 {
        1024.0 * 1024.0
    } else {
        1024.0
    }
}

fn e2e(c: &CheckpointReport) -> f64 {
    c.end_to_end_ms.unwrap_or(0.0)
}
fn alignment(c: &CheckpointReport) -> f64 {
    c.alignment_ms
}
fn persisted(c: &CheckpointReport) -> f64 {
    c.persisted_inflight_bytes as f64
}

/// Records replayed per failure, run A's bar left of the failure time, B's right;
/// each labelled with the checkpoint it restored and how old that checkpoint was.
fn replay_chart(props: &CompareViewProps) -> Html {
    let dur = props.duration as f64;
    let runs = [("A", &props.a), ("B", &props.b)];
    let max = nice(
        runs.iter()
            .flat_map(|(_, r)| r.report.failures.iter())
            .map(|f| f.replayed_records as f64)
            .fold(0.0, f64::max)
            // Headroom for the two rows of notes at the top.
            * 1.25,
    );
    let bar_w = 9.0;
    let series = runs.iter().enumerate().map(|(i, (side, run))| {
        let bars = run.report.failures.iter().map(|f| {
            let x = sx(f.at_ms * 1e3, dur) + if i == 0 { -bar_w - 1.0 } else { 1.0 };
            let y = sy(f.replayed_records as f64, max);
            let restored = f.restored_checkpoint.and_then(|id| {
                run.report
                    .checkpoints
                    .iter()
                    .find(|c| c.id == id)
                    .map(|c| (id, f.at_ms - c.trigger_ms))
            });
            let note = match restored {
                Some((id, age)) => tf("checkpoint {0}, {1} old", &[&id, &format::ms(age)]),
                None => t("from scratch").into(),
            };
            let short = match restored {
                Some((id, age)) => tf("from #{0}, {1} old", &[&id, &format::ms(age)]),
                None => t("scratch").into(),
            };
            html! {
                <g>
                    <rect class="bar" x={format!("{x:.1}")} y={format!("{y:.1}")} width={format!("{bar_w:.1}")}
                        height={format!("{:.1}", (H - B - y).max(1.0))}>
                        <title>{ tf("{0}: failure of {1}#{2} at {3}: replayed {4} records, restored {5}",
                            &[side, &f.operator, &f.subtask, &format::ms(f.at_ms), &f.replayed_records, &note]) }</title>
                    </rect>
                    // Over the failure: A's restored checkpoint on the top row, B's below.
                    <text class="bar-note" x={format!("{:.1}", sx(f.at_ms * 1e3, dur))}
                        y={format!("{:.1}", T + 8.0 + 10.0 * i as f64)} text-anchor="middle">
                        { short.clone() }
                    </text>
                </g>
            }
        });
        html! {
            <g class={classes!("series-group", mode_class(&run.mode))} data-series={side.to_ascii_lowercase()}>
                { for bars }
            </g>
        }
    });
    let empty = runs.iter().all(|(_, r)| r.report.failures.is_empty());
    let body = html! {
        <>
            { for series }
            if empty {
                <text class="chart-empty" x="50%" y="50%" text-anchor="middle">
                    { t("no failure yet — fail a subtask to compare recovery") }
                </text>
            }
        </>
    };
    frame(
        t("Records replayed per failure"),
        "compare-chart-replay",
        format!("{max:.0}"),
        dur / 1e6,
        body,
        legend(&props.a.mode, &props.b.mode),
    )
}

fn summary(props: &CompareViewProps) -> Html {
    let (fa, fb) = (Figures::of(&props.a.report), Figures::of(&props.b.report));
    let sinks = !props.a.report.sinks.is_empty();
    let head = |side: &str, m: &Mode| html! { <><i class={mode_class(m)}></i>{ format!("{side} · {}", m.short()) }</> };
    figures_table(
        "compare-summary",
        head("A", &props.a.mode),
        head("B", &props.b.mode),
        &fa,
        &fb,
        sinks,
    )
}

/// Two runs' [`Figures`] side by side (`testid` on the table): the comparison's summary
/// and a remedy's whole-run figures.
fn figures_table(
    testid: &'static str,
    head_a: Html,
    head_b: Html,
    fa: &Figures,
    fb: &Figures,
    sinks: bool,
) -> Html {
    let opt_b = |v: Option<u64>| v.map(format::bytes).unwrap_or_else(|| "–".into());
    let mut rows: Vec<(&str, String, String)> = vec![
        (
            t("Median end-to-end duration"),
            format::opt_ms(fa.median_end_to_end_ms),
            format::opt_ms(fb.median_end_to_end_ms),
        ),
        (
            t("Longest end-to-end duration"),
            format::opt_ms(fa.max_end_to_end_ms),
            format::opt_ms(fb.max_end_to_end_ms),
        ),
        (
            t("Median alignment"),
            format::opt_ms(fa.median_alignment_ms),
            format::opt_ms(fb.median_alignment_ms),
        ),
        (
            t("Median persisted in-flight"),
            opt_b(fa.median_persisted_bytes),
            opt_b(fb.median_persisted_bytes),
        ),
        (
            t("Checkpoints completed / failed"),
            format!("{} / {}", fa.completed, fa.failed),
            format!("{} / {}", fb.completed, fb.failed),
        ),
        (
            t("Records replayed (all failures)"),
            fa.replayed_records.to_string(),
            fb.replayed_records.to_string(),
        ),
    ];
    if sinks {
        rows.push((
            t("Sink duplicates / lost"),
            format!("{} / {}", fa.duplicates, fa.lost),
            format!("{} / {}", fb.duplicates, fb.lost),
        ));
    }
    html! {
        <table class="compare-summary" data-testid={testid}>
            <thead>
                <tr>
                    <th scope="col"></th>
                    <th scope="col">{ head_a }</th>
                    <th scope="col">{ head_b }</th>
                </tr>
            </thead>
            <tbody>
                { for rows.into_iter().map(|(name, a, b)| html! {
                    <tr><th scope="row">{ name }</th><td>{ a }</td><td>{ b }</td></tr>
                }) }
            </tbody>
        </table>
    }
}

fn run_column(side: &str, run: &RunView, props: &CompareViewProps) -> Html {
    let stem = side.to_ascii_lowercase();
    html! {
        <div class={classes!("compare-run", mode_class(&run.mode))} data-testid={format!("compare-run-{stem}")}
            data-mode={run.mode.text()}>
            <JobGraphPanel layout={run.layout.clone()} live={run.live.clone()}
                selected={props.selected} on_select={props.on_select.clone()}
                compact={Some((AttrValue::from(stem), AttrValue::from(format!("{side} · {}", mode_label(&run.mode)))))} />
        </div>
    }
}

#[function_component(CompareView)]
pub fn compare_view(props: &CompareViewProps) -> Html {
    use_lang();
    html! {
        <Panel id="compare" title={tf("Side by side: {0}", &[&comparison_label(&props.comparison)])} testid="compare"
            class="area-compare"
            description={t("The same scenario, seed and actions, run twice in lockstep; only the checkpoint mode differs. Actions apply to both runs at the same virtual instant.")}>
            <div class="compare-runs">
                { run_column("A", &props.a, props) }
                { run_column("B", &props.b, props) }
            </div>
            <div class="compare-figures">
                <div class="chart-grid compare-charts">
                    { checkpoint_chart(props, t("Checkpoint end-to-end duration"), "compare-chart-duration",
                        e2e, |c| format::opt_ms(c.end_to_end_ms), format::ms, |_| 1.0) }
                    { checkpoint_chart(props, t("Alignment time (max over subtasks)"), "compare-chart-alignment",
                        alignment, |c| format::ms(c.alignment_ms), format::ms, |_| 1.0) }
                    { checkpoint_chart(props, t("Persisted in-flight data per checkpoint"), "compare-chart-persisted",
                        persisted, |c| format::bytes(c.persisted_inflight_bytes), axis_bytes, byte_unit) }
                    { replay_chart(props) }
                </div>
                { summary(props) }
            </div>
        </Panel>
    }
}

#[derive(Properties, PartialEq)]
pub struct CompareToggleProps {
    /// The comparison shown now (`A|B`), `None` in single-run mode.
    pub active: Option<AttrValue>,
    /// The comparisons offered, as (`A|B`, label).
    pub choices: Rc<Vec<(String, String)>>,
    pub on_command: Callback<Command>,
}

#[function_component(CompareToggle)]
pub fn compare_toggle(props: &CompareToggleProps) -> Html {
    use_lang();
    let select = use_node_ref();
    let chosen = {
        let select = select.clone();
        let first = props
            .choices
            .first()
            .map(|c| c.0.clone())
            .unwrap_or_default();
        move || {
            select
                .cast::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or(first.clone())
        }
    };
    let onchange = {
        let cb = props.on_command.clone();
        let active = props.active.is_some();
        let chosen = chosen.clone();
        Callback::from(move |_: Event| {
            if active {
                cb.emit(Command::Compare(Some(chosen())));
            }
        })
    };
    let onclick = {
        let cb = props.on_command.clone();
        let active = props.active.is_some();
        Callback::from(move |_: MouseEvent| {
            cb.emit(Command::Compare((!active).then(&chosen)));
        })
    };
    // Outside comparison mode the first choice (aligned vs unaligned, what the button
    // says) is selected, so the button compares what it says.
    let current = props
        .active
        .clone()
        .or_else(|| props.choices.first().map(|c| AttrValue::from(c.0.clone())))
        .unwrap_or_default();
    html! {
        <div class="compare-bar" data-testid="compare-bar">
            <label class="compare-picker">
                <span class="field-label">{ t("Compare") }</span>
                <select ref={select} data-testid="compare-mode" aria-label={t("Comparison")} {onchange}>
                    if props.active.is_some() && !props.choices.iter().any(|c| c.0 == current.as_str()) {
                        <option value={current.clone()} selected=true>{ current.clone() }</option>
                    }
                    { for props.choices.iter().map(|(value, label)| html! {
                        <option value={value.clone()} selected={*value == current.as_str()}>{
                            Comparison::parse(value, "compare").map_or_else(|_| label.clone(), |c| comparison_label(&c))
                        }</option>
                    }) }
                </select>
            </label>
            <button type="button" class="compare-toggle" data-testid="compare-toggle"
                aria-pressed={props.active.is_some().to_string()} {onclick}>
                { if props.active.is_some() { t("Back to a single run") } else { t("Compare AC vs UC") } }
            </button>
        </div>
    }
}

/// A chart's frame: axes, grid, time ticks, the max label, and `body` drawn inside.
fn frame(
    title: &str,
    testid: &str,
    y_max_label: String,
    x_max_s: f64,
    body: Html,
    legend: Html,
) -> Html {
    let x_ticks = (0..=4).map(|k| {
        let x = L + (W - L - R) * k as f64 / 4.0;
        html! {
            <>
                <line class="grid" x1={format!("{x:.1}")} x2={format!("{x:.1}")} y1={format!("{T}")} y2={format!("{:.1}", H - B)} />
                <text class="tick" x={format!("{x:.1}")} y={format!("{:.1}", H - 6.0)} text-anchor="middle">{ format!("{:.0}s", x_max_s * k as f64 / 4.0) }</text>
            </>
        }
    });
    html! {
        <figure class="chart">
            <figcaption>{ title }{ legend }</figcaption>
            <svg viewBox={format!("0 0 {W} {H}")} width="100%" data-testid={testid.to_string()} class="chart-svg" preserveAspectRatio="xMidYMid meet">
                { for x_ticks }
                <line class="grid" x1={format!("{L}")} x2={format!("{:.1}", W - R)} y1={format!("{T}")} y2={format!("{T}")} />
                <line class="axis" x1={format!("{L}")} x2={format!("{:.1}", W - R)} y1={format!("{:.1}", H - B)} y2={format!("{:.1}", H - B)} />
                <text class="tick" x={format!("{:.1}", L - 4.0)} y={format!("{:.1}", T + 4.0)} text-anchor="end">{ y_max_label }</text>
                <text class="tick" x={format!("{:.1}", L - 4.0)} y={format!("{:.1}", H - B)} text-anchor="end">{ "0" }</text>
                { body }
            </svg>
        </figure>
    }
}

/// One remedy experiment as the diagnosis panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RemedyView {
    pub name: String,
    pub checkpoint: Option<u64>,
    pub progress: f64,
    pub outcome: Option<Result<Outcome, Msg>>,
}

#[derive(Properties, PartialEq)]
pub struct RemedyComparisonProps {
    pub view: Rc<RemedyView>,
    pub on_command: Callback<Command>,
    /// Whether the run has sinks (their row shows).
    #[prop_or_default]
    pub sinks: bool,
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

#[function_component(RemedyComparison)]
pub fn remedy_comparison(props: &RemedyComparisonProps) -> Html {
    use_lang();
    let v = &props.view;
    let cancel = {
        let cb = props.on_command.clone();
        Callback::from(move |_| cb.emit(Command::Remedy(None)))
    };
    let body = match &v.outcome {
        None => {
            let pct = (v.progress * 100.0).clamp(0.0, 100.0);
            html! {
                <div class="remedy-running">
                    <progress data-testid="remedy-progress" data-progress={format!("{:.3}", v.progress)}
                        max="100" value={format!("{pct:.0}")}></progress>
                    <span class="muted">{ tf("re-running from t = 0: as is, then with the remedy ({0} %)", &[&format!("{pct:.0}")]) }</span>
                    <button class="btn" data-testid="remedy-cancel" onclick={cancel}>{ t("Cancel") }</button>
                </div>
            }
        }
        Some(Err(why)) => {
            html! { <p class="error" data-testid="remedy-error">{ messages::render(why, current()) }</p> }
        }
        Some(Ok(o)) => {
            let table = o.effect.as_ref().map(|e| {
                let a = e.after.as_ref();
                let rows: Vec<(&str, &str, String, String, String, String)> = vec![
                    ("end_to_end_ms", t("end to end"),
                        format::opt_ms(e.before.end_to_end_ms), a.map_or("–".into(), |a| format::opt_ms(a.end_to_end_ms)),
                        opt(e.before.end_to_end_ms), opt(a.and_then(|a| a.end_to_end_ms))),
                    ("start_delay_ms", t("start delay"),
                        format::ms(e.before.start_delay_ms), a.map_or("–".into(), |a| format::ms(a.start_delay_ms)),
                        format!("{}", e.before.start_delay_ms), opt(a.map(|a| a.start_delay_ms))),
                    ("alignment_ms", t("alignment"),
                        format::ms(e.before.alignment_ms), a.map_or("–".into(), |a| format::ms(a.alignment_ms)),
                        format!("{}", e.before.alignment_ms), opt(a.map(|a| a.alignment_ms))),
                    ("persisted_inflight_bytes", t("persisted in-flight"),
                        format::bytes(e.before.persisted_inflight_bytes), a.map_or("–".into(), |a| format::bytes(a.persisted_inflight_bytes)),
                        e.before.persisted_inflight_bytes.to_string(), a.map(|a| a.persisted_inflight_bytes.to_string()).unwrap_or_default()),
                    ("replay_ms", t("replay on failure"),
                        format::ms(e.replay_before_ms), format::ms(e.replay_after_ms),
                        format!("{}", e.replay_before_ms), format!("{}", e.replay_after_ms)),
                ];
                html! {
                    <>
                    <p class="remedy-effect" data-testid="remedy-effect">{ messages::text_of(e.msg.as_ref(), &e.text) }</p>
                    <table class="compare-summary" data-testid="remedy-effect-table">
                        <thead><tr>
                            <th scope="col">{ tf("checkpoint {0}", &[&e.before.id]) }</th>
                            <th scope="col">{ t("as is") }</th>
                            <th scope="col">{ match a { Some(a) => tf("with the remedy (checkpoint {0})", &[&a.id]), None => t("with the remedy").to_string() } }</th>
                        </tr></thead>
                        <tbody>
                            { for rows.into_iter().map(|(key, name, b, a, raw_b, raw_a)| html! {
                                <tr data-figure={key} data-before={raw_b} data-after={raw_a}>
                                    <th scope="row">{ name }</th><td>{ b }</td><td>{ a }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                    <p class="muted">{ tf("A failure at {0} (just before checkpoint {1} completed as is) would replay the input since the newest completed checkpoint's trigger.", &[&format::ms(e.failure_at_ms), &e.before.id]) }</p>
                    </>
                }
            });
            html! {
                <>
                { table.unwrap_or_else(|| html! { <p class="muted">{ t("No checkpoint to compare.") }</p> }) }
                <p class="muted" data-testid="remedy-flink">{ tf("In Flink: {0}. Here the remedy applies from t = 0 and both runs are re-run with the same seed; switching it on inside the running job would be a Flink fiction.", &[&t_in(current(), how_in_flink(&v.name))]) }</p>
                { figures_table("remedy-summary", html! { t("whole run as is") }, html! { t("whole run with the remedy") }, &o.base, &o.figures, props.sinks) }
                </>
            }
        }
    };
    let state = match &v.outcome {
        None => "running",
        Some(Ok(_)) => "done",
        Some(Err(_)) => "failed",
    };
    let label = super::diagnosis::remedy_label(&v.name).to_string();
    html! {
        <div class="remedy-result" data-testid="remedy-result" data-remedy={v.name.clone()} data-state={state}>
            <h4 class="diag-h">{ tf("Remedy: {0}", &[&label]) }</h4>
            { body }
        </div>
    }
}
