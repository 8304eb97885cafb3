//! *Export Flink job* (issue 16): the running scenario, with the actions recorded so far, as
//! a zip of its Flink job.
//!
//! Contract: [`download`] takes the scenario JSON the page exports (`Sim::export_file`),
//! exports it with `flink_export::export` (pure, shared with the CLI's `export --flink`), zips
//! it store-only under one folder and starts the browser download of `<folder>.zip`. It
//! returns the note the header shows (the file, its size, how many parts could not be
//! exported) or the reason it could not. No engine logic here.

use crate::flink_export;
use crate::scenario;
use crate::ui::clipboard;
use wasm_bindgen::JsCast;

/// Downloads the Flink job of the scenario `json`; the note to show.
pub fn download(json: &str) -> Result<String, String> {
    let doc = scenario::parse_json(json).map_err(|e| e.to_string())?;
    let export = flink_export::export(&doc).map_err(|e| e.to_string())?;
    let folder = flink_export::folder_name(&doc);
    let bytes = export.to_zip(&folder);
    let array = js_sys::Uint8Array::from(bytes.as_slice());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/zip");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(
        &js_sys::Array::of1(array.unchecked_ref()),
        &options,
    )
    .map_err(|e| format!("{e:?}"))?;
    let file = format!("{folder}.zip");
    clipboard::download_blob(&blob, &file)?;
    let missing = export.notes.not_exported.len();
    Ok(format!(
        "Downloaded {file} ({} bytes): the scenario as a Flink {} job; run-local.sh runs it, its README says what maps{}.",
        bytes.len(),
        flink_export::FLINK_VERSION,
        if missing == 0 {
            String::new()
        } else {
            format!(" and the {missing} parts that could not be exported")
        }
    ))
}
