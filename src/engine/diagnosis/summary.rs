//! Figures over sets of values, as Flink's web UI computes them: percentiles of the
//! checkpoint summary, the straggler rule, the per-operator rollup of a checkpoint.
//!
//! Contract: pure functions over report data ([`CheckpointReport`]s), no engine access.
//! Percentiles follow Flink's `StatsSummary.getQuantile` (Flink 1.13+), which asks a
//! `DescriptiveStatisticsHistogram` (Apache Commons Math `DescriptiveStatistics.getPercentile`,
//! default `Percentile` estimation: position p·(n+1), linear between neighbours, clamped
//! to the smallest / largest value).

use super::super::report::CheckpointReport;
use serde::Serialize;

/// Commons Math's default percentile (`Percentile.evaluate`, legacy estimation), `p` in 0..=100.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    crate::compact_sort::sort_by(&mut v, f64::total_cmp);
    let n = v.len() as f64;
    let pos = p / 100.0 * (n + 1.0);
    if pos < 1.0 {
        return Some(v[0]);
    }
    if pos >= n {
        return Some(v[v.len() - 1]);
    }
    let lower = pos.floor();
    let d = pos - lower;
    let i = lower as usize;
    Some(v[i - 1] + d * (v[i] - v[i - 1]))
}

/// min / avg / max and p50 / p90 / p99 of one figure.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stat {
    pub min: f64,
    pub avg: f64,
    pub max: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

pub fn stat(values: &[f64]) -> Option<Stat> {
    if values.is_empty() {
        return None;
    }
    let r = |x: f64| (x * 1000.0).round() / 1000.0;
    Some(Stat {
        min: r(values.iter().copied().fold(f64::INFINITY, f64::min)),
        avg: r(values.iter().sum::<f64>() / values.len() as f64),
        max: r(values.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        p50: r(percentile(values, 50.0)?),
        p90: r(percentile(values, 90.0)?),
        p99: r(percentile(values, 99.0)?),
    })
}

/// The checkpoint summary over completed checkpoints, as Flink's "Summary" tab has it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CheckpointSummary {
    pub completed: u32,
    pub end_to_end_ms: Option<Stat>,
    pub checkpointed_bytes: Option<Stat>,
    pub processed_inflight_bytes: Option<Stat>,
    pub persisted_inflight_bytes: Option<Stat>,
}

pub fn checkpoint_summary(checkpoints: &[CheckpointReport]) -> CheckpointSummary {
    let done: Vec<&CheckpointReport> = checkpoints
        .iter()
        .filter(|c| c.status == "completed")
        .collect();
    let of = |f: &dyn Fn(&CheckpointReport) -> f64| -> Option<Stat> {
        stat(&done.iter().map(|c| f(c)).collect::<Vec<_>>())
    };
    CheckpointSummary {
        completed: done.len() as u32,
        end_to_end_ms: of(&|c| c.end_to_end_ms.unwrap_or(0.0)),
        checkpointed_bytes: of(&|c| c.checkpointed_bytes as f64),
        processed_inflight_bytes: of(&|c| c.processed_inflight_bytes as f64),
        persisted_inflight_bytes: of(&|c| c.persisted_inflight_bytes as f64),
    }
}

/// The straggler rule, stated: a subtask whose end-to-end duration is at least
/// max(p95, 1.5 × median) of the checkpoint's acknowledged subtasks.
pub const STRAGGLER_RULE: &str = "end-to-end ≥ max(p95, 1.5 × median) of the acknowledged subtasks";

/// The stragglers of one checkpoint (`operator#index`) and the threshold they passed.
pub fn stragglers(cp: &CheckpointReport) -> (Vec<String>, Option<f64>) {
    let e2e: Vec<f64> = cp.subtasks.iter().filter_map(|s| s.end_to_end_ms).collect();
    let (Some(p95), Some(median)) = (percentile(&e2e, 95.0), percentile(&e2e, 50.0)) else {
        return (Vec::new(), None);
    };
    let threshold = p95.max(1.5 * median);
    let names = cp
        .subtasks
        .iter()
        .filter(|s| s.end_to_end_ms.is_some_and(|e| e >= threshold && e > 0.0))
        .map(|s| format!("{}#{}", s.operator, s.subtask))
        .collect();
    (names, Some((threshold * 1000.0).round() / 1000.0))
}

/// One operator's part in one checkpoint (Flink's `TaskStateStats` row of the details).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OperatorRollup {
    pub operator: String,
    pub acknowledged: u32,
    pub subtasks: u32,
    pub latest_ack_ms: Option<f64>,
    pub end_to_end_ms: Option<f64>,
    pub checkpointed_bytes: u64,
    pub processed_inflight_bytes: u64,
    pub persisted_inflight_bytes: u64,
    pub start_delay_ms: f64,
    pub alignment_ms: f64,
    pub sync_ms: f64,
    pub async_ms: f64,
}

pub fn operator_rollup(cp: &CheckpointReport) -> Vec<OperatorRollup> {
    let mut out: Vec<OperatorRollup> = Vec::new();
    for s in &cp.subtasks {
        let i = match out.iter().position(|r| r.operator == s.operator) {
            Some(i) => i,
            None => {
                out.push(OperatorRollup {
                    operator: s.operator.clone(),
                    ..Default::default()
                });
                out.len() - 1
            }
        };
        let r = &mut out[i];
        let maxo = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, None) => x,
            (None, y) => y,
        };
        r.subtasks += 1;
        r.acknowledged += s.acknowledged as u32;
        r.latest_ack_ms = maxo(r.latest_ack_ms, s.ack_ms);
        r.end_to_end_ms = maxo(r.end_to_end_ms, s.end_to_end_ms);
        r.checkpointed_bytes += s.state_bytes + s.persisted_inflight_bytes;
        r.processed_inflight_bytes += s.processed_inflight_bytes;
        r.persisted_inflight_bytes += s.persisted_inflight_bytes;
        r.start_delay_ms = r.start_delay_ms.max(s.start_delay_ms);
        r.alignment_ms = r.alignment_ms.max(s.alignment_ms);
        r.sync_ms = r.sync_ms.max(s.sync_ms);
        r.async_ms = r.async_ms.max(s.async_ms);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_follow_commons_math() {
        let v: Vec<f64> = (1..=10).map(|x| x as f64).collect();
        assert_eq!(percentile(&v, 50.0), Some(5.5));
        assert_eq!(percentile(&v, 90.0), Some(9.9));
        assert_eq!(percentile(&v, 99.0), Some(10.0));
        assert_eq!(percentile(&[3.0], 50.0), Some(3.0));
        assert_eq!(percentile(&[], 50.0), None);
    }
}
