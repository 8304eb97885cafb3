//! The simulation host: owns the engine for the UI, advances it in bounded slices, and
//! cuts read-only snapshots for the panels only when what they show changed.
//!
//! Contract: [`Sim`] holds the engine in an `Rc<RefCell<_>>` with a generation counter
//! bumped on every change. The UI never changes the engine except through
//! [`Sim::apply`] (which goes through `Engine::apply`, so every action is recorded in
//! `spec.events` and replays from a link), [`Sim::advance`] / [`Sim::step`] (time), and
//! [`Sim::load`] / [`Sim::reset`] (a new engine). [`Snapshots`] are `Rc`s that are
//! replaced only when their content key changes, so Yew skips unchanged panels.

use std::cell::RefCell;
use std::rc::Rc;

use crate::engine::config::EngineConfig;
use crate::engine::log::LogEntry;
use crate::engine::report::Report;
use crate::engine::runtime::{JobStatus, Sample};
use crate::engine::spec::{Action, OperatorKind, TimedAction};
use crate::engine::time::Micros;
use crate::engine::view::{ChannelView, TaskView};
use crate::engine::Engine;
use crate::scenario::{self, Document};

use super::layout::Layout;

/// Wall-clock budget of engine work per animation frame, in milliseconds.
pub const FRAME_BUDGET_MS: f64 = 8.0;
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

/// The live part of the job view: changes every frame while running.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveView {
    pub now: Micros,
    pub tasks: Vec<TaskView>,
    pub channels: Vec<ChannelView>,
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

/// What the charts draw.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ChartData {
    pub operators: Vec<String>,
    /// (virtual time, records/s per operator) between consecutive samples.
    pub throughput: Vec<(Micros, Vec<f64>)>,
    /// (virtual time, bytes of data buffers queued or in flight).
    pub inflight: Vec<(Micros, u64)>,
    pub duration: Micros,
}

/// Read-only snapshots for the panels.
#[derive(Clone)]
pub struct Snapshots {
    pub layout: Rc<Layout>,
    pub live: Rc<LiveView>,
    pub report: Rc<Report>,
    pub charts: Rc<ChartData>,
    pub log: Rc<Vec<LogEntry>>,
    /// Entries ever logged when `log` was cut.
    pub log_total: u64,
    pub settings: Rc<SettingsView>,
}

#[derive(Default, Clone, Copy, PartialEq)]
struct Keys {
    layout: u64,
    report: u64,
    charts: usize,
    log: u64,
    settings: usize,
}

/// Rolling statistics of the frame work (engine slices + snapshot cutting + render).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameStats {
    samples: Vec<f64>,
    next: usize,
}

impl FrameStats {
    const KEEP: usize = 240;

    pub fn record(&mut self, ms: f64) {
        if self.samples.len() < Self::KEEP {
            self.samples.push(ms);
        } else {
            self.samples[self.next] = ms;
        }
        self.next = (self.next + 1) % Self::KEEP;
    }

    /// (average, p95, frames) over the last frames, in milliseconds.
    pub fn summary(&self) -> Option<(f64, f64, usize)> {
        if self.samples.is_empty() {
            return None;
        }
        let mut sorted = self.samples.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let avg = sorted.iter().sum::<f64>() / sorted.len() as f64;
        let p95 = sorted[((sorted.len() as f64 * 0.95).ceil() as usize).clamp(1, sorted.len()) - 1];
        Some((avg, p95, sorted.len()))
    }
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
    keys: Keys,
    pub snapshots: Snapshots,
    last_report_wall: f64,
    last_secondary_wall: f64,
    last_live_wall: f64,
    /// Wall ms of the last [`Sim::advance`]: (engine slices, snapshot cutting).
    pub last_timing: (f64, f64),
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

impl Sim {
    /// A run of `document`; `Err` with a readable message when it does not validate.
    pub fn new(document: Document, preset: Option<String>) -> Result<Sim, String> {
        let spec = scenario::to_spec(&document).map_err(|e| e.to_string())?;
        let engine = Engine::new(spec).map_err(|e| e.to_string())?;
        let engine = Rc::new(RefCell::new(engine));
        let snapshots = cut_all(&engine.borrow());
        let mut sim = Sim {
            engine,
            generation: 0,
            document,
            preset,
            keys: Keys::default(),
            snapshots,
            last_report_wall: 0.0,
            last_secondary_wall: 0.0,
            last_live_wall: 0.0,
            last_timing: (0.0, 0.0),
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
    pub fn advance(&mut self, target: Micros, budget_ms: f64) -> Micros {
        let start = now_ms();
        {
            let mut engine = self.engine.borrow_mut();
            let target = target.min(engine.spec.duration);
            while engine.now < target && !engine.is_done() {
                let remaining = target - engine.now;
                let slice = (remaining / 8).max(200).min(remaining);
                let to = engine.now + slice;
                engine.run_until(to);
                if now_ms() - start > budget_ms {
                    break;
                }
            }
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
        self.changed(true);
    }

    /// Runs until virtual time `t` without a budget (tests, links opened at a time).
    pub fn run_to(&mut self, t: Micros) {
        self.engine.borrow_mut().run_until(t);
        self.changed(true);
    }

    /// Applies a user action through the engine (recorded in `spec.events`).
    pub fn apply(&mut self, action: Action) -> Result<(), String> {
        let result = self
            .engine
            .borrow_mut()
            .apply(action)
            .map_err(|e| e.to_string());
        self.changed(true);
        result
    }

    /// The link fragment (`z:…`) that replays this run, recorded actions included.
    pub fn link_fragment(&self) -> String {
        let mut doc = scenario::from_spec(&self.engine.borrow().spec);
        if doc.description.is_none() {
            doc.description = self.document.description.clone();
        }
        scenario::encode_link(&doc)
    }

    fn current_keys(&self) -> Keys {
        let e = self.engine.borrow();
        let mut report = e.coordinator.history.len() as u64;
        for c in &e.coordinator.history {
            report = report
                .wrapping_mul(31)
                .wrapping_add(c.status as u64 * 1000 + c.acknowledged() as u64);
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
        if keys.settings != self.keys.settings {
            self.snapshots.settings = Rc::new(settings_view(e));
        }
        let mut cut = self.keys;
        cut.layout = keys.layout;
        cut.settings = keys.settings;
        if force || wall - self.last_report_wall >= REPORT_EVERY_MS {
            let report = e.report();
            if *self.snapshots.report != report {
                self.snapshots.report = Rc::new(report);
            }
            self.last_report_wall = wall;
            cut.report = keys.report;
        }
        if force || wall - self.last_secondary_wall >= SECONDARY_EVERY_MS {
            if keys.charts != self.keys.charts {
                self.snapshots.charts = Rc::new(chart_data(e));
            }
            if keys.log != self.keys.log {
                self.snapshots.log = Rc::new(log_entries(e));
                self.snapshots.log_total = e.log.total;
            }
            cut.charts = keys.charts;
            cut.log = keys.log;
            self.last_secondary_wall = wall;
        }
        drop(engine);
        self.keys = cut;
    }
}

fn cut_all(e: &Engine) -> Snapshots {
    Snapshots {
        layout: Rc::new(Layout::compute(e)),
        live: Rc::new(live_view(e)),
        report: Rc::new(e.report()),
        charts: Rc::new(chart_data(e)),
        log: Rc::new(log_entries(e)),
        log_total: e.log.total,
        settings: Rc::new(settings_view(e)),
    }
}

fn live_view(e: &Engine) -> LiveView {
    LiveView {
        now: e.now,
        tasks: e.task_views(),
        channels: e.channel_views(),
        pending_checkpoint: e.coordinator.pending.iter().next_back().copied(),
    }
}

fn log_entries(e: &Engine) -> Vec<LogEntry> {
    e.log.entries.iter().rev().take(LOG_KEEP).cloned().collect()
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

fn chart_data(e: &Engine) -> ChartData {
    let throughput = e
        .samples
        .windows(2)
        .map(|w| {
            let dt = (w[1].at.saturating_sub(w[0].at)).max(1) as f64 / 1e6;
            let rates = w[1]
                .records
                .iter()
                .zip(&w[0].records)
                .map(|(b, a)| b.saturating_sub(*a) as f64 / dt)
                .collect();
            (w[1].at, rates)
        })
        .collect();
    ChartData {
        operators: e.operators.iter().map(|o| o.id.clone()).collect(),
        throughput,
        inflight: e
            .samples
            .iter()
            .map(|s: &Sample| (s.at, s.inflight_bytes))
            .collect(),
        duration: e.spec.duration,
    }
}
