//! The keyboard help overlay.
//!
//! Contract: `data-testid="help-overlay"`, a modal dialog listing the shortcuts; the
//! close button (and Escape, handled by the app) closes it. It takes the focus when it
//! opens (its close button), keeps it while open (Tab and Shift+Tab stay on the
//! dialog's one control), and gives it back to what had it when it closes.

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::ui::command::Command;
use crate::ui::i18n::{t, use_lang};

/// The shortcuts, as (keys, what they do).
pub const KEYS: [(&str, &str); 15] = [
    ("Space", "play / pause"),
    ("→", "run the next engine event (single step)"),
    (
        "n",
        "run to the next checkpoint step: trigger, barrier, snapshot (a stop in the sync phase), the async phase beginning, acknowledgement, completion",
    ),
    ("r", "reset: start the scenario over"),
    ("c", "trigger a checkpoint now"),
    ("v", "take a savepoint now (always aligned)"),
    ("f", "fail the selected subtask"),
    ("+ / −", "faster / slower"),
    (
        "p / Esc",
        "presentation mode on / off: the job view alone, full screen, larger marks, high contrast",
    ),
    (
        "← / → · Home / End",
        "on the timeline handle: travel 1 s back / ahead · to the start / the furthest time reached",
    ),
    ("l", "switch the interface language (English / 中文)"),
    (
        "+ / − / 0",
        "with the job view focused (click or Tab to it): zoom in / out / fit the whole job (also the wheel, and the view's − + Fit buttons)",
    ),
    (
        "← ↑ → ↓",
        "with the job view focused: pan (also drag the job)",
    ),
    (
        "[ / ]",
        "with the job view focused: the previous / next lane, with its credit, backlog, buffers and kind",
    ),
    ("? / Esc", "show / close this help"),
];

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    pub on_command: Callback<Command>,
}

#[function_component(HelpOverlay)]
pub fn help_overlay(props: &HelpProps) -> Html {
    use_lang();
    let close = {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Command::ToggleHelp))
    };
    let button = use_node_ref();
    {
        let button = button.clone();
        use_effect_with((), move |_| {
            let before = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
            if let Some(b) = button.cast::<web_sys::HtmlElement>() {
                let _ = b.focus();
            }
            move || {
                if let Some(b) = before {
                    let _ = b.focus();
                }
            }
        });
    }
    let trap = {
        let button = button.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Tab" {
                e.prevent_default();
                if let Some(b) = button.cast::<web_sys::HtmlElement>() {
                    let _ = b.focus();
                }
            }
        })
    };
    html! {
        <div class="overlay" data-testid="help-overlay" role="dialog" aria-modal="true" aria-labelledby="help-title"
            onkeydown={trap}>
            <div class="overlay-card">
                <h2 id="help-title">{ t("Keyboard shortcuts") }</h2>
                <table class="keys">
                    { for KEYS.iter().map(|(k, what)| html! { <tr><td><kbd>{ *k }</kbd></td><td>{ t(what) }</td></tr> }) }
                </table>
                <p class="muted">{ t("Every action you take (costs, rates, failures, settings, triggers) is recorded; Share puts them in the link, and opening it replays the run exactly.") }</p>
                <button type="button" class="header-button primary" onclick={close} data-testid="help-close" ref={button}>{ t("Close") }</button>
            </div>
        </div>
    }
}
