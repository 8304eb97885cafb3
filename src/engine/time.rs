//! Virtual time: the engine's only clock.
//!
//! Time is a `u64` count of virtual microseconds since the start of the run. Nothing in the
//! engine reads a wall clock. Durations and sizes are written as Flink writes them in its
//! configuration (`100ms`, `2s`, `10min`, `32kb`); [`parse_duration`] and [`parse_size`]
//! accept that syntax and [`format_duration`] / [`format_bytes`] print it back.

// Input-facing: reads user config / specs / actions, so no panics on their values.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

use super::log::{self, Msg};

/// Virtual microseconds.
pub type Micros = u64;

pub const MICROS_PER_MS: Micros = 1_000;
pub const MICROS_PER_SEC: Micros = 1_000_000;

/// Parses a duration such as `250us`, `100ms`, `2s`, `10min`, `1h` (a bare number means
/// milliseconds, as in Flink). Whitespace between number and unit is allowed.
///
/// ```
/// use checkpoint_playground_core::engine::time::parse_duration;
/// assert_eq!(parse_duration("100ms"), Ok(100_000));
/// assert_eq!(parse_duration("10 min"), Ok(600_000_000));
/// assert!(parse_duration("ten").is_err());
/// ```
pub fn parse_duration(text: &str) -> Result<Micros, String> {
    parse_duration_msg(text).map_err(|m| m.english())
}

/// [`parse_duration`] with its error in structured form (`engine::log::Msg`: the
/// interface shows it in the viewer's language; its English is `parse_duration`'s).
pub fn parse_duration_msg(text: &str) -> Result<Micros, Msg> {
    let (number, unit) = split_number(text)?;
    let factor: f64 = match unit.to_ascii_lowercase().as_str() {
        "us" | "µs" | "micro" | "micros" => 1.0,
        "" | "ms" | "milli" | "millis" => 1e3,
        "s" | "sec" | "secs" | "second" | "seconds" => 1e6,
        "m" | "min" | "mins" | "minute" | "minutes" => 60e6,
        "h" | "hour" | "hours" => 3600e6,
        "d" | "day" | "days" => 86400e6,
        other => {
            return Err(Msg::new(
                "unknown duration unit '{0}' in '{1}' (use us, ms, s, min, h)",
                vec![log::text(other), log::text(text)],
            ))
        }
    };
    let micros = number * factor;
    if !(0.0..=1.0e16).contains(&micros) {
        return Err(Msg::new(
            "duration '{0}' is out of range",
            vec![log::text(text)],
        ));
    }
    Ok(micros.round() as Micros)
}

/// Parses a size such as `256b`, `32kb`, `4 mb` (a bare number means bytes).
///
/// ```
/// use checkpoint_playground_core::engine::time::parse_size;
/// assert_eq!(parse_size("32kb"), Ok(32 * 1024));
/// assert_eq!(parse_size("256"), Ok(256));
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_size_msg(text).map_err(|m| m.english())
}

/// [`parse_size`] with its error in structured form (see [`parse_duration_msg`]).
pub fn parse_size_msg(text: &str) -> Result<u64, Msg> {
    let (number, unit) = split_number(text)?;
    let factor: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" | "bytes" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        other => {
            return Err(Msg::new(
                "unknown size unit '{0}' in '{1}' (use b, kb, mb, gb)",
                vec![log::text(other), log::text(text)],
            ))
        }
    };
    let bytes = number * factor;
    if !(0.0..=1.0e15).contains(&bytes) {
        return Err(Msg::new(
            "size '{0}' is out of range",
            vec![log::text(text)],
        ));
    }
    Ok(bytes.round() as u64)
}

fn split_number(text: &str) -> Result<(f64, &str), Msg> {
    let t = text.trim();
    let end = t
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    if end == 0 {
        return Err(Msg::new(
            "'{0}' does not start with a number",
            vec![log::text(text)],
        ));
    }
    let number: f64 = t[..end].parse().map_err(|_| {
        Msg::new(
            "'{0}' does not start with a valid number",
            vec![log::text(text)],
        )
    })?;
    Ok((number, t[end..].trim()))
}

/// Formats a duration compactly, choosing the largest unit that keeps it readable.
pub fn format_duration(micros: Micros) -> String {
    if micros == 0 {
        "0ms".to_string()
    } else if micros < MICROS_PER_MS {
        format!("{micros}us")
    } else if micros < MICROS_PER_SEC {
        trim_float(micros as f64 / 1e3, "ms")
    } else if micros < 60 * MICROS_PER_SEC {
        trim_float(micros as f64 / 1e6, "s")
    } else {
        trim_float(micros as f64 / 60e6, "min")
    }
}

/// Formats a byte count as Flink's web UI does (B, KB, MB with one decimal).
pub fn format_bytes(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn trim_float(v: f64, unit: &str) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_round_trip_through_format() {
        for text in ["250us", "100ms", "2s", "10min", "1.5s"] {
            let v = parse_duration(text).unwrap();
            assert_eq!(parse_duration(&format_duration(v)).unwrap(), v, "{text}");
        }
        assert_eq!(parse_duration("0").unwrap(), 0);
        assert!(parse_duration("5 parsecs").unwrap_err().contains("parsecs"));
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("4 kb").unwrap(), 4096);
        assert_eq!(parse_size("1mb").unwrap(), 1 << 20);
        assert!(parse_size("-1kb").is_err());
    }
}
