//! A chart series bounded by the plot's width, drawn as the full series would be.
//!
//! Contract: [`decimate`] keeps a series of (virtual time, value) points, in time order,
//! unchanged up to [`LIMIT`] points; past it, for each of [`COLUMNS`] fixed spans of the
//! run ([`RunSpans`]) it keeps the span's first, lowest, highest and last point, in time
//! order and each once (M4 aggregation: Jugel et al., "M4: A Visualization-Oriented Time
//! Series Data Aggregation", VLDB 2014). A line through the kept points covers, in each
//! column, exactly the vertical extent the full line covers there and enters and leaves
//! it at the same points, so at one column per plot unit (the plot is 406 units wide) the
//! drawing matches the full series' to within a column. The spans are spans of time, so a
//! column already complete keeps its points as the run goes on; only the newest changes.
//!
//! Why (issue 19, item 5): the engine samples every 250 ms of virtual time
//! (`runtime::SAMPLE_PERIOD`), so at 2,500 s of a run a throughput line had 10,000 points,
//! and every refresh of the charts (4 a second while playing) formatted each of them
//! into an SVG `points` attribute that the browser parsed again.

use crate::engine::time::Micros;
use crate::ui::chart_export::{L, R, W};
use crate::ui::run_spans::RunSpans;

/// The number of columns a long series is cut into: one per unit of the charts' plot
/// width (406).
pub const COLUMNS: usize = (W - L - R) as usize;
/// Up to this many points a series is drawn whole (M4 would keep as many).
pub const LIMIT: usize = 4 * COLUMNS;

/// `points` (in time order) as the chart draws them over a run of `duration`.
pub fn decimate<V: PartialOrd + Copy>(
    points: &[(Micros, V)],
    duration: Micros,
) -> Vec<(Micros, V)> {
    if points.len() <= LIMIT {
        return points.to_vec();
    }
    let spans = RunSpans::new(duration, COLUMNS);
    let mut out = Vec::with_capacity(LIMIT);
    // In time order, so a column's points are one run of the slice.
    for column in points.chunk_by(|a, b| spans.of(a.0) == spans.of(b.0)) {
        keep_extremes(column, &mut out);
    }
    out
}

/// Appends the first, lowest, highest and last point of `column`, in time order, each
/// once. Ties keep the earliest point.
fn keep_extremes<V: PartialOrd + Copy>(column: &[(Micros, V)], out: &mut Vec<(Micros, V)>) {
    let (mut low, mut high) = (0, 0);
    for (i, p) in column.iter().enumerate() {
        if p.1 < column[low].1 {
            low = i;
        }
        if p.1 > column[high].1 {
            high = i;
        }
    }
    let mut picks = [0, low.min(high), low.max(high), column.len() - 1];
    picks.sort_unstable();
    let mut last = None;
    for i in picks {
        if last != Some(i) {
            out.push(column[i]);
            last = Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic wiggly series: `n` points 250 ms apart.
    fn series(n: usize) -> Vec<(Micros, f64)> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (i as Micros * 250_000, (x % 1000) as f64 + (i % 50) as f64)
            })
            .collect()
    }

    #[test]
    fn a_series_up_to_the_limit_is_kept_whole() {
        let s = series(LIMIT);
        assert_eq!(decimate(&s, 3_600_000_000), s);
    }

    #[test]
    fn a_long_series_keeps_each_column_s_ends_and_extremes_and_no_more() {
        let duration = 3_600_000_000;
        let s = series(10_001);
        let kept = decimate(&s, duration);
        assert!(kept.len() <= LIMIT, "{} points kept", kept.len());
        assert!(
            kept.windows(2).all(|w| w[0].0 < w[1].0),
            "time order, each point once"
        );
        assert!(
            kept.iter().all(|p| s.contains(p)),
            "only points of the series"
        );
        assert_eq!(kept.first(), s.first());
        assert_eq!(kept.last(), s.last());
        let spans = RunSpans::new(duration, COLUMNS);
        for column in 0..COLUMNS {
            let all: Vec<f64> = s
                .iter()
                .filter(|p| spans.of(p.0) == column)
                .map(|p| p.1)
                .collect();
            let mine: Vec<f64> = kept
                .iter()
                .filter(|p| spans.of(p.0) == column)
                .map(|p| p.1)
                .collect();
            if all.is_empty() {
                assert!(mine.is_empty());
                continue;
            }
            let max = |v: &[f64]| v.iter().copied().fold(f64::MIN, f64::max);
            let min = |v: &[f64]| v.iter().copied().fold(f64::MAX, f64::min);
            assert_eq!(max(&mine), max(&all), "column {column}'s highest point");
            assert_eq!(min(&mine), min(&all), "column {column}'s lowest point");
            assert_eq!(
                mine.first(),
                all.first(),
                "column {column} is entered where it is"
            );
            assert_eq!(
                mine.last(),
                all.last(),
                "column {column} is left where it is"
            );
            assert!(mine.len() <= 4);
        }
    }

    #[test]
    fn a_complete_column_keeps_its_points_as_the_run_goes_on() {
        let duration = 3_600_000_000;
        let s = series(14_401);
        let early = decimate(&s[..8_000], duration);
        let late = decimate(&s, duration);
        let spans = RunSpans::new(duration, COLUMNS);
        let open = spans.of(s[7_999].0);
        let done = |v: &Vec<(Micros, f64)>| -> Vec<(Micros, f64)> {
            v.iter().copied().filter(|p| spans.of(p.0) < open).collect()
        };
        assert!(!done(&early).is_empty());
        assert_eq!(done(&early), done(&late));
    }
}
