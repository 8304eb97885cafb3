//! A structure-aware fuzzer of everything a stranger can hand the playground: scenario
//! documents, links and live action sequences.
//!
//! Contract: a case is a pure function of its seed (the project's SplitMix64 [`Rng`]), so
//! every failure prints the seed and the input that reproduce it. Documents start from a
//! preset and get 1–5 structural mutations (numbers at extremes, dropped and duplicated
//! fields, wrong types, unknown keys, random config keys and values with cross-key
//! combinations, random events, huge parallelism and operator counts, unicode and long
//! strings) and sometimes a textual one (truncation, a flipped or inserted character, junk
//! appended). Links are a document's link with truncation, bit flips, junk and wrong
//! prefixes. Action sequences are random [`Action`]s applied through [`Engine::apply`] at
//! random instants, sometimes after a time-travel seek. [`run_case`] checks that
//! nothing panics (the caller wraps it in `catch_unwind`), that every refusal names a path,
//! and that every accepted scenario runs a short while — at most [`MAX_VIRTUAL`] of virtual
//! time and [`MAX_EVENTS`] engine events, so the cost of a case never depends on the
//! machine — with [`Engine::check_invariants`] holding.
#![allow(dead_code)]

use checkpoint_playground::engine::rng::Rng;
use checkpoint_playground::engine::spec::{Action, Partitioner};
use checkpoint_playground::engine::time::Micros;
use checkpoint_playground::engine::time_travel::Rewinder;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::{self, presets::NAMES};
use serde_json::{json, Map, Value};

/// Virtual time an accepted scenario runs for.
pub const MAX_VIRTUAL: Micros = 2_000_000;
/// Engine events (steps) an accepted scenario runs for at most.
pub const MAX_EVENTS: usize = 50_000;
/// Invariants are checked every this many events (and at the end).
const CHECK_EVERY: usize = 100;

/// What a fuzz case is.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A scenario file's text.
    Document(String),
    /// A link or fragment.
    Link(String),
    /// A valid document's text and live actions `(at, action)` applied in order; an
    /// action with `seek` set first seeks the run back to that instant.
    Actions {
        doc: String,
        actions: Vec<LiveAction>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct LiveAction {
    pub at: Micros,
    pub seek: Option<Micros>,
    pub action: Action,
}

/// How a case ended when it did not fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Refused with a path (document, link or spec); the path, without indices.
    Refused(String),
    /// Accepted and ran; `actions_refused` live actions were refused with a path.
    Ran { actions_refused: usize },
}

impl std::fmt::Display for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Document(t) => write!(f, "document:\n{}", excerpt(t)),
            Input::Link(l) => write!(f, "link:\n{}", excerpt(l)),
            Input::Actions { doc, actions } => {
                writeln!(f, "document:\n{}", excerpt(doc))?;
                for a in actions {
                    writeln!(f, "  at {} µs (seek {:?}): {:?}", a.at, a.seek, a.action)?;
                }
                Ok(())
            }
        }
    }
}

/// At most 4000 characters of `text` (enough to reproduce: the seed regenerates it whole).
fn excerpt(text: &str) -> String {
    if text.chars().count() <= 4000 {
        text.to_string()
    } else {
        let head: String = text.chars().take(4000).collect();
        format!("{head}… ({} characters in all)", text.chars().count())
    }
}

/// The case for `seed` of `family` ("document", "link" or "actions").
pub fn generate(family: &str, seed: u64) -> Input {
    let mut g = Gen(Rng::new(seed));
    match family {
        "document" => Input::Document(g.document_text()),
        "link" => Input::Link(g.link()),
        "actions" => g.actions(),
        other => panic!("unknown fuzz family {other}"),
    }
}

/// Reads and runs one case. `Err` is a broken contract (a refusal without a path, an
/// invariant that does not hold); a panic propagates to the caller's `catch_unwind`.
pub fn run_case(input: &Input) -> Result<Outcome, String> {
    match input {
        Input::Document(text) => match scenario::parse_json(text) {
            Err(e) => refused("document", &e.path, &e.message),
            Ok(doc) => open_and_run(&doc, &[]),
        },
        Input::Link(link) => match scenario::decode_link(link) {
            Err(e) => refused("link", &e.path, &e.message),
            Ok(doc) => open_and_run(&doc, &[]),
        },
        Input::Actions { doc, actions } => {
            let doc = scenario::parse_json(doc).map_err(|e| format!("base document: {e}"))?;
            open_and_run(&doc, actions)
        }
    }
}

fn refused(what: &str, path: &str, message: &str) -> Result<Outcome, String> {
    if path.trim().is_empty() || message.trim().is_empty() {
        return Err(format!(
            "{what} refused without a path or message: '{path}: {message}'"
        ));
    }
    let general: String = path
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    Ok(Outcome::Refused(format!("{what} {general}")))
}

fn open_and_run(doc: &scenario::Document, actions: &[LiveAction]) -> Result<Outcome, String> {
    let spec = match scenario::to_spec(doc) {
        Err(e) => return refused("scenario", &e.path, &e.message),
        Ok(s) => s,
    };
    let mut engine = match Engine::new(spec) {
        Err(e) => return refused("engine", &e.path, &e.message),
        Ok(e) => e,
    };
    let mut rewinder = Rewinder::new(&engine, 250_000, 16);
    let mut events = 0usize;
    let mut actions_refused = 0;
    for a in actions {
        run_for(&mut engine, &mut rewinder, a.at, &mut events)?;
        if let Some(t) = a.seek {
            engine = rewinder.seek(t.min(engine.now()), &engine)?;
            engine
                .check_invariants()
                .map_err(|e| format!("after seek: {e}"))?;
        }
        match engine.apply(a.action.clone()) {
            Ok(()) => {
                rewinder.truncate_after(engine.now());
            }
            Err(e) => {
                refused("live action", &e.path, &e.message)?;
                actions_refused += 1;
            }
        }
        engine
            .check_invariants()
            .map_err(|e| format!("after {:?}: {e}", a.action))?;
    }
    run_for(&mut engine, &mut rewinder, MAX_VIRTUAL, &mut events)?;
    Ok(Outcome::Ran { actions_refused })
}

/// Steps `engine` up to virtual time `t`, stopping at [`MAX_EVENTS`] events in all.
fn run_for(
    engine: &mut Engine,
    rewinder: &mut Rewinder,
    t: Micros,
    events: &mut usize,
) -> Result<(), String> {
    while *events < MAX_EVENTS && engine.now() < t {
        if !engine.step() {
            break;
        }
        *events += 1;
        if (*events).is_multiple_of(CHECK_EVERY) {
            engine
                .check_invariants()
                .map_err(|e| format!("at {} µs: {e}", engine.now()))?;
            if rewinder.due(engine) {
                rewinder.observe(engine);
            }
        }
    }
    engine
        .check_invariants()
        .map_err(|e| format!("at {} µs: {e}", engine.now()))
}

/// Known families of crashes that another change fixes; a panic of such a family is counted
/// and reported, not failed, until that fix is merged (then remove the entry: the fuzz test
/// fails again on any of them). Each has its own `#[ignore]`d regression test in
/// `tests/fuzz_scenarios.rs`.
/// Empty today: the debloat-clamp family (a `set_config` making segment-size smaller than
/// min-segment-size) was fixed by validating every config change across keys, and its cases
/// replay in `every_crash_found_by_fuzzing_stays_fixed`.
pub const KNOWN_FAMILIES: &[(&str, &str)] = &[];

/// The known family a panic message belongs to, if any.
pub fn known_family(message: &str) -> Option<&'static str> {
    KNOWN_FAMILIES
        .iter()
        .find(|(_, needle)| message.contains(needle))
        .map(|(name, _)| *name)
}

/// The panic payload's text.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-text panic payload)".into()
    }
}

/// Config keys the generator sets (Flink's and the playground's), plus unknown ones.
const CONFIG_KEYS: &[&str] = &[
    "execution.checkpointing.interval",
    "execution.checkpointing.mode",
    "execution.checkpointing.unaligned.enabled",
    "execution.checkpointing.unaligned",
    "execution.checkpointing.unaligned.forced",
    "execution.checkpointing.aligned-checkpoint-timeout",
    "execution.checkpointing.timeout",
    "execution.checkpointing.min-pause",
    "execution.checkpointing.max-concurrent-checkpoints",
    "execution.checkpointing.tolerable-failed-checkpoints",
    "execution.checkpointing.unaligned.max-subtasks-per-channel-state-file",
    "execution.checkpointing.recover-without-channel-state.checkpoint-id",
    "taskmanager.memory.segment-size",
    "taskmanager.memory.min-segment-size",
    "taskmanager.network.memory.buffers-per-channel",
    "taskmanager.network.memory.floating-buffers-per-gate",
    "taskmanager.network.memory.max-buffers-per-channel",
    "taskmanager.network.memory.max-overdraft-buffers-per-gate",
    "execution.buffer-timeout.interval",
    "taskmanager.network.memory.buffer-debloat.enabled",
    "taskmanager.network.memory.buffer-debloat.target",
    "taskmanager.network.memory.buffer-debloat.period",
    "taskmanager.network.memory.buffer-debloat.samples",
    "taskmanager.network.memory.buffer-debloat.threshold-percentages",
    "state.storage.fs.memory-threshold",
    "playground.network.latency",
    "playground.rpc.latency",
    "playground.storage.throughput",
    "playground.storage.file-cost",
    "playground.state.bytes-per-key",
    "playground.task.availability-check",
    "playground.source.legacy-compat",
    "playground.serializer.version",
    "execution.checkpointing.nonsense",
    "",
    "TASKMANAGER.MEMORY.SEGMENT-SIZE",
];

/// Cross-key combinations the initial config refuses and events might let through.
const COMBOS: &[&[(&str, &str)]] = &[
    &[
        ("execution.checkpointing.mode", "AT_LEAST_ONCE"),
        ("execution.checkpointing.unaligned.enabled", "true"),
    ],
    &[
        ("execution.checkpointing.unaligned.enabled", "true"),
        ("execution.checkpointing.max-concurrent-checkpoints", "16"),
    ],
    &[
        ("taskmanager.network.memory.buffers-per-channel", "0"),
        ("taskmanager.network.memory.floating-buffers-per-gate", "0"),
    ],
    &[
        ("taskmanager.network.memory.buffer-debloat.enabled", "true"),
        ("taskmanager.memory.segment-size", "64b"),
    ],
    &[
        ("taskmanager.network.memory.buffer-debloat.enabled", "true"),
        ("taskmanager.memory.min-segment-size", "8kb"),
    ],
    &[
        ("execution.checkpointing.interval", "10ms"),
        ("execution.checkpointing.timeout", "1ms"),
    ],
    &[
        ("taskmanager.network.memory.max-buffers-per-channel", "1"),
        ("taskmanager.network.memory.buffers-per-channel", "50"),
    ],
];

const PARTITIONERS: &[&str] = &[
    "forward",
    "rebalance",
    "rescale",
    "hash",
    "broadcast",
    "shuffle",
];

/// The generator: a seeded RNG with helpers.
pub struct Gen(pub Rng);

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.0.below(n as u64) as usize
        }
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.0.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn preset_value(&mut self) -> Value {
        let name = *self.pick(NAMES);
        let text = scenario::presets::preset_json(name).expect("preset");
        serde_json::from_str(text).expect("preset JSON")
    }

    /// A number at an extreme, a small one, or a random one.
    fn number(&mut self) -> Value {
        match self.below(12) {
            0 => json!(0),
            1 => json!(-1),
            2 => json!(u64::MAX),
            3 => json!(i64::MIN),
            4 => json!(1e308),
            5 => json!(-1e308),
            6 => json!(4_294_967_296u64),
            7 => json!(9_007_199_254_740_993u64),
            8 => json!(0.5),
            9 => json!(1e-300),
            10 => json!(self.0.below(100)),
            _ => json!(self.0.below(1 << 40)),
        }
    }

    /// A duration or size text: valid, extreme, negative, malformed or exotic.
    fn unit_text(&mut self) -> String {
        let n: String = match self.below(8) {
            0 => "0".into(),
            1 => "-5".into(),
            2 => "1e30".into(),
            3 => "NaN".into(),
            4 => "inf".into(),
            5 => "0.0001".into(),
            6 => format!("{}", self.0.below(10_000)),
            _ => format!("{}", self.0.next_u64()),
        };
        let unit = *self.pick(&[
            "", "us", "ms", "s", "min", "h", "d", "b", "kb", "mb", "gb", "µs", " s", "parsec",
        ]);
        format!("{n}{unit}")
    }

    /// An exotic string: empty, unicode, long, control characters, or a unit text.
    fn string(&mut self) -> String {
        match self.below(9) {
            0 => String::new(),
            1 => "ß✓🚀\u{202e}ʻ".into(),
            2 => "x".repeat(1 + self.below(20_000)),
            3 => "\u{0}\u{1}\n\t\"\\".into(),
            4 => "🚀".repeat(1 + self.below(300)),
            5 => "src".into(),
            6 => "true".into(),
            _ => self.unit_text(),
        }
    }

    /// A value of any JSON type.
    fn any_value(&mut self) -> Value {
        match self.below(8) {
            0 => Value::Null,
            1 => json!(self.chance(50)),
            2 => self.number(),
            3 => json!(self.string()),
            4 => json!([]),
            5 => json!({}),
            6 => json!([self.number(), self.string()]),
            _ => json!({"value": self.number()}),
        }
    }

    /// A config value for `key`: often of a plausible type, sometimes not.
    fn config_value(&mut self) -> Value {
        match self.below(12) {
            10 => json!(self.pick(&["true", "false", "2s", "500ms", "4kb", "1kb", "8", "3"])),
            11 => json!(*self.pick(&[0u64, 1, 2, 5, 10, 64, 100])),
            0 => json!(self.chance(50)),
            1 => json!(self.pick(&["EXACTLY_ONCE", "AT_LEAST_ONCE", "exactly_once", "NONE"])),
            2 => json!(self.0.below(20)),
            3 => json!(self.pick(&["0", "1", "16", "-1", "2147483648"])),
            4 => json!(self.pick(&["1ms", "100ms", "1s", "10min", "0s", "64b", "256b", "32kb"])),
            5 => self.number(),
            _ => json!(self.unit_text()),
        }
    }

    fn operator_ids(doc: &Value) -> Vec<String> {
        doc["operators"]
            .as_array()
            .map(|ops| {
                ops.iter()
                    .filter_map(|o| o["id"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn target(&mut self, doc: &Value) -> String {
        let ids = Self::operator_ids(doc);
        if ids.is_empty() || self.chance(15) {
            self.string()
        } else {
            self.pick(&ids).clone()
        }
    }

    fn at(&mut self) -> Value {
        if self.chance(85) {
            json!(format!("{}ms", self.0.below(2_500)))
        } else if self.chance(50) {
            json!(self.unit_text())
        } else {
            self.any_value()
        }
    }

    /// A random event body of a random (sometimes unknown) kind.
    fn event(&mut self, doc: &Value) -> Value {
        let kind = *self.pick(&[
            "set_config",
            "set_config",
            "fail",
            "set_cost",
            "set_rate",
            "fail",
            "trigger_checkpoint",
            "set_config",
            "set_partitioner",
            "teleport",
        ]);
        let body = match kind {
            "set_cost" => json!({"operator": self.target(doc), "cost": self.unit_text()}),
            "set_rate" => json!({"operator": self.target(doc), "rate": self.number()}),
            "fail" => {
                let subtask = if self.chance(70) {
                    json!(self.0.below(4))
                } else {
                    self.number()
                };
                json!({"operator": self.target(doc), "subtask": subtask})
            }
            "trigger_checkpoint" => json!({}),
            "set_config" => json!({"key": *self.pick(CONFIG_KEYS), "value": self.config_value()}),
            "set_partitioner" => json!({"from": self.target(doc), "to": self.target(doc),
                                        "partitioner": *self.pick(PARTITIONERS)}),
            _ => self.any_value(),
        };
        let mut ev = Map::new();
        ev.insert("at".into(), self.at());
        ev.insert(kind.into(), body);
        if self.chance(5) {
            ev.insert("set_cost".into(), json!({}));
        }
        Value::Object(ev)
    }

    /// Every path (as a list of steps) to a value inside `v`.
    fn paths(v: &Value, prefix: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        out.push(prefix.clone());
        match v {
            Value::Object(m) => {
                for (k, c) in m {
                    prefix.push(Step::Key(k.clone()));
                    Self::paths(c, prefix, out);
                    prefix.pop();
                }
            }
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    prefix.push(Step::Index(i));
                    Self::paths(c, prefix, out);
                    prefix.pop();
                }
            }
            _ => {}
        }
    }

    fn random_path(&mut self, doc: &Value, filter: impl Fn(&Value) -> bool) -> Option<Vec<Step>> {
        let mut all = Vec::new();
        Self::paths(doc, &mut Vec::new(), &mut all);
        let fit: Vec<_> = all
            .into_iter()
            .filter(|p| filter(at_path(doc, p)))
            .collect();
        (!fit.is_empty()).then(|| fit[self.below(fit.len())].clone())
    }

    /// One structural mutation of `doc`.
    fn mutate(&mut self, doc: &mut Value) {
        // Weighted towards mutations that often keep a document valid (config values,
        // events, parallelism, source fields, cross-key combinations), so that a good
        // share of the cases runs, not only refusals.
        let choice = *self.pick(&[
            0, 1, 2, 3, 4, 5, 6, 6, 6, 7, 7, 8, 8, 8, 8, 9, 10, 11, 12, 12,
        ]);
        if choice >= 6 && !doc.is_object() {
            return;
        }
        match choice {
            0 => {
                if let Some(p) = self.random_path(doc, Value::is_number) {
                    *at_path_mut(doc, &p) = self.number();
                }
            }
            1 => {
                if let Some(p) = self.random_path(doc, Value::is_string) {
                    *at_path_mut(doc, &p) = json!(self.string());
                }
            }
            2 => {
                // Drop a field.
                if let Some(mut p) = self.random_path(doc, |_| true) {
                    if let Some(Step::Key(k)) = p.pop() {
                        if let Value::Object(m) = at_path_mut(doc, &p) {
                            m.remove(&k);
                        }
                    }
                }
            }
            3 => {
                // Duplicate an array element (an operator, edge or event).
                if let Some(p) =
                    self.random_path(doc, |v| v.as_array().is_some_and(|a| !a.is_empty()))
                {
                    if let Value::Array(a) = at_path_mut(doc, &p) {
                        let i = self.below(a.len());
                        let copy = a[i].clone();
                        a.insert(i, copy);
                    }
                }
            }
            4 => {
                // A value of the wrong type.
                if let Some(p) = self.random_path(doc, |_| true) {
                    *at_path_mut(doc, &p) = self.any_value();
                }
            }
            5 => {
                // An unknown key.
                if let Some(p) = self.random_path(doc, Value::is_object) {
                    let key = self.string();
                    let value = self.any_value();
                    if let Value::Object(m) = at_path_mut(doc, &p) {
                        m.insert(key, value);
                    }
                }
            }
            6 => {
                let key = *self.pick(CONFIG_KEYS);
                let value = self.config_value();
                if !doc["config"].is_object() {
                    doc["config"] = json!({});
                }
                doc["config"][key] = value;
            }
            7 => {
                // Cross-key combinations, in the config or as events.
                let combo = *self.pick(COMBOS);
                let as_events = self.chance(70);
                for (k, v) in combo {
                    if as_events {
                        let at = self.at();
                        push_event(doc, json!({"at": at, "set_config": {"key": k, "value": v}}));
                    } else {
                        if !doc["config"].is_object() {
                            doc["config"] = json!({});
                        }
                        doc["config"][*k] = json!(v);
                    }
                }
            }
            8 => {
                for _ in 0..1 + self.below(4) {
                    let ev = self.event(doc);
                    push_event(doc, ev);
                }
            }
            9 => {
                if let Some(ops) = doc["operators"].as_array_mut() {
                    let i = self.below(ops.len());
                    if ops.get(i).is_some_and(Value::is_object) {
                        let p = *self.pick(&[0u64, 1, 2, 32, 33, 1000, 4_294_967_296]);
                        ops[i]["parallelism"] = json!(p);
                    }
                }
            }
            10 => {
                // Many operators: a chain of maps after the first operator.
                let n = *self.pick(&[10usize, 63, 65, 200]);
                let ids = Self::operator_ids(doc);
                if let (Some(first), Some(ops)) =
                    (ids.first().cloned(), doc["operators"].as_array_mut())
                {
                    let mut prev = first;
                    let mut edges = Vec::new();
                    for k in 0..n {
                        let id = format!("m{k}");
                        ops.push(json!({"id": id, "kind": "map", "cost": "10us"}));
                        edges.push(json!({"from": prev, "to": id, "partitioner": "rebalance"}));
                        prev = id;
                    }
                    if let Some(last) = ids.last() {
                        edges.push(json!({"from": prev, "to": last, "partitioner": "rebalance"}));
                    }
                    if let Some(e) = doc["edges"].as_array_mut() {
                        e.extend(edges);
                    }
                }
            }
            11 => {
                doc["version"] = if self.chance(50) {
                    self.number()
                } else {
                    self.any_value()
                };
            }
            _ => {
                // A source field at an extreme (rate, records, keys, skew, record_size).
                if let Some(ops) = doc["operators"].as_array_mut() {
                    let i = self.below(ops.len());
                    if ops.get(i).is_some_and(Value::is_object) {
                        let field = *self.pick(&[
                            "rate",
                            "records",
                            "keys",
                            "skew",
                            "record_size",
                            "fan_out",
                            "retention",
                            "legacy",
                            "delivery",
                            "cost",
                        ]);
                        let v = match field {
                            "skew" => json!(*self.pick(&[0.0, 0.999_999_999, 1.0, -0.1, 0.5])),
                            "record_size" | "retention" | "cost" => json!(self.unit_text()),
                            "delivery" => json!(*self.pick(&[
                                "idempotent",
                                "at_least_once",
                                "two_phase_commit",
                                "exactly_twice"
                            ])),
                            "legacy" => json!(self.chance(50)),
                            _ => self.number(),
                        };
                        ops[i][field] = v;
                    }
                }
            }
        }
    }

    /// A mutated preset as text, sometimes also damaged as text.
    pub fn document_text(&mut self) -> String {
        let mut doc = self.preset_value();
        let mutations = *self.pick(&[1, 1, 1, 1, 1, 2, 2, 2, 3, 5]);
        for _ in 0..mutations {
            self.mutate(&mut doc);
        }
        let mut text = if self.chance(50) {
            doc.to_string()
        } else {
            serde_json::to_string_pretty(&doc).expect("serializes")
        };
        if self.chance(15) {
            self.damage_text(&mut text);
        }
        text
    }

    fn damage_text(&mut self, text: &mut String) {
        let mut chars: Vec<char> = text.chars().collect();
        match self.below(4) {
            0 => chars.truncate(self.below(chars.len() + 1)),
            1 if !chars.is_empty() => {
                let i = self.below(chars.len());
                chars[i] = char::from_u32(chars[i] as u32 ^ (1 << self.below(7))).unwrap_or('?');
            }
            2 => {
                let i = self.below(chars.len() + 1);
                chars.insert(
                    i,
                    *self.pick(&['{', '}', '"', ',', '\u{0}', '🚀', ':', '[']),
                );
            }
            _ => chars.extend(" trailing junk }".chars()),
        }
        *text = chars.into_iter().collect();
    }

    /// A link: a document's link (of a preset or a mutated document that parses), damaged.
    pub fn link(&mut self) -> String {
        let doc = loop {
            let text = if self.chance(40) {
                self.preset_value().to_string()
            } else {
                self.document_text()
            };
            if let Ok(d) = scenario::parse_json(&text) {
                break d;
            }
        };
        let mut link = scenario::encode_link(&doc);
        for _ in 0..self.below(3) {
            self.damage_link(&mut link);
        }
        link
    }

    fn damage_link(&mut self, link: &mut String) {
        let mut bytes = link.clone().into_bytes();
        match self.below(7) {
            0 => bytes.truncate(self.below(bytes.len() + 1)),
            1 if !bytes.is_empty() => {
                let i = self.below(bytes.len());
                bytes[i] ^= 1 << self.below(8);
            }
            2 => bytes.extend_from_slice(
                self.pick(&["AAAA", "junk", "==", "%3A", "#z:", "🚀"])
                    .as_bytes(),
            ),
            3 => {
                let prefix = *self.pick(&[
                    "",
                    "https://example.org/#",
                    "#",
                    "y:",
                    "Z:",
                    "z%3A",
                    "pako:",
                    "z::",
                ]);
                let rest = bytes.iter().position(|&b| b == b':').map_or(0, |i| i + 1);
                let mut v = prefix.as_bytes().to_vec();
                v.extend_from_slice(&bytes[rest..]);
                bytes = v;
            }
            4 => {
                let i = self.below(bytes.len() + 1);
                let junk = *self.pick(&["=", " ", "\n", "+/", "é"]);
                bytes.splice(i..i, junk.bytes());
            }
            5 => {
                let copy = bytes.clone();
                bytes.extend_from_slice(&copy);
            }
            _ => {
                let n = self.below(64);
                for _ in 0..n {
                    bytes.push(
                        *self.pick(
                            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
                        ),
                    );
                }
            }
        }
        *link = String::from_utf8_lossy(&bytes).into_owned();
    }

    /// A valid preset (sometimes lightly mutated while still valid) and random live actions.
    pub fn actions(&mut self) -> Input {
        let doc = loop {
            let mut v = self.preset_value();
            if self.chance(40) {
                self.mutate(&mut v);
            }
            let text = v.to_string();
            if scenario::parse_json(&text).is_ok_and(|d| scenario::to_spec(&d).is_ok()) {
                break v;
            }
        };
        let mut at = 0;
        let mut actions = Vec::new();
        for _ in 0..1 + self.below(8) {
            at += self.0.below(400_000);
            let seek = self.chance(15).then(|| self.0.below(at + 1));
            let action = self.action(&doc);
            actions.push(LiveAction { at, seek, action });
        }
        Input::Actions {
            doc: doc.to_string(),
            actions,
        }
    }

    fn action(&mut self, doc: &Value) -> Action {
        match self.below(6) {
            0 => Action::SetCost {
                operator: self.target(doc),
                cost: *self.pick(&[0, 1, 100, 10_000, 10_000_000, 10_000_001, u64::MAX]),
            },
            1 => Action::SetRate {
                operator: self.target(doc),
                rate: *self.pick(&[
                    0.0,
                    -1.0,
                    1.0,
                    1e6,
                    1e6 + 1.0,
                    f64::NAN,
                    f64::INFINITY,
                    1e-9,
                    123.5,
                ]),
            },
            2 => Action::Fail {
                operator: self.target(doc),
                subtask: *self.pick(&[0, 1, 2, 31, 32, u32::MAX]),
            },
            3 => Action::TriggerCheckpoint,
            4 => {
                if self.chance(30) {
                    let combo = *self.pick(COMBOS);
                    let (k, v) = *self.pick(combo);
                    Action::SetConfig {
                        key: k.into(),
                        value: v.into(),
                    }
                } else {
                    let value = match self.config_value() {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    Action::SetConfig {
                        key: (*self.pick(CONFIG_KEYS)).into(),
                        value,
                    }
                }
            }
            _ => Action::SetPartitioner {
                from: self.target(doc),
                to: self.target(doc),
                partitioner: *self.pick(&[
                    Partitioner::Forward,
                    Partitioner::Rebalance,
                    Partitioner::Rescale,
                    Partitioner::Hash,
                    Partitioner::Broadcast,
                ]),
            },
        }
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn at_path<'a>(v: &'a Value, path: &[Step]) -> &'a Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &v[k.as_str()],
        Step::Index(i) => &v[*i],
    })
}

fn at_path_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

fn push_event(doc: &mut Value, ev: Value) {
    if !doc["events"].is_array() {
        doc["events"] = json!([]);
    }
    if let Some(a) = doc["events"].as_array_mut() {
        a.push(ev);
    }
}

/// A smaller document that still fails in the same way (`still_fails`): greedily drops
/// array elements and object fields, and shortens strings, while the failure persists.
/// Bounded by `budget` attempts, so it always ends.
pub fn minimize(doc: &Value, still_fails: impl Fn(&Value) -> bool, budget: usize) -> Value {
    let mut best = doc.clone();
    let mut tries = 0;
    loop {
        let mut improved = false;
        let mut all = Vec::new();
        Gen::paths(&best, &mut Vec::new(), &mut all);
        // Largest subtrees first: the deepest paths come last in `paths`' order.
        for path in all.iter().skip(1) {
            if tries >= budget {
                return best;
            }
            let mut candidate = best.clone();
            let mut parent_path = path.clone();
            let Some(last) = parent_path.pop() else {
                continue;
            };
            let parent = at_path_mut(&mut candidate, &parent_path);
            let changed = match (parent, &last) {
                (Value::Object(m), Step::Key(k)) => m.remove(k).is_some(),
                (Value::Array(a), Step::Index(i)) if *i < a.len() => {
                    a.remove(*i);
                    true
                }
                _ => false,
            };
            if !changed {
                continue;
            }
            tries += 1;
            if still_fails(&candidate) {
                best = candidate;
                improved = true;
                break;
            }
        }
        if !improved {
            return best;
        }
    }
}
