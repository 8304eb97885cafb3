//! Resubmitting a changed job from a retained checkpoint or a savepoint (`flink cancel`,
//! then `flink run -s PATH [--allowNonRestoredState]` with new parallelism, partitioners,
//! config, serializer, or operators added and removed).
//!
//! Contract: [`Resubmit`] is the user's action (which snapshot, which changes);
//! [`Resubmit::changed_job`] applies the changes to a job and names a bad one by field;
//! `Engine::resubmit` cancels the running job (its retained checkpoints kept or discarded
//! by `execution.checkpointing.externalized-checkpoint-retention`, [`super::retained`]),
//! resolves the snapshot, maps its state onto the new job's operators by id
//! ([`super::state_mapping`]), assigns it to the new job's subtasks
//! ([`super::state_assignment`]), renumbers the engine's per-operator records
//! ([`super::topology_change`]) and deploys and restores the new job in place — or, when
//! Flink fails the restore, fails the new job with Flink's message
//! (`ResubmissionReport::restore_error`). In-flight records of state skipped by
//! `allow_non_restored_state` are booked as lost to every sink they would have reached
//! (`ResubmissionReport::lost_records`), and the expected sink output follows the new
//! topology from the restored offsets on ([`super::expected_output`]). The event timeline
//! is not touched: the resubmit event is consumed once like any other, and later events
//! stay where they are, so a clone of the engine at any instant continues the same.
//!
//! Flink 2.3, followed: a resubmission is a new job (`JobGraph` from the changed program,
//! `SavepointRestoreSettings` with the path, the claim mode and `allowNonRestoredState`);
//! the scheduler's `SchedulerBase.restoreState` → `CheckpointCoordinator.restoreSavepoint`
//! loads the snapshot (`Checkpoints.loadAndValidateCheckpoint`, which matches its operator
//! states to the new job by `OperatorID`), adds it to the new job's store (`CLAIM` or
//! `NO_CLAIM`, see [`super::retained`]) and assigns it with `StateAssignmentOperation`; a
//! failure there fails the job before it runs. Nothing checks the record serializer:
//! channel state is raw network bytes (`ChannelStateSerializerImpl`), which the new job's
//! deserializer reads after the restore (`SpillingAdaptiveSpanningRecordDeserializer`) —
//! with a changed serializer the task fails there, and every failover restores the same
//! bytes again.
//!
//! Simplified: the new job keeps the checkpoint id counter going (Flink's new job starts at
//! the restored id + 1; ids would repeat in one history); a source's parallelism cannot
//! change (its subtasks are its splits, read by offset), and sources and sinks are neither
//! added nor removed (a source's records are numbered by it, a sink's external system and
//! verdict belong to the whole run); the old job's checkpoint history is kept as rendered
//! reports (its subtasks are gone).

use super::coordinator::CompletedCheckpoint;
use super::log::{text, LogKind, Msg};
use super::record::default_max_parallelism;
use super::report::ResubmissionReport;
use super::retained::{ClaimMode, RestoreFrom};
use super::runtime::{Engine, JobStatus};
use super::spec::{
    keyed_input_problem, EdgeSpec, JobSpec, OperatorKind, OperatorSpec, Partitioner, SpecError,
};
use super::state_assignment::{assign, EdgeShape, OperatorShape};
use super::state_mapping::{map_to_new_job, SnapshotTopology};
use serde::Serialize;
use std::collections::BTreeMap;

/// An edge's new partitioner.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeChange {
    pub from: String,
    pub to: String,
    pub partitioner: Partitioner,
}

/// An edge by its two operators.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeRef {
    pub from: String,
    pub to: String,
}

/// The user's resubmission: from which snapshot, with which changes (all optional).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Resubmit {
    pub from: RestoreFrom,
    /// New parallelism by operator id.
    pub parallelism: BTreeMap<String, u32>,
    pub partitioners: Vec<EdgeChange>,
    /// Flink-syntax config changes of the new job (`playground.serializer.version`,
    /// `pipeline.max-parallelism`, …).
    pub config: BTreeMap<String, String>,
    /// Operators the new program no longer has, by id; their edges go with them.
    pub remove_operators: Vec<String>,
    /// Edges the new program no longer has (between kept operators).
    pub remove_edges: Vec<EdgeRef>,
    /// Operators the new program adds (no sources), wired by `add_edges`; they come after
    /// the kept ones.
    pub add_operators: Vec<OperatorSpec>,
    /// Edges the new program adds: the added operators' and the bypasses of removed ones.
    pub add_edges: Vec<EdgeSpec>,
    /// `flink run --allowNonRestoredState`: skip the snapshot's state of operators the new
    /// program lacks (also on when the new job's config sets
    /// `execution.state-recovery.ignore-unclaimed-state`).
    pub allow_non_restored_state: bool,
}

impl Resubmit {
    /// `job` with the changes applied, validated as a job is; the error's path is relative
    /// to the resubmit object (`parallelism.count`, `config.pipeline.max-parallelism`).
    pub fn changed_job(&self, job: &JobSpec) -> Result<JobSpec, SpecError> {
        let bad = |path: String, msg: Msg| Err(SpecError::of(path, msg));
        let unknown = |id: &str| Msg::new("unknown operator '{0}'", vec![text(id)]);
        let mut next = job.clone();
        next.events.clear();
        for (i, id) in self.remove_operators.iter().enumerate() {
            let Some(o) = next.operators.iter().position(|o| &o.id == id) else {
                return bad(format!("remove_operators[{i}]"), unknown(id));
            };
            match next.operators[o].kind {
                OperatorKind::Source(_) => return bad(
                    format!("remove_operators[{i}]"),
                    Msg::new("'{0}' is a source: the playground numbers records by their source, so sources are not removed", vec![text(id)]),
                ),
                OperatorKind::Sink { .. } => return bad(
                    format!("remove_operators[{i}]"),
                    Msg::new("'{0}' is a sink: its external system and exactly-once verdict belong to the whole run, so the playground does not remove sinks", vec![text(id)]),
                ),
                _ => {}
            }
            next.operators.remove(o);
            next.edges.retain(|e| &e.from != id && &e.to != id);
        }
        for (i, e) in self.remove_edges.iter().enumerate() {
            let before = next.edges.len();
            next.edges.retain(|x| !(x.from == e.from && x.to == e.to));
            if next.edges.len() == before {
                return bad(
                    format!("remove_edges[{i}]"),
                    Msg::new("no edge {0} -> {1}", vec![text(&e.from), text(&e.to)]),
                );
            }
        }
        for (i, o) in self.add_operators.iter().enumerate() {
            if matches!(o.kind, OperatorKind::Source(_)) {
                return bad(
                    format!("add_operators[{i}]"),
                    Msg::new("'{0}' is a source: the playground numbers records by their source, so sources are not added", vec![text(&o.id)]),
                );
            }
            if next.operators.iter().any(|x| x.id == o.id) {
                return bad(
                    format!("add_operators[{i}].id"),
                    Msg::new("operator '{0}' exists already", vec![text(&o.id)]),
                );
            }
            next.operators.push(o.clone());
        }
        for (i, e) in self.add_edges.iter().enumerate() {
            for end in [&e.from, &e.to] {
                if next.operator_index(end).is_none() {
                    return bad(format!("add_edges[{i}]"), unknown(end));
                }
            }
            if next.edges.iter().any(|x| x.from == e.from && x.to == e.to) {
                return bad(
                    format!("add_edges[{i}]"),
                    Msg::new(
                        "the edge {0} -> {1} exists already",
                        vec![text(&e.from), text(&e.to)],
                    ),
                );
            }
            next.edges.push(e.clone());
        }
        for (id, &p) in &self.parallelism {
            let Some(o) = next.operators.iter_mut().find(|o| &o.id == id) else {
                return bad(format!("parallelism.{id}"), unknown(id));
            };
            if matches!(o.kind, OperatorKind::Source(_)) && o.parallelism != p {
                return bad(
                    format!("parallelism.{id}"),
                    Msg::new("'{0}' is a source: its subtasks are its splits, so its parallelism stays {1} in the playground", vec![text(id), text(o.parallelism)]),
                );
            }
            o.parallelism = p;
        }
        for (i, c) in self.partitioners.iter().enumerate() {
            let Some(e) = next
                .edges
                .iter_mut()
                .find(|e| e.from == c.from && e.to == c.to)
            else {
                return bad(
                    format!("partitioners[{i}]"),
                    Msg::new("no edge {0} -> {1}", vec![text(&c.from), text(&c.to)]),
                );
            };
            let to = next.operators.iter().find(|o| o.id == c.to);
            if let Some(msg) = to.and_then(|o| keyed_input_problem(&c.from, o, c.partitioner)) {
                return bad(format!("partitioners[{i}]"), msg);
            }
            e.partitioner = c.partitioner;
        }
        for (k, v) in &self.config {
            match next.config.with_change(k, v) {
                Ok(c) => next.config = c,
                Err(e) => return bad(format!("config.{k}"), e.msg),
            }
        }
        if let Err(e) = next.validate() {
            let msg = Msg::new(
                "the resubmitted job is invalid: {0}",
                vec![e.structured().into()],
            );
            return bad(e.path, msg);
        }
        Ok(next)
    }
}

impl Engine {
    /// The user's resubmission (see the module doc).
    pub(crate) fn resubmit(&mut self, r: &Resubmit) {
        self.log.push(
            self.now,
            LogKind::User,
            format!(
                "resubmit from {} requested: the job is cancelled",
                r.from.text()
            ),
        );
        self.cancel_job();
        let discarded = self
            .retained
            .job_cancelled(self.config.checkpoint_retention);
        if discarded > 0 {
            self.log.push(
                self.now,
                LogKind::Checkpoint,
                format!(
                    "{discarded} retained checkpoint(s) discarded at cancellation ({})",
                    self.config.checkpoint_retention.name()
                ),
            );
        }
        let mut report = ResubmissionReport {
            at_ms: self.now as f64 / 1e3,
            from: r.from.text(),
            ..Default::default()
        };
        let new_job = match r.changed_job(&self.job) {
            Ok(j) => j,
            Err(e) => {
                return self.resubmission_failed(report, format!("{}: {}", e.path, e.message))
            }
        };
        let cp = match self.retained.resolve(&r.from, &self.coordinator.savepoints) {
            Ok(cp) => cp,
            Err(why) => return self.resubmission_failed(report, why),
        };
        report.restored_checkpoint = Some(cp.id);
        report.savepoint = cp.savepoint.is_some();
        let configured = new_job.config.max_parallelism;
        let ops: Vec<OperatorShape> = new_job
            .operators
            .iter()
            .map(|o| OperatorShape {
                id: o.id.clone(),
                parallelism: o.parallelism,
                max_parallelism: configured
                    .unwrap_or_else(|| default_max_parallelism(o.parallelism)),
                max_parallelism_configured: configured.is_some(),
                is_sink: matches!(o.kind, OperatorKind::Sink { .. }),
            })
            .collect();
        let edges: Vec<EdgeShape> = new_job
            .edges
            .iter()
            .map(|e| EdgeShape {
                from_op: new_job.operator_index(&e.from).unwrap_or(0),
                to_op: new_job.operator_index(&e.to).unwrap_or(0),
                partitioner: e.partitioner,
            })
            .collect();
        let pointer =
            super::coordinator::external_path(self.spec.seed, cp.id, cp.savepoint.is_some());
        let ids: Vec<String> = ops.iter().map(|o| o.id.clone()).collect();
        let par: Vec<u32> = ops.iter().map(|o| o.parallelism).collect();
        let max: Vec<u32> = ops.iter().map(|o| o.max_parallelism).collect();
        let ends: Vec<(usize, usize)> = edges.iter().map(|e| (e.from_op, e.to_op)).collect();
        // `--allowNonRestoredState`, or the submitted job's configuration.
        let allow = r.allow_non_restored_state || new_job.config.ignore_unclaimed_state;
        let mapped = match map_to_new_job(&cp, &ids, &par, &max, &ends, allow, &pointer) {
            Ok(m) => m,
            Err(msg) => return self.resubmission_failed(report, msg),
        };
        let assigned = match assign(&mapped.checkpoint, &ops, &edges) {
            Ok(a) => a,
            Err(msg) => return self.resubmission_failed(report, msg),
        };
        // The new job: its spec, config, serializer, max parallelism; deployed afresh.
        let done: Vec<_> = self
            .coordinator
            .history
            .iter()
            .map(|s| super::stats::diagnosed_report(self, s))
            .collect();
        self.previous_checkpoints.extend(done);
        self.coordinator.new_history();
        self.expected_before_resubmission();
        self.renumber_operators(&new_job);
        self.config = new_job.config.clone();
        self.next_partitioners = new_job.edges.iter().map(|e| e.partitioner).collect();
        self.job = new_job;
        self.serializer_version = self.config.serializer_version;
        // A new job: a fresh restart strategy (its own seeded jitter stream) and plan.
        let n = self.resubmissions.len() as u64 + 1;
        self.restart_backoff =
            super::restart_strategy::RestartBackoff::new(self.spec.seed.wrapping_add(n));
        if let Ok(plan) = super::physical_plan::PhysicalPlan::build(&self.job) {
            self.layout = super::chain::Layout::of(&plan, &self.job);
            self.plan = plan;
        }
        self.deploy();
        for (o, &m) in self.operators.iter_mut().zip(&assigned.max_parallelism) {
            o.max_parallelism = m;
        }
        self.restores.clear();
        self.status = JobStatus::Running;
        self.losses_attributed = false;
        let mut restored = assigned.checkpoint;
        restored.topology = self.topology.clone();
        restored.state_bytes = self.state_bytes_of(&restored);
        let all: Vec<usize> = (0..self.tasks.len()).collect();
        self.restore_operator_states(&restored, &all);
        for (op, sub, k, records) in &assigned.commits {
            if let Some(ext) = self.external[*op].as_mut() {
                ext.commit(*sub, *k, records);
            }
        }
        // The expected output: the new job's from the restored offsets on, the restored
        // in-flight records through the new topology, the skipped ones lost.
        let offsets: BTreeMap<(usize, u32), u64> = restored
            .states
            .values()
            .flat_map(|s| s.operators.iter().map(move |(op, st)| (*op, s.subtask, st)))
            .filter_map(|(op, sub, st)| match st {
                super::op_state::OpState::Source { offset } => Some(((op, sub), *offset)),
                _ => None,
            })
            .collect();
        self.expected_after_resubmission(&offsets);
        for state in [&restored.input_state, &restored.output_state] {
            for (&(e, _, _), records) in state {
                let to = self.edges[e].to_op;
                let Some(old_to) = mapped.operator_map.iter().position(|m| *m == Some(to)) else {
                    continue;
                };
                let before = self.snapshot_paths(&cp.topology, &mapped.operator_map, old_to);
                for rec in records {
                    let l = &rec.lineage;
                    self.correct_expected((l.source, l.subtask, l.offset), to, &before);
                }
            }
        }
        report.skipped_operators = mapped.skipped.clone();
        report.skipped_inflight_records = mapped.dropped.len() as u64;
        let mut skipped_lost = 0;
        for (old_to, rec) in &mapped.dropped {
            let before = self.snapshot_paths(&cp.topology, &mapped.operator_map, *old_to);
            let l = &rec.lineage;
            skipped_lost += self.book_loss_by(&before, (l.source, l.subtask, l.offset));
        }
        report.lost_records += skipped_lost;
        if !mapped.skipped.is_empty() {
            self.log.push(
                self.now,
                LogKind::Recovery,
                format!(
                    "--allowNonRestoredState: state of {} skipped (not in the new program); {} in-flight records dropped with it ({} sink records lost)",
                    mapped.skipped.join(", "),
                    mapped.dropped.len(),
                    skipped_lost
                ),
            );
        }
        let drop_inflight =
            self.config.recover_without_channel_state_checkpoint_id == restored.id as i64;
        if drop_inflight {
            let lost = self.count_dropped(&restored.input_state, |_| true)
                + self.count_dropped(&restored.output_state, |_| true);
            report.lost_records += lost;
        } else {
            report.recovered_inflight_records = assigned.inflight_records;
            report.moved_inflight_records = assigned.moved_records;
        }
        self.stale_serializer = (!drop_inflight
            && restored.inflight_records() > 0
            && restored.serializer_version != self.serializer_version)
            .then_some(restored.serializer_version);
        self.begin_restores(&restored, drop_inflight, &all);
        // The restored snapshot is the new job's failover fallback until its first
        // checkpoint completes (`restoreSavepoint` adds it to the store).
        if self.config.claim_mode == ClaimMode::Claim {
            self.coordinator.savepoints.retain(|s| s.id != restored.id);
        }
        self.retained.restored(
            restored.clone(),
            self.config.claim_mode,
            self.config.num_retained,
        );
        self.coordinator.latest = Some(restored.clone());
        self.recovery_started = Some(self.now);
        self.coordinator_start();
        self.log.push(
            self.now,
            LogKind::Recovery,
            format!(
                "new job restored from {} {} ({}): {} in-flight records recovered, {} moved to other channels",
                if restored.savepoint.is_some() { "savepoint" } else { "checkpoint" },
                restored.id,
                self.config.claim_mode.name(),
                report.recovered_inflight_records,
                report.moved_inflight_records
            ),
        );
        self.resubmissions.push(report);
        self.check_recovery_complete();
    }

    /// `flink cancel`: every task CANCELED, pending checkpoints aborted, the checkpoint
    /// scheduler stopped ([`Engine::cancel_all_tasks`], shared with a failover); restores
    /// in progress end with the job, nothing of the old job's recovery carries over.
    fn cancel_job(&mut self) {
        self.cancel_all_tasks("CHECKPOINT_COORDINATOR_SHUTDOWN");
        self.restores.clear();
        self.recovery_started = None;
        self.stale_serializer = None;
    }

    /// The new job fails before it runs (Flink: the submission or the restore throws).
    fn resubmission_failed(&mut self, mut report: ResubmissionReport, msg: String) {
        report.restore_error = Some(msg.clone());
        self.resubmissions.push(report);
        self.fail_job_for_good(format!("the resubmitted job failed to start: {msg}"));
    }

    /// Bytes each new task reads back: the sizes of its operators' restored states.
    fn state_bytes_of(&self, cp: &CompletedCheckpoint) -> BTreeMap<usize, u64> {
        let mut out = BTreeMap::new();
        for (t, task) in self.tasks.iter().enumerate() {
            let ops: Vec<usize> = task.chain.ops.iter().map(|o| o.operator).collect();
            let bytes: u64 = cp
                .states
                .values()
                .filter(|s| s.subtask == task.index)
                .flat_map(|s| s.operators.iter())
                .filter(|(op, _)| ops.contains(op))
                .map(|(_, st)| super::checkpoint::state_size(st, self.config.state_bytes_per_key))
                .sum();
            out.insert(t, bytes);
        }
        out
    }

    /// Sink lineages per record entering `old_op` in the job that took a snapshot of
    /// topology `topo`, by the new job's operator index (`map[old] = new`).
    fn snapshot_paths(
        &self,
        topo: &SnapshotTopology,
        map: &[Option<usize>],
        old_op: usize,
    ) -> Vec<u64> {
        let mut out = vec![0; self.operators.len()];
        if let Some(row) = topo.paths.get(old_op) {
            for (o, &k) in row.iter().enumerate() {
                if let Some(Some(n)) = map.get(o) {
                    out[*n] = k;
                }
            }
        }
        out
    }

    /// Books a record at source position `pos` that will never reach the sinks, which it
    /// would have reached `per_sink[s]` times each, as a known loss; returns the lineages.
    fn book_loss_by(&mut self, per_sink: &[u64], pos: super::loss::SourcePos) -> u64 {
        let mut lineages = 0;
        for (s, &k) in per_sink.iter().enumerate() {
            if k > 0 && self.external.get(s).is_some_and(|e| e.is_some()) {
                self.lost_by_sink[s] += k;
                *self.known_lost[s].entry(pos).or_insert(0) += k;
                lineages += k;
            }
        }
        lineages
    }

    /// The job that runs now (the scenario's, changed by resubmissions).
    pub fn job(&self) -> &JobSpec {
        &self.job
    }
}
