//! Which subtasks the job view draws as nodes of their own, and the operator blocks that
//! stand for the rest: the semantic zoom of the subtasks, beside that of the lanes
//! ([`super::lanes`]).
//!
//! Contract: a job of at most [`NODES_UP_TO`] subtasks draws every subtask ([`Nodes::All`]).
//! A bigger one (a hash job at parallelism 128 × 3 operators is 384 subtasks, 1,024 × 3 is
//! 3,072; each subtask node is ~10 SVG elements, plus its TaskManager box) draws, for the
//! window around what is on the screen ([`window`]: the visible rectangle grown by half
//! its size on every side, so a pan within it changes nothing), the subtasks in it when
//! they are at most [`WINDOW_NODES`] ([`Nodes::Window`]), else one block per operator
//! column (vertex box) instead of its subtasks ([`Nodes::Blocks`]): its counts of OK / LOW /
//! HIGH subtasks and its mean busy and backpressured shares ([`Tally`]), Flink's web UI's
//! per-vertex backpressure summary (`JobVertexBackPressureHandler`: the vertex's level is
//! its subtasks' worst; the UI lists each subtask's ratio). [`keep`] says when a window
//! still serves a new visible rectangle, so the node list is rebuilt only when the view
//! leaves it. Pure: rectangles and counts in, decisions out.

/// Jobs up to this many subtasks draw each one, whatever the zoom (`large` has 28, the
/// 64 × 32 hash job 96, a 3 × 32 hash job 96).
pub const NODES_UP_TO: usize = 256;
/// At most this many subtask nodes in a window of a bigger job (~1,600 SVG elements).
pub const WINDOW_NODES: usize = 160;

/// A layout rectangle: x, y, w, h.
pub type Rect = (f64, f64, f64, f64);

/// What the subtask layer draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Nodes {
    /// Every subtask.
    All,
    /// The subtasks meeting this layout rectangle.
    Window(Rect),
    /// One block per operator column, no subtask nodes.
    Blocks,
}

impl Nodes {
    /// `all` / `window` / `blocks` (the stage's `data-nodes`).
    pub fn name(self) -> &'static str {
        match self {
            Nodes::All => "all",
            Nodes::Window(_) => "window",
            Nodes::Blocks => "blocks",
        }
    }

    /// Whether a subtask box `r` is drawn.
    pub fn draws(self, r: Rect) -> bool {
        match self {
            Nodes::All => true,
            Nodes::Window(w) => meets(w, r),
            Nodes::Blocks => false,
        }
    }
}

pub fn meets(a: Rect, b: Rect) -> bool {
    a.0 <= b.0 + b.2 && b.0 <= a.0 + a.2 && a.1 <= b.1 + b.3 && b.1 <= a.1 + a.3
}

fn inside(inner: Rect, outer: Rect) -> bool {
    inner.0 >= outer.0
        && inner.1 >= outer.1
        && inner.0 + inner.2 <= outer.0 + outer.2
        && inner.1 + inner.3 <= outer.1 + outer.3
}

/// The window around the visible rectangle `vis`: grown by half its size on each side.
pub fn window(vis: Rect) -> Rect {
    (
        vis.0 - vis.2 / 2.0,
        vis.1 - vis.3 / 2.0,
        vis.2 * 2.0,
        vis.3 * 2.0,
    )
}

/// What to draw for `boxes` (every subtask's box) with `vis` on the screen.
pub fn choose(boxes: &[Rect], vis: Rect) -> Nodes {
    if boxes.len() <= NODES_UP_TO {
        return Nodes::All;
    }
    let w = window(vis);
    let n = boxes.iter().filter(|&&b| meets(w, b)).count();
    if n <= WINDOW_NODES {
        Nodes::Window(w)
    } else {
        Nodes::Blocks
    }
}

/// Whether `drawn` still serves `vis`: everything but a window always re-decides (a
/// zoom may switch between blocks and a window); a window serves while `vis` stays
/// inside it and it holds at most [`WINDOW_NODES`] — a zoom out past it re-decides.
pub fn keep(drawn: Nodes, boxes: &[Rect], vis: Rect) -> bool {
    match drawn {
        Nodes::Window(w) => inside(vis, w) && vis.2 * 2.0 >= w.2 * 0.5 && boxes.len() > NODES_UP_TO,
        Nodes::All => boxes.len() <= NODES_UP_TO,
        Nodes::Blocks => false,
    }
}

/// One operator column's subtasks, summed: what its block shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub subtasks: u32,
    pub ok: u32,
    pub low: u32,
    pub high: u32,
    /// Not running (initializing, finished, cancelled): no backpressure level.
    pub other: u32,
    /// Mean busy and backpressured shares of the last second, over the running ones.
    pub busy: f64,
    pub backpressured: f64,
}

/// A subtask as its block counts it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    Ok,
    Low,
    High,
    /// Not running.
    Other,
}

impl Tally {
    /// Sums `subtasks`: (level, busy, backpressured).
    pub fn of(subtasks: impl IntoIterator<Item = (Level, f64, f64)>) -> Tally {
        let mut t = Tally::default();
        let (mut busy, mut bp) = (0.0, 0.0);
        for (level, b, p) in subtasks {
            t.subtasks += 1;
            match level {
                Level::Ok => t.ok += 1,
                Level::Low => t.low += 1,
                Level::High => t.high += 1,
                Level::Other => t.other += 1,
            }
            if level != Level::Other {
                busy += b;
                bp += p;
            }
        }
        let running = (t.subtasks - t.other).max(1) as f64;
        // Rounded to a tenth of a percent, so an unchanged block is not re-rendered.
        t.busy = (busy / running * 1000.0).round() / 1000.0;
        t.backpressured = (bp / running * 1000.0).round() / 1000.0;
        t
    }

    /// The column's level as Flink's web UI gives a vertex: its worst subtask's.
    pub fn level(&self) -> Level {
        if self.high > 0 {
            Level::High
        } else if self.low > 0 {
            Level::Low
        } else if self.ok > 0 {
            Level::Ok
        } else {
            Level::Other
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` boxes 10 apart in a row, 8 wide.
    fn row(n: usize) -> Vec<Rect> {
        (0..n).map(|i| (i as f64 * 10.0, 0.0, 8.0, 8.0)).collect()
    }

    #[test]
    fn small_jobs_draw_everything_big_ones_blocks_or_a_window() {
        assert_eq!(
            choose(&row(NODES_UP_TO), (0.0, 0.0, 10.0, 10.0)),
            Nodes::All
        );
        let big = row(3072);
        // The whole row on the screen (fit): blocks.
        assert_eq!(choose(&big, (0.0, 0.0, 30_720.0, 100.0)), Nodes::Blocks);
        // Zoomed in on 40 boxes: the window (twice as wide) holds ~80 of them.
        let vis = (10_000.0, 0.0, 400.0, 8.0);
        let n = choose(&big, vis);
        let Nodes::Window(w) = n else { panic!("{n:?}") };
        let drawn = big.iter().filter(|&&b| n.draws(b)).count();
        assert!((40..=WINDOW_NODES).contains(&drawn), "{drawn}");
        // Every box on the screen is drawn.
        assert!(big.iter().filter(|&&b| meets(vis, b)).all(|&b| n.draws(b)));
        // A small pan stays in the window; a pan out of it, or a zoom out, re-decides.
        assert!(keep(n, &big, (10_100.0, 0.0, 400.0, 8.0)));
        assert!(!keep(n, &big, (w.0 + w.2, 0.0, 400.0, 8.0)));
        assert!(!keep(Nodes::Blocks, &big, vis));
        assert_eq!(n.name(), "window");
    }

    #[test]
    fn a_tally_counts_levels_and_averages_the_running() {
        let t = Tally::of([
            (Level::Ok, 0.2, 0.0),
            (Level::High, 0.1, 0.9),
            (Level::Low, 0.3, 0.3),
            (Level::Other, 1.0, 1.0),
        ]);
        assert_eq!((t.subtasks, t.ok, t.low, t.high, t.other), (4, 1, 1, 1, 1));
        assert!(
            (t.busy - 0.2).abs() < 1e-9 && (t.backpressured - 0.4).abs() < 1e-9,
            "{t:?}"
        );
        assert_eq!(t.level(), Level::High);
        assert_eq!(Tally::of([(Level::Ok, 0.0, 0.0)]).level(), Level::Ok);
        assert_eq!(Tally::of([]).level(), Level::Other);
    }
}
