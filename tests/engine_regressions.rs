//! Regressions: scenarios that once broke a guarantee, kept as fixtures
//! (`tests/fixtures/*.json`, scenario documents as the CLI and the playground read them).
//! Each test names the issue and says what went wrong.

mod common;
use checkpoint_playground::engine::network::Item;
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::task::TaskStatus;
use checkpoint_playground::engine::{Engine, JobStatus};
use checkpoint_playground::scenario;
use common::*;

fn fixture(name: &str) -> Engine {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc = scenario::parse_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    let spec = scenario::to_spec(&doc).unwrap_or_else(|e| panic!("{path}: {e}"));
    Engine::new(spec).unwrap()
}

/// Issue 20 (property seed 2381): under unaligned checkpoints a source that reached the end
/// of its input finished as soon as its final checkpoint completed, while the barrier of
/// that checkpoint had overtaken output still queued in its subpartitions. The checkpoints
/// after it held the finished source's state but not that output, so restoring one of them
/// (after `m2#0` failed at 2.14 s) lost 376 records, and the failure said "lost 0".
/// In the seed's job `m1` and `m2` were keyed aggregates fed by broadcast and rebalance
/// edges, which a job can no longer have (keyed state needs a hash input); the fixture runs
/// them as maps, and without the fix (`maybe_finish` not waiting for the output to be
/// processed) it still loses 296 records.
#[test]
fn issue_20_unaligned_restore_after_a_source_finished_loses_nothing() {
    let mut e = fixture("issue20-uc-loss-seed2381.json");
    while e.step() {
        e.check_invariants().unwrap();
    }
    let r = e.report();
    assert_eq!(e.status, JobStatus::Finished, "{:?}", r.failures);
    assert_eq!(r.failures.len(), 1);
    assert!(
        r.failures[0].restored_checkpoint.is_some(),
        "{:?}",
        r.failures
    );
    for s in &r.sinks {
        assert!(
            s.exactly_once,
            "sink {}: {} committed, {} duplicates, {} lost; failures {:?}",
            s.operator, s.committed_records, s.duplicates, s.lost, r.failures
        );
    }
    e.check_no_leak().unwrap();
}

/// A bounded source with a slow two-phase-commit sink under unaligned checkpoints: the
/// source reaches its end long before the sink has read its output.
fn finishing_job() -> JobSpec {
    let mut s = source("src", 1, 20_000.0, Some(300));
    if let OperatorKind::Source(src) = &mut s.kind {
        src.record_size = 900;
    }
    job(
        "finishing",
        "30s",
        &[
            ("execution.checkpointing.interval", "100ms"),
            ("execution.checkpointing.unaligned.enabled", "true"),
            ("restart-strategy.fixed-delay.delay", "50ms"),
        ],
        vec![s, sink("out", 1, "3ms", SinkDelivery::TwoPhaseCommit)],
        vec![edge("src", "out", Partitioner::Rebalance)],
    )
}

/// Data buffers of task `t`'s output not yet read by its consumers.
fn unread_output(e: &Engine, t: usize) -> usize {
    let mut n = 0;
    for &p in &e.tasks[t].partitions {
        for &c in &e.partitions[p].channels {
            let ch = &e.channels[c];
            n += ch.queue.iter().filter(|i| i.is_data()).count()
                + ch.in_flight_data as usize
                + ch.received
                    .iter()
                    .filter(|i| matches!(i, Item::Data(_)))
                    .count();
        }
    }
    n
}

/// Shaped like Flink's `StreamTaskFinalCheckpointsTest.testWaitingForFinalCheckpoint`: a
/// task at end of input finishes only after its final checkpoint completed AND its
/// consumers processed all its records (`ResultPartition.getAllDataProcessedFuture`).
/// Here the final checkpoint's unaligned barrier overtakes the queued output and completes
/// while that output is still unread: the source must stay FINISHING until it is read.
#[test]
fn waiting_for_final_checkpoint_and_for_all_records_processed() {
    let mut e = Engine::new(finishing_job()).unwrap();
    let src = 0;
    let mut waited_with_unread_output = false;
    while e.step() {
        e.check_invariants().unwrap();
        let t = &e.tasks[src];
        if t.status == TaskStatus::Finishing && t.final_checkpoint_completed {
            waited_with_unread_output |= unread_output(&e, src) > 0;
        }
        if t.status == TaskStatus::Finished {
            assert_eq!(
                unread_output(&e, src),
                0,
                "at {}us the source finished with output its consumer had not read",
                e.now
            );
        }
    }
    assert!(
        waited_with_unread_output,
        "the final checkpoint completed only after the output was read: the case is not exercised"
    );
    assert_eq!(e.status, JobStatus::Finished);
    assert!(e.sink_verdict(1).exactly_once, "{:?}", e.sink_verdict(1));
    e.check_no_leak().unwrap();
}

/// The same job failed after the source's final checkpoint completed, while its output is
/// still queued: the checkpoint restored must still hold that output.
#[test]
fn a_failure_after_a_sources_final_checkpoint_loses_nothing() {
    let spec = finishing_job();
    let mut probe = Engine::new(spec.clone()).unwrap();
    let mut at = None;
    let mut completed_after = 0;
    while probe.step() {
        let t = &probe.tasks[0];
        if t.status == TaskStatus::Finishing && t.final_checkpoint_completed {
            let done = probe
                .coordinator
                .history
                .iter()
                .filter(|c| c.completed_at.is_some())
                .count();
            if completed_after == 0 {
                completed_after = done;
            }
            // One more checkpoint completed after the final one: restore that one.
            if done > completed_after && unread_output(&probe, 0) > 0 {
                at = Some(probe.now + 1);
                break;
            }
        }
    }
    let at = at.expect("a checkpoint completed after the final one with output unread");
    let mut s = spec;
    s.events.push(TimedAction {
        at,
        action: Action::Fail {
            operator: "out".into(),
            subtask: 0,
        },
    });
    let mut e = Engine::new(s).unwrap();
    while e.step() {
        e.check_invariants().unwrap();
    }
    assert_eq!(e.status, JobStatus::Finished);
    assert!(e.failures[0].restored_checkpoint.is_some());
    let v = e.sink_verdict(1);
    assert!(v.exactly_once, "{v:?}; failure {:?}", e.failures[0]);
}

/// A forced-aligned barrier is not timeout-capable, so it registers no alignment timer
/// (`SingleCheckpointBarrierHandler.checkNewCheckpoint` checks `isTimeoutable()`): a task
/// with a pointwise or broadcast input aligns however long it takes and never captures the
/// in-flight input of those channels, though its own outputs may turn unaligned
/// (`SubtaskCheckpointCoordinatorImpl.checkpointState` reverts `FORCED_ALIGNED`). In the
/// issue-20 job `m1` (broadcast + hash inputs) and `sink` (rescale inputs) are such tasks;
/// the sink used to switch its input to unaligned when its alignment outlasted the timeout.
#[test]
fn issue_20_forced_aligned_inputs_never_time_out_to_unaligned() {
    let mut e = fixture("issue20-uc-loss-seed2381.json");
    e.run_to_end();
    // The input side switches with "unaligned barrier at <task>"; the output side with
    // "aligned-checkpoint timeout at <task>'s output".
    let count = |what: &str| {
        e.log
            .entries
            .iter()
            .filter(|l| l.text.contains(what))
            .count()
    };
    assert_eq!(count("unaligned barrier at sink#"), 0);
    assert_eq!(count("unaligned barrier at m1#"), 0);
    assert!(
        count("timeout at m1#") > 0,
        "m1's outputs still time out to unaligned"
    );
    assert!(
        count("unaligned barrier at m2#") > 0,
        "and m2's inputs with them"
    );
}

/// `--require-exactly-once` exits 0 when every sink kept its guarantee and 3, naming the
/// sink and the failure that lost the records, when one did not (here records expired from
/// a source's retention after a failure rewound it).
#[test]
fn the_runner_requires_exactly_once_on_request() {
    let bin = env!("CARGO_BIN_EXE_checkpoint-playground");
    let fixture = format!(
        "{}/tests/fixtures/issue20-uc-loss-seed2381.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let ok = std::process::Command::new(bin)
        .args(["run", &fixture, "--require-exactly-once"])
        .output()
        .unwrap();
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let bad = std::process::Command::new(bin)
        .args(["run", "--preset", "why-uc", "--require-exactly-once"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with("exactly-once required: sink out ")
            && stderr.contains("by the failure of count#0"),
        "{stderr}"
    );
    let without = std::process::Command::new(bin)
        .args(["run", "--preset", "why-uc"])
        .output()
        .unwrap();
    assert_eq!(without.status.code(), Some(0));
}

/// The failures' `lost` and the sinks' verdicts add up: records dropped with a restore's
/// channel state (`recover-without-channel-state`, after a serializer change) are booked to
/// that failure, in sink records, and nothing is left unattributed.
#[test]
fn each_failures_lost_count_adds_up_to_the_sink_verdict() {
    let mut spec = pipeline(
        &[
            ("execution.checkpointing.interval", "500ms"),
            ("execution.checkpointing.unaligned.enabled", "true"),
            ("restart-strategy.fixed-delay.delay", "100ms"),
        ],
        None,
        "2ms",
        "8s",
    );
    // A new serializer after 1.5 s makes the in-flight data unreadable at the restore.
    spec.events.push(TimedAction {
        at: d("1500ms"),
        action: Action::SetConfig {
            key: "playground.serializer.version".into(),
            value: "2".into(),
        },
    });
    spec.events.push(TimedAction {
        at: d("3s"),
        action: Action::Fail {
            operator: "map".into(),
            subtask: 0,
        },
    });
    let mut probe = Engine::new(spec.clone()).unwrap();
    probe.run_to_end();
    let id = probe.failures[0]
        .restored_checkpoint
        .expect("restored a checkpoint");
    spec.config
        .set(
            "execution.checkpointing.recover-without-channel-state.checkpoint-id",
            &id.to_string(),
        )
        .unwrap();
    let mut e = Engine::new(spec).unwrap();
    e.run_to_end();
    let r = e.report();
    let lost: u64 = r.sinks.iter().map(|s| s.lost).sum();
    let booked: u64 = r.failures.iter().map(|f| f.lost_records).sum();
    assert!(lost > 0, "the dropped in-flight data is lost");
    assert_eq!(booked, lost, "{:?} vs {:?}", r.failures, r.sinks);
    assert_eq!(r.sinks[0].unattributed_lost, 0);
    let broken = e.broken_guarantees();
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(
        broken[0].contains(&format!("{lost} by the failure of map#0")),
        "{broken:?}"
    );
}
