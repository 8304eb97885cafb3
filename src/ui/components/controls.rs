//! The run controls: play, pause, step and reset, plus the virtual clock.
//!
//! Contract: the component never drives anything itself; it reports each click as a
//! [`ControlCommand`] through `on_command`. Without `on_command` every button is
//! disabled (the shell state before an engine is attached). With it, `play` is
//! enabled while paused, `pause` while running, `step` while paused, `reset` always.
//! Buttons carry `data-testid`s `play`, `pause`, `step` and `reset`; the clock shows
//! `now_us` (virtual microseconds) in milliseconds.

use yew::prelude::*;

use super::panel::Panel;

/// What a control button asks the host to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlCommand {
    /// Run the simulation continuously.
    Play,
    /// Stop after the current step.
    Pause,
    /// Run exactly one step of the executor.
    Step,
    /// Rebuild the run from the scenario, at virtual time zero.
    Reset,
}

/// Properties of [`Controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// Receives every command; `None` disables all buttons.
    #[prop_or_default]
    pub on_command: Option<Callback<ControlCommand>>,
    /// Whether the simulation is currently playing.
    #[prop_or_default]
    pub running: bool,
    /// The engine's virtual clock, in microseconds.
    #[prop_or_default]
    pub now_us: u64,
}

/// Formats virtual microseconds as milliseconds with three decimals
/// (`1_234_567` → `"1234.567 ms"`).
fn format_virtual_time(now_us: u64) -> String {
    format!("{}.{:03} ms", now_us / 1_000, now_us % 1_000)
}

/// A 16×16 outline icon for a command, drawn with `currentColor`.
fn icon(command: ControlCommand) -> Html {
    let shape = match command {
        ControlCommand::Play => html! { <path d="M4 2.5v11l9-5.5z" /> },
        ControlCommand::Pause => html! { <path d="M4 2.5h3v11H4zM9 2.5h3v11H9z" /> },
        ControlCommand::Step => html! { <path d="M3 2.5v11l7.5-5.5zM11 2.5h2.5v11H11z" /> },
        ControlCommand::Reset => html! {
            <path d="M8 2.5a5.5 5.5 0 1 1-5.2 3.7l1.9.6A3.5 3.5 0 1 0 8 4.5v2L4.5 3.5 8 .5z" />
        },
    };
    html! {
        <svg class="control-icon" viewBox="0 0 16 16" width="16" height="16" fill="currentColor" aria-hidden="true">
            { shape }
        </svg>
    }
}

/// The control bar.
#[function_component(Controls)]
pub fn controls(props: &ControlsProps) -> Html {
    let attached = props.on_command.is_some();
    let button =
        |command: ControlCommand, testid: &'static str, label: &'static str, enabled: bool| {
            let onclick = props
                .on_command
                .clone()
                .map(|callback| Callback::from(move |_: MouseEvent| callback.emit(command)));
            html! {
                <button
                    type="button"
                    class={classes!("control", format!("control-{testid}"))}
                    data-testid={testid}
                    title={label}
                    disabled={!enabled}
                    {onclick}
                >
                    { icon(command) }
                    <span class="control-label">{ label }</span>
                </button>
            }
        };
    let actions = html! {
        <span class="clock" data-testid="clock" title="Virtual time of the simulation">
            <span class="clock-label">{ "virtual time" }</span>
            <span class="clock-value">{ format_virtual_time(props.now_us) }</span>
        </span>
    };
    html! {
        <Panel
            id="controls"
            title="Controls"
            testid="controls"
            class="area-controls"
            description="Run the scenario, pause it, advance one step, or start over."
            actions={actions}
        >
            <div class="control-row" role="toolbar" aria-label="Simulation controls">
                { button(ControlCommand::Play, "play", "Play", attached && !props.running) }
                { button(ControlCommand::Pause, "pause", "Pause", attached && props.running) }
                { button(ControlCommand::Step, "step", "Step", attached && !props.running) }
                { button(ControlCommand::Reset, "reset", "Reset", attached) }
            </div>
        </Panel>
    }
}
