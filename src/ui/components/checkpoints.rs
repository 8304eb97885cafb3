//! The checkpoint history: one row per checkpoint, with Flink's web UI columns.
//!
//! Contract: `data-testid="checkpoints"`; a table whose columns mean what they mean
//! in Flink's checkpoint history (status, type, acknowledged subtasks, trigger time,
//! end-to-end duration, checkpointed data size, persisted in-flight data, alignment
//! duration, start delay). For now the body holds a single "no checkpoints yet" row;
//! it will take the coordinator's statistics as a read-only property.

use yew::prelude::*;

use super::panel::Panel;

/// Column headings, in display order, with the tooltip that explains each one.
const COLUMNS: [(&str, &str); 10] = [
    ("ID", "Checkpoint id, increasing from 1"),
    ("Status", "In progress, completed or failed (with the reason)"),
    ("Type", "Aligned or unaligned; an aligned checkpoint may switch to unaligned after the alignment timeout"),
    ("Acknowledged", "Subtasks that acknowledged / all subtasks"),
    ("Trigger time", "Virtual time at which the coordinator triggered the checkpoint"),
    ("End to end", "From trigger to the last acknowledgement"),
    ("Checkpointed size", "Bytes written to checkpoint storage by this checkpoint"),
    ("Persisted in-flight", "Channel state: buffered input and output data written with the checkpoint"),
    ("Alignment", "Longest time a subtask spent between its first and last barrier"),
    ("Start delay", "Longest time from trigger until a subtask received its first barrier"),
];

/// The checkpoint history panel.
#[function_component(CheckpointsPanel)]
pub fn checkpoints_panel() -> Html {
    let actions = html! {
        <span class="badge" data-testid="checkpoint-count">{ "0 checkpoints" }</span>
    };
    html! {
        <Panel
            id="checkpoints"
            title="Checkpoints"
            testid="checkpoints"
            class="area-checkpoints"
            description="Every checkpoint the coordinator triggered, and what it cost."
            actions={actions}
        >
            <div class="table-scroll">
                <table class="table">
                    <thead>
                        <tr>
                            { for COLUMNS.iter().map(|(name, hint)| html! {
                                <th scope="col" title={*hint}>{ *name }</th>
                            }) }
                        </tr>
                    </thead>
                    <tbody>
                        <tr class="table-empty">
                            <td colspan={COLUMNS.len().to_string()}>{ "No checkpoints yet." }</td>
                        </tr>
                    </tbody>
                </table>
            </div>
        </Panel>
    }
}
