//! The simulation host: owns the engine for the UI, advances it in bounded slices, and
//! cuts read-only snapshots for the panels only when what they show changed.
//!
//! Contract: [`Sim`] holds the engine in an `Rc<RefCell<_>>` with a generation counter
//! bumped on every change. The UI never changes the engine except through
//! [`Sim::apply`] (which goes through `Engine::apply`, so every action is recorded in
//! `spec.events` and replays from a link), [`Sim::advance`] / [`Sim::step`] (time), and
//! [`Sim::load`] / [`Sim::reset`] (a new engine). [`Snapshots`] are `Rc`s that are
//! replaced only when their content key changes, so Yew skips unchanged panels.
//!
//! Time travel: while the run advances, a [`Rewinder`] keeps engine snapshots.
//! [`Sim::seek`] moves to any time: within the furthest time reached it restores the
//! nearest snapshot (or runs on, when that is shorter) with the live run's later recorded
//! actions still ahead, so playing on replays the same run; beyond it, it runs the engine.
//! A new action after seeking back forks the run ([`Sim::apply`]): later recorded actions
//! and snapshots are dropped, the furthest time becomes now, and the link describes the
//! fork. The timeline's marks ([`TimelineMarks`]) are cut only at the furthest time.

use std::cell::RefCell;
use std::rc::Rc;

use crate::engine::config::{BarrierKind, EngineConfig};
use crate::engine::coordinator::CheckpointStatus;
use crate::engine::log::{LogEntry, LogKind};
use crate::engine::report::Report;
use crate::engine::runtime::JobStatus;
use crate::engine::spec::{Action, OperatorKind, TimedAction};
use crate::engine::time::Micros;
use crate::engine::time_travel::Rewinder;
use crate::engine::view::{ChannelView, TaskView};
use crate::engine::Engine;
use crate::scenario::guide::Guide;
use crate::scenario::{self, Document, ScenarioError};

pub use super::chart_export::ChartData;
use super::components::job_view::lanes::{self, AggLane};
use super::i18n::steps::{self, StepLine};
use super::layout::Layout;
use super::markers::{cut_marks, marks_key, TimelineMarks};
use super::pacer::{Pacer, Sliced};
use super::shared::Shared;

/// Log entries kept for the event log panel.
const LOG_KEEP: usize = 300;
/// While playing, the secondary panels (log, charts) are refreshed at most this often
/// (wall ms), the report (checkpoints, sinks, failures) at most every
/// [`REPORT_EVERY_MS`]; the job view follows every frame. A pause, a step or an
/// action refreshes everything at once.
const SECONDARY_EVERY_MS: f64 = 250.0;
const REPORT_EVERY_MS: f64 = 400.0;
/// While playing, the job view is re-cut at most this often (wall ms, ~30 Hz): the
/// engine still advances every frame, but the browser re-lays out the SVG at most
/// 30 times a second, which keeps frames short on large jobs.
const LIVE_EVERY_MS: f64 = 33.0;

/// Engine work (wall time) per snapshot time while playing; see `Sim::work_since_snapshot`.
const SNAPSHOT_WORK_RATIO: f64 = 20.0;

/// How far "Checkpoint step" runs at most looking for the next step (virtual time).
pub const CHECKPOINT_STEP_LIMIT: Micros = 30_000_000;

/// The live part of the job view: changes every frame while running.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveView {
    pub now: Micros,
    pub tasks: Vec<TaskView>,
    /// Every channel's queues (the inspector lists a subtask's input channels).
    pub channels: Vec<ChannelView>,
    /// The channels summed per edge (index = edge id), cut once with the channels: the
    /// job view's aggregated lanes and their tips read these, not a sum per paint.
    pub aggregated: Vec<AggLane>,
    /// Checkpoint currently pending at the coordinator (newest), if any.
    pub pending_checkpoint: Option<u64>,
}

/// Per operator: what its sliders show.
#[derive(Clone, Debug, PartialEq)]
pub struct OperatorKnob {
    pub id: String,
    pub kind: &'static str,
    pub parallelism: u32,
    pub cost: Micros,
    /// Records per second per subtask, for sources.
    pub rate: Option<f64>,
}

/// The settings view: config and per-operator knobs, and the recorded actions.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsView {
    pub config: EngineConfig,
    pub operators: Vec<OperatorKnob>,
    pub events: Vec<TimedAction>,
}

/// A guide and where the run stands in it.
#[derive(Clone, Debug, PartialEq)]
pub struct GuideView {
    pub guide: Guide,
    /// The preset the guide belongs to (its tries re-run that preset).
    pub preset: Option<String>,
    /// The try the run is, if it is one.
    pub active_try: Option<usize>,
}

/// The guide for a run of `document`: its own, else that of the preset (or preset try)
/// it runs.
fn guide_view(document: &Document, preset: Option<&str>) -> Option<Rc<GuideView>> {
    let recognized = scenario::presets::recognize(document);
    let preset = preset
        .map(str::to_string)
        .or_else(|| recognized.as_ref().map(|(p, _)| p.clone()));
    let active_try = recognized
        .filter(|(p, _)| Some(p) == preset.as_ref())
        .and_then(|(_, t)| t);
    let guide = document
        .guide
        .clone()
        .or_else(|| scenario::preset(preset.as_deref()?)?.guide)?;
    Some(Rc::new(GuideView {
        guide,
        preset,
        active_try,
    }))
}

/// Read-only snapshots for the panels.
#[derive(Clone)]
pub struct Snapshots {
    pub layout: Rc<Layout>,
    pub live: Rc<LiveView>,
    pub report: Shared<Report>,
    pub charts: Shared<ChartData>,
    pub log: Shared<Vec<LogEntry>>,
    /// Entries ever logged when `log` was cut.
    pub log_total: u64,
    pub settings: Rc<SettingsView>,
    /// The barrier kind of each checkpoint in progress (cut with the report): an
    /// unaligned one is unaligned before any subtask acknowledged it.
    pub pending_kinds: Rc<Vec<(u64, BarrierKind)>>,
    /// Marks of the run up to the furthest time reached.
    pub timeline: Rc<TimelineMarks>,
}

#[derive(Default, Clone, Copy, PartialEq)]
struct Keys {
    layout: u64,
    report: u64,
    charts: usize,
    log: u64,
    settings: usize,
}

/// The engine as the UI holds it.
pub struct Sim {
    pub engine: Rc<RefCell<Engine>>,
    /// Bumped on every change to the engine.
    pub generation: u64,
    /// The document the run started from (name, description, original events).
    pub document: Document,
    /// The preset the document came from, if any.
    pub preset: Option<String>,
    /// The guide shown beside the run: the document's own, else its preset's.
    pub guide: Option<Rc<GuideView>>,
    keys: Keys,
    pub snapshots: Snapshots,
    last_report_wall: f64,
    last_secondary_wall: f64,
    last_live_wall: f64,
    /// Wall ms of the last [`Sim::advance`]: (engine slices, snapshot cutting).
    pub last_timing: (f64, f64),
    /// The engine's pace on this run, which sizes the slices of [`Sim::advance`].
    pacer: Pacer,
    /// Engine snapshots for seeking back.
    pub rewinder: Rewinder,
    /// The furthest virtual time this run (branch) reached.
    pub furthest: Micros,
    /// Where the run was last forked, if it was.
    pub forked_at: Option<Micros>,
    /// Wall ms the last [`Sim::seek`] took.
    pub last_seek_ms: f64,
    /// Wall ms of engine work since the last kept snapshot, and what the last one cost:
    /// a snapshot is kept only once the engine worked [`SNAPSHOT_WORK_RATIO`] times as
    /// long as a snapshot takes, so keeping them costs at most ~5% of the frame work
    /// (a large job's clone takes tens of ms; taking one every virtual second made
    /// frames stutter).
    work_since_snapshot: f64,
    snapshot_ms: f64,
    marks_key: u64,
}

/// The engine as [`Sim::advance`]'s pacer drives it: a time-travel snapshot between
/// slices once the engine worked [`SNAPSHOT_WORK_RATIO`] times as long as the last one
/// took.
struct Observed<'a> {
    engine: &'a mut Engine,
    rewinder: &'a mut Rewinder,
    work_since_snapshot: &'a mut f64,
    snapshot_ms: &'a mut f64,
}

impl Sliced for Observed<'_> {
    fn now(&self) -> Micros {
        self.engine.now
    }
    fn done(&self) -> bool {
        self.engine.is_done()
    }
    fn run_until(&mut self, to: Micros) {
        self.engine.run_until(to);
    }
    fn after_slice(&mut self, took_ms: f64) {
        *self.work_since_snapshot += took_ms;
        if *self.work_since_snapshot >= SNAPSHOT_WORK_RATIO * *self.snapshot_ms
            && self.rewinder.due(self.engine)
        {
            let before = now_ms();
            self.rewinder.observe(self.engine);
            *self.snapshot_ms = now_ms() - before;
            *self.work_since_snapshot = 0.0;
        }
    }
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

impl Sim {
    /// A run of `document`; `Err` names what does not validate.
    pub fn new(document: Document, preset: Option<String>) -> Result<Sim, ScenarioError> {
        let spec = scenario::to_spec(&document)?;
        let mut engine = Engine::new(spec)?;
        // The page shows the verdict, never the records: keep only the lineage runs.
        engine.keep_sink_records(false);
        let rewinder = Rewinder::for_host(&engine);
        let marks_key = marks_key(&engine, None);
        let engine = Rc::new(RefCell::new(engine));
        let snapshots = cut_all(&engine.borrow());
        let guide = guide_view(&document, preset.as_deref());
        let mut sim = Sim {
            engine,
            generation: 0,
            document,
            preset,
            guide,
            keys: Keys::default(),
            snapshots,
            last_report_wall: 0.0,
            last_secondary_wall: 0.0,
            last_live_wall: 0.0,
            last_timing: (0.0, 0.0),
            pacer: Pacer::default(),
            rewinder,
            furthest: 0,
            forked_at: None,
            last_seek_ms: 0.0,
            work_since_snapshot: 0.0,
            snapshot_ms: 0.0,
            marks_key,
        };
        sim.keys = sim.current_keys();
        Ok(sim)
    }

    /// Starts the same document over at virtual time zero (live actions are dropped).
    pub fn reset(&mut self) {
        if let Ok(fresh) = Sim::new(self.document.clone(), self.preset.clone()) {
            *self = Sim {
                generation: self.generation + 1,
                ..fresh
            };
        }
    }

    pub fn now(&self) -> Micros {
        self.engine.borrow().now
    }

    pub fn duration(&self) -> Micros {
        self.engine.borrow().spec.duration
    }

    pub fn is_done(&self) -> bool {
        self.engine.borrow().is_done()
    }

    pub fn status(&self) -> JobStatus {
        self.engine.borrow().status
    }

    /// Advances towards virtual time `target`, in slices, for at most `budget_ms` of
    /// wall time. Returns the virtual time reached.
    ///
    /// The slices are sized from the engine's measured pace ([`Pacer`], shared with the
    /// comparison's loop); between slices the rewinder keeps its snapshots, outside the
    /// pace's measurement.
    pub fn advance(&mut self, target: Micros, budget_ms: f64) -> Micros {
        let start = now_ms();
        {
            let mut engine = self.engine.borrow_mut();
            let target = target.min(engine.spec.duration);
            let mut host = Observed {
                engine: &mut engine,
                rewinder: &mut self.rewinder,
                work_since_snapshot: &mut self.work_since_snapshot,
                snapshot_ms: &mut self.snapshot_ms,
            };
            self.pacer.advance(&mut host, target, budget_ms, &now_ms);
        }
        let engine_done = now_ms();
        self.changed(false);
        self.last_timing = (engine_done - start, now_ms() - engine_done);
        self.now()
    }

    /// Re-cuts the snapshots due after the engine was advanced from outside (a
    /// [`super::compare::Compare`] running two engines in lockstep), on the same
    /// refresh intervals as [`Sim::advance`].
    pub fn cut(&mut self) {
        self.changed(false);
    }

    /// Re-cuts every snapshot whose content changed (after a pause).
    pub fn refresh(&mut self) {
        self.changed(true);
    }

    /// Runs the next engine event (one step of the executor).
    pub fn step(&mut self) {
        self.engine.borrow_mut().step();
        self.rewinder.observe(&self.engine.borrow());
        self.changed(true);
    }

    /// Runs to the next checkpoint step (at most [`CHECKPOINT_STEP_LIMIT`] ahead) and
    /// returns what the log says about it, `one [`StepLine`] per entry.
    ///
    /// The two phases are steps of their own: a step that ends with a subtask inside its
    /// synchronous snapshot (`Engine::sync_phases`) stops there, with a first line saying
    /// so (the job view shows the subtask's `sync` badge); the next step runs to the end
    /// of that snapshot, where the asynchronous phase begins, and says so, together with
    /// whatever the log says at that instant. Stepping never changes the run.
    pub fn checkpoint_step(&mut self) -> Vec<StepLine> {
        let (running, end) = self.engine.borrow().sync_phases();
        let mut lines = Vec::new();
        let hits = match end {
            Some(end) => {
                let names = self.task_names(&running);
                let hits = self
                    .engine
                    .borrow_mut()
                    .run_until_logged(end, LogKind::CHECKPOINT_STEPS);
                lines.push(StepLine::phase(self.now(), steps::ASYNC_BEGINS, names));
                hits
            }
            None => self
                .engine
                .borrow_mut()
                .run_to_next_log(LogKind::CHECKPOINT_STEPS, CHECKPOINT_STEP_LIMIT),
        };
        lines.extend(
            hits.into_iter()
                .map(|e| StepLine::logged(e.at, e.text, e.msg)),
        );
        if end.is_none() {
            let (running, _) = self.engine.borrow().sync_phases();
            if !running.is_empty() {
                lines.push(StepLine::phase(
                    self.now(),
                    steps::SYNC_PHASE,
                    self.task_names(&running),
                ));
            }
        }
        self.rewinder.observe(&self.engine.borrow());
        self.changed(true);
        lines
    }

    fn task_names(&self, list: &[(usize, u64)]) -> Vec<(String, u64)> {
        let e = self.engine.borrow();
        list.iter()
            .map(|&(t, id)| (e.tasks[t].name.clone(), id))
            .collect()
    }

    /// Runs until virtual time `t` without a budget (tests, links opened at a time).
    pub fn run_to(&mut self, t: Micros) {
        self.run_observed(t);
        self.changed(true);
    }

    /// Whether [`Sim::apply`] would take `action` now (`Engine::check_action`), in plain
    /// words when not.
    pub fn check(&self, action: &Action) -> Result<(), String> {
        self.engine
            .borrow()
            .check_action(action)
            .map_err(|e| super::i18n::messages::text_of(e.msg.as_ref(), &e.message))
    }

    /// Applies a user action through the engine (recorded in `spec.events`); a refusal
    /// is the engine's message in plain words and changes nothing.
    pub fn apply(&mut self, action: Action) -> Result<(), String> {
        let now = self.now();
        let result = self.engine.borrow_mut().apply(action);
        let result = result.map_err(|e| self.plain_refusal(&e));
        if result.is_ok() && now < self.furthest {
            self.fork_here(now);
        }
        self.changed(true);
        result
    }

    /// Applies the scenario event `event` (JSON, e.g. the Resubmit dialog's
    /// `{"at": …, "resubmit": {…}}`) now: it is read exactly as a link's events are —
    /// the run's document with this one event, through `Document::from_value` and
    /// `scenario::to_spec` — and its action goes through [`Sim::apply`], so it is
    /// recorded like any other. A refusal is the reader's or the engine's message.
    pub fn apply_event(&mut self, event: serde_json::Value) -> Result<(), String> {
        let mut doc = serde_json::to_value(scenario::file::export_document(
            &self.engine.borrow().spec,
            self.document.description.as_deref(),
        ))
        .map_err(|e| e.to_string())?;
        doc["events"] = serde_json::Value::Array(vec![event]);
        let plain = |e: scenario::ScenarioError| {
            let path = e.path.replacen("events[0]", "event", 1);
            super::i18n::tf(
                "The scenario reader refused this event — {0}: {1}",
                &[
                    &path,
                    &super::i18n::messages::text_of(e.msg.as_ref(), &e.message),
                ],
            )
        };
        let document = Document::from_value(&doc).map_err(plain)?;
        let spec = scenario::to_spec(&document).map_err(plain)?;
        let action = spec
            .events
            .into_iter()
            .next()
            .map(|e| e.action)
            .ok_or_else(|| "the event has no action".to_string())?;
        self.apply(action)
    }

    /// A refusal in plain words: one that names a timed event of the scenario
    /// (`events[2].set_config…`) says which event, by its time and what it does.
    /// The engine's message is shown from its structured form where it has one, in the
    /// viewer's language.
    fn plain_refusal(&self, error: &crate::engine::spec::SpecError) -> String {
        use super::i18n::messages::{render_arg, text_of};
        let message = text_of(error.msg.as_ref(), &error.message);
        let Some(rest) = error.path.strip_prefix("events[") else {
            return message;
        };
        let e = self.engine.borrow();
        let event = rest
            .split(']')
            .next()
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| e.spec.events.get(i));
        // The later event's own problem: the refusal's second argument (or, for a
        // message without a structured form, the text after its last dash).
        let why = match error.msg.as_ref().and_then(|m| m.args.get(1)) {
            Some(arg) => render_arg(arg, super::i18n::current()),
            None => message.rsplit(" — ").next().unwrap_or(&message).to_string(),
        };
        match event {
            Some(ev) => super::i18n::tf(
                "Refused: the scenario's own event {0} would then be invalid — {1}",
                &[&super::format::timed_action(ev.at, &ev.action), &why],
            ),
            None => message,
        }
    }

    /// The link fragment (`z2:…`) that replays this run, recorded actions included.
    pub fn link_fragment(&self) -> String {
        scenario::encode_link(&scenario::file::export_document(
            &self.engine.borrow().spec,
            self.document.description.as_deref(),
        ))
    }

    /// The exported file of this run, recorded actions included: (file name, JSON).
    pub fn export_file(&self) -> (String, String) {
        let spec = &self.engine.borrow().spec;
        (
            scenario::file_name(&spec.name),
            scenario::export_json(spec, self.document.description.as_deref()),
        )
    }

    fn current_keys(&self) -> Keys {
        let e = self.engine.borrow();
        let mut report = e.coordinator.history.len() as u64;
        // Only a pending checkpoint gains acknowledgements or changes status (the
        // coordinator's `acknowledge` and every status change check `pending`), so an ended
        // entry's status stands for it: counting the acknowledgements of every entry walked
        // each entry's subtask map every frame (2.4 % of a playing page at 1,000 entries).
        for c in &e.coordinator.history {
            let acks = match c.status {
                CheckpointStatus::InProgress => c.acknowledged() as u64,
                _ => 0,
            };
            report = report
                .wrapping_mul(31)
                .wrapping_add(c.status as u64 * 1000 + acks);
        }
        report = report
            .wrapping_mul(31)
            .wrapping_add(e.failures.len() as u64 * 7 + e.status as u64);
        for f in &e.failures {
            report = report
                .wrapping_mul(31)
                .wrapping_add(f.recovery_ms.is_some() as u64);
        }
        Keys {
            layout: e.tasks.len() as u64 * 1_000_003
                + e.channels.len() as u64 * 1009
                + e.epoch as u64,
            report,
            charts: e.samples.len() + e.coordinator.history.len() * 100_000,
            log: e.log.total,
            settings: e.spec.events.len(),
        }
    }

    /// Re-cuts the snapshots whose content changed: the job view always, the others
    /// only when `force` or their refresh interval passed (see [`SECONDARY_EVERY_MS`]).
    fn changed(&mut self, force: bool) {
        self.generation += 1;
        let keys = self.current_keys();
        let engine = self.engine.borrow();
        let e = &*engine;
        if keys.layout != self.keys.layout {
            self.snapshots.layout = Rc::new(Layout::compute(e));
        }
        let wall = now_ms();
        if force || wall - self.last_live_wall >= LIVE_EVERY_MS {
            self.snapshots.live = Rc::new(live_view(e));
            self.last_live_wall = wall;
        }
        // The knobs show the live values: scripted events and seeks change costs, rates
        // and the config without recording an action, so compare the values themselves.
        if keys.settings != self.keys.settings || !settings_current(&self.snapshots.settings, e) {
            self.snapshots.settings = Rc::new(settings_view(e));
        }
        let mut cut = self.keys;
        cut.layout = keys.layout;
        cut.settings = keys.settings;
        if force || wall - self.last_report_wall >= REPORT_EVERY_MS {
            let report = e.report();
            if *self.snapshots.report != report {
                self.snapshots.report = Shared::new(report);
            }
            let kinds = pending_kinds(e);
            if *self.snapshots.pending_kinds != kinds {
                self.snapshots.pending_kinds = Rc::new(kinds);
            }
            self.last_report_wall = wall;
            cut.report = keys.report;
        }
        if force || wall - self.last_secondary_wall >= SECONDARY_EVERY_MS {
            if keys.charts != self.keys.charts {
                self.snapshots.charts = Shared::new(ChartData::from_engine(e));
            }
            if keys.log != self.keys.log {
                self.snapshots.log = Shared::new(log_entries(e));
                self.snapshots.log_total = e.log.total;
            }
            cut.charts = keys.charts;
            cut.log = keys.log;
            self.last_secondary_wall = wall;
        }
        drop(engine);
        self.keys = cut;
        self.cut_marks();
    }
}

fn cut_all(e: &Engine) -> Snapshots {
    Snapshots {
        layout: Rc::new(Layout::compute(e)),
        live: Rc::new(live_view(e)),
        report: Shared::new(e.report()),
        charts: Shared::new(ChartData::from_engine(e)),
        log: Shared::new(log_entries(e)),
        log_total: e.log.total,
        settings: Rc::new(settings_view(e)),
        pending_kinds: Rc::new(pending_kinds(e)),
        timeline: Rc::new(cut_marks(e, None)),
    }
}

fn pending_kinds(e: &Engine) -> Vec<(u64, BarrierKind)> {
    e.coordinator
        .history
        .iter()
        .filter(|c| c.status == CheckpointStatus::InProgress)
        .map(|c| (c.id, c.kind))
        .collect()
}

fn live_view(e: &Engine) -> LiveView {
    let channels = e.channel_views();
    LiveView {
        now: e.now,
        tasks: e.task_views(),
        aggregated: lanes::aggregate(&channels, e.edges.len()),
        channels,
        pending_checkpoint: e.coordinator.pending.iter().next_back().copied(),
    }
}

fn log_entries(e: &Engine) -> Vec<LogEntry> {
    e.log.entries.iter().rev().take(LOG_KEEP).cloned().collect()
}

/// Whether `view` still shows the engine's live config, costs and rates.
fn settings_current(view: &SettingsView, e: &Engine) -> bool {
    view.config == e.config
        && view.operators.len() == e.operators.len()
        && view.operators.iter().zip(&e.operators).all(|(k, o)| {
            k.cost == o.cost && k.rate.is_none_or(|r| r.to_bits() == o.rate.to_bits())
        })
}

fn settings_view(e: &Engine) -> SettingsView {
    SettingsView {
        config: e.config.clone(),
        operators: e
            .operators
            .iter()
            .map(|o| OperatorKnob {
                id: o.id.clone(),
                kind: o.kind.name(),
                parallelism: o.parallelism,
                cost: o.cost,
                rate: matches!(o.kind, OperatorKind::Source(_)).then_some(o.rate),
            })
            .collect(),
        events: e.spec.events.clone(),
    }
}

/// Virtual time the engine runs between two rewinder observations while seeking.
const SEEK_SLICE: Micros = 100_000;

impl Sim {
    /// Moves the run to virtual time `t` (capped at the duration); see the module docs.
    /// `Err` says why the run could not be restored (the engine is then unchanged).
    pub fn seek(&mut self, t: Micros) -> Result<(), String> {
        let start = now_ms();
        let t = t.min(self.duration());
        let known = t.min(self.furthest);
        let now = self.now();
        let run_on = now <= known && known - now <= known - self.rewinder.base_time(known);
        if !run_on {
            let restored = self.rewinder.seek(known, &self.engine.borrow())?;
            *self.engine.borrow_mut() = restored;
        }
        self.run_observed(t);
        self.changed(true);
        self.last_seek_ms = now_ms() - start;
        Ok(())
    }

    /// Virtual time a seek to `t` replays (from its snapshot, or from now when running
    /// on is shorter), plus what it must simulate beyond the furthest time reached.
    pub fn seek_distance(&self, t: Micros) -> Micros {
        let t = t.min(self.duration());
        let known = t.min(self.furthest);
        let now = self.now();
        let replay = if now <= known {
            (known - now).min(known - self.rewinder.base_time(known))
        } else {
            known - self.rewinder.base_time(known)
        };
        replay + (t - known)
    }

    /// Runs the engine to `t` in slices, letting the rewinder keep its snapshots.
    fn run_observed(&mut self, t: Micros) {
        let mut engine = self.engine.borrow_mut();
        let t = t.min(engine.spec.duration);
        while engine.now < t && !engine.is_done() {
            let to = (engine.now + SEEK_SLICE).min(t);
            engine.run_until(to);
            self.rewinder.observe(&engine);
        }
    }

    /// A new action at `now` after seeking back: the explored future is another branch.
    fn fork_here(&mut self, now: Micros) {
        self.rewinder.truncate_after(now);
        self.furthest = now;
        self.forked_at = Some(now);
    }

    /// Re-cuts the timeline's marks when the engine stands at the furthest time reached
    /// and they changed.
    fn cut_marks(&mut self) {
        let e = self.engine.borrow();
        self.furthest = self.furthest.max(e.now);
        if e.now < self.furthest {
            return;
        }
        let key = marks_key(&e, self.forked_at);
        if key != self.marks_key {
            self.snapshots.timeline = Rc::new(cut_marks(&e, self.forked_at));
            self.marks_key = key;
        }
    }
}
