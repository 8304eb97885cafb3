//! The guide panel: what the running preset teaches (its section of the article), what to
//! watch, the figures it promises with their live status, and the controls to touch.
//!
//! Contract: `data-testid="guide"`. Every promised figure is a `guide-promise` item whose
//! `data-status` is `met`, `waiting` (nothing to measure yet), `not-yet` (measured, bound
//! not reached, run still going) or `missed` (run over, bound not reached); it shows the
//! claim, the measured value and the bound. The values come from
//! `Expectation::evaluate` on the report snapshot — the same evaluation the tests run to
//! the end of every preset, so the panel never promises what the engine does not do.
//! Each try is a button `guide-try-<i>` that emits `Command::Try(Some(i))` (re-run the
//! preset with those options; the address bar gets the new link); while a try runs, its
//! promises are shown and `guide-try-base` goes back to the preset.

use crate::ui::shared::Shared;
use std::rc::Rc;

use yew::prelude::*;

use crate::engine::report::Report;
use crate::scenario::guide::{section_title, Expectation, Metric};
use crate::ui::command::Command;
use crate::ui::format;
use crate::ui::i18n::{guides, t, t_dyn, tf, use_lang, Lang};
use crate::ui::sim::GuideView;

use super::panel::Panel;

/// Properties of [`GuidePanel`].
#[derive(Properties, PartialEq)]
pub struct GuideProps {
    pub view: Rc<GuideView>,
    pub report: Shared<Report>,
    /// Whether the run reached its end (a bound not reached by then is missed).
    pub done: bool,
    /// The scenario's description, shown above the columns.
    #[prop_or_default]
    pub about: Option<AttrValue>,
    pub on_command: Callback<Command>,
}

fn value_text(metric: Metric, v: f64) -> String {
    match metric.unit() {
        "ms" => format::ms(v),
        "bytes" => format::bytes(v.max(0.0) as u64),
        "ratio" => format::pct(v),
        "yes/no" => if v >= 1.0 { t("yes") } else { t("no") }.into(),
        _ => format!("{v:.0}"),
    }
}

fn bound_text(e: &Expectation) -> String {
    if e.metric.unit() == "yes/no" {
        return if e.min.is_some_and(|m| m >= 1.0) {
            t("yes")
        } else {
            t("no")
        }
        .into();
    }
    e.bounds_with(|v| value_text(e.metric, v))
}

/// "median end-to-end (ms) at explode, checkpoints after 20s".
fn figure_name(e: &Expectation) -> String {
    // In Chinese the metric keeps its name as spelled (`median_sync_ms`).
    let mut s = if crate::ui::i18n::current() == Lang::Zh {
        e.metric.name().to_string()
    } else {
        let mut s = e.metric.name().replace('_', " ");
        for unit in [" ms", " bytes"] {
            if let Some(stripped) = s.strip_suffix(unit) {
                s = stripped.to_string();
            }
        }
        s
    };
    if let Some(op) = &e.operator {
        s.push_str(&tf(" at {0}", &[op]));
    }
    match (&e.after, &e.before) {
        (Some(a), Some(b)) => s.push_str(&tf(", checkpoints {0}–{1}", &[a, b])),
        (Some(a), None) => s.push_str(&tf(", checkpoints after {0}", &[a])),
        (None, Some(b)) => s.push_str(&tf(", checkpoints before {0}", &[b])),
        (None, None) => {}
    }
    s
}

fn promise(e: &Expectation, report: &Report, done: bool) -> Html {
    let outcome = e.evaluate(report);
    let (status, mark) = match (outcome.met, done) {
        (Some(true), _) => ("met", "✓"),
        (None, false) => ("waiting", "…"),
        (Some(false), false) => ("not-yet", "○"),
        (_, true) => ("missed", "✗"),
    };
    let value = outcome
        .value
        .map(|v| value_text(e.metric, v))
        .unwrap_or_else(|| "—".into());
    html! {
        <li class={classes!("promise", status)} data-testid="guide-promise" data-status={status}>
            <span class="promise-mark" aria-hidden="true">{ mark }</span>
            <span class="promise-says">{ e.says.clone() }</span>
            <span class="promise-figure">
                { figure_name(e) }{ ": " }<strong>{ value }</strong>
                <span class="promise-bound">{ tf(" (promised {0})", &[&bound_text(e)]) }</span>
            </span>
        </li>
    }
}

/// The guide of the running preset.
#[function_component(GuidePanel)]
pub fn guide_panel(props: &GuideProps) -> Html {
    let lang = use_lang();
    let view = &props.view;
    let zh = (lang == Lang::Zh)
        .then(|| view.preset.as_deref().and_then(guides::zh))
        .flatten();
    let translated = zh.map(|z| guides::translate(&view.guide, z));
    let g = translated.as_ref().unwrap_or(&view.guide);
    let title = match g.section.and_then(|n| Some((n, section_title(n)?))) {
        Some((n, title)) => tf("Guide · article §{0}: {1}", &[&n, &t_dyn(title)]),
        None => t("Guide").to_string(),
    };
    let active = view.active_try.and_then(|i| g.tries.get(i).map(|t| (i, t)));
    let expectations = match active {
        Some((_, t)) => &t.expect,
        None => &g.expect,
    };
    let heading = match active {
        Some((_, tr)) => tf("What “{0}” shows", &[&tr.label]),
        None => t("What this run shows").to_string(),
    };
    let met = expectations
        .iter()
        .filter(|e| e.evaluate(&props.report).met == Some(true))
        .count();
    let tries = g.tries.iter().enumerate().map(|(i, tr)| {
        let on_command = props.on_command.clone();
        let onclick = Callback::from(move |_: MouseEvent| on_command.emit(Command::Try(Some(i))));
        let is_active = view.active_try == Some(i);
        let settings = tr
            .changes()
            .into_iter()
            .map(|c| html! { <code class="try-setting">{ c }</code> })
            .collect::<Html>();
        html! {
            <li class={classes!("try", is_active.then_some("active"))}>
                <button type="button" class="try-button" data-testid={format!("guide-try-{i}")}
                    disabled={is_active} {onclick}
                    title={t("Re-run the preset from 0 s with these options")}>
                    { if is_active { tf("Running: {0}", &[&tr.label]) } else { tf("Try: {0}", &[&tr.label]) } }
                </button>
                <p class="try-why">{ tr.why.clone() }</p>
                <div class="try-settings">{ settings }</div>
            </li>
        }
    });
    let back = active.map(|_| {
        let on_command = props.on_command.clone();
        let onclick = Callback::from(move |_: MouseEvent| on_command.emit(Command::Try(None)));
        html! {
            <button type="button" class="try-button back" data-testid="guide-try-base" {onclick}>
                { t("Back to the preset") }
            </button>
        }
    });
    let open = use_state(|| true);
    let toggle = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(!*open))
    };
    let actions = html! {
        <>
            <span class="guide-count" data-testid="guide-summary">{ tf("{0}/{1} promised figures reached", &[&met, &expectations.len()]) }</span>
            <button type="button" class="link-button" data-testid="guide-toggle" onclick={toggle}
                aria-expanded={open.to_string()}>
                { if *open { t("Hide") } else { t("Show") } }
            </button>
        </>
    };
    if !*open {
        return html! {
            <Panel id="guide" title={title} testid="guide" class="area-guide" actions={actions}>
                <></>
            </Panel>
        };
    }
    html! {
        <Panel id="guide" title={title} testid="guide" class="area-guide" actions={actions}>
            if let Some(about) = &props.about {
                <p class="guide-about" data-testid="scenario-description">{ about.clone() }</p>
            }
            <div class="guide-cols">
                <div class="guide-col">
                    <h3 class="guide-h">{ t("What to watch") }</h3>
                    // Each item carries its number: Chromium does not renumber a list whose
                    // first items Yew removed when the guide changed (a 4-item list followed by
                    // a 2-item one showed "3." and "4.").
                    <ol class="guide-watch">
                        { for g.watch.iter().enumerate().map(|(i, w)| html! {
                            <li value={(i + 1).to_string()}>{ w.clone() }</li>
                        }) }
                    </ol>
                </div>
                <div class="guide-col" data-testid="guide-promises">
                    <h3 class="guide-h">
                        { heading }
                        <span class="guide-count">{ tf(" {0}/{1} reached", &[&met, &expectations.len()]) }</span>
                    </h3>
                    <ul class="guide-promise-list">
                        { for expectations.iter().map(|e| promise(e, &props.report, props.done)) }
                    </ul>
                </div>
                if !g.tries.is_empty() {
                    <div class="guide-col">
                        <h3 class="guide-h">{ t("Touch a control") }</h3>
                        <ul class="guide-tries">{ for tries }</ul>
                        { for back }
                    </div>
                }
            </div>
        </Panel>
    }
}
