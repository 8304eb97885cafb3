// End to end: the job editor on the built site, driven like a user.
//  1. From the `healthy` preset, build a 13-operator job (three pipelines joined at a
//     keyed aggregate), with partitioners, parallelisms and settings; the draft has no
//     problems; screenshot `editor.png`. Run it: the editor closes, the address bar's
//     link changes, and reloading that link opens the edited job.
//  2. An invalid draft (a dangling operator, a forward edge between different
//     parallelisms, a cycle) lists each problem, outlines the operators and edges
//     concerned, and cannot run; screenshot `editor-invalid.png`.
// No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, runTo, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();

async function openHealthy(page) {
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('healthy');
  await page.waitForFunction(() => location.hash.startsWith('#z2:'));
  await page.getByTestId('edit-job').click();
  await page.getByTestId('editor').waitFor();
}

async function add(page, kind) {
  await page.getByTestId('editor-add-kind').selectOption(kind);
  await page.getByTestId('editor-add').click();
}

async function connect(page, from, to, partitioner = '') {
  await page.getByTestId('editor-connect-from').selectOption(from);
  await page.getByTestId('editor-connect-to').selectOption(to);
  await page.getByTestId('editor-connect-partitioner').selectOption(partitioner);
  await page.getByTestId('editor-connect').click();
}

async function setField(page, id, field, value) {
  const input = page.getByTestId(`editor-op-${id}-${field}`);
  await input.fill(value);
  await input.press('Enter');
  await input.blur();
}

test('build a 13-operator job in the editor, run it, and reopen it from its link', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await openHealthy(page);
  const before = page.url();

  for (const kind of ['source', 'flat_map', 'keyed_aggregate', 'sink', 'map', 'source', 'map', 'keyed_aggregate', 'sink', 'map']) {
    await add(page, kind);
  }
  // ids: source, flatmap, aggregate, sink, map2, source2, map3, aggregate2, sink2, map4
  await connect(page, 'source', 'flatmap', 'rebalance');
  await connect(page, 'flatmap', 'aggregate', 'hash');
  await connect(page, 'aggregate', 'sink', 'rebalance');
  await connect(page, 'map', 'map2', 'rebalance');
  await connect(page, 'map2', 'aggregate', 'hash');
  await connect(page, 'source2', 'map3', 'forward');
  await connect(page, 'map3', 'aggregate2', 'hash');
  await connect(page, 'aggregate2', 'sink2');
  await connect(page, 'source2', 'map4', 'rebalance');
  await connect(page, 'map4', 'sink', 'rebalance');
  // The default partitioner into a keyed aggregate is its keyBy (hash): keyed state needs
  // a keyed input, and anything else would be a problem.
  await connect(page, 'flatmap', 'aggregate2');
  await setField(page, 'flatmap', 'parallelism', '2');
  await setField(page, 'flatmap', 'fan_out', '3');
  await setField(page, 'aggregate', 'parallelism', '3');
  await setField(page, 'source', 'rate', '500');
  await setField(page, 'source2', 'records', '20000');
  await page.getByTestId('editor-op-sink2-delivery').selectOption('idempotent');

  assert.equal(await page.locator('[data-testid^="editor-node-"]').count(), 13);
  assert.equal(await page.getByTestId('editor-problem').count(), 0,
    (await page.getByTestId('editor-problem').allTextContents()).join('\n'));
  await page.getByTestId('editor-ok').waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, 'editor-page.png') });
  assert.equal(await page.locator('[data-testid^="editor-node-"][data-problem="true"]').count(), 0);
  assert.ok(await page.getByTestId('editor-apply').isEnabled());
  // Every box inside the diagram and no two overlapping (the layered layout).
  const boxes = await page.locator('[data-testid^="editor-node-"] rect').evaluateAll(
    (rects) => rects.map((r) => r.getBBox()).map((b) => ({ x: b.x, y: b.y, w: b.width, h: b.height })));
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i], boxes[j]];
      const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      assert.ok(apart, `boxes ${i} and ${j} overlap`);
    }
  }
  await page.locator('.ed-side').evaluate((el) => { el.scrollTop = 0; });
  await page.getByTestId('editor').screenshot({ path: join(SCREENSHOTS, 'editor.png') });

  await page.getByTestId('editor-apply').click();
  await page.getByTestId('editor').waitFor({ state: 'detached' });
  const link = page.url();
  assert.notEqual(link, before, 'the link changed');
  assert.equal(await page.getByTestId('preset-select').inputValue(), '', 'no longer a preset');
  await page.getByTestId('subtask-aggregate-2').waitFor();

  await page.goto('about:blank');
  await page.goto(link, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  assert.equal(await page.getByTestId('error-banner').count(), 0);
  await page.getByTestId('subtask-aggregate-2').waitFor();
  // sink2 is chained after its upstream (a forward edge of equal parallelism): its subtask
  // is drawn in its chain's box, under the chain's head operator, not as a box of its own.
  // The healthy preset's config (a checkpoint every 2 s): by 10 s of virtual time the
  // edited job has completed checkpoints. Played to exactly 10 s, whatever the speed.
  const state = await runTo(page, 10);
  assert.deepEqual([state.now, state.run], [10_000_000, 'paused']);
  await page.locator('[data-testid="checkpoint-row"][data-status="completed"]').first().waitFor({ timeout: 10_000 });
  assert.deepEqual(problems, []);
  await page.close();
});

test('an invalid draft lists its problems, outlines them and cannot run', { timeout: 60_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await openHealthy(page);
  await page.getByTestId('editor-edge-1-partitioner').selectOption('forward');
  await add(page, 'map');
  await add(page, 'flat_map');
  await connect(page, 'map', 'map2');
  await connect(page, 'map2', 'flatmap');
  await connect(page, 'flatmap', 'map2');
  await add(page, 'sink');

  const texts = await page.getByTestId('editor-problem').allTextContents();
  assert.deepEqual(texts, [
    'edges[1].partitioner: forward edge map -> out joins different parallelisms (2 vs 1); use rebalance or rescale',
    "operators[5]: sink 'sink' has no input",
    "edges: the graph has a cycle through 'map2' -> 'flatmap' -> 'map2'",
  ]);
  const apply = page.getByTestId('editor-apply');
  assert.ok(await apply.isDisabled());
  assert.match(await apply.getAttribute('title'), /Fix the 3 problems/);
  for (const id of ['map2', 'flatmap', 'sink']) {
    assert.equal(await page.getByTestId(`editor-node-${id}`).getAttribute('data-problem'), 'true', id);
  }
  assert.equal(await page.getByTestId('editor-node-src').getAttribute('data-problem'), 'false');
  assert.equal(await page.locator('.ed-edge[data-problem="true"]').count(), 3, 'map -> out and the two cycle edges');

  await setField(page, 'src', 'cost', '5 parsecs');
  assert.match(await page.getByTestId('editor-note').textContent(), /^operators\[0\]\.cost: /);
  await page.locator('.ed-side').evaluate((el) => { el.scrollTop = 0; });
  await page.getByTestId('editor').screenshot({ path: join(SCREENSHOTS, 'editor-invalid.png') });

  await page.getByTestId('editor-discard').click();
  await page.getByTestId('editor').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('preset-select').inputValue(), 'healthy');
  assert.deepEqual(problems, []);
  await page.close();
});
