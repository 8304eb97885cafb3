//! The engine's one source of randomness: a seeded SplitMix64 generator.
//!
//! SplitMix64 (Steele, Lea, Flood 2014; the seeding generator of `java.util.SplittableRandom`)
//! is defined by three lines of integer arithmetic, so every host — native, wasm, any
//! future port — produces the same sequence for the same seed. The engine derives one
//! independent stream per purpose with [`Rng::fork`], so adding a random draw in one place
//! never shifts the numbers another place sees.
//!
//! **Bit-identical across hosts.** A run depends on floating point only through operations
//! whose result IEEE-754 fixes exactly: `+ − × ÷`, `sqrt`, `floor`/`ceil`/`round`, `min`/
//! `max`/`clamp`, integer↔float `as` casts (float→int saturates by Rust's definition), and
//! parsing/formatting (Rust's own correctly rounded code). Rust never contracts `a * b + c`
//! into an FMA, and every sum is taken in a fixed order over ordered collections. What IEEE
//! leaves to the host — transcendental functions (`powf`, `exp`, `ln`, …) of the platform's
//! C library — is not used; the one the engine needs, `pow` for key skew, is a pure-Rust
//! implementation compiled into every host ([`super::record::skew_pow`]). So the event hash
//! of a run is the same natively and in wasm; `tests/golden/fixtures.json` pins it for
//! every preset and for scenarios covering skew, debloating, legacy sources, every sink
//! delivery, partitioner and event kind and a time-travel seek, checked by
//! `tests/engine_golden.rs` natively and `tests/wasm_engine.rs` in headless Chromium.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// An independent stream for `purpose`, derived from this generator's seed.
    pub fn fork(&self, purpose: u64) -> Rng {
        let mut mixer = Rng::new(self.state ^ purpose.wrapping_mul(0xA24B_AED4_963E_E407));
        Rng::new(mixer.next_u64())
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)`; `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        // Lemire's multiply-shift; the tiny bias is irrelevant here and keeps it branch-free.
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `[lo, hi]`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_sequence_for_seed_zero() {
        // Reference values of SplitMix64 for seed 0 (as published with the algorithm).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn forks_are_independent_and_reproducible() {
        let base = Rng::new(42);
        assert_eq!(base.fork(1).next_u64(), base.fork(1).next_u64());
        assert_ne!(base.fork(1).next_u64(), base.fork(2).next_u64());
        let mut r = Rng::new(7);
        for _ in 0..1000 {
            assert!(r.below(5) < 5);
            let f = r.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
    }
}
