//! Edits of a scenario document, as the job editor makes them: pure functions on a
//! [`Document`], no UI.
//!
//! Contract (one rule for every edit): an edit that could never be meaningful is
//! rejected with a [`ScenarioError`] naming the field and the document is left as it
//! was — an unknown operator or edge, a self-loop, a second edge between the same pair,
//! an edge into a source or out of a sink, a new id that is empty or taken, a value
//! that does not parse (`"fast"` as a rate, `"5 parsecs"` as a cost), a setting of
//! another kind. Anything a later edit can fix — a cycle, a `forward` edge between
//! different parallelisms, a dangling operator, a number out of range — is stored, and
//! `check::problems` names it inline. Removing an operator removes its edges; removing
//! an operator or an edge drops the recorded events that name it and returns how many.
//! Renaming updates every edge and event that names the operator.

use super::document::{
    delivery_name, ActionDoc, Document, EdgeDoc, Kind, OperatorDoc, SizeValue, DELIVERIES,
    PARTITIONERS,
};
use super::error::ScenarioError;
use crate::engine::spec::Partitioner;
use crate::engine::time::{parse_duration, parse_size};

type Res<T> = Result<T, ScenarioError>;

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
        .ok_or_else(|| ScenarioError::new("operators", format!("no operator '{id}'")))
}

fn edge_at(doc: &Document, index: usize) -> Res<()> {
    if index < doc.edges.len() {
        Ok(())
    } else {
        Err(ScenarioError::new(
            format!("edges[{index}]"),
            format!("no such edge (the job has {})", doc.edges.len()),
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
        ActionDoc::TriggerCheckpoint | ActionDoc::SetConfig { .. } => false,
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
        return Err(ScenarioError::new(path, "must be 1 to 64 characters"));
    }
    if new != old && doc.operators.iter().any(|o| o.id == new) {
        return Err(ScenarioError::new(
            path,
            format!("'{new}' is already the id of another operator"),
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
            ActionDoc::TriggerCheckpoint | ActionDoc::SetConfig { .. } => {}
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
    let reject = |m: String| Err(ScenarioError::new(path.clone(), m));
    if f == t {
        return reject(format!("'{to}' cannot feed itself"));
    }
    if doc.edges.iter().any(|e| e.from == from && e.to == to) {
        return reject(format!("there is already an edge {from} -> {to}"));
    }
    if doc.operators[t].kind == Kind::Source {
        return reject(format!("'{to}' is a source and takes no input"));
    }
    if doc.operators[f].kind == Kind::Sink {
        return reject(format!("'{from}' is a sink and has no output"));
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
/// between equal parallelisms, else `rebalance`) when omitted; `None` for no such edge.
pub fn effective_partitioner(doc: &Document, index: usize) -> Option<Partitioner> {
    let e = doc.edges.get(index)?;
    let par = |id: &str| {
        let o = doc.operators.iter().find(|o| o.id == id)?;
        Some(
            o.parallelism
                .unwrap_or(super::convert::defaults::PARALLELISM),
        )
    };
    Some(e.partitioner.unwrap_or(match (par(&e.from), par(&e.to)) {
        (Some(a), Some(b)) if a == b => Partitioner::Forward,
        _ => Partitioner::Rebalance,
    }))
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
        return Err(ScenarioError::new(
            path,
            format!(
                "'{}' does not apply to a {} operator",
                setting.name(),
                kind.name()
            ),
        ));
    }
    let text = text.trim();
    let bad = |what: &str| ScenarioError::new(path.clone(), format!("'{text}' is not {what}"));
    let whole = |t: &str| t.parse::<u64>().map_err(|_| bad("a whole number"));
    let small =
        |t: &str| whole(t).and_then(|v| u32::try_from(v).map_err(|_| bad("a number below 2^32")));
    let real = |t: &str| match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(bad("a number")),
    };
    let duration = |t: &str| {
        parse_duration(t)
            .map(|_| t.to_string())
            .map_err(|m| ScenarioError::new(path.clone(), m))
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
                parse_size(text).map_err(|m| ScenarioError::new(path.clone(), m))?;
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
                _ => return Err(bad("true or false")),
            }
        }
        Setting::Retention => o.retention = set.then(|| duration(text)).transpose()?,
        Setting::FanOut => o.fan_out = set.then(|| small(text)).transpose()?,
        Setting::Delivery if !set => o.delivery = None,
        Setting::Delivery => match DELIVERIES.into_iter().find(|d| delivery_name(*d) == text) {
            Some(d) => o.delivery = Some(d),
            None => {
                let names: Vec<&str> = DELIVERIES.into_iter().map(delivery_name).collect();
                return Err(bad(&format!("a delivery ({})", names.join(", "))));
            }
        },
    }
    Ok(())
}
