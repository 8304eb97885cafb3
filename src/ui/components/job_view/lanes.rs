//! The semantic zoom of the job view: whether the lanes are drawn one per channel, every
//! buffer a cell ([`Detail::Channels`], near), or one per operator pair (an edge of the
//! job graph: all its channels summed, [`Detail::Aggregated`], far or large), and what an
//! aggregated lane and a channel's hover text say.
//!
//! Contract: [`detail`] picks `Aggregated` when a buffer cell would be narrower than
//! [`NEAR_CELL_PX`] on the screen, or when the job has more than
//! [`AGGREGATE_ABOVE_CHANNELS`] channels (drawing every channel of a p=128 hash job —
//! 16,384 channels per edge — would freeze the tab); the panel says which and why
//! ([`Detail::reason`]). [`aggregate`] sums, per edge, the channels' backlog (buffers at
//! the sender, on the wire, at the receiver), the credit of the remote channels (a local
//! channel has none: `LocalInputChannel` reads the producer's subpartition directly,
//! Flink 2.x `LocalInputChannel.getNextBuffer`, no `unannouncedCredit`), how many remote
//! channels are credit-starved, the barriers in flight and the channels blocked or
//! persisting. Pure: reads only [`ChannelView`]s.

use crate::engine::network::ChannelKind;
use crate::engine::view::{ChannelView, ItemView};
use crate::ui::i18n::{t, tf};

/// Above this many channels the job view draws aggregated lanes only, whatever the zoom.
/// `large` has 160 channels; a hash edge at parallelism 32 has 1,024.
pub const AGGREGATE_ABOVE_CHANNELS: usize = 600;
/// Below this many screen px per buffer cell the view is "far": aggregated lanes.
pub const NEAR_CELL_PX: f64 = 4.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Every channel, every buffer.
    Channels,
    /// One lane per edge (operator pair).
    Aggregated(AggregateReason),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggregateReason {
    /// Zoomed out: cells would be too small to see.
    Far,
    /// More than [`AGGREGATE_ABOVE_CHANNELS`] channels.
    Large,
}

impl Detail {
    /// `channels` / `aggregated` (the lane canvas's `data-detail`).
    pub fn name(self) -> &'static str {
        match self {
            Detail::Channels => "channels",
            Detail::Aggregated(_) => "aggregated",
        }
    }

    /// What the view says about it (None: every channel is drawn).
    pub fn reason(self, channels: usize) -> Option<String> {
        match self {
            Detail::Channels => None,
            Detail::Aggregated(AggregateReason::Far) => Some(
                t("Zoomed out: one lane per operator pair (summed). Zoom in to see every channel and buffer.").into(),
            ),
            Detail::Aggregated(AggregateReason::Large) => Some(tf(
                "{0} channels: more than {1}, so one lane per operator pair (summed) at every zoom.",
                &[&channels, &AGGREGATE_ABOVE_CHANNELS],
            )),
        }
    }
}

/// The level of detail for `channels` channels at `cell_px` screen px per buffer cell.
pub fn detail(channels: usize, cell_px: f64) -> Detail {
    if channels > AGGREGATE_ABOVE_CHANNELS {
        Detail::Aggregated(AggregateReason::Large)
    } else if cell_px < NEAR_CELL_PX {
        Detail::Aggregated(AggregateReason::Far)
    } else {
        Detail::Channels
    }
}

/// One edge's channels, summed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AggLane {
    pub edge: usize,
    pub channels: u32,
    pub local: u32,
    pub remote: u32,
    /// Data buffers queued at the senders (the buffer being filled included).
    pub at_sender: u64,
    pub on_wire: u64,
    pub at_receiver: u64,
    /// Credit of the remote channels (local channels have none).
    pub credit: u64,
    /// Remote channels with data queued and no credit: backpressure.
    pub starved: u32,
    /// Barriers anywhere in the edge's queues; how many of them unaligned.
    pub barriers: u32,
    pub unaligned_barriers: u32,
    pub blocked: u32,
    pub persisting: u32,
    /// Buffers captured for an unaligned checkpoint / recovered after a failure.
    pub captured: u64,
    pub recovered: u64,
}

impl AggLane {
    pub fn backlog(&self) -> u64 {
        self.at_sender + self.on_wire + self.at_receiver
    }
}

/// A remote channel with data queued and no credit.
pub fn starved(v: &ChannelView) -> bool {
    v.kind == ChannelKind::Remote && v.credit == 0 && !v.sender.is_empty()
}

/// Per edge (index = edge id, `edges` of them), its channels summed.
pub fn aggregate(channels: &[ChannelView], edges: usize) -> Vec<AggLane> {
    let mut out: Vec<AggLane> = (0..edges)
        .map(|edge| AggLane {
            edge,
            ..AggLane::default()
        })
        .collect();
    for v in channels {
        if v.edge >= out.len() {
            out.resize_with(v.edge + 1, AggLane::default);
            let n = out.len();
            out[n - 1].edge = n - 1;
        }
        let a = &mut out[v.edge];
        a.channels += 1;
        match v.kind {
            ChannelKind::Local => a.local += 1,
            ChannelKind::Remote => {
                a.remote += 1;
                a.credit += u64::from(v.credit);
            }
        }
        a.starved += u32::from(starved(v));
        a.blocked += u32::from(v.blocked_at_receiver || v.sender_blocked);
        a.persisting += u32::from(v.persisting);
        let mut count = |items: &mut dyn Iterator<Item = &ItemView>, data: &mut u64| {
            for item in items {
                match item {
                    ItemView::Data {
                        captured,
                        recovered,
                        ..
                    } => {
                        *data += 1;
                        a.captured += u64::from(*captured);
                        a.recovered += u64::from(*recovered);
                    }
                    ItemView::Barrier { unaligned, .. } => {
                        a.barriers += 1;
                        a.unaligned_barriers += u32::from(*unaligned);
                    }
                    _ => {}
                }
            }
        };
        let (mut s, mut w, mut r) = (0, 0, 0);
        count(&mut v.building.iter().chain(&v.sender), &mut s);
        count(&mut v.wire.iter(), &mut w);
        count(&mut v.receiver.iter(), &mut r);
        a.at_sender += s;
        a.on_wire += w;
        a.at_receiver += r;
    }
    out
}

/// The kind of a channel as the view names it.
pub fn kind_name(kind: ChannelKind) -> &'static str {
    match kind {
        ChannelKind::Local => "local",
        ChannelKind::Remote => "remote",
    }
}

fn data_buffers<'a>(items: impl IntoIterator<Item = &'a ItemView>) -> usize {
    items
        .into_iter()
        .filter(|i| matches!(i, ItemView::Data { .. }))
        .count()
}

/// The first line of a channel's hover text: kind, credit, backlog (data buffers),
/// buffers the input channel owns.
pub fn channel_summary(v: &ChannelView) -> String {
    let queued = data_buffers(v.building.iter().chain(&v.sender));
    let (wire, receiver) = (data_buffers(&v.wire), data_buffers(&v.receiver));
    let credit = match v.kind {
        ChannelKind::Local => "no credit (local: reads the producer's subpartition)".to_string(),
        ChannelKind::Remote => format!("credit {}", v.credit),
    };
    let buffers = match v.kind {
        ChannelKind::Local => String::new(),
        ChannelKind::Remote => format!(" (exclusive {}, floating {})", v.exclusive, v.floating),
    };
    format!(
        "channel {} · {} · {credit}; backlog {} (sender {queued}, wire {}, receiver {}){buffers}",
        v.id,
        kind_name(v.kind),
        queued + wire + receiver,
        wire,
        receiver,
    )
}

/// The hover text of an aggregated lane, `from → to` naming its operators.
pub fn aggregate_summary(a: &AggLane, from: &str, to: &str) -> String {
    let mut s = format!(
        "{from} → {to}: {} channels ({} local, {} remote) · backlog {} (sender {}, wire {}, receiver {}) · credit {} (remote only)",
        a.channels,
        a.local,
        a.remote,
        a.backlog(),
        a.at_sender,
        a.on_wire,
        a.at_receiver,
        a.credit,
    );
    if a.starved > 0 {
        s.push_str(&format!(" · {} without credit", a.starved));
    }
    if a.barriers > 0 {
        s.push_str(&format!(
            " · {} barriers in flight ({} unaligned)",
            a.barriers, a.unaligned_barriers
        ));
    }
    if a.blocked > 0 {
        s.push_str(&format!(" · {} blocked", a.blocked));
    }
    if a.persisting > 0 {
        s.push_str(&format!(" · {} persisting", a.persisting));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::config::BarrierKind;

    fn data() -> ItemView {
        ItemView::Data {
            bytes: 10,
            capacity: 100,
            records: 1,
            captured: false,
            recovered: false,
        }
    }

    fn channel(id: usize, edge: usize, kind: ChannelKind, credit: u32) -> ChannelView {
        ChannelView {
            id,
            edge,
            from_task: 0,
            to_task: 1,
            kind,
            building: None,
            sender: vec![data(), data()],
            wire: vec![ItemView::Barrier {
                id: 3,
                unaligned: true,
                kind: BarrierKind::Unaligned,
            }],
            receiver: vec![data()],
            credit,
            sender_blocked: false,
            blocked_at_receiver: false,
            exclusive: 2,
            floating: 0,
            persisting: false,
            closed: false,
        }
    }

    #[test]
    fn detail_by_zoom_and_size() {
        assert_eq!(detail(160, 6.0), Detail::Channels);
        assert_eq!(detail(160, 2.0), Detail::Aggregated(AggregateReason::Far));
        assert_eq!(
            detail(AGGREGATE_ABOVE_CHANNELS + 1, 40.0),
            Detail::Aggregated(AggregateReason::Large)
        );
        assert!(detail(16_384, 40.0)
            .reason(16_384)
            .unwrap()
            .contains("16384 channels"));
        assert_eq!(Detail::Channels.reason(3), None);
    }

    #[test]
    fn sums_per_edge_and_local_channels_have_no_credit() {
        let views = vec![
            channel(0, 0, ChannelKind::Remote, 0),
            channel(1, 0, ChannelKind::Local, 0),
            channel(2, 1, ChannelKind::Remote, 2),
        ];
        let agg = aggregate(&views, 2);
        assert_eq!(agg.len(), 2);
        let a = &agg[0];
        assert_eq!((a.channels, a.local, a.remote), (2, 1, 1));
        assert_eq!((a.at_sender, a.on_wire, a.at_receiver), (4, 0, 2));
        assert_eq!(a.backlog(), 6);
        assert_eq!((a.barriers, a.unaligned_barriers), (2, 2));
        // Only the remote channel with data and no credit is starved; the local one,
        // with its credit field 0, is not.
        assert_eq!(a.starved, 1);
        assert_eq!(agg[1].credit, 2);
        assert!(starved(&views[0]) && !starved(&views[1]));
        let local = channel_summary(&views[1]);
        assert!(
            local.contains("local") && local.contains("no credit"),
            "{local}"
        );
        assert!(!local.contains("credit 0"), "{local}");
        let remote = channel_summary(&views[2]);
        assert!(
            remote.contains("remote · credit 2") && remote.contains("backlog 3"),
            "{remote}"
        );
        let text = aggregate_summary(a, "map", "agg");
        assert!(
            text.starts_with("map → agg: 2 channels (1 local, 1 remote) · backlog 6"),
            "{text}"
        );
        assert!(
            text.contains("1 without credit") && text.contains("2 barriers in flight"),
            "{text}"
        );
    }
}
