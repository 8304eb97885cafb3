//! One file per component of the playground page.
//!
//! Contract: each component renders a self-contained, labelled region and takes
//! everything it shows through its properties (no globals, no engine calls). The
//! stable `data-testid`s that browser tests rely on are:
//!
//! | component | `data-testid` |
//! | --- | --- |
//! | [`header::Header`] | `header` |
//! | [`controls::Controls`] | `controls`; buttons `play`, `pause`, `step`, `reset` |
//! | [`job_graph::JobGraphPanel`] | `job-graph` |
//! | [`checkpoints::CheckpointsPanel`] | `checkpoints` |
//! | [`sinks_recovery::SinksRecoveryPanel`] | `sinks-recovery` |

pub mod checkpoints;
pub mod controls;
pub mod header;
pub mod job_graph;
pub mod panel;
pub mod sinks_recovery;
