//! The sinks and recovery panel: what reached each sink, checked against the engine's
//! ground truth, and what each failure cost.
//!
//! Contract: `data-testid="sinks-recovery"`. `sink-verdict` is the overall verdict
//! (`data-exactly-once="true|false"`: every sink has no duplicates and no losses so
//! far); `sink-row` one row per sink (committed, duplicates, lost, pending, delivery).
//! `failure-row` one row per failure (`data-restored`: the restored checkpoint id or
//! empty), with when, which subtask, the restored checkpoint, recovery time, replayed
//! and lost records and any restore error (e.g. a refused restore).

use crate::ui::shared::Shared;

use yew::prelude::*;

use crate::ui::i18n::{t, tf, use_lang};

use crate::engine::report::Report;
use crate::ui::format;

use super::panel::Panel;

#[derive(Properties, PartialEq)]
pub struct SinksProps {
    pub report: Shared<Report>,
}

#[function_component(SinksRecoveryPanel)]
pub fn sinks_recovery_panel(props: &SinksProps) -> Html {
    use_lang();
    let r = &props.report;
    let exactly_once = r.sinks.iter().all(|s| s.exactly_once);
    let dup: u64 = r.sinks.iter().map(|s| s.duplicates).sum();
    let lost: u64 = r.sinks.iter().map(|s| s.lost).sum();
    let committed: u64 = r.sinks.iter().map(|s| s.committed_records).sum();
    let verdict_text = if exactly_once {
        t("Exactly-once: no duplicates, nothing lost").to_string()
    } else {
        tf(
            "NOT exactly-once: {0} duplicate(s), {1} lost",
            &[&dup, &lost],
        )
    };
    html! {
        <Panel id="sinks-recovery" title={t("Sinks & recovery")} testid="sinks-recovery" class="area-sinks"
            description={t("Committed output checked against the ground truth of every record, and every restore.")}>
            <div class={classes!("verdict", if exactly_once { "verdict-ok" } else { "verdict-bad" })}
                data-testid="sink-verdict" data-exactly-once={exactly_once.to_string()}
                title={t("Every committed record is compared with the records the sources produced (by lineage)")}>
                <span class="verdict-mark">{ if exactly_once { "✓" } else { "✗" } }</span>
                <span>{ verdict_text }</span>
            </div>
            <dl class="stats">
                <div><dt>{ t("Committed records") }</dt><dd data-testid="committed">{ committed }</dd></div>
                <div><dt>{ t("Duplicates") }</dt><dd class={classes!((dup > 0).then_some("bad"))}>{ dup }</dd></div>
                <div><dt>{ t("Lost records") }</dt><dd class={classes!((lost > 0).then_some("bad"))}>{ lost }</dd></div>
                <div><dt>{ t("Pending (open transactions)") }</dt><dd>{ r.sinks.iter().map(|s| s.pending_records).sum::<u64>() }</dd></div>
            </dl>
            if r.sinks.len() > 1 {
                <table class="mini-table">
                    <thead><tr><th>{ "Sink" }</th><th>{ t("delivery") }</th><th>{ t("committed") }</th><th>{ t("dup") }</th><th>{ t("lost") }</th><th>{ t("pending") }</th></tr></thead>
                    <tbody>{ for r.sinks.iter().map(|s| html! {
                        <tr data-testid="sink-row"><td>{ s.operator.clone() }</td><td>{ s.delivery.clone() }</td><td>{ s.committed_records }</td>
                        <td>{ s.duplicates }</td><td>{ s.lost }</td><td>{ s.pending_records }</td></tr>
                    }) }</tbody>
                </table>
            } else {
                { for r.sinks.iter().map(|s| html! {
                    <p class="muted-small" data-testid="sink-row">{ format!("sink {} · {}", s.operator, s.delivery.replace('_', "-")) }</p>
                }) }
            }
            <h3 class="subsection-title">{ t("Failures and restores") }</h3>
            if r.failures.is_empty() {
                <p class="muted">{ t("No failures yet. Select a subtask in the job graph and press Fail.") }</p>
            } else {
                <div class="failures">
                    { for r.failures.iter().map(|f| {
                        let restored = f.restored_checkpoint.map(|c| c.to_string()).unwrap_or_default();
                        html! {
                            <div class={classes!("failure", f.restore_error.is_some().then_some("failure-error"))}
                                data-testid="failure-row" data-restored={restored.clone()}>
                                <div class="failure-head">
                                    <strong>{ format!("{}#{}", f.operator, f.subtask) }</strong>
                                    <span class="muted-small">{ tf(" failed at {0} — {1}", &[&format::ms(f.at_ms), &f.reason]) }</span>
                                </div>
                                <dl class="kv compact">
                                    <div><dt>{ t("Restarted") }</dt><dd data-testid="failure-restarted" title={t("The subtasks this failure cancelled and redeployed: its failover region (jobmanager.execution.failover-strategy: region), or every subtask (full, or a region that is the whole job)")}>{
                                        if f.restarted_subtasks.is_empty() { t("none (the job failed)").to_string() } else { tf("{0} subtasks: {1}", &[&f.restarted_subtasks.len(), &f.restarted_subtasks.join(", ")]) }
                                    }</dd></div>
                                    <div><dt>{ t("Restart delay") }</dt><dd>{ f.restart_delay_ms.map(format::ms).unwrap_or_else(|| t("none (the restart strategy gave up)").into()) }</dd></div>
                                    <div><dt>{ t("Restored checkpoint") }</dt><dd>{ f.restored_checkpoint.map(|c| format!("#{c}")).unwrap_or_else(|| t("none (from scratch)").into()) }</dd></div>
                                    <div><dt>{ t("Recovery time") }</dt><dd>{ f.recovery_ms.map(format::ms).unwrap_or_else(|| t("recovering…").into()) }</dd></div>
                                    if f.input_recovered_ms != f.recovery_ms {
                                        <div data-testid="input-recovered"><dt>{ t("Recovered input consumed") }</dt><dd>{ f.input_recovered_ms.map(format::ms).unwrap_or_else(|| t("consuming…").into()) }</dd></div>
                                        <div data-testid="checkpoints-during-recovery"><dt>{ t("Checkpoints during recovery") }</dt><dd>{ f.checkpoints_during_recovery }</dd></div>
                                    }
                                    <div><dt>{ t("Replayed records") }</dt><dd>{ f.replayed_records }</dd></div>
                                    <div><dt>{ t("Recovered in-flight records") }</dt><dd>{ f.recovered_inflight_records }</dd></div>
                                    <div><dt>{ t("Lost records") }</dt><dd class={classes!((f.lost_records > 0).then_some("bad"))}>{ f.lost_records }</dd></div>
                                </dl>
                                if let Some(e) = &f.restore_error {
                                    <p class="inline-error">{ tf("restore error: {0}", &[e]) }</p>
                                }
                            </div>
                        }
                    }) }
                </div>
            }
        </Panel>
    }
}
