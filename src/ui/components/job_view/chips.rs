//! Where the figures of the aggregated lanes go on the screen: each lane's chip
//! ("4 ch · 2 local / backlog 0 · credit 4") is placed only where it covers no subtask
//! box (nor block) and no other chip, else shrunk to its glyph (the backlog alone), else
//! left out — the lane's hover and `[` / `]` tip still say everything.
//!
//! Contract: [`place`] takes, per lane in drawing order, its anchor (the middle of its
//! band on the screen), the band's vertical extent and the sizes of its forms, widest
//! first, and the obstacles (screen rectangles of what a chip must not cover). For each
//! lane it tries each form at the anchor, then moved up and down by whole chip heights
//! (a 2 px gap) while the chip's middle stays within the band (and, where the band is
//! taller than the chip, the whole chip: the caller passes the band's part on the stage),
//! and keeps the first place
//! that meets no obstacle and no chip placed before it. A 60-operator pipeline at fit has
//! gaps of ~56 px between its columns: its 140 px chips covered the subtask boxes, its
//! glyphs fit. Pure: screen px in, places out.

/// A screen rectangle: x, y, w, h (CSS px, relative to the stage).
pub type ScreenRect = (f64, f64, f64, f64);

/// A chip to place.
#[derive(Clone, Debug, PartialEq)]
pub struct Want {
    /// Anchor: the chip's centre when nothing is in the way.
    pub cx: f64,
    pub cy: f64,
    /// The band's vertical extent: the chip's middle stays within it.
    pub y0: f64,
    pub y1: f64,
    /// The forms' sizes (w, h), preferred first.
    pub sizes: Vec<(f64, f64)>,
}

/// A placed chip: which form, and its top-left corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub form: usize,
    pub x: f64,
    pub y: f64,
}

fn meets(a: ScreenRect, b: ScreenRect) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

/// Places `wants` among `obstacles` (see the module doc); `None`: left out.
pub fn place(wants: &[Want], obstacles: &[ScreenRect]) -> Vec<Option<Placed>> {
    let mut placed: Vec<ScreenRect> = Vec::with_capacity(wants.len());
    let mut out = Vec::with_capacity(wants.len());
    for want in wants {
        let mut found = None;
        'forms: for (form, &(w, h)) in want.sizes.iter().enumerate() {
            let x = want.cx - w / 2.0;
            let step = h + 2.0;
            // A band taller than the chip holds all of it (a band cut by the stage's edge
            // keeps its chip inside the stage).
            let cy = if want.y1 - want.y0 >= h {
                want.cy.clamp(want.y0 + h / 2.0, want.y1 - h / 2.0)
            } else {
                want.cy
            };
            // Offsets 0, +1, −1, +2, −2, … steps, while the middle is in the band (the
            // anchor itself is always tried).
            let reach = ((want.y1 - want.y0) / 2.0 / step).ceil().max(0.0) as i64 + 1;
            for k in 0..=2 * reach {
                let d = if k % 2 == 1 { (k + 1) / 2 } else { -(k / 2) } as f64 * step;
                let mid = cy + d;
                if k > 0 && (mid < want.y0 || mid > want.y1) {
                    continue;
                }
                let r = (x, mid - h / 2.0, w, h);
                if obstacles.iter().chain(&placed).any(|&o| meets(r, o)) {
                    continue;
                }
                placed.push(r);
                found = Some(Placed {
                    form,
                    x: r.0,
                    y: r.1,
                });
                break 'forms;
            }
        }
        out.push(found);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want(cx: f64, cy: f64, y0: f64, y1: f64) -> Want {
        Want {
            cx,
            cy,
            y0,
            y1,
            sizes: vec![(140.0, 45.0), (30.0, 16.0)],
        }
    }

    #[test]
    fn a_narrow_gap_gets_the_glyph_a_wide_one_the_chip() {
        // Two subtask boxes 56 px apart (a 60-operator pipeline at fit) and a lane
        // between them: the 140 px chip would cover both, the 30 px glyph fits.
        let boxes = [(0.0, 0.0, 40.0, 200.0), (96.0, 0.0, 40.0, 200.0)];
        let at = place(&[want(68.0, 100.0, 0.0, 200.0)], &boxes);
        assert_eq!(at[0].map(|p| p.form), Some(1));
        let p = at[0].unwrap();
        assert!(
            !meets((p.x, p.y, 30.0, 16.0), boxes[0]) && !meets((p.x, p.y, 30.0, 16.0), boxes[1])
        );
        // 300 px apart: the chip itself.
        let wide = [(0.0, 0.0, 40.0, 200.0), (340.0, 0.0, 40.0, 200.0)];
        assert_eq!(
            place(&[want(190.0, 100.0, 0.0, 200.0)], &wide)[0].map(|p| p.form),
            Some(0)
        );
        // No room even for the glyph: left out.
        let tight = [(0.0, 0.0, 60.0, 200.0), (70.0, 0.0, 60.0, 200.0)];
        assert_eq!(place(&[want(65.0, 100.0, 0.0, 200.0)], &tight)[0], None);
    }

    #[test]
    fn chips_move_within_their_band_and_never_cover_each_other() {
        // A box right under the anchor, free room lower in the band: the chip moves down.
        let obstacle = [(100.0, 80.0, 200.0, 40.0)];
        let at = place(&[want(200.0, 100.0, 0.0, 300.0)], &obstacle);
        let p = at[0].unwrap();
        assert_eq!(p.form, 0);
        assert!(p.y >= 120.0 || p.y + 45.0 <= 80.0, "{p:?}");
        // Outside the band it may not go: a band as tall as the box leaves only the glyph
        // — and not even that, since the glyph too meets the box at every place in it.
        assert_eq!(
            place(&[want(200.0, 100.0, 80.0, 120.0)], &obstacle)[0],
            None
        );
        // Three chips at one anchor (a p=32 job's two edges in one gap, and a third).
        let wants = [
            want(100.0, 50.0, 0.0, 400.0),
            want(130.0, 55.0, 0.0, 400.0),
            want(400.0, 50.0, 0.0, 400.0),
        ];
        let at = place(&wants, &[]);
        let rects: Vec<ScreenRect> = at
            .iter()
            .zip(&wants)
            .map(|(p, w)| {
                let p = p.unwrap();
                let (cw, ch) = w.sizes[p.form];
                (p.x, p.y, cw, ch)
            })
            .collect();
        for i in 0..rects.len() {
            for j in 0..i {
                assert!(!meets(rects[i], rects[j]), "chips {i} and {j}: {rects:?}");
            }
        }
        assert_eq!(
            at[0],
            Some(Placed {
                form: 0,
                x: 30.0,
                y: 27.5
            })
        );
        assert_eq!(
            at[2].unwrap().y,
            27.5,
            "a chip with room stays at its anchor"
        );
    }
}
