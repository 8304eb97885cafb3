//! The scenario's configuration as Flink 2.3's `config.yaml`.
//!
//! Contract: [`translate`] writes every key the scenario sets, under Flink 2.3's name for it
//! (checked against `CheckpointingOptions`, `StateRecoveryOptions`, `TaskManagerOptions`,
//! `ExecutionOptions` and `RestartStrategyOptions` of the 2.3.0 jars), plus the keys whose
//! playground default differs from Flink's so that Flink runs what the simulator runs
//! (`taskmanager.memory.segment-size`, the restart strategy), plus the local set-up
//! (MiniCluster TaskManagers and slots, REST and TaskManager bound to 127.0.0.1, a long
//! checkpoint history). A key Flink 2.3 no longer has (the network buffer counts, which
//! `NettyShuffleEnvironmentConfiguration` fixes at 2 / 8 / 10 / 20) maps exactly when the
//! scenario's value is the fixed one and is listed as not exported otherwise; `playground.*`
//! keys (the model's own costs) and `set_config` events (Flink cannot change the
//! configuration of a running job) are listed as not exported. A key this exporter does not
//! know (added to the engine after it) is listed too, never dropped in silence.

use super::notes::Notes;
use crate::engine::config::{canonical_key, EngineConfig, KEYS};
use crate::engine::spec::JobSpec;
use crate::scenario::convert::config_value;
use crate::scenario::{ActionDoc, Document};
use std::collections::BTreeSet;

/// How one playground key maps to Flink 2.3.
enum Mapping {
    /// The same option (maybe renamed) with the same value syntax.
    Key(&'static str),
    /// No longer an option in Flink 2.3: fixed at this value.
    Fixed(&'static str),
    /// A slot-layout key: written with the layout, from the physical plan.
    Layout,
    /// A cost or switch of the model with no Flink option.
    Model(&'static str),
}

fn mapping(key: &str) -> Option<Mapping> {
    use Mapping::*;
    Some(match key {
        "execution.checkpointing.interval"
        | "execution.checkpointing.mode"
        | "execution.checkpointing.unaligned.enabled"
        | "execution.checkpointing.unaligned.forced"
        | "execution.checkpointing.aligned-checkpoint-timeout"
        | "execution.checkpointing.timeout"
        | "execution.checkpointing.min-pause"
        | "execution.checkpointing.max-concurrent-checkpoints"
        | "execution.checkpointing.tolerable-failed-checkpoints"
        | "execution.checkpointing.unaligned.max-subtasks-per-channel-state-file"
        | "taskmanager.memory.segment-size"
        | "taskmanager.memory.min-segment-size"
        | "execution.buffer-timeout.interval"
        | "taskmanager.network.memory.buffer-debloat.enabled"
        | "taskmanager.network.memory.buffer-debloat.target"
        | "taskmanager.network.memory.buffer-debloat.period"
        | "taskmanager.network.memory.buffer-debloat.samples"
        | "taskmanager.network.memory.buffer-debloat.threshold-percentages"
        | "execution.checkpointing.unaligned.recover-output-on-downstream.enabled"
        | "execution.checkpointing.unaligned.during-recovery.enabled"
        | "restart-strategy.type"
        | "restart-strategy.fixed-delay.attempts"
        | "restart-strategy.fixed-delay.delay"
        | "restart-strategy.failure-rate.max-failures-per-interval"
        | "restart-strategy.failure-rate.failure-rate-interval"
        | "restart-strategy.failure-rate.delay"
        | "restart-strategy.exponential-delay.initial-backoff"
        | "restart-strategy.exponential-delay.max-backoff"
        | "restart-strategy.exponential-delay.backoff-multiplier"
        | "restart-strategy.exponential-delay.reset-backoff-threshold"
        | "restart-strategy.exponential-delay.jitter-factor"
        | "restart-strategy.exponential-delay.attempts-before-reset-backoff"
        | "pipeline.operator-chaining.enabled"
        | "taskmanager.load-balance.mode"
        | "jobmanager.execution.failover-strategy"
        | "execution.checkpointing.externalized-checkpoint-retention"
        | "execution.checkpointing.num-retained"
        | "execution.state-recovery.claim-mode"
        | "execution.state-recovery.ignore-unclaimed-state"
        | "pipeline.max-parallelism" => Key(key_static(key)),
        // The slot layout is written below, from the physical plan.
        "taskmanager.numberOfTaskSlots" | "minicluster.number-of-taskmanagers" => Layout,
        "cluster.evenly-spread-out-slots" => Model(
            "removed in Flink 2.0 (taskmanager.load-balance.mode: SLOTS is its 2.x spelling)",
        ),
        "playground.flink.version" => Model(
            "the Flink release whose defaults the simulator uses; the export targets Flink 2.3",
        ),
        "execution.checkpointing.recover-without-channel-state.checkpoint-id" => {
            Key("execution.state-recovery.without-channel-state.checkpoint-id")
        }
        "state.storage.fs.memory-threshold" => Key("execution.checkpointing.data-inline-threshold"),
        "taskmanager.network.memory.buffers-per-channel" => Fixed("2"),
        "taskmanager.network.memory.floating-buffers-per-gate" => Fixed("8"),
        "taskmanager.network.memory.max-buffers-per-channel" => Fixed("10"),
        "taskmanager.network.memory.max-overdraft-buffers-per-gate" => Fixed("20"),
        "playground.network.latency" => Model("the latency of a network hop; here it is loopback's"),
        "playground.rpc.latency" => Model("the latency of a coordinator RPC; here it is in-JVM"),
        "playground.storage.throughput" => {
            Model("the checkpoint storage's throughput; here it is the local disk's")
        }
        "playground.storage.file-cost" => {
            Model("the cost of creating a checkpoint file; here it is the local file system's")
        }
        "playground.state.bytes-per-key" => Model(
            "the size of a key's state; here it is what a Long count serializes to",
        ),
        "playground.task.availability-check" => Model(
            "a switch of the model's task loop; Flink always checks output availability (StreamTask.processInput)",
        ),
        "playground.source.legacy-compat" => Model("a switch of the model's legacy source"),
        "playground.network.local-channels" => Model(
            "a what-if of the model; Flink always reads a producer in the consumer's TaskManager over a LocalInputChannel",
        ),
        "playground.channel-state.writers-per-taskmanager" => Model(
            "a what-if of the model; Flink's channel-state writers are always per TaskManager (ChannelStateWriteRequestExecutorFactory)",
        ),
        "playground.serializer.version" => Model(
            "the model's record-serializer version; the exported job has one serializer",
        ),
        _ => return None,
    })
}

fn key_static(key: &str) -> &'static str {
    KEYS.iter()
        .map(|k| k.key)
        .find(|k| *k == key)
        .unwrap_or("execution.checkpointing.interval")
}

/// The canonical keys the scenario sets in its `config`.
fn keys_set(doc: &Document) -> BTreeSet<String> {
    doc.config
        .keys()
        .map(|k| {
            canonical_key(k)
                .map(str::to_string)
                .unwrap_or_else(|| k.clone())
        })
        .collect()
}

/// The TaskManagers and slots of the local MiniCluster: Flink's local default (one
/// TaskManager with as many slots as the largest parallelism, all operators in the default
/// slot-sharing group), since the scenario has no slot layout of its own yet.
pub fn slots(spec: &JobSpec) -> (u32, u32) {
    let c = &spec.config;
    let layout_set = c.task_managers.is_some() || c.slots_per_task_manager != 1;
    if layout_set {
        if let Ok(plan) = crate::engine::physical_plan::PhysicalPlan::build(spec) {
            return (plan.task_managers, plan.slots_per_task_manager);
        }
    }
    let max_p = spec
        .operators
        .iter()
        .map(|o| o.parallelism)
        .max()
        .unwrap_or(1);
    (1, max_p)
}

/// The `config.yaml` text; fills `notes`.
pub fn translate(doc: &Document, spec: &JobSpec, notes: &mut Notes) -> String {
    let set = keys_set(doc);
    let mut lines: Vec<String> = Vec::new();
    let mut commented: Vec<String> = Vec::new();
    for k in KEYS {
        let value = config_value(k.key, &spec.config).map(|v| v.to_flink_string());
        let is_set = set.contains(k.key);
        let path = format!("config.{}", k.key);
        match mapping(k.key) {
            Some(Mapping::Key(flink)) => {
                // Written when set; segment-size always (the playground's default differs
                // from Flink's 32 kb, and Flink should run what the simulator runs).
                let always = k.key == "taskmanager.memory.segment-size"
                    || value
                        != config_value(k.key, &EngineConfig::default())
                            .map(|v| v.to_flink_string());
                if !(is_set || always) {
                    continue;
                }
                let Some(v) = value else { continue };
                if k.key == "execution.checkpointing.interval" && v == "none" {
                    notes.exact(format!(
                        "{path}: none (periodic checkpoints off, Flink's default)"
                    ));
                    continue;
                }
                lines.push(format!("{flink}: {}", yaml_scalar(&v)));
                if flink == k.key {
                    notes.exact(format!("{path}: {v}"));
                } else {
                    notes.exact(format!("{path}: {v} (Flink 2.3 names it {flink})"));
                }
            }
            Some(Mapping::Fixed(fixed)) => {
                let Some(v) = value else { continue };
                if v == fixed {
                    if is_set {
                        notes.exact(format!(
                            "{path}: {v} (not an option in Flink 2.3, which fixes it at {fixed})"
                        ));
                    }
                } else if is_set {
                    notes.not_exported(format!(
                        "{path}: {v} — not an option in Flink 2.3 (NettyShuffleEnvironmentConfiguration fixes it at {fixed}); the job runs with {fixed}"
                    ));
                    commented.push(format!(
                        "# {}: {v}  (not an option in Flink 2.3: fixed at {fixed})",
                        k.key
                    ));
                } else {
                    notes.approximate(format!(
                        "{path}: the simulator's default is {v}, Flink 2.3 fixes it at {fixed}"
                    ));
                }
            }
            Some(Mapping::Layout) => {
                if is_set {
                    notes.exact(format!(
                        "{path}: {} (the MiniCluster's layout below)",
                        value.unwrap_or_default()
                    ));
                }
            }
            Some(Mapping::Model(why)) if k.key == "playground.flink.version" => {
                if is_set {
                    notes.approximate(format!(
                        "{path}: {} — {why}; the settings whose defaults differ are listed one by one",
                        value.unwrap_or_default()
                    ));
                }
            }
            Some(Mapping::Model(why))
                if matches!(
                    k.key,
                    "playground.network.local-channels"
                        | "playground.channel-state.writers-per-taskmanager"
                ) =>
            {
                // A version-1 scenario pins them off: the exported job runs Flink's way.
                if is_set {
                    notes.approximate(format!(
                        "{path}: {} — {why}: the Flink run has them, the simulator's did not",
                        value.unwrap_or_default()
                    ));
                }
            }
            Some(Mapping::Model(why)) => {
                if is_set {
                    notes.not_exported(format!("{path}: {} — {why}", value.unwrap_or_default()));
                    commented.push(format!(
                        "# {}  (playground only: not a Flink option)",
                        k.key
                    ));
                }
            }
            None => {
                if is_set {
                    notes.not_exported(format!(
                        "{path}: {} — this exporter does not know the key yet",
                        value.unwrap_or_default()
                    ));
                    commented.push(format!(
                        "# {}  (not exported: unknown to the exporter)",
                        k.key
                    ));
                }
            }
        }
    }
    for (i, e) in doc.events.iter().enumerate() {
        if let ActionDoc::SetConfig { key, value } = &e.action {
            notes.not_exported(format!(
                "events[{i}].set_config: {key} = {} at {} — Flink cannot change the configuration of a running job (stop with a savepoint and resubmit)",
                value.to_flink_string(),
                e.at
            ));
        }
    }
    let (tms, slots) = slots(spec);
    let mut out = String::new();
    out += &format!(
        "# Flink {} configuration of the Checkpoint Playground scenario \"{}\".\n",
        super::FLINK_VERSION,
        doc.name.replace(['\n', '\r'], " ")
    );
    out += "# The scenario's settings (see README.md for what maps how):\n";
    for l in &lines {
        out += l;
        out += "\n";
    }
    if !commented.is_empty() {
        out += "# Set by the scenario but not exported:\n";
        for l in &commented {
            out += l;
            out += "\n";
        }
    }
    out += "\n# Local set-up (run-local.sh): a MiniCluster, everything on loopback.\n";
    out += &format!("minicluster.number-of-taskmanagers: {tms}\n");
    out += &format!("taskmanager.numberOfTaskSlots: {slots}\n");
    out += "rest.bind-address: 127.0.0.1\nrest.address: 127.0.0.1\nrest.port: 8081\n";
    out += "taskmanager.host: 127.0.0.1\ntaskmanager.bind-host: 127.0.0.1\n";
    out += "jobmanager.bind-host: 127.0.0.1\njobmanager.rpc.address: 127.0.0.1\n";
    out += "web.checkpoints.history: 1000\n";
    out +=
        "# REST metrics refresh every second (default 10 s), for calibrate's throughput window.\n";
    out += "metrics.fetcher.update-interval: 1000\n";
    out += "state.backend.type: hashmap\nexecution.checkpointing.storage: filesystem\n";
    out += "# execution.checkpointing.dir defaults to <output>/checkpoints (set by ScenarioJob).\n";
    if tms == 1 {
        notes.approximate(format!(
            "slot layout: {tms} TaskManager with {slots} slots (the scenario pins no layout: Flink's local default), so every channel is a LocalInputChannel; the simulator's channels are all remote (credit-based) until it runs the physical plan"
        ));
    } else {
        notes.approximate(format!(
            "slot layout: {tms} TaskManagers with {slots} slots each, as the scenario's physical plan (`plan`) places them; Flink's channels between subtasks of one TaskManager are local, the simulator's are all remote (credit-based) until it runs the physical plan"
        ));
    }
    out
}

/// A YAML scalar: plain when safe, else double-quoted.
fn yaml_scalar(v: &str) -> String {
    let plain = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | ' '))
        && !v.starts_with(['-', ' '])
        && !v.ends_with(' ');
    if plain {
        v.to_string()
    } else {
        format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
    }
}
