// End to end: time travel on the built site in headless Chromium.
//  1. open the `backpressure` preset (a scenario failure at 45 s), play to exactly 28 s
//     ("Pause at"), trigger a checkpoint by hand there (a recorded action), play on to
//     exactly 50 s;
//  2. drag the timeline handle back to ~15 s: the clock follows, the marks of the whole
//     run stay (checkpoints, the failure and its recovery, the recorded action) —
//     screenshot `timeline.png`;
//  3. fail a subtask there: the run forks ("forked at"), the recorded action of the old
//     branch is gone from the timeline and from the shared link, the new Fail is in it —
//     screenshot `timeline-fork.png`.
// No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, linkDocument, runTo, sharedBrowser, watchProblems, fullPageShot } from './browser.mjs';

const browser = sharedBrowser();
const S = 1_000_000;

/** The virtual time the timeline shows (µs). */
async function timelineNow(page) {
  return Number(await page.locator('.tl').getAttribute('data-now'));
}



test('timeline: drag back, marks stay, a new action forks the run and the link', { timeout: 180_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('backpressure');
  await page.getByTestId('timeline').waitFor();

  await runTo(page, 28);
  await page.getByTestId('trigger-checkpoint').click();
  const recordedAt = await timelineNow(page);
  assert.equal(recordedAt, 28 * S);
  await page.locator('.tl-action.recorded').first().waitFor();
  await runTo(page, 50);
  const furthest = Number(await page.locator('.tl').getAttribute('data-furthest'));
  assert.equal(furthest, 50 * S, `reached ${furthest}`);
  const failureMarks = page.locator('[data-testid="timeline-mark"][data-kind="failure"]');
  assert.equal(await failureMarks.count(), 1, 'the scenario failure at 45 s is marked');

  // Drag the handle from where it is to ~15 s (mouse coordinates are the viewport's,
  // so the timeline must be on screen).
  await page.getByTestId('timeline-track').scrollIntoViewIfNeeded();
  const track = await page.getByTestId('timeline-track').boundingBox();
  const knob = await page.getByTestId('timeline-handle').boundingBox();
  const duration = 60 * S;
  const targetX = track.x + (track.width * 15 * S) / duration;
  await page.mouse.move(knob.x + knob.width / 2, knob.y + knob.height / 2);
  await page.mouse.down();
  // A drag of 12 moves (each a pointer event the page seeks on at most once a frame);
  // then wait until the page stands still at the last target, however long seeks take.
  await page.mouse.move(targetX, knob.y + knob.height / 2, { steps: 12 });
  await page.mouse.up();
  await page.waitForFunction(
    (t) => {
      const app = document.querySelector('[data-testid="app"]');
      const tl = document.querySelector('.tl');
      return app.dataset.run === 'paused' && tl.dataset.computing === 'false'
        && Math.abs(Number(app.dataset.nowUs) - t) < 0.5e6;
    },
    15 * S,
    { timeout: 60_000 },
  );
  const clock = await page.getByTestId('clock').textContent();
  assert.match(clock, /^1[45]\.\ds/, `clock after the drag: ${clock}`);
  assert.equal(await failureMarks.count(), 1, 'marks of the run ahead stay after seeking back');
  assert.ok(
    (await page.locator('[data-testid="timeline-mark"][data-kind="checkpoint"]').count()) >= 10,
    'completed checkpoints up to ~50 s are marked',
  );
  assert.equal(await page.locator('.tl-action.recorded').count(), 1, 'the recorded action is still ahead');
  assert.equal(await page.getByTestId('timeline-fork').count(), 0, 'seeking alone is not a fork');
  await page.getByTestId('timeline-track').hover({ position: { x: 300, y: 17 } });
  await page.getByTestId('timeline-hover').waitFor();
  await page.getByTestId('timeline').screenshot({ path: join(SCREENSHOTS, 'timeline.png') });

  // A new action here forks the run.
  await page.getByTestId('subtask-explode-0').click();
  await page.getByTestId('fail-subtask').click();
  const fork = page.getByTestId('timeline-fork');
  await fork.waitFor({ timeout: 10_000 });
  const forkAt = Number(await fork.getAttribute('data-at'));
  assert.ok(Math.abs(forkAt - 15 * S) < 0.5e6, `forked at ${forkAt}`);
  assert.equal(await page.locator('.tl-action.recorded').count(), 1, 'only the new action is recorded');
  // The forked branch has only its own failure so far (45 s is not reached on it yet).
  assert.equal(await failureMarks.count(), 1, 'the new failure is marked');
  assert.match(await failureMarks.first().getAttribute('title'), /explode#0/);
  await page.getByTestId('share').click();
  await page.waitForFunction(() => location.hash.startsWith('#z2:'));
  const doc = linkDocument(page.url());
  const events = JSON.stringify(doc.events);
  assert.match(events, /"explode"/, `the Fail is in the link: ${events}`);
  assert.doesNotMatch(events, /trigger/i, `the dropped checkpoint request (${recordedAt} µs) is not: ${events}`);
  await fullPageShot(page, join(SCREENSHOTS, 'timeline-fork.png'));
  await page.getByTestId('timeline').screenshot({ path: join(SCREENSHOTS, 'timeline-fork-panel.png') });
  assert.deepEqual(problems, [], 'no console errors');
  await page.close();
});

// What is drawn stays drawn: as a run goes on, the timeline's checkpoint marks, the
// history rows and the chart's bars already on the page stay the same DOM nodes with the
// same content, and only the new ones are added. Yew matches an unkeyed list from its
// end, so a list that grows at its end, or a keyed one spliced next to an unkeyed sibling,
// re-wrote every item on each new checkpoint (issue 19, item 5: ~250 DOM writes per frame
// on `large` at 100×, growing with the run).
test('timeline: marks, history rows and chart bars already drawn are kept as the run goes on', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('healthy');
  await page.getByTestId('timeline').waitFor();
  await runTo(page, 9);

  const firstMark = page.locator('.tl-mark.tl-checkpoint').first();
  const firstRow = page.locator('[data-testid="checkpoint-row"][data-id="1"]');
  const firstBar = page.locator('[data-testid="chart-duration"] rect').first();
  const marksBefore = await page.locator('.tl-mark.tl-checkpoint').count();
  assert.ok(marksBefore >= 2, `checkpoints marked by 9 s: ${marksBefore}`);
  const before = {
    mark: [await firstMark.getAttribute('title'), await firstMark.getAttribute('style')],
    bar: await firstBar.evaluate((el) => el.textContent),
  };
  for (const el of [firstMark, firstRow, firstBar]) await el.evaluate((node) => { node.__drawn = true; });

  await runTo(page, 20);
  const marksAfter = await page.locator('.tl-mark.tl-checkpoint').count();
  assert.ok(marksAfter >= marksBefore + 3, `more checkpoints marked by 20 s: ${marksBefore} -> ${marksAfter}`);
  for (const [name, el] of [['first mark', firstMark], ['row 1', firstRow], ['first bar', firstBar]]) {
    assert.equal(await el.evaluate((node) => node.__drawn === true), true, `the ${name} is the node drawn at 9 s`);
  }
  assert.deepEqual(
    [await firstMark.getAttribute('title'), await firstMark.getAttribute('style')],
    before.mark,
    'the first mark still marks checkpoint 1 where it was',
  );
  assert.equal(await firstBar.evaluate((el) => el.textContent), before.bar, 'the first bar is still checkpoint 1');
  assert.deepEqual(problems, [], 'no console errors');
  await page.close();
});
