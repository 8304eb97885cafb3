//! The engine's event log: what happened, in plain words, and a hash of everything.
//!
//! Every notable engine event is appended as a [`LogEntry`] (kept in a bounded ring for the
//! UI) and folded into a 64-bit FNV-1a hash together with every record-level step. Two runs
//! are the same run exactly when their hashes match — on every host.
//!
//! Bounded: the ring keeps the last [`RING`] entries (4,000; the hash and `total` cover
//! every entry ever pushed), and an entry's text is one line naming at most a few
//! operators (ids of at most 64 characters, `spec::limits`), so the log holds well under
//! 1 MB whatever the run's length.

use super::time::{format_bytes, format_duration, Micros};
use serde::Serialize;
use std::collections::VecDeque;

/// Entries the log keeps (the newest); older ones only count in `total` and the hash.
pub const RING: usize = 4000;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogEntry {
    pub at: Micros,
    pub text: String,
    pub kind: LogKind,
    /// The entry's structured form, where its producer gives one (the checkpoint steps):
    /// `text` is exactly `msg.english()`, and the playground shows `msg` in the viewer's
    /// language (`ui::i18n::steps`). Not hashed, not serialized: only `text` is the run.
    #[serde(skip)]
    pub msg: Option<Msg>,
}

/// An argument of a [`Msg`]: a value shown as it is (ids, names, durations, sizes), an
/// engine word the interface translates (`aligned`, `checkpoint`, …), a clause that is a
/// message of its own (the diagnosis's sentences are built of clauses), or a list of
/// arguments joined in English by the separator given (`", "`, `"; "`, `""`; the
/// interface joins them its own way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Text(String),
    Word(&'static str),
    Msg(Box<Msg>),
    List(Vec<Arg>, &'static str),
}

impl Arg {
    /// The argument's English text.
    pub fn english(&self) -> String {
        match self {
            Arg::Text(s) => s.clone(),
            Arg::Word(w) => (*w).to_string(),
            Arg::Msg(m) => m.english(),
            Arg::List(items, sep) => items.iter().map(Arg::english).collect::<Vec<_>>().join(sep),
        }
    }
}

impl From<Msg> for Arg {
    fn from(m: Msg) -> Arg {
        Arg::Msg(Box::new(m))
    }
}

/// A list of texts (names) joined by `sep` in English.
pub fn list_of<T: std::fmt::Display>(items: &[T], sep: &'static str) -> Arg {
    Arg::List(items.iter().map(text).collect(), sep)
}

/// A log text as a code (its English template, `{0}`, `{1}`, … for the arguments) and
/// its arguments, so the interface can show it in another language without parsing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    pub code: &'static str,
    pub args: Vec<Arg>,
}

impl Msg {
    pub fn new(code: &'static str, args: Vec<Arg>) -> Msg {
        Msg { code, args }
    }

    /// The English text: the code with its arguments filled in.
    pub fn english(&self) -> String {
        fill(self.code, |i| {
            self.args.get(i).map(Arg::english).unwrap_or_default()
        })
    }

    /// Every code of the message and of its clauses, and every engine word, in order
    /// (the catalogue tests check each has Chinese).
    pub fn codes(&self, out: &mut Vec<&'static str>) {
        fn arg(a: &Arg, out: &mut Vec<&'static str>) {
            match a {
                Arg::Text(_) => {}
                Arg::Word(w) => out.push(w),
                Arg::Msg(m) => m.codes(out),
                Arg::List(items, _) => items.iter().for_each(|i| arg(i, out)),
            }
        }
        out.push(self.code);
        self.args.iter().for_each(|a| arg(a, out));
    }
}

/// `Arg::Text` of anything displayable.
pub fn text(v: impl std::fmt::Display) -> Arg {
    Arg::Text(v.to_string())
}

/// Fills the placeholders `{0}`, `{1}`, … of `template` with `arg(i)`; other braces stay.
pub fn fill(template: &str, arg: impl Fn(usize) -> String) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after
            .find('}')
            .and_then(|close| after[..close].parse::<usize>().ok().map(|i| (i, close)))
        {
            Some((i, close)) => {
                out.push_str(&arg(i));
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LogKind {
    Checkpoint,
    Barrier,
    Snapshot,
    Failure,
    Recovery,
    Sink,
    Task,
    User,
}

#[derive(Clone, Debug)]
pub struct EventLog {
    pub entries: VecDeque<LogEntry>,
    pub total: u64,
    hash: u64,
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog {
            entries: VecDeque::new(),
            total: 0,
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }
}

impl EventLog {
    pub fn push(&mut self, at: Micros, kind: LogKind, text: String) {
        self.fold(at);
        for b in text.as_bytes() {
            self.fold_byte(*b);
        }
        if self.entries.len() == RING {
            self.entries.pop_front();
        }
        self.entries.push_back(LogEntry {
            at,
            text,
            kind,
            msg: None,
        });
        self.total += 1;
    }

    /// Pushes `msg`'s English text (exactly as [`EventLog::push`] would) and keeps `msg`.
    pub fn push_msg(&mut self, at: Micros, kind: LogKind, msg: Msg) {
        self.push(at, kind, msg.english());
        if let Some(last) = self.entries.back_mut() {
            last.msg = Some(msg);
        }
    }

    /// Folds a value into the hash without logging text (record-level steps).
    pub fn fold(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.fold_byte(b);
        }
    }

    fn fold_byte(&mut self, b: u8) {
        self.hash ^= b as u64;
        self.hash = self.hash.wrapping_mul(0x0000_0100_0000_01B3);
    }

    pub fn hash(&self) -> u64 {
        self.hash
    }
}

pub fn bytes(b: u64) -> String {
    format_bytes(b)
}

pub fn dur(d: Micros) -> String {
    format_duration(d)
}

impl LogKind {
    /// The kinds that tell a checkpoint's steps: trigger, barriers, snapshots (end of the
    /// synchronous phase), acknowledgements (end of the asynchronous phase), completion.
    pub const CHECKPOINT_STEPS: &'static [LogKind] =
        &[LogKind::Checkpoint, LogKind::Barrier, LogKind::Snapshot];
}

impl super::runtime::Engine {
    /// Runs event by event until the log gets entries of one of `kinds`, for at most
    /// `limit` of virtual time; returns the matching entries of that one event (empty
    /// when the limit or the end of the run came first). "Next checkpoint step" in the
    /// playground: the run stops right after the step, so the job view shows its effect.
    /// Runs to virtual time `t` ([`Engine::run_until`]) and returns the log entries of
    /// `kinds` it wrote on the way (the checkpoint step's "async phase begins" stop).
    pub fn run_until_logged(&mut self, t: Micros, kinds: &[LogKind]) -> Vec<LogEntry> {
        let seen = self.log.total;
        self.run_until(t);
        let new = (self.log.total - seen) as usize;
        let skip = self.log.entries.len().saturating_sub(new);
        self.log
            .entries
            .iter()
            .skip(skip)
            .filter(|e| kinds.contains(&e.kind))
            .cloned()
            .collect()
    }

    pub fn run_to_next_log(&mut self, kinds: &[LogKind], limit: Micros) -> Vec<LogEntry> {
        let deadline = self.now.saturating_add(limit);
        let mut seen = self.log.total;
        while self.now <= deadline && self.step() {
            let new = (self.log.total - seen) as usize;
            if new > 0 {
                let skip = self.log.entries.len().saturating_sub(new);
                let hits: Vec<LogEntry> = self
                    .log
                    .entries
                    .iter()
                    .skip(skip)
                    .filter(|e| kinds.contains(&e.kind))
                    .cloned()
                    .collect();
                if !hits.is_empty() {
                    return hits;
                }
                seen = self.log.total;
            }
        }
        Vec::new()
    }
}

/// The failure reasons the engine itself gives (`Arg::Word`s the interface translates).
pub const REASONS: &[&str] = &["user-injected failure"];

/// A failure reason as an argument: one of [`REASONS`] as a word, any other as text.
pub fn reason(r: &str) -> Arg {
    REASONS
        .iter()
        .find(|w| **w == r)
        .map_or_else(|| text(r), |w| Arg::Word(w))
}
