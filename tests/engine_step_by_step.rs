//! "Next checkpoint step": running to the next checkpoint log entry shows the two phases
//! of an unaligned checkpoint in their order, and stepping does not change the run.

use checkpoint_playground::engine::log::LogKind;
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario::{preset, to_spec};

#[test]
fn checkpoint_steps_come_in_the_order_of_the_two_phases() {
    let spec = to_spec(&preset("two-phases").unwrap()).unwrap();
    let mut stepped = Engine::new(spec.clone()).unwrap();
    // two-phases triggers every 5s, the first time after a seeded random delay in
    // [min-pause, interval] (`CheckpointCoordinator.getRandomInitDelay`): stop just before
    // the second checkpoint.
    while stepped.coordinator.history.is_empty() {
        assert!(stepped.step(), "the first checkpoint is triggered");
    }
    let second = stepped
        .coordinator
        .trigger
        .next_at
        .expect("periodic trigger armed");
    stepped.run_until(second - 100_000);
    let mut steps = vec![];
    loop {
        let step = stepped.run_to_next_log(LogKind::CHECKPOINT_STEPS, 5_000_000);
        assert!(
            !step.is_empty(),
            "the checkpoint completes within 5s of virtual time"
        );
        let done = step.iter().any(|e| e.text.contains("completed"));
        steps.extend(step);
        if done {
            break;
        }
    }
    for e in &steps {
        println!("{:>9} µs {:?}: {}", e.at, e.kind, e.text);
    }
    let position = |what: &dyn Fn(&str) -> bool| {
        steps
            .iter()
            .position(|e| what(&e.text))
            .unwrap_or_else(|| panic!("step missing from {steps:#?}"))
    };
    let trigger = position(&|t| t.contains("triggered"));
    let barrier = position(&|t| t.contains("unaligned barrier at parse"));
    let snapshot = position(&|t| t.contains("parse") && t.contains("snapshot"));
    let ack = position(&|t| t.starts_with("parse") && t.contains("acknowledged"));
    let complete = position(&|t| t.contains("completed"));
    assert!(trigger < barrier, "the trigger comes first");
    assert!(
        barrier < snapshot,
        "the barrier starts the synchronous phase"
    );
    assert!(
        snapshot < ack,
        "the asynchronous phase ends with the acknowledgement"
    );
    assert!(
        ack < complete,
        "the checkpoint completes after every acknowledgement"
    );
    assert!(
        steps[ack].at - steps[snapshot].at > 10 * (steps[snapshot].at - steps[barrier].at).max(1),
        "at parse the asynchronous phase (writes to slow storage) outlasts the synchronous one by far"
    );
    // Steps are ordered in time and the run stays the same run.
    assert!(steps.windows(2).all(|w| w[0].at <= w[1].at));
    stepped.run_until(spec.duration);
    let mut straight = Engine::new(spec.clone()).unwrap();
    straight.run_until(spec.duration);
    assert_eq!(stepped.event_hash(), straight.event_hash());
}

#[test]
fn the_step_stops_at_the_limit_or_the_end() {
    let spec = to_spec(&preset("two-phases").unwrap()).unwrap();
    let mut e = Engine::new(spec.clone()).unwrap();
    // No checkpoint step within 1ms of a quiet moment.
    e.run_until(6_000_000);
    assert!(e
        .run_to_next_log(LogKind::CHECKPOINT_STEPS, 1_000)
        .is_empty());
    assert!(
        e.now <= 6_000_000 + 1_000 + 100_000,
        "stopped near the limit: {}",
        e.now
    );
    e.run_until(spec.duration);
    assert!(e
        .run_to_next_log(LogKind::CHECKPOINT_STEPS, 10_000_000)
        .is_empty());
}

/// The playground's checkpoint step stops inside the synchronous phase and where the
/// asynchronous one begins: the view says `sync` while a snapshot holds the task thread
/// (`Engine::sync_phases`), `async…` from its end on; reading it changes nothing.
#[test]
fn the_sync_phase_is_visible_and_ends_where_the_async_phase_begins() {
    let spec = to_spec(&preset("two-phases").unwrap()).unwrap();
    let mut e = Engine::new(spec.clone()).unwrap();
    let mut stops = 0;
    while stops < 3 {
        let step = e.run_to_next_log(LogKind::CHECKPOINT_STEPS, 30_000_000);
        assert!(!step.is_empty(), "a checkpoint step within 30s");
        let (running, end) = e.sync_phases();
        if running.is_empty() {
            continue;
        }
        stops += 1;
        let end = end.expect("a running sync phase ends");
        assert!(end > e.now, "the stop is inside the sync phase");
        let views = e.task_views();
        for &(t, id) in &running {
            assert_eq!(views[t].checkpoint, Some((id, "sync")), "{}", views[t].name);
        }
        e.run_until_logged(end, LogKind::CHECKPOINT_STEPS);
        assert_eq!(e.now, end);
        let views = e.task_views();
        for &(t, id) in &running {
            let phase = views[t]
                .checkpoint
                .filter(|(i, _)| *i == id)
                .map(|(_, p)| p);
            assert!(
                phase.is_none_or(|p| p.starts_with("async")),
                "{}: {phase:?} after the sync phase",
                views[t].name
            );
        }
        assert!(e.sync_phases().0.iter().all(|r| !running.contains(r)));
    }
    e.run_until(spec.duration);
    let mut straight = Engine::new(spec.clone()).unwrap();
    straight.run_until(spec.duration);
    assert_eq!(e.event_hash(), straight.event_hash());
}
