// End to end: export, import, copy a chart.
//  1. run the `healthy` preset a little, trigger a checkpoint (a recorded action),
//     Export JSON: the download is <slug>.json, parses, carries the action and equals
//     the document in the Share link (decoded here: base64url + raw deflate);
//  2. an invalid paste shows the error (line and column) in the dialog and the run goes
//     on (screenshot import-dialog.png); importing the downloaded file through the file
//     picker replaces another run with it, and the URL carries it;
//  3. with clipboard permissions granted, Copy PNG puts a 2× PNG of the chart on the
//     clipboard (saved as chart-copy-duration.png) and Copy SVG a standalone SVG (read
//     back from the clipboard).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_URL, SCREENSHOTS, linkDocument, runTo, sharedBrowser, watchProblems, fullPageShot } from './browser.mjs';

const browser = sharedBrowser();

async function open(page, preset) {
  await page.getByTestId('preset-select').selectOption(preset);
  await page.waitForFunction((p) => document.querySelector('[data-testid="preset-select"]').value === p, preset);
}

test('export a run, import it back, refuse a broken one, copy charts', { timeout: 180_000 }, async () => {
  const { context } = browser();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(BASE_URL).origin });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await open(page, 'healthy');

  // 1. A run with a recorded action, exported.
  for (let i = 0; i < 40; i++) await page.getByTestId('step').click();
  await page.getByTestId('trigger-checkpoint').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-json').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'healthy-job-no-backpressure.json');
  const file = await download.path();
  const text = readFileSync(file, 'utf8');
  const exported = JSON.parse(text);
  assert.equal(exported.version, 2);
  assert.equal(exported.name, 'Healthy job: no backpressure');
  assert.ok(exported.description.length > 20, 'the description travels');
  assert.deepEqual(exported.events.map((e) => Object.keys(e).filter((k) => k !== 'at')), [['trigger_checkpoint']], JSON.stringify(exported.events));
  assert.match(await page.getByTestId('share-note').textContent(), /Downloaded healthy-job-no-backpressure\.json/);
  await page.getByTestId('share').click();
  const shared = await page.evaluate(() => location.hash);
  assert.deepEqual(exported, linkDocument(shared), 'the file is the run the link replays');

  // 2. A broken paste is refused in the dialog; the run is untouched.
  await open(page, 'unaligned');
  const clock = await page.getByTestId('clock').textContent();
  await page.getByTestId('import-json').click();
  await page.getByTestId('import-dialog').waitFor();
  const broken = text.replace('"seed": 7,', '"seed": 7');
  await page.getByTestId('import-text').fill(broken);
  await page.getByTestId('import-open').click();
  const error = page.getByTestId('import-error');
  await error.waitFor();
  assert.match(await error.textContent(), /line \d+ column \d+: invalid JSON/);
  assert.equal(await page.getByTestId('import-text').inputValue(), broken, 'the text stays');
  assert.equal(await page.getByTestId('clock').textContent(), clock);
  assert.equal(await page.getByTestId('preset-select').inputValue(), 'unaligned');
  await page.screenshot({ path: join(SCREENSHOTS, 'import-dialog.png') });

  // The exported file, through the file picker, replaces the run; the URL follows.
  await page.getByTestId('import-file').setInputFiles(file);
  await page.getByTestId('import-dialog').waitFor({ state: 'detached' });
  // A preset's run with recorded actions is still that preset's run: its guide and its
  // place in the menu stay (issue 17 item 10).
  assert.equal(await page.getByTestId('preset-select').inputValue(), 'healthy', 'a preset run with actions keeps its preset');
  assert.equal(await page.getByTestId('scenario-name').textContent(), 'Healthy job: no backpressure');
  assert.deepEqual(linkDocument(await page.evaluate(() => location.hash)), exported);

  // 3. Copy a chart as PNG and as SVG; read both back from the clipboard.
  // A checkpoint every 2 s: by 10 s of virtual time there are several rows.
  await runTo(page, 10);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="checkpoint-row"]').length >= 2, null, { timeout: 10_000 });
  await page.bringToFront();
  await page.getByTestId('chart-copy-png-duration').click();
  const note = page.getByTestId('chart-copy-note');
  await page.waitForFunction(() => /clipboard as PNG|refused|could not/.test(document.querySelector('[data-testid="chart-copy-note"]')?.textContent ?? ''));
  assert.match(await note.textContent(), /The duration chart is on the clipboard as PNG \(image\/png\)/);
  const png = await page.evaluate(async () => {
    const [item] = await navigator.clipboard.read();
    const blob = await item.getType('image/png');
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const view = new DataView(bytes.buffer);
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    return { types: item.types, size: blob.size, signature: Array.from(bytes.slice(0, 8)), width: view.getUint32(16), height: view.getUint32(20), base64: btoa(binary) };
  });
  assert.deepEqual(png.signature, [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG');
  assert.equal(png.width, 2 * (460 + 16), 'drawn at 2x');
  assert.ok(png.height > 2 * 150 && png.height < 2 * 260, `height ${png.height}`);
  assert.ok(png.size > 3_000 && png.size < 500_000, `plausible size ${png.size}`);
  writeFileSync(join(SCREENSHOTS, 'chart-copy-duration.png'), Buffer.from(png.base64, 'base64'));
  console.log(`PNG on the clipboard: ${png.width}×${png.height}, ${png.size} bytes`);

  await page.getByTestId('chart-copy-svg-throughput').click();
  await page.waitForFunction(() => /clipboard as SVG|refused|could not/.test(document.querySelector('[data-testid="chart-copy-note"]')?.textContent ?? ''));
  assert.match(await note.textContent(), /The throughput chart is on the clipboard as SVG/);
  const svg = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /);
  assert.match(svg, /Throughput per operator/);
  for (const op of ['src', 'map', 'out']) assert.ok(svg.includes(`>${op}</text>`), `legend ${op}`);
  assert.equal((svg.match(/<polyline /g) ?? []).length, 3, 'a series per operator');
  await fullPageShot(page, join(SCREENSHOTS, 'chart-copied.png'));

  assert.deepEqual(problems, []);
  await page.close();
});

test('without a clipboard (insecure context) a chart copy downloads the file and says so', { timeout: 120_000 }, async () => {
  const page = await browser().context.newPage();
  const problems = watchProblems(page);
  // What an http:// page on another host sees: no navigator.clipboard at all.
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true });
  });
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await open(page, 'healthy');
  assert.equal(await page.getByTestId('copy-json').count(), 0, 'no Copy JSON without a clipboard');
  for (let i = 0; i < 20; i++) await page.getByTestId('step').click();

  const [png] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('chart-copy-png-inflight').click(),
  ]);
  assert.equal(png.suggestedFilename(), 'healthy-job-no-backpressure-inflight.png');
  const bytes = readFileSync(await png.path());
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG file');
  await page.waitForFunction(() => /downloaded/.test(document.querySelector('[data-testid="chart-copy-note"]')?.textContent ?? ''));
  assert.match(await page.getByTestId('chart-copy-note').textContent(),
    /The clipboard refused \(this page has no clipboard access.*\); downloaded healthy-job-no-backpressure-inflight\.png instead\./);

  const [svg] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('chart-copy-svg-throughput').click(),
  ]);
  assert.equal(svg.suggestedFilename(), 'healthy-job-no-backpressure-throughput.svg');
  assert.match(readFileSync(await svg.path(), 'utf8'), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.deepEqual(problems, []);
  await page.close();
});
