//! The import dialog: open a scenario JSON file or pasted JSON in place of the run.
//!
//! Contract: `data-testid="import-dialog"`, a modal with a file picker (`import-file`,
//! `.json`), a textarea (`import-text`), `import-open` and `import-cancel`. Choosing a
//! file puts its text in the textarea and opens it; "Open" sends the textarea's text as
//! `Command::ImportJson`. The app validates it (`scenario::import_json`) and, when it is
//! invalid, passes the message back as `error`, shown in `import-error` (path, or line
//! and column, then what is wrong). The text stays in the dialog so it can be fixed. A
//! file over the size limit is refused here, before it is read.

use wasm_bindgen_futures::{spawn_local, JsFuture};
use yew::prelude::*;

use crate::scenario;
use crate::ui::command::Command;
use crate::ui::i18n::{t, tf, use_lang};

#[derive(Properties, PartialEq)]
pub struct ImportDialogProps {
    pub on_command: Callback<Command>,
    /// Why the last import was refused.
    #[prop_or_default]
    pub error: Option<AttrValue>,
}

#[function_component(ImportDialog)]
pub fn import_dialog(props: &ImportDialogProps) -> Html {
    use_lang();
    let text = use_state(String::new);
    // A problem with the chosen file itself (too large, unreadable), found before the
    // app sees any text.
    let file_error = use_state(|| None::<String>);
    let on_input = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            text.set(area.value());
        })
    };
    let open = {
        let (text, file_error, cb) = (text.clone(), file_error.clone(), props.on_command.clone());
        Callback::from(move |_: MouseEvent| {
            file_error.set(None);
            cb.emit(Command::ImportJson((*text).clone()));
        })
    };
    let on_file = {
        let (text, file_error, cb) = (text.clone(), file_error.clone(), props.on_command.clone());
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else {
                return;
            };
            let name = file.name();
            if let Err(err) = scenario::file::check_size(file.size() as usize) {
                file_error.set(Some(format!("{name}: {err}")));
                return;
            }
            let (text, file_error, cb) = (text.clone(), file_error.clone(), cb.clone());
            spawn_local(async move {
                match JsFuture::from(file.text()).await.map(|v| v.as_string()) {
                    Ok(Some(content)) => {
                        file_error.set(None);
                        text.set(content.clone());
                        cb.emit(Command::ImportJson(content));
                    }
                    _ => file_error.set(Some(tf(
                        "{0}: the file could not be read as text",
                        &[&name],
                    ))),
                }
            });
        })
    };
    let cancel = {
        let cb = props.on_command.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Command::ToggleImport))
    };
    let error = (*file_error)
        .clone()
        .map(AttrValue::from)
        .or_else(|| props.error.clone());
    html! {
        <div class="overlay" data-testid="import-dialog" role="dialog" aria-modal="true" aria-labelledby="import-title">
            <div class="overlay-card import-card">
                <h2 id="import-title">{ t("Import a scenario") }</h2>
                <p class="muted">{ t("A scenario JSON file, as Export writes it (or as in presets/). It replaces the current run, and the link in the address bar follows.") }</p>
                <label class="import-file">
                    <span class="field-label">{ t("file") }</span>
                    <input type="file" accept=".json,application/json" data-testid="import-file" onchange={on_file} />
                </label>
                <textarea class="import-text" data-testid="import-text" rows="12" spellcheck="false"
                    aria-label={t("Scenario JSON")} placeholder={t("…or paste the scenario's JSON here")}
                    value={(*text).clone()} oninput={on_input} />
                if let Some(error) = error {
                    <p class="import-error" data-testid="import-error" role="alert">{ error }</p>
                }
                <div class="dialog-actions">
                    <button type="button" class="header-button primary" data-testid="import-open" onclick={open}>{ t("Open") }</button>
                    <button type="button" class="header-button" data-testid="import-cancel" onclick={cancel}>{ t("Cancel") }</button>
                </div>
            </div>
        </div>
    }
}
