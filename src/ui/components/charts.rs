//! Charts, drawn by hand in SVG over virtual time: throughput per operator, checkpoint
//! end-to-end duration (coloured aligned / unaligned / timed out to unaligned, failed
//! in red), persisted in-flight bytes per checkpoint, and the bytes of data buffers in
//! the network.
//!
//! Contract: `data-testid="charts"`; each chart is an `<svg>` with
//! `data-testid="chart-<name>"` (`throughput`, `duration`, `persisted`, `inflight`),
//! drawn from the marks of [`crate::ui::chart_export::chart`] (the same marks a copied
//! chart contains). Each chart has two buttons, `chart-copy-svg-<name>` and
//! `chart-copy-png-<name>`, that send `Command::CopyChart`; the outcome of the last copy
//! is shown in `chart-copy-note`. Pure function of the snapshots it is given. The history
//! charts hold at most [`chart_export::BINS`] bars however long the run
//! ([`chart_export::MAX_BARS`]), so their DOM does not grow with it.

use crate::ui::shared::Shared;

use yew::prelude::*;

use crate::ui::i18n::{t, t_dyn, tf, use_lang};

use crate::engine::report::Report;
use crate::ui::chart_export::{self, Chart, ChartData, Mark, B, H, L, NAMES, R, T, W};
use crate::ui::command::{ChartFormat, Command};

use super::panel::Panel;

#[derive(Properties, PartialEq)]
pub struct ChartsProps {
    pub charts: Shared<ChartData>,
    pub report: Shared<Report>,
    pub on_command: Callback<Command>,
    /// What happened to the last chart copy (copied, downloaded instead, failed).
    #[prop_or_default]
    pub copy_note: Option<AttrValue>,
}

fn copy_button(on_command: &Callback<Command>, name: &'static str, format: ChartFormat) -> Html {
    let cb = on_command.clone();
    let onclick = Callback::from(move |_: MouseEvent| cb.emit(Command::CopyChart(name, format)));
    let (label, ext, title) = match format {
        ChartFormat::Svg => ("SVG", "svg", t("Copy this chart as a standalone SVG image")),
        ChartFormat::Png => ("PNG", "png", t("Copy this chart as a PNG image (2×)")),
    };
    html! {
        <button type="button" class="chart-copy" data-testid={format!("chart-copy-{ext}-{name}")}
            {onclick} {title} aria-label={format!("{title}: {name}")}>{ label }</button>
    }
}

fn frame(chart: &Chart, on_command: &Callback<Command>) -> Html {
    // Keyed by position, in a fragment of their own: the marks only grow at the end (a
    // bar per checkpoint), and Yew matches an unkeyed list from its end, so a new bar
    // would re-write every bar before it.
    let marks = chart.marks.iter().enumerate().map(|(i, m)| match m {
        Mark::Line { points, color } => html! { <polyline key={i} class="series" points={points.clone()} stroke={*color} /> },
        Mark::Area { points } => html! { <polygon key={i} class="area" points={points.clone()} /> },
        Mark::Bar { x, y, width, height, class, title } => html! {
            <g key={i}>
                <rect class={*class} x={format!("{x:.1}")} y={format!("{y:.1}")} width={format!("{width:.1}")}
                    height={format!("{height:.1}")}><title>{ title.clone() }</title></rect>
                if *class == "bar-failed" {
                    <text class="bar-failed-mark" x={format!("{:.1}", x + width / 2.0)} y={format!("{:.1}", H - B - 2.0)} text-anchor="middle">{ "×" }<title>{ title.clone() }</title></text>
                }
            </g>
        },
    });
    let x_ticks = chart.x_ticks().into_iter().map(|(x, label)| {
        html! {
            <>
                <line class="grid" x1={format!("{x:.1}")} x2={format!("{x:.1}")} y1={format!("{T}")} y2={format!("{:.1}", H - B)} />
                <text class="tick" x={format!("{x:.1}")} y={format!("{:.1}", H - 6.0)} text-anchor="middle">{ label }</text>
            </>
        }
    });
    html! {
        <figure class="chart">
            <figcaption>
                { t(chart.title) }
                if !chart.legend.is_empty() {
                    <span class="chart-legend">
                        { for chart.legend.iter().map(|(label, color)| html! {
                            <span><i style={format!("background:{color}")}></i>{ t_dyn(label) }</span>
                        }) }
                    </span>
                }
                <span class="chart-copy-buttons">
                    { copy_button(on_command, chart.name, ChartFormat::Svg) }
                    { copy_button(on_command, chart.name, ChartFormat::Png) }
                </span>
            </figcaption>
            <svg viewBox={format!("0 0 {W} {H}")} width="100%" data-testid={format!("chart-{}", chart.name)} class="chart-svg" preserveAspectRatio="xMidYMid meet">
                { for x_ticks }
                <line class="grid" x1={format!("{L}")} x2={format!("{:.1}", W - R)} y1={format!("{T}")} y2={format!("{T}")} />
                <line class="axis" x1={format!("{L}")} x2={format!("{:.1}", W - R)} y1={format!("{:.1}", H - B)} y2={format!("{:.1}", H - B)} />
                <text class="tick" x={format!("{:.1}", L - 4.0)} y={format!("{:.1}", T + 4.0)} text-anchor="end">{ chart.y_max_label.clone() }</text>
                <text class="tick" x={format!("{:.1}", L - 4.0)} y={format!("{:.1}", H - B)} text-anchor="end">{ "0" }</text>
                <>{ for marks }</>
            </svg>
        </figure>
    }
}

#[function_component(ChartsPanel)]
pub fn charts_panel(props: &ChartsProps) -> Html {
    use_lang();
    let charts = NAMES
        .iter()
        .filter_map(|name| chart_export::chart(name, &props.charts, &props.report));
    html! {
        <Panel id="charts" title={t("Charts")} testid="charts" class="area-charts"
            description={tf("Over virtual time. Bars sit at each checkpoint's trigger time; past {0} checkpoints a bar stands for 1/{1} of the run, as tall as its longest checkpoint and coloured by its worst.", &[&chart_export::MAX_BARS, &chart_export::BINS])}>
            if let Some(note) = &props.copy_note {
                <p class="chart-copy-note" data-testid="chart-copy-note" role="status">{ note.clone() }</p>
            }
            <div class="chart-grid">
                { for charts.map(|c| frame(&c, &props.on_command)) }
            </div>
        </Panel>
    }
}
