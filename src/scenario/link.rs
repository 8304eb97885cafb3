//! Scenario links: the document carried in a URL fragment.
//!
//! Format (after the `#`): an encoding prefix, a colon, the payload — mermaid.live's
//! convention (`pako:`), so the encoding is named in the link itself and a new encoding
//! can be added under a new prefix while old links keep opening:
//!
//! | prefix | payload                                                            |
//! |--------|--------------------------------------------------------------------|
//! | `z:`   | base64url without padding (RFC 4648 §5) of raw DEFLATE (RFC 1951, level 9) of the minified JSON document |
//!
//! The document's own `"version"` travels inside the payload, so the format of the
//! scenario evolves independently of its transport; a link from a newer playground says
//! so. [`decode`] accepts a whole URL, `#z:…` or `z:…` (also with the colon escaped as
//! `%3A`), and padding on the base64. Every way a link can be broken has its own message:
//! no prefix, an unknown prefix, bad base64, damaged or truncated DEFLATE data, an
//! expansion past [`MAX_DECODED_BYTES`] (a zip bomb), text that is not UTF-8 or not JSON,
//! and then the document's own errors (version, fields). Errors use the path `link`.

use super::document::Document;
use super::error::ScenarioError;
use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use miniz_oxide::inflate::TINFLStatus;

/// The prefix of the current encoding (raw DEFLATE + base64url).
pub const DEFLATE_PREFIX: &str = "z:";
/// A link never expands to more than this (1 MiB).
pub const MAX_DECODED_BYTES: usize = 1 << 20;
/// Links longer than this may be cut by chat tools, mail clients and some browsers.
pub const LONG_LINK_CHARS: usize = 2000;

const B64: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

fn link_error(message: impl Into<String>) -> ScenarioError {
    ScenarioError::new("link", message)
}

/// The fragment (without `#`) that opens `doc` in the playground: `z:…`.
pub fn encode(doc: &Document) -> String {
    let json = doc.to_json_compact();
    let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    format!("{DEFLATE_PREFIX}{}", B64.encode(deflated))
}

/// A warning for a link of `len` characters that may be too long to share, else `None`.
pub fn link_warning(len: usize) -> Option<String> {
    (len > LONG_LINK_CHARS).then(|| {
        format!(
            "this link is {len} characters long; links over {LONG_LINK_CHARS} characters may be cut off by chat tools, mail clients or browsers — consider a shorter scenario or sharing the JSON file"
        )
    })
}

/// The scenario in a link: a whole URL, `#z:…` or just `z:…`.
pub fn decode(link: &str) -> Result<Document, ScenarioError> {
    let text = link.trim();
    let fragment = match text.find('#') {
        Some(i) => &text[i + 1..],
        None => text,
    }
    .trim();
    if fragment.is_empty() {
        return Err(link_error(
            "the link carries no scenario (nothing after '#')",
        ));
    }
    let (prefix, payload) = if let Some((p, rest)) = fragment.split_once(':') {
        (p, rest)
    } else if let Some(i) = fragment.to_ascii_lowercase().find("%3a") {
        (&fragment[..i], &fragment[i + 3..])
    } else {
        return Err(link_error(format!(
            "not a playground link: the part after '#' must start with an encoding prefix such as '{DEFLATE_PREFIX}'"
        )));
    };
    if format!("{prefix}:") != DEFLATE_PREFIX {
        return Err(link_error(format!(
            "unknown link encoding '{prefix}:' (this playground reads '{DEFLATE_PREFIX}'); the link may come from a newer playground"
        )));
    }
    let deflated = B64.decode(payload.trim()).map_err(|e| {
        link_error(format!(
            "corrupted link: the payload is not valid base64url ({e}); it may have been cut off or altered when copied"
        ))
    })?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_DECODED_BYTES)
        .map_err(|e| match e.status {
            TINFLStatus::HasMoreOutput => link_error(format!(
                "the link expands to more than {} KiB; refusing to open it",
                MAX_DECODED_BYTES / 1024
            )),
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => link_error(
                "corrupted link: the compressed scenario is cut off; copy the whole link",
            ),
            _ => link_error("corrupted link: the compressed scenario is damaged"),
        })?;
    let text = String::from_utf8(json)
        .map_err(|_| link_error("corrupted link: the decompressed scenario is not text"))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        let inner = ScenarioError::from(e);
        link_error(format!(
            "the link's scenario is not valid JSON ({}: {})",
            inner.path, inner.message
        ))
    })?;
    Document::from_value(&value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_only_for_long_links() {
        assert!(link_warning(100).is_none());
        assert!(link_warning(2001).unwrap().contains("2001"));
    }
}
