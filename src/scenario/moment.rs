//! A moment in a scenario link: "open this link at 31 s".
//!
//! Contract: a playground link's fragment is the scenario link (`z:…`, see
//! [`super::link`]) optionally followed by `&t=<duration>`, e.g. `#z:AAAA…&t=31s`. The
//! duration is written as Flink writes durations (`31s`, `1500ms`, `250us`, `2min`; a bare
//! number means milliseconds, as in Flink's `TimeUtils.parseDuration`) and names a
//! virtual time of the run. The scenario's base64url alphabet has no `&`, so the first
//! `&` after the `#` ends the scenario part. [`split`] separates the two parts of a link
//! (a whole URL, `#z:…` or `z:…`) without decoding the scenario, [`parse`] reads the value
//! of `t`, [`format`] writes a time back exactly (integer seconds, milliseconds or
//! microseconds, whichever is exact — `parse(&format(t)) == Ok(t)` for every `t`), and
//! [`suffix`] gives the `&t=…` to append to a fragment. Errors name `t` (a bad value) or
//! `link` (an unknown parameter after the scenario) and say what is accepted.
//!
//! The playground opens a link with a moment paused at exactly that virtual time (the run
//! is simulated up to it); the headless runner takes it as the default `--until`.
//!
//! ```
//! use checkpoint_playground_core::scenario::moment;
//! let (scenario, t) = moment::split("https://example.org/#z:AAAA&t=31s").unwrap();
//! assert_eq!((scenario, t), ("https://example.org/#z:AAAA", Some(31_000_000)));
//! assert_eq!(moment::suffix(1_500_000), "&t=1500ms");
//! assert_eq!(moment::split("#z:AAAA&t=soon").unwrap_err().path, "t");
//! ```

use super::error::ScenarioError;
use crate::engine::log::{self, Msg};
use crate::engine::time::{parse_duration_msg, Micros, MICROS_PER_MS, MICROS_PER_SEC};

/// The parameter that carries the moment.
pub const KEY: &str = "t";

/// Splits a link into its scenario part (everything before the first `&` of the
/// fragment, URL and `#` included) and the moment of its `&t=…`, if it has one.
pub fn split(link: &str) -> Result<(&str, Option<Micros>), ScenarioError> {
    let text = link.trim();
    let scenario = scenario_part(text);
    if scenario.len() == text.len() {
        return Ok((text, None));
    }
    let amp = scenario.len();
    let mut at = None;
    for param in text[amp + 1..].split('&') {
        let (key, value) = param.split_once('=').unwrap_or((param, ""));
        if key != KEY {
            return Err(ScenarioError::of(
                "link",
                Msg::new(
                    "unknown parameter '{0}' after the scenario; a link may end with only '&{1}=<time>' (e.g. &{1}=31s)",
                    vec![log::text(key), log::text(KEY)],
                ),
            ));
        }
        if at.is_some() {
            return Err(ScenarioError::of(
                KEY,
                Msg::new("given twice; a link opens at one moment", vec![]),
            ));
        }
        at = Some(parse(value)?);
    }
    Ok((&text[..amp], at))
}

/// The scenario part of a link, whatever follows it: everything before the first `&`
/// after the `#` (the whole trimmed text when there is none). For a link whose moment is
/// broken, this still opens the scenario.
pub fn scenario_part(link: &str) -> &str {
    let text = link.trim();
    let fragment_start = text.find('#').map_or(0, |i| i + 1);
    match text[fragment_start..].find('&') {
        Some(i) => &text[..fragment_start + i],
        None => text,
    }
}

/// Reads the value of `t`: a Flink duration (`31s`, `1500ms`; a bare number is ms).
pub fn parse(value: &str) -> Result<Micros, ScenarioError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ScenarioError::of(
            KEY,
            Msg::new(
                "has no value; write a virtual time such as 31s or 1500ms",
                vec![],
            ),
        ));
    }
    parse_duration_msg(value).map_err(|m| {
        ScenarioError::of(
            KEY,
            Msg::new(
                "'{0}' is not a virtual time ({1}); write e.g. 31s or 1500ms",
                vec![log::text(value), m.into()],
            ),
        )
    })
}

/// Writes a virtual time as the value of `t`, exactly: `31s`, `1500ms`, `1234567us`.
pub fn format(t: Micros) -> String {
    if t.is_multiple_of(MICROS_PER_SEC) {
        format!("{}s", t / MICROS_PER_SEC)
    } else if t.is_multiple_of(MICROS_PER_MS) {
        format!("{}ms", t / MICROS_PER_MS)
    } else {
        format!("{t}us")
    }
}

/// What to append to a link fragment so that it opens at `t`: `&t=31s`.
pub fn suffix(t: Micros) -> String {
    format!("&{KEY}={}", format(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_flink_durations() {
        assert_eq!(parse("31s"), Ok(31_000_000));
        assert_eq!(parse("1500ms"), Ok(1_500_000));
        assert_eq!(parse("250us"), Ok(250));
        assert_eq!(parse("2min"), Ok(120_000_000));
        assert_eq!(
            parse("40"),
            Ok(40_000),
            "a bare number is milliseconds, as in Flink"
        );
        assert_eq!(parse("0s"), Ok(0));
    }

    #[test]
    fn formats_exactly_in_the_largest_exact_unit() {
        assert_eq!(format(0), "0s");
        assert_eq!(format(31_000_000), "31s");
        assert_eq!(format(1_500_000), "1500ms");
        assert_eq!(format(31_234_567), "31234567us");
        assert_eq!(suffix(31_000_000), "&t=31s");
    }

    #[test]
    fn round_trips_every_time() {
        let mut t: Micros = 1;
        let mut seen = vec![0, 1, 999, 1_000, 59_999_999, 3_600_000_000];
        // A deterministic spread of times (multiplicative walk), so every unit is used.
        for _ in 0..200 {
            t = t.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1) % 10_000_000_000;
            seen.push(t);
            seen.push(t - t % 1_000);
            seen.push(t - t % 1_000_000);
        }
        for t in seen {
            assert_eq!(parse(&format(t)), Ok(t), "format({t}) = {}", format(t));
            let link = format!("https://example.org/p/?x=1&y=2#z:AbC-_9{}", suffix(t));
            assert_eq!(
                split(&link),
                Ok(("https://example.org/p/?x=1&y=2#z:AbC-_9", Some(t)))
            );
        }
    }

    #[test]
    fn splits_links_with_and_without_a_moment() {
        assert_eq!(split("z:AAAA"), Ok(("z:AAAA", None)));
        assert_eq!(split("  #z:AAAA  "), Ok(("#z:AAAA", None)));
        assert_eq!(split("#z:AAAA&t=31s"), Ok(("#z:AAAA", Some(31_000_000))));
        assert_eq!(split("z:AAAA&t=1500ms"), Ok(("z:AAAA", Some(1_500_000))));
        // A query string before the fragment is not the moment.
        assert_eq!(
            split("http://h/?a=1&t=9s#z:AAAA"),
            Ok(("http://h/?a=1&t=9s#z:AAAA", None))
        );
    }

    #[test]
    fn bad_values_name_t_and_say_what_is_accepted() {
        for bad in [
            "#z:AAAA&t=soon",
            "#z:AAAA&t=",
            "#z:AAAA&t",
            "#z:AAAA&t=-3s",
            "#z:AAAA&t=3 parsecs",
        ] {
            let e = split(bad).unwrap_err();
            assert_eq!(e.path, "t", "{bad}: {e}");
            assert!(e.message.contains("31s"), "{bad}: {e}");
        }
        let e = split("#z:AAAA&t=1s&t=2s").unwrap_err();
        assert_eq!(e.path, "t");
        assert!(e.message.contains("twice"), "{e}");
        assert_eq!(
            scenario_part("#z:AAAA&t=soon"),
            "#z:AAAA",
            "the scenario survives"
        );
        let e = split("#z:AAAA&speed=100").unwrap_err();
        assert_eq!(e.path, "link");
        assert!(
            e.message.contains("'speed'") && e.message.contains("&t="),
            "{e}"
        );
    }
}
