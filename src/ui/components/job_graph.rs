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
//! screen, `data-box-px` / `data-box-h-px` = a subtask box's width and smallest height on
//! the screen, `data-tiers` / `data-groups` = the layout's fold) under
//! the SVG, imperatively after each render, batched by style ([`Scene`] then
//! [`paint`]) at the device pixel ratio; only the ~dozens of subtask boxes and the
//! headers stay in the virtual DOM (headers and legend are memoized components), so a
//! frame diffs a few hundred nodes whatever the number of buffers. Hovering a queue
//! area shows its channel's details as a title, like the SVG lanes did.
//!
//! Names far out: when the fitted or zoomed scale would draw the operator ids below
//! [`zoom::LEGIBLE_FONT_PX`], the SVG has `data-text="boosted"` (else `normal`) and
//! `--text-boost` (see [`zoom::text_boost`]): the stylesheet enlarges the ids (each
//! header's text in its own clipping `<svg class="vertex-room">`) and the subtask names,
//! which shorten to their index (`1/2`), and leaves out the small print.
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

use crate::engine::network::ChannelKind;
use crate::engine::task::{Activity, TaskStatus};
use crate::engine::view::{BackpressureLevel, ChannelView, ItemView, TaskView};
use crate::ui::command::Command;
use crate::ui::format;
use crate::ui::layout::{
    BlockGeom, EdgeGeom, LaneGeom, Layout, TaskBox, BODY_W, CELL_GAP, CELL_W, MAX_CELLS, QUEUE_W,
};
use crate::ui::sim::LiveView;

use super::job_view::blocks::{self, Level, Nodes, Tally};
use super::job_view::chips;
use super::job_view::lanes::{self, AggLane, Detail};
use super::job_view::zoom::{self, Size, Viewport};
use super::panel::Panel;
use crate::ui::i18n::{t, t_dyn, tf};

#[derive(Properties)]
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

/// The snapshots compare by identity: the host replaces an `Rc` only when it cuts a new
/// one, and a deep comparison of the live view (every channel's queues) and the layout
/// on every frame of the page cost more than the render it saved.
impl PartialEq for JobGraphProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.layout, &other.layout)
            && Rc::ptr_eq(&self.live, &other.live)
            && self.selected == other.selected
            && self.on_select == other.on_select
            && self.compact == other.compact
            && self.theme == other.theme
            && self.presentation == other.presentation
            && self.on_command == other.on_command
    }
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

/// The operator id's font size in the stylesheet (`.op-name`), in layout units.
const OP_NAME_FONT: f64 = 12.0;

/// A subtask's short name for a far view: the index in its name's last parentheses
/// (`count (2/4)` → `2/4`), or its 1-based index.
fn subtask_index(name: &str, index: u32) -> String {
    name.rfind('(')
        .and_then(|open| {
            let inner = &name[open + 1..];
            inner.find(')').map(|close| inner[..close].to_string())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| (index + 1).to_string())
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
    /// A local channel (same TaskManager): no wire, no credit — drawn dotted.
    local: bool,
}

/// What a hover or lane focus points at.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hit {
    /// An index into the live channels.
    Channel(usize),
    /// An edge's aggregated lane.
    Edge(usize),
}

/// One edge's aggregated lane: a band from its producers to its consumers.
struct Ribbon {
    g: EdgeGeom,
    agg: AggLane,
    /// Carries the edge's figures (its first band).
    label: bool,
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
    /// Aggregated lanes (far or large jobs).
    ribbons: Vec<Ribbon>,
    /// Hover areas: queue areas (channels) or aggregated lanes (edges).
    hits: Vec<(Rect, Hit)>,
    /// Lanes drawn by kind.
    local: usize,
    remote: usize,
    /// Presentation mode: aligned barriers twice as wide, wires twice as thick.
    bold: bool,
}

impl Scene {
    /// The lanes of `live` at `detail`; in the channels detail, only those whose area
    /// meets `vis` (the visible layout rectangle: x, y, w, h).
    fn build(
        layout: &Layout,
        live: &LiveView,
        bold: bool,
        detail: Detail,
        vis: (f64, f64, f64, f64),
    ) -> Scene {
        let mut scene = Scene {
            bold,
            ..Scene::default()
        };
        if let Detail::Aggregated(_) = detail {
            for (i, g) in layout.edges.iter().enumerate() {
                let Some(a) = live.aggregated.get(g.edge).cloned() else {
                    continue;
                };
                // A folded layout has one band per group of TaskManagers: the edge's
                // figures go on its first, its channels are counted once.
                let first = i == 0 || layout.edges[i - 1].edge != g.edge;
                if !first {
                    let area = Rect {
                        x: g.from_x.min(g.to_x),
                        y: g.from_y0.min(g.to_y0),
                        w: (g.to_x - g.from_x).abs(),
                        h: g.from_y1.max(g.to_y1) - g.from_y0.min(g.to_y0),
                    };
                    scene.hits.push((area, Hit::Edge(g.edge)));
                    scene.ribbons.push(Ribbon {
                        g: g.clone(),
                        agg: a,
                        label: false,
                    });
                    continue;
                }
                scene.local += a.local as usize;
                scene.remote += a.remote as usize;
                let area = Rect {
                    x: g.from_x,
                    y: g.from_y0.min(g.to_y0),
                    w: g.to_x - g.from_x,
                    h: g.from_y1.max(g.to_y1) - g.from_y0.min(g.to_y0),
                };
                scene.hits.push((area, Hit::Edge(g.edge)));
                scene.ribbons.push(Ribbon {
                    g: g.clone(),
                    agg: a,
                    label: true,
                });
            }
            return scene;
        }
        let (vx, vy, vw, vh) = vis;
        let seen = |g: &LaneGeom| {
            let x0 = g.out_x.min(g.in_x - QUEUE_W);
            let x1 = (g.out_x + QUEUE_W).max(g.in_x);
            let y0 = g.out_y.min(g.in_y) - 8.0;
            let y1 = g.out_y.max(g.in_y) + 8.0;
            x1 >= vx && x0 <= vx + vw && y1 >= vy && y0 <= vy + vh
        };
        // A cancelled subtask (the job is restarting) holds no buffers any more: its
        // channels are drawn as bare wires, without the old attempt's contents.
        let canceled = |t: usize| {
            live.tasks
                .get(t)
                .is_some_and(|t| t.status == TaskStatus::Canceled)
        };
        for (i, v) in live.channels.iter().enumerate() {
            if let Some(g) = layout.lanes.get(v.id).filter(|g| seen(g)) {
                match v.kind {
                    ChannelKind::Local => scene.local += 1,
                    ChannelKind::Remote => scene.remote += 1,
                }
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
            no_credit: lanes::starved(v),
            closed: v.closed,
            local: v.kind == ChannelKind::Local,
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
        self.hits.push((out_area, Hit::Channel(index)));
        self.hits.push((in_area, Hit::Channel(index)));
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
fn channel_title(v: &ChannelView, layout: &Layout) -> String {
    let no_credit = lanes::starved(v);
    let name = |t: usize| {
        layout
            .tasks
            .get(t)
            .map(|b| format!("{} ({})", b.operator, b.index + 1))
            .unwrap_or_default()
    };
    let mut title = format!(
        "{} → {}\n{}{}{}{}",
        name(v.from_task),
        name(v.to_task),
        lanes::channel_summary(v),
        if no_credit {
            "; no credit: backpressure"
        } else {
            ""
        },
        if v.blocked_at_receiver {
            "; blocked at the receiver (aligning)"
        } else {
            ""
        },
        if v.persisting {
            "; in-flight data being persisted"
        } else {
            ""
        },
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
    local: String,
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
            local: var("--local-lane", "#2f8f5b"),
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
    paint_ribbons(ctx, &scene.ribbons, pal);
    // Wires, grouped by (local, no credit, closed). A local channel is dotted: it has no
    // wire and no credit (its consumer reads the producer's subpartition).
    for (local, no_credit, closed) in [
        (false, false, false),
        (false, false, true),
        (false, true, false),
        (false, true, true),
        (true, false, false),
        (true, false, true),
    ] {
        ctx.begin_path();
        let mut any = false;
        for w in scene
            .wires
            .iter()
            .filter(|w| w.local == local && w.no_credit == no_credit && w.closed == closed)
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
        let width = if scene.bold { 2.0 } else { 1.0 };
        if no_credit {
            ctx.set_line_width(width);
            ctx.set_stroke_style_str(&pal.high_line);
            dash(ctx, &[3.0, 2.0]);
        } else if local {
            ctx.set_line_width(width * 1.6);
            ctx.set_stroke_style_str(&pal.local);
            dash(ctx, &[1.0, 2.5]);
        } else {
            ctx.set_line_width(width);
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

/// The aggregated lanes: one band per edge from its producers' output areas to its
/// consumers' input areas, red and dashed where remote channels have no credit, dotted
/// where every channel is local; its figures are drawn by [`paint_ribbon_labels`].
fn paint_ribbons(ctx: &CanvasRenderingContext2d, ribbons: &[Ribbon], pal: &Palette) {
    for r in ribbons {
        let g = &r.g;
        let mid = (g.from_x + g.to_x) / 2.0;
        ctx.begin_path();
        ctx.move_to(g.from_x, g.from_y0);
        ctx.bezier_curve_to(mid, g.from_y0, mid, g.to_y0, g.to_x, g.to_y0);
        ctx.line_to(g.to_x, g.to_y1);
        ctx.bezier_curve_to(mid, g.to_y1, mid, g.from_y1, g.from_x, g.from_y1);
        ctx.close_path();
        let starved = r.agg.starved > 0;
        let only_local = r.agg.remote == 0;
        ctx.set_global_alpha(0.22);
        ctx.set_fill_style_str(if starved {
            &pal.high_line
        } else if only_local {
            &pal.local
        } else {
            &pal.record
        });
        ctx.fill();
        ctx.set_global_alpha(1.0);
        ctx.set_line_width(1.2);
        if starved {
            ctx.set_stroke_style_str(&pal.high_line);
            dash(ctx, &[4.0, 3.0]);
        } else if only_local {
            ctx.set_stroke_style_str(&pal.local);
            dash(ctx, &[1.0, 2.5]);
        } else {
            ctx.set_stroke_style_str(&pal.record);
            dash(ctx, &[]);
        }
        ctx.stroke();
        dash(ctx, &[]);
        // The backlog as a bar along the middle: its length is the share of the
        // buffers the edge's channels could hold that are queued.
        let cap = (r.agg.channels as f64 * 4.0).max(1.0);
        let share = (r.agg.backlog() as f64 / cap).clamp(0.0, 1.0);
        let cy = (g.from_y0 + g.from_y1 + g.to_y0 + g.to_y1) / 4.0;
        let span = (g.to_x - g.from_x) * 0.8;
        let h = ((g.from_y1 - g.from_y0).min(g.to_y1 - g.to_y0) * 0.25).clamp(2.0, 10.0);
        ctx.set_fill_style_str(&pal.record);
        ctx.fill_rect(mid - span / 2.0, cy - h / 2.0, span * share, h);
        if r.agg.barriers > 0 {
            ctx.set_fill_style_str(if r.agg.unaligned_barriers > 0 {
                &pal.unaligned
            } else {
                &pal.barrier
            });
            ctx.fill_rect(mid - 1.5, cy - h * 1.5, 3.0, h * 3.0);
        }
    }
}

/// The figures of each aggregated lane, as HTML chips over the SVG (so subtask boxes do
/// not hide them), at a fixed screen size whatever the zoom: one element per lane in
/// `labels`, reused between frames and changed only where the text or place changed.
/// A chip goes only where it covers none of `obstacles` (the drawn subtask boxes or
/// operator blocks, screen px) and no other chip; else its glyph (the backlog alone),
/// else nothing ([`chips::place`]); a lane whose middle is off the stage gets none.
fn place_ribbon_labels(
    labels: &web_sys::Element,
    ribbons: &[Ribbon],
    vp: &Viewport,
    view: Size,
    obstacles: &[chips::ScreenRect],
) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let size = |text: &str| {
        let lines = text.lines().count() as f64;
        let chars = text.lines().map(|l| l.chars().count()).max().unwrap_or(0) as f64;
        (chars * CHIP_CHAR_PX + 10.0, lines * CHIP_LINE_PX + 4.0)
    };
    let mut wants = Vec::new();
    let mut texts = Vec::new();
    for r in ribbons.iter().filter(|r| r.label) {
        let a = &r.agg;
        let g = &r.g;
        // The anchor: the band's middle, moved into the part of the band on the stage
        // (zoomed in on a tall band, its chip follows the screen); none when the band
        // is off the stage.
        let y0 = (g.from_y0.min(g.to_y0) - vp.y) * vp.k;
        let y1 = (g.from_y1.max(g.to_y1) - vp.y) * vp.k;
        let (bx0, bx1) = (
            (g.from_x.min(g.to_x) - vp.x) * vp.k,
            (g.from_x.max(g.to_x) - vp.x) * vp.k,
        );
        let (vy0, vy1) = (y0.max(0.0), y1.min(view.h));
        if bx1 < 0.0 || bx0 > view.w || vy0 > vy1 {
            continue;
        }
        let cx = (((g.from_x + g.to_x) / 2.0 - vp.x) * vp.k).clamp(bx0.max(0.0), bx1.min(view.w));
        let cy =
            (((g.from_y0 + g.from_y1 + g.to_y0 + g.to_y1) / 4.0 - vp.y) * vp.k).clamp(vy0, vy1);
        let mut text = format!(
            "{} ch · {} local\nbacklog {} · credit {}",
            a.channels,
            a.local,
            a.backlog(),
            a.credit
        );
        if a.barriers > 0 {
            text.push_str(&format!("\n{} barriers in flight", a.barriers));
        }
        if a.starved > 0 {
            text.push_str(&format!("\n{} without credit", a.starved));
        }
        let glyph = format!("{}{}", a.backlog(), if a.barriers > 0 { " ▮" } else { "" });
        wants.push(chips::Want {
            cx,
            cy,
            y0: vy0,
            y1: vy1,
            sizes: vec![size(&text), size(&glyph)],
        });
        texts.push((r, text, glyph));
    }
    let at = chips::place(&wants, obstacles);
    let shown: Vec<_> = at
        .iter()
        .zip(&wants)
        .zip(&texts)
        .filter_map(|((p, w), t)| p.map(|p| (p, w, t)))
        .collect();
    let children = labels.children();
    for i in (shown.len() as u32..children.length()).rev() {
        if let Some(c) = children.item(i) {
            c.remove();
        }
    }
    for (i, (p, want, (r, text, glyph))) in shown.into_iter().enumerate() {
        let a = &r.agg;
        let node = match children.item(i as u32) {
            Some(n) => n,
            None => match doc.create_element("div") {
                Ok(n) => {
                    let _ = labels.append_child(&n);
                    n
                }
                Err(_) => return,
            },
        };
        let shown_text = if p.form == 0 { text } else { glyph };
        if node.text_content().as_deref() != Some(shown_text.as_str()) {
            node.set_text_content(Some(shown_text));
        }
        let class = match (p.form, a.starved > 0) {
            (0, false) => "ribbon-label",
            (0, true) => "ribbon-label ribbon-starved",
            (_, false) => "ribbon-label ribbon-glyph",
            (_, true) => "ribbon-label ribbon-glyph ribbon-starved",
        };
        if node.get_attribute("class").as_deref() != Some(class) {
            let _ = node.set_attribute("class", class);
        }
        // The stylesheet centres a chip on its left / top.
        let (w, h) = want.sizes[p.form];
        let style = format!("left:{:.0}px;top:{:.0}px", p.x + w / 2.0, p.y + h / 2.0);
        if node.get_attribute("style").as_deref() != Some(style.as_str()) {
            let _ = node.set_attribute("style", &style);
        }
    }
}

/// A ribbon chip's character width and line height in CSS px (`.ribbon-label`).
const CHIP_CHAR_PX: f64 = 6.4;
const CHIP_LINE_PX: f64 = 13.7;

/// What the lane canvas last drew, for hover titles and redraws on resize, and the
/// viewport (zoom and pan) the view keeps between renders.
#[derive(Default)]
struct Drawn {
    data: Option<(Rc<Layout>, Rc<LiveView>)>,
    hits: Vec<(Rect, Hit)>,
    palette: Option<Palette>,
    /// The stage's CSS size, from the ResizeObserver (read once if it has not reported).
    view: Option<Size>,
    /// The theme the palette was read in.
    theme: AttrValue,
    /// Presentation mode (bold marks).
    bold: bool,
    vp: Option<Viewport>,
    /// Follow the fit (on load, after 0 / Fit, until the viewer zooms or pans).
    user_moved: bool,
    /// The layout the viewport was fitted to (a new job refits).
    fitted_to: Option<Rc<Layout>>,
    detail: Option<Detail>,
    /// The lane the keyboard focused (`[` / `]`).
    focus: Option<Hit>,
    /// A drag in progress: pointer id, last screen point, moved past the click slop.
    drag: Option<(i32, f64, f64, bool)>,
    /// The viewport moved: the lane tip no longer points at its lane.
    hide_tip: bool,
    /// What the subtask layer draws (the panel's state, mirrored here).
    nodes: Option<Nodes>,
}

/// The elements the panel updates imperatively (the virtual DOM leaves them alone).
struct Els {
    canvas: HtmlCanvasElement,
    svg: Option<web_sys::Element>,
    note: Option<web_sys::Element>,
    zoom: Option<web_sys::Element>,
    labels: Option<web_sys::Element>,
    tip: Option<web_sys::Element>,
}

impl Drawn {
    fn content(&self) -> Option<Size> {
        let (layout, _) = self.data.as_ref()?;
        Some(Size {
            w: layout.width,
            h: layout.height,
        })
    }

    /// The stage's size (a stage without a stylesheet has no height: the layout's
    /// aspect at its width).
    fn view_size(&mut self, canvas: &HtmlCanvasElement) -> Option<Size> {
        let content = self.content()?;
        let v = *self.view.get_or_insert_with(|| Size {
            w: canvas.client_width() as f64,
            h: canvas.client_height() as f64,
        });
        if v.w <= 0.0 {
            return None;
        }
        Some(if v.h > 0.0 {
            v
        } else {
            Size {
                w: v.w,
                h: v.w * content.h / content.w.max(1.0),
            }
        })
    }

    /// The viewport now: the fit, unless the viewer moved it (a new layout refits).
    fn viewport(&mut self, view: Size) -> Option<Viewport> {
        let content = self.content()?;
        let layout = self.data.as_ref().map(|(l, _)| l.clone());
        let same = match (&self.fitted_to, &layout) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b) || **a == **b,
            _ => false,
        };
        if !same {
            self.user_moved = false;
            self.fitted_to = layout;
            self.focus = None;
        }
        let vp = match self.vp {
            Some(vp) if self.user_moved => vp.clamped(content, view),
            _ => Viewport::fit(content, view),
        };
        self.vp = Some(vp);
        Some(vp)
    }

    /// Applies a viewport change made by the viewer.
    /// A zoom key or button: Fit goes back to fitting the whole job, the others move the
    /// viewport from where it is.
    fn apply_key(&mut self, action: zoom::ViewKey, view: Size) {
        if action == zoom::ViewKey::Fit {
            self.user_moved = false;
        } else {
            self.move_to(|vp, c, v| vp.after_key(action, c, v), view);
        }
    }

    /// Zooms to `b`: its top at the top of the stage, centred across, at a scale where
    /// its subtasks are legible boxes (a subtask 94 px wide) unless the whole block fits
    /// closer — so the window around it holds few enough subtasks to draw each.
    fn zoom_to_block(&mut self, b: &BlockGeom, view: Size) {
        let fit = zoom::fit_k(Size { w: b.w, h: b.h }, view);
        let k = fit.clamp(0.8, zoom::MAX_K);
        self.move_to(
            |_, c, v| {
                Viewport {
                    x: b.x + b.w / 2.0 - v.w / k / 2.0,
                    y: b.y - 40.0 / k,
                    k,
                }
                .clamped(c, v)
            },
            view,
        );
    }

    fn move_to(&mut self, f: impl FnOnce(&Viewport, Size, Size) -> Viewport, view: Size) {
        let (Some(content), Some(vp)) = (self.content(), self.vp) else {
            return;
        };
        self.vp = Some(f(&vp, content, view));
        self.user_moved = true;
        self.hide_tip = true;
    }
}

/// Draws the lanes of `live` onto the canvas, sized to the stage at the device pixel
/// ratio, through the viewport; points the SVG's viewBox at the same rectangle; and
/// remembers what it drew in `drawn`. Returns the subtask layer's new [`Nodes`] when it
/// changed (the panel re-renders its nodes; emitted by the caller, once `drawn` is free).
fn draw(els: &Els, drawn: &mut Drawn) -> Option<Nodes> {
    let (layout, live) = drawn.data.clone()?;
    let canvas = &els.canvas;
    let view = drawn.view_size(canvas)?;
    let vp = drawn.viewport(view)?;
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok())?;
    let dpr = web_sys::window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .max(1.0);
    let pw = (view.w * dpr).round() as u32;
    let ph = (view.h * dpr).round() as u32;
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let perf = web_sys::window().and_then(|w| w.performance());
    let start = perf.as_ref().map(|p| p.now());
    let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, pw as f64, ph as f64);
    let m = vp.k * dpr;
    let _ = ctx.set_transform(m, 0.0, 0.0, m, -vp.x * m, -vp.y * m);
    let palette = drawn
        .palette
        .get_or_insert_with(|| Palette::read(canvas))
        .clone();
    let cell = if drawn.bold { BOLD_CELL_W } else { CELL_W };
    let detail = lanes::detail(live.channels.len(), cell * vp.k);
    let vis = vp.visible(view);
    let scene = Scene::build(&layout, &live, drawn.bold, detail, vis);
    paint(&ctx, &scene, &palette);
    if let Some(focus) = drawn.focus {
        // The keyboard-focused lane: outlined.
        let areas: Vec<Rect> = scene
            .hits
            .iter()
            .filter(|(_, h)| *h == focus)
            .map(|(r, _)| *r)
            .collect();
        rects(&ctx, &areas);
        ctx.set_stroke_style_str(&palette.text);
        ctx.set_line_width(2.0 / vp.k);
        ctx.stroke();
    }
    // The subtask layer: every subtask, a window of them, or operator blocks.
    let boxes: Vec<blocks::Rect> = layout
        .tasks
        .iter()
        .map(|t| (t.x, t.y, BODY_W, t.h))
        .collect();
    let nodes = match drawn.nodes {
        Some(n) if blocks::keep(n, &boxes, vis) => n,
        _ => blocks::choose(&boxes, vis),
    };
    let renodes = (drawn.nodes != Some(nodes)).then_some(nodes);
    drawn.nodes = Some(nodes);
    if let Some(labels) = &els.labels {
        // What a chip must not cover: the drawn subtask boxes, or the blocks.
        let screen =
            |(x, y, w, h): blocks::Rect| ((x - vp.x) * vp.k, (y - vp.y) * vp.k, w * vp.k, h * vp.k);
        let mut obstacles: Vec<chips::ScreenRect> = match nodes {
            Nodes::Blocks => layout
                .blocks
                .iter()
                .map(|b| screen((b.x, b.y, b.w, b.h)))
                .collect(),
            n => boxes
                .iter()
                .filter(|&&b| n.draws(b))
                .map(|&b| screen(b))
                .collect(),
        };
        // And the vertex headers (their operator lines).
        obstacles.extend(
            layout
                .vertices
                .iter()
                .map(|v| screen((v.x, v.y, BODY_W, v.header_h))),
        );
        place_ribbon_labels(labels, &scene.ribbons, &vp, view, &obstacles);
    }
    if let Some(svg) = &els.svg {
        // Set only when it changed: Chromium re-lays out the whole SVG on every write of
        // its viewBox, even of the same value, and this runs on every drawn frame.
        let view_box = format!("{:.2} {:.2} {:.2} {:.2}", vis.0, vis.1, vis.2, vis.3);
        if svg.get_attribute("viewBox").as_deref() != Some(view_box.as_str()) {
            let _ = svg.set_attribute("viewBox", &view_box);
        }
        // The names' semantic zoom: one factor for the headers and the subtask boxes,
        // what the smaller of their rooms allows.
        let room = layout
            .vertices
            .iter()
            .map(|v| v.header_h)
            .chain(layout.tasks.iter().map(|t| t.h))
            .fold(f64::INFINITY, f64::min);
        let boost = zoom::text_boost(vp.k, OP_NAME_FONT, room);
        let text = if boost.is_some() { "boosted" } else { "normal" };
        if svg.get_attribute("data-text").as_deref() != Some(text) {
            let _ = svg.set_attribute("data-text", text);
        }
        let style = boost
            .map(|b| format!("--text-boost: {b:.3}"))
            .unwrap_or_default();
        if svg.get_attribute("style").unwrap_or_default() != style {
            let _ = svg.set_attribute("style", &style);
        }
    }
    let fit = zoom::fit_k(
        Size {
            w: layout.width,
            h: layout.height,
        },
        view,
    );
    let set = |k: &str, v: &str| {
        if canvas.get_attribute(k).as_deref() != Some(v) {
            let _ = canvas.set_attribute(k, v);
        }
    };
    set("data-channels", &(scene.local + scene.remote).to_string());
    set("data-local-lanes", &scene.local.to_string());
    set("data-remote-lanes", &scene.remote.to_string());
    set("data-detail", detail.name());
    set(
        "data-aggregated-lanes",
        &scene.ribbons.iter().filter(|r| r.label).count().to_string(),
    );
    // CSS pixels per layout unit, and a data cell's width on the screen.
    set("data-scale", &format!("{:.3}", vp.k));
    set("data-cell-px", &format!("{:.2}", cell * vp.k));
    set("data-zoom", &format!("{:.3}", vp.k / fit));
    // A subtask box's width and its minimum height on the screen, and the layout's fold.
    set("data-box-px", &format!("{:.1}", BODY_W * vp.k));
    set(
        "data-box-h-px",
        &format!(
            "{:.1}",
            layout
                .tasks
                .iter()
                .map(|t| t.h)
                .fold(f64::INFINITY, f64::min)
                .min(1e6)
                * vp.k
        ),
    );
    set("data-nodes", nodes.name());
    set("data-tiers", &layout.wrap.tiers.to_string());
    set("data-groups", &layout.wrap.groups.to_string());
    set("data-fit", &(!drawn.user_moved).to_string());
    set(
        "data-view",
        &format!("{:.1} {:.1} {:.1} {:.1}", vis.0, vis.1, vis.2, vis.3),
    );
    if let Some(note) = &els.note {
        let mut text = detail.reason(live.channels.len()).unwrap_or_default();
        if nodes == Nodes::Blocks {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&crate::ui::i18n::tf(
                "{0} subtasks: one block per operator column, coloured by its worst subtask, its OK / LOW / HIGH shares stacked inside. Zoom in (or click a block) to see the subtasks on the screen.",
                &[&layout.tasks.len()],
            ));
        }
        if note.text_content().unwrap_or_default() != text {
            note.set_text_content(Some(&text));
        }
    }
    if let Some(z) = &els.zoom {
        let text = format!("{:.0}%", vp.k / fit * 100.0);
        if z.text_content().unwrap_or_default() != text {
            z.set_text_content(Some(&text));
        }
    }
    if let (Some(p), Some(start)) = (perf, start) {
        set("data-draw-ms", &format!("{:.2}", p.now() - start));
    }
    if std::mem::take(&mut drawn.hide_tip) {
        if let Some(t) = &els.tip {
            show_tip(t, None, 0.0, 0.0);
        }
    }
    drawn.detail = Some(detail);
    drawn.hits = scene.hits;
    renodes
}

/// The hover / focus text of `hit`, and its kind (`local`, `remote`, `aggregate`).
fn hit_text(hit: Hit, layout: &Layout, live: &LiveView) -> Option<(String, &'static str)> {
    match hit {
        Hit::Channel(i) => {
            let v = live.channels.get(i)?;
            Some((channel_title(v, layout), lanes::kind_name(v.kind)))
        }
        Hit::Edge(e) => {
            let g = layout.edges.iter().find(|g| g.edge == e)?;
            let a = live.aggregated.get(e)?;
            Some((lanes::aggregate_summary(a, &g.from, &g.to), "aggregate"))
        }
    }
}

/// Shows the lane tip with `hit`'s text at the stage point (`sx`, `sy`), or hides it.
fn show_tip(tip: &web_sys::Element, found: Option<(String, &'static str)>, sx: f64, sy: f64) {
    match found {
        Some((text, kind)) => {
            if tip.text_content().as_deref() != Some(text.as_str()) {
                tip.set_text_content(Some(&text));
            }
            let _ = tip.set_attribute("class", &format!("lane-tip lane-{kind}"));
            let _ = tip.set_attribute("data-kind", kind);
            let _ = tip.set_attribute(
                "style",
                &format!("left:{:.0}px;top:{:.0}px", sx + 14.0, sy + 14.0),
            );
            let _ = tip.remove_attribute("hidden");
        }
        None => {
            let _ = tip.set_attribute("hidden", "");
        }
    }
}

/// A subtask's view as its node draws it: the shares of the last second rounded to a
/// tenth of a percent (what the title prints, finer than the bars' pixels), so that a
/// subtask whose figures did not visibly change is not re-rendered with every cut.
fn node_view(t: &TaskView) -> TaskView {
    let r = |x: f64| (x * 1000.0).round() / 1000.0;
    TaskView {
        busy: r(t.busy),
        backpressured: r(t.backpressured),
        idle: r(t.idle),
        records_in: 0,
        records_out: 0,
        input_pool: (0, 0),
        ..t.clone()
    }
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
    // Memoized: re-rendered on a language switch through the context.
    crate::ui::i18n::use_lang();
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
    // The hover title: Flink's words (states, the barrier handler's class names) as Flink
    // spells them, the engine's activity and phase words translated (`t_dyn`).
    let title = tf(
        "{0} — {1} · backpressure {2}\nTaskManager {3}, slot {4}\nbusy {5} · backpressured {6} · idle {7} (last second)\nnow: {8}\nbarrier handler: {9}{10}\noutput buffers {11}/{12}{13}",
        &[
            &v.name,
            &status_name(v.status),
            &level,
            &(v.task_manager + 1),
            &v.slot,
            &format::pct(v.busy),
            &format::pct(v.backpressured),
            &format::pct(v.idle),
            &t_dyn(activity_name(v.activity)),
            &v.handler_state,
            &v.checkpoint
                .map(|(id, phase)| format!("\n{}", tf("checkpoint {0}: {1}", &[&id, &t_dyn(phase)])))
                .unwrap_or_default(),
            &v.output_pool.0,
            &v.output_pool.1,
            &if v.overdraft_in_use > 0 {
                tf(" (+{0} overdraft)", &[&v.overdraft_in_use])
            } else {
                String::new()
            },
        ],
    );
    let phase = v
        .checkpoint
        .map(|(id, phase)| tf("cp {0}: {1}", &[&id, &t_dyn(phase)]))
        .unwrap_or_else(|| match v.status {
            TaskStatus::Running => tf("out {0}/{1}", &[&v.output_pool.0, &v.output_pool.1]),
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
            Some(("phase-badge phase-sync", tf("SYNC snap · cp {0}", &[&id])))
        }
        (Some((id, p)), Some("async")) => Some((
            "phase-badge phase-async",
            if p.contains("in-flight") {
                t("ASYNC+in-flight").to_string()
            } else {
                tf("ASYNC write · cp {0}", &[&id])
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
            data-task-manager={g.task_manager.to_string()} data-slot={g.slot.to_string()}
            data-checkpoint-phase={v.checkpoint.map(|(_, p)| p)}
            role="button" tabindex="0" aria-pressed={selected.to_string()}
            aria-label={tf("{0} — {1}, backpressure {2}", &[&v.name, &status_name(v.status), &level])}
            {onclick} {onkeydown}>
            <title>{ title }</title>
            <rect class="subtask-box" x={f(g.x)} y={f(g.y)} width={f(BODY_W)} height={f(g.h)} rx="4" />
            <text class="subtask-name" x={f(g.x + 6.0)} y={f(g.y + 13.0)}>
                <tspan class="sn-full">{ clip(&v.name, SUBTASK_NAME_CHARS) }</tspan>
                <tspan class="sn-short">{ subtask_index(&v.name, g.index) }</tspan>
            </text>
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

/// The legend of the job view (no props: rendered once per language).
#[function_component(Legend)]
fn legend() -> Html {
    // Memoized: re-rendered on a language switch through the context.
    crate::ui::i18n::use_lang();
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
            { item(html!{ <path class="wire wire-local" d="M0,7 L18,7"/> }, crate::ui::i18n::t("local channel (no credit)")) }
            { item(html!{ <rect class="legend-bp bp-ok" x="1" y="2" width="16" height="10" rx="2"/> }, "OK") }
            { item(html!{ <rect class="legend-bp bp-low" x="1" y="2" width="16" height="10" rx="2"/> }, "LOW") }
            { item(html!{ <rect class="legend-bp bp-high" x="1" y="2" width="16" height="10" rx="2"/> }, crate::ui::i18n::t("HIGH backpressure")) }
        </ul>
    }
}

#[derive(Properties)]
struct HeadersProps {
    layout: Rc<Layout>,
    /// What the subtask layer draws: the TaskManager boxes follow it (every one, those
    /// in the window, or one outline per group of TaskManagers beside the blocks).
    nodes: Nodes,
}

impl PartialEq for HeadersProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.layout, &other.layout) && self.nodes == other.nodes
    }
}

#[derive(Properties, PartialEq)]
struct BlockProps {
    index: usize,
    geom: BlockGeom,
    tally: Tally,
    /// The head operator's id, and the group of TaskManagers.
    head: String,
    group: u32,
    /// Zooms to the block (its index).
    on_open: Callback<usize>,
}

/// An operator column's subtasks as one block (`job_view::blocks`): outlined in its
/// worst subtask's level, its HIGH / LOW / OK / not-running shares stacked top to bottom
/// inside (visible at any zoom), the counts and mean shares in its title and label; a
/// click or Enter zooms to it.
#[function_component(BlockNode)]
fn block_node(props: &BlockProps) -> Html {
    // Memoized: re-rendered on a language switch through the context.
    crate::ui::i18n::use_lang();
    let b = &props.geom;
    let t = &props.tally;
    let class = match t.level() {
        Level::Ok => "bp-ok",
        Level::Low => "bp-low",
        Level::High => "bp-high",
        Level::Other => "bp-none",
    };
    let onclick = {
        let (cb, i) = (props.on_open.clone(), props.index);
        Callback::from(move |_: MouseEvent| cb.emit(i))
    };
    let onkeydown = {
        let (cb, i) = (props.on_open.clone(), props.index);
        Callback::from(move |e: KeyboardEvent| {
            if matches!(e.key().as_str(), "Enter" | " " | "Spacebar") {
                e.prevent_default();
                e.stop_propagation();
                cb.emit(i);
            }
        })
    };
    let summary = crate::ui::i18n::tf(
        "{0}: {1} subtasks — {2} OK, {3} LOW, {4} HIGH, {5} not running; busy {6}, backpressured {7} (mean of the last second). Click or Enter to zoom in.",
        &[
            &props.head,
            &t.subtasks,
            &t.ok,
            &t.low,
            &t.high,
            &t.other,
            &format::pct(t.busy),
            &format::pct(t.backpressured),
        ],
    );
    // The shares, stacked inside the box, HIGH on top.
    let n = t.subtasks.max(1) as f64;
    let inner_h = (b.h - 4.0).max(0.0);
    let mut y = b.y + 2.0;
    let shares = [
        (t.high, "block-share-high"),
        (t.low, "block-share-low"),
        (t.ok, "block-share-ok"),
    ]
    .into_iter()
    .filter(|(c, _)| *c > 0)
    .map(|(c, class)| {
        let h = inner_h * c as f64 / n;
        let at = y;
        y += h;
        html! { <rect class={class} x={f(b.x + 2.0)} y={f(at)} width={f(b.w - 4.0)} height={f(h)} opacity="0.35" /> }
    })
    .collect::<Html>();
    let testid = if props.group == 0 {
        format!("block-{}", props.head)
    } else {
        format!("block-{}-g{}", props.head, props.group)
    };
    html! {
        <g class={classes!("op-block", class)} data-testid={testid}
            data-subtasks={t.subtasks.to_string()} data-ok={t.ok.to_string()}
            data-low={t.low.to_string()} data-high={t.high.to_string()}
            role="button" tabindex="0" aria-label={summary.clone()} {onclick} {onkeydown}>
            <title>{ summary }</title>
            <rect class="block-box" x={f(b.x)} y={f(b.y)} width={f(b.w)} height={f(b.h)} rx="4" />
            { shares }
        </g>
    }
}

/// The physical plan behind the subtasks: TaskManager boxes with their slots (rows)
/// and one box per chain (job vertex) listing its operators. Change only with the layout.
#[function_component(PlanBoxes)]
fn plan_boxes(props: &HeadersProps) -> Html {
    // Memoized: re-rendered on a language switch through the context.
    crate::ui::i18n::use_lang();
    let layout = &props.layout;
    let nodes = props.nodes;
    // Beside the blocks, one outline per group of TaskManagers (and tier) instead of a
    // box per TaskManager: (tier, x) → the first and last TaskManager, the box.
    let mut outlines: std::collections::BTreeMap<(u32, i64), (u32, u32, blocks::Rect)> =
        std::collections::BTreeMap::new();
    if nodes == Nodes::Blocks {
        for tm in &layout.task_managers {
            let e = outlines.entry((tm.tier, tm.x.round() as i64)).or_insert((
                tm.task_manager,
                tm.task_manager,
                (tm.x, tm.y, tm.w, tm.h),
            ));
            e.0 = e.0.min(tm.task_manager);
            e.1 = e.1.max(tm.task_manager);
            let r = &mut e.2;
            let bottom = (r.1 + r.3).max(tm.y + tm.h);
            r.1 = r.1.min(tm.y);
            r.3 = bottom - r.1;
        }
    }
    let groups = outlines.values().map(|&(first, last, (x, y, w, h))| {
        html! {
            <g class="tm-group" data-testid={format!("tm-group-{first}")}>
                <rect class="tm-group-rect" x={f(x)} y={f(y)} width={f(w)} height={f(h)} rx="6" />
                <text class="tm-label" x={f(x + 8.0)} y={f(y + 12.0)}>
                    { crate::ui::i18n::tf("TaskManagers {0}–{1} · {2} slot(s) each", &[&(first + 1), &(last + 1), &layout.slots_per_task_manager]) }
                </text>
            </g>
        }
    });
    let shown = |tm: &&crate::ui::layout::TmBox| match nodes {
        Nodes::Blocks => false,
        n => n.draws((tm.x, tm.y, tm.w, tm.h)),
    };
    let tms = layout.task_managers.iter().filter(shown).map(|tm| {
        // A folded layout repeats the TaskManagers per tier: `-t<tier>` beyond the first.
        let tier = if tm.tier == 0 { String::new() } else { format!("-t{}", tm.tier) };
        let slots = tm.slots.iter().map(|slot| {
            html! {
                <g class={classes!("slot", (slot.occupants == 0).then_some("slot-free"))}
                    data-testid={format!("slot-{}-{}{tier}", tm.task_manager, slot.slot)}>
                    <rect class="slot-row" x={f(tm.x + 4.0)} y={f(slot.y - 2.0)} width={f(tm.w - 8.0)} height={f(slot.h + 4.0)} rx="3" />
                    <text class="slot-label" x={f(tm.x + 8.0)} y={f(slot.y + 11.0)}>
                        { if slot.occupants == 0 { crate::ui::i18n::tf("slot {0} · free", &[&slot.slot]) } else { crate::ui::i18n::tf("slot {0}", &[&slot.slot]) } }
                    </text>
                </g>
            }
        });
        html! {
            <g class="tm-box" data-testid={format!("tm-{}{tier}", tm.task_manager)}
                data-slots={tm.slots.len().to_string()} data-used-slots={tm.used_slots.to_string()}>
                <rect class="tm-rect" x={f(tm.x)} y={f(tm.y)} width={f(tm.w)} height={f(tm.h)} rx="6" />
                <text class="tm-label" x={f(tm.x + 8.0)} y={f(tm.y + 12.0)}>
                    { crate::ui::i18n::tf("TaskManager {0} · {1}/{2} slots used", &[&(tm.task_manager + 1), &tm.used_slots, &tm.slots.len()]) }
                </text>
                { for slots }
            </g>
        }
    });
    let vertices = layout.vertices.iter().map(|v| {
        let ops: Vec<String> = v.ops.iter().map(|(id, _)| id.clone()).collect();
        // The header's text sits in a nested `<svg>` the size of the header box, which
        // clips it: zoomed out, the stylesheet enlarges the text (`data-text="boosted"`,
        // see `text_boost`) and only the head operator's id stays, cut at the box's edge.
        let (ox, oy) = (v.x - 6.0, v.y - 2.0);
        let lines = v.ops.iter().enumerate().map(|(i, (id, kind))| {
            let y = v.y + 12.0 + i as f64 * 13.0 - oy;
            let x = v.x - ox;
            if i == 0 {
                html! {
                    <text class="op-name vertex-op" x={f(x)} y={f(y)}>
                        { clip(id, OP_ID_CHARS) }
                        <tspan class="op-kind">{ format!("  {kind} ×{}", v.parallelism) }</tspan>
                    </text>
                }
            } else {
                html! {
                    <text class="vertex-op vertex-op-chained" x={f(x)} y={f(y)}>
                        { format!("→ {}", clip(id, OP_ID_CHARS)) }
                        <tspan class="op-kind">{ format!("  {kind}") }</tspan>
                    </text>
                }
            }
        });
        html! {
            <g class={classes!("vertex-box", (v.ops.len() > 1).then_some("vertex-chained"))}
                data-testid={if v.group == 0 { format!("vertex-{}", v.head) } else { format!("vertex-{}-g{}", v.head, v.group) }} data-operators={ops.join(",")}>
                <title>{ tf("{0} — a chain of {1} operator(s), one task per subtask (×{2})", &[&v.name, &v.ops.len(), &v.parallelism]) }</title>
                <rect class="vertex-rect" x={f(ox)} y={f(oy)} width={f(BODY_W + 12.0)} height={f(v.h)} rx="5" />
                <svg class="vertex-room" x={f(ox)} y={f(oy)} width={f(BODY_W + 12.0)} height={f(v.header_h + 2.0)}>
                    <g class="vertex-text">
                        { for lines }
                        if !v.inputs.is_empty() {
                            <text class="op-inputs" x={f(v.x - ox)} y={f(v.y + 12.0 + v.ops.len() as f64 * 13.0 - oy)}>{ clip(&format!("← {}", v.inputs.join(", ")), OP_INPUTS_CHARS) }</text>
                        }
                    </g>
                </svg>
            </g>
        }
    });
    html! {
        <>
            <g class="tm-boxes">{ for tms }{ for groups }</g>
            <g class="op-headers">{ for vertices }</g>
        </>
    }
}

/// The element of `r`, if mounted.
fn el(r: &NodeRef) -> Option<web_sys::Element> {
    r.cast::<web_sys::Element>()
}

/// The job view panel.
#[function_component(JobGraphPanel)]
pub fn job_graph_panel(props: &JobGraphProps) -> Html {
    crate::ui::i18n::use_lang();
    let layout = &props.layout;
    let live = &props.live;
    let canvas = use_node_ref();
    let stage = use_node_ref();
    let svg = use_node_ref();
    let note = use_node_ref();
    let zoom_label = use_node_ref();
    let tip = use_node_ref();
    let labels = use_node_ref();
    let drawn = use_mut_ref(Drawn::default);
    // What the subtask layer draws: decided by `draw` from the viewport
    // (`job_view::blocks`); a big job opens fitted, as blocks.
    let nodes = {
        let n = layout.tasks.len();
        use_state_eq(move || {
            if n <= blocks::NODES_UP_TO {
                Nodes::All
            } else {
                Nodes::Blocks
            }
        })
    };
    let set_nodes = nodes.setter();
    let nodes = *nodes;
    // Redraws with the current viewport (after a render, a resize, a zoom or a pan).
    let redraw = {
        let (canvas, svg, note, zoom_label, labels, tip) = (
            canvas.clone(),
            svg.clone(),
            note.clone(),
            zoom_label.clone(),
            labels.clone(),
            tip.clone(),
        );
        let drawn = drawn.clone();
        Rc::new(move || {
            if let Some(c) = canvas.cast::<HtmlCanvasElement>() {
                let set_nodes = &set_nodes;
                let els = Els {
                    canvas: c,
                    svg: el(&svg),
                    note: el(&note),
                    zoom: el(&zoom_label),
                    labels: el(&labels),
                    tip: el(&tip),
                };
                let renodes = draw(&els, &mut drawn.borrow_mut());
                if let Some(n) = renodes {
                    set_nodes.set(n);
                }
            }
        })
    };
    {
        // After every render (a new live view): redraw the lanes imperatively.
        let drawn = drawn.clone();
        let data = (layout.clone(), live.clone());
        let theme = props.theme.clone();
        let bold = props.presentation == Some(true);
        let redraw = redraw.clone();
        use_effect(move || {
            {
                let mut d = drawn.borrow_mut();
                d.bold = bold;
                if d.theme != theme {
                    d.theme = theme;
                    d.palette = None;
                }
                d.data = Some(data);
                d.nodes = Some(nodes);
            }
            redraw();
        });
    }
    {
        // Track the stage's CSS size with a ResizeObserver (reading it in every frame
        // would force a synchronous layout) and redraw on a change.
        let stage = stage.clone();
        let drawn = drawn.clone();
        let redraw = redraw.clone();
        use_effect_with((), move |_| {
            let target = el(&stage);
            let closure = Closure::wrap(Box::new(move |entries: js_sys::Array| {
                let Some(entry) = entries
                    .get(0)
                    .dyn_into::<web_sys::ResizeObserverEntry>()
                    .ok()
                else {
                    return;
                };
                let r = entry.content_rect();
                let size = Size {
                    w: r.width(),
                    h: r.height(),
                };
                let changed = {
                    let mut d = drawn.borrow_mut();
                    let changed = d.view != Some(size);
                    if changed {
                        d.view = Some(size);
                        d.palette = None;
                    }
                    changed
                };
                if changed {
                    redraw();
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
    {
        // The wheel zooms about the pointer. A non-passive listener, so the page does
        // not scroll while the pointer is over the job.
        let stage = stage.clone();
        let drawn = drawn.clone();
        let redraw = redraw.clone();
        use_effect_with((), move |_| {
            let target = el(&stage);
            let stage2 = stage.clone();
            let closure = Closure::wrap(Box::new(move |e: web_sys::WheelEvent| {
                let Some(s) = el(&stage2) else { return };
                e.prevent_default();
                let r = s.get_bounding_client_rect();
                let (sx, sy) = (
                    e.client_x() as f64 - r.left(),
                    e.client_y() as f64 - r.top(),
                );
                // Lines (Firefox) count as 40 px.
                let dy = e.delta_y() * if e.delta_mode() == 1 { 40.0 } else { 1.0 };
                let factor = zoom::wheel_factor(dy);
                let view = Size {
                    w: r.width(),
                    h: r.height(),
                };
                drawn
                    .borrow_mut()
                    .move_to(|vp, c, v| vp.zoom_at(factor, sx, sy, c, v), view);
                redraw();
            }) as Box<dyn FnMut(web_sys::WheelEvent)>);
            if let Some(t) = &target {
                let opts = web_sys::AddEventListenerOptions::new();
                opts.set_passive(false);
                let _ = t.add_event_listener_with_callback_and_add_event_listener_options(
                    "wheel",
                    closure.as_ref().unchecked_ref(),
                    &opts,
                );
            }
            move || {
                if let Some(t) = target {
                    let _ = t.remove_event_listener_with_callback(
                        "wheel",
                        closure.as_ref().unchecked_ref(),
                    );
                }
                drop(closure);
            }
        });
    }
    let view_of = |stage: &NodeRef| {
        el(stage).map(|s| {
            let r = s.get_bounding_client_rect();
            let size = Size {
                w: r.width(),
                h: r.height(),
            };
            (r, size)
        })
    };
    let onpointerdown = {
        let drawn = drawn.clone();
        Callback::from(move |e: PointerEvent| {
            if e.button() == 0 {
                drawn.borrow_mut().drag = Some((
                    e.pointer_id(),
                    e.client_x() as f64,
                    e.client_y() as f64,
                    false,
                ));
            }
        })
    };
    let onpointerup = {
        let drawn = drawn.clone();
        let stage = stage.clone();
        Callback::from(move |_: PointerEvent| {
            let ended = drawn.borrow_mut().drag.take();
            if let (Some((id, _, _, true)), Some(s)) = (ended, el(&stage)) {
                let _ = s.release_pointer_capture(id);
            }
        })
    };
    let onpointermove = {
        let drawn = drawn.clone();
        let stage = stage.clone();
        let tip = tip.clone();
        let redraw = redraw.clone();
        Callback::from(move |e: PointerEvent| {
            let Some((r, view)) = view_of(&stage) else {
                return;
            };
            let (cx, cy) = (e.client_x() as f64, e.client_y() as f64);
            let dragging = {
                let mut d = drawn.borrow_mut();
                match d.drag {
                    Some((id, x0, y0, moved)) if id == e.pointer_id() => {
                        let moved = moved || (cx - x0).abs() + (cy - y0).abs() > 4.0;
                        if moved {
                            if !matches!(d.drag, Some((_, _, _, true))) {
                                // Captured only once it is a drag, so a click still
                                // reaches the subtask under the pointer.
                                if let Some(s) = el(&stage) {
                                    let _ = s.set_pointer_capture(id);
                                }
                            }
                            let (dx, dy) = (x0 - cx, y0 - cy);
                            d.move_to(|vp, c, v| vp.pan(dx, dy, c, v), view);
                            d.drag = Some((id, cx, cy, true));
                        }
                        moved
                    }
                    _ => false,
                }
            };
            if dragging {
                redraw();
            }
            let d = drawn.borrow();
            let (Some((layout, live)), Some(vp), Some(t)) = (&d.data, d.vp, el(&tip)) else {
                return;
            };
            let (sx, sy) = (cx - r.left(), cy - r.top());
            let (x, y) = vp.to_layout(sx, sy);
            let hit = d
                .hits
                .iter()
                .find(|(area, _)| area.contains(x, y))
                .map(|(_, h)| *h);
            show_tip(&t, hit.and_then(|h| hit_text(h, layout, live)), sx, sy);
        })
    };
    let onpointerleave = {
        let tip = tip.clone();
        Callback::from(move |_: PointerEvent| {
            if let Some(t) = el(&tip) {
                show_tip(&t, None, 0.0, 0.0);
            }
        })
    };
    // Zoom and pan keys while the job view (or a subtask in it) has the focus; `[` / `]`
    // focus the previous / next lane and show its details.
    let onkeydown = {
        let drawn = drawn.clone();
        let stage = stage.clone();
        let tip = tip.clone();
        let redraw = redraw.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            let Some((_, view)) = view_of(&stage) else {
                return;
            };
            let key = e.key();
            if let Some(action) = zoom::key_action(&key) {
                e.prevent_default();
                e.stop_propagation();
                drawn.borrow_mut().apply_key(action, view);
                redraw();
                return;
            }
            if key == "[" || key == "]" {
                e.prevent_default();
                e.stop_propagation();
                let found = {
                    let mut d = drawn.borrow_mut();
                    let mut order: Vec<Hit> = Vec::new();
                    for (_, h) in &d.hits {
                        if order.last() != Some(h) {
                            order.push(*h);
                        }
                    }
                    if order.is_empty() {
                        None
                    } else {
                        let at = d.focus.and_then(|f| order.iter().position(|h| *h == f));
                        let next = match (at, key == "]") {
                            (None, true) => 0,
                            (None, false) => order.len() - 1,
                            (Some(i), true) => (i + 1) % order.len(),
                            (Some(i), false) => (i + order.len() - 1) % order.len(),
                        };
                        d.focus = Some(order[next]);
                        let area = d
                            .hits
                            .iter()
                            .find(|(_, h)| *h == order[next])
                            .map(|(r, _)| *r);
                        match (&d.data, d.vp, area) {
                            (Some((layout, live)), Some(vp), Some(area)) => {
                                let sx = (area.x - vp.x) * vp.k;
                                let sy = (area.y - vp.y) * vp.k;
                                Some((hit_text(order[next], layout, live), sx, sy))
                            }
                            _ => None,
                        }
                    }
                };
                if let (Some(t), Some((text, sx, sy))) = (el(&tip), found) {
                    show_tip(&t, text, sx, sy);
                }
                redraw();
            }
        })
    };
    let stem = props
        .compact
        .as_ref()
        .map(|(stem, _)| format!("-{stem}"))
        .unwrap_or_default();
    let zoom_button = |label: &'static str,
                       title: &'static str,
                       testid: String,
                       action: zoom::ViewKey| {
        let drawn = drawn.clone();
        let stage = stage.clone();
        let redraw = redraw.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            let Some((_, view)) = view_of(&stage) else {
                return;
            };
            drawn.borrow_mut().apply_key(action, view);
            redraw();
        });
        html! {
            <button type="button" class="control zoom-button" data-testid={testid} {title} {onclick}>{ label }</button>
        }
    };
    let zoom_block = {
        let drawn = drawn.clone();
        let stage = stage.clone();
        let redraw = redraw.clone();
        let layout = layout.clone();
        Callback::from(move |i: usize| {
            let (Some((_, view)), Some(b)) = (view_of(&stage), layout.blocks.get(i)) else {
                return;
            };
            drawn.borrow_mut().zoom_to_block(b, view);
            redraw();
        })
    };
    let block_nodes = (nodes == Nodes::Blocks).then(|| {
        layout
            .blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let tally = Tally::of(b.tasks.iter().filter_map(|&t| live.tasks.get(t)).map(|t| {
                    let level = match (t.status, t.backpressure) {
                        (TaskStatus::Running, BackpressureLevel::Ok) => Level::Ok,
                        (TaskStatus::Running, BackpressureLevel::Low) => Level::Low,
                        (TaskStatus::Running, BackpressureLevel::High) => Level::High,
                        _ => Level::Other,
                    };
                    (level, t.busy, t.backpressured)
                }));
                let vb = layout.vertices.get(b.vertex_box);
                html! {
                    <BlockNode key={i} index={i} geom={b.clone()} {tally}
                        head={vb.map(|v| v.head.clone()).unwrap_or_default()}
                        group={vb.map_or(0, |v| v.group)}
                        on_open={zoom_block.clone()} />
                }
            })
            .collect::<Html>()
    });
    let subtask_nodes = live.tasks.iter().filter_map(|t| {
        let geom = layout.tasks.get(t.id)?.clone();
        if !nodes.draws((geom.x, geom.y, BODY_W, geom.h)) {
            return None;
        }
        Some(html! {
            <SubtaskNode key={t.id} {geom} view={node_view(t)}
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
            <span class="zoom-controls" role="group" aria-label={t("Zoom")}>
                { zoom_button("−", t("Zoom out (− with the job view focused)"), format!("zoom-out{stem}"), zoom::ViewKey::ZoomOut) }
                <span class="zoom-level" data-testid={format!("zoom-level{stem}")} ref={zoom_label.clone()} aria-live="off"></span>
                { zoom_button("+", t("Zoom in (+ with the job view focused)"), format!("zoom-in{stem}"), zoom::ViewKey::ZoomIn) }
                { zoom_button(t("Fit"), t("Show the whole job (0 with the job view focused)"), format!("zoom-fit{stem}"), zoom::ViewKey::Fit) }
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
            Some(AttrValue::from(crate::ui::i18n::t("The physical plan: TaskManagers and their slots (rows), one box per chain listing its operators, subtasks coloured by backpressure; every channel's buffers from the producer's subpartition, over the wire (dotted: a local channel, no credit), into the consumer's input channel. Wheel or +/− to zoom, drag or arrows to pan, 0 to fit; [ ] step through the lanes. Click a subtask to inspect or fail it."))),
        ),
    };
    html! {
        <Panel id={id} title={title} testid={testid} class={class}
            description={description} actions={actions}>
            <div class="canvas" data-testid="job-graph-canvas">
                <div class="job-stage" ref={stage} tabindex="0"
                    aria-label={t("Job view: + and − zoom, arrows pan, 0 fits, [ and ] step through the lanes")}
                    data-testid={format!("job-stage{stem}")}
                    style={format!("--stage-w:{}px;--stage-aspect:{:.4}", f(layout.width), layout.width / layout.height.max(1.0))}
                    {onpointerdown} {onpointermove} {onpointerup} {onpointerleave} {onkeydown}>
                    <canvas ref={canvas} class="lanes-canvas" data-testid="job-lanes" aria-hidden="true" />
                    <svg class="job-svg" ref={svg} preserveAspectRatio="xMinYMin meet"
                        role="group" aria-label="Execution graph: one button per subtask" onclick={onclick_bg}>
                        <PlanBoxes layout={layout.clone()} {nodes} />
                        <g class="nodes" data-testid={format!("job-nodes{stem}")} data-nodes={nodes.name()}>
                            // Two keyed lists, each in a fragment of its own: spliced
                            // together, a subtask's and a block's keys could collide.
                            <>{ for subtask_nodes }</>
                            <>{ for block_nodes }</>
                        </g>
                    </svg>
                    <div class="ribbon-labels" ref={labels} aria-hidden="true"></div>
                    <div class="lane-tip" ref={tip} data-testid={format!("lane-tip{stem}")} role="status" hidden=true></div>
                </div>
                <p class="lane-detail-note" data-testid={format!("lane-detail{stem}")} ref={note}></p>
            </div>
            if props.compact.is_none() {
                <Legend />
            }
        </Panel>
    }
}
