//! Local input channels and per-TaskManager channel-state writers at runtime (issue 13
//! items 3 and 4): channel kinds from the physical plan, backpressure through the
//! producer's pool alone (Flink's `LocalInputChannelTest`), what an unaligned checkpoint
//! captures for a local channel (the producer's output state, not the consumer's input),
//! coupled acknowledgements of a shared channel-state file
//! (`ChannelStateCheckpointWriter`), and exactly-once through failures with no leaked buffer.

mod common;
use checkpoint_playground::engine::config::EngineConfig;
use checkpoint_playground::engine::network::{ChannelKind, Item};
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::{Engine, JobStatus};
use common::*;

/// A version-2 job (Flink's defaults: 1 slot per TaskManager, 32 KB segments).
fn v2_job(
    config: &[(&str, &str)],
    operators: Vec<OperatorSpec>,
    edges: Vec<EdgeSpec>,
    duration: &str,
) -> JobSpec {
    let mut c = EngineConfig::default();
    for (k, v) in config {
        c.set(k, v).unwrap();
    }
    JobSpec {
        name: "local channels".into(),
        seed: 11,
        duration: d(duration),
        config: c,
        operators,
        edges,
        events: vec![],
    }
}

/// The mirror job: source(2) → rebalance → slow sink(2); 1 slot per TaskManager,
/// so each TaskManager runs one source and one sink subtask.
fn mirror(config: &[(&str, &str)], records: Option<u64>, delivery: SinkDelivery) -> JobSpec {
    let mut src = source("src", 2, 20_000.0, records);
    if let OperatorKind::Source(s) = &mut src.kind {
        s.record_size = 1014;
    }
    v2_job(
        config,
        vec![src, sink("out", 2, "2100us", delivery)],
        vec![edge("src", "out", Partitioner::Rebalance)],
        "20s",
    )
}

fn local_channels(e: &Engine) -> Vec<usize> {
    e.channels
        .iter()
        .filter(|c| c.kind == ChannelKind::Local)
        .map(|c| c.id)
        .collect()
}

#[test]
fn each_consumer_of_the_mirror_job_has_one_local_and_one_remote_input() {
    let e = Engine::new(mirror(&[], None, SinkDelivery::AtLeastOnce)).unwrap();
    let r = e.report();
    let sinks: Vec<_> = r
        .input_channels
        .iter()
        .filter(|s| s.operator == "out")
        .map(|s| (s.subtask, s.local_inputs, s.remote_inputs))
        .collect();
    assert_eq!(sinks, vec![(0, 1, 1), (1, 1, 1)]);
    // Local: the producer runs in the consumer's TaskManager; no credit, no buffers.
    for c in &e.channels {
        let same = e.tasks[c.from_task].index == e.tasks[c.to_task].index;
        assert_eq!(c.kind == ChannelKind::Local, same, "channel {}", c.id);
        if c.kind == ChannelKind::Local {
            assert_eq!((c.exclusive, c.credit, c.floating), (0, 0, 0));
        } else {
            assert_eq!(c.exclusive, 2);
        }
    }
    // The view the UI reads tells them apart.
    let kinds: Vec<_> = e.channel_views().iter().map(|v| v.kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == ChannelKind::Local).count(),
        2
    );
}

#[test]
fn version_1_documents_keep_every_channel_remote() {
    let spec = job(
        "v1",
        "1s",
        &[],
        vec![
            source("src", 2, 1000.0, None),
            sink("out", 2, "1ms", SinkDelivery::AtLeastOnce),
        ],
        vec![edge("src", "out", Partitioner::Rebalance)],
    );
    let e = Engine::new(spec).unwrap();
    assert!(local_channels(&e).is_empty());
    assert!(e
        .report()
        .input_channels
        .iter()
        .all(|s| s.local_inputs == 0));
}

/// `LocalInputChannelTest` (backpressure through the producer's `LocalBufferPool`): under
/// backpressure a local channel's consumer holds no buffer of its own, the producer's
/// subpartition holds at most `max-buffers-per-channel` (plus what the consumer is reading
/// and the overdraft), and the pool stays within its size plus overdraft. Remote channels
/// meanwhile fill their receiver's exclusive and floating buffers.
#[test]
fn local_backpressure_runs_through_the_producer_pool_alone() {
    let mut e = Engine::new(mirror(&[], None, SinkDelivery::AtLeastOnce)).unwrap();
    let locals = local_channels(&e);
    let max_per_channel = e.config.max_buffers_per_channel;
    let mut saw_full_local = false;
    let mut saw_remote_receiver_data = false;
    while e.step() && e.now < d("5s") {
        e.check_invariants().unwrap();
        for &c in &locals {
            let ch = &e.channels[c];
            assert_eq!((ch.received_data, ch.owned(), ch.credit), (0, 0, 0));
            assert!(ch.in_flight.is_empty(), "a local channel has no wire");
            let part = &e.partitions[ch.partition];
            assert!(part.used <= part.pool_size + part.max_overdraft);
            // `max-buffers-per-channel` makes the pool unavailable; a record already being
            // written may still take its buffer (and the overdraft).
            assert!(ch.sender_buffers <= max_per_channel + 1 + part.max_overdraft);
            let unread = ch.received.iter().filter(|i| i.is_data()).count() as u32;
            if unread + 1 >= max_per_channel {
                saw_full_local = true;
            }
        }
        if e.channels
            .iter()
            .any(|c| c.kind == ChannelKind::Remote && c.received_data > c.exclusive)
        {
            saw_remote_receiver_data = true;
        }
    }
    assert!(
        saw_full_local,
        "the local subpartition never filled up to max-buffers-per-channel"
    );
    assert!(
        saw_remote_receiver_data,
        "remote channels never used floating buffers"
    );
}

/// `LocalInputChannel.checkpointStarted` persists nothing and the producer's priority
/// barrier takes what the consumer has not read as output state
/// (`PipelinedSubpartition.processPriorityBuffer`); a remote channel's receiver buffers are
/// the consumer's input state (`RemoteInputChannel.checkpointStarted`).
#[test]
fn an_unaligned_checkpoint_captures_a_local_channels_data_at_the_producer() {
    let spec = mirror(
        &[
            ("execution.checkpointing.interval", "1s"),
            ("execution.checkpointing.unaligned.enabled", "true"),
        ],
        None,
        SinkDelivery::AtLeastOnce,
    );
    let mut e = Engine::new(spec).unwrap();
    let locals = local_channels(&e);
    let mut checked = 0;
    while e.step() && e.now < d("6s") {
        for t in 0..e.tasks.len() {
            for cp in e.tasks[t].checkpoints.values() {
                if cp.acked_at.is_none() || cp.sync_end.is_none() {
                    continue;
                }
                let is_sink = e.tasks[t].inputs.len() == 2;
                if is_sink {
                    let local_in: usize = locals
                        .iter()
                        .filter_map(|c| cp.input_state.get(c))
                        .map(|r| r.len())
                        .sum();
                    let remote_in: usize = cp
                        .input_state
                        .iter()
                        .filter(|(c, _)| !locals.contains(c))
                        .map(|(_, r)| r.len())
                        .sum();
                    // The local barrier is at the head at once, before the remote one
                    // has crossed the network: of the local channel only the buffer being
                    // deserialized is input (`StreamTaskNetworkInput.prepareSnapshot`),
                    // nothing the channel still holds.
                    let one_buffer = (e.config.segment_size / 1014 + 1) as usize;
                    assert!(
                        local_in <= one_buffer,
                        "checkpoint {}: {local_in} local input records captured",
                        cp.id
                    );
                    assert!(remote_in > 0, "checkpoint {}: remote input empty", cp.id);
                } else {
                    let local_out: usize = locals
                        .iter()
                        .filter_map(|c| cp.output_state.get(c))
                        .map(|r| r.len())
                        .sum();
                    assert!(local_out > 0, "checkpoint {}: no local output state", cp.id);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no checkpoint was acknowledged");
}

/// `ChannelStateCheckpointWriter`: subtasks sharing an executor acknowledge together, when
/// the file completes. One TaskManager with 4 slots holds every subtask (one file of 4
/// sharers with the default 5): each checkpoint's acknowledgements with channel state come
/// at one instant.
#[test]
fn sharers_of_a_channel_state_file_acknowledge_together() {
    let spec = |coupled: &str| {
        let mut s = mirror(
            &[
                ("execution.checkpointing.interval", "1s"),
                ("execution.checkpointing.unaligned.enabled", "true"),
                ("taskmanager.numberOfTaskSlots", "4"),
                ("playground.channel-state.writers-per-taskmanager", coupled),
            ],
            None,
            SinkDelivery::AtLeastOnce,
        );
        s.duration = d("8s");
        s
    };
    let ack_spread = |coupled: &str| {
        let mut e = Engine::new(spec(coupled)).unwrap();
        while e.step() {}
        assert_eq!(e.writers.len(), 1, "4 subtasks, 5 per file: one writer");
        let r = e.report();
        let mut spreads = Vec::new();
        for c in r.checkpoints.iter().filter(|c| c.status == "completed") {
            let acks: Vec<f64> = c
                .subtasks
                .iter()
                .filter(|s| s.persisted_inflight_bytes > 0)
                .filter_map(|s| s.ack_ms)
                .collect();
            if acks.len() >= 2 {
                let max = acks.iter().cloned().fold(f64::MIN, f64::max);
                let min = acks.iter().cloned().fold(f64::MAX, f64::min);
                spreads.push(max - min);
            }
        }
        assert!(!spreads.is_empty(), "no checkpoint with channel state");
        spreads
    };
    assert!(
        ack_spread("true").iter().all(|s| *s == 0.0),
        "coupled acks: {:?}",
        ack_spread("true")
    );
    assert!(
        ack_spread("false").iter().any(|s| *s > 0.0),
        "without coupling the acks should spread"
    );
}

/// Exactly-once through a failure of a consumer and of a producer with local channels, in
/// aligned and unaligned mode, at six seeds and failure times (each message names its
/// seed), every invariant after every step, no buffer left behind.
#[test]
fn exactly_once_through_failures_with_local_channels_and_no_leak() {
    for seed in 0..6u64 {
        for (mode, unaligned) in [("aligned", "false"), ("unaligned", "true")] {
            for (operator, subtask) in [("out", 0), ("src", 1)] {
                let mut spec = mirror(
                    &[
                        ("execution.checkpointing.interval", "500ms"),
                        ("execution.checkpointing.unaligned.enabled", unaligned),
                        ("restart-strategy.type", "fixed-delay"),
                        ("restart-strategy.fixed-delay.delay", "100ms"),
                        ("taskmanager.memory.segment-size", "4kb"),
                    ],
                    Some(1_500),
                    SinkDelivery::TwoPhaseCommit,
                );
                spec.duration = d("60s");
                spec.seed = 11 + seed;
                spec.events.push(TimedAction {
                    at: d("1700ms") + seed * 137_000,
                    action: Action::Fail {
                        operator: operator.into(),
                        subtask,
                    },
                });
                let what = format!("{mode}, {operator}#{subtask} fails (seed {})", spec.seed);
                let mut e = Engine::new(spec).unwrap();
                assert!(!local_channels(&e).is_empty());
                while e.step() {
                    if let Err(m) = e.check_invariants() {
                        panic!("{what}: {m}");
                    }
                }
                assert_eq!(e.status, JobStatus::Finished, "{what}: did not finish");
                assert!(!e.failures.is_empty(), "{what}: no failure");
                e.check_no_leak().unwrap_or_else(|m| panic!("{what}: {m}"));
                for c in &e.channels {
                    assert!(
                        !c.received.iter().any(Item::is_data),
                        "{what}: channel {} holds data",
                        c.id
                    );
                }
                let v = e.sink_verdict(1);
                assert!(
                    v.exactly_once,
                    "{what}: {} duplicates, {} lost",
                    v.duplicates, v.lost
                );
            }
        }
    }
}
