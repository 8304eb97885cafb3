//! The browser side of the language: the viewer's stored pick (`localStorage`,
//! `cp-lang`), the browser's preferred languages (`navigator.languages`), the page's
//! `<html lang>`, and the hook components read the language with.
//!
//! Contract: [`initial`] is the stored pick, else the first of `navigator.languages`
//! the interface has, else English; [`store`] remembers a pick; [`apply`] sets
//! `<html lang>` and the texts' current language; [`use_lang`] subscribes a component to
//! the root's `ContextProvider<Lang>` so it re-renders on a switch. Reached through
//! `js_sys::Reflect` (no extra `web-sys` feature); a failure (no storage, private mode)
//! just means "follow the browser". Never written into the scenario or the URL.

use wasm_bindgen::{JsCast, JsValue};
use yew::prelude::*;

use super::Lang;

const KEY: &str = "cp-lang";

fn window() -> Option<JsValue> {
    web_sys::window().map(JsValue::from)
}

fn get(target: &JsValue, name: &str) -> Option<JsValue> {
    let v = js_sys::Reflect::get(target, &name.into()).ok()?;
    (!v.is_null() && !v.is_undefined()).then_some(v)
}

fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Option<JsValue> {
    let f: js_sys::Function = get(target, method)?.dyn_into().ok()?;
    let args: js_sys::Array = args.iter().collect();
    f.apply(target, &args).ok()
}

/// The language the viewer picked before, if any.
pub fn stored() -> Option<Lang> {
    let v = call(&get(&window()?, "localStorage")?, "getItem", &[KEY.into()])?.as_string()?;
    Lang::from_tag(&v)
}

/// Remembers the viewer's pick.
pub fn store(lang: Lang) {
    if let Some(s) = window().and_then(|w| get(&w, "localStorage")) {
        let _ = call(&s, "setItem", &[KEY.into(), lang.tag().into()]);
    }
}

/// The browser's preferred languages, in order (`navigator.languages`, else
/// `navigator.language`).
pub fn browser() -> Vec<String> {
    let Some(nav) = window().and_then(|w| get(&w, "navigator")) else {
        return vec![];
    };
    if let Some(list) = get(&nav, "languages").and_then(|l| l.dyn_into::<js_sys::Array>().ok()) {
        let tags: Vec<String> = list.iter().filter_map(|v| v.as_string()).collect();
        if !tags.is_empty() {
            return tags;
        }
    }
    get(&nav, "language")
        .and_then(|l| l.as_string())
        .into_iter()
        .collect()
}

/// The language the page opens in.
pub fn initial() -> Lang {
    stored().unwrap_or_else(|| Lang::from_preferences(browser().iter().map(String::as_str)))
}

/// Makes `lang` the language of the texts and of the page (`<html lang>`).
pub fn apply(lang: Lang) {
    super::set_current(lang);
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.tag());
    }
}

/// The language shown; re-renders the calling component when the viewer switches.
#[hook]
pub fn use_lang() -> Lang {
    use_context::<Lang>().unwrap_or_else(super::current)
}
