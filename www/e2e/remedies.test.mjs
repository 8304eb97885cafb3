// End to end: remedies as measured experiments in the diagnosis panel.
//  1. open the slow-sink job (chaining off, as in tests/diagnosis.rs) at its end (`&t=30s`),
//     pin its slowest checkpoint in the diagnosis strip;
//  2. click each remedy: the re-run shows progress, then the effect on that checkpoint;
//     the expected direction per remedy (unaligned, alignment timeout, fewer buffers,
//     parallelism ×2 shorten it; unaligned persists in-flight data; overdraft changes
//     nothing on this job); Cancel drops a running experiment;
//  3. screenshots of the panel with a comparison open at 1280×720 and 1440×900.
// That the figures equal the CLI's `remedies` word for word is tests/wasm_diagnosis.rs
// (same function, in the browser); the soft / hard table shows per subtask. No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, encodeLink, openLink, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();

const SLOW_SINK = {
  version: 2, name: 'slow sink', seed: 3, duration: '30s',
  config: { 'execution.checkpointing.interval': '2s', 'pipeline.operator-chaining.enabled': false },
  operators: [
    { id: 'src', kind: 'source', parallelism: 2, rate: 2000, record_size: 256, keys: 64 },
    { id: 'count', kind: 'keyed_aggregate', parallelism: 2, cost: '50us' },
    { id: 'out', kind: 'sink', parallelism: 1, cost: '2ms' },
  ],
  edges: [
    { from: 'src', to: 'count', partitioner: 'hash' },
    { from: 'count', to: 'out', partitioner: 'rebalance' },
  ],
  events: [],
};

async function runRemedy(page, name) {
  await page.getByTestId(`remedy-${name}`).click();
  const result = page.getByTestId('remedy-result');
  await page.waitForFunction(
    (n) => {
      const r = document.querySelector('[data-testid="remedy-result"]');
      return r?.dataset.remedy === n && r.dataset.state !== 'running';
    },
    name,
    { timeout: 120_000 },
  );
  assert.equal(await result.getAttribute('data-state'), 'done', await result.textContent());
  const fig = async (key) => {
    const row = page.locator(`[data-testid="remedy-effect-table"] tr[data-figure="${key}"]`);
    return { before: Number(await row.getAttribute('data-before')), after: Number(await row.getAttribute('data-after')) };
  };
  return {
    text: await page.getByTestId('remedy-effect').textContent(),
    e2e: await fig('end_to_end_ms'),
    persisted: await fig('persisted_inflight_bytes'),
    replay: await fig('replay_ms'),
  };
}

test('remedies: one click each, the measured effect on the pinned checkpoint', { timeout: 600_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openLink(page, `${BASE_URL}${encodeLink(SLOW_SINK)}&t=30s`);
  // The slowest completed checkpoint in the strip (its bar is the tallest).
  const bars = await page.getByTestId('diagnosis-bar').evaluateAll((els) =>
    els.map((e) => ({ id: e.dataset.id, h: parseFloat(e.style.height), cls: e.className })));
  const slowest = bars.filter((b) => !b.cls.includes('pending')).sort((a, b) => b.h - a.h)[0];
  await page.locator(`[data-testid="diagnosis-bar"][data-id="${slowest.id}"]`).click();

  const seen = {};
  for (const name of ['unaligned', 'alignment_timeout', 'debloating', 'fewer_buffers', 'overdraft', 'parallelism']) {
    seen[name] = await runRemedy(page, name);
    console.log(`${name}: ${seen[name].text}`);
  }
  for (const name of ['unaligned', 'alignment_timeout', 'fewer_buffers', 'parallelism']) {
    assert.ok(seen[name].e2e.after < seen[name].e2e.before / 2, `${name}: ${seen[name].text}`);
    assert.ok(seen[name].replay.after < seen[name].replay.before, `${name}: ${seen[name].text}`);
  }
  assert.ok(seen.unaligned.persisted.after > 0 && seen.unaligned.persisted.before === 0, seen.unaligned.text);
  assert.equal(seen.overdraft.e2e.after, seen.overdraft.e2e.before, seen.overdraft.text);
  assert.equal(await page.locator('[data-testid="diagnosis-windows"] tbody tr').count(), 5);

  // Screenshots with the unaligned comparison open.
  await runRemedy(page, 'unaligned');
  const panel = page.getByTestId('diagnosis');
  for (const [w, h] of [[1280, 720], [1440, 900]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.getByTestId('remedy-result').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, `remedies-${w}x${h}.png`) });
    await panel.screenshot({ path: join(SCREENSHOTS, `remedies-panel-${w}.png`) });
  }

  // Cancel: a running experiment goes away, the buttons come back.
  await page.getByTestId('remedy-parallelism').click();
  // The experiment may finish before the click lands (it runs within the frame budget, so
  // how far it gets depends on the machine): then Cancel is gone and its result shows. Either
  // way the page must end in one of the two states, never stuck running.
  const cancel = page.getByTestId('remedy-cancel');
  const cancelled = await cancel
    .click({ timeout: 5000 })
    .then(() => true)
    .catch(() => false);
  await page.waitForFunction(() => !document.querySelector('[data-testid="remedy-cancel"]'));
  if (cancelled) {
    await page.waitForFunction(() => !document.querySelector('[data-testid="remedy-result"]'));
  }
  assert.equal(await page.getByTestId('remedy-unaligned').isEnabled(), true);
  assert.deepEqual(problems, []);
});
