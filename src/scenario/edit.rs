//! Edits of a scenario document, as the job editor makes them: pure functions on a
//! [`Document`], no UI.
//!
//! Contract (one rule for every edit): an edit that could never be meaningful is
//! rejected with a [`ScenarioError`] naming the field and the document is left as it
//! was — an unknown operator or edge, a self-loop, a second edge between the same pair,
//! an edge into a source or out of a sink, a new id that is empty or taken, a value
//! that does not parse (`"fast"` as a rate, `"5 parsecs"` as a cost), a setting of
//! another kind (the error carries its message's structured `Msg`, so the editor shows
//! the refusal in the viewer's language). Anything a later edit can fix — a cycle, a `forward` edge between
//! different parallelisms, a dangling operator, a number out of range — is stored, and
//! `check::problems` names it inline. Removing an operator removes its edges; removing
//! an operator or an edge drops the recorded events that name it and returns how many.
//! Renaming updates every edge and event that names the operator.
//!
//! Timeline events (the scenario's `events`, scripted or recorded) are edited here too:
//! [`add_event`], [`set_event_time`], [`set_event_operator`], [`set_event_value`],
//! [`set_event_key`], [`remove_event`]; the list stays in time order (stable, so events
//! at the same instant keep their order). [`event_sentence`] says what an event does in
//! plain words. [`new_empty_job`] is a job with nothing in it, and [`as_edited`] gives a
//! draft whose job changed its own name and text (a preset's name and "what to watch"
//! describe the preset's job, not the edited one). Savepoints and stop-with-savepoint (with
//! and without drain) are events like the others; a resubmission is built in the UI's
//! Resubmit dialog and only removed here.

use super::document::{
    delivery_name, ActionDoc, ConfigValue, Document, EdgeDoc, EventDoc, Kind, OperatorDoc,
    SizeValue, DELIVERIES, PARTITIONERS,
};
use super::error::ScenarioError;
use crate::engine::log::{list_of, text, Arg, Msg};
use crate::engine::spec::Partitioner;
use crate::engine::time::{parse_duration, parse_duration_msg, parse_size_msg};

type Res<T> = Result<T, ScenarioError>;

/// A refused edit: its message structured (the editor shows it in the viewer's language).
fn err(path: impl Into<String>, code: &'static str, args: Vec<Arg>) -> ScenarioError {
    ScenarioError::of(path, Msg::new(code, args))
}

/// The stem of a new operator's id.
fn stem(kind: Kind) -> &'static str {
    match kind {
        Kind::Source => "source",
        Kind::Map => "map",
        Kind::FlatMap => "flatmap",
        Kind::KeyedAggregate => "aggregate",
        Kind::Sink => "sink",
    }
}

/// Adds an operator of `kind` with the kind's defaults and a fresh id (`map`, `map2`, …);
/// returns the id.
pub fn add_operator(doc: &mut Document, kind: Kind) -> String {
    let taken = |id: &str| doc.operators.iter().any(|o| o.id == id);
    let id = std::iter::once(stem(kind).to_string())
        .chain((2..).map(|n| format!("{}{n}", stem(kind))))
        .find(|id| !taken(id))
        .unwrap_or_else(|| format!("{}{}", stem(kind), doc.operators.len() + 1));
    doc.operators.push(OperatorDoc::new(id.clone(), kind));
    id
}

fn operator_at(doc: &Document, id: &str) -> Res<usize> {
    doc.operators
        .iter()
        .position(|o| o.id == id)
        .ok_or_else(|| err("operators", "no operator '{0}'", vec![text(id)]))
}

fn edge_at(doc: &Document, index: usize) -> Res<()> {
    if index < doc.edges.len() {
        Ok(())
    } else {
        Err(err(
            format!("edges[{index}]"),
            "no such edge (the job has {0})",
            vec![text(doc.edges.len())],
        ))
    }
}

/// Whether a recorded action names operator `id` (as its target or an edge end).
fn names_operator(action: &ActionDoc, id: &str) -> bool {
    match action {
        ActionDoc::SetCost { operator, .. }
        | ActionDoc::SetRate { operator, .. }
        | ActionDoc::Fail { operator, .. } => operator == id,
        ActionDoc::SetPartitioner { from, to, .. } => from == id || to == id,
        ActionDoc::Resubmit(r) => {
            r.parallelism.contains_key(id)
                || r.partitioners.iter().any(|c| c.from == id || c.to == id)
        }
        ActionDoc::TriggerCheckpoint
        | ActionDoc::Savepoint
        | ActionDoc::StopWithSavepoint { .. }
        | ActionDoc::SetConfig { .. } => false,
    }
}

/// Removes operator `id`, its edges and the events that name it; returns how many
/// events were dropped.
pub fn remove_operator(doc: &mut Document, id: &str) -> Res<usize> {
    let i = operator_at(doc, id)?;
    doc.operators.remove(i);
    doc.edges.retain(|e| e.from != id && e.to != id);
    let before = doc.events.len();
    doc.events.retain(|e| !names_operator(&e.action, id));
    Ok(before - doc.events.len())
}

/// Renames operator `old` to `new` in the operator, its edges and its events.
pub fn rename_operator(doc: &mut Document, old: &str, new: &str) -> Res<()> {
    let i = operator_at(doc, old)?;
    let path = format!("operators[{i}].id");
    if new.is_empty() || new.len() > 64 {
        return Err(err(path, "must be 1 to 64 characters", vec![]));
    }
    if new != old && doc.operators.iter().any(|o| o.id == new) {
        return Err(err(
            path,
            "'{0}' is already the id of another operator",
            vec![text(new)],
        ));
    }
    let swap = |s: &mut String| {
        if s == old {
            *s = new.to_string();
        }
    };
    doc.operators[i].id = new.to_string();
    for e in &mut doc.edges {
        swap(&mut e.from);
        swap(&mut e.to);
    }
    for e in &mut doc.events {
        match &mut e.action {
            ActionDoc::SetCost { operator, .. }
            | ActionDoc::SetRate { operator, .. }
            | ActionDoc::Fail { operator, .. } => swap(operator),
            ActionDoc::SetPartitioner { from, to, .. } => {
                swap(from);
                swap(to);
            }
            ActionDoc::Resubmit(r) => {
                r.parallelism = std::mem::take(&mut r.parallelism)
                    .into_iter()
                    .map(|(mut k, v)| {
                        swap(&mut k);
                        (k, v)
                    })
                    .collect();
                for c in &mut r.partitioners {
                    swap(&mut c.from);
                    swap(&mut c.to);
                }
            }
            ActionDoc::TriggerCheckpoint
            | ActionDoc::Savepoint
            | ActionDoc::StopWithSavepoint { .. }
            | ActionDoc::SetConfig { .. } => {}
        }
    }
    Ok(())
}

/// Adds the edge `from -> to` (`None`: Flink's default partitioner); returns its index.
pub fn connect(
    doc: &mut Document,
    from: &str,
    to: &str,
    partitioner: Option<Partitioner>,
) -> Res<usize> {
    let f = operator_at(doc, from)?;
    let t = operator_at(doc, to)?;
    let path = format!("edges[{}]", doc.edges.len());
    let reject = |code, args| Err(err(path.clone(), code, args));
    if f == t {
        return reject("'{0}' cannot feed itself", vec![text(to)]);
    }
    if doc.edges.iter().any(|e| e.from == from && e.to == to) {
        return reject(
            "there is already an edge {0} -> {1}",
            vec![text(from), text(to)],
        );
    }
    if doc.operators[t].kind == Kind::Source {
        return reject("'{0}' is a source and takes no input", vec![text(to)]);
    }
    if doc.operators[f].kind == Kind::Sink {
        return reject("'{0}' is a sink and has no output", vec![text(from)]);
    }
    doc.edges.push(EdgeDoc {
        from: from.to_string(),
        to: to.to_string(),
        partitioner,
    });
    Ok(doc.edges.len() - 1)
}

/// Removes edge `index` and the `set_partitioner` events that name it; returns how many
/// events were dropped.
pub fn disconnect(doc: &mut Document, index: usize) -> Res<usize> {
    edge_at(doc, index)?;
    let edge = doc.edges.remove(index);
    let before = doc.events.len();
    doc.events.retain(|e| {
        !matches!(&e.action, ActionDoc::SetPartitioner { from, to, .. }
            if *from == edge.from && *to == edge.to)
    });
    Ok(before - doc.events.len())
}

/// Sets edge `index`'s partitioner (`None`: Flink's default).
pub fn set_partitioner(doc: &mut Document, index: usize, p: Option<Partitioner>) -> Res<()> {
    edge_at(doc, index)?;
    doc.edges[index].partitioner = p;
    Ok(())
}

/// The partitioner called `name` (`forward`, `rebalance`, `rescale`, `hash`, `broadcast`).
pub fn partitioner_named(name: &str) -> Option<Partitioner> {
    PARTITIONERS.into_iter().find(|p| p.name() == name)
}

/// The partitioner edge `index` runs with: its own, or Flink's default (`forward`
/// between equal parallelisms, else `rebalance`; into a keyed aggregate `hash`, its
/// `keyBy`) when omitted; `None` for no such edge.
pub fn effective_partitioner(doc: &Document, index: usize) -> Option<Partitioner> {
    let e = doc.edges.get(index)?;
    let par = |id: &str| {
        let o = doc.operators.iter().find(|o| o.id == id)?;
        Some(
            o.parallelism
                .unwrap_or(super::convert::defaults::PARALLELISM),
        )
    };
    let keyed = doc
        .operators
        .iter()
        .find(|o| o.id == e.to)
        .is_some_and(|o| o.kind == Kind::KeyedAggregate);
    Some(
        e.partitioner.unwrap_or_else(|| {
            super::convert::default_partitioner(par(&e.from), par(&e.to), keyed)
        }),
    )
}

/// The per-operator fields the editor sets, by their JSON names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Parallelism,
    Cost,
    Rate,
    Records,
    RecordSize,
    Keys,
    Skew,
    Legacy,
    Retention,
    FanOut,
    Delivery,
}

impl Setting {
    pub const ALL: [Setting; 11] = [
        Setting::Parallelism,
        Setting::Cost,
        Setting::Rate,
        Setting::Records,
        Setting::RecordSize,
        Setting::Keys,
        Setting::Skew,
        Setting::Legacy,
        Setting::Retention,
        Setting::FanOut,
        Setting::Delivery,
    ];

    /// The field's name in the document.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Parallelism => "parallelism",
            Setting::Cost => "cost",
            Setting::Rate => "rate",
            Setting::Records => "records",
            Setting::RecordSize => "record_size",
            Setting::Keys => "keys",
            Setting::Skew => "skew",
            Setting::Legacy => "legacy",
            Setting::Retention => "retention",
            Setting::FanOut => "fan_out",
            Setting::Delivery => "delivery",
        }
    }

    pub fn applies_to(self, kind: Kind) -> bool {
        match self {
            Setting::Parallelism | Setting::Cost => true,
            Setting::Rate
            | Setting::Records
            | Setting::RecordSize
            | Setting::Keys
            | Setting::Skew
            | Setting::Legacy
            | Setting::Retention => kind == Kind::Source,
            Setting::FanOut => kind == Kind::FlatMap,
            Setting::Delivery => kind == Kind::Sink,
        }
    }

    /// What an empty field means (the default from the table in `document`).
    pub fn default_text(self, kind: Kind) -> &'static str {
        match self {
            Setting::Parallelism => "1",
            Setting::Cost => match kind {
                Kind::Source => "0us",
                Kind::KeyedAggregate => "200us",
                _ => "100us",
            },
            Setting::Rate => "1000",
            Setting::Records => "unbounded",
            Setting::RecordSize => "256",
            Setting::Keys => "64",
            Setting::Skew => "0",
            Setting::Legacy => "false",
            Setting::Retention => "infinite",
            Setting::FanOut => "2",
            Setting::Delivery => "two_phase_commit",
        }
    }
}

/// The text of `setting` on `op` as the editor shows it; empty when omitted (default).
pub fn setting_text(op: &OperatorDoc, setting: Setting) -> String {
    fn num<T: ToString>(v: &Option<T>) -> String {
        v.as_ref().map(T::to_string).unwrap_or_default()
    }
    match setting {
        Setting::Parallelism => num(&op.parallelism),
        Setting::Cost => op.cost.clone().unwrap_or_default(),
        Setting::Rate => num(&op.rate),
        Setting::Records => num(&op.records),
        Setting::RecordSize => match &op.record_size {
            Some(SizeValue::Bytes(b)) => b.to_string(),
            Some(SizeValue::Text(t)) => t.clone(),
            None => String::new(),
        },
        Setting::Keys => num(&op.keys),
        Setting::Skew => num(&op.skew),
        Setting::Legacy => num(&op.legacy),
        Setting::Retention => op.retention.clone().unwrap_or_default(),
        Setting::FanOut => num(&op.fan_out),
        Setting::Delivery => op.delivery.map(delivery_name).unwrap_or_default().into(),
    }
}

/// Sets `setting` of operator `id` from the text the user typed; empty text omits the
/// field (the kind's default). Rejects text that does not parse and settings of other
/// kinds; ranges are checked by `check::problems`.
pub fn set_setting(doc: &mut Document, id: &str, setting: Setting, text: &str) -> Res<()> {
    let i = operator_at(doc, id)?;
    let kind = doc.operators[i].kind;
    let path = format!("operators[{i}].{}", setting.name());
    if !setting.applies_to(kind) {
        return Err(err(
            path,
            "'{0}' does not apply to a {1} operator",
            vec![self::text(setting.name()), self::text(kind.name())],
        ));
    }
    let text = text.trim();
    let bad = |what: Arg| {
        err(
            path.clone(),
            "'{0}' is not {1}",
            vec![self::text(text), what],
        )
    };
    let whole = |t: &str| {
        t.parse::<u64>()
            .map_err(|_| bad(Arg::Word("a whole number")))
    };
    let small = |t: &str| {
        whole(t).and_then(|v| u32::try_from(v).map_err(|_| bad(Arg::Word("a number below 2^32"))))
    };
    let real = |t: &str| match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(bad(Arg::Word("a number"))),
    };
    let duration = |t: &str| {
        parse_duration_msg(t)
            .map(|_| t.to_string())
            .map_err(|m| ScenarioError::of(path.clone(), m))
    };
    let o = &mut doc.operators[i];
    let set = !text.is_empty();
    match setting {
        Setting::Parallelism => o.parallelism = set.then(|| small(text)).transpose()?,
        Setting::Cost => o.cost = set.then(|| duration(text)).transpose()?,
        Setting::Rate => o.rate = set.then(|| real(text)).transpose()?,
        Setting::Records => o.records = set.then(|| whole(text)).transpose()?,
        Setting::RecordSize => {
            o.record_size = if !set {
                None
            } else if let Ok(b) = text.parse::<u64>() {
                Some(SizeValue::Bytes(b))
            } else {
                parse_size_msg(text).map_err(|m| ScenarioError::of(path.clone(), m))?;
                Some(SizeValue::Text(text.to_string()))
            }
        }
        Setting::Keys => o.keys = set.then(|| small(text)).transpose()?,
        Setting::Skew => o.skew = set.then(|| real(text)).transpose()?,
        Setting::Legacy => {
            o.legacy = match text {
                "" => None,
                "true" => Some(true),
                "false" => Some(false),
                _ => return Err(bad(Arg::Word("true or false"))),
            }
        }
        Setting::Retention => o.retention = set.then(|| duration(text)).transpose()?,
        Setting::FanOut => o.fan_out = set.then(|| small(text)).transpose()?,
        Setting::Delivery if !set => o.delivery = None,
        Setting::Delivery => match DELIVERIES.into_iter().find(|d| delivery_name(*d) == text) {
            Some(d) => o.delivery = Some(d),
            None => {
                let names: Vec<&str> = DELIVERIES.into_iter().map(delivery_name).collect();
                return Err(bad(Msg::new(
                    "a delivery ({0})",
                    vec![list_of(&names, ", ")],
                )
                .into()));
            }
        },
    }
    Ok(())
}

/// The kinds of timeline event the editor adds (`set_partitioner` and `resubmit` events
/// are edited only by removing them; a resubmission is built in the Resubmit dialog).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    SetCost,
    SetRate,
    Fail,
    TriggerCheckpoint,
    Savepoint,
    StopWithSavepoint,
    StopAndDrain,
    SetConfig,
}

impl EventKind {
    pub const ALL: [EventKind; 8] = [
        EventKind::SetCost,
        EventKind::SetRate,
        EventKind::Fail,
        EventKind::TriggerCheckpoint,
        EventKind::Savepoint,
        EventKind::StopWithSavepoint,
        EventKind::StopAndDrain,
        EventKind::SetConfig,
    ];

    /// The action's JSON name (`set_cost`, …).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::SetCost => "set_cost",
            EventKind::SetRate => "set_rate",
            EventKind::Fail => "fail",
            EventKind::TriggerCheckpoint => "trigger_checkpoint",
            EventKind::Savepoint => "savepoint",
            EventKind::StopWithSavepoint => "stop_with_savepoint",
            EventKind::StopAndDrain => "stop_with_savepoint_drain",
            EventKind::SetConfig => "set_config",
        }
    }

    /// What the editor calls it.
    pub fn label(self) -> &'static str {
        match self {
            EventKind::SetCost => "change an operator's cost",
            EventKind::SetRate => "change a source's rate",
            EventKind::Fail => "fail a subtask",
            EventKind::TriggerCheckpoint => "trigger a checkpoint",
            EventKind::Savepoint => "take a savepoint",
            EventKind::StopWithSavepoint => "stop the job with a savepoint",
            EventKind::StopAndDrain => "stop the job with a savepoint and drain",
            EventKind::SetConfig => "change a setting",
        }
    }

    pub fn parse(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the event names an operator, and whether that must be a source.
    pub fn targets(self) -> Option<bool> {
        match self {
            EventKind::SetCost | EventKind::Fail => Some(false),
            EventKind::SetRate => Some(true),
            EventKind::TriggerCheckpoint
            | EventKind::Savepoint
            | EventKind::StopWithSavepoint
            | EventKind::StopAndDrain
            | EventKind::SetConfig => None,
        }
    }
}

/// The kind of an event's action (`None`: a `set_partitioner`).
pub fn event_kind(action: &ActionDoc) -> Option<EventKind> {
    match action {
        ActionDoc::SetCost { .. } => Some(EventKind::SetCost),
        ActionDoc::SetRate { .. } => Some(EventKind::SetRate),
        ActionDoc::Fail { .. } => Some(EventKind::Fail),
        ActionDoc::TriggerCheckpoint => Some(EventKind::TriggerCheckpoint),
        ActionDoc::SetConfig { .. } => Some(EventKind::SetConfig),
        ActionDoc::Savepoint => Some(EventKind::Savepoint),
        ActionDoc::StopWithSavepoint { drain: false } => Some(EventKind::StopWithSavepoint),
        ActionDoc::StopWithSavepoint { drain: true } => Some(EventKind::StopAndDrain),
        ActionDoc::SetPartitioner { .. } | ActionDoc::Resubmit(_) => None,
    }
}

fn event_at(doc: &Document, index: usize) -> Res<()> {
    if index < doc.events.len() {
        Ok(())
    } else {
        Err(err(
            format!("events[{index}]"),
            "no such event (the timeline has {0})",
            vec![text(doc.events.len())],
        ))
    }
}

/// Puts the events in time order (stable); an unreadable time sorts last. Returns the
/// new index of the event that was at `index`.
fn sort_events(doc: &mut Document, index: usize) -> usize {
    let mut tagged: Vec<(u64, usize, EventDoc)> = doc
        .events
        .drain(..)
        .enumerate()
        .map(|(i, e)| (parse_duration(&e.at).unwrap_or(u64::MAX), i, e))
        .collect();
    crate::compact_sort::sort_by_key(&mut tagged, |(t, i, _)| (*t, *i));
    let new = tagged.iter().position(|(_, i, _)| *i == index).unwrap_or(0);
    doc.events = tagged.into_iter().map(|(_, _, e)| e).collect();
    new
}

/// Adds an event of `kind` at `at` with defaults the user then changes: the first
/// operator that can take it, its current cost or rate, subtask 0, a checkpoint interval
/// of 2 s. Returns its index (events stay in time order).
pub fn add_event(doc: &mut Document, kind: EventKind, at: &str) -> Res<usize> {
    let path = format!("events[{}]", doc.events.len());
    parse_duration_msg(at).map_err(|m| ScenarioError::of(format!("{path}.at"), m))?;
    let target = |sources_only: bool| {
        doc.operators
            .iter()
            .find(|o| !sources_only || o.kind == Kind::Source)
            .ok_or_else(|| {
                let code = if sources_only {
                    "the job has no source whose rate could change"
                } else {
                    "the job has no operator yet"
                };
                err(path.clone(), code, vec![])
            })
    };
    let action = match kind {
        EventKind::SetCost => {
            let o = target(false)?;
            ActionDoc::SetCost {
                operator: o.id.clone(),
                cost: o
                    .cost
                    .clone()
                    .unwrap_or_else(|| Setting::Cost.default_text(o.kind).to_string()),
            }
        }
        EventKind::SetRate => {
            let o = target(true)?;
            ActionDoc::SetRate {
                operator: o.id.clone(),
                rate: o.rate.unwrap_or(1000.0),
            }
        }
        EventKind::Fail => ActionDoc::Fail {
            operator: target(false)?.id.clone(),
            subtask: 0,
        },
        EventKind::TriggerCheckpoint => ActionDoc::TriggerCheckpoint,
        EventKind::Savepoint => ActionDoc::Savepoint,
        EventKind::StopWithSavepoint => ActionDoc::StopWithSavepoint { drain: false },
        EventKind::StopAndDrain => ActionDoc::StopWithSavepoint { drain: true },
        EventKind::SetConfig => ActionDoc::SetConfig {
            key: "execution.checkpointing.interval".into(),
            value: ConfigValue::Text("2s".into()),
        },
    };
    doc.events.push(EventDoc {
        at: at.trim().to_string(),
        action,
    });
    let last = doc.events.len() - 1;
    Ok(sort_events(doc, last))
}

/// Moves event `index` to virtual time `at` (Flink duration syntax); returns its new
/// index.
pub fn set_event_time(doc: &mut Document, index: usize, at: &str) -> Res<usize> {
    event_at(doc, index)?;
    let at = at.trim();
    parse_duration_msg(at).map_err(|m| ScenarioError::of(format!("events[{index}].at"), m))?;
    doc.events[index].at = at.to_string();
    Ok(sort_events(doc, index))
}

/// Points event `index` at operator `id` (a source for a rate change).
pub fn set_event_operator(doc: &mut Document, index: usize, id: &str) -> Res<()> {
    event_at(doc, index)?;
    let i = operator_at(doc, id)?;
    let is_source = doc.operators[i].kind == Kind::Source;
    let path = format!("events[{index}]");
    match &mut doc.events[index].action {
        ActionDoc::SetRate { operator, .. } => {
            if !is_source {
                return Err(err(
                    format!("{path}.set_rate.operator"),
                    "'{0}' is not a source: only a source has a rate",
                    vec![text(id)],
                ));
            }
            *operator = id.to_string();
        }
        ActionDoc::SetCost { operator, .. } | ActionDoc::Fail { operator, .. } => {
            *operator = id.to_string()
        }
        _ => return Err(err(path, "this event does not name an operator", vec![])),
    }
    Ok(())
}

/// Sets the value of event `index` from the text the user typed: a cost (`1ms`), a rate
/// (records per second), a subtask index, or a setting's value. Ranges are checked by
/// `check::problems`, as for an operator's fields.
pub fn set_event_value(doc: &mut Document, index: usize, text: &str) -> Res<()> {
    event_at(doc, index)?;
    let text = text.trim();
    let path = format!("events[{index}]");
    let bad = |field: &str, what: &'static str| {
        err(
            format!("{path}.{field}"),
            "'{0}' is not {1}",
            vec![self::text(text), Arg::Word(what)],
        )
    };
    match &mut doc.events[index].action {
        ActionDoc::SetCost { cost, .. } => {
            parse_duration_msg(text)
                .map_err(|m| ScenarioError::of(format!("{path}.set_cost.cost"), m))?;
            *cost = text.to_string();
        }
        ActionDoc::SetRate { rate, .. } => match text.parse::<f64>() {
            Ok(v) if v.is_finite() => *rate = v,
            _ => return Err(bad("set_rate.rate", "a number of records per second")),
        },
        ActionDoc::Fail { subtask, .. } => {
            *subtask = text
                .parse()
                .map_err(|_| bad("fail.subtask", "a subtask index (0, 1, …)"))?
        }
        ActionDoc::SetConfig { value, .. } => {
            *value = match text {
                "true" => ConfigValue::Bool(true),
                "false" => ConfigValue::Bool(false),
                _ => match text.parse::<u64>() {
                    Ok(n) => ConfigValue::Number(n.into()),
                    Err(_) => ConfigValue::Text(text.to_string()),
                },
            }
        }
        ActionDoc::TriggerCheckpoint
        | ActionDoc::Savepoint
        | ActionDoc::StopWithSavepoint { .. }
        | ActionDoc::Resubmit(_)
        | ActionDoc::SetPartitioner { .. } => {
            return Err(err(path, "this event has no value to set", vec![]))
        }
    }
    Ok(())
}

/// Sets the Flink key a `set_config` event changes; an unknown key is refused.
pub fn set_event_key(doc: &mut Document, index: usize, key: &str) -> Res<()> {
    event_at(doc, index)?;
    let key = key.trim();
    let path = format!("events[{index}].set_config.key");
    if crate::engine::config::canonical_key(key).is_none() {
        return Err(err(
            path,
            "'{0}' is not a setting the playground knows",
            vec![text(key)],
        ));
    }
    match &mut doc.events[index].action {
        ActionDoc::SetConfig { key: k, .. } => *k = key.to_string(),
        _ => return Err(err(path, "this event changes no setting", vec![])),
    }
    Ok(())
}

/// Removes event `index`; returns it.
pub fn remove_event(doc: &mut Document, index: usize) -> Res<EventDoc> {
    event_at(doc, index)?;
    Ok(doc.events.remove(index))
}

/// The text field of an event's value as the editor shows it (empty: none).
pub fn event_value_text(action: &ActionDoc) -> String {
    match action {
        ActionDoc::SetCost { cost, .. } => cost.clone(),
        ActionDoc::SetRate { rate, .. } => rate.to_string(),
        ActionDoc::Fail { subtask, .. } => subtask.to_string(),
        ActionDoc::SetConfig { value, .. } => value.to_flink_string(),
        ActionDoc::TriggerCheckpoint
        | ActionDoc::Savepoint
        | ActionDoc::StopWithSavepoint { .. }
        | ActionDoc::Resubmit(_)
        | ActionDoc::SetPartitioner { .. } => String::new(),
    }
}

/// What an event does, in plain words: "at 20s, the cost of out becomes 1ms per record"
/// (exactly [`event_message`]'s English).
pub fn event_sentence(event: &EventDoc) -> String {
    event_message(event).english()
}

/// A resubmission's `from` as the document spells it (`latest`, `savepoint`,
/// `checkpoint:3`), each a code the interface explains in its language.
fn restore_from(from: &crate::engine::retained::RestoreFrom) -> Arg {
    use crate::engine::retained::RestoreFrom;
    match from {
        RestoreFrom::Latest => Msg::new("latest", vec![]),
        RestoreFrom::LatestSavepoint => Msg::new("savepoint", vec![]),
        RestoreFrom::Checkpoint(n) => Msg::new("checkpoint:{0}", vec![text(n)]),
        RestoreFrom::Savepoint(n) => Msg::new("savepoint:{0}", vec![text(n)]),
    }
    .into()
}

/// [`event_sentence`]'s structured form (code and arguments, `engine::log::Msg`): the
/// editor shows it in the viewer's language. Ids, keys, values and times are arguments
/// as the document spells them.
pub fn event_message(event: &EventDoc) -> Msg {
    let what = match &event.action {
        ActionDoc::SetCost { operator, cost } => Msg::new(
            "the cost of {0} becomes {1} per record",
            vec![text(operator), text(cost)],
        ),
        ActionDoc::SetRate { operator, rate } => Msg::new(
            "each subtask of {0} emits {1} records/s",
            vec![text(operator), text(rate)],
        ),
        ActionDoc::Fail { operator, subtask } => {
            Msg::new("subtask {0}#{1} fails", vec![text(operator), text(subtask)])
        }
        ActionDoc::TriggerCheckpoint => Msg::new("a checkpoint is triggered", vec![]),
        ActionDoc::Savepoint => Msg::new("a savepoint is triggered", vec![]),
        ActionDoc::StopWithSavepoint { drain } => Msg::new(
            if *drain {
                "the job is stopped with a savepoint (--drain)"
            } else {
                "the job is stopped with a savepoint"
            },
            vec![],
        ),
        ActionDoc::SetConfig { key, value } => Msg::new(
            "{0} is set to {1}",
            vec![text(key), text(value.to_flink_string())],
        ),
        ActionDoc::SetPartitioner {
            from,
            to,
            partitioner,
        } => Msg::new(
            "the edge {0} → {1} becomes {2} (at the next resubmission)",
            vec![text(from), text(to), text(partitioner.name())],
        ),
        ActionDoc::Resubmit(r) => {
            let mut changes: Vec<Arg> = r
                .parallelism
                .iter()
                .map(|(op, n)| Msg::new("{0} at parallelism {1}", vec![text(op), text(n)]).into())
                .collect();
            changes.extend(
                r.partitioners
                    .iter()
                    .map(|c| text(format!("{} → {} {}", c.from, c.to, c.partitioner.name()))),
            );
            changes.extend(r.config.iter().map(|(k, v)| text(format!("{k} = {v}"))));
            changes.extend(
                r.remove_operators
                    .iter()
                    .map(|o| Msg::new("{0} removed", vec![text(o)]).into()),
            );
            changes.extend(
                r.remove_edges.iter().map(|e| {
                    Msg::new("{0} → {1} removed", vec![text(&e.from), text(&e.to)]).into()
                }),
            );
            changes.extend(r.add_operators.iter().map(|o| {
                Msg::new("{0} ({1}) added", vec![text(&o.id), text(o.kind.name())]).into()
            }));
            changes.extend(r.add_edges.iter().map(|e| {
                Msg::new(
                    "{0} → {1} {2} added",
                    vec![text(&e.from), text(&e.to), text(e.partitioner.name())],
                )
                .into()
            }));
            if r.allow_non_restored_state {
                changes.push(text("--allowNonRestoredState"));
            }
            if changes.is_empty() {
                Msg::new(
                    "the job is cancelled and resubmitted from {0}",
                    vec![restore_from(&r.from)],
                )
            } else {
                Msg::new(
                    "the job is cancelled and resubmitted from {0} with {1}",
                    vec![restore_from(&r.from), Arg::List(changes, ", ")],
                )
            }
        }
    };
    Msg::new("at {0}, {1}", vec![text(&event.at), what.into()])
}

/// A new job with nothing in it: no operators, edges, events, settings, guide or
/// comparison; the run length and seed of `doc` are kept.
pub fn new_empty_job(doc: &Document) -> Document {
    Document {
        version: doc.version,
        name: "New job".to_string(),
        description: None,
        seed: doc.seed,
        duration: doc.duration.clone(),
        config: Default::default(),
        operators: Vec::new(),
        edges: Vec::new(),
        events: Vec::new(),
        guide: None,
        compare: None,
    }
}

/// Whether the job of `a` and `b` differs (anything but the name, text and guide).
pub fn job_differs(a: &Document, b: &Document) -> bool {
    a.operators != b.operators
        || a.edges != b.edges
        || a.events != b.events
        || a.config != b.config
        || a.duration != b.duration
        || a.seed != b.seed
}

/// The suffix of an edited job's name.
const EDITED: &str = " (edited)";

/// The document to run for a `draft` edited from `original`: when its job differs and
/// the user kept the original's name or text, those describe another job, so the name
/// becomes "<name> (edited)" and the text says what the job is now. A name or text the
/// user typed stays; an unchanged job stays as it is (still the preset it was).
pub fn as_edited(original: &Document, mut draft: Document) -> Document {
    if !job_differs(original, &draft) {
        return draft;
    }
    if draft.name == original.name && !draft.name.ends_with(EDITED) {
        draft.name = format!("{}{EDITED}", draft.name);
    }
    if draft.description == original.description && original.description.is_some() {
        let events = draft.events.len();
        draft.description = Some(format!(
            "An edited job: {} operator(s), {} edge(s) and {events} timed event(s){}.",
            draft.operators.len(),
            draft.edges.len(),
            if events == 0 {
                String::new()
            } else {
                format!(
                    " ({})",
                    draft
                        .events
                        .iter()
                        .map(event_sentence)
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            }
        ));
    }
    draft.guide = None;
    draft
}

/// Sets the job's name (1 to 200 characters once trimmed).
pub fn set_name(doc: &mut Document, name: &str) -> Res<()> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(err(
            "name",
            "must be 1 to {0} characters",
            vec![text(MAX_NAME)],
        ));
    }
    doc.name = name.to_string();
    Ok(())
}

/// The longest name the editor takes.
pub const MAX_NAME: usize = 200;

/// Sets the job's text (what it shows); empty removes it.
pub fn set_description(doc: &mut Document, text: &str) -> Res<()> {
    let text = text.trim();
    doc.description = (!text.is_empty()).then(|| text.to_string());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backpressure() -> Document {
        crate::scenario::preset("backpressure").expect("preset")
    }

    #[test]
    fn timeline_events_are_added_changed_and_removed_in_time_order() {
        let mut d = backpressure();
        assert_eq!(d.events.len(), 2);
        let i = add_event(&mut d, EventKind::TriggerCheckpoint, "30s").unwrap();
        assert_eq!(i, 1, "between 20s and 45s");
        let j = set_event_time(&mut d, i, "50s").unwrap();
        assert_eq!(j, 2);
        assert_eq!(d.events[2].at, "50s");
        assert!(set_event_time(&mut d, 0, "soon").is_err());
        assert_eq!(d.events[0].at, "20s", "a refused edit changes nothing");
        set_event_value(&mut d, 0, "5ms").unwrap();
        assert_eq!(
            event_sentence(&d.events[0]),
            "at 20s, the cost of out becomes 5ms per record"
        );
        assert!(set_event_value(&mut d, 0, "5 parsecs").is_err());
        let r = add_event(&mut d, EventKind::SetRate, "10s").unwrap();
        assert_eq!(
            d.events[r].action,
            ActionDoc::SetRate {
                operator: "orders".into(),
                rate: 500.0
            }
        );
        assert!(
            set_event_operator(&mut d, r, "count").is_err(),
            "count is no source"
        );
        set_event_operator(&mut d, r, "clicks").unwrap();
        set_event_value(&mut d, r, "900").unwrap();
        let c = add_event(&mut d, EventKind::SetConfig, "1s").unwrap();
        assert!(set_event_key(&mut d, c, "no.such.key").is_err());
        set_event_key(&mut d, c, "execution.checkpointing.unaligned.enabled").unwrap();
        set_event_value(&mut d, c, "true").unwrap();
        assert_eq!(
            event_sentence(&d.events[c]),
            "at 1s, execution.checkpointing.unaligned.enabled is set to true"
        );
        let n = d.events.len();
        let removed = remove_event(&mut d, n - 1).unwrap();
        assert_eq!(removed.at, "50s");
        assert!(
            crate::scenario::check::problems(&d).is_empty(),
            "{:?}",
            crate::scenario::check::problems(&d)
        );
    }

    #[test]
    fn renaming_or_removing_an_operator_carries_its_events() {
        let mut d = backpressure();
        rename_operator(&mut d, "out", "sink").unwrap();
        assert_eq!(
            event_sentence(&d.events[0]),
            "at 20s, the cost of sink becomes 1ms per record"
        );
        assert_eq!(remove_operator(&mut d, "count").unwrap(), 1);
        assert_eq!(d.events.len(), 1);
    }

    #[test]
    fn an_edited_job_gets_its_own_name_and_text() {
        let original = backpressure();
        assert_eq!(
            as_edited(&original, original.clone()),
            original,
            "unchanged: still the preset"
        );
        let mut draft = original.clone();
        remove_event(&mut draft, 0).unwrap();
        let run = as_edited(&original, draft.clone());
        assert_eq!(run.name, "Backpressured sink, aligned checkpoints (edited)");
        let text = run.description.clone().unwrap();
        assert!(
            text.contains("1 timed event(s) (at 45s, subtask count#1 fails)"),
            "{text}"
        );
        assert!(!text.contains("At 20s the sink slows"), "{text}");
        // Edited again: no second suffix. A name and text the user typed stay.
        let mut more = run.clone();
        remove_event(&mut more, 0).unwrap();
        assert_eq!(as_edited(&run, more).name, run.name);
        set_name(&mut draft, "My job").unwrap();
        set_description(&mut draft, "Mine.").unwrap();
        let mine = as_edited(&original, draft);
        assert_eq!(
            (mine.name.as_str(), mine.description.as_deref()),
            ("My job", Some("Mine."))
        );
        assert!(set_name(&mut backpressure(), &"x".repeat(MAX_NAME + 1)).is_err());
    }

    #[test]
    fn a_new_empty_job_has_nothing_in_it() {
        let d = new_empty_job(&backpressure());
        assert!(d.operators.is_empty() && d.events.is_empty() && d.config.is_empty());
        assert!(d.guide.is_none() && d.description.is_none());
        let mut d = d;
        assert!(
            add_event(&mut d, EventKind::Fail, "1s").is_err(),
            "nothing to fail yet"
        );
        add_event(&mut d, EventKind::TriggerCheckpoint, "1s").unwrap();
    }
}
