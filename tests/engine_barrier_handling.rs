//! Barrier handling in a whole engine, where the component tests in
//! `src/engine/barrier_handler.rs` cannot reach (issue 14, items 1, 2, 5, 6): processed
//! in-flight data for every handler, an expiry that does not end alignment at the task,
//! which edges stay aligned with `unaligned.forced`, and what blocking on an aligned barrier
//! does to credit.

mod common;
use checkpoint_playground::engine::spec::*;
use checkpoint_playground::engine::Engine;
use common::*;

/// [`backpressured_job`] over 12s.
fn backpressured(config: &[(&str, &str)], sink_cost: &str) -> JobSpec {
    backpressured_job(config, sink_cost, "12s")
}

/// Processed in-flight bytes of the completed checkpoints, all and the unaligned ones.
fn processed_bytes(spec: JobSpec) -> (u64, u64) {
    let mut e = Engine::new(spec).unwrap();
    e.run_to_end();
    let cps = e.report().checkpoints;
    let done = cps.iter().filter(|c| c.status == "completed");
    let all = done.clone().map(|c| c.processed_inflight_bytes).sum();
    let unaligned = done
        .filter(|c| c.unaligned)
        .map(|c| c.processed_inflight_bytes)
        .sum();
    (all, unaligned)
}

#[test]
fn processed_inflight_data_is_counted_by_every_handler() {
    // `CheckpointedInputGate.pollNext` → `addProcessedBytes` between `markAlignmentStart`
    // and `markAlignmentEnd`, whatever the handler: the aligned one, the alternating one
    // with unaligned barriers (its input side lasts until the last barrier), and the
    // at-least-once tracker.
    let (aligned, _) = processed_bytes(backpressured(&[], "1500us"));
    // The `unaligned` preset: its barriers from the two sources reach `explode` at
    // different times, and the buffers polled in between count (0 before issue 14).
    let doc = checkpoint_playground::scenario::preset("unaligned").unwrap();
    let (_, unaligned) = processed_bytes(checkpoint_playground::scenario::to_spec(&doc).unwrap());
    let (at_least_once, _) = processed_bytes(backpressured(
        &[("execution.checkpointing.mode", "AT_LEAST_ONCE")],
        "1500us",
    ));
    assert!(aligned > 0, "aligned: {aligned}");
    assert!(unaligned > 0, "unaligned: {unaligned}");
    assert!(at_least_once > 0, "at-least-once: {at_least_once}");
}

#[test]
fn an_expired_checkpoint_keeps_its_alignment_and_is_skipped_when_its_barriers_are_in() {
    // why-uc: aligned checkpoints expire under backpressure. The abort notification
    // reaches the tasks (`notifyCheckpointAborted`) but not their barrier handlers: the
    // blocked channels stay blocked, and when the last barrier comes the task skips the
    // checkpoint with a cancel marker downstream (`checkpointState`).
    let doc = checkpoint_playground::scenario::preset("why-uc").unwrap();
    let spec = checkpoint_playground::scenario::to_spec(&doc).unwrap();
    let mut e = Engine::new(spec).unwrap();
    let mut blocked_after_notification = false;
    while !e.is_done() && e.now() < d("40s") {
        e.step();
        blocked_after_notification |= e.tasks.iter().any(|t| {
            !t.aborted.is_empty()
                && t.handler.is_aligning()
                && t.handler.blocked_channels().count() > 0
        });
    }
    assert!(
        blocked_after_notification,
        "a task notified of the abort still held blocked channels"
    );
    assert!(
        e.log.entries.iter().any(|l| l
            .text
            .contains("notified as aborted; cancel marker sent downstream")),
        "a task aligned an aborted checkpoint, then skipped it"
    );
}

#[test]
fn unaligned_forced_leaves_pointwise_and_broadcast_edges_aligned() {
    // Flink 2.x `StreamGraphGenerator`: every input edge of a node with a forward, rescale or
    // broadcast input edge does not support unaligned checkpoints, whatever `forced` says.
    let spec = job(
        "forced",
        "1s",
        &[
            ("execution.checkpointing.interval", "1s"),
            ("execution.checkpointing.unaligned.enabled", "true"),
            ("execution.checkpointing.unaligned.forced", "true"),
        ],
        vec![
            source("src", 2, 100.0, None),
            op("map", OperatorKind::Map, 2, "50us"),
            sink("out", 2, "50us", SinkDelivery::TwoPhaseCommit),
        ],
        vec![
            edge("src", "map", Partitioner::Forward),
            edge("map", "out", Partitioner::Hash),
        ],
    );
    let e = Engine::new(spec).unwrap();
    assert!(!e.edges[0].unaligned_capable, "forward edge stays aligned");
    assert!(
        e.edges[1].unaligned_capable,
        "hash edge carries UC barriers"
    );
}

/// Runs `spec` step by step and calls `check` on every blocked input channel.
fn each_blocked_channel(
    spec: JobSpec,
    mut check: impl FnMut(&checkpoint_playground::engine::network::Channel),
) {
    let mut e = Engine::new(spec).unwrap();
    while !e.is_done() && e.now() < d("6s") {
        e.step();
        for ch in e.channels.iter().filter(|c| c.blocked_at_receiver) {
            check(ch);
        }
    }
}

#[test]
fn blocking_returns_floating_buffers_only_without_exclusive_ones() {
    // `RemoteInputChannel.onBlockingUpstream`: with buffers-per-channel 0 a blocked channel
    // holds no free buffer and no credit; with exclusive buffers its credit stays.
    let mut blocked = 0;
    each_blocked_channel(
        backpressured(
            &[("taskmanager.network.memory.buffers-per-channel", "0")],
            "1500us",
        ),
        |ch| {
            blocked += 1;
            assert_eq!(
                ch.free_buffers(),
                0,
                "channel {} keeps a free buffer",
                ch.id
            );
            assert_eq!(
                ch.credit + ch.credit_in_transit,
                0,
                "channel {} keeps credit",
                ch.id
            );
        },
    );
    assert!(blocked > 0, "no channel was ever blocked");
    let mut kept_credit = false;
    each_blocked_channel(backpressured(&[], "1500us"), |ch| {
        kept_credit |= ch.credit > 0;
    });
    assert!(
        kept_credit,
        "with exclusive buffers a blocked sender keeps its credit"
    );
}
