//! Native checks of the static site's contract with the crate: `index.html` loads
//! the module that wasm-bindgen generates for this crate and calls its exported
//! `run_app`, and every grid area the UI components use is laid out by
//! `www/static/style.css`. These break when the crate, the export or a panel is
//! renamed without updating the page.

use std::fs;
use std::path::Path;

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    fs::read_to_string(&full).unwrap_or_else(|e| panic!("cannot read {}: {e}", full.display()))
}

#[test]
fn index_html_imports_the_generated_module_and_calls_run_app() {
    let index = read("index.html");
    let module = env!("CARGO_PKG_NAME").replace('-', "_");
    let import = format!("from './pkg/{module}.js'");
    assert!(
        index.contains(&import),
        "index.html must contain {import:?}"
    );
    assert!(
        index.contains("run_app()"),
        "index.html must call run_app()"
    );
    assert!(
        read("src/lib.rs").contains("pub fn run_app()"),
        "src/lib.rs must export run_app"
    );
}

#[test]
fn every_grid_area_used_by_the_ui_is_laid_out() {
    let css = read("www/static/style.css");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui/components");
    let mut areas = Vec::new();
    // The components' files, and those of their sub-modules (e.g. `job_view/`).
    let mut files = Vec::new();
    let mut dirs = vec![dir];
    while let Some(d) = dirs.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    for path in files {
        let source = fs::read_to_string(path).unwrap();
        // `class="area-…"` or `classes!("area-…")`: every string literal naming an area.
        for (at, _) in source.match_indices("\"area-") {
            let rest = &source[at + 1..];
            areas.push(rest[..rest.find('"').unwrap()].to_string());
        }
    }
    areas.sort();
    areas.dedup();
    assert_eq!(
        areas,
        [
            "area-charts",
            "area-checkpoints",
            "area-compare",
            "area-controls",
            "area-diagnosis",
            "area-graph",
            "area-guide",
            "area-inspector",
            "area-log",
            "area-settings",
            "area-sinks",
            "area-timeline"
        ],
        "the panels each take one grid area (the comparison view takes its own)"
    );
    for area in &areas {
        let name = area.trim_start_matches("area-");
        assert!(
            css.contains(&format!(".{area} {{ grid-area: {name}; }}")),
            "style.css must place .{area}"
        );
    }
}
