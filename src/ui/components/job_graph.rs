//! The job view: the dataflow DAG expanded into subtasks, channels and buffers.
//!
//! Contract: the largest panel of the page (`data-testid="job-graph"`). For now it
//! shows an empty canvas with a legend of what will be drawn; it will take a
//! read-only view of the engine's execution graph as a property and never mutate
//! engine state.

use yew::prelude::*;

use super::panel::Panel;

/// The DAG panel.
#[function_component(JobGraphPanel)]
pub fn job_graph_panel() -> Html {
    html! {
        <Panel
            id="job-graph"
            title="Job graph"
            testid="job-graph"
            class="area-graph"
            description="Operators expanded into subtasks, with their input channels, output subpartitions, buffers and barriers."
        >
            <div class="canvas empty" data-testid="job-graph-canvas">
                <div class="empty-state">
                    <p class="empty-title">{ "No job loaded" }</p>
                    <p class="empty-text">
                        { "The execution graph of the scenario appears here: one box per subtask, in-flight buffers on every channel, barriers as they travel." }
                    </p>
                    <ul class="legend" aria-label="Legend">
                        <li><span class="swatch swatch-record"></span>{ "record buffer" }</li>
                        <li><span class="swatch swatch-barrier"></span>{ "checkpoint barrier" }</li>
                        <li><span class="swatch swatch-blocked"></span>{ "blocked channel (aligning)" }</li>
                        <li><span class="swatch swatch-persisted"></span>{ "persisted in-flight data" }</li>
                    </ul>
                </div>
            </div>
        </Panel>
    }
}
