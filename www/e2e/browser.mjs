// Starts Debian's Chromium through playwright-core for the end-to-end tests.
//
// Contract: `launch()` returns { context, close } for a fresh, isolated browser
// profile (a new temporary user-data-dir, removed by close()). It never downloads a
// browser: the executable is /usr/bin/chromium (override with CHROMIUM_PATH). The
// site under test is BASE_URL (scripts/test.sh serves dist/ and sets it).
// `frameStats(page)` reads the playground's frame-time readout (`frame-stats`) as numbers.
// `runTo`, `runToEnd`, `waitStill`, `openLink` move virtual time deterministically and
// wait on the state the page exposes (see "Driving virtual time" below).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

export const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';

/** Where the tests save their screenshots (created on first use). */
export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), 'screenshots');

/**
 * One browser for the calling test file: launched before its tests, closed after them.
 * Returns a getter, since the browser exists only once `before` has run.
 */
export function sharedBrowser() {
  let browser;
  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launch();
  }, { timeout: 60_000 });
  after(async () => {
    await browser?.close();
  });
  return () => browser;
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Starts the headless Chromium the tests and benchmarks use. CHROMIUM_FLAGS (space-separated)
 * adds switches for an experiment, e.g. `--js-flags=--no-wasm-dynamic-tiering`.
 */
export async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'cp-e2e-profile-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...FLAGS, ...(process.env.CHROMIUM_FLAGS ?? '').split(' ').filter(Boolean)],
    viewport: { width: 1400, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

// Collects console errors, page errors and failed requests of a page, so a test can
// assert that the page loaded cleanly.
export function watchProblems(page) {
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console.error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  return problems;
}

/** The frame-time readout of a page (`frame-stats`): avg, p95, frames, engine, snapshot ms. */
export async function frameStats(page) {
  const stats = page.getByTestId('frame-stats');
  const read = async (name) => Number(await stats.getAttribute(`data-${name}`));
  return {
    avg: await read('avg-ms'),
    p95: await read('p95-ms'),
    frames: await read('frames'),
    engine: await read('engine-ms'),
    snapshot: await read('snapshot-ms'),
  };
}

/** Sets the speed slider (0-100, logarithmic: 10^(−1 + v/25)×; 50 = 10×, 75 = 100×). */
export async function setSpeed(page, sliderValue) {
  await page.getByTestId('speed').evaluate((el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, sliderValue);
}

// Driving virtual time. The page exposes its state on the root `data-testid="app"`:
// `data-now-us` (virtual time), `data-run` (playing / paused / seeking / finished),
// `data-job-status` and `data-pause-at-us`. Tests move virtual time only with
// deterministic controls (a link's `&t=`, "Pause at", Step, Checkpoint step) and wait on
// these attributes, never on wall-clock sleeps or on a fast run still going: an engine
// infinitely fast stops at the same virtual time, a very slow one only takes longer.

/**
 * The speed slider value `runTo` / `runToEnd` play at: 100 (1000×) unless E2E_SPEED says
 * otherwise (e.g. E2E_SPEED=75 for 100×). The tests pass at any value; only their wall
 * time changes.
 */
export const PLAY_SPEED = Number(process.env.E2E_SPEED ?? 100);

/** The page's run state: { now (µs), run, job, pauseAt (µs or null) }. */
export async function runState(page) {
  return page.getByTestId('app').evaluate((el) => ({
    now: Number(el.dataset.nowUs),
    run: el.dataset.run,
    job: el.dataset.jobStatus,
    pauseAt: el.dataset.pauseAtUs ? Number(el.dataset.pauseAtUs) : null,
  }));
}

/** Waits until the page stands still (paused or finished, no seek pending) at or past `us`. */
export async function waitStill(page, us = 0, timeout = 120_000) {
  await page.waitForFunction(
    (t) => {
      const app = document.querySelector('[data-testid="app"]');
      const run = app?.dataset.run;
      return run === 'finished' || (run === 'paused' && Number(app.dataset.nowUs) >= t);
    },
    us,
    { timeout },
  );
  return runState(page);
}

/** A virtual time in the link's syntax (`31s`, `1500ms`, `250us`), as the page writes it. */
export function moment(us) {
  if (us % 1_000_000 === 0) return `${us / 1_000_000}s`;
  if (us % 1_000 === 0) return `${us / 1_000}ms`;
  return `${us}us`;
}

/** Sets "Pause at" to `us` µs of virtual time (null clears it) and waits until the page took it. */
export async function setPauseAt(page, us) {
  const field = page.getByTestId('pause-at');
  await field.fill(us === null ? '' : moment(us));
  await field.press('Enter');
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid="app"]')?.dataset.pauseAtUs === want,
    us === null ? '' : String(us),
  );
}

/**
 * Plays to exactly `seconds` of virtual time and leaves the run paused there ("Pause at"
 * + Play). `speed` is the slider value to play at (default PLAY_SPEED, 100 = 1000×: the
 * wall time is then bounded by the engine's speed, not by the clock). Returns the run state; the
 * virtual time is exactly `seconds` unless the run finished before it.
 */
export async function runTo(page, seconds, { speed = PLAY_SPEED, timeout = 120_000 } = {}) {
  const us = Math.round(seconds * 1_000_000);
  const before = await runState(page);
  if (before.now >= us) throw new Error(`runTo(${seconds}s): the run is already at ${before.now} µs`);
  await setPauseAt(page, us);
  await setSpeed(page, speed);
  await page.getByTestId('play').click();
  const state = await waitStill(page, us, timeout);
  if (state.run !== 'finished' && state.now !== us) {
    throw new Error(`runTo(${seconds}s) paused at ${state.now} µs`);
  }
  return state;
}

/** Plays the loaded run to its end (at PLAY_SPEED) and waits until the page says it finished. */
export async function runToEnd(page, timeout = 120_000) {
  await setPauseAt(page, null);
  await setSpeed(page, PLAY_SPEED);
  await page.getByTestId('play').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="app"]')?.dataset.run === 'finished',
    null,
    { timeout },
  );
  return runState(page);
}

/** Opens `url` (a link, maybe with `&t=`) in `page` and waits until it stands still. */
export async function openLink(page, url, timeout = 120_000) {
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  return waitStill(page, 0, timeout);
}

/**
 * The scenario document in a page's link: `#z2:` + base64url(CRC-32 of the JSON, 4 bytes
 * big-endian, then raw deflate of the JSON), or the older `#z:` + base64url(raw deflate).
 * A trailing `&t=…` moment suffix is ignored.
 */
export function linkDocument(url) {
  const fragment = (url.split('#')[1] ?? '').split('&')[0];
  let deflated;
  if (fragment.startsWith('z2:')) deflated = Buffer.from(fragment.slice(3), 'base64url').subarray(4);
  else if (fragment.startsWith('z:')) deflated = Buffer.from(fragment.slice(2), 'base64url');
  else throw new Error(`not a deflated link: ${fragment.slice(0, 12)}`);
  return JSON.parse(inflateRawSync(deflated).toString('utf8'));
}

/**
 * A `#z2:` link fragment of a scenario document (what `scenario::encode_link` writes, the
 * inverse of `linkDocument`); `level` is the deflate level (zlib's default unless given).
 */
export function encodeLink(doc, { level } = {}) {
  const json = Buffer.from(JSON.stringify(doc), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(crc32(json) >>> 0);
  const body = deflateRawSync(json, level === undefined ? {} : { level });
  return `#z2:${Buffer.concat([head, body]).toString('base64url')}`;
}

/** Opens the playground at BASE_URL and, if `preset` is given, loads that preset. */
export async function openPreset(page, preset) {
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  if (preset) {
    await page.getByTestId('preset-select').selectOption(preset);
    await page.waitForFunction(() => location.hash.startsWith('#z2:'));
  }
}

/**
 * Scrolls the panel `testid` to the screen and waits until the browser has rendered it:
 * the panels below the first screen are `content-visibility: auto`, so until then their
 * text has no rendering (innerText reads empty) although it is in the DOM.
 */
export async function showPanel(page, testid) {
  const panel = page.getByTestId(testid);
  await panel.scrollIntoViewIfNeeded();
  await panel.evaluate((el) => new Promise((resolve) => {
    const body = el.querySelector('.panel-body'); // the panel itself is always "visible"
    const check = () => (body.checkVisibility({ contentVisibilityAuto: true }) ? resolve() : requestAnimationFrame(check));
    check();
  }));
}

/**
 * A full-page screenshot with every panel rendered: the panels below the first screen are
 * `content-visibility: auto` and a capture beyond the viewport does not make them
 * relevant, so they would be blank; they are switched to `visible` for the capture only.
 */
export async function fullPageShot(page, path) {
  await page.evaluate(() => document.querySelectorAll('.layout > .panel').forEach((el) => {
    el.style.contentVisibility = 'visible';
  }));
  try {
    await page.screenshot({ path, fullPage: true });
  } finally {
    await page.evaluate(() => document.querySelectorAll('.layout > .panel').forEach((el) => {
      el.style.contentVisibility = '';
    }));
  }
}

/** The screen rectangles of the elements matching `selector` inside the job stage. */
export async function rects(page, selector) {
  return page.evaluate((sel) => [...document.querySelectorAll(`[data-testid="job-stage"] ${sel}`)]
    .map((el) => el.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.height > 0)
    .map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })), selector);
}

/** Pairs (i of `a`, j of `b`) that overlap by more than `slack` px on both axes. */
export function crossings(a, b, slack = 0.5) {
  const out = [];
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      const dx = Math.min(a[i].x + a[i].w, b[j].x + b[j].w) - Math.max(a[i].x, b[j].x);
      const dy = Math.min(a[i].y + a[i].h, b[j].y + b[j].h) - Math.max(a[i].y, b[j].y);
      if (dx > slack && dy > slack) out.push([i, j]);
    }
  }
  return out;
}
