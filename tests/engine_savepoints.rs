//! Savepoints and stop-with-savepoint (issue 15, item 1), on the `unaligned` preset (a
//! backpressured sink from 20 s, unaligned checkpoints every 2 s): a savepoint is aligned
//! whatever the checkpointing mode (Flink's `CheckpointOptions.forConfig`), so under
//! backpressure it takes as long as an aligned checkpoint while the unaligned ones around it
//! stay short; it is not a checkpoint a failover restores; stop-with-savepoint (with and
//! without `--drain`) stops the sources, takes a synchronous savepoint and ends the job
//! FINISHED with every sink's committed output final and exactly once.

use checkpoint_playground::engine::report::{CheckpointReport, Report};
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;
use serde_json::{json, Value};

/// A preset with events appended (and the guide dropped, its promises are not these).
fn preset_with(name: &str, events: Value) -> Engine {
    let doc = scenario::preset(name).unwrap();
    let mut v: Value = serde_json::from_str(&scenario::to_json_pretty(&doc)).unwrap();
    v.as_object_mut().unwrap().remove("guide");
    for e in events.as_array().unwrap() {
        v["events"].as_array_mut().unwrap().push(e.clone());
    }
    let doc = scenario::parse_json(&v.to_string()).unwrap();
    Engine::new(scenario::to_spec(&doc).unwrap()).unwrap()
}

fn run(name: &str, events: Value) -> (Engine, Report) {
    let mut e = preset_with(name, events);
    e.run_to_end();
    let r = e.report();
    (e, r)
}

fn of_type<'a>(r: &'a Report, t: &str) -> Vec<&'a CheckpointReport> {
    r.checkpoints
        .iter()
        .filter(|c| c.checkpoint_type == t)
        .collect()
}

#[test]
fn a_savepoint_is_aligned_under_unaligned_config_and_slower_than_the_uc_around_it() {
    let (e, r) = run("unaligned", json!([{"at": "30s", "savepoint": {}}]));
    let sp = of_type(&r, "SAVEPOINT");
    assert_eq!(sp.len(), 1, "one savepoint");
    let sp = sp[0];
    assert_eq!(sp.status, "completed");
    assert!(sp.is_savepoint);
    assert!(!sp.unaligned, "a savepoint never persists in-flight data");
    assert_eq!(sp.persisted_inflight_bytes, 0);
    assert!(sp.subtasks.iter().all(|s| !s.unaligned));
    assert!(
        sp.alignment_ms > 100.0,
        "it aligns under backpressure: {} ms",
        sp.alignment_ms
    );
    let path = sp.external_path.as_deref().unwrap();
    assert!(
        path.starts_with("file:/flink/savepoints/savepoint-"),
        "{path}"
    );
    // The unaligned checkpoints just before and after it (the sink is slow from 20 s).
    let near: Vec<f64> = r
        .checkpoints
        .iter()
        .filter(|c| {
            c.checkpoint_type == "UNALIGNED_CHECKPOINT"
                && c.trigger_ms > 22_000.0
                && c.status == "completed"
        })
        .map(|c| c.end_to_end_ms.unwrap())
        .collect();
    assert!(near.len() >= 5, "{near:?}");
    let uc_max = near.iter().cloned().fold(0.0, f64::max);
    let sp_ms = sp.end_to_end_ms.unwrap();
    println!("savepoint {sp_ms} ms; unaligned checkpoints after 22 s at most {uc_max} ms");
    assert!(
        sp_ms > 10.0 * uc_max,
        "savepoint {sp_ms} ms vs unaligned checkpoints ≤ {uc_max} ms"
    );
    // Not in the completed-checkpoint store: a failover restores the latest checkpoint.
    assert_ne!(e.coordinator.latest.as_ref().map(|l| l.id), Some(sp.id));
    assert_eq!(e.coordinator.savepoints.len(), 1);
    assert_eq!(e.coordinator.savepoints[0].id, sp.id);
    assert_eq!(r.job_status, "RUNNING", "a savepoint does not stop the job");
}

#[test]
fn a_savepoint_ignores_the_aligned_checkpoint_timeout() {
    let (_, r) = run("aligned-timeout", json!([{"at": "30s", "savepoint": {}}]));
    let sp = of_type(&r, "SAVEPOINT");
    assert_eq!(sp.len(), 1);
    assert_eq!(sp[0].status, "completed");
    assert!(!sp[0].timed_out_to_unaligned);
    assert_eq!(sp[0].persisted_inflight_bytes, 0);
    // The checkpoints of that preset do time out to unaligned under the same backpressure.
    assert!(r.checkpoints.iter().any(|c| c.timed_out_to_unaligned));
}

fn assert_stopped(r: &Report, drain: bool) {
    assert_eq!(r.job_status, "FINISHED");
    assert!(r.finished);
    let stop = r.stop_with_savepoint.as_ref().expect("a stop");
    assert_eq!(stop.drain, drain);
    assert_eq!(stop.status, "finished", "{stop:?}");
    let id = stop.savepoint_id.unwrap();
    let last = r.checkpoints.last().unwrap();
    assert_eq!(last.id, id, "nothing after the synchronous savepoint");
    assert_eq!(last.checkpoint_type, "SYNC_SAVEPOINT");
    assert_eq!(last.status, "completed");
    assert!(!last.unaligned);
    assert_eq!(stop.savepoint_path, last.external_path);
    for s in &r.sinks {
        assert!(s.exactly_once, "{s:?}");
        assert_eq!(s.pending_records, 0, "the committed output is final");
        assert_eq!((s.duplicates, s.lost), (0, 0));
        assert!(s.committed_records > 100_000, "{s:?}");
    }
}

#[test]
fn stop_with_savepoint_finishes_the_job_exactly_once() {
    let (e, r) = run(
        "unaligned",
        json!([{"at": "40s", "stop_with_savepoint": {"drain": false}}]),
    );
    assert_stopped(&r, false);
    // Every source subtask stopped at the offset its savepoint holds, and every record
    // up to it is committed once.
    assert_eq!(e.lifecycle.stopped_sources.len(), 4);
    let stopped: u64 = e.lifecycle.stopped_sources.values().sum();
    assert!(stopped > 30_000, "{stopped}");
    let text: Vec<String> = e.log.entries.iter().map(|l| l.text.clone()).collect();
    assert!(text.iter().any(|t| t.contains("suspended (no drain)")));
    assert!(text
        .iter()
        .any(|t| t.contains("job FINISHED by stop-with-savepoint: savepoint")));
}

#[test]
fn stop_with_savepoint_and_drain_finishes_the_job_exactly_once() {
    let (e, r) = run(
        "unaligned",
        json!([{"at": "40s", "stop_with_savepoint": {"drain": true}}]),
    );
    assert_stopped(&r, true);
    let text: Vec<String> = e.log.entries.iter().map(|l| l.text.clone()).collect();
    assert!(text
        .iter()
        .any(|t| t.contains("drained (MAX_WATERMARK, end of input)")));
}

#[test]
fn stop_aborts_the_pending_checkpoint_with_coordinator_suspend() {
    // Checkpoint 21 is triggered at 39.83 s and takes about 30 ms.
    let (_, r) = run(
        "unaligned",
        json!([{"at": "39840ms", "stop_with_savepoint": {}}]),
    );
    assert!(
        r.checkpoints.iter().any(|c| c.status == "aborted"
            && c.failure_reason.as_deref() == Some("CHECKPOINT_COORDINATOR_SUSPEND")),
        "{:?}",
        r.checkpoints
            .iter()
            .map(|c| (c.id, &c.status, &c.failure_reason))
            .collect::<Vec<_>>()
    );
    assert_stopped(&r, false);
}

#[test]
fn a_failover_during_stop_fails_the_stop_and_the_job_runs_on() {
    let (_, r) = run(
        "unaligned",
        json!([
            {"at": "40s", "stop_with_savepoint": {}},
            {"at": "40200ms", "fail": {"operator": "count", "subtask": 0}}
        ]),
    );
    let stop = r.stop_with_savepoint.as_ref().unwrap();
    assert_eq!(stop.status, "failed", "{stop:?}");
    assert_eq!(r.job_status, "RUNNING");
    // Checkpointing resumed after the restart.
    assert!(r
        .checkpoints
        .iter()
        .any(|c| c.trigger_ms > 42_000.0 && c.status == "completed"));
    assert!(r.sinks.iter().all(|s| s.duplicates == 0));
}

#[test]
fn a_second_stop_while_one_is_in_progress_is_refused() {
    let (e, r) = run(
        "unaligned",
        json!([
            {"at": "40s", "stop_with_savepoint": {}},
            {"at": "40100ms", "stop_with_savepoint": {"drain": true}}
        ]),
    );
    assert_stopped(&r, false);
    assert!(e.log.entries.iter().any(|l| l
        .text
        .contains("a stop-with-savepoint is already in progress")));
}
