//! Pace-sized slicing of engine work within a frame's wall budget, shared by the single
//! run ([`super::sim::Sim::advance`]) and the comparison's two runs in lockstep
//! ([`super::compare::Compare::advance`]).
//!
//! Contract: a [`Pacer`] keeps the measured pace of what it drives (virtual µs per wall
//! ms, a moving average over the slices) and [`Pacer::advance`] runs a [`Sliced`] host
//! towards a virtual target in slices sized from that pace to take about
//! [`SLICE_WALL_MS`] each; a slice that would end past the budget is not started, so a
//! frame's engine work overruns its budget by a fraction of a slice at most. (Fixed-size
//! slices — an eighth of the frame's virtual target, 200 ms at 100× — took tens of ms on a
//! large job: the budget, checked only between slices, was overrun several times over and
//! the frame rate fell to a few per second.) The wall clock is passed in, so the slicing is
//! tested natively with a simulated clock. What a host does between slices (time-travel
//! snapshots) is [`Sliced::after_slice`], outside the pace's measurement.

use crate::engine::time::Micros;

/// Wall ms one engine slice aims at.
pub const SLICE_WALL_MS: f64 = 1.0;
/// The first slice of a run, before its pace is known (virtual µs).
pub const FIRST_SLICE: Micros = 2_000;
/// The smallest slice (virtual µs): a slice under the timer's resolution still moves.
pub const MIN_SLICE: Micros = 200;

/// What a [`Pacer`] drives: one engine, or two in lockstep.
pub trait Sliced {
    /// The virtual time reached.
    fn now(&self) -> Micros;
    /// Nothing more to run (the job ended).
    fn done(&self) -> bool;
    /// Runs to virtual time `to`.
    fn run_until(&mut self, to: Micros);
    /// Called after each slice with the slice's wall ms (time-travel snapshots); its own
    /// time is not counted in the pace.
    fn after_slice(&mut self, _took_ms: f64) {}
}

/// The measured pace and the slicing it gives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pacer {
    /// Virtual µs per wall ms (0 until the first slice).
    pace: f64,
}

impl Pacer {
    /// Virtual µs per wall ms, as measured so far (0: not yet).
    pub fn pace(&self) -> f64 {
        self.pace
    }

    /// The next slice's virtual length with `remaining` left to the target.
    pub fn slice(&self, remaining: Micros) -> Micros {
        let slice = if self.pace > 0.0 {
            (self.pace * SLICE_WALL_MS) as Micros
        } else {
            FIRST_SLICE
        };
        slice.max(MIN_SLICE).min(remaining)
    }

    /// Folds a slice that ran `virtual_us` in `wall_ms` into the pace (a slice under the
    /// timer's resolution counts as a tenth of a ms).
    pub fn record(&mut self, virtual_us: Micros, wall_ms: f64) {
        let pace = virtual_us as f64 / wall_ms.max(0.1);
        self.pace = if self.pace > 0.0 {
            self.pace * 0.8 + pace * 0.2
        } else {
            pace
        };
    }

    /// Runs `host` towards `target` for at most about `budget_ms` of `clock` (wall ms)
    /// and returns the virtual time reached.
    pub fn advance(
        &mut self,
        host: &mut dyn Sliced,
        target: Micros,
        budget_ms: f64,
        clock: &dyn Fn() -> f64,
    ) -> Micros {
        let start = clock();
        while host.now() < target && !host.done() {
            let from = host.now();
            let to = from + self.slice(target - from);
            let slice_start = clock();
            host.run_until(to);
            let took = clock() - slice_start;
            self.record(host.now().saturating_sub(from), took);
            host.after_slice(took);
            // Stop before a slice that would end past the budget.
            if clock() - start + SLICE_WALL_MS > budget_ms {
                break;
            }
        }
        host.now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    /// An engine costing `us_per_ms` virtual µs per wall ms of a shared simulated clock,
    /// that ends at `end`.
    struct Fake {
        now: Micros,
        end: Micros,
        us_per_ms: f64,
        clock: Rc<Cell<f64>>,
        slices: Vec<f64>,
    }

    impl Sliced for Fake {
        fn now(&self) -> Micros {
            self.now
        }
        fn done(&self) -> bool {
            self.now >= self.end
        }
        fn run_until(&mut self, to: Micros) {
            let to = to.min(self.end);
            let ms = (to - self.now) as f64 / self.us_per_ms;
            self.clock.set(self.clock.get() + ms);
            self.now = to;
        }
        fn after_slice(&mut self, took: f64) {
            self.slices.push(took);
        }
    }

    fn fake(us_per_ms: f64, end: Micros) -> (Fake, Rc<Cell<f64>>) {
        let clock = Rc::new(Cell::new(0.0));
        (
            Fake {
                now: 0,
                end,
                us_per_ms,
                clock: clock.clone(),
                slices: Vec::new(),
            },
            clock,
        )
    }

    #[test]
    fn slices_settle_at_the_pace_and_keep_the_budget() {
        // A slow engine: 5 virtual ms per wall ms; 100× asks 1.67 virtual s per frame.
        let (mut host, clock) = fake(5_000.0, 60_000_000);
        let mut pacer = Pacer::default();
        let c = clock.clone();
        let now = move || c.get();
        for frame in 0..20 {
            let t0 = clock.get();
            let before = host.now;
            pacer.advance(&mut host, before + 1_666_000, 8.0, &now);
            let took = clock.get() - t0;
            // The first slice (2 ms virtual) is cheap; from then on every slice aims
            // at SLICE_WALL_MS, so a frame never passes its budget by a whole slice.
            assert!(took <= 8.0 + SLICE_WALL_MS, "frame {frame}: {took} ms");
            if frame > 0 {
                assert!(
                    took >= 8.0 - 2.0 * SLICE_WALL_MS,
                    "frame {frame} used its budget: {took}"
                );
            }
        }
        assert!((pacer.pace() - 5_000.0).abs() < 1.0, "{}", pacer.pace());
        assert!(host
            .slices
            .iter()
            .skip(1)
            .all(|&s| s <= SLICE_WALL_MS + 1e-9));
    }

    #[test]
    fn a_fast_engine_reaches_its_target_and_a_finished_one_stops() {
        let (mut host, clock) = fake(1e6, 10_000);
        let c = clock.clone();
        let mut pacer = Pacer::default();
        assert_eq!(
            pacer.advance(&mut host, 5_000, 8.0, &move || c.get()),
            5_000
        );
        let c = clock.clone();
        // Past the job's end: it stops where the job ends.
        assert_eq!(
            pacer.advance(&mut host, 50_000, 8.0, &move || c.get()),
            10_000
        );
        assert_eq!(pacer.slice(100), 100, "never past the target");
        assert!(pacer.slice(u64::MAX) >= MIN_SLICE);
    }

    #[test]
    fn the_pace_follows_a_change() {
        let mut pacer = Pacer::default();
        pacer.record(10_000, 1.0);
        assert_eq!(pacer.slice(u64::MAX), 10_000);
        for _ in 0..40 {
            pacer.record(1_000, 1.0);
        }
        assert!(pacer.slice(u64::MAX) < 1_100, "{}", pacer.slice(u64::MAX));
    }
}
