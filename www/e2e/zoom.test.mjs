// End to end: the job view scales and shows the physical plan (issue 17 item 6; issue 19
// items 4 and 5, browser side).
//  - zoom and pan: the view opens fitted (`data-fit`, `data-zoom` 1); with the job view
//    focused + / − zoom, arrows pan, 0 fits again; the wheel zooms about the pointer; a
//    drag pans; the − + Fit buttons do the same; the keys are not stolen from the page
//    (with the focus elsewhere + still doubles the speed, and the view keeps its zoom);
//  - semantic zoom: zoomed out far enough, `large` switches to one aggregated lane per
//    operator pair and says so; zoomed in it draws every channel again;
//  - the physical plan: one box per chain listing its operators (`healthy`: src and map
//    chained into one box, no box for map), TaskManager boxes with their slots, subtasks
//    naming their TaskManager and slot;
//  - lanes: `]` focuses a lane and shows its credit, backlog, buffers and kind; a local
//    channel reads "no credit", never "credit 0"; remote and local lanes are counted
//    apart; hovering a lane shows the same tip;
//  - a hash job at parallelism 32 (2,048 channels) draws aggregated lanes only and
//    says why, and the page keeps answering.
//  - legibility at fit (1280, 1440, 1920 wide), each job opened by a link: a 60-operator
//    pipeline folds into tiers and a 64 × 32 hash job into groups of TaskManagers, so
//    subtask boxes are ≥ 35 px wide (the pipeline's were 8); subtask boxes, their names,
//    vertex headers, TaskManager labels and lane chips overlap nothing of their kind
//    (getBoundingClientRect), in `large` also zoomed out to aggregated lanes.
// Screenshots: zoom-<preset>-<w>.png (default, large far and near, large fit, the
// 60-operator pipeline, the 64 × 32 hash job) at three sizes.
// Waits only on the page's own state (no wall-clock waits). No console errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, crossings, encodeLink, openPreset, rects, sharedBrowser, watchProblems, waitStill } from './browser.mjs';

const browser = sharedBrowser();
const SIZES = [[1280, 720], [1440, 900], [1920, 1080]];

async function open(page, preset) {
  await openPreset(page, preset);
  await lanesReady(page);
}

async function lanesReady(page) {
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]')?.dataset.zoom);
}

/** The lane canvas's figures. */
async function view(page) {
  return page.getByTestId('job-lanes').evaluate((c) => ({
    zoom: Number(c.dataset.zoom),
    fit: c.dataset.fit === 'true',
    detail: c.dataset.detail,
    view: c.dataset.view.split(' ').map(Number),
    local: Number(c.dataset.localLanes),
    remote: Number(c.dataset.remoteLanes),
    ribbons: Number(c.dataset.aggregatedLanes),
    channels: Number(c.dataset.channels),
  }));
}

/** Waits until the view's `key` figure differs from `old`. */
async function changed(page, key, old) {
  await page.waitForFunction(([k, o]) => {
    const c = document.querySelector('[data-testid="job-lanes"]');
    return c && String(c.dataset[k]) !== String(o);
  }, [key, old]);
  return view(page);
}

test('zoom, pan, fit and keys; the keys stay the page\'s elsewhere', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, 'large');
  let v = await view(page);
  assert.equal(v.fit, true, 'opens fitted');
  assert.ok(Math.abs(v.zoom - 1) < 0.01, `zoom ${v.zoom}`);
  const stage = page.getByTestId('job-stage');
  await stage.focus();
  await page.keyboard.press('+');
  v = await changed(page, 'zoom', '1.000');
  assert.ok(v.zoom > 1.2, `+ zooms in: ${v.zoom}`);
  assert.equal(v.fit, false);
  // Two more steps in, so that the job is wider than the view, then pan right.
  await page.keyboard.press('=');
  v = await changed(page, 'zoom', v.zoom.toFixed(3));
  await page.keyboard.press('+');
  v = await changed(page, 'zoom', v.zoom.toFixed(3));
  const x0 = v.view[0];
  const viewBefore = await page.getByTestId('job-lanes').getAttribute('data-view');
  await page.keyboard.press('ArrowRight');
  v = await changed(page, 'view', viewBefore);
  assert.ok(v.view[0] > x0, `ArrowRight pans right: ${x0} → ${v.view[0]}`);
  const state = await page.getByTestId('app').getAttribute('data-now-us');
  assert.equal(state, '0', 'ArrowRight on the job view pans, it does not step the engine');
  await page.keyboard.press('-');
  v = await changed(page, 'zoom', v.zoom.toFixed(3));
  await page.keyboard.press('0');
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.fit === 'true');
  v = await view(page);
  assert.ok(Math.abs(v.zoom - 1) < 0.01, `0 fits: ${v.zoom}`);
  // The wheel zooms about the pointer, a drag pans.
  const box = await stage.boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.4);
  await page.mouse.wheel(0, -300);
  v = await changed(page, 'zoom', '1.000');
  assert.ok(v.zoom > 1.5, `wheel up zooms in: ${v.zoom}`);
  const before = v.view;
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5 - 120, box.y + box.height * 0.5 - 40, { steps: 6 });
  await page.mouse.up();
  v = await view(page);
  assert.ok(v.view[0] > before[0] && v.view[1] > before[1], `a drag pans: ${before} → ${v.view}`);
  // The buttons.
  await page.getByTestId('zoom-fit').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.fit === 'true');
  await page.getByTestId('zoom-in').click();
  v = await changed(page, 'zoom', '1.000');
  assert.ok(v.zoom > 1.2);
  assert.match(await page.getByTestId('zoom-level').textContent(), /^\d+%$/);
  // With the focus outside the job view, + is the page's "faster" again.
  await page.getByTestId('zoom-fit').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.fit === 'true');
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.evaluate(() => document.activeElement?.blur());
  await page.keyboard.press('+');
  v = await view(page);
  assert.ok(Math.abs(v.zoom - 1) < 0.01, `+ outside the job view leaves the zoom: ${v.zoom}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('semantic zoom, lane tips, local and remote lanes (large)', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, 'large');
  let v = await view(page);
  assert.equal(v.detail, 'channels', 'large at fit: every channel');
  assert.equal(v.channels, 160);
  assert.ok(v.local > 0 && v.remote > 0, `local ${v.local}, remote ${v.remote}`);
  const stage = page.getByTestId('job-stage');
  await stage.focus();
  // `]` steps through the lanes: find a remote and a local one.
  const kinds = {};
  for (let i = 0; i < 40 && !(kinds.local && kinds.remote); i++) {
    await page.keyboard.press(']');
    const tip = page.getByTestId('lane-tip');
    await tip.waitFor({ state: 'visible' });
    const kind = await tip.getAttribute('data-kind');
    kinds[kind] ??= await tip.textContent();
  }
  assert.match(kinds.remote, /remote · credit \d+; backlog \d+ \(sender \d+, wire \d+, receiver \d+\) \(exclusive \d+, floating \d+\)/, kinds.remote);
  assert.match(kinds.local, /local · no credit/, kinds.local);
  assert.doesNotMatch(kinds.local, /credit 0/, 'a local channel is not drawn as zero credit');
  assert.equal(await page.getByTestId('lane-tip').getAttribute('class'), 'lane-tip lane-' + await page.getByTestId('lane-tip').getAttribute('data-kind'));
  // Hover over the focused lane shows its tip too.
  const tipBox = await page.getByTestId('lane-tip').boundingBox();
  await page.mouse.move(tipBox.x - 12, tipBox.y - 12);
  await page.getByTestId('lane-tip').waitFor({ state: 'visible' });
  assert.match(await page.getByTestId('lane-tip').textContent(), /channel \d+ · (local|remote)/);
  // Zoomed out: aggregated lanes, said so.
  await stage.focus();
  for (let i = 0; i < 6 && (await view(page)).detail !== 'aggregated'; i++) await page.keyboard.press('-');
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.detail === 'aggregated');
  v = await view(page);
  assert.equal(v.ribbons, 3, 'one lane per operator pair');
  const labels = page.locator('[data-testid="job-stage"] .ribbon-label');
  assert.equal(await labels.count(), 3, 'each aggregated lane has its figures');
  // Each chip is the lane's figures, or — where they would cover a subtask box — its
  // glyph, the backlog alone (the tip below still gives every figure).
  for (const text of await labels.allTextContents()) {
    assert.match(text, /^(\d+ ch · \d+ local\nbacklog \d+ · credit \d+|\d+( ▮)?)$/, text);
  }
  assert.equal(await page.getByTestId('lane-tip').isVisible(), false, 'zooming hid the old lane tip');
  assert.match(await page.getByTestId('lane-detail').textContent(), /Zoomed out: one lane per operator pair/);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: join(SCREENSHOTS, `zoom-large-far-${w}.png`) });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await stage.focus();
  await page.keyboard.press(']');
  await page.getByTestId('lane-tip').waitFor({ state: 'visible' });
  assert.equal(await page.getByTestId('lane-tip').getAttribute('data-kind'), 'aggregate');
  assert.match(await page.getByTestId('lane-tip').textContent(), /→ .*: \d+ channels \(\d+ local, \d+ remote\) · backlog \d+/);
  // Zoomed in again: every channel.
  await page.keyboard.press('0');
  for (let i = 0; i < 4; i++) await page.keyboard.press('+');
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.detail === 'channels');
  assert.equal(await page.getByTestId('lane-detail').textContent(), '');
  assert.equal(await page.locator('[data-testid="job-stage"] .ribbon-label').count(), 0);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await page.screenshot({ path: join(SCREENSHOTS, `zoom-large-near-${w}.png`) });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the physical plan: chains, TaskManagers and slots', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, 'healthy');
  // src → map is a forward edge of equal parallelism: one chain, one box listing both.
  const chain = page.getByTestId('vertex-src');
  assert.equal(await chain.getAttribute('data-operators'), 'src,map');
  assert.equal(await page.getByTestId('vertex-map').count(), 0, 'a chained operator has no box of its own');
  assert.equal(await page.getByTestId('subtask-map-0').count(), 0);
  assert.match(await chain.textContent(), /src.*→ map/s);
  // Two subtasks of the chain and one of out: two TaskManagers of one slot each
  // (taskmanager.numberOfTaskSlots 1), the out subtask sharing slot 0 of the first.
  const tms = await page.locator('[data-testid^="tm-"]').count();
  assert.ok(tms >= 1, `TaskManager boxes: ${tms}`);
  assert.ok(await page.locator('[data-testid^="slot-"]').count() >= tms);
  const s0 = page.getByTestId('subtask-src-0');
  assert.match(await s0.getAttribute('data-task-manager'), /^\d+$/);
  assert.match(await s0.getAttribute('data-slot'), /^\d+$/);
  assert.match(await s0.locator('title').textContent(), /TaskManager \d+, slot \d+/);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await open(page, null);
    await page.screenshot({ path: join(SCREENSHOTS, `zoom-default-${w}.png`) });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('a hash job at parallelism 32 draws aggregated lanes only, and says so', { timeout: 180_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  const doc = {
    version: 2,
    name: 'wide hash job',
    seed: 7,
    duration: '5s',
    config: { 'execution.checkpointing.interval': '1s' },
    operators: [
      { id: 'src', kind: 'source', parallelism: 32, rate: 2000 },
      { id: 'agg', kind: 'keyed_aggregate', parallelism: 32 },
      { id: 'out', kind: 'sink', parallelism: 32 },
    ],
    edges: [
      { from: 'src', to: 'agg', partitioner: 'hash' },
      { from: 'agg', to: 'out', partitioner: 'hash' },
    ],
    events: [],
  };
  await page.goto(`${BASE_URL}${encodeLink(doc, { level: 9 })}`, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await lanesReady(page);
  const v = await view(page);
  assert.equal(v.detail, 'aggregated');
  assert.equal(v.channels, 2048);
  assert.equal(v.ribbons, 2);
  assert.match(await page.getByTestId('lane-detail').textContent(), /2048 channels: more than \d+, so one lane per operator pair/);
  // Zoomed in it stays aggregated.
  await page.getByTestId('job-stage').focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('+');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="job-lanes"]').dataset.zoom) > 2);
  assert.equal((await view(page)).detail, 'aggregated');
  // The page keeps answering: play to 2 s of virtual time and pause there.
  await page.getByTestId('pause-at').fill('2s');
  await page.getByTestId('pause-at').press('Enter');
  await page.getByTestId('play').click();
  await waitStill(page, 2_000_000, 150_000);
  const nodes = await page.evaluate(() => document.querySelectorAll('[data-testid="job-graph"] *').length);
  console.log(`p=32 hash job: ${nodes} DOM nodes in the job view, 2048 channels, aggregated`);
  assert.ok(nodes < 3000, `bounded DOM: ${nodes}`);
  await page.screenshot({ path: join(SCREENSHOTS, 'zoom-p32-1440.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

/** Pairs of `list` that overlap by more than `slack` px on both axes. */
function overlaps(list, slack = 0.5) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = list[i];
      const b = list[j];
      const dx = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const dy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      if (dx > slack && dy > slack) out.push([i, j]);
    }
  }
  return out;
}

/** A linear job of `n` operators at parallelism `p`, rebalanced (so nothing chains). */
function pipeline(n, p) {
  const ops = [{ id: 'src', kind: 'source', parallelism: p, rate: 200 }];
  for (let i = 1; i < n - 1; i++) ops.push({ id: `m${i}`, kind: 'map', parallelism: p, cost: '20us' });
  ops.push({ id: 'out', kind: 'sink', parallelism: p });
  const edges = ops.slice(1).map((o, i) => ({ from: ops[i].id, to: o.id, partitioner: 'rebalance' }));
  return { version: 2, name: `${n}-operator pipeline`, seed: 7, duration: '5s', config: {}, operators: ops, edges, events: [] };
}

const HASH_64_32 = {
  version: 2,
  name: '64 × 32 hash job',
  seed: 7,
  duration: '5s',
  config: { 'execution.checkpointing.interval': '1s' },
  operators: [
    { id: 'src', kind: 'source', parallelism: 64, rate: 500 },
    { id: 'out', kind: 'sink', parallelism: 32 },
  ],
  edges: [{ from: 'src', to: 'out', partitioner: 'hash' }],
  events: [],
};


/** The operator ids' screen rectangles as drawn: each clipped by its header's own
 *  `<svg>` (enlarged far out, an id may run past its box and is cut there). */
async function headerRects(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid="job-stage"] .vertex-box')]
    .map((box) => {
      const t = box.querySelector('.op-name').getBoundingClientRect();
      const c = box.querySelector('.vertex-room').getBoundingClientRect();
      const x = Math.max(t.x, c.x);
      const y = Math.max(t.y, c.y);
      return { x, y, w: Math.min(t.right, c.right) - x, h: Math.min(t.bottom, c.bottom) - y };
    })
    .filter((r) => r.w > 0 && r.h > 0));
}

/** The smallest on-screen height of the names (operator ids, subtask names) inside the
 *  stage's visible area. */
async function smallestName(page) {
  return page.evaluate(() => {
    const stage = document.querySelector('[data-testid="job-stage"]').getBoundingClientRect();
    const hs = [...document.querySelectorAll('[data-testid="job-stage"] :is(.op-name, .subtask-name)')]
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.height > 0 && r.bottom > stage.top && r.top < stage.bottom && r.right > stage.left && r.left < stage.right)
      .map((r) => r.height);
    return hs.length ? Math.min(...hs) : null;
  });
}

/** Whether rectangle `a` lies within `b` (half a pixel of slack). */
function inside(a, b) {
  return a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.w <= b.x + b.w + 0.5 && a.y + a.h <= b.y + b.h + 0.5;
}

/** Legibility facts of the fitted view: box size, fold, nothing covering anything. */
async function legible(page, label) {
  const lanes = await page.getByTestId('job-lanes').evaluate((c) => ({ ...c.dataset }));
  const boxPx = Number(lanes.boxPx);
  const boxes = await rects(page, '.subtask-box');
  const names = await rects(page, '.subtask-name');
  const headers = await headerRects(page);
  const tmLabels = await rects(page, '.tm-label');
  const chips = await rects(page, '.ribbon-label');
  const facts = {
    label, boxPx, boxHPx: Number(lanes.boxHPx), tiers: Number(lanes.tiers), groups: Number(lanes.groups),
    detail: lanes.detail, boxes: boxes.length, chips: chips.length,
    namePx: await smallestName(page),
    text: await page.locator('[data-testid="job-stage"] .job-svg').getAttribute('data-text'),
  };
  assert.deepEqual(overlaps(boxes), [], `${label}: subtask boxes overlap`);
  assert.deepEqual(overlaps(names), [], `${label}: subtask names overlap`);
  assert.deepEqual(overlaps(headers), [], `${label}: vertex headers overlap`);
  assert.deepEqual(overlaps(tmLabels), [], `${label}: TaskManager labels overlap`);
  assert.deepEqual(overlaps(chips), [], `${label}: lane chips overlap each other`);
  // A chip (or its glyph) never covers a subtask box: the 60-operator pipeline's
  // 140 px chips covered the boxes around their 56 px gaps at fit.
  assert.deepEqual(crossings(chips, boxes), [], `${label}: lane chips cover subtask boxes`);
  assert.deepEqual(crossings(chips, headers), [], `${label}: lane chips cover vertex headers`);
  // An enlarged subtask name stays inside its box.
  if (names.length === boxes.length) {
    const out = names.map((n, i) => (inside(n, boxes[i]) ? null : i)).filter((i) => i !== null);
    assert.deepEqual(out, [], `${label}: subtask names leave their boxes`);
  }
  facts.glyphs = await page.locator('[data-testid="job-stage"] .ribbon-glyph').count();
  return facts;
}

test('a 60-operator pipeline, a 64 × 32 hash job and large are legible at fit', { timeout: 240_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  for (const [w, h] of SIZES) {
    await page.setViewportSize({ width: w, height: h });
    await page.goto(`${BASE_URL}${encodeLink(pipeline(60, 2), { level: 9 })}`, { waitUntil: 'load' });
    await page.getByTestId('app').waitFor({ timeout: 20_000 });
    await lanesReady(page);
    const chain = await legible(page, `60-op pipeline at ${w}`);
    console.log(JSON.stringify(chain));
    assert.ok(chain.tiers > 1, `a long pipeline folds into tiers: ${JSON.stringify(chain)}`);
    assert.ok(chain.boxPx >= 35, `subtask boxes ≥ 35 px wide at fit (were 8): ${chain.boxPx}`);
    // The names are enlarged to be read: an 8 px font is a line ~9 px tall (the
    // operator ids were 4 px tall at 1280).
    assert.equal(chain.text, 'boosted');
    assert.ok(chain.namePx >= 8.5, `names ≥ 8.5 px tall at fit: ${JSON.stringify(chain)}`);
    assert.equal(chain.boxes, 120);
    if (chain.detail === 'aggregated') {
      assert.ok(chain.chips > 0, `the pipeline's aggregated lanes keep their figures (as glyphs where narrow): ${JSON.stringify(chain)}`);
    }
    await page.screenshot({ path: join(SCREENSHOTS, `zoom-pipeline60-${w}.png`) });
    // Zoomed in (one step, still summed lanes, or every channel): chips or lanes show,
    // and still cover no subtask box.
    await page.getByTestId('job-stage').focus();
    await page.keyboard.press('+');
    await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]').dataset.fit === 'false');
    const near = await legible(page, `60-op pipeline zoomed in at ${w}`);
    console.log(JSON.stringify(near));
    if (near.detail === 'aggregated') assert.ok(near.chips > 0, `chips show zoomed in: ${JSON.stringify(near)}`);
    else assert.ok((await view(page)).channels > 0, 'zoomed in: every channel of what is on the screen');

    await page.goto('about:blank');
    await page.goto(`${BASE_URL}${encodeLink(HASH_64_32, { level: 9 })}`, { waitUntil: 'load' });
    await page.getByTestId('app').waitFor({ timeout: 20_000 });
    await lanesReady(page);
    const hash = await legible(page, `64×32 at ${w}`);
    console.log(JSON.stringify(hash));
    assert.equal(hash.detail, 'aggregated');
    assert.ok(hash.groups > 1, `many TaskManagers fold into groups: ${JSON.stringify(hash)}`);
    assert.ok(hash.boxPx >= 35 && hash.boxHPx >= 12, `boxes legible at fit: ${JSON.stringify(hash)}`);
    assert.ok(hash.namePx >= 8.5, `names ≥ 8.5 px tall at fit: ${JSON.stringify(hash)}`);
    assert.equal(hash.chips, 1, 'one chip per operator pair');
    assert.equal(Number(await page.getByTestId('job-lanes').getAttribute('data-aggregated-lanes')), 1);
    await page.screenshot({ path: join(SCREENSHOTS, `zoom-hash64x32-${w}.png`) });

    await page.goto('about:blank');
    await open(page, 'large');
    const large = await legible(page, `large at ${w}`);
    console.log(JSON.stringify(large));
    assert.ok(large.boxPx >= 35, `large at fit: ${large.boxPx}`);
    assert.ok(large.namePx >= 8.5, `names ≥ 8.5 px tall at fit: ${JSON.stringify(large)}`);
    await page.screenshot({ path: join(SCREENSHOTS, `zoom-large-fit-${w}.png`) });
    // Zoomed out to aggregated lanes, the chips still cover nothing of each other.
    await page.getByTestId('job-stage').focus();
    for (let i = 0; i < 6 && (await view(page)).detail !== 'aggregated'; i++) await page.keyboard.press('-');
    await legible(page, `large far at ${w}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
