//! Links: every preset round-trips through a link; each way a link can be broken has
//! its own clear message.

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
        assert!(fragment.starts_with("z:"), "{fragment}");
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
    let escaped = fragment.replacen("z:", "z%3A", 1);
    assert_eq!(decode_link(&escaped).unwrap(), doc);
    let mut padded = fragment.clone();
    while !(padded.len() - 2).is_multiple_of(4) {
        padded.push('=');
    }
    assert_eq!(decode_link(&padded).unwrap(), doc);
}

#[test]
fn broken_links_have_distinct_clear_messages() {
    let good = encode_link(&scenario::default_document());
    let payload = &good[2..];

    let empty = broken("https://example.org/#");
    assert!(empty.message.contains("no scenario"), "{empty}");

    let no_prefix = broken(&format!("#{payload}"));
    assert!(
        no_prefix.message.contains("not a playground link"),
        "{no_prefix}"
    );

    let bad_prefix = broken(&format!("#pako:{payload}"));
    assert!(
        bad_prefix.message.contains("unknown link encoding 'pako:'"),
        "{bad_prefix}"
    );

    // Cut so that the base64 length is impossible (4n + 1 characters).
    let mut cut = payload.len() / 2;
    while cut % 4 != 1 {
        cut += 1;
    }
    let bad_base64 = broken(&format!("z:{}", &payload[..cut]));
    assert!(bad_base64.message.contains("base64"), "{bad_base64}");
    let bad_char = broken(&format!("z:{}!!{}", &payload[..8], &payload[8..]));
    assert!(bad_char.message.contains("base64"), "{bad_char}");

    // Valid base64, but the DEFLATE stream stops half way.
    let bytes = URL_SAFE_NO_PAD.decode(payload).unwrap();
    let truncated = broken(&format!(
        "z:{}",
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
        br#"{"version": 2, "name": "from the future"}"#,
    ));
    assert_eq!(
        newer.to_string(),
        "version: scenario version 2 is newer than this playground understands (1)"
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
