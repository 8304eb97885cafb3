//! Flink's network stack as plain data: buffers, events, result subpartitions, input
//! channels, buffer pools and credit-based flow control.
//!
//! A [`Channel`] is one producer→consumer connection: the sender half is the result
//! subpartition (its queue of finished buffers and events, the buffer being filled, the
//! credit it holds, whether an aligned barrier blocked it), the middle is the wire (what is
//! in flight), the receiver half is the remote input channel (received buffers, exclusive
//! and floating buffers it owns, channel-state persistence for unaligned checkpoints).
//!
//! A channel between subtasks of one TaskManager is [`ChannelKind::Local`] (Flink 2.x
//! `LocalInputChannel`): it has no wire, no credit and no receiver buffers — what its
//! `received` queue holds is still the producer's subpartition (`PipelinedSubpartitionView`
//! read in place), counted in the producer's pool until the consumer recycles it.
//!
//! Credit accounting invariant (checked by [`Channel::check_credit_invariant`]): the
//! buffers a receiver channel owns (`exclusive + floating`) are each in exactly one place —
//! holding received data, carrying data on the wire, or free; free buffers are credit,
//! either held by the sender or travelling to it. A sender sends a data buffer only
//! against credit; events need none.

use super::config::BarrierKind;
pub use super::physical_plan::ChannelKind;
use super::record::Record;
use super::time::Micros;
use serde::Serialize;
use std::collections::VecDeque;

/// A network buffer: a byte capacity and the whole records that end in it.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// Unique per run, so the UI can follow a buffer from queue to queue.
    pub id: u64,
    pub records: Vec<Record>,
    pub bytes: u32,
    pub capacity: u32,
    /// Captured as channel state of this checkpoint (unaligned), to be persisted.
    pub captured: Option<u64>,
    /// Restored from channel state during recovery (input or output side; for display).
    pub recovered: bool,
    /// Restored input channel state, held outside credit accounting until read.
    pub replayed_input: bool,
    /// Arrival sequence number at the receiving channel (Flink's buffer sequence number).
    pub seq: u64,
}

/// The record lists of consumed buffers, kept empty for the next buffers a producer
/// requests, so a buffer's list is allocated once per run rather than once per buffer.
///
/// Flink recycles the buffer's memory segment itself (`LocalBufferPool.recycle`); here the
/// segment is the pool's count ([`Partition::used`]) and this is only the host's memory:
/// which list a buffer gets changes nothing in a run. A clone (a time-travel snapshot)
/// starts with no spares, so a snapshot holds no idle memory.
#[derive(Debug, Default)]
pub struct RecordLists {
    spare: Vec<Vec<Record>>,
}

impl RecordLists {
    /// At most this many spares are kept (the rest are freed).
    const KEEP: usize = 1024;

    /// An empty list with room for at least `capacity` records.
    pub fn take(&mut self, capacity: usize) -> Vec<Record> {
        match self.spare.pop() {
            Some(mut list) => {
                list.reserve(capacity);
                list
            }
            None => Vec::with_capacity(capacity),
        }
    }

    /// Gives back a consumed buffer's list (its records, if any are left, are dropped).
    pub fn give(&mut self, list: VecDeque<Record>) {
        if self.spare.len() < Self::KEEP && list.capacity() > 0 {
            let mut list = Vec::from(list);
            list.clear();
            self.spare.push(list);
        }
    }
}

impl Clone for RecordLists {
    fn clone(&self) -> Self {
        RecordLists::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Barrier {
    pub id: u64,
    /// Trigger time at the checkpoint coordinator (Flink's `barrier.timestamp`).
    pub timestamp: Micros,
    /// The alignment this barrier carries on this edge (forced aligned on pointwise edges).
    pub kind: BarrierKind,
    /// The checkpoint's own kind, restored by the receiving task for its outputs.
    pub original: BarrierKind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Event {
    Barrier(Barrier),
    CancelCheckpointMarker(u64),
    EndOfPartition,
}

/// What travels through a channel.
#[derive(Clone, Debug)]
pub enum Item {
    Data(Buffer),
    /// `priority` events overtake queued data (unaligned barriers).
    Event {
        event: Event,
        priority: bool,
    },
}

impl Item {
    pub fn is_data(&self) -> bool {
        matches!(self, Item::Data(_))
    }
    pub fn is_priority(&self) -> bool {
        matches!(self, Item::Event { priority: true, .. })
    }
}

/// Inserts a priority event at the head of a queue, behind earlier priority events
/// (Flink's `PrioritizedDeque`).
pub fn push_priority(queue: &mut VecDeque<Item>, event: Event) {
    let pos = queue.iter().take_while(|i| i.is_priority()).count();
    queue.insert(
        pos,
        Item::Event {
            event,
            priority: true,
        },
    );
}

/// Something on the wire, in order of arrival.
#[derive(Clone, Debug)]
pub struct InFlight {
    pub arrives: Micros,
    pub item: Item,
    /// The sender's backlog at send time (data buffers still queued), piggybacked on data.
    pub backlog: u32,
}

/// Unaligned-checkpoint persistence state of an input channel (Flink's `ChannelStatePersister`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Persist {
    Idle,
    /// Checkpoint started, this channel's barrier not yet here: persist each arriving buffer.
    BarrierPending(u64),
    /// This channel's barrier arrived: later buffers belong to the next checkpoint.
    BarrierReceived(u64),
}

#[derive(Clone, Debug)]
pub struct Channel {
    pub id: usize,
    pub edge: usize,
    pub from_task: usize,
    pub to_task: usize,
    pub partition: usize,
    pub gate: usize,
    /// Local (same TaskManager, `LocalInputChannel`) or remote (credit-based, Netty).
    pub kind: ChannelKind,
    // ---- sender: result subpartition ----
    pub queue: VecDeque<Item>,
    pub building: Option<Buffer>,
    /// Buffers of the producer's pool held by this subpartition (building + queued data).
    pub sender_buffers: u32,
    /// An aligned barrier was sent; nothing more until the consumer resumes consumption.
    pub blocked: bool,
    pub credit: u32,
    pub backlog_announced: bool,
    /// The consumer still replays recovered input of this channel: hold new data back.
    pub held_for_recovery: bool,
    /// Buffer size announced by the consumer's debloater (bytes).
    pub buffer_size: u32,
    // ---- wire ----
    pub in_flight: VecDeque<InFlight>,
    pub in_flight_data: u32,
    pub credit_in_transit: u32,
    /// Bumped when the receiver revokes credit (alignment block); older credit is void.
    pub credit_epoch: u32,
    // ---- receiver: input channel ----
    pub received: VecDeque<Item>,
    /// Data buffers held by the receiver (received, or being deserialized by the task).
    pub received_data: u32,
    pub exclusive: u32,
    pub floating: u32,
    /// Latest backlog the sender reported.
    pub sender_backlog: u32,
    pub waiting_for_floating: bool,
    /// The barrier handler blocked this channel (`ChannelState.blockChannel`) until the
    /// alignment ends; the sender's subpartition is blocked, so nothing new arrives.
    pub blocked_at_receiver: bool,
    pub eop_received: bool,
    /// This channel is in its consumer task's `channels_with_data` (so listing it is a
    /// flag test, not a search of the list: O(1) per arriving buffer at any fan-in).
    pub listed_with_data: bool,
    pub closed: bool,
    pub persist: Persist,
    pub recovered_buffers: u32,
    /// Sequence number the next arriving data buffer gets.
    pub next_seq: u64,
    /// A priority (unaligned) barrier arrived: (checkpoint, sequence number at its arrival).
    /// Data buffers numbered below it were sent before it; the ones after it were overtaken
    /// at the sender and belong to the sender's channel state, not this one's.
    pub priority_boundary: Option<(u64, u64)>,
}

impl Channel {
    pub fn new(
        id: usize,
        edge: usize,
        from_task: usize,
        to_task: usize,
        partition: usize,
        gate: usize,
    ) -> Self {
        Channel {
            id,
            edge,
            from_task,
            to_task,
            partition,
            gate,
            kind: ChannelKind::Remote,
            queue: VecDeque::new(),
            building: None,
            sender_buffers: 0,
            blocked: false,
            credit: 0,
            backlog_announced: false,
            held_for_recovery: false,
            buffer_size: 0,
            in_flight: VecDeque::new(),
            in_flight_data: 0,
            credit_in_transit: 0,
            credit_epoch: 0,
            received: VecDeque::new(),
            received_data: 0,
            exclusive: 0,
            floating: 0,
            sender_backlog: 0,
            waiting_for_floating: false,
            blocked_at_receiver: false,
            eop_received: false,
            listed_with_data: false,
            closed: false,
            persist: Persist::Idle,
            recovered_buffers: 0,
            next_seq: 0,
            priority_boundary: None,
        }
    }

    pub fn is_local(&self) -> bool {
        self.kind == ChannelKind::Local
    }

    /// Data buffers queued at the sender, excluding the one being filled (Flink's backlog).
    pub fn backlog(&self) -> u32 {
        self.queue.iter().filter(|i| i.is_data()).count() as u32
    }

    /// Buffers the receiver owns.
    pub fn owned(&self) -> u32 {
        self.exclusive + self.floating
    }

    /// Free receiver buffers not yet announced as credit.
    pub fn unannounced_credit(&self) -> u32 {
        self.owned().saturating_sub(
            self.credit + self.credit_in_transit + self.in_flight_data + self.received_data,
        )
    }

    /// Receiver buffers not holding data (credited or not).
    pub fn free_buffers(&self) -> u32 {
        self.owned()
            .saturating_sub(self.in_flight_data + self.received_data)
    }

    /// Every owned buffer is in exactly one place, and nothing was sent without credit.
    pub fn check_credit_invariant(&self) -> Result<(), String> {
        let accounted =
            self.credit + self.credit_in_transit + self.in_flight_data + self.received_data;
        if accounted > self.owned() {
            return Err(format!(
                "channel {}: credit {} + in transit {} + in flight {} + received {} exceeds owned buffers {} (exclusive {} + floating {})",
                self.id, self.credit, self.credit_in_transit, self.in_flight_data, self.received_data,
                self.owned(), self.exclusive, self.floating
            ));
        }
        let data_on_wire = self.in_flight.iter().filter(|f| f.item.is_data()).count() as u32;
        if data_on_wire != self.in_flight_data {
            return Err(format!(
                "channel {}: wire holds {data_on_wire} data buffers, counted {}",
                self.id, self.in_flight_data
            ));
        }
        Ok(())
    }
}

/// A producer's result partition for one outgoing edge: one subpartition (channel) per
/// consumer it connects to, and the local buffer pool they share.
#[derive(Clone, Debug)]
pub struct Partition {
    pub id: usize,
    pub task: usize,
    pub edge: usize,
    pub channels: Vec<usize>,
    /// Buffers of the pool: `subpartitions × buffers-per-channel + floating-per-gate`.
    pub pool_size: u32,
    /// Buffers in use (being filled or queued); above `pool_size` means overdraft.
    pub used: u32,
    pub max_overdraft: u32,
    /// Round-robin position for rebalance/rescale.
    pub next_channel: usize,
}

impl Partition {
    pub fn overdraft_in_use(&self) -> u32 {
        self.used.saturating_sub(self.pool_size)
    }
}

/// A consumer's input gate for one incoming edge: its channels and the floating buffers
/// they share.
#[derive(Clone, Debug)]
pub struct Gate {
    pub id: usize,
    pub task: usize,
    pub edge: usize,
    pub channels: Vec<usize>,
    pub floating_total: u32,
    pub floating_free: u32,
    /// Channels waiting for a floating buffer, first come first served.
    pub waiting: VecDeque<usize>,
    /// Bytes the task consumed from this gate (buffer debloating's throughput input).
    pub bytes_consumed: u64,
    /// The debloater's current buffer size (exponential moving average), bytes.
    pub debloat_size: u32,
}

/// A snapshot of a buffer for views: size, fill and highlight.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BufferView {
    pub bytes: u32,
    pub capacity: u32,
    pub records: u32,
    pub captured: bool,
    pub recovered: bool,
}
