//! Recovery (issue 5): failures at the awkward moments, a failover that restores the job as
//! it runs (issue 15), dropping channel state on request, retention loss, replay distance,
//! and what each sink kind shows after a failure.

mod common;
use checkpoint_playground::engine::coordinator::CheckpointStatus;
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::task::TaskStatus;
use checkpoint_playground::engine::time::Micros;
use checkpoint_playground::engine::{Engine, JobStatus};
use common::*;

const UC: &[(&str, &str)] = &[("execution.checkpointing.unaligned.enabled", "true")];

fn cfg(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut c = vec![
        ("execution.checkpointing.interval", "500ms"),
        ("restart-strategy.fixed-delay.delay", "100ms"),
    ];
    c.extend_from_slice(extra);
    c
}

/// The first virtual time at which `pred` holds in a failure-free run.
fn first_time(spec: &JobSpec, pred: impl Fn(&Engine) -> bool) -> Micros {
    let mut e = Engine::new(spec.clone()).unwrap();
    while e.step() {
        if pred(&e) {
            return e.now;
        }
    }
    panic!("condition never held");
}

fn fail_at(spec: &JobSpec, at: Micros, operator: &str, subtask: u32) -> Engine {
    let mut s = spec.clone();
    s.events.push(TimedAction {
        at,
        action: Action::Fail {
            operator: operator.into(),
            subtask,
        },
    });
    let mut e = Engine::new(s).unwrap();
    while e.step() {
        e.check_invariants().unwrap();
    }
    e
}

fn assert_exactly_once(e: &Engine, what: &str) {
    assert_eq!(e.status, JobStatus::Finished, "{what}: job did not finish");
    e.check_no_leak().unwrap();
    let v = e.sink_verdict(3);
    assert!(
        v.exactly_once,
        "{what}: {} duplicates, {} lost",
        v.duplicates, v.lost
    );
    assert!(!e.failures.is_empty(), "{what}: the failure did not happen");
}

#[test]
fn failure_during_the_async_phase_of_an_unaligned_checkpoint() {
    let spec = pipeline(&cfg(UC), Some(4000), "2ms", "60s");
    let at = first_time(&spec, |e| {
        e.now > 1_000_000
            && e.tasks.iter().any(|t| {
                t.checkpoints
                    .values()
                    .any(|c| c.sync_end.is_some() && c.acked_at.is_none() && c.persisted_bytes > 0)
            })
    });
    assert_exactly_once(&fail_at(&spec, at, "count", 0), "async phase");
}

#[test]
fn failure_during_alignment() {
    let spec = pipeline(&cfg(&[]), Some(4000), "2ms", "60s");
    let at = first_time(&spec, |e| {
        e.now > 1_000_000 && e.tasks.iter().any(|t| t.handler.is_aligning())
    });
    assert_exactly_once(&fail_at(&spec, at, "out", 0), "alignment");
}

#[test]
fn failure_during_recovery() {
    let spec = pipeline(&cfg(UC), Some(4000), "2ms", "60s");
    let first = fail_at(&spec, d("4s"), "count", 1);
    assert!(
        first.failures[0].recovered_inflight_records > 0,
        "the restore replays in-flight data"
    );
    let mut s = spec.clone();
    s.events.push(TimedAction {
        at: d("4s"),
        action: Action::Fail {
            operator: "count".into(),
            subtask: 1,
        },
    });
    let at = first_time(&s, |e| {
        e.tasks.iter().any(|t| t.status == TaskStatus::Recovering)
    });
    let e = fail_at(&s, at + 1, "map", 0);
    assert_eq!(e.failures.len(), 2, "second failure while recovering");
    assert_exactly_once(&e, "during recovery");
}

fn topology_change(extra: &[(&'static str, &'static str)]) -> JobSpec {
    let mut spec = pipeline(&cfg(extra), None, "300us", "8s");
    spec.events.push(TimedAction {
        at: d("1500ms"),
        action: Action::SetPartitioner {
            from: "count".into(),
            to: "out".into(),
            partitioner: Partitioner::Broadcast,
        },
    });
    spec.events.push(TimedAction {
        at: d("3s"),
        action: Action::Fail {
            operator: "map".into(),
            subtask: 0,
        },
    });
    spec
}

/// A failover restarts the job as it runs (issue 15): a `set_partitioner` waiting for the
/// next resubmission and a new serializer in the config change nothing at a failover, and
/// nothing is refused — a changed job is a resubmission (`tests/engine_resubmission.rs`).
#[test]
fn a_failover_restores_the_job_as_it_runs_whatever_waits_for_a_resubmission() {
    for extra in [UC, &[][..]] {
        let mut spec = topology_change(extra);
        spec.events.push(TimedAction {
            at: d("1500ms"),
            action: Action::SetConfig {
                key: "playground.serializer.version".into(),
                value: "2".into(),
            },
        });
        let mut e = Engine::new(spec).unwrap();
        e.run_to_end();
        assert_eq!(e.status, JobStatus::Running);
        assert!(e.failures[0].restore_error.is_none());
        assert!(e.failures[0].restored_checkpoint.is_some());
        assert_eq!(e.edges[2].partitioner, Partitioner::Rebalance, "unchanged");
        assert_eq!(e.serializer_version, 1, "the running job's serializer");
        let v = e.sink_verdict(3);
        assert!(v.exactly_once && v.duplicates == 0, "{v:?}");
    }
}

/// `recover-without-channel-state.checkpoint-id` drops the restored checkpoint's in-flight
/// data whatever else is true of it, and the dropped records are counted as lost.
#[test]
fn recover_without_channel_state_drops_the_inflight_data_and_counts_it() {
    let mut spec = pipeline(&cfg(UC), None, "2ms", "8s");
    spec.events.push(TimedAction {
        at: d("3s"),
        action: Action::Fail {
            operator: "map".into(),
            subtask: 0,
        },
    });
    let mut e = Engine::new(spec.clone()).unwrap();
    e.run_to_end();
    assert_eq!(e.status, JobStatus::Running);
    let id = e.failures[0].restored_checkpoint.unwrap();
    assert!(e.failures[0].recovered_inflight_records > 0);
    let id_text = id.to_string();
    spec.config
        .set(
            "execution.checkpointing.recover-without-channel-state.checkpoint-id",
            &id_text,
        )
        .unwrap();
    let mut e = Engine::new(spec).unwrap();
    e.run_to_end();
    assert_eq!(e.status, JobStatus::Running);
    let f = &e.failures[0];
    assert_eq!(f.restored_checkpoint, Some(id));
    assert!(
        f.lost_records > 0,
        "the dropped in-flight records are counted"
    );
    let v = e.sink_verdict(3);
    assert!(
        v.lost > 0 && !v.exactly_once,
        "the sink verdict shows the loss: {v:?}"
    );
}

#[test]
fn a_retention_window_loses_records_when_recovery_replays_too_far_back() {
    // Aligned checkpoints under heavy backpressure expire; the failure rewinds far; by the
    // time the source re-reads, the oldest records have left the topic's retention.
    let spec = job(
        "retention",
        "40s",
        &[
            ("execution.checkpointing.interval", "2s"),
            ("execution.checkpointing.timeout", "1s"),
            (
                "execution.checkpointing.tolerable-failed-checkpoints",
                "100",
            ),
            ("restart-strategy.fixed-delay.delay", "1s"),
        ],
        vec![
            {
                let mut s = source("src", 1, 1000.0, None);
                if let OperatorKind::Source(src) = &mut s.kind {
                    src.retention = Some(d("5s"));
                }
                s
            },
            op("map", OperatorKind::Map, 1, "50us"),
            op("count", OperatorKind::KeyedAggregate, 1, "50us"),
            sink("out", 1, "3ms", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "map", Partitioner::Rebalance),
            edge("map", "count", Partitioner::Hash),
            edge("count", "out", Partitioner::Rebalance),
        ],
    );
    let mut s = spec.clone();
    s.events.push(TimedAction {
        at: d("20s"),
        action: Action::Fail {
            operator: "count".into(),
            subtask: 0,
        },
    });
    let mut e = Engine::new(s).unwrap();
    e.run_to_end();
    let r = e.report();
    let lost = e.sink_verdict(3).lost;
    println!(
        "retention: {} expired, sink lost {lost}, failure {:?}",
        e.expired_records, r.failures[0]
    );
    assert!(e.expired_records > 0 && lost > 0);
    assert!(!r.sinks[0].exactly_once);
}

#[test]
fn longer_checkpoint_intervals_replay_more_after_a_failure() {
    let replayed = |interval: &'static str| {
        let spec = pipeline(
            &[
                ("execution.checkpointing.interval", interval),
                ("restart-strategy.fixed-delay.delay", "100ms"),
            ],
            None,
            "100us",
            "10s",
        );
        let e = fail_at(&spec, d("7300ms"), "count", 0);
        e.failures[0].replayed_records
    };
    let (short, long) = (replayed("500ms"), replayed("3s"));
    println!("replayed after a failure: interval 500ms -> {short} records, 3s -> {long}");
    assert!(long > short);
}

#[test]
fn sinks_after_a_failure_two_phase_commit_idempotent_at_least_once() {
    for (delivery, dup_expected) in [
        (SinkDelivery::TwoPhaseCommit, false),
        (SinkDelivery::Idempotent, false),
        (SinkDelivery::AtLeastOnce, true),
    ] {
        let mut spec = pipeline(&cfg(&[]), Some(3000), "1ms", "60s");
        spec.operators[3].kind = OperatorKind::Sink { delivery };
        let e = fail_at(&spec, d("2200ms"), "map", 1);
        assert_eq!(e.status, JobStatus::Finished);
        let v = e.sink_verdict(3);
        assert_eq!(v.lost, 0, "{delivery:?}");
        assert_eq!(
            v.duplicates > 0,
            dup_expected,
            "{delivery:?}: {} duplicates",
            v.duplicates
        );
        let rewrites = e.external[3].as_ref().unwrap().rewrites;
        if delivery == SinkDelivery::Idempotent {
            assert!(
                rewrites > 0,
                "an idempotent sink rewrites the replayed rows"
            );
        }
    }
}

/// A UC job under backpressure that fails at 3s, with the restored checkpoint's id.
fn uc_failure(extra: &[(&'static str, &'static str)]) -> (Engine, u64) {
    let mut c = cfg(UC);
    c.extend_from_slice(extra);
    let spec = pipeline(&c, Some(4000), "2ms", "60s");
    let e = fail_at(&spec, d("3s"), "count", 0);
    let id = e.failures[0]
        .restored_checkpoint
        .expect("restored a checkpoint");
    (e, id)
}

/// Item 8 (`CheckpointCoordinator.extractOperatorStates`): naming the restored checkpoint
/// in `recover-without-channel-state.checkpoint-id` drops its in-flight data even though
/// nothing is wrong with it (no topology or serializer change).
#[test]
fn recover_without_channel_state_drops_inflight_data_whenever_the_id_matches() {
    let (plain, id) = uc_failure(&[]);
    assert!(
        plain.failures[0].recovered_inflight_records > 0,
        "the checkpoint holds in-flight data"
    );
    assert_eq!(plain.failures[0].lost_records, 0);
    let key = "execution.checkpointing.recover-without-channel-state.checkpoint-id";
    let text: &'static str = Box::leak(id.to_string().into_boxed_str());
    let (dropped, same) = uc_failure(&[(key, text)]);
    assert_eq!(same, id);
    assert_eq!(dropped.failures[0].recovered_inflight_records, 0);
    assert!(dropped.failures[0].lost_records > 0, "dropped data is lost");
    assert!(dropped
        .log
        .entries
        .iter()
        .any(|e| e.text.contains("WITHOUT its in-flight data")));
}

/// Items 3 and 10: restoring takes time (state and channel state read back at the
/// storage's throughput, recovered input through bounded buffers); every task is
/// INITIALIZING until its recovered input is consumed, and no checkpoint is triggered
/// meanwhile — the attempts fail before an id is taken and are counted.
#[test]
fn restore_takes_time_and_no_checkpoint_is_triggered_while_initializing() {
    let (fast, _) = uc_failure(&[]);
    let (slow, _) = uc_failure(&[("playground.storage.throughput", "200kb")]);
    let took = |e: &Engine| e.failures[0].recovery_ms.expect("recovered");
    println!(
        "recovery: {} ms at 20 MB/s, {} ms at 200 KB/s",
        took(&fast),
        took(&slow)
    );
    assert!(
        took(&slow) > took(&fast) + 5.0,
        "reading state back at 200 KB/s takes longer"
    );
    for e in [&fast, &slow] {
        let fail = e.failures[0].at_ms;
        let done = fail + took(e);
        // No checkpoint triggered between the failure and the end of recovery.
        assert!(
            !e.coordinator
                .history
                .iter()
                .any(|c| (c.trigger_at as f64 / 1e3) > fail && (c.trigger_at as f64 / 1e3) < done),
            "a checkpoint was triggered while tasks were INITIALIZING"
        );
        assert!(e
            .coordinator
            .history
            .iter()
            .all(|c| c.failure_reason.as_deref() != Some("CHECKPOINT_DECLINED_TASK_NOT_READY")));
    }
    assert!(
        slow.report().trigger_failures > 0,
        "attempts during the slow restore are counted"
    );
}

/// FLIP-547's two options, as `uc_failure`'s job under a slow restore.
const FLIP_547: &[(&str, &str)] = &[
    (
        "execution.checkpointing.unaligned.recover-output-on-downstream.enabled",
        "true",
    ),
    (
        "execution.checkpointing.unaligned.during-recovery.enabled",
        "true",
    ),
];

/// `uc_failure`'s job with every edge all-to-all (so unaligned barriers overtake everywhere
/// and a checkpoint takes milliseconds), failing at 3 s; with the restored checkpoint's id.
fn uc_all_to_all_failure(extra: &[(&'static str, &'static str)]) -> (Engine, JobSpec, u64) {
    let mut c = cfg(UC);
    c.extend_from_slice(extra);
    let mut spec = pipeline(&c, Some(4000), "2ms", "60s");
    spec.edges[0].partitioner = Partitioner::Rebalance;
    let e = fail_at(&spec, d("3s"), "count", 0);
    let id = e.failures[0].restored_checkpoint.expect("restored");
    (e, spec, id)
}

/// During a restore, a task with recovered input is INITIALIZING and holds its gate's new
/// data back, so no checkpoint completes until its recovered input is consumed. With
/// FLIP-547's two options the channel-state reader spills what finds no buffer (§ 4.5),
/// the task is RUNNING once storage is read out, and checkpoints complete while the
/// recovered input is still being consumed — exactly once still.
#[test]
fn flip_547_checkpoints_complete_during_a_long_recovery() {
    let slow = ("playground.storage.throughput", "2mb");
    let (off, _, _) = uc_all_to_all_failure(&[slow]);
    let mut opts = FLIP_547.to_vec();
    opts.push(slow);
    let (on, _, _) = uc_all_to_all_failure(&opts);
    assert_exactly_once(&on, "FLIP-547");
    let (f_off, f_on) = (&off.failures[0], &on.failures[0]);
    println!(
        "without FLIP-547: recovery {:?} ms, input recovered {:?} ms, {} checkpoints during it; \
         with: recovery {:?} ms, input recovered {:?} ms, {} checkpoints during it",
        f_off.recovery_ms,
        f_off.input_recovered_ms,
        f_off.checkpoints_during_recovery,
        f_on.recovery_ms,
        f_on.input_recovered_ms,
        f_on.checkpoints_during_recovery
    );
    assert_eq!(f_off.checkpoints_during_recovery, 0);
    assert_eq!(f_off.recovery_ms, f_off.input_recovered_ms);
    assert!(
        f_on.checkpoints_during_recovery > 0,
        "a checkpoint completes before the recovered input is consumed"
    );
    let (running, consumed) = (
        f_on.recovery_ms.expect("running"),
        f_on.input_recovered_ms.expect("consumed"),
    );
    assert!(
        running + 100.0 < consumed,
        "the tasks run {running} ms after the failure, long before their recovered input is consumed ({consumed} ms)"
    );
    let mut c = cfg(UC);
    c.push((
        "execution.checkpointing.unaligned.during-recovery.enabled",
        "true",
    ));
    let err = Engine::new(pipeline(&c, Some(10), "1ms", "1s")).unwrap_err();
    assert!(
        err.message.contains("recover-output-on-downstream"),
        "{err:?}"
    );
}

/// What FLIP-547 is for: a second failure during a long recovery restores the checkpoint
/// taken during it — holding the recovered input not consumed yet, spilled buffers too —
/// instead of the original one, and the output stays exactly once.
#[test]
fn flip_547_a_second_failure_restores_the_checkpoint_taken_during_recovery() {
    let mut opts = FLIP_547.to_vec();
    opts.push(("playground.storage.throughput", "2mb"));
    let (first, spec, restored) = uc_all_to_all_failure(&opts);
    let f = &first.failures[0];
    let during = first
        .coordinator
        .history
        .iter()
        .find(|c| {
            c.status == CheckpointStatus::Completed
                && (c.trigger_at as f64 / 1e3) > f.at_ms
                && c.completed_at.is_some_and(|t| {
                    (t as f64 / 1e3) < f.at_ms + f.input_recovered_ms.expect("consumed")
                })
        })
        .expect("a checkpoint completed during the recovery")
        .clone();
    let done = during.completed_at.expect("completed");
    let mut spec = spec;
    spec.events.push(TimedAction {
        at: d("3s"),
        action: Action::Fail {
            operator: "count".into(),
            subtask: 0,
        },
    });
    let e = fail_at(&spec, done + 1, "count", 1);
    assert_eq!(e.failures.len(), 2);
    assert_eq!(e.failures[0].restored_checkpoint, Some(restored));
    assert_eq!(
        e.failures[1].restored_checkpoint,
        Some(during.id),
        "the second restore starts from the checkpoint taken during recovery"
    );
    assert!(e.failures[1].recovered_inflight_records > 0);
    assert_exactly_once(&e, "second failure after a checkpoint during recovery");
}
