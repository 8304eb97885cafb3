// End to end: the built site in headless Chromium, driven like a user.
//  1. open a link of the `unaligned` preset, raise the speed, press play, wait for a
//     completed unaligned checkpoint row with persisted in-flight data;
//  2. select a subtask, fail it, see the failure / recovery row and the sink verdict;
//  3. a corrupted link shows the error banner and still opens the default scenario;
//  4. the `large` preset (28 subtasks) plays while the frame time is measured.
// No console errors anywhere; a screenshot of each stage goes to e2e/screenshots/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, frameStats, setSpeed, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();

async function openPreset(page, name) {
  // The preset picker writes the preset's link into the URL; reloading that URL is
  // then "opening a preset link", exactly what a shared link does.
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption(name);
  await page.waitForFunction(() => location.hash.startsWith('#z2:'));
  const url = page.url();
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  assert.equal(await page.getByTestId('preset-select').inputValue(), name, 'the link opens the preset');
  return url;
}


test('unaligned preset: play, unaligned checkpoint, fail a subtask, recovery and verdict', { timeout: 180_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await openPreset(page, 'unaligned');
  assert.equal(await page.getByTestId('error-banner').count(), 0);
  await page.screenshot({ path: join(SCREENSHOTS, '1-opened.png'), fullPage: true });

  await setSpeed(page, 75); // 10^(−1 + 3) = 100×
  assert.match(await page.getByTestId('speed-value').textContent(), /100×/);
  await page.getByTestId('play').click();
  const row = page.locator('[data-testid="checkpoint-row"][data-status="completed"][data-unaligned="true"]').first();
  await row.waitFor({ timeout: 60_000 });
  const persisted = Number(await row.getAttribute('data-persisted'));
  assert.ok(persisted > 0, `persisted in-flight bytes ${persisted} > 0`);
  await page.getByTestId('pause').click();
  await row.click();
  await page.getByTestId('checkpoint-timeline').waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, '2-unaligned-checkpoint.png'), fullPage: true });

  await page.getByTestId('subtask-count-0').click();
  await page.getByTestId('subtask-details').waitFor();
  await page.getByTestId('fail-subtask').click();
  await page.getByTestId('failure-row').first().waitFor({ timeout: 10_000 });
  await setSpeed(page, 50); // 10×: the run is 60s long
  await page.getByTestId('play').click();
  await page.waitForFunction(() => {
    const row = document.querySelector('[data-testid="failure-row"]');
    return row && row.getAttribute('data-restored') !== '' && !row.textContent.includes('recovering…');
  }, null, { timeout: 60_000 });
  // Let a few checkpoints complete after the restore, so the sink commits again.
  await page.waitForTimeout(1500);
  if (await page.getByTestId('pause').isEnabled()) await page.getByTestId('pause').click();
  const verdict = page.getByTestId('sink-verdict');
  assert.equal(await verdict.getAttribute('data-exactly-once'), 'true', await verdict.textContent());
  assert.ok(Number(await page.getByTestId('committed').textContent()) > 0, 'records were committed');
  await page.screenshot({ path: join(SCREENSHOTS, '3-failure-recovery.png'), fullPage: true });

  // Share puts the scenario, with the recorded failure, into the URL.
  await page.getByTestId('share').click();
  await page.getByTestId('share-note').waitFor();
  assert.ok(page.url().includes('#z2:'), 'the link is in the address bar');

  // Keyboard: ? opens the help, Escape closes it.
  await page.keyboard.press('?');
  await page.getByTestId('help-overlay').waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, '4-help.png') });
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('help-overlay').count(), 0);

  assert.deepEqual(problems, [], 'no console errors, page errors or failed requests');
  await page.close();
});

test('a corrupted link shows the error banner and opens the default scenario', { timeout: 60_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${BASE_URL}#z:this-is-not-a-scenario`, { waitUntil: 'load' });
  const banner = page.getByTestId('error-banner');
  await banner.waitFor({ timeout: 20_000 });
  assert.match(await banner.textContent(), /could not be opened/);
  assert.ok(await page.getByTestId('subtask-out-0').isVisible(), 'the default scenario is drawn');
  await page.screenshot({ path: join(SCREENSHOTS, '5-bad-link.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('large preset: frame time while playing (28 subtasks)', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await openPreset(page, 'large');
  await setSpeed(page, 43); // 10^(−1 + 1.72) ≈ 5× (the run is 30s long)
  await page.getByTestId('play').click();
  await page.waitForTimeout(4000);
  // On a loaded machine the first frames can take a while: wait until some were measured.
  await page.waitForFunction(
    () => Number(document.querySelector('[data-testid="frame-stats"]')?.getAttribute('data-frames') ?? 0) > 10,
    null,
    { timeout: 60_000 },
  );
  const { avg, p95, frames, engine, snapshot } = await frameStats(page);
  const clock = await page.getByTestId('clock').textContent();
  const lanes = page.getByTestId('job-lanes');
  const drawMs = Number(await lanes.getAttribute('data-draw-ms'));
  const channels = Number(await lanes.getAttribute('data-channels'));
  console.log(`frame work, preset large at ~5x: avg ${avg.toFixed(2)} ms (engine ${engine.toFixed(2)}, snapshots ${snapshot.toFixed(2)}, rest = render), p95 ${p95.toFixed(2)} ms over ${frames} frames; clock ${clock}; last lane paint ${drawMs.toFixed(2)} ms for ${channels} channels`);
  assert.ok(channels > 100, `the lane canvas drew every channel (${channels})`);
  const size = await lanes.evaluate((el) => [el.width, el.height, el.clientWidth]);
  assert.ok(size[0] >= size[2] && size[1] > 0, `the lane canvas has a backing store at the CSS size or more (${size})`);
  await page.screenshot({ path: join(SCREENSHOTS, '6-large.png'), fullPage: true });
  if (await page.getByTestId('pause').isEnabled()) await page.getByTestId('pause').click();
  assert.ok(frames > 10, `frames were measured (${frames})`);
  assert.deepEqual(problems, []);
  await page.close();
});
