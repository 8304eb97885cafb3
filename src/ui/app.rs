//! The root component: loads the scenario from the URL, drives the engine from
//! animation frames, routes every command, and lays the panels out.
//!
//! Contract:
//! - On load it reads the link from its `link` property, else from `location.hash`;
//!   no link opens the default preset. A link that cannot be decoded or does not
//!   validate shows `data-testid="error-banner"` with the reason, and the default
//!   scenario opens instead. The banner and the import dialog's refusal keep the
//!   reader's structured error (`ScenarioError::as_msg`) and render it in the viewer's
//!   language of the moment, so they follow the language switch.
//! - A link may end with a moment, `&t=31s` (`scenario::moment`): the run is then
//!   simulated to exactly that virtual time (a seek on the first animation frame, in
//!   comparison mode both runs at once) and shown paused there. A moment that cannot be
//!   read, or lies past the run's end, is named in the banner; the scenario still opens
//!   (at 0, or at its end). Share with "at current time" (`share-at-time`) appends the
//!   current moment to the link.
//! - "Pause at" (`Command::SetPauseAt`): while playing, no frame advances past that
//!   virtual time; the run pauses exactly there. So "play until T" is deterministic
//!   whatever the machine's speed.
//! - The root `data-testid="app"` exposes the state to wait on: `data-now-us` (virtual
//!   time), `data-run` (`playing`, `paused`, `seeking` while a seek waits for its
//!   frame, `finished` at the end), `data-job-status` (`running`, `restarting`,
//!   `finished`, `failed`) and `data-pause-at-us` (empty when unset).
//! - While playing, each animation frame advances virtual time by wall `dt × speed`,
//!   in bounded slices: at most [`FrameBudget::budget_ms`] of engine work per frame (the run
//!   then falls behind the requested speed rather than dropping frames). Frame work
//!   (engine + snapshots + render) is measured and shown in `frame-stats`.
//! - Every engine action goes through `Sim::apply` → `Engine::apply`, so it is
//!   recorded in `spec.events`; Share writes `from_spec(spec)` into `location.hash`
//!   and copies the URL, warning when it is long.
//! - "Edit job" opens the job editor on the running document; `RunDocument` replaces the
//!   run with one of the edited document (t = 0, preset label only if it still matches
//!   one) and writes its link into `location.hash` as LoadPreset does.
//! - Keyboard: Space play/pause, → step, ? help, Esc closes help, r reset,
//!   n next checkpoint step, c trigger a checkpoint, f fail the selected subtask, + / − speed,
//!   p presentation mode (Esc leaves it).
//! - Presentation mode (`Command::TogglePresentation`, the job view's `presentation-toggle`
//!   button or p): `data-presentation="true"` on the root; the page asks for full screen
//!   (best effort: a refusal is ignored) and the stylesheet shows the controls, the job
//!   view and the timeline alone, the job view scaled to the screen, in high contrast.
//! - Layout (www/static/style.css): on a screen wider than 1000 px the job view is on the
//!   first screen, the guide beside it (scrolling within the job view's height), the
//!   checkpoint table across the full width below the timeline.
//! - The `run_to` property runs the engine to a virtual time right after loading,
//!   without animation frames (browser tests that mount the app with a document).
//! - Export JSON downloads the run (recorded actions included) as a scenario file,
//!   Copy JSON puts it on the clipboard; the outcome shows in `share-note`. Import
//!   opens `import-dialog`; a valid document replaces the run exactly like a preset (the
//!   URL follows), an invalid one leaves the run untouched and shows why in the dialog.
//!   A chart copy (`Command::CopyChart`) puts the chart's standalone SVG or PNG on the
//!   clipboard or downloads it, and says which in `chart-copy-note`.

//! - Time travel: `Command::Seek` pauses and seeks on the next animation frame, to the
//!   latest target only (a drag seeks at most once a frame); a seek that replays more
//!   than [`LONG_SEEK`] first shows "computing" for a frame.

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use crate::engine::report::Report;
use crate::engine::runtime::JobStatus;
use crate::engine::spec::Action;
use crate::engine::time::Micros;
use crate::scenario;
use crate::scenario::moment;

use super::chart_export;
use super::clipboard::{self, Delivery};
use super::command::{ActionError, ChartFormat, Command, Control};
use super::compare::{self as compare_runs, Compare};
use super::components::charts::ChartsPanel;
use super::components::checkpoints::CheckpointsPanel;
use super::components::compare_view::{CompareToggle, CompareView, RemedyView, RunView};
use super::components::controls::Controls;
use super::components::diagnosis::DiagnosisPanel;
use super::components::editor::Editor;
use super::components::event_log::EventLog;
use super::components::guide::GuidePanel;
use super::components::header::Header;
use super::components::help::HelpOverlay;
use super::components::import_dialog::ImportDialog;
use super::components::inspector::Inspector;
use super::components::job_graph::JobGraphPanel;
use super::components::resubmit::ResubmitDialog;
use super::components::settings::SettingsPanel;
use super::components::sinks_recovery::SinksRecoveryPanel;
use super::components::timeline::Timeline;
use super::frame_budget::{FrameBudget, FrameStats};
use super::i18n::steps::StepLine;
use super::i18n::{guides, messages, Lang};
use super::offscreen::{Lower, Offscreen};
use super::panel_watch::PanelWatch;
use super::play_clock::{FrameTime, PlayClock};
use super::resubmit_form::{EdgeChoice, OperatorChoice, Snapshot};
use super::sim::{Sim, Snapshots};
use crate::engine::log::{text, Arg, Msg as Said};
use crate::scenario::compare::Comparison;

/// Properties of [`App`]; the page mounts it with the defaults.
#[derive(Properties, PartialEq, Clone)]
pub struct AppProps {
    /// A link (whole URL, `#z2:…` or `z2:…`, or an old `z:` one) to open instead of `location.hash`.
    #[prop_or_default]
    pub link: Option<AttrValue>,
    /// Run the engine to this virtual time (µs) right after loading (tests).
    #[prop_or_default]
    pub run_to: Option<Micros>,
    /// Read and write `location.hash` (off in tests that mount several apps).
    #[prop_or(true)]
    pub use_location: bool,
}

impl Default for AppProps {
    fn default() -> Self {
        AppProps {
            link: None,
            run_to: None,
            use_location: true,
        }
    }
}

pub enum Msg {
    Cmd(Command),
    Frame(f64),
    Key(web_sys::KeyboardEvent),
    /// The outcome of an asynchronous copy: for `share-note` (text, is a warning) …
    ShareNote(String, bool),
    /// … or for `chart-copy-note`.
    ChartNote(String),
    /// `location.hash` changed (a pasted link, Back / Forward).
    HashChanged,
    /// The first task after a played frame ran: the frame's work ended (its start, and the
    /// wall ms its engine slices took).
    FrameDone(f64, f64),
    /// Lower panels scrolled into or out of view.
    OnScreen(Vec<(Lower, bool)>),
}

pub struct App {
    sim: Sim,
    playing: bool,
    speed: f64,
    selected_task: Option<usize>,
    selected_checkpoint: Option<u64>,
    /// What the banner says (a link that did not open, a comparison that cannot run), kept
    /// structured so it reads in the viewer's language of the moment.
    banner: Option<Said>,
    action_error: Option<ActionError>,
    share_note: Option<(String, bool)>,
    help: bool,
    /// The virtual time each played frame asks for (speed × interval, plus a bounded
    /// carry of what earlier frames fell short of).
    clock: PlayClock,
    raf: Option<Closure<dyn FnMut(f64)>>,
    keydown: Option<Closure<dyn FnMut(web_sys::KeyboardEvent)>>,
    frame_stats: FrameStats,
    /// What the last "Checkpoint step" showed (cleared by other time controls).
    step_note: Option<Rc<Vec<StepLine>>>,
    /// Checkpoint steps taken since the page opened (the note's `data-count`).
    step_count: u64,
    /// Of the frame work: engine slices and snapshot cutting (the rest is rendering).
    engine_stats: FrameStats,
    cut_stats: FrameStats,
    effective_speed: Option<f64>,
    on_command: Callback<Command>,
    on_select: Callback<Option<usize>>,
    /// The import dialog is open; why the last import was refused.
    import_open: bool,
    import_error: Option<Said>,
    /// The Resubmit dialog is open on this snapshot; why the last event was refused.
    resubmit: Option<Snapshot>,
    resubmit_error: Option<String>,
    chart_note: Option<String>,
    /// The document the open job editor started from; `None` when it is closed.
    editor: Option<std::rc::Rc<scenario::Document>>,
    /// A seek waiting for the next animation frame, and whether "computing" shows.
    pending_seek: Option<Micros>,
    seek_computing: bool,
    /// Comparison mode: the scenario run twice in lockstep; `None` shows `sim` alone.
    compare: Option<Compare>,
    /// A remedy experiment of the diagnosis panel: running in frame-budget slices (the
    /// run), and what the panel shows (progress, then the outcome).
    remedy: Option<scenario::remedies::RemedyRun>,
    remedy_view: Option<Rc<RemedyView>>,
    /// The as-is report of the last remedy experiment and the exact document it ran: the
    /// next remedy on that document reuses it; any edit or live action makes another
    /// document, which runs as is again.
    remedy_base: Option<(scenario::document::Document, Report)>,
    compare_choices: Rc<Vec<(String, String)>>,
    /// While playing, pause on reaching this virtual time ("Pause at").
    pause_at: Option<Micros>,
    /// Share appends the current moment (`&t=…`) to the link.
    share_at_time: bool,
    /// The hash this page wrote last (without `#`): its own `hashchange` is ignored.
    own_hash: String,
    hashchange: Option<Closure<dyn FnMut(web_sys::Event)>>,
    /// Wall ms between animation frames while playing (everything the browser did).
    interval_stats: FrameStats,
    /// The engine's wall budget per frame, from the display's period and the frames' cost.
    budget: FrameBudget,
    /// The viewer's colour theme: `None` follows the system, else `dark` / `light`.
    theme: Option<&'static str>,
    /// The interface's language (the viewer's: `localStorage`, else the browser's).
    lang: Lang,
    /// Presentation mode (full screen, the job view alone, larger marks, high contrast).
    presentation: bool,
    /// The snapshot each lower panel draws: while playing, the last one it drew when it
    /// is off screen ([`Offscreen`]); kept in step after every message.
    offscreen: Offscreen<Snapshots>,
    panel_watch: Option<PanelWatch>,
}

/// Seeks that replay more virtual time than this show "computing" first.
const LONG_SEEK: Micros = 3_000_000;

fn perf_now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The preset a document runs, if it runs one (or one of its guide's tries) unchanged,
/// or one with actions recorded after its own events (a shared link of a preset's run:
/// its guide still applies).
fn preset_of(doc: &scenario::Document) -> Option<String> {
    if let Some((name, _)) = scenario::presets::recognize(doc) {
        return Some(name);
    }
    let mut lengths: Vec<usize> = scenario::presets::NAMES
        .iter()
        .filter_map(|n| scenario::preset(n).map(|p| p.events.len()))
        .filter(|&n| n < doc.events.len())
        .collect();
    lengths.sort_unstable();
    lengths.dedup();
    lengths.into_iter().find_map(|n| {
        let mut own = doc.clone();
        own.events.truncate(n);
        scenario::presets::recognize(&own).map(|(name, _)| name)
    })
}

fn default_sim() -> Sim {
    Sim::new(
        scenario::default_document(),
        Some(scenario::presets::DEFAULT.to_string()),
    )
    .expect("the default scenario runs")
}

/// What a link opens: the run, a message for the banner, and the moment to open it at.
struct Loaded {
    sim: Sim,
    banner: Option<Said>,
    at: Option<Micros>,
}

/// The run a link opens (and its moment), or the default run and a message saying why
/// not. A broken moment still opens the link's scenario, at 0, and says why.
fn load(link: &str) -> Loaded {
    let link = link.trim();
    if link.is_empty() || link == "#" {
        return Loaded {
            sim: default_sim(),
            banner: None,
            at: None,
        };
    }
    let (at, moment_error) = match moment::split(link) {
        Ok((_, at)) => (at, None),
        Err(e) => (None, Some(e)),
    };
    let (sim, banner) = load_scenario(moment::scenario_part(link));
    if banner.is_some() {
        return Loaded {
            sim,
            banner,
            at: None,
        };
    }
    if let Some(e) = moment_error {
        let banner = Said::new(
            "The time in this link could not be read — {0}. The scenario opened at 0 s.",
            vec![e.as_msg().into()],
        );
        return Loaded {
            sim,
            banner: Some(banner),
            at: None,
        };
    }
    let duration = sim.duration();
    match at {
        Some(t) if t > duration => Loaded {
            banner: Some(Said::new(
                "This link's time t={0} is past the end of its run ({1}); it opened at the end.",
                vec![text(moment::format(t)), text(moment::format(duration))],
            )),
            sim,
            at: Some(duration),
        },
        _ => {
            // An old link may set a key that is gone: it opens without it, and says so.
            let notes = scenario::note_msgs(&sim.document);
            Loaded {
                banner: (!notes.is_empty()).then(|| {
                    Said::new(
                        "{0}",
                        vec![Arg::List(notes.into_iter().map(Arg::from).collect(), " ")],
                    )
                }),
                sim,
                at,
            }
        }
    }
}

/// The run of a link without its moment, or the default run and a message.
fn load_scenario(link: &str) -> (Sim, Option<Said>) {
    let opened = scenario::decode_link(link).and_then(|doc| {
        let preset = preset_of(&doc);
        Sim::new(doc, preset)
    });
    match opened {
        Ok(sim) => (sim, None),
        Err(e) => (
            default_sim(),
            Some(Said::new(
                "This link could not be opened — {0}. The default scenario was opened instead.",
                vec![e.as_msg().into()],
            )),
        ),
    }
}

/// The banner's text when a comparison asked for on the page cannot run.
fn comparison_cannot_run(e: &scenario::ScenarioError) -> Said {
    Said::new("This comparison cannot run — {0}", vec![e.as_msg().into()])
}

/// The banner's text when a link's comparison cannot run (the single run opens).
fn comparison_refused(e: &scenario::ScenarioError) -> Said {
    Said::new(
        "The comparison in this link cannot run — {0}. The single run was opened instead.",
        vec![e.as_msg().into()],
    )
}

impl App {
    fn request_frame(&mut self, ctx: &Context<Self>) {
        if self.raf.is_some() {
            return;
        }
        let Some(window) = web_sys::window() else {
            return;
        };
        let cb = ctx.link().callback(Msg::Frame);
        let closure = Closure::once(move |ts: f64| cb.emit(ts));
        if window
            .request_animation_frame(closure.as_ref().unchecked_ref())
            .is_ok()
        {
            self.raf = Some(closure);
        }
    }

    fn share(&mut self, ctx: &Context<Self>) {
        let mut fragment = match &self.compare {
            Some(c) => c.link_fragment(),
            None => self.sim.link_fragment(),
        };
        if self.share_at_time {
            fragment.push_str(&moment::suffix(self.now()));
        }
        let Some(window) = web_sys::window() else {
            return;
        };
        let location = window.location();
        if ctx.props().use_location {
            self.own_hash = fragment.clone();
            let _ = location.set_hash(&fragment);
        }
        let base = location.href().unwrap_or_default();
        let base = base.split('#').next().unwrap_or_default().to_string();
        let url = format!("{base}#{fragment}");
        let copied = clipboard::available();
        if copied {
            let url = url.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let _ = clipboard::write_text(&url).await;
            });
        }
        self.share_note = Some(match scenario::link_warning(url.len()) {
            Some(w) => (format!("Link in the address bar. Warning: {w}"), true),
            None => (
                format!(
                    "Link {} ({} characters).",
                    if copied {
                        "copied to the clipboard"
                    } else {
                        "in the address bar"
                    },
                    url.len()
                ),
                false,
            ),
        });
    }

    /// Runs `sim` instead of the current run, from t = 0, and puts its link in the
    /// address bar: as a new history entry when `push` (a preset, an edited or imported
    /// job: Back returns to the run before), else in place of the current one.
    fn replace_sim(&mut self, ctx: &Context<Self>, sim: Sim, push: bool) {
        if ctx.props().use_location {
            let fragment = sim.link_fragment();
            if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
                let url = format!("#{fragment}");
                let _ = if push && location_hash().trim_start_matches('#') != fragment {
                    h.push_state_with_url(&JsValue::NULL, "", Some(&url))
                } else {
                    h.replace_state_with_url(&JsValue::NULL, "", Some(&url))
                };
            }
            self.own_hash = fragment;
        }
        self.sim = sim;
        self.reopen_compare();
        self.clear_run_view();
    }

    /// What belonged to the old run's view: a seek still waiting for its frame, playing,
    /// the selection, notes and frame figures.
    fn clear_run_view(&mut self) {
        self.pending_seek = None;
        self.seek_computing = false;
        self.playing = false;
        self.selected_task = None;
        self.selected_checkpoint = None;
        self.action_error = None;
        self.share_note = None;
        self.frame_stats = FrameStats::default();
        self.interval_stats = FrameStats::default();
        // Another job costs differently per frame: learn its rest again from the floor.
        self.budget = FrameBudget::default();
        self.step_note = None;
        self.remedy = None;
        self.remedy_view = None;
    }

    /// Applies a user action; a refusal is kept with the control it came from, whose
    /// panel shows it (the control itself shows the value that runs).
    /// Tells the panic hook (`ui::panic`) the link and time to offer should the code
    /// panic later: after every command (the only way the link changes) and every frame.
    fn remember_for_panic(&self) {
        super::panic::remember_time(self.now());
        super::panic::remember_link(match &self.compare {
            Some(c) => c.link_fragment(),
            None => self.sim.link_fragment(),
        });
    }

    fn apply(&mut self, action: Action) {
        let control = Control::of(&action);
        let result = match &mut self.compare {
            Some(c) => c.apply(action),
            None => self.sim.apply(action),
        };
        self.action_error = result.err().map(|message| ActionError {
            control,
            message: message.into(),
        });
    }

    fn run_command(&mut self, ctx: &Context<Self>, cmd: Command) {
        match cmd {
            Command::Play => {
                self.step_note = None;
                if !self.is_done() {
                    self.playing = true;
                    self.clock.restart();
                    self.request_frame(ctx);
                }
            }
            Command::Pause => {
                self.playing = false;
                self.refresh();
            }
            Command::Step => {
                self.playing = false;
                match &mut self.compare {
                    Some(c) => c.step(),
                    None => self.sim.step(),
                }
            }
            Command::CheckpointStep => {
                self.playing = false;
                let note = match &mut self.compare {
                    // Run A finds the step; run B follows to the same instant.
                    Some(c) => {
                        let note = c.a.checkpoint_step();
                        let t = c.a.now();
                        c.run_to(t);
                        note
                    }
                    None => self.sim.checkpoint_step(),
                };
                self.step_note = Some(Rc::new(note));
                self.step_count += 1;
            }
            Command::Reset => {
                self.playing = false;
                match &mut self.compare {
                    Some(c) => c.reset(),
                    None => self.sim.reset(),
                }
                self.pending_seek = None;
                self.seek_computing = false;
                self.step_note = None;
                self.selected_checkpoint = None;
                self.action_error = None;
                self.frame_stats = FrameStats::default();
            }
            Command::Share => self.share(ctx),
            Command::SetSpeed(s) => {
                self.speed = s.clamp(0.1, 1000.0);
                self.clock.restart();
            }
            Command::SetPauseAt(t) => self.pause_at = t,
            Command::ShareAtTime(on) => self.share_at_time = on,
            Command::Apply(action) => self.apply(action),
            Command::SelectTask(t) => self.selected_task = t,
            Command::SelectCheckpoint(c) => self.selected_checkpoint = c,
            Command::Remedy(None) => {
                self.remedy = None;
                self.remedy_view = None;
            }
            Command::Remedy(Some((name, id))) => {
                // The run as recorded so far (live actions included), re-run from t = 0.
                let doc = scenario::file::export_document(
                    &self.sim.engine.borrow().spec,
                    self.sim.document.description.as_deref(),
                );
                let run = match &self.remedy_base {
                    Some((base_doc, report)) if *base_doc == doc => {
                        scenario::remedies::RemedyRun::with_base(
                            &doc,
                            &name,
                            Some(id),
                            report.clone(),
                        )
                    }
                    _ => scenario::remedies::RemedyRun::new(&doc, &name, Some(id)),
                };
                match run {
                    Ok(run) => {
                        self.remedy_view = Some(Rc::new(RemedyView {
                            name,
                            checkpoint: Some(id),
                            progress: 0.0,
                            outcome: None,
                        }));
                        self.remedy = Some(run);
                        self.request_frame(ctx);
                    }
                    Err(e) => {
                        self.remedy_view = Some(Rc::new(RemedyView {
                            name,
                            checkpoint: Some(id),
                            progress: 1.0,
                            outcome: Some(Err(e)),
                        }))
                    }
                }
            }
            Command::LoadPreset(name) => {
                if let Some(doc) = scenario::preset(&name) {
                    if let Err(e) = self.open(ctx, doc, Some(name)) {
                        self.banner = Some(e.as_msg());
                    }
                }
            }
            Command::Try(choice) => {
                let Some(name) = self.sim.guide.as_ref().and_then(|g| g.preset.clone()) else {
                    return;
                };
                let Some(base) = scenario::preset(&name) else {
                    return;
                };
                let doc = match choice {
                    None => Ok(base),
                    Some(i) => match base.guide.as_ref().and_then(|g| g.tries.get(i)) {
                        Some(t) => t.apply(&base).map_err(|e| e.as_msg()),
                        None => Err(Said::new(
                            "the guide of {0} has no try {1}",
                            vec![text(&name), text(i)],
                        )),
                    },
                };
                if let Err(e) =
                    doc.and_then(|d| self.open(ctx, d, Some(name)).map_err(|e| e.as_msg()))
                {
                    self.banner = Some(e);
                }
            }
            Command::OpenEditor => {
                let document = &self.sim.document;
                // An edited job is a new scenario: the preset's guide and its promises
                // no longer apply (an unchanged job is still recognised as the preset).
                self.editor.get_or_insert_with(|| {
                    let mut draft = document.clone();
                    draft.guide = None;
                    std::rc::Rc::new(draft)
                });
            }
            Command::CloseEditor => self.editor = None,
            Command::RunDocument(doc) => {
                let preset = preset_of(&doc);
                match self.open(ctx, *doc, preset) {
                    Ok(()) => self.editor = None,
                    Err(e) => {
                        self.action_error =
                            Some(ActionError::other(messages::render(&e.as_msg(), self.lang)))
                    }
                }
            }
            Command::ToggleHelp => self.help = !self.help,
            Command::ToggleTheme => {
                self.theme = Some(match self.theme.unwrap_or_else(super::theme::system) {
                    "dark" => "light",
                    _ => "dark",
                });
                self.apply_theme();
            }
            Command::ToggleLang => {
                self.lang = self.lang.other();
                super::i18n::web::apply(self.lang);
                super::i18n::web::store(self.lang);
            }
            Command::TogglePresentation => {
                self.presentation = !self.presentation;
                fullscreen(self.presentation);
            }
            Command::Compare(choice) => self.set_compare(choice),
            Command::DismissBanner => self.banner = None,
            Command::ExportJson => self.export_json(),
            Command::ExportFlink => {
                let (_, json) = self.sim.export_file();
                self.share_note = Some(match crate::ui::flink_download::download(&json) {
                    Ok(note) => (note, false),
                    Err(e) => (format!("The Flink export failed: {e}"), true),
                });
            }
            Command::CopyJson => self.copy_json(ctx),
            Command::ToggleImport => {
                self.import_open = !self.import_open;
                self.import_error = None;
            }
            Command::ImportJson(text) => self.import_json(ctx, &text),
            Command::OpenResubmit(from) => {
                // The event is recorded at the time the dialog shows: hold the run still.
                self.playing = false;
                self.resubmit = from;
                self.resubmit_error = None;
            }
            Command::Resubmit(event) => {
                let result = match &self.compare {
                    Some(_) => Err(super::i18n::t(
                        "Resubmit works on a single run: leave the comparison first.",
                    )
                    .to_string()),
                    None => self.sim.apply_event(event),
                };
                match result {
                    Ok(()) => {
                        self.resubmit = None;
                        self.resubmit_error = None;
                    }
                    Err(e) => self.resubmit_error = Some(e),
                }
            }
            Command::CopyChart(name, format) => self.copy_chart(ctx, name, format),
            Command::Seek(t) => {
                self.playing = false;
                self.pending_seek = Some(t);
                self.request_frame(ctx);
            }
        }
    }

    /// Replaces the run with a new one of `doc` (stopped at time zero) and, when the app
    /// owns the URL, puts its link in the address bar.
    fn open(
        &mut self,
        ctx: &Context<Self>,
        doc: scenario::Document,
        preset: Option<String>,
    ) -> Result<(), scenario::ScenarioError> {
        let sim = Sim::new(doc, preset)?;
        self.replace_sim(ctx, sim, true);
        Ok(())
    }

    /// Opens the link now in the address bar, as a page load would (a link pasted
    /// into this tab, Back / Forward): its run, its comparison, its moment.
    fn open_location(&mut self, ctx: &Context<Self>) {
        let hash = location_hash();
        let fragment = hash.trim_start_matches('#').to_string();
        if fragment == self.own_hash {
            return;
        }
        let Loaded { sim, banner, at } = load(&hash);
        self.own_hash = fragment;
        self.editor = None;
        self.compare = None;
        self.banner = banner;
        let cmp = sim.document.compare.clone();
        // The address bar already holds this link: it is not written again.
        self.sim = sim;
        self.clear_run_view();
        if let Some(cmp) = cmp {
            match Compare::new(self.sim.document.clone(), cmp) {
                Ok(c) => self.compare = Some(c),
                Err(e) => self.banner = Some(comparison_refused(&e)),
            }
        }
        if let Some(t) = at {
            match &mut self.compare {
                Some(c) => c.run_to(t),
                None => {
                    self.pending_seek = Some(t);
                    self.request_frame(ctx);
                }
            }
        }
    }

    /// The Chinese texts of the preset the run is (not a try of it, not an edited job),
    /// when the interface is in Chinese.
    fn preset_zh(&self) -> Option<&'static guides::GuideZh> {
        let g = self.sim.guide.as_ref()?;
        if self.lang != Lang::Zh || g.active_try.is_some() {
            return None;
        }
        guides::zh(g.preset.as_deref()?)
    }

    /// Sets the colour theme on the page's root element (`data-theme`) and remembers the
    /// viewer's choice in `localStorage` (it is not part of the shared scenario).
    fn apply_theme(&self) {
        let Some(window) = web_sys::window() else {
            return;
        };
        if let Some(root) = window.document().and_then(|d| d.document_element()) {
            let _ = match self.theme {
                Some(t) => root.set_attribute("data-theme", t),
                None => root.remove_attribute("data-theme"),
            };
        }
        super::theme::store(self.theme);
    }

    fn export_json(&mut self) {
        let (file, json) = self.sim.export_file();
        self.share_note = Some(
            match clipboard::download_text(&json, "application/json", &file) {
                Ok(()) => (format!("Downloaded {file} ({} bytes).", json.len()), false),
                Err(e) => (format!("The download failed: {e}"), true),
            },
        );
    }

    fn copy_json(&mut self, ctx: &Context<Self>) {
        let (_, json) = self.sim.export_file();
        let note = ctx.link().callback(|(n, w)| Msg::ShareNote(n, w));
        wasm_bindgen_futures::spawn_local(async move {
            note.emit(match clipboard::write_text(&json).await {
                Ok(()) => (
                    format!(
                        "Scenario JSON copied to the clipboard ({} bytes).",
                        json.len()
                    ),
                    false,
                ),
                Err(e) => (
                    format!("The clipboard refused the JSON: {e}. Use Export JSON."),
                    true,
                ),
            });
        });
    }

    /// Opens imported JSON in place of the run; when it is invalid, the run goes on and
    /// the dialog shows why.
    fn import_json(&mut self, ctx: &Context<Self>, text: &str) {
        let opened = scenario::import_json(text).and_then(|(doc, _)| {
            let preset = preset_of(&doc);
            self.open(ctx, doc, preset)
        });
        match opened {
            Ok(()) => {
                self.import_open = false;
                self.import_error = None;
            }
            Err(e) => {
                self.import_error = Some(Said::new("Not opened — {0}", vec![e.as_msg().into()]))
            }
        }
    }

    fn copy_chart(&mut self, ctx: &Context<Self>, name: &'static str, format: ChartFormat) {
        let snaps = &self.sim.snapshots;
        let Some(chart) = chart_export::chart(name, &snaps.charts, &snaps.report) else {
            return;
        };
        let svg = chart_export::standalone_svg(&chart);
        let stem = format!("{}-{name}", scenario::file::slug(&self.sim.document.name));
        let note = ctx.link().callback(Msg::ChartNote);
        self.chart_note = Some(format!("Copying the {name} chart…"));
        wasm_bindgen_futures::spawn_local(async move {
            let (label, file, result) = match format {
                ChartFormat::Svg => {
                    let file = format!("{stem}.svg");
                    let r = clipboard::copy_svg(&svg, &file).await;
                    ("SVG", file, r)
                }
                ChartFormat::Png => {
                    let file = format!("{stem}.png");
                    let r = clipboard::copy_png(&svg, 2.0, &file).await;
                    ("PNG", file, r)
                }
            };
            note.emit(match result {
                Ok(Delivery::Copied(types)) => {
                    format!("The {name} chart is on the clipboard as {label} ({types}).")
                }
                Ok(Delivery::Downloaded(why)) => {
                    format!("The clipboard refused ({why}); downloaded {file} instead.")
                }
                Err(e) => format!("The {name} chart could not be copied or saved: {e}"),
            });
        });
    }

    fn on_key(&mut self, ctx: &Context<Self>, e: web_sys::KeyboardEvent) -> bool {
        if e.ctrl_key() || e.meta_key() || e.alt_key() {
            return false;
        }
        let key = e.key();
        let in_field = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|el| {
                let tag = el.tag_name().to_ascii_uppercase();
                matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA")
            })
            .unwrap_or(false);
        if key == "Escape" {
            let was = self.help || self.import_open;
            self.help = false;
            self.import_open = false;
            if !was && self.presentation {
                self.run_command(ctx, Command::TogglePresentation);
                return true;
            }
            return was;
        }
        if in_field || e.default_prevented() {
            return false;
        }
        // Space on a focused button (or a focused subtask) presses it, as the browser
        // does, instead of toggling Play.
        let on_control = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .is_some_and(|el| {
                let tag = el.tag_name().to_ascii_uppercase();
                matches!(tag.as_str(), "BUTTON" | "A" | "SUMMARY")
                    || el.get_attribute("role").as_deref() == Some("button")
            });
        if on_control && matches!(key.as_str(), " " | "Spacebar" | "Enter") {
            return false;
        }
        let cmd = match key.as_str() {
            " " | "Spacebar" => Some(if self.playing {
                Command::Pause
            } else {
                Command::Play
            }),
            "ArrowRight" => Some(Command::Step),
            "n" => Some(Command::CheckpointStep),
            "?" => Some(Command::ToggleHelp),
            "p" => Some(Command::TogglePresentation),
            "l" => Some(Command::ToggleLang),
            "r" => Some(Command::Reset),
            "c" => Some(Command::Apply(Action::TriggerCheckpoint)),
            "v" => Some(Command::Apply(Action::Savepoint)),
            "+" | "=" => Some(Command::SetSpeed(self.speed * 2.0)),
            "-" => Some(Command::SetSpeed(self.speed / 2.0)),
            "f" => self.selected_task.and_then(|t| {
                let e = self.sim.engine.borrow();
                let task = e.tasks.get(t)?;
                Some(Command::Apply(Action::Fail {
                    operator: e.operators[task.operator].id.clone(),
                    subtask: task.index,
                }))
            }),
            _ => None,
        };
        match cmd {
            Some(cmd) => {
                e.prevent_default();
                self.run_command(ctx, cmd);
                true
            }
            None => false,
        }
    }
}

impl App {
    /// [`Component::update`]'s work, before the lower panels' snapshots are synced.
    fn handle(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::Cmd(cmd) => {
                self.run_command(ctx, cmd);
                self.remember_for_panic();
                true
            }
            Msg::Key(e) => {
                let render = self.on_key(ctx, e);
                self.remember_for_panic();
                render
            }
            Msg::ShareNote(note, warning) => {
                self.share_note = Some((note, warning));
                true
            }
            Msg::ChartNote(note) => {
                self.chart_note = Some(note);
                true
            }
            Msg::HashChanged => {
                self.open_location(ctx);
                self.remember_for_panic();
                true
            }
            Msg::OnScreen(changes) => {
                for (panel, on_screen) in changes {
                    self.offscreen.set_on_screen(panel, on_screen);
                }
                // Re-render only when a held panel may catch up.
                self.playing
            }
            Msg::FrameDone(start, engine_ms) => {
                let work = perf_now() - start;
                self.frame_stats.record(work);
                self.budget.record_frame(work, engine_ms);
                false
            }
            Msg::Frame(ts) => {
                self.raf = None;
                let remedy = self.remedy_frame(ctx);
                if self.seek_frame(ctx) {
                    return true;
                }
                if remedy && !self.playing {
                    return true;
                }
                if !self.playing {
                    self.clock.restart();
                    return false;
                }
                let start = perf_now();
                let FrameTime { interval, dt, want } = self.clock.frame(ts, self.speed);
                if let Some(interval) = interval {
                    self.interval_stats.record(interval);
                    self.budget.record_interval(interval);
                }
                let before = self.now();
                // "Pause at": no frame goes past it, whatever the speed.
                let stop = self.pause_at.filter(|&p| p > before);
                let target = stop.map_or(before + want, |p| (before + want).min(p));
                let reached = self.advance(target);
                self.clock.reached(want, reached - before, self.speed);
                if dt > 0.0 {
                    let eff = (reached - before) as f64 / 1000.0 / dt;
                    self.effective_speed = Some(match self.effective_speed {
                        Some(prev) => prev * 0.9 + eff * 0.1,
                        None => eff,
                    });
                }
                if self.is_done() || stop.is_some_and(|p| reached >= p) {
                    self.playing = false;
                    self.refresh();
                } else {
                    self.request_frame(ctx);
                }
                let timing = self.last_timing();
                self.engine_stats.record(timing.0);
                self.cut_stats.record(timing.1);
                // A frame's work ends when the first task after it runs: by then every
                // component re-rendered (within this task or its microtasks), the job
                // view's canvas was painted in its effect and, usually, the browser did
                // style, layout and paint. (Measured at the app's own `rendered`, it
                // missed the children and most frames: 0.0 ms at 2,048 subtasks.)
                let done = ctx
                    .link()
                    .callback(|(start, engine)| Msg::FrameDone(start, engine));
                let engine_ms = timing.0;
                let cb = Closure::once_into_js(move || done.emit((start, engine_ms)));
                if let Some(w) = web_sys::window() {
                    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                        cb.unchecked_ref(),
                        0,
                    );
                }
                super::panic::remember_time(self.now());
                true
            }
        }
    }

    /// [`Component::rendered`]'s first time: the theme, the page's own listeners.
    fn first_rendered(&mut self, ctx: &Context<Self>) {
        self.apply_theme();
        if ctx.props().use_location {
            let cb = ctx.link().callback(|_: web_sys::Event| Msg::HashChanged);
            let closure = Closure::wrap(
                Box::new(move |e: web_sys::Event| cb.emit(e)) as Box<dyn FnMut(web_sys::Event)>
            );
            // Back / Forward between pushed entries fire `popstate` (and not always
            // `hashchange`); a pasted link fires `hashchange`. Either opens the link once.
            if let Some(window) = web_sys::window() {
                for event in ["hashchange", "popstate"] {
                    let _ = window
                        .add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
                }
            }
            self.hashchange = Some(closure);
        }
        if self.pending_seek.is_some() {
            self.request_frame(ctx);
        }
        self.remember_for_panic();
        let cb = ctx.link().callback(Msg::Key);
        let closure = Closure::wrap(Box::new(move |e: web_sys::KeyboardEvent| cb.emit(e))
            as Box<dyn FnMut(web_sys::KeyboardEvent)>);
        if let Some(window) = web_sys::window() {
            let _ = window
                .add_event_listener_with_callback("keydown", closure.as_ref().unchecked_ref());
        }
        self.keydown = Some(closure);
    }
}

impl Component for App {
    type Message = Msg;
    type Properties = AppProps;

    fn create(ctx: &Context<Self>) -> Self {
        let props = ctx.props();
        let link = match &props.link {
            Some(l) => l.to_string(),
            None if props.use_location => location_hash(),
            None => String::new(),
        };
        let Loaded {
            mut sim,
            mut banner,
            at,
        } = load(&link);
        let mut compare = None;
        if let Some(cmp) = sim.document.compare.clone() {
            match Compare::new(sim.document.clone(), cmp) {
                Ok(c) => compare = Some(c),
                Err(e) => banner = Some(comparison_refused(&e)),
            }
        }
        if let Some(t) = props.run_to {
            match &mut compare {
                Some(c) => c.run_to(t),
                None => sim.run_to(t),
            }
        }
        // A link's moment: the single run seeks there on the first frame (showing
        // "computing" on the timeline when it is long); comparison mode runs both now.
        let mut pending_seek = None;
        if let Some(t) = at {
            match &mut compare {
                Some(c) => c.run_to(t),
                None => pending_seek = Some(t),
            }
        }
        let on_command = ctx.link().callback(Msg::Cmd);
        let on_select = ctx
            .link()
            .callback(|t: Option<usize>| Msg::Cmd(Command::SelectTask(t)));
        let offscreen = Offscreen::new(&sim.snapshots);
        App {
            sim,
            offscreen,
            panel_watch: None,
            playing: false,
            speed: 10.0,
            selected_task: None,
            selected_checkpoint: None,
            banner,
            action_error: None,
            share_note: None,
            help: false,
            clock: PlayClock::default(),
            raf: None,
            keydown: None,
            frame_stats: FrameStats::default(),
            step_note: None,
            step_count: 0,
            engine_stats: FrameStats::default(),
            cut_stats: FrameStats::default(),
            effective_speed: None,
            on_command,
            on_select,
            import_open: false,
            import_error: None,
            resubmit: None,
            resubmit_error: None,
            chart_note: None,
            editor: None,
            pending_seek,
            seek_computing: false,
            compare,
            remedy: None,
            remedy_view: None,
            remedy_base: None,
            compare_choices: Rc::new(compare_runs::choices()),
            pause_at: None,
            share_at_time: false,
            own_hash: link.trim_start_matches('#').to_string(),
            hashchange: None,
            interval_stats: FrameStats::default(),
            budget: FrameBudget::default(),
            theme: super::theme::stored(),
            lang: {
                let lang = super::i18n::web::initial();
                super::i18n::web::apply(lang);
                lang
            },
            presentation: false,
        }
    }

    fn update(&mut self, ctx: &Context<Self>, msg: Msg) -> bool {
        // Only a run playing on by itself holds the panels off screen: after anything
        // the viewer did (a command, a key, a link, the seek it asked for) every panel is
        // current, so none holds a snapshot of another run or of a moment the viewer
        // travelled away from.
        let by_itself = match msg {
            Msg::Frame(_) => self.pending_seek.is_none(),
            Msg::FrameDone(..) | Msg::OnScreen(_) => true,
            _ => false,
        };
        let render = self.handle(ctx, msg);
        self.offscreen
            .sync(&self.sim.snapshots, self.playing && by_itself);
        render
    }

    fn rendered(&mut self, ctx: &Context<Self>, first_render: bool) {
        if first_render {
            self.panel_watch = PanelWatch::new(ctx.link().callback(Msg::OnScreen));
            self.first_rendered(ctx);
        }
        if let Some(watch) = &mut self.panel_watch {
            watch.follow();
        }
    }

    fn destroy(&mut self, _ctx: &Context<Self>) {
        self.playing = false;
        if let (Some(window), Some(closure)) = (web_sys::window(), self.hashchange.take()) {
            for event in ["hashchange", "popstate"] {
                let _ = window
                    .remove_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
            }
        }
        if let (Some(window), Some(closure)) = (web_sys::window(), self.keydown.take()) {
            let _ = window
                .remove_event_listener_with_callback("keydown", closure.as_ref().unchecked_ref());
        }
    }

    fn view(&self, _ctx: &Context<Self>) -> Html {
        if let Some(c) = &self.compare {
            return self.compare_view(c);
        }
        let snaps = &self.sim.snapshots;
        let held = |panel| self.offscreen.shown(panel);
        let on_command = self.on_command.clone();
        self.page(
            None,
            html! {
                <main class={classes!("layout", self.sim.guide.is_none().then_some("no-guide"))}>
                    <Controls on_command={on_command.clone()}
                        playing={self.playing}
                        now={self.sim.now()}
                        duration={self.sim.duration()}
                        speed={self.speed}
                        effective_speed={if self.playing { self.effective_speed } else { None }}
                        done={self.sim.is_done()}
                        status={self.sim.status()}
                        frame={self.frame_stats.summary()}
                        interval={self.interval_stats.summary()}
                        engine_ms={self.engine_stats.summary().map(|s| s.0)}
                        budget_ms={self.budget.budget_ms()}
                        cut_ms={self.cut_stats.summary().map(|s| s.0)}
                        name={AttrValue::from(self.preset_zh().map(|z| z.name.clone()).unwrap_or_else(|| self.sim.document.name.clone()))}
                        step_note={self.step_note.clone()}
                        pause_at={self.pause_at}
                        step_count={self.step_count}
                        pace_note={scenario::cost::pace_note(&self.sim.engine.borrow().spec).map(AttrValue::from)}
                        description={self.sim.guide.is_none().then(|| self.sim.document.description.clone()).flatten().map(AttrValue::from)} />
                    if let Some(guide) = &self.sim.guide {
                        <GuidePanel view={guide.clone()} report={snaps.report.clone()}
                            about={self.preset_zh().and_then(|z| z.description.clone()).or_else(|| self.sim.document.description.clone()).map(AttrValue::from)}
                            done={self.sim.is_done()} on_command={on_command.clone()} />
                    }
                    <JobGraphPanel layout={snaps.layout.clone()} live={snaps.live.clone()}
                        theme={AttrValue::from(format!("{}{}", self.theme.unwrap_or_else(super::theme::system), if self.presentation { "+presentation" } else { "" }))}
                        presentation={Some(self.presentation)}
                        on_command={Some(on_command.clone())}
                        selected={self.selected_task} on_select={self.on_select.clone()} />
                    <Timeline marks={snaps.timeline.clone()} now={self.sim.now()}
                        furthest={self.sim.furthest} target={self.pending_seek}
                        computing={self.seek_computing}
                        last_seek_ms={(self.sim.last_seek_ms > 0.0).then_some(self.sim.last_seek_ms)}
                        on_command={on_command.clone()} />
                    <Inspector live={snaps.live.clone()} settings={snaps.settings.clone()}
                        selected={self.selected_task} on_command={on_command.clone()}
                        error={self.action_error.clone()} />
                    <SettingsPanel settings={snaps.settings.clone()} on_command={on_command.clone()}
                        error={self.action_error.clone()} />
                    <CheckpointsPanel report={held(Lower::Checkpoints).report.clone()} selected={self.selected_checkpoint}
                        pending_kinds={held(Lower::Checkpoints).pending_kinds.clone()}
                        on_command={on_command.clone()} />
                    <DiagnosisPanel report={held(Lower::Diagnosis).report.clone()} remedy={self.remedy_view.clone()}
                        on_command={on_command.clone()} />
                    <SinksRecoveryPanel report={held(Lower::Sinks).report.clone()} />
                    <ChartsPanel charts={held(Lower::Charts).charts.clone()} report={held(Lower::Charts).report.clone()}
                        on_command={on_command.clone()} copy_note={self.chart_note.clone().map(AttrValue::from)} />
                    <EventLog entries={held(Lower::Log).log.clone()} total={held(Lower::Log).log_total} />
                </main>
            },
        )
    }
}

impl App {
    /// The page around `main`: header, comparison bar, error banner, job editor, help and
    /// import dialog — the same in single and comparison mode (`compare`: the active
    /// comparison's text).
    fn page(&self, compare: Option<AttrValue>, main: Html) -> Html {
        let on_command = self.on_command.clone();
        let dismiss = {
            let cb = on_command.clone();
            Callback::from(move |_: MouseEvent| cb.emit(Command::DismissBanner))
        };
        html! {
            <ContextProvider<Lang> context={self.lang}>
            <div class="app" data-testid="app" data-playing={self.playing.to_string()}
                data-lang={self.lang.tag()}
                data-compare={compare.is_some().then_some("true")}
                data-presentation={self.presentation.then_some("true")}
                data-now-us={self.now().to_string()} data-run={self.run_state()}
                data-job-status={job_status(self.status())}
                data-pause-at-us={self.pause_at.map(|t| t.to_string()).unwrap_or_default()}>
                <Header on_command={on_command.clone()}
                    share_at_time={self.share_at_time}
                    theme={AttrValue::from(self.theme.unwrap_or_else(super::theme::system))}
                    lang={self.lang}
                    preset={self.sim.preset.clone().map(AttrValue::from)}
                    share_note={self.share_note.as_ref().map(|(n, _)| AttrValue::from(n.clone()))}
                    share_warning={self.share_note.as_ref().is_some_and(|(_, w)| *w)} />
                <CompareToggle active={compare} choices={self.compare_choices.clone()}
                    on_command={on_command.clone()} />
                if let Some(message) = &self.banner {
                    <div class="error-banner" data-testid="error-banner" role="alert">
                        <span>{ messages::render(message, self.lang) }</span>
                        <button type="button" class="banner-close" onclick={dismiss} aria-label="Dismiss">{ "×" }</button>
                    </div>
                }
                if let Some(document) = &self.editor {
                    <div class="editor-slot">
                        <Editor document={document.clone()} on_command={on_command.clone()} />
                    </div>
                }
                { main }
                if self.help {
                    <HelpOverlay on_command={on_command.clone()} />
                }
                if let Some(from) = &self.resubmit {
                    { self.resubmit_dialog(from) }
                }
                if self.import_open {
                    <ImportDialog on_command={on_command} error={self.import_error.as_ref().map(|m| AttrValue::from(messages::render(m, self.lang)))} />
                }
            </div>
            </ContextProvider<Lang>>
        }
    }

    /// The Resubmit dialog on the running job (its operators, edges and history).
    fn resubmit_dialog(&self, from: &Snapshot) -> Html {
        let engine = self.sim.engine.borrow();
        // The job that runs now: a resubmission changes it from the scenario's.
        let job = engine.job();
        let operators: Vec<OperatorChoice> = job
            .operators
            .iter()
            .map(|o| OperatorChoice {
                id: o.id.clone(),
                parallelism: o.parallelism,
                source: matches!(o.kind, crate::engine::spec::OperatorKind::Source(_)),
                removable: !matches!(
                    o.kind,
                    crate::engine::spec::OperatorKind::Source(_)
                        | crate::engine::spec::OperatorKind::Sink { .. }
                ),
            })
            .collect();
        let edges: Vec<EdgeChoice> = job
            .edges
            .iter()
            .map(|e| EdgeChoice {
                from: e.from.clone(),
                to: e.to.clone(),
                partitioner: e.partitioner.name().to_string(),
                keyed: job.operators.iter().any(|o| {
                    o.id == e.to
                        && matches!(o.kind, crate::engine::spec::OperatorKind::KeyedAggregate)
                }),
            })
            .collect();
        let snapshots: Vec<(u64, bool)> = self
            .sim
            .snapshots
            .report
            .checkpoints
            .iter()
            .filter(|c| c.status == "completed")
            .map(|c| (c.id, c.is_savepoint))
            .collect();
        html! {
            <ResubmitDialog key={from.code()} from={from.clone()} on_command={self.on_command.clone()}
                operators={Rc::new(operators)} edges={Rc::new(edges)} snapshots={Rc::new(snapshots)}
                now={engine.now} serializer_version={engine.config.serializer_version}
                error={self.resubmit_error.clone().map(AttrValue::from)} />
        }
    }

    /// Carries out the pending seek on this animation frame; a long one first shows
    /// "computing" for a frame (painted before the work blocks). False when none.
    /// Virtual time per slice of a remedy experiment (slices repeat within the budget).
    const REMEDY_SLICE: Micros = 20_000;

    /// One frame's slice of the remedy experiment (a share of the frame budget, so the
    /// tab stays responsive and Cancel is heard): `true` when one is running or just
    /// ended (the panel re-renders its progress / outcome).
    fn remedy_frame(&mut self, ctx: &Context<Self>) -> bool {
        let budget = self.budget.budget_ms();
        let Some(run) = &mut self.remedy else {
            return false;
        };
        let start = perf_now();
        let mut done = false;
        while !done && perf_now() - start < budget {
            done = run.advance(Self::REMEDY_SLICE);
        }
        if let Some(report) = run.base_report() {
            let cached = self
                .remedy_base
                .as_ref()
                .is_some_and(|(doc, _)| doc == run.document());
            if !cached {
                self.remedy_base = Some((run.document().clone(), report.clone()));
            }
        }
        let view = RemedyView {
            name: run.name().to_string(),
            checkpoint: self.remedy_view.as_ref().and_then(|v| v.checkpoint),
            progress: run.progress(),
            outcome: run.outcome().cloned(),
        };
        self.remedy_view = Some(Rc::new(view));
        if done {
            self.remedy = None;
        } else {
            self.request_frame(ctx);
        }
        true
    }

    fn seek_frame(&mut self, ctx: &Context<Self>) -> bool {
        let Some(t) = self.pending_seek else {
            return false;
        };
        if !self.seek_computing && self.sim.seek_distance(t) > LONG_SEEK {
            self.seek_computing = true;
            self.request_frame(ctx);
            return true;
        }
        self.pending_seek = None;
        self.seek_computing = false;
        // A seek pauses (Play pressed while it waited would otherwise get no frame).
        self.playing = false;
        self.action_error = self.sim.seek(t).err().map(ActionError::other);
        true
    }
}

/// Comparison mode (`Command::Compare`, links with a `compare` field): the app drives a
/// [`Compare`] instead of its single `sim`, which stays as it was for when the user
/// goes back.
/// Asks the browser to show the page full screen (`on`) or to leave full screen. Best
/// effort: a browser that refuses (no user gesture, an iframe, headless) leaves the page
/// as it is, and the refusal is caught so that it is no error on the console.
fn fullscreen(on: bool) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (target, method): (JsValue, &str) = if on {
        match document.document_element() {
            Some(root) => (root.into(), "requestFullscreen"),
            None => return,
        }
    } else {
        let current = js_sys::Reflect::get(&document, &"fullscreenElement".into())
            .ok()
            .filter(|v| !v.is_null() && !v.is_undefined());
        if current.is_none() {
            return;
        }
        (document.into(), "exitFullscreen")
    };
    let Ok(f) = js_sys::Reflect::get(&target, &method.into())
        .and_then(|f| f.dyn_into::<js_sys::Function>())
    else {
        return;
    };
    if let Ok(p) = f.call0(&target) {
        if let Ok(promise) = p.dyn_into::<js_sys::Promise>() {
            wasm_bindgen_futures::spawn_local(async move {
                let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
            });
        }
    }
}

/// `data-job-status`: the engine's job status in lower case.
fn job_status(s: JobStatus) -> &'static str {
    match s {
        JobStatus::Running => "running",
        JobStatus::Restarting => "restarting",
        JobStatus::Finished => "finished",
        JobStatus::Failed => "failed",
    }
}

impl App {
    /// `data-run`: what the page is doing with the run.
    fn run_state(&self) -> &'static str {
        if self.pending_seek.is_some() {
            "seeking"
        } else if self.playing {
            "playing"
        } else if self.is_done() {
            "finished"
        } else {
            "paused"
        }
    }

    fn status(&self) -> JobStatus {
        self.compare
            .as_ref()
            .map_or_else(|| self.sim.status(), Compare::status)
    }

    fn now(&self) -> Micros {
        self.compare
            .as_ref()
            .map_or_else(|| self.sim.now(), Compare::now)
    }

    fn is_done(&self) -> bool {
        self.compare
            .as_ref()
            .map_or_else(|| self.sim.is_done(), Compare::is_done)
    }

    fn refresh(&mut self) {
        match &mut self.compare {
            Some(c) => c.refresh(),
            None => self.sim.refresh(),
        }
    }

    /// One frame's engine work: both runs share the frame budget.
    fn advance(&mut self, target: Micros) -> Micros {
        let budget = self.budget.budget_ms();
        match &mut self.compare {
            Some(c) => c.advance(target, budget),
            None => self.sim.advance(target, budget),
        }
    }

    fn last_timing(&self) -> (f64, f64) {
        self.compare
            .as_ref()
            .map_or(self.sim.last_timing, |c| c.last_timing)
    }

    /// Enters (or switches to) the comparison `A|B`, or leaves comparison mode.
    fn set_compare(&mut self, choice: Option<String>) {
        self.playing = false;
        self.action_error = None;
        self.share_note = None;
        self.frame_stats = FrameStats::default();
        let Some(text) = choice else {
            self.compare = None;
            self.sim.refresh();
            return;
        };
        let opened = Comparison::parse(&text, "compare")
            .and_then(|cmp| Compare::new(self.sim.document.clone(), cmp));
        match opened {
            Ok(c) => self.compare = Some(c),
            Err(e) => self.banner = Some(comparison_cannot_run(&e)),
        }
    }

    /// After a preset was loaded in comparison mode: the same comparison of the new one.
    fn reopen_compare(&mut self) {
        if let Some(c) = self.compare.take() {
            match Compare::new(self.sim.document.clone(), c.comparison) {
                Ok(c) => self.compare = Some(c),
                Err(e) => self.banner = Some(comparison_cannot_run(&e)),
            }
        }
    }

    fn compare_view(&self, c: &Compare) -> Html {
        let on_command = self.on_command.clone();
        let run = |sim: &Sim, mode: &crate::scenario::compare::Mode| RunView {
            mode: mode.clone(),
            layout: sim.snapshots.layout.clone(),
            live: sim.snapshots.live.clone(),
            report: sim.snapshots.report.clone(),
        };
        let a = &c.a.snapshots;
        self.page(
            Some(AttrValue::from(c.comparison.text())),
            html! {
                <main class="layout compare-layout">
                    <Controls on_command={on_command.clone()}
                        playing={self.playing}
                        now={c.now()}
                        duration={c.duration()}
                        speed={self.speed}
                        effective_speed={if self.playing { self.effective_speed } else { None }}
                        done={c.is_done()}
                        status={c.status()}
                        frame={self.frame_stats.summary()}
                        interval={self.interval_stats.summary()}
                        engine_ms={self.engine_stats.summary().map(|s| s.0)}
                        budget_ms={self.budget.budget_ms()}
                        cut_ms={self.cut_stats.summary().map(|s| s.0)}
                        name={AttrValue::from(c.base.name.clone())}
                        step_note={self.step_note.clone()}
                        pause_at={self.pause_at}
                        step_count={self.step_count}
                        pace_note={scenario::cost::pace_note(&c.a.engine.borrow().spec).map(AttrValue::from)}
                        description={c.base.description.clone().map(AttrValue::from)} />
                    <CompareView comparison={c.comparison.clone()}
                        a={run(&c.a, &c.comparison.a)} b={run(&c.b, &c.comparison.b)}
                        duration={c.duration()} selected={self.selected_task}
                        on_select={self.on_select.clone()} />
                    <Inspector live={a.live.clone()} settings={a.settings.clone()}
                        selected={self.selected_task} on_command={on_command.clone()}
                        error={self.action_error.clone()} />
                </main>
            },
        )
    }
}
