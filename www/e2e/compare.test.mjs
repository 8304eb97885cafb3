// End to end: comparison mode (AC vs UC side by side) on the built site.
//  1. open the backpressure preset, enter "Compare AC vs UC", play at 10× to exactly 24
//     virtual seconds ("Pause at") while the frame time of the two engines is measured;
//  2. fail count#1 from run A's job view: the failure applies to both runs at the same
//     instant; play on to exactly 32 s and screenshot the figure (compare.png);
//  3. Share puts the comparison into the link, and opening that link opens compare
//     mode with the recorded failure; played to the end both runs recovered twice
//     (compare-end.png); the link with "at current time" opens both runs at 32 s;
//     leaving compare mode shows the single run.
// No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, frameStats, linkDocument, openLink, runTo, runToEnd, sharedBrowser, watchProblems, fullPageShot } from './browser.mjs';

const browser = sharedBrowser();

async function clockSeconds(page) {
  return parseFloat(await page.locator('[data-testid="clock"] .clock-value').textContent());
}



test('compare mode: AC vs UC side by side on the backpressure preset', { timeout: 240_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('backpressure');
  await page.getByTestId('compare-mode').selectOption('aligned|unaligned');
  await page.getByTestId('compare-toggle').click();
  await page.getByTestId('compare').waitFor();
  assert.equal(await page.getByTestId('compare-toggle').getAttribute('aria-pressed'), 'true');
  assert.equal(await page.getByTestId('compare-run-a').getAttribute('data-mode'), 'aligned');
  assert.equal(await page.getByTestId('compare-run-b').getAttribute('data-mode'), 'unaligned');

  // 10× (slider 50): a frame advances at most 100 ms × 10 of virtual time, so 24 s
  // take at least 24 frames on any machine.
  await runTo(page, 24, { speed: 50 });
  const { avg, p95, frames, engine, snapshot } = await frameStats(page);
  console.log(`frame work, compare backpressure AC|UC at 10x: avg ${avg.toFixed(2)} ms (engines ${engine.toFixed(2)}, snapshots ${snapshot.toFixed(2)}, rest = render), p95 ${p95.toFixed(2)} ms over ${frames} frames`);
  assert.ok(frames > 10, `frames were measured (${frames})`);

  // Fail count#1 from run A's view: both runs record it at the same instant.
  await page.getByTestId('compare-run-a').getByTestId('subtask-count-1').click();
  await page.getByTestId('fail-subtask').click();
  const failedAt = await clockSeconds(page);
  assert.equal(failedAt, 24);
  await runTo(page, 32);
  for (const side of ['a', 'b']) {
    const bars = page.locator(`[data-testid="compare-chart-replay"] [data-series="${side}"] rect.bar`);
    assert.equal(await bars.count(), 1, `run ${side} recovered from the failure at ${failedAt}s`);
    const dots = await page.locator(`[data-testid="compare-chart-duration"] [data-series="${side}"] circle.dot`).count();
    assert.ok(dots >= 8, `run ${side}: ${dots} completed checkpoints drawn`);
  }
  const summary = await page.getByTestId('compare-summary').textContent();
  assert.match(summary, /Median end-to-end duration/);
  const persisted = await page.getByTestId('compare-summary').locator('tr', { hasText: 'Median persisted in-flight' }).locator('td').allTextContents();
  assert.equal(persisted[0], '0 B', `aligned persists nothing (${persisted})`);
  assert.match(persisted[1], /KB|MB/, `unaligned persists in-flight data (${persisted})`);
  await fullPageShot(page, join(SCREENSHOTS, 'compare.png'));
  await page.getByTestId('compare').screenshot({ path: join(SCREENSHOTS, 'compare-figure.png') });

  // Share: the link carries the comparison and the failure; it reopens compare mode.
  await page.getByTestId('share-at-time').check();
  await page.getByTestId('share').click();
  await page.waitForFunction(() => location.hash.startsWith('#z2:') && location.hash.endsWith('&t=32s'));
  const atLink = page.url();
  const doc = linkDocument(atLink);
  assert.deepEqual(doc.compare, { a: 'aligned', b: 'unaligned' });
  assert.ok(doc.events.some((e) => e.fail?.operator === 'count' && e.fail?.subtask === 1), JSON.stringify(doc.events));
  // Opened at its moment, both runs stand at 32 s, each recovered once.
  const at = await openLink(page, atLink);
  assert.deepEqual([at.now, at.run], [32_000_000, 'paused']);
  await page.getByTestId('compare').waitFor({ timeout: 20_000 });
  for (const side of ['a', 'b']) {
    const bars = page.locator(`[data-testid="compare-chart-replay"] [data-series="${side}"] rect.bar`);
    assert.equal(await bars.count(), 1, `run ${side} at 32 s: the shared failure`);
  }
  const url = atLink.replace(/&t=.*$/, '');
  const opened = await openLink(page, url);
  assert.equal(opened.now, 0);
  await page.getByTestId('compare').waitFor({ timeout: 20_000 });
  assert.equal(await page.getByTestId('compare-mode').inputValue(), 'aligned|unaligned');
  // The reopened link replays the recorded failure in both runs, then the preset's own
  // failure at 45s: two recoveries each by the end.
  const end = await runToEnd(page);
  assert.equal(end.now, 60_000_000);
  assert.equal(await clockSeconds(page), 60);
  for (const side of ['a', 'b']) {
    const bars = page.locator(`[data-testid="compare-chart-replay"] [data-series="${side}"] rect.bar`);
    assert.equal(await bars.count(), 2, `run ${side}: the shared failure and the preset's`);
  }
  await page.getByTestId('compare').screenshot({ path: join(SCREENSHOTS, 'compare-end.png') });

  await page.getByTestId('compare-toggle').click();
  await page.getByTestId('job-graph').waitFor();
  assert.equal(await page.getByTestId('compare').count(), 0);
  await page.screenshot({ path: join(SCREENSHOTS, 'compare-left.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
