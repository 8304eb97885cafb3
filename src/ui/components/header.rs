//! The page header: product name, the preset picker, Share and the keyboard help.
//!
//! Contract: `data-testid="header"` with a single `<h1>` reading "Checkpoint
//! Playground"; the preset `<select>` is `preset-select` (value = preset name, or
//! empty for a scenario from a link); the Share button is `share`; the note after a
//! share (copied / long-link warning) is `share-note`; the checkbox `share-at-time`
//! ("at current time") makes Share append the current moment (`&t=31s`) to the link, also used for the outcome of
//! Export JSON (`export-json`) and Copy JSON (`copy-json`, shown only where the page
//! has a clipboard), and of Export Flink job (`export-flink`, a zip of the scenario's Flink
//! job). `import-json` opens the import dialog; "Edit job" (`edit-job`)
//! opens the job editor; `theme-toggle` switches between the dark and light theme.

use yew::prelude::*;

use crate::scenario;
use crate::scenario::guide::SECTIONS;
use crate::ui::clipboard;
use crate::ui::command::Command;
use crate::ui::i18n::{t, tf, use_lang, Lang};

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub on_command: Callback<Command>,
    pub preset: Option<AttrValue>,
    pub share_note: Option<AttrValue>,
    pub share_warning: bool,
    /// Share appends the current moment to the link.
    #[prop_or_default]
    pub share_at_time: bool,
    /// The theme shown (`dark` / `light`); `theme-toggle` switches to the other.
    #[prop_or(AttrValue::Static("light"))]
    pub theme: AttrValue,
    /// The interface's language; `lang-toggle` switches to the other.
    #[prop_or_default]
    pub lang: Lang,
}

/// A preset in the menu: (name, title).
type PresetEntry = (&'static str, String);

/// The presets grouped by the article section their guide belongs to, in the article's
/// order, then the ones without a section: (group label, [(name, title)]).
fn preset_groups() -> Vec<(String, Vec<PresetEntry>)> {
    let mut groups: Vec<(Option<u32>, String, Vec<PresetEntry>)> = SECTIONS
        .iter()
        .map(|(n, t)| {
            (
                Some(*n),
                format!("§{n} {}", crate::ui::i18n::t_dyn(t)),
                vec![],
            )
        })
        .collect();
    groups.push((None, t("Baselines").to_string(), vec![]));
    for name in scenario::preset_names() {
        let Some(doc) = scenario::preset(name) else {
            continue;
        };
        let section = doc.guide.as_ref().and_then(|g| g.section);
        if let Some(g) = groups.iter_mut().find(|g| g.0 == section) {
            g.2.push((*name, doc.name.clone()));
        }
    }
    groups
        .into_iter()
        .filter(|g| !g.2.is_empty())
        .map(|(_, label, presets)| (label, presets))
        .collect()
}

/// The page's top bar.
#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    use_lang();
    let on_preset = {
        let cb = props.on_command.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let v = select.value();
            if !v.is_empty() {
                cb.emit(Command::LoadPreset(v));
            }
        })
    };
    let share = {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Command::Share))
    };
    let at_time = {
        let cb = props.on_command.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            cb.emit(Command::ShareAtTime(input.checked()))
        })
    };
    let help = {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Command::ToggleHelp))
    };
    let emit = |cmd: Command| {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(cmd.clone()))
    };
    // The select is keyed by the preset shown: once the user has picked an option, a
    // `selected` attribute no longer moves the selection, a fresh element does (a
    // link pasted, Back / Forward, an import of a preset's run).
    let current = props.preset.clone().unwrap_or_default();
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
                <span class="brand-tagline">{ t("Flink's checkpoint runtime, simulated: aligned & unaligned checkpoints, backpressure, recovery") }</span>
            </div>
            <div class="header-actions">
                <label class="preset-picker">
                    <span class="field-label">{ t("scenario") }</span>
                    <select key={current.to_string()} data-testid="preset-select" aria-label={t("Preset scenario")} onchange={on_preset}>
                        if current.is_empty() {
                            <option value="" selected=true>{ t("(from link)") }</option>
                        }
                        { for preset_groups().into_iter().map(|(group, presets)| html! {
                            <optgroup label={group}>
                                { for presets.into_iter().map(|(name, title)| html! {
                                    <option value={name} selected={current == name}>{ format!("{name} — {}", crate::ui::i18n::preset_title(name, &title)) }</option>
                                }) }
                            </optgroup>
                        }) }
                    </select>
                </label>
                <button type="button" class="header-button primary" data-testid="share" onclick={share}
                    title={t("Put this scenario, with everything you did, in the URL and copy the link")}>
                    { t("Share link") }
                </button>
                <label class="share-at-time" title={t("The link opens paused at the current virtual time (&t=… at its end)")}>
                    <input type="checkbox" data-testid="share-at-time" checked={props.share_at_time} onchange={at_time} />
                    <span>{ t("at current time") }</span>
                </label>
                <button type="button" class="header-button" data-testid="export-json" onclick={emit(Command::ExportJson)}
                    title={t("Download this run, with everything you did, as a scenario JSON file")}>
                    { t("Export JSON") }
                </button>
                <button type="button" class="header-button" data-testid="export-flink" onclick={emit(Command::ExportFlink)}
                    title={t("Download this run as a runnable Apache Flink job (a zip: Java job, config.yaml, run-local.sh, README of what maps)")}>
                    { t("Export Flink job") }
                </button>
                if clipboard::available() {
                    <button type="button" class="header-button" data-testid="copy-json" onclick={emit(Command::CopyJson)}
                        title={t("Copy this run's scenario JSON to the clipboard")}>
                        { t("Copy JSON") }
                    </button>
                }
                <button type="button" class="header-button" data-testid="import-json" onclick={emit(Command::ToggleImport)}
                    title={t("Open a scenario JSON file or pasted JSON in place of this run")}>
                    { t("Import…") }
                </button>
                <button type="button" class="header-button" data-testid="edit-job" onclick={emit(Command::OpenEditor)}
                    title={t("Edit the job graph: operators, edges, partitioners, parallelism")}>
                    { t("Edit job") }
                </button>
                <button type="button" class="header-button" data-testid="theme-toggle" onclick={emit(Command::ToggleTheme)}
                    aria-pressed={(props.theme.as_str() == "dark").to_string()} data-theme={props.theme.clone()}
                    title={t("Switch between the dark and the light theme (your choice, kept in this browser; not part of a shared link)")}>
                    { if props.theme.as_str() == "dark" { t("☀ Light") } else { t("☾ Dark") } }
                </button>
                <button type="button" class="header-button lang-toggle" data-testid="lang-toggle" onclick={emit(Command::ToggleLang)}
                    lang={props.lang.other().tag()} data-lang={props.lang.tag()}
                    aria-label={tf("Interface language: {0}; switch to {1} (l)", &[&props.lang.name(), &props.lang.other().name()])}
                    title={tf("Interface language: {0}; switch to {1} (l)", &[&props.lang.name(), &props.lang.other().name()])}>
                    { props.lang.switch_label() }
                </button>
                <button type="button" class="header-button" data-testid="help" onclick={help} title={t("Keyboard shortcuts (?)")}>
                    { "?" }
                </button>
                if let Some(note) = &props.share_note {
                    <span class={classes!("share-note", props.share_warning.then_some("share-warning"))} data-testid="share-note">{ note.clone() }</span>
                }
            </div>
        </header>
    }
}
