//! Export and import of a scenario as a JSON file, and a chart as a standalone SVG:
//! an exported run imports back to the same job and replays to the same event hash (in
//! the engine and in the headless runner); an import that cannot be opened names where
//! the problem is; a copied chart is well-formed XML that carries its series, title and
//! legend.

use checkpoint_playground::engine::spec::Action;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::{
    self, export_json, file_name, import_json, preset_names, to_spec, MAX_IMPORT_BYTES,
};
use checkpoint_playground::ui::chart_export::{self, ChartData, Mark, NAMES};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_checkpoint-playground");

fn engine_of(preset: &str) -> (Engine, Option<String>) {
    let doc = scenario::preset(preset).unwrap();
    (
        Engine::new(to_spec(&doc).unwrap()).unwrap(),
        doc.description.clone(),
    )
}

/// A run of `healthy` with one of each kind of recorded action, stopped at 9s.
fn run_with_actions() -> (Engine, Option<String>) {
    let (mut e, description) = engine_of("healthy");
    e.run_until(1_500_000);
    e.apply(Action::SetCost {
        operator: "map".into(),
        cost: 400,
    })
    .unwrap();
    e.run_until(3_200_000);
    e.apply(Action::TriggerCheckpoint).unwrap();
    e.run_until(4_100_000);
    e.apply(Action::Fail {
        operator: "map".into(),
        subtask: 1,
    })
    .unwrap();
    e.run_until(6_000_000);
    e.apply(Action::SetConfig {
        key: "execution.checkpointing.unaligned.enabled".into(),
        value: "true".into(),
    })
    .unwrap();
    e.apply(Action::SetRate {
        operator: "src".into(),
        rate: 2500.0,
    })
    .unwrap();
    e.run_until(9_000_000);
    (e, description)
}

#[test]
fn every_preset_exports_and_imports_back_to_the_same_job() {
    for name in preset_names() {
        let (engine, description) = engine_of(name);
        let json = export_json(&engine.spec, description.as_deref());
        assert!(
            json.ends_with("}\n"),
            "{name}: pretty JSON with a final newline"
        );
        let (doc, spec) = import_json(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(spec, engine.spec, "{name}");
        let preset = scenario::preset(name).unwrap();
        assert_eq!(doc.name, preset.name, "{name}");
        assert_eq!(doc.description, preset.description, "{name}");
    }
}

#[test]
fn an_export_with_recorded_actions_replays_to_the_same_hash() {
    let (engine, description) = run_with_actions();
    assert_eq!(engine.spec.events.len(), 5, "every action is recorded");
    let json = export_json(&engine.spec, description.as_deref());
    let (_, spec) = import_json(&json).unwrap();
    assert_eq!(spec, engine.spec);
    let mut replay = Engine::new(spec).unwrap();
    replay.run_until(engine.now);
    assert_eq!(replay.now, engine.now);
    assert_eq!(replay.event_hash(), engine.event_hash());
    assert_eq!(replay.report(), engine.report());
}

#[test]
fn the_headless_runner_runs_an_exported_file_to_the_same_hash() {
    let (engine, description) = run_with_actions();
    let dir = std::env::temp_dir().join(format!("cp-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(file_name(&engine.spec.name));
    std::fs::write(&path, export_json(&engine.spec, description.as_deref())).unwrap();
    let out = Command::new(BIN)
        .args(["run", path.to_str().unwrap(), "--until", "9s", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["event_hash"],
        format!("{:016x}", engine.event_hash()),
        "the CLI replays the exported run exactly"
    );
    assert_eq!(report["event_hash"], engine.report().event_hash);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn file_names_are_slugs_of_the_scenario_name() {
    assert_eq!(
        file_name("Healthy job: no backpressure"),
        "healthy-job-no-backpressure.json"
    );
    assert_eq!(
        file_name("  Aligned → unaligned (timeout)!  "),
        "aligned-unaligned-timeout.json"
    );
    assert_eq!(file_name("→ ←"), "scenario.json");
    assert_eq!(file_name(""), "scenario.json");
    let long = file_name(&"a".repeat(500));
    assert_eq!(long.len(), 60 + ".json".len());
}

fn refused(text: &str) -> scenario::ScenarioError {
    let e = import_json(text).expect_err("must be refused");
    assert!(!e.to_string().contains('\n'), "one line: {e}");
    e
}

fn healthy_json() -> serde_json::Value {
    serde_json::from_str(scenario::presets::preset_json("healthy").unwrap()).unwrap()
}

#[test]
fn import_errors_name_the_offending_part() {
    let mut v = healthy_json();
    v["seed"] = serde_json::json!("seven");
    let e = refused(&v.to_string());
    assert_eq!(e.path, "seed", "{e}");

    let mut v = healthy_json();
    v["operators"][1]["parallelism"] = serde_json::json!([2]);
    assert_eq!(refused(&v.to_string()).path, "operators[1].parallelism");

    let mut v = healthy_json();
    v["edges"][0]["to"] = serde_json::json!("mapp");
    let e = refused(&v.to_string());
    assert_eq!(e.path, "edges[0].to", "{e}");
    assert!(e.message.contains("unknown operator 'mapp'"), "{e}");

    let e = refused("{\n  \"version\": 1,\n  \"name\": \"x\"\n  \"seed\": 3\n}");
    assert_eq!(e.path, "line 4 column 3", "{e}");
    assert!(e.message.starts_with("invalid JSON"), "{e}");

    let e = refused(" \n\t ");
    assert_eq!(e.path, "input");
    assert!(e.message.contains("nothing to open"), "{e}");
}

#[test]
fn an_oversized_import_is_refused_before_parsing() {
    let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_IMPORT_BYTES));
    let e = refused(&huge);
    assert_eq!(e.path, "input");
    assert!(e.message.contains("the limit is 1 MB"), "{e}");
    // Just under the limit, the reader itself answers.
    let under = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_IMPORT_BYTES - 20));
    assert_ne!(refused(&under).path, "input");
}

/// Checks that `text` is well-formed XML as the SVG writer produces it: one root
/// element, balanced and properly nested tags, quoted unique attributes, no raw `<` or
/// `&` outside markup and entities. Returns the element names in document order.
fn well_formed(text: &str) -> Result<Vec<String>, String> {
    let b = text.as_bytes();
    let (mut i, mut stack, mut names, mut roots) = (0, Vec::<String>::new(), Vec::new(), 0);
    let name_at = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && (b[*i].is_ascii_alphanumeric() || b"-_:".contains(&b[*i])) {
            *i += 1;
        }
        (start < *i)
            .then(|| text[start..*i].to_string())
            .ok_or(format!("a name expected at {start}"))
    };
    let entity = |i: usize| -> Result<usize, String> {
        let end = text[i..]
            .find(';')
            .ok_or(format!("unterminated & at {i}"))?;
        let e = &text[i + 1..i + end];
        let ok = matches!(e, "amp" | "lt" | "gt" | "quot" | "apos")
            || (e.starts_with('#') && e[1..].chars().all(|c| c.is_ascii_digit()));
        ok.then_some(i + end + 1)
            .ok_or(format!("bad entity &{e}; at {i}"))
    };
    while i < b.len() {
        match b[i] {
            b'<' if b.get(i + 1) == Some(&b'/') => {
                i += 2;
                let name = name_at(&mut i)?;
                if b.get(i) != Some(&b'>') {
                    return Err(format!("'>' expected after </{name} at {i}"));
                }
                i += 1;
                match stack.pop() {
                    Some(open) if open == name => {}
                    other => return Err(format!("</{name}> closes {other:?}")),
                }
            }
            b'<' => {
                i += 1;
                let name = name_at(&mut i)?;
                if stack.is_empty() {
                    roots += 1;
                }
                names.push(name.clone());
                let mut attrs = Vec::new();
                loop {
                    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
                        i += 1;
                    }
                    match b.get(i) {
                        Some(b'/') if b.get(i + 1) == Some(&b'>') => {
                            i += 2;
                            break;
                        }
                        Some(b'>') => {
                            i += 1;
                            stack.push(name.clone());
                            break;
                        }
                        Some(_) => {
                            let attr = name_at(&mut i)?;
                            if attrs.contains(&attr) {
                                return Err(format!("duplicate attribute {attr} on <{name}>"));
                            }
                            attrs.push(attr.clone());
                            if b.get(i) != Some(&b'=') || b.get(i + 1) != Some(&b'"') {
                                return Err(format!("{attr}= and a quote expected at {i}"));
                            }
                            i += 2;
                            while b.get(i) != Some(&b'"') {
                                match b.get(i) {
                                    None | Some(b'<') => {
                                        return Err(format!("bad value of {attr} at {i}"))
                                    }
                                    Some(b'&') => i = entity(i)?,
                                    Some(_) => i += 1,
                                }
                            }
                            i += 1;
                        }
                        None => return Err(format!("<{name} not closed")),
                    }
                }
            }
            b'&' => i = entity(i)?,
            c => {
                if stack.is_empty() && !c.is_ascii_whitespace() {
                    return Err(format!("text outside the root at {i}"));
                }
                i += 1;
            }
        }
    }
    if !stack.is_empty() || roots != 1 {
        return Err(format!("open at the end: {stack:?}, {roots} roots"));
    }
    Ok(names)
}

#[test]
fn the_xml_check_itself_refuses_broken_documents() {
    assert!(well_formed(r#"<svg a="1"><g><rect/></g></svg>"#).is_ok());
    for bad in [
        "<svg><g></svg></g>",
        "<svg>",
        "<svg a=1/>",
        r#"<svg a="1" a="2"/>"#,
        "<svg>a & b</svg>",
        r#"<svg t="<"/>"#,
        "<svg/><svg/>",
    ] {
        assert!(well_formed(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_copied_chart_is_standalone_well_formed_svg_with_its_series() {
    let (mut engine, _) = engine_of("backpressure");
    engine.run_until(12_000_000);
    let data = ChartData::from_engine(&engine);
    let report = engine.report();
    assert!(
        report.checkpoints.len() >= 2,
        "the run has checkpoints to draw"
    );
    for name in NAMES {
        let chart = chart_export::chart(name, &data, &report).unwrap();
        let svg = chart_export::standalone_svg(&chart);
        let elements = well_formed(&svg).unwrap_or_else(|e| panic!("{name}: {e}\n{svg}"));
        assert_eq!(elements[0], "svg");
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" "#),
            "{name}"
        );
        assert!(
            svg.contains(r##"fill="#ffffff""##),
            "{name}: white background"
        );
        assert!(
            svg.contains(&chart_export::xml_escape(chart.title)),
            "{name}: title"
        );
        assert!(!svg.contains("var(--"), "{name}: no page CSS variables");
        for (label, color) in &chart.legend {
            assert!(
                svg.contains(&format!(">{}</text>", chart_export::xml_escape(label))),
                "{name}: legend {label}"
            );
            assert!(
                svg.contains(&format!("fill=\"{color}\"")),
                "{name}: {color}"
            );
        }
        assert!(!chart.marks.is_empty(), "{name}: something to draw");
        for mark in &chart.marks {
            let needle = match mark {
                Mark::Line { points, color } => {
                    format!(
                        "points=\"{}\" fill=\"none\" stroke=\"{color}\"",
                        points.trim_end()
                    )
                }
                Mark::Area { points } => format!("points=\"{}\"", points.trim_end()),
                Mark::Bar { x, y, .. } => format!("x=\"{x:.1}\" y=\"{y:.1}\""),
            };
            assert!(svg.contains(&needle), "{name}: mark {needle}");
        }
    }
    let throughput = chart_export::chart("throughput", &data, &report).unwrap();
    assert_eq!(
        throughput.marks.len(),
        engine.operators.len(),
        "a series per operator"
    );
    let bars = chart_export::chart("duration", &data, &report).unwrap();
    assert_eq!(
        bars.marks.len(),
        report.checkpoints.len(),
        "a bar per checkpoint"
    );
    assert!(chart_export::chart("nonsense", &data, &report).is_none());
}

/// A history of `n` checkpoints, one a second, each `10 + id % 7` ms long; the ids in
/// `failed` failed and the last one is in progress.
fn history(n: u64, failed: &[u64]) -> checkpoint_playground::engine::report::Report {
    use checkpoint_playground::engine::report::{CheckpointReport, Report};
    let checkpoints = (1..=n)
        .map(|id| {
            let status = if failed.contains(&id) {
                "failed"
            } else if id == n {
                "in_progress"
            } else {
                "completed"
            };
            CheckpointReport {
                id,
                status: status.into(),
                unaligned: id % 3 == 0,
                trigger_ms: id as f64 * 1000.0,
                latest_ack_ms: Some(id as f64 * 1000.0 + 5.0),
                end_to_end_ms: (status == "completed").then_some(10.0 + (id % 7) as f64),
                persisted_inflight_bytes: id * 100,
                ..Default::default()
            }
        })
        .collect();
    Report {
        checkpoints,
        ..Default::default()
    }
}

#[test]
fn a_long_history_is_drawn_as_a_bar_per_span_of_the_run_and_hides_no_failure() {
    let data = |seconds: u64| ChartData {
        duration: seconds * 1_000_000,
        ..Default::default()
    };
    let bars = |chart: &chart_export::Chart| -> Vec<(f64, f64, &'static str, String)> {
        chart
            .marks
            .iter()
            .map(|m| match m {
                Mark::Bar {
                    x,
                    height,
                    class,
                    title,
                    ..
                } => (*x, *height, *class, title.clone()),
                other => panic!("not a bar: {other:?}"),
            })
            .collect()
    };
    // Up to the limit, a bar per checkpoint, as before.
    let short = history(chart_export::MAX_BARS as u64, &[7]);
    let one_each = bars(&chart_export::chart("duration", &data(3_600), &short).unwrap());
    assert_eq!(one_each.len(), chart_export::MAX_BARS);
    assert!(one_each[6].3.starts_with("checkpoint 7 (") && one_each[6].2 == "bar-failed");

    // An hour of checkpoints: a bar per span, in time order, none hidden.
    let failed = [1_000, 2_345];
    let long = history(3_600, &failed);
    for name in ["duration", "persisted"] {
        let chart = chart_export::chart(name, &data(3_600), &long).unwrap();
        let drawn = bars(&chart);
        assert_eq!(drawn.len(), chart_export::BINS, "{name}: a bar per span");
        assert!(
            drawn.windows(2).all(|w| w[0].0 < w[1].0),
            "{name}: in time order"
        );
        // Every checkpoint is counted once, in the bar of its span.
        let mut counted = 0;
        let mut next_first = 1;
        for (_, _, _, title) in &drawn {
            let ids = title.strip_prefix("checkpoints ").expect(title);
            let (first, rest) = ids.split_once('–').expect(title);
            let last: u64 = rest.split(' ').next().unwrap().parse().unwrap();
            assert_eq!(first.parse::<u64>().unwrap(), next_first, "{name}: {title}");
            next_first = last + 1;
            let counts = &rest[rest.find('(').unwrap() + 1..rest.find(')').unwrap()];
            let n: u64 = counts
                .split(", ")
                .map(|c| c.split(' ').next().unwrap().parse::<u64>().unwrap())
                .sum();
            assert_eq!(
                n,
                last - first.parse::<u64>().unwrap() + 1,
                "{name}: {title}"
            );
            counted += n;
        }
        assert_eq!(counted, 3_600, "{name}");
        // The spans holding a failure are red, the others are not.
        for (_, _, class, title) in &drawn {
            let ids = title.strip_prefix("checkpoints ").unwrap();
            let (first, rest) = ids.split_once('–').unwrap();
            let span =
                first.parse::<u64>().unwrap()..=rest.split(' ').next().unwrap().parse().unwrap();
            let holds_failure = failed.iter().any(|id| span.contains(id));
            assert_eq!(*class == "bar-failed", holds_failure, "{name}: {title}");
            assert_eq!(title.contains(" failed"), holds_failure, "{name}: {title}");
        }
    }
    // A bar is as tall as the longest checkpoint it stands for: the longest here is 16 ms,
    // in every span of 26 or 27 checkpoints, so every completed span reaches the same height.
    let drawn = bars(&chart_export::chart("duration", &data(3_600), &long).unwrap());
    let tallest = drawn.iter().map(|b| b.1).fold(0.0, f64::max);
    assert!(drawn.iter().all(|b| b.1 == tallest), "{drawn:?}");
    assert!(drawn[0].3.contains("longest 16ms"), "{}", drawn[0].3);

    // Part-way through the hour, only the spans reached so far have a bar, and the spans
    // already drawn do not move when more checkpoints come.
    let early = bars(&chart_export::chart("duration", &data(3_600), &history(600, &[])).unwrap());
    let later = bars(&chart_export::chart("duration", &data(3_600), &history(1_200, &[])).unwrap());
    assert!(early.len() < later.len() && later.len() < chart_export::BINS);
    for (a, b) in early.iter().zip(&later).take(early.len() - 1) {
        assert_eq!(a, b, "a finished span is drawn the same later");
    }
}

#[test]
fn chart_text_is_escaped() {
    let data = ChartData {
        operators: vec!["a<b".into(), "x&y \"q\"".into()],
        throughput: vec![
            vec![(1_000_000, 10.0), (2_000_000, 30.0)],
            vec![(1_000_000, 20.0), (2_000_000, 5.0)],
        ],
        inflight: vec![(1_000_000, 100)],
        duration: 4_000_000,
    };
    let report = Default::default();
    let svg =
        chart_export::standalone_svg(&chart_export::chart("throughput", &data, &report).unwrap());
    well_formed(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
    assert!(svg.contains(">a&lt;b</text>") && svg.contains(">x&amp;y &quot;q&quot;</text>"));
}

#[test]
fn a_long_legend_wraps_inside_the_image() {
    let data = ChartData {
        operators: (0..12).map(|i| format!("operator-number-{i}")).collect(),
        throughput: vec![vec![(1_000_000, 1.0)]; 12],
        inflight: vec![],
        duration: 2_000_000,
    };
    let report = Default::default();
    let one =
        chart_export::standalone_svg(&chart_export::chart("inflight", &data, &report).unwrap());
    let many =
        chart_export::standalone_svg(&chart_export::chart("throughput", &data, &report).unwrap());
    let height = |svg: &str| -> f64 {
        let at = svg.find("height=\"").unwrap() + 8;
        svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
    };
    assert!(
        height(&many) > height(&one) + 30.0,
        "legend lines add height"
    );
    let width = 460.0 + 16.0;
    for x in many.match_indices("<rect x=\"").map(|(i, _)| {
        let s = &many[i + 9..];
        s[..s.find('"').unwrap()].parse::<f64>().unwrap()
    }) {
        assert!(
            x < width,
            "legend swatch at {x} is inside the {width} wide image"
        );
    }
}

/// Issue 19, item 5: an hour of 250-ms samples is drawn with a bounded number of points
/// per line, and a one-sample dip, a spike and the in-flight peak are still drawn.
#[test]
fn an_hour_of_samples_draws_bounded_lines_that_keep_every_spike() {
    use checkpoint_playground::engine::runtime::Sample;
    use checkpoint_playground::ui::series;
    let duration = 3_600_000_000;
    let (dip, spike, peak) = (7_777, 9_001, 12_345);
    let mut records = [0u64; 3];
    let samples: Vec<Sample> = (0..=14_400u64)
        .map(|i| {
            // Operator 0 steady at 1,000/s; 1 at 400/s but idle for one sample; 2 bursts.
            records[0] += 250;
            records[1] += if i == dip { 0 } else { 100 };
            records[2] += if i == spike { 5_000 } else { 50 };
            Sample {
                at: i * 250_000,
                records: records.to_vec(),
                activity: Vec::new(),
                hard: Vec::new(),
                inflight_bytes: if i == peak { 1 << 20 } else { 4096 + i % 7 },
            }
        })
        .collect();
    let ops = vec!["src".into(), "map".into(), "sink".into()];
    let data = ChartData::from_samples(ops, &samples, duration);
    let report = Default::default();
    let chart = chart_export::chart("throughput", &data, &report).unwrap();
    let lines: Vec<Vec<(f64, f64)>> = chart
        .marks
        .iter()
        .map(|m| match m {
            Mark::Line { points, .. } => points
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect(),
            other => panic!("not a line: {other:?}"),
        })
        .collect();
    assert_eq!(lines.len(), 3);
    for (o, line) in lines.iter().enumerate() {
        assert!(
            line.len() <= series::LIMIT,
            "operator {o}: {} points",
            line.len()
        );
        assert!(
            line.windows(2).all(|w| w[0].0 <= w[1].0),
            "operator {o}: x in order"
        );
    }
    let y = |v: f64| chart_export::sy(v, 20_000.0);
    assert_eq!(
        chart.y_max_label, "20000",
        "the axis is the full series' (20,000/s spike)"
    );
    assert!(
        lines[1]
            .iter()
            .any(|p| p.1 == (y(0.0) * 10.0).round() / 10.0),
        "the dip"
    );
    assert!(
        lines[2]
            .iter()
            .any(|p| p.1 == (y(20_000.0) * 10.0).round() / 10.0),
        "the spike"
    );
    let inflight = chart_export::chart("inflight", &data, &report).unwrap();
    assert_eq!(inflight.y_max_label, "1.9 MB", "nice(1 MiB) = 2,000,000 B");
    let Mark::Area { points } = &inflight.marks[0] else {
        panic!("an area")
    };
    assert!(points.split_whitespace().count() <= series::LIMIT + 2);
    let top = format!(",{:.1} ", chart_export::sy((1u64 << 20) as f64, 2e6));
    assert!(points.contains(&top), "the in-flight peak is drawn");
}
