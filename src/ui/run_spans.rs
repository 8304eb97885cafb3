//! Fixed spans of a run, for the views that outgrow a mark per checkpoint.
//!
//! Contract: [`RunSpans`] cuts a run's duration into a fixed number of equal spans of
//! virtual time. [`RunSpans::of`] gives the span holding a time (the end of the run and
//! anything past it fall in the last span) and [`RunSpans::middle`] where a span's mark
//! sits. The history charts' bars (`chart_export`) and the timeline's marks (`markers`)
//! use one span per mark past their limits. Spans of time, not of checkpoints, so a mark
//! already drawn keeps its place and only the newest one changes as the run goes on.
//! Pure arithmetic (integer, so a time on a boundary has one span).

use crate::engine::time::Micros;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunSpans {
    duration: Micros,
    count: usize,
}

impl RunSpans {
    /// `count` spans over a run of `duration` (at least one span of at least 1 µs).
    pub fn new(duration: Micros, count: usize) -> RunSpans {
        RunSpans {
            duration: duration.max(1),
            count: count.max(1),
        }
    }

    /// The span holding `t`, `0..count`.
    pub fn of(&self, t: Micros) -> usize {
        let k = t as u128 * self.count as u128 / self.duration as u128;
        (k as usize).min(self.count - 1)
    }

    /// The middle of span `k`.
    pub fn middle(&self, k: usize) -> Micros {
        ((2 * k as u128 + 1) * self.duration as u128 / (2 * self.count as u128)) as Micros
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_time_falls_in_the_span_around_it_and_the_end_in_the_last() {
        let spans = RunSpans::new(3_600_000_000, 300);
        let len = 12_000_000;
        for k in 0..300 {
            let (start, end) = (k as Micros * len, (k as Micros + 1) * len);
            assert_eq!(spans.of(start), k);
            assert_eq!(spans.of(end - 1), k);
            assert_eq!(spans.of(spans.middle(k)), k);
            assert!(start < spans.middle(k) && spans.middle(k) < end);
        }
        assert_eq!(spans.of(3_600_000_000), 299);
        assert_eq!(spans.of(Micros::MAX), 299);
        assert_eq!(RunSpans::new(0, 0).of(5), 0, "no run still has one span");
    }
}
