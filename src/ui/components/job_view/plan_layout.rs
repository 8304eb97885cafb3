//! Rows of the physical plan in the job view: one row per slot, slots grouped in their
//! TaskManager's box, top to bottom in (TaskManager, slot) order. Contract: [`rows`]
//! takes the height each placed subtask needs and its (TaskManager, slot) — from the
//! engine's view data, `PlanSubtask::task_manager` / `slot` — and gives every slot row a
//! `y` and a height (the tallest subtask in it; a free slot gets [`FREE_SLOT_H`]) and
//! every TaskManager a band enclosing its slots, with room for its label at the top.
//! With Flink's default slot sharing a slot holds one subtask of each vertex
//! (`LocalInputPreferredSlotSharingStrategy`), so the subtasks of one slot sit side by
//! side in one row, one per vertex column, and a TaskManager is a horizontal box across
//! every column.
//!
//! [`wrap`] folds a layout far from a screen's shape into a grid of blocks: a pipeline
//! of many vertices (60 columns side by side were a 5 px strip at fit) into tiers of
//! columns stacked top to bottom, a job of many TaskManagers (p=64, one slot each: a
//! column 50 times taller than wide) into groups of TaskManagers side by side, each
//! group with every column. It wraps only a layout more than [`WRAP_BEYOND`]× off
//! [`TARGET_ASPECT`], and picks the fold whose aspect is nearest the target.
//! [`subtask_h`] is the height a subtask needs: one lane per channel, or the minimum
//! when the job's channels are only ever drawn summed. Pure: numbers in, numbers out.

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

/// Width / height the wrapped layout aims at (a stage at 1280–1920 px wide).
pub const TARGET_ASPECT: f64 = 2.0;
/// A layout whose aspect is within this factor of [`TARGET_ASPECT`] is not wrapped: a
/// job of the presets' size (five columns over two TaskManagers, ~3.9× off) stays one row
/// and keeps the stage short enough for the first screen at 1280×720 (`stage.test.mjs`);
/// a long pipeline (~45× off) or a tall column of TaskManagers still folds.
pub const WRAP_BEYOND: f64 = 4.5;
/// Between two tiers of columns, and two groups of TaskManagers.
pub const TIER_GAP: f64 = 28.0;
pub const GROUP_GAP: f64 = 28.0;

/// How the layout is folded: `tiers` rows of at most `columns_per_tier` vertex columns,
/// stacked; `groups` of at most `tms_per_group` consecutive TaskManagers, side by side.
/// At most one of the two is above 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrap {
    pub columns_per_tier: usize,
    pub tiers: usize,
    pub tms_per_group: usize,
    pub groups: usize,
}

impl Wrap {
    pub fn tier_of(&self, column: usize) -> usize {
        column / self.columns_per_tier.max(1)
    }
    pub fn group_of(&self, task_manager: u32) -> usize {
        task_manager as usize / self.tms_per_group.max(1)
    }
}

/// The stack's height for TaskManager bands `bands` (heights) split in groups of `per`:
/// the tallest group, its bands `band_gap` apart.
fn group_height(bands: &[f64], per: usize, band_gap: f64) -> f64 {
    bands
        .chunks(per.max(1))
        .map(|c| c.iter().sum::<f64>() + band_gap * (c.len().saturating_sub(1)) as f64)
        .fold(0.0, f64::max)
}

/// The fold of `columns` columns of `column_w` over TaskManager bands of heights `bands`
/// (`band_gap` apart) under a header `header_h` tall.
pub fn wrap(columns: usize, column_w: f64, header_h: f64, bands: &[f64], band_gap: f64) -> Wrap {
    let columns = columns.max(1);
    let tms = bands.len().max(1);
    let size = |tiers: usize, groups: usize| {
        let per_tier = columns.div_ceil(tiers);
        let per_group = tms.div_ceil(groups);
        let w = groups as f64 * per_tier as f64 * column_w + (groups - 1) as f64 * GROUP_GAP;
        let stack = header_h + group_height(bands, per_group, band_gap);
        let h = tiers as f64 * stack + (tiers - 1) as f64 * TIER_GAP;
        (w, h.max(1.0))
    };
    let off = |(w, h): (f64, f64)| (w / h / TARGET_ASPECT).ln().abs();
    let plain = Wrap {
        columns_per_tier: columns,
        tiers: 1,
        tms_per_group: tms,
        groups: 1,
    };
    if off(size(1, 1)) <= WRAP_BEYOND.ln() {
        return plain;
    }
    let mut best = (off(size(1, 1)), plain);
    for tiers in 2..=columns {
        let per = columns.div_ceil(tiers);
        if per * (tiers - 1) >= columns {
            continue; // the same fold as fewer tiers
        }
        let o = off(size(tiers, 1));
        if o < best.0 {
            best = (
                o,
                Wrap {
                    columns_per_tier: per,
                    tiers,
                    ..plain
                },
            );
        }
    }
    for groups in 2..=tms {
        let per = tms.div_ceil(groups);
        if per * (groups - 1) >= tms {
            continue;
        }
        let o = off(size(1, groups));
        if o < best.0 {
            best = (
                o,
                Wrap {
                    tms_per_group: per,
                    groups,
                    ..plain
                },
            );
        }
    }
    best.1
}

/// The height of a subtask with `lanes` lanes of `pitch` on its busier side, at least
/// `min`; when the job's channels are only drawn summed (`per_channel` false), `min`:
/// a p=32 consumer of a hash edge was 330 units tall for lanes never drawn.
pub fn subtask_h(lanes: usize, pitch: f64, min: f64, per_channel: bool) -> f64 {
    if per_channel {
        (lanes as f64 * pitch + 10.0).max(min)
    } else {
        min
    }
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

    #[test]
    fn a_long_pipeline_folds_into_tiers() {
        // 60 vertex columns of 302 units over two TaskManagers of one slot (~68 units
        // each): unwrapped it is ~90 times wider than tall.
        let bands = [68.0, 68.0];
        let w = wrap(60, 302.0, 50.0, &bands, TM_GAP);
        assert_eq!(w.groups, 1);
        assert!(w.tiers > 3, "{w:?}");
        assert!(w.columns_per_tier * w.tiers >= 60);
        assert!(
            w.columns_per_tier * (w.tiers - 1) < 60,
            "no empty tier: {w:?}"
        );
        let width = w.columns_per_tier as f64 * 302.0;
        let height =
            w.tiers as f64 * (50.0 + 68.0 * 2.0 + TM_GAP) + (w.tiers - 1) as f64 * TIER_GAP;
        let aspect = width / height;
        assert!(
            aspect > TARGET_ASPECT / 2.0 && aspect < TARGET_ASPECT * 2.0,
            "{aspect} {w:?}"
        );
        assert_eq!(w.tier_of(0), 0);
        assert_eq!(w.tier_of(w.columns_per_tier), 1);
    }

    #[test]
    fn many_task_managers_fold_into_groups_and_small_jobs_stay() {
        // p=64, one slot per TaskManager, two columns: a tall column.
        let bands = vec![68.0; 64];
        let w = wrap(2, 302.0, 50.0, &bands, TM_GAP);
        assert_eq!(w.tiers, 1);
        assert!(w.groups >= 4, "{w:?}");
        assert_eq!(w.group_of(0), 0);
        assert_eq!(w.group_of(w.tms_per_group as u32), 1);
        assert!(w.group_of(63) < w.groups);
        // `healthy`-sized jobs are left as they are.
        let plain = wrap(2, 302.0, 50.0, &[68.0, 68.0], TM_GAP);
        assert_eq!((plain.tiers, plain.groups), (1, 1));
        // The `backpressure` preset's shape: five columns over two TaskManagers.
        let preset = wrap(5, 302.0, 50.0, &[68.0, 68.0], TM_GAP);
        assert_eq!((preset.tiers, preset.groups), (1, 1), "{preset:?}");
        assert_eq!((plain.columns_per_tier, plain.tms_per_group), (2, 2));
    }

    #[test]
    fn subtask_heights() {
        assert_eq!(subtask_h(64, 5.0, 46.0, true), 330.0);
        assert_eq!(subtask_h(64, 5.0, 46.0, false), 46.0);
        assert_eq!(subtask_h(2, 14.0, 46.0, true), 46.0);
    }
}
