//! Guided presets: every preset opens and reaches the figures its guide promises, and so
//! does every "try" (the preset re-run with the options the guide tells the user to
//! touch). Each run prints its figures, so a failing bound shows what the engine did.
//! Also: guides cover every section of the article, and bad guides are rejected with
//! the path of the mistake.

use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::guide::{section_title, Expectation, SECTIONS};
use checkpoint_playground::scenario::{parse_json, preset, preset_names, to_spec, Document};

/// Runs `doc` to its end and checks `expect`; returns the failures as text.
fn check(label: &str, doc: &Document, expect: &[Expectation]) -> Vec<String> {
    let spec = to_spec(doc).unwrap_or_else(|e| panic!("{label}: {e}"));
    let mut engine = Engine::new(spec.clone()).unwrap();
    engine.run_until(spec.duration);
    let report = engine.report();
    let mut failures = vec![];
    for e in expect {
        let outcome = e.evaluate(&report);
        let scope = e
            .operator
            .as_deref()
            .map(|o| format!(" at {o}"))
            .unwrap_or_default();
        let window = match (&e.after, &e.before) {
            (Some(a), Some(b)) => format!(" [{a}, {b})"),
            (Some(a), None) => format!(" after {a}"),
            (None, Some(b)) => format!(" before {b}"),
            (None, None) => String::new(),
        };
        let line = format!(
            "{label}: {}{scope}{window} = {:?} (want {}) — {}",
            e.metric.name(),
            outcome.value,
            e.bounds_text(),
            e.says
        );
        println!(
            "{} {line}",
            if outcome.met == Some(true) {
                "ok  "
            } else {
                "FAIL"
            }
        );
        if outcome.met != Some(true) {
            failures.push(line);
        }
    }
    failures
}

/// A preset and each of its tries reach every promised figure.
fn preset_keeps_its_promises(name: &str) {
    let doc = preset(name).unwrap();
    let guide = doc
        .guide
        .clone()
        .unwrap_or_else(|| panic!("preset {name} has no guide"));
    assert!(
        !guide.watch.is_empty(),
        "{name}: the guide says what to watch"
    );
    assert!(
        !guide.expect.is_empty(),
        "{name}: the guide promises a figure"
    );
    let mut failures = check(name, &doc, &guide.expect);
    for t in &guide.tries {
        assert!(
            !t.expect.is_empty(),
            "{name} / {}: a try promises a figure",
            t.label
        );
        let changed = t.apply(&doc).unwrap();
        failures.extend(check(&format!("{name} / {}", t.label), &changed, &t.expect));
    }
    assert!(
        failures.is_empty(),
        "broken promises:\n{}",
        failures.join("\n")
    );
}

macro_rules! promises {
    ($($test:ident => $name:literal,)*) => {
        $(#[test]
        fn $test() {
            preset_keeps_its_promises($name);
        })*

        #[test]
        fn every_preset_has_a_promise_test() {
            let tested = [$($name),*];
            for name in preset_names() {
                assert!(tested.contains(name), "add {name} to the promises! list");
            }
        }
    };
}

promises! {
    backpressure_keeps_its_promises => "backpressure",
    unaligned_keeps_its_promises => "unaligned",
    stop_with_savepoint_keeps_its_promises => "stop-with-savepoint",
    stop_with_savepoint_backpressure_keeps_its_promises => "stop-with-savepoint-backpressure",
    aligned_timeout_keeps_its_promises => "aligned-timeout",
    seed_settings_keep_their_promises => "seed-settings",
    why_uc_keeps_its_promises => "why-uc",
    two_phases_keeps_its_promises => "two-phases",
    flatmap_stuck_keeps_its_promises => "flatmap-stuck",
    legacy_source_keeps_its_promises => "legacy-source",
    small_files_keeps_its_promises => "small-files",
    topology_change_keeps_its_promises => "topology-change",
    serializer_change_keeps_its_promises => "serializer-change",
    topology_change_savepoint_keeps_its_promises => "topology-change-savepoint",
    serializer_change_savepoint_keeps_its_promises => "serializer-change-savepoint",
    rescale_unaligned_keeps_its_promises => "rescale-unaligned",
    operator_removed_keeps_its_promises => "operator-removed",
    recovery_checkpoints_keep_their_promises => "recovery-checkpoints",
    large_keeps_its_promises => "large",
    healthy_keeps_its_promises => "healthy",
}

#[test]
fn every_section_of_the_article_has_a_guided_preset() {
    for (n, title) in SECTIONS {
        let covered: Vec<&str> = preset_names()
            .iter()
            .copied()
            .filter(|p| preset(p).unwrap().guide.and_then(|g| g.section) == Some(*n))
            .collect();
        assert!(
            !covered.is_empty(),
            "section {n} ({title}) has no guided preset"
        );
        println!("section {n} {title}: {covered:?}");
    }
    assert_eq!(
        section_title(2),
        Some("How unaligned checkpoints work: two phases")
    );
    assert_eq!(section_title(9), None);
}

/// A small valid document with `guide` spliced in.
fn with_guide(guide: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "g", "duration": "5s",
            "operators": [{{"id": "src", "kind": "source"}}, {{"id": "out", "kind": "sink"}}],
            "edges": [{{"from": "src", "to": "out"}}],
            "guide": {guide}}}"#
    )
}

fn error_of(guide: &str) -> (String, String) {
    let text = with_guide(guide);
    let err = match parse_json(&text) {
        Err(e) => e,
        Ok(doc) => to_spec(&doc).expect_err("the guide should be rejected"),
    };
    (err.path, err.message)
}

#[test]
fn bad_guides_name_the_mistake() {
    let (path, msg) = error_of(r#"{"section": 7, "watch": []}"#);
    assert_eq!(path, "guide.section");
    assert!(msg.contains("not a section"), "{msg}");

    let (path, msg) =
        error_of(r#"{"watch": [], "expect": [{"metric": "speed", "min": 1, "says": "x"}]}"#);
    assert_eq!(path, "guide.expect[0].metric");
    assert!(
        msg.contains("unknown metric 'speed'") && msg.contains("median_end_to_end_ms"),
        "{msg}"
    );

    let (path, msg) =
        error_of(r#"{"watch": [], "expect": [{"metric": "busy_ratio", "max": 1, "says": "x"}]}"#);
    assert_eq!(path, "guide.expect[0].operator");
    assert!(msg.contains("per operator"), "{msg}");

    let (path, _) = error_of(
        r#"{"watch": [], "expect": [{"metric": "duplicates", "operator": "out", "max": 1, "says": "x"}]}"#,
    );
    assert_eq!(path, "guide.expect[0].operator");

    let (path, msg) =
        error_of(r#"{"watch": [], "expect": [{"metric": "duplicates", "says": "x"}]}"#);
    assert_eq!(path, "guide.expect[0]");
    assert!(msg.contains("needs a bound"), "{msg}");

    let (path, msg) = error_of(
        r#"{"watch": [], "expect": [{"metric": "duplicates", "after": "5s", "max": 0, "says": "x"}]}"#,
    );
    assert_eq!(path, "guide.expect[0].after");
    assert!(msg.contains("no time window"), "{msg}");

    let (path, _) = error_of(
        r#"{"watch": [], "expect": [{"metric": "completed_checkpoints", "after": "soon", "min": 1, "says": "x"}]}"#,
    );
    assert_eq!(path, "guide.expect[0].after");

    let (path, msg) = error_of(
        r#"{"watch": [], "expect": [{"metric": "busy_ratio", "operator": "nope", "max": 1, "says": "x"}]}"#,
    );
    assert_eq!(path, "guide.expect[0].operator");
    assert!(msg.contains("unknown operator 'nope'"), "{msg}");

    let (path, msg) = error_of(
        r#"{"watch": [], "try": [{"label": "l", "why": "w", "set": {"execution.checkpointing.intervall": "1s"}}]}"#,
    );
    assert_eq!(path, "guide.try[0].set");
    assert!(
        msg.contains("execution.checkpointing.interval"),
        "suggests the key: {msg}"
    );

    let (path, _) = error_of(r#"{"watch": [], "try": [{"label": "l", "why": "w", "set": {}}]}"#);
    assert_eq!(path, "guide.try[0].set");

    let (path, msg) = error_of(r#"{"watch": [], "hint": "x"}"#);
    assert_eq!(path, "guide.hint");
    assert!(msg.contains("unknown field"), "{msg}");
}

#[test]
fn expectations_wait_for_data_and_check_both_bounds() {
    let doc = parse_json(&with_guide(
        r#"{"watch": ["w"], "expect": [
            {"metric": "median_end_to_end_ms", "after": "3s", "max": 1000, "says": "fast"},
            {"metric": "completed_checkpoints", "min": 1, "max": 1, "says": "one"}]}"#,
    ))
    .unwrap();
    let mut spec = to_spec(&doc).unwrap();
    spec.config.checkpoint_interval = Some(1_000_000);
    let mut engine = Engine::new(spec).unwrap();
    let g = doc.guide.unwrap();
    let report = engine.report();
    let nothing = g.expect[0].evaluate(&report);
    assert_eq!(
        (nothing.value, nothing.met),
        (None, None),
        "no checkpoint yet"
    );
    engine.run_until(5_000_000);
    let report = engine.report();
    let fast = g.expect[0].evaluate(&report);
    assert_eq!(fast.met, Some(true), "{fast:?}");
    let one = g.expect[1].evaluate(&report);
    assert!(one.value.unwrap() >= 3.0);
    assert_eq!(one.met, Some(false), "over the max: {one:?}");
    assert_eq!(g.expect[1].bounds_text(), "= 1");
    assert_eq!(g.expect[0].bounds_text(), "≤ 1000 ms");
}

/// A try may change the job's operators (the remedy of the legacy-source preset is a
/// FLIP-27 source, not a Flink option): an unknown field or operator is named by path.
#[test]
fn tries_that_change_operators_name_their_mistakes() {
    let (path, msg) = error_of(
        r#"{"watch": [], "try": [{"label": "l", "why": "w", "operators": {"src": {"legacyy": false}}}]}"#,
    );
    assert_eq!(path, "guide.try[0].operators.src.legacyy");
    assert!(msg.contains("legacy"), "lists the fields: {msg}");
    let (path, msg) = error_of(
        r#"{"watch": [], "try": [{"label": "l", "why": "w", "operators": {"nope": {"legacy": false}}}]}"#,
    );
    assert_eq!(path, "guide.try[0].operators");
    assert!(msg.contains("nope"), "{msg}");
    let (path, _) =
        error_of(r#"{"watch": [], "try": [{"label": "l", "why": "w", "operators": {}}]}"#);
    assert_eq!(path, "guide.try[0].operators");
    let doc = preset("legacy-source").unwrap();
    let t = &doc.guide.as_ref().unwrap().tries[0];
    assert_eq!(t.changes(), ["operators.source.legacy = false"]);
    let flip27 = t.apply(&doc).unwrap();
    assert_eq!(flip27.operators[0].legacy, Some(false));
    assert!(
        flip27.config == doc.config,
        "the try changes the job, not the config"
    );
}

/// `savepoint_end_to_end_ms` takes a time window like the other figures over checkpoints:
/// in `stop-with-savepoint-backpressure` the window before 20 s holds the `flink savepoint`
/// at 15 s and the one after 39 s the stop's synchronous savepoint, each its own duration.
#[test]
fn the_savepoint_duration_is_read_per_window() {
    use checkpoint_playground::scenario::guide::Metric;
    let doc = preset("stop-with-savepoint-backpressure").unwrap();
    let spec = to_spec(&doc).unwrap();
    let mut engine = Engine::new(spec.clone()).unwrap();
    engine.run_until(spec.duration);
    let report = engine.report();
    let savepoint = |from: f64, to: f64| {
        let rows: Vec<f64> = report
            .checkpoints
            .iter()
            .filter(|c| c.is_savepoint && c.trigger_ms >= from && c.trigger_ms < to)
            .filter_map(|c| c.end_to_end_ms)
            .collect();
        assert_eq!(rows.len(), 1, "one savepoint in [{from}, {to}) ms");
        rows[0]
    };
    let (plain, stop) = (savepoint(0.0, 20_000.0), savepoint(39_000.0, f64::MAX));
    assert_ne!(plain, stop);
    let guide = doc.guide.unwrap();
    let windowed: Vec<_> = guide
        .expect
        .iter()
        .filter(|e| e.metric == Metric::SavepointEndToEndMs)
        .collect();
    assert_eq!(windowed.len(), 2);
    assert_eq!(windowed[0].evaluate(&report).value, Some(plain));
    assert_eq!(windowed[1].evaluate(&report).value, Some(stop));
}
