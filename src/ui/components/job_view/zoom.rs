//! The job view's viewport: which part of the layout is on the screen, and at what
//! scale. Contract: a [`Viewport`] maps a layout point `p` to the screen point
//! `(p - origin) × k` (CSS px, relative to the stage's top-left corner). [`Viewport::fit`]
//! shows the whole layout, centred; [`Viewport::zoom_at`] scales about a screen point that
//! keeps the layout point under it; [`Viewport::pan`] moves by screen pixels; every result
//! is clamped ([`Viewport::clamped`]) so that some of the job stays on the screen and the
//! scale stays within [`MIN_ZOOM_OF_FIT`] × fit .. [`MAX_K`]. [`key_action`] says what a
//! key does while the job view has the focus (`+`/`=` in, `-` out, `0` fit, arrows pan),
//! so the panel and its tests agree on the key list. Pure: no DOM.

/// The largest scale: CSS px per layout unit (a buffer cell of 8 units is then 48 px).
pub const MAX_K: f64 = 6.0;
/// How far out one may zoom, relative to the fit scale (and never below 0.02).
pub const MIN_ZOOM_OF_FIT: f64 = 0.5;
/// One zoom step of the keys and buttons; the wheel uses [`wheel_factor`].
pub const ZOOM_STEP: f64 = 1.25;
/// One arrow key press, in screen px.
pub const PAN_STEP_PX: f64 = 60.0;
/// Screen px of the job that must stay visible when panning to an edge.
const KEEP_PX: f64 = 40.0;

/// A size or a point, in layout units or screen px as the field says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Size {
    pub w: f64,
    pub h: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// The layout point at the stage's top-left corner.
    pub x: f64,
    pub y: f64,
    /// CSS px per layout unit.
    pub k: f64,
}

/// What a key does to the viewport.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ViewKey {
    ZoomIn,
    ZoomOut,
    Fit,
    /// Screen px to move the view by (the job moves the other way).
    Pan(f64, f64),
}

/// The viewport action of `key` while the job view has the focus; `None` leaves the key
/// to the page (Space, `n`, `?`, …).
pub fn key_action(key: &str) -> Option<ViewKey> {
    Some(match key {
        "+" | "=" => ViewKey::ZoomIn,
        "-" | "_" => ViewKey::ZoomOut,
        "0" => ViewKey::Fit,
        "ArrowLeft" => ViewKey::Pan(-PAN_STEP_PX, 0.0),
        "ArrowRight" => ViewKey::Pan(PAN_STEP_PX, 0.0),
        "ArrowUp" => ViewKey::Pan(0.0, -PAN_STEP_PX),
        "ArrowDown" => ViewKey::Pan(0.0, PAN_STEP_PX),
        _ => return None,
    })
}

/// The zoom factor of a wheel movement of `delta_y` screen px (up = in): 1.25 per
/// 100 px, so a notched wheel and a touchpad zoom at the same rate.
pub fn wheel_factor(delta_y: f64) -> f64 {
    ZOOM_STEP.powf(-delta_y.clamp(-500.0, 500.0) / 100.0)
}

/// The scale that shows all of `content` in `view`.
pub fn fit_k(content: Size, view: Size) -> f64 {
    if content.w <= 0.0 || content.h <= 0.0 || view.w <= 0.0 || view.h <= 0.0 {
        return 1.0;
    }
    (view.w / content.w).min(view.h / content.h).min(MAX_K)
}

impl Viewport {
    /// The whole of `content`, centred in `view`.
    pub fn fit(content: Size, view: Size) -> Viewport {
        let k = fit_k(content, view);
        Viewport {
            x: (content.w - view.w / k) / 2.0,
            y: (content.h - view.h / k) / 2.0,
            k,
        }
    }

    /// The layout point under the screen point (`sx`, `sy`).
    pub fn to_layout(&self, sx: f64, sy: f64) -> (f64, f64) {
        (self.x + sx / self.k, self.y + sy / self.k)
    }

    /// The layout rectangle on the screen: x, y, w, h.
    pub fn visible(&self, view: Size) -> (f64, f64, f64, f64) {
        (self.x, self.y, view.w / self.k, view.h / self.k)
    }

    /// Scaled by `factor` about the screen point (`sx`, `sy`).
    pub fn zoom_at(&self, factor: f64, sx: f64, sy: f64, content: Size, view: Size) -> Viewport {
        let (lx, ly) = self.to_layout(sx, sy);
        let k = clamp_k(self.k * factor, content, view);
        Viewport {
            x: lx - sx / k,
            y: ly - sy / k,
            k,
        }
        .clamped(content, view)
    }

    /// Moved by (`dx`, `dy`) screen px (the view moves right and down: the job goes left
    /// and up).
    pub fn pan(&self, dx: f64, dy: f64, content: Size, view: Size) -> Viewport {
        Viewport {
            x: self.x + dx / self.k,
            y: self.y + dy / self.k,
            k: self.k,
        }
        .clamped(content, view)
    }

    /// The same view with the scale in its bounds and at least [`KEEP_PX`] of the job
    /// on the screen along each axis (a job smaller than the view stays where it is
    /// inside it, but cannot leave it).
    pub fn clamped(&self, content: Size, view: Size) -> Viewport {
        let k = clamp_k(self.k, content, view);
        let axis = |origin: f64, c: f64, v: f64| {
            let seen = v / k;
            let keep = (KEEP_PX / k).min(c);
            // The origin may go from `keep - seen` (the job's left edge `keep` from the
            // right of the screen) to `c - keep` (its right edge `keep` into the screen).
            let (lo, hi) = (keep - seen, c - keep);
            if lo > hi {
                (c - seen) / 2.0
            } else {
                origin.clamp(lo, hi)
            }
        };
        Viewport {
            x: axis(self.x, content.w, view.w),
            y: axis(self.y, content.h, view.h),
            k,
        }
    }

    /// The new viewport after `key` (None: not a viewport key).
    pub fn after_key(&self, key: ViewKey, content: Size, view: Size) -> Viewport {
        let (cx, cy) = (view.w / 2.0, view.h / 2.0);
        match key {
            ViewKey::ZoomIn => self.zoom_at(ZOOM_STEP, cx, cy, content, view),
            ViewKey::ZoomOut => self.zoom_at(1.0 / ZOOM_STEP, cx, cy, content, view),
            ViewKey::Fit => Viewport::fit(content, view),
            ViewKey::Pan(dx, dy) => self.pan(dx, dy, content, view),
        }
    }
}

/// The smallest font size, in screen px, at which the job view's names are drawn: a
/// 12 px operator id at a fit scale of 0.3 would be 3.6 px, a texture, not a name. Two
/// thirds of the names' own size, a judgement (below it the page's sans serif stops
/// reading as letters at 96 dpi), not a measurement: high enough that a far view can
/// be read, low enough that a job fitted at two thirds of its size keeps its small
/// print (levels, phases), which the enlarged names push out.
pub const LEGIBLE_FONT_PX: f64 = 8.0;
/// A line of text is this many times its font size tall (ascent and descent).
const LINE_EM: f64 = 1.2;

/// Semantic zoom of the names: `None` while a `font` (layout units) is legible at scale
/// `k` unchanged; below [`LEGIBLE_FONT_PX`] on the screen, the factor (> 1) that enlarges
/// it back to that size, at most as far as one line still fits in `room` (layout units:
/// the header's height above the subtasks, a subtask box's height), so an enlarged name
/// never covers the next box. The view then shows the names alone, without the smaller
/// print (kinds, inputs, levels) that could not be read anyway.
pub fn text_boost(k: f64, font: f64, room: f64) -> Option<f64> {
    let on_screen = font * k;
    if on_screen <= 0.0 || on_screen >= LEGIBLE_FONT_PX {
        return None;
    }
    let fits = room / (LINE_EM * font);
    let boost = (LEGIBLE_FONT_PX / on_screen).min(fits);
    (boost > 1.0).then_some(boost)
}

fn clamp_k(k: f64, content: Size, view: Size) -> f64 {
    let min = (fit_k(content, view) * MIN_ZOOM_OF_FIT).clamp(0.02, MAX_K);
    k.clamp(min, MAX_K)
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: Size = Size {
        w: 2000.0,
        h: 500.0,
    };
    const V: Size = Size {
        w: 1000.0,
        h: 500.0,
    };

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn fit_shows_everything_centred() {
        let vp = Viewport::fit(C, V);
        assert!(close(vp.k, 0.5));
        assert!(close(vp.x, 0.0));
        // 500 units high at 0.5 fill 250 px of 500: centred, 250 units above.
        assert!(close(vp.y, -250.0));
        let (x, y, w, h) = vp.visible(V);
        assert!(x <= 0.0 && y <= 0.0 && x + w >= C.w && y + h >= C.h);
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor() {
        let vp = Viewport::fit(C, V);
        let before = vp.to_layout(300.0, 200.0);
        let z = vp.zoom_at(2.0, 300.0, 200.0, C, V);
        assert!(close(z.k, 1.0));
        let after = z.to_layout(300.0, 200.0);
        assert!(
            close(before.0, after.0) && close(before.1, after.1),
            "{before:?} {after:?}"
        );
    }

    #[test]
    fn zoom_is_bounded() {
        let vp = Viewport::fit(C, V);
        let far = vp.zoom_at(1e-6, 0.0, 0.0, C, V);
        assert!(close(far.k, 0.25), "half the fit scale: {}", far.k);
        let near = vp.zoom_at(1e6, 0.0, 0.0, C, V);
        assert!(close(near.k, MAX_K));
    }

    #[test]
    fn pan_keeps_some_of_the_job_on_the_screen() {
        let vp = Viewport::fit(C, V).zoom_at(4.0, 500.0, 250.0, C, V);
        let gone = vp.pan(1e7, 1e7, C, V);
        // The job's right edge stays KEEP_PX into the screen.
        assert!(close((C.w - gone.x) * gone.k, KEEP_PX), "{gone:?}");
        let back = vp.pan(-1e7, 0.0, C, V);
        assert!(close((0.0 - back.x) * back.k, V.w - KEEP_PX));
    }

    #[test]
    fn keys_and_wheel() {
        assert_eq!(key_action("0"), Some(ViewKey::Fit));
        assert_eq!(key_action("+"), Some(ViewKey::ZoomIn));
        assert_eq!(key_action("="), Some(ViewKey::ZoomIn));
        assert_eq!(key_action("-"), Some(ViewKey::ZoomOut));
        assert_eq!(key_action(" "), None, "Space stays play / pause");
        assert_eq!(key_action("n"), None);
        assert!(wheel_factor(-100.0) > 1.0 && close(wheel_factor(-100.0), ZOOM_STEP));
        assert!(close(wheel_factor(100.0) * wheel_factor(-100.0), 1.0));
        let vp = Viewport::fit(C, V);
        let zin = vp.after_key(ViewKey::ZoomIn, C, V);
        assert!(close(zin.k, vp.k * ZOOM_STEP));
        let right = zin.after_key(ViewKey::Pan(PAN_STEP_PX, 0.0), C, V);
        assert!(close((right.x - zin.x) * zin.k, PAN_STEP_PX));
        assert_eq!(right.after_key(ViewKey::Fit, C, V), vp);
    }

    #[test]
    fn names_are_enlarged_only_below_the_legible_size_and_within_their_room() {
        // 12 units at k = 1: 12 px, legible as it is.
        assert_eq!(text_boost(1.0, 12.0, 40.0), None);
        assert_eq!(text_boost(LEGIBLE_FONT_PX / 12.0, 12.0, 40.0), None);
        // At k = 0.5: 6 px, enlarged back to 8 px.
        let b = text_boost(0.5, 12.0, 40.0).unwrap();
        assert!((12.0 * 0.5 * b - LEGIBLE_FONT_PX).abs() < 1e-9, "{b}");
        // At k = 0.2 the room of 40 units holds a line of at most 40 / 1.2 = 33.3
        // units: the boost stops there (8 / 2.4 = 3.3 would be needed).
        let b = text_boost(0.2, 12.0, 40.0).unwrap();
        assert!((b - 40.0 / (1.2 * 12.0)).abs() < 1e-9, "{b}");
        // No room for more than the font itself: nothing to enlarge.
        assert_eq!(text_boost(0.2, 12.0, 12.0), None);
        assert_eq!(text_boost(0.0, 12.0, 40.0), None);
    }
}
