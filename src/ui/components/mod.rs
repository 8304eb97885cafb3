//! One file per component of the playground page.
//!
//! Contract: each component renders a self-contained, labelled region and takes
//! everything it shows through its properties (read-only snapshots cut by
//! [`crate::ui::sim`]) and reports user intent as [`crate::ui::command::Command`]s;
//! no component touches the engine. Stable `data-testid`s:
//!
//! | component | `data-testid` |
//! | --- | --- |
//! | [`header::Header`] | `header`, `preset-select`, `share`, `share-note`, `help` |
//! | [`controls::Controls`] | `controls`; `play`, `pause`, `step`, `reset`, `speed`, `trigger-checkpoint`, `clock`, `frame-stats` |
//! | [`job_graph::JobGraphPanel`] | `job-graph`; `subtask-<operator>-<index>` |
//! | [`inspector::Inspector`] | `inspector`; `subtask-details`, `fail-subtask`, `cost-<op>`, `rate-<op>` |
//! | [`settings::SettingsPanel`] | `settings`; `setting-<flink key>` |
//! | [`checkpoints::CheckpointsPanel`] | `checkpoints`; `checkpoint-row`, `checkpoint-summary`, `checkpoint-detail`, `checkpoint-timeline` |
//! | [`sinks_recovery::SinksRecoveryPanel`] | `sinks-recovery`; `sink-verdict`, `failure-row` |
//! | [`charts::ChartsPanel`] | `charts`; `chart-throughput`, `chart-duration`, `chart-persisted`, `chart-inflight` |
//! | [`event_log::EventLog`] | `event-log`; `log-entry`, `log-filter` |
//! | [`help::HelpOverlay`] | `help-overlay` |
//! | [`compare_view::CompareToggle`] | `compare-bar`; `compare-mode`, `compare-toggle` |
//! | [`compare_view::CompareView`] | `compare`; `compare-run-a`, `compare-run-b`, `compare-chart-<duration\|alignment\|persisted\|replay>`, `compare-summary` |

pub mod charts;
pub mod checkpoints;
pub mod compare_view;
pub mod controls;
pub mod event_log;
pub mod header;
pub mod help;
pub mod inspector;
pub mod job_graph;
pub mod panel;
pub mod settings;
pub mod sinks_recovery;
