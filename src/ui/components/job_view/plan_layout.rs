//! Rows of the physical plan in the job view: one row per slot, slots grouped in their
//! TaskManager's box, top to bottom in (TaskManager, slot) order. Contract: [`rows`]
//! takes the height each placed subtask needs and its (TaskManager, slot) — from the
//! engine's view data, `PlanSubtask::task_manager` / `slot` — and gives every slot row a
//! `y` and a height (the tallest subtask in it; a free slot gets [`FREE_SLOT_H`]) and
//! every TaskManager a band enclosing its slots, with room for its label at the top.
//! With Flink's default slot sharing a slot holds one subtask of each vertex
//! (`LocalInputPreferredSlotSharingStrategy`), so the subtasks of one slot sit side by
//! side in one row, one per vertex column, and a TaskManager is a horizontal box across
//! every column. Pure: numbers in, numbers out.

/// Height of a slot that runs no subtask.
pub const FREE_SLOT_H: f64 = 16.0;
/// Room above a TaskManager's first slot, for its label.
pub const TM_LABEL_H: f64 = 16.0;
/// Padding below a TaskManager's last slot, and between two TaskManagers.
pub const TM_PAD: f64 = 6.0;
pub const TM_GAP: f64 = 10.0;
/// Between two slot rows.
pub const ROW_GAP: f64 = 6.0;

/// A subtask to place: its TaskManager, slot and the height it needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occupant {
    pub task_manager: u32,
    pub slot: u32,
    pub h: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SlotRow {
    pub task_manager: u32,
    pub slot: u32,
    pub y: f64,
    pub h: f64,
    /// Subtasks placed in it.
    pub occupants: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TmBand {
    pub task_manager: u32,
    pub y: f64,
    pub h: f64,
    /// Its rows in [`Rows::rows`].
    pub first_row: usize,
    pub slots: u32,
    pub used_slots: u32,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Rows {
    pub rows: Vec<SlotRow>,
    pub bands: Vec<TmBand>,
    /// The y below the last band.
    pub bottom: f64,
}

impl Rows {
    /// The row of (TaskManager, slot).
    pub fn row_of(&self, task_manager: u32, slot: u32) -> Option<&SlotRow> {
        let band = self.bands.iter().find(|b| b.task_manager == task_manager)?;
        self.rows
            .get(band.first_row + slot as usize)
            .filter(|r| r.task_manager == task_manager && r.slot == slot)
    }
}

/// The rows from `top` down, for `task_managers` TaskManagers of `slots` slots each
/// (both widened to what the occupants name, so a subtask always has its row).
pub fn rows(task_managers: u32, slots: u32, occupants: &[Occupant], top: f64) -> Rows {
    let tms = occupants
        .iter()
        .map(|o| o.task_manager + 1)
        .max()
        .unwrap_or(0)
        .max(task_managers);
    let slots = occupants
        .iter()
        .map(|o| o.slot + 1)
        .max()
        .unwrap_or(0)
        .max(slots)
        .max(1);
    let mut need = vec![(0.0f64, 0u32); (tms * slots) as usize];
    for o in occupants {
        let cell = &mut need[(o.task_manager * slots + o.slot) as usize];
        cell.0 = cell.0.max(o.h);
        cell.1 += 1;
    }
    let mut out = Rows::default();
    let mut y = top;
    for tm in 0..tms {
        let band_y = y;
        y += TM_LABEL_H;
        let first_row = out.rows.len();
        let mut used = 0;
        for slot in 0..slots {
            let (h, n) = need[(tm * slots + slot) as usize];
            let h = if n == 0 { FREE_SLOT_H } else { h };
            used += u32::from(n > 0);
            out.rows.push(SlotRow {
                task_manager: tm,
                slot,
                y,
                h,
                occupants: n,
            });
            y += h + if slot + 1 < slots { ROW_GAP } else { 0.0 };
        }
        y += TM_PAD;
        out.bands.push(TmBand {
            task_manager: tm,
            y: band_y,
            h: y - band_y,
            first_row,
            slots,
            used_slots: used,
        });
        y += TM_GAP;
    }
    out.bottom = if tms == 0 { top } else { y - TM_GAP };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occ(tm: u32, slot: u32, h: f64) -> Occupant {
        Occupant {
            task_manager: tm,
            slot,
            h,
        }
    }

    #[test]
    fn a_row_per_slot_and_a_band_per_task_manager() {
        // Two TaskManagers of two slots; a subtask of each of two vertices in slot 0 of
        // TaskManager 0, one in its slot 1, one in TaskManager 1's slot 0.
        let r = rows(
            2,
            2,
            &[
                occ(0, 0, 50.0),
                occ(0, 0, 60.0),
                occ(0, 1, 46.0),
                occ(1, 0, 46.0),
            ],
            10.0,
        );
        assert_eq!(r.rows.len(), 4);
        assert_eq!(r.bands.len(), 2);
        let first = r.row_of(0, 0).unwrap();
        assert_eq!(
            (first.y, first.h, first.occupants),
            (10.0 + TM_LABEL_H, 60.0, 2)
        );
        let second = r.row_of(0, 1).unwrap();
        assert_eq!(second.y, first.y + 60.0 + ROW_GAP);
        let free = r.row_of(1, 1).unwrap();
        assert_eq!((free.h, free.occupants), (FREE_SLOT_H, 0));
        let (b0, b1) = (&r.bands[0], &r.bands[1]);
        assert_eq!((b0.used_slots, b1.used_slots), (2, 1));
        // Bands enclose their rows and do not overlap.
        assert!(b0.y < first.y && b0.y + b0.h >= second.y + second.h);
        assert_eq!(b1.y, b0.y + b0.h + TM_GAP);
        assert_eq!(r.bottom, b1.y + b1.h);
        for row in &r.rows {
            let b = &r.bands[row.task_manager as usize];
            assert!(row.y >= b.y && row.y + row.h <= b.y + b.h);
        }
    }

    #[test]
    fn occupants_widen_the_cluster() {
        let r = rows(1, 1, &[occ(2, 3, 46.0)], 0.0);
        assert_eq!(r.bands.len(), 3);
        assert_eq!(r.rows.len(), 12);
        assert!(r.row_of(2, 3).is_some_and(|row| row.occupants == 1));
        assert_eq!(rows(0, 0, &[], 5.0).bottom, 5.0);
    }
}
