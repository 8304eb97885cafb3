//! Structured engine texts ([`Msg`]) in the viewer's language.
//!
//! Contract: [`render`] shows a message in a language. English is exactly
//! `Msg::english()` (the text the engine logs or reports: CLI output and golden hashes
//! never go through here). Chinese is the code's catalogue entry filled with the
//! arguments: a value (`Arg::Text`: ids, names, durations, sizes, Flink keys) as it is, an
//! engine word (`Arg::Word`) and a clause (`Arg::Msg`) translated, a list (`Arg::List`)
//! joined the Chinese way (`、` between names, `，` / `；` between clauses for the English
//! `", "` / `"; "`, ` 和 ` for `" and "`). A code without an entry falls back to English (the catalogue tests
//! fail for it first). Nothing here reads English text to guess its meaning.

use crate::engine::log::{fill, Arg, Msg};

use super::{current, t_in, Lang};

/// `msg` in `lang`.
pub fn render(msg: &Msg, lang: Lang) -> String {
    match lang {
        Lang::En => msg.english(),
        Lang::Zh => fill(t_in(lang, msg.code), |i| {
            msg.args
                .get(i)
                .map(|a| render_arg(a, lang))
                .unwrap_or_default()
        }),
    }
}

/// One argument of a message in `lang`.
pub fn render_arg(arg: &Arg, lang: Lang) -> String {
    if lang == Lang::En {
        return arg.english();
    }
    match arg {
        Arg::Text(s) => s.clone(),
        Arg::Word(w) => t_in(lang, w).to_string(),
        Arg::Msg(m) => render(m, lang),
        Arg::List(items, sep) => {
            let names = items.iter().all(|a| matches!(a, Arg::Text(_)));
            let sep = match *sep {
                ", " if names => "、",
                ", " => "，",
                "; " => "；",
                " and " => " 和 ",
                other => other,
            };
            items
                .iter()
                .map(|a| render_arg(a, lang))
                .collect::<Vec<_>>()
                .join(sep)
        }
    }
}

/// A text the engine gives with its structured form: `msg` in the current language, or
/// `english` as it is when there is no structured form.
pub fn text_of(msg: Option<&Msg>, english: &str) -> String {
    match msg {
        Some(m) => render(m, current()),
        None => english.to_string(),
    }
}
