//! Region failover at run time (issue 13 item 5): with
//! `jobmanager.execution.failover-strategy: region` a subtask's failure cancels, restores and
//! rewinds its pipelined region only, while the other regions keep running and committing;
//! `full` restarts every subtask; a region that is the whole job restarts the whole job.

mod common;
use checkpoint_playground::engine::config::EngineConfig;
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::task::TaskStatus;
use checkpoint_playground::engine::time::Micros;
use checkpoint_playground::engine::{Engine, JobStatus};
use common::*;

const DELAY: &str = "400ms";

fn cfg(strategy: &str, extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, String)> {
    let mut c: Vec<(&'static str, String)> = vec![
        ("execution.checkpointing.interval", "300ms".into()),
        ("restart-strategy.fixed-delay.delay", DELAY.into()),
        ("jobmanager.execution.failover-strategy", strategy.into()),
    ];
    c.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
    c
}

/// source(2) -forward-> map(2) -forward-> sink(2): two regions, {src#0, map#0, sink#0} and
/// {src#1, map#1, sink#1} (chained or not: chaining does not change the regions).
fn forward_job(strategy: &str, extra: &[(&'static str, &'static str)]) -> JobSpec {
    let c = cfg(strategy, extra);
    let c: Vec<(&str, &str)> = c.iter().map(|(k, v)| (*k, v.as_str())).collect();
    job(
        "two regions",
        "20s",
        &c,
        vec![
            source("src", 2, 2000.0, Some(6000)),
            op("map", OperatorKind::Map, 2, "50us"),
            sink("sink", 2, "50us", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "map", Partitioner::Forward),
            edge("map", "sink", Partitioner::Forward),
        ],
    )
}

/// source(2) -rescale-> map(4) -forward-> sink(4): regions {src#0, map#0, map#1, sink#0,
/// sink#1} and {src#1, map#2, map#3, sink#2, sink#3}.
fn rescale_job(strategy: &str) -> JobSpec {
    let c = cfg(
        strategy,
        &[("execution.checkpointing.unaligned.enabled", "true")],
    );
    let c: Vec<(&str, &str)> = c.iter().map(|(k, v)| (*k, v.as_str())).collect();
    job(
        "rescale regions",
        "20s",
        &c,
        vec![
            source("src", 2, 3000.0, Some(6000)),
            op("map", OperatorKind::Map, 4, "300us"),
            sink("sink", 4, "100us", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "map", Partitioner::Rescale),
            edge("map", "sink", Partitioner::Forward),
        ],
    )
}

fn with_failure(spec: &JobSpec, at: Micros, operator: &str, subtask: u32) -> JobSpec {
    let mut s = spec.clone();
    s.events.push(TimedAction {
        at,
        action: Action::Fail {
            operator: operator.into(),
            subtask,
        },
    });
    s
}

/// Records committed (visible) at sink subtask `sub` so far.
fn visible_at(e: &Engine, sub: u32) -> usize {
    e.sink_output()
        .iter()
        .filter(|r| r.sink_subtask == sub)
        .count()
}

fn run_checked(spec: JobSpec) -> Engine {
    let mut e = Engine::new(spec).unwrap();
    while e.step() {
        e.check_invariants().unwrap();
    }
    e
}

fn assert_exactly_once(e: &Engine, what: &str) {
    assert_eq!(e.status, JobStatus::Finished, "{what}: job did not finish");
    e.check_no_leak().unwrap();
    let sink = e.sink_operators()[0];
    let v = e.sink_verdict(sink);
    assert!(
        v.exactly_once,
        "{what}: {} duplicates, {} lost",
        v.duplicates, v.lost
    );
}

#[test]
fn a_failure_restarts_only_its_region_and_the_other_region_keeps_committing() {
    let at = d("1.1s");
    let spec = with_failure(&forward_job("region", &[]), at, "map", 0);
    let mut e = Engine::new(spec.clone()).unwrap();
    e.run_until(at - 1);
    assert!(e.failures.is_empty());
    e.run_until(at + 1);
    assert_eq!(e.failures.len(), 1);
    let f = &e.failures[0];
    assert_eq!(f.restarted_subtasks, vec!["src#0", "map#0", "sink#0"]);
    assert_eq!(f.restart_delay_ms, Some(400.0));
    // The job stays RUNNING: the failed region is cancelled, the other one runs on.
    assert_eq!(e.status, JobStatus::Running);
    for t in &e.tasks {
        let expected = if t.index == 0 {
            TaskStatus::Canceled
        } else {
            TaskStatus::Running
        };
        assert_eq!(t.status, expected, "{}", t.name);
    }
    // Through the restart delay the other region's sink commits more (checkpoints cannot
    // complete meanwhile, but the ones completed before the failure were committed as the
    // notifications arrived; its sink output grows again once a checkpoint completes after
    // the region is back).
    let other_before = visible_at(&e, 1);
    let failed_before = visible_at(&e, 0);
    let src1 = e.operators[0].tasks[1];
    let emitted_before = e.tasks[src1].metrics.records_out;
    e.run_until(at + d("390ms"));
    assert!(
        e.tasks[src1].metrics.records_out > emitted_before + 500,
        "the other region's source kept emitting during the restart delay"
    );
    assert_eq!(
        visible_at(&e, 0),
        failed_before,
        "the failed region commits nothing while cancelled"
    );
    e.run_until(at + d("3s"));
    assert!(
        visible_at(&e, 1) > other_before,
        "the other region's sink output keeps growing: {} -> {}",
        other_before,
        visible_at(&e, 1)
    );
    let f = &e.failures[0];
    assert!(
        f.restored_checkpoint.is_some(),
        "restored from a checkpoint"
    );
    assert!(f.recovery_ms.is_some_and(|ms| ms >= 400.0));
    assert!(f.replayed_records > 0, "its source rewound");
    while e.step() {
        e.check_invariants().unwrap();
    }
    assert_exactly_once(&e, "region");
    // Deterministic.
    let again = run_checked(spec);
    assert_eq!(again.event_hash(), e.event_hash());
    assert_eq!(again.report().failures, e.report().failures);
}

#[test]
fn full_restarts_every_subtask_and_stops_the_other_region_too() {
    let at = d("1.1s");
    let spec = with_failure(&forward_job("full", &[]), at, "map", 0);
    let mut e = Engine::new(spec).unwrap();
    e.run_until(at + 1);
    let f = &e.failures[0];
    assert_eq!(
        f.restarted_subtasks,
        vec!["src#0", "src#1", "map#0", "map#1", "sink#0", "sink#1"]
    );
    assert_eq!(e.status, JobStatus::Restarting);
    let src1 = e.operators[0].tasks[1];
    let emitted = e.tasks[src1].metrics.records_out;
    e.run_until(at + d("390ms"));
    assert_eq!(
        e.tasks[src1].metrics.records_out, emitted,
        "with `full` the other region is cancelled too"
    );
    while e.step() {
        e.check_invariants().unwrap();
    }
    assert_exactly_once(&e, "full");
}

#[test]
fn the_region_strategy_rewinds_less_than_full() {
    let at = d("1.1s");
    let region = run_checked(with_failure(&forward_job("region", &[]), at, "src", 1));
    let full = run_checked(with_failure(&forward_job("full", &[]), at, "src", 1));
    assert_exactly_once(&region, "region");
    assert_exactly_once(&full, "full");
    // Only one source rewound with `region`; both with `full`.
    assert!(
        region.failures[0].replayed_records < full.failures[0].replayed_records,
        "region replayed {}, full {}",
        region.failures[0].replayed_records,
        full.failures[0].replayed_records
    );
}

#[test]
fn rescale_regions_restart_their_slices_with_unaligned_channel_state() {
    let at = d("1.3s");
    let spec = with_failure(&rescale_job("region"), at, "sink", 3);
    let e = run_checked(spec.clone());
    let f = &e.failures[0];
    assert_eq!(
        f.restarted_subtasks,
        vec!["src#1", "map#2", "map#3", "sink#2", "sink#3"]
    );
    assert_exactly_once(&e, "rescale region");
    let again = run_checked(spec);
    assert_eq!(again.event_hash(), e.event_hash());
}

#[test]
fn two_regions_failing_at_once_restart_independently() {
    let spec = with_failure(
        &with_failure(&forward_job("region", &[]), d("1.1s"), "map", 0),
        d("1.2s"),
        "sink",
        1,
    );
    let e = run_checked(spec);
    assert_eq!(e.failures.len(), 2);
    assert_eq!(
        e.failures[0].restarted_subtasks,
        vec!["src#0", "map#0", "sink#0"]
    );
    assert_eq!(
        e.failures[1].restarted_subtasks,
        vec!["src#1", "map#1", "sink#1"]
    );
    assert!(e.failures.iter().all(|f| f.recovery_ms.is_some()));
    assert_exactly_once(&e, "two regions");
}

#[test]
fn a_second_failure_inside_a_cancelled_region_is_not_another_failover() {
    let spec = with_failure(
        &with_failure(&forward_job("region", &[]), d("1.1s"), "map", 0),
        d("1.2s"),
        "sink",
        0,
    );
    let e = run_checked(spec);
    assert_eq!(e.failures.len(), 1, "sink#0 was already cancelled");
    assert_exactly_once(&e, "second failure in the region");
}

#[test]
fn an_all_to_all_job_is_one_region_and_restarts_whole() {
    let c = cfg("region", &[]);
    let c: Vec<(&str, &str)> = c.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let spec = job(
        "one region",
        "20s",
        &c,
        vec![
            source("src", 2, 2000.0, Some(4000)),
            op("count", OperatorKind::KeyedAggregate, 2, "50us"),
            sink("sink", 2, "50us", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "count", Partitioner::Hash),
            edge("count", "sink", Partitioner::Forward),
        ],
    );
    let e = run_checked(with_failure(&spec, d("1.1s"), "src", 0));
    assert_eq!(e.failures[0].restarted_subtasks.len(), 6);
    assert_exactly_once(&e, "one region");
}

#[test]
fn state_of_a_restarted_region_equals_the_failure_free_run() {
    // Keyed state needs a keyed input (a hash edge: all-to-all, which joins a streaming job
    // into one region), so the slices of a pointwise job hold operator state only: the
    // sources' offsets and the sinks' transactions, rewound with the region.
    let c = cfg("region", &[]);
    let c: Vec<(&str, &str)> = c.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let spec = job(
        "keyed slices",
        "20s",
        &c,
        vec![
            source("src", 2, 2000.0, Some(4000)),
            op("count", OperatorKind::Map, 2, "80us"),
            sink("sink", 2, "50us", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "count", Partitioner::Forward),
            edge("count", "sink", Partitioner::Forward),
        ],
    );
    let clean = run_checked(spec.clone());
    let failed = run_checked(with_failure(&spec, d("1.2s"), "count", 1));
    assert_eq!(failed.failures[0].restarted_subtasks.len(), 3);
    assert_exactly_once(&failed, "keyed slices");
    let states = |e: &Engine| -> Vec<String> {
        e.tasks
            .iter()
            .map(|t| {
                format!(
                    "{}: {:?}",
                    t.name,
                    t.chain.ops.iter().map(|o| &o.state).collect::<Vec<_>>()
                )
            })
            .collect()
    };
    assert_eq!(states(&failed), states(&clean));
}

#[test]
fn a_version_1_document_still_restarts_the_whole_job() {
    assert!(EngineConfig::version_1().failover_full);
    assert!(!EngineConfig::default().failover_full);
}
