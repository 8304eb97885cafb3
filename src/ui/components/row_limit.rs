//! Tables that grow with the job or the run, bounded: a table of more than [`ROW_LIMIT`]
//! rows draws the [`ROW_LIMIT`] rows that matter most, and says so. The per-subtask
//! tables of a big job and the checkpoint history of a long run use it.
//!
//! Contract: [`pick`] returns the indices of the rows a table draws, ascending: every row
//! when there are at most [`ROW_LIMIT`] or the viewer asked for all of them, else the
//! [`ROW_LIMIT`] rows with the highest score (ties to the earlier row), still in the
//! table's own order. [`footer`] renders, only for a table past the limit, how many rows
//! of how many are drawn and which (`<testid>-limit`, with `data-shown` and
//! `data-total`), and a button (`<testid>-all`) that shows every row or bounds the table
//! again. The scores are figures the report already holds; nothing is computed here
//! about the job.
//!
//! Why: a job at parallelism 1,024 (3,072 subtasks) drew 112,414 elements, 110,643 of
//! them in four per-subtask tables (the checkpoint's phase timeline, the diagnosis's
//! subtasks, soft/hard windows and metrics); a page that size answers slowly to every
//! frame. And a `large` run of 300 s (290 checkpoints) grew the page from 1,265 to 9,686
//! elements, 5,284 of them the checkpoint history, re-diffed by every frame while it plays.
//!
//! [`pick`] is plain Rust (tested natively); the rest is Yew and built for wasm only.

#[cfg(target_arch = "wasm32")]
use yew::prelude::*;

#[cfg(target_arch = "wasm32")]
use crate::ui::i18n::{t, tf};

/// The most rows a per-subtask table draws before the viewer asks for all of them.
pub const ROW_LIMIT: usize = 50;

/// The rows to draw: see the module's contract.
pub fn pick(scores: &[f64], all: bool) -> Vec<usize> {
    if all || scores.len() <= ROW_LIMIT {
        return (0..scores.len()).collect();
    }
    let mut order: Vec<usize> = (0..scores.len()).collect();
    crate::compact_sort::sort_by(&mut order, |&a, &b| {
        scores[b].total_cmp(&scores[a]).then(a.cmp(&b))
    });
    order.truncate(ROW_LIMIT);
    order.sort_unstable();
    order
}

/// What a bounded table's rows are, for its footer's sentence.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rows {
    Subtasks,
    Checkpoints,
}

/// The line under a bounded table of `rows`: `which` says which rows are drawn ("the
/// slowest end to end"), in the viewer's language; its button flips `all`, the table's
/// "show every row" state. Nothing for a table within the limit.
#[cfg(target_arch = "wasm32")]
pub fn footer(
    testid: &str,
    rows: Rows,
    total: usize,
    all: &UseStateHandle<bool>,
    which: &str,
) -> Html {
    if total <= ROW_LIMIT {
        return html! {};
    }
    let on_toggle = {
        let all = all.clone();
        Callback::from(move |_: MouseEvent| all.set(!*all))
    };
    let all = **all;
    let shown = if all { total } else { ROW_LIMIT };
    let text = match (rows, all) {
        (Rows::Subtasks, true) => tf("All {0} subtasks shown.", &[&total]),
        (Rows::Subtasks, false) => tf(
            "{0} of {1} subtasks shown: {2}.",
            &[&ROW_LIMIT, &total, &which],
        ),
        (Rows::Checkpoints, true) => tf("All {0} checkpoints shown.", &[&total]),
        (Rows::Checkpoints, false) => tf(
            "{0} of {1} checkpoints shown: {2}.",
            &[&ROW_LIMIT, &total, &which],
        ),
    };
    let label = if all {
        tf("Show only {0}", &[&ROW_LIMIT])
    } else {
        tf("Show all {0}", &[&total])
    };
    html! {
        <p class="muted row-limit" data-testid={format!("{testid}-limit")}
            data-shown={shown.to_string()} data-total={total.to_string()}>
            { text }{ " " }
            <button class="btn-link" data-testid={format!("{testid}-all")} onclick={on_toggle}
                title={t("Drawing every row of a big job makes the page slower")}>{ label }</button>
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_tables_draw_every_row() {
        let scores: Vec<f64> = (0..ROW_LIMIT).map(|i| i as f64).collect();
        assert_eq!(pick(&scores, false), (0..ROW_LIMIT).collect::<Vec<_>>());
    }

    #[test]
    fn big_tables_draw_the_highest_scores_in_table_order() {
        // 3,072 rows, scores rising with the row, and ties at the top: the last rows win,
        // the earlier of two tied rows first.
        let mut scores: Vec<f64> = (0..3072).map(|i| (i % 1000) as f64).collect();
        scores[5] = 5000.0;
        let picked = pick(&scores, false);
        assert_eq!(picked.len(), ROW_LIMIT);
        assert!(picked.windows(2).all(|w| w[0] < w[1]), "in table order");
        assert_eq!(picked[0], 5, "the highest score is drawn");
        let min_kept = picked
            .iter()
            .map(|&i| scores[i])
            .fold(f64::INFINITY, f64::min);
        let dropped_max = (0..scores.len())
            .filter(|i| !picked.contains(i))
            .map(|i| scores[i])
            .fold(f64::NEG_INFINITY, f64::max);
        assert!(min_kept >= dropped_max, "{min_kept} < {dropped_max}");
        assert_eq!(pick(&scores, true).len(), 3072, "all on request");
    }

    #[test]
    fn nan_scores_do_not_panic_and_keep_the_count() {
        let scores = vec![f64::NAN; ROW_LIMIT * 3];
        assert_eq!(pick(&scores, false).len(), ROW_LIMIT);
    }
}
