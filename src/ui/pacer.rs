//! Pace-sized slicing of engine work within a frame's wall budget, shared by the single
//! run ([`super::sim::Sim::advance`]) and the comparison's two runs in lockstep
//! ([`super::compare::Compare::advance`]).
//!
//! Contract: a [`Pacer`] keeps the measured pace of what it drives (virtual µs per wall
//! ms, a moving average over the slices) and [`Pacer::advance`] runs a [`Sliced`] host
//! towards a virtual target in slices sized from that pace to take about
//! [`SLICE_WALL_MS`] each, the last one of a frame to what the budget still leaves, so a
//! frame's engine work fills its budget and overruns it by the pace's error on one slice at
//! most; under [`MIN_LAST_SLICE_MS`] left, no further slice starts (the first always does,
//! so every frame moves). (Stopping instead before any slice that might end past the
//! budget left on average ~1.7 of a `large` job's ~8.9 ms unused at 100×, Dec 7: 78×
//! achieved where the budget allowed ~90×.) (Fixed-size
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
/// Wall ms of budget under which a frame starts no further slice: the page's clock
/// (`performance.now()`) is coarsened to 0.1 ms, so a shorter slice could not be timed.
pub const MIN_LAST_SLICE_MS: f64 = 0.2;

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
        self.slice_within(remaining, SLICE_WALL_MS)
    }

    /// The next slice's virtual length with `remaining` left to the target and `wall_ms`
    /// of the frame's budget left (a slice aims at [`SLICE_WALL_MS`] at most).
    fn slice_within(&self, remaining: Micros, wall_ms: f64) -> Micros {
        let slice = if self.pace > 0.0 {
            (self.pace * wall_ms.min(SLICE_WALL_MS)) as Micros
        } else {
            FIRST_SLICE
        };
        slice.max(MIN_SLICE).min(remaining)
    }

    /// Folds a slice that ran `virtual_us` in `wall_ms` into the pace (a slice under the
    /// timer's resolution counts as a tenth of a ms). The caller leaves out slices that
    /// were cut short to the budget's end: timed on a 0.1-ms clock, they would move the pace
    /// by tens of percent.
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
        let mut first = true;
        while host.now() < target && !host.done() {
            let left = budget_ms - (clock() - start);
            // A frame always runs one slice (at least [`MIN_SLICE`]), whatever its budget.
            if left < MIN_LAST_SLICE_MS && !first {
                break;
            }
            first = false;
            let from = host.now();
            let to = from + self.slice_within(target - from, left);
            let slice_start = clock();
            host.run_until(to);
            let took = clock() - slice_start;
            if left >= SLICE_WALL_MS || self.pace <= 0.0 {
                self.record(host.now().saturating_sub(from), took);
            }
            host.after_slice(took);
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
            // The first slice (2 ms virtual) is cheap; from then on every slice aims at
            // SLICE_WALL_MS and the last at what the budget leaves: at a steady pace a
            // frame fills its budget and does not pass it.
            assert!(took <= 8.0 + 1e-6, "frame {frame}: {took} ms");
            if frame > 0 {
                assert!(
                    took >= 8.0 - MIN_LAST_SLICE_MS,
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
    fn a_slower_engine_overruns_by_one_slice_of_pace_error_at_most() {
        // The pace is measured at 5 virtual ms per wall ms, then the engine halves its
        // speed: the frame's slices, sized from the old pace, each take twice as long.
        let (mut host, clock) = fake(5_000.0, 60_000_000);
        let mut pacer = Pacer::default();
        let c = clock.clone();
        let now = move || c.get();
        for _ in 0..5 {
            let target = host.now + 1_666_000;
            pacer.advance(&mut host, target, 8.0, &now);
        }
        host.us_per_ms = 2_500.0;
        let t0 = clock.get();
        let target = host.now + 1_666_000;
        pacer.advance(&mut host, target, 8.0, &now);
        let took = clock.get() - t0;
        assert!(took <= 8.0 + SLICE_WALL_MS, "{took} ms");
        // Slices cut short at the budget's end are not timed into the pace.
        assert!(pacer.pace() < 5_000.0, "{}", pacer.pace());
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
        // A budget too small for any slice still runs one: every frame moves.
        let (mut slow, slow_clock) = fake(1_000.0, 1_000_000);
        let reached = Pacer::default().advance(&mut slow, 500_000, 0.01, &move || slow_clock.get());
        assert_eq!(reached, FIRST_SLICE);
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
