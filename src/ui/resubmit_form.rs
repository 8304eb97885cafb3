//! The Resubmit dialog's choices and the scenario event they make (issue 15), pure.
//!
//! Contract: a [`ResubmitForm`] holds what the user picked in the dialog — the snapshot
//! to start from ([`Snapshot`]) and the changes, as typed (text, so a bad value stays on
//! screen next to its field). [`ResubmitForm::build`] checks the numbers and returns the
//! scenario event `{"at": …, "resubmit": {"from": …, "parallelism": {op: n},
//! "partitioners": [{"from", "to", "partitioner"}], "config": {…}, "remove_operators": […],
//! "add_edges": […], "allow_non_restored_state": true}}` — only what changes is written;
//! or every field's problem in plain words ([`FieldError`]). A removed operator is
//! bypassed ([`bypass`]): each of its inputs is wired to each of its outputs with the
//! output edge's partitioner (rebalance for a pointwise one, whose parallelisms may no
//! longer match), so the new program keeps the records' way to the sinks. The checks are
//! Flink's bounds: a parallelism in 1..=1024 (the playground's job limit), and
//! `pipeline.max-parallelism` at least every operator's parallelism (Flink's
//! `KeyGroupRangeAssignment.checkParallelismPreconditions`) and at most 32768
//! (`KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM`, 2^15). The event itself is
//! read by the scenario document layer like any event of a link; this module never
//! decides what the engine does with it. Two choices are not offered, each with its reason
//! ([`SOURCE_PARALLELISM_REASON`], [`keyed_input_reason`]): a source's parallelism (the
//! engine keeps it: a source subtask is one split read by offset, and Flink's split
//! reassignment on rescale is not modelled) and the partitioner of a keyed aggregate's
//! input (keyed state needs `keyBy`, a hash edge). No browser types: tested natively.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::engine::time::Micros;
use crate::scenario::moment;
use crate::ui::i18n::{t, tf};

/// Largest parallelism the dialog takes per operator.
pub const MAX_PARALLELISM_PER_OPERATOR: u32 = 1024;
/// Flink's `KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM` (2^15).
pub const UPPER_BOUND_MAX_PARALLELISM: u32 = 32_768;
/// The config key of the record serializer's version.
pub const SERIALIZER_KEY: &str = "playground.serializer.version";
/// Flink's max-parallelism option.
pub const MAX_PARALLELISM_KEY: &str = "pipeline.max-parallelism";

/// Which retained snapshot the resubmitted job starts from (the event's `from`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Snapshot {
    /// The latest retained checkpoint (`"latest"`).
    Latest,
    /// The newest savepoint (`"savepoint"`).
    NewestSavepoint,
    /// The completed checkpoint with this id (`"checkpoint:3"`).
    Checkpoint(u64),
    /// The savepoint with this (checkpoint) id (`"savepoint:1"`).
    Savepoint(u64),
}

impl Snapshot {
    /// The event's `from` text.
    pub fn code(&self) -> String {
        match self {
            Snapshot::Latest => "latest".into(),
            Snapshot::NewestSavepoint => "savepoint".into(),
            Snapshot::Checkpoint(id) => format!("checkpoint:{id}"),
            Snapshot::Savepoint(id) => format!("savepoint:{id}"),
        }
    }

    /// Reads a `from` text back (the dialog's select values); `None` when it is not one.
    pub fn parse(code: &str) -> Option<Snapshot> {
        match code {
            "latest" => Some(Snapshot::Latest),
            "savepoint" => Some(Snapshot::NewestSavepoint),
            _ => {
                let (kind, id) = code.split_once(':')?;
                let id = id.parse().ok()?;
                match kind {
                    "checkpoint" => Some(Snapshot::Checkpoint(id)),
                    "savepoint" => Some(Snapshot::Savepoint(id)),
                    _ => None,
                }
            }
        }
    }

    /// The snapshot of a history row: a savepoint's own, else the checkpoint's.
    pub fn of_row(id: u64, is_savepoint: bool) -> Snapshot {
        if is_savepoint {
            Snapshot::Savepoint(id)
        } else {
            Snapshot::Checkpoint(id)
        }
    }

    /// In plain words, for the preview.
    pub fn words(&self) -> String {
        match self {
            Snapshot::Latest => t("the latest retained checkpoint").to_string(),
            Snapshot::NewestSavepoint => t("the newest savepoint").to_string(),
            Snapshot::Checkpoint(id) => tf("checkpoint {0}", &[id]),
            Snapshot::Savepoint(id) => tf("savepoint {0}", &[id]),
        }
    }
}

/// Why a source's parallelism is shown but not offered (the engine refuses changing it).
pub const SOURCE_PARALLELISM_REASON: &str = "a source keeps its parallelism here: each of its subtasks is one split read by offset, and Flink's split reassignment on rescale (the SplitEnumerator's) is not modelled";

/// Why the partitioner of an edge into keyed aggregate `to` is shown but not offered.
pub fn keyed_input_reason(to: &str) -> String {
    tf(
        "{0} is a keyed aggregate: keyed state needs a keyed input (keyBy), so this edge stays hash",
        &[&to],
    )
}

/// An operator as the dialog offers it: its id, the parallelism it runs with, and whether
/// it is a source (whose parallelism is not offered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorChoice {
    pub id: String,
    pub parallelism: u32,
    pub source: bool,
    /// Not a source or a sink: the new program may drop it (the engine neither adds nor
    /// removes sources, nor removes sinks).
    pub removable: bool,
}

/// An edge as the dialog offers it: its ends, the partitioner it runs with, and whether
/// it feeds a keyed aggregate (whose input partitioner is not offered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeChoice {
    pub from: String,
    pub to: String,
    pub partitioner: String,
    pub keyed: bool,
}

/// The field a problem belongs to (the dialog shows it there).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    Parallelism(String),
    /// The partitioner of the edge `(from, to)`.
    Partitioner(String, String),
    Removed(String),
    SerializerVersion,
    MaxParallelism,
}

/// A problem with one field, in plain words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: Field,
    pub message: String,
}

/// What the user picked in the dialog (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResubmitForm {
    pub from: Snapshot,
    /// Per operator id, the parallelism as typed (absent or equal to the current one:
    /// unchanged).
    pub parallelism: BTreeMap<String, String>,
    /// Per edge `(from, to)`, the partitioner picked (absent or the current one:
    /// unchanged).
    pub partitioners: BTreeMap<(String, String), String>,
    /// The serializer version as typed (empty: unchanged).
    pub serializer_version: String,
    /// `pipeline.max-parallelism` as typed (empty: unchanged).
    pub max_parallelism: String,
    /// Operators the new program drops (bypassed, see [`bypass`]).
    pub removed: BTreeSet<String>,
    /// `--allowNonRestoredState`: skip the state of the dropped operators.
    pub allow_non_restored_state: bool,
}

impl ResubmitForm {
    /// A form that changes nothing yet, starting from `from`.
    pub fn new(from: Snapshot) -> ResubmitForm {
        ResubmitForm {
            from,
            parallelism: BTreeMap::new(),
            partitioners: BTreeMap::new(),
            serializer_version: String::new(),
            max_parallelism: String::new(),
            removed: BTreeSet::new(),
            allow_non_restored_state: false,
        }
    }

    /// The event that resubmits the job with these choices at virtual time `at`, or
    /// every field's problem. `operators` and `edges` are the running job's.
    pub fn build(
        &self,
        at: Micros,
        operators: &[OperatorChoice],
        edges: &[EdgeChoice],
    ) -> Result<Value, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut parallelism = Map::new();
        // The parallelism each operator will run with (for the max-parallelism check).
        let mut highest = 0u32;
        for op in operators.iter().filter(|o| self.removed.contains(&o.id)) {
            if !op.removable {
                errors.push(FieldError {
                    field: Field::Removed(op.id.clone()),
                    message: tf(
                        "{0} is a source or a sink: the playground keeps those",
                        &[&op.id],
                    ),
                });
            }
        }
        for op in operators {
            if self.removed.contains(&op.id) {
                continue;
            }
            let text = self.parallelism.get(&op.id).map(|s| s.trim());
            let n = match text {
                None | Some("") => op.parallelism,
                Some(t) => match parse_count(t, 1, MAX_PARALLELISM_PER_OPERATOR) {
                    Ok(n) => n,
                    Err(why) => {
                        errors.push(FieldError {
                            field: Field::Parallelism(op.id.clone()),
                            message: tf("parallelism of {0}: {1}", &[&op.id, &why]),
                        });
                        continue;
                    }
                },
            };
            if op.source && n != op.parallelism {
                errors.push(FieldError {
                    field: Field::Parallelism(op.id.clone()),
                    message: tf(
                        "parallelism of {0}: {1}",
                        &[&op.id, &t(SOURCE_PARALLELISM_REASON)],
                    ),
                });
                continue;
            }
            highest = highest.max(n);
            if n != op.parallelism {
                parallelism.insert(op.id.clone(), json!(n));
            }
        }
        let mut partitioners = Vec::new();
        for e in edges {
            if self.removed.contains(&e.from) || self.removed.contains(&e.to) {
                continue;
            }
            match self.partitioners.get(&(e.from.clone(), e.to.clone())) {
                Some(p) if *p != e.partitioner && e.keyed => errors.push(FieldError {
                    field: Field::Partitioner(e.from.clone(), e.to.clone()),
                    message: keyed_input_reason(&e.to),
                }),
                Some(p) if *p != e.partitioner => {
                    partitioners.push(json!({"from": e.from, "to": e.to, "partitioner": p}))
                }
                _ => {}
            }
        }
        let mut config = Map::new();
        let serializer = self.serializer_version.trim();
        if !serializer.is_empty() {
            match parse_count(serializer, 1, 1_000_000) {
                Ok(v) => {
                    config.insert(SERIALIZER_KEY.into(), json!(v.to_string()));
                }
                Err(why) => errors.push(FieldError {
                    field: Field::SerializerVersion,
                    message: tf("serializer version: {0}", &[&why]),
                }),
            }
        }
        let max = self.max_parallelism.trim();
        if !max.is_empty() {
            match parse_count(max, 1, UPPER_BOUND_MAX_PARALLELISM) {
                Ok(v) if v < highest => errors.push(FieldError {
                    field: Field::MaxParallelism,
                    message: tf(
                        "max parallelism {0} is below the highest parallelism {1}: Flink needs max parallelism ≥ parallelism",
                        &[&v, &highest],
                    ),
                }),
                Ok(v) => {
                    config.insert(MAX_PARALLELISM_KEY.into(), json!(v.to_string()));
                }
                Err(why) => errors.push(FieldError {
                    field: Field::MaxParallelism,
                    message: tf("max parallelism: {0}", &[&why]),
                }),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut body = Map::new();
        body.insert("from".into(), json!(self.from.code()));
        if !parallelism.is_empty() {
            body.insert("parallelism".into(), Value::Object(parallelism));
        }
        if !partitioners.is_empty() {
            body.insert("partitioners".into(), Value::Array(partitioners));
        }
        if !config.is_empty() {
            body.insert("config".into(), Value::Object(config));
        }
        if !self.removed.is_empty() {
            let kept: Vec<&String> = operators
                .iter()
                .map(|o| &o.id)
                .filter(|id| self.removed.contains(*id))
                .collect();
            body.insert("remove_operators".into(), json!(kept));
            let added: Vec<Value> = bypass(edges, &self.removed)
                .into_iter()
                .map(|e| json!({"from": e.from, "to": e.to, "partitioner": e.partitioner}))
                .collect();
            if !added.is_empty() {
                body.insert("add_edges".into(), Value::Array(added));
            }
        }
        if self.allow_non_restored_state {
            body.insert("allow_non_restored_state".into(), json!(true));
        }
        Ok(json!({"at": moment::format(at), "resubmit": Value::Object(body)}))
    }
}

/// The edges a new program without `removed` adds so that records still flow: removing
/// operator `b` wires each `x → b` to each `b → y` as `x → y` with the partitioner of
/// `b → y` (rebalance instead of forward or rescale), one removed operator after the
/// other (a chain of removed operators is bridged end to end); an edge the job has already
/// is not added again.
pub fn bypass(edges: &[EdgeChoice], removed: &BTreeSet<String>) -> Vec<EdgeChoice> {
    let mut now: Vec<EdgeChoice> = edges.to_vec();
    for b in removed {
        let ins: Vec<EdgeChoice> = now.iter().filter(|e| &e.to == b).cloned().collect();
        let outs: Vec<EdgeChoice> = now.iter().filter(|e| &e.from == b).cloned().collect();
        now.retain(|e| &e.from != b && &e.to != b);
        for x in &ins {
            for y in &outs {
                if now.iter().any(|e| e.from == x.from && e.to == y.to) {
                    continue;
                }
                let partitioner = match y.partitioner.as_str() {
                    "forward" | "rescale" => "rebalance".to_string(),
                    p => p.to_string(),
                };
                now.push(EdgeChoice {
                    from: x.from.clone(),
                    to: y.to.clone(),
                    partitioner,
                    keyed: y.keyed,
                });
            }
        }
    }
    now.into_iter()
        .filter(|e| !edges.iter().any(|o| o.from == e.from && o.to == e.to))
        .collect()
}

/// A whole number in `min..=max`, or why not.
fn parse_count(text: &str, min: u32, max: u32) -> Result<u32, String> {
    match text.parse::<u64>() {
        Ok(n) if (min as u64..=max as u64).contains(&n) => Ok(n as u32),
        Ok(n) => Err(tf("{0} is outside {1}..={2}", &[&n, &min, &max])),
        Err(_) => Err(tf("'{0}' is not a whole number", &[&text])),
    }
}

/// The event in plain words: when, from which snapshot, and each change.
pub fn describe(event: &Value) -> String {
    let at = event["at"].as_str().unwrap_or("?");
    let body = &event["resubmit"];
    let from = body["from"]
        .as_str()
        .and_then(Snapshot::parse)
        .map(|s| s.words())
        .unwrap_or_else(|| body["from"].to_string());
    let mut changes = Vec::new();
    if let Some(p) = body["parallelism"].as_object() {
        for (op, n) in p {
            changes.push(tf("{0} at parallelism {1}", &[op, n]));
        }
    }
    if let Some(list) = body["partitioners"].as_array() {
        for e in list {
            let s = |k: &str| e[k].as_str().unwrap_or("?").to_string();
            changes.push(tf(
                "the edge {0} → {1} {2}",
                &[&s("from"), &s("to"), &s("partitioner")],
            ));
        }
    }
    if let Some(c) = body["config"].as_object() {
        for (k, v) in c {
            let v = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            changes.push(match k.as_str() {
                SERIALIZER_KEY => tf("serializer version {0}", &[&v]),
                MAX_PARALLELISM_KEY => tf("max parallelism {0}", &[&v]),
                _ => format!("{k} = {v}"),
            });
        }
    }
    if let Some(list) = body["remove_operators"].as_array() {
        for o in list {
            changes.push(tf("without {0}", &[&o.as_str().unwrap_or("?")]));
        }
    }
    if let Some(list) = body["add_edges"].as_array() {
        for e in list {
            let s = |k: &str| e[k].as_str().unwrap_or("?").to_string();
            changes.push(tf(
                "a new edge {0} → {1} {2}",
                &[&s("from"), &s("to"), &s("partitioner")],
            ));
        }
    }
    if body["allow_non_restored_state"] == json!(true) {
        changes.push(
            t("--allowNonRestoredState (state of operators it lacks is skipped)").to_string(),
        );
    }
    if changes.is_empty() {
        tf(
            "At {0}, resubmit the same job from {1}, unchanged.",
            &[&at, &from],
        )
    } else {
        tf(
            "At {0}, resubmit the job from {1} with: {2}.",
            &[&at, &from, &changes.join("; ")],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops() -> Vec<OperatorChoice> {
        vec![
            OperatorChoice {
                id: "src".into(),
                parallelism: 2,
                source: true,
                removable: false,
            },
            OperatorChoice {
                id: "count".into(),
                parallelism: 2,
                source: false,
                removable: true,
            },
        ]
    }

    fn edges() -> Vec<EdgeChoice> {
        vec![
            EdgeChoice {
                from: "src".into(),
                to: "count".into(),
                partitioner: "hash".into(),
                keyed: true,
            },
            EdgeChoice {
                from: "count".into(),
                to: "out".into(),
                partitioner: "forward".into(),
                keyed: false,
            },
        ]
    }

    #[test]
    fn snapshot_codes_read_back() {
        for s in [
            Snapshot::Latest,
            Snapshot::NewestSavepoint,
            Snapshot::Checkpoint(3),
            Snapshot::Savepoint(1),
        ] {
            assert_eq!(Snapshot::parse(&s.code()), Some(s));
        }
        assert_eq!(Snapshot::parse("checkpoint:x"), None);
        assert_eq!(Snapshot::parse("other:1"), None);
        assert_eq!(Snapshot::of_row(4, true), Snapshot::Savepoint(4));
        assert_eq!(Snapshot::of_row(4, false), Snapshot::Checkpoint(4));
    }

    #[test]
    fn an_unchanged_form_writes_only_the_snapshot() {
        let e = ResubmitForm::new(Snapshot::Latest)
            .build(20_000_000, &ops(), &edges())
            .unwrap();
        assert_eq!(e, json!({"at": "20s", "resubmit": {"from": "latest"}}));
        assert_eq!(
            describe(&e),
            "At 20s, resubmit the same job from the latest retained checkpoint, unchanged."
        );
    }

    #[test]
    fn every_change_is_written_in_the_engine_shape() {
        let mut f = ResubmitForm::new(Snapshot::Checkpoint(3));
        f.parallelism.insert("count".into(), " 3 ".into());
        f.parallelism.insert("src".into(), "2".into()); // unchanged: not written
        f.partitioners
            .insert(("count".into(), "out".into()), "rebalance".into());
        f.serializer_version = "2".into();
        f.max_parallelism = "256".into();
        let e = f.build(20_500_000, &ops(), &edges()).unwrap();
        assert_eq!(
            e,
            json!({"at": "20500ms", "resubmit": {
                "from": "checkpoint:3",
                "parallelism": {"count": 3},
                "partitioners": [{"from": "count", "to": "out", "partitioner": "rebalance"}],
                "config": {"playground.serializer.version": "2", "pipeline.max-parallelism": "256"}
            }})
        );
        assert_eq!(
            describe(&e),
            "At 20500ms, resubmit the job from checkpoint 3 with: count at parallelism 3; \
             the edge count → out rebalance; max parallelism 256; serializer version 2."
        );
    }

    fn edge(from: &str, to: &str, p: &str) -> EdgeChoice {
        EdgeChoice {
            from: from.into(),
            to: to.into(),
            partitioner: p.into(),
            keyed: p == "hash",
        }
    }

    #[test]
    fn a_removed_operator_is_bypassed_and_its_changes_dropped() {
        let edges = vec![
            edge("src", "count", "hash"),
            edge("count", "out", "forward"),
        ];
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.removed.insert("count".into());
        f.parallelism.insert("count".into(), "3".into());
        f.partitioners
            .insert(("count".into(), "out".into()), "rebalance".into());
        f.allow_non_restored_state = true;
        let e = f.build(20_000_000, &ops(), &edges).unwrap();
        assert_eq!(
            e,
            json!({"at": "20s", "resubmit": {
                "from": "latest",
                "remove_operators": ["count"],
                "add_edges": [{"from": "src", "to": "out", "partitioner": "rebalance"}],
                "allow_non_restored_state": true
            }})
        );
        assert_eq!(
            describe(&e),
            "At 20s, resubmit the job from the latest retained checkpoint with: without count; \
             a new edge src → out rebalance; --allowNonRestoredState (state of operators it lacks is skipped)."
        );
        // A source stays.
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.removed.insert("src".into());
        let errs = f.build(0, &ops(), &edges).unwrap_err();
        assert_eq!(errs[0].field, Field::Removed("src".into()));
    }

    #[test]
    fn a_chain_of_removed_operators_is_bridged_end_to_end() {
        let edges = vec![
            edge("src", "a", "forward"),
            edge("a", "b", "hash"),
            edge("b", "out", "broadcast"),
            edge("src", "out", "rebalance"),
        ];
        let removed: BTreeSet<String> = ["a".to_string(), "b".to_string()].into();
        // src -> out exists already: nothing to add.
        assert_eq!(bypass(&edges, &removed), vec![]);
        let removed: BTreeSet<String> = ["b".to_string()].into();
        assert_eq!(
            bypass(&edges, &removed),
            vec![edge("a", "out", "broadcast")]
        );
        let edges = &edges[..3];
        let removed: BTreeSet<String> = ["a".to_string(), "b".to_string()].into();
        assert_eq!(
            bypass(edges, &removed),
            vec![edge("src", "out", "broadcast")]
        );
    }

    #[test]
    fn the_current_partitioner_is_no_change() {
        let mut f = ResubmitForm::new(Snapshot::Savepoint(1));
        f.partitioners
            .insert(("count".into(), "out".into()), "forward".into());
        let e = f.build(0, &ops(), &edges()).unwrap();
        assert_eq!(e, json!({"at": "0s", "resubmit": {"from": "savepoint:1"}}));
    }

    #[test]
    fn parallelism_is_checked_per_operator() {
        for (text, why) in [
            ("0", "0 is outside 1..=1024"),
            ("1025", "1025 is outside 1..=1024"),
            ("two", "'two' is not a whole number"),
            ("-1", "'-1' is not a whole number"),
        ] {
            let mut f = ResubmitForm::new(Snapshot::Latest);
            f.parallelism.insert("count".into(), text.into());
            let errs = f.build(0, &ops(), &edges()).unwrap_err();
            assert_eq!(
                errs,
                vec![FieldError {
                    field: Field::Parallelism("count".into()),
                    message: format!("parallelism of count: {why}"),
                }]
            );
        }
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.parallelism.insert("count".into(), "1024".into());
        assert!(f.build(0, &ops(), &edges()).is_ok());
    }

    /// A source's parallelism and a keyed aggregate's input partitioner are not choices:
    /// changing them is that field's problem, with the reason; their current values are
    /// no change.
    #[test]
    fn a_sources_parallelism_and_a_keyed_input_stay() {
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.parallelism.insert("src".into(), "3".into());
        f.partitioners
            .insert(("src".into(), "count".into()), "rebalance".into());
        let errs = f.build(0, &ops(), &edges()).unwrap_err();
        assert_eq!(
            errs,
            vec![
                FieldError {
                    field: Field::Parallelism("src".into()),
                    message: format!("parallelism of src: {SOURCE_PARALLELISM_REASON}"),
                },
                FieldError {
                    field: Field::Partitioner("src".into(), "count".into()),
                    message: "count is a keyed aggregate: keyed state needs a keyed input (keyBy), so this edge stays hash".into(),
                },
            ]
        );
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.parallelism.insert("src".into(), "2".into());
        f.partitioners
            .insert(("src".into(), "count".into()), "hash".into());
        let e = f.build(0, &ops(), &edges()).unwrap();
        assert_eq!(e, json!({"at": "0s", "resubmit": {"from": "latest"}}));
    }

    #[test]
    fn max_parallelism_is_at_least_every_parallelism_and_at_most_32768() {
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.parallelism.insert("count".into(), "8".into());
        f.max_parallelism = "4".into();
        let errs = f.build(0, &ops(), &edges()).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, Field::MaxParallelism);
        assert!(errs[0].message.contains("below the highest parallelism 8"));
        // Equal is allowed; the bound is Flink's 2^15.
        f.max_parallelism = "8".into();
        assert!(f.build(0, &ops(), &edges()).is_ok());
        f.max_parallelism = "32768".into();
        assert!(f.build(0, &ops(), &edges()).is_ok());
        f.max_parallelism = "32769".into();
        let errs = f.build(0, &ops(), &edges()).unwrap_err();
        assert_eq!(
            errs[0].message,
            "max parallelism: 32769 is outside 1..=32768"
        );
        // The current parallelism counts too when the operator is not changed.
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.max_parallelism = "1".into();
        let errs = f.build(0, &ops(), &edges()).unwrap_err();
        assert!(errs[0].message.contains("below the highest parallelism 2"));
    }

    #[test]
    fn every_bad_field_is_reported_at_once() {
        let mut f = ResubmitForm::new(Snapshot::Latest);
        f.parallelism.insert("src".into(), "0".into());
        f.serializer_version = "0".into();
        f.max_parallelism = "x".into();
        let fields: Vec<Field> = f
            .build(0, &ops(), &edges())
            .unwrap_err()
            .into_iter()
            .map(|e| e.field)
            .collect();
        assert_eq!(
            fields,
            vec![
                Field::Parallelism("src".into()),
                Field::SerializerVersion,
                Field::MaxParallelism
            ]
        );
    }
}
