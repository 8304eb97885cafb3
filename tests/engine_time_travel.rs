//! Seeking back and playing forward gives the state a straight run reaches (issue 8.4's base).

mod common;
use checkpoint_playground::engine::spec::Action;
use checkpoint_playground::engine::time_travel::Rewinder;
use checkpoint_playground::engine::Engine;
use common::*;

#[test]
fn seek_then_play_equals_playing_straight() {
    let cfg = [
        ("execution.checkpointing.interval", "500ms"),
        ("execution.checkpointing.unaligned.enabled", "true"),
    ];
    let spec = pipeline(&cfg, None, "2ms", "10s");
    let mut live = Engine::new(spec.clone()).unwrap();
    let mut rw = Rewinder::new(&live, 1_000_000, 4);
    let mut t = 0;
    while t < 9_000_000 {
        t += 16_667;
        live.run_until(t);
        rw.observe(&live);
    }
    assert!(
        rw.snapshot_times().len() <= 5,
        "thinned: {:?}",
        rw.snapshot_times()
    );
    for seek_to in [0, 1_234_567, 4_000_000, 7_654_321] {
        let mut back = rw.seek(seek_to);
        let mut straight = Engine::new(spec.clone()).unwrap();
        straight.run_until(seek_to);
        assert_eq!(
            back.event_hash(),
            straight.event_hash(),
            "state at {seek_to}"
        );
        back.run_until(8_500_000);
        straight.run_until(8_500_000);
        assert_eq!(
            back.event_hash(),
            straight.event_hash(),
            "seek {seek_to} then play"
        );
    }
    // A fork: seek back, act, and the fork's own spec replays it.
    let mut fork = rw.seek(3_000_000);
    fork.apply(Action::Fail {
        operator: "count".into(),
        subtask: 0,
    })
    .unwrap();
    fork.run_until(6_000_000);
    let mut replay = Engine::new(fork.spec.clone()).unwrap();
    replay.run_until(6_000_000);
    assert_eq!(fork.event_hash(), replay.event_hash());
}
