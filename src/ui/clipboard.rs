//! The clipboard and file downloads: the browser plumbing that Share, Export and the
//! chart copy buttons share (wasm32 only; the content itself is built elsewhere).
//!
//! Contract: nothing here panics or throws into the page. [`available`] says whether the
//! page has the async clipboard API (it does not in an insecure context);
//! [`write_text`] resolves to `Ok` only once the browser accepted the text.
//! [`download_text`] / [`download_blob`] save a file through a temporary
//! `<a download>` and revoke the object URL afterwards. [`copy_svg`] and [`copy_png`]
//! try the clipboard first (an `image/svg+xml` or `image/png` `ClipboardItem`, SVG also
//! as text) and download the file when the clipboard is missing or refuses; they report
//! which happened as a [`Delivery`], or `Err` when neither worked.

use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Where a copied thing ended up.
#[derive(Clone, Debug, PartialEq)]
pub enum Delivery {
    /// On the clipboard, in these MIME types.
    Copied(&'static str),
    /// Saved as a file instead, because the clipboard said this.
    Downloaded(String),
}

fn message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

fn clipboard() -> Option<web_sys::Clipboard> {
    let navigator = web_sys::window()?.navigator();
    let c = Reflect::get(&navigator, &JsValue::from_str("clipboard")).ok()?;
    c.is_object().then(|| navigator.clipboard())
}

fn has_clipboard_item() -> bool {
    Reflect::has(&js_sys::global(), &JsValue::from_str("ClipboardItem")).unwrap_or(false)
}

/// Whether the page has the async clipboard API.
pub fn available() -> bool {
    clipboard().is_some()
}

/// Writes `text` to the clipboard; `Err` says why not (no API, permission refused).
pub async fn write_text(text: &str) -> Result<(), String> {
    let c = clipboard().ok_or("this page has no clipboard access (an insecure context?)")?;
    JsFuture::from(c.write_text(text))
        .await
        .map(|_| ())
        .map_err(|e| message(&e))
}

/// Writes one `ClipboardItem` of (MIME type, blob or promise of a blob) pairs.
async fn write_item(parts: &[(&str, &JsValue)]) -> Result<(), String> {
    let c = clipboard().ok_or("this page has no clipboard access (an insecure context?)")?;
    if !has_clipboard_item() {
        return Err("this browser cannot put images on the clipboard".into());
    }
    let record = Object::new();
    for (mime, value) in parts {
        Reflect::set(&record, &JsValue::from_str(mime), value).map_err(|e| message(&e))?;
    }
    let item = web_sys::ClipboardItem::new_with_record_from_str_to_blob_promise(&record)
        .map_err(|e| message(&e))?;
    JsFuture::from(c.write(&Array::of1(&item)))
        .await
        .map(|_| ())
        .map_err(|e| message(&e))
}

/// A blob of `text` with MIME type `mime`.
pub fn text_blob(text: &str, mime: &str) -> Result<web_sys::Blob, String> {
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    web_sys::Blob::new_with_str_sequence_and_options(
        &Array::of1(&JsValue::from_str(text)),
        &options,
    )
    .map_err(|e| message(&e))
}

/// Saves `blob` as a file called `file_name`.
pub fn download_blob(blob: &web_sys::Blob, file_name: &str) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document to download from")?;
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(|e| message(&e))?;
    let clicked = document
        .create_element("a")
        .map_err(|e| message(&e))
        .and_then(|a| {
            let a: web_sys::HtmlAnchorElement = a.unchecked_into();
            a.set_href(&url);
            a.set_download(file_name);
            a.set_attribute("style", "display:none").ok();
            let body = document.body().ok_or("no <body> to download from")?;
            body.append_child(&a).map_err(|e| message(&e))?;
            a.click();
            a.remove();
            Ok(())
        });
    // The click has started the download, which holds its own reference to the blob.
    let _ = web_sys::Url::revoke_object_url(&url);
    clicked
}

/// Saves `text` as a file called `file_name` of type `mime`.
pub fn download_text(text: &str, mime: &str, file_name: &str) -> Result<(), String> {
    download_blob(&text_blob(text, mime)?, file_name)
}

/// Copies a standalone SVG document: as an image and as text where the browser takes
/// images, else as text; downloads `file_name` when the clipboard refuses.
pub async fn copy_svg(svg: &str, file_name: &str) -> Result<Delivery, String> {
    let image = text_blob(svg, "image/svg+xml")?;
    let text = text_blob(svg, "text/plain")?;
    let as_image = write_item(&[("image/svg+xml", &image), ("text/plain", &text)]).await;
    let refused = match as_image {
        Ok(()) => return Ok(Delivery::Copied("image/svg+xml and text")),
        Err(_) => match write_text(svg).await {
            Ok(()) => return Ok(Delivery::Copied("text")),
            Err(e) => e,
        },
    };
    download_blob(&image, file_name)?;
    Ok(Delivery::Downloaded(refused))
}

/// Renders a standalone SVG document to PNG at `scale` × its size and copies it as an
/// `image/png`; downloads `file_name` when the clipboard is missing or refuses.
pub async fn copy_png(svg: &str, scale: f64, file_name: &str) -> Result<Delivery, String> {
    let png = render_png(svg, scale);
    let refused = match write_item(&[("image/png", &png)]).await {
        Ok(()) => return Ok(Delivery::Copied("image/png")),
        Err(e) => e,
    };
    let blob: web_sys::Blob = JsFuture::from(png)
        .await
        .map_err(|e| message(&e))?
        .unchecked_into();
    download_blob(&blob, file_name)?;
    Ok(Delivery::Downloaded(refused))
}

/// A promise of the PNG `Blob` of an SVG document drawn on a canvas at `scale`.
///
/// The promise is created at once (before any await), which is what Safari needs for a
/// `ClipboardItem` written from a click.
pub fn render_png(svg: &str, scale: f64) -> Promise {
    let src = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        js_sys::encode_uri_component(svg)
    );
    Promise::new(&mut |resolve: js_sys::Function, reject: js_sys::Function| {
        let started = web_sys::window()
            .and_then(|w| w.document())
            .ok_or_else(|| JsValue::from_str("no document to draw in"))
            .and_then(|d| {
                let img = web_sys::HtmlImageElement::new()?;
                let canvas: web_sys::HtmlCanvasElement =
                    d.create_element("canvas")?.unchecked_into();
                let on_load = {
                    let (img, reject) = (img.clone(), reject.clone());
                    let resolve = resolve.clone();
                    Closure::once_into_js(move || {
                        if let Err(e) = draw(&img, &canvas, scale, resolve) {
                            let _ = reject.call1(&JsValue::NULL, &e);
                        }
                    })
                };
                let on_error = {
                    let reject = reject.clone();
                    Closure::once_into_js(move || {
                        let _ = reject.call1(
                            &JsValue::NULL,
                            &JsValue::from_str("the chart's SVG could not be drawn as an image"),
                        );
                    })
                };
                img.set_onload(Some(on_load.unchecked_ref()));
                img.set_onerror(Some(on_error.unchecked_ref()));
                img.set_src(&src);
                Ok(())
            });
        if let Err(e) = started {
            let _ = reject.call1(&JsValue::NULL, &e);
        }
    })
}

fn draw(
    img: &web_sys::HtmlImageElement,
    canvas: &web_sys::HtmlCanvasElement,
    scale: f64,
    resolve: js_sys::Function,
) -> Result<(), JsValue> {
    canvas.set_width((img.natural_width() as f64 * scale).round() as u32);
    canvas.set_height((img.natural_height() as f64 * scale).round() as u32);
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")?
        .ok_or_else(|| JsValue::from_str("no 2d canvas"))?
        .unchecked_into();
    ctx.scale(scale, scale)?;
    ctx.draw_image_with_html_image_element(img, 0.0, 0.0)?;
    let done = Closure::once_into_js(move |blob: JsValue| {
        let _ = resolve.call1(&JsValue::NULL, &blob);
    });
    canvas.to_blob(done.unchecked_ref())
}
