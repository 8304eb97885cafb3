// End to end: the job view is the stage (issue 17 items 5 and 7).
//  5. at 1280×720, 1440×900 and 1920×1080 the whole job graph of the default preset is on
//     the first screen with the guide beside it, and the checkpoint table (with
//     checkpoints in it) fits without horizontal scroll at 1440 and 1920; the job view's
//     visible height is printed for each size;
//  7. the checkpoint step stops in the synchronous phase (the subtask shows a `sync`
//     badge) and then where the asynchronous phase begins; presentation mode (p, or the
//     job view's toggle) shows the job view alone, scaled to the screen with buffer cells
//     at least 16 px wide, in high contrast, and Esc leaves it; "captured", "OK" and
//     "recovered" are three distinct colours, each readable on the surface, in the light
//     and the dark theme.
// Screenshots: stage-default-<w>.png, stage-sync-<w>.png, stage-async-<w>.png,
// stage-present-<w>.png at the three sizes. Frame work on `large` at 100× is printed.
// Only the page's own state is waited on (no wall-clock waits). No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, frameStats, openPreset as open, runTo, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();
const SIZES = [[1280, 720], [1440, 900], [1920, 1080]];


/** Where the job view is, on the first screen (the page scrolled to its top). */
async function stage(page) {
  return page.evaluate(() => {
    window.scrollTo(0, 0);
    const box = (sel) => {
      const el = document.querySelector(sel);
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height, width: r.width };
    };
    const graph = box('[data-testid="job-graph-canvas"]');
    const visible = Math.max(0, Math.min(graph.bottom, innerHeight) - Math.max(graph.top, 0));
    const tables = [...document.querySelectorAll('[data-testid="checkpoints"] .table-scroll')]
      .map((t) => t.scrollWidth - t.clientWidth);
    const canvas = document.querySelector('[data-testid="job-lanes"]');
    return {
      graph, visible, guide: box('[data-testid="guide"]'), innerHeight, innerWidth,
      tableOverflow: Math.max(0, ...tables), tables: tables.length,
      pageOverflow: document.documentElement.scrollWidth - innerWidth,
      scale: Number(canvas?.dataset.scale ?? 0),
      cell: Number(canvas?.dataset.cellPx ?? 0),
    };
  });
}

/** Presses "Checkpoint step" until a step's note has a line matching `re`; returns the lines. */
async function stepUntil(page, re, counter, limit = 80) {
  for (let i = 0; i < limit; i++) {
    counter.n += 1;
    await page.getByTestId('step-checkpoint').click();
    const note = page.locator(`[data-testid="checkpoint-step-note"][data-count="${counter.n}"]`);
    await note.waitFor();
    const lines = await note.locator('.step-line').allTextContents();
    if (lines.some((l) => re.test(l))) return lines;
  }
  throw new Error(`no checkpoint step matched ${re} in ${limit} steps`);
}

test('5. the job view is on the first screen, the guide beside it, the table without horizontal scroll', { timeout: 300_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await open(page);
    await runTo(page, 12);
    const s = await stage(page);
    console.log(`${w}x${h}: job view top ${s.graph.top.toFixed(0)} px, height ${s.graph.height.toFixed(0)} px, visible on the first screen ${s.visible.toFixed(0)} px; guide at x ${s.guide?.left.toFixed(0)}; checkpoint table overflow ${s.tableOverflow} px`);
    await page.screenshot({ path: join(SCREENSHOTS, `stage-default-${w}.png`) });
    assert.ok(s.graph.height > 100, `${w}: the job view is drawn (${s.graph.height} px)`);
    assert.ok(s.graph.top >= 0 && s.graph.bottom <= s.innerHeight,
      `${w}×${h}: the whole job view is on the first screen (${s.graph.top.toFixed(0)}–${s.graph.bottom.toFixed(0)} of ${s.innerHeight})`);
    assert.ok(s.guide && s.guide.left >= s.graph.right && s.guide.top < s.innerHeight,
      `${w}: the guide stands beside the job view`);
    assert.equal(s.pageOverflow, 0, `${w}: the page has no horizontal scroll`);
    assert.ok(s.tables > 0, 'the checkpoint table is there');
    if (w >= 1440) assert.equal(s.tableOverflow, 0, `${w}: the checkpoint table fits without horizontal scroll`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('7. the checkpoint step stops in the sync phase and where the async phase begins; presentation mode', { timeout: 300_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await open(page, 'two-phases');
    // A freshly loaded page counts its checkpoint steps from 0 (the note's data-count).
    const counter = { n: 0 };
    // The synchronous phase: the step stops while parse's snapshot holds its thread.
    // Subtasks are named as Flink's web UI names them (`parse (1/2)`; `parse#0` unchained).
    const sync = await stepUntil(page, /^[\d.]+s\s+sync phase: parse(#\d| \(\d+\/\d+\))/, counter);
    const m = /sync phase: (parse(?:#(\d)| \((\d+)\/\d+\)))/.exec(sync.find((l) => /sync phase:/.test(l)));
    const who = m[1];
    const index = m[2] !== undefined ? m[2] : String(Number(m[3]) - 1);
    const subtask = page.getByTestId(`subtask-parse-${index}`);
    assert.equal(await subtask.getAttribute('data-checkpoint-phase'), 'sync', `${who} shows its sync phase`);
    const badge = page.getByTestId(`phase-badge-parse-${index}`);
    assert.match(await badge.getAttribute('class'), /phase-sync/);
    assert.match(await badge.textContent(), /^SYNC/);
    await page.screenshot({ path: join(SCREENSHOTS, `stage-sync-${w}.png`) });
    // The next step: the async phase begins, at the end of that snapshot.
    const next = await stepUntil(page, /async phase begins/, counter, 1);
    assert.ok(next[0].includes(who), `the async step names ${who}: ${next[0]}`);
    assert.match(await subtask.getAttribute('data-checkpoint-phase'), /^async/);
    assert.match(await badge.getAttribute('class'), /phase-async/);
    await page.screenshot({ path: join(SCREENSHOTS, `stage-async-${w}.png`) });

    // Presentation mode: p, the job view alone, scaled up, high contrast.
    const before = await stage(page);
    await page.locator('body').press('p');
    await page.waitForFunction(() => document.querySelector('[data-testid="app"]')?.dataset.presentation === 'true');
    await page.waitForFunction((old) => Number(document.querySelector('[data-testid="job-lanes"]')?.dataset.scale) > old, before.scale);
    const s = await stage(page);
    console.log(`${w}x${h} presentation: job view ${s.graph.width.toFixed(0)}×${s.graph.height.toFixed(0)} px (was ${before.graph.width.toFixed(0)}×${before.graph.height.toFixed(0)}), a buffer cell ${s.cell.toFixed(1)} px wide (was ${before.cell.toFixed(1)})`);
    assert.ok(s.cell >= 1.5 * before.cell && s.cell >= 13, `${w}: buffer cells are larger (${before.cell} → ${s.cell} px)`);
    assert.ok(s.graph.top >= 0 && s.graph.bottom <= s.innerHeight, `${w}: the job view fits the screen`);
    assert.equal(await page.getByTestId('checkpoints').isVisible(), false, 'the other panels are out of the way');
    assert.equal(await page.getByTestId('guide').isVisible(), false);
    const contrast = await page.getByTestId('app').evaluate((el) => {
      const css = getComputedStyle(el);
      return [css.getPropertyValue('--text').trim(), css.getPropertyValue('--surface').trim()];
    });
    assert.ok(contrastRatio(...contrast) >= 15, `high contrast: ${contrast} → ${contrastRatio(...contrast)}`);
    await page.screenshot({ path: join(SCREENSHOTS, `stage-present-${w}.png`) });
    await page.locator('body').press('Escape');
    await page.waitForFunction(() => !document.querySelector('[data-testid="app"]')?.dataset.presentation);
    // The toggle button does the same.
    await page.getByTestId('presentation-toggle').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="app"]')?.dataset.presentation === 'true');
    assert.equal(await page.getByTestId('presentation-toggle').getAttribute('aria-pressed'), 'true');
    await page.getByTestId('presentation-toggle').click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="app"]')?.dataset.presentation);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// WCAG relative luminance and contrast; CIE76 ΔE in CIELAB (D65).
function rgb(hex) {
  const h = hex.replace('#', '');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16) / 255);
}
function linear(c) { return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; }
function luminance(hex) { const [r, g, b] = rgb(hex).map(linear); return 0.2126 * r + 0.7152 * g + 0.0722 * b; }
function contrastRatio(a, b) { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); }
function lab(hex) {
  const [r, g, b] = rgb(hex).map(linear);
  const f = (t) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const x = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047);
  const y = f(0.2126 * r + 0.7152 * g + 0.0722 * b);
  const z = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
}
function deltaE(a, b) { const [p, q] = [lab(a), lab(b)]; return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]); }

test('7. "captured", "OK" and "recovered" are three distinct colours in the light and dark themes', { timeout: 60_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await open(page);
  for (const theme of ['light', 'dark']) {
    const c = await page.evaluate((t) => {
      document.documentElement.setAttribute('data-theme', t);
      const el = document.querySelector('[data-testid="app"]');
      const css = getComputedStyle(el);
      const v = (n) => css.getPropertyValue(n).trim();
      return { captured: v('--persisted'), ok: v('--ok-line'), recovered: v('--recovered'), surface: v('--surface') };
    }, theme);
    const pairs = [['captured', 'ok'], ['captured', 'recovered'], ['ok', 'recovered']];
    const distances = pairs.map(([a, b]) => deltaE(c[a], c[b]));
    console.log(`${theme}: captured ${c.captured}, OK ${c.ok}, recovered ${c.recovered} on ${c.surface}; ΔE ${distances.map((d) => d.toFixed(0)).join(', ')}; contrast ${['captured', 'ok', 'recovered'].map((k) => contrastRatio(c[k], c.surface).toFixed(1)).join(', ')}`);
    pairs.forEach(([a, b], i) => assert.ok(distances[i] >= 50, `${theme}: ${a} ${c[a]} and ${b} ${c[b]} are far apart (ΔE ${distances[i].toFixed(1)})`));
    for (const k of ['captured', 'ok', 'recovered']) {
      assert.ok(contrastRatio(c[k], c.surface) >= 4.5, `${theme}: ${k} ${c[k]} reads on ${c.surface}`);
    }
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('frame work on large at 100x (printed)', { timeout: 300_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, 'large');
  await runTo(page, 20, { speed: 75 });
  const stats = await frameStats(page);
  const interval = Number(await page.getByTestId('frame-stats').getAttribute('data-interval-ms'));
  console.log(`frame work, large at 100x: avg ${stats.avg.toFixed(2)} ms, p95 ${stats.p95.toFixed(2)} ms (engine ${stats.engine.toFixed(2)}, snapshots ${stats.snapshot.toFixed(2)}) over ${stats.frames} frames; interval ${interval.toFixed(2)} ms`);
  await page.screenshot({ path: join(SCREENSHOTS, 'stage-large-1440.png') });
  assert.ok(stats.frames > 0);
  assert.deepEqual(problems, []);
  await page.close();
});
