//! Charts, drawn by hand in SVG over virtual time: throughput per operator, checkpoint
//! end-to-end duration (coloured aligned / unaligned / timed out to unaligned, failed
//! in red), persisted in-flight bytes per checkpoint, and the bytes of data buffers in
//! the network.
//!
//! Contract: `data-testid="charts"`; each chart is an `<svg>` with
//! `data-testid="chart-<name>"` (`throughput`, `duration`, `persisted`, `inflight`).
//! Pure function of the snapshots it is given.

use std::rc::Rc;

use yew::prelude::*;

use crate::engine::report::Report;
use crate::ui::format;
use crate::ui::sim::ChartData;

use super::panel::Panel;

pub(crate) const W: f64 = 460.0;
pub(crate) const H: f64 = 150.0;
pub(crate) const L: f64 = 46.0;
pub(crate) const R: f64 = 8.0;
pub(crate) const T: f64 = 10.0;
pub(crate) const B: f64 = 20.0;
pub const PALETTE: [&str; 8] = [
    "#2f6fde", "#e8833a", "#3f9e78", "#9b59b6", "#d24c5a", "#1aa3b8", "#8c6d1f", "#5d687a",
];

#[derive(Properties, PartialEq)]
pub struct ChartsProps {
    pub charts: Rc<ChartData>,
    pub report: Rc<Report>,
}

/// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
pub(crate) fn nice(max: f64) -> f64 {
    if max <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(max.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if max <= m * p {
            return m * p;
        }
    }
    10.0 * p
}

pub(crate) fn frame(
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

pub(crate) fn sx(t_us: f64, duration_us: f64) -> f64 {
    L + (t_us / duration_us.max(1.0)).clamp(0.0, 1.0) * (W - L - R)
}
pub(crate) fn sy(v: f64, max: f64) -> f64 {
    H - B - (v / max).clamp(0.0, 1.0) * (H - B - T)
}

fn throughput(data: &ChartData) -> Html {
    let dur = data.duration as f64;
    let max = nice(
        data.throughput
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .fold(0.0, f64::max),
    );
    let lines = data.operators.iter().enumerate().map(|(o, _)| {
        let points: String = data
            .throughput
            .iter()
            .map(|(t, v)| {
                format!(
                    "{:.1},{:.1} ",
                    sx(*t as f64, dur),
                    sy(v.get(o).copied().unwrap_or(0.0), max)
                )
            })
            .collect();
        html! { <polyline class="series" points={points} stroke={PALETTE[o % PALETTE.len()]} /> }
    });
    let legend = html! {
        <span class="chart-legend">
            { for data.operators.iter().enumerate().map(|(o, id)| html! {
                <span><i style={format!("background:{}", PALETTE[o % PALETTE.len()])}></i>{ id.clone() }</span>
            }) }
        </span>
    };
    frame(
        "Throughput per operator (records/s, out; sinks: in)",
        "chart-throughput",
        format!("{max:.0}"),
        dur / 1e6,
        html! { <>{ for lines }</> },
        legend,
    )
}

fn checkpoint_bars(report: &Report, data: &ChartData, persisted: bool) -> Html {
    let dur = data.duration as f64;
    let values: Vec<(f64, f64, &'static str, String)> = report
        .checkpoints
        .iter()
        .map(|c| {
            let class = match (&*c.status, c.timed_out_to_unaligned, c.unaligned) {
                ("completed", true, _) => "bar-switched",
                ("completed", false, true) => "bar-unaligned",
                ("completed", false, false) => "bar-aligned",
                ("in_progress", ..) => "bar-pending",
                _ => "bar-failed",
            };
            let v = if persisted {
                c.persisted_inflight_bytes as f64
            } else {
                c.end_to_end_ms
                    .or_else(|| c.latest_ack_ms.map(|a| a - c.trigger_ms))
                    .unwrap_or(0.0)
            };
            let title = format!(
                "checkpoint {} ({}, {}): {}",
                c.id,
                super::checkpoints::type_label(c),
                c.status,
                if persisted {
                    format::bytes(c.persisted_inflight_bytes)
                } else {
                    format::opt_ms(c.end_to_end_ms)
                }
            );
            (c.trigger_ms * 1e3, v, class, title)
        })
        .collect();
    let max = nice(values.iter().map(|v| v.1).fold(0.0, f64::max));
    let bar_w = ((W - L - R) / (values.len().max(20) as f64) * 0.7).clamp(2.0, 12.0);
    let bars = values.iter().map(|(t, v, class, title)| {
        let x = sx(*t, dur);
        let y = sy(*v, max);
        let failed = *class == "bar-failed";
        html! {
            <g>
                <rect class={*class} x={format!("{:.1}", x - bar_w / 2.0)} y={format!("{y:.1}")} width={format!("{bar_w:.1}")}
                    height={format!("{:.1}", (H - B - y).max(if failed { 0.0 } else { 1.0 }))}><title>{ title.clone() }</title></rect>
                if failed {
                    <text class="bar-failed-mark" x={format!("{x:.1}")} y={format!("{:.1}", H - B - 2.0)} text-anchor="middle">{ "×" }<title>{ title.clone() }</title></text>
                }
            </g>
        }
    });
    let legend = html! {
        <span class="chart-legend">
            <span><i class="bar-aligned"></i>{ "aligned" }</span>
            <span><i class="bar-unaligned"></i>{ "unaligned" }</span>
            <span><i class="bar-switched"></i>{ "timed out → unaligned" }</span>
            <span><i class="bar-failed"></i>{ "failed" }</span>
        </span>
    };
    let (title, testid, label) = if persisted {
        (
            "Persisted in-flight data per checkpoint",
            "chart-persisted",
            format::bytes(max as u64),
        )
    } else {
        (
            "Checkpoint end-to-end duration",
            "chart-duration",
            format::ms(max),
        )
    };
    frame(
        title,
        testid,
        label,
        dur / 1e6,
        html! { <>{ for bars }</> },
        legend,
    )
}

fn inflight(data: &ChartData) -> Html {
    let dur = data.duration as f64;
    let max = nice(
        data.inflight
            .iter()
            .map(|(_, b)| *b as f64)
            .fold(0.0, f64::max),
    );
    let mut points = format!("{:.1},{:.1} ", L, H - B);
    for (t, b) in &data.inflight {
        points.push_str(&format!(
            "{:.1},{:.1} ",
            sx(*t as f64, dur),
            sy(*b as f64, max)
        ));
    }
    if let Some((t, _)) = data.inflight.last() {
        points.push_str(&format!("{:.1},{:.1}", sx(*t as f64, dur), H - B));
    }
    frame(
        "Data buffered in the network (bytes queued or on the wire)",
        "chart-inflight",
        format::bytes(max as u64),
        dur / 1e6,
        html! { <polygon class="area" points={points} /> },
        html! {},
    )
}

#[function_component(ChartsPanel)]
pub fn charts_panel(props: &ChartsProps) -> Html {
    html! {
        <Panel id="charts" title="Charts" testid="charts" class="area-charts"
            description="Over virtual time. Bars sit at each checkpoint's trigger time.">
            <div class="chart-grid">
                { throughput(&props.charts) }
                { checkpoint_bars(&props.report, &props.charts, false) }
                { checkpoint_bars(&props.report, &props.charts, true) }
                { inflight(&props.charts) }
            </div>
        </Panel>
    }
}
