//! The interface's language: English or Chinese (简体中文), the viewer's choice.
//!
//! Contract: [`Lang`] is the language shown; [`t`] gives a fixed text in the current
//! language and [`tf`] a text with positional arguments (`{0}`, `{1}`, …), both keyed by
//! the English text itself (a `&'static str` key: a missing translation falls back to
//! English, and the catalogue test, `tests` below, fails for every key the UI uses that
//! has no Chinese entry or whose arguments differ). [`set_current`] is called by the root
//! component when the language changes, before its children render; components read the
//! language through the `use_lang` hook (wasm: [`web`]) so they re-render on a switch.
//! Flink's own terms (config keys, job/task states such as RUNNING / RESTARTING, metric
//! names, `checkpoint_type` values, operator names) are never keys: they stay as Flink
//! spells them. The concepts follow the source article's Chinese terms (对齐检查点,
//! 非对齐检查点, 屏障 (barrier), 反压, 缓冲区, 同步阶段 / 异步阶段, 透支缓冲区).
//!
//! The choice is the viewer's, kept in `localStorage` (`cp-lang`, [`web`]), first taken
//! from `navigator.languages`; it is never part of the scenario document or the link.
//! Engine texts are translated at this boundary from their structured form
//! ([`messages`]: an `engine::log::Msg`, code + arguments — the diagnosis's sentences,
//! the editor's event sentences; [`steps`]: the checkpoint step's notes; [`guides`]: the
//! presets' guides from their own files `presets/i18n/zh/<preset>.json`).

pub mod catalogue;
pub mod guides;
pub mod messages;
pub mod steps;
#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(target_arch = "wasm32")]
pub use web::use_lang;

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Display;

/// A language of the interface.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// The BCP 47 tag (`<html lang>`, the stored choice).
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }

    /// The language of a BCP 47 tag (`zh`, `zh-CN`, `zh-Hans-…`, `en-US`), if the
    /// interface has it.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
        match primary.as_str() {
            "zh" => Some(Lang::Zh),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    /// The first of the browser's preferred languages the interface has (English if none).
    pub fn from_preferences<'a>(tags: impl IntoIterator<Item = &'a str>) -> Lang {
        tags.into_iter()
            .find_map(Lang::from_tag)
            .unwrap_or_default()
    }

    /// The other language (the header's switch).
    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Zh,
            Lang::Zh => Lang::En,
        }
    }

    /// The language's own name.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "中文",
        }
    }

    /// The switch's label: the language it switches *to*, in that language.
    pub fn switch_label(self) -> &'static str {
        match self.other() {
            Lang::En => "English",
            Lang::Zh => "中文",
        }
    }
}

thread_local! {
    static CURRENT: Cell<Lang> = const { Cell::new(Lang::En) };
    static ZH: HashMap<&'static str, &'static str> =
        catalogue::ZH.iter().copied().collect();
}

/// The language texts are given in now.
pub fn current() -> Lang {
    CURRENT.with(|c| c.get())
}

/// Sets the language of the texts (the root component, before its children render).
pub fn set_current(lang: Lang) {
    CURRENT.with(|c| c.set(lang));
}

/// `key` in `lang`: the Chinese entry, or the English key itself.
pub fn t_in(lang: Lang, key: &'static str) -> &'static str {
    match lang {
        Lang::En => key,
        Lang::Zh => ZH.with(|m| m.get(key).copied().unwrap_or(key)),
    }
}

/// `key` in the current language.
pub fn t(key: &'static str) -> &'static str {
    t_in(current(), key)
}

/// The text of `key` in the current language, translated if the catalogue has it
/// (texts whose key is not a literal: enum names, engine words such as `aligned`).
pub fn t_dyn(text: &str) -> String {
    match current() {
        Lang::En => text.to_string(),
        Lang::Zh => ZH.with(|m| {
            m.get(text)
                .map(|s| s.to_string())
                .unwrap_or_else(|| text.into())
        }),
    }
}

/// Fills `{0}`, `{1}`, … of `template` with `args`.
pub fn fill(template: &str, args: &[&dyn Display]) -> String {
    crate::engine::log::fill(template, |i| {
        args.get(i).map(|a| a.to_string()).unwrap_or_default()
    })
}

/// `key` (a template with `{0}`, `{1}`, …) in the current language, filled with `args`.
pub fn tf(key: &'static str, args: &[&dyn Display]) -> String {
    fill(t(key), args)
}

/// The placeholders `{N}` of a template, sorted (the catalogue test compares them).
pub fn placeholders(template: &str) -> Vec<usize> {
    let mut v: Vec<usize> = template
        .split('{')
        .skip(1)
        .filter_map(|s| s.split('}').next()?.parse().ok())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// A preset's title in the current language (its guide translation's name, if any).
pub fn preset_title(preset: &str, title: &str) -> String {
    match (current(), guides::zh(preset)) {
        (Lang::Zh, Some(z)) => z.name.clone(),
        _ => title.to_string(),
    }
}

#[cfg(test)]
mod tests;
