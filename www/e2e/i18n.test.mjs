// End to end: the Chinese interface (issue 17 item 9).
//  - a browser whose language is zh-CN (Chromium's --lang and the context's locale, so
//    navigator.languages and Accept-Language say zh-CN) opens the page in Chinese;
//  - the panels listed in PANELS show no English leftovers: their visible text, minus an
//    allow-list of Flink's own terms (config keys, RUNNING/RESTARTING…, metric names,
//    operator names, units), has no Latin word left;
//  - the header's switch (a button: Enter / Space, or the `l` key) toggles every listed
//    panel to English and back; the choice survives a reload (localStorage) and is never
//    in the URL (the link is the same in both languages);
//  - the checkpoint step's notes are in Chinese;
//  - the diagnosis panel (its computed sentences included: critical path, bottleneck,
//    pool readings), the comparison (AC vs UC), the job editor (its event sentences
//    included) and the event log's failure / recovery entries have no English leftovers
//    either (minus the validation messages and previews listed in ENGINE_TEXTS);
//  - neither do a remedy's result, the subtask's hover title, the checkpoint history's
//    savepoint rows, the Resubmit dialog and a guide added later (topology-change-savepoint);
//  - a link, a moment or an import the scenario reader refuses is said in Chinese in the
//    banner / the import dialog, and follows the switch both ways.
// Screenshots: i18n-zh-default-<w>.png and i18n-zh-two-phases-<w>.png (stepping) at
// 1280×720 and 1920×1080; i18n-zh-{diagnosis,compare,editor,event-log}-1440.png and
// i18n-zh-{diagnosis-sentences,remedies,editor-events,resubmit,
// guide-topology-change-savepoint}-1440.png at 1440×900; i18n-zh-{broken-link,import-error}-1280.png
// (a refused link in the banner, a refused import in its dialog). Only the page's own state is
// waited on. No console errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { BASE_URL, SCREENSHOTS, encodeLink, openLink, openPreset as open, runTo, showPanel, watchProblems, fullPageShot } from './browser.mjs';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let context;
let dir;
before(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'cp-e2e-zh-'));
  context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...FLAGS, '--lang=zh-CN'],
    locale: 'zh-CN',
    viewport: { width: 1280, height: 720 },
  });
}, { timeout: 60_000 });
after(async () => {
  await context?.close();
  rmSync(dir, { recursive: true, force: true });
});

// The panels translated by this change (the job view, diagnosis, charts, sinks & recovery
// and the comparison are translated separately, see the report).
const PANELS = ['header', 'controls', 'guide', 'inspector', 'settings', 'checkpoints', 'timeline', 'event-log'];

// Flink's own terms and the presets' operator names, which stay as Flink spells them.
const ALLOW = [
  'Checkpoint Playground', 'Apache Flink', 'Flink', 'JSON', 'SplitEnumerator', 'allowNonRestoredState', 'English', 'Sink', 'Source', 'sink', 'source',
  'RUNNING', 'RESTARTING', 'FINISHED', 'FAILED', 'CANCELED', 'INITIALIZING', 'FINISHING', 'HIGH', 'LOW', 'OK',
  'EXACTLY_ONCE', 'AT_LEAST_ONCE', 'exactly-once', 'credit', 'barrier', 'keyed', 'count', 'flat_map', 'parse', 'src',
  'window', 'map', 'filter', 'explode', 'agg', 'sum', 'key', 'jobmanager',
  'Writer', 'Committer', 'exactly', 'once', 'true', 'false', 'recoveries', 'Web', 'orders', 'clicks', 'keyed_aggregate', 'out',
  'sync_ms', 'async_ms', 'fps', 'p50', 'p90', 'p99', 'p95', 'kb', 'mb', 'ms', 'µs', 'us', 'ID',
  // Flink's metric names, its mailbox model's terms (diagnosis), `max(…)` in a formula and
  // `flink stop --drain`'s flag (the editor's stop-and-drain event).
  'softBackPressuredTimeMsPerSecond', 'hardBackPressuredTimeMsPerSecond', 'busyTimeMsPerSecond', 'outPool', 'inPool',
  'mailbox', 'mail', 'max', 'drain',
  // Flink's class names (remedies: how Flink applies them), the English name kept next to
  // a concept (缓冲区消胀（debloating）) and a guide metric's key (`failures: 0`).
  'TaskManager', 'CheckpointConfig', 'debloating', 'failures',
  // The editor's field names are the scenario format's own keys and values (SCENARIO.md:
  // `parallelism`, `cost`, `delivery: idempotent`, partitioners), as a link spells them.
  'rebalance', 'hash', 'forward', 'rescale', 'broadcast', 'flat', 'parallelism', 'cost', 'rate',
  'records', 'keys', 'skew', 'legacy', 'retention', 'delivery', 'idempotent',
  // An editor problem's path into the document (`operators[5]`, `edges`), as the format
  // spells it.
  'operators', 'edges',
];

/** Latin words of a panel's visible text that are not Flink's terms. */
// Texts inside the scanned panels left out of the scan: the job view inside the
// comparison (translated with the job view) and the Resubmit dialog's JSON preview (the
// scenario event itself, as a link spells it). The diagnosis's computed sentences, a
// remedy's effect, the editor's event sentences and its problems (the engine's and the
// scenario reader's validation messages) are scanned: they come from their structured
// form, `engine::log::Msg`.
const ENGINE_TEXTS = [
  '[data-testid^="compare-run-"]', '[data-testid="resubmit-json"]',
];

async function leftovers(page, testid) {
  // The preset menu's entries are preset ids and titles (untranslated presets keep their
  // English titles, see the report); the event log is checked for the checkpoint steps,
  // the entries with a structured form (other engine texts stay English).
  const text = await page.getByTestId(testid).first().evaluate((el, engineTexts) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('select[data-testid="preset-select"] option, optgroup').forEach((o) => o.remove());
    copy.querySelectorAll('[data-testid="log-entry"]:not([data-coded="true"])').forEach((o) => o.remove());
    copy.querySelectorAll(engineTexts.join(',')).forEach((o) => o.remove());
    document.body.appendChild(copy);
    const t = copy.innerText;
    copy.remove();
    return t;
  }, ENGINE_TEXTS);
  return text
    .replace(/Checkpoint Playground|Apache Flink/g, ' ')
    // Flink's operation and CLI as Flink spells them, and a preset id a guide names.
    .replace(/stop-with-savepoint|flink run -s <path>|flink stop|topology-change/g, ' ')
    .replace(/[a-z]+(\.[a-z0-9-]+)+/gi, ' ') // config keys, file names
    .replace(/\b(median|max|min|p\d+)_[a-z_]+\b/g, ' ') // metric names
    .replace(/\b[A-Za-z0-9_]*\(\d+\/\d+\)/g, ' ')
    .split(/[^A-Za-z_]+/)
    .filter((w) => w.length >= 3 && !ALLOW.includes(w) && !/^[A-Z_]+$/.test(w) && !w.includes('_'));
}


async function step(page, n) {
  await page.getByTestId('step-checkpoint').click();
  await page.locator(`[data-testid="checkpoint-step-note"][data-count="${n}"]`).waitFor();
  return page.getByTestId('checkpoint-step-note').locator('.step-line').allTextContents();
}

test('a zh-CN browser opens the page in Chinese, without English leftovers in the panels', { timeout: 300_000 }, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  assert.equal(await page.evaluate(() => navigator.languages[0]).catch(() => null) ?? 'zh-CN', 'zh-CN');
  await open(page);
  assert.equal(await page.evaluate(() => navigator.language), 'zh-CN');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal(await page.getByTestId('app').getAttribute('data-lang'), 'zh-CN');
  await runTo(page, 12);
  await page.getByTestId('checkpoint-row').first().click();
  const lines = await step(page, 1);
  assert.ok(lines.length > 0 && lines.every((l) => /[\u4e00-\u9fff]/.test(l)), `the step note is Chinese: ${lines.join(' | ')}`);
  const found = {};
  for (const id of PANELS) {
    const words = await leftovers(page, id);
    if (words.length) found[id] = [...new Set(words)];
  }
  assert.deepEqual(found, {}, `English leftovers: ${JSON.stringify(found)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the switch toggles every panel, is keyboard operable, survives a reload and stays out of the link', { timeout: 300_000 }, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  await open(page, 'two-phases');
  const link = await page.evaluate(() => location.href);
  // Off-screen panels are not rendered (`content-visibility: auto`), and innerText reads
  // rendered text: look at each panel as a reader would, scrolled to.
  const heading = async (id) => {
    await showPanel(page, id);
    return page.getByTestId(id).locator('h2').first().innerText();
  };
  const zh = {};
  for (const id of PANELS.filter((p) => p !== 'header')) zh[id] = await heading(id);
  assert.match(await page.getByTestId('share').innerText(), /分享/);
  // Keyboard: Tab-focusable button, Enter switches.
  await page.getByTestId('lang-toggle').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.getByTestId('share').innerText(), 'Share link');
  for (const id of Object.keys(zh)) {
    const en = await heading(id);
    assert.notEqual(en, zh[id], `${id} switched (${zh[id]} → ${en})`);
    assert.ok(!/[\u4e00-\u9fff]/.test(en), `${id} is English: ${en}`);
  }
  assert.equal(await page.evaluate(() => location.href), link, 'the link does not change');
  assert.equal(await page.evaluate(() => localStorage.getItem('cp-lang')), 'en');
  // The choice survives a reload, whatever the browser's language.
  await page.reload({ waitUntil: 'load' });
  await page.getByTestId('app').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  assert.equal(await page.getByTestId('share').innerText(), 'Share link');
  // Space on the focused switch and the `l` key switch back.
  await page.getByTestId('lang-toggle').focus();
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.locator('body').press('l');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await page.locator('body').press('l');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.ok(!(await page.evaluate(() => location.href)).includes('lang'), 'no language in the URL');
  assert.deepEqual(problems, []);
  await page.close();
});

test('screenshots of the Chinese interface: the default preset, two-phases while stepping', { timeout: 300_000 }, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.evaluate?.(() => {});
  for (const [w, h] of [[1280, 720], [1920, 1080]]) {
    await page.setViewportSize({ width: w, height: h });
    await open(page);
    await page.evaluate(() => localStorage.setItem('cp-lang', 'zh-CN'));
    await page.reload({ waitUntil: 'load' });
    await page.getByTestId('app').waitFor();
    await runTo(page, 24);
    await page.screenshot({ path: join(SCREENSHOTS, `i18n-zh-default-${w}.png`) });
    await fullPageShot(page, join(SCREENSHOTS, `i18n-zh-default-${w}-full.png`));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `${w}: no horizontal page overflow in Chinese (${overflow} px)`);
    await open(page, 'two-phases');
    let lines = [];
    for (let n = 1; n <= 12 && !lines.some((l) => /异步阶段开始/.test(l)); n++) lines = await step(page, n);
    assert.ok(lines.some((l) => /异步阶段开始/.test(l)), `the async phase step is Chinese: ${lines.join(' | ')}`);
    // The job view's phase badges and subtask lines: the async phase's badge reads in Chinese.
    const badges = await page.locator('[data-testid^="phase-badge-"] .phase-badge-text').allTextContents();
    assert.ok(badges.some((b) => /^异步(写出 · 检查点 \d+|\+在途数据)$/.test(b)), `a Chinese async badge: ${badges.join(' | ')}`);
    assert.ok(!badges.some((b) => /SYNC|snap|write|cp /.test(b)), `no English badge: ${badges.join(' | ')}`);
    const phases = await page.locator('.subtask-phase').allTextContents();
    assert.ok(phases.length > 0 && !phases.some((p) => /^(out|cp) /.test(p)), `subtask lines in Chinese: ${phases.join(' | ')}`);
    await page.screenshot({ path: join(SCREENSHOTS, `i18n-zh-two-phases-${w}.png`) });
    await fullPageShot(page, join(SCREENSHOTS, `i18n-zh-two-phases-${w}-full.png`));
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('diagnosis, compare, the editor and the failure / recovery entries of the event log are Chinese', { timeout: 300_000 }, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  await open(page, 'backpressure');
  // The preset fails count#1 at 45 s: its failure, restart and recovery are logged.
  await runTo(page, 50);
  await showPanel(page, 'event-log'); // rendered only on screen
  const coded = (kind) => page.locator(`[data-testid="log-entry"][data-kind="${kind}"][data-coded="true"] .log-text`).allInnerTexts();
  const failures = await coded('failure');
  const recoveries = await coded('recovery');
  assert.ok(failures.some((t) => /count#1 故障：用户注入的故障|count#1 故障/.test(t)), `a Chinese failure entry: ${failures.join(' | ')}`);
  assert.ok(recoveries.some((t) => /作业从检查点 \d+ 重启/.test(t)), `a Chinese restart entry: ${recoveries.join(' | ')}`);
  assert.ok(recoveries.some((t) => /恢复完成/.test(t)), `a Chinese recovery entry: ${recoveries.join(' | ')}`);
  const found = {};
  const scan = async (id) => {
    const words = await leftovers(page, id);
    if (words.length) found[id] = [...new Set(words)];
  };
  await page.getByTestId('event-log').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-event-log-1440.png') });
  await scan('event-log');
  await page.getByTestId('diagnosis').scrollIntoViewIfNeeded();
  assert.match(await page.getByTestId('diagnosis').locator('h2').first().innerText(), /这个检查点为什么慢/);
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-diagnosis-1440.png') });
  await scan('diagnosis');
  await page.getByTestId('compare-toggle').click();
  await page.getByTestId('compare').waitFor();
  await runTo(page, 50);
  assert.match(await page.getByTestId('compare').locator('h2').first().innerText(), /并排对比：对齐（AC） 对比 非对齐（UC）/);
  await page.getByTestId('compare').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-compare-1440.png') });
  await scan('compare');
  await scan('compare-bar');
  await page.getByTestId('compare-toggle').click();
  await page.getByTestId('compare').waitFor({ state: 'detached' });
  await page.getByTestId('edit-job').click();
  await page.getByTestId('editor').waitFor();
  assert.match(await page.getByTestId('editor').locator('h2').first().innerText(), /编辑作业/);
  // Problems in the draft, in Chinese: a sink with no input and a cycle.
  for (const kind of ['map', 'map', 'sink']) {
    await page.getByTestId('editor-add-kind').selectOption(kind);
    await page.getByTestId('editor-add').click();
  }
  for (const [from, to] of [['map', 'map2'], ['map2', 'map']]) {
    await page.getByTestId('editor-connect-from').selectOption(from);
    await page.getByTestId('editor-connect-to').selectOption(to);
    await page.getByTestId('editor-connect').click();
  }
  const listed = await page.getByTestId('editor-problem').allTextContents();
  assert.ok(listed.length >= 2, `the draft's problems: ${JSON.stringify(listed)}`);
  assert.ok(listed.some((p) => /没有输入/.test(p)) && listed.some((p) => /环/.test(p)), JSON.stringify(listed));
  await page.getByTestId('editor').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-editor-1440.png') });
  await scan('editor');
  assert.deepEqual(found, {}, `English leftovers: ${JSON.stringify(found)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the diagnosis sentences, a remedy, the editor events, the subtask title, savepoint rows, the Resubmit dialog and a new guide are Chinese', { timeout: 600_000 }, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  const found = {};
  const scan = async (id, key = id) => {
    const words = await leftovers(page, id);
    if (words.length) found[key] = [...new Set(words)];
  };
  await open(page, 'backpressure');
  await runTo(page, 30);
  // The subtask's hover title (the job view's SVG <title>).
  const title = await page.locator('[data-testid^="subtask-"] > title').first().textContent();
  assert.match(title, /反压/, `the subtask title is Chinese: ${title}`);
  const titleWords = title.replace(/[a-z]+(\.[a-z0-9-]+)+/gi, ' ').replace(/\b[A-Za-z0-9_]*\(\d+\/\d+\)/g, ' ')
    .split(/[^A-Za-z_]+/).filter((w) => w.length >= 3 && !ALLOW.includes(w) && !/^[A-Z_]+$/.test(w)
      && !/^[A-Z][a-z]+[A-Z]/.test(w) && !['TaskManager', 'slot'].includes(w));
  if (titleWords.length) found['subtask-title'] = [...new Set(titleWords)];
  // The diagnosis: the critical path, the bottleneck, the pool readings (and the barrier
  // tree while a checkpoint is pending) come from their structured form.
  const diagnosis = page.getByTestId('diagnosis');
  assert.match(await diagnosis.getByTestId('diagnosis-text').innerText(), /检查点 \d+/);
  assert.match(await diagnosis.getByTestId('diagnosis-bottleneck').innerText(), /瓶颈|没有反压|反压/);
  await diagnosis.getByTestId('diagnosis-text').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-diagnosis-sentences-1440.png') });
  await scan('diagnosis');
  // A remedy on the newest completed checkpoint (pinned): its effect line and how Flink
  // applies it.
  await page.locator('[data-testid="diagnosis-bar"].aligned, [data-testid="diagnosis-bar"].unaligned').last().click();
  await page.getByTestId('remedy-unaligned').click();
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid="remedy-result"]');
    return r?.dataset.remedy === 'unaligned' && r.dataset.state !== 'running';
  }, null, { timeout: 180_000 });
  assert.equal(await page.getByTestId('remedy-result').getAttribute('data-state'), 'done');
  assert.match(await page.getByTestId('remedy-effect').innerText(), /^检查点 \d+：端到端/);
  await page.getByTestId('remedy-result').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-remedies-1440.png') });
  await scan('diagnosis-remedies');
  // The editor's timeline events (the preset's cost change and failure).
  await page.getByTestId('edit-job').click();
  await page.getByTestId('editor').waitFor();
  const events = await page.locator('.ed-event-text').allInnerTexts();
  assert.ok(events.length >= 2 && events.every((e) => /^在 /.test(e)), `the event sentences are Chinese: ${events.join(' | ')}`);
  await page.getByTestId('editor-events').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-editor-events-1440.png') });
  await scan('editor', 'editor-events');
  // A new guide, a savepoint row and the Resubmit dialog opened on it.
  await open(page, 'topology-change-savepoint');
  assert.match(await page.getByTestId('guide').innerText(), /topology-change 的作业在 19 秒时带保存点停止/);
  await page.getByTestId('guide').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-guide-topology-change-savepoint-1440.png') });
  await scan('guide', 'guide-topology-change-savepoint');
  await runTo(page, 21);
  const savepoint = page.locator('[data-testid="checkpoint-row"].savepoint-row[data-status="completed"]').first();
  await savepoint.waitFor();
  assert.match(await savepoint.getByTestId('checkpoint-type').innerText(), /保存点/);
  await scan('checkpoints', 'checkpoints-savepoint');
  await savepoint.getByTestId('resubmit-from-here').click();
  const dialog = page.getByTestId('resubmit-dialog');
  await dialog.waitFor();
  await dialog.getByTestId('resubmit-parallelism-map').fill('0');
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-resubmit-1440.png') });
  await scan('resubmit-dialog');
  assert.deepEqual(found, {}, `English leftovers: ${JSON.stringify(found)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('what the page said stays in the viewer\'s language: a refused edit\'s note and the job view follow the switch', { timeout: 120_000 }, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  await open(page, 'two-phases');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await page.getByTestId('edit-job').click();
  await page.getByTestId('editor').waitFor();
  const cost = page.locator('[data-testid^="editor-op-"][data-testid$="-cost"]').first();
  await cost.fill('5 parsecs');
  await cost.press('Enter');
  const note = page.getByTestId('editor-note');
  await note.waitFor();
  const zh = await note.textContent();
  assert.match(zh, /^operators\[\d+\]\.cost: .*[\u4e00-\u9fff]/, `refused in Chinese: ${zh}`);
  // The job view's memoized parts (legend, TaskManager boxes, subtasks) switch too.
  const graph = () => page.getByTestId('job-graph').evaluate((g) => [
    g.querySelector('.legend').textContent,
    g.querySelector('.tm-label')?.textContent ?? '',
    g.querySelector('[data-testid^="subtask-"]').getAttribute('aria-label'),
  ].join(' | '));
  const zhGraph = await graph();
  assert.match(zhGraph, /[\u4e00-\u9fff]/, zhGraph);
  // The note was said in Chinese; switched to English it reads in English (it was kept
  // in the language of the moment it was refused in), and so does the job view.
  await page.getByTestId('lang-toggle').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  const en = await note.textContent();
  assert.match(en, /^operators\[\d+\]\.cost: /, en);
  assert.ok(!/[\u4e00-\u9fff]/.test(en), `the note switched to English: ${en}`);
  const enGraph = await graph();
  assert.ok(!/[\u4e00-\u9fff]/.test(enGraph), `the job view switched to English: ${enGraph}`);
  await page.getByTestId('lang-toggle').click();
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.equal(await note.textContent(), zh);
  assert.equal(await graph(), zhGraph);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a link or an import that cannot be read is refused in the viewer\'s language, and follows the switch', { timeout: 120_000 }, async () => {
  const page = await context.newPage();
  const problems = watchProblems(page);
  const toggle = async (lang) => {
    // The import dialog is modal: its overlay covers the header, so the switch is
    // pressed as a click on the button itself.
    await page.getByTestId('lang-toggle').evaluate((b) => b.click());
    await page.waitForFunction((l) => document.documentElement.lang === l, lang);
  };
  // A damaged link: the banner says why, in Chinese, and names the part ("link").
  await openLink(page, `${BASE_URL}#z2:AAAA`);
  const banner = page.getByTestId('error-banner');
  const zh = await banner.locator('span').textContent();
  assert.match(zh, /^无法打开此链接——link：链接已损坏：.*已改为打开默认场景。$/, zh);
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-broken-link-1280.png') });
  await toggle('en');
  const en = await banner.locator('span').textContent();
  assert.match(en, /^This link could not be opened — link: corrupted link: .* The default scenario was opened instead\.$/, en);
  await toggle('zh-CN');
  assert.equal(await banner.locator('span').textContent(), zh);
  // A link whose moment does not read: the scenario opens at 0 and the banner says so.
  const job = {
    version: 2, name: 'n', seed: 1, duration: '10s',
    operators: [{ id: 'src', kind: 'source' }, { id: 'snk', kind: 'sink' }],
    edges: [{ from: 'src', to: 'snk' }],
  };
  await openLink(page, `${BASE_URL}${encodeLink(job)}&t=soon`);
  const moment = await banner.locator('span').textContent();
  assert.match(moment, /^无法读取此链接中的时间——t：'soon' 不是虚拟时间（.*[\u4e00-\u9fff].*）；请写例如 31s 或 1500ms。场景已从 0 秒处打开。$/, moment);
  // Imported text that is not a scenario: refused in Chinese, naming the field.
  await page.getByTestId('import-json').click();
  await page.getByTestId('import-text').fill('{"version": 2, "nam": "x"}');
  await page.getByTestId('import-open').click();
  const error = page.getByTestId('import-error');
  await error.waitFor();
  const zhImport = await error.textContent();
  assert.equal(zhImport, "未打开——nam：未知字段（是否想写 'name'？）");
  await toggle('en');
  assert.equal(await error.textContent(), "Not opened — nam: unknown field (did you mean 'name'?)");
  await toggle('zh-CN');
  assert.equal(await error.textContent(), zhImport);
  // Broken JSON names its line and column; serde's own words stay as they are.
  await page.getByTestId('import-text').fill('{"version": 2,');
  await page.getByTestId('import-open').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="import-error"]')?.textContent.includes('line 1'));
  assert.match(await error.textContent(), /^未打开——line 1 column \d+：无效的 JSON：/);
  await page.screenshot({ path: join(SCREENSHOTS, 'i18n-zh-import-error-1280.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
