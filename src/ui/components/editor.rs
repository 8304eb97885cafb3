//! The job editor: a draft of the scenario's job graph, edited in place and run as a
//! new job.
//!
//! Contract: `data-testid="editor"`, shown after "Edit job" (`edit-job` in the header)
//! with a draft copied from the running document (its `document` property). The draft
//! lives in this component; every change goes through `scenario::edit` (no graph logic
//! here) and is checked with `scenario::check::problems` after each edit. It shows:
//! - the draft's diagram (`editor-diagram`, laid out by `scenario::dag_layout`): an
//!   operator is a box labelled id, kind and ×parallelism (`editor-node-<id>`), an edge
//!   is an arrow labelled with the partitioner it runs with; boxes and edges a problem
//!   concerns are outlined red (`data-problem="true"`) with the reasons on hover;
//! - every problem as `editor-problem` (`path: message`);
//! - add an operator (`editor-add-kind`, `editor-add`), connect two
//!   (`editor-connect-from`, `editor-connect-to`, `editor-connect-partitioner`,
//!   `editor-connect`), per edge a partitioner select and remove
//!   (`editor-edge-<i>`, `editor-edge-<i>-partitioner`, `editor-edge-<i>-remove`),
//!   per operator its id, parallelism and the settings of its kind
//!   (`editor-op-<id>`, `editor-op-<id>-<field>`, `editor-op-<id>-remove`);
//! - `editor-note`: why the last edit was refused, or what it dropped;
//! - the job's own name and text (`editor-name`, `editor-description`) and *New empty
//!   job* (`editor-new-empty`), which replaces the draft with a job with nothing in it;
//! - the scenario's timeline events in time order (`editor-events`; per event
//!   `editor-event-<i>` with its sentence `editor-event-<i>-text`, its time
//!   `editor-event-<i>-at`, operator `editor-event-<i>-operator`, setting key
//!   `editor-event-<i>-key`, value `editor-event-<i>-value`, `editor-event-<i>-remove`,
//!   and the problems of that event under it), and a form to add one
//!   (`editor-event-add-kind`, `editor-event-add-at`, `editor-event-add`), savepoints and
//!   stop-with-savepoint among them;
//! - "Run this job" (`editor-apply`), disabled with the reason while there are problems,
//!   which emits `Command::RunDocument` (a new run from t = 0) of `edit::as_edited(start, draft)`:
//!   a changed job whose name and text were kept gets its own, and "Discard"
//!   (`editor-discard`), which emits `Command::CloseEditor`.

use std::rc::Rc;

use yew::prelude::*;

use crate::engine::log::{Arg, Msg};
use crate::engine::spec::Partitioner;
use crate::scenario::check::{problems, Problem};
use crate::scenario::dag_layout::{DagLayout, EdgeEnds, BOX_H, BOX_W};
use crate::scenario::document::{delivery_name, DELIVERIES, PARTITIONERS};
use crate::scenario::edit::{self, EventKind, Setting};
use crate::scenario::{Document, Kind, ScenarioError};
use crate::ui::command::Command;
use crate::ui::components::panel::Panel;
use crate::ui::i18n::{current, messages, t, t_dyn, tf, use_lang};

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// The document the draft starts from.
    pub document: Rc<Document>,
    pub on_command: Callback<Command>,
}

/// A message about the last edit, kept structured so that it reads in the viewer's
/// language of the moment (switching language re-renders it).
#[derive(Clone, PartialEq)]
enum Note {
    /// What the edit did (or dropped).
    Done(Msg),
    /// Why it was refused: the format's path and the reason.
    Refused { path: String, why: Msg },
}

impl Note {
    fn text(&self) -> String {
        match self {
            Note::Done(m) => messages::render(m, current()),
            Note::Refused { path, why } => format!("{path}: {}", messages::render(why, current())),
        }
    }
}

/// The problems as `path: message`, each message in the viewer's language.
fn reasons(problems: &[&Problem]) -> String {
    problems
        .iter()
        .map(|p| {
            format!(
                "{}: {}",
                p.path,
                messages::text_of(p.msg.as_ref(), &p.message)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn select_value(e: &Event) -> String {
    let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
    select.value()
}

fn input_value(e: &Event) -> String {
    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
    input.value()
}

fn kind_label(kind: Kind) -> &'static str {
    match kind {
        Kind::Source => t("source"),
        Kind::Map => t("map"),
        Kind::FlatMap => t("flat map"),
        Kind::KeyedAggregate => t("keyed aggregate"),
        Kind::Sink => t("sink"),
    }
}

/// The diagram of the draft, problem boxes and edges outlined.
fn diagram(doc: &Document, all: &[Problem]) -> Html {
    let layout = DagLayout::compute(doc);
    let ends = layout.edge_ends(doc);
    let edges = doc.edges.iter().enumerate().filter_map(|(k, e)| {
        let EdgeEnds { x1, y1, x2, y2 } = ends[k]?;
        let path = if x2 <= x1 {
            // A back edge: out of the right side, under both boxes, in from the left.
            let low = y1.max(y2) + BOX_H / 2.0 + 24.0;
            format!(
                "M{x1},{y1} C{},{y1} {},{low} {},{low} L{},{low} C{},{low} {},{y2} {x2},{y2}",
                x1 + 30.0,
                x1 + 30.0,
                x1 - 10.0,
                x2 + 10.0,
                x2 - 30.0,
                x2 - 30.0
            )
        } else {
            let mid = (x1 + x2) / 2.0;
            format!("M{x1},{y1} C{mid},{y1} {mid},{y2} {x2},{y2}")
        };
        // The label sits just before the arrowhead, where the edge has its own port.
        let (label_x, label_y, anchor) = if x2 <= x1 {
            ((x1 + x2) / 2.0, y1.max(y2) + BOX_H / 2.0 + 20.0, "middle")
        } else {
            (x2 - 10.0, y2 - 3.0, "end")
        };
        let mine: Vec<&Problem> = all.iter().filter(|p| p.edges.contains(&k)).collect();
        let bad = !mine.is_empty();
        let partitioner = edit::effective_partitioner(doc, k).map_or("?", Partitioner::name);
        let title = if bad {
            reasons(&mine)
        } else {
            format!("{} -> {}: {partitioner}", e.from, e.to)
        };
        Some(html! {
            <g class={classes!("ed-edge", bad.then_some("ed-bad"))} data-problem={bad.to_string()}>
                <title>{ title }</title>
                <path d={path} marker-end={if bad { "url(#ed-arrow-bad)" } else { "url(#ed-arrow)" }} />
                <text x={label_x.to_string()} y={label_y.to_string()} text-anchor={anchor}>{ partitioner }</text>
            </g>
        })
    });
    let nodes = doc.operators.iter().enumerate().map(|(i, o)| {
        let n = &layout.nodes[i];
        let mine: Vec<&Problem> = all.iter().filter(|p| p.operators.contains(&i)).collect();
        let bad = !mine.is_empty();
        let title = if bad {
            reasons(&mine)
        } else {
            format!("{} ({})", o.id, o.kind.name())
        };
        let p = o.parallelism.map_or("1".to_string(), |p| p.to_string());
        html! {
            <g class={classes!("ed-node", format!("ed-kind-{}", o.kind.name()), bad.then_some("ed-bad"))}
                data-testid={format!("editor-node-{}", o.id)} data-problem={bad.to_string()}>
                <title>{ title }</title>
                <rect x={n.x.to_string()} y={n.y.to_string()} width={BOX_W.to_string()} height={BOX_H.to_string()} rx="6" />
                <text class="ed-node-id" x={(n.x + 10.0).to_string()} y={(n.y + 21.0).to_string()}>{ o.id.clone() }</text>
                <text class="ed-node-kind" x={(n.x + 10.0).to_string()} y={(n.y + 40.0).to_string()}>
                    { format!("{} ×{p}", kind_label(o.kind)) }
                </text>
            </g>
        }
    });
    // Room on the right and below for the loops of back edges (cycles).
    let loops = if layout.back_edges.is_empty() {
        0.0
    } else {
        40.0
    };
    let (w, h) = (
        layout.width.max(200.0) + loops,
        layout.height.max(60.0) + 30.0,
    );
    html! {
        <svg class="ed-svg" data-testid="editor-diagram" viewBox={format!("0 0 {w} {h}")}
            style={format!("max-width: {w}px")} role="img" aria-label={t("Draft job graph")}>
            <defs>
                <marker id="ed-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M0,0 L10,5 L0,10 z" class="ed-arrowhead" />
                </marker>
                <marker id="ed-arrow-bad" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                    <path d="M0,0 L10,5 L0,10 z" class="ed-arrowhead-bad" />
                </marker>
            </defs>
            { for edges }
            { for nodes }
        </svg>
    }
}

/// The draft and the note about its last edit. Edits are reducer actions, so two edits
/// fired before a re-render both apply, each to the latest draft.
#[derive(Clone, PartialEq)]
struct DraftState {
    doc: Document,
    note: Option<Note>,
}

type EditFn = dyn Fn(&mut Document) -> Result<Option<Msg>, ScenarioError>;

/// One edit of the draft: kept with its message on success, refused (draft unchanged,
/// reason shown) on error.
struct EditAction(Rc<EditFn>);

impl Reducible for DraftState {
    type Action = EditAction;
    fn reduce(self: Rc<Self>, action: EditAction) -> Rc<Self> {
        let mut doc = self.doc.clone();
        Rc::new(match (action.0)(&mut doc) {
            Ok(message) => DraftState {
                doc,
                note: message.map(Note::Done),
            },
            Err(e) => DraftState {
                doc: self.doc.clone(),
                note: Some(Note::Refused {
                    why: e.structured(),
                    path: e.path,
                }),
            },
        })
    }
}

type Draft = UseReducerHandle<DraftState>;

/// "n recorded event(s) dropped" after a removal, if any.
fn dropped(n: usize, what: Arg) -> Option<Msg> {
    (n > 0).then(|| {
        Msg::new(
            "Removed {0} and {1} recorded event(s) that named it.",
            vec![what, Arg::Text(n.to_string())],
        )
    })
}

/// A callback running `edit` with the value of the changed field.
fn on_change(
    draft: &Draft,
    read: fn(&Event) -> String,
    edit: impl Fn(&mut Document, &str) -> Result<Option<Msg>, ScenarioError> + 'static,
) -> Callback<Event> {
    let draft = draft.clone();
    let edit = Rc::new(edit);
    Callback::from(move |e: Event| {
        let value = read(&e);
        let edit = edit.clone();
        draft.dispatch(EditAction(Rc::new(move |d| edit(d, &value))));
    })
}

/// A button's callback running `edit`.
fn on_click(
    draft: &Draft,
    edit: impl Fn(&mut Document) -> Result<Option<Msg>, ScenarioError> + 'static,
) -> Callback<MouseEvent> {
    let draft = draft.clone();
    let edit: Rc<EditFn> = Rc::new(edit);
    Callback::from(move |_: MouseEvent| draft.dispatch(EditAction(edit.clone())))
}

/// One operator's fields: id, parallelism and the settings of its kind.
fn operator_row(draft: &Draft, i: usize, bad: bool) -> Html {
    let o = &draft.doc.operators[i];
    let id = o.id.clone();
    let rename = {
        let id = id.clone();
        on_change(draft, input_value, move |d, new| {
            edit::rename_operator(d, &id, new.trim()).map(|_| None)
        })
    };
    let remove = {
        let id = id.clone();
        on_click(draft, move |d| {
            edit::remove_operator(d, &id).map(|n| dropped(n, Arg::Text(format!("'{id}'"))))
        })
    };
    let fields = Setting::ALL
        .into_iter()
        .filter(|s| s.applies_to(o.kind))
        .map(|setting| {
            let current = edit::setting_text(o, setting);
            let testid = format!("editor-op-{id}-{}", setting.name());
            let onchange = {
                let id = id.clone();
                let read = match setting {
                    Setting::Legacy | Setting::Delivery => select_value,
                    _ => input_value,
                };
                on_change(draft, read, move |d, v| {
                    edit::set_setting(d, &id, setting, v).map(|_| None)
                })
            };
            let default = setting.default_text(o.kind);
            let control = match setting {
                Setting::Legacy | Setting::Delivery => {
                    let options: Vec<&str> = if setting == Setting::Legacy {
                        vec!["true", "false"]
                    } else {
                        DELIVERIES.into_iter().map(delivery_name).collect()
                    };
                    html! {
                        <select data-testid={testid} {onchange}>
                            <option value="" selected={current.is_empty()}>{ tf("default ({0})", &[&default]) }</option>
                            { for options.into_iter().map(|v| html! {
                                <option value={v} selected={current == v}>{ v }</option>
                            }) }
                        </select>
                    }
                }
                _ => html! {
                    <input type="text" data-testid={testid} value={current} placeholder={default}
                        spellcheck="false" {onchange} />
                },
            };
            html! {
                <label class="ed-field">
                    <span class="ed-field-name">{ setting.name() }</span>
                    { control }
                </label>
            }
        });
    html! {
        <div class={classes!("ed-op", bad.then_some("ed-op-bad"))} data-testid={format!("editor-op-{id}")}>
            <div class="ed-op-head">
                <input type="text" class="ed-op-id" aria-label={t("Operator id")} value={id.clone()}
                    data-testid={format!("editor-op-{id}-id")} spellcheck="false" onchange={rename} />
                <span class="ed-op-kind">{ kind_label(o.kind) }</span>
                <button type="button" class="control ed-remove" data-testid={format!("editor-op-{id}-remove")}
                    title={t("Remove this operator and its edges")} onclick={remove}>{ t("Remove") }</button>
            </div>
            <div class="ed-fields">{ for fields }</div>
        </div>
    }
}

/// Reads an input's value, puts the running `shown` value back (a refused edit then
/// leaves the field showing what runs; a taken one re-renders) and runs `edit` with it.
fn on_field(
    draft: &Draft,
    shown: String,
    edit: impl Fn(&mut Document, &str) -> Result<Option<Msg>, ScenarioError> + 'static,
) -> Callback<Event> {
    let draft = draft.clone();
    let edit = Rc::new(edit);
    Callback::from(move |e: Event| {
        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
        let value = input.value();
        input.set_value(&shown);
        let edit = edit.clone();
        draft.dispatch(EditAction(Rc::new(move |d| edit(d, &value))));
    })
}

/// The timeline events of the draft, each editable, and the form adding one.
fn events_section(
    draft: &Draft,
    all: &[Problem],
    add_kind: &UseStateHandle<EventKind>,
    add_at: &UseStateHandle<String>,
) -> Html {
    let doc = &draft.doc;
    let rows = doc.events.iter().enumerate().map(|(i, e)| {
        let kind = edit::event_kind(&e.action);
        let prefix = format!("events[{i}]");
        let mine: Vec<&Problem> = all
            .iter()
            .filter(|p| p.path == prefix || p.path.starts_with(&format!("{prefix}.")))
            .collect();
        let at = on_field(draft, e.at.clone(), move |d, v| {
            edit::set_event_time(d, i, v).map(|_| None)
        });
        let operator = match (&e.action, kind.and_then(EventKind::targets)) {
            (crate::scenario::document::ActionDoc::SetCost { operator, .. }
            | crate::scenario::document::ActionDoc::SetRate { operator, .. }
            | crate::scenario::document::ActionDoc::Fail { operator, .. }, Some(sources_only)) => {
                let set = on_change(draft, select_value, move |d, v| {
                    edit::set_event_operator(d, i, v).map(|_| None)
                });
                let known = doc.operators.iter().any(|o| &o.id == operator);
                html! {
                    <select data-testid={format!("editor-event-{i}-operator")} aria-label={t("Operator")} onchange={set}>
                        if !known {
                            <option value="" selected=true>{ tf("{0} (no such operator)", &[&operator]) }</option>
                        }
                        { for doc.operators.iter().filter(|o| !sources_only || o.kind == Kind::Source).map(|o| html! {
                            <option value={o.id.clone()} selected={&o.id == operator}>{ o.id.clone() }</option>
                        }) }
                    </select>
                }
            }
            _ => Html::default(),
        };
        let key = match &e.action {
            crate::scenario::document::ActionDoc::SetConfig { key, .. } => {
                let set = on_field(draft, key.clone(), move |d, v| edit::set_event_key(d, i, v).map(|_| None));
                html! {
                    <input type="text" class="ed-event-key" data-testid={format!("editor-event-{i}-key")}
                        aria-label={t("Flink setting")} value={key.clone()} spellcheck="false" onchange={set} />
                }
            }
            _ => Html::default(),
        };
        let value_text = edit::event_value_text(&e.action);
        let value = match kind {
            Some(EventKind::SetCost | EventKind::SetRate | EventKind::Fail | EventKind::SetConfig) => {
                let label = match kind {
                    Some(EventKind::SetCost) => t("Cost per record"),
                    Some(EventKind::SetRate) => t("Records per second per subtask"),
                    Some(EventKind::Fail) => t("Subtask index"),
                    _ => t("Value"),
                };
                let set = on_field(draft, value_text.clone(), move |d, v| edit::set_event_value(d, i, v).map(|_| None));
                html! {
                    <input type="text" class="ed-event-value" data-testid={format!("editor-event-{i}-value")}
                        aria-label={label} title={label} value={value_text} spellcheck="false" onchange={set} />
                }
            }
            _ => Html::default(),
        };
        let remove = {
            let what = edit::event_message(e);
            on_click(draft, move |d| {
                edit::remove_event(d, i)
                    .map(|_| Some(Msg::new("Removed the event: {0}.", vec![Arg::Msg(Box::new(what.clone()))])))
            })
        };
        html! {
            <li class={classes!("ed-event", (!mine.is_empty()).then_some("ed-op-bad"))} data-testid={format!("editor-event-{i}")}>
                <span class="ed-event-text" data-testid={format!("editor-event-{i}-text")}>{ messages::render(&edit::event_message(e), current()) }</span>
                <span class="ed-event-fields">
                    <input type="text" class="ed-event-at" data-testid={format!("editor-event-{i}-at")} aria-label={t("At (virtual time)")}
                        title={t("When it happens, in virtual time (20s, 1500ms)")} value={e.at.clone()} spellcheck="false" onchange={at} />
                    { operator }
                    { key }
                    { value }
                    <button type="button" class="control ed-remove" data-testid={format!("editor-event-{i}-remove")} onclick={remove}>{ t("Remove") }</button>
                </span>
                { for mine.iter().map(|p| html! { <span class="ed-event-problem" data-testid="editor-event-problem">{ messages::text_of(p.msg.as_ref(), &p.message) }</span> }) }
            </li>
        }
    });
    let on_kind = {
        let add_kind = add_kind.clone();
        Callback::from(move |e: Event| {
            if let Some(k) = EventKind::parse(&select_value(&e)) {
                add_kind.set(k);
            }
        })
    };
    let on_at = {
        let add_at = add_at.clone();
        Callback::from(move |e: Event| add_at.set(input_value(&e)))
    };
    let add = {
        let (kind, at) = (**add_kind, (**add_at).clone());
        on_click(draft, move |d| {
            edit::add_event(d, kind, &at).map(|i| {
                Some(Msg::new(
                    "Added: {0}. Change it in the list.",
                    vec![Arg::Msg(Box::new(edit::event_message(&d.events[i])))],
                ))
            })
        })
    };
    html! {
        <details class="ed-section" open=true data-testid="editor-events">
            <summary>{ tf("Timeline events ({0})", &[&doc.events.len()]) }</summary>
            if doc.events.is_empty() {
                <p class="muted-small">{ t("No timed events: the job runs as it is from start to end.") }</p>
            }
            <ul class="ed-events">{ for rows }</ul>
            <div class="ed-form">
                <span class="field-label">{ t("Add event") }</span>
                <select data-testid="editor-event-add-kind" aria-label={t("Event")} onchange={on_kind}>
                    { for EventKind::ALL.into_iter().map(|k| html! {
                        <option value={k.name()} selected={**add_kind == k}>{ t_dyn(k.label()) }</option>
                    }) }
                </select>
                <label class="ed-field">
                    <span class="ed-field-name">{ t("at") }</span>
                    <input type="text" class="ed-event-at" data-testid="editor-event-add-at" value={(**add_at).clone()} spellcheck="false" onchange={on_at} />
                </label>
                <button type="button" class="control" data-testid="editor-event-add" onclick={add}>{ t("Add") }</button>
            </div>
        </details>
    }
}

fn partitioner_options(current: Option<Partitioner>, default_label: &str) -> Html {
    html! {
        <>
            <option value="" selected={current.is_none()}>{ default_label.to_string() }</option>
            { for PARTITIONERS.into_iter().map(|p| html! {
                <option value={p.name()} selected={current == Some(p)}>{ p.name() }</option>
            }) }
        </>
    }
}

/// The editor panel.
#[function_component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    use_lang();
    let state = {
        let start = props.document.clone();
        use_reducer(move || DraftState {
            doc: (*start).clone(),
            note: None,
        })
    };
    let draft = &state.doc;
    let add_kind = use_state(|| Kind::Map);
    let event_kind = use_state(|| EventKind::SetCost);
    let event_at = use_state(|| "10s".to_string());
    let connect_from = use_state(String::new);
    let connect_to = use_state(String::new);
    let connect_partitioner = use_state(String::new);
    let all = problems(draft);

    let on_add_kind = {
        let add_kind = add_kind.clone();
        Callback::from(move |e: Event| {
            if let Some(k) = Kind::parse(&select_value(&e)) {
                add_kind.set(k);
            }
        })
    };
    let add = {
        let kind = *add_kind;
        on_click(&state, move |d| {
            let id = edit::add_operator(d, kind);
            Ok(Some(Msg::new(
                "Added '{0}': connect it below.",
                vec![Arg::Text(id)],
            )))
        })
    };
    let pick = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: Event| state.set(select_value(&e)))
    };
    let ids: Vec<String> = draft.operators.iter().map(|o| o.id.clone()).collect();
    // An empty choice means the first operator that can take that end.
    let from = if ids.contains(&connect_from) {
        (*connect_from).clone()
    } else {
        draft
            .operators
            .iter()
            .find(|o| o.kind != Kind::Sink)
            .map(|o| o.id.clone())
            .unwrap_or_default()
    };
    let to = if ids.contains(&connect_to) {
        (*connect_to).clone()
    } else {
        draft
            .operators
            .iter()
            .rev()
            .find(|o| o.kind != Kind::Source)
            .map(|o| o.id.clone())
            .unwrap_or_default()
    };
    let connect = {
        let (from, to) = (from.clone(), to.clone());
        let p = edit::partitioner_named(&connect_partitioner);
        on_click(&state, move |d| {
            edit::connect(d, &from, &to, p).map(|_| None)
        })
    };
    let id_options = |selected: &str, ok: fn(Kind) -> bool| {
        draft
            .operators
            .iter()
            .filter(|o| ok(o.kind))
            .map(|o| html! { <option value={o.id.clone()} selected={o.id == selected}>{ o.id.clone() }</option> })
            .collect::<Html>()
    };

    let edges = draft.edges.iter().enumerate().map(|(k, e)| {
        let bad = all.iter().any(|p| p.edges.contains(&k));
        let set = on_change(&state, select_value, move |d, v| {
            edit::set_partitioner(d, k, edit::partitioner_named(v)).map(|_| None)
        });
        let remove = {
            let name = Msg::new("edge {0} -> {1}", vec![Arg::Text(e.from.clone()), Arg::Text(e.to.clone())]);
            on_click(&state, move |d| {
                edit::disconnect(d, k).map(|n| dropped(n, Arg::Msg(Box::new(name.clone()))))
            })
        };
        let default = match edit::effective_partitioner(draft, k) {
            Some(p) if e.partitioner.is_none() => tf("default ({0})", &[&p.name()]),
            _ => t("default").to_string(),
        };
        html! {
            <li class={classes!("ed-edge-row", bad.then_some("ed-op-bad"))} data-testid={format!("editor-edge-{k}")}>
                <span class="mono">{ format!("{} → {}", e.from, e.to) }</span>
                <select data-testid={format!("editor-edge-{k}-partitioner")} aria-label={t("Partitioner")} onchange={set}>
                    { partitioner_options(e.partitioner, &default) }
                </select>
                <button type="button" class="control ed-remove" data-testid={format!("editor-edge-{k}-remove")} onclick={remove}>{ t("Remove") }</button>
            </li>
        }
    });
    let operators = (0..draft.operators.len()).map(|i| {
        let bad = all.iter().any(|p| p.operators.contains(&i));
        operator_row(&state, i, bad)
    });

    let apply = {
        let cb = props.on_command.clone();
        let doc = edit::as_edited(&props.document, draft.clone());
        Callback::from(move |_: MouseEvent| cb.emit(Command::RunDocument(Box::new(doc.clone()))))
    };
    let new_empty = on_click(&state, |d| {
        *d = edit::new_empty_job(d);
        Ok(Some(Msg::new(
            "A new empty job: add a source, an operator or two and a sink, and connect them.",
            vec![],
        )))
    });
    let set_name = on_field(&state, draft.name.clone(), |d, v| {
        edit::set_name(d, v).map(|_| None)
    });
    let set_text = {
        let draft = state.clone();
        Callback::from(move |e: Event| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            let value = area.value();
            draft.dispatch(EditAction(Rc::new(move |d| {
                edit::set_description(d, &value).map(|_| None)
            })));
        })
    };
    let discard = {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Command::CloseEditor))
    };
    let blocked = match all.len() {
        0 => None,
        1 => Some(t("Fix the problem above to run this job.").to_string()),
        n => Some(tf("Fix the {0} problems above to run this job.", &[&n])),
    };
    html! {
        <Panel id="editor" title={t("Edit job")} testid="editor" class="editor-panel"
            description={t("Change the job graph and the timed events of this scenario. Running it starts a new run from t = 0 with the same settings and seed; a changed job gets its own name and text, and the link then carries it.")}>
            <div class="ed-layout">
                <div class="ed-diagram">{ diagram(draft, &all) }</div>
                <div class="ed-side">
                    if all.is_empty() {
                        <p class="ed-ok" data-testid="editor-ok">{ t("No problems: this job can run.") }</p>
                    } else {
                        <ul class="ed-problems" aria-label={t("Problems")}>
                            { for all.iter().map(|p| html! { <li data-testid="editor-problem">{ format!("{}: {}", p.path, messages::text_of(p.msg.as_ref(), &p.message)) }</li> }) }
                        </ul>
                    }
                    <div class="ed-actions">
                        <button type="button" class="control control-play" data-testid="editor-apply"
                            disabled={blocked.is_some()} title={blocked.clone().unwrap_or_else(|| t("Restart with this job from t = 0").into())}
                            onclick={apply}>{ t("Run this job") }</button>
                        <button type="button" class="control" data-testid="editor-discard" onclick={discard}>{ t("Discard") }</button>
                        if let Some(reason) = &blocked {
                            <span class="ed-blocked">{ reason.clone() }</span>
                        }
                    </div>
                    if let Some(note) = &state.note {
                        <p class={classes!("ed-note", matches!(note, Note::Refused { .. }).then_some("ed-note-error"))} data-testid="editor-note"
                            role={if matches!(note, Note::Refused { .. }) { "alert" } else { "status" }}>{ note.text() }</p>
                    }
                    <div class="ed-meta">
                        <label class="ed-field ed-name">
                            <span class="ed-field-name">{ t("name") }</span>
                            <input type="text" data-testid="editor-name" maxlength={edit::MAX_NAME.to_string()}
                                value={draft.name.clone()} spellcheck="false" onchange={set_name} />
                        </label>
                        <label class="ed-field ed-description">
                            <span class="ed-field-name">{ t("what it shows") }</span>
                            <textarea data-testid="editor-description" rows="2" maxlength="2000"
                                value={draft.description.clone().unwrap_or_default()} onchange={set_text} />
                        </label>
                        <button type="button" class="control" data-testid="editor-new-empty" onclick={new_empty}
                            title={t("Start from a job with no operators, edges, events or settings")}>{ t("New empty job") }</button>
                    </div>
                    <div class="ed-form">
                        <span class="field-label">{ t("Add operator") }</span>
                        <select data-testid="editor-add-kind" aria-label={t("Kind")} onchange={on_add_kind}>
                            { for Kind::ALL.into_iter().map(|k| html! {
                                <option value={k.name()} selected={*add_kind == k}>{ kind_label(k) }</option>
                            }) }
                        </select>
                        <button type="button" class="control" data-testid="editor-add" onclick={add}>{ t("Add") }</button>
                    </div>
                    <div class="ed-form">
                        <span class="field-label">{ t("Connect") }</span>
                        <select data-testid="editor-connect-from" aria-label={t("From")} onchange={pick(&connect_from)}>
                            { id_options(&from, |k| k != Kind::Sink) }
                        </select>
                        <span>{ "→" }</span>
                        <select data-testid="editor-connect-to" aria-label={t("To")} onchange={pick(&connect_to)}>
                            { id_options(&to, |k| k != Kind::Source) }
                        </select>
                        <select data-testid="editor-connect-partitioner" aria-label={t("Partitioner")} onchange={pick(&connect_partitioner)}>
                            { partitioner_options(edit::partitioner_named(&connect_partitioner), t("default")) }
                        </select>
                        <button type="button" class="control" data-testid="editor-connect" onclick={connect}>{ t("Connect") }</button>
                    </div>
                    <details class="ed-section" open=true>
                        <summary>{ tf("Edges ({0})", &[&draft.edges.len()]) }</summary>
                        <ul class="ed-edges">{ for edges }</ul>
                    </details>
                    <details class="ed-section" open=true>
                        <summary>{ tf("Operators ({0})", &[&draft.operators.len()]) }</summary>
                        <div class="ed-ops">{ for operators }</div>
                    </details>
                    { events_section(&state, &all, &event_kind, &event_at) }
                </div>
            </div>
        </Panel>
    }
}
