//! The versioned scenario document (format v2; v1 is `shared/SCENARIO.md`'s) and its reader.
//!
//! A [`Document`] is the JSON a user writes, a link carries and the headless runner
//! reads: `version`, `name`, `seed`, `duration`, a `config` map keyed by Flink's option
//! names, `operators`, `edges` and timed `events`. It keeps the author's text (durations
//! stay `"5ms"`, config values stay as written) so that it can be shown and edited; turning
//! it into the engine's [`JobSpec`](crate::engine::spec::JobSpec) is `convert`'s job.
//!
//! [`Document::from_json`] reads the JSON by hand rather than through derived
//! `Deserialize`, so that every error names its field by path (`operators[1].fan_out`):
//! a wrong type, an unknown field (with a suggestion when it is a near miss), a field that
//! belongs to another operator kind, an unknown kind or partitioner. The `version` is
//! checked first, so a document from a newer playground says so instead of failing on a
//! field this one does not know. Serializing (`serde::Serialize`) writes the same shape
//! back, omitting optional fields that are absent.
//!
//! Extensions beyond SCENARIO.md (allowed by it): an optional `description` paragraph at
//! the top level, an optional `parallelism` (default 1), an optional edge `partitioner`
//! (Flink's rule: `forward` between equal parallelisms, else `rebalance`; into a
//! `keyed_aggregate` `hash`, the `keyBy` a keyed operator always follows), the event
//! `set_partitioner`, an optional `guide` (what the scenario teaches, the controls
//! to touch and the figures it promises; read and checked by [`super::guide`], ignored by
//! the engine and not carried by links), the operator fields `disable_chaining`,
//! `start_new_chain` and `slot_sharing_group` (the DataStream API's chaining overrides,
//! read by `engine::physical_plan`), and an optional `compare`
//! (`{"a": "aligned", "b": "unaligned"}`: open the scenario as two runs side by side,
//! see `scenario::compare`).
//!
//! Defaults for omitted operator fields (applied by `convert`, kept out of exported
//! documents by `convert::from_spec`):
//!
//! | field         | applies to        | default            |
//! |---------------|-------------------|--------------------|
//! | `parallelism` | every kind        | 1                  |
//! | `cost`        | `source`          | `0us` (rate-bound) |
//! | `cost`        | `map`, `flat_map` | `100us`            |
//! | `cost`        | `keyed_aggregate` | `200us`            |
//! | `cost`        | `sink`            | `100us`            |
//! | `rate`        | `source`          | 1000 records/s per subtask |
//! | `records`     | `source`          | unbounded          |
//! | `record_size` | `source`          | 256 (bytes; a number or `"1kb"`) |
//! | `keys`        | `source`          | 64                 |
//! | `skew`        | `source`          | 0 (uniform)        |
//! | `legacy`      | `source`          | false (a FLIP-27 `Source`; true: a legacy `SourceFunction`, see `engine::spec::SourceApi`) |
//! | `retention`   | `source`          | infinite           |
//! | `fan_out`     | `flat_map`        | 2                  |
//! | `delivery`    | `sink`            | `two_phase_commit` |
//! | `disable_chaining` | every kind   | false (`disableChaining()`) |
//! | `start_new_chain`  | every kind   | false (`startNewChain()`)   |
//! | `slot_sharing_group` | every kind | `"default"` (`slotSharingGroup(name)`) |
//!
//! Top-level defaults: `name` "Untitled scenario", `seed` 1, `duration` "60s", empty
//! `config` (Flink's defaults, see `engine::config::KEYS`), no `edges`, no `events`.
//! `version` is required. In events, `fail.subtask` defaults to 0 and
//! `trigger_checkpoint` and `savepoint` take `{}` (or `true`), `stop_with_savepoint` takes
//! `{"drain": bool}` (default false), `resubmit` takes `{"from": "latest" | "savepoint" |
//! "checkpoint:N" | "savepoint:N", "parallelism": {op: n}, "partitioners": [{"from", "to",
//! "partitioner"}], "config": {key: value}, "remove_operators": [id], "remove_edges":
//! [{"from", "to"}], "add_operators":
//! [operator], "add_edges": [{"from", "to", "partitioner"}], "allow_non_restored_state":
//! bool}` (every change optional, the flag false; see `engine::resubmission`). A `null` value counts as omitted.

use super::error::ScenarioError;
use super::guide::{read_guide, Guide};
use crate::engine::log::{list_of, text, Arg, Msg};
use crate::engine::spec::{Partitioner, SinkDelivery};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The newest document version this playground reads and the one it writes.
///
/// Version 2 (issue 13): omitted config keys take real Flink's defaults (32 KB segments,
/// Flink 2.3's buffer counts, the restart strategy Flink's loader picks). A version-1
/// document is read as the version-2 document that pins its old defaults
/// (`engine::config::VERSION_1_DEFAULTS`) where it does not set them, so it produces the
/// run it produced before.
pub const CURRENT_VERSION: u64 = 2;

pub const DEFAULT_NAME: &str = "Untitled scenario";
pub const DEFAULT_SEED: u64 = 1;
pub const DEFAULT_DURATION: &str = "60s";

/// One scenario, as written by its author.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Document {
    pub version: u64,
    pub name: String,
    /// What the scenario shows and what to watch (an extension; the engine ignores it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub seed: u64,
    /// Virtual run length, e.g. `"60s"`.
    pub duration: String,
    /// Flink option name -> value in Flink's syntax (JSON string, number or bool).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub config: BTreeMap<String, ConfigValue>,
    pub operators: Vec<OperatorDoc>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<EdgeDoc>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventDoc>,
    /// What the scenario teaches and promises (an extension; the engine ignores it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guide: Option<Guide>,
    /// Open as a comparison of two checkpoint modes (an extension; `None`: one run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<super::compare::Comparison>,
}

/// A config value as JSON allows it: `"2s"`, `8`, `true`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ConfigValue {
    Bool(bool),
    Number(serde_json::Number),
    Text(String),
}

impl ConfigValue {
    /// The value in Flink's string syntax, as `EngineConfig::set` takes it.
    pub fn to_flink_string(&self) -> String {
        match self {
            ConfigValue::Bool(b) => b.to_string(),
            ConfigValue::Number(n) => n.to_string(),
            ConfigValue::Text(s) => s.clone(),
        }
    }
}

/// The kinds of operators a document may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Source,
    Map,
    FlatMap,
    KeyedAggregate,
    Sink,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Source,
        Kind::Map,
        Kind::FlatMap,
        Kind::KeyedAggregate,
        Kind::Sink,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Kind::Source => "source",
            Kind::Map => "map",
            Kind::FlatMap => "flat_map",
            Kind::KeyedAggregate => "keyed_aggregate",
            Kind::Sink => "sink",
        }
    }
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// A record size: a number of bytes (`256`) or a size with a unit (`"1kb"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SizeValue {
    Bytes(u64),
    Text(String),
}

/// One operator. Kind-specific fields are `None` when omitted (see the defaults table).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperatorDoc {
    pub id: String,
    pub kind: Kind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<u32>,
    /// Virtual processing time per record, e.g. `"200us"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<String>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_f64_opt"
    )]
    pub rate: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub records: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_size: Option<SizeValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<u32>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "compact_f64_opt"
    )]
    pub skew: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legacy: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retention: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fan_out: Option<u32>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "delivery_opt"
    )]
    pub delivery: Option<SinkDelivery>,
    /// `disableChaining()`: the operator is chained to nothing (any kind).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disable_chaining: Option<bool>,
    /// `startNewChain()`: the operator heads a new chain (any kind).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_new_chain: Option<bool>,
    /// `slotSharingGroup(name)`; omitted = `"default"` (any kind).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot_sharing_group: Option<String>,
}

impl OperatorDoc {
    /// An operator of `kind` with every optional field omitted.
    pub fn new(id: impl Into<String>, kind: Kind) -> Self {
        OperatorDoc {
            id: id.into(),
            kind,
            parallelism: None,
            cost: None,
            rate: None,
            records: None,
            record_size: None,
            keys: None,
            skew: None,
            legacy: None,
            retention: None,
            fan_out: None,
            delivery: None,
            disable_chaining: None,
            start_new_chain: None,
            slot_sharing_group: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeDoc {
    pub from: String,
    pub to: String,
    /// Omitted: `forward` between equal parallelisms, else `rebalance` (Flink's rule).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "partitioner_opt"
    )]
    pub partitioner: Option<Partitioner>,
}

/// A timed user action: `{"at": "20s", "set_cost": {...}}`.
#[derive(Clone, Debug, PartialEq)]
pub struct EventDoc {
    pub at: String,
    pub action: ActionDoc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ActionDoc {
    SetCost {
        operator: String,
        cost: String,
    },
    SetRate {
        operator: String,
        rate: f64,
    },
    Fail {
        operator: String,
        subtask: u32,
    },
    TriggerCheckpoint,
    Savepoint,
    StopWithSavepoint {
        drain: bool,
    },
    SetConfig {
        key: String,
        value: ConfigValue,
    },
    SetPartitioner {
        from: String,
        to: String,
        partitioner: Partitioner,
    },
    /// `{"from": "latest" | "savepoint" | "checkpoint:N" | "savepoint:N", "parallelism":
    /// {op: n}, "partitioners": [{from, to, partitioner}], "config": {key: value},
    /// "remove_operators": [id], "remove_edges": [{from, to}], "add_operators": [operator], "add_edges": [{from, to,
    /// partitioner}], "allow_non_restored_state": bool}`.
    Resubmit(crate::engine::resubmission::Resubmit),
}

impl ActionDoc {
    /// The JSON field naming the action.
    pub fn name(&self) -> &'static str {
        match self {
            ActionDoc::SetCost { .. } => "set_cost",
            ActionDoc::SetRate { .. } => "set_rate",
            ActionDoc::Fail { .. } => "fail",
            ActionDoc::TriggerCheckpoint => "trigger_checkpoint",
            ActionDoc::Savepoint => "savepoint",
            ActionDoc::StopWithSavepoint { .. } => "stop_with_savepoint",
            ActionDoc::SetConfig { .. } => "set_config",
            ActionDoc::SetPartitioner { .. } => "set_partitioner",
            ActionDoc::Resubmit(_) => "resubmit",
        }
    }
}

const ACTIONS: [&str; 9] = [
    "set_cost",
    "set_rate",
    "fail",
    "trigger_checkpoint",
    "savepoint",
    "stop_with_savepoint",
    "set_config",
    "set_partitioner",
    "resubmit",
];

impl Serialize for EventDoc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("at", &self.at)?;
        let body = match &self.action {
            ActionDoc::SetCost { operator, cost } => {
                serde_json::json!({"operator": operator, "cost": cost})
            }
            ActionDoc::SetRate { operator, rate } => {
                serde_json::json!({"operator": operator, "rate": compact_number(*rate)})
            }
            ActionDoc::Fail { operator, subtask } => {
                serde_json::json!({"operator": operator, "subtask": subtask})
            }
            ActionDoc::TriggerCheckpoint | ActionDoc::Savepoint => serde_json::json!({}),
            ActionDoc::StopWithSavepoint { drain } => serde_json::json!({"drain": drain}),
            ActionDoc::SetConfig { key, value } => serde_json::json!({"key": key, "value": value}),
            ActionDoc::SetPartitioner {
                from,
                to,
                partitioner,
            } => serde_json::json!({"from": from, "to": to, "partitioner": partitioner.name()}),
            ActionDoc::Resubmit(r) => resubmit_json(r),
        };
        m.serialize_entry(self.action.name(), &body)?;
        m.end()
    }
}

/// A resubmit event's body, with only the changes it has.
fn resubmit_json(r: &crate::engine::resubmission::Resubmit) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("from".into(), Value::from(r.from.text()));
    if !r.parallelism.is_empty() {
        let p: serde_json::Map<String, Value> = r
            .parallelism
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(*v)))
            .collect();
        m.insert("parallelism".into(), Value::Object(p));
    }
    if !r.partitioners.is_empty() {
        let list = r
            .partitioners
            .iter()
            .map(|c| serde_json::json!({"from": c.from, "to": c.to, "partitioner": c.partitioner.name()}))
            .collect();
        m.insert("partitioners".into(), Value::Array(list));
    }
    if !r.config.is_empty() {
        let c: serde_json::Map<String, Value> = r
            .config
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.clone())))
            .collect();
        m.insert("config".into(), Value::Object(c));
    }
    if !r.remove_operators.is_empty() {
        m.insert(
            "remove_operators".into(),
            Value::from(r.remove_operators.clone()),
        );
    }
    if !r.remove_edges.is_empty() {
        let list = r
            .remove_edges
            .iter()
            .map(|e| serde_json::json!({"from": e.from, "to": e.to}))
            .collect();
        m.insert("remove_edges".into(), Value::Array(list));
    }
    if !r.add_operators.is_empty() {
        let list = r
            .add_operators
            .iter()
            .map(|o| serde_json::to_value(super::convert::operator_doc(o)).unwrap_or(Value::Null))
            .collect();
        m.insert("add_operators".into(), Value::Array(list));
    }
    if !r.add_edges.is_empty() {
        let list = r
            .add_edges
            .iter()
            .map(|e| serde_json::json!({"from": e.from, "to": e.to, "partitioner": e.partitioner.name()}))
            .collect();
        m.insert("add_edges".into(), Value::Array(list));
    }
    if r.allow_non_restored_state {
        m.insert("allow_non_restored_state".into(), Value::Bool(true));
    }
    Value::Object(m)
}

/// Reads a resubmit event's body from JSON text (the CLI's `--resubmit AT:JSON`); errors
/// name their field under `path`.
pub fn resubmit_from_json(json: &str, path: &str) -> Res<crate::engine::resubmission::Resubmit> {
    let v: Value = serde_json::from_str(json)
        .map_err(|e| ScenarioError::of(path, Msg::new("not JSON: {0}", vec![text(e)])))?;
    let b = Obj::new(&v, path)?;
    read_resubmit(&b, path)
}

/// Reads a resubmit event's body (see [`ActionDoc::Resubmit`]).
fn read_resubmit(b: &Obj, path: &str) -> Res<crate::engine::resubmission::Resubmit> {
    use crate::engine::resubmission::{EdgeChange, Resubmit};
    use crate::engine::retained::RestoreFrom;
    b.only(&[
        "from",
        "parallelism",
        "partitioners",
        "config",
        "remove_operators",
        "remove_edges",
        "add_operators",
        "add_edges",
        "allow_non_restored_state",
    ])?;
    let from_text = b.required("from", Obj::string)?;
    let from = RestoreFrom::parse(&from_text)
        .map_err(|m| ScenarioError::new(format!("{path}.from"), m))?;
    let mut parallelism = BTreeMap::new();
    if let Some(v) = b.get("parallelism") {
        let o = Obj::new(v, &format!("{path}.parallelism"))?;
        for k in o.map.keys() {
            if let Some(n) = o.u32(k)? {
                parallelism.insert(k.clone(), n);
            }
        }
    }
    let mut partitioners = Vec::new();
    for (i, v) in b.array("partitioners")?.iter().enumerate() {
        let e = Obj::new(v, &format!("{path}.partitioners[{i}]"))?;
        e.only(&["from", "to", "partitioner"])?;
        partitioners.push(EdgeChange {
            from: e.required("from", Obj::string)?,
            to: e.required("to", Obj::string)?,
            partitioner: e.required("partitioner", Obj::partitioner)?,
        });
    }
    let mut config = BTreeMap::new();
    if let Some(v) = b.get("config") {
        let o = Obj::new(v, &format!("{path}.config"))?;
        for k in o.map.keys() {
            if let Some(c) = o.config_value(k)? {
                config.insert(k.clone(), c.to_flink_string());
            }
        }
    }
    let mut remove_operators = Vec::new();
    for (i, v) in b.array("remove_operators")?.iter().enumerate() {
        let id = v.as_str().ok_or_else(|| {
            ScenarioError::of(
                format!("{path}.remove_operators[{i}]"),
                Msg::new("expected an operator id, got {0}", vec![describe(v)]),
            )
        })?;
        remove_operators.push(id.to_string());
    }
    let mut remove_edges = Vec::new();
    for (i, v) in b.array("remove_edges")?.iter().enumerate() {
        let e = Obj::new(v, &format!("{path}.remove_edges[{i}]"))?;
        e.only(&["from", "to"])?;
        remove_edges.push(crate::engine::resubmission::EdgeRef {
            from: e.required("from", Obj::string)?,
            to: e.required("to", Obj::string)?,
        });
    }
    let mut add_operators = Vec::new();
    for (i, v) in b.array("add_operators")?.iter().enumerate() {
        let at = format!("{path}.add_operators[{i}]");
        let doc = read_operator(v, &at)?;
        add_operators.push(super::convert::operator_spec(&doc, &at)?);
    }
    let mut add_edges = Vec::new();
    for (i, v) in b.array("add_edges")?.iter().enumerate() {
        let e = Obj::new(v, &format!("{path}.add_edges[{i}]"))?;
        e.only(&["from", "to", "partitioner"])?;
        add_edges.push(crate::engine::spec::EdgeSpec {
            from: e.required("from", Obj::string)?,
            to: e.required("to", Obj::string)?,
            partitioner: e.required("partitioner", Obj::partitioner)?,
        });
    }
    Ok(Resubmit {
        from,
        parallelism,
        partitioners,
        config,
        remove_operators,
        remove_edges,
        add_operators,
        add_edges,
        allow_non_restored_state: b.boolean("allow_non_restored_state")?.unwrap_or(false),
    })
}

/// Writes whole numbers without `.0` (`2000`, not `2000.0`).
fn compact_number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        Value::from(v as i64)
    } else {
        Value::from(v)
    }
}

fn compact_f64_opt<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(v) => compact_number(*v).serialize(s),
        None => s.serialize_none(),
    }
}

pub fn delivery_name(d: SinkDelivery) -> &'static str {
    match d {
        SinkDelivery::TwoPhaseCommit => "two_phase_commit",
        SinkDelivery::Idempotent => "idempotent",
        SinkDelivery::AtLeastOnce => "at_least_once",
    }
}

pub const DELIVERIES: [SinkDelivery; 3] = [
    SinkDelivery::TwoPhaseCommit,
    SinkDelivery::Idempotent,
    SinkDelivery::AtLeastOnce,
];

fn delivery_opt<S: Serializer>(v: &Option<SinkDelivery>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(d) => s.serialize_str(delivery_name(*d)),
        None => s.serialize_none(),
    }
}

pub const PARTITIONERS: [Partitioner; 5] = [
    Partitioner::Forward,
    Partitioner::Rebalance,
    Partitioner::Rescale,
    Partitioner::Hash,
    Partitioner::Broadcast,
];

fn partitioner_opt<S: Serializer>(v: &Option<Partitioner>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(p) => s.serialize_str(p.name()),
        None => s.serialize_none(),
    }
}

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

pub(super) type Res<T> = Result<T, ScenarioError>;

fn describe(v: &Value) -> Arg {
    match v {
        Value::Null => text("null"),
        Value::Bool(b) => text(b),
        Value::Number(n) => text(n),
        Value::String(s) if s.len() <= 40 => text(format!("\"{s}\"")),
        Value::String(_) => Msg::new("a string", vec![]).into(),
        Value::Array(_) => Msg::new("an array", vec![]).into(),
        Value::Object(_) => Msg::new("an object", vec![]).into(),
    }
}

fn near_miss(wanted: &str, known: &[&str]) -> Option<String> {
    let squash = |s: &str| s.to_ascii_lowercase().replace(['-', '_', '.', ' '], "");
    let w = squash(wanted);
    known
        .iter()
        .map(|k| (edit_distance(&w, &squash(k)), k))
        .filter(|(d, _)| *d <= 2.min(w.len() / 3 + 1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.to_string())
}

/// Levenshtein distance (for "did you mean" hints on short field names).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// A JSON object being read: remembers its path and which fields were consumed.
pub(super) struct Obj<'a> {
    path: String,
    map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    pub(super) fn new(v: &'a Value, path: &str) -> Res<Obj<'a>> {
        match v {
            Value::Object(map) => Ok(Obj {
                path: path.to_string(),
                map,
            }),
            other => Err(ScenarioError::of(
                if path.is_empty() { "scenario" } else { path },
                Msg::new("expected an object, got {0}", vec![describe(other)]),
            )),
        }
    }

    /// The path of `field` in this object. A field name that would not be visible in a
    /// path (empty, blank or with control characters) is written as a JSON string (`""`),
    /// so every error still names where it is.
    pub(super) fn at(&self, field: &str) -> String {
        let field = if field.trim().is_empty() || field.chars().any(char::is_control) {
            Value::String(field.to_string()).to_string()
        } else {
            field.to_string()
        };
        if self.path.is_empty() {
            field
        } else {
            format!("{}.{field}", self.path)
        }
    }

    /// A present, non-null field.
    pub(super) fn get(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    /// Rejects every field not in `known`, suggesting the intended one for near misses.
    pub(super) fn only(&self, known: &[&str]) -> Res<()> {
        for key in self.map.keys() {
            if !known.contains(&key.as_str()) {
                let msg = match near_miss(key, known) {
                    Some(k) => Msg::new("unknown field (did you mean '{0}'?)", vec![text(k)]),
                    None => Msg::new(
                        "unknown field (known fields: {0})",
                        vec![list_of(known, ", ")],
                    ),
                };
                return Err(ScenarioError::of(self.at(key), msg));
            }
        }
        Ok(())
    }

    pub(super) fn required<T>(
        &self,
        field: &str,
        read: impl Fn(&Self, &str) -> Res<Option<T>>,
    ) -> Res<T> {
        read(self, field)?.ok_or_else(|| {
            ScenarioError::of(self.at(field), Msg::new("is required but missing", vec![]))
        })
    }

    pub(super) fn string(&self, field: &str) -> Res<Option<String>> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(ScenarioError::of(
                self.at(field),
                Msg::new("expected a string, got {0}", vec![describe(other)]),
            )),
        }
    }

    /// A duration string such as `"5ms"` (only its JSON type is checked here).
    pub(super) fn duration(&self, field: &str) -> Res<Option<String>> {
        match self.get(field) {
            Some(Value::Number(n)) => Err(ScenarioError::of(
                self.at(field),
                Msg::new(
                    "write durations as a string with a unit, e.g. \"{0}ms\"",
                    vec![text(n)],
                ),
            )),
            _ => self.string(field),
        }
    }

    pub(super) fn uint(&self, field: &str, max: u64) -> Res<Option<u64>> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(v) if v <= max => Ok(Some(v)),
                _ => Err(ScenarioError::of(
                    self.at(field),
                    Msg::new(
                        "{0} is out of range (a whole number from 0 to {1})",
                        vec![text(n), text(max)],
                    ),
                )),
            },
            Some(other) => Err(ScenarioError::of(
                self.at(field),
                Msg::new("expected a whole number, got {0}", vec![describe(other)]),
            )),
        }
    }

    pub(super) fn u32(&self, field: &str) -> Res<Option<u32>> {
        Ok(self.uint(field, u32::MAX as u64)?.map(|v| v as u32))
    }

    pub(super) fn float(&self, field: &str) -> Res<Option<f64>> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(other) => Err(ScenarioError::of(
                self.at(field),
                Msg::new("expected a number, got {0}", vec![describe(other)]),
            )),
        }
    }

    pub(super) fn boolean(&self, field: &str) -> Res<Option<bool>> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(ScenarioError::of(
                self.at(field),
                Msg::new("expected true or false, got {0}", vec![describe(other)]),
            )),
        }
    }

    pub(super) fn config_value(&self, field: &str) -> Res<Option<ConfigValue>> {
        match self.get(field) {
            None => Ok(None),
            Some(v) => config_value(v, &self.at(field)).map(Some),
        }
    }

    pub(super) fn array(&self, field: &str) -> Res<&'a [Value]> {
        match self.get(field) {
            None => Ok(&[]),
            Some(Value::Array(a)) => Ok(a),
            Some(other) => Err(ScenarioError::of(
                self.at(field),
                Msg::new("expected an array, got {0}", vec![describe(other)]),
            )),
        }
    }

    pub(super) fn partitioner(&self, field: &str) -> Res<Option<Partitioner>> {
        match self.string(field)? {
            None => Ok(None),
            Some(s) => match PARTITIONERS.into_iter().find(|p| p.name() == s) {
                Some(p) => Ok(Some(p)),
                None => Err(ScenarioError::of(
                    self.at(field),
                    Msg::new(
                        "unknown partitioner '{0}' (use {1})",
                        vec![
                            text(super::error::excerpt(&s)),
                            list_of(&PARTITIONERS.map(|p| p.name()), ", "),
                        ],
                    ),
                )),
            },
        }
    }
}

fn config_value(v: &Value, path: &str) -> Res<ConfigValue> {
    match v {
        Value::Bool(b) => Ok(ConfigValue::Bool(*b)),
        Value::Number(n) => Ok(ConfigValue::Number(n.clone())),
        Value::String(s) => Ok(ConfigValue::Text(s.clone())),
        other => Err(ScenarioError::of(
            path,
            Msg::new(
                "expected a string, number or true/false, got {0}",
                vec![describe(other)],
            ),
        )),
    }
}

const TOP_FIELDS: &[&str] = &[
    "version",
    "name",
    "description",
    "seed",
    "duration",
    "config",
    "operators",
    "edges",
    "events",
    "guide",
    "compare",
];

const OPERATOR_FIELDS: &[&str] = &[
    "id",
    "kind",
    "parallelism",
    "cost",
    "rate",
    "records",
    "record_size",
    "keys",
    "skew",
    "legacy",
    "retention",
    "fan_out",
    "delivery",
    "disable_chaining",
    "start_new_chain",
    "slot_sharing_group",
];

/// Which kinds a kind-specific field belongs to.
fn field_kinds(field: &str) -> &'static [Kind] {
    match field {
        "rate" | "records" | "record_size" | "keys" | "skew" | "legacy" | "retention" => {
            &[Kind::Source]
        }
        "fan_out" => &[Kind::FlatMap],
        "delivery" => &[Kind::Sink],
        _ => &Kind::ALL,
    }
}

/// Checks the version, and brings an older document up to [`CURRENT_VERSION`]: a version-1
/// document gets the settings of `VERSION_1_DEFAULTS` its `config` does not give (under any
/// spelling of the key), so old links keep opening and keep their runs.
fn migrate(root: &Value) -> Res<std::borrow::Cow<'_, Value>> {
    let obj = Obj::new(root, "")?;
    let version = match obj.get("version") {
        None => {
            return Err(ScenarioError::of(
                "version",
                Msg::new(
                    "is missing; a scenario starts with \"version\": {0}",
                    vec![text(CURRENT_VERSION)],
                ),
            ))
        }
        Some(Value::Number(n)) => n.as_u64(),
        Some(_) => None,
    };
    match version {
        Some(v) if v == CURRENT_VERSION => Ok(std::borrow::Cow::Borrowed(root)),
        Some(1) => Ok(std::borrow::Cow::Owned(version_1_to_2(root))),
        Some(v) if v > CURRENT_VERSION => Err(ScenarioError::of(
            "version",
            Msg::new(
                "scenario version {0} is newer than this playground understands ({1})",
                vec![text(v), text(CURRENT_VERSION)],
            ),
        )),
        _ => Err(ScenarioError::of(
            "version",
            Msg::new(
                "{0} is not a scenario version (this playground reads version {1})",
                vec![
                    describe(obj.get("version").unwrap_or(&Value::Null)),
                    text(CURRENT_VERSION),
                ],
            ),
        )),
    }
}

/// The version-2 document a version-1 document means: its old defaults pinned in `config`.
fn version_1_to_2(root: &Value) -> Value {
    use crate::engine::config::{canonical_key, VERSION_1_DEFAULTS};
    let mut next = root.clone();
    if let Some(obj) = next.as_object_mut() {
        obj.insert("version".into(), Value::from(CURRENT_VERSION));
        let config = obj
            .entry("config")
            .or_insert_with(|| Value::Object(Map::new()));
        if config.is_null() {
            *config = Value::Object(Map::new());
        }
        if let Some(c) = config.as_object_mut() {
            for (key, value) in VERSION_1_DEFAULTS {
                if !c.keys().any(|k| canonical_key(k) == Some(*key)) {
                    let v = match value.parse::<u64>() {
                        Ok(n) => Value::from(n),
                        Err(_) => Value::from(*value),
                    };
                    c.insert(key.to_string(), v);
                }
            }
        }
    }
    next
}

impl Document {
    /// Reads a scenario from JSON text. Checks the JSON, the version, and the shape and
    /// types of every field; the meaning (durations, ranges, graph) is `convert`'s.
    pub fn from_json(text: &str) -> Res<Document> {
        let root: Value = serde_json::from_str(text)?;
        Document::from_value(&root)
    }

    /// Like [`Document::from_json`], from an already parsed JSON value.
    pub fn from_value(root: &Value) -> Res<Document> {
        let root = migrate(root)?;
        let root: &Value = &root;
        let top = Obj::new(root, "")?;
        top.only(TOP_FIELDS)?;
        check_counts(&top)?;
        let mut config = BTreeMap::new();
        if let Some(c) = top.get("config") {
            let c = Obj::new(c, "config")?;
            for (key, value) in c.map {
                config.insert(key.clone(), config_value(value, &c.at(key))?);
            }
        }
        let operators = top
            .array("operators")?
            .iter()
            .enumerate()
            .map(|(i, v)| read_operator(v, &format!("operators[{i}]")))
            .collect::<Res<Vec<_>>>()?;
        let edges = top
            .array("edges")?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let e = Obj::new(v, &format!("edges[{i}]"))?;
                e.only(&["from", "to", "partitioner"])?;
                Ok(EdgeDoc {
                    from: e.required("from", Obj::string)?,
                    to: e.required("to", Obj::string)?,
                    partitioner: e.partitioner("partitioner")?,
                })
            })
            .collect::<Res<Vec<_>>>()?;
        let events = top
            .array("events")?
            .iter()
            .enumerate()
            .map(|(i, v)| read_event(v, &format!("events[{i}]")))
            .collect::<Res<Vec<_>>>()?;
        Ok(Document {
            version: CURRENT_VERSION,
            name: top.string("name")?.unwrap_or_else(|| DEFAULT_NAME.into()),
            description: top.string("description")?,
            seed: top.uint("seed", u64::MAX)?.unwrap_or(DEFAULT_SEED),
            duration: top
                .duration("duration")?
                .unwrap_or_else(|| DEFAULT_DURATION.into()),
            config,
            operators,
            edges,
            events,
            guide: top
                .get("guide")
                .map(|g| read_guide(g, "guide"))
                .transpose()?,
            compare: top
                .get("compare")
                .map(super::compare::Comparison::read)
                .transpose()?,
        })
    }

    /// Pretty JSON, as the headless runner and the playground's export write it.
    // A document is strings, numbers, booleans and maps with string keys, which
    // serde_json always writes (a non-finite float becomes `null`): it cannot fail.
    #[allow(clippy::expect_used)]
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).expect("a document always serializes")
    }

    /// Minified JSON, as a link carries it.
    // As `to_json_pretty`: writing a document cannot fail.
    #[allow(clippy::expect_used)]
    pub fn to_json_compact(&self) -> String {
        serde_json::to_string(self).expect("a document always serializes")
    }
}

/// Size first: refuses a document with more operators, edges, events or config keys
/// than a job may have before reading any of them, so that an oversized document (a
/// small link can inflate to 22,000 operators) costs no more than its JSON parse.
fn check_counts(top: &Obj) -> Res<()> {
    use crate::engine::spec::limits;
    let counts = [
        ("operators", limits::MAX_OPERATORS),
        ("edges", limits::MAX_EDGES),
        ("events", limits::MAX_EVENTS),
    ];
    for (field, max) in counts {
        if let Some(Value::Array(a)) = top.get(field) {
            if a.len() > max {
                return Err(ScenarioError::of(
                    field,
                    Msg::new(
                        "{0} {1}; a scenario has at most {2}",
                        vec![text(a.len()), text(field), text(max)],
                    ),
                ));
            }
        }
    }
    if let Some(Value::Object(c)) = top.get("config") {
        if c.len() > limits::MAX_CONFIG_KEYS {
            return Err(ScenarioError::of(
                "config",
                Msg::new(
                    "{0} keys; a scenario sets at most {1}",
                    vec![text(c.len()), text(limits::MAX_CONFIG_KEYS)],
                ),
            ));
        }
    }
    Ok(())
}

fn read_operator(v: &Value, path: &str) -> Res<OperatorDoc> {
    let o = Obj::new(v, path)?;
    o.only(OPERATOR_FIELDS)?;
    let kind_text = o.required("kind", Obj::string)?;
    let kind = Kind::parse(&kind_text).ok_or_else(|| {
        ScenarioError::of(
            o.at("kind"),
            Msg::new(
                "unknown operator kind '{0}' (use {1})",
                vec![
                    text(super::error::excerpt(&kind_text)),
                    list_of(&Kind::ALL.map(Kind::name), ", "),
                ],
            ),
        )
    })?;
    for field in o.map.keys() {
        let kinds = field_kinds(field);
        if !kinds.contains(&kind) {
            return Err(ScenarioError::of(
                o.at(field),
                Msg::new(
                    "only {0} operators have '{1}' (this one is a {2})",
                    vec![
                        list_of(&kinds.iter().map(|k| k.name()).collect::<Vec<_>>(), " and "),
                        text(field),
                        text(kind.name()),
                    ],
                ),
            ));
        }
    }
    let record_size = match o.get("record_size") {
        None => None,
        Some(Value::String(s)) => Some(SizeValue::Text(s.clone())),
        Some(Value::Number(_)) => Some(SizeValue::Bytes(
            o.uint("record_size", u32::MAX as u64)?.unwrap_or(0),
        )),
        Some(other) => {
            return Err(ScenarioError::of(
                o.at("record_size"),
                Msg::new(
                    "expected bytes (256) or a size with a unit (\"1kb\"), got {0}",
                    vec![describe(other)],
                ),
            ))
        }
    };
    let delivery = match o.string("delivery")? {
        None => None,
        Some(s) => Some(
            DELIVERIES
                .into_iter()
                .find(|d| delivery_name(*d) == s)
                .ok_or_else(|| {
                    ScenarioError::of(
                        o.at("delivery"),
                        Msg::new(
                            "unknown delivery '{0}' (use {1})",
                            vec![
                                text(super::error::excerpt(&s)),
                                list_of(&DELIVERIES.map(delivery_name), ", "),
                            ],
                        ),
                    )
                })?,
        ),
    };
    Ok(OperatorDoc {
        id: o.required("id", Obj::string)?,
        kind,
        parallelism: o.u32("parallelism")?,
        cost: o.duration("cost")?,
        rate: o.float("rate")?,
        records: o.uint("records", u64::MAX)?,
        record_size,
        keys: o.u32("keys")?,
        skew: o.float("skew")?,
        legacy: o.boolean("legacy")?,
        retention: o.duration("retention")?,
        fan_out: o.u32("fan_out")?,
        delivery,
        disable_chaining: o.boolean("disable_chaining")?,
        start_new_chain: o.boolean("start_new_chain")?,
        slot_sharing_group: o.string("slot_sharing_group")?,
    })
}

fn read_event(v: &Value, path: &str) -> Res<EventDoc> {
    let e = Obj::new(v, path)?;
    let mut known = vec!["at"];
    known.extend(ACTIONS);
    e.only(&known)?;
    let at = e.required("at", Obj::duration)?;
    let given: Vec<&str> = ACTIONS
        .iter()
        .copied()
        .filter(|a| e.map.contains_key(*a))
        .collect();
    let name = match given.as_slice() {
        [one] => *one,
        [] => {
            return Err(ScenarioError::of(
                path,
                Msg::new("needs one action ({0})", vec![list_of(&ACTIONS, ", ")]),
            ))
        }
        many => {
            return Err(ScenarioError::of(
                path,
                Msg::new(
                    "has several actions ({0}); write one event per action",
                    vec![list_of(many, ", ")],
                ),
            ))
        }
    };
    let body_path = e.at(name);
    let action = if name == "trigger_checkpoint" || name == "savepoint" {
        // `{}` or `true` both mean "trigger now".
        let now = if name == "savepoint" {
            ActionDoc::Savepoint
        } else {
            ActionDoc::TriggerCheckpoint
        };
        match &e.map[name] {
            Value::Object(m) if m.is_empty() => now,
            Value::Bool(true) => now,
            other => {
                return Err(ScenarioError::of(
                    body_path,
                    Msg::new("expected {}, got {0}", vec![describe(other)]),
                ))
            }
        }
    } else {
        let b = Obj::new(&e.map[name], &body_path)?;
        match name {
            "set_cost" => {
                b.only(&["operator", "cost"])?;
                ActionDoc::SetCost {
                    operator: b.required("operator", Obj::string)?,
                    cost: b.required("cost", Obj::duration)?,
                }
            }
            "set_rate" => {
                b.only(&["operator", "rate"])?;
                ActionDoc::SetRate {
                    operator: b.required("operator", Obj::string)?,
                    rate: b.required("rate", Obj::float)?,
                }
            }
            "fail" => {
                b.only(&["operator", "subtask"])?;
                ActionDoc::Fail {
                    operator: b.required("operator", Obj::string)?,
                    subtask: b.u32("subtask")?.unwrap_or(0),
                }
            }
            "stop_with_savepoint" => {
                b.only(&["drain"])?;
                ActionDoc::StopWithSavepoint {
                    drain: b.boolean("drain")?.unwrap_or(false),
                }
            }
            "set_config" => {
                b.only(&["key", "value"])?;
                ActionDoc::SetConfig {
                    key: b.required("key", Obj::string)?,
                    value: b.required("value", Obj::config_value)?,
                }
            }
            "set_partitioner" => {
                b.only(&["from", "to", "partitioner"])?;
                ActionDoc::SetPartitioner {
                    from: b.required("from", Obj::string)?,
                    to: b.required("to", Obj::string)?,
                    partitioner: b.required("partitioner", Obj::partitioner)?,
                }
            }
            "resubmit" => ActionDoc::Resubmit(read_resubmit(&b, &body_path)?),
            other => {
                return Err(ScenarioError::of(
                    path,
                    Msg::new("unknown action '{0}'", vec![text(other)]),
                ))
            }
        }
    };
    Ok(EventDoc { at, action })
}
