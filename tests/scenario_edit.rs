//! The job editor's model: every validation message `check::problems` gives, with its
//! path and the operators / edges it concerns; the edit operations of `scenario::edit`;
//! and a seeded random walk of edits that never panics and whose problem-free drafts
//! convert and run with the engine's invariants holding.

mod common;

use checkpoint_playground::engine::spec::Partitioner;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::check::{problems, Problem};
use checkpoint_playground::scenario::dag_layout::DagLayout;
use checkpoint_playground::scenario::edit::{self, Setting};
use checkpoint_playground::scenario::{
    self, ActionDoc, Document, EventDoc, Kind, OperatorDoc, SizeValue,
};
use common::Gen;

/// A document with the given operators (`id:kind:parallelism`) and edges
/// (`from>to:partitioner`, partitioner may be empty), no events.
fn draft(ops: &[&str], edges: &[&str]) -> Document {
    let mut d = scenario::default_document();
    d.events.clear();
    d.operators.clear();
    d.edges.clear();
    for o in ops {
        let f: Vec<&str> = o.split(':').collect();
        let mut op = OperatorDoc::new(f[0], Kind::parse(f[1]).expect("kind"));
        op.parallelism = Some(f[2].parse().unwrap());
        d.operators.push(op);
    }
    for e in edges {
        let (ends, p) = e.split_once(':').unwrap();
        let (from, to) = ends.split_once('>').unwrap();
        edit::connect(&mut d, from, to, edit::partitioner_named(p)).unwrap();
    }
    d
}

fn the_one(d: &Document, path: &str) -> Problem {
    let all = problems(d);
    let found: Vec<&Problem> = all.iter().filter(|p| p.path == path).collect();
    assert_eq!(found.len(), 1, "one problem at {path} in {all:#?}");
    found[0].clone()
}

fn op(d: &Document, id: &str) -> usize {
    d.operators.iter().position(|o| o.id == id).unwrap()
}

#[test]
fn a_good_draft_has_no_problems_and_converts() {
    let d = draft(
        &["src:source:2", "m:map:2", "out:sink:1"],
        &["src>m:forward", "m>out:rebalance"],
    );
    assert_eq!(problems(&d), vec![]);
    assert!(scenario::to_spec(&d).is_ok());
    for name in scenario::preset_names() {
        assert_eq!(problems(&scenario::preset(name).unwrap()), vec![], "{name}");
    }
}

#[test]
fn a_cycle_names_every_operator_and_edge_on_it() {
    let d = draft(
        &[
            "src:source:1",
            "a:map:1",
            "b:map:1",
            "c:map:1",
            "out:sink:1",
        ],
        &["src>a:", "a>b:", "b>c:", "c>a:", "c>out:"],
    );
    let p = the_one(&d, "edges");
    assert_eq!(
        p.message,
        "the graph has a cycle through 'a' -> 'b' -> 'c' -> 'a'"
    );
    assert_eq!(p.operators, vec![op(&d, "a"), op(&d, "b"), op(&d, "c")]);
    assert_eq!(p.edges, vec![1, 2, 3]);
    assert_eq!(problems(&d).len(), 1, "nothing else is wrong");
    let err = scenario::to_spec(&d).unwrap_err();
    assert_eq!(
        (err.path.as_str(), err.message.as_str()),
        ("edges", p.message.as_str())
    );
}

#[test]
fn a_forward_edge_between_different_parallelisms_names_the_edge() {
    let d = draft(
        &["src:source:2", "m:map:3", "out:sink:3"],
        &["src>m:forward", "m>out:forward"],
    );
    let p = the_one(&d, "edges[0].partitioner");
    assert_eq!(
        p.message,
        "forward edge src -> m joins different parallelisms (2 vs 3); use rebalance or rescale"
    );
    assert_eq!((p.operators, p.edges), (vec![], vec![0]));
    assert_eq!(problems(&d).len(), 1, "m -> out is fine");
}

#[test]
fn dangling_source_operator_and_sink_are_named() {
    let d = draft(
        &[
            "src:source:1",
            "m:map:1",
            "out:sink:1",
            "idle:source:1",
            "x:flat_map:1",
            "y:keyed_aggregate:1",
            "z:sink:1",
        ],
        &["src>m:", "m>out:", "y>z:"],
    );
    let all = problems(&d);
    let expect = [
        (
            "operators[3]",
            "source 'idle' is not connected to anything",
            3,
        ),
        ("operators[4]", "'x' has no input", 4),
        (
            "operators[4]",
            "'x' has no output (end the path in a sink)",
            4,
        ),
        ("operators[5]", "'y' has no input", 5),
    ];
    assert_eq!(all.len(), expect.len(), "{all:#?}");
    for (p, (path, message, target)) in all.iter().zip(expect) {
        assert_eq!((p.path.as_str(), p.message.as_str()), (path, message));
        assert_eq!(
            (p.operators.clone(), p.edges.clone()),
            (vec![target], vec![])
        );
    }
    let mut lonely_sink = draft(
        &["src:source:1", "out:sink:1", "m:map:1"],
        &["src>m:", "m>out:"],
    );
    edit::disconnect(&mut lonely_sink, 1).unwrap();
    let p = the_one(&lonely_sink, "operators[1]");
    assert_eq!(p.message, "sink 'out' has no input");
    assert_eq!(p.operators, vec![1]);
}

#[test]
fn duplicate_ids_and_out_of_range_settings_are_named_on_their_field() {
    let mut d = draft(&["src:source:1", "out:sink:1"], &["src>out:"]);
    d.operators.push(OperatorDoc::new("src", Kind::Map));
    let p = the_one(&d, "operators[2].id");
    assert_eq!(
        (p.message.as_str(), p.operators),
        ("duplicate operator id 'src'", vec![2])
    );

    let mut d = draft(
        &["src:source:1", "f:flat_map:1", "out:sink:1"],
        &["src>f:", "f>out:"],
    );
    for (id, setting, text) in [
        ("src", Setting::Parallelism, "2000"),
        ("src", Setting::Skew, "1.5"),
        ("src", Setting::Rate, "0"),
        ("src", Setting::Records, "0"),
        ("src", Setting::Keys, "0"),
        ("src", Setting::RecordSize, "2mb"),
        ("f", Setting::FanOut, "0"),
        ("out", Setting::Cost, "11s"),
    ] {
        edit::set_setting(&mut d, id, setting, text).unwrap();
    }
    let expect = [
        (
            "operators[0].parallelism",
            "2000 is out of range (1 to 1024, the limit per operator)",
        ),
        ("operators[0].rate", "0 is out of range (0 < rate <= 1000000)"),
        ("operators[0].record_size", "must be 1b to 1mb"),
        ("operators[0].keys", "must be 1 to 1000000"),
        ("operators[0].skew", "must be in [0, 1)"),
        ("operators[0].records", "must be 1 to 100000000 (omit for unbounded)"),
        ("operators[1].fan_out", "0 is out of range (1 to 1000)"),
        ("operators[2].cost", "at most 10s per record"),
        ("edges[0].partitioner", "forward edge src -> f joins different parallelisms (40 vs 1); use rebalance or rescale"),
    ];
    let all = problems(&d);
    let got: Vec<(&str, &str)> = all
        .iter()
        .map(|p| (p.path.as_str(), p.message.as_str()))
        .collect();
    // The edge src -> f has no explicit partitioner: Flink's default turns to rebalance
    // when parallelisms differ, so only the eight ranges are wrong.
    assert_eq!(got, expect[..8].to_vec());
    assert_eq!(all[6].operators, vec![1]);
    let first = scenario::to_spec(&d).unwrap_err();
    assert_eq!(
        first.to_string(),
        all[0].to_string(),
        "to_spec reports the first"
    );
}

#[test]
fn a_field_that_does_not_parse_is_named_and_the_graph_is_still_checked() {
    let mut d = draft(&["src:source:1", "m:map:1", "out:sink:1"], &["src>m:"]);
    d.operators[1].cost = Some("5 parsecs".into());
    d.operators[0].record_size = Some(SizeValue::Text("huge".into()));
    let all = problems(&d);
    let paths: Vec<&str> = all.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "operators[0].record_size",
            "operators[1].cost",
            "operators[1]",
            "operators[2]"
        ],
        "{all:#?}"
    );
    assert_eq!(all[1].operators, vec![1]);
    assert_eq!(
        scenario::to_spec(&d).unwrap_err().path,
        "operators[0].record_size"
    );
}

#[test]
fn edits_reject_what_can_never_be_meaningful_and_leave_the_draft_alone() {
    let mut d = draft(
        &["src:source:1", "m:map:1", "out:sink:1"],
        &["src>m:", "m>out:"],
    );
    let before = d.clone();
    let cases: Vec<(scenario::ScenarioError, &str, &str)> = vec![
        (
            edit::connect(&mut d, "m", "m", None).unwrap_err(),
            "edges[2]",
            "'m' cannot feed itself",
        ),
        (
            edit::connect(&mut d, "src", "m", None).unwrap_err(),
            "edges[2]",
            "there is already an edge src -> m",
        ),
        (
            edit::connect(&mut d, "m", "src", None).unwrap_err(),
            "edges[2]",
            "'src' is a source and takes no input",
        ),
        (
            edit::connect(&mut d, "out", "m", None).unwrap_err(),
            "edges[2]",
            "'out' is a sink and has no output",
        ),
        (
            edit::connect(&mut d, "m", "ghost", None).unwrap_err(),
            "operators",
            "no operator 'ghost'",
        ),
        (
            edit::rename_operator(&mut d, "m", "out").unwrap_err(),
            "operators[1].id",
            "'out' is already the id of another operator",
        ),
        (
            edit::rename_operator(&mut d, "m", "").unwrap_err(),
            "operators[1].id",
            "must be 1 to 64 characters",
        ),
        (
            edit::set_setting(&mut d, "src", Setting::Rate, "fast").unwrap_err(),
            "operators[0].rate",
            "'fast' is not a number",
        ),
        (
            edit::set_setting(&mut d, "src", Setting::Parallelism, "-2").unwrap_err(),
            "operators[0].parallelism",
            "'-2' is not a whole number",
        ),
        (
            edit::set_setting(&mut d, "m", Setting::FanOut, "3").unwrap_err(),
            "operators[1].fan_out",
            "'fan_out' does not apply to a map operator",
        ),
        (
            edit::set_setting(&mut d, "out", Setting::Delivery, "maybe").unwrap_err(),
            "operators[2].delivery",
            "'maybe' is not a delivery (two_phase_commit, idempotent, at_least_once)",
        ),
        (
            edit::set_setting(&mut d, "src", Setting::Legacy, "yes").unwrap_err(),
            "operators[0].legacy",
            "'yes' is not true or false",
        ),
        (
            edit::disconnect(&mut d, 7).unwrap_err(),
            "edges[7]",
            "no such edge (the job has 2)",
        ),
    ];
    for (err, path, message) in cases {
        assert_eq!((err.path.as_str(), err.message.as_str()), (path, message));
    }
    let err = edit::set_setting(&mut d, "m", Setting::Cost, "5 parsecs").unwrap_err();
    assert_eq!(err.path, "operators[1].cost");
    assert_eq!(d, before, "a rejected edit changes nothing");
}

#[test]
fn edits_keep_the_document_consistent() {
    let mut d = scenario::preset("healthy").unwrap();
    d.events = vec![
        EventDoc {
            at: "3s".into(),
            action: ActionDoc::SetCost {
                operator: "map".into(),
                cost: "1ms".into(),
            },
        },
        EventDoc {
            at: "4s".into(),
            action: ActionDoc::TriggerCheckpoint,
        },
        EventDoc {
            at: "5s".into(),
            action: ActionDoc::Fail {
                operator: "map".into(),
                subtask: 1,
            },
        },
        EventDoc {
            at: "6s".into(),
            action: ActionDoc::SetPartitioner {
                from: "src".into(),
                to: "map".into(),
                partitioner: Partitioner::Rebalance,
            },
        },
    ];
    assert_eq!(problems(&d), vec![]);

    // Add one of every kind: fresh ids, the kind's defaults.
    let ids: Vec<String> = Kind::ALL
        .iter()
        .map(|&k| edit::add_operator(&mut d, k))
        .collect();
    assert_eq!(ids, ["source", "map2", "flatmap", "aggregate", "sink"]);
    assert_eq!(edit::add_operator(&mut d, Kind::Map), "map3");
    assert_eq!(
        d.operators.last().unwrap(),
        &OperatorDoc::new("map3", Kind::Map)
    );

    // Wire them in: source -> flatmap -> aggregate -> sink, and map3 off map2.
    edit::connect(&mut d, "source", "flatmap", Some(Partitioner::Forward)).unwrap();
    edit::connect(&mut d, "flatmap", "aggregate", Some(Partitioner::Hash)).unwrap();
    let last = edit::connect(&mut d, "aggregate", "sink", None).unwrap();
    assert_eq!(last, d.edges.len() - 1);
    edit::connect(&mut d, "src", "map2", Some(Partitioner::Broadcast)).unwrap();
    edit::connect(&mut d, "map2", "map3", None).unwrap();
    edit::connect(&mut d, "map3", "out", Some(Partitioner::Rebalance)).unwrap();
    assert_eq!(problems(&d), vec![]);
    edit::set_setting(&mut d, "flatmap", Setting::FanOut, "3").unwrap();
    edit::set_setting(&mut d, "source", Setting::RecordSize, "1kb").unwrap();
    edit::set_setting(&mut d, "source", Setting::Retention, "30s").unwrap();
    edit::set_setting(&mut d, "sink", Setting::Delivery, "idempotent").unwrap();
    edit::set_setting(&mut d, "source", Setting::Parallelism, "2").unwrap();
    let spec = scenario::to_spec(&d);
    assert_eq!(
        spec.unwrap_err().to_string(),
        "edges[2].partitioner: forward edge source -> flatmap joins different parallelisms (2 vs 1); use rebalance or rescale"
    );
    edit::set_partitioner(&mut d, 2, Some(Partitioner::Rescale)).unwrap();
    assert_eq!(problems(&d), vec![]);
    assert_eq!(
        edit::setting_text(&d.operators[op(&d, "source")], Setting::RecordSize),
        "1kb"
    );
    assert_eq!(
        edit::setting_text(&d.operators[op(&d, "source")], Setting::Keys),
        ""
    );
    edit::set_setting(&mut d, "source", Setting::Parallelism, "").unwrap();
    assert_eq!(
        d.operators[op(&d, "source")].parallelism,
        None,
        "empty = default"
    );

    // Rename follows edges and events.
    edit::rename_operator(&mut d, "map", "enrich").unwrap();
    assert!(d.edges.iter().any(|e| e.from == "src" && e.to == "enrich"));
    assert!(
        matches!(&d.events[0].action, ActionDoc::SetCost { operator, .. } if operator == "enrich")
    );
    assert!(matches!(&d.events[3].action, ActionDoc::SetPartitioner { to, .. } if to == "enrich"));
    assert_eq!(problems(&d), vec![]);

    // Removing it drops its two edges and the three events that name it.
    let edges = d.edges.len();
    assert_eq!(edit::remove_operator(&mut d, "enrich").unwrap(), 3);
    assert_eq!(d.edges.len(), edges - 2);
    assert_eq!(d.events.len(), 1);
    assert!(d
        .edges
        .iter()
        .all(|e| e.from != "enrich" && e.to != "enrich"));
    assert_eq!(
        problems(&d),
        vec![],
        "src still feeds map2, map3 still feeds out"
    );

    // Disconnecting an edge drops the set_partitioner events naming it.
    let mut d = scenario::preset("healthy").unwrap();
    d.events = vec![EventDoc {
        at: "6s".into(),
        action: ActionDoc::SetPartitioner {
            from: "src".into(),
            to: "map".into(),
            partitioner: Partitioner::Rebalance,
        },
    }];
    assert_eq!(edit::disconnect(&mut d, 0).unwrap(), 1);
    assert!(d.events.is_empty());
    assert_eq!(
        edit::remove_operator(&mut d, "ghost").unwrap_err().message,
        "no operator 'ghost'"
    );
}

/// One random edit; the outcome does not matter, only that nothing panics.
fn random_edit(g: &mut Gen, d: &mut Document) {
    let ids: Vec<String> = d.operators.iter().map(|o| o.id.clone()).collect();
    let pick_id = |g: &mut Gen| {
        ids.get(g.below(ids.len().max(1) as u64) as usize)
            .cloned()
            .unwrap_or_default()
    };
    let partitioners = [
        None,
        Some(Partitioner::Forward),
        Some(Partitioner::Rebalance),
        Some(Partitioner::Rescale),
        Some(Partitioner::Hash),
        Some(Partitioner::Broadcast),
    ];
    match g.below(10) {
        0 | 1 => {
            edit::add_operator(d, *g.pick(&Kind::ALL));
        }
        2 => {
            let _ = edit::remove_operator(d, &pick_id(g));
        }
        3..=5 => {
            let (f, t) = (pick_id(g), pick_id(g));
            let _ = edit::connect(d, &f, &t, *g.pick(&partitioners));
        }
        6 => {
            let i = g.below(d.edges.len() as u64 + 1) as usize;
            let _ = edit::disconnect(d, i);
        }
        7 => {
            let i = g.below(d.edges.len() as u64 + 1) as usize;
            let _ = edit::set_partitioner(d, i, *g.pick(&partitioners));
        }
        8 => {
            let new = format!("op{}", g.below(6));
            let _ = edit::rename_operator(d, &pick_id(g), &new);
        }
        _ => {
            let texts = [
                "",
                "1",
                "2",
                "3",
                "0",
                "40",
                "500",
                "0.5",
                "1.5",
                "2000",
                "50us",
                "1ms",
                "20s",
                "1kb",
                "true",
                "idempotent",
                "at_least_once",
                "x",
                "-1",
            ];
            let text = g.pick(&texts).to_string();
            let _ = edit::set_setting(d, &pick_id(g), *g.pick(&Setting::ALL), &text);
        }
    }
}

#[test]
fn random_edit_sequences_never_panic_and_clean_drafts_run() {
    let seed = std::env::var("EDIT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_130u64);
    println!("random edits: seed {seed} (set EDIT_SEED to replay)");
    let mut g = Gen::new(seed);
    let (mut clean, mut ran) = (0, 0);
    for walk in 0..60 {
        let mut d = if walk % 2 == 0 {
            draft(&[], &[])
        } else {
            {
                let names: &[&str] = scenario::preset_names();
                let name: &&str = g.pick(names);
                scenario::preset(name).unwrap()
            }
        };
        d.events
            .retain(|e| !matches!(e.action, ActionDoc::SetConfig { .. }));
        for step in 0..40 {
            random_edit(&mut g, &mut d);
            let all = problems(&d);
            let layout = DagLayout::compute(&d);
            assert_eq!(layout.nodes.len(), d.operators.len());
            match scenario::to_spec(&d) {
                Ok(spec) => {
                    assert_eq!(all, vec![], "seed {seed} walk {walk} step {step}: to_spec accepted a draft with problems");
                    clean += 1;
                    if ran < 40 && clean % 2 == 0 {
                        ran += 1;
                        let mut engine = Engine::new(spec).expect("a clean draft starts");
                        while engine.now() < 2_000_000 && engine.step() {
                            if let Err(e) = engine.check_invariants() {
                                panic!(
                                    "seed {seed} walk {walk} step {step}: {e}\n{}",
                                    serde_json::to_string(&d).unwrap()
                                );
                            }
                        }
                    }
                }
                Err(e) => {
                    assert!(
                        !all.is_empty(),
                        "seed {seed} walk {walk} step {step}: {e} but no problems"
                    );
                    assert_eq!(
                        all[0].to_string(),
                        e.to_string(),
                        "seed {seed} walk {walk} step {step}"
                    );
                }
            }
        }
    }
    println!("{clean} clean drafts, {ran} run");
    assert!(
        clean > 20 && ran > 10,
        "the walk reaches runnable drafts: {clean} clean, {ran} run"
    );
}

/// Issue 17 item 1: the editor adds every timeline event a user can take, savepoints and
/// stop-with-savepoint (with and without drain) included, and each added event runs.
#[test]
fn the_editor_adds_savepoint_and_stop_events_that_run() {
    use checkpoint_playground::engine::spec::Action;
    use checkpoint_playground::scenario::edit::EventKind;
    for kind in EventKind::ALL {
        let mut d = scenario::preset("healthy").unwrap();
        d.events.clear();
        let i = edit::add_event(&mut d, kind, "3s").unwrap();
        assert_eq!(
            edit::event_kind(&d.events[i].action),
            Some(kind),
            "{kind:?}"
        );
        let spec = scenario::to_spec(&d).unwrap_or_else(|e| panic!("{kind:?}: {e:?}"));
        let mut e = Engine::new(spec).unwrap();
        e.run_until(5_000_000);
        if kind == EventKind::StopAndDrain {
            assert!(matches!(
                e.spec.events[0].action,
                Action::StopWithSavepoint { drain: true }
            ));
        }
    }
    let mut d = scenario::preset("healthy").unwrap();
    d.events.clear();
    edit::add_event(&mut d, EventKind::StopWithSavepoint, "3s").unwrap();
    let mut e = Engine::new(scenario::to_spec(&d).unwrap()).unwrap();
    e.run_to_end();
    let stop = e.report().stop_with_savepoint.expect("the job was stopped");
    assert_eq!(stop.status, "finished", "{stop:?}");
    assert!(stop.savepoint_path.is_some(), "{stop:?}");
}
