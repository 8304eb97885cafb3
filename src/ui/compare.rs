//! Comparison mode's host: one scenario run twice in lockstep, differing only in
//! checkpoint mode (`scenario::compare`), each run a [`Sim`].
//!
//! Contract: both runs are always at the same virtual time. [`Compare::advance`] moves
//! them forward in shared slices — each slice runs engine `a` then engine `b` to the
//! same instant — within one wall budget for the pair, so when the budget runs out
//! neither has gone further than the other. A run that is over (its job finished)
//! simply stays where it ended. Every user action goes to both runs at the same virtual
//! instant through [`Sim::apply`] → `Engine::apply`, so each records it in its own
//! `spec.events` and the runs stay comparable. [`Compare::link_fragment`] is the
//! original document with the recorded actions and the `compare` field, so a shared
//! link reopens the comparison.

use crate::engine::runtime::JobStatus;
use crate::engine::spec::Action;
use crate::engine::time::Micros;
use crate::scenario::compare::{self, Comparison};
use crate::scenario::{self, Document, ScenarioError};

use super::pacer::{Pacer, Sliced};
use super::sim::Sim;
use crate::engine::Engine;

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

/// Two runs of one scenario, advanced together.
pub struct Compare {
    pub comparison: Comparison,
    /// The scenario as opened (its own config, without the comparison's keys).
    pub base: Document,
    pub a: Sim,
    pub b: Sim,
    /// Wall ms of the last [`Compare::advance`]: (engine slices, snapshot cutting).
    pub last_timing: (f64, f64),
    /// The pair's pace, which sizes the slices of [`Compare::advance`].
    pacer: Pacer,
}

/// The two engines as one [`Sliced`] host: each slice runs `a` then `b` to the same
/// instant; the pair is done when both jobs ended.
struct Lockstep<'a> {
    a: &'a mut Engine,
    b: &'a mut Engine,
}

impl Sliced for Lockstep<'_> {
    fn now(&self) -> Micros {
        self.a.now.max(self.b.now)
    }
    fn done(&self) -> bool {
        self.a.is_done() && self.b.is_done()
    }
    fn run_until(&mut self, to: Micros) {
        self.a.run_until(to);
        self.b.run_until(to);
    }
}

impl Compare {
    /// The comparison `comparison` of `base`; `Err` names the run that does not validate.
    pub fn new(base: Document, comparison: Comparison) -> Result<Compare, ScenarioError> {
        let (a, b) = compare::variants(&base, &comparison)?;
        Ok(Compare {
            a: Sim::new(a, None)?,
            b: Sim::new(b, None)?,
            base: Document {
                compare: None,
                ..base
            },
            comparison,
            last_timing: (0.0, 0.0),
            pacer: Pacer::default(),
        })
    }

    /// The shared virtual time (a run that ended early stays behind at its end).
    pub fn now(&self) -> Micros {
        self.a.now().max(self.b.now())
    }

    pub fn duration(&self) -> Micros {
        self.a.duration()
    }

    pub fn is_done(&self) -> bool {
        self.a.is_done() && self.b.is_done()
    }

    /// Run `a`'s status unless it is running and `b` is not (a failure shows).
    pub fn status(&self) -> JobStatus {
        match (self.a.status(), self.b.status()) {
            (JobStatus::Running, other) => other,
            (mine, _) => mine,
        }
    }

    /// Advances both runs towards `target` in shared slices, for at most `budget_ms` of
    /// wall time for the pair. Returns the virtual time both reached.
    ///
    /// The slices are sized from the pair's measured pace by the same [`Pacer`] as the
    /// single run's loop (`Sim::advance`): one slice runs both engines, so it aims at
    /// [`super::pacer::SLICE_WALL_MS`] for the two together.
    pub fn advance(&mut self, target: Micros, budget_ms: f64) -> Micros {
        let start = now_ms();
        let target = target.min(self.duration());
        {
            let mut pair = Lockstep {
                a: &mut self.a.engine.borrow_mut(),
                b: &mut self.b.engine.borrow_mut(),
            };
            self.pacer.advance(&mut pair, target, budget_ms, &now_ms);
        }
        let engine_done = now_ms();
        self.a.cut();
        self.b.cut();
        self.last_timing = (engine_done - start, now_ms() - engine_done);
        self.now()
    }

    /// Runs the next event of run `a` (or of `b` once `a` is over) and brings the other
    /// run to the same instant.
    pub fn step(&mut self) {
        let (first, second) = if self.a.is_done() {
            (&mut self.b, &mut self.a)
        } else {
            (&mut self.a, &mut self.b)
        };
        first.engine.borrow_mut().step();
        let t = first.now();
        second.engine.borrow_mut().run_until(t);
        self.refresh();
    }

    /// Runs both to virtual time `t` without a budget (tests, links opened at a time).
    pub fn run_to(&mut self, t: Micros) {
        self.a.run_to(t);
        self.b.run_to(t);
    }

    /// Re-cuts every snapshot of both runs (after a pause or a step).
    pub fn refresh(&mut self) {
        self.a.refresh();
        self.b.refresh();
    }

    /// Applies a user action to both runs at their shared instant; the first error wins.
    pub fn apply(&mut self, action: Action) -> Result<(), String> {
        // Both runs take it or neither does (a change can be fine for the aligned run and
        // refused for the unaligned one), so they never drift apart.
        self.a.check(&action)?;
        self.b.check(&action)?;
        let a = self.a.apply(action.clone());
        let b = self.b.apply(action);
        a.and(b)
    }

    /// Both runs from virtual time zero (live actions are dropped).
    pub fn reset(&mut self) {
        self.a.reset();
        self.b.reset();
    }

    /// The document a shared link carries: the original scenario, run `a`'s recorded
    /// actions (both runs recorded the same), and the comparison.
    pub fn document(&self) -> Document {
        let recorded = scenario::from_spec(&self.a.engine.borrow().spec);
        Document {
            events: recorded.events,
            compare: Some(self.comparison.clone()),
            ..self.base.clone()
        }
    }

    /// The link fragment (`z2:…`) that reopens this comparison with its actions.
    pub fn link_fragment(&self) -> String {
        scenario::encode_link(&self.document())
    }
}

/// The comparisons the playground offers, as (`A|B` text, label).
pub fn choices() -> Vec<(String, String)> {
    [
        "aligned|unaligned",
        "aligned|timeout:200ms",
        "aligned|timeout:1s",
        "unaligned|timeout:200ms",
    ]
    .iter()
    .map(|t| {
        let c = Comparison::parse(t, "compare").expect("the offered comparisons parse");
        (c.text(), c.label())
    })
    .collect()
}
