//! A titled, labelled region of the page: the frame every playground panel uses.
//!
//! Contract: renders a `<section>` whose accessible name is its title (through
//! `aria-labelledby`), with the given `data-testid` and grid-area class, an optional
//! one-line description, and its children as the body. It has no behaviour.

use yew::prelude::*;

/// Properties of [`Panel`].
#[derive(Properties, PartialEq)]
pub struct PanelProps {
    /// Stem of the element ids; the heading gets `{id}-title`.
    pub id: AttrValue,
    /// Heading text, also the region's accessible name.
    pub title: AttrValue,
    /// The `data-testid` of the section.
    pub testid: AttrValue,
    /// Extra CSS classes, typically the grid area (`area-graph`, …).
    #[prop_or_default]
    pub class: Classes,
    /// A one-line description shown under the heading.
    #[prop_or_default]
    pub description: Option<AttrValue>,
    /// Optional elements shown at the right of the heading (counters, badges).
    #[prop_or_default]
    pub actions: Option<Html>,
    /// The panel body.
    #[prop_or_default]
    pub children: Html,
}

/// A titled page region.
#[function_component(Panel)]
pub fn panel(props: &PanelProps) -> Html {
    let title_id = format!("{}-title", props.id);
    html! {
        <section
            id={props.id.clone()}
            class={classes!("panel", props.class.clone())}
            aria-labelledby={title_id.clone()}
            data-testid={props.testid.clone()}
        >
            <header class="panel-head">
                <div class="panel-heading">
                    <h2 id={title_id} class="panel-title">{ props.title.clone() }</h2>
                    if let Some(description) = &props.description {
                        <p class="panel-description">{ description.clone() }</p>
                    }
                </div>
                if let Some(actions) = &props.actions {
                    <div class="panel-actions">{ actions.clone() }</div>
                }
            </header>
            <div class="panel-body">{ props.children.clone() }</div>
        </section>
    }
}
