//! Stable sorting that costs a few hundred bytes of wasm per call site instead of a
//! whole sort algorithm.
//!
//! `slice::sort_by` (the standard library's driftsort) is monomorphised for every
//! element type and comparator it is called with: in the page's module each call site
//! carried its own ~6 KB copy (quicksort, merge, small-sort networks), 33 of them, about
//! 200 KB before `wasm-opt` (issue 19, item 1; measured with `twiggy top` on the release
//! module). None of the playground's sorts is on the engine's hot path (graph building,
//! layout, the Flink export, diagnosis percentiles, scenario editing), so they all go
//! through this module: one merge sort over `u32` positions with a `dyn` comparator,
//! compiled once, and per call site only the closure comparing two positions and the
//! in-place permutation that applies the result.
//!
//! Contract: [`sort_by`] leaves the slice in exactly the order `slice::sort_by` would
//! for any comparator that is a total order, because both are stable (equal elements
//! keep their relative order). For a comparator that is not a total order the order is
//! unspecified but every element is kept once, and nothing panics (the standard sort may
//! panic then). If the comparator panics, the slice is left as it was.
//!
//! The cost is speed: each comparison is an indirect call and the elements move once
//! at the end, which is fine for the tens to thousands of elements these sorts see.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, as `slice::sort_by` does.
pub fn sort_by<T, F: FnMut(&T, &T) -> Ordering>(v: &mut [T], mut cmp: F) {
    let n = v.len();
    if n < 2 {
        return;
    }
    let n = u32::try_from(n).expect("compact_sort: more than u32::MAX elements");
    let mut order: Vec<u32> = (0..n).collect();
    {
        let items: &[T] = v;
        sort_positions(&mut order, &mut |a, b| {
            cmp(&items[a as usize], &items[b as usize])
        });
    }
    permute(v, &mut order);
}

/// Sorts `v` stably by the key `key` returns, as `slice::sort_by_key` does (the key
/// is computed twice per comparison, as there).
pub fn sort_by_key<T, K: Ord, F: FnMut(&T) -> K>(v: &mut [T], mut key: F) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

/// Sorts `v` stably in ascending order, as `slice::sort` does.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp)
}

/// Runs shorter than this are sorted by insertion before merging.
const RUN: usize = 16;

/// Stable merge sort of `order` (positions into the caller's slice) by `cmp`:
/// insertion-sorted runs of [`RUN`], then bottom-up merges through one scratch buffer.
fn sort_positions(order: &mut [u32], cmp: &mut dyn FnMut(u32, u32) -> Ordering) {
    let n = order.len();
    for run in order.chunks_mut(RUN) {
        for i in 1..run.len() {
            let mut j = i;
            while j > 0 && cmp(run[j - 1], run[j]) == Ordering::Greater {
                run.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    if n <= RUN {
        return;
    }
    let mut scratch = vec![0u32; n];
    let mut width = RUN;
    // `from` holds sorted runs of `width`; each pass merges pairs of them into `to`.
    let (mut from, mut to): (&mut [u32], &mut [u32]) = (order, &mut scratch);
    let mut in_scratch = false;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            for slot in &mut to[start..end] {
                // Take from the right run only when it is strictly smaller: stability.
                let take_right = i == mid || (j < end && cmp(from[j], from[i]) == Ordering::Less);
                if take_right {
                    *slot = from[j];
                    j += 1;
                } else {
                    *slot = from[i];
                    i += 1;
                }
            }
        }
        std::mem::swap(&mut from, &mut to);
        in_scratch = !in_scratch;
        width *= 2;
    }
    if in_scratch {
        // The sorted positions ended in the scratch buffer, which `from` now is.
        to.copy_from_slice(from);
    }
}

/// Reorders `v` so that position `i` holds the element that was at `order[i]`
/// (`order` is a permutation of `0..v.len()`), following each cycle once with swaps;
/// `order` is used up as the visited marks.
fn permute<T>(v: &mut [T], order: &mut [u32]) {
    for start in 0..v.len() {
        let mut at = start;
        loop {
            let next = order[at] as usize;
            order[at] = at as u32;
            if next == start || next == at {
                break;
            }
            v.swap(at, next);
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for the tests (SplitMix64).
    struct Gen(u64);
    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    /// Same order as the standard stable sort, duplicates included (each element
    /// carries its original position, so a stability slip shows), over lengths around
    /// the run and merge boundaries and key ranges from all-equal to all-distinct.
    #[test]
    fn matches_the_standard_stable_sort() {
        for seed in 0..400u64 {
            let mut g = Gen(seed);
            let len = match seed % 4 {
                0 => (g.next() % 4) as usize,
                1 => (g.next() % 40) as usize,
                2 => RUN * 2 + (g.next() % 3) as usize - 1,
                _ => (g.next() % 700) as usize,
            };
            let keys = 1 + g.next() % 50;
            let v: Vec<(u64, usize)> = (0..len).map(|i| (g.next() % keys, i)).collect();
            let mut expected = v.clone();
            expected.sort_by_key(|e| e.0);
            let mut got = v.clone();
            sort_by_key(&mut got, |e| e.0);
            assert_eq!(got, expected, "seed {seed}, len {len}, keys {keys}");
            let mut descending = v.clone();
            sort_by(&mut descending, |a, b| b.0.cmp(&a.0));
            expected.sort_by_key(|e| std::cmp::Reverse(e.0));
            assert_eq!(descending, expected, "descending, seed {seed}, len {len}");
        }
    }

    #[test]
    fn sorts_owned_values_in_place() {
        let mut v: Vec<String> = ["pear", "apple", "fig", "apple", "kiwi"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        sort(&mut v);
        assert_eq!(v, ["apple", "apple", "fig", "kiwi", "pear"]);
        let mut floats = vec![3.5, -1.0, f64::NAN, 0.0, -0.0];
        sort_by(&mut floats, f64::total_cmp);
        assert_eq!(format!("{floats:?}"), "[-1.0, -0.0, 0.0, 3.5, NaN]");
    }

    /// A comparator that is no order at all still leaves every element exactly once.
    #[test]
    fn an_inconsistent_comparator_loses_nothing() {
        let mut g = Gen(7);
        let mut v: Vec<u32> = (0..300).collect();
        sort_by(&mut v, |_, _| match g.next() % 3 {
            0 => Ordering::Less,
            1 => Ordering::Equal,
            _ => Ordering::Greater,
        });
        let mut seen = v.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..300).collect::<Vec<u32>>());
    }

    /// A panicking comparator leaves the slice as it was.
    #[test]
    fn a_panicking_comparator_leaves_the_slice_unchanged() {
        let mut v: Vec<u32> = (0..100).rev().collect();
        let before = v.clone();
        let mut calls = 0;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sort_by(&mut v, |a, b| {
                calls += 1;
                assert!(calls < 50, "comparator gave up");
                a.cmp(b)
            })
        }));
        assert!(result.is_err());
        assert_eq!(v, before);
    }
}
