//! The viewer's colour theme: follows the system (`prefers-color-scheme`) until the
//! viewer picks dark or light with the header's switch; the pick is kept in
//! `localStorage` (`cp-theme`), never in the shared scenario.
//!
//! Contract: [`stored`] reads the pick (`None`: none, or storage unavailable),
//! [`store`] writes or clears it, [`system`] is the system's scheme (`dark` / `light`).
//! Reached through `js_sys::Reflect`, so no extra `web-sys` feature is needed; every
//! failure (no storage, private mode) just means "follow the system".

use wasm_bindgen::{JsCast, JsValue};

const KEY: &str = "cp-theme";

fn window() -> Option<JsValue> {
    web_sys::window().map(JsValue::from)
}

fn storage() -> Option<JsValue> {
    let s = js_sys::Reflect::get(&window()?, &"localStorage".into()).ok()?;
    (!s.is_null() && !s.is_undefined()).then_some(s)
}

fn call(target: &JsValue, method: &str, args: &[JsValue]) -> Option<JsValue> {
    let f: js_sys::Function = js_sys::Reflect::get(target, &method.into())
        .ok()?
        .dyn_into()
        .ok()?;
    let args: js_sys::Array = args.iter().collect();
    f.apply(target, &args).ok()
}

/// The theme the viewer picked before, if any.
pub fn stored() -> Option<&'static str> {
    let v = call(&storage()?, "getItem", &[KEY.into()])?.as_string()?;
    match v.as_str() {
        "dark" => Some("dark"),
        "light" => Some("light"),
        _ => None,
    }
}

/// Remembers the viewer's pick (`None` forgets it).
pub fn store(theme: Option<&str>) {
    let Some(s) = storage() else {
        return;
    };
    let _ = match theme {
        Some(t) => call(&s, "setItem", &[KEY.into(), t.into()]),
        None => call(&s, "removeItem", &[KEY.into()]),
    };
}

/// The system's colour scheme.
pub fn system() -> &'static str {
    let dark = window()
        .and_then(|w| call(&w, "matchMedia", &["(prefers-color-scheme: dark)".into()]))
        .and_then(|m| js_sys::Reflect::get(&m, &"matches".into()).ok())
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    if dark {
        "dark"
    } else {
        "light"
    }
}
