//! Fuzzing in the test command: structure-aware mutations of scenario documents, links and
//! live action sequences (`tests/fuzz_support`), a bounded number of cases on every
//! `cargo test` and thousands in the long mode:
//!
//! ```sh
//! CP_FUZZ_CASES=20000 cargo test --test fuzz_scenarios -- --nocapture   # per family
//! CP_FUZZ_SEED=1234 cargo test --test fuzz_scenarios                    # another base seed
//! CP_FUZZ_STRICT=1 …                                 # known families fail too
//! ```
//!
//! Each case must not panic (caught per case; the seed and the input are printed), every
//! refusal must name a path, and every accepted scenario runs up to 2 s of virtual time or
//! 50,000 events with the engine's invariants checked. Every crash found is kept, minimized, in
//! `tests/fuzz_support/regressions.json` and replayed on every run. Crashes of a known
//! family another change is about to fix (`fuzz_support::KNOWN_FAMILIES`, empty today) are
//! counted, not failed.
//!
//! Measured on the project's 2-core machine: the default 300 cases per family take ~8 s;
//! `CP_FUZZ_CASES=7000` (21,000 cases) 203 s, with 0 failures and 77 panics of the known
//! debloat-clamp family (34 documents, 15 links, 28 live action sequences).

mod fuzz_support;

use checkpoint_playground::engine::rng::Rng;
use fuzz_support::{generate, known_family, panic_text, run_case, Input, Outcome};
use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

/// Cases per family on every run (each bounded by events and virtual time, not wall time).
const DEFAULT_CASES: u64 = 300;
const DEFAULT_SEED: u64 = 0x5EED_0021;

fn cases() -> u64 {
    std::env::var("CP_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

fn base_seed() -> u64 {
    std::env::var("CP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_SEED)
}

fn strict() -> bool {
    std::env::var("CP_FUZZ_STRICT").is_ok_and(|v| v == "1")
}

thread_local! {
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Panics inside cases are caught; the hook records the message and location instead of
/// printing each one (the fuzz report prints them with the seed and input).
fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let text = format!(
                "{} at {}",
                panic_text(info.payload()),
                info.location()
                    .map_or("?".into(), |l| format!("{}:{}", l.file(), l.line()))
            );
            let in_case = LAST_PANIC.with(|p| {
                let mut p = p.borrow_mut();
                let in_case = p.as_str() == "armed";
                if in_case {
                    *p = text.clone();
                }
                in_case
            });
            if !in_case {
                default(info);
            }
        }));
    });
}

/// Runs one case: `Ok(outcome)`, or `Err((known family if any, what went wrong))`.
fn check(input: &Input) -> Result<Outcome, (Option<&'static str>, String)> {
    quiet_panics();
    LAST_PANIC.with(|p| *p.borrow_mut() = "armed".into());
    let result = catch_unwind(AssertUnwindSafe(|| run_case(input)));
    let panic = LAST_PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()));
    match result {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(broken)) => Err((None, broken)),
        Err(_) => Err((known_family(&panic), format!("panicked: {panic}"))),
    }
}

#[derive(Default)]
struct Tally {
    refused: u64,
    refusals: std::collections::BTreeMap<String, u64>,
    ran: u64,
    actions_refused: usize,
    known: Vec<(&'static str, u64)>,
    failures: Vec<String>,
}

fn fuzz(family: &str) -> Tally {
    let (n, base) = (cases(), base_seed());
    let mut seeds = Rng::new(base ^ family.len() as u64);
    let mut t = Tally::default();
    for i in 0..n {
        let seed = seeds.next_u64();
        let input = generate(family, seed);
        match check(&input) {
            Ok(Outcome::Refused(path)) => {
                t.refused += 1;
                *t.refusals.entry(path).or_default() += 1;
            }
            Ok(Outcome::Ran { actions_refused }) => {
                t.ran += 1;
                t.actions_refused += actions_refused;
            }
            Err((Some(known), _)) if !strict() => {
                t.ran += 1;
                t.known.push((known, seed));
            }
            Err((_, what)) => t.failures.push(format!(
                "case {i} of {family} (CP_FUZZ_SEED={base}, case seed {seed}): {what}\n{input}{}",
                minimized(&input, &what)
            )),
        }
    }
    println!(
        "fuzz {family}: {n} cases (base seed {base}): {} refused with a path, {} ran \
         ({} live actions refused), {} of a known family {:?}, {} failures",
        t.refused,
        t.ran,
        t.actions_refused,
        t.known.len(),
        t.known.iter().take(5).collect::<Vec<_>>(),
        t.failures.len()
    );
    if std::env::var("CP_FUZZ_VERBOSE").is_ok() {
        let mut by_count: Vec<_> = t.refusals.iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(a.1));
        for (path, n) in by_count.iter().take(25) {
            println!("  refused at {path}: {n}");
        }
    }
    t
}

/// What identifies a failure: the panic's location, or the broken contract's first words.
fn signature(what: &str) -> String {
    match what.rsplit_once(" at ") {
        Some((_, location)) if what.starts_with("panicked") => location.to_string(),
        _ => what.chars().take(40).collect(),
    }
}

/// For a failing document, the smallest document found that fails the same way, to paste
/// into `tests/fuzz_support/regressions.json`.
fn minimized(input: &Input, what: &str) -> String {
    let Input::Document(text) = input else {
        return String::new();
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return String::new();
    };
    let want = signature(what);
    let small = fuzz_support::minimize(
        &value,
        |v| matches!(check(&Input::Document(v.to_string())), Err((_, w)) if signature(&w) == want),
        400,
    );
    format!("\nminimized:\n{small}")
}

fn assert_clean(family: &str) {
    let t = fuzz(family);
    assert!(
        t.failures.is_empty(),
        "{} of {} {family} cases failed; first ones:\n{}",
        t.failures.len(),
        cases(),
        t.failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

#[test]
fn fuzzed_documents_never_crash_and_refusals_name_a_path() {
    assert_clean("document");
}

#[test]
fn fuzzed_links_never_crash_and_refusals_name_a_path() {
    assert_clean("link");
}

#[test]
fn fuzzed_live_action_sequences_keep_the_invariants() {
    assert_clean("actions");
}

#[test]
fn the_fuzzer_reaches_both_refusals_and_runs() {
    // A generator that only produced garbage (or only valid input) would test little.
    let mut seeds = Rng::new(7);
    let (mut refused, mut ran) = (0, 0);
    for _ in 0..40 {
        match check(&generate("document", seeds.next_u64())) {
            Ok(Outcome::Refused(_)) => refused += 1,
            _ => ran += 1,
        }
    }
    assert!(refused >= 5 && ran >= 5, "refused {refused}, ran {ran}");
}

/// The minimized crashes found so far, in `tests/fuzz_support/regressions.json`.
fn regressions() -> Vec<(String, Option<String>, Input)> {
    let list: serde_json::Value =
        serde_json::from_str(include_str!("fuzz_support/regressions.json")).expect("JSON");
    list.as_array()
        .expect("a list")
        .iter()
        .map(|r| {
            let name = r["name"].as_str().expect("name").to_string();
            let known = r["known_family"].as_str().map(str::to_string);
            let input = match (r.get("document"), r.get("link")) {
                (Some(d), _) => Input::Document(d.to_string()),
                (None, Some(l)) => Input::Link(l.as_str().expect("link text").to_string()),
                _ => panic!("regression {name} has neither document nor link"),
            };
            (name, known, input)
        })
        .collect()
}

fn replay(select: impl Fn(Option<&str>) -> bool) {
    let mut failed = Vec::new();
    let mut replayed = 0;
    for (name, known, input) in regressions() {
        if !select(known.as_deref()) {
            continue;
        }
        replayed += 1;
        if let Err((_, what)) = check(&input) {
            failed.push(format!("{name}: {what}"));
        }
    }
    println!("replayed {replayed} fuzz regressions");
    assert!(replayed > 0, "no regression selected");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn every_crash_found_by_fuzzing_stays_fixed() {
    replay(|known| known.is_none());
}
