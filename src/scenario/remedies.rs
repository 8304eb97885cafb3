//! Remedies as measured experiments (issue 18 item 4): the scenario re-run with one change
//! each, and the effect in figures — not advice, a measurement.
//!
//! Contract: [`remedies`] derives from a document one variant per remedy — unaligned
//! checkpoints, an aligned-checkpoint timeout (200 ms), buffer debloating, fewer buffers
//! (1 exclusive per channel, 2 floating per gate), overdraft buffers (Flink's default 5),
//! and twice the parallelism at the bottleneck operator when one is named — each a copy
//! that differs only in those settings (same job, seed, duration and events, like
//! [`super::compare::variant`]); a variant that does not validate (e.g. a forward edge at
//! the doubled operator) is left out with its reason.
//!
//! [`RemedyRun`] is one experiment, run in slices of virtual time so that a host (the
//! UI's frame loop) can spread it over frames, show its [`RemedyRun::progress`] and drop
//! it to cancel: first the document as is to its end (its bottleneck names the operator
//! whose parallelism doubles), then the remedy's variant to its end. Its [`Outcome`]
//! holds both runs' whole-run [`Figures`] (the comparison view's) and the [`Effect`] on
//! one checkpoint: the as-is checkpoint `N` against the remedy run's first checkpoint
//! triggered at or after `N`'s trigger (the same one when the ids line up) — end to end,
//! start delay, alignment, persisted in-flight bytes, and the replay a failure would
//! cost just before `N` completed as is (the input since the trigger of the newest
//! completed checkpoint then). [`measure`] (the CLI's `remedies`) runs every remedy
//! through the same [`RemedyRun`], so the UI and the CLI give the same figures; the as-is
//! run is the same for every remedy of a document, so [`RemedyRun::with_base`] takes its
//! report from an earlier experiment on the identical document (the CLI's one run, the
//! UI's cache) and runs only the remedy's variant. An experiment that cannot run (an
//! unknown remedy, a document or variant that does not validate, no bottleneck to double)
//! fails with a structured `engine::log::Msg` (the UI shows it in the viewer's language;
//! [`measure`] reports its English).
//!
//! When a remedy applies: in Flink every one of them is configuration read when the job
//! (or its TaskManagers) starts — a running job cannot switch to unaligned checkpoints,
//! another buffer count or debloating, and a new parallelism is a rescale (a restart
//! from a checkpoint or savepoint). So the experiment applies the remedy from t = 0 and
//! re-runs deterministically (same seed: the runs are identical until the change
//! matters); switching it on at the checkpoint's trigger time inside the running job
//! would be a Flink fiction and is not offered ([`how_in_flink`] says what Flink needs).

use super::compare::{Figures, Mode, TIMEOUT_KEY, UNALIGNED_KEY};
use super::document::Document;
use crate::engine::diagnosis::dur;
use crate::engine::log::{list_of, text, Arg, Msg};
use crate::engine::report::{CheckpointReport, Report};
use crate::engine::time::{format_bytes, Micros};
use crate::engine::Engine;
use serde::Serialize;

/// The remedies' names, in the order they are offered.
pub const NAMES: [&str; 6] = [
    "unaligned",
    "alignment_timeout",
    "debloating",
    "fewer_buffers",
    "overdraft",
    "parallelism",
];

/// What the remedy takes in Flink on a running job.
pub fn how_in_flink(name: &str) -> &'static str {
    match name {
        "unaligned" | "alignment_timeout" => "job configuration (CheckpointConfig), read when the job is submitted: a running job needs stop-with-savepoint and a resubmission",
        "debloating" | "fewer_buffers" | "overdraft" => "network configuration of the TaskManagers, read when the tasks' gates and pools are set up: a restart (the job redeployed)",
        "parallelism" => "a rescale: the job restarts from a checkpoint or savepoint with the new parallelism",
        _ => "",
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Remedy {
    /// `unaligned`, `alignment_timeout`, `debloating`, `fewer_buffers`, `overdraft`,
    /// `parallelism`.
    pub name: String,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Experiment {
    pub base: Figures,
    /// The checkpoint whose effect each outcome measures.
    pub checkpoint: Option<u64>,
    pub remedies: Vec<Outcome>,
    /// Remedies that could not run, with the reason.
    pub skipped: Vec<(String, String)>,
}

fn with(doc: &Document, name: &str, label: &str, keys: &[(&str, &str)]) -> (Remedy, Document) {
    let mut v = doc.clone();
    v.compare = None;
    v.guide = None;
    for (k, val) in keys {
        let _ = v.set_config(k, val);
    }
    v.name = format!("{} — {label}", doc.name);
    (
        Remedy {
            name: name.into(),
            label: label.into(),
        },
        v,
    )
}

/// The remedy variants of `doc` (see the module), `bottleneck` naming the operator whose
/// parallelism doubles.
pub fn remedies(doc: &Document, bottleneck: Option<&str>) -> Vec<(Remedy, Document)> {
    let timeout = Mode::Timeout(200_000).config();
    let mut out = vec![
        with(
            doc,
            "unaligned",
            "unaligned checkpoints",
            &[(UNALIGNED_KEY, "true"), (TIMEOUT_KEY, "0s")],
        ),
        with(
            doc,
            "alignment_timeout",
            "aligned, 200ms timeout",
            &[(UNALIGNED_KEY, timeout.0), (TIMEOUT_KEY, &timeout.1)],
        ),
        with(
            doc,
            "debloating",
            "buffer debloating",
            &[("taskmanager.network.memory.buffer-debloat.enabled", "true")],
        ),
        with(
            doc,
            "fewer_buffers",
            "fewer buffers (1 per channel, 2 floating)",
            &[
                ("taskmanager.network.memory.buffers-per-channel", "1"),
                ("taskmanager.network.memory.floating-buffers-per-gate", "2"),
            ],
        ),
        with(
            doc,
            "overdraft",
            "overdraft buffers (5 per gate)",
            &[(
                "taskmanager.network.memory.max-overdraft-buffers-per-gate",
                "5",
            )],
        ),
    ];
    if let Some(op) = bottleneck {
        let (r, mut v) = with(doc, "parallelism", &format!("parallelism ×2 at {op}"), &[]);
        if let Some(o) = v.operators.iter_mut().find(|o| o.id == op) {
            o.parallelism = Some(o.parallelism.unwrap_or(1) * 2);
            out.push((r, v));
        }
    }
    out
}

/// One checkpoint's figures in an [`Effect`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CheckpointFigures {
    pub id: u64,
    pub status: String,
    pub unaligned: bool,
    pub trigger_ms: f64,
    pub end_to_end_ms: Option<f64>,
    pub start_delay_ms: f64,
    pub alignment_ms: f64,
    pub persisted_inflight_bytes: u64,
}

impl CheckpointFigures {
    fn of(c: &CheckpointReport) -> CheckpointFigures {
        CheckpointFigures {
            id: c.id,
            status: c.status.clone(),
            unaligned: c.unaligned || c.timed_out_to_unaligned,
            trigger_ms: c.trigger_ms,
            end_to_end_ms: c.end_to_end_ms,
            start_delay_ms: c.start_delay_ms,
            alignment_ms: c.alignment_ms,
            persisted_inflight_bytes: c.persisted_inflight_bytes,
        }
    }
}

/// The remedy's effect on one checkpoint (see the module).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Effect {
    pub before: CheckpointFigures,
    /// `None` when the remedy run triggered no checkpoint at or after `before`'s trigger.
    pub after: Option<CheckpointFigures>,
    /// The failure instant the replay figures assume: just before `before` completed (or
    /// the run's end when it never did).
    pub failure_at_ms: f64,
    /// Input replayed after a failure then: since the trigger of the newest checkpoint
    /// completed by then (the whole input when none was).
    pub replay_before_ms: f64,
    pub replay_after_ms: f64,
    /// "checkpoint 7: end-to-end 3.90 s → 31 ms, persisted +290.0 KB, replay on failure −4.00 s":
    /// exactly `msg`'s English.
    pub text: String,
    /// [`Effect::text`]'s structured form, for the interface; not in the JSON.
    #[serde(skip)]
    pub msg: Option<Msg>,
}

/// What one remedy run gave.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub remedy: Remedy,
    /// How Flink applies it ([`how_in_flink`]).
    pub in_flink: String,
    pub base: Figures,
    pub figures: Figures,
    pub effect: Option<Effect>,
}

/// The replay after a failure at `at_ms`: the input since the trigger of the newest
/// checkpoint (not savepoint) completed by then.
fn replay_at(r: &Report, at_ms: f64) -> f64 {
    let restored = r
        .checkpoints
        .iter()
        .filter(|c| c.status == "completed" && !c.is_savepoint)
        .filter(|c| c.end_to_end_ms.is_some_and(|e| c.trigger_ms + e <= at_ms))
        .map(|c| c.trigger_ms)
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))));
    at_ms - restored.unwrap_or(0.0)
}

/// A report's checkpoint status (`in_progress`, …) in words, an engine word.
fn status_words(status: &str) -> Option<&'static str> {
    Some(match status {
        "in_progress" => "in progress",
        "completed" => "completed",
        "failed" => "failed",
        "expired" => "expired",
        "aborted" => "aborted",
        _ => return None,
    })
}

fn signed_ms(delta: f64) -> String {
    let sign = if delta < 0.0 { "−" } else { "+" };
    format!("{sign}{}", dur(delta.abs()))
}

/// The effect on checkpoint `checkpoint` of the as-is run `base` against `with`.
pub fn effect(base: &Report, with: &Report, checkpoint: u64) -> Option<Effect> {
    let b = base
        .checkpoints
        .iter()
        .find(|c| c.id == checkpoint && !c.is_savepoint)?;
    let a = with
        .checkpoints
        .iter()
        .filter(|c| !c.is_savepoint)
        .find(|c| c.trigger_ms >= b.trigger_ms - 0.001);
    let failure_at_ms = match b.end_to_end_ms {
        Some(e) => (b.trigger_ms + e - 0.001).max(b.trigger_ms),
        None => base.virtual_time_ms as f64,
    };
    let before = CheckpointFigures::of(b);
    let after = a.map(CheckpointFigures::of);
    let replay_before_ms = replay_at(base, failure_at_ms);
    let replay_after_ms = replay_at(with, failure_at_ms);
    let e2e = |c: &CheckpointFigures| match c.end_to_end_ms {
        Some(e) => text(dur(e)),
        None => status_words(&c.status).map_or_else(|| text(c.status.replace('_', " ")), Arg::Word),
    };
    let part = |code, args| Arg::from(Msg::new(code, args));
    let mut parts = vec![];
    match &after {
        Some(a) => {
            parts.push(part("end-to-end {0} → {1}", vec![e2e(&before), e2e(a)]));
            parts.push(part(
                "start delay {0} → {1}",
                vec![
                    text(dur(before.start_delay_ms)),
                    text(dur(a.start_delay_ms)),
                ],
            ));
            parts.push(part(
                "alignment {0} → {1}",
                vec![text(dur(before.alignment_ms)), text(dur(a.alignment_ms))],
            ));
            let (p0, p1) = (before.persisted_inflight_bytes, a.persisted_inflight_bytes);
            parts.push(if p1 >= p0 {
                part("persisted +{0}", vec![text(format_bytes(p1 - p0))])
            } else {
                part("persisted −{0}", vec![text(format_bytes(p0 - p1))])
            });
        }
        None => parts.push(part(
            "no checkpoint in the same window with the remedy",
            vec![],
        )),
    }
    parts.push(part(
        "replay on failure {0} ({1} → {2} of input)",
        vec![
            text(signed_ms(replay_after_ms - replay_before_ms)),
            text(dur(replay_before_ms)),
            text(dur(replay_after_ms)),
        ],
    ));
    let msg = Msg::new(
        "checkpoint {0}: {1}",
        vec![text(before.id), Arg::List(parts, ", ")],
    );
    Some(Effect {
        before,
        after,
        failure_at_ms,
        replay_before_ms,
        replay_after_ms,
        text: msg.english(),
        msg: Some(msg),
    })
}

/// The slowest completed checkpoint of a report (by end to end), else the newest.
pub fn slowest_checkpoint(r: &Report) -> Option<u64> {
    r.checkpoints
        .iter()
        .filter(|c| c.status == "completed" && !c.is_savepoint)
        .max_by(|a, b| {
            a.end_to_end_ms
                .unwrap_or(0.0)
                .total_cmp(&b.end_to_end_ms.unwrap_or(0.0))
        })
        .or(r.checkpoints.last())
        .map(|c| c.id)
}

/// Why an experiment cannot run: the document's or the job's problem as `path: message`
/// (the English is exactly that line), its message structured where the check gives one.
fn engine_of(doc: &Document) -> Result<(Engine, Micros), Msg> {
    let located = |path: &str, message: Arg| Msg::new("{0}: {1}", vec![text(path), message]);
    let spec = super::to_spec(doc).map_err(|e| located(&e.path, e.structured().into()))?;
    let end = spec.duration;
    let engine = Engine::new(spec).map_err(|e| {
        let message = match e.msg {
            Some(m) if m.english() == e.message => m.into(),
            _ => text(&e.message),
        };
        located(&e.path, message)
    })?;
    Ok((engine, end))
}

/// Where the as-is run of a [`RemedyRun`] stands.
enum Base {
    /// Running: the engine of the document as is.
    Running(Box<Engine>),
    /// At its end: its report.
    Done(Box<Report>),
}

/// One experiment: the document as is, then with one remedy, each to its end (see the
/// module). Drop it to cancel.
pub struct RemedyRun {
    name: String,
    doc: Document,
    checkpoint: Option<u64>,
    base: Base,
    /// The as-is run's end (its duration).
    end: Micros,
    /// The as-is report came with the experiment ([`RemedyRun::with_base`]): the progress
    /// counts the remedy's run alone.
    base_given: bool,
    with: Option<(Remedy, Engine, Micros)>,
    outcome: Option<Result<Outcome, Msg>>,
}

fn check_name(name: &str) -> Result<(), Msg> {
    if NAMES.contains(&name) {
        Ok(())
    } else {
        Err(Msg::new(
            "unknown remedy '{0}' (known: {1})",
            vec![text(name), list_of(&NAMES, ", ")],
        ))
    }
}

impl RemedyRun {
    /// The experiment of remedy `name` (one of [`NAMES`]) on `doc`, its effect measured
    /// on checkpoint `checkpoint` (`None`: the as-is run's slowest).
    pub fn new(doc: &Document, name: &str, checkpoint: Option<u64>) -> Result<RemedyRun, Msg> {
        check_name(name)?;
        let (base, end) = engine_of(doc)?;
        Ok(RemedyRun {
            name: name.into(),
            doc: doc.clone(),
            checkpoint,
            base: Base::Running(Box::new(base)),
            end,
            base_given: false,
            with: None,
            outcome: None,
        })
    }

    /// [`RemedyRun::new`] with the as-is run already done: `report` is `doc`'s report at
    /// its end (another experiment's [`RemedyRun::base_report`] on the same document), so
    /// only the remedy's variant runs.
    pub fn with_base(
        doc: &Document,
        name: &str,
        checkpoint: Option<u64>,
        report: Report,
    ) -> Result<RemedyRun, Msg> {
        check_name(name)?;
        Ok(RemedyRun {
            name: name.into(),
            doc: doc.clone(),
            checkpoint,
            base: Base::Done(Box::new(report)),
            end: 0,
            base_given: true,
            with: None,
            outcome: None,
        })
    }

    /// The document the experiment runs (as is, before the remedy).
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// The as-is run's report, once that run reached its end.
    pub fn base_report(&self) -> Option<&Report> {
        match &self.base {
            Base::Done(r) => Some(r),
            Base::Running(_) => None,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Share of the work done, in [0, 1].
    pub fn progress(&self) -> f64 {
        if self.outcome.is_some() {
            return 1.0;
        }
        let share = |now: Micros, end: Micros| now as f64 / end.max(1) as f64;
        match (&self.base, &self.with) {
            (Base::Running(e), _) => share(e.now(), self.end) / 2.0,
            (Base::Done(_), None) if self.base_given => 0.0,
            (Base::Done(_), None) => 0.5,
            (Base::Done(_), Some((_, e, end))) if self.base_given => share(e.now(), *end),
            (Base::Done(_), Some((_, e, end))) => 0.5 + share(e.now(), *end) / 2.0,
        }
    }

    /// Runs at most `slice` more virtual time of the current run; `true` once the outcome
    /// is there.
    pub fn advance(&mut self, slice: Micros) -> bool {
        if self.outcome.is_some() {
            return true;
        }
        let slice = slice.max(1);
        if let Base::Running(e) = &mut self.base {
            let t = (e.now() + slice).min(self.end);
            e.run_until(t);
            if t >= self.end || e.is_done() {
                self.base = Base::Done(Box::new(e.report()));
            }
            return false;
        }
        let Base::Done(base) = &self.base else {
            return false;
        };
        let Some((remedy, e, end)) = &mut self.with else {
            let bottleneck = base.bottleneck.operator.clone();
            let found = remedies(&self.doc, bottleneck.as_deref())
                .into_iter()
                .find(|(r, _)| r.name == self.name);
            match found {
                None => {
                    self.outcome = Some(Err(Msg::new(
                        "no {0} remedy here (no bottleneck operator named)",
                        vec![text(&self.name)],
                    )))
                }
                Some((remedy, v)) => match engine_of(&v) {
                    Ok((e, end)) => self.with = Some((remedy, e, end)),
                    Err(why) => self.outcome = Some(Err(why)),
                },
            }
            return self.outcome.is_some();
        };
        let t = (e.now() + slice).min(*end);
        e.run_until(t);
        if t >= *end || e.is_done() {
            let with = e.report();
            let checkpoint = self.checkpoint.or_else(|| slowest_checkpoint(base));
            self.outcome = Some(Ok(Outcome {
                in_flink: how_in_flink(&remedy.name).into(),
                remedy: remedy.clone(),
                base: Figures::of(base),
                figures: Figures::of(&with),
                effect: checkpoint.and_then(|id| effect(base, &with, id)),
            }));
            return true;
        }
        false
    }

    /// The outcome, once [`RemedyRun::advance`] returned `true`.
    pub fn outcome(&self) -> Option<&Result<Outcome, Msg>> {
        self.outcome.as_ref()
    }

    /// Runs to the end at once (the CLI, tests).
    pub fn finish(mut self) -> Result<Outcome, Msg> {
        loop {
            self.advance(1_000_000);
            if let Some(outcome) = self.outcome.take() {
                return outcome;
            }
        }
    }
}

/// Every remedy's [`Outcome`] on `doc` (the as-is run once, shared), the effect measured
/// on `checkpoint` (`None`: the as-is run's slowest).
pub fn measure(doc: &Document, checkpoint: Option<u64>) -> Result<Experiment, String> {
    let (mut e, end) = engine_of(doc).map_err(|m| m.english())?;
    e.run_until(end);
    let report = e.report();
    let checkpoint = checkpoint.or_else(|| slowest_checkpoint(&report));
    let mut out = Experiment {
        base: Figures::of(&report),
        checkpoint,
        remedies: Vec::new(),
        skipped: Vec::new(),
    };
    for name in NAMES {
        let run =
            RemedyRun::with_base(doc, name, checkpoint, report.clone()).map_err(|m| m.english())?;
        match run.finish() {
            Ok(o) => out.remedies.push(o),
            Err(why) => out.skipped.push((name.to_string(), why.english())),
        }
    }
    Ok(out)
}
