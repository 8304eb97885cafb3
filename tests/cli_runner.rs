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
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
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
    assert!(fragment.starts_with("#z:"), "{fragment}");
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
            "error: version: scenario version 9 is newer than this playground understands (1)",
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
