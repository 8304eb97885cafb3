//! The checkpoint runtime: a deterministic, single-threaded model of Flink's network stack,
//! tasks and checkpointing, driven by virtual time. No web dependency: the same code runs
//! natively (tests, CLI, benchmarks) and in wasm (the playground, browser tests).
//!
//! Entry point: [`Engine`] — built from a [`spec::JobSpec`], advanced by the host with
//! [`Engine::step`], [`Engine::run_until`] or [`Engine::run_to_end`], read through its public
//! state and [`Engine::report`].
//!
//! Modules, one Flink concept each: [`time`] and [`rng`] (virtual clock, seeded RNG),
//! [`config`] (Flink's option keys), [`spec`] (the job), [`graph`] (job graph → execution
//! graph), [`record`] (records and lineage), [`network`] (buffers, channels, pools, credits
//! as data) with `flow` (flow-control operations), [`task`] and `task_loop` (the mailbox
//! task), [`barrier_handler`] with `checkpointed_input` (its glue), [`checkpoint`] (subtask side), [`channel_state`] (writers and
//! storage), [`coordinator`], [`lifecycle`] (savepoints, stop-with-savepoint), [`retained`] (retained checkpoints, claim
//! mode), [`resubmission`] (a changed job restored from a snapshot) with [`state_assignment`]
//! (Flink's `StateAssignmentOperation`), [`recovery`] with
//! [`region_failover`] (restarting one pipelined region), [`sinks`] (external systems and the
//! exactly-once verdict), [`loss`] (which failure lost a missing record), [`log`], `stats` and [`report`] (with [`report_rows`], a checkpoint's rows shared between reports),
//! [`diagnosis`] (why a checkpoint was slow: critical path, bottleneck, Flink's metrics);
//! [`physical_plan`] (chains, slots, TaskManagers, channel kinds, failover regions: what
//! Flink would deploy) and [`chain`] (a task's operator chain, the plan's chains at run
//! time).

pub mod barrier_handler;
pub mod chain;
pub mod channel_state;
pub mod checkpoint;
mod checkpointed_input;
pub mod config;
pub mod coordinator;
mod coordinator_glue;
pub mod debloat;
pub mod diagnosis;
pub mod event_queue;
pub mod expected_output;
mod flow;
pub mod graph;
mod invariants;
pub mod lifecycle;
pub mod log;
pub mod loss;
pub mod network;
pub mod op_state;
pub mod physical_plan;
pub mod record;
pub mod recovery;
pub mod region_failover;
pub mod report;
pub mod report_rows;
pub mod restart_strategy;
pub mod resubmission;
pub mod retained;
pub mod rng;
pub mod runtime;
pub mod sinks;
pub mod spec;
pub mod state_assignment;
pub mod state_mapping;
mod stats;
pub mod task;
mod task_loop;
pub mod time;
pub mod time_travel;
mod topology_change;
pub mod view;

pub use runtime::{Engine, JobStatus};
