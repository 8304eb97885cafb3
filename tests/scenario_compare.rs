//! Comparison runs: the `compare` field of a scenario, the two variant documents derived
//! from it, and the figure the comparison view promises on the backpressure preset
//! (aligned checkpoints take far longer, unaligned ones persist in-flight data).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::compare::{self, Comparison, Figures, Mode};
use checkpoint_playground::scenario::{self, ConfigValue, Document};
use std::process::Command;

fn backpressure() -> Document {
    scenario::preset("backpressure").unwrap()
}

fn text(doc: &Document, key: &str) -> Option<String> {
    doc.config.get(key).map(ConfigValue::to_flink_string)
}

#[test]
fn variants_differ_only_in_the_mode_keys() {
    let mut doc = backpressure();
    doc.compare = Some(Comparison::ac_vs_uc());
    for cmp in [
        Comparison::ac_vs_uc(),
        Comparison::parse("aligned|timeout:200ms", "t").unwrap(),
        Comparison::parse("unaligned|timeout:1s", "t").unwrap(),
    ] {
        let (a, b) = compare::variants(&doc, &cmp).unwrap();
        for (v, mode) in [(&a, &cmp.a), (&b, &cmp.b)] {
            assert_eq!(v.compare, None, "a variant is a single run");
            assert_eq!(v.guide, None, "a variant is not the preset: no guide");
            let (unaligned, timeout) = mode.config();
            assert_eq!(text(v, compare::UNALIGNED_KEY).as_deref(), Some(unaligned));
            assert_eq!(text(v, compare::TIMEOUT_KEY), Some(timeout));
            // Everything but the two keys (and the name) is the original's.
            let mut rest = v.clone();
            rest.config.remove(compare::UNALIGNED_KEY);
            rest.config.remove(compare::TIMEOUT_KEY);
            rest.name = doc.name.clone();
            rest.compare = doc.compare.clone();
            rest.guide = doc.guide.clone();
            assert_eq!(rest, doc, "{}", mode.text());
            assert!(v.name.contains(&mode.label()), "{}", v.name);
        }
        let (sa, sb) = (
            scenario::to_spec(&a).unwrap(),
            scenario::to_spec(&b).unwrap(),
        );
        assert_eq!(sa.seed, sb.seed);
        assert_eq!(sa.events, sb.events);
        assert_eq!(sa.operators, sb.operators);
        assert_ne!(sa.config, sb.config, "{}", cmp.text());
    }
}

#[test]
fn variants_replace_an_alias_of_a_mode_key() {
    let mut doc = backpressure();
    doc.config.insert(
        "execution.checkpointing.unaligned".into(),
        ConfigValue::Bool(true),
    );
    let (a, _) = compare::variants(&doc, &Comparison::ac_vs_uc()).unwrap();
    assert!(!a.config.contains_key("execution.checkpointing.unaligned"));
    assert!(!scenario::to_spec(&a).unwrap().config.unaligned);
}

#[test]
fn a_link_with_compare_round_trips() {
    let mut doc = backpressure();
    doc.compare = Some(Comparison::parse("aligned|timeout:200ms", "t").unwrap());
    let json = doc.to_json_compact();
    assert!(
        json.contains(r#""compare":{"a":"aligned","b":"timeout:200ms"}"#),
        "{json}"
    );
    let back = scenario::decode_link(&scenario::encode_link(&doc)).unwrap();
    assert_eq!(back, doc);
    assert_eq!(
        back.compare.unwrap().b,
        Mode::Timeout(200_000),
        "the timeout is read as a duration"
    );
}

#[test]
fn old_links_without_compare_open_unchanged() {
    // A link made by hand from the preset file, as a playground before `compare` wrote it.
    let file = std::fs::read_to_string("presets/backpressure.json").unwrap();
    let value: serde_json::Value = serde_json::from_str(&file).unwrap();
    let minified = serde_json::to_string(&value).unwrap();
    let z = miniz_oxide::deflate::compress_to_vec(minified.as_bytes(), 9);
    let link = format!("https://example.org/#z:{}", URL_SAFE_NO_PAD.encode(z));
    let doc = scenario::decode_link(&link).unwrap();
    assert_eq!(doc.compare, None);
    assert_eq!(doc, backpressure());
    assert!(!doc.to_json_compact().contains("\"compare\""));
}

#[test]
fn an_invalid_compare_names_the_field() {
    let with = |compare: &str| {
        let mut value: serde_json::Value =
            serde_json::from_str(&backpressure().to_json_compact()).unwrap();
        value["compare"] = serde_json::from_str(compare).unwrap();
        Document::from_value(&value).unwrap_err()
    };
    let e = with(r#"{"a": "aligned", "b": "sideways"}"#);
    assert_eq!(e.path, "compare.b");
    assert!(
        e.message.contains("unknown checkpoint mode 'sideways'"),
        "{e}"
    );
    assert!(e.message.contains("timeout:<duration>"), "{e}");
    let e = with(r#"{"a": "timeout:soon", "b": "aligned"}"#);
    assert_eq!(e.path, "compare.a");
    assert!(e.message.contains("bad timeout duration"), "{e}");
    let e = with(r#"{"a": "aligned"}"#);
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("compare.b", "is required but missing")
    );
    let e = with(r#"{"a": "aligned", "b": "aligned"}"#);
    assert_eq!(e.path, "compare");
    assert!(e.message.contains("both runs use 'aligned'"), "{e}");
    let e = with(r#"{"a": "aligned", "b": "unaligned", "c": "x"}"#);
    assert_eq!(e.path, "compare.c");
    let e = with(r#""aligned vs unaligned""#);
    assert_eq!(e.path, "compare");
    assert!(e.message.contains("expected an object"), "{e}");
    let e = with(r#"{"a": "aligned", "b": 3}"#);
    assert_eq!(e.path, "compare.b");
    let e = with(r#"{"a": "aligned", "b": "timeout:0s"}"#);
    assert!(e.message.contains("write \"unaligned\""), "{e}");
    let e = Comparison::parse("aligned", "--compare").unwrap_err();
    assert_eq!(e.path, "--compare");
}

#[test]
fn a_variant_that_cannot_run_names_the_run() {
    let mut doc = backpressure();
    doc.set_config("execution.checkpointing.mode", "AT_LEAST_ONCE")
        .unwrap();
    let e = compare::variants(&doc, &Comparison::ac_vs_uc()).unwrap_err();
    assert_eq!(e.path, "compare.b");
    assert!(
        e.message.contains("run 'unaligned' does not validate"),
        "{e}"
    );
}

fn run(doc: &Document) -> Figures {
    let mut engine = Engine::new(scenario::to_spec(doc).unwrap()).unwrap();
    engine.run_to_end();
    let report = engine.report();
    let f = Figures::of(&report);
    // Every completed aligned checkpoint persists nothing; the medians agree.
    if !engine.config.unaligned {
        assert!(report
            .checkpoints
            .iter()
            .all(|c| c.persisted_inflight_bytes == 0));
    }
    f
}

#[test]
fn backpressure_aligned_is_slow_and_unaligned_persists_inflight_data() {
    let (a, b) = compare::variants(&backpressure(), &Comparison::ac_vs_uc()).unwrap();
    let (ac, uc) = (run(&a), run(&b));
    // The longest checkpoint, not the median: the first periodic trigger comes after a
    // random delay (`CheckpointCoordinator.getRandomInitDelay`), so the backpressure-free
    // first 20s hold about half of the checkpoints and the median may fall on either side.
    let (ac_e2e, uc_e2e) = (ac.max_end_to_end_ms.unwrap(), uc.max_end_to_end_ms.unwrap());
    println!("max e2e: aligned {ac_e2e} ms, unaligned {uc_e2e} ms; {ac:?} {uc:?}");
    assert!(
        ac_e2e > 4.0 * uc_e2e,
        "aligned longest {ac_e2e} ms should be well above unaligned {uc_e2e} ms"
    );
    assert!(ac.median_alignment_ms.unwrap() > uc.median_alignment_ms.unwrap());
    assert_eq!(ac.median_persisted_bytes, Some(0));
    assert!(uc.median_persisted_bytes.unwrap() > 0);
    assert!(uc.completed > ac.completed, "{uc:?} {ac:?}");
    // Both recover exactly once from the failure at 45s.
    for f in [&ac, &uc] {
        assert_eq!(f.failures, 1);
        assert!(f.replayed_records > 0);
        assert_eq!((f.duplicates, f.lost), (0, 0));
    }
}

fn compare_backpressure(modes: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_checkpoint-playground"))
        .args(["run", "--preset", "backpressure", "--compare", modes])
        .output()
        .unwrap()
}

#[test]
fn the_runner_compares_side_by_side() {
    let out = compare_backpressure("aligned|unaligned");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("median persisted in-flight"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains("0 B") && row.contains("KB"), "{row}");
    assert!(
        text.contains("aligned (AC)") && text.contains("unaligned (UC)"),
        "{text}"
    );

    let out = compare_backpressure("aligned|bogus");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("error: --compare.b: unknown checkpoint mode 'bogus'"),
        "{err}"
    );
}
