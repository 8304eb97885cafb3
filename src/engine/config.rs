//! The engine's configuration, keyed by Flink's own option names.
//!
//! [`EngineConfig`] holds every setting the runtime reads, typed. It is built from
//! `(key, value)` pairs in Flink's syntax ([`EngineConfig::set`]); omitted keys keep the
//! default of the Flink version chosen by `playground.flink.version` ([`FlinkVersion`]: 2.3,
//! the default, or 1.20), read from Flink's own option classes (each row of [`KEYS`] names
//! where a default differs between the two). Keys 2.x no longer accepts (the network buffer
//! counts, fixed in 2.x's `NettyShuffleEnvironmentConfiguration`) stay settable as what-if
//! knobs, and their docs say so. Version-1 scenarios open with the playground's old
//! defaults ([`VERSION_1_DEFAULTS`]). Settings of the model itself (storage and network costs,
//! toggles for the task-thread optimizations) live under `playground.` keys. An unknown
//! key or a bad value is an error that names the key. [`KEYS`] is the documented table the
//! UI and the README list.

// Input-facing: reads user config / specs / actions, so no panics on their values.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use super::log::{text, Arg, Msg};
use super::restart_strategy::RestartStrategyType;
use super::time::{format_duration, parse_duration_msg, parse_size_msg, Micros};
use serde::Serialize;

/// The Flink release whose defaults a run follows (`playground.flink.version`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum FlinkVersion {
    /// Flink 1.20: the network buffer counts are options (`NettyShuffleEnvironmentOptions`),
    /// overdraft 5 per gate.
    V1_20,
    /// Flink 2.3: the buffer counts are fixed by `NettyShuffleEnvironmentConfiguration`
    /// (2 exclusive per channel, 8 floating per gate, 10 max per subpartition, 20 overdraft
    /// per gate); the old keys are not options any more (setting them is ignored by Flink).
    V2_3,
}

impl FlinkVersion {
    pub fn name(self) -> &'static str {
        match self {
            FlinkVersion::V1_20 => "1.20",
            FlinkVersion::V2_3 => "2.3",
        }
    }

    /// `2.3`, `2.3.0`, `1.20`, `1.20.1`.
    pub fn parse(v: &str) -> Option<FlinkVersion> {
        let mut parts = v.trim().split('.');
        let (major, minor) = (parts.next()?, parts.next()?);
        if parts.clone().count() > 1 || !parts.all(|p| p.parse::<u32>().is_ok()) {
            return None;
        }
        match (major, minor) {
            ("2", "3") => Some(FlinkVersion::V2_3),
            ("1", "20") => Some(FlinkVersion::V1_20),
            _ => None,
        }
    }

    /// The defaults that differ between the versions: `(key, default)`.
    pub fn defaults(self) -> &'static [(&'static str, &'static str)] {
        match self {
            FlinkVersion::V1_20 => &[(
                "taskmanager.network.memory.max-overdraft-buffers-per-gate",
                "5",
            )],
            FlinkVersion::V2_3 => &[(
                "taskmanager.network.memory.max-overdraft-buffers-per-gate",
                "20",
            )],
        }
    }
}

/// The settings a version-1 scenario (every link shared before format version 2) ran with
/// where today's defaults differ: the playground's old scaled-down 4 KB segments, Flink
/// 1.20's buffer options (overdraft 5), a fixed-delay restart after 1 s with no limit on
/// attempts, and a failure restarting the whole job (`full`: before region failover
/// existed, every failure restarted every subtask). `scenario::document` writes them into a version-1 document's `config` (where
/// it does not set them itself), so the old link produces the run it produced before.
pub const VERSION_1_DEFAULTS: &[(&str, &str)] = &[
    ("playground.flink.version", "1.20"),
    ("taskmanager.memory.segment-size", "4kb"),
    ("restart-strategy.type", "fixed-delay"),
    ("restart-strategy.fixed-delay.attempts", "2147483647"),
    // Before the runtime ran the physical plan's chains every operator was its own task.
    ("pipeline.operator-chaining.enabled", "false"),
    ("playground.network.local-channels", "false"),
    ("playground.channel-state.writers-per-taskmanager", "false"),
    ("jobmanager.execution.failover-strategy", "full"),
];

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
    /// `playground.flink.version`: whose defaults the omitted keys take.
    pub flink_version: FlinkVersion,
    /// `restart-strategy.type`; `None`: Flink's loader decides (exponential-delay when
    /// checkpointing is enabled, else no restart; see [`super::restart_strategy`]).
    pub restart_strategy: Option<RestartStrategyType>,
    pub fixed_delay_attempts: u32,
    /// `restart-strategy.fixed-delay.delay`.
    pub restart_delay: Micros,
    // ---- the physical plan (`super::physical_plan`), fixed when the job is submitted ----
    /// `pipeline.operator-chaining.enabled`.
    pub operator_chaining: bool,
    /// `taskmanager.numberOfTaskSlots`.
    pub slots_per_task_manager: u32,
    /// `minicluster.number-of-taskmanagers`; `None` = as many as an active resource
    /// manager requests for the job.
    pub task_managers: Option<u32>,
    /// `taskmanager.load-balance.mode` (2.x) is `SLOTS`.
    pub load_balance_slots: bool,
    /// `cluster.evenly-spread-out-slots` (1.x; removed in 2.0).
    pub evenly_spread_out_slots: bool,
    /// `jobmanager.execution.failover-strategy` is `full` (else `region`).
    pub failover_full: bool,
    pub failure_rate_max_failures: u32,
    pub failure_rate_interval: Micros,
    pub failure_rate_delay: Micros,
    pub exp_initial_backoff: Micros,
    pub exp_max_backoff: Micros,
    pub exp_multiplier: f64,
    pub exp_reset_threshold: Micros,
    pub exp_jitter: f64,
    pub exp_attempts: u32,
    // ---- playground.* (the model's own costs and switches) ----
    pub network_latency: Micros,
    pub rpc_latency: Micros,
    pub storage_throughput: u64,
    pub storage_file_cost: Micros,
    pub state_bytes_per_key: u32,
    pub availability_check: bool,
    pub serializer_version: u32,
    /// `playground.network.local-channels`: channels inside one TaskManager are
    /// `LocalInputChannel`s (Flink's behaviour); false makes every channel remote.
    pub local_channels: bool,
    /// `playground.channel-state.writers-per-taskmanager`: channel-state writers are per
    /// TaskManager (Flink's behaviour); false groups the job's subtasks in deployment order.
    pub writers_per_task_manager: bool,
    // ---- retained checkpoints and resubmission (`super::retained`) ----
    /// `execution.checkpointing.externalized-checkpoint-retention`.
    pub checkpoint_retention: super::retained::Retention,
    /// `execution.checkpointing.num-retained`.
    pub num_retained: u32,
    /// `execution.state-recovery.claim-mode`.
    pub claim_mode: super::retained::ClaimMode,
    /// `execution.state-recovery.ignore-unclaimed-state` (Flink's `allowNonRestoredState`
    /// of a submitted job, see [`super::state_mapping`]).
    pub ignore_unclaimed_state: bool,
    /// `pipeline.max-parallelism`; `None` (-1, Flink's default): derived per operator
    /// (`KeyGroupRangeAssignment.computeDefaultMaxParallelism`).
    pub max_parallelism: Option<u32>,
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
        doc: "Flink: allows unaligned checkpoints for jobs it would otherwise reject (iterations, custom partitioners; StreamingJobGraphGenerator.preValidate). Forward/rescale/broadcast edges stay aligned whatever this says, so in the playground it changes nothing." },
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
    ConfigKey { key: "execution.checkpointing.externalized-checkpoint-retention", aliases: &[], default: "NO_EXTERNALIZED_CHECKPOINTS",
        doc: "What happens to the job's retained checkpoints when it is cancelled (ExternalizedCheckpointRetention): NO_EXTERNALIZED_CHECKPOINTS (Flink 2.x default) and DELETE_ON_CANCELLATION discard them, RETAIN_ON_CANCELLATION keeps them for a resubmission. Savepoints always stay." },
    ConfigKey { key: "execution.checkpointing.num-retained", aliases: &["state.checkpoints.num-retained"], default: "1",
        doc: "How many completed checkpoints the job keeps (the newest ones); a resubmission can restore any of them." },
    ConfigKey { key: "execution.state-recovery.claim-mode", aliases: &["execution.savepoint-restore-mode"], default: "NO_CLAIM",
        doc: "How a resubmitted job owns the snapshot it restores (RecoveryClaimMode): CLAIM (the new job owns it and discards it once subsumed) or NO_CLAIM (Flink's default: the snapshot stays the user's)." },
    ConfigKey { key: "execution.state-recovery.ignore-unclaimed-state", aliases: &["execution.savepoint.ignore-unclaimed-state"], default: "false",
        doc: "A resubmitted job skips the snapshot's state of operators it no longer has (SavepointRestoreSettings.allowNonRestoredState, the CLI's --allowNonRestoredState); false: such state fails the restore. In-flight records of skipped state are lost." },
    ConfigKey { key: "pipeline.max-parallelism", aliases: &[], default: "-1",
        doc: "Number of key groups of keyed state (an upper bound of the parallelism); -1: derived per operator (KeyGroupRangeAssignment.computeDefaultMaxParallelism: 1.5 x parallelism rounded up to a power of two, 128 to 32768). A restore needs the same value as the snapshot's unless it was derived." },
    ConfigKey { key: "taskmanager.memory.segment-size", aliases: &[], default: "32kb",
        doc: "Size of one network buffer (Flink's default, TaskManagerOptions.MEMORY_SEGMENT_SIZE). Presets that want buffers visible pin 4kb; version-1 scenarios ran with 4kb." },
    ConfigKey { key: "taskmanager.memory.min-segment-size", aliases: &[], default: "256b",
        doc: "Smallest buffer size the debloater may choose." },
    ConfigKey { key: "taskmanager.network.memory.buffers-per-channel", aliases: &[], default: "2",
        doc: "Exclusive buffers per input channel (the channel's initial credit). Flink 2.x no longer accepts this key (NettyShuffleEnvironmentConfiguration fixes it at 2); with playground.flink.version 2.3 it stays settable here as a what-if knob." },
    ConfigKey { key: "taskmanager.network.memory.floating-buffers-per-gate", aliases: &[], default: "8",
        doc: "Floating buffers shared by the channels of one input gate / one result partition. Flink 2.x no longer accepts this key (NettyShuffleEnvironmentConfiguration fixes it at 8); with playground.flink.version 2.3 it stays settable here as a what-if knob." },
    ConfigKey { key: "taskmanager.network.memory.max-buffers-per-channel", aliases: &[], default: "10",
        doc: "A subpartition holding more buffers than this makes its partition unavailable. Flink 2.x no longer accepts this key (NettyShuffleEnvironmentConfiguration fixes it at 10); with playground.flink.version 2.3 it stays settable here as a what-if knob." },
    ConfigKey { key: "taskmanager.network.memory.max-overdraft-buffers-per-gate", aliases: &[], default: "20",
        doc: "Extra buffers a task may borrow mid-record when its pool is empty (Flink 1.16+; 0 = off). Default 20 (2.3's fixed value), 5 with playground.flink.version 1.20 (NettyShuffleEnvironmentOptions). Flink 2.x no longer accepts this key (NettyShuffleEnvironmentConfiguration fixes it at 20); with playground.flink.version 2.3 it stays settable here as a what-if knob." },
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
    ConfigKey { key: "restart-strategy.type", aliases: &["restart-strategy"], default: "",
        doc: "disable (none, off), fixed-delay, failure-rate or exponential-delay. Unset (Flink's default, RestartBackoffTimeStrategyFactoryLoader): exponential-delay with its default options when checkpointing is enabled, else disable." },
    ConfigKey { key: "restart-strategy.fixed-delay.attempts", aliases: &[], default: "1",
        doc: "fixed-delay: restarts before the job is declared FAILED." },
    ConfigKey { key: "restart-strategy.fixed-delay.delay", aliases: &[], default: "1s",
        doc: "fixed-delay: delay between a failure and the restart of the job." },
    ConfigKey { key: "pipeline.operator-chaining.enabled", aliases: &[], default: "true",
        doc: "Chain operators joined by a forward edge of equal parallelism into one task (StreamingJobGraphGenerator.isChainable). The runtime runs each chain as one task (`engine::chain`)." },
    ConfigKey { key: "taskmanager.numberOfTaskSlots", aliases: &[], default: "1",
        doc: "Slots per TaskManager (Flink's default 1). Read by the physical plan (`plan`)." },
    ConfigKey { key: "minicluster.number-of-taskmanagers", aliases: &["local.number-taskmanager"], default: "none",
        doc: "Pin the number of TaskManagers (the MiniCluster's option; its own default is 1). none = as many as an active resource manager (YARN, Kubernetes) requests: ceil(slots the job needs / slots per TaskManager). Read by the physical plan (`plan`)." },
    ConfigKey { key: "taskmanager.load-balance.mode", aliases: &[], default: "NONE",
        doc: "NONE or SLOTS: SLOTS spreads slots evenly over the TaskManagers instead of filling one first (Flink 1.18+). Read by the physical plan (`plan`)." },
    ConfigKey { key: "cluster.evenly-spread-out-slots", aliases: &[], default: "false",
        doc: "Flink 1.x spelling of taskmanager.load-balance.mode: SLOTS (removed in Flink 2.0; kept as a what-if knob). Read by the physical plan (`plan`)." },
    ConfigKey { key: "jobmanager.execution.failover-strategy", aliases: &[], default: "region",
        doc: "region (restart the failed task's pipelined region) or full (restart every task). Read by the physical plan (`plan`); the runtime restarts the whole job yet." },
    ConfigKey { key: "restart-strategy.failure-rate.max-failures-per-interval", aliases: &[], default: "1",
        doc: "failure-rate: restarts allowed within one interval before the job is declared FAILED." },
    ConfigKey { key: "restart-strategy.failure-rate.failure-rate-interval", aliases: &[], default: "1min",
        doc: "failure-rate: the interval the failure rate is measured over." },
    ConfigKey { key: "restart-strategy.failure-rate.delay", aliases: &[], default: "1s",
        doc: "failure-rate: delay between a failure and the restart." },
    ConfigKey { key: "restart-strategy.exponential-delay.initial-backoff", aliases: &[], default: "1s",
        doc: "exponential-delay: the first restart's delay." },
    ConfigKey { key: "restart-strategy.exponential-delay.max-backoff", aliases: &[], default: "1min",
        doc: "exponential-delay: the longest delay." },
    ConfigKey { key: "restart-strategy.exponential-delay.backoff-multiplier", aliases: &[], default: "1.5",
        doc: "exponential-delay: each further attempt multiplies the delay by this." },
    ConfigKey { key: "restart-strategy.exponential-delay.reset-backoff-threshold", aliases: &[], default: "1h",
        doc: "exponential-delay: running this long after a restart resets the delay and the attempt count." },
    ConfigKey { key: "restart-strategy.exponential-delay.jitter-factor", aliases: &[], default: "0.1",
        doc: "exponential-delay: a random part of the delay (+/- this fraction), drawn from the run's seed." },
    ConfigKey { key: "restart-strategy.exponential-delay.attempts-before-reset-backoff", aliases: &[], default: "2147483647",
        doc: "exponential-delay: attempts before the job is declared FAILED (Flink's default: infinite, Integer.MAX_VALUE)." },
    ConfigKey { key: "playground.flink.version", aliases: &[], default: "2.3",
        doc: "The Flink release whose defaults omitted keys take: 2.3 or 1.20 (1.20: the buffer counts are options, overdraft 5). Chosen for the whole run." },
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
    ConfigKey { key: "playground.serializer.version", aliases: &[], default: "1",
        doc: "Version of the record serializer; changing it makes in-flight data of older checkpoints unreadable." },
    ConfigKey { key: "playground.network.local-channels", aliases: &[], default: "true",
        doc: "A playground what-if, not a Flink setting: true (Flink's behaviour) makes a channel between subtasks of one TaskManager a LocalInputChannel (no credit, no receiver buffers, the consumer reads the producer's subpartition); false makes every channel remote and credit-based, as version-1 scenarios run." },
    ConfigKey { key: "playground.channel-state.writers-per-taskmanager", aliases: &[], default: "true",
        doc: "A playground what-if, not a Flink setting: true (Flink's behaviour) gives each TaskManager its own channel-state writers (ChannelStateWriteRequestExecutorFactory), max-subtasks-per-channel-state-file subtasks each; a file completes, and its sharers acknowledge, only when every sharer wrote its input and output (ChannelStateCheckpointWriter). false shares writers across the whole job in deployment order and lets each subtask acknowledge once its own channel state is written, as version-1 scenarios run." },
];

/// A key older playgrounds had and this one dropped: a scenario that sets it still opens
/// (the key is ignored, and `scenario::notes` says so), but it cannot be set anew.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RemovedKey {
    pub key: &'static str,
    /// Why it is gone and what to use instead, one sentence.
    pub why: &'static str,
}

/// Keys that are gone (see [`RemovedKey`]).
pub const REMOVED_KEYS: &[RemovedKey] = &[RemovedKey {
    key: "playground.source.legacy-compat",
    why: "Flink has no fix that makes a legacy SourceFunction wait for a free buffer before \
          taking the checkpoint lock (its only change is FLINK-27789: no overdraft buffers for \
          legacy sources); a legacy source now always emits without the availability check, \
          and the remedy is a FLIP-27 source (set the source's \"legacy\" to false)",
}];

/// The removed key `key` names, if it names one.
pub fn removed_key(key: &str) -> Option<&'static RemovedKey> {
    REMOVED_KEYS.iter().find(|k| k.key == key)
}

/// A rejected key or value, naming the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub key: String,
    /// What is wrong: exactly `msg`'s English.
    pub message: String,
    /// [`ConfigError::message`]'s structured form (the interface shows it in the viewer's
    /// language).
    pub msg: Msg,
}

impl ConfigError {
    pub fn new(key: &str, msg: Msg) -> ConfigError {
        ConfigError {
            key: key.to_string(),
            message: msg.english(),
            msg,
        }
    }
}

impl ConfigError {
    /// [`ConfigError`]'s `Display` ("config key 'k': message") in structured form.
    pub fn named(&self) -> Msg {
        Msg::new(
            "config key '{0}': {1}",
            vec![text(&self.key), self.msg.clone().into()],
        )
    }
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
            flink_version: FlinkVersion::V2_3,
            restart_strategy: None,
            fixed_delay_attempts: 0,
            restart_delay: 0,
            operator_chaining: true,
            slots_per_task_manager: 1,
            task_managers: None,
            load_balance_slots: false,
            evenly_spread_out_slots: false,
            failover_full: false,
            failure_rate_max_failures: 0,
            failure_rate_interval: 0,
            failure_rate_delay: 0,
            exp_initial_backoff: 0,
            exp_max_backoff: 0,
            exp_multiplier: 0.0,
            exp_reset_threshold: 0,
            exp_jitter: 0.0,
            exp_attempts: 0,
            network_latency: 0,
            rpc_latency: 0,
            storage_throughput: 0,
            storage_file_cost: 0,
            state_bytes_per_key: 0,
            availability_check: true,
            local_channels: true,
            writers_per_task_manager: true,
            serializer_version: 1,
            checkpoint_retention: super::retained::Retention::NoExternalizedCheckpoints,
            num_retained: 1,
            claim_mode: super::retained::ClaimMode::NoClaim,
            ignore_unclaimed_state: false,
            max_parallelism: None,
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

/// The known key `key` misspells (the same letters without `-`, `.`, `_`), if any.
fn suggestion(key: &str) -> Option<&'static str> {
    let squash = |s: &str| s.replace(['-', '.', '_'], "");
    let wanted = squash(key);
    KEYS.iter().find(|k| squash(k.key) == wanted).map(|k| k.key)
}

impl EngineConfig {
    /// Sets one key from its Flink-syntax value. Errors name the key and say what is wrong.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let err = |msg: Msg| ConfigError::new(key, msg);
        let Some(canonical) = canonical_key(key) else {
            if removed_key(key).is_some() {
                // Accepted and ignored, so an old scenario (or a recorded change) still runs.
                return Ok(());
            }
            return Err(err(match suggestion(key) {
                Some(k) => Msg::new(
                    "unknown configuration key (did you mean '{0}'?)",
                    vec![text(k)],
                ),
                None => Msg::new("unknown configuration key", vec![]),
            }));
        };
        let v = value.trim();
        let dur = || parse_duration_msg(v).map_err(err);
        let size = || parse_size_msg(v).map_err(err);
        let boolean = || match v.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(err(Msg::new("'{0}' is not true or false", vec![text(v)]))),
        };
        let count = |lo: u64, hi: u64| -> Result<u32, ConfigError> {
            let n: u64 = v
                .parse()
                .map_err(|_| err(Msg::new("'{0}' is not a whole number", vec![text(v)])))?;
            if n < lo || n > hi {
                return Err(err(Msg::new(
                    "{0} is out of range ({1} to {2})",
                    vec![text(n), text(lo), text(hi)],
                )));
            }
            Ok(n as u32)
        };
        // `what`: an engine word (the interface translates it).
        let bounded_dur =
            |lo: Micros, hi: Micros, what: &'static str| -> Result<Micros, ConfigError> {
                let d = parse_duration_msg(v).map_err(err)?;
                if d < lo || d > hi {
                    return Err(err(Msg::new(
                        "{0} is out of range for {1} ({2} to {3})",
                        vec![
                            text(format_duration(d)),
                            Arg::Word(what),
                            text(format_duration(lo)),
                            text(format_duration(hi)),
                        ],
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
                    _ => return Err(err(Msg::new("'{0}' is not EXACTLY_ONCE or AT_LEAST_ONCE", vec![text(v)]))),
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
                    .ok_or_else(|| err(Msg::new("'{0}' is not a checkpoint id or -1", vec![text(v)])))?
            }
            "execution.checkpointing.unaligned.recover-output-on-downstream.enabled" => {
                self.unaligned_recover_output_on_downstream = boolean()?
            }
            "execution.checkpointing.externalized-checkpoint-retention" => {
                self.checkpoint_retention = super::retained::Retention::parse(v).map_err(|m| err(Msg::new("{0}", vec![text(m)])))?
            }
            "execution.checkpointing.num-retained" => self.num_retained = count(1, 100)?,
            "execution.state-recovery.claim-mode" => {
                self.claim_mode = super::retained::ClaimMode::parse(v).map_err(|m| err(Msg::new("{0}", vec![text(m)])))?
            }
            "execution.state-recovery.ignore-unclaimed-state" => {
                self.ignore_unclaimed_state = boolean()?
            }
            "pipeline.max-parallelism" => {
                self.max_parallelism = match v.trim() {
                    "-1" => None,
                    _ => Some(count(1, super::record::UPPER_BOUND_MAX_PARALLELISM as u64)?),
                }
            }
            "execution.checkpointing.unaligned.during-recovery.enabled" => {
                self.unaligned_during_recovery = boolean()?
            }
            "taskmanager.memory.segment-size" => {
                let s = size()?;
                if !(64..=1 << 20).contains(&s) {
                    return Err(err(Msg::new("{0} bytes is out of range (64b to 1mb)", vec![text(s)])));
                }
                self.segment_size = s as u32
            }
            "taskmanager.memory.min-segment-size" => {
                let s = size()?;
                if !(16..=1 << 20).contains(&s) {
                    return Err(err(Msg::new("{0} bytes is out of range (16b to 1mb)", vec![text(s)])));
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
            "playground.flink.version" => {
                let next = FlinkVersion::parse(v)
                    .ok_or_else(|| err(Msg::new("'{0}' is not a Flink version this playground models (2.3 or 1.20)", vec![text(v)])))?;
                self.rebase_version(next)
            }
            "restart-strategy.type" => {
                self.restart_strategy = match v {
                    "" => None,
                    _ => Some(RestartStrategyType::parse(v).ok_or_else(|| {
                        err(Msg::new(
                            "'{0}' is not a restart strategy (disable, none, off, fixed-delay, failure-rate, exponential-delay)",
                            vec![text(v)],
                        ))
                    })?),
                }
            }
            "restart-strategy.fixed-delay.attempts" => {
                self.fixed_delay_attempts = count(0, i32::MAX as u64)?
            }
            "restart-strategy.fixed-delay.delay" => {
                self.restart_delay = bounded_dur(0, 3_600_000_000, "the restart delay")?
            }
            "pipeline.operator-chaining.enabled" => self.operator_chaining = boolean()?,
            "taskmanager.numberOfTaskSlots" => self.slots_per_task_manager = count(1, 1_024)?,
            "minicluster.number-of-taskmanagers" => {
                self.task_managers = match v.to_ascii_lowercase().as_str() {
                    "none" | "" => None,
                    _ => Some(count(1, 1_024)?),
                }
            }
            "taskmanager.load-balance.mode" => {
                self.load_balance_slots = match v.to_ascii_uppercase().as_str() {
                    "NONE" => false,
                    "SLOTS" => true,
                    "TASKS" => {
                        return Err(err(Msg::new(
                            "TASKS (TaskBalancedPreferredSlotSharingStrategy) is not modelled; use NONE or SLOTS",
                            vec![],
                        )))
                    }
                    _ => return Err(err(Msg::new("'{0}' is not NONE or SLOTS", vec![text(v)]))),
                }
            }
            "cluster.evenly-spread-out-slots" => self.evenly_spread_out_slots = boolean()?,
            "jobmanager.execution.failover-strategy" => {
                self.failover_full = match v.to_ascii_lowercase().as_str() {
                    "region" => false,
                    "full" => true,
                    _ => return Err(err(Msg::new("'{0}' is not region or full", vec![text(v)]))),
                }
            }
            "restart-strategy.failure-rate.max-failures-per-interval" => {
                self.failure_rate_max_failures = count(1, i32::MAX as u64)?
            }
            "restart-strategy.failure-rate.failure-rate-interval" => {
                self.failure_rate_interval = bounded_dur(1_000, 86_400_000_000, "the failure-rate interval")?
            }
            "restart-strategy.failure-rate.delay" => {
                self.failure_rate_delay = bounded_dur(0, 3_600_000_000, "the restart delay")?
            }
            "restart-strategy.exponential-delay.initial-backoff" => {
                self.exp_initial_backoff = bounded_dur(1_000, 86_400_000_000, "the initial backoff")?
            }
            "restart-strategy.exponential-delay.max-backoff" => {
                self.exp_max_backoff = bounded_dur(1_000, 86_400_000_000, "the max backoff")?
            }
            "restart-strategy.exponential-delay.backoff-multiplier" => {
                self.exp_multiplier = match v.parse::<f64>() {
                    Ok(m) if m > 1.0 && m <= 1_000.0 => m,
                    _ => return Err(err(Msg::new("'{0}' is not a multiplier greater than 1 (up to 1000)", vec![text(v)]))),
                }
            }
            "restart-strategy.exponential-delay.reset-backoff-threshold" => {
                self.exp_reset_threshold = bounded_dur(1_000, 864_000_000_000, "the reset threshold")?
            }
            "restart-strategy.exponential-delay.jitter-factor" => {
                self.exp_jitter = match v.parse::<f64>() {
                    Ok(j) if (0.0..=1.0).contains(&j) => j,
                    _ => return Err(err(Msg::new("'{0}' is not a jitter factor between 0 and 1", vec![text(v)]))),
                }
            }
            "restart-strategy.exponential-delay.attempts-before-reset-backoff" => {
                self.exp_attempts = count(1, i32::MAX as u64)?
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
                    return Err(err(Msg::new(
                        "{0} bytes/s is too slow (at least 1kb per second)",
                        vec![text(s)],
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
                    return Err(err(Msg::new("{0} bytes is out of range (1b to 1mb)", vec![text(s)])));
                }
                self.state_bytes_per_key = s as u32
            }
            "playground.task.availability-check" => self.availability_check = boolean()?,
            "playground.serializer.version" => self.serializer_version = count(1, 1_000_000)?,
            "playground.network.local-channels" => self.local_channels = boolean()?,
            "playground.channel-state.writers-per-taskmanager" => {
                self.writers_per_task_manager = boolean()?
            }
            other => return Err(err(Msg::new("'{0}' is documented but not handled", vec![text(other)]))),
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
        let refuse = |key: &str, msg: Msg| Err(ConfigError::new(key, msg));
        if self.unaligned && self.mode == CheckpointingMode::AtLeastOnce {
            return refuse(
                "execution.checkpointing.unaligned.enabled",
                Msg::new(
                    "unaligned checkpoints require execution.checkpointing.mode EXACTLY_ONCE, but execution.checkpointing.mode is AT_LEAST_ONCE",
                    vec![],
                ),
            );
        }
        if self.unaligned && self.max_concurrent > 1 {
            return refuse(
                "execution.checkpointing.max-concurrent-checkpoints",
                Msg::new(
                    "unaligned checkpoints support only one concurrent checkpoint, but execution.checkpointing.max-concurrent-checkpoints is {0} while execution.checkpointing.unaligned.enabled is true",
                    vec![text(self.max_concurrent)],
                ),
            );
        }
        if self.unaligned_during_recovery && !self.unaligned_recover_output_on_downstream {
            return refuse(
                "execution.checkpointing.unaligned.during-recovery.enabled",
                Msg::new(
                    "checkpointing during recovery requires execution.checkpointing.unaligned.recover-output-on-downstream.enabled true (Flink 2.3, FLIP-547), but it is false",
                    vec![],
                ),
            );
        }
        if self.buffers_per_channel == 0 && self.floating_buffers_per_gate == 0 {
            return refuse(
                "taskmanager.network.memory.floating-buffers-per-gate",
                Msg::new(
                    "with 0 buffers per channel, a gate needs at least one floating buffer: taskmanager.network.memory.buffers-per-channel 0 and taskmanager.network.memory.floating-buffers-per-gate 0 leave an input channel no buffer to receive into, so the job would stall",
                    vec![],
                ),
            );
        }
        if self.min_segment_size > self.segment_size {
            return refuse(
                "taskmanager.memory.min-segment-size",
                Msg::new(
                    "taskmanager.memory.min-segment-size ({0}) is larger than taskmanager.memory.segment-size ({1}); the debloater sizes buffers between the two",
                    vec![
                        text(size_text(self.min_segment_size)),
                        text(size_text(self.segment_size)),
                    ],
                ),
            );
        }
        Ok(())
    }

    /// Switches to `next`'s defaults: every setting that still has the old version's default
    /// takes the new version's (an explicitly different value stays).
    fn rebase_version(&mut self, next: FlinkVersion) {
        let old = self.flink_version;
        self.flink_version = next;
        if old == next {
            return;
        }
        for ((key, old_default), (_, new_default)) in old.defaults().iter().zip(next.defaults()) {
            let mut probe = self.clone();
            let unchanged = probe.set(key, old_default).is_ok() && probe == *self;
            if unchanged {
                #[allow(clippy::expect_used)]
                self.set(key, new_default).expect("version defaults parse");
            }
        }
    }

    /// The config of a version-1 scenario with nothing set: today's defaults with
    /// [`VERSION_1_DEFAULTS`] applied (what tests written against the old defaults use).
    pub fn version_1() -> EngineConfig {
        let mut c = EngineConfig::default();
        for (k, v) in VERSION_1_DEFAULTS {
            #[allow(clippy::expect_used)]
            c.set(k, v).expect("version-1 defaults parse");
        }
        c
    }

    /// The defaults of a run on `version` (what omitted keys take).
    pub fn for_version(version: FlinkVersion) -> EngineConfig {
        let mut c = EngineConfig::default();
        c.rebase_version(version);
        c
    }

    /// This config with `key` set to `value`, if the value parses and the result passes
    /// [`EngineConfig::validate`] — the one check of a config change, wherever it comes
    /// from. A bad value is [`EngineConfig::set`]'s error; a valid value that breaks a
    /// rule together with the rest of the config is an error keyed by `key` whose message
    /// says the value is refused and names the rule's keys and values.
    pub fn with_change(&self, key: &str, value: &str) -> Result<EngineConfig, ConfigError> {
        if canonical_key(key) == Some("playground.flink.version") {
            return Err(ConfigError::new(
                key,
                Msg::new(
                    "{0} is refused: the Flink version is chosen for the whole run (in the scenario's config), not changed while it runs",
                    vec![text(value.trim())],
                ),
            ));
        }
        let mut next = self.clone();
        next.set(key, value)?;
        match next.validate() {
            Ok(()) => Ok(next),
            Err(rule) => Err(ConfigError::new(
                key,
                Msg::new(
                    "{0} is refused: {1}",
                    vec![text(value.trim()), rule.msg.into()],
                ),
            )),
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
        assert_eq!(c.max_overdraft_buffers_per_gate, 20);
        assert_eq!(c.max_subtasks_per_channel_state_file, 5);
        assert_eq!(c.segment_size, 32 * 1024);
        assert_eq!(c.flink_version, FlinkVersion::V2_3);
        assert_eq!(c.restart_strategy, None);
        assert_eq!(c.exp_multiplier, 1.5);
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

    #[test]
    fn the_version_profile_moves_only_defaults() {
        let mut c = EngineConfig::default();
        c.set("playground.flink.version", "1.20").unwrap();
        assert_eq!(c.max_overdraft_buffers_per_gate, 5);
        c.set("playground.flink.version", "2.3.0").unwrap();
        assert_eq!(c.max_overdraft_buffers_per_gate, 20);
        // An explicit value stays whatever the version.
        c.set(
            "taskmanager.network.memory.max-overdraft-buffers-per-gate",
            "7",
        )
        .unwrap();
        c.set("playground.flink.version", "1.20").unwrap();
        assert_eq!(c.max_overdraft_buffers_per_gate, 7);
        assert!(c.set("playground.flink.version", "1.19").is_err());
        assert_eq!(
            EngineConfig::for_version(FlinkVersion::V1_20).max_overdraft_buffers_per_gate,
            5
        );
        let e = EngineConfig::default()
            .with_change("playground.flink.version", "1.20")
            .unwrap_err();
        assert!(e.message.contains("whole run"), "{e}");
    }

    #[test]
    fn version_1_keeps_the_old_defaults() {
        let c = EngineConfig::version_1();
        assert_eq!(c.segment_size, 4096);
        assert_eq!(c.max_overdraft_buffers_per_gate, 5);
        assert_eq!(c.restart_strategy, Some(RestartStrategyType::FixedDelay));
        assert_eq!(c.fixed_delay_attempts, i32::MAX as u32);
        assert_eq!(c.restart_delay, 1_000_000);
    }
}
