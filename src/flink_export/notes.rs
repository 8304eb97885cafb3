//! What an export maps exactly, what approximately, and what it could not export.
//!
//! Contract: every part of a scenario the exporter looks at ends up in exactly one of the three
//! lists, each entry naming the part (`config.playground.storage.throughput`,
//! `events[2].set_config`, `operators[0].retention`) and saying why. The README of the export
//! prints them; the tests check that a part the exporter cannot translate is listed in
//! [`Notes::not_exported`].

/// The three lists (in the order they were found).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    pub exact: Vec<String>,
    pub approximate: Vec<String>,
    pub not_exported: Vec<String>,
}

impl Notes {
    pub fn exact(&mut self, what: impl Into<String>) {
        self.exact.push(what.into());
    }
    pub fn approximate(&mut self, what: impl Into<String>) {
        self.approximate.push(what.into());
    }
    pub fn not_exported(&mut self, what: impl Into<String>) {
        self.not_exported.push(what.into());
    }

    /// Whether some not-exported entry starts with `path` (for tests and the CLI's summary).
    pub fn lists_not_exported(&self, path: &str) -> bool {
        self.not_exported.iter().any(|n| n.starts_with(path))
    }
}
