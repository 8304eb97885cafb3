//! The live job view: the DAG expanded into subtasks, with every channel's buffers and
//! barriers drawn where they are.
//!
//! Contract: `data-testid="job-graph"`; one SVG group per subtask
//! (`data-testid="subtask-<operator>-<index>"`, `data-backpressure="OK|LOW|HIGH"`),
//! clickable to select it and focusable (Enter or Space selects it; the SVG is a
//! `group`, not an `img`, so screen readers reach the subtasks). A CANCELED subtask
//! (the job is restarting) shows no backpressure level (`data-backpressure="none"`),
//! no busy/backpressured bar and no buffers in its channels. Each channel is a thin lane: the producer's result
//! subpartition (building buffer + queue, head nearest the wire) on the right of the
//! producer, the buffers on the wire at the middle of the curve, the consumer's input
//! channel queue (head nearest the consumer) on its left. Data buffers are cells filled
//! in proportion to bytes / capacity; captured (to-be-persisted) and recovered buffers
//! have their own colours; barriers are markers inside the queues (aligned: orange bar,
//! unaligned: purple diamond); at most [`MAX_CELLS`] data cells per queue, the rest as
//! `+N`. Reads only the snapshots it is given; sends only selections. With the
//! `compact` property (the comparison view shows two side by side) it drops the
//! description and the legend and is `data-testid="job-graph-<stem>"`.
//!
//! Rendering: the lanes (wires, queues, cells, barriers, blocked / persisting / no
//! credit marks) are painted onto one `<canvas>` (`data-testid="job-lanes"`, its
//! `data-channels` = lanes drawn, `data-draw-ms` = the last paint's wall time,
//! `data-scale` = CSS px per layout unit, `data-cell-px` = a buffer cell's width on the
//! screen) under
//! the SVG, imperatively after each render, batched by style ([`Scene`] then
//! [`paint`]) at the device pixel ratio; only the ~dozens of subtask boxes and the
//! headers stay in the virtual DOM (headers and legend are memoized components), so a
//! frame diffs a few hundred nodes whatever the number of buffers. Hovering a queue
//! area shows its channel's details as a title, like the SVG lanes did.
//!
//! Checkpoint phases: a subtask carries `data-checkpoint-phase` (the engine's phase at
//! the current instant: `aligning`, `sync`, `async`, …) and, in the sync and async
//! phases, a badge `phase-badge-<operator>-<index>` (`phase-sync`: solid, the box
//! outlined thick; `phase-async`: outlined in the captured colour). With `presentation`
//! `Some(_)` the panel has the `presentation-toggle` button; `Some(true)` draws fewer,
//! wider cells, bolder barriers and wires (the stylesheet scales the stage to the screen).

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};
use yew::prelude::*;

use crate::engine::task::{Activity, TaskStatus};
use crate::engine::view::{BackpressureLevel, ChannelView, ItemView, TaskView};
use crate::ui::command::Command;
use crate::ui::format;
use crate::ui::layout::{LaneGeom, Layout, TaskBox, BODY_W, CELL_GAP, CELL_W, MAX_CELLS, QUEUE_W};
use crate::ui::sim::LiveView;

use super::panel::Panel;

#[derive(Properties, PartialEq)]
pub struct JobGraphProps {
    pub layout: Rc<Layout>,
    pub live: Rc<LiveView>,
    pub selected: Option<usize>,
    pub on_select: Callback<Option<usize>>,
    /// Side-by-side form (comparison view): `(id stem, title)`; no description, no
    /// legend, and the panel's `data-testid` is `job-graph-<id stem>`.
    #[prop_or_default]
    pub compact: Option<(AttrValue, AttrValue)>,
    /// The colour theme (a change re-reads the canvas palette).
    #[prop_or_default]
    pub theme: AttrValue,
    /// Presentation mode: `Some(on)` shows the `presentation-toggle` button (the single
    /// view), and when on the lanes are drawn with bolder barriers and wires.
    #[prop_or_default]
    pub presentation: Option<bool>,
    /// Where the presentation toggle sends `Command::TogglePresentation`.
    #[prop_or_default]
    pub on_command: Option<Callback<Command>>,
}

/// The items of a queue to draw, in order, and how many data buffers were left out.
/// Events (barriers, cancel markers, end of partition) are always kept.
fn visible<'a>(items: &[&'a ItemView], cap: usize) -> (Vec<&'a ItemView>, usize) {
    let mut data_budget = cap;
    let mut hidden = 0;
    let mut out = Vec::new();
    for item in items {
        match item {
            ItemView::Data { .. } if data_budget == 0 => hidden += 1,
            ItemView::Data { .. } => {
                data_budget -= 1;
                out.push(*item);
            }
            _ => out.push(*item),
        }
    }
    (out, hidden)
}

/// `text` cut to `max` characters with an ellipsis (the full text goes in a title):
/// a long operator id must not run into its badge or the next column.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut t: String = text.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Presentation mode: data cells per queue and their width (layout units): three cells
/// of 12 fill the queue area that four of [`CELL_W`] do, 1.5× wider on the screen.
const BOLD_CELLS: usize = 3;
const BOLD_CELL_W: f64 = 12.0;

/// Characters of a subtask's name that fit beside its level badge.
const SUBTASK_NAME_CHARS: usize = 12;
/// Characters of an operator's id in its header, and of its list of inputs.
const OP_ID_CHARS: usize = 22;
const OP_INPUTS_CHARS: usize = 44;

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// An axis-aligned rectangle in layout coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn contains(&self, x: f64, y: f64) -> bool {
        x >= self.x && x <= self.x + self.w && y >= self.y && y <= self.y + self.h
    }
}

/// One channel's wire: a curve from the producer's lane to the consumer's.
struct Wire {
    x1: f64,
    y1: f64,
    x2: f64,
    y2: f64,
    no_credit: bool,
    closed: bool,
}

/// Everything the lanes draw, batched by style so that the canvas paints each style
/// with one path (a frame is a few dozen canvas calls per style, not per buffer).
#[derive(Default)]
struct Scene {
    wires: Vec<Wire>,
    lane_bg: Vec<Rect>,
    lane_persisting: Vec<Rect>,
    lane_blocked: Vec<Rect>,
    /// Cell outlines: plain, building, captured, recovered.
    boxes: [Vec<Rect>; 4],
    /// Cell fills: plain (and building), captured, recovered.
    fills: [Vec<Rect>; 3],
    aligned: Vec<Rect>,
    /// Unaligned barrier diamonds: centre and half height.
    unaligned: Vec<(f64, f64, f64)>,
    cancels: Vec<(f64, f64)>,
    eops: Vec<Rect>,
    /// `+N` labels: position, text, left-aligned.
    more: Vec<(f64, f64, String, bool)>,
    /// Queue areas for hover titles: area, index into the live channels.
    hits: Vec<(Rect, usize)>,
    /// Presentation mode: aligned barriers twice as wide, wires twice as thick.
    bold: bool,
}

impl Scene {
    fn build(layout: &Layout, live: &LiveView, bold: bool) -> Scene {
        let mut scene = Scene {
            bold,
            ..Scene::default()
        };
        // A cancelled subtask (the job is restarting) holds no buffers any more: its
        // channels are drawn as bare wires, without the old attempt's contents.
        let canceled = |t: usize| {
            live.tasks
                .get(t)
                .is_some_and(|t| t.status == TaskStatus::Canceled)
        };
        for (i, v) in live.channels.iter().enumerate() {
            if let Some(g) = layout.lanes.get(v.id) {
                if canceled(v.from_task) || canceled(v.to_task) {
                    let bare = ChannelView {
                        building: None,
                        sender: Vec::new(),
                        wire: Vec::new(),
                        receiver: Vec::new(),
                        sender_blocked: false,
                        blocked_at_receiver: false,
                        persisting: false,
                        ..v.clone()
                    };
                    scene.lane(i, g, &bare);
                } else {
                    scene.lane(i, g, v);
                }
            }
        }
        scene
    }

    fn lane(&mut self, index: usize, g: &LaneGeom, v: &ChannelView) {
        let out_h = (g.out_pitch - 3.0).max(2.0);
        let in_h = (g.in_pitch - 3.0).max(2.0);
        let x1 = g.out_x + QUEUE_W;
        let x2 = g.in_x - QUEUE_W;
        let mid = (x1 + x2) / 2.0;
        self.wires.push(Wire {
            x1,
            y1: g.out_y,
            x2,
            y2: g.in_y,
            no_credit: v.credit == 0 && !v.sender.is_empty(),
            closed: v.closed,
        });
        let out_area = Rect {
            x: g.out_x + 1.0,
            y: g.out_y - g.out_pitch / 2.0 + 0.5,
            w: QUEUE_W - 2.0,
            h: g.out_pitch - 1.0,
        };
        let in_area = Rect {
            x: x2 + 1.0,
            y: g.in_y - g.in_pitch / 2.0 + 0.5,
            w: QUEUE_W - 2.0,
            h: g.in_pitch - 1.0,
        };
        if v.sender_blocked {
            self.lane_blocked.push(out_area);
        } else {
            self.lane_bg.push(out_area);
        }
        if v.blocked_at_receiver {
            self.lane_blocked.push(in_area);
        } else if v.persisting {
            self.lane_persisting.push(in_area);
        } else {
            self.lane_bg.push(in_area);
        }
        self.hits.push((out_area, index));
        self.hits.push((in_area, index));
        // Sender side: building buffer at the body, then the queue tail .. head outwards.
        let mut sender: Vec<&ItemView> = Vec::new();
        if let Some(b) = &v.building {
            sender.push(b);
        }
        sender.extend(v.sender.iter().rev());
        // Presentation mode draws fewer, wider cells in the same queue area.
        let (cap, wire_cap) = if self.bold {
            (BOLD_CELLS, 2)
        } else {
            (MAX_CELLS, 3)
        };
        let (s_items, s_hidden) = visible(&sender, cap);
        let receiver: Vec<&ItemView> = v.receiver.iter().collect();
        let (r_items, r_hidden) = visible(&receiver, cap);
        let wire: Vec<&ItemView> = v.wire.iter().collect();
        let (w_items, w_hidden) = visible(&wire, wire_cap);
        let building = v.building.is_some();
        self.queue(
            &s_items,
            s_hidden,
            g.out_x + 3.0,
            1.0,
            g.out_y,
            out_h,
            building,
        );
        self.queue(&r_items, r_hidden, g.in_x - 3.0, -1.0, g.in_y, in_h, false);
        if !w_items.is_empty() || w_hidden > 0 {
            let h = out_h.min(in_h).max(5.0);
            let cy = (g.out_y + g.in_y) / 2.0;
            self.queue(&w_items, w_hidden, mid - 10.0, 1.0, cy, h, false);
        }
    }

    /// Lays out items from `start`, left to right (`dir = 1`) or right to left
    /// (`dir = -1`), centred on `cy`.
    #[allow(clippy::too_many_arguments)]
    fn queue(
        &mut self,
        items: &[&ItemView],
        hidden: usize,
        start: f64,
        dir: f64,
        cy: f64,
        h: f64,
        first_building: bool,
    ) {
        let mut x = start;
        let cell_w = if self.bold { BOLD_CELL_W } else { CELL_W };
        for (i, item) in items.iter().enumerate() {
            let diamond_r = (h / 2.0 + 2.0).max(4.0);
            let w = match item {
                ItemView::Data { .. } => cell_w,
                ItemView::Barrier {
                    unaligned: true, ..
                } => diamond_r * 1.4 + 1.0,
                ItemView::Barrier { .. } if self.bold => 6.0,
                ItemView::Barrier { .. } | ItemView::EndOfPartition => 4.0,
                ItemView::Cancel { .. } => 7.0,
            };
            let left = if dir > 0.0 { x } else { x - w };
            match item {
                ItemView::Data {
                    bytes,
                    capacity,
                    captured,
                    recovered,
                    ..
                } => {
                    let fill = (*bytes as f64 / (*capacity).max(1) as f64).clamp(0.0, 1.0);
                    let fh = (h * fill).max(if *bytes > 0 { 1.0 } else { 0.0 });
                    let (b, fl) = if *recovered {
                        (3, 2)
                    } else if *captured {
                        (2, 1)
                    } else if first_building && i == 0 {
                        (1, 0)
                    } else {
                        (0, 0)
                    };
                    self.boxes[b].push(Rect {
                        x: left,
                        y: cy - h / 2.0,
                        w: cell_w,
                        h,
                    });
                    if fh > 0.0 {
                        self.fills[fl].push(Rect {
                            x: left,
                            y: cy + h / 2.0 - fh,
                            w: cell_w,
                            h: fh,
                        });
                    }
                }
                ItemView::Barrier {
                    unaligned: true, ..
                } => self.unaligned.push((left + diamond_r * 0.7, cy, diamond_r)),
                ItemView::Barrier { .. } => self.aligned.push(Rect {
                    x: left,
                    y: cy - h / 2.0 - 2.0,
                    w: if self.bold { 5.0 } else { 3.0 },
                    h: h + 4.0,
                }),
                ItemView::Cancel { .. } => self.cancels.push((left, cy + 3.0)),
                ItemView::EndOfPartition => self.eops.push(Rect {
                    x: left,
                    y: cy - h / 2.0,
                    w: 3.0,
                    h,
                }),
            }
            x += dir * (w + CELL_GAP);
        }
        if hidden > 0 {
            self.more
                .push((x, cy + 3.0, format!("+{hidden}"), dir > 0.0));
        }
    }
}

/// The hover text of a channel's queue areas.
fn channel_title(v: &ChannelView) -> String {
    let no_credit = v.credit == 0 && !v.sender.is_empty();
    let mut title = format!(
        "channel {}: credit {}, {} queued at the sender, {} on the wire, {} at the receiver (exclusive {}, floating {}){}{}{}",
        v.id,
        v.credit,
        v.sender.len() + usize::from(v.building.is_some()),
        v.wire.len(),
        v.receiver.len(),
        v.exclusive,
        v.floating,
        if no_credit { "; no credit: backpressure" } else { "" },
        if v.blocked_at_receiver { "; blocked at the receiver (aligning)" } else { "" },
        if v.persisting { "; in-flight data being persisted" } else { "" },
    );
    let barriers: Vec<String> = v
        .building
        .iter()
        .chain(&v.sender)
        .chain(&v.wire)
        .chain(&v.receiver)
        .filter_map(|item| match item {
            ItemView::Barrier {
                id,
                unaligned,
                kind,
            } => Some(format!(
                "checkpoint barrier {id} ({}, {kind:?})",
                if *unaligned { "unaligned" } else { "aligned" }
            )),
            ItemView::Cancel { id } => Some(format!("CancelCheckpointMarker {id}")),
            ItemView::EndOfPartition => Some("EndOfPartition".to_string()),
            ItemView::Data { .. } => None,
        })
        .collect();
    for b in barriers {
        title.push('\n');
        title.push_str(&b);
    }
    title
}

/// The colours and fonts of the lanes, read from the stylesheet's custom properties
/// (so the canvas follows the light and dark themes like the SVG did).
#[derive(Clone)]
struct Palette {
    surface: String,
    border: String,
    border_strong: String,
    record: String,
    barrier: String,
    blocked: String,
    persisted: String,
    unaligned: String,
    recovered: String,
    high_bg: String,
    high_line: String,
    text: String,
    muted: String,
    sans: String,
    mono: String,
}

impl Palette {
    fn read(el: &web_sys::Element) -> Palette {
        let style = web_sys::window().and_then(|w| w.get_computed_style(el).ok().flatten());
        let var = |name: &str, fallback: &str| {
            style
                .as_ref()
                .and_then(|s| s.get_property_value(name).ok())
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| fallback.to_string())
        };
        Palette {
            surface: var("--surface", "#ffffff"),
            border: var("--border", "#dbe1ea"),
            border_strong: var("--border-strong", "#c3ccd9"),
            record: var("--record", "#7d9ad6"),
            barrier: var("--barrier", "#e8833a"),
            blocked: var("--blocked", "#d24c5a"),
            persisted: var("--persisted", "#3f9e78"),
            unaligned: var("--unaligned", "#8e44ad"),
            recovered: var("--recovered", "#1aa3b8"),
            high_bg: var("--high-bg", "#fde6e8"),
            high_line: var("--high-line", "#d24c5a"),
            text: var("--text", "#1b2433"),
            muted: var("--muted", "#5d687a"),
            sans: var("--sans", "sans-serif"),
            mono: var("--mono", "monospace"),
        }
    }
}

fn rects(ctx: &CanvasRenderingContext2d, list: &[Rect]) {
    ctx.begin_path();
    for r in list {
        ctx.rect(r.x, r.y, r.w, r.h);
    }
}

fn dash(ctx: &CanvasRenderingContext2d, pattern: &[f64]) {
    let array = js_sys::Array::new();
    for v in pattern {
        array.push(&JsValue::from_f64(*v));
    }
    let _ = ctx.set_line_dash(&array);
}

/// Paints `scene` (layout coordinates; the transform is set by the caller).
fn paint(ctx: &CanvasRenderingContext2d, scene: &Scene, pal: &Palette) {
    // Wires, grouped by (no credit, closed).
    for (no_credit, closed) in [(false, false), (false, true), (true, false), (true, true)] {
        ctx.begin_path();
        let mut any = false;
        for w in scene
            .wires
            .iter()
            .filter(|w| w.no_credit == no_credit && w.closed == closed)
        {
            let mid = (w.x1 + w.x2) / 2.0;
            ctx.move_to(w.x1, w.y1);
            ctx.bezier_curve_to(mid, w.y1, mid, w.y2, w.x2, w.y2);
            any = true;
        }
        if !any {
            continue;
        }
        let alpha = if no_credit { 0.8 } else { 1.0 } * if closed { 0.3 } else { 1.0 };
        ctx.set_global_alpha(alpha);
        ctx.set_line_width(if scene.bold { 2.0 } else { 1.0 });
        if no_credit {
            ctx.set_stroke_style_str(&pal.high_line);
            dash(ctx, &[3.0, 2.0]);
        } else {
            ctx.set_stroke_style_str(&pal.border_strong);
            dash(ctx, &[]);
        }
        ctx.stroke();
    }
    ctx.set_global_alpha(1.0);
    dash(ctx, &[]);
    // Lane backgrounds.
    for (list, fill, stroke, width) in [
        (
            &scene.lane_bg,
            pal.surface.as_str(),
            pal.border.as_str(),
            0.6,
        ),
        (
            &scene.lane_persisting,
            "#d6efe3",
            pal.persisted.as_str(),
            0.6,
        ),
        (
            &scene.lane_blocked,
            pal.high_bg.as_str(),
            pal.blocked.as_str(),
            1.6,
        ),
    ] {
        if list.is_empty() {
            continue;
        }
        rects(ctx, list);
        ctx.set_fill_style_str(fill);
        ctx.fill();
        ctx.set_stroke_style_str(stroke);
        ctx.set_line_width(width);
        ctx.stroke();
    }
    // Cells: outlines (filled with the surface), then the fills by bytes.
    let box_styles = [
        (pal.record.as_str(), 0.8, false),
        (pal.record.as_str(), 0.8, true),
        (pal.persisted.as_str(), 1.2, false),
        (pal.recovered.as_str(), 1.2, false),
    ];
    for (list, (stroke, width, dashed)) in scene.boxes.iter().zip(box_styles) {
        if list.is_empty() {
            continue;
        }
        rects(ctx, list);
        ctx.set_fill_style_str(&pal.surface);
        ctx.fill();
        ctx.set_stroke_style_str(stroke);
        ctx.set_line_width(width);
        dash(ctx, if dashed { &[2.0, 1.0] } else { &[] });
        ctx.stroke();
    }
    dash(ctx, &[]);
    for (list, fill) in scene.fills.iter().zip([
        pal.record.as_str(),
        pal.persisted.as_str(),
        pal.recovered.as_str(),
    ]) {
        if list.is_empty() {
            continue;
        }
        rects(ctx, list);
        ctx.set_fill_style_str(fill);
        ctx.fill();
    }
    // Events.
    if !scene.aligned.is_empty() {
        rects(ctx, &scene.aligned);
        ctx.set_fill_style_str(&pal.barrier);
        ctx.fill();
    }
    if !scene.eops.is_empty() {
        rects(ctx, &scene.eops);
        ctx.set_fill_style_str(&pal.text);
        ctx.fill();
    }
    if !scene.unaligned.is_empty() {
        ctx.begin_path();
        for &(cx, cy, r) in &scene.unaligned {
            ctx.move_to(cx, cy - r);
            ctx.line_to(cx + r * 0.7, cy);
            ctx.line_to(cx, cy + r);
            ctx.line_to(cx - r * 0.7, cy);
            ctx.close_path();
        }
        ctx.set_fill_style_str(&pal.unaligned);
        ctx.fill();
        ctx.set_stroke_style_str("#fff");
        ctx.set_line_width(0.6);
        ctx.stroke();
    }
    if !scene.cancels.is_empty() {
        ctx.set_font(&format!("700 11px {}", pal.sans));
        ctx.set_text_align("start");
        ctx.set_fill_style_str(&pal.blocked);
        for &(x, y) in &scene.cancels {
            let _ = ctx.fill_text("×", x, y);
        }
    }
    if !scene.more.is_empty() {
        ctx.set_font(&format!("9px {}", pal.mono));
        ctx.set_fill_style_str(&pal.muted);
        for (x, y, text, start) in &scene.more {
            ctx.set_text_align(if *start { "start" } else { "end" });
            let _ = ctx.fill_text(text, *x, *y);
        }
    }
}

/// What the lane canvas last drew, for hover titles and redraws on resize.
#[derive(Default)]
struct Drawn {
    data: Option<(Rc<Layout>, Rc<LiveView>)>,
    hits: Vec<(Rect, usize)>,
    palette: Option<Palette>,
    /// The canvas's CSS width, from the ResizeObserver (read once if it has not
    /// reported yet).
    css_width: Option<f64>,
    /// The theme the palette was read in.
    theme: AttrValue,
    /// Presentation mode (bold marks).
    bold: bool,
}

/// Draws the lanes of `live` onto `canvas`, sized to its box at the device pixel
/// ratio, and remembers what it drew in `drawn`.
fn draw(canvas: &HtmlCanvasElement, drawn: &mut Drawn) {
    let Some((layout, live)) = drawn.data.clone() else {
        return;
    };
    let css_w = *drawn
        .css_width
        .get_or_insert_with(|| canvas.client_width() as f64);
    if css_w <= 0.0 || layout.width <= 0.0 {
        return;
    }
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())
    else {
        return;
    };
    let scale = css_w / layout.width;
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .max(1.0);
    let pw = (css_w * dpr).round() as u32;
    let ph = (layout.height * scale * dpr).round() as u32;
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, pw as f64, ph as f64);
    let _ = ctx.set_transform(scale * dpr, 0.0, 0.0, scale * dpr, 0.0, 0.0);
    let palette = drawn
        .palette
        .get_or_insert_with(|| Palette::read(canvas))
        .clone();
    let perf = web_sys::window().and_then(|w| w.performance());
    let start = perf.as_ref().map(|p| p.now());
    let scene = Scene::build(&layout, &live, drawn.bold);
    paint(&ctx, &scene, &palette);
    let _ = canvas.set_attribute("data-channels", &scene.wires.len().to_string());
    // CSS pixels per layout unit, and a data cell's width on the screen.
    let _ = canvas.set_attribute("data-scale", &format!("{scale:.3}"));
    let cell = if drawn.bold { BOLD_CELL_W } else { CELL_W };
    let _ = canvas.set_attribute("data-cell-px", &format!("{:.2}", cell * scale));
    if let (Some(p), Some(start)) = (perf, start) {
        let _ = canvas.set_attribute("data-draw-ms", &format!("{:.2}", p.now() - start));
    }
    drawn.hits = scene.hits;
}

#[derive(Properties, PartialEq)]
struct NodeProps {
    geom: TaskBox,
    view: TaskView,
    selected: bool,
    on_select: Callback<Option<usize>>,
}

fn level_class(level: BackpressureLevel) -> &'static str {
    match level {
        BackpressureLevel::Ok => "bp-ok",
        BackpressureLevel::Low => "bp-low",
        BackpressureLevel::High => "bp-high",
    }
}

pub fn activity_name(a: Activity) -> &'static str {
    match a {
        Activity::Idle => "idle",
        Activity::Busy => "busy",
        Activity::SoftBackpressured => "backpressured (waiting for an output buffer)",
        Activity::HardBackpressured => "backpressured (blocked mid-record)",
    }
}

pub fn status_name(s: TaskStatus) -> &'static str {
    match s {
        TaskStatus::Recovering => "INITIALIZING",
        TaskStatus::Running => "RUNNING",
        TaskStatus::Finishing => "FINISHING",
        TaskStatus::Finished => "FINISHED",
        TaskStatus::Canceled => "CANCELED",
    }
}

#[function_component(SubtaskNode)]
fn subtask_node(props: &NodeProps) -> Html {
    let g = &props.geom;
    let v = &props.view;
    let task = g.task;
    let selected = props.selected;
    let onclick = {
        let cb = props.on_select.clone();
        Callback::from(move |_: MouseEvent| cb.emit(if selected { None } else { Some(task) }))
    };
    // Operable from the keyboard: Enter or Space opens (or closes) it in the inspector;
    // the key is consumed, so Space does not also toggle Play.
    let onkeydown = {
        let cb = props.on_select.clone();
        Callback::from(move |e: KeyboardEvent| {
            if matches!(e.key().as_str(), "Enter" | " " | "Spacebar") {
                e.prevent_default();
                cb.emit(if selected { None } else { Some(task) });
            }
        })
    };
    // A cancelled subtask (the job is restarting) has no backpressure level.
    let canceled = v.status == TaskStatus::Canceled;
    let level = if canceled {
        "—"
    } else {
        v.backpressure.name()
    };
    let status_class = match v.status {
        TaskStatus::Running => None,
        TaskStatus::Recovering => Some("st-recovering"),
        TaskStatus::Canceled => Some("st-canceled"),
        TaskStatus::Finishing | TaskStatus::Finished => Some("st-finished"),
    };
    let title = format!(
        "{} — {} · backpressure {}\nbusy {} · backpressured {} · idle {} (last second)\nnow: {}\nbarrier handler: {}{}\noutput buffers {}/{}{}",
        v.name,
        status_name(v.status),
        level,
        format::pct(v.busy),
        format::pct(v.backpressured),
        format::pct(v.idle),
        activity_name(v.activity),
        v.handler_state,
        v.checkpoint
            .map(|(id, phase)| format!("\ncheckpoint {id}: {phase}"))
            .unwrap_or_default(),
        v.output_pool.0,
        v.output_pool.1,
        if v.overdraft_in_use > 0 {
            format!(" (+{} overdraft)", v.overdraft_in_use)
        } else {
            String::new()
        }
    );
    let phase = v
        .checkpoint
        .map(|(id, phase)| format!("cp {id}: {phase}"))
        .unwrap_or_else(|| match v.status {
            TaskStatus::Running => format!("out {}/{}", v.output_pool.0, v.output_pool.1),
            s => status_name(s).to_string(),
        });
    // The two phases of the subtask's checkpoint, as badges the eye catches: a solid one
    // while the synchronous snapshot holds the task thread, an outlined one while the
    // asynchronous part writes state and channel state.
    let phase_kind = v.checkpoint.map(|(_, p)| match p {
        "sync" => "sync",
        p if p.starts_with("async") => "async",
        _ => "other",
    });
    let badge = match (v.checkpoint, phase_kind) {
        (Some((id, _)), Some("sync")) => {
            Some(("phase-badge phase-sync", format!("SYNC snap · cp {id}")))
        }
        (Some((id, p)), Some("async")) => Some((
            "phase-badge phase-async",
            if p.contains("in-flight") {
                "ASYNC+in-flight".to_string()
            } else {
                format!("ASYNC write · cp {id}")
            },
        )),
        _ => None,
    };
    let bar_w = BODY_W - 12.0;
    let bx = g.x + 6.0;
    let by = g.y + g.h - 8.0;
    let busy_w = bar_w * v.busy.clamp(0.0, 1.0);
    let bp_w = bar_w * v.backpressured.clamp(0.0, 1.0);
    html! {
        <g class={classes!("subtask", (!canceled).then(|| level_class(v.backpressure)), status_class, selected.then_some("selected"), (phase_kind == Some("sync")).then_some("cp-sync"))}
            data-testid={format!("subtask-{}-{}", g.operator, g.index)}
            data-backpressure={if canceled { "none" } else { v.backpressure.name() }}
            data-status={status_name(v.status)}
            data-checkpoint-phase={v.checkpoint.map(|(_, p)| p)}
            role="button" tabindex="0" aria-pressed={selected.to_string()}
            aria-label={format!("{} — {}, backpressure {level}", v.name, status_name(v.status))}
            {onclick} {onkeydown}>
            <title>{ title }</title>
            <rect class="subtask-box" x={f(g.x)} y={f(g.y)} width={f(BODY_W)} height={f(g.h)} rx="4" />
            <text class="subtask-name" x={f(g.x + 6.0)} y={f(g.y + 13.0)}>{ clip(&v.name, SUBTASK_NAME_CHARS) }</text>
            <text class="subtask-level" x={f(g.x + BODY_W - 6.0)} y={f(g.y + 13.0)} text-anchor="end">{ level }</text>
            if let Some((class, text)) = badge {
                <g class={class} data-testid={format!("phase-badge-{}-{}", g.operator, g.index)}>
                    <rect class="phase-badge-box" x={f(g.x + 3.0)} y={f(g.y + 16.5)} width={f(BODY_W - 6.0)} height="13" rx="3" />
                    <text class="phase-badge-text" x={f(g.x + 7.0)} y={f(g.y + 26.5)}>{ text }</text>
                </g>
            } else {
                <text class={classes!("subtask-phase", v.checkpoint.is_some().then_some("in-checkpoint"))}
                    x={f(g.x + 6.0)} y={f(g.y + 26.0)}>{ phase }</text>
            }
            <rect class="ratio-bg" x={f(bx)} y={f(by)} width={f(bar_w)} height="3" />
            if !canceled {
                <rect class="ratio-busy" x={f(bx)} y={f(by)} width={f(busy_w)} height="3" />
                <rect class="ratio-bp" x={f(bx + busy_w)} y={f(by)} width={f(bp_w)} height="3" />
            }
        </g>
    }
}

/// The legend of the job view (no props: rendered once).
#[function_component(Legend)]
fn legend() -> Html {
    let item = |svg: Html, text: &'static str| {
        html! {
            <li>
                <svg width="18" height="14" viewBox="0 0 18 14" aria-hidden="true">{ svg }</svg>
                { text }
            </li>
        }
    };
    html! {
        <ul class="legend" aria-label="Legend">
            { item(html!{ <g class="cell"><rect class="cell-box" x="5" y="2" width="8" height="10"/><rect class="cell-fill" x="5" y="6" width="8" height="6"/></g> }, crate::ui::i18n::t("buffer (fill = bytes)")) }
            { item(html!{ <g class="cell cell-captured"><rect class="cell-box" x="5" y="2" width="8" height="10"/><rect class="cell-fill" x="5" y="4" width="8" height="8"/></g> }, crate::ui::i18n::t("captured for UC")) }
            { item(html!{ <g class="cell cell-recovered"><rect class="cell-box" x="5" y="2" width="8" height="10"/><rect class="cell-fill" x="5" y="4" width="8" height="8"/></g> }, crate::ui::i18n::t("recovered")) }
            { item(html!{ <rect class="barrier barrier-aligned" x="7" y="0" width="3" height="14"/> }, crate::ui::i18n::t("aligned barrier")) }
            { item(html!{ <polygon class="barrier barrier-unaligned" points="9,1 14,7 9,13 4,7"/> }, crate::ui::i18n::t("unaligned barrier")) }
            { item(html!{ <rect class="lane-bg lane-blocked" x="1" y="3" width="16" height="8"/> }, crate::ui::i18n::t("blocked (aligning)")) }
            { item(html!{ <rect class="lane-bg lane-persisting" x="1" y="3" width="16" height="8"/> }, crate::ui::i18n::t("being persisted")) }
            { item(html!{ <path class="wire wire-no-credit" d="M0,7 L18,7"/> }, crate::ui::i18n::t("no credit")) }
            { item(html!{ <rect class="legend-bp bp-ok" x="1" y="2" width="16" height="10" rx="2"/> }, "OK") }
            { item(html!{ <rect class="legend-bp bp-low" x="1" y="2" width="16" height="10" rx="2"/> }, "LOW") }
            { item(html!{ <rect class="legend-bp bp-high" x="1" y="2" width="16" height="10" rx="2"/> }, crate::ui::i18n::t("HIGH backpressure")) }
        </ul>
    }
}

#[derive(Properties, PartialEq)]
struct HeadersProps {
    layout: Rc<Layout>,
}

/// The operator headers: change only with the layout.
#[function_component(OpHeaders)]
fn op_headers(props: &HeadersProps) -> Html {
    let headers = props.layout.ops.iter().map(|o| {
        html! {
            <g class="op-header">
                <title>{ format!("{} ({} ×{})", o.id, o.kind, o.parallelism) }</title>
                <text class="op-name" x={f(o.x)} y={f(o.y + 11.0)}>
                    { clip(&o.id, OP_ID_CHARS) }
                    <tspan class="op-kind">{ format!("  {} ×{}", o.kind, o.parallelism) }</tspan>
                </text>
                if !o.inputs.is_empty() {
                    <text class="op-inputs" x={f(o.x)} y={f(o.y + 23.0)}>{ clip(&format!("← {}", o.inputs.join(", ")), OP_INPUTS_CHARS) }</text>
                }
            </g>
        }
    });
    html! { <g class="op-headers">{ for headers }</g> }
}

/// The job view panel.
#[function_component(JobGraphPanel)]
pub fn job_graph_panel(props: &JobGraphProps) -> Html {
    crate::ui::i18n::use_lang();
    let layout = &props.layout;
    let live = &props.live;
    let canvas = use_node_ref();
    let stage = use_node_ref();
    let drawn = use_mut_ref(Drawn::default);
    {
        // After every render (a new live view): redraw the lanes imperatively.
        let canvas = canvas.clone();
        let drawn = drawn.clone();
        let data = (layout.clone(), live.clone());
        let theme = props.theme.clone();
        let bold = props.presentation == Some(true);
        use_effect(move || {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let mut d = drawn.borrow_mut();
                d.bold = bold;
                if d.theme != theme {
                    d.theme = theme;
                    d.palette = None;
                }
                d.data = Some(data);
                draw(&c, &mut d);
            }
        });
    }
    {
        // Track the canvas's CSS width with a ResizeObserver (reading `clientWidth`
        // in every frame would force a synchronous layout) and redraw on a change.
        let canvas = canvas.clone();
        let drawn = drawn.clone();
        use_effect_with((), move |_| {
            let target = canvas.cast::<HtmlCanvasElement>();
            let closure = Closure::wrap(Box::new(move |entries: js_sys::Array| {
                let Some(entry) = entries
                    .get(0)
                    .dyn_into::<web_sys::ResizeObserverEntry>()
                    .ok()
                else {
                    return;
                };
                let width = entry.content_rect().width();
                if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                    let mut d = drawn.borrow_mut();
                    if d.css_width != Some(width) {
                        d.css_width = Some(width);
                        d.palette = None;
                        draw(&c, &mut d);
                    }
                }
            }) as Box<dyn FnMut(js_sys::Array)>);
            let observer = web_sys::ResizeObserver::new(closure.as_ref().unchecked_ref()).ok();
            if let (Some(o), Some(t)) = (&observer, &target) {
                o.observe(t);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(closure);
            }
        });
    }
    let onmousemove = {
        let drawn = drawn.clone();
        let stage = stage.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(el) = stage.cast::<web_sys::Element>() else {
                return;
            };
            let d = drawn.borrow();
            let Some((layout, live)) = &d.data else {
                return;
            };
            let r = el.get_bounding_client_rect();
            if r.width() <= 0.0 {
                return;
            }
            let k = layout.width / r.width();
            let x = (e.client_x() as f64 - r.left()) * k;
            let y = (e.client_y() as f64 - r.top()) * k;
            let hit = d
                .hits
                .iter()
                .find(|(area, _)| area.contains(x, y))
                .and_then(|(_, i)| live.channels.get(*i));
            match hit {
                Some(v) => {
                    let title = channel_title(v);
                    if el.get_attribute("title").as_deref() != Some(title.as_str()) {
                        let _ = el.set_attribute("title", &title);
                    }
                }
                None => {
                    if el.has_attribute("title") {
                        let _ = el.remove_attribute("title");
                    }
                }
            }
        })
    };
    let nodes = live.tasks.iter().filter_map(|t| {
        let geom = layout.tasks.get(t.id)?.clone();
        Some(html! {
            <SubtaskNode key={t.id} {geom} view={t.clone()}
                selected={props.selected == Some(t.id)} on_select={props.on_select.clone()} />
        })
    });
    let toggle = match (props.presentation, &props.on_command) {
        (Some(on), Some(cb)) => {
            let cb = cb.clone();
            let onclick = Callback::from(move |_: MouseEvent| cb.emit(Command::TogglePresentation));
            Some(html! {
                <button type="button" class="control presentation-toggle" data-testid="presentation-toggle"
                    aria-pressed={on.to_string()} title="Presentation mode: the job view alone, full screen, larger marks, high contrast (key p; Esc leaves it)"
                    {onclick}>
                    { if on { crate::ui::i18n::t("Leave presentation") } else { crate::ui::i18n::t("Present") } }
                </button>
            })
        }
        _ => None,
    };
    let actions = html! {
        <>
            <span class="badge" title="Checkpoint pending at the coordinator">
                { live.pending_checkpoint.map(|id| crate::ui::i18n::tf("checkpoint {0} pending", &[&id])).unwrap_or_else(|| crate::ui::i18n::t("no checkpoint pending").into()) }
            </span>
            { for toggle }
        </>
    };
    let onclick_bg = {
        let cb = props.on_select.clone();
        Callback::from(move |e: MouseEvent| {
            if let Some(el) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                if el.tag_name().eq_ignore_ascii_case("svg") {
                    cb.emit(None);
                }
            }
        })
    };
    let (id, title, testid, class, description) = match &props.compact {
        Some((stem, title)) => (
            AttrValue::from(format!("job-graph-{stem}")),
            title.clone(),
            AttrValue::from(format!("job-graph-{stem}")),
            classes!("job-graph-compact"),
            None,
        ),
        None => (
            AttrValue::from("job-graph"),
            AttrValue::from(crate::ui::i18n::t("Job graph")),
            AttrValue::from("job-graph"),
            classes!("area-graph"),
            Some(AttrValue::from(crate::ui::i18n::t("Subtasks coloured by backpressure; every channel's buffers from the producer's subpartition, over the wire, into the consumer's input channel. Click a subtask to inspect or fail it."))),
        ),
    };
    html! {
        <Panel id={id} title={title} testid={testid} class={class}
            description={description} actions={actions}>
            <div class="canvas" data-testid="job-graph-canvas">
                <div class="job-stage" ref={stage}
                    style={format!("--stage-w:{}px;--stage-aspect:{:.4}", f(layout.width), layout.width / layout.height.max(1.0))}
                    {onmousemove}>
                    <canvas ref={canvas} class="lanes-canvas" data-testid="job-lanes" aria-hidden="true" />
                    <svg class="job-svg" viewBox={format!("0 0 {} {}", f(layout.width), f(layout.height))}
                        width="100%" role="group" aria-label="Execution graph: one button per subtask" onclick={onclick_bg}>
                        <OpHeaders layout={layout.clone()} />
                        <g class="nodes">{ for nodes }</g>
                    </svg>
                </div>
            </div>
            if props.compact.is_none() {
                <Legend />
            }
        </Panel>
    }
}
