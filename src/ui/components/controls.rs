//! The run controls: play, pause, step, reset, speed, trigger a checkpoint, share,
//! the virtual clock and the scenario's "what to watch".
//!
//! Contract: emits [`Command`]s only. Buttons carry `data-testid`s `play`, `pause`,
//! `step`, `reset`, `trigger-checkpoint`, `trigger-savepoint`, `resubmit-open` (the Resubmit dialog), `share`; the speed slider is `speed`
//! (logarithmic, 0.1× to 1000× real time); "Pause at" is the text field `pause-at`
//! (a virtual time in the link's syntax, `31s`, `1500ms`; empty for none), taken on
//! change (Enter or leaving the field), refused with `aria-invalid` and the reason in
//! its title when it does not read; the clock is `clock`; the frame-time readout
//! `frame-stats` carries `data-avg-ms` and `data-p95-ms` (work from a played frame's
//! start to the first task after it), `data-interval-ms` (between frames),
//! `data-engine-ms` / `data-snapshot-ms` (their engine and snapshot parts) and
//! `data-budget-ms` (the engine's budget per frame now); when the
//! run is over `run-end` says so. A scenario the engine
//! cannot run in real time shows its pace note (`scenario::cost`, "runs at ~0.2× real
//! time") beside the speed slider as `pace-note`.

use std::rc::Rc;

use yew::prelude::*;

use crate::ui::i18n::steps::{self, StepLine};
use crate::ui::i18n::{t, tf, use_lang};

use crate::engine::runtime::JobStatus;
use crate::engine::spec::Action;
use crate::engine::time::Micros;
use crate::scenario::moment;
use crate::ui::command::Command;
use crate::ui::format;

use super::panel::Panel;

/// Speed slider range: 10^(MIN_EXP + v/100 * SPAN) for v in 0..=100.
const MIN_EXP: f64 = -1.0;
const SPAN: f64 = 4.0;

pub fn speed_from_slider(v: f64) -> f64 {
    10f64.powf(MIN_EXP + v / 100.0 * SPAN)
}

pub fn slider_from_speed(s: f64) -> f64 {
    ((s.log10() - MIN_EXP) / SPAN * 100.0).clamp(0.0, 100.0)
}

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub on_command: Callback<Command>,
    pub playing: bool,
    pub now: Micros,
    pub duration: Micros,
    pub speed: f64,
    /// Virtual seconds per wall second actually achieved over the last frames.
    pub effective_speed: Option<f64>,
    pub done: bool,
    pub status: JobStatus,
    /// (avg ms, p95 ms, frames) of frame work: from the frame's start to the first task
    /// after it (engine, snapshots, every component's render, the canvas).
    pub frame: Option<(f64, f64, usize)>,
    /// (avg ms, p95 ms, frames) between two animation frames while playing.
    #[prop_or_default]
    pub interval: Option<(f64, f64, usize)>,
    /// Average wall ms per frame spent in engine slices and in cutting snapshots.
    pub engine_ms: Option<f64>,
    pub cut_ms: Option<f64>,
    /// The engine's wall budget per frame now (`ui::frame_budget`).
    pub budget_ms: f64,
    pub name: AttrValue,
    pub description: Option<AttrValue>,
    /// What the last "Checkpoint step" showed, one line per log entry.
    #[prop_or_default]
    pub step_note: Option<Rc<Vec<StepLine>>>,
    /// Checkpoint steps taken so far (`data-count` of the step note: a test waits for it).
    #[prop_or_default]
    pub step_count: u64,
    /// "Pause at": the virtual time a run that plays pauses at.
    #[prop_or_default]
    pub pause_at: Option<Micros>,
    /// "runs at ~0.2× real time …" when the engine cannot keep real time.
    #[prop_or_default]
    pub pace_note: Option<AttrValue>,
}

fn icon(d: &'static str) -> Html {
    html! {
        <svg class="control-icon" viewBox="0 0 16 16" width="14" height="14" fill="currentColor" aria-hidden="true">
            <path d={d} />
        </svg>
    }
}

fn status_text(s: JobStatus) -> &'static str {
    match s {
        JobStatus::Running => "RUNNING",
        JobStatus::Restarting => "RESTARTING",
        JobStatus::Finished => "FINISHED",
        JobStatus::Failed => "FAILED",
    }
}

/// The control bar.
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let lang = use_lang();
    let cmd = |c: Command| {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(c.clone()))
    };
    let button = |c: Command,
                  testid: &'static str,
                  label: &'static str,
                  d: &'static str,
                  enabled: bool,
                  title: &'static str| {
        html! {
            <button type="button" class={classes!("control", format!("control-{testid}"))}
                data-testid={testid} title={title} disabled={!enabled} onclick={cmd(c)}>
                { icon(d) }<span class="control-label">{ label }</span>
            </button>
        }
    };
    let on_speed = {
        let cb = props.on_command.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<f64>() {
                cb.emit(Command::SetSpeed(speed_from_slider(v)));
            }
        })
    };
    // Why the last text typed into "Pause at" was refused, if it was.
    let pause_error = use_state(|| None::<String>);
    let on_pause_at = {
        let cb = props.on_command.clone();
        let pause_error = pause_error.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let text = input.value();
            if text.trim().is_empty() {
                pause_error.set(None);
                cb.emit(Command::SetPauseAt(None));
                return;
            }
            match moment::parse(&text) {
                Ok(t) => {
                    pause_error.set(None);
                    cb.emit(Command::SetPauseAt(Some(t)));
                }
                Err(e) => pause_error.set(Some(tf("Not a virtual time — {0}", &[&e]))),
            }
        })
    };
    let progress = if props.duration > 0 {
        (props.now as f64 / props.duration as f64).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let status_class = match props.status {
        JobStatus::Running => "job-running",
        JobStatus::Restarting => "job-restarting",
        JobStatus::Finished => "job-finished",
        JobStatus::Failed => "job-failed",
    };
    let (avg, p95, frames) = props.frame.unwrap_or((0.0, 0.0, 0));
    let interval = props.interval.map(|(avg, _, _)| avg);
    html! {
        <Panel id="controls" title={t("Controls")} testid="controls" class="area-controls">
            <div class="toolbar" role="toolbar" aria-label={t("Simulation controls")}>
                <div class="button-group">
                    { button(Command::Play, "play", t("Play"), "M4 2.5v11l9-5.5z", !props.playing && !props.done, t("Play (space)")) }
                    { button(Command::Pause, "pause", t("Pause"), "M4 2.5h3v11H4zM9 2.5h3v11H9z", props.playing, t("Pause (space)")) }
                    { button(Command::Step, "step", t("Step"), "M3 2.5v11l7.5-5.5zM11 2.5h2.5v11H11z", !props.playing && !props.done, t("Run the next engine event (→)")) }
                    { button(Command::CheckpointStep, "step-checkpoint", t("Checkpoint step"), "M2 2.5v11l6-5.5zM8 2.5v11l6-5.5z", !props.playing && !props.done, t("Run to the next step of a checkpoint: trigger, barrier, snapshot (end of the sync phase), acknowledgement (end of the async phase), completion (n)")) }
                    { button(Command::Reset, "reset", t("Reset"), "M8 2.5a5.5 5.5 0 1 1-5.2 3.7l1.9.6A3.5 3.5 0 1 0 8 4.5v2L4.5 3.5 8 .5z", true, t("Start the scenario over (r)")) }
                </div>
                <label class="speed" title={t("Speed: virtual time per wall-clock second (logarithmic)")}>
                    <span class="field-label">{ t("speed") }</span>
                    <input type="range" min="0" max="100" step="1" data-testid="speed"
                        aria-label={t("Speed")}
                        value={format!("{:.0}", slider_from_speed(props.speed))} oninput={on_speed} />
                    <span class="speed-value" data-testid="speed-value">{ format::speed(props.speed) }</span>
                    if let Some(note) = &props.pace_note {
                        <span class="muted-small pace-note" data-testid="pace-note" title={note.clone()}>
                            { note.split(" (").next().unwrap_or_default().to_string() }
                        </span>
                    }
                </label>
                <label class="pause-at" title={(*pause_error).clone().unwrap_or_else(|| t("Pause at: while playing, the run stops exactly at this virtual time (e.g. 31s, 1500ms); empty plays on").to_string())}>
                    <span class="field-label">{ t("pause at") }</span>
                    <input type="text" data-testid="pause-at" aria-label={t("Pause at virtual time")}
                        placeholder={t("e.g. 31s")} aria-invalid={pause_error.is_some().to_string()}
                        value={props.pause_at.map(moment::format).unwrap_or_default()}
                        onchange={on_pause_at} />
                </label>
                <div class="clock" data-testid="clock" title={t("Virtual time of the simulation / run length")}>
                    <div class="clock-row">
                        <span class="clock-value">{ format::clock(props.now) }</span>
                        <span class="clock-of">{ format!(" / {}", format::clock(props.duration)) }</span>
                        <span class={classes!("job-status", status_class)} data-testid="job-status">{ status_text(props.status) }</span>
                    </div>
                    <div class="progress"><div class="progress-bar" style={format!("width:{:.1}%", progress * 100.0)}></div></div>
                </div>
                <button type="button" class="control control-wide" data-testid="trigger-checkpoint"
                    title={t("Ask the checkpoint coordinator for a checkpoint now (c)")}
                    disabled={props.done}
                    onclick={cmd(Command::Apply(Action::TriggerCheckpoint))}>
                    { icon("M8 1.5l5.5 2.2v4c0 3.3-2.3 5.8-5.5 6.8-3.2-1-5.5-3.5-5.5-6.8v-4z") }
                    <span class="control-label">{ t("Trigger checkpoint") }</span>
                </button>
                <button type="button" class="control" data-testid="trigger-savepoint"
                    title={t("Take a savepoint now (flink savepoint; always aligned, whatever the checkpointing mode) (v)")}
                    disabled={props.done}
                    onclick={cmd(Command::Apply(Action::Savepoint))}>
                    { icon("M3 2.5h8l2 2v9H3z M5.5 2.5v4h5v-4 M5.5 10h5") }
                    <span class="control-label">{ t("Savepoint") }</span>
                </button>
                <button type="button" class="control" data-testid="resubmit-open"
                    title={t("Resubmit the job, changed (parallelism, a partitioner, the serializer, max parallelism), from a retained checkpoint or a savepoint")}
                    onclick={cmd(Command::OpenResubmit(Some(crate::ui::resubmit_form::Snapshot::Latest)))}>
                    { icon("M13 8a5 5 0 1 1-1.5-3.5 M13 2v3h-3") }
                    <span class="control-label">{ t("Resubmit…") }</span>
                </button>
                <div class="frame-stats" data-testid="frame-stats"
                    data-avg-ms={format!("{avg:.3}")}
                    data-engine-ms={format!("{:.3}", props.engine_ms.unwrap_or(0.0))}
                    data-budget-ms={format!("{:.3}", props.budget_ms)}
                    data-snapshot-ms={format!("{:.3}", props.cut_ms.unwrap_or(0.0))} data-p95-ms={format!("{p95:.3}")} data-frames={frames.to_string()}
                    data-interval-ms={format!("{:.3}", interval.unwrap_or(0.0))}
                    title={t("Frame work: wall time from the start of an animation frame until the page is idle again (engine slices, snapshots, every panel's render and the job view's canvas), average / 95th percentile over the last frames. Interval: wall time between two frames (everything the browser did, layout and paint included), and the frame rate it gives.")}>
                    if frames == 0 {
                        <span>{ t("frame work: not playing") }</span>
                    } else {
                        <span>{ tf("work {0} / p95 {1} ms", &[&format!("{avg:.1}"), &format!("{p95:.1}")]) }</span>
                    }
                    if let Some(i) = interval.filter(|i| *i > 0.0) {
                        <span class="muted-small">{ tf("every {0} ms ({1} fps)", &[&format!("{i:.1}"), &format!("{:.0}", 1000.0 / i)]) }</span>
                    }
                    if let Some(eff) = props.effective_speed {
                        <span class="muted-small">{ tf("actual {0}", &[&format::speed(eff)]) }</span>
                    }
                </div>
            </div>
            if let Some(lines) = &props.step_note {
                <div class="step-note" data-testid="checkpoint-step-note" aria-live="polite"
                    data-count={props.step_count.to_string()}>
                    <strong>{ t("Checkpoint step: ") }</strong>
                    if lines.is_empty() {
                        <span>{ t("no checkpoint step within 30 s of virtual time") }</span>
                    }
                    { for lines.iter().map(|l| html! { <span class="step-line">{ steps::render(l, lang) }</span> }) }
                </div>
            }
            if props.done {
                <div class="run-end" data-testid="run-end" role="status">
                    <strong>{ tf("End of the run at {0}", &[&format::clock(props.now)]) }</strong>
                    { match props.status {
                        JobStatus::Finished => t(" — the job finished: every source reached the end of its input."),
                        JobStatus::Failed => t(" — the job failed for good (see the event log)."),
                        _ => t(" — the scenario's run length is reached."),
                    } }
                    { t(" Reset (r) runs it again; the timeline goes back to any moment.") }
                </div>
            }
            <div class="scenario-strip">
                <span class="scenario-name" data-testid="scenario-name" title={props.name.clone()}>{ props.name.clone() }</span>
                if let Some(d) = &props.description {
                    <span class="scenario-description" data-testid="scenario-description">
                        <strong>{ t("About this job: ") }</strong>{ d.clone() }
                    </span>
                }
            </div>
        </Panel>
    }
}
