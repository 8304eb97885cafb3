//! Links: every preset round-trips through a link (and its old `z:` link still opens to
//! the same document); each way a link can be broken has its own clear message; a
//! damaged link never opens a different scenario; oversized documents are refused by
//! their size before any other work.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use checkpoint_playground::scenario::{
    self, decode_link, encode_link, link_warning, preset_names, to_spec, ScenarioError,
};

fn deflate_link(bytes: &[u8]) -> String {
    let z = miniz_oxide::deflate::compress_to_vec(bytes, 9);
    format!("z:{}", URL_SAFE_NO_PAD.encode(z))
}

fn broken(link: &str) -> ScenarioError {
    let e = decode_link(link).expect_err("a broken link must be refused");
    assert!(!e.to_string().contains('\n'), "one line: {e}");
    e
}

#[test]
fn every_preset_round_trips_through_a_link() {
    for name in preset_names() {
        let doc = scenario::preset(name).unwrap();
        let fragment = encode_link(&doc);
        assert!(fragment.starts_with("z2:"), "{fragment}");
        assert!(
            fragment
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_:".contains(&b)),
            "URL-safe: {fragment}"
        );
        assert!(
            link_warning(fragment.len() + 40).is_none(),
            "{name} link is short"
        );
        assert_eq!(decode_link(&fragment).unwrap(), doc, "{name}");
        let url = format!("https://example.org/playground/#{fragment}");
        assert_eq!(decode_link(&url).unwrap(), doc, "{name} from a URL");
        assert_eq!(decode_link(&format!("  #{fragment}\n")).unwrap(), doc);
        // A link made from the engine's job replays the same job.
        let spec = to_spec(&doc).unwrap();
        let from_engine = scenario::from_spec(&spec);
        let back = decode_link(&encode_link(&from_engine)).unwrap();
        assert_eq!(to_spec(&back).unwrap(), spec, "{name}");
    }
}

#[test]
fn escaped_colon_and_padding_are_accepted() {
    let doc = scenario::default_document();
    let fragment = encode_link(&doc);
    let escaped = fragment.replacen("z2:", "z2%3A", 1);
    assert_eq!(decode_link(&escaped).unwrap(), doc);
    let mut padded = fragment.clone();
    while !(padded.len() - 3).is_multiple_of(4) {
        padded.push('=');
    }
    assert_eq!(decode_link(&padded).unwrap(), doc);
}

#[test]
fn broken_links_have_distinct_clear_messages() {
    let good = encode_link(&scenario::default_document());
    let payload = good.strip_prefix("z2:").unwrap();

    let empty = broken("https://example.org/#");
    assert!(empty.message.contains("no scenario"), "{empty}");

    let no_prefix = broken(&format!("#{payload}"));
    assert!(
        no_prefix.message.contains("not a playground link"),
        "{no_prefix}"
    );

    let bad_prefix = broken(&format!("#pako:{payload}"));
    assert!(
        bad_prefix.message.contains("unknown link encoding 'pako:'")
            && bad_prefix.message.contains("'z2:'"),
        "{bad_prefix}"
    );

    // Cut so that the base64 length is impossible (4n + 1 characters).
    let mut cut = payload.len() / 2;
    while cut % 4 != 1 {
        cut += 1;
    }
    let bad_base64 = broken(&format!("z2:{}", &payload[..cut]));
    assert!(bad_base64.message.contains("base64"), "{bad_base64}");
    let bad_char = broken(&format!("z2:{}!!{}", &payload[..8], &payload[8..]));
    assert!(bad_char.message.contains("base64"), "{bad_char}");

    // Valid base64, but the DEFLATE stream stops half way.
    let bytes = URL_SAFE_NO_PAD.decode(payload).unwrap();
    let truncated = broken(&format!(
        "z2:{}",
        URL_SAFE_NO_PAD.encode(&bytes[..bytes.len() / 2])
    ));
    assert!(truncated.message.contains("cut off"), "{truncated}");

    let garbage = broken(&format!("z:{}", URL_SAFE_NO_PAD.encode([0xffu8; 40])));
    assert!(garbage.message.contains("damaged"), "{garbage}");

    let not_json = broken(&deflate_link(b"hello, world"));
    assert!(not_json.message.contains("not valid JSON"), "{not_json}");

    let not_text = broken(&deflate_link(&[0xff, 0xfe, 0x00]));
    assert!(not_text.message.contains("not text"), "{not_text}");

    let bomb = broken(&deflate_link(&vec![b' '; 2 << 20]));
    assert!(bomb.message.contains("more than 1024 KiB"), "{bomb}");

    let newer = broken(&deflate_link(
        br#"{"version": 3, "name": "from the future"}"#,
    ));
    assert_eq!(
        newer.to_string(),
        "version: scenario version 3 is newer than this playground understands (2)"
    );

    let all = [
        &empty,
        &no_prefix,
        &bad_prefix,
        &bad_base64,
        &truncated,
        &garbage,
        &not_json,
        &not_text,
        &bomb,
        &newer,
    ];
    for (i, a) in all.iter().enumerate() {
        for b in &all[i + 1..] {
            assert_ne!(a.message, b.message, "messages must differ");
        }
    }
    for e in &all[..9] {
        assert_eq!(e.path, "link");
    }
}

#[test]
fn long_links_get_a_warning() {
    assert!(link_warning(2000).is_none());
    let w = link_warning(2500).unwrap();
    assert!(w.contains("2500") && w.contains("2000"), "{w}");
}

/// The `z2:` link of `json` with `extra` bytes after the DEFLATE stream and the CRC-32
/// given (the right one when `None`).
fn checked_link(json: &[u8], crc: Option<u32>, extra: &[u8]) -> String {
    let mut bytes = crc
        .unwrap_or_else(|| scenario::link::crc32(json))
        .to_be_bytes()
        .to_vec();
    bytes.extend(miniz_oxide::deflate::compress_to_vec(json, 9));
    bytes.extend(extra);
    format!("z2:{}", URL_SAFE_NO_PAD.encode(bytes))
}

#[test]
fn old_links_still_open_to_the_same_document() {
    for name in preset_names() {
        let doc = scenario::preset(name).unwrap();
        let old = deflate_link(doc.to_json_compact().as_bytes());
        assert_eq!(decode_link(&old).unwrap(), doc, "{name}: old z: link");
        assert_eq!(
            decode_link(&format!("https://example.org/#{old}")).unwrap(),
            doc
        );
        let new = encode_link(&doc);
        assert_eq!(
            checked_link(doc.to_json_compact().as_bytes(), None, b""),
            new,
            "{name}: z2: is CRC-32 then raw DEFLATE of the compact JSON"
        );
    }
}

#[test]
fn a_bad_checksum_names_the_link() {
    let json = scenario::default_document().to_json_compact();
    let right = scenario::link::crc32(json.as_bytes());
    let e = broken(&checked_link(json.as_bytes(), Some(right ^ 1), b""));
    assert_eq!(e.path, "link");
    assert!(
        e.message.contains("checksum does not match"),
        "names the checksum: {e}"
    );
    let short = broken("z2:AAA");
    assert!(short.message.contains("too short"), "{short}");
}

#[test]
fn bytes_after_the_compressed_scenario_are_refused() {
    let json = scenario::default_document().to_json_compact();
    for extra in [&b"\0"[..], b"junk", &[0xff; 64]] {
        let e = broken(&checked_link(json.as_bytes(), None, extra));
        assert_eq!(e.path, "link");
        assert!(
            e.message
                .contains(&format!("{} unexpected byte(s) after", extra.len())),
            "{e}"
        );
        // Old links are held to the same rule.
        let mut bytes = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
        bytes.extend(extra);
        let e = broken(&format!("z:{}", URL_SAFE_NO_PAD.encode(bytes)));
        assert!(e.message.contains("after the compressed scenario"), "{e}");
    }
}

#[test]
fn no_single_character_change_opens_another_scenario() {
    // Before the checksum, 4.9 % of these opened a different valid scenario.
    let doc = scenario::preset("healthy").unwrap();
    let link = encode_link(&doc);
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let (mut refused, mut same) = (0, 0);
    for i in 3..link.len() {
        for shift in [1, 17, 40] {
            let old = link.as_bytes()[i];
            let pos = alphabet.iter().position(|&c| c == old).unwrap();
            let new = alphabet[(pos + shift) % alphabet.len()];
            let mut bytes = link.clone().into_bytes();
            bytes[i] = new;
            let changed = String::from_utf8(bytes).unwrap();
            match decode_link(&changed) {
                Err(e) => {
                    assert_eq!(e.path, "link", "{e}");
                    refused += 1;
                }
                // The last character may carry only padding bits of the base64.
                Ok(d) => {
                    assert_eq!(d, doc, "a changed link opened another scenario at {i}");
                    same += 1;
                }
            }
        }
    }
    assert!(refused > 0, "{refused} refused, {same} unchanged");
}

#[test]
fn the_moment_suffix_is_ignored_and_other_suffixes_are_refused() {
    let doc = scenario::default_document();
    let link = encode_link(&doc);
    assert!(!link.contains('&'), "the payload alphabet has no '&'");
    assert_eq!(decode_link(&format!("#{link}&t=12.5s")).unwrap(), doc);
    let e = broken(&format!("#{link}&utm_source=chat"));
    assert!(
        e.message.contains("unknown suffix '&utm_source=chat'"),
        "{e}"
    );
}

#[test]
fn messages_quote_only_a_short_excerpt() {
    let long_prefix = "p".repeat(120_000);
    let e = broken(&format!("#{long_prefix}:AAAA"));
    assert!(e.message.contains("unknown link encoding"), "{e}");
    assert!(e.to_string().len() < 400, "{} chars", e.to_string().len());
    assert!(e.message.contains('…'));

    let huge = "x".repeat(50_000);
    let doc = format!(r#"{{"version": 1, "operators": [{{"id": "a", "kind": "{huge}"}}]}}"#);
    let e = scenario::parse_json(&doc).unwrap_err();
    assert_eq!(e.path, "operators[0].kind");
    assert!(e.to_string().len() < 400, "{e}");
    let doc = format!(
        r#"{{"version": 1, "operators": [{{"id": "a", "kind": "source"}}], "edges": [{{"from": "a", "to": "{huge}"}}]}}"#
    );
    let e = to_spec(&scenario::parse_json(&doc).unwrap()).unwrap_err();
    assert_eq!(e.path, "edges[0].to");
    assert!(e.to_string().len() < 400, "{e}");
    let doc = format!(r#"{{"version": 1, "config": {{"{huge}": 1}}, "operators": []}}"#);
    let e = to_spec(&scenario::parse_json(&doc).unwrap()).unwrap_err();
    assert!(
        e.to_string().len() < 600,
        "{} chars: {e}",
        e.to_string().len()
    );
}

#[test]
fn overlong_links_are_refused_before_decoding() {
    let link = format!("z2:{}", "A".repeat(scenario::link::MAX_LINK_CHARS));
    let e = broken(&link);
    assert!(e.message.contains("characters long"), "{e}");
}

/// A compact document of `n` operators (three-character ids: a source, maps, a sink) and
/// `edges` edges chaining them: 22,000 and 18,000 fit in a link's 1 MiB.
fn huge_document(n: usize, edges: usize) -> String {
    const DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let id = |i: usize| {
        let d = |k: usize| DIGITS[(i / 36usize.pow(k as u32)) % 36] as char;
        format!("{}{}{}", d(2), d(1), d(0))
    };
    let ops: Vec<String> = (0..n)
        .map(|i| {
            let kind = match i {
                0 => "source",
                _ if i == n - 1 => "sink",
                _ => "map",
            };
            format!(r#"{{"id":"{}","kind":"{kind}"}}"#, id(i))
        })
        .collect();
    let edges: Vec<String> = (1..=edges)
        .map(|i| format!(r#"{{"from":"{}","to":"{}"}}"#, id((i - 1) % n), id(i % n)))
        .collect();
    format!(
        r#"{{"version":1,"operators":[{}],"edges":[{}]}}"#,
        ops.join(","),
        edges.join(",")
    )
}

#[test]
fn a_huge_document_is_refused_by_its_size() {
    let json = huge_document(22_000, 18_000);
    assert!(
        json.len() < scenario::link::MAX_DECODED_BYTES,
        "{}",
        json.len()
    );
    let e = scenario::parse_json(&json).unwrap_err();
    assert_eq!(e.path, "operators");
    assert!(
        e.message.contains("22000 operators") && e.message.contains("at most 64"),
        "{e}"
    );
    // The same through a small link.
    let link = deflate_link(json.as_bytes());
    assert!(
        link.len() < scenario::link::MAX_LINK_CHARS,
        "{} chars",
        link.len()
    );
    assert_eq!(decode_link(&link).unwrap_err(), e);
    // A document built in memory (the editor's) gets only that problem, from to_spec
    // and from the editor's problem list.
    let mut doc = scenario::parse_json(&huge_document(60, 59)).unwrap();
    let template = doc.operators[1].clone();
    let edge = doc.edges[0].clone();
    for i in 0..22_000 {
        let mut o = template.clone();
        o.id = format!("x{i}");
        doc.operators.push(o);
        doc.edges.push(edge.clone());
    }
    let e = to_spec(&doc).unwrap_err();
    assert_eq!(e.path, "operators");
    let problems = scenario::check::problems(&doc);
    assert_eq!(
        problems.len(),
        1,
        "{:?}",
        &problems[..problems.len().min(3)]
    );
    assert!(problems[0].message.contains("at most 64"));
    // The engine's own validation stops at the size too.
    let mut spec = to_spec(&scenario::parse_json(&huge_document(60, 59)).unwrap()).unwrap();
    let op = spec.operators[1].clone();
    for i in 0..22_000 {
        let mut o = op.clone();
        o.id = format!("x{i}");
        spec.operators.push(o);
    }
    let problems = spec.problems();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].path, "operators");
}

#[test]
fn a_record_of_one_megabyte_is_in_range() {
    let doc = |size: &str| {
        scenario::parse_json(&format!(
            r#"{{"version": 1, "duration": "1s", "operators": [{{"id": "s", "kind": "source", "rate": 10, "record_size": {size}}}, {{"id": "k", "kind": "sink"}}], "edges": [{{"from": "s", "to": "k"}}]}}"#
        ))
        .unwrap()
    };
    assert!(to_spec(&doc(r#""1mb""#)).is_ok());
    let e = to_spec(&doc("1048577")).unwrap_err();
    assert_eq!(e.path, "operators[0].record_size");
    assert!(e.message.contains("1b to 1mb"), "{e}");
}
