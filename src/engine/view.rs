//! Read-only views of the engine for hosts that draw it (the playground) — derived from the
//! engine's public state, computed on demand, never stored.
//!
//! [`Engine::task_views`] gives each subtask's status, activity, Flink's backpressure level
//! over the last second of virtual time (OK ≤ 10 %, LOW ≤ 50 %, HIGH above, as the web UI
//! classifies `backPressuredTimeMsPerSecond`), its barrier handler state in Flink's terms
//! and its part in the running checkpoint. [`Engine::channel_views`] gives every channel's
//! queues — sender, wire, receiver — item by item, so barriers can be drawn where they are.

use super::config::BarrierKind;
use super::network::{Buffer, Event, Item, Persist};
use super::runtime::{Engine, SAMPLE_PERIOD};
use super::task::{Activity, TaskStatus};
use super::time::Micros;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BackpressureLevel {
    Ok,
    Low,
    High,
}

impl BackpressureLevel {
    pub fn from_ratio(r: f64) -> Self {
        if r <= 0.10 {
            BackpressureLevel::Ok
        } else if r <= 0.50 {
            BackpressureLevel::Low
        } else {
            BackpressureLevel::High
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            BackpressureLevel::Ok => "OK",
            BackpressureLevel::Low => "LOW",
            BackpressureLevel::High => "HIGH",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskView {
    pub id: usize,
    pub name: String,
    /// The head operator of its chain.
    pub operator: usize,
    /// Every operator it runs, in chain order.
    pub chained_operators: Vec<usize>,
    pub index: u32,
    pub status: TaskStatus,
    pub activity: Activity,
    /// Shares of the last second (virtual): busy, backpressured, idle.
    pub busy: f64,
    pub backpressured: f64,
    pub idle: f64,
    pub backpressure: BackpressureLevel,
    pub handler_state: &'static str,
    /// Phase of the newest checkpoint at this subtask, if one is in progress.
    pub checkpoint: Option<(u64, &'static str)>,
    pub records_in: u64,
    pub records_out: u64,
    /// Output buffers in use / pool size, summed over partitions.
    pub output_pool: (u32, u32),
    /// Input buffers holding data / buffers the input channels own (exclusive + floating).
    pub input_pool: (u32, u32),
    pub overdraft_in_use: u32,
    /// Where it runs in the physical plan: its TaskManager (0-based) and the slot within
    /// it (`PlanSubtask::task_manager` / `slot`); `(0, 0)` for a task the plan lacks.
    pub task_manager: u32,
    pub slot: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ItemView {
    Data {
        bytes: u32,
        capacity: u32,
        records: u32,
        captured: bool,
        recovered: bool,
    },
    Barrier {
        id: u64,
        unaligned: bool,
        kind: BarrierKind,
    },
    Cancel {
        id: u64,
    },
    EndOfPartition,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChannelView {
    pub id: usize,
    pub edge: usize,
    pub from_task: usize,
    pub to_task: usize,
    /// `Local` (same TaskManager: no wire, no credit; `receiver` is the part of the
    /// producer's subpartition the consumer has not read) or `Remote` (credit-based).
    pub kind: super::network::ChannelKind,
    /// The subpartition: the buffer being filled first, then the queue head to tail.
    pub building: Option<ItemView>,
    pub sender: Vec<ItemView>,
    pub wire: Vec<ItemView>,
    /// The input channel's queue, head first.
    pub receiver: Vec<ItemView>,
    pub credit: u32,
    pub sender_blocked: bool,
    pub blocked_at_receiver: bool,
    pub exclusive: u32,
    pub floating: u32,
    /// Unaligned checkpoint in progress and this channel's barrier not yet here.
    pub persisting: bool,
    pub closed: bool,
}

fn data_view(b: &Buffer) -> ItemView {
    ItemView::Data {
        bytes: b.bytes,
        capacity: b.capacity,
        records: b.records.len() as u32,
        captured: b.captured.is_some(),
        recovered: b.recovered,
    }
}

fn item_view(item: &Item) -> ItemView {
    match item {
        Item::Data(b) => data_view(b),
        Item::Event {
            event: Event::Barrier(b),
            priority,
        } => ItemView::Barrier {
            id: b.id,
            unaligned: *priority || b.kind == BarrierKind::Unaligned,
            kind: b.kind,
        },
        Item::Event {
            event: Event::CancelCheckpointMarker(id),
            ..
        } => ItemView::Cancel { id: *id },
        Item::Event {
            event: Event::EndOfPartition,
            ..
        } => ItemView::EndOfPartition,
    }
}

impl Engine {
    /// (busy, backpressured, idle) shares of task `t` over the last `window` of virtual time.
    pub fn recent_ratios(&self, t: usize, window: Micros) -> (f64, f64, f64) {
        let steps = (window / SAMPLE_PERIOD).max(1) as usize;
        let n = self.samples.len();
        if n < 2 {
            return (0.0, 0.0, 1.0);
        }
        let last = &self.samples[n - 1];
        let first = &self.samples[n.saturating_sub(steps + 1)];
        let (Some(a), Some(b)) = (first.activity.get(t), last.activity.get(t)) else {
            return (0.0, 0.0, 1.0);
        };
        let busy = b.0.saturating_sub(a.0) as f64;
        let bp = b.1.saturating_sub(a.1) as f64;
        let idle = b.2.saturating_sub(a.2) as f64;
        let total = busy + bp + idle;
        if total <= 0.0 {
            return (0.0, 0.0, 1.0);
        }
        (busy / total, bp / total, idle / total)
    }

    /// The synchronous snapshot phases running at `now` (task, checkpoint id), and when the
    /// first of them ends, i.e. when its asynchronous phase begins (`sync_end`). For the
    /// playground's checkpoint step, which stops once at the sync phase and once where the
    /// async phase begins; reading it changes nothing.
    pub fn sync_phases(&self) -> (Vec<(usize, u64)>, Option<Micros>) {
        let mut running = Vec::new();
        let mut first_end: Option<Micros> = None;
        for t in &self.tasks {
            for (id, c) in &t.checkpoints {
                if c.phase_at(self.now) == "sync" {
                    running.push((t.id, *id));
                    let end = c.sync_end.unwrap_or(self.now);
                    first_end = Some(first_end.map_or(end, |e| e.min(end)));
                }
            }
        }
        (running, first_end)
    }

    pub fn task_views(&self) -> Vec<TaskView> {
        self.tasks
            .iter()
            .map(|t| {
                let (busy, backpressured, idle) = self.recent_ratios(t.id, 1_000_000);
                let used: u32 = t.partitions.iter().map(|&p| self.partitions[p].used).sum();
                let size: u32 = t
                    .partitions
                    .iter()
                    .map(|&p| self.partitions[p].pool_size)
                    .sum();
                let (task_manager, slot) = self
                    .plan
                    .subtask_of(t.operator, t.index)
                    .map(|s| {
                        (
                            self.plan.subtasks[s].task_manager,
                            self.plan.subtasks[s].slot,
                        )
                    })
                    .unwrap_or((0, 0));
                let overdraft = t
                    .partitions
                    .iter()
                    .map(|&p| self.partitions[p].overdraft_in_use())
                    .sum();
                TaskView {
                    id: t.id,
                    name: t.name.clone(),
                    operator: t.operator,
                    chained_operators: t.chain.ops.iter().map(|o| o.operator).collect(),
                    index: t.index,
                    status: t.status,
                    activity: t.activity,
                    busy,
                    backpressured,
                    idle,
                    backpressure: BackpressureLevel::from_ratio(backpressured),
                    handler_state: t.handler.state().name(),
                    checkpoint: t
                        .checkpoints
                        .iter()
                        .next_back()
                        .filter(|(_, c)| c.acked_at.is_none())
                        .map(|(id, c)| (*id, c.phase_at(self.now))),
                    records_in: t.metrics.records_in,
                    records_out: t.metrics.records_out,
                    output_pool: (used, size),
                    input_pool: (
                        t.inputs
                            .iter()
                            .map(|&c| self.channels[c].received_data)
                            .sum(),
                        t.inputs.iter().map(|&c| self.channels[c].owned()).sum(),
                    ),
                    overdraft_in_use: overdraft,
                    task_manager,
                    slot,
                }
            })
            .collect()
    }

    pub fn channel_views(&self) -> Vec<ChannelView> {
        self.channels
            .iter()
            .map(|c| ChannelView {
                id: c.id,
                edge: c.edge,
                from_task: c.from_task,
                to_task: c.to_task,
                kind: c.kind,
                building: c.building.as_ref().filter(|b| b.bytes > 0).map(data_view),
                sender: c.queue.iter().map(item_view).collect(),
                wire: c.in_flight.iter().map(|f| item_view(&f.item)).collect(),
                receiver: c.received.iter().map(item_view).collect(),
                credit: c.credit,
                sender_blocked: c.blocked,
                blocked_at_receiver: c.blocked_at_receiver,
                exclusive: c.exclusive,
                floating: c.floating,
                persisting: matches!(c.persist, Persist::BarrierPending(_)),
                closed: c.closed,
            })
            .collect()
    }
}
