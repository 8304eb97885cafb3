//! The page header: product name and what the playground models.
//!
//! Contract: static markup with `data-testid="header"` and a single `<h1>` reading
//! "Checkpoint Playground"; it takes no properties.

use yew::prelude::*;

/// The page's top bar.
#[function_component(Header)]
pub fn header() -> Html {
    html! {
        <header class="app-header" data-testid="header">
            <div class="brand">
                <span class="brand-mark" aria-hidden="true">
                    <svg viewBox="0 0 32 32" width="26" height="26">
                        <rect width="32" height="32" rx="6" fill="#2a3758" />
                        <rect x="5" y="9" width="5" height="14" rx="1" fill="#8aa4d6" />
                        <rect x="13.5" y="9" width="5" height="14" rx="1" fill="#8aa4d6" />
                        <rect x="22" y="9" width="5" height="14" rx="1" fill="#8aa4d6" />
                        <path d="M11.75 5v22M20.25 5v22" stroke="#f0a35e" stroke-width="2" stroke-dasharray="2.5 2" />
                    </svg>
                </span>
                <h1 class="brand-name">{ "Checkpoint Playground" }</h1>
            </div>
            <p class="brand-tagline">
                { "Apache Flink's checkpoint runtime, simulated deterministically: aligned and unaligned checkpoints, backpressure and recovery." }
            </p>
        </header>
    }
}
