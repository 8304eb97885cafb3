//! The charts as data, and a chart as a standalone SVG document.
//!
//! Contract: [`chart`] turns the chart snapshots ([`ChartData`] + the report) into a
//! [`Chart`] — title, axis labels, marks (polylines, an area, bars) and legend — in one
//! coordinate system ([`W`] × [`H`]). The checkpoint history charts draw a bar per
//! checkpoint up to [`MAX_BARS`] and past that a bar per [`BINS`]th of the run (its
//! height the largest value, its class the worst status, its title the checkpoints it
//! spans and how many of each kind); the throughput lines and the in-flight area keep at
//! most [`series::LIMIT`] points each ([`series::decimate`]: each column's first, lowest,
//! highest and last). The page's charts panel renders exactly these
//! marks, and [`standalone_svg`] serializes them into a self-contained SVG file: an
//! `xmlns`, a white background, the title and legend drawn inside the image, and every
//! colour, stroke and font as a presentation attribute (the page's CSS does not travel
//! with a copied image). Text is XML-escaped; the result is well-formed XML. Pure string
//! building, no DOM: compiled and tested natively too.

use std::fmt::Write as _;

use crate::engine::report::{CheckpointReport, Report};
use crate::engine::runtime::Sample;
use crate::engine::time::Micros;
use crate::engine::Engine;
use crate::ui::format;
use crate::ui::run_spans::RunSpans;
use crate::ui::series;

/// What the charts draw (cut by the UI's `Sim` from the engine's samples): each series
/// as [`series::decimate`] keeps it, at most [`series::LIMIT`] points however long the run.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ChartData {
    pub operators: Vec<String>,
    /// Per operator: (virtual time, records/s out) between consecutive samples.
    pub throughput: Vec<Vec<(Micros, f64)>>,
    /// (virtual time, bytes of data buffers queued or in flight).
    pub inflight: Vec<(Micros, u64)>,
    pub duration: Micros,
}

impl ChartData {
    /// The chart data of a run so far: per-operator throughput between samples, the
    /// buffered bytes at each sample.
    pub fn from_engine(e: &Engine) -> ChartData {
        let operators = e.operators.iter().map(|o| o.id.clone()).collect();
        ChartData::from_samples(operators, &e.samples, e.spec.duration)
    }

    /// The chart data of `samples` (the engine's, in time order) of a run of `duration`.
    pub fn from_samples(operators: Vec<String>, samples: &[Sample], duration: Micros) -> ChartData {
        let throughput = (0..operators.len())
            .map(|o| {
                let rates: Vec<(Micros, f64)> = samples
                    .windows(2)
                    .map(|w| {
                        let dt = (w[1].at.saturating_sub(w[0].at)).max(1) as f64 / 1e6;
                        let rate = match (w[1].records.get(o), w[0].records.get(o)) {
                            (Some(b), Some(a)) => b.saturating_sub(*a) as f64 / dt,
                            _ => 0.0,
                        };
                        (w[1].at, rate)
                    })
                    .collect();
                series::decimate(&rates, duration)
            })
            .collect();
        let inflight: Vec<(Micros, u64)> =
            samples.iter().map(|s| (s.at, s.inflight_bytes)).collect();
        ChartData {
            operators,
            throughput,
            inflight: series::decimate(&inflight, duration),
            duration,
        }
    }
}

/// The chart's coordinate system: width, height and the plot margins.
pub const W: f64 = 460.0;
pub const H: f64 = 150.0;
pub const L: f64 = 46.0;
pub const R: f64 = 8.0;
pub const T: f64 = 10.0;
pub const B: f64 = 20.0;
pub const PALETTE: [&str; 8] = [
    "#2f6fde", "#e8833a", "#3f9e78", "#9b59b6", "#d24c5a", "#1aa3b8", "#8c6d1f", "#5d687a",
];

/// The charts, in the order the panel shows them (`chart-<name>` on the page).
pub const NAMES: [&str; 4] = ["throughput", "duration", "persisted", "inflight"];

/// One thing drawn inside the plot area.
#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    /// A series: SVG `points`, stroke colour.
    Line { points: String, color: &'static str },
    /// A filled area under a series.
    Area { points: String },
    /// A checkpoint's bar; `class` (`bar-aligned`, …) picks its colour ([`bar_color`]).
    Bar {
        x: f64,
        y: f64,
        width: f64,
        height: f64,
        class: &'static str,
        title: String,
    },
}

/// A chart ready to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// One of [`NAMES`].
    pub name: &'static str,
    pub title: &'static str,
    /// The label at the top of the y axis (the axis maximum).
    pub y_max_label: String,
    /// The x axis maximum, in virtual seconds.
    pub x_max_s: f64,
    pub marks: Vec<Mark>,
    /// (label, colour) per legend entry.
    pub legend: Vec<(String, &'static str)>,
}

impl Chart {
    /// The x axis ticks: (x, label) at 0, ¼, ½, ¾ and the whole run.
    pub fn x_ticks(&self) -> Vec<(f64, String)> {
        (0..=4)
            .map(|k| {
                (
                    L + (W - L - R) * k as f64 / 4.0,
                    format!("{:.0}s", self.x_max_s * k as f64 / 4.0),
                )
            })
            .collect()
    }
}

/// The colour of a checkpoint bar class (the page's CSS uses the same colours).
pub fn bar_color(class: &str) -> &'static str {
    match class {
        "bar-aligned" => "#e8833a",
        "bar-unaligned" => "#8e44ad",
        "bar-switched" => "#c0392b",
        "bar-pending" => "#8b95a5",
        _ => "#d24c5a",
    }
}

/// How a checkpoint was taken, as the checkpoints table says it.
pub fn type_label(c: &CheckpointReport) -> &'static str {
    if c.timed_out_to_unaligned {
        "aligned → unaligned"
    } else if c.unaligned {
        "unaligned"
    } else {
        "aligned"
    }
}

/// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
pub fn nice(max: f64) -> f64 {
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

pub fn sx(t_us: f64, duration_us: f64) -> f64 {
    L + (t_us / duration_us.max(1.0)).clamp(0.0, 1.0) * (W - L - R)
}

pub fn sy(v: f64, max: f64) -> f64 {
    H - B - (v / max).clamp(0.0, 1.0) * (H - B - T)
}

/// The chart called `name` (one of [`NAMES`]), or `None`.
pub fn chart(name: &str, data: &ChartData, report: &Report) -> Option<Chart> {
    Some(match name {
        "throughput" => throughput(data),
        "duration" => checkpoint_bars(report, data, false),
        "persisted" => checkpoint_bars(report, data, true),
        "inflight" => inflight(data),
        _ => return None,
    })
}

fn throughput(data: &ChartData) -> Chart {
    let dur = data.duration as f64;
    let max = nice(
        data.throughput
            .iter()
            .flatten()
            .map(|(_, v)| *v)
            .fold(0.0, f64::max),
    );
    let color = |o: usize| PALETTE[o % PALETTE.len()];
    let marks = (0..data.operators.len())
        .map(|o| {
            let mut points = String::new();
            for (t, v) in data.throughput.get(o).into_iter().flatten() {
                let _ = write!(points, "{:.1},{:.1} ", sx(*t as f64, dur), sy(*v, max));
            }
            Mark::Line {
                points,
                color: color(o),
            }
        })
        .collect();
    Chart {
        name: "throughput",
        title: "Throughput per operator (records/s, out; sinks: in)",
        y_max_label: format!("{max:.0}"),
        x_max_s: dur / 1e6,
        marks,
        legend: (data.operators.iter().enumerate())
            .map(|(o, id)| (id.clone(), color(o)))
            .collect(),
    }
}

/// Up to this many checkpoints the history charts draw a bar per checkpoint; past it, a
/// bar per [`BINS`]th of the run (issue 19, item 5). A plot 406 units wide has no room
/// for more: at a checkpoint a second for an hour, 3,600 bars two units wide would be
/// drawn over each other, three DOM nodes each, and the page's paint would grow with the
/// run while the chart showed no more than its top edge.
pub const MAX_BARS: usize = 135;
/// The number of equal spans of virtual time the run is cut into past [`MAX_BARS`]
/// ([`RunSpans`]).
pub const BINS: usize = 135;

/// What a bar says about the checkpoints it stands for, worst first: one failure in a
/// span of an hour's overview is what it must not hide.
fn rank(class: &str) -> u8 {
    match class {
        "bar-failed" => 4,
        "bar-switched" => 3,
        "bar-unaligned" => 2,
        "bar-aligned" => 1,
        _ => 0,
    }
}

/// One checkpoint as the history charts see it.
struct Point<'a> {
    t_us: f64,
    value: f64,
    class: &'static str,
    checkpoint: &'a CheckpointReport,
}

/// The title of a checkpoint's own bar.
fn checkpoint_title(c: &CheckpointReport, persisted: bool) -> String {
    format!(
        "checkpoint {} ({}, {}): {}",
        c.id,
        type_label(c),
        c.status,
        if persisted {
            format::bytes(c.persisted_inflight_bytes)
        } else {
            format::opt_ms(c.end_to_end_ms)
        }
    )
}

/// The title of a bar standing for `points` (more than one): the checkpoints it spans,
/// how many of each kind, and the one that sets its height.
fn bin_title(points: &[Point], persisted: bool) -> String {
    let (first, last) = (
        points[0].checkpoint.id,
        points[points.len() - 1].checkpoint.id,
    );
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for p in points {
        let label = match p.class {
            "bar-failed" => "failed",
            "bar-pending" => "in progress",
            _ => type_label(p.checkpoint),
        };
        match counts.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n += 1,
            None => counts.push((label, 1)),
        }
    }
    let counts: Vec<String> = counts.iter().map(|(l, n)| format!("{n} {l}")).collect();
    let top = points
        .iter()
        .fold(&points[0], |a, b| if b.value > a.value { b } else { a });
    let value = if persisted {
        format!(
            "most {}",
            format::bytes(top.checkpoint.persisted_inflight_bytes)
        )
    } else {
        format!("longest {}", format::ms(top.value))
    };
    format!(
        "checkpoints {first}–{last} ({}): {value} (checkpoint {})",
        counts.join(", "),
        top.checkpoint.id
    )
}

fn checkpoint_bars(report: &Report, data: &ChartData, persisted: bool) -> Chart {
    let dur = data.duration as f64;
    let points: Vec<Point> = report
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
            let value = if persisted {
                c.persisted_inflight_bytes as f64
            } else {
                c.end_to_end_ms
                    .or_else(|| c.latest_ack_ms.map(|a| a - c.trigger_ms))
                    .unwrap_or(0.0)
            };
            Point {
                t_us: c.trigger_ms * 1e3,
                value,
                class,
                checkpoint: c,
            }
        })
        .collect();
    let max = nice(points.iter().map(|p| p.value).fold(0.0, f64::max));
    // (centre in µs, value, class, title) per bar, and the bars the plot has room for.
    let (bars, slots): (Vec<(f64, f64, &'static str, String)>, usize) = if points.len() <= MAX_BARS
    {
        let bars = points.iter().map(|p| {
            let title = checkpoint_title(p.checkpoint, persisted);
            (p.t_us, p.value, p.class, title)
        });
        (bars.collect(), points.len().max(20))
    } else {
        let run = RunSpans::new(data.duration, BINS);
        let span_of = |p: &Point| run.of(p.t_us.round() as Micros);
        let bars = points.chunk_by(|a, b| span_of(a) == span_of(b)).map(|bin| {
            let worst = bin.iter().map(|p| p.class).max_by_key(|c| rank(c));
            let value = bin.iter().map(|p| p.value).fold(0.0, f64::max);
            let title = match bin {
                [one] => checkpoint_title(one.checkpoint, persisted),
                _ => bin_title(bin, persisted),
            };
            let middle = run.middle(span_of(&bin[0])) as f64;
            (middle, value, worst.unwrap_or("bar-pending"), title)
        });
        (bars.collect(), BINS)
    };
    let bar_w = ((W - L - R) / (slots as f64) * 0.7).clamp(2.0, 12.0);
    let marks = bars
        .into_iter()
        .map(|(t, v, class, title)| {
            let y = sy(v, max);
            let min_height = if class == "bar-failed" { 0.0 } else { 1.0 };
            Mark::Bar {
                x: sx(t, dur) - bar_w / 2.0,
                y,
                width: bar_w,
                height: (H - B - y).max(min_height),
                class,
                title,
            }
        })
        .collect();
    let legend = [
        ("aligned", "bar-aligned"),
        ("unaligned", "bar-unaligned"),
        ("timed out → unaligned", "bar-switched"),
        ("failed", "bar-failed"),
    ]
    .map(|(label, class)| (label.to_string(), bar_color(class)))
    .to_vec();
    let (name, title, y_max_label) = if persisted {
        (
            "persisted",
            "Persisted in-flight data per checkpoint",
            format::bytes(max as u64),
        )
    } else {
        (
            "duration",
            "Checkpoint end-to-end duration",
            format::ms(max),
        )
    };
    Chart {
        name,
        title,
        y_max_label,
        x_max_s: dur / 1e6,
        marks,
        legend,
    }
}

fn inflight(data: &ChartData) -> Chart {
    let dur = data.duration as f64;
    let max = nice(
        data.inflight
            .iter()
            .map(|(_, b)| *b as f64)
            .fold(0.0, f64::max),
    );
    let mut points = format!("{:.1},{:.1} ", L, H - B);
    for (t, b) in &data.inflight {
        let _ = write!(
            points,
            "{:.1},{:.1} ",
            sx(*t as f64, dur),
            sy(*b as f64, max)
        );
    }
    if let Some((t, _)) = data.inflight.last() {
        let _ = write!(points, "{:.1},{:.1}", sx(*t as f64, dur), H - B);
    }
    Chart {
        name: "inflight",
        title: "Data buffered in the network (bytes queued or on the wire)",
        y_max_label: format::bytes(max as u64),
        x_max_s: dur / 1e6,
        marks: vec![Mark::Area { points }],
        legend: Vec::new(),
    }
}

/// `text` with the five XML special characters escaped.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

const SANS: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";
const MONO: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
const TEXT: &str = "#1b2433";
const MUTED: &str = "#5d687a";
const GRID: &str = "#dbe1ea";
const AXIS: &str = "#c3ccd9";
const PLOT_BG: &str = "#f7f9fb";
const AREA: &str = "#7d9ad6";
/// Padding around the chart and the height of one legend line, in SVG units.
const PAD: f64 = 8.0;
const LEGEND_LINE: f64 = 14.0;

/// Lays the legend out in lines that fit the width: (x, line) per entry.
fn legend_layout(legend: &[(String, &'static str)]) -> Vec<(f64, usize)> {
    let mut x = PAD;
    let mut line = 0;
    legend
        .iter()
        .map(|(label, _)| {
            // ~5.6 units per character at font size 10, a 10-unit swatch and a gap.
            let w = 16.0 + 5.6 * label.chars().count() as f64 + 10.0;
            if x + w > W + PAD && x > PAD {
                x = PAD;
                line += 1;
            }
            let at = (x, line);
            x += w;
            at
        })
        .collect()
}

/// The chart as a standalone SVG document (see the module contract).
pub fn standalone_svg(chart: &Chart) -> String {
    let layout = legend_layout(&chart.legend);
    let legend_lines = layout.last().map_or(0, |(_, line)| line + 1);
    let top = PAD + 14.0 + legend_lines as f64 * LEGEND_LINE + 4.0;
    let (width, height) = (W + 2.0 * PAD, top + H + PAD);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="{SANS}">"##
    );
    let _ = write!(
        s,
        r##"<title>{}</title><rect width="{width}" height="{height}" fill="#ffffff"/>"##,
        xml_escape(chart.title)
    );
    let _ = write!(
        s,
        r##"<text x="{PAD}" y="{}" font-size="12" font-weight="600" fill="{TEXT}">{}</text>"##,
        PAD + 10.0,
        xml_escape(chart.title)
    );
    for ((label, color), (x, line)) in chart.legend.iter().zip(&layout) {
        let y = PAD + 14.0 + *line as f64 * LEGEND_LINE;
        let _ = write!(
            s,
            r##"<g class="legend"><rect x="{x:.1}" y="{:.1}" width="10" height="8" rx="2" fill="{color}"/><text x="{:.1}" y="{:.1}" font-size="10" fill="{MUTED}">{}</text></g>"##,
            y + 2.0,
            x + 13.0,
            y + 9.5,
            xml_escape(label)
        );
    }
    let _ = write!(
        s,
        r##"<g transform="translate({PAD} {top})"><rect width="{W}" height="{H}" rx="4" fill="{PLOT_BG}"/>"##
    );
    let tick = |s: &mut String, x: f64, y: f64, anchor: &str, label: &str| {
        let _ = write!(
            s,
            r##"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="9" font-family="{MONO}" fill="{MUTED}">{}</text>"##,
            xml_escape(label)
        );
    };
    let line = |s: &mut String, (x1, y1, x2, y2): (f64, f64, f64, f64), stroke: &str, w: f64| {
        let _ = write!(
            s,
            r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{w}"/>"##
        );
    };
    for (x, label) in chart.x_ticks() {
        line(&mut s, (x, T, x, H - B), GRID, 0.6);
        tick(&mut s, x, H - 6.0, "middle", &label);
    }
    line(&mut s, (L, T, W - R, T), GRID, 0.6);
    line(&mut s, (L, H - B, W - R, H - B), AXIS, 1.0);
    tick(&mut s, L - 4.0, T + 4.0, "end", &chart.y_max_label);
    tick(&mut s, L - 4.0, H - B, "end", "0");
    for mark in &chart.marks {
        match mark {
            Mark::Line { points, color } => {
                let _ = write!(
                    s,
                    r##"<polyline class="series" points="{}" fill="none" stroke="{color}" stroke-width="1.4" stroke-linejoin="round"/>"##,
                    points.trim_end()
                );
            }
            Mark::Area { points } => {
                let _ = write!(
                    s,
                    r##"<polygon class="area" points="{}" fill="{AREA}" fill-opacity="0.5" stroke="{AREA}"/>"##,
                    points.trim_end()
                );
            }
            Mark::Bar {
                x,
                y,
                width,
                height,
                class,
                title,
            } => {
                let _ = write!(
                    s,
                    r##"<rect class="{class}" x="{x:.1}" y="{y:.1}" width="{width:.1}" height="{height:.1}" fill="{}"><title>{}</title></rect>"##,
                    bar_color(class),
                    xml_escape(title)
                );
                if *class == "bar-failed" {
                    let _ = write!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12" font-weight="700" fill="{}">×</text>"##,
                        x + width / 2.0,
                        H - B - 2.0,
                        bar_color(class)
                    );
                }
            }
        }
    }
    s.push_str("</g></svg>\n");
    s
}
