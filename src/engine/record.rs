//! Records and their lineage: the ground truth that lets the engine prove exactly-once.
//!
//! Every record carries the identity of the source record it derives from (source
//! operator, source subtask, offset) and the branches taken since (flat_map child index,
//! broadcast target, edge ordinal where an operator feeds several edges). Two records with
//! equal lineage are the same logical record; a sink seeing one lineage twice has a
//! duplicate. Keys and values are pure functions of the lineage and the seed, so a replayed
//! record is identical to the original.

use serde::{Serialize, Serializer};
use std::rc::Rc;

/// The branches a record took since its source record: empty for a source record itself.
///
/// Shared, not owned: a clone of a branched record's path is a reference-count increment,
/// and the empty path — every record of a job without `flat_map` or fan-outs — holds no
/// allocation at all. It orders, compares and hashes as the `Vec<u32>` it replaced (the
/// empty path first, then lexicographically), so every set and map of lineages iterates
/// as before and no run changed. Thin (one pointer), so a [`Record`] is 48 bytes natively, 40 in wasm32.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Path(Option<Rc<Vec<u32>>>);

impl Path {
    /// The branches, first taken first.
    pub fn as_slice(&self) -> &[u32] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    /// This path with `branch` taken after it.
    pub fn then(&self, branch: u32) -> Path {
        let mut path = self.as_slice().to_vec();
        path.push(branch);
        Path(Some(Rc::new(path)))
    }

    /// Heap bytes this path holds (shared ones counted whole, as each holder would see).
    pub fn heap_bytes(&self) -> usize {
        self.0
            .as_ref()
            .map_or(0, |p| size_of::<Vec<u32>>() + 16 + p.capacity() * 4)
    }
}

impl From<Vec<u32>> for Path {
    fn from(path: Vec<u32>) -> Path {
        if path.is_empty() {
            Path(None)
        } else {
            Path(Some(Rc::new(path)))
        }
    }
}

impl std::ops::Deref for Path {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl Serialize for Path {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Lineage {
    /// Index of the source operator in the job.
    pub source: u16,
    pub subtask: u16,
    pub offset: u64,
    pub path: Path,
}

impl Lineage {
    /// The lineage of a source record.
    pub fn root(source: u16, subtask: u16, offset: u64) -> Lineage {
        Lineage {
            source,
            subtask,
            offset,
            path: Path::default(),
        }
    }

    /// The lineage of a child record that took branch `branch`.
    pub fn child(&self, branch: u32) -> Lineage {
        Lineage {
            path: self.path.then(branch),
            ..*self
        }
    }
}

/// One stream record. Cloning is cheap: the lineage is inline and its branch path, if
/// any, shared. (It was an `Rc<Lineage>`: one allocation per source record, ~75 % of the
/// engine's allocations on `large`.)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub key: u64,
    pub value: i64,
    /// Serialized size in bytes.
    pub size: u32,
    pub lineage: Lineage,
}

// The sizes [`Path`] promises (a wider `Record` is more bytes moved per record-hop).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<Record>() == 48);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(size_of::<Record>() == 40);

/// A 64-bit mixer (SplitMix64's finalizer) used for keys, values and key groups.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Key of source record `offset` of `(source, subtask)`: uniform over `keys`, or skewed
/// towards low keys (a power law whose exponent grows with `skew`: key `⌊keys · u^(1/(1−skew))⌋`
/// for `u` uniform in `[0, 1)`, so `P(key ≤ k) = ((k+1)/keys)^(1−skew)`).
///
/// Bit-identical on every host: `u` is an exact integer-to-float conversion of 53 hash
/// bits, `1/(1−skew)` and the product are single IEEE-754 operations (correctly rounded
/// everywhere, and Rust never fuses them into an FMA), the float-to-int cast saturates by
/// definition, and the one transcendental function, `pow`, is [`skew_pow`] — not the
/// host's libm (`f64::powf` is glibc's `pow` natively and a different libm in wasm, which
/// may round differently).
pub fn source_key(seed: u64, source: u16, subtask: u16, offset: u64, keys: u32, skew: f64) -> u64 {
    let h = mix(seed ^ mix(((source as u64) << 48) ^ ((subtask as u64) << 32) ^ mix(offset)));
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    let u = if skew > 0.0 {
        skew_pow(u, 1.0 / (1.0 - skew))
    } else {
        u
    };
    ((u * keys as f64) as u64).min(keys as u64 - 1)
}

/// `x^y` computed by the same code on every host: the `libm` crate's `pow` (a pure-Rust
/// port of FreeBSD msun's `e_pow.c`, error < 1 ulp), built from IEEE-754 additions,
/// multiplications, divisions, bit manipulation and at most one `sqrt` (exact in IEEE-754),
/// so its result depends only on its inputs, never on the host's C library. It agrees with
/// the glibc `powf` used before to within one ulp (`tests/engine_golden.rs` pins the
/// hashes of skewed runs natively and in the browser).
pub fn skew_pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// Value of a source record: a small number in 1..=100, a pure function of its identity.
pub fn source_value(seed: u64, source: u16, subtask: u16, offset: u64) -> i64 {
    let h = mix(
        seed.rotate_left(17) ^ mix(((source as u64) << 40) ^ ((subtask as u64) << 24) ^ offset)
    );
    (h % 100) as i64 + 1
}

/// Flink's `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM` (2^15).
pub const UPPER_BOUND_MAX_PARALLELISM: u32 = 1 << 15;
/// Flink's `KeyGroupRangeAssignment.DEFAULT_LOWER_BOUND_MAX_PARALLELISM` (2^7).
pub const DEFAULT_LOWER_BOUND_MAX_PARALLELISM: u32 = 1 << 7;

/// `KeyGroupRangeAssignment.computeDefaultMaxParallelism`: 1.5 × the operator's parallelism
/// rounded up to a power of two, at least 128, at most 32768.
pub fn default_max_parallelism(parallelism: u32) -> u32 {
    let p = parallelism as u64;
    let wanted = (p + p / 2).max(1).next_power_of_two();
    wanted.clamp(
        DEFAULT_LOWER_BOUND_MAX_PARALLELISM as u64,
        UPPER_BOUND_MAX_PARALLELISM as u64,
    ) as u32
}

/// The key group of `key` (`KeyGroupRangeAssignment.assignToKeyGroup`: a hash of the key
/// modulo the max parallelism; the playground's hash is [`mix`], not murmur).
pub fn key_group(key: u64, max_parallelism: u32) -> u32 {
    (mix(key.wrapping_add(0x51_7CC1_B727_220A)) % max_parallelism.max(1) as u64) as u32
}

/// `KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup`: key group × parallelism /
/// max parallelism.
pub fn operator_index_for_key_group(group: u32, parallelism: u32, max_parallelism: u32) -> u32 {
    (group as u64 * parallelism as u64 / max_parallelism.max(1) as u64) as u32
}

/// Flink's key-group assignment: the subtask of `parallelism` that owns `key`'s key group
/// (`KeyGroupRangeAssignment.assignKeyToParallelOperator`).
pub fn key_group_target(key: u64, parallelism: u32, max_parallelism: u32) -> u32 {
    operator_index_for_key_group(
        key_group(key, max_parallelism),
        parallelism,
        max_parallelism,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_pure_and_in_range() {
        for o in 0..1000 {
            let k = source_key(7, 0, 1, o, 64, 0.0);
            assert!(k < 64);
            assert_eq!(k, source_key(7, 0, 1, o, 64, 0.0));
        }
        // Skew concentrates keys at the low end.
        let low = (0..10_000)
            .filter(|&o| source_key(7, 0, 0, o, 64, 0.8) < 8)
            .count();
        assert!(low > 5_000, "{low}");
    }

    #[test]
    fn key_groups_cover_all_subtasks() {
        let mut seen = [false; 4];
        for k in 0..1000 {
            seen[key_group_target(k, 4, 128) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn default_max_parallelism_follows_flink() {
        assert_eq!(default_max_parallelism(1), 128);
        assert_eq!(default_max_parallelism(85), 128);
        assert_eq!(default_max_parallelism(86), 256);
        assert_eq!(default_max_parallelism(1000), 2048);
        assert_eq!(default_max_parallelism(30_000), 32_768);
    }
}
