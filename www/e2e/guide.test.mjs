// End to end: the guided presets in headless Chromium.
//  1. every preset, picked from the preset menu, plays to its end and every figure its
//     guide promises turns "met" in the guide panel (the same bounds the native tests
//     check, here through the page); a screenshot of each: preset-<name>.png;
//  2. a guide's "try" button re-runs the preset with the changed options, puts the new
//     link in the address bar, shows the try's own promises, which are met at the end;
//     "Back to the preset" returns.
// No console errors anywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, runToEnd, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();

/**
 * Plays the loaded run to its end and waits until the page says `finished` (not merely
 * "not playing", which also holds before Play took effect).
 */
async function playToEnd(page) {
  const state = await runToEnd(page);
  assert.equal(state.run, 'finished');
}

async function promiseStatuses(page) {
  return page.$$eval('[data-testid="guide-promise"]', (items) =>
    items.map((li) => ({ status: li.dataset.status, text: li.textContent.trim() })));
}

test('every preset reaches the figures its guide promises', { timeout: 900_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  const names = await page.$$eval('[data-testid="preset-select"] option', (os) =>
    os.map((o) => o.value).filter((v) => v));
  assert.ok(names.length >= 13, `presets in the menu: ${names}`);
  for (const name of names) {
    await page.getByTestId('preset-select').selectOption(name);
    await page.getByTestId('guide').waitFor();
    const before = await promiseStatuses(page);
    assert.ok(before.length > 0, `${name}: the guide promises figures`);
    assert.ok(before.every((p) => p.status !== 'missed'), `${name}: nothing missed before the run`);
    const started = Date.now();
    await playToEnd(page);
    const after = await promiseStatuses(page);
    const unmet = after.filter((p) => p.status !== 'met');
    console.log(`${name}: ${after.length - unmet.length}/${after.length} promises met in ${Date.now() - started} ms`);
    assert.deepEqual(unmet, [], `${name}: every promise is met at the end`);
    await page.getByTestId('guide').scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(SCREENSHOTS, `preset-${name}.png`) });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('a try re-runs the preset with its options and shows its own promises', { timeout: 300_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('why-uc');
  await page.waitForFunction(() => location.hash.startsWith('#z2:'));
  const presetLink = page.url();
  const label = await page.getByTestId('guide-try-0').textContent();
  assert.match(label, /unaligned/i);
  await page.getByTestId('guide-try-0').click();
  await page.waitForFunction((old) => location.href !== old, presetLink);
  assert.match(await page.getByTestId('guide-try-0').textContent(), /^Running: /);
  assert.ok(await page.getByTestId('guide-try-0').isDisabled());
  await playToEnd(page);
  const after = await promiseStatuses(page);
  assert.ok(after.length >= 3);
  assert.deepEqual(after.filter((p) => p.status !== 'met'), [], 'the try keeps its promises');
  await page.screenshot({ path: join(SCREENSHOTS, 'guide-try-why-uc.png') });

  // The try's link opens the same try, with its guide.
  const tryLink = page.url();
  await page.goto('about:blank');
  await page.goto(tryLink, { waitUntil: 'load' });
  await page.getByTestId('guide').waitFor({ timeout: 20_000 });
  assert.match(await page.getByTestId('guide-try-0').textContent(), /^Running: /);

  await page.getByTestId('guide-try-base').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="guide-try-base"]'));
  assert.equal(page.url(), presetLink, 'back to the preset link');
  assert.deepEqual(problems, []);
  await page.close();
});

test('"Checkpoint step" walks through the two phases of an unaligned checkpoint', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('two-phases');
  await page.getByTestId('guide').waitFor();
  const seen = [];
  for (let i = 0; i < 60; i++) {
    await page.getByTestId('step-checkpoint').click();
    // The note of this step (its count), not the previous one still on screen.
    const note = page.locator(`[data-testid="checkpoint-step-note"][data-count="${i + 1}"]`);
    await note.waitFor();
    const lines = await note.locator('.step-line').allTextContents();
    seen.push(...lines);
    if (lines.some((l) => l.includes('unaligned barrier at parse')) && !seen.some((l) => l.includes('acknowledged'))) {
      // The synchronous phase at parse: the overtaken buffers show as captured.
      await page.screenshot({ path: join(SCREENSHOTS, 'two-phases-sync.png') });
    }
    if (lines.some((l) => / completed in /.test(l))) break;
  }
  const at = (re) => seen.findIndex((l) => re.test(l));
  const order = [/triggered/, /unaligned barrier at parse/, /parse(#\d| \(\d+\/\d+\)) took its unaligned snapshot/, /parse(#\d| \(\d+\/\d+\)) acknowledged/, / completed in /].map(at);
  console.log(seen.join('\n'));
  assert.ok(order.every((i) => i >= 0), `every step seen: ${order}`);
  assert.deepEqual([...order].sort((a, b) => a - b), order, 'trigger → barrier → snapshot → acknowledgement → completion');
  await page.screenshot({ path: join(SCREENSHOTS, 'two-phases-completed.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
