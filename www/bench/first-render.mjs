// First render of the default link, read from headless Chromium's performance timeline
// (issue 19, item 1). Not a test: it prints figures and asserts nothing about time.
//
//   BASE_URL=http://127.0.0.1:8080/ node www/bench/first-render.mjs [RUNS]
//
// Each run is a fresh browser profile (cold cache) opening BASE_URL. Reported per run and
// as medians, in ms from navigation start: first contentful paint (the "Loading…" line),
// the module's response end (with its transferred and decoded bytes: Content-Encoding at
// work), and the first frame after the playground's root `[data-testid=app]` entered the
// DOM (a MutationObserver sets a `performance.mark` and the next animation frame is
// timed): the moment the job is drawn.
import { launch } from '../e2e/browser.mjs';

const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const RUNS = Number(process.argv[2] ?? 5);

const OBSERVE = () => {
  const seen = () => {
    if (document.querySelector('[data-testid="app"]')) {
      performance.mark('app-in-dom');
      requestAnimationFrame(() => performance.mark('app-first-frame'));
      return true;
    }
    return false;
  };
  new MutationObserver((_, observer) => seen() && observer.disconnect()).observe(document, {
    childList: true,
    subtree: true,
  });
};

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

const rows = [];
for (let run = 1; run <= RUNS; run++) {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.addInitScript(OBSERVE);
    await page.goto(BASE_URL);
    await page.waitForFunction(() => performance.getEntriesByName('app-first-frame').length > 0, null, {
      timeout: 120_000,
    });
    const row = await page.evaluate(() => {
      const at = (name) => performance.getEntriesByName(name)[0]?.startTime;
      const wasm = performance
        .getEntriesByType('resource')
        .find((e) => e.name.endsWith('.wasm'));
      return {
        fcp: at('first-contentful-paint'),
        wasmEnd: wasm?.responseEnd,
        wasmTransfer: wasm?.encodedBodySize,
        wasmDecoded: wasm?.decodedBodySize,
        appInDom: at('app-in-dom'),
        appFrame: at('app-first-frame'),
      };
    });
    rows.push(row);
    console.log(
      `run ${run}: first contentful paint ${row.fcp?.toFixed(0)} ms, wasm response end ` +
        `${row.wasmEnd?.toFixed(0)} ms (${row.wasmTransfer} B transferred, ${row.wasmDecoded} B ` +
        `decoded), app in DOM ${row.appInDom?.toFixed(0)} ms, first frame of the app ` +
        `${row.appFrame?.toFixed(0)} ms`,
    );
  } finally {
    await browser.close();
  }
}
const m = (key) => median(rows.map((r) => r[key])).toFixed(0);
console.log(
  `median of ${RUNS} cold loads of ${BASE_URL}: first contentful paint ${m('fcp')} ms, ` +
    `wasm response end ${m('wasmEnd')} ms, first frame of the app ${m('appFrame')} ms`,
);
