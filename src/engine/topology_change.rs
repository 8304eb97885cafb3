//! A resubmission that adds or removes operators: the engine's per-operator records
//! renumbered to the new job's operators.
//!
//! Contract: [`Engine::renumber_operators`] is called once the new job's state is assigned
//! and before it is deployed. It matches the running job's operators to the new job's by
//! id (Flink matches state by operator uid) and moves everything the engine keeps by
//! operator index — the live operator settings, the external systems behind the sinks,
//! the sinks' loss counts, the source subtasks' high-water marks, the restored offsets of
//! past failures, the stop offsets of stopped sources, the chart samples and the expected
//! output ([`super::expected_output`]) — so the sinks' verdicts carry over to the new job.
//! A removed operator's records are dropped, an added one starts from its spec. Lineages
//! need no renumbering: a source keeps its lineage number
//! ([`super::runtime::OperatorRuntime::lineage_source`]) and sources are never added or
//! removed ([`super::resubmission`]).
//!
//! Flink 2.3: a resubmitted program is a new `JobGraph` whose vertices are matched to the
//! snapshot's state by `OperatorID` (`Checkpoints.loadAndValidateCheckpoint`); the job's
//! metrics start afresh, as the old tasks' counters here do when the operators change.

use super::record::default_max_parallelism;
use super::runtime::{Engine, OperatorRuntime};
use super::sinks::ExternalSink;
use super::spec::{JobSpec, OperatorKind};
use std::collections::BTreeMap;

impl Engine {
    /// Renumbers the per-operator records to `next`'s operators (see the module doc);
    /// returns `map[old] = new`.
    pub(crate) fn renumber_operators(&mut self, next: &JobSpec) -> Vec<Option<usize>> {
        let map: Vec<Option<usize>> = self
            .operators
            .iter()
            .map(|o| next.operator_index(&o.id))
            .collect();
        let n = next.operators.len();
        let identity = n == map.len() && map.iter().enumerate().all(|(i, m)| *m == Some(i));
        let old_of = |new: usize| map.iter().position(|m| *m == Some(new));
        let moved = |o: usize| map.get(o).copied().flatten();
        let mut operators = Vec::with_capacity(n);
        let mut external = Vec::with_capacity(n);
        let mut lost_by_sink = vec![0; n];
        let mut unattributed_lost = vec![0; n];
        let mut known_lost = vec![BTreeMap::new(); n];
        let keep_records = self.external.iter().flatten().all(|e| e.keep_records);
        for (i, spec) in next.operators.iter().enumerate() {
            match old_of(i) {
                Some(o) => {
                    let mut op = self.operators[o].clone();
                    op.parallelism = spec.parallelism;
                    operators.push(op);
                    external.push(self.external[o].take());
                    lost_by_sink[i] = self.lost_by_sink[o];
                    unattributed_lost[i] = self.unattributed_lost[o];
                    known_lost[i] = std::mem::take(&mut self.known_lost[o]);
                }
                None => {
                    operators.push(OperatorRuntime {
                        id: spec.id.clone(),
                        kind: spec.kind.clone(),
                        parallelism: spec.parallelism,
                        cost: spec.cost,
                        rate: match &spec.kind {
                            OperatorKind::Source(s) => s.rate,
                            _ => 0.0,
                        },
                        tasks: Vec::new(),
                        max_parallelism: next
                            .config
                            .max_parallelism
                            .unwrap_or_else(|| default_max_parallelism(spec.parallelism)),
                        lineage_source: i as u16,
                    });
                    external.push(match spec.kind {
                        OperatorKind::Sink { delivery } => {
                            let mut ext = ExternalSink::new(delivery);
                            ext.keep_records = keep_records;
                            Some(ext)
                        }
                        _ => None,
                    });
                }
            }
        }
        self.operators = operators;
        self.external = external;
        self.lost_by_sink = lost_by_sink;
        self.unattributed_lost = unattributed_lost;
        self.known_lost = known_lost;
        if identity {
            return map;
        }
        let rekey = |m: &BTreeMap<(usize, u32), u64>| -> BTreeMap<(usize, u32), u64> {
            m.iter()
                .filter_map(|(&(o, s), &v)| Some(((moved(o)?, s), v)))
                .collect()
        };
        self.source_high_water = rekey(&self.source_high_water);
        self.lifecycle.stopped_sources = rekey(&self.lifecycle.stopped_sources);
        for r in self.restored_offsets.iter_mut() {
            *r = rekey(r);
        }
        for s in self.samples.iter_mut() {
            let mut records = vec![0; n];
            for (o, &x) in s.records.iter().enumerate() {
                if let Some(i) = moved(o) {
                    records[i] = x;
                }
            }
            s.records = records;
        }
        self.expected_output.renumber(&map, n);
        // The old tasks' chains name the old operators: the new job's tasks start afresh.
        self.tasks.clear();
        map
    }
}
