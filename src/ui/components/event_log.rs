//! The event log: what the engine did, in plain words, newest first, filterable by kind.
//!
//! Contract: `data-testid="event-log"`; one `log-entry` per line (`data-kind`), at most
//! the newest 400; the kind filter is `log-filter`. Reads the engine's log entries
//! snapshot only.

use crate::ui::shared::Shared;

use yew::prelude::*;

use crate::ui::i18n::steps::{render_body, StepLine};
use crate::ui::i18n::{t, use_lang, Lang};

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

/// An entry's text in `lang`: its structured form translated where the engine gives one
/// (the checkpoint steps), else the engine's English.
fn log_text(e: &LogEntry, lang: Lang) -> String {
    render_body(&StepLine::logged(e.at, e.text.clone(), e.msg.clone()), lang)
}

#[derive(Properties, PartialEq)]
pub struct EventLogProps {
    pub entries: Shared<Vec<LogEntry>>,
    /// Entries ever logged: entry `i` (newest first) is number `total - 1 - i`.
    pub total: u64,
}

#[function_component(EventLog)]
pub fn event_log(props: &EventLogProps) -> Html {
    let lang = use_lang();
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
        <select class="log-filter" data-testid="log-filter" aria-label={t("Filter the log by kind")} {onchange}>
            <option value="all" selected={*filter == "all"}>{ t("all kinds") }</option>
            { for KINDS.iter().map(|(_, n)| html! { <option value={*n} selected={filter.as_str() == *n}>{ t(n) }</option> }) }
        </select>
    };
    html! {
        <Panel id="event-log" title={t("Event log")} testid="event-log" class="area-log"
            description={t("What happened, newest first.")} actions={actions}>
            <ol class="log">
                if shown.is_empty() {
                    <li class="muted">{ t("Nothing yet: press play.") }</li>
                }
                // A fragment of its own, so that the entries reconcile by key (see the
                // timeline's marks).
                <>{ for shown.iter().map(|(seq, e)| {
                    let kind = kind_name(e.kind);
                    html! {
                        <li key={*seq} class={classes!("log-entry", format!("log-{kind}"))} data-testid="log-entry" data-kind={kind}
                            data-coded={e.msg.is_some().to_string()}>
                            <span class="log-time">{ format!("{:>8.3}s", e.at as f64 / 1e6) }</span>
                            <span class="log-kind">{ t(kind) }</span>
                            <span class="log-text">{ log_text(e, lang) }</span>
                        </li>
                    }
                }) }</>
            </ol>
        </Panel>
    }
}
