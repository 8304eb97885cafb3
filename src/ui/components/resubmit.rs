//! The Resubmit dialog (issue 15): resubmit a changed job from a retained checkpoint or
//! a savepoint.
//!
//! Contract: `data-testid="resubmit-dialog"`, a modal opened by `resubmit-open` in the
//! controls or a history row's `resubmit-from-here` (preset to that snapshot). It offers
//! the snapshot (`resubmit-from`: the latest retained checkpoint, the newest savepoint,
//! or any completed checkpoint / savepoint of the history), per operator its
//! parallelism (`resubmit-parallelism-<op>`), per edge its partitioner
//! (`resubmit-partitioner-<from>-<to>`) — a source's parallelism and a keyed aggregate's
//! input partitioner shown disabled, their reason after them (`resubmit-fixed-reason`,
//! `data-field` naming the field) —, the serializer version (`resubmit-serializer`)
//! and `pipeline.max-parallelism` (`resubmit-max-parallelism`). A bad value shows its
//! reason right after its field (`resubmit-field-error`, `data-field` naming the field)
//! and disables `resubmit-submit`. `resubmit-preview` says in plain words what will be
//! submitted and `resubmit-json` shows the scenario event itself
//! ([`crate::ui::resubmit_form`] builds both). "Resubmit" sends the event as
//! `Command::Resubmit`; the app reads it through the scenario document layer, as a link's
//! events are read, and records it at the current virtual time. When that refuses it,
//! the reason is `error`, shown in `resubmit-error`; the choices stay so they can be fixed.

use std::rc::Rc;

use yew::prelude::*;

use crate::engine::time::Micros;
use crate::scenario::document::PARTITIONERS;
use crate::ui::command::Command;
use crate::ui::i18n::{t, tf, use_lang};
use crate::ui::resubmit_form::{
    describe, keyed_input_reason, EdgeChoice, Field, FieldError, OperatorChoice, ResubmitForm,
    Snapshot, SOURCE_PARALLELISM_REASON,
};

/// Writes one field's typed value into the form.
type Setter = Rc<dyn Fn(&mut ResubmitForm, String)>;

#[derive(Properties, PartialEq)]
pub struct ResubmitDialogProps {
    pub on_command: Callback<Command>,
    /// The snapshot the dialog opens on.
    pub from: Snapshot,
    pub operators: Rc<Vec<OperatorChoice>>,
    pub edges: Rc<Vec<EdgeChoice>>,
    /// The completed checkpoints of the history, oldest first: (id, is a savepoint).
    pub snapshots: Rc<Vec<(u64, bool)>>,
    /// The virtual time the event is recorded at.
    pub now: Micros,
    /// The serializer version the job runs with.
    pub serializer_version: u32,
    /// Why the app refused the last submitted event.
    #[prop_or_default]
    pub error: Option<AttrValue>,
}

/// Why the field `name` is not a choice, right after it.
fn fixed_reason(name: String, reason: String) -> Html {
    html! {
        <span class="muted resubmit-fixed-reason" data-testid="resubmit-fixed-reason" data-field={name}>
            { reason }
        </span>
    }
}

/// The problem of `field`, right after it.
fn field_error(errors: &[FieldError], field: &Field, name: &str) -> Html {
    match errors.iter().find(|e| &e.field == field) {
        Some(e) => html! {
            <span class="resubmit-field-error" data-testid="resubmit-field-error" data-field={name.to_string()} role="alert">
                { e.message.clone() }
            </span>
        },
        None => html! {},
    }
}

#[function_component(ResubmitDialog)]
pub fn resubmit_dialog(props: &ResubmitDialogProps) -> Html {
    use_lang();
    let form = use_state(|| ResubmitForm::new(props.from.clone()));
    let built = form.build(props.now, &props.operators, &props.edges);
    let errors: Vec<FieldError> = built.as_ref().err().cloned().unwrap_or_default();

    let edit = |f: Setter| {
        let form = form.clone();
        move |value: String| {
            let mut next = (*form).clone();
            f(&mut next, value);
            form.set(next);
        }
    };
    let on_from = {
        let set = edit(Rc::new(|f, v| {
            if let Some(s) = Snapshot::parse(&v) {
                f.from = s;
            }
        }));
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            set(select.value());
        })
    };
    let mut choices = vec![
        (
            Snapshot::Latest,
            t("the latest retained checkpoint").to_string(),
        ),
        (
            Snapshot::NewestSavepoint,
            t("the newest savepoint").to_string(),
        ),
    ];
    for &(id, savepoint) in props.snapshots.iter().rev() {
        let s = Snapshot::of_row(id, savepoint);
        let words = s.words();
        choices.push((s, words));
    }
    if !choices.iter().any(|(s, _)| *s == form.from) {
        // Preset to a row that has since left the list: keep it selectable.
        choices.push((form.from.clone(), form.from.words()));
    }

    let operators = props.operators.iter().map(|op| {
        let id = op.id.clone();
        let set = edit(Rc::new(move |f, v| {
            f.parallelism.insert(id.clone(), v);
        }));
        let oninput = Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            set(input.value());
        });
        let field = Field::Parallelism(op.id.clone());
        let value = form
            .parallelism
            .get(&op.id)
            .cloned()
            .unwrap_or_else(|| op.parallelism.to_string());
        let bad = errors.iter().any(|e| e.field == field);
        if op.source {
            return html! {
                <label class="resubmit-field">
                    <span class="field-label">{ op.id.clone() }</span>
                    <input type="text" size="5" disabled=true data-testid={format!("resubmit-parallelism-{}", op.id)}
                        aria-label={tf("parallelism of {0}", &[&op.id])} value={op.parallelism.to_string()} />
                    { fixed_reason(format!("parallelism-{}", op.id), t(SOURCE_PARALLELISM_REASON).to_string()) }
                </label>
            };
        }
        let removed = form.removed.contains(&op.id);
        let toggle = {
            let id = op.id.clone();
            let set = edit(Rc::new(move |f, v| {
                if v == "true" {
                    f.removed.insert(id.clone());
                } else {
                    f.removed.remove(&id);
                }
            }));
            Callback::from(move |e: Event| {
                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                set(input.checked().to_string());
            })
        };
        html! {
            <label class="resubmit-field">
                <span class="field-label">{ op.id.clone() }</span>
                <input type="text" inputmode="numeric" size="5" data-testid={format!("resubmit-parallelism-{}", op.id)}
                    aria-label={tf("parallelism of {0}", &[&op.id])} aria-invalid={bad.to_string()}
                    disabled={removed} value={value} oninput={oninput} />
                if op.removable {
                    <span class="resubmit-remove">
                        <input type="checkbox" data-testid={format!("resubmit-remove-{}", op.id)}
                            checked={removed} onchange={toggle} />
                        { t("remove (bypass)") }
                    </span>
                }
                { field_error(&errors, &field, &format!("parallelism-{}", op.id)) }
            </label>
        }
    });
    let on_allow = {
        let set = edit(Rc::new(|f, v| f.allow_non_restored_state = v == "true"));
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            set(input.checked().to_string());
        })
    };

    let edges = props.edges.iter().map(|e| {
        let key = (e.from.clone(), e.to.clone());
        let set = {
            let key = key.clone();
            edit(Rc::new(move |f, v| {
                f.partitioners.insert(key.clone(), v);
            }))
        };
        let onchange = Callback::from(move |ev: Event| {
            let select: web_sys::HtmlSelectElement = ev.target_unchecked_into();
            set(select.value());
        });
        let current = form
            .partitioners
            .get(&key)
            .cloned()
            .unwrap_or_else(|| e.partitioner.clone());
        if e.keyed {
            return html! {
                <label class="resubmit-field">
                    <span class="field-label">{ format!("{} → {}", e.from, e.to) }</span>
                    <select disabled=true data-testid={format!("resubmit-partitioner-{}-{}", e.from, e.to)}>
                        <option value={e.partitioner.clone()} selected=true>{ e.partitioner.clone() }</option>
                    </select>
                    { fixed_reason(format!("partitioner-{}-{}", e.from, e.to), keyed_input_reason(&e.to)) }
                </label>
            };
        }
        html! {
            <label class="resubmit-field">
                <span class="field-label">{ format!("{} → {}", e.from, e.to) }</span>
                <select data-testid={format!("resubmit-partitioner-{}-{}", e.from, e.to)} onchange={onchange}>
                    { for PARTITIONERS.iter().map(|p| html! {
                        <option value={p.name()} selected={p.name() == current}>{ p.name() }</option>
                    }) }
                </select>
            </label>
        }
    });

    let text_field = |testid: &'static str,
                      label: &'static str,
                      placeholder: String,
                      value: String,
                      field: Field,
                      name: &'static str,
                      f: Setter| {
        let set = edit(f);
        let oninput = Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            set(input.value());
        });
        let bad = errors.iter().any(|e| e.field == field);
        html! {
            <label class="resubmit-field">
                <span class="field-label">{ t(label) }</span>
                <input type="text" inputmode="numeric" size="7" data-testid={testid} aria-invalid={bad.to_string()}
                    placeholder={placeholder} value={value} oninput={oninput} />
                { field_error(&errors, &field, name) }
            </label>
        }
    };
    let serializer = text_field(
        "resubmit-serializer",
        "serializer version",
        tf("unchanged ({0})", &[&props.serializer_version]),
        form.serializer_version.clone(),
        Field::SerializerVersion,
        "serializer-version",
        Rc::new(|f, v| f.serializer_version = v),
    );
    let max_parallelism = text_field(
        "resubmit-max-parallelism",
        "max parallelism",
        t("unchanged").to_string(),
        form.max_parallelism.clone(),
        Field::MaxParallelism,
        "max-parallelism",
        Rc::new(|f, v| f.max_parallelism = v),
    );

    let submit = {
        let (cb, event) = (props.on_command.clone(), built.clone().ok());
        Callback::from(move |_: MouseEvent| {
            if let Some(event) = &event {
                cb.emit(Command::Resubmit(event.clone()));
            }
        })
    };
    let cancel = {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Command::OpenResubmit(None)))
    };
    let from_code = form.from.code();
    html! {
        <div class="overlay" data-testid="resubmit-dialog" role="dialog" aria-modal="true" aria-labelledby="resubmit-title">
            <div class="overlay-card resubmit-card">
                <h2 id="resubmit-title">{ t("Resubmit the job") }</h2>
                <p class="muted">{ t("Stop this job and submit it again, changed, from a retained checkpoint or a savepoint — as `flink run -s <path>` does. Only what you change here differs from the running job.") }</p>
                <label class="resubmit-field">
                    <span class="field-label">{ t("from") }</span>
                    <select data-testid="resubmit-from" onchange={on_from}>
                        { for choices.iter().map(|(s, words)| {
                            let code = s.code();
                            html! { <option value={code.clone()} selected={code == from_code}>{ words.clone() }</option> }
                        }) }
                    </select>
                </label>
                <fieldset class="resubmit-group">
                    <legend>{ t("parallelism per operator") }</legend>
                    { for operators }
                    <label class="resubmit-check">
                        <input type="checkbox" data-testid="resubmit-allow-non-restored"
                            checked={form.allow_non_restored_state} onchange={on_allow} />
                        <span>{ t("allow non-restored state (--allowNonRestoredState): skip the state of removed operators; their in-flight records are lost") }</span>
                    </label>
                </fieldset>
                if !props.edges.is_empty() {
                    <fieldset class="resubmit-group">
                        <legend>{ t("partitioner per edge") }</legend>
                        { for edges }
                    </fieldset>
                }
                <fieldset class="resubmit-group">
                    <legend>{ t("configuration") }</legend>
                    { serializer }
                    { max_parallelism }
                </fieldset>
                <div class="resubmit-preview">
                    <span class="field-label">{ t("will submit") }</span>
                    <p data-testid="resubmit-preview">{ match &built {
                        Ok(event) => describe(event),
                        Err(_) => t("Nothing yet: fix the fields marked above.").to_string(),
                    } }</p>
                    if let Ok(event) = &built {
                        <pre class="resubmit-json" data-testid="resubmit-json">{ serde_json::to_string_pretty(event).unwrap_or_default() }</pre>
                    }
                </div>
                if let Some(error) = &props.error {
                    <p class="import-error" data-testid="resubmit-error" role="alert">{ error.clone() }</p>
                }
                <div class="dialog-actions">
                    <button type="button" class="header-button primary" data-testid="resubmit-submit"
                        disabled={built.is_err()} onclick={submit}>{ t("Resubmit") }</button>
                    <button type="button" class="header-button" data-testid="resubmit-cancel" onclick={cancel}>{ t("Cancel") }</button>
                </div>
            </div>
        </div>
    }
}
