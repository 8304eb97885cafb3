//! Geometry of the job view: the physical plan the runtime runs — its chains (job
//! vertices), TaskManagers and slots — and where every subtask and channel lane goes.
//!
//! Contract: [`Layout::compute`] reads only the engine's topology (its runtime vertices
//! `Engine::layout`, edges, tasks, channels) and the physical plan's placement
//! (`Engine::plan`: each subtask's TaskManager and slot). One column per vertex (a chain:
//! one box listing its operators in chain order — a chained operator has no column or box
//! of its own), left to right by topological layer (longest path from a source), then by
//! vertex; a layout far from a screen's shape is folded ([`plan_layout::wrap`]): tiers of
//! columns stacked (a long pipeline), or groups of TaskManagers side by side (many
//! TaskManagers), each group repeating the column headers. Rows are slots ([`plan_layout::rows`]): a subtask sits in the row of its
//! (TaskManager, slot), so the subtasks sharing a slot are side by side and a TaskManager
//! is a horizontal box across the columns enclosing its slots. Every subtask box has an
//! input area on its left (one lane per input channel, Flink's input gate) and an output
//! area on its right (one lane per result subpartition); a channel is a curve from its
//! producer's output lane to its consumer's input lane. Lane pitch shrinks with the
//! number of lanes so that all-to-all edges stay readable. Each channel-carrying edge
//! also gets an [`EdgeGeom`], the band its aggregated lane fills when the view is far.
//! Pure data: it is recomputed only when the execution graph changes.

use super::components::job_view::lanes::AGGREGATE_ABOVE_CHANNELS;
use super::components::job_view::plan_layout::{self, Occupant, Rows};
use crate::engine::Engine;

/// Cells drawn per queue before the rest is summarised as `+N`.
pub const MAX_CELLS: usize = 4;
/// Width of one buffer cell and the gap after it.
pub const CELL_W: f64 = 8.0;
pub const CELL_GAP: f64 = 2.0;
/// Width of a queue area (input or output side of a subtask).
pub const QUEUE_W: f64 = MAX_CELLS as f64 * (CELL_W + CELL_GAP) + 24.0;
/// Width of a subtask's body.
pub const BODY_W: f64 = 118.0;
/// Horizontal room between two columns, for the wires.
pub const GAP_W: f64 = 56.0;
const COLUMN_W: f64 = QUEUE_W * 2.0 + BODY_W + GAP_W;
const MARGIN: f64 = 12.0;
/// A vertex header: the first operator's line, each further chained operator's line,
/// the inputs line.
const HEADER_LINE_H: f64 = 13.0;
const HEADER_PAD: f64 = 8.0;
const MIN_TASK_H: f64 = 46.0;

#[derive(Clone, Debug, PartialEq)]
pub struct VertexBox {
    /// The head operator's id (subtasks are `subtask-<head>-<index>`).
    pub head: String,
    /// The group of TaskManagers it heads (a folded layout repeats each header).
    pub group: u32,
    /// Flink's vertex name (`Source: orders -> explode`).
    pub name: String,
    /// Its operators in chain order: id and kind.
    pub ops: Vec<(String, &'static str)>,
    pub parallelism: u32,
    /// Left edge of the subtask bodies.
    pub x: f64,
    /// The box: header and its column of subtasks.
    pub y: f64,
    pub h: f64,
    /// The room above its subtasks: the layout's tallest header and a gap (every
    /// vertex's subtasks start at the same height, so a short header has room to spare).
    pub header_h: f64,
    /// Partitioners of the incoming edges, "hash from explode".
    pub inputs: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SlotBox {
    pub slot: u32,
    pub y: f64,
    pub h: f64,
    pub occupants: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TmBox {
    /// 0-based (labelled `TaskManager <n+1>`).
    pub task_manager: u32,
    /// The tier of columns it spans (a folded layout repeats each TaskManager per tier).
    pub tier: u32,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub slots: Vec<SlotBox>,
    pub used_slots: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TaskBox {
    pub task: usize,
    pub operator: String,
    pub index: u32,
    pub task_manager: u32,
    pub slot: u32,
    /// Left edge of the body (the input area is to its left).
    pub x: f64,
    pub y: f64,
    pub h: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LaneGeom {
    pub channel: usize,
    /// Centre of the producer's output lane, at the body's right edge.
    pub out_x: f64,
    pub out_y: f64,
    /// Centre of the consumer's input lane, at the body's left edge.
    pub in_x: f64,
    pub in_y: f64,
    /// Lane height at either end.
    pub out_pitch: f64,
    pub in_pitch: f64,
}

/// An operator column's subtasks within one group of TaskManagers, as one block (drawn
/// instead of its subtasks when the job is too big for a node each: `job_view::blocks`).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockGeom {
    /// Its vertex box in [`Layout::vertices`].
    pub vertex_box: usize,
    /// The box enclosing its subtasks' boxes.
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    /// Its subtasks (task ids), in (TaskManager, slot) order.
    pub tasks: Vec<usize>,
}

/// The band of one edge's channels, for its aggregated lane: from the producers' output
/// areas (`from_x`, `from_y0..from_y1`) to the consumers' input areas.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeGeom {
    pub edge: usize,
    pub from: String,
    pub to: String,
    pub from_x: f64,
    pub from_y0: f64,
    pub from_y1: f64,
    pub to_x: f64,
    pub to_y0: f64,
    pub to_y1: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    /// The chains, in column order.
    pub vertices: Vec<VertexBox>,
    pub task_managers: Vec<TmBox>,
    pub slots_per_task_manager: u32,
    /// Indexed by task id.
    pub tasks: Vec<TaskBox>,
    /// Indexed by channel id.
    pub lanes: Vec<LaneGeom>,
    /// The bands of the aggregated lanes, by spec edge (`EdgeGeom::edge`): one per edge
    /// that carries channels and group of TaskManagers, in (edge, group) order.
    pub edges: Vec<EdgeGeom>,
    /// How the columns and TaskManagers are folded ([`plan_layout::wrap`]).
    pub wrap: plan_layout::Wrap,
    /// One per vertex box that holds subtasks.
    pub blocks: Vec<BlockGeom>,
}

fn pitch(lanes: usize) -> f64 {
    match lanes {
        0..=2 => 14.0,
        3..=4 => 10.0,
        5..=8 => 7.0,
        _ => 5.0,
    }
}

impl Layout {
    pub fn compute(e: &Engine) -> Layout {
        let vertices = &e.layout.vertices;
        let n_v = vertices.len();
        let vertex_of = |op: usize| e.layout.vertex_of.get(op).copied().unwrap_or(0);
        // Longest-path layering of the vertices over the non-chained edges.
        let mut layer = vec![0usize; n_v];
        for _ in 0..n_v {
            for edge in e.edges.iter().filter(|r| !r.chained) {
                let (f, t) = (vertex_of(edge.from_op), vertex_of(edge.to_op));
                if f != t && f < n_v && t < n_v {
                    layer[t] = layer[t].max(layer[f] + 1);
                }
            }
        }
        let mut order: Vec<usize> = (0..n_v).collect();
        crate::compact_sort::sort_by_key(&mut order, |&v| (layer[v], v));
        let mut column = vec![0usize; n_v];
        for (c, &v) in order.iter().enumerate() {
            column[v] = c;
        }
        let mut inputs_of: Vec<Vec<usize>> = vec![Vec::new(); e.tasks.len()];
        let mut outputs_of: Vec<Vec<usize>> = vec![Vec::new(); e.tasks.len()];
        for c in &e.channels {
            outputs_of[c.from_task].push(c.id);
            inputs_of[c.to_task].push(c.id);
        }
        for list in outputs_of.iter_mut() {
            crate::compact_sort::sort_by_key(list, |&c| {
                (e.channels[c].edge, e.channels[c].to_task)
            });
        }
        for list in inputs_of.iter_mut() {
            crate::compact_sort::sort_by_key(list, |&c| {
                (e.channels[c].edge, e.channels[c].from_task)
            });
        }
        // Headers: every operator of the chain, then the inputs of its head.
        let header = |v: usize| -> (Vec<(String, &'static str)>, Vec<String>) {
            let ops = vertices[v]
                .iter()
                .map(|&o| (e.operators[o].id.clone(), e.operators[o].kind.name()))
                .collect();
            let head = vertices[v][0];
            // The running job's edges (a resubmission may have changed them).
            let inputs = e
                .job
                .edges
                .iter()
                .zip(&e.next_partitioners)
                .enumerate()
                .filter(|(i, (edge, _))| {
                    edge.to == e.operators[head].id && !e.edges.get(*i).is_some_and(|r| r.chained)
                })
                .map(|(i, (edge, next))| {
                    let running = e.edges.get(i).map(|r| r.partitioner).unwrap_or(*next);
                    format!("{} from {}", running.name(), edge.from)
                })
                .collect();
            (ops, inputs)
        };
        let headers: Vec<_> = (0..n_v).map(header).collect();
        let header_h = |ops: usize, inputs: bool| {
            HEADER_PAD + HEADER_LINE_H * (ops.max(1) as f64 + f64::from(u8::from(inputs)))
        };
        let header_room = headers
            .iter()
            .map(|(ops, inputs)| header_h(ops.len(), !inputs.is_empty()))
            .fold(0.0, f64::max)
            + 4.0;
        let top = MARGIN + header_room;
        // Subtask heights and slots. A job whose channels are only ever drawn summed
        // needs no room for one lane per channel.
        let per_channel = e.channels.len() <= AGGREGATE_ABOVE_CHANNELS;
        let task_h = |t: usize| {
            let lanes = inputs_of[t].len().max(outputs_of[t].len());
            plan_layout::subtask_h(lanes, pitch(lanes), MIN_TASK_H, per_channel)
        };
        let place = |t: usize| {
            let task = &e.tasks[t];
            e.plan
                .subtask_of(task.operator, task.index)
                .map(|s| (e.plan.subtasks[s].task_manager, e.plan.subtasks[s].slot))
                .unwrap_or((0, task.index))
        };
        let occupants: Vec<Occupant> = (0..e.tasks.len())
            .map(|t| {
                let (task_manager, slot) = place(t);
                Occupant {
                    task_manager,
                    slot,
                    h: task_h(t),
                }
            })
            .collect();
        let rows: Rows = plan_layout::rows(
            e.plan.task_managers,
            e.plan.slots_per_task_manager,
            &occupants,
            top,
        );
        // The fold (plan_layout::wrap): tiers of columns stacked, or groups of
        // TaskManagers side by side. A block is one tier × one group.
        let band_hs: Vec<f64> = rows.bands.iter().map(|b| b.h).collect();
        let wrap = plan_layout::wrap(
            n_v.max(1),
            COLUMN_W,
            top - MARGIN,
            &band_hs,
            plan_layout::TM_GAP,
        );
        let block_w = wrap.columns_per_tier as f64 * COLUMN_W;
        let group_first = |g: usize| rows.bands.get(g * wrap.tms_per_group);
        // A group's bands move up to the first group's top, and right by whole blocks.
        let group_dy = |g: usize| {
            let first = rows.bands.first().map_or(top, |b| b.y);
            first - group_first(g).map_or(first, |b| b.y)
        };
        let group_dx = |g: usize| g as f64 * (block_w + plan_layout::GROUP_GAP);
        let stack_bottom = (0..wrap.groups)
            .map(|g| {
                rows.bands
                    .iter()
                    .skip(g * wrap.tms_per_group)
                    .take(wrap.tms_per_group)
                    .map(|b| b.y + b.h)
                    .fold(top, f64::max)
                    + group_dy(g)
            })
            .fold(top + MIN_TASK_H, f64::max);
        let stride = stack_bottom - MARGIN + plan_layout::TIER_GAP;
        let tier_dx = |c: usize| -((wrap.tier_of(c) * wrap.columns_per_tier) as f64) * COLUMN_W;
        let tier_dy = |c: usize| wrap.tier_of(c) as f64 * stride;
        let x_of = |v: usize| MARGIN + column[v] as f64 * COLUMN_W + QUEUE_W + tier_dx(column[v]);
        let tasks: Vec<TaskBox> = e
            .tasks
            .iter()
            .enumerate()
            .map(|(t, task)| {
                let (tm, slot) = place(t);
                let v = task.vertex.min(n_v.saturating_sub(1));
                let g = wrap.group_of(tm);
                let y = rows.row_of(tm, slot).map_or(top, |r| r.y);
                TaskBox {
                    task: t,
                    operator: e.operators[task.operator].id.clone(),
                    index: task.index,
                    task_manager: tm,
                    slot,
                    x: x_of(v) + group_dx(g),
                    y: y + group_dy(g) + tier_dy(column[v]),
                    h: occupants[t].h,
                }
            })
            .collect();
        let bottom = stack_bottom + (wrap.tiers - 1) as f64 * stride;
        let width = MARGIN * 2.0
            + wrap.groups as f64 * block_w
            + (wrap.groups - 1) as f64 * plan_layout::GROUP_GAP
            - GAP_W;
        let vertex_boxes = order
            .iter()
            .flat_map(|&v| (0..wrap.groups).map(move |g| (v, g)))
            .map(|(v, g)| {
                let (ops, inputs) = headers[v].clone();
                let head = vertices[v][0];
                VertexBox {
                    head: e.operators[head].id.clone(),
                    group: g as u32,
                    name: e.layout.names.get(v).cloned().unwrap_or_default(),
                    parallelism: e.operators[head].parallelism,
                    x: x_of(v) + group_dx(g),
                    y: MARGIN + tier_dy(column[v]),
                    h: stack_bottom - MARGIN + 4.0,
                    header_h: header_room,
                    ops,
                    inputs,
                }
            })
            .collect();
        let task_managers = (0..wrap.tiers)
            .flat_map(|tier| rows.bands.iter().map(move |b| (tier, b)))
            .map(|(tier, b)| {
                let g = wrap.group_of(b.task_manager);
                let dy = group_dy(g) + tier as f64 * stride;
                TmBox {
                    task_manager: b.task_manager,
                    tier: tier as u32,
                    x: MARGIN / 2.0 + group_dx(g),
                    y: b.y + dy,
                    w: MARGIN + block_w - GAP_W,
                    h: b.h,
                    slots: rows.rows[b.first_row..b.first_row + b.slots as usize]
                        .iter()
                        .map(|r| SlotBox {
                            slot: r.slot,
                            y: r.y + dy,
                            h: r.h,
                            occupants: r.occupants,
                        })
                        .collect(),
                    used_slots: b.used_slots,
                }
            })
            .collect();
        let lane_y = |b: &TaskBox, k: usize, n: usize| {
            let p = pitch(n);
            let block = n as f64 * p;
            b.y + (b.h - block) / 2.0 + p * (k as f64 + 0.5)
        };
        let mut lanes: Vec<LaneGeom> = e
            .channels
            .iter()
            .map(|c| LaneGeom {
                channel: c.id,
                out_x: 0.0,
                out_y: 0.0,
                in_x: 0.0,
                in_y: 0.0,
                out_pitch: 0.0,
                in_pitch: 0.0,
            })
            .collect();
        for (t, list) in outputs_of.iter().enumerate() {
            for (k, &c) in list.iter().enumerate() {
                let b = &tasks[t];
                lanes[c].out_x = b.x + BODY_W;
                lanes[c].out_y = lane_y(b, k, list.len());
                lanes[c].out_pitch = pitch(list.len());
            }
        }
        for (t, list) in inputs_of.iter().enumerate() {
            for (k, &c) in list.iter().enumerate() {
                let b = &tasks[t];
                lanes[c].in_x = b.x;
                lanes[c].in_y = lane_y(b, k, list.len());
                lanes[c].in_pitch = pitch(list.len());
            }
        }
        // One band per (edge, group): the channels with both ends in one group (a
        // channel between two groups is drawn, but not summed into a band); an edge with
        // no such channel gets its band from all its channels.
        let group_of_task = |t: usize| wrap.group_of(tasks[t].task_manager);
        let mut bands: std::collections::BTreeMap<(usize, usize), EdgeGeom> =
            std::collections::BTreeMap::new();
        let mut banded = std::collections::BTreeSet::new();
        for pass in [true, false] {
            if !pass {
                banded.extend(bands.keys().map(|&(edge, _)| edge));
            }
            for c in &e.channels {
                let same = group_of_task(c.from_task) == group_of_task(c.to_task);
                if (pass && !same) || (!pass && banded.contains(&c.edge)) {
                    continue;
                }
                let key = (
                    c.edge,
                    if pass {
                        group_of_task(c.from_task)
                    } else {
                        usize::MAX
                    },
                );
                let g = &lanes[c.id];
                let (o0, o1) = (g.out_y - g.out_pitch / 2.0, g.out_y + g.out_pitch / 2.0);
                let (i0, i1) = (g.in_y - g.in_pitch / 2.0, g.in_y + g.in_pitch / 2.0);
                match bands.get_mut(&key) {
                    Some(eg) => {
                        eg.from_y0 = eg.from_y0.min(o0);
                        eg.from_y1 = eg.from_y1.max(o1);
                        eg.to_y0 = eg.to_y0.min(i0);
                        eg.to_y1 = eg.to_y1.max(i1);
                    }
                    None => {
                        let r = &e.edges[c.edge];
                        bands.insert(
                            key,
                            EdgeGeom {
                                edge: c.edge,
                                from: e.operators[r.from_op].id.clone(),
                                to: e.operators[r.to_op].id.clone(),
                                from_x: g.out_x,
                                from_y0: o0,
                                from_y1: o1,
                                to_x: g.in_x,
                                to_y0: i0,
                                to_y1: i1,
                            },
                        );
                    }
                }
            }
        }
        let edges: Vec<EdgeGeom> = bands.into_values().collect();
        // A block per vertex box: the subtasks of its vertex in its group.
        let mut of_box: std::collections::BTreeMap<(usize, usize), Vec<usize>> =
            std::collections::BTreeMap::new();
        for (t, task) in e.tasks.iter().enumerate() {
            let v = task.vertex.min(n_v.saturating_sub(1));
            of_box.entry((v, group_of_task(t))).or_default().push(t);
        }
        let blocks = order
            .iter()
            .flat_map(|&v| (0..wrap.groups).map(move |g| (v, g)))
            .enumerate()
            .filter_map(|(i, key)| {
                let mut list = of_box.remove(&key)?;
                crate::compact_sort::sort_by_key(&mut list, |&t| {
                    (tasks[t].task_manager, tasks[t].slot, t)
                });
                let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
                for &t in &list {
                    let b = &tasks[t];
                    x0 = x0.min(b.x);
                    y0 = y0.min(b.y);
                    x1 = x1.max(b.x + BODY_W);
                    y1 = y1.max(b.y + b.h);
                }
                Some(BlockGeom {
                    vertex_box: i,
                    x: x0,
                    y: y0,
                    w: x1 - x0,
                    h: y1 - y0,
                    tasks: list,
                })
            })
            .collect();
        Layout {
            blocks,
            width,
            height: (bottom + MARGIN).max(120.0),
            wrap,
            vertices: vertex_boxes,
            task_managers,
            slots_per_task_manager: e.plan.slots_per_task_manager,
            tasks,
            lanes,
            edges,
        }
    }
}
