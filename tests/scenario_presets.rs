//! Presets: every one parses, validates, round-trips, and stays short enough to run fast.

use checkpoint_playground::engine::spec::OperatorKind;
use checkpoint_playground::scenario::{
    self, default_document, from_spec, parse_json, preset, preset_names, to_spec,
};

#[test]
fn every_preset_parses_validates_and_round_trips() {
    assert!(preset_names().len() >= 13);
    for name in preset_names() {
        let doc = preset(name).unwrap_or_else(|| panic!("{name} missing"));
        let desc = doc.description.as_deref().unwrap_or_default();
        assert!(
            desc.len() > 80,
            "{name} needs a description of what to watch"
        );
        let spec = to_spec(&doc).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            (10_000_000..=60_000_000).contains(&spec.duration),
            "{name} runs 10-60s"
        );
        // doc -> spec -> doc -> spec
        let back = from_spec(&spec);
        assert_eq!(to_spec(&back).unwrap(), spec, "{name}");
        // ... and through pretty JSON
        let reparsed = parse_json(&scenario::to_json_pretty(&doc)).unwrap();
        assert_eq!(reparsed, doc, "{name}");
        // The exported document keeps defaults out and re-exports identically.
        assert_eq!(from_spec(&to_spec(&back).unwrap()), back, "{name}");
    }
    assert!(preset("no-such-preset").is_none());
}

#[test]
fn presets_show_what_they_promise() {
    let spec = |n: &str| to_spec(&preset(n).unwrap()).unwrap();
    assert!(!spec("backpressure").config.unaligned);
    let uc = spec("unaligned").config;
    assert!(uc.unaligned && uc.aligned_checkpoint_timeout == 0);
    assert_eq!(
        spec("aligned-timeout").config.aligned_checkpoint_timeout,
        200_000
    );
    assert_eq!(
        spec("seed-settings").config.aligned_checkpoint_timeout,
        600_000_000
    );
    let small = spec("small-files");
    assert_eq!(small.config.max_subtasks_per_channel_state_file, 1);
    assert!(small.operators.iter().all(|o| o.parallelism >= 8));
    let large: u32 = spec("large").operators.iter().map(|o| o.parallelism).sum();
    assert!(large >= 20);
    let stuck = spec("flatmap-stuck");
    assert!(!stuck.config.availability_check);
    assert_eq!(stuck.config.max_overdraft_buffers_per_gate, 0);
    let legacy = spec("legacy-source");
    assert!(legacy
        .operators
        .iter()
        .any(|o| matches!(&o.kind, OperatorKind::Source(s) if s.api.is_legacy())));
    let why = spec("why-uc");
    assert!(why
        .operators
        .iter()
        .any(|o| matches!(&o.kind, OperatorKind::Source(s) if s.retention.is_some())));
}

#[test]
fn the_default_document_is_a_preset() {
    let doc = default_document();
    assert_eq!(Some(doc.clone()), preset("backpressure"));
    to_spec(&doc).unwrap();
}
