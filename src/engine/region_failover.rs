//! Region failover: a subtask's failure restarts, restores and rewinds only its pipelined
//! region, while the other regions keep running untouched.
//!
//! Followed from Flink 2.x (`flink-runtime/.../scheduler/` and `.../executiongraph/failover/`):
//! - which subtasks: `RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart` — the
//!   failed vertex's region (`PhysicalPlan::restarted_by` over
//!   [`super::physical_plan::regions`]); the consumer regions of blocking results it also
//!   restarts do not exist in a streaming job. Runtime tasks map to plan subtasks with
//!   `PhysicalPlan::subtask_of` (a chain's operators all belong to its subtask's region).
//! - how: `DefaultScheduler.handleTaskFailure` → `ExecutionFailureHandler.handleFailure`
//!   (the restart strategy's `notifyFailure`/`canRestart`/`getBackoffTime` once per task
//!   failure — a second failure inside a region already restarting is not reported, its
//!   tasks are CANCELED) → `restartTasksWithDelay`: the region's tasks are cancelled at
//!   once, and after the backoff `restartTasks` → `SchedulerBase.restoreState` first aborts
//!   every pending checkpoint (`abortPendingCheckpoints(JOB_FAILOVER_REGION)`, not counted
//!   by the `CheckpointFailureManager`), then
//!   `CheckpointCoordinator.restoreLatestCheckpointedStateToSubtasks` assigns the latest
//!   completed checkpoint — the one completed by then — to the region's subtasks only:
//!   their operator state, source offsets, two-phase-commit sink transactions (committed on
//!   restore) and the channel state of their own channels. The job stays RUNNING and the
//!   periodic trigger keeps firing: until the region is RUNNING again each trigger fails
//!   with `NOT_ALL_REQUIRED_TASKS_RUNNING` (`DefaultCheckpointPlanCalculator`).
//! - a global failover (the failure manager's) or a restart of the whole job meanwhile
//!   supersedes a waiting region restart (`ExecutionVertexVersioner`): its event belongs to
//!   the old job attempt and is dropped.
//!
//! Simplified, and why:
//! - A region that is the whole job restarts through the whole-job path
//!   ([`super::recovery`]), which stops and restarts the periodic trigger and aborts pending
//!   checkpoints at the failure; so a job of one region runs as it did before regions
//!   existed. A changed topology is a new submission ([`super::resubmission`]).
//! - A region's redeployment reads the buffer settings in effect (a live change of the
//!   buffer counts reaches a restarted region's channels before the others'); slots are
//!   not re-allocated (the same slots are reused, as Flink does with the previous
//!   allocations while the TaskManagers live).
//! - Acknowledgements that a cancelled task sent but that had not arrived are dropped with
//!   the attempt's other events.

use super::log::{dur, reason as reason_arg, text, LogKind, Msg};
use super::physical_plan::PhysicalPlan;
use super::report::FailureReport;
use super::restart_strategy::{RestartDecision, RestartStrategy};
use super::rng::Rng;
use super::runtime::{Engine, Ev, JobStatus};
use super::spec::Partitioner;
use super::task::{Activity, Mail, TaskStatus};
use super::time::Micros;
use std::collections::{BTreeMap, BTreeSet};

/// A region failover not yet recovered.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionRestart {
    /// Runtime task ids of the region, ascending.
    pub tasks: Vec<usize>,
    /// When the subtask failed (recovery time is counted from here, as for the job).
    pub failed_at: Micros,
    /// Redeployed (the restart delay is over).
    pub deployed: bool,
}

impl Engine {
    /// The runtime tasks a failure of task `t` restarts on its own, or `None` when the
    /// whole job restarts (see the module doc).
    pub(crate) fn region_to_restart(&self, t: usize) -> Option<Vec<usize>> {
        if self.config.failover_full {
            return None;
        }
        let mut spec = self.job.clone();
        for (e, live) in spec.edges.iter_mut().zip(&self.edges) {
            e.partitioner = live.partitioner;
        }
        let plan = PhysicalPlan::build(&spec).ok()?;
        let subtask = |task: usize| {
            let task = &self.tasks[task];
            plan.subtask_of(task.operator, task.index)
        };
        let restarted: BTreeSet<usize> = plan.restarted_by(subtask(t)?).into_iter().collect();
        let mut region: BTreeSet<usize> = (0..self.tasks.len())
            .filter(|&u| subtask(u).is_some_and(|s| restarted.contains(&s)))
            .collect();
        // The plan's regions are the runtime's connected components; close the set under
        // the runtime's channels all the same, so no channel ever joins two attempts.
        let before = region.len();
        loop {
            let grown: Vec<usize> = self
                .channels
                .iter()
                .filter(|c| region.contains(&c.from_task) != region.contains(&c.to_task))
                .flat_map(|c| [c.from_task, c.to_task])
                .collect();
            if grown.is_empty() {
                break;
            }
            region.extend(grown);
        }
        debug_assert_eq!(
            before,
            region.len(),
            "plan regions differ from the runtime's"
        );
        (region.len() < self.tasks.len()).then(|| region.into_iter().collect())
    }

    /// Task `t` failed and restarts with `region` (its region's runtime tasks): they are
    /// cancelled now and redeployed after the restart strategy's delay.
    pub(crate) fn fail_region(&mut self, t: usize, region: Vec<usize>, reason: String) {
        let operator = self.operators[self.tasks[t].operator].id.clone();
        let subtask = self.tasks[t].index;
        let set: BTreeSet<usize> = region.iter().copied().collect();
        let mut channels = BTreeSet::new();
        for &u in &region {
            let key = (self.tasks[u].operator, self.tasks[u].index);
            let hw = self.source_high_water.entry(key).or_insert(0);
            *hw = (*hw).max(self.tasks[u].high_water);
            channels.extend(self.tasks[u].inputs.iter().copied());
            for &p in &self.tasks[u].partitions {
                channels.extend(self.partitions[p].channels.iter().copied());
            }
        }
        // Cancel the region's tasks: their events die with their attempt, their queued
        // channel-state writes are dropped (a write in progress runs out; its file is
        // discarded with its checkpoint).
        for &u in &region {
            self.set_activity(u, Activity::Idle);
            if self.tasks[u].status != TaskStatus::Finished {
                self.tasks[u].status = TaskStatus::Canceled;
            }
            self.restores.remove(&u);
        }
        self.drop_events_of(&set, &channels);
        for w in self.writers.iter_mut() {
            w.queue.retain(|r| !set.contains(&r.task));
        }
        let strategy =
            RestartStrategy::resolve(&self.config, self.spec.config.checkpoint_interval.is_some());
        let decision = self.restart_backoff.on_failure(&strategy, self.now);
        let delay = match decision {
            RestartDecision::Restart { delay, .. } => Some(delay),
            RestartDecision::GiveUp => None,
        };
        let names: Vec<String> = region.iter().map(|&u| self.tasks[u].name.clone()).collect();
        let who = format!("{operator}#{subtask} failed");
        let msg = match delay {
            Some(d) => Msg::new(
                "{0}#{1} failed: {2}; restarting its failover region ({3} of {4} subtasks: {5}) in {6}",
                vec![
                    text(&operator),
                    text(subtask),
                    reason_arg(&reason),
                    text(region.len()),
                    text(self.tasks.len()),
                    text(names.join(", ")),
                    text(dur(d)),
                ],
            ),
            None => Msg::new(
                "{0}#{1} failed: {2}; the restart strategy {3} allows no further restart",
                vec![
                    text(&operator),
                    text(subtask),
                    reason_arg(&reason),
                    text(strategy.describe()),
                ],
            ),
        };
        self.log.push_msg(self.now, LogKind::Failure, msg);
        let failure = self.failures.len();
        self.failures.push(FailureReport {
            at_ms: self.now as f64 / 1e3,
            operator,
            subtask,
            reason: reason.clone(),
            restart_delay_ms: delay.map(|d| d as f64 / 1e3),
            restarted_subtasks: if delay.is_some() { names } else { Vec::new() },
            ..Default::default()
        });
        match delay {
            Some(d) => {
                self.region_restarts.insert(
                    failure,
                    RegionRestart {
                        tasks: region,
                        failed_at: self.now,
                        deployed: false,
                    },
                );
                self.schedule(self.now + d, Ev::RestartRegion(failure));
            }
            None => {
                for u in 0..self.tasks.len() {
                    if self.tasks[u].status != TaskStatus::Finished {
                        self.set_activity(u, Activity::Idle);
                        self.tasks[u].status = TaskStatus::Canceled;
                    }
                }
                self.fail_job_for_good(format!(
                    "{who} ({reason}) and the restart strategy {} gives up",
                    strategy.describe()
                ));
            }
        }
    }

    /// The restart delay of failure `failure` is over: its region is redeployed and
    /// restored from the latest completed checkpoint (`restartTasks` → `restoreState`).
    pub(crate) fn restart_region(&mut self, failure: usize) {
        if self.status != JobStatus::Running {
            return;
        }
        let Some(r) = self.region_restarts.get_mut(&failure) else {
            return;
        };
        if r.deployed {
            return;
        }
        r.deployed = true;
        let tasks = r.tasks.clone();
        self.coordinator_abort_pending("JOB_FAILOVER_REGION");
        self.deploy_region(&tasks);
        let set: BTreeSet<usize> = tasks.iter().copied().collect();
        let mut replayed = 0u64;
        let mut recovered_inflight = 0u64;
        let mut lost = 0u64;
        let latest = self.coordinator.latest.clone();
        let restored_id = latest.as_ref().map(|c| c.id);
        if let Some(cp) = latest {
            let drop_inflight =
                self.config.recover_without_channel_state_checkpoint_id == cp.id as i64;
            let (offsets, rewound) = self.restore_operator_states(&cp, &tasks);
            replayed += rewound;
            self.note_restored_offsets(failure, offsets);
            let ours = |engine: &Engine, key| {
                engine
                    .channel_by_key(key)
                    .is_some_and(|c| set.contains(&engine.channels[c].to_task))
            };
            let keys = |state: &BTreeMap<_, Vec<_>>, engine: &Engine| {
                state
                    .iter()
                    .filter(|(k, _)| ours(engine, **k))
                    .map(|(_, r): (_, &Vec<_>)| r.len() as u64)
                    .sum::<u64>()
            };
            let inflight = keys(&cp.input_state, self) + keys(&cp.output_state, self);
            if drop_inflight {
                let own: BTreeSet<_> = cp
                    .input_state
                    .keys()
                    .chain(cp.output_state.keys())
                    .copied()
                    .filter(|k| ours(self, *k))
                    .collect();
                lost += self.count_dropped(&cp.input_state, |k| own.contains(&k))
                    + self.count_dropped(&cp.output_state, |k| own.contains(&k));
            } else {
                recovered_inflight = inflight;
            }
            self.begin_restores(&cp, drop_inflight, &tasks);
            replayed += recovered_inflight;
            let code = if drop_inflight {
                "failover region of {0} subtasks restarted from checkpoint {1} without its in-flight data: its sources rewound, {2} in-flight records recovered"
            } else {
                "failover region of {0} subtasks restarted from checkpoint {1}: its sources rewound, {2} in-flight records recovered"
            };
            self.log.push_msg(
                self.now,
                LogKind::Recovery,
                Msg::new(
                    code,
                    vec![text(tasks.len()), text(cp.id), text(recovered_inflight)],
                ),
            );
        } else {
            self.note_restored_offsets(failure, BTreeMap::new());
            replayed += self.replayed_from_scratch(&tasks);
            self.log.push_msg(
                self.now,
                LogKind::Recovery,
                Msg::new(
                    "failover region of {0} subtasks restarted from scratch (no completed checkpoint)",
                    vec![text(tasks.len())],
                ),
            );
        }
        if let Some(f) = self.failures.get_mut(failure) {
            f.restored_checkpoint = restored_id;
            f.replayed_records = replayed;
            f.recovered_inflight_records = recovered_inflight;
            f.lost_records += lost;
        }
        self.check_recovery_complete();
    }

    /// Fresh attempts of `tasks` (a region): new tasks, and new channels, subpartitions and
    /// gates for every channel of theirs — a region shares none with another region.
    fn deploy_region(&mut self, tasks: &[usize]) {
        let partitioners: Vec<Partitioner> = self.edges.iter().map(|e| e.partitioner).collect();
        let mut g = super::graph::build(&self.job, &partitioners, &self.layout, &self.config);
        self.region_deploys += 1;
        // As `deploy`: the rebalance/rescale partitioners start at a random channel, one
        // seeded stream per redeployment.
        let mut rng = Rng::new(self.spec.seed).fork(0x5EED_8000_0000 + self.region_deploys);
        let set: BTreeSet<usize> = tasks.iter().copied().collect();
        for p in g.partitions.iter_mut().filter(|p| set.contains(&p.task)) {
            p.next_channel = rng.below(p.channels.len().max(1) as u64) as usize;
        }
        let fresh = self.fresh_tasks(&g);
        for &t in tasks {
            self.tasks[t].book_activity(self.now);
            let mut task = fresh[t].clone();
            task.metrics = self.tasks[t].metrics.clone();
            let m = &task.metrics;
            task.debloat_mark = m.busy + m.soft_backpressured + m.hard_backpressured;
            task.activity_since = self.now;
            for &c in &task.inputs {
                self.channels[c] = g.channels[c].clone();
            }
            for &p in &task.partitions {
                for &c in &g.partitions[p].channels {
                    self.channels[c] = g.channels[c].clone();
                }
                self.partitions[p] = g.partitions[p].clone();
            }
            for &gate in &task.gates {
                self.gates[gate] = g.gates[gate].clone();
            }
            self.tasks[t] = task;
        }
        let debloat =
            self.config.debloat_enabled && self.debloat_scheduled_epoch == Some(self.epoch);
        for &t in tasks {
            self.wake(t, self.now);
            if debloat && !self.tasks[t].gates.is_empty() {
                self.schedule(
                    self.now + self.config.debloat_period,
                    Ev::Mail(t, Mail::Debloat),
                );
            }
        }
    }

    /// Region failovers whose tasks are all RUNNING again get their recovery time.
    pub(crate) fn check_regions_recovered(&mut self) {
        if self.status != JobStatus::Running {
            return;
        }
        let done: Vec<usize> = self
            .region_restarts
            .iter()
            .filter(|(_, r)| {
                r.deployed
                    && r.tasks
                        .iter()
                        .all(|&t| self.tasks[t].status != TaskStatus::Recovering)
            })
            .map(|(&f, _)| f)
            .collect();
        for f in done {
            let Some(r) = self.region_restarts.remove(&f) else {
                continue;
            };
            let took = self.now - r.failed_at;
            if let Some(report) = self.failures.get_mut(f) {
                report.recovery_ms = Some(took as f64 / 1e3);
            }
            self.log.push_msg(
                self.now,
                LogKind::Recovery,
                Msg::new(
                    "recovery of the failover region ({0} subtasks) complete after {1}: its tasks are RUNNING",
                    vec![text(r.tasks.len()), text(dur(took))],
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    //! Shaped like Flink's `RestartPipelinedRegionFailoverStrategyTest`: for a topology, the
    //! failure of each vertex and the set of vertices it restarts — here over a streaming
    //! job's pipelined edges, so a region is what the pointwise slices and all-to-all
    //! edges join, and `None` stands for a restart of the whole job.
    use super::*;
    use crate::engine::spec::Action;
    use crate::scenario;

    fn engine(config: &str, body: &str) -> Engine {
        let text = format!(
            r#"{{"version": 2, "duration": "10s", "config": {{"execution.checkpointing.interval": "1s"{config}}}, {body}}}"#
        );
        let doc = scenario::parse_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let spec = scenario::to_spec(&doc).unwrap_or_else(|e| panic!("{e}\n{text}"));
        Engine::new(spec).unwrap()
    }

    /// The operator subtasks task `u` runs (`op#i`, one per chained operator).
    fn op_subtasks(e: &Engine, u: usize) -> Vec<String> {
        let t = &e.tasks[u];
        t.chain
            .ops
            .iter()
            .map(|o| format!("{}#{}", e.operators[o.operator].id, t.index))
            .collect()
    }

    /// What a failure of every task restarts, as the operator subtasks (`op#i`, sorted) of
    /// the restarted tasks, keyed by the failing task's head operator subtask — the same
    /// whether or not the runtime chains.
    fn restarts(e: &Engine) -> Vec<(String, Option<Vec<String>>)> {
        (0..e.tasks.len())
            .map(|t| {
                let names = e.region_to_restart(t).map(|r| {
                    let mut all: Vec<String> = r.iter().flat_map(|&u| op_subtasks(e, u)).collect();
                    all.sort();
                    all
                });
                (op_subtasks(e, t)[0].clone(), names)
            })
            .collect()
    }

    fn names(list: &[&str]) -> Option<Vec<String>> {
        let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        v.sort();
        Some(v)
    }

    /// Two connected components: `a(2) -hash-> agg(2) -> sink_a(2)` is one region (the
    /// all-to-all edge joins both slices), `b(1) -> sink_b(1)` another.
    const TWO_COMPONENTS: &str = r#"
        "operators": [
            {"id": "a", "kind": "source", "parallelism": 2, "rate": 100},
            {"id": "agg", "kind": "keyed_aggregate", "parallelism": 2},
            {"id": "sink_a", "kind": "sink", "parallelism": 2},
            {"id": "b", "kind": "source", "parallelism": 1, "rate": 100},
            {"id": "sink_b", "kind": "sink", "parallelism": 1}
        ],
        "edges": [
            {"from": "a", "to": "agg", "partitioner": "hash"},
            {"from": "agg", "to": "sink_a"},
            {"from": "b", "to": "sink_b"}
        ]"#;

    /// `testRegionFailoverForRegionInternalErrors`, pipelined: a vertex's failure restarts
    /// every vertex of its region and nothing of the other.
    #[test]
    fn a_failure_restarts_its_region_and_no_other() {
        let e = engine("", TWO_COMPONENTS);
        let first = names(&["a#0", "a#1", "agg#0", "agg#1", "sink_a#0", "sink_a#1"]);
        let second = names(&["b#0", "sink_b#0"]);
        for (task, restarted) in restarts(&e) {
            let expected = if task.starts_with('b') || task.starts_with("sink_b") {
                &second
            } else {
                &first
            };
            assert_eq!(&restarted, expected, "failure of {task}");
        }
    }

    /// Pointwise edges (`forward`, `rescale`) join only their slices: each slice of
    /// `src(2) -rescale-> map(4) -forward-> sink(4)` is a region.
    #[test]
    fn pointwise_slices_are_regions() {
        let e = engine(
            "",
            r#"
            "operators": [
                {"id": "src", "kind": "source", "parallelism": 2, "rate": 100},
                {"id": "map", "kind": "map", "parallelism": 4},
                {"id": "sink", "kind": "sink", "parallelism": 4}
            ],
            "edges": [
                {"from": "src", "to": "map", "partitioner": "rescale"},
                {"from": "map", "to": "sink"}
            ]"#,
        );
        let low = names(&["src#0", "map#0", "map#1", "sink#0", "sink#1"]);
        let high = names(&["src#1", "map#2", "map#3", "sink#2", "sink#3"]);
        for (task, restarted) in restarts(&e) {
            let index: usize = task.rsplit('#').next().unwrap().parse().unwrap();
            let slice = if task.starts_with("src") {
                index
            } else {
                index / 2
            };
            assert_eq!(
                restarted,
                if slice == 0 {
                    low.clone()
                } else {
                    high.clone()
                },
                "{task}"
            );
        }
    }

    /// Chaining does not move regions: a chain's operators are one subtask, and without
    /// chaining (or with `disableChaining`) the forward edge joins the same two subtasks.
    #[test]
    fn chaining_and_its_overrides_keep_the_slices() {
        let body = |chaining: &str| {
            format!(
                r#"
                "operators": [
                    {{"id": "src", "kind": "source", "parallelism": 3, "rate": 100}},
                    {{"id": "map", "kind": "map", "parallelism": 3{chaining}}},
                    {{"id": "sink", "kind": "sink", "parallelism": 3}}
                ],
                "edges": [
                    {{"from": "src", "to": "map"}},
                    {{"from": "map", "to": "sink"}}
                ]"#
            )
        };
        let sets = |e: &Engine| -> std::collections::BTreeSet<Option<Vec<String>>> {
            restarts(e).into_iter().map(|(_, r)| r).collect()
        };
        let chained = sets(&engine("", &body("")));
        assert!(chained.contains(&names(&["src#1", "map#1", "sink#1"])));
        assert_eq!(chained.len(), 3, "one region per slice");
        for (config, chaining) in [
            (r#", "pipeline.operator-chaining.enabled": false"#, ""),
            ("", r#", "disable_chaining": true"#),
            ("", r#", "start_new_chain": true"#),
        ] {
            assert_eq!(
                sets(&engine(config, &body(chaining))),
                chained,
                "{config}{chaining}"
            );
        }
    }

    /// `full` (`RestartAllFailoverStrategy`), a job of one region, and a pending topology
    /// change restart the whole job.
    #[test]
    fn the_whole_job_restarts_with_full_or_one_region_and_a_pending_partitioner_waits() {
        let full = engine(
            r#", "jobmanager.execution.failover-strategy": "full""#,
            TWO_COMPONENTS,
        );
        assert!(restarts(&full).iter().all(|(_, r)| r.is_none()));
        let one = engine(
            "",
            r#"
            "operators": [
                {"id": "src", "kind": "source", "parallelism": 2, "rate": 100},
                {"id": "sink", "kind": "sink", "parallelism": 2}
            ],
            "edges": [{"from": "src", "to": "sink", "partitioner": "rebalance"}]"#,
        );
        assert!(restarts(&one).iter().all(|(_, r)| r.is_none()));
        let mut changed = engine("", TWO_COMPONENTS);
        assert!(changed.region_to_restart(3).is_some());
        changed
            .apply(Action::SetPartitioner {
                from: "b".into(),
                to: "sink_b".into(),
                partitioner: crate::engine::spec::Partitioner::Rebalance,
            })
            .unwrap();
        // A partitioner change waits for a resubmission (issue 15): a failover restarts
        // the job as it runs, region by region.
        assert!(changed.region_to_restart(3).is_some());
    }
}
