//! Geometry of the job view: where every operator, subtask and channel lane goes.
//!
//! Contract: [`Layout::compute`] reads only the engine's topology (operators, edges,
//! tasks, channels) and places operators in columns by topological layer (longest path
//! from a source), left to right; each operator is a stack of subtask boxes. Every
//! subtask box has an input area on its left (one lane per input channel, Flink's
//! input gate) and an output area on its right (one lane per result subpartition);
//! a channel is a curve from its producer's output lane to its consumer's input lane.
//! Lane pitch shrinks with the number of lanes so that all-to-all edges stay readable.
//! Pure data: it is recomputed only when the execution graph changes.

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
const OP_HEADER_H: f64 = 30.0;
const OP_GAP: f64 = 18.0;
const TASK_GAP: f64 = 6.0;
const MIN_TASK_H: f64 = 46.0;

#[derive(Clone, Debug, PartialEq)]
pub struct OpBox {
    pub id: String,
    pub kind: &'static str,
    pub parallelism: u32,
    pub x: f64,
    pub y: f64,
    /// Partitioners of the incoming edges, "hash from explode".
    pub inputs: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TaskBox {
    pub task: usize,
    pub operator: String,
    pub index: u32,
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

#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    pub ops: Vec<OpBox>,
    /// Indexed by task id.
    pub tasks: Vec<TaskBox>,
    /// Indexed by channel id.
    pub lanes: Vec<LaneGeom>,
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
        let n_ops = e.operators.len();
        let index_of = |id: &str| e.operators.iter().position(|o| o.id == id);
        // Longest-path layering (the spec is validated acyclic).
        let mut layer = vec![0usize; n_ops];
        for _ in 0..n_ops {
            for edge in &e.spec.edges {
                if let (Some(f), Some(t)) = (index_of(&edge.from), index_of(&edge.to)) {
                    layer[t] = layer[t].max(layer[f] + 1);
                }
            }
        }
        let mut inputs_of: Vec<Vec<usize>> = vec![Vec::new(); e.tasks.len()];
        let mut outputs_of: Vec<Vec<usize>> = vec![Vec::new(); e.tasks.len()];
        for c in &e.channels {
            outputs_of[c.from_task].push(c.id);
            inputs_of[c.to_task].push(c.id);
        }
        for list in outputs_of.iter_mut() {
            list.sort_by_key(|&c| (e.channels[c].edge, e.channels[c].to_task));
        }
        for list in inputs_of.iter_mut() {
            list.sort_by_key(|&c| (e.channels[c].edge, e.channels[c].from_task));
        }
        let layers = layer.iter().copied().max().unwrap_or(0) + 1;
        let mut column_y = vec![MARGIN; layers];
        let mut ops = Vec::with_capacity(n_ops);
        let mut tasks: Vec<Option<TaskBox>> = vec![None; e.tasks.len()];
        for (o, op) in e.operators.iter().enumerate() {
            let col = layer[o];
            let x = MARGIN + col as f64 * COLUMN_W + QUEUE_W;
            let y = column_y[col];
            let inputs = e
                .spec
                .edges
                .iter()
                .zip(&e.next_partitioners)
                .enumerate()
                .filter(|(_, (edge, _))| edge.to == op.id)
                .map(|(i, (edge, next))| {
                    let running = e.edges.get(i).map(|r| r.partitioner).unwrap_or(*next);
                    // A chained edge is a method call inside the head's subtasks.
                    let chained = e.edges.get(i).is_some_and(|r| r.chained);
                    let how = if chained { " (chained)" } else { "" };
                    format!("{} from {}{how}", running.name(), edge.from)
                })
                .collect();
            ops.push(OpBox {
                id: op.id.clone(),
                kind: op.kind.name(),
                parallelism: op.parallelism,
                x,
                y,
                inputs,
            });
            let mut ty = y + OP_HEADER_H;
            // A chain's subtasks are drawn once, under its head operator.
            for &t in op.tasks.iter().filter(|&&t| e.tasks[t].operator == o) {
                let lanes = inputs_of[t].len().max(outputs_of[t].len());
                let h = (lanes as f64 * pitch(lanes) + 10.0).max(MIN_TASK_H);
                tasks[t] = Some(TaskBox {
                    task: t,
                    operator: op.id.clone(),
                    index: e.tasks[t].index,
                    x,
                    y: ty,
                    h,
                });
                ty += h + TASK_GAP;
            }
            column_y[col] = ty + OP_GAP;
        }
        let tasks: Vec<TaskBox> = tasks
            .into_iter()
            .enumerate()
            .map(|(t, b)| {
                b.unwrap_or(TaskBox {
                    task: t,
                    operator: String::new(),
                    index: 0,
                    x: 0.0,
                    y: 0.0,
                    h: MIN_TASK_H,
                })
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
        let height = column_y.iter().copied().fold(0.0, f64::max) - OP_GAP + MARGIN;
        let width = MARGIN * 2.0 + layers as f64 * COLUMN_W - GAP_W;
        Layout {
            width,
            height: height.max(120.0),
            ops,
            tasks,
            lanes,
        }
    }
}
