//! The golden fixtures: one list (`fixtures.json`) of scenarios and the event hash each must
//! give, read by the native test (`tests/engine_golden.rs`) and the browser test
//! (`tests/wasm_engine.rs`) through `include_str!`, so both hosts check exactly the same
//! runs. A fixture is a preset or an inline scenario document, run to `until`; one with
//! `live` also applies those actions through `Engine::apply` at their instants while a
//! `Rewinder` keeps snapshots, and one with `seek_to` then seeks back there and replays to
//! `until`: the hash after the seek and replay, the live run's hash and a straight run of
//! the live run's recorded spec (what its link replays) must all be the fixture's hash.
//! When the engine's behaviour changes on purpose, the native test prints the new hashes.
#![allow(dead_code)]

use checkpoint_playground::engine::spec::{JobSpec, TimedAction};
use checkpoint_playground::engine::time::{parse_duration, Micros};
use checkpoint_playground::engine::time_travel::Rewinder;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::{self, Document};
use serde_json::Value;

pub const FIXTURES_JSON: &str = include_str!("fixtures.json");

pub struct Fixture {
    pub name: String,
    /// The preset it runs, if it is one.
    pub preset: Option<String>,
    pub doc: Document,
    pub until: Micros,
    pub hash: u64,
    /// Live actions applied with `Engine::apply` at their `at`.
    pub live: Vec<TimedAction>,
    pub seek_to: Option<Micros>,
}

fn duration(v: &Value, name: &str, field: &str) -> Micros {
    let text = v[field]
        .as_str()
        .unwrap_or_else(|| panic!("fixture {name}: `{field}` is not a duration string"));
    parse_duration(text).unwrap_or_else(|e| panic!("fixture {name}: {field}: {e}"))
}

/// Every fixture of `fixtures.json`, in file order.
pub fn fixtures() -> Vec<Fixture> {
    let list: Value = serde_json::from_str(FIXTURES_JSON).expect("fixtures.json is JSON");
    let list = list.as_array().expect("fixtures.json is a list");
    list.iter()
        .map(|f| {
            let name = f["name"].as_str().expect("fixture has a name").to_string();
            let preset = f["preset"].as_str().map(str::to_string);
            let doc = match &preset {
                Some(p) => scenario::preset(p).unwrap_or_else(|| panic!("no preset {p}")),
                None => scenario::parse_json(&f["scenario"].to_string())
                    .unwrap_or_else(|e| panic!("fixture {name}: {e}")),
            };
            let hash_text = f["hash"].as_str().expect("hash is a string");
            let hash = u64::from_str_radix(hash_text.trim_start_matches("0x"), 16)
                .unwrap_or_else(|e| panic!("fixture {name}: hash: {e}"));
            let live = match f.get("live") {
                Some(events) => {
                    // The live actions as the engine's actions: a copy of the document
                    // whose events are those actions, converted (and so validated).
                    let mut with: Value =
                        serde_json::from_str(&doc.to_json_compact()).expect("a document is JSON");
                    with["events"] = events.clone();
                    let d = scenario::parse_json(&with.to_string())
                        .unwrap_or_else(|e| panic!("fixture {name}: live: {e}"));
                    scenario::to_spec(&d)
                        .unwrap_or_else(|e| panic!("fixture {name}: live: {e}"))
                        .events
                }
                None => Vec::new(),
            };
            let seek_to = f.get("seek_to").map(|_| duration(f, &name, "seek_to"));
            Fixture {
                until: duration(f, &name, "until"),
                name,
                preset,
                doc,
                hash,
                live,
                seek_to,
            }
        })
        .collect()
}

pub fn spec_of(f: &Fixture) -> JobSpec {
    scenario::to_spec(&f.doc).unwrap_or_else(|e| panic!("fixture {}: {e}", f.name))
}

/// The run a fixture describes; `Err` says which of its hashes disagree with each other
/// (live vs seek vs link replay). `Ok` is the hash all of them agree on.
pub fn hash_of(f: &Fixture) -> Result<u64, String> {
    let spec = spec_of(f);
    if f.live.is_empty() && f.seek_to.is_none() {
        let mut e = Engine::new(spec).map_err(|e| e.to_string())?;
        e.run_until(f.until);
        return Ok(e.event_hash());
    }
    const FRAME: Micros = 100_000;
    let play = |live: &mut Engine, rw: &mut Rewinder, t: Micros| {
        while live.now() < t && !live.is_done() {
            live.run_until((live.now() + FRAME).min(t));
            rw.observe(live);
        }
    };
    let mut live = Engine::new(spec).map_err(|e| e.to_string())?;
    let mut rw = Rewinder::new(&live, 1_000_000, 32);
    for a in &f.live {
        play(&mut live, &mut rw, a.at);
        live.apply(a.action.clone())
            .map_err(|e| format!("live action at {} µs refused: {e}", a.at))?;
    }
    play(&mut live, &mut rw, f.until);
    let live_hash = live.event_hash();
    let mut replay = Engine::new(live.spec().clone()).map_err(|e| e.to_string())?;
    replay.run_until(f.until);
    if replay.event_hash() != live_hash {
        return Err(format!(
            "replaying the live run's spec gives 0x{:016x}, the live run 0x{live_hash:016x}",
            replay.event_hash()
        ));
    }
    if let Some(t) = f.seek_to {
        let mut back = rw.seek(t, &live)?;
        back.run_until(f.until);
        if back.event_hash() != live_hash {
            return Err(format!(
                "seeking to {t} µs and replaying gives 0x{:016x}, the straight run 0x{live_hash:016x}",
                back.event_hash()
            ));
        }
    }
    Ok(live_hash)
}

/// Checks every fixture; one line per fixture whose hash differs (with the value to paste
/// into `fixtures.json`) or whose runs disagree.
pub fn check_all() -> Vec<String> {
    let mut wrong = Vec::new();
    for f in fixtures() {
        match hash_of(&f) {
            Ok(h) if h == f.hash => {}
            Ok(h) => wrong.push(format!(
                "{}: \"hash\": \"0x{h:016x}\" (fixture says 0x{:016x})",
                f.name, f.hash
            )),
            Err(e) => wrong.push(format!("{}: {e}", f.name)),
        }
    }
    wrong
}
