//! The inspector: the selected subtask in Flink's terms (status, backpressure, barrier
//! handler state, checkpoint phase, buffer pools, its input channels) with a Fail
//! button, and per operator the live cost and rate sliders.
//!
//! Contract: `data-testid="inspector"`; the selected subtask's details are
//! `subtask-details`, its Fail button `fail-subtask`; sliders are
//! `cost-<operator>` and `rate-<operator>` (logarithmic, applied on release through
//! `Action::SetCost` / `Action::SetRate`, so they are recorded). A refused slider change
//! is shown next to its slider (`cost-error-<operator>`, `rate-error-<operator>`) and the
//! slider goes back to the value that runs; any other refused action (a Fail, a seek)
//! at the top (`action-error`).

use std::rc::Rc;

use yew::prelude::*;

use crate::engine::spec::Action;
use crate::engine::time::Micros;
use crate::ui::command::{ActionError, Command, Control};
use crate::ui::format;
use crate::ui::i18n::{t, t_dyn, tf, use_lang};
use crate::ui::sim::{LiveView, SettingsView};

use super::job_graph::{activity_name, status_name};
use super::panel::Panel;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub live: Rc<LiveView>,
    pub settings: Rc<SettingsView>,
    pub selected: Option<usize>,
    pub on_command: Callback<Command>,
    pub error: Option<ActionError>,
}

/// Cost slider: 10^(v/100 * 4) µs, 1 µs .. 10 ms (v = 0 means 0).
fn cost_from_slider(v: f64) -> Micros {
    if v <= 0.0 {
        0
    } else {
        10f64.powf(v / 100.0 * 4.0).round() as Micros
    }
}
fn slider_from_cost(c: Micros) -> f64 {
    if c == 0 {
        0.0
    } else {
        ((c as f64).log10() / 4.0 * 100.0).clamp(0.0, 100.0)
    }
}
/// Rate slider: 10^(1 + v/100 * 3.5) records/s per subtask, 10 .. ~31 600.
fn rate_from_slider(v: f64) -> f64 {
    let r = 10f64.powf(1.0 + v / 100.0 * 3.5);
    if r >= 100.0 {
        (r / 10.0).round() * 10.0
    } else {
        r.round()
    }
}
fn slider_from_rate(r: f64) -> f64 {
    ((r.max(10.0).log10() - 1.0) / 3.5 * 100.0).clamp(0.0, 100.0)
}

fn details(props: &InspectorProps, task: usize) -> Html {
    let Some(v) = props.live.tasks.get(task) else {
        return html! {};
    };
    let op = props
        .settings
        .operators
        .get(v.operator)
        .map(|o| o.id.clone())
        .unwrap_or_default();
    let index = v.index;
    // While the job restarts the old attempt's subtasks are cancelled: nothing to fail,
    // no buffers, no backpressure.
    let canceled = v.status == crate::engine::task::TaskStatus::Canceled;
    let fail = {
        let cb = props.on_command.clone();
        let op = op.clone();
        Callback::from(move |_: MouseEvent| {
            cb.emit(Command::Apply(Action::Fail {
                operator: op.clone(),
                subtask: index,
            }))
        })
    };
    let inputs: Vec<_> = props
        .live
        .channels
        .iter()
        .filter(|c| c.to_task == task)
        .collect();
    let name_of = |task: usize| {
        props
            .live
            .tasks
            .get(task)
            .map(|x| x.name.clone())
            .unwrap_or_default()
    };
    let row = |k: &'static str, val: String| html! { <div><dt>{ k }</dt><dd>{ val }</dd></div> };
    html! {
        <div class="subtask-details" data-testid="subtask-details">
            <div class="details-head">
                if canceled {
                    <span class="level-pill bp-none">{ "CANCELED" }</span>
                } else {
                    <span class={classes!("level-pill", format!("bp-{}", v.backpressure.name().to_lowercase()))}>{ v.backpressure.name() }</span>
                }
                <strong class="subtask-title">{ v.name.clone() }</strong>
                <button type="button" class="danger-button" data-testid="fail-subtask" onclick={fail}
                    disabled={canceled}
                    title={if canceled { t("Cancelled: the job is restarting; there is no running subtask to fail") } else { t("Inject a failure into this subtask (recorded in the scenario)") }}>
                    { tf("Fail {0}", &[&v.name]) }
                </button>
            </div>
            <dl class="kv">
                { row(t("Status"), status_name(v.status).to_string()) }
                { row(t("Doing now"), t_dyn(activity_name(v.activity))) }
                { row(t("Busy / backpressured / idle"), format!("{} / {} / {}", format::pct(v.busy), format::pct(v.backpressured), format::pct(v.idle))) }
                { row(t("Barrier handler"), v.handler_state.to_string()) }
                { row(t("Checkpoint"), v.checkpoint.map(|(id, p)| format!("{id}: {}", t_dyn(p))).unwrap_or_else(|| "-".into())) }
                { row(t("Output buffers"), format!("{}{}", tf("{0} / {1} in use", &[&v.output_pool.0, &v.output_pool.1]),
                    if v.overdraft_in_use > 0 { tf(", {0} overdraft", &[&v.overdraft_in_use]) } else { String::new() })) }
                { row(t("Records in / out"), format!("{} / {}", v.records_in, v.records_out)) }
            </dl>
            if !inputs.is_empty() && !canceled {
                <table class="mini-table">
                    <thead><tr><th>{ t("input channel") }</th><th>{ t("queued") }</th><th>{ t("credit") }</th><th>{ t("excl/float") }</th><th>{ t("state") }</th></tr></thead>
                    <tbody>
                        { for inputs.iter().map(|c| html! {
                            <tr>
                                <td>{ format!("← {}", name_of(c.from_task)) }</td>
                                <td>{ c.receiver.len() }</td>
                                <td>{ c.credit }</td>
                                <td>{ format!("{}/{}", c.exclusive, c.floating) }</td>
                                <td>{
                                    if c.blocked_at_receiver { t("blocked (aligning)") }
                                    else if c.persisting { t("persisting") }
                                    else if c.closed { t("closed") }
                                    else { "" }
                                }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            }
        </div>
    }
}

#[function_component(Inspector)]
pub fn inspector(props: &InspectorProps) -> Html {
    use_lang();
    let knobs = props.settings.operators.iter().map(|o| {
        // As in the settings panel, each slider is put back at the running value before
        // the change is sent: a refused change leaves it there, a taken one re-renders.
        let cost_now = format!("{:.0}", slider_from_cost(o.cost));
        let cost_cb = {
            let cb = props.on_command.clone();
            let id = o.id.clone();
            let running = cost_now.clone();
            Callback::from(move |e: Event| {
                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                let wanted = input.value();
                input.set_value(&running);
                if let Ok(v) = wanted.parse::<f64>() {
                    cb.emit(Command::Apply(Action::SetCost {
                        operator: id.clone(),
                        cost: cost_from_slider(v),
                    }));
                }
            })
        };
        let rate = o.rate.map(|rate| {
            let cb = props.on_command.clone();
            let id = o.id.clone();
            let rate_now = format!("{:.0}", slider_from_rate(rate));
            let running = rate_now.clone();
            let onchange = Callback::from(move |e: Event| {
                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                let wanted = input.value();
                input.set_value(&running);
                if let Ok(v) = wanted.parse::<f64>() {
                    cb.emit(Command::Apply(Action::SetRate {
                        operator: id.clone(),
                        rate: rate_from_slider(v),
                    }));
                }
            });
            html! {
                <>
                <label class="knob" title={t("Records per second emitted by each source subtask")}>
                    <span class="knob-name">{ t("rate") }</span>
                    <input type="range" min="0" max="100" step="1" data-testid={format!("rate-{}", o.id)}
                        value={rate_now} {onchange} />
                    <span class="knob-value">{ format!("{rate:.0}/s") }</span>
                </label>
                if let Some(message) = ActionError::at(&props.error, &Control::Rate(o.id.clone())) {
                    <p class="inline-error knob-error" role="alert"
                        data-testid={format!("rate-error-{}", o.id)}>{ message }</p>
                }
                </>
            }
        });
        html! {
            <div class="knob-row">
                <div class="knob-op"><strong>{ o.id.clone() }</strong><span class="muted-small">{ format!(" {} ×{}", o.kind, o.parallelism) }</span></div>
                <label class="knob" title={t("Virtual processing time per record: raise it to create backpressure upstream")}>
                    <span class="knob-name">{ t("cost") }</span>
                    <input type="range" min="0" max="100" step="1" data-testid={format!("cost-{}", o.id)}
                        value={cost_now} onchange={cost_cb} />
                    <span class="knob-value">{ format::dur(o.cost) }</span>
                </label>
                if let Some(message) = ActionError::at(&props.error, &Control::Cost(o.id.clone())) {
                    <p class="inline-error knob-error" role="alert"
                        data-testid={format!("cost-error-{}", o.id)}>{ message }</p>
                }
                { rate.unwrap_or_default() }
            </div>
        }
    });
    html! {
        <Panel id="inspector" title={t("Inspector")} testid="inspector" class="area-inspector">
            if let Some(e) = ActionError::at(&props.error, &Control::Other) {
                <p class="inline-error" data-testid="action-error">{ e }</p>
            }
            {
                match props.selected {
                    Some(t) => details(props, t),
                    None => html! { <p class="muted hint">{ t("Click a subtask in the job graph to see its barrier handler state, checkpoint phase and buffers, and to fail it.") }</p> },
                }
            }
            <h3 class="subsection-title">{ t("Operators — drag to apply backpressure live") }</h3>
            <div class="knobs">{ for knobs }</div>
        </Panel>
    }
}
