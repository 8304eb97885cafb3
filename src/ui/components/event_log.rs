//! The event log: what the engine did, in plain words, newest first, filterable by kind.
//!
//! Contract: `data-testid="event-log"`; one `log-entry` per line (`data-kind`), at most
//! the newest 400; the kind filter is `log-filter`. Reads the engine's log entries
//! snapshot only.

use std::rc::Rc;

use yew::prelude::*;

use crate::engine::log::{LogEntry, LogKind};

use super::panel::Panel;

const KINDS: [(LogKind, &str); 8] = [
    (LogKind::Checkpoint, "checkpoint"),
    (LogKind::Barrier, "barrier"),
    (LogKind::Snapshot, "snapshot"),
    (LogKind::Failure, "failure"),
    (LogKind::Recovery, "recovery"),
    (LogKind::Sink, "sink"),
    (LogKind::Task, "task"),
    (LogKind::User, "user"),
];

fn kind_name(k: LogKind) -> &'static str {
    KINDS
        .iter()
        .find(|(kind, _)| *kind == k)
        .map(|(_, n)| *n)
        .unwrap_or("other")
}

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub entries: Rc<Vec<LogEntry>>,
    /// Entries ever logged: entry `i` (newest first) is number `total - 1 - i`.
    pub total: u64,
}

#[function_component(EventLog)]
pub fn event_log(props: &EventLogProps) -> Html {
    let filter = use_state(|| String::from("all"));
    let onchange = {
        let filter = filter.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            filter.set(select.value());
        })
    };
    let total = props.total;
    let shown: Vec<(u64, &LogEntry)> = props
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (total.saturating_sub(1 + i as u64), e))
        .filter(|(_, e)| *filter == "all" || kind_name(e.kind) == filter.as_str())
        .take(150)
        .collect();
    let actions = html! {
        <select class="log-filter" data-testid="log-filter" aria-label="Filter the log by kind" {onchange}>
            <option value="all" selected={*filter == "all"}>{ "all kinds" }</option>
            { for KINDS.iter().map(|(_, n)| html! { <option value={*n} selected={filter.as_str() == *n}>{ *n }</option> }) }
        </select>
    };
    html! {
        <Panel id="event-log" title="Event log" testid="event-log" class="area-log"
            description="What happened, newest first." actions={actions}>
            <ol class="log">
                if shown.is_empty() {
                    <li class="muted">{ "Nothing yet: press play." }</li>
                }
                { for shown.iter().map(|(seq, e)| {
                    let kind = kind_name(e.kind);
                    html! {
                        <li key={*seq} class={classes!("log-entry", format!("log-{kind}"))} data-testid="log-entry" data-kind={kind}>
                            <span class="log-time">{ format!("{:>8.3}s", e.at as f64 / 1e6) }</span>
                            <span class="log-kind">{ kind }</span>
                            <span class="log-text">{ e.text.clone() }</span>
                        </li>
                    }
                }) }
            </ol>
        </Panel>
    }
}
