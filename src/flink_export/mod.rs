//! Export a scenario as a runnable Apache Flink job (issue 16), and measure the simulator
//! against it.
//!
//! Contract: [`export`] turns a valid scenario [`Document`] into a self-contained folder
//! ([`FlinkExport::files`]): a Java DataStream job that *is* the scenario
//! (`src/main/java/playground/ScenarioJob.java`, generated, on the fixed runtime
//! `Playground.java`), its Flink configuration (`config.yaml`), `pom.xml`, `run-local.sh`
//! (javac against the jars of the `apache-flink` pip package, a local MiniCluster, REST on
//! 127.0.0.1) and a `README.md` that lists what maps exactly, what approximately and what could
//! not be exported ([`Notes`]). Nothing the scenario says is dropped in silence: every config
//! key, operator field and event is either exported or named in [`Notes::not_exported`].
//! An invalid scenario is refused with the scenario layer's error naming the field.
//! Export is pure (no I/O): the CLI writes the files, the UI zips them ([`zip`]).
//!
//! Modules, one concept each: [`notes`] (the exact / approximate / not-exported lists),
//! [`config_map`] (playground keys to Flink 2.3 keys), [`job_java`] (the generated job),
//! [`project`] (pom.xml, run-local.sh, README), [`zip`] (a store-only zip for the UI's
//! download), [`figures`] (Flink's REST statistics and the simulator's report as comparable
//! figures), and natively [`calibrate`] (runs an export on a real MiniCluster beside the
//! simulator) and [`fidelity`] (the FIDELITY.md table of every exportable preset).

pub mod config_map;
pub mod figures;
pub mod job_java;
pub mod notes;
pub mod project;
pub mod zip;

#[cfg(not(target_arch = "wasm32"))]
pub mod calibrate;
#[cfg(not(target_arch = "wasm32"))]
pub mod fidelity;

pub use notes::Notes;

use crate::scenario::{self, Document, ScenarioError};

/// The Flink version the export is written for and the README/FIDELITY measure against.
pub const FLINK_VERSION: &str = "2.3.0";

/// The fixed runtime of every exported job (Java source, see its class comment).
pub const RUNTIME_JAVA: &str = include_str!("java/Playground.java");

/// One file of an export: a path relative to the export folder and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFile {
    pub path: String,
    pub contents: String,
    /// Written with the executable bit (run-local.sh).
    pub executable: bool,
}

/// A scenario exported as a Flink job: its files and what maps how.
#[derive(Clone, Debug, PartialEq)]
pub struct FlinkExport {
    pub files: Vec<ExportFile>,
    pub notes: Notes,
}

impl FlinkExport {
    /// The text of the file at `path`, if the export has one.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.contents.as_str())
    }

    /// The export as a store-only zip under the folder `root/` (the UI's download).
    pub fn to_zip(&self, root: &str) -> Vec<u8> {
        let entries: Vec<(String, &[u8], bool)> = self
            .files
            .iter()
            .map(|f| {
                (
                    format!("{root}/{}", f.path),
                    f.contents.as_bytes(),
                    f.executable,
                )
            })
            .collect();
        zip::store(&entries)
    }
}

/// Exports `doc` (validated first: an invalid scenario is refused with its field's error).
pub fn export(doc: &Document) -> Result<FlinkExport, ScenarioError> {
    let spec = scenario::to_spec(doc)?;
    let mut notes = Notes::default();
    let config = config_map::translate(doc, &spec, &mut notes);
    let job = job_java::generate(doc, &spec, &mut notes);
    let files = vec![
        ExportFile {
            path: "src/main/java/playground/ScenarioJob.java".into(),
            contents: job,
            executable: false,
        },
        ExportFile {
            path: "src/main/java/playground/Playground.java".into(),
            contents: RUNTIME_JAVA.into(),
            executable: false,
        },
        ExportFile {
            path: "config.yaml".into(),
            contents: config,
            executable: false,
        },
        ExportFile {
            path: "pom.xml".into(),
            contents: project::pom(doc),
            executable: false,
        },
        ExportFile {
            path: "run-local.sh".into(),
            contents: project::RUN_LOCAL.into(),
            executable: true,
        },
        ExportFile {
            path: "log4j2.properties".into(),
            contents: project::LOG4J.into(),
            executable: false,
        },
        ExportFile {
            path: "scenario.json".into(),
            contents: doc.to_json_pretty() + "\n",
            executable: false,
        },
        ExportFile {
            path: "README.md".into(),
            contents: project::readme(doc, &spec, &notes),
            executable: false,
        },
    ];
    Ok(FlinkExport { files, notes })
}

/// A file-system-safe folder name for a scenario's export (`backpressured-sink-flink`).
pub fn folder_name(doc: &Document) -> String {
    let mut s: String = doc
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    let s = s.trim_matches('-');
    let s: String = s.chars().take(48).collect();
    if s.is_empty() {
        "scenario-flink".into()
    } else {
        format!("{}-flink", s.trim_end_matches('-'))
    }
}
