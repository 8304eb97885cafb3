//! The time-travel timeline under the job view: a track from 0 to the run's duration with
//! the played part shaded, the part reached so far lighter, and marks for checkpoints
//! (completed: green ticks; failed, expired, aborted: red), failures (red ✕) and their
//! recoveries, the run's actions (a tooltip names each; recorded ones in the accent
//! colour) and, after a fork, "forked at t".
//!
//! Contract: `data-testid="timeline"`; the track is `timeline-track`, the handle
//! `timeline-handle` (a focusable slider: ←/→ seek ∓/±1 s, Home to 0, End to the furthest
//! time reached), the time under the cursor `timeline-hover`, the fork mark
//! `timeline-fork`, marks `timeline-mark` with `data-kind` (`checkpoint`,
//! `checkpoint-failed`, `failure`, `recovery`, `action`; past
//! [`crate::ui::markers::MAX_TICKS`] ended checkpoints a checkpoint mark stands for a span
//! of the run, class `tl-span`, `data-count` checkpoints). Pressing on the track captures
//! the pointer and every move emits [`Command::Seek`] (the app seeks at most once per
//! animation frame, to the latest target). Emits commands only.

use std::rc::Rc;

use yew::prelude::*;
use yew::virtual_dom::Key;

use crate::ui::i18n::{t, t_dyn, tf, use_lang};

use crate::engine::time::Micros;
use crate::ui::command::Command;
use crate::ui::format;
use crate::ui::markers::{CheckpointMark, CheckpointSpan, CheckpointTicks, TimelineMarks};

use super::panel::Panel;

const SECOND: Micros = 1_000_000;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub marks: Rc<TimelineMarks>,
    /// The engine's virtual time.
    pub now: Micros,
    /// The furthest virtual time this run reached.
    pub furthest: Micros,
    /// A seek the app has not carried out yet (the handle shows it).
    #[prop_or_default]
    pub target: Option<Micros>,
    /// A long seek is being computed.
    #[prop_or_default]
    pub computing: bool,
    /// Wall ms the last seek took.
    #[prop_or_default]
    pub last_seek_ms: Option<f64>,
    pub on_command: Callback<Command>,
}

fn pct(t: Micros, duration: Micros) -> String {
    format!(
        "{:.3}%",
        (t as f64 / duration.max(1) as f64 * 100.0).clamp(0.0, 100.0)
    )
}

/// Tick spacing for an axis of `duration`: about 6 to 12 labels.
fn tick_step(duration: Micros) -> Micros {
    let secs = (duration / SECOND).max(1);
    [1, 2, 5, 10, 15, 30, 60, 120, 300, 600]
        .into_iter()
        .find(|s| secs / s <= 12)
        .unwrap_or(1200)
        * SECOND
}

/// One mark on the track. `key` identifies it among its list's marks: Yew matches the
/// children of an unkeyed list from the end, so a mark appended to one (a checkpoint that
/// just ended) would re-write every mark before it, each frame while a run plays. `span`:
/// the number of checkpoints a span mark stands for.
fn mark(
    key: Key,
    kind: &'static str,
    at: Micros,
    duration: Micros,
    title: String,
    glyph: &str,
    span: Option<usize>,
) -> Html {
    html! {
        <span {key} class={classes!("tl-mark", format!("tl-{kind}"), span.map(|_| "tl-span"))}
            data-testid="timeline-mark" data-kind={kind} data-count={span.map(|n| n.to_string())}
            style={format!("left: {}", pct(at, duration))} title={title}>
            { glyph.to_string() }
        </span>
    }
}

#[derive(Properties, PartialEq)]
struct MarksProps {
    marks: Rc<TimelineMarks>,
}

/// The marks on the track: a component of its own, so a playing run's frames (the handle
/// and the reached part move every frame) do not rebuild and re-diff every mark; they
/// change only when the [`TimelineMarks`] snapshot does (a checkpoint ends, a failure).
#[function_component(Marks)]
fn marks(props: &MarksProps) -> Html {
    use_lang();
    let m = &props.marks;
    let duration = m.duration.max(1);
    let checkpoints = match m.checkpoint_ticks() {
        CheckpointTicks::Each(each) => {
            let ticks = each.into_iter().map(|c| {
                html! { <CheckpointTick key={c.id} mark={c.clone()} {duration} /> }
            });
            html! { <>{ for ticks }</> }
        }
        CheckpointTicks::Spans(spans) => {
            let ticks = spans.into_iter().map(|s| {
                let key = s.bin;
                html! { <SpanTick {key} span={s} {duration} /> }
            });
            html! { <>{ for ticks }</> }
        }
    };
    let failures = m.failures.iter().enumerate().map(|(i, f)| {
        let title = tf("failure at {0}: {1}", &[&format::clock(f.at), &f.what]);
        let band = f.recovered.map(|r| {
            html! {
                <span key="band" class="tl-outage" style={format!("left: {}; width: {}", pct(f.at, duration), pct(r.saturating_sub(f.at), duration))} />
            }
        });
        let recovery = f.recovered.map(|r| {
            let title = tf(
                "recovered at {0} (failure at {1}, {2} to recover)",
                &[&format::clock(r), &format::clock(f.at), &format::dur(r - f.at)],
            );
            mark("recovery".into(), "recovery", r, duration, title, "↺", None)
        });
        let failure = mark("failure".into(), "failure", f.at, duration, title, "✕", None);
        html! { <key={i}>{ for band }{ failure }{ for recovery }</> }
    });
    let actions = m.actions.iter().enumerate().map(|(i, a)| {
        let title = format!(
            "{} at {}: {}",
            if a.recorded {
                t("recorded action")
            } else {
                t("scenario event")
            },
            format::clock(a.at),
            a.label
        );
        html! {
            <span key={i} class={classes!("tl-mark", "tl-action", a.recorded.then_some("recorded"))}
                data-testid="timeline-mark" data-kind="action" data-recorded={a.recorded.to_string()}
                style={format!("left: {}", pct(a.at, duration))} title={title}>{ "◆" }</span>
        }
    });
    let fork = m.forked_at.map(|f| {
        html! {
            <span class="tl-fork" data-testid="timeline-fork" data-at={f.to_string()}
                style={format!("left: {}", pct(f, duration))}>
                <span class="tl-fork-label">{ tf("forked at {0}", &[&format::clock(f)]) }</span>
            </span>
        }
    });
    html! {
        <>
            // Each keyed list in a fragment of its own: `{ for … }` splices its
            // items into the enclosing list, and one unkeyed sibling (the rail)
            // would make Yew reconcile them all unkeyed, from the end.
            <>{ for failures }</>
            { checkpoints }
            <>{ for actions }</>
            { for fork }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct CheckpointTickProps {
    mark: CheckpointMark,
    duration: Micros,
}

/// One checkpoint's mark once it ended (nothing while in progress): a component of its
/// own, so that a new checkpoint (which re-renders [`Marks`]) formats its own title and no
/// other: an hour of 1-s checkpoints is 3,600 marks, and formatting each one's title at
/// every checkpoint took ~5 % of a playing page's main thread at 1,000 marks (Dec 7).
#[function_component(CheckpointTick)]
fn checkpoint_tick(props: &CheckpointTickProps) -> Html {
    use_lang();
    let c = &props.mark;
    let Some(end) = c.end else {
        return Html::default();
    };
    let kind = if c.failed() {
        "checkpoint-failed"
    } else {
        "checkpoint"
    };
    let title = tf(
        "checkpoint {0} {1} — triggered {2}, ended {3}",
        &[
            &c.id,
            &t_dyn(&c.status.replace('_', " ")),
            &format::clock(c.trigger),
            &format::clock(end),
        ],
    );
    mark(c.id.into(), kind, end, props.duration, title, "|", None)
}

#[derive(Properties, PartialEq)]
struct SpanTickProps {
    span: CheckpointSpan,
    duration: Micros,
}

/// The checkpoints that ended in one span of a long run, marked as one
/// ([`crate::ui::markers::MAX_TICKS`]): red if any failed. Its element re-renders only
/// while checkpoints still end in its span.
#[function_component(SpanTick)]
fn span_tick(props: &SpanTickProps) -> Html {
    use_lang();
    let s = &props.span;
    let kind = if s.failed > 0 {
        "checkpoint-failed"
    } else {
        "checkpoint"
    };
    let title = tf(
        "checkpoints {0}–{1}, ended {2}–{3}: {4} completed, {5} failed, expired or aborted",
        &[
            &s.first,
            &s.last,
            &format::clock(s.from),
            &format::clock(s.to),
            &s.completed,
            &s.failed,
        ],
    );
    let count = Some(s.completed + s.failed);
    mark(s.bin.into(), kind, s.at, props.duration, title, "|", count)
}

#[derive(Properties, PartialEq)]
struct AxisProps {
    duration: Micros,
}

/// The axis's second labels, which depend on the duration only.
#[function_component(Axis)]
fn axis(props: &AxisProps) -> Html {
    let duration = props.duration;
    let step = tick_step(duration);
    let ticks = (0..=duration / step).map(|i| {
        let t = i * step;
        html! {
            <span class="tl-tick" style={format!("left: {}", pct(t, duration))}>
                { format!("{}s", t / SECOND) }
            </span>
        }
    });
    html! { <div class="tl-axis" aria-hidden="true">{ for ticks }</div> }
}

/// The time under a pointer event over the track.
fn time_at(track: &NodeRef, e: &PointerEvent, duration: Micros) -> Option<Micros> {
    let el = track.cast::<web_sys::Element>()?;
    let rect = el.get_bounding_client_rect();
    if rect.width() <= 0.0 {
        return None;
    }
    let frac = ((e.client_x() as f64 - rect.left()) / rect.width()).clamp(0.0, 1.0);
    Some((frac * duration as f64).round() as Micros)
}

#[function_component(Timeline)]
pub fn timeline(props: &TimelineProps) -> Html {
    use_lang();
    let track = use_node_ref();
    let dragging = use_mut_ref(|| false);
    let hover = use_state(|| None::<Micros>);
    let m = &props.marks;
    let duration = m.duration.max(1);
    let at = props.target.unwrap_or(props.now).min(duration);
    let furthest = props.furthest.max(props.now).min(duration);

    let seek = {
        let cb = props.on_command.clone();
        move |t: Micros| cb.emit(Command::Seek(t))
    };
    let onpointerdown = {
        let (track, dragging, seek) = (track.clone(), dragging.clone(), seek.clone());
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            if let Some(el) = track.cast::<web_sys::Element>() {
                let _ = el.set_pointer_capture(e.pointer_id());
            }
            *dragging.borrow_mut() = true;
            if let Some(t) = time_at(&track, &e, duration) {
                seek(t);
            }
            e.prevent_default();
        })
    };
    let onpointermove = {
        let (track, dragging, hover, seek) =
            (track.clone(), dragging.clone(), hover.clone(), seek.clone());
        Callback::from(move |e: PointerEvent| {
            let t = time_at(&track, &e, duration);
            hover.set(t);
            if *dragging.borrow() {
                if let Some(t) = t {
                    seek(t);
                }
            }
        })
    };
    let onpointerup = {
        let (track, dragging) = (track.clone(), dragging.clone());
        Callback::from(move |e: PointerEvent| {
            *dragging.borrow_mut() = false;
            if let Some(el) = track.cast::<web_sys::Element>() {
                let _ = el.release_pointer_capture(e.pointer_id());
            }
        })
    };
    let onpointerleave = {
        let (dragging, hover) = (dragging.clone(), hover.clone());
        Callback::from(move |_: PointerEvent| {
            if !*dragging.borrow() {
                hover.set(None);
            }
        })
    };
    let onkeydown = {
        let seek = seek.clone();
        Callback::from(move |e: KeyboardEvent| {
            let t = match e.key().as_str() {
                "ArrowLeft" => at.saturating_sub(SECOND),
                "ArrowRight" => (at + SECOND).min(duration),
                "Home" => 0,
                "End" => furthest,
                _ => return,
            };
            // Keep the page's own shortcuts (→ steps the engine) out of it.
            e.prevent_default();
            e.stop_propagation();
            seek(t);
        })
    };

    let hover_label = (*hover).map(|t| {
        html! {
            <span class="tl-hover" data-testid="timeline-hover" style={format!("left: {}", pct(t, duration))}>
                { format::clock(t) }
            </span>
        }
    });
    let status = if props.computing {
        html! { <span class="tl-status computing" data-testid="timeline-computing">{ t("computing…") }</span> }
    } else {
        html! {
            <span class="tl-status">
                { tf("at {0} · reached {1}", &[&format::clock(at), &format::clock(furthest)]) }
                if let Some(ms) = props.last_seek_ms {
                    { tf(" · last seek {0} ms", &[&format!("{ms:.0}")]) }
                }
            </span>
        }
    };
    html! {
        <Panel id="timeline" title={t("Timeline")} testid="timeline" class={classes!("area-timeline")}
            description={t("Drag the handle (or use ←/→ on it) to travel in time; a new action after going back forks the run.")}
            actions={status}>
            <div class="tl" data-now={at.to_string()} data-furthest={furthest.to_string()}
                data-computing={props.computing.to_string()}>
                <div class="tl-track" data-testid="timeline-track" ref={track}
                    {onpointerdown} {onpointermove} {onpointerup} {onpointerleave}
                    onpointercancel={Callback::from(move |_: PointerEvent| *dragging.borrow_mut() = false)}>
                    <div class="tl-rail">
                        <span class="tl-reached" style={format!("width: {}", pct(furthest, duration))} />
                        <span class="tl-played" style={format!("width: {}", pct(at, duration))} />
                    </div>
                    <Marks marks={props.marks.clone()} />
                    { for hover_label }
                    <div class="tl-handle" data-testid="timeline-handle" tabindex="0" role="slider"
                        aria-label={t("Virtual time")} aria-valuemin="0"
                        aria-valuemax={format!("{:.1}", duration as f64 / 1e6)}
                        aria-valuenow={format!("{:.1}", at as f64 / 1e6)}
                        aria-valuetext={format::clock(at)}
                        style={format!("left: {}", pct(at, duration))} {onkeydown} />
                </div>
                <Axis {duration} />
            </div>
        </Panel>
    }
}
