//! The checkpoint settings: Flink's options that the seed article discusses, edited
//! live, each change sent as `Action::SetConfig` (recorded in the scenario).
//!
//! Contract: `data-testid="settings"`; each field is `setting-<key>` (the Flink key
//! with dots), shows the engine's current value, and explains the key (from the
//! engine's `KEYS` table) on hover. Text fields apply on change (Enter or leaving the
//! field). The engine checks every change as it checks a document's `set_config` event
//! (`Engine::apply`, cross-key rules included); a refused change is shown in plain words
//! next to its field (`setting-error-<key>`) and the field goes back to the value that
//! runs — a field never shows a value the run does not have.

use std::rc::Rc;

use yew::prelude::*;

use crate::engine::config::KEYS;
use crate::engine::spec::Action;
use crate::scenario::convert::config_value;
use crate::ui::command::{ActionError, Command, Control};
use crate::ui::i18n::{t, t_dyn, tf, use_lang};
use crate::ui::sim::SettingsView;

use super::panel::Panel;

enum Field {
    Choice(&'static [&'static str]),
    Toggle,
    Text,
}

/// (key, short label, field).
const FIELDS: &[(&str, &str, Field)] = &[
    (
        "execution.checkpointing.mode",
        "Mode",
        Field::Choice(&["EXACTLY_ONCE", "AT_LEAST_ONCE"]),
    ),
    (
        "execution.checkpointing.unaligned.enabled",
        "Unaligned checkpoints",
        Field::Toggle,
    ),
    (
        "execution.checkpointing.aligned-checkpoint-timeout",
        "Aligned-checkpoint timeout",
        Field::Text,
    ),
    ("execution.checkpointing.interval", "Interval", Field::Text),
    (
        "execution.checkpointing.timeout",
        "Checkpoint timeout",
        Field::Text,
    ),
    (
        "taskmanager.network.memory.buffers-per-channel",
        "Buffers per channel",
        Field::Text,
    ),
    (
        "taskmanager.network.memory.floating-buffers-per-gate",
        "Floating buffers per gate",
        Field::Text,
    ),
    (
        "taskmanager.network.memory.max-overdraft-buffers-per-gate",
        "Overdraft buffers per gate",
        Field::Text,
    ),
    (
        "execution.checkpointing.unaligned.max-subtasks-per-channel-state-file",
        "Subtasks per channel-state file",
        Field::Text,
    ),
    (
        "playground.task.availability-check",
        "Availability check (optimization 1)",
        Field::Toggle,
    ),
];

#[derive(Properties, PartialEq)]
pub struct SettingsProps {
    pub settings: Rc<SettingsView>,
    pub on_command: Callback<Command>,
    /// The last refused action; shown here when it came from one of these fields.
    #[prop_or_default]
    pub error: Option<ActionError>,
}

fn doc(key: &str) -> String {
    KEYS.iter()
        .find(|k| k.key == key)
        .map(|k| {
            format!(
                "{key}\n{}\n{}",
                t_dyn(k.doc),
                tf("Flink default: {0}", &[&k.default])
            )
        })
        .unwrap_or_else(|| key.to_string())
}

#[function_component(SettingsPanel)]
pub fn settings_panel(props: &SettingsProps) -> Html {
    use_lang();
    let config = &props.settings.config;
    let fields = FIELDS.iter().map(|(key, label, field)| {
        let key = *key;
        let current = config_value(key, config)
            .map(|v| v.to_flink_string())
            .unwrap_or_default();
        let send = {
            let cb = props.on_command.clone();
            move |value: String| {
                cb.emit(Command::Apply(Action::SetConfig {
                    key: key.to_string(),
                    value,
                }))
            }
        };
        let testid = format!("setting-{key}");
        // Each handler puts the running value back into the element before it sends the
        // new one: if the engine takes it, the re-render shows it; if the engine refuses
        // it, nothing in the view changes (Yew diffs against its last view, not the DOM),
        // so without this the field would keep showing a value that does not run.
        let control = match field {
            Field::Toggle => {
                let checked = current == "true";
                let onchange = Callback::from(move |e: Event| {
                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                    let wanted = input.checked();
                    input.set_checked(checked);
                    send(wanted.to_string());
                });
                html! { <input type="checkbox" data-testid={testid} {checked} {onchange} /> }
            }
            Field::Choice(options) => {
                let running = current.clone();
                let onchange = Callback::from(move |e: Event| {
                    let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                    let wanted = select.value();
                    select.set_value(&running);
                    send(wanted);
                });
                // Keyed by the running value: a `selected` attribute no longer moves the
                // selection once the user has changed it, a fresh element does.
                html! {
                    <select key={current.clone()} data-testid={testid} {onchange}>
                        { for options.iter().map(|o| html! { <option value={*o} selected={current == *o}>{ *o }</option> }) }
                    </select>
                }
            }
            Field::Text => {
                let running = current.clone();
                let onchange = Callback::from(move |e: Event| {
                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                    let wanted = input.value().trim().to_string();
                    input.set_value(&running);
                    send(wanted);
                });
                html! { <input type="text" class="setting-text" data-testid={testid} value={current.clone()} {onchange} spellcheck="false" /> }
            }
        };
        let error = ActionError::at(&props.error, &Control::Setting(key.to_string()));
        html! {
            <div class={classes!("setting-cell", error.is_some().then_some("has-error"))}>
                <label class="setting" title={doc(key)}>
                    <span class="setting-label">{ t(label) }</span>
                    { control }
                </label>
                if let Some(message) = error {
                    <p class="inline-error setting-error" role="alert"
                        data-testid={format!("setting-error-{key}")}>{ message }</p>
                }
            </div>
        }
    });
    html! {
        <Panel id="settings" title={t("Checkpoint settings")} testid="settings" class="area-settings"
            description={t("Live; buffer counts take effect when the job (re)starts, as in Flink. Hover for the Flink key.")}>
            <div class="settings-grid">{ for fields }</div>
            if !props.settings.events.is_empty() {
                <details class="recorded">
                    <summary>{ tf("{0} recorded action(s) — replayed by a shared link", &[&props.settings.events.len()]) }</summary>
                    <ul>
                        { for props.settings.events.iter().map(|e| html! {
                            <li data-testid="recorded-action">{ crate::ui::format::timed_action(e.at, &e.action) }</li>
                        }) }
                    </ul>
                </details>
            }
        </Panel>
    }
}
