//! Every problem of a scenario document, each tied to the operators and edges it
//! concerns — what the job editor outlines in red.
//!
//! Contract: [`problems`] never stops at the first problem. It reads each operator on
//! its own (a field that does not parse is a problem of that operator, which is then
//! checked with its kind's defaults), then runs the engine's own checks
//! (`JobSpec::problems`: the messages and paths `to_spec` reports, in the same order, so
//! when the version, duration, config and events parse — as in every editor draft — the
//! first problem here is the error `to_spec` returns). Each [`Problem`] names its
//! path (`operators[2].parallelism`, `edges[1].partitioner`, `edges` for a cycle) and the
//! operator indices and edge indices it concerns: a cycle names every operator and edge
//! on it. A document with no problems converts with `to_spec`. A problem outside the
//! graph (version, duration, config, events that do not parse) stops the graph checks,
//! since the job cannot be assembled; it concerns no operator. A `guide` that does not
//! fit the job (checked only once the job itself is sound) is a problem too. Size first:
//! a document with more operators, edges, events or config keys than
//! `engine::spec::limits` allows has exactly that one problem, found before any
//! per-operator work.

use super::convert::{operator_spec, unvalidated_spec};
use super::document::{Document, OperatorDoc};
use super::error::ScenarioError;
use crate::engine::log::Msg;

/// One thing wrong with a document, and what it concerns.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub path: String,
    pub message: String,
    /// `message`'s structured form where the check gives one (`SpecError::msg`,
    /// `ScenarioError::msg`): the editor shows it in the viewer's language.
    pub msg: Option<Msg>,
    /// Indices into `Document::operators` this problem concerns.
    pub operators: Vec<usize>,
    /// Indices into `Document::edges` this problem concerns.
    pub edges: Vec<usize>,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The index in `path` after `prefix`: `index_in("edges[3].to", "edges")` is 3.
fn index_in(path: &str, prefix: &str) -> Option<usize> {
    let rest = path.strip_prefix(prefix)?.strip_prefix('[')?;
    rest[..rest.find(']')?].parse().ok()
}

fn problem(path: String, message: String, msg: Option<Msg>, doc: &Document) -> Problem {
    let operators = index_in(&path, "operators")
        .filter(|&i| i < doc.operators.len())
        .into_iter()
        .collect();
    let edges = index_in(&path, "edges")
        .filter(|&i| i < doc.edges.len())
        .into_iter()
        .collect();
    Problem {
        path,
        message,
        msg,
        operators,
        edges,
    }
}

/// A scenario error as a problem of `doc`.
fn error(e: ScenarioError, doc: &Document) -> Problem {
    problem(e.path, e.message, e.msg, doc)
}

/// Every problem of `doc`, in the order `to_spec` would meet them; empty when it runs.
pub fn problems(doc: &Document) -> Vec<Problem> {
    let mut out = Vec::new();
    // Size first: an oversized job gets only that problem, before any per-operator work.
    if let Err(e) = super::convert::check_sizes(doc) {
        out.push(error(e, doc));
        return out;
    }
    let mut patched = doc.clone();
    for (i, o) in doc.operators.iter().enumerate() {
        if let Err(e) = operator_spec(o, &format!("operators[{i}]")) {
            out.push(error(e, doc));
            let mut plain = OperatorDoc::new(o.id.clone(), o.kind);
            plain.parallelism = o.parallelism;
            patched.operators[i] = plain;
        }
    }
    let spec = match unvalidated_spec(&patched) {
        Ok(spec) => spec,
        Err(e) => {
            out.push(error(e, doc));
            return out;
        }
    };
    for e in spec.problems() {
        let mut p = problem(e.path, e.message, e.msg, doc);
        if p.path == "edges" {
            if let Some(cycle) = spec.cycle() {
                p.edges = cycle_edges(doc, &cycle);
                p.operators = cycle;
            }
        }
        out.push(p);
    }
    // A job past the cost limits (checked once it is otherwise sound).
    if out.is_empty() {
        if let Err(e) = super::cost::check(&spec) {
            out.push(error(e, doc));
        }
    }
    // A guide naming an operator the job no longer has (the editor drops the guide of
    // the job it edits, but a hand-written document may carry a stale one).
    if out.is_empty() {
        if let Some(guide) = &doc.guide {
            if let Err(e) = super::guide::check(guide, doc) {
                out.push(error(e, doc));
            }
        }
    }
    out
}

/// The edges joining consecutive operators of `cycle` (and its last to its first).
fn cycle_edges(doc: &Document, cycle: &[usize]) -> Vec<usize> {
    let id = |i: usize| doc.operators[i].id.as_str();
    (0..cycle.len())
        .filter_map(|k| {
            let (a, b) = (id(cycle[k]), id(cycle[(k + 1) % cycle.len()]));
            doc.edges.iter().position(|e| e.from == a && e.to == b)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::index_in;

    #[test]
    fn indices_are_read_from_paths() {
        assert_eq!(index_in("operators[12].cost", "operators"), Some(12));
        assert_eq!(index_in("edges[0]", "edges"), Some(0));
        assert_eq!(index_in("edges", "edges"), None);
        assert_eq!(index_in("events[1].at", "edges"), None);
    }
}
