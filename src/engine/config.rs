//! The engine's configuration, keyed by Flink's own option names.
//!
//! [`EngineConfig`] holds every setting the runtime reads, typed. It is built from
//! `(key, value)` pairs in Flink's syntax ([`EngineConfig::set`]); omitted keys keep Flink's
//! default, except where [`KEYS`] says the playground scales a default down (buffer size) so
//! that buffers are visible. Settings of the model itself (storage and network costs,
//! toggles for the task-thread optimizations) live under `playground.` keys. An unknown
//! key or a bad value is an error that names the key. [`KEYS`] is the documented table the
//! UI and the README list.

// Input-facing: reads user config / specs / actions, so no panics on their values.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use super::time::{format_duration, parse_duration, parse_size, Micros};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CheckpointingMode {
    ExactlyOnce,
    AtLeastOnce,
}

/// Every setting of a run. Field docs name the key; [`KEYS`] has the defaults.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineConfig {
    /// `execution.checkpointing.interval`; `None` = periodic checkpointing off.
    pub checkpoint_interval: Option<Micros>,
    pub mode: CheckpointingMode,
    pub unaligned: bool,
    pub unaligned_forced: bool,
    /// `execution.checkpointing.aligned-checkpoint-timeout`; 0 = unaligned from the start.
    pub aligned_checkpoint_timeout: Micros,
    pub checkpoint_timeout: Micros,
    pub min_pause: Micros,
    pub max_concurrent: u32,
    pub tolerable_failed: u32,
    pub max_subtasks_per_channel_state_file: u32,
    pub recover_without_channel_state_checkpoint_id: i64,
    /// `execution.checkpointing.unaligned.recover-output-on-downstream.enabled` (Flink 2.3,
    /// FLIP-547): recovered output buffers are restored on the downstream task.
    pub unaligned_recover_output_on_downstream: bool,
    /// `execution.checkpointing.unaligned.during-recovery.enabled` (Flink 2.3, FLIP-547):
    /// checkpoints may run while recovered channel state is still being consumed.
    pub unaligned_during_recovery: bool,
    pub segment_size: u32,
    pub min_segment_size: u32,
    pub buffers_per_channel: u32,
    pub floating_buffers_per_gate: u32,
    pub max_buffers_per_channel: u32,
    pub max_overdraft_buffers_per_gate: u32,
    pub buffer_timeout: Micros,
    pub debloat_enabled: bool,
    pub debloat_target: Micros,
    pub debloat_period: Micros,
    pub debloat_samples: u32,
    pub debloat_threshold_percentages: u32,
    pub memory_threshold: u64,
    pub restart_delay: Micros,
    // ---- playground.* (the model's own costs and switches) ----
    pub network_latency: Micros,
    pub rpc_latency: Micros,
    pub storage_throughput: u64,
    pub storage_file_cost: Micros,
    pub state_bytes_per_key: u32,
    pub availability_check: bool,
    pub legacy_source_compat: bool,
    pub serializer_version: u32,
}

/// One documented configuration key.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ConfigKey {
    pub key: &'static str,
    /// Older or alternative spellings accepted on input.
    pub aliases: &'static [&'static str],
    pub default: &'static str,
    pub doc: &'static str,
}

/// All keys the engine understands, with the default it uses and where that default comes from.
pub const KEYS: &[ConfigKey] = &[
    ConfigKey { key: "execution.checkpointing.interval", aliases: &[], default: "none",
        doc: "Interval of periodic checkpoints; none (Flink's default) disables them." },
    ConfigKey { key: "execution.checkpointing.mode", aliases: &[], default: "EXACTLY_ONCE",
        doc: "EXACTLY_ONCE (barrier alignment) or AT_LEAST_ONCE (barrier tracker, never blocks)." },
    ConfigKey { key: "execution.checkpointing.unaligned.enabled",
        aliases: &["execution.checkpointing.unaligned"], default: "false",
        doc: "Unaligned checkpoints: barriers overtake in-flight buffers, which are persisted as channel state." },
    ConfigKey { key: "execution.checkpointing.unaligned.forced", aliases: &[], default: "false",
        doc: "Use unaligned barriers even on pointwise (forward/rescale) and broadcast edges." },
    ConfigKey { key: "execution.checkpointing.aligned-checkpoint-timeout",
        aliases: &["execution.checkpointing.alignment-timeout"], default: "0s",
        doc: "With unaligned enabled: start aligned and switch to unaligned once this much time passed since the trigger; 0 = unaligned at once." },
    ConfigKey { key: "execution.checkpointing.timeout", aliases: &[], default: "10min",
        doc: "A checkpoint still pending after this expires (CHECKPOINT_EXPIRED)." },
    ConfigKey { key: "execution.checkpointing.min-pause", aliases: &[], default: "0ms",
        doc: "Minimum time between the end of one checkpoint and the trigger of the next." },
    ConfigKey { key: "execution.checkpointing.max-concurrent-checkpoints", aliases: &[], default: "1",
        doc: "How many checkpoints may be pending at once." },
    ConfigKey { key: "execution.checkpointing.tolerable-failed-checkpoints", aliases: &[], default: "0",
        doc: "Consecutive failed checkpoints tolerated before the job fails over." },
    ConfigKey { key: "execution.checkpointing.unaligned.max-subtasks-per-channel-state-file",
        aliases: &["execution.checkpointing.channel-state.number-of-tasks-share-file"], default: "5",
        doc: "Subtasks sharing one channel-state file per checkpoint (Flink 1.17+; 1 = a file per subtask, as before)." },
    ConfigKey { key: "execution.checkpointing.recover-without-channel-state.checkpoint-id", aliases: &[], default: "-1",
        doc: "Restore this checkpoint without its in-flight data (the data is lost), whatever else is true of it; -1 = off." },
    ConfigKey { key: "execution.checkpointing.unaligned.recover-output-on-downstream.enabled", aliases: &[], default: "false",
        doc: "Flink 2.3 (FLIP-547): restore an upstream's recovered output buffers on the downstream task, behind that channel's recovered input." },
    ConfigKey { key: "execution.checkpointing.unaligned.during-recovery.enabled", aliases: &[], default: "false",
        doc: "Flink 2.3 (FLIP-547): tasks switch to RUNNING before their recovered input is consumed, so checkpoints run during recovery; requires recover-output-on-downstream." },
    ConfigKey { key: "taskmanager.memory.segment-size", aliases: &[], default: "4kb",
        doc: "Size of one network buffer. Flink's default is 32kb; the playground scales it down so buffers are visible." },
    ConfigKey { key: "taskmanager.memory.min-segment-size", aliases: &[], default: "256b",
        doc: "Smallest buffer size the debloater may choose." },
    ConfigKey { key: "taskmanager.network.memory.buffers-per-channel", aliases: &[], default: "2",
        doc: "Exclusive buffers per input channel (the channel's initial credit)." },
    ConfigKey { key: "taskmanager.network.memory.floating-buffers-per-gate", aliases: &[], default: "8",
        doc: "Floating buffers shared by the channels of one input gate / one result partition." },
    ConfigKey { key: "taskmanager.network.memory.max-buffers-per-channel", aliases: &[], default: "10",
        doc: "A subpartition holding more buffers than this makes its partition unavailable." },
    ConfigKey { key: "taskmanager.network.memory.max-overdraft-buffers-per-gate", aliases: &[], default: "5",
        doc: "Extra buffers a task may borrow mid-record when its pool is empty (Flink 1.16+; 0 = off; 2.x fixes it at 20)." },
    ConfigKey { key: "execution.buffer-timeout.interval", aliases: &["execution.buffer-timeout"], default: "100ms",
        doc: "A partly filled output buffer is flushed after this long." },
    ConfigKey { key: "taskmanager.network.memory.buffer-debloat.enabled", aliases: &[], default: "false",
        doc: "Buffer debloating (FLIP-183): size buffers to throughput x target." },
    ConfigKey { key: "taskmanager.network.memory.buffer-debloat.target", aliases: &[], default: "1s",
        doc: "Time the debloater aims the in-flight data of one gate to take to consume." },
    ConfigKey { key: "taskmanager.network.memory.buffer-debloat.period", aliases: &[], default: "200ms",
        doc: "How often the debloater recomputes the buffer size." },
    ConfigKey { key: "taskmanager.network.memory.buffer-debloat.samples", aliases: &[], default: "20",
        doc: "Samples of the throughput moving average (alpha = 2 / (samples + 1))." },
    ConfigKey { key: "taskmanager.network.memory.buffer-debloat.threshold-percentages", aliases: &[], default: "25",
        doc: "A new buffer size is announced only when it differs by at least this much." },
    ConfigKey { key: "state.storage.fs.memory-threshold", aliases: &["state.backend.fs.memory-threshold"], default: "20kb",
        doc: "State and channel state below this is inlined into the checkpoint metadata instead of a file." },
    ConfigKey { key: "restart-strategy.fixed-delay.delay", aliases: &[], default: "1s",
        doc: "Delay between a failure and the restart of the job." },
    ConfigKey { key: "playground.network.latency", aliases: &[], default: "1ms",
        doc: "Latency of one network hop (buffers, events, credit announcements)." },
    ConfigKey { key: "playground.rpc.latency", aliases: &[], default: "1ms",
        doc: "Latency of an RPC between the checkpoint coordinator and a task." },
    ConfigKey { key: "playground.storage.throughput", aliases: &[], default: "20mb",
        doc: "Bytes per second the checkpoint storage writes, per writer." },
    ConfigKey { key: "playground.storage.file-cost", aliases: &[], default: "10ms",
        doc: "Fixed cost of creating one file in checkpoint storage (what makes small files expensive)." },
    ConfigKey { key: "playground.state.bytes-per-key", aliases: &[], default: "32b",
        doc: "Serialized size of one key's entry in keyed state." },
    ConfigKey { key: "playground.task.availability-check", aliases: &[], default: "true",
        doc: "Optimization 1: a task takes a new record only when its output has a free buffer." },
    ConfigKey { key: "playground.source.legacy-compat", aliases: &[], default: "true",
        doc: "Legacy sources wait for a free buffer before taking the checkpoint lock." },
    ConfigKey { key: "playground.serializer.version", aliases: &[], default: "1",
        doc: "Version of the record serializer; changing it makes in-flight data of older checkpoints unreadable." },
];

/// A rejected key or value, naming the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub key: String,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "config key '{}': {}", self.key, self.message)
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        let mut c = EngineConfig {
            checkpoint_interval: None,
            mode: CheckpointingMode::ExactlyOnce,
            unaligned: false,
            unaligned_forced: false,
            aligned_checkpoint_timeout: 0,
            checkpoint_timeout: 0,
            min_pause: 0,
            max_concurrent: 1,
            tolerable_failed: 0,
            max_subtasks_per_channel_state_file: 5,
            recover_without_channel_state_checkpoint_id: -1,
            unaligned_recover_output_on_downstream: false,
            unaligned_during_recovery: false,
            segment_size: 0,
            min_segment_size: 0,
            buffers_per_channel: 0,
            floating_buffers_per_gate: 0,
            max_buffers_per_channel: 0,
            max_overdraft_buffers_per_gate: 0,
            buffer_timeout: 0,
            debloat_enabled: false,
            debloat_target: 0,
            debloat_period: 0,
            debloat_samples: 0,
            debloat_threshold_percentages: 0,
            memory_threshold: 0,
            restart_delay: 0,
            network_latency: 0,
            rpc_latency: 0,
            storage_throughput: 0,
            storage_file_cost: 0,
            state_bytes_per_key: 0,
            availability_check: true,
            legacy_source_compat: true,
            serializer_version: 1,
        };
        for k in KEYS {
            // The table's own defaults, checked by `defaults_follow_the_table`.
            #[allow(clippy::expect_used)]
            c.set(k.key, k.default).expect("documented defaults parse");
        }
        c
    }
}

/// Resolves an alias to the canonical key; `None` for an unknown key.
pub fn canonical_key(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .find(|k| k.key == key || k.aliases.contains(&key))
        .map(|k| k.key)
}

fn suggestion(key: &str) -> String {
    let squash = |s: &str| s.replace(['-', '.', '_'], "");
    let wanted = squash(key);
    match KEYS.iter().find(|k| squash(k.key) == wanted) {
        Some(k) => format!(" (did you mean '{}'?)", k.key),
        None => String::new(),
    }
}

impl EngineConfig {
    /// Sets one key from its Flink-syntax value. Errors name the key and say what is wrong.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let err = |message: String| ConfigError {
            key: key.to_string(),
            message,
        };
        let Some(canonical) = canonical_key(key) else {
            return Err(err(format!("unknown configuration key{}", suggestion(key))));
        };
        let v = value.trim();
        let dur = || parse_duration(v).map_err(err);
        let size = || parse_size(v).map_err(err);
        let boolean = || match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(err(format!("'{v}' is not true or false"))),
        };
        let count = |lo: u64, hi: u64| -> Result<u32, ConfigError> {
            let n: u64 = v
                .parse()
                .map_err(|_| err(format!("'{v}' is not a whole number")))?;
            if n < lo || n > hi {
                return Err(err(format!("{n} is out of range ({lo} to {hi})")));
            }
            Ok(n as u32)
        };
        let bounded_dur = |lo: Micros, hi: Micros, what: &str| -> Result<Micros, ConfigError> {
            let d = parse_duration(v).map_err(err)?;
            if d < lo || d > hi {
                return Err(err(format!(
                    "{} is out of range for {what} ({} to {})",
                    format_duration(d),
                    format_duration(lo),
                    format_duration(hi)
                )));
            }
            Ok(d)
        };
        match canonical {
            "execution.checkpointing.interval" => {
                self.checkpoint_interval = match v.to_ascii_lowercase().as_str() {
                    "none" | "" | "off" => None,
                    _ => Some(bounded_dur(
                        10_000,
                        3_600_000_000,
                        "the interval (Flink's minimum is 10ms)",
                    )?),
                }
            }
            "execution.checkpointing.mode" => {
                self.mode = match v.to_ascii_uppercase().as_str() {
                    "EXACTLY_ONCE" => CheckpointingMode::ExactlyOnce,
                    "AT_LEAST_ONCE" => CheckpointingMode::AtLeastOnce,
                    _ => return Err(err(format!("'{v}' is not EXACTLY_ONCE or AT_LEAST_ONCE"))),
                }
            }
            "execution.checkpointing.unaligned.enabled" => self.unaligned = boolean()?,
            "execution.checkpointing.unaligned.forced" => self.unaligned_forced = boolean()?,
            "execution.checkpointing.aligned-checkpoint-timeout" => {
                self.aligned_checkpoint_timeout = dur()?
            }
            "execution.checkpointing.timeout" => {
                self.checkpoint_timeout = bounded_dur(1_000, 86_400_000_000, "the timeout")?
            }
            "execution.checkpointing.min-pause" => self.min_pause = dur()?,
            "execution.checkpointing.max-concurrent-checkpoints" => {
                self.max_concurrent = count(1, 16)?
            }
            "execution.checkpointing.tolerable-failed-checkpoints" => {
                self.tolerable_failed = count(0, 1_000_000)?
            }
            "execution.checkpointing.unaligned.max-subtasks-per-channel-state-file" => {
                self.max_subtasks_per_channel_state_file = count(1, 1_000)?
            }
            "execution.checkpointing.recover-without-channel-state.checkpoint-id" => {
                self.recover_without_channel_state_checkpoint_id = v
                    .parse::<i64>()
                    .ok()
                    .filter(|n| *n >= -1)
                    .ok_or_else(|| err(format!("'{v}' is not a checkpoint id or -1")))?
            }
            "execution.checkpointing.unaligned.recover-output-on-downstream.enabled" => {
                self.unaligned_recover_output_on_downstream = boolean()?
            }
            "execution.checkpointing.unaligned.during-recovery.enabled" => {
                self.unaligned_during_recovery = boolean()?
            }
            "taskmanager.memory.segment-size" => {
                let s = size()?;
                if !(64..=1 << 20).contains(&s) {
                    return Err(err(format!("{s} bytes is out of range (64b to 1mb)")));
                }
                self.segment_size = s as u32
            }
            "taskmanager.memory.min-segment-size" => {
                let s = size()?;
                if !(16..=1 << 20).contains(&s) {
                    return Err(err(format!("{s} bytes is out of range (16b to 1mb)")));
                }
                self.min_segment_size = s as u32
            }
            "taskmanager.network.memory.buffers-per-channel" => {
                self.buffers_per_channel = count(0, 1_000)?
            }
            "taskmanager.network.memory.floating-buffers-per-gate" => {
                self.floating_buffers_per_gate = count(0, 10_000)?
            }
            "taskmanager.network.memory.max-buffers-per-channel" => {
                self.max_buffers_per_channel = count(1, 10_000)?
            }
            "taskmanager.network.memory.max-overdraft-buffers-per-gate" => {
                self.max_overdraft_buffers_per_gate = count(0, 1_000)?
            }
            "execution.buffer-timeout.interval" => {
                self.buffer_timeout = bounded_dur(0, 60_000_000, "the buffer timeout")?
            }
            "taskmanager.network.memory.buffer-debloat.enabled" => {
                self.debloat_enabled = boolean()?
            }
            "taskmanager.network.memory.buffer-debloat.target" => {
                self.debloat_target = bounded_dur(1_000, 600_000_000, "the debloat target")?
            }
            "taskmanager.network.memory.buffer-debloat.period" => {
                self.debloat_period = bounded_dur(1_000, 600_000_000, "the debloat period")?
            }
            "taskmanager.network.memory.buffer-debloat.samples" => {
                self.debloat_samples = count(1, 1_000)?
            }
            "taskmanager.network.memory.buffer-debloat.threshold-percentages" => {
                self.debloat_threshold_percentages = count(0, 100)?
            }
            "state.storage.fs.memory-threshold" => self.memory_threshold = size()?,
            "restart-strategy.fixed-delay.delay" => {
                self.restart_delay = bounded_dur(0, 3_600_000_000, "the restart delay")?
            }
            "playground.network.latency" => {
                self.network_latency = bounded_dur(1, 10_000_000, "the network latency")?
            }
            "playground.rpc.latency" => {
                self.rpc_latency = bounded_dur(1, 10_000_000, "the RPC latency")?
            }
            "playground.storage.throughput" => {
                let s = size()?;
                if s < 1024 {
                    return Err(err(format!(
                        "{s} bytes/s is too slow (at least 1kb per second)"
                    )));
                }
                self.storage_throughput = s
            }
            "playground.storage.file-cost" => {
                self.storage_file_cost = bounded_dur(0, 60_000_000, "the file cost")?
            }
            "playground.state.bytes-per-key" => {
                let s = size()?;
                if !(1..=1 << 20).contains(&s) {
                    return Err(err(format!("{s} bytes is out of range (1b to 1mb)")));
                }
                self.state_bytes_per_key = s as u32
            }
            "playground.task.availability-check" => self.availability_check = boolean()?,
            "playground.source.legacy-compat" => self.legacy_source_compat = boolean()?,
            "playground.serializer.version" => self.serializer_version = count(1, 1_000_000)?,
            other => return Err(err(format!("'{other}' is documented but not handled"))),
        }
        Ok(())
    }

    /// Checks the combinations of settings the run cannot have, first failing rule first.
    /// Every way a config changes goes through this one check: the scenario's `config`
    /// ([`super::spec::JobSpec::problems`]), each `set_config` event against the config in
    /// effect at its instant, and live actions ([`super::Engine::apply`], so the settings
    /// panel too) — through [`EngineConfig::with_change`]. The error is keyed by the setting
    /// the rule blames and its message names every key involved with its value.
    ///
    /// The rules, each what the engine relies on (Flink 1.20 unless said otherwise):
    /// - unaligned checkpoints need `EXACTLY_ONCE`: Flink's
    ///   `StreamingJobGraphGenerator.preValidate` turns them off with a warning for
    ///   `AT_LEAST_ONCE`; the playground refuses, so a run never differs silently from what
    ///   was asked;
    /// - unaligned checkpoints with one concurrent checkpoint: the model's barrier handler
    ///   keeps one pending unaligned checkpoint (as Flink 1.11, which refused concurrent
    ///   unaligned checkpoints);
    /// - an input channel needs a buffer to receive into: 0 exclusive buffers per channel and
    ///   0 floating buffers per gate leave none, and the job stalls after its next (re)start;
    /// - FLIP-547 (Flink 2.3): checkpointing during recovery needs the recovered output on
    ///   the downstream task;
    /// - the debloater's range `[min-segment-size, segment-size]` must not be empty
    ///   (FLIP-183's `BufferDebloater` clamps its size to it).
    ///
    /// Flink accepts a checkpoint timeout shorter than the interval (checkpoints simply
    /// expire) and an aligned-checkpoint timeout longer than the checkpoint timeout (the
    /// barrier never switches to unaligned), so the playground accepts them too: each is
    /// a run worth watching, and nothing in the engine divides by them.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let refuse = |key: &str, message: String| {
            Err(ConfigError {
                key: key.to_string(),
                message,
            })
        };
        if self.unaligned && self.mode == CheckpointingMode::AtLeastOnce {
            return refuse(
                "execution.checkpointing.unaligned.enabled",
                "unaligned checkpoints require execution.checkpointing.mode EXACTLY_ONCE, \
                 but execution.checkpointing.mode is AT_LEAST_ONCE"
                    .into(),
            );
        }
        if self.unaligned && self.max_concurrent > 1 {
            return refuse(
                "execution.checkpointing.max-concurrent-checkpoints",
                format!(
                    "unaligned checkpoints support only one concurrent checkpoint, but \
                     execution.checkpointing.max-concurrent-checkpoints is {} while \
                     execution.checkpointing.unaligned.enabled is true",
                    self.max_concurrent
                ),
            );
        }
        if self.unaligned_during_recovery && !self.unaligned_recover_output_on_downstream {
            return refuse(
                "execution.checkpointing.unaligned.during-recovery.enabled",
                "checkpointing during recovery requires \
                 execution.checkpointing.unaligned.recover-output-on-downstream.enabled \
                 true (Flink 2.3, FLIP-547), but it is false"
                    .into(),
            );
        }
        if self.buffers_per_channel == 0 && self.floating_buffers_per_gate == 0 {
            return refuse(
                "taskmanager.network.memory.floating-buffers-per-gate",
                "with 0 buffers per channel, a gate needs at least one floating buffer: \
                 taskmanager.network.memory.buffers-per-channel 0 and \
                 taskmanager.network.memory.floating-buffers-per-gate 0 leave an input \
                 channel no buffer to receive into, so the job would stall"
                    .into(),
            );
        }
        if self.min_segment_size > self.segment_size {
            return refuse(
                "taskmanager.memory.min-segment-size",
                format!(
                    "taskmanager.memory.min-segment-size ({}) is larger than \
                     taskmanager.memory.segment-size ({}); the debloater sizes buffers \
                     between the two",
                    size_text(self.min_segment_size),
                    size_text(self.segment_size)
                ),
            );
        }
        Ok(())
    }

    /// This config with `key` set to `value`, if the value parses and the result passes
    /// [`EngineConfig::validate`] — the one check of a config change, wherever it comes
    /// from. A bad value is [`EngineConfig::set`]'s error; a valid value that breaks a
    /// rule together with the rest of the config is an error keyed by `key` whose message
    /// says the value is refused and names the rule's keys and values.
    pub fn with_change(&self, key: &str, value: &str) -> Result<EngineConfig, ConfigError> {
        let mut next = self.clone();
        next.set(key, value)?;
        match next.validate() {
            Ok(()) => Ok(next),
            Err(rule) => Err(ConfigError {
                key: key.to_string(),
                message: format!("{} is refused: {}", value.trim(), rule.message),
            }),
        }
    }

    /// The unaligned barrier options as Flink's `CheckpointOptions.forConfig` derives them.
    pub fn barrier_kind(&self) -> BarrierKind {
        if self.mode == CheckpointingMode::AtLeastOnce {
            BarrierKind::AtLeastOnce
        } else if !self.unaligned {
            BarrierKind::Aligned
        } else if self.aligned_checkpoint_timeout == 0 {
            BarrierKind::Unaligned
        } else {
            BarrierKind::TimeoutableAligned
        }
    }
}

/// A size in bytes as the messages write it: `4kb` when it is whole kilobytes, else `300b`.
fn size_text(bytes: u32) -> String {
    if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{}kb", bytes / 1024)
    } else {
        format!("{bytes}b")
    }
}

/// The alignment type a barrier carries (Flink's `CheckpointOptions.AlignmentType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum BarrierKind {
    AtLeastOnce,
    Aligned,
    /// Aligned, but may switch to unaligned once the aligned-checkpoint timeout passes.
    TimeoutableAligned,
    Unaligned,
    /// Unaligned or timeoutable downgraded to aligned on a pointwise/broadcast edge.
    ForcedAligned,
}

impl BarrierKind {
    pub fn is_unaligned(self) -> bool {
        self == BarrierKind::Unaligned
    }
    /// Aligned barriers block their channel until the checkpoint's alignment ends.
    pub fn blocks_upstream(self) -> bool {
        matches!(
            self,
            BarrierKind::Aligned | BarrierKind::TimeoutableAligned | BarrierKind::ForcedAligned
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_table() {
        let c = EngineConfig::default();
        assert_eq!(c.checkpoint_interval, None);
        assert_eq!(c.checkpoint_timeout, 600_000_000);
        assert_eq!(c.buffers_per_channel, 2);
        assert_eq!(c.floating_buffers_per_gate, 8);
        assert_eq!(c.max_overdraft_buffers_per_gate, 5);
        assert_eq!(c.max_subtasks_per_channel_state_file, 5);
        assert_eq!(c.segment_size, 4096);
        assert_eq!(c.barrier_kind(), BarrierKind::Aligned);
    }

    #[test]
    fn errors_name_the_key_and_suggest_the_real_one() {
        let mut c = EngineConfig::default();
        let e = c
            .set(
                "execution.checkpointing.aligned-checkpoint.timeout",
                "10min",
            )
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("did you mean 'execution.checkpointing.aligned-checkpoint-timeout'"),
            "{e}"
        );
        let e = c
            .set("taskmanager.network.memory.buffers-per-channel", "-3")
            .unwrap_err();
        assert_eq!(e.key, "taskmanager.network.memory.buffers-per-channel");
        assert!(
            c.set("execution.checkpointing.unaligned", "true").is_ok(),
            "old alias accepted"
        );
        assert!(c.unaligned);
        c.set("execution.checkpointing.mode", "AT_LEAST_ONCE")
            .unwrap();
        assert!(c.validate().is_err(), "UC with at-least-once is rejected");
    }
}
