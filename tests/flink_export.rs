//! The Flink exporter (issue 16): structure of the generated job for every preset, the
//! mapping of partitioners, sources, sinks and events, and that whatever cannot be exported
//! is listed (never dropped in silence). Compiling and running the exports on real Flink is
//! the 6th layer of scripts/test.sh (scripts/test-flink.sh).

use checkpoint_playground::flink_export::{self, figures, zip};
use checkpoint_playground::scenario::{self, Document};

fn doc(json: &str) -> Document {
    scenario::parse_json(json).unwrap()
}

#[test]
fn every_preset_exports_a_complete_job() {
    for name in scenario::preset_names() {
        let d = scenario::preset(name).unwrap();
        let spec = scenario::to_spec(&d).unwrap();
        let ex = flink_export::export(&d).unwrap_or_else(|e| panic!("{name}: {e}"));
        for f in [
            "src/main/java/playground/ScenarioJob.java",
            "src/main/java/playground/Playground.java",
            "config.yaml",
            "pom.xml",
            "run-local.sh",
            "README.md",
            "scenario.json",
        ] {
            assert!(ex.file(f).is_some(), "{name}: no {f}");
        }
        let job = ex
            .file("src/main/java/playground/ScenarioJob.java")
            .unwrap();
        for o in &spec.operators {
            let named = format!(
                ".setParallelism({}).name(\"{}\").uid(\"{}\")",
                o.parallelism, o.id, o.id
            );
            assert!(
                job.contains(&named),
                "{name}: operator {} missing: {job}",
                o.id
            );
        }
        // One statement per operator, sources first (topological order).
        let config = ex.file("config.yaml").unwrap();
        assert!(
            config.contains("execution.checkpointing.interval: "),
            "{name}"
        );
        assert!(config.contains("rest.bind-address: 127.0.0.1"), "{name}");
        assert!(
            config.contains("taskmanager.memory.segment-size: "),
            "{name}"
        );
        let readme = ex.file("README.md").unwrap();
        for section in [
            "## What maps exactly",
            "## What maps approximately",
            "## What could not be exported",
            "Chaining",
        ] {
            assert!(readme.contains(section), "{name}: README lacks {section}");
        }
        for n in &ex.notes.not_exported {
            assert!(
                readme.contains(n.as_str()),
                "{name}: README does not list {n}"
            );
        }
        assert!(ex
            .files
            .iter()
            .any(|f| f.path == "run-local.sh" && f.executable));
        // The scenario travels with its export and reads back to the same job.
        let back = scenario::parse_json(ex.file("scenario.json").unwrap()).unwrap();
        assert_eq!(scenario::to_spec(&back).unwrap(), spec, "{name}");
    }
}

#[test]
fn what_cannot_be_exported_is_listed() {
    let cases: &[(&str, &[&str])] = &[
        (
            "two-phases",
            &[
                "config.playground.storage.throughput",
                "config.playground.storage.file-cost",
                "config.playground.network.latency",
            ],
        ),
        ("topology-change", &["events[0].resubmit"]),
        ("serializer-change", &["events[0].resubmit"]),
        ("why-uc", &["operators[0].retention"]),
        (
            "flatmap-stuck",
            &[
                "config.playground.task.availability-check",
                "config.taskmanager.network.memory.max-overdraft-buffers-per-gate",
            ],
        ),
    ];
    for (name, paths) in cases {
        let ex = flink_export::export(&scenario::preset(name).unwrap()).unwrap();
        for p in *paths {
            assert!(
                ex.notes.lists_not_exported(p),
                "{name}: {p} not listed in {:?}",
                ex.notes.not_exported
            );
        }
    }
    // A preset with nothing unexportable lists nothing.
    let ex = flink_export::export(&scenario::preset("backpressure").unwrap()).unwrap();
    assert!(
        ex.notes.not_exported.is_empty(),
        "{:?}",
        ex.notes.not_exported
    );
}

#[test]
fn partitioners_unions_sources_sinks_and_events_map_to_the_datastream_api() {
    let d = doc(r#"{
      "version": 1, "name": "all \"kinds\"", "duration": "30s", "seed": 3,
      "config": {"execution.checkpointing.interval": "1s",
                 "execution.checkpointing.unaligned.enabled": true,
                 "state.storage.fs.memory-threshold": "1kb"},
      "operators": [
        {"id": "a", "kind": "source", "parallelism": 2, "rate": 100, "records": 50, "skew": 0.5},
        {"id": "b", "kind": "source", "parallelism": 1, "legacy": true},
        {"id": "m", "kind": "map", "parallelism": 2},
        {"id": "f", "kind": "flat_map", "parallelism": 2, "fan_out": 4},
        {"id": "k", "kind": "keyed_aggregate", "parallelism": 2},
        {"id": "s1", "kind": "sink", "parallelism": 2, "delivery": "at_least_once"},
        {"id": "s2", "kind": "sink", "parallelism": 1, "delivery": "idempotent"},
        {"id": "s3", "kind": "sink", "parallelism": 2}
      ],
      "edges": [
        {"from": "a", "to": "m", "partitioner": "forward"},
        {"from": "b", "to": "m", "partitioner": "broadcast"},
        {"from": "m", "to": "f", "partitioner": "rescale"},
        {"from": "f", "to": "k", "partitioner": "hash"},
        {"from": "k", "to": "s1", "partitioner": "hash"},
        {"from": "k", "to": "s2"},
        {"from": "f", "to": "s3"}
      ],
      "events": [
        {"at": "5s", "set_rate": {"operator": "a", "rate": 10}},
        {"at": "6s", "set_cost": {"operator": "m", "cost": "2ms"}},
        {"at": "7s", "fail": {"operator": "k", "subtask": 1}},
        {"at": "8s", "trigger_checkpoint": {}}
      ]
    }"#);
    let ex = flink_export::export(&d).unwrap();
    let job = ex
        .file("src/main/java/playground/ScenarioJob.java")
        .unwrap();
    for needle in [
        "env.fromSource(new DataGeneratorSource<>(",
        "100L, new ScheduledRate(new Schedule(100.0, new long[]{5000000L}, new double[]{10.0}))",
        "new RecordShape(\"a\", 64, 0.5, 212, 3L)",
        "env.addSource(new LegacySource(",
        "s0.forward().union(s1.broadcast())",
        ".map(new CostMap(new Behaviour(\"m\", new Schedule(100.0, new long[]{6000000L}, new double[]{2000.0})), true))",
        "s2.rescale()",
        ".flatMap(new FanOut(",
        ", 4, false))",
        "s3.keyBy(new ByKey())",
        "new Failure(\"k\", 1, 7000000L)",
        "s4.keyBy(new ByKey())\n                .sinkTo(new DirectSink(",
        "s4.rebalance()\n                .sinkTo(new DirectSink(",
        "s3.forward()\n                .sinkTo(new TwoPhaseCommitSink(",
        "Arrays.asList(new Trigger(8000000L))",
        "env.executeAsync(\"all \\\"kinds\\\"\")",
    ] {
        assert!(job.contains(needle), "missing {needle:?} in\n{job}");
    }
    let config = ex.file("config.yaml").unwrap();
    assert!(config.contains("execution.checkpointing.unaligned.enabled: true"));
    assert!(config.contains("execution.checkpointing.data-inline-threshold: 1kb"));
    assert!(config.contains("taskmanager.numberOfTaskSlots: 2"));
    // Flink's chaining of the forward edge is said.
    assert!(ex
        .notes
        .approximate
        .iter()
        .any(|n| n.starts_with("edge f -> s3: Flink chains it")));
    assert!(
        ex.notes.not_exported.is_empty(),
        "{:?}",
        ex.notes.not_exported
    );
}

#[test]
fn an_invalid_scenario_is_refused_with_its_field() {
    let d = doc(r#"{"version": 1, "operators": [{"id": "s", "kind": "source", "rate": -1}]}"#);
    let e = flink_export::export(&d).unwrap_err();
    assert!(e.path.starts_with("operators[0]"), "{e}");
}

#[test]
fn java_strings_are_escaped() {
    use flink_export::job_java::java_str;
    assert_eq!(java_str("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_eq!(java_str("é\n"), "\"\\u00e9\\u000a\"");
}

#[test]
fn the_zip_is_a_valid_store_only_archive() {
    let ex = flink_export::export(&scenario::preset("healthy").unwrap()).unwrap();
    let bytes = ex.to_zip("healthy-flink");
    assert_eq!(&bytes[..4], &[0x50, 0x4b, 0x03, 0x04]);
    let eocd = bytes.len() - 22;
    assert_eq!(&bytes[eocd..eocd + 4], &[0x50, 0x4b, 0x05, 0x06]);
    let entries = u16::from_le_bytes([bytes[eocd + 10], bytes[eocd + 11]]) as usize;
    assert_eq!(entries, ex.files.len());
    let cd_offset = u32::from_le_bytes(bytes[eocd + 16..eocd + 20].try_into().unwrap()) as usize;
    assert_eq!(&bytes[cd_offset..cd_offset + 4], &[0x50, 0x4b, 0x01, 0x02]);
    // Every file's bytes are stored verbatim after its local header.
    let readme = ex.file("README.md").unwrap();
    let hay = String::from_utf8_lossy(&bytes);
    assert!(hay.contains("healthy-flink/README.md"));
    assert!(hay.contains(readme));
    // Deterministic: the same export, the same archive.
    assert_eq!(bytes, ex.to_zip("healthy-flink"));
    assert_eq!(zip::store(&[]).len(), 22);
}

#[test]
fn figures_pair_flink_with_the_simulator() {
    assert_eq!(figures::median(vec![3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(figures::median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
    let a = figures::Figures {
        completed: 10,
        median_end_to_end_ms: Some(100.0),
        ..Default::default()
    };
    let b = figures::Figures {
        completed: 5,
        median_end_to_end_ms: Some(300.0),
        ..Default::default()
    };
    let rows = figures::rows(&a, &b);
    assert_eq!(rows[0].ratio, Some(0.5));
    assert_eq!(rows[2].ratio, Some(3.0));
    assert_eq!(figures::show_ratio(&rows[2]), "3.00×");
    // A Flink checkpoint from the REST API, relative to the scenario clock.
    let entry = serde_json::json!({"id": 4, "status": "COMPLETED", "trigger_timestamp": 10_500,
        "end_to_end_duration": 42, "persisted_data": 4096, "checkpointed_size": 9000,
        "checkpoint_type": "UNALIGNED_CHECKPOINT"});
    let subtasks = vec![serde_json::json!({"subtasks": [
        {"alignment": {"duration": 3}, "start_delay": 7},
        {"alignment": {"duration": 5}, "start_delay": 2}]})];
    let c = figures::flink_checkpoint(&entry, &subtasks, 10_000.0).unwrap();
    assert_eq!(
        (c.trigger_ms, c.alignment_ms, c.start_delay_ms, c.unaligned),
        (500.0, 5.0, 7.0, true)
    );
    let in_progress = serde_json::json!({"id": 5, "status": "IN_PROGRESS"});
    assert!(figures::flink_checkpoint(&in_progress, &[], 0.0).is_none());
}

#[test]
fn the_cli_writes_the_export_and_refuses_a_missing_folder() {
    use std::os::unix::fs::PermissionsExt;
    let bin = env!("CARGO_BIN_EXE_checkpoint-playground");
    let dir = std::env::temp_dir().join(format!("cp-flink-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(bin)
        .args([
            "export",
            "--flink",
            dir.to_str().unwrap(),
            "--preset",
            "two-phases",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("not exported: config.playground.storage.throughput"),
        "{stdout}"
    );
    let script = dir.join("run-local.sh");
    assert!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o111 != 0);
    assert!(dir
        .join("src/main/java/playground/ScenarioJob.java")
        .is_file());
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(bin)
        .args(["export", "--preset", "two-phases"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs --flink DIR"));
}
