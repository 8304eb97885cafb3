//! One file per component of the playground page.
//!
//! Contract: each component renders a self-contained, labelled region and takes
//! everything it shows through its properties (read-only snapshots cut by
//! [`crate::ui::sim`]) and reports user intent as [`crate::ui::command::Command`]s;
//! no component touches the engine. Stable `data-testid`s:
//!
//! | component | `data-testid` |
//! | --- | --- |
//! | [`header::Header`] | `header`, `preset-select`, `share`, `share-note`, `help`, `export-json`, `copy-json`, `import-json` |
//! | [`controls::Controls`] | `controls`; `play`, `pause`, `step`, `reset`, `speed`, `trigger-checkpoint`, `trigger-savepoint`, `clock`, `frame-stats` |
//! | [`job_graph::JobGraphPanel`] | `job-graph`; `subtask-<operator>-<index>` |
//! | [`inspector::Inspector`] | `inspector`; `subtask-details`, `fail-subtask`, `cost-<op>`, `rate-<op>` |
//! | [`settings::SettingsPanel`] | `settings`; `setting-<flink key>` |
//! | [`checkpoints::CheckpointsPanel`] | `checkpoints`; `checkpoint-row` (`resubmit-from-here` on completed rows), `checkpoint-summary`, `checkpoint-detail`, `checkpoint-timeline` |
//! | [`diagnosis::DiagnosisPanel`] | `diagnosis`; `diagnosis-strip`, `diagnosis-bar`, `diagnosis-follow`, `diagnosis-text`, `diagnosis-subtasks`, `diagnosis-sort`, `diagnosis-operators`, `diagnosis-bottleneck`, `diagnosis-metrics`, `diagnosis-tree` |
//! | [`sinks_recovery::SinksRecoveryPanel`] | `sinks-recovery`; `sink-verdict`, `failure-row` |
//! | [`charts::ChartsPanel`] | `charts`; `chart-throughput`, `chart-duration`, `chart-persisted`, `chart-inflight`; `chart-copy-svg-<name>`, `chart-copy-png-<name>`, `chart-copy-note` |
//! | [`event_log::EventLog`] | `event-log`; `log-entry`, `log-filter` |
//! | [`help::HelpOverlay`] | `help-overlay` |
//! | [`guide::GuidePanel`] | `guide`; `guide-promises`, `guide-promise` (`data-status`), `guide-try-<i>`, `guide-try-base` |
//! | [`resubmit::ResubmitDialog`] | `resubmit-dialog` (opened by `resubmit-open` in the controls or a history row's `resubmit-from-here`); `resubmit-from`, `resubmit-parallelism-<op>`, `resubmit-partitioner-<from>-<to>`, `resubmit-serializer`, `resubmit-max-parallelism`, `resubmit-field-error`, `resubmit-preview`, `resubmit-json`, `resubmit-error`, `resubmit-submit`, `resubmit-cancel` |
//! | [`import_dialog::ImportDialog`] | `import-dialog`; `import-file`, `import-text`, `import-open`, `import-cancel`, `import-error` |
//! | [`editor::Editor`] | `editor` (opened by `edit-job` in the header); `editor-problem`, `editor-apply`, `editor-discard`, `editor-op-<id>`, … (see the module) |
//! | [`timeline::Timeline`] | `timeline`; `timeline-track`, `timeline-handle`, `timeline-mark`, `timeline-hover`, `timeline-fork`, `timeline-computing` |
//! | [`compare_view::CompareToggle`] | `compare-bar`; `compare-mode`, `compare-toggle` |
//! | [`row_limit`] (under a per-subtask table past 50 rows) | `<table testid>-limit` (`data-shown`, `data-total`), `<table testid>-all` |
//! | [`compare_view::CompareView`] | `compare`; `compare-run-a`, `compare-run-b`, `compare-chart-<duration\|alignment\|persisted\|replay>`, `compare-summary` |

pub mod charts;
pub mod checkpoints;
pub mod compare_view;
pub mod controls;
pub mod diagnosis;
pub mod editor;
pub mod event_log;
pub mod guide;
pub mod header;
pub mod help;
pub mod import_dialog;
pub mod inspector;
pub mod job_graph;
pub mod job_view;
pub mod panel;
pub mod resubmit;
pub mod row_limit;
pub mod settings;
pub mod sinks_recovery;
pub mod timeline;
