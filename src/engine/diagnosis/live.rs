//! Where every barrier of a pending checkpoint is right now, and what it waits for — as a
//! tree from the coordinator down.
//!
//! Contract: [`barrier_tree`] reads the engine's live state (the subtask checkpoints, the
//! channel queues, the task activity) for one pending checkpoint and returns its nodes in
//! tree order: the coordinator, then each subtask under its first upstream subtask (sources
//! under the coordinator), with what it waits for in the engine's terms — the trigger RPC,
//! a blocked task thread, a legacy source's lock, a barrier behind N buffers in a sender
//! queue without credit / on the wire / in an input queue, the alignment's missing
//! channels, the storage write, the acknowledgement.

use super::super::log::{text, Arg, Msg};
use super::super::network::{Event, Item};
use super::super::runtime::Engine;
use super::super::task::Activity;
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TreeNode {
    pub depth: u32,
    /// `coordinator` or `operator#index`.
    pub name: String,
    /// `acknowledged`, `writing`, `aligning`, `waiting` (no barrier processed yet).
    pub state: String,
    /// What it waits for: exactly `waits_for_msg`'s English.
    pub waits_for: String,
    /// [`TreeNode::waits_for`]'s structured form, for the interface; not in the JSON.
    #[serde(skip)]
    pub waits_for_msg: Option<Msg>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BarrierTree {
    pub checkpoint: u64,
    pub nodes: Vec<TreeNode>,
}

fn is_barrier(i: &Item, id: u64) -> bool {
    matches!(i, Item::Event { event: Event::Barrier(b), .. } if b.id == id)
}

/// Where checkpoint `id`'s barrier is on channel `c`, if it is in the channel.
fn barrier_position(engine: &Engine, c: usize, id: u64) -> Option<Msg> {
    let ch = &engine.channels[c];
    let route = format!(
        "{} → {}",
        engine.tasks[ch.from_task].name, engine.tasks[ch.to_task].name
    );
    if let Some(p) = ch.queue.iter().position(|i| is_barrier(i, id)) {
        let ahead = ch.queue.iter().take(p).filter(|i| i.is_data()).count();
        let code = if ch.credit == 0 {
            "its barrier is in {0}'s sender queue behind {1} buffers, no credit"
        } else {
            "its barrier is in {0}'s sender queue behind {1} buffers"
        };
        return Some(Msg::new(code, vec![text(route), text(ahead)]));
    }
    if ch.in_flight.iter().any(|f| is_barrier(&f.item, id)) {
        return Some(Msg::new(
            "its barrier is on the wire of {0}",
            vec![text(route)],
        ));
    }
    if let Some(p) = ch.received.iter().position(|i| is_barrier(i, id)) {
        let ahead = ch.received.iter().take(p).filter(|i| i.is_data()).count();
        return Some(Msg::new(
            "its barrier is in {0}'s input queue behind {1} buffers",
            vec![text(route), text(ahead)],
        ));
    }
    None
}

pub fn barrier_tree(engine: &Engine, id: u64) -> Option<BarrierTree> {
    let s = engine.coordinator.stats(id)?;
    let acks = Msg::new(
        "{0} of {1} acknowledgements",
        vec![text(s.acknowledged()), text(s.expected.len())],
    );
    let mut nodes = vec![TreeNode {
        depth: 0,
        name: "coordinator".into(),
        state: s.status.name().into(),
        waits_for: acks.english(),
        waits_for_msg: Some(acks),
    }];
    // Children: sources under the coordinator, every other subtask under its first upstream.
    let parent = |t: usize| engine.tasks[t].upstream_tasks.iter().copied().min();
    fn walk(
        engine: &Engine,
        id: u64,
        t: usize,
        depth: u32,
        parent: &dyn Fn(usize) -> Option<usize>,
        nodes: &mut Vec<TreeNode>,
        seen: &mut Vec<bool>,
    ) {
        if seen[t] {
            return;
        }
        seen[t] = true;
        nodes.push(node(engine, id, t, depth));
        let children: Vec<usize> = (0..engine.tasks.len())
            .filter(|&c| parent(c) == Some(t))
            .collect();
        for c in children {
            walk(engine, id, c, depth + 1, parent, nodes, seen);
        }
    }
    let mut seen = vec![false; engine.tasks.len()];
    for t in 0..engine.tasks.len() {
        if parent(t).is_none() {
            walk(engine, id, t, 1, &parent, &mut nodes, &mut seen);
        }
    }
    Some(BarrierTree {
        checkpoint: id,
        nodes,
    })
}

fn node(engine: &Engine, id: u64, t: usize, depth: u32) -> TreeNode {
    let task = &engine.tasks[t];
    let stats = engine.coordinator.stats(id);
    let acked = stats.is_some_and(|s| s.subtasks.get(&t).is_some_and(|x| x.ack_at.is_some()));
    let blocked = task.activity == Activity::HardBackpressured;
    let positions = || -> Vec<Arg> {
        task.inputs
            .iter()
            .filter_map(|&c| barrier_position(engine, c, id))
            .map(Arg::from)
            .collect()
    };
    let (state, waits_for) = if acked {
        ("acknowledged", Msg::new("nothing", vec![]))
    } else if let Some(cp) = task.checkpoints.get(&id) {
        if cp.sync_start.is_some() {
            (
                "writing",
                Msg::new(
                    "checkpoint storage: {0} write(s) of state / in-flight data pending",
                    vec![text(cp.writes_pending.max(1))],
                ),
            )
        } else {
            let missing = positions();
            let missing = if missing.is_empty() {
                Msg::new("in upstream snapshots", vec![]).into()
            } else {
                Arg::List(missing, "; ")
            };
            let code = if blocked {
                "the barriers still missing: {0}; its task thread is blocked on an output buffer request"
            } else {
                "the barriers still missing: {0}"
            };
            ("aligning", Msg::new(code, vec![missing]))
        }
    } else if task.is_source || task.inputs.is_empty() {
        let w = if task.legacy_source && blocked {
            "the checkpoint lock, held by the legacy source thread blocked on a buffer request"
        } else if blocked {
            "its task thread, blocked on an output buffer request"
        } else {
            "the trigger RPC / its mailbox"
        };
        ("waiting", Msg::new(w, vec![]))
    } else {
        let at = positions();
        let w = if at.is_empty() {
            Msg::new(
                "its upstream's snapshots (no barrier sent to it yet)",
                vec![],
            )
        } else {
            Msg::new("{0}", vec![Arg::List(at, "; ")])
        };
        let w = if blocked {
            Msg::new(
                "{0}; its task thread is blocked on an output buffer request",
                vec![w.into()],
            )
        } else {
            w
        };
        ("waiting", w)
    };
    TreeNode {
        depth,
        name: task.name.clone(),
        state: state.into(),
        waits_for: waits_for.english(),
        waits_for_msg: Some(waits_for),
    }
}
