// End to end: the built site, served over HTTP, opened in headless Chromium.
// Checks that the wasm app starts, renders the header and every panel, logs no
// errors, and saves a screenshot to www/e2e/screenshots/shell.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, sharedBrowser, watchProblems, fullPageShot } from './browser.mjs';

const browser = sharedBrowser();

test('the shell loads with its header and panels, and no errors', { timeout: 60_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);

  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 15_000 });

  assert.equal(await page.locator('h1').textContent(), 'Checkpoint Playground');
  for (const [testid, name] of [
    ['job-graph', 'Job graph'],
    ['controls', 'Controls'],
    ['checkpoints', 'Checkpoints'],
    ['sinks-recovery', 'Sinks & recovery'],
  ]) {
    const panel = page.getByTestId(testid);
    assert.ok(await panel.isVisible(), `${testid} is visible`);
    // Found by its accessible name too: each panel is a labelled region.
    assert.equal(await page.getByRole('region', { name, exact: true }).count(), 1, `region ${name}`);
  }
  for (const button of ['play', 'pause', 'step', 'reset']) {
    assert.ok(await page.getByTestId(button).isVisible(), `${button} button is visible`);
  }
  assert.equal(await page.getByTestId('boot').count(), 0, 'the loading message is gone');

  await fullPageShot(page, join(SCREENSHOTS, 'shell.png'));

  assert.deepEqual(problems, [], 'no console errors, page errors or failed requests');
  await page.close();
});
