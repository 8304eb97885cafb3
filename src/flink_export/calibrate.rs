//! Calibration: one scenario on a real Flink MiniCluster and in the simulator, side by side
//! (native only).
//!
//! Contract: [`calibrate`] exports the scenario once per checkpoint mode (the mode's two
//! config keys are the only difference, so the job is compiled once), runs each export with
//! `run-local.sh` in its own process group under a hard time limit (start-up allowance +
//! duration), polls its REST API on 127.0.0.1 (`/jobs/:id/checkpoints`, per checkpoint
//! `details/:cid/subtasks/:vertex`, the bottleneck's `numRecordsIn` at the ends of the
//! throughput window, `/jobs/:id/exceptions`), kills the process group, checks the sinks'
//! committed output for duplicates, runs the same variant in the simulator for the same
//! scenario time, and returns both [`Figures`] per mode. Nothing here tunes the simulator.
//! When Flink does not start (no scenario clock within [`START_LIMIT_S`]) the mode's result
//! says so with the last lines of its log. Loopback only: REST on a free port of 127.0.0.1.
//! [`cli_calibrate`] and [`cli_fidelity`] are the CLI's `calibrate` and `fidelity` commands.

use super::figures::{self, Figures, Row};
use super::{export, FLINK_VERSION};
use crate::engine::time::{format_duration, parse_duration, Micros};
use crate::engine::Engine;
use crate::scenario::compare::{variant, Mode};
use crate::scenario::{self, Document, ScenarioError};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Seconds a MiniCluster may take from `java` to the scenario clock (compile excluded).
pub const START_LIMIT_S: u64 = 120;

/// What to calibrate.
#[derive(Clone, Debug)]
pub struct Options {
    pub modes: Vec<Mode>,
    /// Scenario time to run; `None`: the scenario's duration.
    pub duration: Option<Micros>,
    /// Where exports, logs and outputs go.
    pub work: PathBuf,
    /// The pip package's `pyflink/lib`.
    pub pyflink_lib: PathBuf,
}

/// The exactly-once check of one sink, from the records it committed.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SinkCheck {
    pub sink: String,
    pub committed_lines: u64,
    pub distinct_records: u64,
    pub duplicates: u64,
    /// Two-phase commit (or idempotent) with no duplicate, at-least-once with any.
    pub exactly_once: bool,
}

/// One mode's result.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ModeResult {
    pub mode: String,
    pub flink_started: bool,
    pub error: Option<String>,
    pub flink: Figures,
    pub simulator: Figures,
    pub rows: Vec<Row>,
    pub bottleneck: String,
    pub throughput_window_ms: (f64, f64),
    pub flink_checkpoints: Vec<figures::Checkpoint>,
    pub flink_failures: Vec<String>,
    /// Scenario time (ms) of each failure in Flink's exception history.
    pub flink_failure_ms: Vec<f64>,
    pub flink_restored_checkpoint: Option<u64>,
    pub flink_job_status: String,
    pub simulator_failures: usize,
    pub sinks: Vec<SinkCheck>,
    pub compile_s: f64,
    pub startup_s: f64,
    pub run_s: f64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Calibration {
    pub scenario: String,
    pub flink_version: &'static str,
    pub duration: String,
    pub machine: String,
    pub load_before: String,
    pub load_after: String,
    pub modes: Vec<ModeResult>,
}

/// This machine in a line: cores, CPU model, memory.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| format!("{} GiB", (kb + (1 << 19)) >> 20))
        .unwrap_or_default();
    format!("{cores} cores ({model}), {mem}")
}

/// The 1/5/15-minute load averages.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port on 127.0.0.1: {e}"))
}

/// A GET on 127.0.0.1:`port` (HTTP/1.1, `Connection: close`), the body as JSON.
pub fn http_get(port: u16, path: &str) -> Result<Value, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("GET {path}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("GET {path}: {e}"))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)
        .map_err(|e| format!("GET {path}: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("GET {path}: no HTTP response"))?;
    let status = head.lines().next().unwrap_or("");
    if !status.contains(" 200") {
        return Err(format!("GET {path}: {status}"));
    }
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    serde_json::from_str(&body).map_err(|e| format!("GET {path}: bad JSON: {e}"))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out += &rest[..n];
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A running `run-local.sh` in its own process group.
struct Flink {
    child: Child,
    log: PathBuf,
}

/// The JVM's options for a calibration run: the user's `JAVA_OPTS` (run-local.sh's default
/// `-Xmx1g` if unset) and `java.io.tmpdir` in the mode's work folder. Flink 2.3 takes its
/// `io.tmp.dirs` default from `java.io.tmpdir` (`CoreOptions.TMP_DIRS`); there the RPC system
/// loader extracts its 24-MB `flink-rpc-*.jar` (removed only by `deleteOnExit`, which a
/// killed JVM never runs) and the MiniCluster keeps its `minicluster_*` working folder. In
/// the system's `/tmp` every calibration left both behind; in the work folder they go with it.
fn java_opts(tmp: &Path) -> String {
    let user = std::env::var("JAVA_OPTS").unwrap_or_else(|_| "-Xmx1g".into());
    let tmp = std::path::absolute(tmp).unwrap_or_else(|_| tmp.to_path_buf());
    let tmp = tmp.display().to_string();
    // run-local.sh splits JAVA_OPTS at spaces: a folder with one stays with the system's.
    if tmp.contains(char::is_whitespace) {
        return user;
    }
    format!("{user} -Djava.io.tmpdir={tmp}")
}

impl Flink {
    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn tail(&self, n: usize) -> String {
        let t = self.log_text();
        let lines: Vec<&str> = t.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// Kills the whole process group (the script and its JVM) and reaps it.
    fn kill(&mut self) {
        let group = format!("-{}", self.child.id());
        let quiet = |sig: &str| {
            let _ = Command::new("kill")
                .args([sig, "--", &group])
                .stderr(Stdio::null())
                .status();
        };
        quiet("-TERM");
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        quiet("-KILL");
        let _ = self.child.wait();
    }
}

impl Drop for Flink {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// `playground: scenario clock started at <ms> epoch-ms, job <id>` in the log.
fn clock_start(log: &str) -> Option<(f64, String)> {
    let line = log
        .lines()
        .find(|l| l.starts_with("playground: scenario clock started at "))?;
    let rest = line.strip_prefix("playground: scenario clock started at ")?;
    let (ms, job) = rest.split_once(" epoch-ms, job ")?;
    Some((ms.trim().parse().ok()?, job.trim().to_string()))
}

/// The vertex and metric that count records into `op` (out of it for a source).
fn bottleneck_metric(port: u16, job: &str, op: &str, source: bool) -> Option<(String, String)> {
    let j = http_get(port, &format!("/jobs/{job}")).ok()?;
    let metric_suffix = if source {
        "numRecordsOut"
    } else {
        "numRecordsIn"
    };
    for v in j.get("vertices")?.as_array()? {
        let vid = v.get("id")?.as_str()?.to_string();
        let list = http_get(
            port,
            &format!("/jobs/{job}/vertices/{vid}/subtasks/metrics"),
        )
        .ok()?;
        for m in list.as_array()? {
            let id = m.get("id")?.as_str()?;
            // Flink's metric scope replaces ' ' and ':' in operator names by '_': a sink's
            // writer is `out__Writer`, a source `Source__orders`.
            let names = [
                format!("{op}.{metric_suffix}"),
                format!("{op}__Writer.{metric_suffix}"),
                format!("Source__{op}.{metric_suffix}"),
            ];
            if names.iter().any(|n| n == id) {
                return Some((vid, id.to_string()));
            }
        }
    }
    None
}

fn metric_sum(port: u16, job: &str, vid: &str, metric: &str) -> Option<f64> {
    let v = http_get(
        port,
        &format!("/jobs/{job}/vertices/{vid}/subtasks/metrics?get={metric}&agg=sum"),
    )
    .ok()?;
    v.as_array()?.first()?.get("sum")?.as_f64()
}

/// Counts the committed lines of each sink under `out/<sink>/committed/`.
fn check_sinks(out: &Path, sinks: &[(String, bool)]) -> Vec<SinkCheck> {
    sinks
        .iter()
        .map(|(sink, transactional)| {
            let mut lines = 0u64;
            let mut seen = BTreeSet::new();
            if let Ok(dir) = std::fs::read_dir(out.join(sink).join("committed")) {
                for f in dir.flatten() {
                    let text = std::fs::read_to_string(f.path()).unwrap_or_default();
                    for l in text.lines() {
                        lines += 1;
                        seen.insert(l.split(' ').next().unwrap_or("").to_string());
                    }
                }
            }
            let distinct = seen.len() as u64;
            SinkCheck {
                sink: sink.clone(),
                committed_lines: lines,
                distinct_records: distinct,
                duplicates: lines - distinct,
                exactly_once: *transactional && lines == distinct,
            }
        })
        .collect()
}

/// The simulator's figures for `doc` over `[0, until]`, with the throughput into `op` over
/// the window `(w0, w1)`.
fn simulate(
    doc: &Document,
    until: Micros,
    window: (Micros, Micros),
    op: &str,
) -> Result<(Figures, usize), ScenarioError> {
    let mut spec = scenario::to_spec(doc)?;
    spec.duration = spec.duration.max(until);
    let mut engine = Engine::new(spec)?;
    engine.keep_sink_records(false);
    let count = |r: &crate::engine::report::Report| {
        r.operators
            .iter()
            .find(|o| o.id == op)
            .map(|o| {
                if o.kind == "source" {
                    o.records_out
                } else {
                    o.records_in
                }
            })
            .unwrap_or(0) as f64
    };
    engine.run_until(window.0);
    let c0 = count(&engine.report());
    engine.run_until(window.1);
    let c1 = count(&engine.report());
    engine.run_until(until);
    let report = engine.report();
    let secs = (window.1 - window.0) as f64 / 1e6;
    let throughput = (secs > 0.0).then(|| (c1 - c0) / secs);
    Ok((
        figures::from_report(&report, until as f64 / 1000.0, throughput),
        report.failures.len(),
    ))
}

/// The operator the simulator finds busiest (the bottleneck), over the whole run.
fn bottleneck(doc: &Document, until: Micros) -> Result<(String, bool), ScenarioError> {
    let mut spec = scenario::to_spec(doc)?;
    spec.duration = spec.duration.max(until);
    let mut engine = Engine::new(spec)?;
    engine.keep_sink_records(false);
    engine.run_until(until);
    let r = engine.report();
    let op = r
        .operators
        .iter()
        .max_by(|a, b| a.busy_ratio.total_cmp(&b.busy_ratio))
        .map(|o| (o.id.clone(), o.kind == "source"))
        .unwrap_or_default();
    Ok(op)
}

/// The throughput window: the 10 s (at most half the run) before the end or before the
/// first failure, whichever is earlier, so that a restart's reset counters stay out of it.
fn window(doc: &Document, until: Micros) -> (Micros, Micros) {
    let first_fail = doc
        .events
        .iter()
        .filter(|e| matches!(e.action, scenario::ActionDoc::Fail { .. }))
        .filter_map(|e| parse_duration(&e.at).ok())
        .filter(|t| *t < until)
        .min();
    let end = first_fail
        .map(|t| t.saturating_sub(1_000_000))
        .unwrap_or(until);
    let start = end.saturating_sub(10_000_000).max(end / 2);
    (start, end)
}

fn write_files(export: &super::FlinkExport, dir: &Path) -> Result<(), String> {
    for f in &export.files {
        let p = dir.join(&f.path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&p, &f.contents).map_err(|e| format!("{}: {e}", p.display()))?;
        if f.executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    Ok(())
}

/// Calibrates `doc` in every mode of `opts`. Errors only for an invalid scenario or an
/// unusable work folder; a Flink that fails to start is a mode result with `error`.
pub fn calibrate(doc: &Document, opts: &Options) -> Result<Calibration, ScenarioError> {
    let err = |m: String| ScenarioError::new("calibrate", m);
    let spec = scenario::to_spec(doc)?;
    let until = opts.duration.unwrap_or(spec.duration);
    let mut cal = Calibration {
        scenario: doc.name.clone(),
        flink_version: FLINK_VERSION,
        duration: format_duration(until),
        machine: machine(),
        load_before: load(),
        ..Default::default()
    };
    let sinks: Vec<(String, bool)> = spec
        .operators
        .iter()
        .filter_map(|o| match &o.kind {
            crate::engine::spec::OperatorKind::Sink { delivery } => Some((
                o.id.clone(),
                *delivery != crate::engine::spec::SinkDelivery::AtLeastOnce,
            )),
            _ => None,
        })
        .collect();
    let mut classes: Option<PathBuf> = None;
    for mode in &opts.modes {
        let mut v = variant(doc, mode);
        v.name = doc.name.clone();
        let (bn, bn_source) = bottleneck(&v, until)?;
        let win = window(&v, until);
        let dir = opts.work.join(mode.text().replace(':', "-"));
        let _ = std::fs::remove_dir_all(&dir);
        let ex = export(&v)?;
        write_files(&ex, &dir).map_err(err)?;
        let mut result = ModeResult {
            mode: mode.label(),
            bottleneck: bn.clone(),
            throughput_window_ms: (win.0 as f64 / 1000.0, win.1 as f64 / 1000.0),
            ..Default::default()
        };
        let (sim, sim_failures) = simulate(&v, until, win, &bn)?;
        result.simulator = sim;
        result.simulator_failures = sim_failures;
        // Compile once: the job's Java is the same in every mode (only config.yaml differs).
        let t = Instant::now();
        let cls = classes.clone().unwrap_or_else(|| dir.join("classes"));
        if classes.is_none() {
            let status = Command::new(dir.join("run-local.sh"))
                .env("PYFLINK_LIB", &opts.pyflink_lib)
                .env("COMPILE_ONLY", "1")
                .env("CLASSES", &cls)
                .stdout(Stdio::null())
                .stderr(Stdio::inherit())
                .status()
                .map_err(|e| err(format!("run-local.sh: {e}")))?;
            if !status.success() {
                result.error = Some("the export did not compile (javac failed)".into());
                cal.modes.push(result);
                continue;
            }
            classes = Some(cls.clone());
        }
        result.compile_s = t.elapsed().as_secs_f64();
        let port = free_port().map_err(err)?;
        let log = dir.join("flink.log");
        let log_file =
            std::fs::File::create(&log).map_err(|e| err(format!("{}: {e}", log.display())))?;
        let started = Instant::now();
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp).map_err(|e| err(format!("{}: {e}", tmp.display())))?;
        let child = Command::new(dir.join("run-local.sh"))
            .env("PYFLINK_LIB", &opts.pyflink_lib)
            .env("JAVA_OPTS", java_opts(&tmp))
            .env("REST_PORT", port.to_string())
            .env("OUT", dir.join("output"))
            .env("CLASSES", &cls)
            .env("SKIP_COMPILE", "1")
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().map_err(|e| err(e.to_string()))?)
            .stderr(log_file)
            .process_group(0)
            .spawn()
            .map_err(|e| err(format!("run-local.sh: {e}")))?;
        let mut flink = Flink { child, log };
        eprintln!(
            "calibrate: {} — {}: Flink started (process group {}, REST 127.0.0.1:{port}), running {} of scenario time",
            doc.name,
            mode.label(),
            flink.child.id(),
            format_duration(until)
        );
        // Wait for the scenario clock.
        let clock = loop {
            if let Some(c) = clock_start(&flink.log_text()) {
                break Some(c);
            }
            if started.elapsed() > Duration::from_secs(START_LIMIT_S)
                || matches!(flink.child.try_wait(), Ok(Some(_)))
            {
                break None;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let Some((t0, job)) = clock else {
            result.error = Some(format!(
                "Flink did not start within {START_LIMIT_S} s; last log lines:\n{}",
                flink.tail(15)
            ));
            flink.kill();
            cal.modes.push(result);
            continue;
        };
        result.flink_started = true;
        result.startup_s = started.elapsed().as_secs_f64();
        let run_started = Instant::now();
        let end_ms = t0 + until as f64 / 1000.0;
        let mut details: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
        let mut history: Vec<Value> = Vec::new();
        let mut metric: Option<(String, String)> = None;
        let mut samples: Vec<(f64, f64)> = Vec::new();
        let hard_limit = Duration::from_micros(until) + Duration::from_secs(30);
        loop {
            let now = epoch_ms();
            if let Ok(h) = http_get(port, &format!("/jobs/{job}/checkpoints")) {
                if let Some(list) = h.get("history").and_then(Value::as_array) {
                    for e in list {
                        let id = e.get("id").and_then(Value::as_u64).unwrap_or(0);
                        let status = e.get("status").and_then(Value::as_str).unwrap_or("");
                        if status == "IN_PROGRESS" || details.contains_key(&id) {
                            continue;
                        }
                        // The history's entries have no tasks; the checkpoint's details do.
                        let tasks: Vec<String> =
                            http_get(port, &format!("/jobs/{job}/checkpoints/details/{id}"))
                                .ok()
                                .and_then(|d| {
                                    d.get("tasks")
                                        .and_then(Value::as_object)
                                        .map(|m| m.keys().cloned().collect())
                                })
                                .unwrap_or_default();
                        let subtasks = tasks
                            .iter()
                            .filter_map(|vid| {
                                http_get(
                                    port,
                                    &format!("/jobs/{job}/checkpoints/details/{id}/subtasks/{vid}"),
                                )
                                .ok()
                            })
                            .collect();
                        details.insert(id, subtasks);
                    }
                    // Keep every entry seen (the history is capped).
                    for e in list {
                        let id = e.get("id").and_then(Value::as_u64);
                        if let Some(pos) = history
                            .iter()
                            .position(|h| h.get("id").and_then(Value::as_u64) == id)
                        {
                            history[pos] = e.clone();
                        } else {
                            history.push(e.clone());
                        }
                    }
                }
            }
            let scen_ms = now - t0;
            if metric.is_none() {
                metric = bottleneck_metric(port, &job, &bn, bn_source);
            }
            // Sampled on every poll: the REST metric store is refreshed only when asked (at
            // most every metrics.fetcher.update-interval), so a single late request returns a
            // stale count. Samples lag by at most the interval, the same at both ends.
            if let Some((vid, m)) = &metric {
                if let Some(c) = metric_sum(port, &job, vid, m) {
                    samples.push((scen_ms, c));
                }
            }
            if now >= end_ms + 1500.0 || run_started.elapsed() > hard_limit {
                break;
            }
            if matches!(flink.child.try_wait(), Ok(Some(_))) {
                result.error = Some(format!(
                    "Flink exited early; last log lines:\n{}",
                    flink.tail(15)
                ));
                break;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        if let Ok(h) = http_get(port, &format!("/jobs/{job}/checkpoints")) {
            result.flink_restored_checkpoint =
                h.pointer("/latest/restored/id").and_then(Value::as_u64);
        }
        if let Ok(x) = http_get(port, &format!("/jobs/{job}/exceptions")) {
            result.flink_failure_ms = x
                .pointer("/exceptionHistory/entries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|e| e.get("timestamp").and_then(Value::as_f64))
                .map(|t| t - t0)
                .collect();
            result.flink_failures = x
                .pointer("/exceptionHistory/entries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|e| {
                    let at = e.get("timestamp").and_then(Value::as_f64).unwrap_or(0.0) - t0;
                    let name = e.get("exceptionName").and_then(Value::as_str).unwrap_or("");
                    let task = e.get("taskName").and_then(Value::as_str).unwrap_or("");
                    format!("{name} in {task} at {:.1} s", at / 1000.0)
                })
                .collect();
        }
        if let Ok(j) = http_get(port, &format!("/jobs/{job}")) {
            result.flink_job_status = j.get("state").and_then(Value::as_str).unwrap_or("").into();
        }
        result.run_s = run_started.elapsed().as_secs_f64();
        flink.kill();
        eprintln!(
            "calibrate: stopped Flink (killed process group {})",
            flink.child.id()
        );
        let cps: Vec<figures::Checkpoint> = history
            .iter()
            .filter_map(|e| {
                let id = e.get("id").and_then(Value::as_u64).unwrap_or(0);
                figures::flink_checkpoint(e, details.get(&id).map(Vec::as_slice).unwrap_or(&[]), t0)
            })
            .collect();
        let lag = 1000.0;
        let in_window: Vec<&(f64, f64)> = samples
            .iter()
            .filter(|(t, _)| *t >= win.0 as f64 / 1000.0 + lag && *t <= win.1 as f64 / 1000.0 + lag)
            .collect();
        let throughput = match (in_window.first(), in_window.last()) {
            (Some((ta, a)), Some((tb, b))) if tb > ta => Some((b - a) / ((tb - ta) / 1000.0)),
            _ => None,
        };
        result.flink = figures::of(&cps, until as f64 / 1000.0, throughput);
        result.flink_checkpoints = cps;
        result.rows = figures::rows(&result.flink, &result.simulator);
        result.sinks = check_sinks(&dir.join("output"), &sinks);
        cal.modes.push(result);
    }
    cal.load_after = load();
    Ok(cal)
}

/// The side-by-side text of a calibration.
pub fn table(cal: &Calibration) -> String {
    let mut s = format!(
        "{} — Flink {} vs simulator, {} of scenario time ({}; load {} → {})\n",
        cal.scenario, cal.flink_version, cal.duration, cal.machine, cal.load_before, cal.load_after
    );
    for m in &cal.modes {
        s += &format!("\n{}:", m.mode);
        if let Some(e) = &m.error {
            s += &format!(" {e}\n");
            if !m.flink_started {
                continue;
            }
        } else {
            s += "\n";
        }
        s += &format!(
            "  {:<30} {:>12} {:>12} {:>8}\n",
            "figure", "Flink", "simulator", "sim/Flink"
        );
        for r in &m.rows {
            s += &format!(
                "  {:<30} {:>12} {:>12} {:>8}\n",
                r.figure,
                figures::show(r.flink),
                figures::show(r.simulator),
                figures::show_ratio(r)
            );
        }
        s += &format!(
            "  bottleneck {} over {:.0}–{:.0} ms; Flink failures: {}; restored checkpoint {}; job {}\n",
            m.bottleneck,
            m.throughput_window_ms.0,
            m.throughput_window_ms.1,
            if m.flink_failures.is_empty() { "none".into() } else { m.flink_failures.join("; ") },
            m.flink_restored_checkpoint.map(|c| c.to_string()).unwrap_or("-".into()),
            m.flink_job_status
        );
        for k in &m.sinks {
            s += &format!(
                "  sink {}: {} committed lines, {} distinct, {} duplicates{}\n",
                k.sink,
                k.committed_lines,
                k.distinct_records,
                k.duplicates,
                if k.exactly_once {
                    " — exactly-once"
                } else {
                    ""
                }
            );
        }
        s += &format!(
            "  timing: compile {:.1} s, start-up {:.1} s, run {:.1} s\n",
            m.compile_s, m.startup_s, m.run_s
        );
    }
    s
}

/// `$PYFLINK_LIB`, else `.flink-venv` of the repository (scripts/setup-flink.sh).
pub fn find_pyflink_lib() -> Result<PathBuf, ScenarioError> {
    if let Ok(p) = std::env::var("PYFLINK_LIB") {
        if !p.is_empty() {
            return Ok(PathBuf::from(p));
        }
    }
    let venv = std::env::var("FLINK_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|_| crate::repository_root().join(".flink-venv"));
    if let Ok(dir) = std::fs::read_dir(venv.join("lib")) {
        for e in dir.flatten() {
            let lib = e.path().join("site-packages/pyflink/lib");
            if lib.is_dir() {
                return Ok(lib);
            }
        }
    }
    Err(ScenarioError::new(
        "PYFLINK_LIB",
        format!(
            "no pyflink/lib found (set PYFLINK_LIB or run scripts/setup-flink.sh, which installs apache-flink=={FLINK_VERSION} into {})",
            venv.display()
        ),
    ))
}

struct Args {
    input: Vec<String>,
    modes: Vec<Mode>,
    duration: Option<Micros>,
    json: Option<String>,
    work: Option<String>,
    out: Option<String>,
}

fn parse(args: &[String], command: &str) -> Result<Args, ScenarioError> {
    let mut a = Args {
        input: Vec::new(),
        modes: vec![Mode::Aligned, Mode::Unaligned],
        duration: None,
        json: None,
        work: None,
        out: None,
    };
    let mut it = args.iter();
    while let Some(x) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| ScenarioError::new(name, "needs a value"))
        };
        match x.as_str() {
            "--modes" => {
                a.modes = value("--modes")?
                    .split(',')
                    .map(|m| Mode::parse(m.trim()).map_err(|e| ScenarioError::new("--modes", e)))
                    .collect::<Result<_, _>>()?
            }
            "--duration" => {
                a.duration = Some(
                    parse_duration(&value("--duration")?)
                        .map_err(|e| ScenarioError::new("--duration", e))?,
                )
            }
            "--json" => a.json = Some(value("--json")?),
            "--work" => a.work = Some(value("--work")?),
            "--out" if command == "fidelity" => a.out = Some(value("--out")?),
            "--preset" => {
                a.input.push("--preset".into());
                a.input.push(value("--preset")?);
            }
            other if other.starts_with("--") => {
                return Err(ScenarioError::new(
                    other,
                    format!("unknown option of '{command}'"),
                ))
            }
            other => a.input.push(other.into()),
        }
    }
    Ok(a)
}

fn load_doc(input: &[String]) -> Result<Document, ScenarioError> {
    match input {
        [flag, name] if flag == "--preset" => scenario::preset(name)
            .ok_or_else(|| ScenarioError::new(format!("--preset {name}"), "unknown preset")),
        [file] => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| ScenarioError::new(file.as_str(), format!("cannot read: {e}")))?;
            scenario::parse_json(&text)
        }
        _ => Err(ScenarioError::new(
            "calibrate",
            "needs one scenario (a file or --preset NAME)",
        )),
    }
}

fn work_dir(a: &Args, name: &str) -> PathBuf {
    a.work.as_ref().map(PathBuf::from).unwrap_or_else(|| {
        std::env::temp_dir().join(format!("checkpoint-playground-calibrate-{name}"))
    })
}

/// `calibrate SCENARIO [--modes aligned,unaligned] [--duration 40s] [--json FILE] [--work DIR]`.
pub fn cli_calibrate(args: &[String]) -> Result<(), ScenarioError> {
    let a = parse(args, "calibrate")?;
    let doc = load_doc(&a.input)?;
    let opts = Options {
        modes: a.modes.clone(),
        duration: a.duration,
        work: work_dir(&a, &super::folder_name(&doc)),
        pyflink_lib: find_pyflink_lib()?,
    };
    let cal = calibrate(&doc, &opts)?;
    print!("{}", table(&cal));
    let json_path = a
        .json
        .clone()
        .map(PathBuf::from)
        .unwrap_or_else(|| opts.work.join("calibration.json"));
    let json = serde_json::to_string_pretty(&cal).unwrap_or_default();
    std::fs::write(&json_path, json + "\n").map_err(|e| {
        ScenarioError::new(
            json_path.display().to_string(),
            format!("cannot write: {e}"),
        )
    })?;
    println!("wrote {}", json_path.display());
    if cal.modes.iter().any(|m| !m.flink_started) {
        return Err(ScenarioError::new(
            "calibrate",
            "Flink failed to start (see above)",
        ));
    }
    Ok(())
}

/// `fidelity [--duration 40s] [--out FIDELITY.md] [--json FILE] [--work DIR]`: every
/// exportable preset in AC and UC, one after the other.
pub fn cli_fidelity(args: &[String]) -> Result<(), ScenarioError> {
    let a = parse(args, "fidelity")?;
    let lib = find_pyflink_lib()?;
    let started = Instant::now();
    let mut done = Vec::new();
    let mut skipped = Vec::new();
    for name in scenario::preset_names() {
        let Some(doc) = scenario::preset(name) else {
            continue;
        };
        let ex = export(&doc)?;
        let blocking: Vec<&String> = ex
            .notes
            .not_exported
            .iter()
            .filter(|n| n.starts_with("events["))
            .collect();
        if !blocking.is_empty() {
            skipped.push(format!(
                "`{name}`: its point is an event Flink cannot replay in one run ({})",
                blocking
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
            continue;
        }
        let opts = Options {
            modes: a.modes.clone(),
            duration: a.duration,
            work: work_dir(&a, "fidelity").join(name),
            pyflink_lib: lib.clone(),
        };
        let cal = calibrate(&doc, &opts)?;
        print!("{}", table(&cal));
        done.push((name.to_string(), cal));
    }
    let md = super::fidelity::markdown(&done, &skipped, started.elapsed().as_secs_f64());
    let out = a.out.clone().unwrap_or_else(|| "FIDELITY.md".into());
    std::fs::write(&out, md)
        .map_err(|e| ScenarioError::new(out.as_str(), format!("cannot write: {e}")))?;
    let json_path = a.json.clone().unwrap_or_else(|| "fidelity.json".into());
    let json = serde_json::to_string_pretty(&done.iter().map(|(_, c)| c).collect::<Vec<_>>())
        .unwrap_or_default();
    std::fs::write(&json_path, json + "\n")
        .map_err(|e| ScenarioError::new(json_path.as_str(), format!("cannot write: {e}")))?;
    println!("wrote {out} and {json_path}");
    Ok(())
}
