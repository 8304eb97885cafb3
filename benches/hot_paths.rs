//! Criterion micro-benchmarks of the engine's hot paths (issue 19), beside the whole-job
//! figure of `benches/engine.rs`:
//!
//! - `event_queue`: the engine's event traffic shape — per popped event, one event for
//!   the current instant (a wake-up, a mail) and one a little later (a buffer's hop, the
//!   end of a record's busy time), over ~200 queued events (the `large` preset's tasks
//!   and channels);
//! - `chain_push`: one record through a `map -> keyed_aggregate -> partition` chain;
//! - `lineage_set`: a sink's exactly-once bookkeeping, in-order offsets of 8 subtasks;
//! - `large_2s`: the `large` preset's first 2 virtual seconds, whole.
//!
//! `cargo bench --bench hot_paths` (add `-- --quick` for a shorter run).

use checkpoint_playground::engine::chain::{
    ChainHost, ChainOutput, ChainedOperator, OperatorChain,
};
use checkpoint_playground::engine::event_queue::EventQueue;
use checkpoint_playground::engine::op_state::OpState;
use checkpoint_playground::engine::record::{Lineage, Record};
use checkpoint_playground::engine::sinks::LineageSet;
use checkpoint_playground::engine::spec::OperatorKind;
use checkpoint_playground::engine::time::Micros;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;
use criterion::{criterion_group, criterion_main, Criterion};
use std::collections::BTreeMap;
use std::hint::black_box;

fn event_queue(c: &mut Criterion) {
    c.bench_function(
        "event_queue: 1k pops (now + later pushes, ~200 queued)",
        |b| {
            let mut q: EventQueue<u64> = EventQueue::default();
            let (mut now, mut seq) = (0u64, 0u64);
            for i in 0..200 {
                seq += 1;
                q.push(i * 7, 0, seq, 0, seq, 0);
            }
            b.iter(|| {
                for _ in 0..1000 {
                    let p = q.pop().expect("never empty");
                    now = p.at;
                    seq += 1;
                    q.push(now, 0, seq, 0, seq, now);
                    let p = q.pop().expect("never empty");
                    now = p.at;
                    seq += 1;
                    q.push(now + 50 + (seq % 97), 0, seq, 0, black_box(p.ev), now);
                }
            })
        },
    );
}

struct Host {
    kinds: Vec<OperatorKind>,
    costs: Vec<Micros>,
    emitted: u64,
}

impl ChainHost for Host {
    fn cost(&self, op: usize) -> Micros {
        self.costs[op]
    }
    fn kind(&self, op: usize) -> &OperatorKind {
        &self.kinds[op]
    }
    fn emit(&mut self, _partition: usize, record: Record) {
        self.emitted = self.emitted.wrapping_add(record.value as u64);
    }
    fn write_external(&mut self, _operator: usize, _record: &Record) {}
}

fn chain_push(c: &mut Criterion) {
    let mut host = Host {
        kinds: vec![OperatorKind::Map, OperatorKind::KeyedAggregate],
        costs: vec![50, 100],
        emitted: 0,
    };
    let op = |operator, state, outputs| ChainedOperator {
        operator,
        state,
        records_in: 0,
        records_out: 0,
        outputs,
    };
    let mut chain = OperatorChain {
        ops: vec![
            op(0, OpState::Stateless, vec![ChainOutput::Chained(1)]),
            op(
                1,
                OpState::Keyed(BTreeMap::new()),
                vec![ChainOutput::Partition(0)],
            ),
        ],
    };
    let mut offset = 0u64;
    c.bench_function("chain_push: map -> keyed_aggregate -> partition", |b| {
        b.iter(|| {
            offset += 1;
            let record = Record {
                key: offset % 1024,
                value: 1,
                size: 256,
                lineage: Lineage::root(0, 0, offset),
            };
            black_box(chain.push(0, record, &mut host))
        })
    });
}

fn lineage_set(c: &mut Criterion) {
    let mut set = LineageSet::default();
    let mut offset = 0u64;
    c.bench_function("lineage_set: in-order inserts over 8 subtasks", |b| {
        b.iter(|| {
            offset += 1;
            let l = Lineage::root(0, (offset % 8) as u16, offset / 8);
            black_box(set.insert(&l))
        })
    });
}

fn large_2s(c: &mut Criterion) {
    let doc = scenario::preset("large").expect("the large preset");
    let mut spec = scenario::to_spec(&doc).expect("valid preset");
    spec.duration = 2_000_000;
    let mut group = c.benchmark_group("whole job");
    group.sample_size(10);
    group.bench_function("large, first 2 s", |b| {
        b.iter(|| {
            let mut e = Engine::new(spec.clone()).expect("valid");
            e.run_to_end();
            black_box(e.event_hash())
        })
    });
    group.finish();
}

criterion_group!(benches, event_queue, chain_push, lineage_set, large_2s);
criterion_main!(benches);
