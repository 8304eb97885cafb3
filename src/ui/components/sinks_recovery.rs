//! The sinks and recovery panel: what reached each sink, and what a failure cost.
//!
//! Contract: `data-testid="sinks-recovery"`, with two labelled sub-sections: sinks
//! (`data-testid="sinks"`: committed output per sink and the exactly-once verdict,
//! with duplicates and losses counted against the engine's ground truth) and recovery
//! (`data-testid="recovery"`: injected failures, the checkpoint restored from, rewound
//! source offsets and restored channel state). Empty until an engine is attached.

use yew::prelude::*;

use super::panel::Panel;

/// The sinks & recovery panel.
#[function_component(SinksRecoveryPanel)]
pub fn sinks_recovery_panel() -> Html {
    html! {
        <Panel
            id="sinks-recovery"
            title="Sinks & recovery"
            testid="sinks-recovery"
            class="area-sinks"
            description="Committed output checked against the ground truth, and every restore."
        >
            <section class="subsection" aria-labelledby="sinks-title" data-testid="sinks">
                <h3 id="sinks-title" class="subsection-title">{ "Sinks" }</h3>
                <dl class="stats">
                    <div><dt>{ "Committed records" }</dt><dd>{ "—" }</dd></div>
                    <div><dt>{ "Duplicates" }</dt><dd>{ "—" }</dd></div>
                    <div><dt>{ "Lost records" }</dt><dd>{ "—" }</dd></div>
                    <div><dt>{ "Exactly-once" }</dt><dd>{ "—" }</dd></div>
                </dl>
            </section>
            <section class="subsection" aria-labelledby="recovery-title" data-testid="recovery">
                <h3 id="recovery-title" class="subsection-title">{ "Recovery" }</h3>
                <p class="muted">{ "No failures injected and no restores yet." }</p>
            </section>
        </Panel>
    }
}
