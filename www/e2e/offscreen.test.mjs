// End to end: the panels below the first screen while a run plays (src/ui/offscreen.rs).
// Off screen they may keep the snapshot they drew last; scrolled into view they catch up
// while the run still plays, and when it stops every panel shows the moment it stopped at.
// Waits on what the page shows, never on wall-clock time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_URL, runState, setPauseAt, setSpeed, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();

test('offscreen: a lower panel scrolled into view while playing catches up, and all are current on pause', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('healthy');
  await page.getByTestId('timeline').waitFor();
  await setPauseAt(page, null);
  await setSpeed(page, 30);
  await page.getByTestId('play').click();

  // Three checkpoints marked on the timeline (on screen), the run still playing.
  const marks = page.locator('.tl-mark.tl-checkpoint');
  await page.waitForFunction(() => document.querySelectorAll('.tl-mark.tl-checkpoint').length >= 3, null, { timeout: 60_000 });
  const marked = await marks.count();
  assert.equal((await runState(page)).run, 'playing', 'still playing (the slider is slow enough)');

  // Scrolled to, the history shows at least those checkpoints while the run plays on.
  const history = page.getByTestId('checkpoints');
  await history.scrollIntoViewIfNeeded();
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid="checkpoint-row"][data-status="completed"]').length >= n,
    marked,
    { timeout: 30_000 },
  );
  assert.equal((await runState(page)).run, 'playing', 'caught up while playing, not on a pause');

  // Back at the top, then paused: every lower panel shows the moment of the pause.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByTestId('pause').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="app"]')?.dataset.run !== 'playing');
  const endedMarks = await marks.count();
  const rows = await page.locator('[data-testid="checkpoint-row"]').evaluateAll((els) =>
    els.filter((el) => el.dataset.status !== 'in_progress').length,
  );
  assert.equal(rows, endedMarks, 'the history lists every checkpoint the timeline marks');
  const bars = await page.locator('[data-testid="chart-duration"] rect').count();
  assert.ok(bars >= endedMarks, `the duration chart has a bar per checkpoint: ${bars} for ${endedMarks}`);
  assert.deepEqual(problems, [], 'no console errors');
  await page.close();
});
