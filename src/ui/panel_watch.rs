//! Which of the lower panels ([`Lower`]) are on screen, reported to the host as they
//! scroll in and out of view.
//!
//! Contract: [`PanelWatch::follow`] (the host calls it after every render) observes each
//! lower panel's current element, so a panel re-mounted (compare mode off again, a new
//! run) is watched anew; the callback receives `(panel, on screen)` for the panels whose
//! state changed, including one report per panel right after it is first observed. "On
//! screen" has a margin of [`MARGIN`], so a panel being scrolled to is current before it
//! shows. The host feeds the reports to [`crate::ui::offscreen::Offscreen`].

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Element, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};
use yew::Callback;

use super::offscreen::Lower;

/// How far outside the viewport a panel counts as on screen.
pub const MARGIN: &str = "300px 0px";

pub struct PanelWatch {
    observer: IntersectionObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
    observed: [Option<Element>; 5],
}

impl PanelWatch {
    /// `None` where the browser has no `IntersectionObserver` (every panel then counts as
    /// off screen while playing, and is current whenever the run stops).
    pub fn new(on_change: Callback<Vec<(Lower, bool)>>) -> Option<PanelWatch> {
        let callback = Closure::wrap(Box::new(move |entries: js_sys::Array| {
            let changes: Vec<(Lower, bool)> = entries
                .iter()
                .filter_map(|e| e.dyn_into::<IntersectionObserverEntry>().ok())
                .filter_map(|e| {
                    Some((Lower::of_element_id(&e.target().id())?, e.is_intersecting()))
                })
                .collect();
            if !changes.is_empty() {
                on_change.emit(changes);
            }
        }) as Box<dyn FnMut(js_sys::Array)>);
        let init = IntersectionObserverInit::new();
        init.set_root_margin(MARGIN);
        let observer =
            IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &init)
                .ok()?;
        Some(PanelWatch {
            observer,
            _callback: callback,
            observed: Default::default(),
        })
    }

    /// Observes the lower panels' elements as the document has them now.
    pub fn follow(&mut self) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        for panel in Lower::ALL {
            let now = document.get_element_by_id(panel.element_id());
            let slot = &mut self.observed[panel as usize];
            if *slot == now {
                continue;
            }
            if let Some(old) = slot.take() {
                self.observer.unobserve(&old);
            }
            if let Some(el) = &now {
                self.observer.observe(el);
            }
            *slot = now;
        }
    }
}

impl Drop for PanelWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}
