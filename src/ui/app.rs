//! The root component: lays out the playground's panels on one page.
//!
//! Contract: `App` takes no properties and owns no engine yet; it renders the header
//! and the four panels (job graph, controls, checkpoints, sinks & recovery) in a
//! fixed grid whose areas are named in `www/static/style.css`. Engine state will be
//! held here (or in a reducer module beside it) and passed down as read-only views.

use yew::prelude::*;

use super::components::checkpoints::CheckpointsPanel;
use super::components::controls::Controls;
use super::components::header::Header;
use super::components::job_graph::JobGraphPanel;
use super::components::sinks_recovery::SinksRecoveryPanel;

/// The whole playground page.
#[function_component(App)]
pub fn app() -> Html {
    html! {
        <div class="app" data-testid="app">
            <Header />
            <main class="layout">
                <Controls />
                <JobGraphPanel />
                <SinksRecoveryPanel />
                <CheckpointsPanel />
            </main>
        </div>
    }
}
