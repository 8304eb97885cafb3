//! The headless runner (`shared/SCENARIO.md`): runs a scenario natively and prints a
//! summary or the JSON report, turns a scenario into its playground link, lists presets.
//!
//! Exit status: 0 after a completed run (or `link`, `presets`, `--help`); 2 with exactly
//! one line `error: <path>: <message>` on standard error for any invalid input — bad
//! JSON, failed validation, a corrupted link, an unknown preset, an unknown flag, a file
//! that cannot be read or written, a file or standard input over 1 MiB, a scenario past
//! the cost limits (`scenario::cost`). Invalid input never panics. A scenario the engine
//! cannot run in real time gets one `note: … runs at ~0.2× real time …` line on standard
//! error before it runs. 3 when `--require-exactly-once` is given and a sink broke its
//! guarantee (`Engine::broken_guarantees`), with one `exactly-once required: …` line per
//! sink on standard error after the summary or report.

use checkpoint_playground::engine::physical_plan::{
    chaining::ship_strategy, ChannelKind, FailoverStrategy, LoadBalance, PhysicalPlan,
};
use checkpoint_playground::engine::report::Report;
use checkpoint_playground::engine::time::{format_bytes, format_duration, parse_duration, Micros};
use checkpoint_playground::engine::Engine;
use checkpoint_playground::flink_export;
#[cfg(not(target_arch = "wasm32"))]
use checkpoint_playground::flink_export::calibrate;
use checkpoint_playground::scenario::compare::{Comparison, Figures};
use checkpoint_playground::scenario::error::excerpt;
use checkpoint_playground::scenario::{self, moment, Document, ScenarioError};
use std::io::{Read, Write};
use std::process::ExitCode;

/// The largest scenario file (or standard input) read: 1 MiB, the bound of a link's
/// decoded document (`scenario::link::MAX_DECODED_BYTES`) and of an import.
const MAX_INPUT_BYTES: usize = scenario::link::MAX_DECODED_BYTES;

const USAGE: &str = "\
checkpoint-playground — Flink's checkpoint runtime, headless

USAGE:
  checkpoint-playground run SCENARIO.json|- [OPTIONS]   run a scenario file (- = stdin)
  checkpoint-playground run --preset NAME [OPTIONS]     run a named preset
  checkpoint-playground run --link URL-or-FRAGMENT [OPTIONS]
                                                        run the scenario in a playground link
                                                        (a link ending in &t=31s stops there,
                                                        as the playground opens it)
  checkpoint-playground remedies SCENARIO.json|--preset NAME [--checkpoint N] [--json]
                                                        re-run with each remedy from t = 0:
                                                        figures side by side, and the effect
                                                        on checkpoint N (default: the slowest)
  checkpoint-playground link SCENARIO.json|-            print the link fragment (#z2:...)
  checkpoint-playground link --preset NAME              ... of a preset
  checkpoint-playground plan SCENARIO.json|- [--json] [--set KEY=VALUE]
  checkpoint-playground plan --preset NAME|--link URL [--json]
                                                        print the physical plan Flink would
                                                        deploy: chains, slots, TaskManagers,
                                                        local/remote channels, failover
                                                        regions (what the runtime runs)
  checkpoint-playground presets                         list preset names, one a line
  checkpoint-playground show --preset NAME              print a preset's JSON
  checkpoint-playground export --flink DIR SCENARIO.json|--preset NAME
                                                        write the scenario as a runnable Flink
                                                        Java job (DIR/README.md says what maps)
  checkpoint-playground calibrate SCENARIO.json|--preset NAME [--modes aligned,unaligned]
                        [--duration 40s] [--json FILE] [--work DIR]
                                                        run it on a real Flink MiniCluster and in
                                                        the simulator, print both side by side
  checkpoint-playground fidelity [--duration 40s] [--out FIDELITY.md]
                                                        calibrate every exportable preset in AC
                                                        and UC and write the fidelity table
  checkpoint-playground --help

RUN OPTIONS:
  --json                 print the full report as JSON instead of a summary
  --until DURATION       stop at this virtual time (e.g. 90s) instead of the scenario's
                         end (or the link's &t=); a time past the end extends the run
  --set KEY=VALUE        override a Flink config option (repeatable), e.g.
                         --set execution.checkpointing.unaligned.enabled=true
  --savepoint AT         take a savepoint at virtual time AT (repeatable; `flink savepoint`)
  --stop-with-savepoint AT
                         stop the job with a savepoint at AT (`flink stop`); the job ends
                         FINISHED once the synchronous savepoint completed
  --drain                with --stop-with-savepoint: `flink stop --drain`
  --resubmit AT:JSON     cancel the job at AT and resubmit it changed, restored from a
                         snapshot (repeatable; JSON as a scenario's resubmit event, e.g.
                         '20s:{\"from\":\"latest\",\"parallelism\":{\"count\":3}}'; operators
                         change with remove_operators, remove_edges, add_operators,
                         add_edges, and allow_non_restored_state: true is
                         --allowNonRestoredState)
  --sink-output FILE     write every committed sink record, one JSON object a line
  --require-exactly-once exit 3, with one line per sink on stderr, when a sink broke its
                         guarantee: an exactly-once sink (two-phase commit or
                         idempotent under EXACTLY_ONCE) with duplicates or losses, or
                         any sink that lost records (with --compare: in either run)
  --compare A|B          run the scenario twice, differing only in checkpoint mode, and
                         print both runs' key figures side by side; A and B are
                         aligned, unaligned or timeout:DURATION (e.g. aligned|unaligned,
                         aligned|timeout:200ms). A scenario with a \"compare\" field
                         is compared without the flag. --json prints {\"a\", \"b\"} reports

Exit status: 0 on success, 2 on invalid input (one line on stderr), 3 when
--require-exactly-once is given and a sink broke its guarantee.";

/// What `plan` prints first: which plan this is, and that the runtime runs it.
const PLAN_ABOUT: &str = "The physical plan Flink 2.3 would deploy for this job and config \
(StreamingJobGraphGenerator chaining, the default scheduler's slot sharing and placement, \
pipelined failover regions). The playground's runtime runs it: each job vertex is one task \
per subtask (its operators chained by method call), a channel inside a TaskManager is a \
local one, channel-state files are shared per TaskManager, and a failure restarts its \
region (version-1 scenarios pin chaining, local channels, shared files and region failover \
off).";

/// The plan as text: chaining decisions, vertices, slots and TaskManagers, subtasks with
/// their location and input channels, failover regions.
fn plan_text(job: &str, plan: &PhysicalPlan) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let yes_no = |b: bool| if b { "true" } else { "false" };
    let _ = writeln!(o, "Physical plan of \"{job}\"");
    let _ = writeln!(o, "{PLAN_ABOUT}\n");
    let _ = writeln!(
        o,
        "Chaining (pipeline.operator-chaining.enabled: {}):",
        yes_no(plan.chaining_enabled)
    );
    for e in &plan.edges {
        let (from, to) = (&plan.operators[e.from].name, &plan.operators[e.to].name);
        let verdict = if e.chained { "chained" } else { "not chained" };
        let _ = writeln!(
            o,
            "  {from} -> {to} [{}]: {verdict}: {}",
            ship_strategy(e.partitioner),
            e.reason
        );
    }
    let _ = writeln!(o, "\nJob vertices ({}):", plan.vertices.len());
    for (i, v) in plan.vertices.iter().enumerate() {
        let _ = writeln!(
            o,
            "  v{i} {}  (parallelism {}, slot-sharing group \"{}\")",
            v.name, v.parallelism, plan.slot_sharing_groups[v.slot_sharing_group].name
        );
    }
    let groups: Vec<String> = plan
        .slot_sharing_groups
        .iter()
        .map(|g| format!("\"{}\" {}", g.name, g.slots))
        .collect();
    let _ = writeln!(
        o,
        "\nSlots: the job needs {} ({}); {} TaskManager(s) x {} slot(s) \
         (taskmanager.numberOfTaskSlots), {}; taskmanager.load-balance.mode: {}",
        plan.slots_needed,
        groups.join(", "),
        plan.task_managers,
        plan.slots_per_task_manager,
        if plan.task_managers_pinned {
            "pinned by minicluster.number-of-taskmanagers"
        } else {
            "as many as an active resource manager requests"
        },
        match plan.load_balance {
            LoadBalance::None => "NONE",
            LoadBalance::Slots => "SLOTS",
        }
    );
    let _ = writeln!(o, "\nSubtasks (TaskManager, slot; input channels):");
    for (i, s) in plan.subtasks.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {}  TM {} slot {}  inputs: {} local, {} remote",
            plan.subtask_name(i),
            s.task_manager,
            s.slot,
            s.local_inputs,
            s.remote_inputs
        );
    }
    let local = plan
        .channels
        .iter()
        .filter(|c| c.kind == ChannelKind::Local)
        .count();
    let _ = writeln!(
        o,
        "\nChannels: {} ({local} local, {} remote)",
        plan.channels.len(),
        plan.channels.len() - local
    );
    let _ = writeln!(
        o,
        "\nFailover regions ({}; jobmanager.execution.failover-strategy: {}):",
        plan.regions.len(),
        match plan.failover {
            FailoverStrategy::Region => "region",
            FailoverStrategy::Full => "full, so any failure restarts every subtask",
        }
    );
    for (i, r) in plan.regions.iter().enumerate() {
        let mut members: Vec<String> = r
            .subtasks
            .iter()
            .take(6)
            .map(|&s| plan.subtask_name(s))
            .collect();
        if r.subtasks.len() > 6 {
            members.push(format!("… {} more", r.subtasks.len() - 6));
        }
        let _ = writeln!(
            o,
            "  region {i} ({} subtasks): {}",
            r.subtasks.len(),
            members.join(", ")
        );
    }
    o
}

/// An error at `path` (quoted as a short excerpt: paths here are often user input).
fn fail(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError::new(excerpt(&path.into()), message)
}

/// Where the scenario comes from.
enum Input {
    File(String),
    Preset(String),
    Link(String),
}

#[derive(Default)]
struct RunOptions {
    input: Option<Input>,
    json: bool,
    until: Option<String>,
    sets: Vec<String>,
    /// `--savepoint AT` (repeatable) and `--stop-with-savepoint AT` [`--drain`]: events
    /// appended to the scenario (`flink savepoint` / `flink stop [--drain]` at that time).
    savepoints: Vec<String>,
    stop_at: Option<String>,
    drain: bool,
    /// `--resubmit AT:JSON` (repeatable): resubmit events appended to the scenario.
    resubmits: Vec<String>,
    sink_output: Option<String>,
    compare: Option<String>,
    /// `remedies --checkpoint N`: the checkpoint whose effect is measured.
    checkpoint: Option<String>,
    require_exactly_once: bool,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(Verdict::Kept) => ExitCode::SUCCESS,
        Ok(Verdict::Broken(lines)) => {
            for line in lines {
                eprintln!("exactly-once required: {line}");
            }
            ExitCode::from(3)
        }
        Err(e) => {
            let line = e.to_string().replace(['\n', '\r'], " ");
            eprintln!("error: {line}");
            ExitCode::from(2)
        }
    }
}

/// What `--require-exactly-once` found (always `Kept` without the flag).
enum Verdict {
    Kept,
    Broken(Vec<String>),
}

fn dispatch(args: &[String]) -> Result<Verdict, ScenarioError> {
    let Some(command) = args.first() else {
        println!("{USAGE}");
        return Ok(Verdict::Kept);
    };
    if command == "run" {
        return run(parse_run(&args[1..])?);
    }
    other_command(args).map(|()| Verdict::Kept)
}

fn other_command(args: &[String]) -> Result<(), ScenarioError> {
    let command = &args[0];
    let rest = &args[1..];
    match command.as_str() {
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        "presets" => {
            if let Some(extra) = rest.first() {
                return Err(fail(extra.as_str(), "unexpected argument to 'presets'"));
            }
            let mut out = std::io::stdout().lock();
            for name in scenario::preset_names() {
                writeln!(out, "{name}").ok();
            }
            Ok(())
        }
        "remedies" => {
            let opts = parse_run(rest)?;
            let doc = load(&opts)?;
            let checkpoint = match &opts.checkpoint {
                None => None,
                Some(v) => Some(v.trim().parse::<u64>().map_err(|_| {
                    fail("--checkpoint", format!("'{v}' is not a checkpoint id"))
                })?),
            };
            let x = scenario::remedies::measure(&doc, checkpoint)
                .map_err(|e| fail("remedies", e))?;
            if opts.json {
                println!("{}", serde_json::to_string_pretty(&x).unwrap_or_default());
                return Ok(());
            }
            let f = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.1} ms"));
            let b = |v: Option<u64>| v.map_or("-".into(), |v| format!("{v} B"));
            println!(
                "{:<44} {:>12} {:>12} {:>10} {:>14}",
                "run", "median e2e", "max e2e", "completed", "persisted"
            );
            let row = |name: &str, m: &scenario::compare::Figures| {
                println!(
                    "{:<44} {:>12} {:>12} {:>10} {:>14}",
                    name,
                    f(m.median_end_to_end_ms),
                    f(m.max_end_to_end_ms),
                    m.completed,
                    b(m.median_persisted_bytes)
                )
            };
            row("as is", &x.base);
            for m in &x.remedies {
                row(&m.remedy.label, &m.figures);
            }
            for (name, why) in &x.skipped {
                println!("{name}: not run: {why}");
            }
            println!();
            for m in &x.remedies {
                if let Some(e) = &m.effect {
                    println!("{}: {}", m.remedy.label, e.text);
                }
            }
            println!("(each remedy applies from t = 0; in Flink none changes on a running job)");
            Ok(())
        }
        "link" => {
            let opts = parse_run(rest)?;
            if opts.json
                || opts.until.is_some()
                || opts.sink_output.is_some()
                || opts.require_exactly_once
            {
                return Err(fail("link", "takes only a scenario and --set options"));
            }
            let doc = load(&opts)?;
            scenario::to_spec(&doc)?;
            let fragment = format!("#{}", scenario::encode_link(&doc));
            if let Some(warning) = scenario::link_warning(fragment.len()) {
                eprintln!("warning: {warning}");
            }
            println!("{fragment}");
            Ok(())
        }
        "plan" => {
            let opts = parse_run(rest)?;
            if opts.until.is_some()
                || opts.sink_output.is_some()
                || opts.require_exactly_once
                || opts.compare.is_some()
            {
                return Err(fail(
                    "plan",
                    "takes only a scenario, --json and --set options",
                ));
            }
            let doc = load(&opts)?;
            let spec = scenario::to_spec(&doc)?;
            let plan = PhysicalPlan::build(&spec).map_err(|e| fail(e.path, e.message))?;
            if opts.json {
                #[derive(serde::Serialize)]
                struct PlanOut<'a> {
                    about: &'a str,
                    flink_version: &'a str,
                    plan: &'a PhysicalPlan,
                }
                let out = PlanOut {
                    about: PLAN_ABOUT,
                    flink_version: "2.3",
                    plan: &plan,
                };
                println!(
                    "{}",
                    serde_json::to_string_pretty(&out).unwrap_or_else(|e| e.to_string())
                );
            } else {
                print!("{}", plan_text(&spec.name, &plan));
            }
            Ok(())
        }
        "export" => export_flink(rest),
        #[cfg(not(target_arch = "wasm32"))]
        "calibrate" => calibrate::cli_calibrate(rest),
        #[cfg(not(target_arch = "wasm32"))]
        "fidelity" => calibrate::cli_fidelity(rest),
        "show" => {
            let opts = parse_run(rest)?;
            let doc = load(&opts)?;
            scenario::to_spec(&doc)?;
            println!("{}", scenario::to_json_pretty(&doc));
            Ok(())
        }
        other if other.starts_with('-') => Err(fail(other, "unknown option (see --help)")),
        other => Err(fail(
            other,
            "unknown command (use run, plan, link, presets, show, export, calibrate, fidelity or --help)",
        )),
    }
}

/// `export --flink DIR SCENARIO`: writes the Flink job and prints what could not be exported.
fn export_flink(rest: &[String]) -> Result<(), ScenarioError> {
    let mut dir = None;
    let mut others = Vec::new();
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--flink" => {
                dir = Some(
                    it.next()
                        .cloned()
                        .ok_or_else(|| fail("--flink", "needs a folder"))?,
                )
            }
            _ => others.push(a.clone()),
        }
    }
    let dir = dir.ok_or_else(|| fail("export", "needs --flink DIR (the folder to write)"))?;
    let opts = parse_run(&others)?;
    let doc = load(&opts)?;
    let export = flink_export::export(&doc)?;
    write_export(&export, std::path::Path::new(&dir))?;
    println!(
        "wrote {} files to {dir}: run it with {dir}/run-local.sh {} (see {dir}/README.md)",
        export.files.len(),
        doc.duration
    );
    for n in &export.notes.not_exported {
        println!("not exported: {n}");
    }
    Ok(())
}

/// Writes an export's files under `dir` (run-local.sh executable).
fn write_export(
    export: &flink_export::FlinkExport,
    dir: &std::path::Path,
) -> Result<(), ScenarioError> {
    for f in &export.files {
        let path = dir.join(&f.path);
        let shown = path.display().to_string();
        let cannot = |e: std::io::Error| fail(shown.as_str(), format!("cannot write: {e}"));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(cannot)?;
        }
        std::fs::write(&path, &f.contents).map_err(cannot)?;
        #[cfg(unix)]
        if f.executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(cannot)?;
        }
    }
    Ok(())
}

fn parse_run(args: &[String]) -> Result<RunOptions, ScenarioError> {
    let mut o = RunOptions::default();
    let mut it = args.iter();
    let set_input = |o: &mut RunOptions, input: Input, flag: &str| {
        if o.input.is_some() {
            return Err(fail(
                flag,
                "only one scenario per run (a file, --preset or --link)",
            ));
        }
        o.input = Some(input);
        Ok(())
    };
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, ScenarioError> {
            match inline.clone().or_else(|| it.next().cloned()) {
                Some(v) => Ok(v),
                None => Err(fail(name, "needs a value")),
            }
        };
        match flag {
            "--json" => o.json = true,
            "--require-exactly-once" => o.require_exactly_once = true,
            "--until" => o.until = Some(value("--until")?),
            "--set" => o.sets.push(value("--set")?),
            "--savepoint" => o.savepoints.push(value("--savepoint")?),
            "--stop-with-savepoint" => {
                o.stop_at = Some(value("--stop-with-savepoint")?);
            }
            "--drain" => o.drain = true,
            "--resubmit" => o.resubmits.push(value("--resubmit")?),
            "--sink-output" => o.sink_output = Some(value("--sink-output")?),
            "--compare" => o.compare = Some(value("--compare")?),
            "--checkpoint" => o.checkpoint = Some(value("--checkpoint")?),
            "--preset" => {
                let v = value("--preset")?;
                set_input(&mut o, Input::Preset(v), "--preset")?
            }
            "--link" => {
                let v = value("--link")?;
                set_input(&mut o, Input::Link(v), "--link")?
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            "-" => set_input(&mut o, Input::File("-".into()), "-")?,
            f if f.starts_with('-') => return Err(fail(f, "unknown option (see --help)")),
            file => set_input(&mut o, Input::File(file.into()), file)?,
        }
    }
    Ok(o)
}

/// The document named by the options, with `--set` applied.
fn load(o: &RunOptions) -> Result<Document, ScenarioError> {
    let mut doc = match &o.input {
        None => {
            return Err(fail(
                "arguments",
                "no scenario given (a file, '-' for stdin, --preset NAME or --link URL)",
            ))
        }
        Some(Input::Preset(name)) => scenario::preset(name).ok_or_else(|| {
            fail(
                format!("--preset {name}"),
                format!(
                    "unknown preset (known: {})",
                    scenario::preset_names().join(", ")
                ),
            )
        })?,
        Some(Input::Link(link)) => scenario::decode_link(moment::split(link)?.0)?,
        Some(Input::File(path)) => scenario::parse_json(&read_capped(path)?)?,
    };
    for set in &o.sets {
        let Some((key, value)) = set.split_once('=') else {
            return Err(fail(
                format!("--set {set}"),
                "expected KEY=VALUE, e.g. execution.checkpointing.interval=1s",
            ));
        };
        doc.set_config(key.trim(), value.trim())?;
    }
    if o.drain && o.stop_at.is_none() {
        return Err(fail("--drain", "goes with --stop-with-savepoint AT"));
    }
    let lifecycle = o
        .savepoints
        .iter()
        .map(|at| ("--savepoint", at, scenario::ActionDoc::Savepoint))
        .chain(o.stop_at.iter().map(|at| {
            let action = scenario::ActionDoc::StopWithSavepoint { drain: o.drain };
            ("--stop-with-savepoint", at, action)
        }));
    for (flag, at, action) in lifecycle {
        parse_duration(at).map_err(|m| fail(format!("{flag} {at}"), m))?;
        doc.events.push(scenario::EventDoc {
            at: at.clone(),
            action,
        });
    }
    for r in &o.resubmits {
        let flag = format!("--resubmit {r}");
        let Some((at, json)) = r.split_once(':') else {
            return Err(fail(
                flag,
                "expected AT:JSON, e.g. 20s:{\"from\":\"latest\"}",
            ));
        };
        parse_duration(at).map_err(|m| fail(flag.clone(), m))?;
        let resubmit = scenario::resubmit_from_json(json, &flag)?;
        doc.events.push(scenario::EventDoc {
            at: at.to_string(),
            action: scenario::ActionDoc::Resubmit(resubmit),
        });
    }
    // An old scenario may set a key that is gone: it runs without it, and says so.
    for note in scenario::notes(&doc) {
        eprintln!("note: {note}");
    }
    Ok(doc)
}

/// Where the run stops: `--until`, else the moment of a `--link …&t=31s`, else the end
/// (`None`); and whether that time may extend the run past the scenario's end (only
/// `--until` does: a link's moment is a time within its run).
fn until(o: &RunOptions) -> Result<(Option<Micros>, bool), ScenarioError> {
    if let Some(t) = &o.until {
        return Ok((
            Some(parse_duration(t).map_err(|m| fail("--until", m))?),
            true,
        ));
    }
    match &o.input {
        Some(Input::Link(link)) => Ok((moment::split(link)?.1, false)),
        _ => Ok((None, false)),
    }
}

/// The text of a scenario file (`-`: standard input), refused past
/// [`MAX_INPUT_BYTES`] without reading further.
fn read_capped(path: &str) -> Result<String, ScenarioError> {
    let name = excerpt(path);
    let cannot = |e: std::io::Error| fail(name.as_str(), format!("cannot read: {e}"));
    let reader: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(cannot)?)
    };
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(fail(
            name.as_str(),
            format!(
                "is larger than {} KiB; a scenario is at most that (the same bound as a link)",
                MAX_INPUT_BYTES / 1024
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        fail(
            name.as_str(),
            format!(
                "is not UTF-8 text (invalid byte at {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// Runs a scenario; the verdict is `Broken` only with `--require-exactly-once`.
fn run(o: RunOptions) -> Result<Verdict, ScenarioError> {
    let mut doc = load(&o)?;
    if let Some(text) = &o.compare {
        doc.compare = Some(Comparison::parse(text, "--compare")?);
    }
    if let Some(cmp) = doc.compare.clone() {
        if o.sink_output.is_some() {
            return Err(fail(
                "--sink-output",
                "writes one run's records; it cannot be combined with a comparison",
            ));
        }
        return run_compare(&doc, &cmp, &o);
    }
    let mut spec = scenario::to_spec(&doc)?;
    let (until, extends) = until(&o)?;
    // `--until` past the scenario's end extends the run (a link's moment does not).
    if let Some(t) = until.filter(|t| extends && *t > spec.duration) {
        spec.duration = t;
        spec.validate()
            .map_err(|e| fail("--until", format!("{}: {}", e.path, e.message)))?;
    }
    let extended = until.is_some_and(|t| t == spec.duration);
    let cost = scenario::cost::check(&spec).map_err(|e| match extended {
        true => fail("--until", e.to_string()),
        false => e,
    })?;
    if let Some(note) = cost.pace_note() {
        eprintln!("note: this scenario {note}");
    }
    // Create the output file before running so a bad path fails fast.
    let mut sink_file = match &o.sink_output {
        Some(path) => Some(
            std::fs::File::create(path)
                .map(std::io::BufWriter::new)
                .map_err(|e| fail(path.as_str(), format!("cannot write: {e}")))?,
        ),
        None => None,
    };
    let mut engine = Engine::new(spec)?;
    // Only --sink-output needs every committed record; the verdict needs none of them.
    engine.keep_sink_records(o.sink_output.is_some());
    match until {
        Some(t) => engine.run_until(t),
        None => engine.run_to_end(),
    }
    let report = engine.report();
    if let (Some(file), Some(path)) = (sink_file.as_mut(), &o.sink_output) {
        let write_err = |e: std::io::Error| fail(path.as_str(), format!("cannot write: {e}"));
        for record in engine.sink_output() {
            let line = serde_json::to_string(&record).expect("sink records serialize");
            writeln!(file, "{line}").map_err(write_err)?;
        }
        file.flush().map_err(write_err)?;
    }
    let mut out = std::io::stdout().lock();
    if o.json {
        let json = serde_json::to_string_pretty(&report).expect("reports serialize");
        writeln!(out, "{json}").ok();
    } else {
        write!(out, "{}", summary(&report)).ok();
    }
    Ok(required(&o, engine.broken_guarantees()))
}

fn required(o: &RunOptions, broken: Vec<String>) -> Verdict {
    if o.require_exactly_once && !broken.is_empty() {
        Verdict::Broken(broken)
    } else {
        Verdict::Kept
    }
}

/// Runs both variants of a comparison (to `--until` if given) and prints their figures
/// side by side, or both reports as JSON.
fn run_compare(doc: &Document, cmp: &Comparison, o: &RunOptions) -> Result<Verdict, ScenarioError> {
    let (a, b) = scenario::compare::variants(doc, cmp)?;
    let (until, extends) = until(o)?;
    let report = |d: &Document, label: String| -> Result<(Report, Vec<String>), ScenarioError> {
        let mut spec = scenario::to_spec(d)?;
        if let Some(t) = until.filter(|t| extends && *t > spec.duration) {
            spec.duration = t;
            spec.validate()
                .map_err(|e| fail("--until", format!("{}: {}", e.path, e.message)))?;
            scenario::cost::check(&spec).map_err(|e| fail("--until", e.to_string()))?;
        }
        let mut engine = Engine::new(spec)?;
        engine.keep_sink_records(false);
        engine.run_until(until.unwrap_or(u64::MAX));
        let broken = engine
            .broken_guarantees()
            .into_iter()
            .map(|l| format!("{label}: {l}"))
            .collect();
        Ok((engine.report(), broken))
    };
    if let Some(note) = scenario::to_spec(&a)
        .ok()
        .and_then(|spec| scenario::cost::pace_note(&spec))
    {
        eprintln!("note: each run of this scenario {note}");
    }
    let ((ra, mut broken), (rb, broken_b)) =
        (report(&a, cmp.a.label())?, report(&b, cmp.b.label())?);
    broken.extend(broken_b);
    let verdict = required(o, broken);
    let mut out = std::io::stdout().lock();
    if o.json {
        let json = serde_json::json!({"compare": cmp, "a": ra, "b": rb});
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json).expect("reports serialize")
        )
        .ok();
        return Ok(verdict);
    }
    let (fa, fb) = (Figures::of(&ra), Figures::of(&rb));
    let opt_ms = |v: Option<f64>| v.map(ms).unwrap_or_else(|| "-".into());
    let opt_b = |v: Option<u64>| v.map(format_bytes).unwrap_or_else(|| "-".into());
    let rows: [(&str, String, String); 8] = [
        (
            "median end-to-end",
            opt_ms(fa.median_end_to_end_ms),
            opt_ms(fb.median_end_to_end_ms),
        ),
        (
            "median alignment",
            opt_ms(fa.median_alignment_ms),
            opt_ms(fb.median_alignment_ms),
        ),
        (
            "median persisted in-flight",
            opt_b(fa.median_persisted_bytes),
            opt_b(fb.median_persisted_bytes),
        ),
        (
            "checkpoints completed",
            fa.completed.to_string(),
            fb.completed.to_string(),
        ),
        (
            "checkpoints failed",
            fa.failed.to_string(),
            fb.failed.to_string(),
        ),
        (
            "replayed records",
            fa.replayed_records.to_string(),
            fb.replayed_records.to_string(),
        ),
        (
            "duplicates",
            fa.duplicates.to_string(),
            fb.duplicates.to_string(),
        ),
        ("lost", fa.lost.to_string(), fb.lost.to_string()),
    ];
    let (la, lb) = (cmp.a.label(), cmp.b.label());
    let wa = rows
        .iter()
        .map(|r| r.1.len())
        .chain([la.len()])
        .max()
        .unwrap_or(0);
    writeln!(
        out,
        "{} ({} of virtual time)",
        doc.name,
        ms(ra.virtual_time_ms as f64)
    )
    .ok();
    writeln!(out, "{:<28}  {la:>wa$}  {lb}", "").ok();
    for (name, va, vb) in rows {
        writeln!(out, "{name:<28}  {va:>wa$}  {vb}").ok();
    }
    Ok(verdict)
}

fn ms(v: f64) -> String {
    format_duration((v * 1000.0).round().max(0.0) as u64)
}

/// The short human summary printed without `--json`.
fn summary(r: &Report) -> String {
    let mut s = String::new();
    let status = if r.job_status.is_empty() {
        String::new()
    } else {
        format!(", job {}", r.job_status)
    };
    s += &format!(
        "{} (seed {}): {} of virtual time, {}{status}\n",
        r.name,
        r.seed,
        ms(r.virtual_time_ms as f64),
        if r.finished {
            "finished"
        } else {
            "not finished"
        },
    );
    let count = |status: &str| r.checkpoints.iter().filter(|c| c.status == status).count();
    let completed = count("completed");
    let failed = r.checkpoints.len() - completed - count("in_progress");
    let unaligned = r
        .checkpoints
        .iter()
        .filter(|c| c.status == "completed" && c.unaligned)
        .count();
    let mut e2e: Vec<f64> = r
        .checkpoints
        .iter()
        .filter(|c| c.status == "completed")
        .filter_map(|c| c.end_to_end_ms)
        .collect();
    e2e.sort_by(f64::total_cmp);
    let median = match e2e.len() {
        0 => "-".to_string(),
        n => ms(e2e[n / 2]),
    };
    s += &format!(
        "checkpoints: {completed} completed ({unaligned} unaligned), {failed} failed; median end-to-end {median}\n"
    );
    for f in &r.failures {
        let restored = match (&f.restore_error, f.restored_checkpoint) {
            (Some(err), _) => format!("restore refused: {err}"),
            (None, Some(id)) => format!("restored checkpoint {id}"),
            (None, None) => "restarted from scratch".to_string(),
        };
        s += &format!(
            "failure: {}#{} at {}: {restored}, replayed {} records, lost {}\n",
            f.operator,
            f.subtask,
            ms(f.at_ms),
            f.replayed_records,
            f.lost_records
        );
    }
    for x in &r.resubmissions {
        let outcome = match &x.restore_error {
            Some(err) => format!("the new job failed to start: {err}"),
            None => {
                let mut t = format!(
                    "restored {} {}, {} in-flight records recovered ({} moved)",
                    if x.savepoint {
                        "savepoint"
                    } else {
                        "checkpoint"
                    },
                    x.restored_checkpoint.unwrap_or(0),
                    x.recovered_inflight_records,
                    x.moved_inflight_records
                );
                if !x.skipped_operators.is_empty() {
                    t += &format!(
                        "; state of {} skipped with {} in-flight records",
                        x.skipped_operators.join(", "),
                        x.skipped_inflight_records
                    );
                }
                t
            }
        };
        s += &format!(
            "resubmission at {} from {}: {outcome}, lost {}\n",
            ms(x.at_ms),
            x.from,
            x.lost_records
        );
    }
    for k in &r.sinks {
        s += &format!(
            "sink {} ({}): {} committed, {} duplicates, {} lost — {}\n",
            k.operator,
            k.delivery,
            k.committed_records,
            k.duplicates,
            k.lost,
            if k.exactly_once {
                "exactly-once".to_string()
            } else if k.unattributed_lost > 0 {
                format!(
                    "NOT exactly-once ({} lost that no failure explains)",
                    k.unattributed_lost
                )
            } else {
                "NOT exactly-once".to_string()
            }
        );
    }
    s
}
