// Starts Debian's Chromium through playwright-core for the end-to-end tests.
//
// Contract: `launch()` returns { context, close } for a fresh, isolated browser
// profile (a new temporary user-data-dir, removed by close()). It never downloads a
// browser: the executable is /usr/bin/chromium (override with CHROMIUM_PATH). The
// site under test is BASE_URL (scripts/test.sh serves dist/ and sets it).
// `frameStats(page)` reads the playground's frame-time readout (`frame-stats`) as numbers.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
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

export async function launch() {
  const userDataDir = mkdtempSync(join(tmpdir(), 'cp-e2e-profile-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
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

/** Plays until the clock shows at least `seconds` of virtual time, then pauses. */
export async function playUntil(page, seconds, timeout = 90_000) {
  await page.getByTestId('play').click();
  await page.waitForFunction(
    (s) => parseFloat(document.querySelector('[data-testid="clock"] .clock-value')?.textContent ?? '0') >= s,
    seconds,
    { timeout },
  );
  await page.getByTestId('pause').click();
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
