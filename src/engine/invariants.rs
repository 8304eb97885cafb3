//! Checkers that watch a run: buffer and credit conservation, kept apart from the mechanics
//! they check (as TigerBeetle's VOPR keeps its checkers). Tests call them after every step.

use super::network::Item;
use super::runtime::{Engine, JobStatus};

impl Engine {
    /// Invariants that hold after every event:
    /// - a receiver never holds or is owed more buffers than it owns (credit never exceeded);
    /// - a channel never holds more than its exclusive buffers plus its gate's floating ones;
    /// - each gate's floating buffers are either free or held by exactly one of its channels;
    /// - each output pool's use equals the buffers its subpartitions hold (a local channel's
    ///   include those its consumer has not recycled yet), and stays within
    ///   the pool plus the overdraft allowance.
    pub fn check_invariants(&self) -> Result<(), String> {
        for c in &self.channels {
            c.check_credit_invariant()?;
            let gate = &self.gates[c.gate];
            if c.owned() > c.exclusive + gate.floating_total {
                return Err(format!(
                    "channel {} owns {} buffers, more than exclusive {} + floating {}",
                    c.id,
                    c.owned(),
                    c.exclusive,
                    gate.floating_total
                ));
            }
            let held = c.building.is_some() as u32
                + c.queue
                    .iter()
                    .filter(|i| matches!(i, Item::Data(b) if !b.replayed_input))
                    .count() as u32
                + self.local_unrecycled(c.id);
            if held != c.sender_buffers {
                return Err(format!(
                    "channel {}: subpartition holds {held} buffers, counted {}",
                    c.id, c.sender_buffers
                ));
            }
        }
        for g in &self.gates {
            let held: u32 = g.channels.iter().map(|&c| self.channels[c].floating).sum();
            if held + g.floating_free != g.floating_total {
                return Err(format!(
                    "gate {}: {held} floating held + {} free != {}",
                    g.id, g.floating_free, g.floating_total
                ));
            }
        }
        for p in &self.partitions {
            let held: u32 = p
                .channels
                .iter()
                .map(|&c| self.channels[c].sender_buffers)
                .sum();
            if held != p.used {
                return Err(format!(
                    "partition {}: subpartitions hold {held} buffers, pool counts {}",
                    p.id, p.used
                ));
            }
            let recovered: u32 = p
                .channels
                .iter()
                .map(|&c| {
                    let ch = &self.channels[c];
                    let unread = if ch.is_local() { ch.received.len() } else { 0 };
                    ch.queue
                        .iter()
                        .chain(ch.received.iter().take(unread))
                        .filter(|i| matches!(i, Item::Data(b) if b.recovered))
                        .count() as u32
                })
                .sum();
            if p.used > p.pool_size + p.max_overdraft + recovered {
                return Err(format!(
                    "partition {}: {} buffers in use, pool {} + overdraft {}",
                    p.id, p.used, p.pool_size, p.max_overdraft
                ));
            }
        }
        Ok(())
    }

    /// Producer buffers a local channel's consumer holds: unread in its queue (still the
    /// producer's subpartition) or being deserialized (`LocalInputChannel` recycles them).
    fn local_unrecycled(&self, c: usize) -> u32 {
        let ch = &self.channels[c];
        if !ch.is_local() {
            return 0;
        }
        let unread = ch
            .received
            .iter()
            .filter(|i| matches!(i, Item::Data(b) if !b.replayed_input))
            .count() as u32;
        let t = &self.tasks[ch.to_task];
        let reading = t.current.as_ref().is_some_and(|(cc, _)| *cc == c) && !t.current_recovered;
        unread + reading as u32
    }

    /// After a finished job: every buffer is back in its pool.
    pub fn check_no_leak(&self) -> Result<(), String> {
        if self.status != JobStatus::Finished {
            return Err(format!("job is {:?}, not finished", self.status));
        }
        for p in &self.partitions {
            if p.used != 0 {
                return Err(format!(
                    "partition {} (task {}) still holds {} buffers",
                    p.id, self.tasks[p.task].name, p.used
                ));
            }
        }
        for c in &self.channels {
            if c.received_data != 0 || c.in_flight_data != 0 || !c.received.is_empty() {
                return Err(format!(
                    "channel {} still holds data: received {}, in flight {}",
                    c.id, c.received_data, c.in_flight_data
                ));
            }
        }
        for g in &self.gates {
            if g.floating_free != g.floating_total {
                return Err(format!(
                    "gate {}: {} of {} floating buffers not returned",
                    g.id,
                    g.floating_total - g.floating_free,
                    g.floating_total
                ));
            }
        }
        Ok(())
    }
}
