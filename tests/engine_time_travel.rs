//! Time travel (issue 8.4): seeking back and playing forward gives the state a straight run
//! reaches; live actions recorded after the seek point replay at their instants; a new
//! action after a seek forks the run and the fork's own spec (its link) replays it; and the
//! seek cost (latency, snapshot memory) for the big presets.

mod common;
use checkpoint_playground::engine::spec::{Action, JobSpec};
use checkpoint_playground::engine::time::Micros;
use checkpoint_playground::engine::time_travel::{
    approx_bytes, Rewinder, SNAPSHOT_BUDGET, SNAPSHOT_LIMIT,
};
use checkpoint_playground::engine::Engine;
use checkpoint_playground::scenario;
use common::*;
use std::sync::Mutex;
use std::time::Instant;

const S: Micros = 1_000_000;
/// Virtual time per host frame (a 60 Hz frame at 6× speed), as the UI advances.
const FRAME: Micros = 100_000;

/// The memory test reads the process RSS: the other tests of this file wait for it.
static SERIAL: Mutex<()> = Mutex::new(());

fn preset_spec(name: &str) -> JobSpec {
    let doc = scenario::preset(name).unwrap_or_else(|| panic!("preset {name}"));
    scenario::to_spec(&doc).unwrap()
}

/// Plays `live` to `t` in frames, letting the rewinder keep its snapshots.
fn play(live: &mut Engine, rw: &mut Rewinder, t: Micros) {
    while live.now < t && !live.is_done() {
        let to = (live.now + FRAME).min(t);
        live.run_until(to);
        rw.observe(live);
    }
}

fn straight(spec: &JobSpec, t: Micros) -> Engine {
    let mut e = Engine::new(spec.clone()).unwrap();
    e.run_until(t);
    e
}

fn seed() -> u64 {
    let seed = std::env::var("TRAVEL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    println!("time travel seed: {seed} (rerun with TRAVEL_SEED={seed})");
    seed
}

#[test]
fn seek_then_play_equals_playing_straight() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = [
        ("execution.checkpointing.interval", "500ms"),
        ("execution.checkpointing.unaligned.enabled", "true"),
    ];
    let spec = pipeline(&cfg, None, "2ms", "10s");
    let mut live = Engine::new(spec.clone()).unwrap();
    let mut rw = Rewinder::new(&live, 1_000_000, 4);
    play(&mut live, &mut rw, 9 * S);
    assert!(
        rw.snapshot_times().len() <= 4,
        "thinned: {:?}",
        rw.snapshot_times()
    );
    for seek_to in [0, 1_234_567, 4_000_000, 7_654_321] {
        let mut back = rw.seek(seek_to, &live).unwrap();
        let mut direct = straight(&spec, seek_to);
        assert_eq!(back.event_hash(), direct.event_hash(), "state at {seek_to}");
        back.run_until(8_500_000);
        direct.run_until(8_500_000);
        assert_eq!(
            back.event_hash(),
            direct.event_hash(),
            "seek {seek_to} then play"
        );
    }
}

#[test]
fn seek_then_play_equals_straight_on_presets_at_random_times() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut gen = Gen::new(seed());
    for name in ["healthy", "backpressure", "unaligned", "topology-change"] {
        let spec = preset_spec(name);
        let end = spec.duration;
        let mut live = Engine::new(spec.clone()).unwrap();
        let mut rw = Rewinder::for_host(&live);
        play(&mut live, &mut rw, end);
        let full = live.report();
        for _ in 0..2 {
            let t = gen.range(0, end - 1);
            let t2 = gen.range(t, end);
            let mut back = rw.seek(t, &live).unwrap();
            let at_t = straight(&spec, t);
            assert_eq!(back.now, at_t.now, "{name}: seek lands at {t}");
            assert_eq!(back.event_hash(), at_t.event_hash(), "{name}: state at {t}");
            back.run_until(t2);
            let direct = straight(&spec, t2);
            assert_eq!(
                back.event_hash(),
                direct.event_hash(),
                "{name}: seek {t} then play to {t2}"
            );
            assert!(back.report() == direct.report(), "{name}: report at {t2}");
            back.run_to_end();
            assert!(back.report() == full, "{name}: seek {t}, play to the end");
        }
    }
}

/// The backpressure preset played live with a Fail at 30 s and a cost change at 35 s.
fn live_with_actions() -> (Engine, Rewinder) {
    let spec = preset_spec("backpressure");
    let mut live = Engine::new(spec).unwrap();
    let mut rw = Rewinder::for_host(&live);
    play(&mut live, &mut rw, 30 * S);
    live.apply(Action::Fail {
        operator: "explode".into(),
        subtask: 0,
    })
    .unwrap();
    play(&mut live, &mut rw, 35 * S);
    live.apply(Action::SetCost {
        operator: "out".into(),
        cost: 200,
    })
    .unwrap();
    let end = live.spec.duration;
    play(&mut live, &mut rw, end);
    (live, rw)
}

#[test]
fn seeking_back_keeps_the_live_actions_recorded_after_it() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (live, rw) = live_with_actions();
    assert_eq!(live.recorded_actions().len(), 2);
    let mut back = rw.seek(20 * S, &live).unwrap();
    assert_eq!(back.pending_recorded(), 2, "both actions lie ahead of 20 s");
    assert_eq!(
        back.spec, live.spec,
        "seeking alone does not change the link"
    );
    back.run_to_end();
    assert_eq!(back.pending_recorded(), 0);
    assert_eq!(back.event_hash(), live.event_hash());
    assert!(back.report() == live.report(), "same run after the seek");
    // Between the two actions: the Fail is behind, the cost change ahead.
    let mut mid = rw.seek(32 * S, &live).unwrap();
    assert_eq!(mid.pending_recorded(), 1);
    mid.run_to_end();
    assert_eq!(mid.event_hash(), live.event_hash());
    // Playing the link of the live run from scratch is the same run as well.
    let doc = scenario::from_spec(&live.spec);
    let replay = straight(&scenario::to_spec(&doc).unwrap(), live.spec.duration);
    assert_eq!(replay.event_hash(), live.event_hash());
}

#[test]
fn a_new_action_after_seeking_back_forks_the_run_and_the_link_records_the_fork() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (live, mut rw) = live_with_actions();
    let mut fork = rw.seek(20 * S, &live).unwrap();
    // A bad action is refused and loses nothing: the later actions are still ahead.
    let err = fork
        .apply(Action::Fail {
            operator: "no-such-operator".into(),
            subtask: 0,
        })
        .unwrap_err();
    assert!(err.to_string().contains("no-such-operator"), "{err}");
    assert_eq!(fork.pending_recorded(), 2);
    let trigger = Action::TriggerCheckpoint;
    fork.apply(trigger.clone()).unwrap();
    assert_eq!(fork.pending_recorded(), 0);
    rw.truncate_after(fork.now);
    assert!(rw.snapshot_times().iter().all(|&s| s <= 20 * S));
    let recorded: Vec<(Micros, Action)> = fork
        .recorded_actions()
        .iter()
        .map(|a| (a.at, a.action.clone()))
        .collect();
    assert_eq!(recorded, vec![(20 * S, trigger)], "later actions dropped");
    let end = fork.spec.duration;
    play(&mut fork, &mut rw, end);
    assert_ne!(
        fork.event_hash(),
        live.event_hash(),
        "the fork is another run"
    );
    // What Share encodes replays the forked run from scratch.
    let doc =
        scenario::decode_link(&scenario::encode_link(&scenario::from_spec(&fork.spec))).unwrap();
    let spec = scenario::to_spec(&doc).unwrap();
    assert_eq!(
        spec.events.len(),
        preset_spec("backpressure").events.len() + 1
    );
    let replay = straight(&spec, spec.duration);
    assert_eq!(replay.event_hash(), fork.event_hash());
    assert!(replay.report() == fork.report());
    // Seeking inside the fork (snapshots of the abandoned branch are gone) stays on it.
    let mut again = rw.seek(25 * S, &fork).unwrap();
    again.run_to_end();
    assert_eq!(again.event_hash(), fork.event_hash());
}

fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
fn seek_cost_on_the_big_presets() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for name in ["large", "backpressure"] {
        let mut spec = preset_spec(name);
        spec.duration = 60 * S;
        let before = rss_bytes();
        let mut live = Engine::new(spec.clone()).unwrap();
        let mut rw = Rewinder::for_host(&live);
        let start = Instant::now();
        play(&mut live, &mut rw, spec.duration);
        let run_ms = start.elapsed().as_secs_f64() * 1e3;
        let times = rw.snapshot_times();
        assert!(times.len() <= SNAPSHOT_LIMIT, "{name}: {times:?}");
        assert!(rw.total_bytes() <= SNAPSHOT_BUDGET, "{name}: over budget");
        let growth = match (before, rss_bytes()) {
            (Some(b), Some(a)) => format!("{:.1} MB", a.saturating_sub(b) as f64 / 1e6),
            _ => "n/a".into(),
        };
        // What one more clone of the final engine costs, measured against the estimate.
        let r0 = rss_bytes();
        let clones: Vec<Engine> = (0..3).map(|_| live.clone()).collect();
        let per_clone = match (r0, rss_bytes()) {
            (Some(b), Some(a)) => format!("{:.1} MB", a.saturating_sub(b) as f64 / 3e6),
            _ => "n/a".into(),
        };
        drop(clones);
        println!(
            "{name} 60 s: run {run_ms:.0} ms; snapshots at {:?} s, spacing {} s, estimated {:.1} MB; \
             RSS growth (live + snapshots) {growth}; final engine: estimated {:.1} MB, \
             measured per clone {per_clone}",
            times.iter().map(|t| t / S).collect::<Vec<_>>(),
            rw.every() / S,
            rw.total_bytes() as f64 / 1e6,
            approx_bytes(&live) as f64 / 1e6,
        );
        // What keeping one snapshot costs the host at the end of the run.
        let start = Instant::now();
        let copy = live.clone();
        let bytes = approx_bytes(&copy);
        println!(
            "{name}: one snapshot at 60 s (clone + estimate of {:.1} MB): {:.1} ms",
            bytes as f64 / 1e6,
            start.elapsed().as_secs_f64() * 1e3
        );
        drop(copy);
        let mut worst: f64 = 0.0;
        for t in [5 * S, 17 * S + 900_000, 33 * S, 59 * S] {
            let start = Instant::now();
            let back = rw.seek(t, &live).unwrap();
            let ms = start.elapsed().as_secs_f64() * 1e3;
            worst = worst.max(ms);
            println!(
                "{name}: seek to {t} µs from the snapshot at {} µs: {ms:.1} ms",
                rw.base_time(t)
            );
            assert_eq!(back.event_hash(), straight(&spec, t).event_hash());
        }
        println!("{name}: worst seek {worst:.1} ms");
    }
}
