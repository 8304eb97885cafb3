// End to end: production-sized jobs in the job view (issue 17 item 6, issue 19 item 4).
//  - a hash job at parallelism 128 × 3 operators (384 subtasks, 32,768 channels) opens
//    fitted as one block per operator column (its OK / LOW / HIGH counts adding up to
//    the subtasks), not one SVG node per subtask — the job view holds fewer than 1,000
//    elements (it held 4,377) — with a note saying so, and no lane chip covering a block;
//  - clicking a block zooms to it and the view draws the subtasks in the window around
//    the screen only (at most 160), their lane chips covering no subtask box;
//  - at parallelism 1,024 × 3 (3,072 subtasks, pointwise edges) the same, and the page
//    keeps playing (it held 34,081 job-view elements);
//  - at 1,024 × 3 the per-subtask tables (the checkpoint's phase timeline, the diagnosis's
//    subtasks, soft/hard windows and metrics) draw 50 rows each and say which of how many
//    (the page held 112,414 elements, 110,643 in those tables); "Show all" draws every row
//    and takes them back;
//  - past a limit the user reads the limit: a hash job at 1,024 × 3 (2 M channels) is
//    refused with the channel limit named, the page still answering.
// Screenshots: scale-p128-far-1440.png, scale-p128-near-1440.png, scale-p1024-far-1440.png,
// scale-p1024-tables-1440.png.
// Waits only on the page's own state. No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, crossings, encodeLink, rects, runTo, sharedBrowser, watchProblems, waitStill } from './browser.mjs';

const browser = sharedBrowser();
const job = (name) => JSON.parse(readFileSync(new URL(`../bench/jobs/${name}.json`, import.meta.url), 'utf8'));

async function openDoc(page, doc) {
  await page.goto('about:blank');
  await page.goto(`${BASE_URL}${encodeLink(doc, { level: 9 })}`, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 60_000 });
}

async function lanes(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]')?.dataset.nodes, null, { timeout: 60_000 });
  return page.getByTestId('job-lanes').evaluate((c) => ({ ...c.dataset }));
}



const jobNodes = (page) => page.evaluate(() => document.querySelectorAll('[data-testid="job-graph"] *').length);

async function blocksAtFit(page, subtasks, label) {
  const d = await lanes(page);
  assert.equal(d.nodes, 'blocks', `${label} opens as blocks: ${JSON.stringify(d)}`);
  assert.equal(d.fit, 'true');
  const blocks = page.locator('[data-testid^="block-"]');
  const n = await blocks.count();
  assert.ok(n >= 3, `a block per operator column (and group of TaskManagers): ${n}`);
  const counts = await blocks.evaluateAll((els) => els.map((e) => ({
    subtasks: Number(e.dataset.subtasks), ok: Number(e.dataset.ok), low: Number(e.dataset.low), high: Number(e.dataset.high),
  })));
  assert.equal(counts.reduce((s, c) => s + c.subtasks, 0), subtasks, 'the blocks hold every subtask once');
  for (const c of counts) assert.ok(c.ok + c.low + c.high <= c.subtasks, JSON.stringify(c));
  assert.equal(await page.locator('[data-testid="job-stage"] .subtask').count(), 0, 'no subtask nodes at fit');
  const nodes = await jobNodes(page);
  console.log(`${label} at fit: ${nodes} elements in the job view, ${n} blocks, ${JSON.stringify(d.detail)}`);
  assert.ok(nodes < 1000, `${label}: bounded DOM at fit: ${nodes}`);
  assert.match(await page.getByTestId('lane-detail').textContent(), new RegExp(`${subtasks} subtasks: one block per operator column`));
  const chips = await rects(page, '.ribbon-label');
  assert.deepEqual(crossings(chips, await rects(page, '.block-box')), [], `${label}: chips cover blocks`);
  assert.match(await blocks.first().getAttribute('aria-label'), /\d+ subtasks — \d+ OK, \d+ LOW, \d+ HIGH/);
  return nodes;
}

test('a hash job at parallelism 128: blocks at fit, the subtasks on the screen when zoomed in', { timeout: 240_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openDoc(page, { ...job('hash128'), duration: '20s' });
  const far = await blocksAtFit(page, 384, 'p=128 hash');
  await page.screenshot({ path: join(SCREENSHOTS, 'scale-p128-far-1440.png') });
  // A click on a block zooms to it: the subtasks of the window around the screen.
  await page.locator('[data-testid="block-agg"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.nodes === 'window');
  const drawn = await page.locator('[data-testid="job-stage"] .subtask').count();
  assert.ok(drawn > 0 && drawn <= 160, `the window's subtasks only: ${drawn}`);
  assert.ok((await page.locator('[data-testid^="subtask-agg-"]').count()) > 0, 'the clicked operator\'s subtasks');
  const near = await jobNodes(page);
  console.log(`p=128 hash zoomed in: ${near} elements in the job view, ${drawn} subtask nodes (fit: ${far})`);
  // Two steps closer: the lanes' figures show and cover no subtask box.
  await page.getByTestId('job-stage').focus();
  await page.keyboard.press('+');
  await page.keyboard.press('+');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="job-lanes"]').dataset.scale) > 1.1);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="job-stage"] .ribbon-label').length > 0);
  const chips = await rects(page, '.ribbon-label');
  assert.deepEqual(crossings(chips, await rects(page, '.subtask-box')), [], 'chips cover subtask boxes');
  await page.screenshot({ path: join(SCREENSHOTS, 'scale-p128-near-1440.png') });
  // Fit again: blocks again.
  await page.keyboard.press('0');
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.nodes === 'blocks');
  // The page plays it.
  await page.getByTestId('pause-at').fill('1s');
  await page.getByTestId('pause-at').press('Enter');
  await page.getByTestId('play').click();
  await waitStill(page, 1_000_000, 180_000);
  assert.deepEqual(problems, []);
  await page.close();
});

test('parallelism 1,024: blocks, and past the channel limit a message naming it', { timeout: 300_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openDoc(page, { ...job('rescale1024'), duration: '10s' });
  await blocksAtFit(page, 3072, 'p=1024 pointwise');
  await page.screenshot({ path: join(SCREENSHOTS, 'scale-p1024-far-1440.png') });
  await page.locator('[data-testid="block-map"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.nodes === 'window');
  const drawn = await page.locator('[data-testid="job-stage"] .subtask').count();
  assert.ok(drawn > 0 && drawn <= 160, `the window's subtasks only: ${drawn}`);
  await page.getByTestId('pause-at').fill('500ms');
  await page.getByTestId('pause-at').press('Enter');
  await page.getByTestId('play').click();
  await waitStill(page, 500_000, 240_000);
  // A hash exchange at 1,024 × 1,024 is past the channel limit: refused, the limit named.
  const hash = job('hash128');
  for (const op of hash.operators) op.parallelism = 1024;
  await openDoc(page, hash);
  const banner = page.getByTestId('error-banner');
  await banner.waitFor({ timeout: 60_000 });
  assert.match(await banner.textContent(), /2097152 channels, past the limit of 65536/);
  assert.ok(await page.getByTestId('play').isEnabled(), 'the page still answers');
  assert.deepEqual(problems, []);
  await page.close();
});

test('parallelism 1,024: the per-subtask tables draw the 50 rows that matter and say so', { timeout: 300_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openDoc(page, { ...job('rescale1024'), duration: '10s' });
  await runTo(page, 5.5, { timeout: 240_000 });
  const total = await page.evaluate(() => document.querySelectorAll('*').length);
  console.log(`p=1024 at 5.5 s: ${total} elements on the page`);
  assert.ok(total < 20_000, `bounded page: ${total} elements`);
  const tables = {
    'checkpoint-timeline': '[data-testid="checkpoint-timeline"] .ph-label',
    'diagnosis-subtasks': '[data-testid="diagnosis-subtasks"] tbody tr',
    'diagnosis-windows': '[data-testid="diagnosis-windows"] tbody tr',
    'diagnosis-metrics': '[data-testid="diagnosis-metrics"] tbody tr',
  };
  for (const [id, rows] of Object.entries(tables)) {
    assert.equal(await page.locator(rows).count(), 50, `${id}: 50 rows`);
    const limit = page.getByTestId(`${id}-limit`);
    assert.deepEqual(await limit.evaluate((e) => [e.dataset.shown, e.dataset.total]), ['50', '3072'], id);
    assert.match(await limit.textContent(), /^50 of 3072 subtasks shown: the .+\. Show all 3072$/, id);
  }
  // The diagnosis's subtasks drawn are the slowest end to end: the first 50 of the whole
  // table sorted by duration (its default order).
  const names = (sel) => page.locator(sel).evaluateAll((trs) => trs.map((tr) => tr.cells[0].textContent));
  const drawn = await names(tables['diagnosis-subtasks']);
  assert.equal(new Set(drawn).size, 50, 'fifty different subtasks');
  await page.getByTestId('diagnosis').screenshot({ path: join(SCREENSHOTS, 'scale-p1024-tables-1440.png') });
  await page.getByTestId('diagnosis-subtasks-all').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diagnosis-subtasks"] tbody tr').length === 3072);
  assert.deepEqual((await names(tables['diagnosis-subtasks'])).slice(0, 50), drawn, 'the slowest 50');
  await page.getByTestId('diagnosis-subtasks-all').click();
  // Show all, then only 50 again.
  await page.getByTestId('diagnosis-metrics-all').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diagnosis-metrics"] tbody tr').length === 3072);
  assert.equal(await page.getByTestId('diagnosis-metrics-limit').getAttribute('data-shown'), '3072');
  assert.match(await page.getByTestId('diagnosis-metrics-all').textContent(), /^Show only 50$/);
  await page.getByTestId('diagnosis-metrics-all').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diagnosis-metrics"] tbody tr').length === 50);
  assert.deepEqual(problems, []);
  await page.close();
});
