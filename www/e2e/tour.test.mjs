// End to end: the views issue 17 asks to be looked at, at 1280×720, 1440×900 and 1920×1080 —
// `large` running, an edited job, compare mode and the Chinese interface (the default
// preset and `two-phases` while stepping are stage.test.mjs's). At each size each view must
// be drawn (the job view has subtasks on the first screen), fit the page's width (no
// horizontal scroll, no subtask box beyond the viewport), and raise no console error.
// Screenshots: tour-<view>-<w>.png. Only the page's own state is waited on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SCREENSHOTS, openPreset, runTo, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();
const SIZES = [[1280, 720], [1440, 900], [1920, 1080]];

/** The page's width overflow, and the subtask boxes of `root` (or the page) on screen. */
async function fit(page, root = 'body') {
  return page.evaluate((sel) => {
    window.scrollTo(0, 0);
    const scope = document.querySelector(sel) ?? document.body;
    const boxes = [...scope.querySelectorAll('[data-testid^="subtask-"][data-backpressure]')]
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0);
    return {
      overflow: document.documentElement.scrollWidth - innerWidth,
      boxes: boxes.length,
      onFirstScreen: boxes.filter((r) => r.top >= 0 && r.bottom <= innerHeight).length,
      beyondRight: boxes.filter((r) => r.right > innerWidth + 0.5).length,
    };
  }, root);
}

function assertFits(what, w, s) {
  assert.equal(s.overflow, 0, `${what} at ${w}: the page has no horizontal scroll (${s.overflow} px)`);
  assert.ok(s.boxes > 0, `${what} at ${w}: subtasks are drawn`);
  assert.ok(s.onFirstScreen > 0, `${what} at ${w}: subtasks on the first screen`);
  assert.equal(s.beyondRight, 0, `${what} at ${w}: no subtask beyond the viewport's right edge`);
}

test('large, an edited job, compare mode and the Chinese interface fit at three sizes', { timeout: 600_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });

    await openPreset(page, 'large');
    await runTo(page, 8);
    // The guide's watch list numbers from 1 after a switch from a longer list (Chromium kept
    // the old numbering: "3.", "4." for the two items of `large`).
    const numbers = await page.locator('.guide-watch li').evaluateAll((lis) => lis.map((li) => li.value));
    assert.deepEqual(numbers, numbers.map((_, i) => i + 1), `large at ${w}: the watch list numbers from 1`);
    const large = await fit(page, '[data-testid="job-graph"]');
    await page.screenshot({ path: join(SCREENSHOTS, `tour-large-${w}.png`) });
    assertFits('large', w, large);
    console.log(`${w}x${h} large: ${large.boxes} subtask boxes, ${large.onFirstScreen} on the first screen`);

    // An edited job: the healthy preset with its sink at parallelism 2, applied and run.
    await openPreset(page, 'healthy');
    await page.getByTestId('edit-job').click();
    await page.getByTestId('editor').waitFor();
    await page.getByTestId('editor').screenshot({ path: join(SCREENSHOTS, `tour-editor-${w}.png`) });
    const editor = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.equal(editor, 0, `editor at ${w}: no horizontal scroll`);
    const field = page.getByTestId('editor-op-out-parallelism');
    await field.fill('2');
    await field.press('Enter');
    await field.blur();
    await page.getByTestId('editor-ok').waitFor();
    await page.getByTestId('editor-apply').click();
    await page.getByTestId('editor').waitFor({ state: 'detached' });
    assert.equal(await page.getByTestId('preset-select').inputValue(), '', 'an edited job is no longer the preset');
    await page.getByTestId('subtask-out-1').waitFor();
    await runTo(page, 6);
    const edited = await fit(page, '[data-testid="job-graph"]');
    await page.screenshot({ path: join(SCREENSHOTS, `tour-edited-${w}.png`) });
    assertFits('edited job', w, edited);

    // Compare mode: aligned vs unaligned on the backpressure preset.
    await openPreset(page, 'backpressure');
    await page.getByTestId('compare-mode').selectOption('aligned|unaligned');
    await page.getByTestId('compare-toggle').click();
    await page.getByTestId('compare').waitFor();
    await runTo(page, 10);
    for (const side of ['compare-run-a', 'compare-run-b']) {
      const s = await fit(page, `[data-testid="${side}"]`);
      assert.equal(s.overflow, 0, `compare at ${w}: no horizontal scroll`);
      assert.ok(s.boxes > 0, `compare at ${w}: ${side} draws its subtasks`);
      assert.equal(s.beyondRight, 0, `compare at ${w}: ${side} within the viewport`);
    }
    await page.screenshot({ path: join(SCREENSHOTS, `tour-compare-${w}.png`) });
    await page.getByTestId('compare-toggle').click();
    await page.getByTestId('compare').waitFor({ state: 'detached' });

    // The Chinese interface on the default preset.
    await openPreset(page);
    if ((await page.evaluate(() => document.documentElement.lang)) !== 'zh-CN') {
      await page.getByTestId('lang-toggle').click();
      await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    }
    await runTo(page, 12);
    const zh = await fit(page, '[data-testid="job-graph"]');
    await page.screenshot({ path: join(SCREENSHOTS, `tour-zh-${w}.png`) });
    assertFits('zh', w, zh);
    assert.match(await page.getByTestId('share').innerText(), /分享/, 'the interface is Chinese');
    await page.getByTestId('lang-toggle').click();
    await page.waitForFunction(() => document.documentElement.lang === 'en');
  }
  assert.deepEqual(problems, [], 'no console errors or page errors');
  await page.close();
});
