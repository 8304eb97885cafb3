//! The panels below the first screen, and which snapshot each one draws while a run plays.
//!
//! Contract: [`Offscreen`] holds, for each [`Lower`] panel, the snapshot the panel is
//! given. [`Offscreen::sync`] (the host calls it after every change) hands a panel the
//! current snapshot unless the run is playing on by itself (the host passes `playing`
//! false after any command of the viewer's) and the panel is off screen; such a panel
//! keeps the one it drew last, so its props stay identical and it does not re-render. It
//! is never behind for longer than it stays out of sight: coming on screen
//! ([`Offscreen::set_on_screen`]), the run stopping or the viewer doing anything hands
//! it the current snapshot at once. What a panel shows is therefore always an earlier
//! moment of the same run, and only while nobody can see it.
//!
//! Why (issue 19, item 5): while `large` plays at 100×, the checkpoint history (every row
//! re-built on each report, every 400 ms, more rows the longer the run), the event log
//! (150 entries, all new at that speed, every 250 ms), the charts, the diagnosis and the
//! sinks re-rendered although they sit below the first screen (they are
//! `content-visibility: auto`, so the browser skipped their paint, but Yew still built,
//! diffed and wrote them). Without them a frame's work p95 fell from 41–53 ms to
//! 26–30 ms (`www/bench/frames.mjs www/bench/jobs/large300.json 75 120`).
//!
//! Generic over the snapshot type so that it is unit-tested natively; the page passes
//! [`crate::ui::sim::Snapshots`], whose fields are reference-counted (a clone is cheap).

use std::collections::BTreeSet;

/// A panel below the first screen whose snapshot may be held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lower {
    Checkpoints,
    Diagnosis,
    Sinks,
    Charts,
    Log,
}

impl Lower {
    pub const ALL: [Lower; 5] = [
        Lower::Checkpoints,
        Lower::Diagnosis,
        Lower::Sinks,
        Lower::Charts,
        Lower::Log,
    ];

    /// The `id` of the panel's element (its `Panel`'s `id`).
    pub fn element_id(self) -> &'static str {
        match self {
            Lower::Checkpoints => "checkpoints",
            Lower::Diagnosis => "diagnosis",
            Lower::Sinks => "sinks-recovery",
            Lower::Charts => "charts",
            Lower::Log => "event-log",
        }
    }

    pub fn of_element_id(id: &str) -> Option<Lower> {
        Lower::ALL.into_iter().find(|p| p.element_id() == id)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The snapshot each lower panel draws; see the module's contract.
#[derive(Clone, Debug)]
pub struct Offscreen<S: Clone> {
    shown: [S; 5],
    on_screen: BTreeSet<Lower>,
}

impl<S: Clone> Offscreen<S> {
    /// Every panel drawing `current`, none known to be on screen yet (until the host's
    /// first visibility report, a playing run holds them at `current`).
    pub fn new(current: &S) -> Self {
        Offscreen {
            shown: std::array::from_fn(|_| current.clone()),
            on_screen: BTreeSet::new(),
        }
    }

    /// What `panel` draws.
    pub fn shown(&self, panel: Lower) -> &S {
        &self.shown[panel.index()]
    }

    /// Hands the panels that may update `current`: all of them unless `playing` (the
    /// run playing on by itself), the ones on screen when it is.
    pub fn sync(&mut self, current: &S, playing: bool) {
        for panel in Lower::ALL {
            if !playing || self.on_screen.contains(&panel) {
                self.shown[panel.index()] = current.clone();
            }
        }
    }

    /// Records whether `panel` is on screen (near enough to be scrolled to); the host
    /// calls [`Offscreen::sync`] after it.
    pub fn set_on_screen(&mut self, panel: Lower, on_screen: bool) {
        if on_screen {
            self.on_screen.insert(panel);
        } else {
            self.on_screen.remove(&panel);
        }
    }

    pub fn is_on_screen(&self, panel: Lower) -> bool {
        self.on_screen.contains(&panel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_off_screen_keeps_its_snapshot_only_while_the_run_plays() {
        let mut o = Offscreen::new(&0u32);
        o.set_on_screen(Lower::Checkpoints, true);
        o.sync(&1, true);
        assert_eq!(
            *o.shown(Lower::Checkpoints),
            1,
            "on screen: follows the run"
        );
        assert_eq!(*o.shown(Lower::Log), 0, "off screen while playing: held");
        o.sync(&2, true);
        assert_eq!(*o.shown(Lower::Log), 0);
        o.sync(&3, false);
        for panel in Lower::ALL {
            assert_eq!(
                *o.shown(panel),
                3,
                "{panel:?}: the run stopped, every panel is current"
            );
        }
    }

    #[test]
    fn a_panel_coming_on_screen_is_current_at_once() {
        let mut o = Offscreen::new(&0u32);
        o.sync(&5, true);
        assert_eq!(*o.shown(Lower::Charts), 0);
        o.set_on_screen(Lower::Charts, true);
        o.sync(&5, true);
        assert_eq!(*o.shown(Lower::Charts), 5);
        o.set_on_screen(Lower::Charts, false);
        o.sync(&6, true);
        assert_eq!(*o.shown(Lower::Charts), 5, "scrolled away again: held");
        assert!(!o.is_on_screen(Lower::Charts));
    }

    #[test]
    fn element_ids_round_trip() {
        for panel in Lower::ALL {
            assert_eq!(Lower::of_element_id(panel.element_id()), Some(panel));
        }
        assert_eq!(Lower::of_element_id("timeline"), None);
    }
}
