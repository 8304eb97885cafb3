//! Operator chaining at run time (issue 13 item 1): a chain of the physical plan (a Flink
//! `JobVertex`) is one task per subtask — one mailbox, one barrier handler, the head's
//! input gates and the chain's non-chained outputs, records handed on by method call (no
//! channel between chained operators), the chain's cost the sum of its operators', one
//! snapshot with each operator's state and a restore that gives each its own back.

mod common;

use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::task::OpState;
use checkpoint_playground::engine::Engine;
use common::*;
use std::collections::BTreeMap;

const CHAINING_ON: (&str, &str) = ("pipeline.operator-chaining.enabled", "true");

/// src(2) -forward-> explode(2, x3) -hash-> count(2) -forward-> out(2, 2PC), bounded.
fn chained_job(extra: &[(&str, &str)], failure: bool) -> JobSpec {
    let mut config = vec![("execution.checkpointing.interval", "200ms")];
    config.extend_from_slice(extra);
    let mut spec = job(
        "chained",
        "60s",
        &config,
        vec![
            source("src", 2, 2000.0, Some(3000)),
            op("explode", OperatorKind::FlatMap { fan_out: 3 }, 2, "20us"),
            op("count", OperatorKind::KeyedAggregate, 2, "50us"),
            sink("out", 2, "30us", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "explode", Partitioner::Forward),
            edge("explode", "count", Partitioner::Hash),
            edge("count", "out", Partitioner::Forward),
        ],
    );
    if failure {
        spec.events.push(TimedAction {
            at: d("900ms"),
            action: Action::Fail {
                operator: "count".into(),
                subtask: 1,
            },
        });
    }
    spec
}

fn run(spec: JobSpec) -> Engine {
    let mut e = Engine::new(spec).unwrap();
    e.run_to_end();
    e
}

#[test]
fn a_chained_forward_job_has_fewer_tasks_and_no_channel_between_chained_operators() {
    let off = Engine::new(chained_job(&[], false)).unwrap();
    let on = Engine::new(chained_job(&[CHAINING_ON], false)).unwrap();
    assert_eq!(
        off.tasks.len(),
        8,
        "version-1 config: every operator its own task"
    );
    assert_eq!(on.tasks.len(), 4, "two chains of parallelism 2");
    // Only the hash edge (edge 1) has channels: 2 × 2.
    assert_eq!(on.channels.len(), 4);
    assert!(on.channels.iter().all(|c| c.edge == 1));
    assert!(off.channels.iter().any(|c| c.edge == 0));
    // A chain's operators share its tasks.
    assert_eq!(on.operators[0].tasks, on.operators[1].tasks);
    assert_eq!(on.operators[2].tasks, on.operators[3].tasks);
    let head = &on.tasks[on.operators[2].tasks[1]];
    let ops: Vec<usize> = head.chain.ops.iter().map(|o| o.operator).collect();
    assert_eq!(ops, vec![2, 3]);
    assert_eq!(
        head.inputs.len(),
        2,
        "the head's input gate: one channel per producer"
    );
    assert!(
        head.partitions.is_empty(),
        "a sink chained at the end has no output"
    );
    let src = &on.tasks[on.operators[0].tasks[0]];
    assert_eq!(
        src.partitions.len(),
        1,
        "explode's hash output is the chain's partition"
    );
}

#[test]
fn vertices_and_subtasks_carry_flink_names() {
    let mut e = Engine::new(chained_job(&[CHAINING_ON], false)).unwrap();
    let names: Vec<&str> = e.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "Source: src -> explode (1/2)",
            "Source: src -> explode (2/2)",
            "count -> out: Writer -> out: Committer (1/2)",
            "count -> out: Writer -> out: Committer (2/2)",
        ]
    );
    e.run_until(d("1s"));
    let report = e.report();
    let cp = report
        .checkpoints
        .iter()
        .find(|c| c.status == "completed")
        .expect("a completed checkpoint by 1 s");
    assert_eq!(
        cp.total_subtasks, 4,
        "one acknowledgement per chain subtask"
    );
    assert_eq!(cp.subtasks[0].vertex, "Source: src -> explode");
    assert_eq!(cp.subtasks[0].operator, "src");
    assert_eq!(cp.subtasks[2].chained_operators, vec!["count", "out"]);
    // Per-operator figures stay per operator; their vertex is named.
    let explode = &report.operators[1];
    assert_eq!(explode.vertex, "Source: src -> explode");
    assert_eq!(explode.records_out, 3 * explode.records_in);
    assert_eq!(report.operators[0].records_out, explode.records_in);
    // Version-1 runs keep their names.
    let v1 = Engine::new(chained_job(&[], false)).unwrap();
    assert_eq!(v1.tasks[0].name, "src#0");
}

/// A chain is busy per input record for the sum of its operators' costs over what each
/// processed: one source record costs src + explode + 3 × (map), with no checkpointing
/// (nothing else runs in the mailbox) and a source too slow to backpressure.
#[test]
fn a_chains_cost_is_the_sum_of_its_operators_costs() {
    let spec = job(
        "cost",
        "10s",
        &[CHAINING_ON],
        vec![
            source("src", 1, 100.0, Some(200)),
            op("explode", OperatorKind::FlatMap { fan_out: 3 }, 1, "1ms"),
            op("map", OperatorKind::Map, 1, "500us"),
            sink("out", 1, "0us", SinkDelivery::AtLeastOnce),
        ],
        vec![
            edge("src", "explode", Partitioner::Forward),
            edge("explode", "map", Partitioner::Forward),
            edge("map", "out", Partitioner::Rebalance),
        ],
    );
    let mut spec = spec;
    spec.operators[0].cost = d("200us");
    let e = run(spec);
    assert_eq!(e.tasks.len(), 2);
    let chain = &e.tasks[0];
    assert_eq!(chain.name, "Source: src -> explode -> map (1/1)");
    assert_eq!(chain.metrics.busy, 200 * (200 + 1000 + 3 * 500));
    assert_eq!(chain.metrics.records_out, 600);
}

/// src(2) -hash-> count(2) -forward-> norm(2) -forward-> out(2, 2PC): one chain
/// `count -> norm -> out` holds keyed state at its head and the sink's transactions at its
/// tail. (Keyed state needs a hash input, which never chains, so a keyed aggregate always
/// heads its chain; `DataStreamUtils.reinterpretAsKeyedStream` is not modelled.)
fn tail_state_job(extra: &[(&str, &str)]) -> JobSpec {
    let mut config = vec![("execution.checkpointing.interval", "200ms")];
    config.extend_from_slice(extra);
    let mut spec = job(
        "tail state",
        "60s",
        &config,
        vec![
            source("src", 2, 2000.0, Some(3000)),
            op("norm", OperatorKind::Map, 2, "20us"),
            op("count", OperatorKind::KeyedAggregate, 2, "50us"),
            sink("out", 2, "30us", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "count", Partitioner::Hash),
            edge("count", "norm", Partitioner::Forward),
            edge("norm", "out", Partitioner::Forward),
        ],
    );
    spec.events.push(TimedAction {
        at: d("900ms"),
        action: Action::Fail {
            operator: "count".into(),
            subtask: 1,
        },
    });
    spec
}

/// Sink outputs and keyed state of one job are the same with chaining on and off, under a
/// failure of a chained subtask: exactly-once holds, every lineage is committed once, each
/// key's final sum (the aggregate's state, restored per operator of a chain, the sink's
/// transactions at a chain's tail) is equal.
#[test]
fn exactly_once_and_keyed_state_equal_the_unchained_run_under_a_failure() {
    for (on, off, expected) in [
        (
            run(chained_job(&[CHAINING_ON], true)),
            run(chained_job(&[], true)),
            2 * 3000 * 3,
        ),
        (
            run(tail_state_job(&[CHAINING_ON])),
            run(tail_state_job(&[])),
            2 * 3000,
        ),
    ] {
        same_outputs_and_state(&on, &off, expected);
    }
}

fn same_outputs_and_state(on: &Engine, off: &Engine, expected: usize) {
    assert!(on.tasks.len() < off.tasks.len());
    for e in [on, off] {
        let r = e.report();
        assert!(r.finished, "{}", r.job_status);
        assert_eq!(r.failures.len(), 1);
        assert!(r.failures[0].restored_checkpoint.is_some());
        assert!(r.sinks.iter().all(|s| s.exactly_once), "{:?}", r.sinks);
    }
    let lineages = |e: &Engine| {
        let mut l: Vec<_> = e.sink_output().into_iter().map(|r| r.lineage).collect();
        l.sort();
        l
    };
    assert_eq!(lineages(on), lineages(off));
    assert_eq!(lineages(on).len(), expected);
    let sums = |e: &Engine| {
        let mut all = BTreeMap::new();
        for &t in &e.operators[2].tasks {
            let Some(OpState::Keyed(m)) = e.tasks[t].chain.state_of(2) else {
                panic!("count's keyed state")
            };
            all.extend(m.clone());
        }
        all
    };
    assert_eq!(sums(on), sums(off));
    assert!(!sums(on).is_empty());
    // The restore gave each chained operator its own state: the failed chain's source
    // rewound to an offset, its aggregate got its sums back (a non-empty snapshot).
    let restored = on.report().failures[0].restored_checkpoint.unwrap();
    assert!(restored > 0);
}

#[test]
fn disable_chaining_and_start_new_chain_split_the_chain() {
    for strategy in [ChainingStrategy::Never, ChainingStrategy::Head] {
        let mut spec = chained_job(&[CHAINING_ON], false);
        spec.operators[1].chaining.strategy = strategy;
        let e = Engine::new(spec).unwrap();
        assert_eq!(e.tasks.len(), 6, "{strategy:?}");
        assert!(e.channels.iter().any(|c| c.edge == 0), "{strategy:?}");
        assert_eq!(e.tasks[0].name, "Source: src (1/2)");
        assert_eq!(e.tasks[2].name, "explode (1/2)");
        let r = run(chained_job(&[CHAINING_ON], false));
        assert!(r.report().sinks.iter().all(|s| s.exactly_once));
    }
}

/// A topology change that turns the chained forward edge into a rebalance splits the chain
/// in the job it is resubmitted as (issue 15: a failover restarts the same job, a changed
/// job is a resubmission), and the job stays exactly-once across it.
#[test]
fn a_topology_change_at_resubmission_splits_the_chain() {
    use checkpoint_playground::engine::resubmission::{EdgeChange, Resubmit};
    use checkpoint_playground::engine::retained::RestoreFrom;
    let mut spec = chained_job(
        &[
            CHAINING_ON,
            (
                "execution.checkpointing.externalized-checkpoint-retention",
                "RETAIN_ON_CANCELLATION",
            ),
        ],
        false,
    );
    spec.events.push(TimedAction {
        at: d("700ms"),
        action: Action::Resubmit(Box::new(Resubmit {
            from: RestoreFrom::Latest,
            parallelism: BTreeMap::new(),
            partitioners: vec![EdgeChange {
                from: "src".into(),
                to: "explode".into(),
                partitioner: Partitioner::Rebalance,
            }],
            config: BTreeMap::new(),
            remove_operators: Vec::new(),
            remove_edges: Vec::new(),
            add_operators: Vec::new(),
            add_edges: Vec::new(),
            allow_non_restored_state: false,
        })),
    });
    let e = run(spec);
    assert_eq!(
        e.tasks.len(),
        6,
        "src and explode apart after the resubmission"
    );
    assert_eq!(e.report().resubmissions[0].restore_error, None);
    let r = e.report();
    assert!(r.finished);
    assert!(r.sinks.iter().all(|s| s.exactly_once), "{:?}", r.sinks);
}
