//! Restart strategies: how long the job waits after a failure before it restarts, and when
//! it stops restarting and goes FAILED.
//!
//! Followed from Flink 1.19–2.3 (`flink-runtime/.../executiongraph/failover/`):
//! `RestartBackoffTimeStrategyFactoryLoader` (which strategy: `restart-strategy.type`, else
//! `exponential-delay` with its default options when checkpointing is enabled, else no
//! restart — FLIP-364, 1.19), `ExponentialDelayRestartBackoffTimeStrategy`,
//! `FixedDelayRestartBackoffTimeStrategy`, `FailureRateRestartBackoffTimeStrategy`,
//! `NoRestartBackoffTimeStrategy`, with the options and defaults of `RestartStrategyOptions`
//! (see [`super::config::KEYS`]). Each failure is handled as `ExecutionFailureHandler` does:
//! `notifyFailure` first, then `canRestart`, then `getBackoffTime`.
//!
//! Contract: [`RestartBackoff::on_failure`] takes the strategy in effect, the virtual time of
//! the failure and returns [`RestartDecision`] — restart after a delay, or give up. The state
//! (attempt counter, next restart time, recent failure timestamps) lives here and nowhere
//! else. Jitter is drawn from this component's own stream of the engine's seeded generator
//! (`Rng::fork`), so a jittered delay is the same on every host and shifts no other draw.
//!
//! Simplifications: Flink counts in milliseconds and so does this (a delay is a whole number
//! of ms); `Math.pow(multiplier, attempt)` is computed by repeated multiplication (IEEE-exact
//! on every host; it may differ from Java's `pow` in the last bit, i.e. by 1 ms after
//! truncation, in rare cases). The failure is not classified (Flink's
//! `ThrowableClassifier` makes some failures non-recoverable; none of the playground's are).

use super::rng::Rng;
use super::time::{Micros, MICROS_PER_MS};
use serde::Serialize;
use std::collections::VecDeque;

/// `RestartStrategyOptions.RestartStrategyType`, as `restart-strategy.type` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RestartStrategyType {
    /// `disable` (also `none`, `off`).
    NoRestart,
    /// `fixed-delay` (also `fixeddelay`).
    FixedDelay,
    /// `failure-rate` (also `failurerate`).
    FailureRate,
    /// `exponential-delay` (also `exponentialdelay`).
    ExponentialDelay,
}

impl RestartStrategyType {
    /// `RestartStrategyType.of` (lower-cased, as the loader does).
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "disable" | "none" | "off" => Some(Self::NoRestart),
            "fixed-delay" | "fixeddelay" => Some(Self::FixedDelay),
            "failure-rate" | "failurerate" => Some(Self::FailureRate),
            "exponential-delay" | "exponentialdelay" => Some(Self::ExponentialDelay),
            _ => None,
        }
    }

    /// The main value (`getMainValue`).
    pub fn name(self) -> &'static str {
        match self {
            Self::NoRestart => "disable",
            Self::FixedDelay => "fixed-delay",
            Self::FailureRate => "failure-rate",
            Self::ExponentialDelay => "exponential-delay",
        }
    }
}

/// A resolved strategy with its options (durations in ms, as Flink holds them).
#[derive(Clone, Debug, PartialEq)]
pub enum RestartStrategy {
    NoRestart,
    FixedDelay {
        attempts: u32,
        delay_ms: u64,
    },
    FailureRate {
        max_failures_per_interval: u32,
        interval_ms: u64,
        delay_ms: u64,
    },
    ExponentialDelay {
        initial_backoff_ms: u64,
        max_backoff_ms: u64,
        multiplier: f64,
        reset_threshold_ms: u64,
        jitter: f64,
        attempts_before_reset: u32,
    },
}

impl RestartStrategy {
    /// What the loader picks: the configured type, else exponential-delay with default
    /// options when checkpointing is enabled, else no restart.
    pub fn resolve(config: &super::config::EngineConfig, checkpointing_enabled: bool) -> Self {
        let c = config;
        let ty = match c.restart_strategy {
            Some(t) => t,
            None if checkpointing_enabled => RestartStrategyType::ExponentialDelay,
            None => RestartStrategyType::NoRestart,
        };
        let ms = |us: Micros| us / MICROS_PER_MS;
        match ty {
            RestartStrategyType::NoRestart => Self::NoRestart,
            RestartStrategyType::FixedDelay => Self::FixedDelay {
                attempts: c.fixed_delay_attempts,
                delay_ms: ms(c.restart_delay),
            },
            RestartStrategyType::FailureRate => Self::FailureRate {
                max_failures_per_interval: c.failure_rate_max_failures,
                interval_ms: ms(c.failure_rate_interval),
                delay_ms: ms(c.failure_rate_delay),
            },
            // With no type configured the loader uses the options' *default values*, not the
            // configured ones (`getDefaultRestartStrategyFactory`).
            RestartStrategyType::ExponentialDelay if c.restart_strategy.is_none() => {
                let d = super::config::EngineConfig::default();
                Self::exponential_from(&d)
            }
            RestartStrategyType::ExponentialDelay => Self::exponential_from(c),
        }
    }

    fn exponential_from(c: &super::config::EngineConfig) -> Self {
        let ms = |us: Micros| us / MICROS_PER_MS;
        Self::ExponentialDelay {
            initial_backoff_ms: ms(c.exp_initial_backoff).max(1),
            max_backoff_ms: ms(c.exp_max_backoff).max(ms(c.exp_initial_backoff)).max(1),
            multiplier: c.exp_multiplier,
            reset_threshold_ms: ms(c.exp_reset_threshold).max(1),
            jitter: c.exp_jitter,
            attempts_before_reset: c.exp_attempts.max(1),
        }
    }

    /// A short description for the log: `fixed-delay (1s, 3 attempts)`.
    pub fn describe(&self) -> String {
        match self {
            Self::NoRestart => "disable (no restart)".into(),
            Self::FixedDelay { attempts, delay_ms } => {
                format!("fixed-delay ({delay_ms} ms, {attempts} attempts)")
            }
            Self::FailureRate {
                max_failures_per_interval,
                interval_ms,
                ..
            } => format!(
                "failure-rate (at most {max_failures_per_interval} failures per {interval_ms} ms)"
            ),
            Self::ExponentialDelay {
                attempts_before_reset,
                ..
            } => format!("exponential-delay ({attempts_before_reset} attempts before reset)"),
        }
    }
}

/// What to do after a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestartDecision {
    /// Restart after this delay (µs). `new_attempt` is false when the failure was merged into
    /// a restart already scheduled (exponential-delay's `notifyFailure` returning false).
    Restart { delay: Micros, new_attempt: bool },
    /// The strategy's `canRestart()` is false: the job goes FAILED.
    GiveUp,
}

/// The restart strategy's state over a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RestartBackoff {
    rng: Rng,
    /// Restart attempts counted by fixed-delay / exponential-delay.
    attempt: u32,
    /// Exponential-delay's `nextRestartTimestamp` (ms); `None` before the first failure.
    next_restart_ms: Option<i64>,
    /// Failure-rate's `failureTimestamps` (ms), at most `max + 1` of them.
    failure_times: VecDeque<u64>,
}

/// The purpose of the jitter's stream in `Rng::fork`.
const JITTER_STREAM: u64 = 0x7E57_A127;

impl RestartBackoff {
    pub fn new(seed: u64) -> Self {
        RestartBackoff {
            rng: Rng::new(seed).fork(JITTER_STREAM),
            attempt: 0,
            next_restart_ms: None,
            failure_times: VecDeque::new(),
        }
    }

    /// `notifyFailure`, `canRestart`, `getBackoffTime` for a failure at `now`.
    pub fn on_failure(&mut self, strategy: &RestartStrategy, now: Micros) -> RestartDecision {
        let now_ms = now / MICROS_PER_MS;
        match strategy {
            RestartStrategy::NoRestart => RestartDecision::GiveUp,
            RestartStrategy::FixedDelay { attempts, delay_ms } => {
                self.attempt = self.attempt.saturating_add(1);
                if self.attempt <= *attempts {
                    RestartDecision::Restart {
                        delay: delay_ms * MICROS_PER_MS,
                        new_attempt: true,
                    }
                } else {
                    RestartDecision::GiveUp
                }
            }
            RestartStrategy::FailureRate {
                max_failures_per_interval,
                interval_ms,
                delay_ms,
            } => {
                let max = *max_failures_per_interval as usize;
                // notifyFailure: drop the oldest when the queue is "full" (> max), then add.
                if self.failure_times.len() > max {
                    self.failure_times.pop_front();
                }
                self.failure_times.push_back(now_ms);
                // canRestart: not full, or the oldest failure is more than an interval ago.
                let can = match self.failure_times.front() {
                    Some(&earliest) if self.failure_times.len() > max => {
                        now_ms - earliest > *interval_ms
                    }
                    _ => true,
                };
                if can {
                    RestartDecision::Restart {
                        delay: delay_ms * MICROS_PER_MS,
                        new_attempt: true,
                    }
                } else {
                    RestartDecision::GiveUp
                }
            }
            RestartStrategy::ExponentialDelay {
                initial_backoff_ms,
                max_backoff_ms,
                multiplier,
                reset_threshold_ms,
                jitter,
                attempts_before_reset,
            } => {
                let now_ms = now_ms as i64;
                let mut new_attempt = false;
                let merged = self.next_restart_ms.is_some_and(|next| now_ms <= next);
                if !merged {
                    let since = self.next_restart_ms.map_or(i64::MAX, |next| now_ms - next);
                    if since >= *reset_threshold_ms as i64 {
                        self.attempt = 0;
                    }
                    let backoff = self.exponential_backoff(
                        *initial_backoff_ms,
                        *max_backoff_ms,
                        *multiplier,
                        *jitter,
                    );
                    self.next_restart_ms = Some(now_ms + backoff as i64);
                    self.attempt = self.attempt.saturating_add(1);
                    new_attempt = true;
                }
                if self.attempt <= *attempts_before_reset {
                    let next = self.next_restart_ms.unwrap_or(now_ms);
                    RestartDecision::Restart {
                        delay: (next - now_ms).max(0) as u64 * MICROS_PER_MS,
                        new_attempt,
                    }
                } else {
                    RestartDecision::GiveUp
                }
            }
        }
    }

    /// `calculateActualBackoffTime`: `initial × multiplier^attempt` plus jitter, clamped to
    /// `[initial, max]`.
    fn exponential_backoff(&mut self, initial: u64, max: u64, multiplier: f64, jitter: f64) -> u64 {
        let mut backoff = initial as f64;
        for _ in 0..self.attempt {
            backoff *= multiplier;
            if backoff >= max as f64 {
                break;
            }
        }
        let current = backoff as u64; // Java's (long) cast truncates, as `as` does.
        let with_jitter = current as i64 + self.jitter_ms(current, jitter);
        (with_jitter.max(0) as u64).min(max).max(initial)
    }

    /// `calculateJitterBackoffMS`: uniform in `[-offset, offset]`, offset = backoff × jitter.
    fn jitter_ms(&mut self, backoff: u64, jitter: f64) -> i64 {
        if jitter == 0.0 {
            return 0;
        }
        let offset = (backoff as f64 * jitter) as u64;
        self.rng.below(2 * offset + 1) as i64 - offset as i64
    }
}

#[cfg(test)]
mod tests {
    //! Shaped like Flink's `*RestartBackoffTimeStrategyTest`s.
    use super::*;

    const S: Micros = 1_000_000;
    const MS: Micros = 1_000;

    fn exp(
        initial: u64,
        max: u64,
        mult: f64,
        reset: u64,
        jitter: f64,
        attempts: u32,
    ) -> RestartStrategy {
        RestartStrategy::ExponentialDelay {
            initial_backoff_ms: initial,
            max_backoff_ms: max,
            multiplier: mult,
            reset_threshold_ms: reset,
            jitter,
            attempts_before_reset: attempts,
        }
    }

    fn delay(d: RestartDecision) -> Micros {
        match d {
            RestartDecision::Restart { delay, .. } => delay,
            RestartDecision::GiveUp => panic!("gave up"),
        }
    }

    #[test]
    fn no_restart_never_restarts() {
        let mut b = RestartBackoff::new(1);
        assert_eq!(
            b.on_failure(&RestartStrategy::NoRestart, 0),
            RestartDecision::GiveUp
        );
    }

    #[test]
    fn fixed_delay_restarts_attempts_times_then_gives_up() {
        // FixedDelayRestartBackoffTimeStrategyTest.testNumberOfRestarts / testBackoffTime.
        let s = RestartStrategy::FixedDelay {
            attempts: 3,
            delay_ms: 1234,
        };
        let mut b = RestartBackoff::new(1);
        for i in 0..3 {
            assert_eq!(delay(b.on_failure(&s, i * S)), 1234 * MS);
        }
        assert_eq!(b.on_failure(&s, 10 * S), RestartDecision::GiveUp);
    }

    #[test]
    fn failure_rate_gives_up_when_the_rate_is_exceeded() {
        // FailureRateRestartBackoffTimeStrategyTest.testManyFailuresWithinRate /
        // testFailuresExceedingRate: 2 failures per 10 s.
        let s = RestartStrategy::FailureRate {
            max_failures_per_interval: 2,
            interval_ms: 10_000,
            delay_ms: 500,
        };
        let mut b = RestartBackoff::new(1);
        // Spread out: always within the rate.
        for i in 0..10 {
            assert_eq!(delay(b.on_failure(&s, i * 11 * S)), 500 * MS);
        }
        let mut b = RestartBackoff::new(1);
        assert_eq!(delay(b.on_failure(&s, 0)), 500 * MS);
        assert_eq!(delay(b.on_failure(&s, S)), 500 * MS);
        // The third failure within 10 s exceeds the rate.
        assert_eq!(b.on_failure(&s, 2 * S), RestartDecision::GiveUp);
    }

    #[test]
    fn exponential_delay_grows_to_the_max_without_jitter() {
        // ExponentialDelayRestartBackoffTimeStrategyTest.testMaxAttempts / testBackoffGrowth:
        // initial 1 ms, multiplier 2, max 8 ms.
        let s = exp(1, 8, 2.0, 1_000_000, 0.0, u32::MAX);
        let mut b = RestartBackoff::new(1);
        let mut now = 0;
        let mut seen = Vec::new();
        for _ in 0..6 {
            let d = delay(b.on_failure(&s, now));
            seen.push(d / MS);
            now += d + MS; // fails 1 ms after each restart
        }
        assert_eq!(seen, vec![1, 2, 4, 8, 8, 8]);
    }

    #[test]
    fn exponential_delay_resets_after_the_threshold_and_counts_attempts() {
        // testResetBackoff / testMaxAttempts: 3 attempts before reset, reset after 10 s.
        let s = exp(100, 10_000, 2.0, 10_000, 0.0, 3);
        let mut b = RestartBackoff::new(1);
        assert_eq!(delay(b.on_failure(&s, 0)), 100 * MS);
        assert_eq!(delay(b.on_failure(&s, S)), 200 * MS);
        assert_eq!(delay(b.on_failure(&s, 2 * S)), 400 * MS);
        assert_eq!(
            b.on_failure(&s, 3 * S),
            RestartDecision::GiveUp,
            "4th attempt"
        );
        // Running 10 s after the last scheduled restart resets the backoff and the count.
        let mut b = RestartBackoff::new(1);
        assert_eq!(delay(b.on_failure(&s, 0)), 100 * MS);
        assert_eq!(delay(b.on_failure(&s, S)), 200 * MS);
        assert_eq!(delay(b.on_failure(&s, 20 * S)), 100 * MS);
    }

    #[test]
    fn exponential_delay_merges_failures_before_the_scheduled_restart() {
        // testMultipleSettings / FLIP-364: a failure while a restart is pending is the same
        // attempt, and its delay is what is left until that restart.
        let s = exp(1000, 60_000, 1.5, 3_600_000, 0.0, u32::MAX);
        let mut b = RestartBackoff::new(1);
        assert_eq!(delay(b.on_failure(&s, 0)), 1000 * MS);
        assert_eq!(
            b.on_failure(&s, 400 * MS),
            RestartDecision::Restart {
                delay: 600 * MS,
                new_attempt: false
            }
        );
        assert_eq!(delay(b.on_failure(&s, 2 * S)), 1500 * MS);
    }

    #[test]
    fn jitter_stays_within_its_factor_and_is_seeded() {
        // testJitter: backoff 8 with jitter 0.25 → [6, 10]; here 1000 ms with 0.1 → [900, 1100].
        let s = exp(1000, 60_000, 1.5, 3_600_000, 0.1, u32::MAX);
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let d = delay(RestartBackoff::new(seed).on_failure(&s, 0)) / MS;
            assert!((1000..=1100).contains(&d), "seed {seed}: {d} ms");
            seen.insert(d);
        }
        // Below the initial backoff is clamped up to it (`Math.max(initialBackoffMS, …)`).
        assert!(seen.contains(&1000) && seen.len() > 20, "{seen:?}");
        let a = delay(RestartBackoff::new(7).on_failure(&s, 0));
        let b = delay(RestartBackoff::new(7).on_failure(&s, 0));
        assert_eq!(a, b, "same seed, same jitter");
    }

    #[test]
    fn the_loader_picks_exponential_delay_when_checkpointing_is_on() {
        let c = super::super::config::EngineConfig::default();
        assert_eq!(
            RestartStrategy::resolve(&c, true),
            exp(1000, 60_000, 1.5, 3_600_000, 0.1, i32::MAX as u32)
        );
        assert_eq!(
            RestartStrategy::resolve(&c, false),
            RestartStrategy::NoRestart
        );
        let mut c = c;
        c.set("restart-strategy.type", "fixeddelay").unwrap();
        assert_eq!(
            RestartStrategy::resolve(&c, false),
            RestartStrategy::FixedDelay {
                attempts: 1,
                delay_ms: 1000
            }
        );
    }
}
