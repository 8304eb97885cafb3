//! The plan on the jobs of issue 13 and on jobs shaped like Flink's own tests, each
//! compared with what Flink's code gives for the same job (the classes named in each doc
//! comment, read in apache/flink's 2.x sources).

use super::*;
use crate::scenario;

/// The plan of a scenario written as JSON (`version`, `duration` and the rest filled in).
/// Version 2: Flink's defaults, chaining on (a version-1 document runs unchained).
fn plan_of(body: &str) -> PhysicalPlan {
    // Version 2: a version-1 document restarts the whole job (`VERSION_1_DEFAULTS`).
    let text = format!(r#"{{"version": 2, "duration": "10s", {body}}}"#);
    let doc = scenario::parse_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let spec = scenario::to_spec(&doc).unwrap_or_else(|e| panic!("{e}\n{text}"));
    PhysicalPlan::build(&spec).unwrap_or_else(|e| panic!("{e}"))
}

fn names(plan: &PhysicalPlan) -> Vec<&str> {
    plan.vertices.iter().map(|v| v.name.as_str()).collect()
}

/// (TaskManager, slot) of every subtask, in subtask order.
fn locations(plan: &PhysicalPlan) -> Vec<(u32, u32)> {
    plan.subtasks
        .iter()
        .map(|s| (s.task_manager, s.slot))
        .collect()
}

fn regions(plan: &PhysicalPlan) -> Vec<Vec<usize>> {
    plan.regions.iter().map(|r| r.subtasks.clone()).collect()
}

/// Issue 13's measured job: a fast source, rebalance, two consumers at 2.1 ms/record,
/// parallelism 2, Flink's defaults (1 slot per TaskManager).
const REBALANCE_JOB: &str = r#"
    "operators": [
        {"id": "source", "kind": "source", "parallelism": 2, "rate": 200000, "record_size": 1014},
        {"id": "consumer", "kind": "map", "parallelism": 2, "cost": "2100us"},
        {"id": "sink", "kind": "sink", "parallelism": 2, "cost": "0us", "delivery": "at_least_once"}
    ],
    "edges": [
        {"from": "source", "to": "consumer", "partitioner": "rebalance"},
        {"from": "consumer", "to": "sink"}
    ]"#;

/// Flink: the rebalance edge breaks the chain (`arePartitionerAndExchangeModeChainable`
/// is false for a `RebalancePartitioner`), the forward `consumer -> sink` edge chains, so
/// two vertices `Source: source` and `consumer -> sink: Writer`. All vertices share the
/// `"default"` slot-sharing group, so the job needs max(2, 2) = 2 slots and, with
/// `taskmanager.numberOfTaskSlots: 1`, an active resource manager starts 2 TaskManagers.
/// `LocalInputPreferredSlotSharingStrategy`: consumer subtask 0 joins the group of the
/// producer of its first consumed partition (source 0); consumer 1 finds that group
/// taken by its vertex and takes the first group without one (source 1's). So each
/// TaskManager runs one source and one consumer subtask, and each consumer reads one
/// channel from its own TaskManager (`LocalInputChannel`) and one from the other
/// (`RemoteInputChannel`): the layout issue 13 measured in real Flink 2.3.0.
#[test]
fn rebalance_at_parallelism_two_gives_each_consumer_one_local_and_one_remote_channel() {
    let plan = plan_of(REBALANCE_JOB);
    assert_eq!(names(&plan), ["Source: source", "consumer -> sink: Writer"]);
    assert_eq!((plan.slots_needed, plan.task_managers), (2, 2));
    assert!(!plan.task_managers_pinned);
    // Subtasks: source 0, source 1, consumer 0, consumer 1.
    assert_eq!(locations(&plan), [(0, 0), (1, 0), (0, 0), (1, 0)]);
    for s in &plan.vertices[1].subtasks {
        let sub = &plan.subtasks[*s];
        assert_eq!((sub.local_inputs, sub.remote_inputs), (1, 1), "{sub:?}");
    }
    for s in &plan.vertices[0].subtasks {
        let sub = &plan.subtasks[*s];
        assert_eq!((sub.local_outputs, sub.remote_outputs), (1, 1), "{sub:?}");
        assert_eq!((sub.local_inputs, sub.remote_inputs), (0, 0));
    }
    let kinds: Vec<ChannelKind> = plan.channels.iter().map(|c| c.kind).collect();
    use ChannelKind::{Local, Remote};
    // Channels by producer, then consumer: s0→c0, s0→c1, s1→c0, s1→c1.
    assert_eq!(kinds, [Local, Remote, Remote, Local]);
    // All-to-all pipelined: one region of all four subtasks.
    assert_eq!(regions(&plan), [vec![0, 1, 2, 3]]);
    assert_eq!(plan.restarted_by(3), [0, 1, 2, 3]);
    assert_eq!(plan.subtask_name(3), "consumer -> sink: Writer (2/2)");
}

/// Same job with 2 slots per TaskManager: Flink's resource manager starts
/// ceil(2 / 2) = 1 TaskManager, every channel is local.
#[test]
fn two_slots_per_task_manager_put_the_job_in_one_task_manager_with_local_channels_only() {
    let plan = plan_of(&format!(
        r#""config": {{"taskmanager.numberOfTaskSlots": 2}}, {REBALANCE_JOB}"#
    ));
    assert_eq!((plan.slots_needed, plan.task_managers), (2, 1));
    assert_eq!(locations(&plan), [(0, 0), (0, 1), (0, 0), (0, 1)]);
    assert!(plan.channels.iter().all(|c| c.kind == ChannelKind::Local));
}

/// Pinned TaskManagers (`minicluster.number-of-taskmanagers`): 2 TaskManagers of 2 slots
/// for 2 slots. `taskmanager.load-balance.mode: NONE` takes the first free slot, so the
/// first TaskManager fills up and the second stays idle; `SLOTS` (and 1.x's
/// `cluster.evenly-spread-out-slots: true`, which `TaskManagerLoadBalanceMode
/// .loadFromConfiguration` mapped to `SLOTS`) picks the least used TaskManager
/// (`EvenlySpreadOutLocationPreferenceSlotSelectionStrategy`), one group each.
#[test]
fn load_balance_mode_fills_or_spreads_pinned_task_managers() {
    let with = |extra: &str| {
        plan_of(&format!(
            r#""config": {{"taskmanager.numberOfTaskSlots": 2,
                "minicluster.number-of-taskmanagers": 2 {extra}}}, {REBALANCE_JOB}"#
        ))
    };
    let fill = with("");
    assert!(fill.task_managers_pinned);
    assert_eq!(locations(&fill), [(0, 0), (0, 1), (0, 0), (0, 1)]);
    assert_eq!(fill.load_balance, LoadBalance::None);
    for extra in [
        r#", "taskmanager.load-balance.mode": "SLOTS""#,
        r#", "cluster.evenly-spread-out-slots": true"#,
    ] {
        let spread = with(extra);
        assert_eq!(spread.load_balance, LoadBalance::Slots, "{extra}");
        assert_eq!(
            locations(&spread),
            [(0, 0), (1, 0), (0, 0), (1, 0)],
            "{extra}"
        );
    }
}

/// Issue 13's four-stage job: `source -> map` forward at equal parallelism, `map -> agg`
/// hash, `agg -> sink` forward, a two-phase-commit sink. Flink chains `Source: source ->
/// map` (forward, equal parallelism, `map` has one input, `ALWAYS`), breaks at the hash
/// edge (a `KeyGroupStreamPartitioner` is not forward), and chains `agg` with the sink's
/// writer and committer (`SinkTransformationTranslator` expands a committing sink into
/// `Writer` and `Committer` behind a forward edge): two vertices, one hash job edge, and
/// one region (the hash edge is all-to-all and pipelined).
#[test]
fn four_stage_job_chains_source_with_map_and_breaks_at_the_hash_edge() {
    let plan = plan_of(
        r#""operators": [
            {"id": "source", "kind": "source", "parallelism": 2},
            {"id": "map", "kind": "map", "parallelism": 2},
            {"id": "agg", "kind": "keyed_aggregate", "parallelism": 2},
            {"id": "sink", "kind": "sink", "parallelism": 2}
        ],
        "edges": [
            {"from": "source", "to": "map"},
            {"from": "map", "to": "agg", "partitioner": "hash"},
            {"from": "agg", "to": "sink"}
        ]"#,
    );
    assert_eq!(
        names(&plan),
        [
            "Source: source -> map",
            "agg -> sink: Writer -> sink: Committer"
        ]
    );
    assert_eq!(plan.vertices[0].spec_operators, [0, 1]);
    assert_eq!(plan.vertices[1].spec_operators, [2, 3]);
    let chained: Vec<bool> = plan.edges.iter().map(|e| e.chained).collect();
    // source→map, map→agg, agg→sink, then the sink's writer→committer.
    assert_eq!(chained, [true, false, true, true]);
    assert!(
        plan.edges[1].reason.contains("HASH"),
        "{}",
        plan.edges[1].reason
    );
    assert_eq!(plan.edges[3].spec_edge, None);
    assert_eq!(plan.job_edges.len(), 1);
    assert_eq!(plan.job_edges[0].pattern, DistributionPattern::AllToAll);
    assert_eq!(plan.regions.len(), 1);
    assert_eq!(
        plan.subtask_of(1, 1),
        Some(1),
        "map 1 runs in the chain's subtask 1"
    );
    assert_eq!(plan.subtask_of(3, 0), Some(2));
}

/// Shaped like `StreamingJobGraphGeneratorTest.testChainStartEndSetting`: a source of
/// parallelism 1, then map and print at 2. Flink: two vertices, the source alone (chain
/// start and end) and `Map -> Print` (the different parallelism breaks the first edge,
/// `areOperatorsChainable`).
#[test]
fn different_parallelism_breaks_the_chain_like_flinks_chain_start_end_test() {
    let plan = plan_of(
        r#""operators": [
            {"id": "source", "kind": "source"},
            {"id": "map", "kind": "map", "parallelism": 2},
            {"id": "print", "kind": "sink", "parallelism": 2, "delivery": "at_least_once"}
        ],
        "edges": [
            {"from": "source", "to": "map", "partitioner": "rebalance"},
            {"from": "map", "to": "print"}
        ]"#,
    );
    assert_eq!(names(&plan), ["Source: source", "map -> print: Writer"]);
    // Slot sharing: source 0 and map 0 share slot 0; map 1 has its own.
    assert_eq!(plan.slots_needed, 2);
    assert_eq!(plan.subtasks[0].shared_slot, plan.subtasks[1].shared_slot);
    assert_ne!(plan.subtasks[1].shared_slot, plan.subtasks[2].shared_slot);
}

/// A forward edge with different parallelism cannot exist (validation refuses it, as
/// Flink's `ForwardPartitioner` does at job build); rescale with equal parallelism is
/// pointwise but not forward, so it does not chain (`arePartitionerAndExchangeModeChainable`).
#[test]
fn rescale_is_pointwise_but_never_chained() {
    let plan = plan_of(
        r#""operators": [
            {"id": "a", "kind": "source", "parallelism": 2},
            {"id": "b", "kind": "sink", "parallelism": 2, "delivery": "at_least_once"}
        ],
        "edges": [{"from": "a", "to": "b", "partitioner": "rescale"}]"#,
    );
    assert_eq!(names(&plan), ["Source: a", "b: Writer"]);
    assert!(plan.edges[0].reason.contains("RESCALE"));
    assert_eq!(plan.job_edges[0].pattern, DistributionPattern::Pointwise);
}

/// Overrides, each as Flink decides it: `disableChaining()` (`NEVER`) keeps `map` out of
/// both neighbouring chains; `startNewChain()` (`HEAD`) only cuts the edge into `map`; with
/// `pipeline.operator-chaining.enabled: false` every operator is a vertex of its own, the
/// sink's writer and committer too.
#[test]
fn chaining_overrides_and_the_global_switch() {
    let job = |map_extra: &str, config: &str| {
        plan_of(&format!(
            r#""config": {{{config}}},
            "operators": [
                {{"id": "s", "kind": "source"}},
                {{"id": "map", "kind": "map" {map_extra}}},
                {{"id": "f", "kind": "flat_map"}},
                {{"id": "out", "kind": "sink"}}
            ],
            "edges": [
                {{"from": "s", "to": "map"}}, {{"from": "map", "to": "f"}}, {{"from": "f", "to": "out"}}
            ]"#
        ))
    };
    assert_eq!(
        names(&job("", "")),
        ["Source: s -> map -> f -> out: Writer -> out: Committer"]
    );
    let never = job(r#", "disable_chaining": true"#, "");
    assert_eq!(
        names(&never),
        ["Source: s", "map", "f -> out: Writer -> out: Committer"]
    );
    assert!(never.edges[0].reason.contains("disableChaining"));
    assert!(never.edges[1].reason.contains("disableChaining"));
    let head = job(r#", "start_new_chain": true"#, "");
    assert_eq!(
        names(&head),
        ["Source: s", "map -> f -> out: Writer -> out: Committer"]
    );
    assert!(head.edges[0].reason.contains("startNewChain"));
    let off = job("", r#""pipeline.operator-chaining.enabled": false"#);
    assert_eq!(
        names(&off),
        ["Source: s", "map", "f", "out: Writer", "out: Committer"]
    );
    assert!(!off.chaining_enabled);
    // Chaining changes neither the slots nor the regions: all forward, parallelism 1.
    assert_eq!((off.slots_needed, off.regions.len()), (1, 1));
}

/// An operator that chains to two outputs is named `a -> (b, c)` (`createChainedName`);
/// a union (two inputs) is never chained (`isChainable`: one input edge only).
#[test]
fn chained_fan_out_is_parenthesised_and_a_union_is_never_chained() {
    let plan = plan_of(
        r#""operators": [
            {"id": "s", "kind": "source"},
            {"id": "t", "kind": "source"},
            {"id": "a", "kind": "map"},
            {"id": "b", "kind": "sink", "delivery": "idempotent"},
            {"id": "c", "kind": "sink", "delivery": "idempotent"}
        ],
        "edges": [
            {"from": "s", "to": "a"}, {"from": "a", "to": "b"}, {"from": "a", "to": "c"},
            {"from": "t", "to": "c"}
        ]"#,
    );
    assert_eq!(
        names(&plan),
        ["Source: s -> a -> b: Writer", "Source: t", "c: Writer"]
    );
    assert!(
        plan.edges[2].reason.contains("2 inputs"),
        "{}",
        plan.edges[2].reason
    );
    let plan = plan_of(
        r#""operators": [
            {"id": "s", "kind": "source"},
            {"id": "a", "kind": "map"},
            {"id": "b", "kind": "sink", "delivery": "idempotent"},
            {"id": "c", "kind": "sink", "delivery": "idempotent"}
        ],
        "edges": [{"from": "s", "to": "a"}, {"from": "a", "to": "b"}, {"from": "a", "to": "c"}]"#,
    );
    assert_eq!(names(&plan), ["Source: s -> a -> (b: Writer, c: Writer)"]);
}

/// Slot-sharing groups: an operator in another group is not chained to its neighbours
/// (`isSameSlotSharingGroup`), needs slots of its own (the job needs the sum of the
/// groups' widest vertices), and the operators after it inherit its group
/// (`StreamGraphGenerator.determineSlotSharingGroup`) unless they name one.
#[test]
fn slot_sharing_groups_split_chains_add_slots_and_are_inherited() {
    let plan = plan_of(
        r#""operators": [
            {"id": "s", "kind": "source", "parallelism": 2},
            {"id": "heavy", "kind": "map", "parallelism": 3, "slot_sharing_group": "heavy"},
            {"id": "after", "kind": "map", "parallelism": 3},
            {"id": "out", "kind": "sink", "parallelism": 3, "slot_sharing_group": "default",
             "delivery": "at_least_once"}
        ],
        "edges": [
            {"from": "s", "to": "heavy"}, {"from": "heavy", "to": "after"},
            {"from": "after", "to": "out"}
        ]"#,
    );
    assert_eq!(names(&plan), ["Source: s", "heavy -> after", "out: Writer"]);
    let groups: Vec<(&str, u32)> = plan
        .slot_sharing_groups
        .iter()
        .map(|g| (g.name.as_str(), g.slots))
        .collect();
    assert_eq!(groups, [("default", 3), ("heavy", 3)]);
    assert!(plan.edges[2].reason.contains("slot-sharing"));
    assert_eq!((plan.slots_needed, plan.task_managers), (6, 6));
    // A group's subtasks never share a slot with another group's.
    for a in &plan.subtasks {
        for b in &plan.subtasks {
            let (ga, gb) = (
                plan.vertices[a.vertex].slot_sharing_group,
                plan.vertices[b.vertex].slot_sharing_group,
            );
            if ga != gb {
                assert_ne!(a.shared_slot, b.shared_slot);
            }
        }
    }
}

/// Shaped like `SchedulingPipelinedRegionComputeUtilTest.testEmbarrassinglyParallelCase`:
/// three parallel pipelined chains a_i → b_i (pointwise, one-to-one) are three regions.
/// Rescale between equal parallelisms is such an edge and is not chained, so the vertices
/// are Flink's `a` and `b`.
#[test]
fn pointwise_only_job_has_one_region_per_slice() {
    let plan = plan_of(
        r#""operators": [
            {"id": "a", "kind": "source", "parallelism": 3},
            {"id": "b", "kind": "sink", "parallelism": 3, "delivery": "at_least_once"}
        ],
        "edges": [{"from": "a", "to": "b", "partitioner": "rescale"}]"#,
    );
    assert_eq!(regions(&plan), [vec![0, 3], vec![1, 4], vec![2, 5]]);
    assert_eq!(plan.restarted_by(4), [1, 4]);
    // A forward-chained job has one region per subtask of its single vertex.
    let chained = plan_of(
        r#""operators": [
            {"id": "a", "kind": "source", "parallelism": 3},
            {"id": "b", "kind": "sink", "parallelism": 3, "delivery": "at_least_once"}
        ],
        "edges": [{"from": "a", "to": "b"}]"#,
    );
    assert_eq!(names(&chained), ["Source: a -> b: Writer"]);
    assert_eq!(regions(&chained), [vec![0], vec![1], vec![2]]);
    // `full` restarts everything whatever the regions.
    let full = plan_of(
        r#""config": {"jobmanager.execution.failover-strategy": "full"},
        "operators": [
            {"id": "a", "kind": "source", "parallelism": 3},
            {"id": "b", "kind": "sink", "parallelism": 3, "delivery": "at_least_once"}
        ],
        "edges": [{"from": "a", "to": "b"}]"#,
    );
    assert_eq!(full.restarted_by(1), [0, 1, 2]);
}

/// Shaped like `SchedulingPipelinedRegionComputeUtilTest.testOneComponentViaTwoExchanges`
/// (a → b → c, both all-to-all pipelined: one region) and a rescale fan-out like
/// `testOneComponentInstanceFromOneSource` (one producer feeding two consumers pointwise:
/// one region), next to a rescale 4 → 2 whose slices stay apart.
#[test]
fn all_to_all_edges_join_everything_and_pointwise_fan_in_joins_its_slice() {
    let plan = plan_of(
        r#""operators": [
            {"id": "a", "kind": "source", "parallelism": 2},
            {"id": "b", "kind": "map", "parallelism": 2},
            {"id": "c", "kind": "sink", "parallelism": 2, "delivery": "at_least_once"}
        ],
        "edges": [
            {"from": "a", "to": "b", "partitioner": "rebalance"},
            {"from": "b", "to": "c", "partitioner": "hash"}
        ]"#,
    );
    assert_eq!(regions(&plan), [vec![0, 1, 2, 3, 4, 5]]);
    let fan_out = plan_of(
        r#""operators": [
            {"id": "a", "kind": "source"},
            {"id": "b", "kind": "sink", "parallelism": 2, "delivery": "at_least_once"}
        ],
        "edges": [{"from": "a", "to": "b", "partitioner": "rescale"}]"#,
    );
    assert_eq!(regions(&fan_out), [vec![0, 1, 2]]);
    let fan_in = plan_of(
        r#""operators": [
            {"id": "a", "kind": "source", "parallelism": 4},
            {"id": "b", "kind": "sink", "parallelism": 2, "delivery": "at_least_once"}
        ],
        "edges": [{"from": "a", "to": "b", "partitioner": "rescale"}]"#,
    );
    assert_eq!(regions(&fan_in), [vec![0, 1, 4], vec![2, 3, 5]]);
    // LocalInputPreferred puts each consumer with its slice's first producer.
    assert_eq!(
        fan_in.subtasks[4].shared_slot,
        fan_in.subtasks[0].shared_slot
    );
    assert_eq!(
        fan_in.subtasks[5].shared_slot,
        fan_in.subtasks[2].shared_slot
    );
}

/// Too few pinned slots is refused where the document is read, naming the key; Flink
/// would fail the job with `NoResourceAvailableException` after the slot request timeout.
#[test]
fn too_few_pinned_slots_is_refused_naming_the_key() {
    let text = format!(
        r#"{{"version": 1, "config": {{"minicluster.number-of-taskmanagers": 1}}, {REBALANCE_JOB}}}"#
    );
    let doc = scenario::parse_json(&text).unwrap();
    let e = scenario::to_spec(&doc).unwrap_err().to_string();
    assert!(
        e.contains("config.minicluster.number-of-taskmanagers") && e.contains("needs 2"),
        "{e}"
    );
}

/// Both overrides at once are refused at the second one's path; a `set_config` event of a
/// plan key is refused (Flink fixes them at submission).
#[test]
fn conflicting_overrides_and_live_plan_keys_are_refused() {
    let doc = scenario::parse_json(
        r#"{"version": 1, "operators": [
            {"id": "s", "kind": "source"},
            {"id": "o", "kind": "sink", "disable_chaining": true, "start_new_chain": true}],
            "edges": [{"from": "s", "to": "o"}]}"#,
    )
    .unwrap();
    let e = scenario::to_spec(&doc).unwrap_err().to_string();
    assert!(e.starts_with("operators[1].start_new_chain"), "{e}");
    let doc = scenario::parse_json(
        r#"{"version": 1, "operators": [
            {"id": "s", "kind": "source"}, {"id": "o", "kind": "sink"}],
            "edges": [{"from": "s", "to": "o"}],
            "events": [{"at": "1s", "set_config": {"key": "taskmanager.numberOfTaskSlots", "value": 2}}]}"#,
    )
    .unwrap();
    let e = scenario::to_spec(&doc).unwrap_err().to_string();
    assert!(e.starts_with("events[0].set_config.key"), "{e}");
}

/// Old documents keep Flink's defaults: the new fields are absent and a document written
/// back from a spec with overrides reads back the same spec.
#[test]
fn overrides_round_trip_through_the_document() {
    let text = r#"{"version": 1, "operators": [
        {"id": "s", "kind": "source", "slot_sharing_group": "default"},
        {"id": "m", "kind": "map", "start_new_chain": true, "slot_sharing_group": "x"},
        {"id": "o", "kind": "sink", "disable_chaining": true}],
        "edges": [{"from": "s", "to": "m"}, {"from": "m", "to": "o"}]}"#;
    let spec = scenario::to_spec(&scenario::parse_json(text).unwrap()).unwrap();
    assert_eq!(spec.operators[1].chaining.strategy, ChainingStrategy::Head);
    assert_eq!(spec.operators[2].chaining.strategy, ChainingStrategy::Never);
    let back = scenario::from_spec(&spec);
    assert_eq!(scenario::to_spec(&back).unwrap(), spec);
    let plain = scenario::to_spec(
        &scenario::parse_json(
            r#"{"version": 1, "operators": [{"id": "s", "kind": "source"}, {"id": "o", "kind": "sink"}],
            "edges": [{"from": "s", "to": "o"}]}"#,
        )
        .unwrap(),
    )
    .unwrap();
    assert!(plain
        .operators
        .iter()
        .all(|o| o.chaining == Default::default()));
    let json = scenario::to_json_pretty(&scenario::from_spec(&plain));
    // (The version-1 document's pinned `pipeline.operator-chaining.enabled: false` is a
    // config key, not an operator override.)
    assert!(
        !json.contains("disable_chaining")
            && !json.contains("start_new_chain")
            && !json.contains("slot_sharing"),
        "{json}"
    );
}

/// Every preset has a plan: vertices named as Flink's web UI names them (sources
/// `Source: id`, sinks `id: Writer`), every subtask placed in a slot that exists, one
/// execution slot-sharing group per slot, every channel's two ends counted, regions
/// covering every subtask once, and the slot count equal to the validation's.
#[test]
fn every_preset_has_a_consistent_plan() {
    for name in scenario::preset_names() {
        let doc = scenario::preset(name).unwrap();
        let spec = scenario::to_spec(&doc).unwrap();
        let plan = PhysicalPlan::build(&spec).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            Some(plan.slots_needed),
            placement::slots_needed_of(&spec),
            "{name}"
        );
        for v in &plan.vertices {
            let head = &plan.operators[v.operators[0]];
            if head.role == OperatorRole::Operator
                && matches!(
                    spec.operators[head.spec_operator].kind,
                    crate::engine::spec::OperatorKind::Source(_)
                )
            {
                assert!(v.name.starts_with("Source: "), "{name}: {}", v.name);
            }
            assert_eq!(v.subtasks.len() as u32, v.parallelism, "{name}");
        }
        for (o, op) in spec.operators.iter().enumerate() {
            if let crate::engine::spec::OperatorKind::Sink { .. } = op.kind {
                let writer = format!("{}: Writer", op.id);
                assert!(
                    plan.vertices.iter().any(|v| v.name.contains(&writer)),
                    "{name}: no vertex runs {writer}"
                );
            }
            for i in 0..op.parallelism {
                assert!(plan.subtask_of(o, i).is_some(), "{name}: {} {i}", op.id);
            }
        }
        let slots = plan.task_managers * plan.slots_per_task_manager;
        assert!(plan.slots_needed <= slots, "{name}");
        let mut slot_users = std::collections::BTreeMap::new();
        for s in &plan.subtasks {
            assert!(s.task_manager < plan.task_managers && s.slot < plan.slots_per_task_manager);
            slot_users
                .entry((s.task_manager, s.slot))
                .or_insert_with(std::collections::BTreeSet::new)
                .insert(s.shared_slot);
        }
        assert!(
            slot_users.values().all(|g| g.len() == 1),
            "{name}: a slot holds two groups"
        );
        let inputs: u32 = plan
            .subtasks
            .iter()
            .map(|s| s.local_inputs + s.remote_inputs)
            .sum();
        let outputs: u32 = plan
            .subtasks
            .iter()
            .map(|s| s.local_outputs + s.remote_outputs)
            .sum();
        assert_eq!(inputs as usize, plan.channels.len(), "{name}");
        assert_eq!(outputs as usize, plan.channels.len(), "{name}");
        let mut covered: Vec<usize> = plan
            .regions
            .iter()
            .flat_map(|r| r.subtasks.clone())
            .collect();
        covered.sort_unstable();
        assert_eq!(
            covered,
            (0..plan.subtasks.len()).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(
            PhysicalPlan::build(&spec).unwrap(),
            plan,
            "{name}: deterministic"
        );
    }
}

/// Random DAGs (seeded; a failure prints its seed) with random parallelism, partitioners,
/// chaining overrides, slot-sharing groups, slots per TaskManager, chaining on/off and
/// load-balance mode: the plan always holds Flink's invariants. A chained edge is forward,
/// one input, equal parallelism, same group, neither end `NEVER`, the downstream `ALWAYS`;
/// every subtask sits in an existing slot whose execution slot-sharing group holds at most
/// one subtask per vertex and only one slot-sharing group; slots needed = the validation's
/// count; a channel is local exactly when both ends share a TaskManager; the regions
/// partition the subtasks and no channel crosses two of them.
#[test]
fn random_jobs_keep_flinks_invariants() {
    use crate::engine::rng::Rng;
    use crate::engine::spec::{
        EdgeSpec, OperatorChaining, OperatorKind, OperatorSpec, SinkDelivery,
    };
    let mut planned = 0;
    for seed in 0..300u64 {
        let mut rng = Rng::new(seed);
        let n = rng.range(2, 9) as usize;
        let mut operators = Vec::new();
        for i in 0..n {
            let kind = if i == 0 {
                OperatorKind::Source(crate::engine::spec::SourceSpec {
                    rate: 100.0,
                    records: None,
                    record_size: 64,
                    keys: 8,
                    skew: 0.0,
                    api: crate::engine::spec::SourceApi::Flip27,
                    retention: None,
                })
            } else if i == n - 1 {
                OperatorKind::Sink {
                    delivery: [
                        SinkDelivery::TwoPhaseCommit,
                        SinkDelivery::Idempotent,
                        SinkDelivery::AtLeastOnce,
                    ][rng.below(3) as usize],
                }
            } else {
                OperatorKind::Map
            };
            let strategy = match rng.below(6) {
                0 => ChainingStrategy::Never,
                1 => ChainingStrategy::Head,
                _ => ChainingStrategy::Always,
            };
            let slot_sharing_group = match rng.below(5) {
                0 => Some("a".to_string()),
                1 => Some("default".to_string()),
                _ => None,
            };
            operators.push(OperatorSpec {
                id: format!("o{i}"),
                kind,
                parallelism: rng.range(1, 5) as u32,
                cost: 10,
                chaining: OperatorChaining {
                    strategy,
                    slot_sharing_group,
                },
            });
        }
        // A path through every operator plus random forward-pointing extra edges.
        let mut pairs = std::collections::BTreeSet::new();
        for i in 1..n {
            pairs.insert((rng.below(i as u64) as usize, i));
        }
        for _ in 0..rng.below(4) {
            let a = rng.below(n as u64 - 1) as usize;
            let b = rng.range(a as u64 + 1, n as u64 - 1) as usize;
            pairs.insert((a, b));
        }
        // Every non-sink must feed something: chain each to its successor if idle.
        for i in 0..n - 1 {
            if !pairs.iter().any(|&(a, _)| a == i) {
                pairs.insert((i, i + 1));
            }
        }
        let edges = pairs
            .iter()
            .map(|&(a, b)| {
                let equal = operators[a].parallelism == operators[b].parallelism;
                let choices: &[Partitioner] = if equal {
                    &[
                        Partitioner::Forward,
                        Partitioner::Forward,
                        Partitioner::Rescale,
                        Partitioner::Rebalance,
                        Partitioner::Hash,
                        Partitioner::Broadcast,
                    ]
                } else {
                    &[
                        Partitioner::Rescale,
                        Partitioner::Rebalance,
                        Partitioner::Hash,
                    ]
                };
                EdgeSpec {
                    from: format!("o{a}"),
                    to: format!("o{b}"),
                    partitioner: choices[rng.below(choices.len() as u64) as usize],
                }
            })
            .collect();
        let operator_chaining = rng.chance(0.8);
        let slots_per_task_manager = rng.range(1, 4) as u32;
        let load_balance_slots = rng.chance(0.5);
        let task_managers = rng.chance(0.3).then(|| rng.range(1, 12) as u32);
        let config = EngineConfig {
            operator_chaining,
            slots_per_task_manager,
            load_balance_slots,
            task_managers,
            ..EngineConfig::default()
        };
        let spec = JobSpec {
            name: format!("random {seed}"),
            seed,
            duration: 1_000_000,
            config,
            operators,
            edges,
            events: Vec::new(),
        };
        if let Some(problem) = spec.problems().first() {
            // Only a pinned count too small may be refused, and it must say so.
            assert_eq!(
                problem.path, "config.minicluster.number-of-taskmanagers",
                "seed {seed}: {problem}"
            );
            continue;
        }
        let plan = PhysicalPlan::build(&spec).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        check_invariants(&spec, &plan, seed);
        planned += 1;
    }
    assert!(
        planned > 200,
        "only {planned} of 300 random jobs had a plan"
    );
}

fn check_invariants(spec: &JobSpec, plan: &PhysicalPlan, seed: u64) {
    for e in &plan.edges {
        let (up, down) = (&plan.operators[e.from], &plan.operators[e.to]);
        let one_input = plan.edges.iter().filter(|x| x.to == e.to).count() == 1;
        let flink = plan.chaining_enabled
            && one_input
            && up.slot_sharing_group == down.slot_sharing_group
            && up.strategy != ChainingStrategy::Never
            && down.strategy == ChainingStrategy::Always
            && up.parallelism == down.parallelism
            && e.partitioner == Partitioner::Forward;
        assert_eq!(e.chained, flink, "seed {seed}: {e:?}");
        assert_eq!(e.chained, up.vertex == down.vertex, "seed {seed}");
    }
    assert_eq!(
        Some(plan.slots_needed),
        placement::slots_needed_of(spec),
        "seed {seed}"
    );
    let mut per_group: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (i, s) in plan.subtasks.iter().enumerate() {
        assert!(s.task_manager < plan.task_managers, "seed {seed}");
        assert!(s.slot < plan.slots_per_task_manager, "seed {seed}");
        per_group.entry(s.shared_slot).or_default().push(i);
    }
    assert_eq!(per_group.len() as u32, plan.slots_needed, "seed {seed}");
    let mut slots = std::collections::BTreeSet::new();
    for members in per_group.values() {
        let first = &plan.subtasks[members[0]];
        assert!(
            slots.insert((first.task_manager, first.slot)),
            "seed {seed}: slot reused"
        );
        let vertices: std::collections::BTreeSet<usize> =
            members.iter().map(|&m| plan.subtasks[m].vertex).collect();
        assert_eq!(
            vertices.len(),
            members.len(),
            "seed {seed}: two of a vertex"
        );
        let groups: std::collections::BTreeSet<usize> = vertices
            .iter()
            .map(|&v| plan.vertices[v].slot_sharing_group)
            .collect();
        assert_eq!(groups.len(), 1, "seed {seed}");
        for &m in members {
            let s = &plan.subtasks[m];
            assert_eq!((s.task_manager, s.slot), (first.task_manager, first.slot));
        }
    }
    for c in &plan.channels {
        let (a, b) = (&plan.subtasks[c.from], &plan.subtasks[c.to]);
        assert_eq!(
            c.kind == ChannelKind::Local,
            a.task_manager == b.task_manager,
            "seed {seed}"
        );
        assert_eq!(a.region, b.region, "seed {seed}: a channel crosses regions");
    }
    let mut covered: Vec<usize> = plan
        .regions
        .iter()
        .flat_map(|r| r.subtasks.clone())
        .collect();
    covered.sort_unstable();
    assert_eq!(
        covered,
        (0..plan.subtasks.len()).collect::<Vec<_>>(),
        "seed {seed}"
    );
}
