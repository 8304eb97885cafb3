//! The catalogue's completeness: every text the interface asks for has both languages
//! with the same arguments, and every guide translation matches its preset.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::catalogue::ZH;
use super::{guides, messages, placeholders, steps, Lang};

/// Reads a Rust string literal starting after its opening quote; `None` if unterminated.
fn literal(src: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = src.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '\n' => {
                    // A line continuation: skip the next line's leading whitespace.
                    let rest: String = chars.clone().collect();
                    let trimmed = rest.trim_start();
                    chars = src[src.len() - trimmed.len()..].chars();
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every key passed to `t("…")`, `tf("…"` or `t_in(lang, "…")` in `src/ui`, with the file.
fn ui_keys() -> BTreeMap<String, String> {
    let root = checkpoint_playground_core::repository_root();
    let mut files = vec![];
    rust_files(&root.join("src/ui"), &mut files);
    let mut keys = BTreeMap::new();
    for f in files.into_iter().filter(|f| !f.ends_with("i18n/tests.rs")) {
        let src = std::fs::read_to_string(&f).unwrap();
        // The literal may start on the next line (rustfmt breaks a long call after its
        // parenthesis).
        for call in ["t(", "tf(", "t_static("] {
            let mut from = 0;
            while let Some(i) = src[from..].find(call) {
                let at = from + i;
                from = at + call.len();
                let before = src[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let rest = src[from..].trim_start();
                let Some(quoted) = rest.strip_prefix('"') else {
                    continue;
                };
                from = src.len() - quoted.len();
                let key = literal(quoted).expect("terminated literal");
                keys.insert(key, f.display().to_string());
            }
        }
    }
    keys
}

/// The codes of the engine's structured messages: in `src/engine`, literals holding
/// `{0}`; in `src/engine`, `src/scenario` and `src/ui`, every literal a `Msg::new(` starts with
/// (codes without arguments, such as the job's problems "must be 1 to 64 characters").
fn engine_codes() -> BTreeSet<String> {
    let root = checkpoint_playground_core::repository_root();
    let mut codes = BTreeSet::new();
    // `src/ui` builds a few messages of its own (the editor's notes): their codes too.
    for dir in ["src/engine", "src/scenario", "src/ui"] {
        let mut files = vec![];
        rust_files(&root.join(dir), &mut files);
        for f in files {
            let src = std::fs::read_to_string(&f).unwrap();
            if dir == "src/engine" {
                for (i, _) in src.match_indices('"') {
                    if let Some(l) = literal(&src[i + 1..]) {
                        // A "literal" across lines is the text between two literals (a
                        // quote pairing that started at a closing quote): codes are one line.
                        if l.contains("{0}") && !l.contains('"') && !l.contains('\n') {
                            codes.insert(l);
                        }
                    }
                }
            }
            for (i, m) in src.match_indices("Msg::new(") {
                let rest = src[i + m.len()..].trim_start();
                // (A code is one line: this file's own `"Msg::new("` is no call.)
                if let Some(l) = rest.strip_prefix('"').and_then(literal) {
                    if !l.contains('\n') {
                        codes.insert(l);
                    }
                }
            }
        }
    }
    codes
}

#[test]
fn every_key_the_interface_uses_has_chinese_with_the_same_arguments() {
    let zh: BTreeMap<&str, &str> = ZH.iter().copied().collect();
    assert_eq!(zh.len(), ZH.len(), "a key is in the catalogue twice");
    let mut missing = vec![];
    for (key, file) in ui_keys() {
        match zh.get(key.as_str()) {
            None => missing.push(format!("{file}: {key:?}")),
            Some(z) => assert_eq!(
                placeholders(&key),
                placeholders(z),
                "{file}: {key:?} and its Chinese {z:?} take different arguments"
            ),
        }
    }
    assert!(
        missing.is_empty(),
        "{} key(s) without Chinese:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn every_catalogue_entry_has_the_same_arguments_and_is_chinese() {
    for (en, zh) in ZH {
        assert_eq!(placeholders(en), placeholders(zh), "{en:?} vs {zh:?}");
        // Chinese: an ideograph, or (for a pure joint of clauses such as "{0}: {1}")
        // Chinese punctuation (CJK symbols, full-width forms).
        let chinese = |c: char| {
            ('\u{4e00}'..='\u{9fff}').contains(&c)
                || ('\u{3000}'..='\u{303f}').contains(&c)
                || ('\u{ff00}'..='\u{ffef}').contains(&c)
        };
        assert!(
            zh.chars().any(chinese) || en == zh,
            "{en:?}: the Chinese text {zh:?} has no Chinese"
        );
    }
}

#[test]
fn every_engine_message_code_has_chinese() {
    let zh: BTreeSet<&str> = ZH.iter().map(|(en, _)| *en).collect();
    let codes = engine_codes();
    assert!(codes.len() >= 8, "found {} codes", codes.len());
    // A code without arguments is found too (the job's problems have many).
    assert!(codes.contains("must be 1 to 64 characters"));
    for code in codes {
        assert!(
            zh.contains(code.as_str()),
            "engine code without Chinese: {code:?}"
        );
    }
}

#[test]
fn the_browser_language_decides_until_the_viewer_picks() {
    assert_eq!(Lang::from_preferences(["zh-CN", "en"]), Lang::Zh);
    assert_eq!(Lang::from_preferences(["zh-Hant-TW"]), Lang::Zh);
    assert_eq!(Lang::from_preferences(["fr-FR", "zh"]), Lang::Zh);
    assert_eq!(Lang::from_preferences(["de", "en-GB", "zh"]), Lang::En);
    assert_eq!(Lang::from_preferences(["fr"]), Lang::En);
    assert_eq!(Lang::from_preferences([]), Lang::En);
    assert_eq!(Lang::from_tag(Lang::Zh.tag()), Some(Lang::Zh));
    assert_eq!(Lang::from_tag(Lang::En.tag()), Some(Lang::En));
}

#[test]
fn fill_puts_arguments_in_place_and_leaves_other_braces() {
    assert_eq!(super::fill("{1} / {0}", &[&"a", &2]), "2 / a");
    assert_eq!(super::fill("a {b} {0}", &[&"x"]), "a {b} x");
    assert_eq!(super::fill("{0}{0}", &[&1]), "11");
}

/// Runs `preset` to its end and checks every structured log entry: its English is the
/// logged text (the run is unchanged) and its Chinese has no placeholder left.
fn steps_of(preset: &str) -> usize {
    let doc = crate::scenario::preset(preset).unwrap();
    let mut engine = crate::engine::Engine::new(crate::scenario::to_spec(&doc).unwrap()).unwrap();
    let mut coded = 0;
    let mut seen = 0;
    while engine.step() {
        let total = engine.log.total;
        for e in engine.log.entries.iter().skip(
            engine
                .log
                .entries
                .len()
                .saturating_sub((total - seen) as usize),
        ) {
            if let Some(msg) = &e.msg {
                coded += 1;
                assert_eq!(msg.english(), e.text);
                let line = steps::StepLine::logged(e.at, e.text.clone(), Some(msg.clone()));
                let zh = steps::render(&line, Lang::Zh);
                assert!(!zh.contains('{'), "{preset}: {zh}");
                assert_ne!(
                    zh,
                    steps::render(&line, Lang::En),
                    "{preset}: not translated"
                );
            }
        }
        seen = total;
    }
    coded
}

#[test]
fn checkpoint_steps_of_presets_translate_without_leftovers() {
    for preset in ["two-phases", "aligned-timeout", "stop-with-savepoint"] {
        assert!(steps_of(preset) > 10, "{preset}: too few structured steps");
    }
}

#[test]
fn phase_stops_name_their_subtasks_in_both_languages() {
    let line = steps::StepLine::phase(
        1_500_000,
        steps::SYNC_PHASE,
        vec![("parse (1/2)".into(), 3), ("parse (2/2)".into(), 3)],
    );
    assert_eq!(
        steps::render(&line, Lang::En),
        "1.500s  sync phase: parse (1/2) (checkpoint 3), parse (2/2) (checkpoint 3) takes its synchronous snapshot (the task thread is held; barriers go to the outputs)"
    );
    let zh = steps::render(&line, Lang::Zh);
    assert!(
        zh.starts_with("1.500s  同步阶段：parse (1/2)（检查点 3）、parse (2/2)（检查点 3）"),
        "{zh}"
    );
}

#[test]
fn guide_translations_match_their_presets() {
    for (name, json) in guides::FILES {
        let zh = guides::parse(json).unwrap_or_else(|e| panic!("presets/i18n/zh/{name}.json: {e}"));
        let doc = crate::scenario::preset(name).unwrap_or_else(|| panic!("no preset {name}"));
        let g = doc.guide.as_ref().expect("a guide");
        assert_eq!(zh.watch.len(), g.watch.len(), "{name}: watch");
        assert_eq!(zh.expect.len(), g.expect.len(), "{name}: expect");
        assert_eq!(zh.tries.len(), g.tries.len(), "{name}: try");
        for (i, (tz, t)) in zh.tries.iter().zip(&g.tries).enumerate() {
            assert_eq!(tz.expect.len(), t.expect.len(), "{name}: try[{i}].expect");
        }
        assert_eq!(
            zh.description.is_some(),
            doc.description.is_some(),
            "{name}: description"
        );
        let translated = guides::translate(g, &zh);
        assert_eq!(translated.expect.len(), g.expect.len());
        for (a, b) in translated.expect.iter().zip(&g.expect) {
            assert_eq!(
                (a.metric, a.min, a.max),
                (b.metric, b.min, b.max),
                "{name}: figures untouched"
            );
        }
    }
}

#[test]
fn every_translation_file_is_listed_and_every_listed_preset_exists() {
    let dir = checkpoint_playground_core::repository_root().join("presets/i18n/zh");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let listed: BTreeSet<String> = guides::FILES.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(on_disk, listed, "presets/i18n/zh/*.json vs guides::FILES");
    for name in &listed {
        assert!(guides::zh(name).is_some(), "{name}: does not parse");
    }
}

/// Every code and engine word of `msg` has a Chinese entry, `msg`'s English is the text
/// the engine gave (`english`), and its Chinese has no placeholder left and is Chinese.
fn check_msg(what: &str, msg: &crate::engine::log::Msg, english: &str) {
    let zh: BTreeSet<&str> = ZH.iter().map(|(en, _)| *en).collect();
    assert_eq!(
        msg.english(),
        english,
        "{what}: the English is the engine's text"
    );
    let mut codes = vec![];
    msg.codes(&mut codes);
    for c in codes {
        assert!(
            zh.contains(c),
            "{what}: no Chinese for {c:?} (in {english:?})"
        );
    }
    let z = messages::render(msg, Lang::Zh);
    assert!(!z.contains("{0}") && !z.contains("{1}"), "{what}: {z}");
    assert!(
        z.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{what}: not Chinese: {z}"
    );
}

/// Runs `preset` and checks every diagnosis sentence of its reports (every `step` of
/// virtual time and at the end): the critical path of each checkpoint, the bottleneck, the
/// pool readings and the pending checkpoint's barrier tree. Returns how many it checked.
fn diagnosis_sentences_of(preset: &str, step: u64) -> usize {
    let doc = crate::scenario::preset(preset).unwrap();
    let spec = crate::scenario::to_spec(&doc).unwrap();
    let end = spec.duration;
    let mut engine = crate::engine::Engine::new(spec).unwrap();
    let mut n = 0;
    let mut t = 0;
    while t < end {
        t = (t + step).min(end);
        engine.run_until(t);
        let r = engine.report();
        for c in &r.checkpoints {
            if let Some(d) = &c.diagnosis {
                let msg = d.msg.as_ref().expect("a structured critical path");
                check_msg(&format!("{preset} checkpoint {}", c.id), msg, &d.text);
                n += 1;
            }
        }
        let b = &r.bottleneck;
        check_msg(
            &format!("{preset} bottleneck"),
            b.msg.as_ref().unwrap(),
            &b.text,
        );
        for m in &r.metrics {
            let what = format!("{preset} {} reading", m.subtask);
            check_msg(&what, m.pool_reading_msg.as_ref().unwrap(), &m.pool_reading);
        }
        for node in r.pending_barriers.iter().flat_map(|tree| &tree.nodes) {
            let what = format!("{preset} tree {}", node.name);
            check_msg(&what, node.waits_for_msg.as_ref().unwrap(), &node.waits_for);
            n += 1;
        }
        n += 1 + r.metrics.len();
    }
    n
}

#[test]
fn diagnosis_sentences_translate_from_their_structured_form() {
    for preset in [
        "backpressure",
        "legacy-source",
        "aligned-timeout",
        "flatmap-stuck",
        "small-files",
        "unaligned",
    ] {
        assert!(diagnosis_sentences_of(preset, 1_700_000) > 20, "{preset}");
    }
}

#[test]
fn a_remedy_effect_translates_from_its_structured_form() {
    let doc = crate::scenario::preset("backpressure").unwrap();
    let out = crate::scenario::remedies::measure(&doc, None).unwrap();
    let mut checked = 0;
    for o in &out.remedies {
        if let Some(e) = &o.effect {
            check_msg(&o.remedy.name, e.msg.as_ref().unwrap(), &e.text);
            checked += 1;
        }
        let zh: BTreeSet<&str> = ZH.iter().map(|(en, _)| *en).collect();
        let how = crate::scenario::remedies::how_in_flink(&o.remedy.name);
        assert!(zh.contains(how), "no Chinese for {how:?}");
    }
    assert!(checked >= 5, "{checked} effects");
}

/// A remedy experiment that cannot run (an unknown remedy, a job that does not
/// validate, no bottleneck to double) fails with a Msg whose English is the old text.
#[test]
fn a_refused_remedy_translates_from_its_structured_form() {
    use crate::scenario::remedies::{RemedyRun, NAMES};
    let ok = crate::scenario::preset("backpressure").unwrap();
    let why = RemedyRun::new(&ok, "nonsense", None).err().unwrap();
    let english = format!("unknown remedy 'nonsense' (known: {})", NAMES.join(", "));
    check_msg("unknown remedy", &why, &english);
    assert!(messages::render(&why, Lang::Zh).contains("unaligned、alignment_timeout"));

    let broken = crate::scenario::parse_json(
        r#"{"version": 2, "name": "broken", "seed": 1, "duration": "10s",
            "operators": [{"id": "src", "kind": "source"}, {"id": "snk", "kind": "sink"},
              {"id": "lonely", "kind": "sink"}],
            "edges": [{"from": "src", "to": "snk"}]}"#,
    )
    .unwrap();
    let why = RemedyRun::new(&broken, "unaligned", None).err().unwrap();
    let e = crate::scenario::to_spec(&broken).err().unwrap();
    check_msg("broken job", &why, &format!("{}: {}", e.path, e.message));
    assert!(english_left(&why, &messages::render(&why, Lang::Zh)).is_empty());

    let calm = crate::scenario::parse_json(
        r#"{"version": 2, "name": "calm", "seed": 1, "duration": "2s",
            "operators": [{"id": "src", "kind": "source", "rate": 10}, {"id": "snk", "kind": "sink"}],
            "edges": [{"from": "src", "to": "snk"}]}"#,
    )
    .unwrap();
    let why = RemedyRun::new(&calm, "parallelism", None)
        .unwrap()
        .finish()
        .err()
        .unwrap();
    check_msg(
        "no bottleneck",
        &why,
        "no parallelism remedy here (no bottleneck operator named)",
    );
}

/// Every edit the editor refuses carries a Msg whose English is the refusal's text and
/// whose Chinese keeps only values and Flink terms.
#[test]
fn a_refused_edit_translates_from_its_structured_form() {
    use crate::scenario::edit::{self, EventKind, Setting};
    let mut doc = crate::scenario::parse_json(
        r#"{"version": 2, "name": "edits", "seed": 1, "duration": "10s",
            "operators": [{"id": "src", "kind": "source"}, {"id": "m", "kind": "map"},
              {"id": "snk", "kind": "sink"}],
            "edges": [{"from": "src", "to": "m"}, {"from": "m", "to": "snk"}],
            "events": [{"at": "1s", "trigger_checkpoint": {}},
              {"at": "2s", "set_rate": {"operator": "src", "rate": 5}},
              {"at": "3s", "fail": {"operator": "m", "subtask": 0}},
              {"at": "4s", "set_config": {"key": "execution.checkpointing.interval", "value": "1s"}}]}"#,
    )
    .unwrap();
    let d = &mut doc;
    let refusals = [
        edit::remove_operator(d, "ghost").err(),
        edit::rename_operator(d, "m", "").err(),
        edit::rename_operator(d, "m", "src").err(),
        edit::connect(d, "m", "m", None).err(),
        edit::connect(d, "src", "m", None).err(),
        edit::connect(d, "m", "src", None).err(),
        edit::connect(d, "snk", "m", None).err(),
        edit::disconnect(d, 9).err(),
        edit::set_setting(d, "m", Setting::Rate, "5").err(),
        edit::set_setting(d, "m", Setting::Parallelism, "many").err(),
        edit::set_setting(d, "m", Setting::Parallelism, "99999999999").err(),
        edit::set_setting(d, "m", Setting::Cost, "5 parsecs").err(),
        edit::set_setting(d, "src", Setting::Rate, "fast").err(),
        edit::set_setting(d, "src", Setting::RecordSize, "4 parsecs").err(),
        edit::set_setting(d, "src", Setting::Legacy, "maybe").err(),
        edit::set_setting(d, "snk", Setting::Delivery, "carrier pigeon").err(),
        edit::add_event(d, EventKind::Fail, "soon").err(),
        edit::set_event_time(d, 0, "later").err(),
        edit::set_event_operator(d, 1, "m").err(),
        edit::set_event_operator(d, 0, "m").err(),
        edit::set_event_value(d, 1, "fast").err(),
        edit::set_event_value(d, 2, "first").err(),
        edit::set_event_value(d, 0, "1").err(),
        edit::set_event_key(d, 3, "no.such.key").err(),
        edit::set_event_key(d, 0, "execution.checkpointing.interval").err(),
        edit::remove_event(d, 9).err(),
        edit::set_name(d, " ").err(),
    ];
    let mut empty = edit::new_empty_job(&doc);
    let more = [
        edit::add_event(&mut empty, EventKind::SetCost, "1s").err(),
        edit::add_event(&mut empty, EventKind::SetRate, "1s").err(),
    ];
    let mut bad = vec![];
    for (i, e) in refusals.iter().chain(more.iter()).enumerate() {
        let e = e
            .as_ref()
            .unwrap_or_else(|| panic!("edit {i} was not refused"));
        translated(
            &format!("edit {i} {}", e.path),
            e.msg.as_ref(),
            &e.message,
            &mut bad,
        );
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let e = refusals[4].as_ref().unwrap();
    assert_eq!(e.message, "there is already an edge src -> m");
    assert_eq!(
        messages::render(e.msg.as_ref().unwrap(), Lang::Zh),
        "已经有一条边 src -> m"
    );
}

#[test]
fn the_editors_event_sentences_translate_from_their_structured_form() {
    use crate::scenario::edit::{add_event, event_message, event_sentence, EventKind};
    let mut n = 0;
    // Every event of every preset (resubmissions, partitioner changes, config changes)...
    for name in crate::scenario::preset_names() {
        let doc = crate::scenario::preset(name).unwrap();
        for e in &doc.events {
            check_msg(name, &event_message(e), &event_sentence(e));
            n += 1;
        }
    }
    // ...and every kind the editor adds.
    let mut doc = crate::scenario::preset("backpressure").unwrap();
    for kind in EventKind::ALL {
        let i = add_event(&mut doc, kind, "20s").unwrap();
        let e = &doc.events[i];
        check_msg(kind.name(), &event_message(e), &event_sentence(e));
        n += 1;
    }
    assert!(n > 20, "{n} events");
}

#[test]
fn refused_settings_translate_from_their_structured_form() {
    use crate::engine::spec::Action;
    let doc = crate::scenario::preset("unaligned").unwrap();
    let mut engine = crate::engine::Engine::new(crate::scenario::to_spec(&doc).unwrap()).unwrap();
    engine.run_until(3_000_000);
    for (key, value) in [
        ("execution.checkpointing.interval", "abc"),
        ("execution.checkpointing.interval", "5ms"),
        ("execution.checkpointing.timeout", "10 parsecs"),
        ("taskmanager.network.memory.buffers-per-channel", "many"),
        ("taskmanager.network.memory.buffers-per-channel", "5000"),
        ("execution.checkpointing.unaligned.enabled", "yes"),
        ("execution.checkpointing.mode", "AT_LEAST_ONCE"),
        ("execution.checkpointing.mode", "SOMETIMES"),
        ("taskmanager.memory.segment-size", "3gb"),
        ("execution.checkpointing.intervall", "1s"),
    ] {
        let action = Action::SetConfig {
            key: key.into(),
            value: value.into(),
        };
        let e = engine.check_action(&action).unwrap_err();
        let msg = e
            .msg
            .as_ref()
            .unwrap_or_else(|| panic!("{key} = {value}: no structured form: {}", e.message));
        check_msg(&format!("{key} = {value}"), msg, &e.message);
    }
}

/// Checks that a refusal or problem `what` has a structured form whose English is
/// `english` and whose codes have Chinese (`check_msg`), and books in `bad` any English its
/// Chinese keeps ([`english_left`]). Returns the structured form.
fn translated<'m>(
    what: &str,
    msg: Option<&'m crate::engine::log::Msg>,
    english: &str,
    bad: &mut Vec<String>,
) -> &'m crate::engine::log::Msg {
    let msg = msg.unwrap_or_else(|| panic!("{what}: no structured form for {english:?}"));
    check_msg(what, msg, english);
    let zh = messages::render(msg, Lang::Zh);
    let left = english_left(msg, &zh);
    if !left.is_empty() {
        bad.push(format!("{what}: English left {left:?} in {zh:?}"));
    }
    msg
}

/// Latin words of `zh` that are neither a value of `msg` (ids, numbers, keys: shown as
/// they are) nor one of Flink's or the scenario format's terms the catalogue keeps.
fn english_left(msg: &crate::engine::log::Msg, zh: &str) -> Vec<String> {
    use crate::engine::log::{Arg, Msg};
    const KEPT: &[&str] = &[
        "Flink",
        "Source",
        "Sink",
        "TaskManager",
        "NoResourceAvailableException",
        "slot",
        "playground",
        "config",
        "id",
        "keyBy",
        "keyed_aggregate",
        "exactly",
        "once",
        "forward",
        "rebalance",
        "rescale",
        "hash",
        "rate",
        "disable_chaining",
        "start_new_chain",
        "disableChaining",
        // JSON values.
        "true",
        "false",
        "taskmanager",
        "numberOfTaskSlots",
        // The scenario format's and the web's terms, and Flink's names for its API and
        // its tickets.
        "JSON",
        "json",
        "version",
        "base", // base64url
        "url",
        "t",
        "KB",
        "MB",
        "SourceFunction",
        "FLINK",
        "FLIP",
        // Units, as the scenario format spells them.
        "us",
        "ms",
        "s",
        "min",
        "h",
        "b",
        "kb",
        "mb",
        "gb",
    ];
    fn values(m: &Msg, out: &mut Vec<String>) {
        fn arg(a: &Arg, out: &mut Vec<String>) {
            match a {
                Arg::Text(s) => out.push(s.clone()),
                Arg::Word(_) => {}
                Arg::Msg(m) => values(m, out),
                Arg::List(items, _) => items.iter().for_each(|i| arg(i, out)),
            }
        }
        m.args.iter().for_each(|a| arg(a, out));
    }
    let mut shown = vec![];
    values(msg, &mut shown);
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let allowed: BTreeSet<String> = shown
        .iter()
        .flat_map(|s| words(s))
        .chain(KEPT.iter().map(|w| w.to_string()))
        .collect();
    words(zh)
        .into_iter()
        .filter(|w| !allowed.contains(w))
        .collect()
}

/// The job editor's problems (`scenario::check::problems`, the `editor-problems` list) of
/// broken documents: every problem has its structured form, whose English is the
/// problem's text (what the CLI prints) and whose Chinese leaves no English but the
/// values it names and Flink's terms.
#[test]
fn the_editors_problems_translate_from_their_structured_form() {
    let docs = [
        // The graph: operators out of range, unknown, duplicate and dangling ends, a
        // cycle, partitioners that cannot feed their target.
        r#"{"version": 2, "name": "graph", "seed": 1, "duration": "10s",
            "operators": [
              {"id": "src", "kind": "source", "rate": 0, "skew": 2, "keys": 0, "records": 0,
               "record_size": 0, "retention": "0s"},
              {"id": "m", "kind": "map"}, {"id": "m", "kind": "map"},
              {"id": "agg", "kind": "keyed_aggregate", "parallelism": 2},
              {"id": "fm", "kind": "flat_map", "fan_out": 0},
              {"id": "lonely", "kind": "map"}, {"id": "a", "kind": "map"},
              {"id": "b", "kind": "map"}, {"id": "snk", "kind": "sink"},
              {"id": "snk2", "kind": "sink"}, {"id": "src2", "kind": "source"},
              {"id": "", "kind": "map", "slot_sharing_group": ""},
              {"id": "slow", "kind": "map", "cost": "20s", "parallelism": 5000}],
            "edges": [
              {"from": "src", "to": "m"}, {"from": "m", "to": "agg", "partitioner": "rebalance"},
              {"from": "agg", "to": "snk"}, {"from": "m", "to": "m"},
              {"from": "m", "to": "ghost"}, {"from": "ghost", "to": "m"},
              {"from": "snk", "to": "fm"}, {"from": "fm", "to": "src"}, {"from": "src", "to": "m"},
              {"from": "src", "to": "agg", "partitioner": "forward"},
              {"from": "src", "to": "a"}, {"from": "a", "to": "b"}, {"from": "b", "to": "a"},
              {"from": "b", "to": "snk"}, {"from": "m", "to": "slow"}, {"from": "slow", "to": "snk"}]}"#,
        // The events: unknown operators and edges, values out of range, a submission key,
        // an instant after the end, a resubmission that breaks the job.
        r#"{"version": 2, "name": "events", "seed": 1, "duration": "10s",
            "operators": [
              {"id": "src", "kind": "source"}, {"id": "m", "kind": "map", "parallelism": 2},
              {"id": "agg", "kind": "keyed_aggregate", "parallelism": 2},
              {"id": "snk", "kind": "sink"}],
            "edges": [{"from": "src", "to": "m"}, {"from": "m", "to": "agg"},
              {"from": "agg", "to": "snk"}],
            "events": [
              {"at": "1s", "set_cost": {"operator": "ghost", "cost": "20s"}},
              {"at": "1s", "set_rate": {"operator": "m", "rate": 5}},
              {"at": "1s", "set_rate": {"operator": "src", "rate": 0}},
              {"at": "1s", "set_rate": {"operator": "ghost", "rate": 5}},
              {"at": "1s", "fail": {"operator": "m", "subtask": 7}},
              {"at": "1s", "fail": {"operator": "ghost", "subtask": 0}},
              {"at": "99s", "trigger_checkpoint": {}},
              {"at": "2s", "set_partitioner": {"from": "src", "to": "snk", "partitioner": "hash"}},
              {"at": "2s", "set_partitioner": {"from": "src", "to": "m", "partitioner": "forward"}},
              {"at": "2s", "set_partitioner": {"from": "m", "to": "agg", "partitioner": "rebalance"}},
              {"at": "3s", "set_config": {"key": "taskmanager.numberOfTaskSlots", "value": "4"}},
              {"at": "3s", "set_config": {"key": "execution.checkpointing.interval", "value": "1ms"}},
              {"at": "4s", "resubmit": {"from": "latest", "remove_operators": ["src"]}},
              {"at": "4s", "resubmit": {"from": "latest", "remove_operators": ["snk"]}},
              {"at": "4s", "resubmit": {"from": "latest", "parallelism": {"src": 3}}},
              {"at": "4s", "resubmit": {"from": "latest", "remove_edges": [{"from": "m", "to": "snk"}]}},
              {"at": "4s", "resubmit": {"from": "latest", "add_edges": [{"from": "src", "to": "agg", "partitioner": "hash"}]}},
              {"at": "4s", "resubmit": {"from": "latest", "remove_operators": ["agg"]}}]}"#,
        // Too few slots for the job.
        r#"{"version": 2, "name": "slots", "seed": 1, "duration": "10s",
            "config": {"minicluster.number-of-taskmanagers": 1},
            "operators": [{"id": "src", "kind": "source", "parallelism": 3},
              {"id": "snk", "kind": "sink", "parallelism": 3}],
            "edges": [{"from": "src", "to": "snk"}]}"#,
        // An operator's fields that do not parse, then a misspelt config key.
        r#"{"version": 2, "name": "fields", "seed": 1, "duration": "10s",
            "config": {"execution.checkpointing.aligned-checkpoint.timeout": "1s"},
            "operators": [{"id": "src", "kind": "source", "record_size": "4 parsecs"},
              {"id": "m", "kind": "map", "cost": "10 parsecs"},
              {"id": "snk", "kind": "sink", "disable_chaining": true, "start_new_chain": true}],
            "edges": [{"from": "src", "to": "m"}, {"from": "m", "to": "snk"}]}"#,
        // An alias and its key together; an event's unknown key.
        r#"{"version": 2, "name": "alias", "seed": 1, "duration": "10s",
            "config": {"execution.checkpointing.unaligned": false,
              "execution.checkpointing.unaligned.enabled": false},
            "operators": [{"id": "src", "kind": "source"}, {"id": "snk", "kind": "sink"}],
            "edges": [{"from": "src", "to": "snk"}]}"#,
        r#"{"version": 2, "name": "event-key", "seed": 1, "duration": "10s",
            "operators": [{"id": "src", "kind": "source"}, {"id": "snk", "kind": "sink"}],
            "edges": [{"from": "src", "to": "snk"}],
            "events": [{"at": "1s", "set_config": {"key": "no.such.key", "value": 1}}]}"#,
        // Past the cost limits: channels, then record-hops per second.
        r#"{"version": 2, "name": "channels", "seed": 1, "duration": "10s",
            "operators": [{"id": "src", "kind": "source", "parallelism": 300},
              {"id": "snk", "kind": "sink", "parallelism": 300}],
            "edges": [{"from": "src", "to": "snk", "partitioner": "rebalance"}]}"#,
        r#"{"version": 2, "name": "hops", "seed": 1, "duration": "10s",
            "operators": [
              {"id": "src", "kind": "source", "parallelism": 32, "rate": 1000000, "cost": "0us"},
              {"id": "m", "kind": "map", "parallelism": 32, "cost": "0us"},
              {"id": "snk", "kind": "sink", "parallelism": 32, "cost": "0us"}],
            "edges": [{"from": "src", "to": "m", "partitioner": "rebalance"},
              {"from": "m", "to": "snk"}]}"#,
        // A guide that does not fit the job: an unknown operator, a try that breaks it.
        r#"{"version": 2, "name": "guide", "seed": 1, "duration": "10s",
            "operators": [{"id": "src", "kind": "source"}, {"id": "snk", "kind": "sink"}],
            "edges": [{"from": "src", "to": "snk"}],
            "guide": {"watch": ["w"], "expect": [{"metric": "median_end_to_end_ms",
              "operator": "ghost", "max": 5, "says": "s"}]}}"#,
        r#"{"version": 2, "name": "guide-try", "seed": 1, "duration": "10s",
            "operators": [{"id": "src", "kind": "source"}, {"id": "snk", "kind": "sink"}],
            "edges": [{"from": "src", "to": "snk"}],
            "guide": {"watch": ["w"], "try": [{"label": "l", "why": "w",
              "set": {"execution.checkpointing.interval": "1ms"}}]}}"#,
    ];
    let mut codes = BTreeSet::new();
    let (mut n, mut bad) = (0, vec![]);
    for json in docs {
        let doc = crate::scenario::parse_json(json).unwrap_or_else(|e| panic!("{e}"));
        for p in crate::scenario::check::problems(&doc) {
            let what = format!("{} {}", doc.name, p.path);
            let msg = translated(&what, p.msg.as_ref(), &p.message, &mut bad);
            let mut c = vec![];
            msg.codes(&mut c);
            codes.extend(c);
            n += 1;
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        n >= 40 && codes.len() >= 35,
        "{n} problems, {} codes",
        codes.len()
    );
}

/// Every way reading a scenario can fail before the job is checked — a document that is
/// not one (bad JSON, a wrong type, an unknown field or kind, too many operators), a
/// broken link, a broken moment, an empty or oversized import, a removed key — gives its
/// error with a structured form whose English is the error's text (what the CLI prints)
/// and whose Chinese leaves no English but the values it names: the banner and the import
/// dialog show them in the viewer's language.
#[test]
fn the_scenario_readers_errors_translate_from_their_structured_form() {
    use crate::scenario::{self, moment, ScenarioError};
    let ops = |extra: &str| {
        format!(
            r#"{{"version": 2, "name": "n", "seed": 1, "duration": "10s",
                "operators": [{{"id": "src", "kind": "source"}}, {extra}
                  {{"id": "snk", "kind": "sink"}}],
                "edges": [{{"from": "src", "to": "snk"}}]}}"#
        )
    };
    let event = |e: &str| {
        format!(
            r#"{{"version": 2, "name": "n", "seed": 1, "duration": "10s",
                "operators": [{{"id": "src", "kind": "source"}}, {{"id": "snk", "kind": "sink"}}],
                "edges": [{{"from": "src", "to": "snk"}}], "events": [{e}]}}"#
        )
    };
    let many_operators = format!(
        r#"{{"version": 2, "operators": [{}]}}"#,
        vec!["{}"; 65].join(",")
    );
    let many_keys = format!(
        r#"{{"version": 2, "config": {{{}}}}}"#,
        (0..257)
            .map(|i| format!("\"k{i}\": 1"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let docs: Vec<String> = vec![
        "[1]".into(),
        "{".into(),
        "{}".into(),
        r#"{"version": 9}"#.into(),
        r#"{"version": "two"}"#.into(),
        r#"{"version": 2, "nam": "x"}"#.into(),
        r#"{"version": 2, "zzzzzzzz": 1}"#.into(),
        r#"{"version": 2, "name": 5}"#.into(),
        r#"{"version": 2, "edges": {}}"#.into(),
        many_operators,
        many_keys,
        ops(r#"{"id": "m"},"#),
        ops(r#"{"id": "m", "kind": "sauce"},"#),
        ops(r#"{"id": "m", "kind": "map", "rate": 5},"#),
        ops(r#"{"id": "m", "kind": "map", "parallelism": "2"},"#),
        ops(r#"{"id": "m", "kind": "map", "parallelism": -1},"#),
        ops(r#"{"id": "m", "kind": "map", "cost": 5},"#),
        ops(r#"{"id": "s2", "kind": "source", "record_size": true},"#),
        ops(r#"{"id": "s2", "kind": "source", "skew": "x"},"#),
        ops(r#"{"id": "s2", "kind": "source", "legacy": 1},"#),
        ops(r#"{"id": "k", "kind": "sink", "delivery": "maybe"},"#),
        r#"{"version": 2, "edges": [{"from": "a", "to": "b", "partitioner": "hashy"}]}"#.into(),
        event(r#"{"at": "1s"}"#),
        event(r#"{"at": "1s", "savepoint": {}, "trigger_checkpoint": {}}"#),
        event(r#"{"at": "1s", "trigger_checkpoint": 5}"#),
        event(r#"{"at": "1s", "set_config": {"key": "k", "value": [1]}}"#),
        event(r#"{"at": "1s", "resubmit": {"from": "latest", "remove_operators": [5]}}"#),
    ];
    let mut errors: Vec<(String, ScenarioError)> = docs
        .iter()
        .map(|json| match scenario::parse_json(json) {
            Ok(_) => panic!("{json} was read"),
            Err(e) => (json.chars().take(60).collect(), e),
        })
        .collect();
    let good = scenario::encode_link(&scenario::default_document());
    let mut damaged = good.clone();
    let last = damaged.pop().unwrap();
    damaged.push(if last == 'A' { 'B' } else { 'A' });
    let cut = &good[..good.len() / 2];
    let links = [
        "#".to_string(),
        "#abc".into(),
        "#q9:abc".into(),
        "#z2:!!!".into(),
        "#z2:AA".into(),
        format!("#{damaged}"),
        format!("#{cut}"),
        format!("#{good}&x=1"),
        format!("#{}", scenario::link::encode_text("{")),
    ];
    for link in &links {
        let e = scenario::decode_link(link).expect_err(link);
        errors.push((link.chars().take(40).collect(), e));
    }
    for link in ["#z2:a&foo=1", "#z2:a&t=1s&t=2s", "#z2:a&t=", "#z2:a&t=soon"] {
        errors.push((link.into(), moment::split(link).expect_err(link)));
    }
    errors.push((
        "blank import".into(),
        scenario::import_json("  ").unwrap_err(),
    ));
    errors.push((
        "big import".into(),
        crate::scenario::file::check_size(scenario::MAX_IMPORT_BYTES + 1).unwrap_err(),
    ));
    let removed = crate::engine::config::REMOVED_KEYS[0].key;
    let mut doc = scenario::default_document();
    errors.push((
        "removed key".into(),
        doc.set_config(removed, "true").unwrap_err(),
    ));
    let (mut bad, mut codes) = (vec![], BTreeSet::new());
    for (what, e) in &errors {
        let whole = e.as_msg();
        assert_eq!(whole.english(), e.to_string(), "{what}");
        let msg = translated(what, e.msg.as_ref(), &e.message, &mut bad);
        let mut c = vec![];
        msg.codes(&mut c);
        codes.extend(c);
    }
    // The notes on an old document's removed key, as the banner shows them.
    doc.config.insert(
        removed.to_string(),
        crate::scenario::document::ConfigValue::Bool(true),
    );
    let notes = scenario::note_msgs(&doc);
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].english(), scenario::notes(&doc)[0]);
    translated("note", Some(&notes[0]), &notes[0].english(), &mut bad);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(codes.len() >= 35, "{} codes", codes.len());
}
