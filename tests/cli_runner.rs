//! The headless runner: exit codes, the single error line, presets, links, the JSON
//! report's contract fields. Engine figures are not asserted here (the engine has its
//! own tests); only shapes and exit codes.

use checkpoint_playground::scenario;
use std::io::Write;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_checkpoint-playground");

fn cli(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("runs")
}

fn cli_stdin(args: &[&str], input: &str) -> Output {
    cli_stdin_bytes(args, input.as_bytes().to_vec())
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Asserts exit 2 and exactly one stderr line `error: <path>: <message>`; returns it.
#[track_caller]
fn assert_invalid(o: &Output) -> String {
    let err = String::from_utf8(o.stderr.clone()).unwrap();
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.ends_with('\n'));
    assert!(!err.contains("panicked"), "{err}");
    err.trim_end().to_string()
}

fn temp_file(name: &str, content: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cp-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn presets_lists_one_name_a_line() {
    let o = cli(&["presets"]);
    assert_eq!(o.status.code(), Some(0));
    let names: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(names, scenario::preset_names());
    assert!(names.iter().any(|n| n == "healthy"));
}

#[test]
fn help_prints_usage() {
    for args in [&["--help"][..], &["-h"], &["run", "--help"]] {
        let o = cli(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let out = stdout(&o);
        assert!(out.contains("run --preset NAME"), "{out}");
        assert!(out.contains("--sink-output"), "{out}");
    }
}

#[test]
fn run_preset_json_has_the_contract_fields() {
    let o = cli(&["run", "--preset", "healthy", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON report");
    for field in [
        "name",
        "seed",
        "virtual_time_ms",
        "finished",
        "checkpoints",
        "failures",
        "sinks",
        "operators",
    ] {
        assert!(report.get(field).is_some(), "report lacks '{field}'");
    }
    assert_eq!(report["name"], "Healthy job: no backpressure");
    assert_eq!(report["seed"], 7);
    assert!(report["checkpoints"].is_array() && report["sinks"].is_array());
}

#[test]
fn every_preset_runs() {
    for name in scenario::preset_names() {
        let o = cli(&["run", "--preset", name]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = stdout(&o);
        assert!(out.contains("checkpoints:"), "{name}: {out}");
    }
}

#[test]
fn run_reads_files_and_stdin_with_options() {
    let json = scenario::to_json_pretty(&scenario::preset("healthy").unwrap());
    let path = temp_file("healthy.json", &json);
    let sink = path.with_file_name("sink.jsonl");
    let o = cli(&[
        "run",
        path.to_str().unwrap(),
        "--until",
        "5s",
        "--set",
        "execution.checkpointing.interval=1s",
        "--set=execution.checkpointing.unaligned=true",
        "--sink-output",
        sink.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines = std::fs::read_to_string(&sink).expect("sink output written");
    for line in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for f in ["sink", "key", "value", "lineage"] {
            assert!(v.get(f).is_some(), "{line}");
        }
    }
    let o = cli_stdin(&["run", "-", "--json"], &json);
    assert_eq!(o.status.code(), Some(0));
    serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap();
}

#[test]
fn link_prints_a_fragment_that_decodes_back() {
    let doc = scenario::preset("why-uc").unwrap();
    let path = temp_file("why-uc.json", &scenario::to_json_pretty(&doc));
    let o = cli(&["link", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    let fragment = out.trim();
    assert!(fragment.starts_with("#z2:"), "{fragment}");
    assert_eq!(out.lines().count(), 1);
    assert_eq!(scenario::decode_link(fragment).unwrap(), doc);
    // ... and the runner takes it back, as a fragment or a whole URL.
    let url = format!("http://127.0.0.1:8080/{fragment}");
    for link in [fragment, url.as_str()] {
        let o = cli(&["run", "--link", link, "--json"]);
        assert_eq!(o.status.code(), Some(0));
        let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(report["name"], doc.name.as_str());
    }
    // --set is baked into the link.
    let o = cli(&[
        "link",
        "--preset",
        "why-uc",
        "--set",
        "execution.checkpointing.unaligned.enabled=true",
    ]);
    let d = scenario::decode_link(stdout(&o).trim()).unwrap();
    assert!(scenario::to_spec(&d).unwrap().config.unaligned);
}

#[test]
fn invalid_input_exits_2_with_one_line() {
    let cases: Vec<(Output, &str)> = vec![
        (cli_stdin(&["run", "-"], "{\"version\": 1,"), "invalid JSON"),
        (
            cli_stdin(&["run", "-"], r#"{"version": 9}"#),
            "error: version: scenario version 9 is newer than this playground understands (2)",
        ),
        (
            cli_stdin(
                &["run", "-"],
                r#"{"version": 1, "operators": [{"id": "a", "kind": "teleport"}]}"#,
            ),
            "operators[0].kind",
        ),
        (cli(&["run", "--link", "#z:AAAA!!"]), "error: link: "),
        (cli(&["run", "--link", "#q:abc"]), "unknown link encoding"),
        (cli(&["run", "--preset", "nope"]), "unknown preset"),
        (
            cli(&["run", "--preset", "healthy", "--frobnicate"]),
            "--frobnicate",
        ),
        (cli(&["run", "/no/such/file.json"]), "cannot read"),
        (cli(&["run"]), "no scenario given"),
        (cli(&["run", "--preset"]), "needs a value"),
        (cli(&["teleport"]), "unknown command"),
        (
            cli(&["run", "--preset", "healthy", "--set", "no.such.key=1"]),
            "unknown configuration key 'no.such.key'",
        ),
        (
            cli(&[
                "run",
                "--preset",
                "healthy",
                "--set",
                "execution.checkpointing.interval=1ms",
            ]),
            "config.execution.checkpointing.interval",
        ),
        (
            cli(&["run", "--preset", "healthy", "--set", "novalue"]),
            "KEY=VALUE",
        ),
        (
            cli(&["run", "--preset", "healthy", "--until", "soon"]),
            "--until",
        ),
        (
            cli(&[
                "run",
                "--preset",
                "healthy",
                "--sink-output",
                "/no/such/dir/out.jsonl",
            ]),
            "cannot write",
        ),
        (
            cli(&["run", "--preset", "healthy", "--preset", "large"]),
            "only one scenario",
        ),
    ];
    for (o, needle) in cases {
        let line = assert_invalid(&o);
        assert!(line.contains(needle), "'{line}' lacks '{needle}'");
    }
}

#[test]
fn until_past_the_end_extends_the_run() {
    let o = cli(&["run", "--preset", "healthy", "--until", "30s", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let o = cli(&["run", "--preset", "healthy", "--until", "48h"]);
    assert!(assert_invalid(&o).contains("--until"));
}

/// Runs the CLI with `input` on standard input, written from a thread so that input the
/// runner stops reading (a capped or refused one) cannot block it; a broken pipe is fine.
fn cli_stdin_bytes(args: &[&str], input: Vec<u8>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn input_is_capped_at_one_mebibyte() {
    // Valid JSON of 2 MiB (a long name): refused by its size, from stdin and from a file.
    let big = format!(
        r#"{{"version": 1, "name": "{}", "operators": []}}"#,
        "n".repeat(2 << 20)
    );
    let line = assert_invalid(&cli_stdin_bytes(&["run", "-"], big.clone().into_bytes()));
    assert!(line.contains("larger than 1024 KiB"), "{line}");
    let path = temp_file("big.json", &big);
    let line = assert_invalid(&cli(&["run", path.to_str().unwrap()]));
    assert!(line.contains("larger than 1024 KiB"), "{line}");
    assert!(line.len() < 300, "{line}");
    // (A link longer than `scenario::link::MAX_LINK_CHARS` cannot even be an argument
    // on Linux, 128 KiB at most; `decode_link` refuses it: tests/scenario_links.rs.)
}

#[test]
fn error_lines_quote_a_short_excerpt() {
    let long = "q".repeat(120_000);
    for args in [
        vec!["run", "--link", long.as_str()],
        vec!["run", long.as_str()],
        vec!["run", "--preset", long.as_str()],
        vec!["run", "--preset", "healthy", "--set", long.as_str()],
    ] {
        let line = assert_invalid(&cli(&args));
        assert!(line.len() < 600, "{} chars: {}…", line.len(), &line[..200]);
    }
}

#[test]
fn compare_keeps_exact_timeouts_and_blames_until() {
    let o = cli(&[
        "run",
        "--preset",
        "healthy",
        "--until",
        "2s",
        "--compare",
        "aligned|timeout:1234us",
        "--json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        json["compare"]["b"], "timeout:1234us",
        "not rounded to 1.23ms"
    );
    let o = cli(&[
        "run",
        "--preset",
        "healthy",
        "--compare",
        "aligned|unaligned",
        "--until",
        "25h",
    ]);
    let line = assert_invalid(&o);
    assert!(line.starts_with("error: --until: "), "{line}");
}

/// A source at `rate` per subtask with `parallelism` subtasks into a free map and sink.
fn fast_job(rate: u32, parallelism: u32, duration: &str) -> String {
    format!(
        r#"{{"version": 1, "name": "fast", "duration": "{duration}",
  "operators": [
    {{"id": "src", "kind": "source", "parallelism": {parallelism}, "rate": {rate}, "cost": "0us"}},
    {{"id": "m", "kind": "map", "parallelism": {parallelism}, "cost": "0us"}},
    {{"id": "out", "kind": "sink", "parallelism": {parallelism}, "cost": "0us"}}],
  "edges": [{{"from": "src", "to": "m", "partitioner": "rebalance"}}, {{"from": "m", "to": "out"}}]}}"#
    )
}

#[test]
fn a_job_slower_than_real_time_says_so_and_one_past_the_limits_is_refused() {
    // 4 × 1 M records/s through two hops: 8 M record-hops per virtual second.
    let o = cli_stdin(&["run", "-"], &fast_job(1_000_000, 4, "20ms"));
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("note: this scenario runs at ~0.1× real time"),
        "{err}"
    );
    // 32 × 1 M through two hops: 64 M, past the 50 M limit.
    let line = assert_invalid(&cli_stdin(&["run", "-"], &fast_job(1_000_000, 32, "1s")));
    assert!(
        line.contains("error: cost: ")
            && line.contains("record-hops per virtual second, past the limit of 50.0 M"),
        "{line}"
    );
    // A slow preset says nothing.
    let o = cli(&["run", "--preset", "healthy"]);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `plan` prints the physical plan (text, or JSON with `--json`), says the runtime runs it,
/// takes `--set`, and refuses run-only options with one error line.
#[test]
fn plan_prints_the_physical_plan_as_text_and_json() {
    let o = cli(&["plan", "--preset", "healthy"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for needle in [
        "Physical plan of",
        "runtime runs it",
        "Job vertices",
        "Failover regions",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
    let o = cli(&[
        "plan",
        "--preset",
        "healthy",
        "--json",
        "--set",
        "taskmanager.numberOfTaskSlots=4",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["flink_version"], "2.3");
    assert_eq!(v["plan"]["slots_per_task_manager"], 4);
    assert!(v["plan"]["vertices"][0]["name"]
        .as_str()
        .unwrap()
        .starts_with("Source: "));
    let err = assert_invalid(&cli(&["plan", "--preset", "healthy", "--until", "1s"]));
    assert!(err.contains("plan"), "{err}");
    let err = assert_invalid(&cli(&[
        "plan",
        "--preset",
        "healthy",
        "--set",
        "minicluster.number-of-taskmanagers=0",
    ]));
    assert!(err.contains("minicluster.number-of-taskmanagers"), "{err}");
}

#[test]
fn stop_with_savepoint_flags_end_the_run_finished_with_a_sync_savepoint() {
    let o = cli(&[
        "run",
        "--preset",
        "unaligned",
        "--until",
        "12s",
        "--savepoint",
        "5s",
        "--stop-with-savepoint",
        "9s",
        "--drain",
        "--json",
        "--require-exactly-once",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(r["job_status"], "FINISHED");
    assert_eq!(r["stop_with_savepoint"]["drain"], true);
    assert_eq!(r["stop_with_savepoint"]["status"], "finished");
    let types: Vec<&str> = r["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["checkpoint_type"].as_str())
        .filter(|t| t.contains("SAVEPOINT"))
        .collect();
    assert_eq!(types, ["SAVEPOINT", "SYNC_SAVEPOINT"]);
    let e = assert_invalid(&cli(&["run", "--preset", "unaligned", "--drain"]));
    assert!(e.contains("--drain"), "{e}");
    let e = assert_invalid(&cli(&[
        "run",
        "--preset",
        "unaligned",
        "--savepoint",
        "soon",
    ]));
    assert!(e.contains("--savepoint soon"), "{e}");
}
