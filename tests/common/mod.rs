//! Builders for engine tests: small jobs without going through JSON.
#![allow(dead_code)]

use checkpoint_playground::engine::config::EngineConfig;
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::time::parse_duration;

pub fn d(s: &str) -> u64 {
    parse_duration(s).unwrap()
}

pub fn source(id: &str, p: u32, rate: f64, records: Option<u64>) -> OperatorSpec {
    OperatorSpec {
        id: id.into(),
        kind: OperatorKind::Source(SourceSpec {
            rate,
            records,
            record_size: 256,
            keys: 64,
            skew: 0.0,
            legacy: false,
            retention: None,
        }),
        parallelism: p,
        cost: 0,
    }
}

pub fn op(id: &str, kind: OperatorKind, p: u32, cost: &str) -> OperatorSpec {
    OperatorSpec {
        id: id.into(),
        kind,
        parallelism: p,
        cost: d(cost),
    }
}

pub fn sink(id: &str, p: u32, cost: &str, delivery: SinkDelivery) -> OperatorSpec {
    op(id, OperatorKind::Sink { delivery }, p, cost)
}

pub fn edge(from: &str, to: &str, partitioner: Partitioner) -> EdgeSpec {
    EdgeSpec {
        from: from.into(),
        to: to.into(),
        partitioner,
    }
}

pub fn job(
    name: &str,
    duration: &str,
    config: &[(&str, &str)],
    operators: Vec<OperatorSpec>,
    edges: Vec<EdgeSpec>,
) -> JobSpec {
    let mut c = EngineConfig::default();
    for (k, v) in config {
        c.set(k, v).unwrap();
    }
    JobSpec {
        name: name.into(),
        seed: 7,
        duration: d(duration),
        config: c,
        operators,
        edges,
        events: vec![],
    }
}

/// source(2) -> map(2, forward) -> count(2, hash) -> sink(1, rebalance).
pub fn pipeline(
    config: &[(&str, &str)],
    records: Option<u64>,
    sink_cost: &str,
    duration: &str,
) -> JobSpec {
    job(
        "pipeline",
        duration,
        config,
        vec![
            source("src", 2, 2000.0, records),
            op("map", OperatorKind::Map, 2, "20us"),
            op("count", OperatorKind::KeyedAggregate, 2, "50us"),
            sink("out", 1, sink_cost, SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "map", Partitioner::Forward),
            edge("map", "count", Partitioner::Hash),
            edge("count", "out", Partitioner::Rebalance),
        ],
    )
}
