//! Builds the run report from the engine's state, with Flink's definitions: per-checkpoint
//! figures that differ per subtask (alignment, start delay, sync, async) are the maximum
//! over subtasks; checkpointed size is state plus persisted in-flight data; backpressure
//! ratios are shares of each subtask's time, averaged over the operator's subtasks.

use super::coordinator::CheckpointStats;
use super::report::{
    CheckpointReport, OperatorReport, Report, SinkReport, SubtaskCheckpointReport,
};
use super::runtime::{Engine, JobStatus};
use super::spec::{OperatorKind, SinkDelivery};
use super::time::Micros;

fn ms(us: Micros) -> f64 {
    us as f64 / 1e3
}

/// Where `s` sits in the running history, and the cache scope of its entry; `None` for a
/// checkpoint of no running history entry (built without a cache).
fn history_slot(
    engine: &Engine,
    s: &CheckpointStats,
) -> Option<(usize, super::report_rows::Scope)> {
    let coordinator = &engine.coordinator;
    let index = (s.id as usize).checked_sub(1 + coordinator.history_base as usize)?;
    coordinator
        .history
        .get(index)
        .is_some_and(|h| std::ptr::eq(h, s))
        .then_some((
            index,
            super::report_rows::Scope {
                history_base: coordinator.history_base,
                deployment: engine.deployments,
            },
        ))
}

/// Checkpoint `s`'s report without its diagnosis. An entry of the running history is
/// built once per change of the entry and reused after that ([`super::report_rows`]).
pub fn checkpoint_report(engine: &Engine, s: &CheckpointStats) -> CheckpointReport {
    match history_slot(engine, s) {
        Some((i, scope)) => {
            engine
                .entry_reports
                .borrow_mut()
                .get(scope, i, (s.id, s.revision), || {
                    build_checkpoint_report(engine, s)
                })
        }
        None => build_checkpoint_report(engine, s),
    }
}

fn build_checkpoint_report(engine: &Engine, s: &CheckpointStats) -> CheckpointReport {
    let max = |f: fn(&super::coordinator::SubtaskStats) -> Micros| {
        s.subtasks.values().map(f).max().unwrap_or(0)
    };
    let checkpoint_type = match s.savepoint {
        Some(k) => k.rest_type(),
        None if s.unaligned() => "UNALIGNED_CHECKPOINT",
        None => "CHECKPOINT",
    };
    CheckpointReport {
        id: s.id,
        checkpoint_type: checkpoint_type.to_string(),
        is_savepoint: s.savepoint.is_some(),
        external_path: s.external_path.clone(),
        status: s.status.name().to_string(),
        unaligned: s.unaligned(),
        timed_out_to_unaligned: s.timed_out_to_unaligned(),
        trigger_ms: ms(s.trigger_at),
        latest_ack_ms: s.latest_ack().map(ms),
        acknowledged: s.acknowledged() as u32,
        total_subtasks: s.expected.len() as u32,
        end_to_end_ms: s.end_to_end().map(ms),
        alignment_ms: ms(max(|x| x.alignment)),
        start_delay_ms: ms(max(|x| x.start_delay)),
        sync_ms: ms(max(|x| x.sync)),
        async_ms: ms(max(|x| x.async_duration)),
        checkpointed_bytes: s.state_bytes() + s.persisted_bytes(),
        state_bytes: s.state_bytes(),
        processed_inflight_bytes: s.processed_bytes(),
        persisted_inflight_bytes: s.persisted_bytes(),
        channel_state_files: s.channel_state_files,
        failure_reason: s.failure_reason.clone(),
        subtasks: subtask_rows(engine, s).into(),
        diagnosis: None,
    }
}

/// One row per subtask that must acknowledge checkpoint `s`, as the report shows them.
fn subtask_rows(engine: &Engine, s: &CheckpointStats) -> Vec<SubtaskCheckpointReport> {
    s.expected
        .iter()
        .map(|&t| {
            let task = &engine.tasks[t];
            let st = s.subtasks.get(&t).cloned().unwrap_or_default();
            SubtaskCheckpointReport {
                operator: engine.operators[task.operator].id.clone(),
                subtask: task.index,
                vertex: engine.layout.names[task.vertex].clone(),
                chained_operators: task
                    .chain
                    .ops
                    .iter()
                    .map(|o| engine.operators[o.operator].id.clone())
                    .collect(),
                acknowledged: st.ack_at.is_some(),
                unaligned: st.persisted_bytes > 0,
                first_barrier_ms: st.started_at.map(ms),
                ack_ms: st.ack_at.map(ms),
                sync_start_ms: (st.sync_start > 0).then(|| ms(st.sync_start)),
                end_to_end_ms: st.ack_at.map(|a| ms(a - s.trigger_at)),
                start_delay_ms: ms(st.start_delay),
                alignment_ms: ms(st.alignment),
                sync_ms: ms(st.sync),
                async_ms: ms(st.async_duration),
                state_bytes: st.state_bytes,
                processed_inflight_bytes: st.processed_bytes,
                persisted_inflight_bytes: st.persisted_bytes,
            }
        })
        .collect()
}

/// A checkpoint's report with its diagnosis.
/// A settled checkpoint's ([`super::diagnosis::critical_path::settled`]) is built once
/// per change of its entry or of the config values it quotes, and reused after that.
pub fn diagnosed_report(engine: &Engine, s: &CheckpointStats) -> CheckpointReport {
    use super::diagnosis::critical_path::{diagnose, quoted_config, settled};
    let build = || {
        let mut r = checkpoint_report(engine, s);
        r.diagnosis = Some(diagnose(engine, s, &r));
        r
    };
    match history_slot(engine, s).filter(|_| settled(engine, s)) {
        Some((i, scope)) => {
            let key = (s.id, s.revision, quoted_config(engine));
            engine
                .diagnosed_reports
                .borrow_mut()
                .get(scope, i, key, build)
        }
        None => build(),
    }
}

pub fn build_report(engine: &Engine) -> Report {
    let checkpoints = engine
        .previous_checkpoints
        .iter()
        .cloned()
        .chain(
            engine
                .coordinator
                .history
                .iter()
                .map(|s| diagnosed_report(engine, s)),
        )
        .collect::<Vec<_>>();
    let summary = super::diagnosis::summary::checkpoint_summary(&checkpoints);
    let metrics = super::diagnosis::metrics::subtask_metrics(engine);
    let metrics_windows = super::diagnosis::metrics::metrics_windows(engine);
    let bottleneck = super::diagnosis::bottleneck::find(engine, &metrics);
    let pending_barriers = engine
        .coordinator
        .pending
        .iter()
        .max()
        .and_then(|&id| super::diagnosis::live::barrier_tree(engine, id));
    let sinks = engine
        .sink_operators()
        .into_iter()
        .map(|s| {
            let v = engine.sink_verdict(s);
            let delivery = match engine.operators[s].kind {
                OperatorKind::Sink {
                    delivery: SinkDelivery::TwoPhaseCommit,
                } => "two_phase_commit",
                OperatorKind::Sink {
                    delivery: SinkDelivery::Idempotent,
                } => "idempotent",
                _ => "at_least_once",
            };
            SinkReport {
                operator: engine.operators[s].id.clone(),
                delivery: delivery.to_string(),
                committed_records: v.committed_records,
                duplicates: v.duplicates,
                lost: v.lost,
                unattributed_lost: v.unattributed_lost,
                pending_records: v.pending_records,
                exactly_once: v.exactly_once,
            }
        })
        .collect();
    let operators = engine
        .operators
        .iter()
        .enumerate()
        .map(|(op, o)| {
            let mut r = OperatorReport {
                id: o.id.clone(),
                kind: o.kind.name().to_string(),
                parallelism: o.parallelism,
                vertex: engine.layout.names[engine.layout.vertex_of[op]].clone(),
                ..Default::default()
            };
            let n = o.tasks.len().max(1) as f64;
            for &t in &o.tasks {
                let task = &engine.tasks[t];
                let (busy, soft, hard, idle) = task.activity_until(engine.now);
                let total = (busy + soft + hard + idle).max(1) as f64;
                let (records_in, records_out) = task.operator_records(op);
                r.records_in += records_in;
                r.records_out += records_out;
                r.busy_ratio += busy as f64 / total / n;
                r.backpressured_ratio += (soft + hard) as f64 / total / n;
                r.idle_ratio += idle as f64 / total / n;
                r.hard_backpressured_ratio += hard as f64 / total / n;
                if let Some(state) = task.chain.state_of(op) {
                    r.state_bytes +=
                        super::checkpoint::state_size(state, engine.config.state_bytes_per_key);
                }
            }
            let round = |x: f64| (x * 1e4).round() / 1e4;
            r.busy_ratio = round(r.busy_ratio);
            r.backpressured_ratio = round(r.backpressured_ratio);
            r.idle_ratio = round(r.idle_ratio);
            r.hard_backpressured_ratio = round(r.hard_backpressured_ratio);
            r
        })
        .collect();
    Report {
        name: engine.spec.name.clone(),
        seed: engine.spec.seed,
        virtual_time_ms: engine.now / 1000,
        finished: engine.status == JobStatus::Finished,
        job_status: match engine.status {
            JobStatus::Running => "RUNNING",
            JobStatus::Restarting => "RESTARTING",
            JobStatus::Finished => "FINISHED",
            JobStatus::Failed => "FAILED",
        }
        .to_string(),
        event_hash: format!("{:016x}", engine.event_hash()),
        checkpoints,
        trigger_failures: engine.coordinator.failed_without_id,
        failures: engine.failures.clone(),
        resubmissions: engine.resubmissions.clone(),
        sinks,
        operators,
        input_channels: engine
            .tasks
            .iter()
            .map(|t| {
                let local = t
                    .inputs
                    .iter()
                    .filter(|&&c| engine.channels[c].is_local())
                    .count() as u32;
                super::report::SubtaskChannelsReport {
                    operator: engine.operators[t.operator].id.clone(),
                    subtask: t.index,
                    local_inputs: local,
                    remote_inputs: t.inputs.len() as u32 - local,
                }
            })
            .collect(),
        stop_with_savepoint: engine.lifecycle.stop.as_ref().map(|s| {
            use super::lifecycle::StopStatus;
            let (status, failure) = match &s.status {
                StopStatus::WaitingForSavepoint => ("waiting_for_savepoint", None),
                StopStatus::SavepointCreated => ("savepoint_created", None),
                StopStatus::Finished => ("finished", None),
                StopStatus::Failed(why) => ("failed", Some(why.clone())),
            };
            super::report::StopReport {
                drain: s.drain,
                requested_ms: ms(s.requested_at),
                savepoint_id: s.savepoint,
                savepoint_path: s
                    .savepoint
                    .and_then(|id| engine.coordinator.stats(id))
                    .and_then(|c| c.external_path.clone()),
                status: status.to_string(),
                failure,
            }
        }),
        summary,
        bottleneck,
        metrics,
        metrics_windows,
        pending_barriers,
    }
}
