//! The engine (stub with the final public API; the real executor lands next).

use super::report::{Report, SinkRecord};
use super::spec::{Action, JobSpec, SpecError, TimedAction};
use super::time::Micros;

pub struct Engine {
    spec: JobSpec,
    now: Micros,
}

impl Engine {
    pub fn new(spec: JobSpec) -> Result<Engine, SpecError> {
        spec.validate()?;
        Ok(Engine { spec, now: 0 })
    }
    pub fn spec(&self) -> &JobSpec {
        &self.spec
    }
    pub fn now(&self) -> Micros {
        self.now
    }
    /// Runs the next event; false when the run is over.
    pub fn step(&mut self) -> bool {
        false
    }
    pub fn run_until(&mut self, t: Micros) {
        self.now = t.min(self.spec.duration);
    }
    pub fn run_to_end(&mut self) {
        self.run_until(self.spec.duration)
    }
    pub fn is_done(&self) -> bool {
        self.now >= self.spec.duration
    }
    /// Applies a user action now and records it in the spec's timeline (so a link replays it).
    pub fn apply(&mut self, action: Action) -> Result<(), SpecError> {
        self.spec.events.push(TimedAction {
            at: self.now,
            action,
        });
        Ok(())
    }
    pub fn report(&self) -> Report {
        Report {
            name: self.spec.name.clone(),
            seed: self.spec.seed,
            ..Default::default()
        }
    }
    pub fn sink_output(&self) -> Vec<SinkRecord> {
        Vec::new()
    }
    pub fn event_hash(&self) -> u64 {
        0
    }
}
