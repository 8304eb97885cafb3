//! Scenario links: the document carried in a URL fragment.
//!
//! Format (after the `#`): an encoding prefix, a colon, the payload — mermaid.live's
//! convention (`pako:`), so the encoding is named in the link itself and a new encoding
//! can be added under a new prefix while old links keep opening:
//!
//! | prefix | payload (base64url without padding, RFC 4648 §5)                   |
//! |--------|--------------------------------------------------------------------|
//! | `z2:`  | the CRC-32 (IEEE 802.3, the checksum of zlib, gzip and PNG; 4 bytes, big-endian) of the minified JSON document, then raw DEFLATE (RFC 1951, level 9) of that JSON. Written by [`encode`] |
//! | `z:`   | raw DEFLATE of the minified JSON document, no checksum (links made before `z2:`; still read) |
//!
//! The checksum covers the decompressed JSON, so a link damaged anywhere — in the
//! checksum, in the compressed bits, or into another valid DEFLATE stream — is refused as
//! damaged instead of silently opening a different scenario (a CRC-32 misses a random
//! corruption with probability 2⁻³²). In both encodings the DEFLATE stream must end
//! exactly where the payload does: bytes after it (junk pasted after a link) are refused.
//! The base64url alphabet (`A–Z a–z 0–9 - _`) has no `&`, so a URL may carry the moment
//! suffix `&t=<duration>` after the payload; [`decode`] ignores `&t=…` and refuses any
//! other `&` suffix by name.
//!
//! The document's own `"version"` travels inside the payload, so the format of the
//! scenario evolves independently of its transport; a link from a newer playground says
//! so. [`decode`] accepts a whole URL, `#z2:…` or `z2:…` (also with the colon escaped as
//! `%3A`), and padding on the base64. Every way a link can be broken has its own message:
//! a link longer than [`MAX_LINK_CHARS`], no prefix, an unknown prefix, bad base64,
//! damaged or truncated DEFLATE data, bytes after the DEFLATE data, an expansion past
//! [`MAX_DECODED_BYTES`] (a zip bomb), a checksum that does not match, text that is not
//! UTF-8 or not JSON, and then the document's own errors (version, fields). Errors use
//! the path `link` and quote at most a short excerpt of the link
//! ([`super::error::excerpt`]).

use super::document::Document;
use super::error::{excerpt, ScenarioError};
use crate::engine::log::{self, Msg};
use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// The prefix [`encode`] writes: CRC-32 + raw DEFLATE, base64url.
pub const CHECKED_PREFIX: &str = "z2:";
/// The prefix of the first encoding (raw DEFLATE + base64url, no checksum), still read.
pub const DEFLATE_PREFIX: &str = "z:";
/// A link never expands to more than this (1 MiB), the same bound as an imported file.
pub const MAX_DECODED_BYTES: usize = 1 << 20;
/// A link longer than this is refused before it is decoded: 2 MiB, more than the
/// base64 of any DEFLATE stream of a [`MAX_DECODED_BYTES`] document (at worst stored
/// blocks: 4/3 × (1 MiB + 5 bytes per 64 KiB block + the checksum) ≈ 1.33 MiB).
pub const MAX_LINK_CHARS: usize = 2 << 20;
/// Links longer than this may be cut by chat tools, mail clients and some browsers.
pub const LONG_LINK_CHARS: usize = 2000;

const B64: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

fn link_error(msg: Msg) -> ScenarioError {
    ScenarioError::of("link", msg)
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, initial and final XOR
/// 0xFFFFFFFF): `crc32(b"123456789") == 0xCBF43926`.
pub fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc = TABLE[((crc ^ b as u32) & 0xFF) as usize] ^ (crc >> 8);
    }
    !crc
}

/// The fragment (without `#`) that opens `doc` in the playground: `z2:…`.
pub fn encode(doc: &Document) -> String {
    encode_text(&doc.to_json_compact())
}

/// The fragment of any text, encoded as [`encode`] encodes a document's JSON (tests build
/// links to text that is not a scenario with it).
pub fn encode_text(json: &str) -> String {
    let mut payload = crc32(json.as_bytes()).to_be_bytes().to_vec();
    payload.extend(miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9));
    format!("{CHECKED_PREFIX}{}", B64.encode(payload))
}

/// A warning for a link of `len` characters that may be too long to share, else `None`.
pub fn link_warning(len: usize) -> Option<String> {
    (len > LONG_LINK_CHARS).then(|| {
        format!(
            "this link is {len} characters long; links over {LONG_LINK_CHARS} characters may be cut off by chat tools, mail clients or browsers — consider a shorter scenario or sharing the JSON file"
        )
    })
}

/// Inflates one raw DEFLATE stream that must fill `input` exactly, into at most
/// [`MAX_DECODED_BYTES`].
fn inflate_exact(mut input: &[u8]) -> Result<Vec<u8>, ScenarioError> {
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let mut out = vec![0u8; input.len().saturating_mul(4).clamp(1024, MAX_DECODED_BYTES)];
    let mut state = Box::<DecompressorOxide>::default();
    let mut written = 0;
    loop {
        let (status, consumed, produced) = decompress(&mut state, input, &mut out, written, flags);
        written += produced;
        input = input.get(consumed..).unwrap_or_default();
        match status {
            TINFLStatus::Done if input.is_empty() => {
                out.truncate(written);
                return Ok(out);
            }
            TINFLStatus::Done => {
                return Err(link_error(Msg::new(
                    "corrupted link: {0} unexpected byte(s) after the compressed scenario; something was appended to the link",
                    vec![log::text(input.len())],
                )))
            }
            TINFLStatus::HasMoreOutput if out.len() < MAX_DECODED_BYTES => {
                let len = out.len().saturating_mul(2).min(MAX_DECODED_BYTES);
                out.resize(len, 0);
            }
            TINFLStatus::HasMoreOutput => {
                return Err(link_error(Msg::new(
                    "the link expands to more than {0} KiB; refusing to open it",
                    vec![log::text(MAX_DECODED_BYTES / 1024)],
                )))
            }
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                return Err(link_error(Msg::new(
                    "corrupted link: the compressed scenario is cut off; copy the whole link",
                    vec![],
                )))
            }
            _ => return Err(link_error(Msg::new(
                    "corrupted link: the compressed scenario is damaged",
                    vec![],
                ))),
        }
    }
}

/// Strips a trailing moment suffix `&t=<duration>` (the playground's own); any other
/// `&…` after the payload is refused by name.
fn strip_suffix(fragment: &str) -> Result<&str, ScenarioError> {
    let Some((link, suffix)) = fragment.split_once('&') else {
        return Ok(fragment);
    };
    match suffix.split('&').find(|part| !part.starts_with("t=")) {
        None => Ok(link),
        Some(part) => Err(link_error(Msg::new(
            "unknown suffix '&{0}' after the scenario (only '&t=<time>' may follow it)",
            vec![log::text(excerpt(part))],
        ))),
    }
}

/// The scenario in a link: a whole URL, `#z2:…` / `#z:…` or just `z2:…` / `z:…`.
pub fn decode(link: &str) -> Result<Document, ScenarioError> {
    if link.len() > MAX_LINK_CHARS {
        return Err(link_error(Msg::new(
            "the link is {0} characters long, more than the {1} KiB a scenario link can need; refusing to read it",
            vec![log::text(link.len()), log::text(MAX_LINK_CHARS / 1024)],
        )));
    }
    let text = link.trim();
    let fragment = match text.find('#') {
        Some(i) => &text[i + 1..],
        None => text,
    }
    .trim();
    if fragment.is_empty() {
        return Err(link_error(Msg::new(
            "the link carries no scenario (nothing after '#')",
            vec![],
        )));
    }
    let fragment = strip_suffix(fragment)?;
    let (prefix, payload) = if let Some((p, rest)) = fragment.split_once(':') {
        (p, rest)
    } else if let Some(i) = fragment.to_ascii_lowercase().find("%3a") {
        (&fragment[..i], &fragment[i + 3..])
    } else {
        return Err(link_error(Msg::new(
            "not a playground link: the part after '#' must start with an encoding prefix such as '{0}'",
            vec![log::text(CHECKED_PREFIX)],
        )));
    };
    let checked = match format!("{prefix}:").as_str() {
        CHECKED_PREFIX => true,
        DEFLATE_PREFIX => false,
        _ => {
            return Err(link_error(Msg::new(
                "unknown link encoding '{0}:' (this playground reads '{1}' and '{2}'); the link may come from a newer playground",
                vec![log::text(excerpt(prefix)), log::text(CHECKED_PREFIX), log::text(DEFLATE_PREFIX)],
            )))
        }
    };
    let bytes = B64.decode(payload.trim()).map_err(|e| {
        link_error(Msg::new(
            "corrupted link: the payload is not valid base64url ({0}); it may have been cut off or altered when copied",
            vec![log::text(e)],
        ))
    })?;
    let (sum, deflated) = if checked {
        let Some((sum, rest)) = bytes.split_first_chunk::<4>() else {
            return Err(link_error(Msg::new(
                "corrupted link: the payload is too short to hold its checksum; copy the whole link",
                vec![],
            )));
        };
        (Some(u32::from_be_bytes(*sum)), rest)
    } else {
        (None, bytes.as_slice())
    };
    let json = inflate_exact(deflated)?;
    if let Some(sum) = sum {
        let actual = crc32(&json);
        if actual != sum {
            return Err(link_error(Msg::new(
                "damaged link: its checksum does not match its content (expected {0}, got {1}); it was altered when copied — ask for the link again",
                vec![log::text(format!("{sum:08x}")), log::text(format!("{actual:08x}"))],
            )));
        }
    }
    let text = String::from_utf8(json).map_err(|_| {
        link_error(Msg::new(
            "corrupted link: the decompressed scenario is not text",
            vec![],
        ))
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        let inner = ScenarioError::from(e);
        link_error(Msg::new(
            "the link's scenario is not valid JSON ({0})",
            vec![inner.as_msg().into()],
        ))
    })?;
    Document::from_value(&value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_the_ieee_one() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn warning_only_for_long_links() {
        assert!(link_warning(100).is_none());
        assert!(link_warning(2001).unwrap().contains("2001"));
    }
}
