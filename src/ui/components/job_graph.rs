//! The live job view: the DAG expanded into subtasks, with every channel's buffers and
//! barriers drawn where they are.
//!
//! Contract: `data-testid="job-graph"`; one SVG group per subtask
//! (`data-testid="subtask-<operator>-<index>"`, `data-backpressure="OK|LOW|HIGH"`),
//! clickable to select it. Each channel is a thin lane: the producer's result
//! subpartition (building buffer + queue, head nearest the wire) on the right of the
//! producer, the buffers on the wire at the middle of the curve, the consumer's input
//! channel queue (head nearest the consumer) on its left. Data buffers are cells filled
//! in proportion to bytes / capacity; captured (to-be-persisted) and recovered buffers
//! have their own colours; barriers are markers inside the queues (aligned: orange bar,
//! unaligned: purple diamond); at most [`MAX_CELLS`] data cells per queue, the rest as
//! `+N`. Reads only the snapshots it is given; sends only selections.

use yew::prelude::*;

use crate::engine::task::{Activity, TaskStatus};
use crate::engine::view::{BackpressureLevel, ChannelView, ItemView, TaskView};
use crate::ui::format;
use crate::ui::layout::{LaneGeom, Layout, TaskBox, BODY_W, CELL_GAP, CELL_W, MAX_CELLS};
use crate::ui::sim::LiveView;

use super::panel::Panel;

#[derive(Properties, PartialEq)]
pub struct JobGraphProps {
    pub layout: std::rc::Rc<Layout>,
    pub live: std::rc::Rc<LiveView>,
    pub selected: Option<usize>,
    pub on_select: Callback<Option<usize>>,
}

/// The items of a queue to draw, in order, and how many data buffers were left out.
/// Events (barriers, cancel markers, end of partition) are always kept.
fn visible(items: &[&ItemView], cap: usize) -> (Vec<ItemView>, usize) {
    let mut data_budget = cap;
    let mut hidden = 0;
    let mut out = Vec::new();
    for item in items {
        match item {
            ItemView::Data { .. } if data_budget == 0 => hidden += 1,
            ItemView::Data { .. } => {
                data_budget -= 1;
                out.push((*item).clone());
            }
            _ => out.push((*item).clone()),
        }
    }
    (out, hidden)
}

fn f(x: f64) -> String {
    format!("{x:.1}")
}

/// One event marker at `x` (left edge), centred on `cy` (data cells go through
/// [`CellPaths`]).
fn item_shape(item: &ItemView, x: f64, cy: f64, h: f64) -> Html {
    match item {
        ItemView::Data { .. } => html! {},
        ItemView::Barrier {
            id,
            unaligned,
            kind,
        } => {
            let title = format!(
                "checkpoint barrier {id} ({}, {kind:?})",
                if *unaligned { "unaligned" } else { "aligned" }
            );
            if *unaligned {
                let r = (h / 2.0 + 2.0).max(4.0);
                let cx = x + r * 0.7;
                let points = format!(
                    "{},{} {},{} {},{} {},{}",
                    f(cx),
                    f(cy - r),
                    f(cx + r * 0.7),
                    f(cy),
                    f(cx),
                    f(cy + r),
                    f(cx - r * 0.7),
                    f(cy)
                );
                html! { <polygon class="barrier barrier-unaligned" {points}><title>{ title }</title></polygon> }
            } else {
                html! {
                    <rect class="barrier barrier-aligned" x={f(x)} y={f(cy - h / 2.0 - 2.0)}
                        width="3" height={f(h + 4.0)}><title>{ title }</title></rect>
                }
            }
        }
        ItemView::Cancel { id } => html! {
            <text class="marker-cancel" x={f(x)} y={f(cy + 3.0)}>
                { "×" }<title>{ format!("CancelCheckpointMarker {id}") }</title>
            </text>
        },
        ItemView::EndOfPartition => html! {
            <rect class="marker-eop" x={f(x)} y={f(cy - h / 2.0)} width="3" height={f(h)}>
                <title>{ "EndOfPartition" }</title>
            </rect>
        },
    }
}

/// The data cells of one lane, batched into a few SVG paths (one per style) so a
/// lane is a handful of DOM nodes however many buffers it holds.
#[derive(Default)]
struct CellPaths {
    boxes: String,
    building: String,
    fill: String,
    captured_boxes: String,
    captured_fill: String,
    recovered_boxes: String,
    recovered_fill: String,
}

fn rect_path(out: &mut String, x: f64, y: f64, w: f64, h: f64) {
    use std::fmt::Write;
    let _ = write!(out, "M{x:.1} {y:.1}h{w:.1}v{h:.1}h{:.1}Z", -w);
}

impl CellPaths {
    fn data(&mut self, item: &ItemView, x: f64, cy: f64, h: f64, building: bool) {
        let ItemView::Data {
            bytes,
            capacity,
            captured,
            recovered,
            ..
        } = item
        else {
            return;
        };
        let fill = (*bytes as f64 / (*capacity).max(1) as f64).clamp(0.0, 1.0);
        let fh = (h * fill).max(if *bytes > 0 { 1.0 } else { 0.0 });
        let (boxes, fills) = if *recovered {
            (&mut self.recovered_boxes, &mut self.recovered_fill)
        } else if *captured {
            (&mut self.captured_boxes, &mut self.captured_fill)
        } else if building {
            (&mut self.building, &mut self.fill)
        } else {
            (&mut self.boxes, &mut self.fill)
        };
        rect_path(boxes, x, cy - h / 2.0, CELL_W, h);
        if fh > 0.0 {
            rect_path(fills, x, cy + h / 2.0 - fh, CELL_W, fh);
        }
    }

    fn html(self) -> Html {
        let path = |d: String, class: &'static str| {
            (!d.is_empty()).then(|| html! { <path class={class} d={d} /> })
        };
        html! {
            <>
                { path(self.boxes, "cells-box") }
                { path(self.building, "cells-box cells-building") }
                { path(self.fill, "cells-fill") }
                { path(self.captured_boxes, "cells-box cells-captured") }
                { path(self.captured_fill, "cells-fill cells-captured") }
                { path(self.recovered_boxes, "cells-box cells-recovered") }
                { path(self.recovered_fill, "cells-fill cells-recovered") }
            </>
        }
    }
}

/// Draws items from `start`, left to right (`dir = 1`) or right to left (`dir = -1`):
/// data cells into `cells`, events (barriers, markers) and the `+N` as elements.
#[allow(clippy::too_many_arguments)]
fn draw_queue(
    cells: &mut CellPaths,
    items: &[ItemView],
    hidden: usize,
    start: f64,
    dir: f64,
    cy: f64,
    h: f64,
    first_building: bool,
) -> Html {
    let mut x = start;
    let mut shapes = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let w = match item {
            ItemView::Data { .. } => CELL_W,
            ItemView::Barrier {
                unaligned: true, ..
            } => ((h / 2.0 + 2.0).max(4.0)) * 1.4 + 1.0,
            ItemView::Barrier { .. } | ItemView::EndOfPartition => 4.0,
            ItemView::Cancel { .. } => 7.0,
        };
        let left = if dir > 0.0 { x } else { x - w };
        if matches!(item, ItemView::Data { .. }) {
            cells.data(item, left, cy, h, first_building && i == 0);
        } else {
            shapes.push(item_shape(item, left, cy, h));
        }
        x += dir * (w + CELL_GAP);
    }
    if hidden > 0 {
        let anchor = if dir > 0.0 { "start" } else { "end" };
        shapes.push(html! {
            <text class="more" x={f(x)} y={f(cy + 3.0)} text-anchor={anchor}>{ format!("+{hidden}") }</text>
        });
    }
    html! { <>{ for shapes }</> }
}

#[derive(Properties, PartialEq)]
struct LaneProps {
    geom: LaneGeom,
    view: ChannelView,
}

#[function_component(ChannelLane)]
fn channel_lane(props: &LaneProps) -> Html {
    let g = &props.geom;
    let v = &props.view;
    let out_h = (g.out_pitch - 3.0).max(2.0);
    let in_h = (g.in_pitch - 3.0).max(2.0);
    // Sender side: building buffer at the body, then the queue tail .. head outwards.
    let mut sender: Vec<&ItemView> = Vec::new();
    if let Some(b) = &v.building {
        sender.push(b);
    }
    sender.extend(v.sender.iter().rev());
    let (s_items, s_hidden) = visible(&sender, MAX_CELLS);
    let receiver: Vec<&ItemView> = v.receiver.iter().collect();
    let (r_items, r_hidden) = visible(&receiver, MAX_CELLS);
    let wire: Vec<&ItemView> = v.wire.iter().collect();
    let (w_items, w_hidden) = visible(&wire, 3);

    let x1 = g.out_x + crate::ui::layout::QUEUE_W;
    let x2 = g.in_x - crate::ui::layout::QUEUE_W;
    let mid = (x1 + x2) / 2.0;
    let path = format!(
        "M{},{} C{},{} {},{} {},{}",
        f(x1),
        f(g.out_y),
        f(mid),
        f(g.out_y),
        f(mid),
        f(g.in_y),
        f(x2),
        f(g.in_y)
    );
    let mut cells = CellPaths::default();
    let sender_markers = draw_queue(
        &mut cells,
        &s_items,
        s_hidden,
        g.out_x + 3.0,
        1.0,
        g.out_y,
        out_h,
        v.building.is_some(),
    );
    let receiver_markers = draw_queue(
        &mut cells,
        &r_items,
        r_hidden,
        g.in_x - 3.0,
        -1.0,
        g.in_y,
        in_h,
        false,
    );
    let wire_markers = if w_items.is_empty() && w_hidden == 0 {
        html! {}
    } else {
        draw_queue(
            &mut cells,
            &w_items,
            w_hidden,
            mid - 10.0,
            1.0,
            (g.out_y + g.in_y) / 2.0,
            out_h.min(in_h).max(5.0),
            false,
        )
    };
    let no_credit = v.credit == 0 && !v.sender.is_empty();
    let wire_class = classes!(
        "wire",
        no_credit.then_some("wire-no-credit"),
        v.closed.then_some("wire-closed")
    );
    let title = format!(
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
    html! {
        <g class="lane">
            <title>{ title }</title>
            <path class={wire_class} d={path} />
            // output lane background
            <rect class={classes!("lane-bg", v.sender_blocked.then_some("lane-blocked"))}
                x={f(g.out_x + 1.0)} y={f(g.out_y - g.out_pitch / 2.0 + 0.5)}
                width={f(crate::ui::layout::QUEUE_W - 2.0)} height={f(g.out_pitch - 1.0)} />
            // input lane background
            <rect class={classes!("lane-bg",
                    v.persisting.then_some("lane-persisting"),
                    v.blocked_at_receiver.then_some("lane-blocked"))}
                x={f(x2 + 1.0)} y={f(g.in_y - g.in_pitch / 2.0 + 0.5)}
                width={f(crate::ui::layout::QUEUE_W - 2.0)} height={f(g.in_pitch - 1.0)} />
            { cells.html() }
            { sender_markers }
            { receiver_markers }
            { wire_markers }
        </g>
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
        TaskStatus::Recovering => "RECOVERING",
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
        v.backpressure.name(),
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
    let bar_w = BODY_W - 12.0;
    let bx = g.x + 6.0;
    let by = g.y + g.h - 8.0;
    let busy_w = bar_w * v.busy.clamp(0.0, 1.0);
    let bp_w = bar_w * v.backpressured.clamp(0.0, 1.0);
    html! {
        <g class={classes!("subtask", level_class(v.backpressure), status_class, selected.then_some("selected"))}
            data-testid={format!("subtask-{}-{}", g.operator, g.index)}
            data-backpressure={v.backpressure.name()}
            data-status={status_name(v.status)}
            role="button" tabindex="0" {onclick}>
            <title>{ title }</title>
            <rect class="subtask-box" x={f(g.x)} y={f(g.y)} width={f(BODY_W)} height={f(g.h)} rx="4" />
            <text class="subtask-name" x={f(g.x + 6.0)} y={f(g.y + 13.0)}>{ v.name.clone() }</text>
            <text class="subtask-level" x={f(g.x + BODY_W - 6.0)} y={f(g.y + 13.0)} text-anchor="end">{ v.backpressure.name() }</text>
            <text class={classes!("subtask-phase", v.checkpoint.is_some().then_some("in-checkpoint"))}
                x={f(g.x + 6.0)} y={f(g.y + 26.0)}>{ phase }</text>
            <rect class="ratio-bg" x={f(bx)} y={f(by)} width={f(bar_w)} height="3" />
            <rect class="ratio-busy" x={f(bx)} y={f(by)} width={f(busy_w)} height="3" />
            <rect class="ratio-bp" x={f(bx + busy_w)} y={f(by)} width={f(bp_w)} height="3" />
        </g>
    }
}

/// The legend of the job view.
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
            { item(html!{ <g class="cell"><rect class="cell-box" x="5" y="2" width="8" height="10"/><rect class="cell-fill" x="5" y="6" width="8" height="6"/></g> }, "buffer (fill = bytes)") }
            { item(html!{ <g class="cell cell-captured"><rect class="cell-box" x="5" y="2" width="8" height="10"/><rect class="cell-fill" x="5" y="4" width="8" height="8"/></g> }, "captured for UC") }
            { item(html!{ <g class="cell cell-recovered"><rect class="cell-box" x="5" y="2" width="8" height="10"/><rect class="cell-fill" x="5" y="4" width="8" height="8"/></g> }, "recovered") }
            { item(html!{ <rect class="barrier barrier-aligned" x="7" y="0" width="3" height="14"/> }, "aligned barrier") }
            { item(html!{ <polygon class="barrier barrier-unaligned" points="9,1 14,7 9,13 4,7"/> }, "unaligned barrier") }
            { item(html!{ <rect class="lane-bg lane-blocked" x="1" y="3" width="16" height="8"/> }, "blocked (aligning)") }
            { item(html!{ <rect class="lane-bg lane-persisting" x="1" y="3" width="16" height="8"/> }, "being persisted") }
            { item(html!{ <path class="wire wire-no-credit" d="M0,7 L18,7"/> }, "no credit") }
            { item(html!{ <rect class="legend-bp bp-ok" x="1" y="2" width="16" height="10" rx="2"/> }, "OK") }
            { item(html!{ <rect class="legend-bp bp-low" x="1" y="2" width="16" height="10" rx="2"/> }, "LOW") }
            { item(html!{ <rect class="legend-bp bp-high" x="1" y="2" width="16" height="10" rx="2"/> }, "HIGH backpressure") }
        </ul>
    }
}

/// The job view panel.
#[function_component(JobGraphPanel)]
pub fn job_graph_panel(props: &JobGraphProps) -> Html {
    let layout = &props.layout;
    let live = &props.live;
    let lanes = live.channels.iter().filter_map(|c| {
        let geom = layout.lanes.get(c.id)?.clone();
        Some(html! { <ChannelLane key={c.id} {geom} view={c.clone()} /> })
    });
    let nodes = live.tasks.iter().filter_map(|t| {
        let geom = layout.tasks.get(t.id)?.clone();
        Some(html! {
            <SubtaskNode key={t.id} {geom} view={t.clone()}
                selected={props.selected == Some(t.id)} on_select={props.on_select.clone()} />
        })
    });
    let headers = layout.ops.iter().map(|o| {
        html! {
            <g class="op-header">
                <text class="op-name" x={f(o.x)} y={f(o.y + 11.0)}>
                    { o.id.clone() }
                    <tspan class="op-kind">{ format!("  {} ×{}", o.kind, o.parallelism) }</tspan>
                </text>
                if !o.inputs.is_empty() {
                    <text class="op-inputs" x={f(o.x)} y={f(o.y + 23.0)}>{ format!("← {}", o.inputs.join(", ")) }</text>
                }
            </g>
        }
    });
    let actions = html! {
        <span class="badge" title="Checkpoint pending at the coordinator">
            { live.pending_checkpoint.map(|id| format!("checkpoint {id} pending")).unwrap_or_else(|| "no checkpoint pending".into()) }
        </span>
    };
    let onclick_bg = {
        let cb = props.on_select.clone();
        Callback::from(move |e: MouseEvent| {
            use wasm_bindgen::JsCast;
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
    html! {
        <Panel id="job-graph" title="Job graph" testid="job-graph" class="area-graph"
            description="Subtasks coloured by backpressure; every channel's buffers from the producer's subpartition, over the wire, into the consumer's input channel. Click a subtask to inspect or fail it."
            actions={actions}>
            <div class="canvas" data-testid="job-graph-canvas">
                <svg class="job-svg" viewBox={format!("0 0 {} {}", f(layout.width), f(layout.height))}
                    width="100%" style={format!("max-width:{}px", f(layout.width))}
                    role="img" aria-label="Execution graph" onclick={onclick_bg}>
                    { for headers }
                    <g class="lanes">{ for lanes }</g>
                    <g class="nodes">{ for nodes }</g>
                </svg>
            </div>
            { legend() }
        </Panel>
    }
}
