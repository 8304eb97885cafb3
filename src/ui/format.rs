//! Small formatting helpers shared by the panels (virtual times, sizes, shares).
//!
//! Contract: pure functions, no DOM. Durations and sizes follow the engine's own
//! formatting (Flink's web UI style: `1.2s`, `64.0 KB`).

use crate::engine::spec::Action;
use crate::engine::time::{format_bytes, format_duration, Micros};

/// What a recorded action does, as a sentence: "the cost of out becomes 1ms per record".
pub fn action(a: &Action) -> String {
    match a {
        Action::SetCost { operator, cost } => {
            format!("the cost of {operator} becomes {} per record", dur(*cost))
        }
        Action::SetRate { operator, rate } => {
            format!("each subtask of {operator} emits {rate:.0} records/s")
        }
        Action::Fail { operator, subtask } => format!("subtask {operator}#{subtask} fails"),
        Action::TriggerCheckpoint => "a checkpoint is triggered".into(),
        Action::Savepoint => "a savepoint is triggered".into(),
        Action::StopWithSavepoint { drain: true } => {
            "the job is stopped with a drained savepoint".into()
        }
        Action::StopWithSavepoint { drain: false } => "the job is stopped with a savepoint".into(),
        Action::SetConfig { key, value } => format!("{key} is set to {value}"),
        Action::SetPartitioner {
            from,
            to,
            partitioner,
        } => format!(
            "the edge {from} → {to} becomes {} (at the next resubmission)",
            partitioner.name()
        ),
        Action::Resubmit(r) => format!("the job is resubmitted from {}", r.from.text()),
    }
}

/// A recorded action with its time: "at 12.3s, a checkpoint is triggered".
pub fn timed_action(at: Micros, a: &Action) -> String {
    format!("at {}, {}", clock(at), action(a))
}

/// Virtual microseconds as seconds with one decimal: `12_345_678` → `"12.3s"`.
pub fn clock(us: Micros) -> String {
    format!("{:.1}s", us as f64 / 1e6)
}

/// A duration in milliseconds (as the report gives it) in Flink's style.
pub fn ms(ms: f64) -> String {
    format_duration((ms * 1e3).round().max(0.0) as Micros)
}

/// An optional duration in milliseconds, `-` when absent.
pub fn opt_ms(v: Option<f64>) -> String {
    v.map(ms).unwrap_or_else(|| "-".into())
}

/// Bytes as Flink's web UI shows them.
pub fn bytes(b: u64) -> String {
    format_bytes(b)
}

/// A share in `[0, 1]` as a whole percentage.
pub fn pct(x: f64) -> String {
    format!("{:.0}%", (x * 100.0).clamp(0.0, 100.0))
}

/// A duration in microseconds in Flink's style.
pub fn dur(us: Micros) -> String {
    format_duration(us)
}

/// A speed factor: `0.25×`, `3×`, `120×`.
pub fn speed(x: f64) -> String {
    if x < 1.0 {
        format!("{x:.2}×")
    } else if x < 10.0 {
        format!("{x:.1}×")
    } else {
        format!("{x:.0}×")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(clock(12_345_678), "12.3s");
        assert_eq!(ms(1500.0), "1.5s");
        assert_eq!(opt_ms(None), "-");
        assert_eq!(pct(0.314), "31%");
        assert_eq!(speed(120.0), "120×");
        let a = Action::SetCost {
            operator: "out".into(),
            cost: 1000,
        };
        assert_eq!(
            timed_action(20_000_000, &a),
            "at 20.0s, the cost of out becomes 1ms per record"
        );
        assert_eq!(
            action(&Action::Fail {
                operator: "count".into(),
                subtask: 1
            }),
            "subtask count#1 fails"
        );
    }
}
