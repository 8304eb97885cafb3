//! Geometry of the job editor's diagram: a layered layout of a scenario document's
//! operators and edges (pure data, so it is tested natively; the editor draws it).
//!
//! Contract: [`DagLayout::compute`] places every operator of the document as a box of
//! [`BOX_W`] × [`BOX_H`] in a column (layer) given by its longest path from an operator
//! without inputs, so every edge of an acyclic graph points left to right; within a
//! column, operators are ordered by the barycenter of their neighbours, sweeping
//! down and up a few times to reduce crossings. A draft may be anything: edges naming
//! unknown operators and self-loops are ignored, and in a cycle the edge that closes it
//! (found depth-first in document order) is set aside as a *back edge* and listed, so
//! the layout terminates and cycle members still sit in readable columns. Boxes never
//! overlap and all lie within `width` × `height`. [`DagLayout::edge_ends`] spreads the
//! edges of a box along its sides, ordered by the box at the other end. Deterministic: no hashing, ties keep
//! document order.

use super::document::Document;

pub const BOX_W: f64 = 150.0;
pub const BOX_H: f64 = 54.0;
pub const COL_GAP: f64 = 80.0;
pub const ROW_GAP: f64 = 28.0;
pub const MARGIN: f64 = 16.0;
const SWEEPS: usize = 4;

/// Where one operator goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub layer: usize,
    /// Position within its layer, top to bottom.
    pub row: usize,
    /// Top-left corner of the box.
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DagLayout {
    /// One per operator, in document order.
    pub nodes: Vec<Node>,
    /// Indices of edges set aside to break cycles (drawn as loops back).
    pub back_edges: Vec<usize>,
    pub width: f64,
    pub height: f64,
}

impl DagLayout {
    pub fn compute(doc: &Document) -> DagLayout {
        let n = doc.operators.len();
        let index = |id: &str| doc.operators.iter().position(|o| o.id == id);
        // (edge index, from, to) for the edges that can be drawn between two boxes.
        let links: Vec<(usize, usize, usize)> = doc
            .edges
            .iter()
            .enumerate()
            .filter_map(|(k, e)| Some((k, index(&e.from)?, index(&e.to)?)))
            .filter(|(_, f, t)| f != t)
            .collect();
        let back_edges = back_edges(n, &links);
        let forward: Vec<(usize, usize)> = links
            .iter()
            .filter(|(k, _, _)| !back_edges.contains(k))
            .map(|&(_, f, t)| (f, t))
            .collect();
        let layer = longest_path_layers(n, &forward);
        let layers = layer.iter().copied().max().map_or(0, |m| m + 1);
        let mut columns: Vec<Vec<usize>> = vec![Vec::new(); layers];
        for (i, &l) in layer.iter().enumerate() {
            columns[l].push(i);
        }
        order_by_barycenter(&mut columns, &forward, n);
        let tallest = columns.iter().map(Vec::len).max().unwrap_or(0);
        let pitch = BOX_H + ROW_GAP;
        let mut nodes = vec![
            Node {
                layer: 0,
                row: 0,
                x: 0.0,
                y: 0.0,
            };
            n
        ];
        for (l, column) in columns.iter().enumerate() {
            let offset = (tallest - column.len()) as f64 * pitch / 2.0;
            for (row, &i) in column.iter().enumerate() {
                nodes[i] = Node {
                    layer: l,
                    row,
                    x: MARGIN + l as f64 * (BOX_W + COL_GAP),
                    y: MARGIN + offset + row as f64 * pitch,
                };
            }
        }
        DagLayout {
            nodes,
            back_edges,
            width: MARGIN * 2.0 + layers as f64 * (BOX_W + COL_GAP)
                - COL_GAP.min(layers as f64 * COL_GAP),
            height: MARGIN * 2.0 + tallest as f64 * pitch - ROW_GAP.min(tallest as f64 * ROW_GAP),
        }
    }
}

impl DagLayout {
    /// Where each edge of `doc` leaves its source box and enters its target box (`None`
    /// for an edge naming an unknown operator). An operator's outgoing edges are spread
    /// down its right side and its incoming edges down its left side, each in the order
    /// of the box at the other end, so arrows and their labels do not pile up.
    pub fn edge_ends(&self, doc: &Document) -> Vec<Option<EdgeEnds>> {
        let index = |id: &str| doc.operators.iter().position(|o| o.id == id);
        let ends: Vec<Option<(usize, usize)>> = doc
            .edges
            .iter()
            .map(|e| Some((index(&e.from)?, index(&e.to)?)))
            .collect();
        // The slot of edge k among its operator's edges on one side, and their count.
        let slot = |k: usize, mine: &dyn Fn(usize) -> bool, other: &dyn Fn(usize) -> usize| {
            let mut side: Vec<usize> = (0..ends.len()).filter(|&j| mine(j)).collect();
            crate::compact_sort::sort_by(&mut side, |&a, &b| {
                let (na, nb) = (&self.nodes[other(a)], &self.nodes[other(b)]);
                na.y.total_cmp(&nb.y).then(a.cmp(&b))
            });
            let at = side.iter().position(|&j| j == k).unwrap_or(0);
            (at + 1) as f64 / (side.len() + 1) as f64
        };
        (0..ends.len())
            .map(|k| {
                let (f, t) = ends[k]?;
                let src = |j: usize| ends[j].map_or(usize::MAX, |e| e.0);
                let dst = |j: usize| ends[j].map_or(usize::MAX, |e| e.1);
                let out = slot(k, &|j| src(j) == f, &dst);
                let inn = slot(k, &|j| dst(j) == t, &src);
                let (a, b) = (&self.nodes[f], &self.nodes[t]);
                Some(EdgeEnds {
                    x1: a.x + BOX_W,
                    y1: a.y + BOX_H * out,
                    x2: b.x,
                    y2: b.y + BOX_H * inn,
                })
            })
            .collect()
    }
}

/// The two ends of an edge: out of the right side of its source box, into the left
/// side of its target box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeEnds {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
}

/// Edges that close a cycle, found depth-first: from operators without inputs first,
/// then from any operator not reached yet, successors in edge order.
fn back_edges(n: usize, links: &[(usize, usize, usize)]) -> Vec<usize> {
    let mut has_input = vec![false; n];
    for &(_, _, t) in links {
        has_input[t] = true;
    }
    let roots = (0..n).filter(|&i| !has_input[i]).chain(0..n);
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; n];
    let mut back = Vec::new();
    for root in roots {
        if state[root] != 0 {
            continue;
        }
        state[root] = 1;
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&(node, next)) = path.last() {
            let out = links.iter().filter(|l| l.1 == node).nth(next);
            match out {
                Some(&(k, _, t)) => {
                    if let Some(top) = path.last_mut() {
                        top.1 += 1;
                    }
                    match state[t] {
                        0 => {
                            state[t] = 1;
                            path.push((t, 0));
                        }
                        1 => back.push(k),
                        _ => {}
                    }
                }
                None => {
                    state[node] = 2;
                    path.pop();
                }
            }
        }
    }
    back.sort_unstable();
    back
}

/// Layer of each operator: the longest path to it over the (acyclic) `forward` edges.
fn longest_path_layers(n: usize, forward: &[(usize, usize)]) -> Vec<usize> {
    let mut indegree = vec![0usize; n];
    for &(_, t) in forward {
        indegree[t] += 1;
    }
    let mut layer = vec![0usize; n];
    let mut ready: Vec<usize> = (0..n).rev().filter(|&i| indegree[i] == 0).collect();
    while let Some(i) = ready.pop() {
        for &(f, t) in forward {
            if f == i {
                layer[t] = layer[t].max(layer[i] + 1);
                indegree[t] -= 1;
                if indegree[t] == 0 {
                    ready.push(t);
                }
            }
        }
    }
    layer
}

/// Reorders each column by the mean position of its neighbours in the previous column
/// (downward sweep) or the next (upward sweep); an operator without such neighbours
/// keeps its place. Stable sorts keep ties in their current order.
fn order_by_barycenter(columns: &mut [Vec<usize>], forward: &[(usize, usize)], n: usize) {
    let mut pos = vec![0.0f64; n];
    let place = |columns: &[Vec<usize>], pos: &mut Vec<f64>| {
        for column in columns {
            for (r, &i) in column.iter().enumerate() {
                pos[i] = r as f64;
            }
        }
    };
    place(columns, &mut pos);
    for sweep in 0..SWEEPS * 2 {
        let down = sweep % 2 == 0;
        let order: Vec<usize> = if down {
            (1..columns.len()).collect()
        } else {
            (0..columns.len().saturating_sub(1)).rev().collect()
        };
        for l in order {
            let key = |i: usize| {
                let near: Vec<f64> = forward
                    .iter()
                    .filter_map(|&(f, t)| match down {
                        true if t == i => Some(pos[f]),
                        false if f == i => Some(pos[t]),
                        _ => None,
                    })
                    .collect();
                if near.is_empty() {
                    pos[i]
                } else {
                    near.iter().sum::<f64>() / near.len() as f64
                }
            };
            let mut keyed: Vec<(f64, usize)> = columns[l].iter().map(|&i| (key(i), i)).collect();
            crate::compact_sort::sort_by(&mut keyed, |a, b| a.0.total_cmp(&b.0));
            columns[l] = keyed.into_iter().map(|(_, i)| i).collect();
            for (r, &i) in columns[l].iter().enumerate() {
                pos[i] = r as f64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::document::{EdgeDoc, Kind, OperatorDoc};

    fn doc(ops: &[(&str, Kind)], edges: &[(&str, &str)]) -> Document {
        let mut d = crate::scenario::default_document();
        d.operators = ops
            .iter()
            .map(|(id, k)| OperatorDoc::new(*id, *k))
            .collect();
        d.edges = edges
            .iter()
            .map(|(f, t)| EdgeDoc {
                from: f.to_string(),
                to: t.to_string(),
                partitioner: None,
            })
            .collect();
        d.events.clear();
        d
    }

    fn assert_readable(d: &Document, l: &DagLayout) {
        assert_eq!(l.nodes.len(), d.operators.len());
        for (i, a) in l.nodes.iter().enumerate() {
            assert!(a.x >= 0.0 && a.y >= 0.0, "{i} at {a:?}");
            assert!(a.x + BOX_W <= l.width + 1e-9, "{i} right of {}", l.width);
            assert!(a.y + BOX_H <= l.height + 1e-9, "{i} below {}", l.height);
            for (j, b) in l.nodes.iter().enumerate().skip(i + 1) {
                let apart = a.x + BOX_W <= b.x
                    || b.x + BOX_W <= a.x
                    || a.y + BOX_H <= b.y
                    || b.y + BOX_H <= a.y;
                assert!(apart, "boxes {i} and {j} overlap: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn a_dag_flows_left_to_right_by_longest_path() {
        use Kind::*;
        let d = doc(
            &[
                ("src", Source),
                ("a", Map),
                ("b", Map),
                ("c", Map),
                ("out", Sink),
            ],
            &[
                ("src", "a"),
                ("a", "b"),
                ("b", "out"),
                ("src", "c"),
                ("c", "out"),
            ],
        );
        let l = DagLayout::compute(&d);
        assert_readable(&d, &l);
        assert!(l.back_edges.is_empty());
        let layers: Vec<usize> = l.nodes.iter().map(|n| n.layer).collect();
        assert_eq!(layers, vec![0, 1, 2, 1, 3]);
        for e in &d.edges {
            let at = |id: &str| &l.nodes[d.operators.iter().position(|o| o.id == id).unwrap()];
            assert!(
                at(&e.from).x + BOX_W < at(&e.to).x,
                "{} -> {}",
                e.from,
                e.to
            );
        }
    }

    #[test]
    fn barycenters_untangle_two_crossed_chains() {
        use Kind::*;
        // Document order would draw s1 over s2 but m2 (fed by s1) under m1: a crossing.
        let d = doc(
            &[("s1", Source), ("s2", Source), ("m1", Map), ("m2", Map)],
            &[("s1", "m2"), ("s2", "m1")],
        );
        let l = DagLayout::compute(&d);
        assert_readable(&d, &l);
        assert_eq!(
            l.nodes[0].row < l.nodes[1].row,
            l.nodes[3].row < l.nodes[2].row
        );
    }

    #[test]
    fn cycles_self_loops_unknown_ends_and_islands_still_lay_out() {
        use Kind::*;
        let d = doc(
            &[
                ("src", Source),
                ("a", Map),
                ("b", Map),
                ("c", Map),
                ("lone", Map),
                ("out", Sink),
            ],
            &[
                ("src", "a"),
                ("a", "b"),
                ("b", "c"),
                ("c", "a"),
                ("b", "b"),
                ("b", "ghost"),
                ("c", "out"),
            ],
        );
        let l = DagLayout::compute(&d);
        assert_readable(&d, &l);
        assert_eq!(l.back_edges, vec![3], "c -> a closes the cycle");
        assert_eq!(l.nodes[4].layer, 0, "an island sits in the first column");
        assert!(l.nodes[1].layer < l.nodes[2].layer && l.nodes[2].layer < l.nodes[3].layer);
        let empty = doc(&[], &[]);
        let l = DagLayout::compute(&empty);
        assert!(l.nodes.is_empty() && l.width >= 0.0 && l.height >= 0.0);
    }

    #[test]
    fn twenty_four_operators_stay_within_bounds() {
        use Kind::*;
        let mut ops: Vec<(String, Kind)> = Vec::new();
        let mut edges: Vec<(String, String)> = Vec::new();
        for b in 0..4 {
            let ids: Vec<String> = ["src", "m", "f", "agg", "m2", "out"]
                .iter()
                .map(|s| format!("{s}{b}"))
                .collect();
            let kinds = [Source, Map, FlatMap, KeyedAggregate, Map, Sink];
            for (id, k) in ids.iter().zip(kinds) {
                ops.push((id.clone(), k));
            }
            for w in ids.windows(2) {
                edges.push((w[0].clone(), w[1].clone()));
            }
            if b > 0 {
                edges.push((format!("f{}", b - 1), format!("agg{b}")));
            }
        }
        let ops_ref: Vec<(&str, Kind)> = ops.iter().map(|(i, k)| (i.as_str(), *k)).collect();
        let edges_ref: Vec<(&str, &str)> = edges
            .iter()
            .map(|(f, t)| (f.as_str(), t.as_str()))
            .collect();
        let d = doc(&ops_ref, &edges_ref);
        let l = DagLayout::compute(&d);
        assert_readable(&d, &l);
        assert_eq!(
            l.nodes.iter().map(|n| n.layer).max(),
            Some(5),
            "six columns"
        );
        assert!(
            l.width < 1400.0 && l.height < 400.0,
            "{} x {}",
            l.width,
            l.height
        );
        assert_eq!(l, DagLayout::compute(&d), "deterministic");
    }

    #[test]
    fn edges_leave_and_enter_boxes_at_distinct_points_on_their_sides() {
        use Kind::*;
        let d = doc(
            &[
                ("s", Source),
                ("a", Map),
                ("b", Map),
                ("c", Map),
                ("out", Sink),
            ],
            &[
                ("s", "a"),
                ("s", "b"),
                ("s", "c"),
                ("a", "out"),
                ("b", "out"),
                ("c", "out"),
                ("c", "nowhere"),
            ],
        );
        let l = DagLayout::compute(&d);
        let ends = l.edge_ends(&d);
        assert_eq!(ends[6], None);
        let ends: Vec<EdgeEnds> = ends.into_iter().flatten().collect();
        let (s, out) = (&l.nodes[0], &l.nodes[4]);
        for e in &ends[..3] {
            assert_eq!(e.x1, s.x + BOX_W);
            assert!(e.y1 > s.y && e.y1 < s.y + BOX_H);
        }
        for e in &ends[3..] {
            assert_eq!(e.x2, out.x);
            assert!(e.y2 > out.y && e.y2 < out.y + BOX_H);
        }
        // Spread in the order of the boxes at the other end: no crossing at the ports.
        let by_row = |i: usize| l.nodes[i].y;
        let mut outs: Vec<(f64, f64)> = (0..3).map(|k| (by_row(k + 1), ends[k].y1)).collect();
        outs.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(outs.windows(2).all(|w| w[0].1 < w[1].1), "{outs:?}");
        let mut ins: Vec<(f64, f64)> = (3..6).map(|k| (by_row(k - 2), ends[k].y2)).collect();
        ins.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(ins.windows(2).all(|w| w[0].1 < w[1].1), "{ins:?}");
    }
}
