// End to end: the savepoint button (issue 15) on the built site in headless Chromium.
//  1. open the `unaligned` preset (unaligned checkpoints every 2 s, the sink slow from 20 s),
//     play to exactly 30 s, press "Savepoint" (a recorded action, in the shared link);
//  2. play on to 36 s: the history has a row with data-checkpoint-type="SAVEPOINT", its
//     type pill says "savepoint (aligned)", it persisted no in-flight data, and it took
//     longer end to end than the unaligned checkpoints completed after it — screenshot
//     `savepoint-history.png`.
// No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, linkDocument, runTo, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();

test('savepoint button: an aligned savepoint row among unaligned checkpoints', { timeout: 180_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('unaligned');
  await page.getByTestId('timeline').waitFor();

  await runTo(page, 30);
  await page.getByTestId('trigger-savepoint').click();
  await runTo(page, 36);

  const row = page.locator('[data-testid="checkpoint-row"][data-checkpoint-type="SAVEPOINT"]');
  assert.equal(await row.count(), 1, 'one savepoint row');
  assert.equal(await row.getAttribute('data-status'), 'completed');
  assert.equal(await row.getAttribute('data-unaligned'), 'false');
  assert.equal(await row.getAttribute('data-persisted'), '0');
  assert.equal((await row.getByTestId('checkpoint-type').textContent()).trim(), 'savepoint (aligned)');
  const ucRows = page.locator('[data-testid="checkpoint-row"][data-checkpoint-type="UNALIGNED_CHECKPOINT"][data-status="completed"]');
  assert.ok((await ucRows.count()) > 5, 'unaligned checkpoints around it');

  // The recorded action is in the shared link.
  await page.getByTestId('share').click();
  await page.waitForFunction(() => location.hash.startsWith('#z'));
  const doc = linkDocument(await page.evaluate(() => location.hash));
  assert.ok(doc.events.some((e) => 'savepoint' in e && e.at === '30s'), JSON.stringify(doc.events));

  await page.getByTestId('checkpoints').scrollIntoViewIfNeeded();
  await page.getByTestId('checkpoints').screenshot({ path: join(SCREENSHOTS, 'savepoint-history.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
