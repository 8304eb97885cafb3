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
            api: SourceApi::Flip27,
            retention: None,
        }),
        parallelism: p,
        cost: 0,
        chaining: Default::default(),
    }
}

pub fn op(id: &str, kind: OperatorKind, p: u32, cost: &str) -> OperatorSpec {
    OperatorSpec {
        id: id.into(),
        kind,
        parallelism: p,
        cost: d(cost),
        chaining: Default::default(),
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
    // The defaults these tests were written against: a version-1 scenario's (4 KB segments,
    // Flink 1.20's buffer options, fixed-delay restarts after 1 s without limit).
    let mut c = EngineConfig::version_1();
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

/// A small deterministic generator for test inputs (separate from the engine's).
pub struct Gen(u64);

impl Gen {
    pub fn new(seed: u64) -> Self {
        Gen(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// Checkpointing modes the properties run under.
pub const MODES: &[(&str, &[(&str, &str)])] = &[
    ("aligned", &[]),
    (
        "unaligned",
        &[("execution.checkpointing.unaligned.enabled", "true")],
    ),
    (
        "aligned-timeout",
        &[
            ("execution.checkpointing.unaligned.enabled", "true"),
            ("execution.checkpointing.aligned-checkpoint-timeout", "30ms"),
        ],
    ),
    (
        "at-least-once",
        &[("execution.checkpointing.mode", "AT_LEAST_ONCE")],
    ),
];

/// A random bounded DAG: 1–2 sources, up to `max_ops` operators in all, every path ending in
/// a sink, random parallelism 1–4, partitioners, costs and buffer settings.
pub fn random_job(
    g: &mut Gen,
    max_ops: usize,
    delivery: SinkDelivery,
    mode: &[(&str, &str)],
) -> JobSpec {
    random_job_with(g, max_ops, delivery, mode, false)
}

/// The three kinds of input a gate can mix: pointwise (forward, rescale: forced aligned),
/// broadcast (forced aligned) and all-to-all (hash, rebalance: unaligned-capable).
fn partitioner_of_class(g: &mut Gen, class: u64, same_parallelism: bool) -> Partitioner {
    match class {
        0 if same_parallelism && g.below(2) == 0 => Partitioner::Forward,
        0 => Partitioner::Rescale,
        1 => Partitioner::Broadcast,
        _ => *g.pick(&[Partitioner::Hash, Partitioner::Rebalance]),
    }
}

/// [`random_job`], or with `mixed_gates` a job whose operators mostly take two inputs of
/// different kinds (pointwise, broadcast, all-to-all) on one gate, as in issue 20.
pub fn random_job_with(
    g: &mut Gen,
    max_ops: usize,
    delivery: SinkDelivery,
    mode: &[(&str, &str)],
    mixed_gates: bool,
) -> JobSpec {
    let n_sources = g.range(1, 2) as usize;
    let n_total = (g.range(2, max_ops.max(2) as u64) as usize).max(n_sources + 1);
    let mut ops: Vec<OperatorSpec> = Vec::new();
    for i in 0..n_sources {
        let mut s = source(
            &format!("s{i}"),
            g.range(1, 4) as u32,
            g.range(200, 3000) as f64,
            Some(g.range(50, 400)),
        );
        if let OperatorKind::Source(src) = &mut s.kind {
            src.keys = g.range(1, 50) as u32;
            src.record_size = *g.pick(&[64, 200, 256, 900, 5000]);
        }
        ops.push(s);
    }
    let n_middle = n_total - n_sources - 1;
    for i in 0..n_middle {
        let kind = match g.below(3) {
            0 => OperatorKind::Map,
            1 => OperatorKind::FlatMap {
                fan_out: g.range(1, 4) as u32,
            },
            _ => OperatorKind::KeyedAggregate,
        };
        let cost = format!("{}us", g.range(0, 400));
        ops.push(op(&format!("m{i}"), kind, g.range(1, 4) as u32, &cost));
    }
    let sink_cost = format!("{}us", g.range(0, 1500));
    ops.push(sink("sink", g.range(1, 3) as u32, &sink_cost, delivery));
    // Edges: each non-source takes input from 1–2 earlier operators; each non-sink feeds at
    // least one later operator.
    let mut edges: Vec<EdgeSpec> = Vec::new();
    let partitioner = |g: &mut Gen, pf: u32, pt: u32| -> Partitioner {
        let options: Vec<Partitioner> = if pf == pt {
            vec![
                Partitioner::Forward,
                Partitioner::Rebalance,
                Partitioner::Hash,
                Partitioner::Broadcast,
                Partitioner::Rescale,
            ]
        } else {
            vec![
                Partitioner::Rebalance,
                Partitioner::Hash,
                Partitioner::Broadcast,
                Partitioner::Rescale,
            ]
        };
        *g.pick(&options)
    };
    for to in n_sources..ops.len() {
        let candidates: Vec<usize> = (0..to)
            .filter(|&f| !matches!(ops[f].kind, OperatorKind::Sink { .. }))
            .collect();
        let k = if mixed_gates && candidates.len() >= 2 && g.below(4) != 0 {
            2
        } else {
            g.range(1, 2.min(candidates.len()) as u64) as usize
        };
        let mut chosen: Vec<usize> = Vec::new();
        while chosen.len() < k {
            let f = *g.pick(&candidates);
            if !chosen.contains(&f) {
                chosen.push(f);
            }
        }
        // Drawn only for mixed gates, so that other jobs draw what they drew before.
        let first_class = if mixed_gates { g.below(3) } else { 0 };
        for (i, f) in chosen.into_iter().enumerate() {
            let same = ops[f].parallelism == ops[to].parallelism;
            let p = if mixed_gates {
                // The second input of the gate is of another kind than the first.
                let class = (first_class + i as u64 * g.range(1, 2)) % 3;
                partitioner_of_class(g, class, same)
            } else {
                partitioner(g, ops[f].parallelism, ops[to].parallelism)
            };
            edges.push(edge(&ops[f].id.clone(), &ops[to].id.clone(), p));
        }
    }
    for f in 0..ops.len() - 1 {
        if !edges.iter().any(|e| e.from == ops[f].id) {
            let later: Vec<usize> = (f + 1..ops.len())
                .filter(|&t| !matches!(ops[t].kind, OperatorKind::Source(_)))
                .collect();
            let to = *g.pick(&later);
            let p = partitioner(g, ops[f].parallelism, ops[to].parallelism);
            edges.push(edge(&ops[f].id.clone(), &ops[to].id.clone(), p));
        }
    }
    // A keyed aggregate's inputs are keyed streams (`keyBy`: hash), as `JobSpec::validate`
    // requires; set after the draws, so a seed draws the same job otherwise.
    for e in edges.iter_mut() {
        let to = ops.iter().find(|o| o.id == e.to).map(|o| &o.kind);
        if matches!(to, Some(OperatorKind::KeyedAggregate)) {
            e.partitioner = Partitioner::Hash;
        }
    }
    let interval = format!("{}ms", g.range(20, 300));
    let bpc = g.range(0, 3).to_string();
    let floating = g.range(1, 8).to_string();
    let segment = format!("{}b", g.pick(&[256u64, 1024, 4096]));
    let overdraft = g.range(0, 5).to_string();
    let mut config: Vec<(&str, &str)> = vec![
        ("execution.checkpointing.interval", &interval),
        ("taskmanager.network.memory.buffers-per-channel", &bpc),
        (
            "taskmanager.network.memory.floating-buffers-per-gate",
            &floating,
        ),
        ("taskmanager.memory.segment-size", &segment),
        (
            "taskmanager.network.memory.max-overdraft-buffers-per-gate",
            &overdraft,
        ),
        ("restart-strategy.fixed-delay.delay", "50ms"),
        // Forced-aligned edges in diamonds can stall an alignment for good: blocked
        // subpartitions hold the pool a task on the other path needs, and (as in Flink,
        // `notifyCheckpointAborted`) an expiry does not unblock them. What ends such a stall
        // in Flink is the failure manager: too many failed checkpoints fail the job, and the
        // restart drains the channels. Keep the tolerance small so bounded runs finish, and
        // the timeout long enough that a slow but moving alignment completes: with 2 s, once
        // restores cost time and queued requests run back to back (issue 14), 5 % of the
        // failure-free runs looped in checkpoint-failure restarts and never finished.
        ("execution.checkpointing.timeout", "5s"),
        ("execution.checkpointing.min-pause", "300ms"),
        ("execution.checkpointing.tolerable-failed-checkpoints", "2"),
    ];
    let avail = if g.below(4) == 0 { "false" } else { "true" };
    config.push(("playground.task.availability-check", avail));
    config.extend_from_slice(mode);
    job("random", "120s", &config, ops, edges)
}

/// sources(2) -rebalance-> map(2) -hash-> count(2) -rebalance-> sink(1): every edge can
/// carry unaligned barriers; `sink_cost` sets the backpressure. Checkpoints every second
/// unless `config` says otherwise.
pub fn backpressured_job(config: &[(&str, &str)], sink_cost: &str, duration: &str) -> JobSpec {
    let mut cfg = vec![("execution.checkpointing.interval", "1s")];
    cfg.extend_from_slice(config);
    job(
        "backpressured",
        duration,
        &cfg,
        vec![
            source("src", 2, 1000.0, None),
            op("map", OperatorKind::Map, 2, "50us"),
            op("count", OperatorKind::KeyedAggregate, 2, "100us"),
            sink("out", 1, sink_cost, SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "map", Partitioner::Rebalance),
            edge("map", "count", Partitioner::Hash),
            edge("count", "out", Partitioner::Rebalance),
        ],
    )
}
