// Frame work and achieved speed of the playground while it plays (issue 19, item 5). Not
// a test: it prints figures and asserts nothing about time.
//
//   BASE_URL=http://127.0.0.1:8080/ node www/bench/frames.mjs [PRESET|JOB.json] [SLIDER] [SECONDS] [ZOOM]
//
// Opens PRESET (default `large`), or the scenario file JOB.json by its link (e.g.
// www/bench/jobs/hash128.json: three operators at parallelism 128, 32,768 channels;
// www/bench/jobs/large300.json: `large` for 300 s, so that 100× has seconds of steady state
// where the 30-s preset gives 0.3 s; www/bench/jobs/large1200.json: 1200 s, ~10 s at 100×,
// with the timeline marks, history rows and chart samples a long run piles up), in headless Chromium at 1440×900, sets the speed slider
// to SLIDER (75 = 100×), optionally zooms the job view (ZOOM: `fit`, `far` = four steps
// out, `near` = four steps in), plays SECONDS of virtual time (default 20) and reports,
// over the played frames: frame work p50 / p95 / max (wall time from the start of each
// animation-frame callback until the next task runs — the engine slices, the snapshots
// and the render the callback causes, as the page's own `frame-stats` readout measures
// it), the frame interval p50 / p95 and the frame rate it gives, the achieved speed
// (virtual time / wall time from the click on Play to the pause, and the steady speed over
// the frames after the first 60, while the page's frame budget is still settling), the page's readout, and the DOM node count.
// State the machine's load with the figures (`uptime` is printed first).
//
// The profile (printed after the figures): the page's own phase readouts (engine slices and
// snapshot cutting per frame, `frame-stats` data-engine-ms / data-snapshot-ms; the lane
// canvas's last paint, `job-lanes` data-draw-ms) and, from a Chromium performance trace of
// the played frames (CDP `Tracing`, category devtools.timeline), the renderer main
// thread's time per phase: script (the frame callback: engine, snapshots, Yew diff and
// the canvas paint), style, layout, paint / composite, per frame. TRACE=0 skips the trace.
// CSS="selector { … }" adds a style sheet to the page before it plays.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { encodeLink, launch } from '../e2e/browser.mjs';

const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const [PRESET = 'large', SLIDER = '75', SECONDS = '20', ZOOM = 'fit'] = process.argv.slice(2);

const HOOK = () => {
  // Wrap requestAnimationFrame: time each callback until the next task (a message).
  const raf = window.requestAnimationFrame.bind(window);
  const work = [];
  const starts = [];
  // The virtual time at each callback's start (the app's `data-now-us`), for the speed
  // once the page's frame budget has settled.
  const nows = [];
  let app = null;
  window.__frames = { work, starts, nows };
  const channel = new MessageChannel();
  let pending = [];
  channel.port1.onmessage = () => {
    const now = performance.now();
    for (const t0 of pending) work.push(now - t0);
    pending = [];
  };
  window.requestAnimationFrame = (cb) =>
    raf((ts) => {
      const t0 = performance.now();
      starts.push(t0);
      app ??= document.querySelector('[data-testid="app"]');
      nows.push(Number(app?.dataset.nowUs ?? NaN));
      cb(ts);
      pending.push(t0);
      channel.port2.postMessage(0);
    });
};

const pct = (values, p) => {
  const v = [...values].sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.floor((v.length - 1) * p))] : NaN;
};

/**
 * The renderer main thread's time per phase over the trace (top-level events only, so a
 * phase nested in script is not counted twice), in ms per frame over `frames` frames.
 */
function phases(events, frames) {
  const PHASE = {
    FireAnimationFrame: 'script', FunctionCall: 'script', EvaluateScript: 'script',
    TimerFire: 'script', EventDispatch: 'script', RunMicrotasks: 'script', 'v8.execute': 'script',
    UpdateLayoutTree: 'style', RecalculateStyles: 'style', Layout: 'layout',
    PrePaint: 'paint', Paint: 'paint', PaintImage: 'paint', Layerize: 'paint',
    UpdateLayer: 'paint', CompositeLayers: 'paint', Commit: 'paint', RasterTask: 'raster',
  };
  const main = new Map();
  for (const e of events) {
    if (e.name === 'thread_name' && e.args?.name === 'CrRendererMain') main.set(`${e.pid}:${e.tid}`, true);
  }
  const spans = events
    .filter((e) => e.ph === 'X' && main.has(`${e.pid}:${e.tid}`) && PHASE[e.name])
    .sort((a, b) => a.ts - b.ts);
  const total = {};
  let end = -1;
  for (const e of spans) {
    if (e.ts < end) continue; // nested in the previous top-level event
    end = e.ts + (e.dur ?? 0);
    total[PHASE[e.name]] = (total[PHASE[e.name]] ?? 0) + (e.dur ?? 0) / 1000;
  }
  const n = Math.max(1, frames);
  return Object.entries(total)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / n).toFixed(2)} ms`)
    .join(', ') + ` per frame (${frames} frames)`;
}

console.log(`load: ${execSync('uptime').toString().trim()}`);
const browser = await launch();
try {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.addInitScript(HOOK);
  const opened = Date.now();
  if (PRESET.endsWith('.json')) {
    const doc = JSON.parse(readFileSync(PRESET, 'utf8'));
    await page.goto(`${BASE_URL}${encodeLink(doc, { level: 9 })}`, { waitUntil: 'load' });
    await page.getByTestId('app').waitFor({ timeout: 120_000 });
  } else {
    await page.goto(BASE_URL, { waitUntil: 'load' });
    await page.getByTestId('app').waitFor({ timeout: 60_000 });
    await page.getByTestId('preset-select').selectOption(PRESET);
    await page.waitForFunction(() => location.hash.startsWith('#z2:'));
  }
  await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]')?.dataset.zoom, null, { timeout: 120_000 });
  // CSS="…" adds a style sheet before playing: hiding a panel (`.tl-mark { display: none }`)
  // shows what its style, layout and paint cost per frame.
  if (process.env.CSS) await page.addStyleTag({ content: process.env.CSS });
  const openMs = Date.now() - opened;
  const openNodes = await page.evaluate(() => [
    document.querySelectorAll('*').length,
    document.querySelectorAll('[data-testid="job-graph"] *').length,
  ]);
  if (ZOOM !== 'fit' && (await page.getByTestId('job-stage').count())) {
    await page.getByTestId('job-stage').focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press(ZOOM === 'far' ? '-' : '+');
    await page.locator('body').click({ position: { x: 1, y: 1 } });
  }
  await page.getByTestId('speed').evaluate((el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, Number(SLIDER));
  await page.getByTestId('pause-at').fill(`${SECONDS}s`);
  await page.getByTestId('pause-at').press('Enter');
  await page.evaluate(() => {
    window.__frames.work.length = 0;
    window.__frames.starts.length = 0;
    window.__frames.nows.length = 0;
  });
  const cdp = process.env.TRACE === '0' ? null : await browser.context.newCDPSession(page);
  const trace = [];
  if (cdp) {
    cdp.on('Tracing.dataCollected', (e) => trace.push(...e.value));
    await cdp.send('Tracing.start', {
      categories: 'devtools.timeline,disabled-by-default-devtools.timeline',
      transferMode: 'ReportEvents',
    });
  }
  const t0 = Date.now();
  await page.getByTestId('play').click();
  await page.waitForFunction(
    (t) => {
      const app = document.querySelector('[data-testid="app"]');
      // Paused at SECONDS, or finished before it (SECONDS past the scenario's duration).
      return app.dataset.run === 'finished' || (app.dataset.run !== 'playing' && Number(app.dataset.nowUs) >= t);
    },
    Number(SECONDS) * 1e6,
    { timeout: 600_000, polling: 200 },
  );
  const wall = (Date.now() - t0) / 1000;
  const reached = await page.evaluate(() => Number(document.querySelector('[data-testid="app"]').dataset.nowUs));
  if (reached < Number(SECONDS) * 1e6) {
    throw new Error(
      `the run finished at ${reached / 1e6}s, before SECONDS=${SECONDS}: pass a time within the scenario's ` +
        `duration (the presets last 30 s; www/bench/jobs/large300.json is \`large\` for 300 s)`,
    );
  }
  if (cdp) {
    const done = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    await done;
  }
  const r = await page.evaluate(() => {
    const { work, starts, nows } = window.__frames;
    // Steady speed: from the 60th played frame (the budget trusts its estimates after
    // 30 intervals) to the last, virtual over wall time.
    const first = nows.findIndex((n) => n > 0);
    const from = first + 60;
    const to = nows.length - 1;
    const steady = first >= 0 && to > from ? (nows[to] - nows[from]) / 1000 / (starts[to] - starts[from]) : NaN;
    const stats = document.querySelector('[data-testid="frame-stats"]').dataset;
    const lanes = document.querySelector('[data-testid="job-lanes"]')?.dataset ?? {};
    return {
      work: [...work],
      steady,
      steadyFrames: to - from,
      intervals: starts.slice(1).map((t, i) => t - starts[i]),
      readout: {
        avg: stats.avgMs, p95: stats.p95Ms, interval: stats.intervalMs,
        engine: stats.engineMs, snapshot: stats.snapshotMs,
      },
      detail: lanes.detail,
      drawMs: lanes.drawMs,
      nodes: document.querySelectorAll('*').length,
      jobNodes: document.querySelectorAll('[data-testid="job-graph"] *').length,
    };
  });
  const f = (x) => x.toFixed(2);
  const i50 = pct(r.intervals, 0.5);
  console.log(
    `${PRESET} at slider ${SLIDER}, ${SECONDS}s virtual in ${wall.toFixed(1)}s wall: achieved ` +
      `${(Number(SECONDS) / wall).toFixed(0)}× real time (from click to pause; ${r.steady.toFixed(0)}× over the ` +
      `${r.steadyFrames} frames after the first 60); ${r.work.length} frames; frame work ` +
      `p50 ${f(pct(r.work, 0.5))} ms, p95 ${f(pct(r.work, 0.95))} ms, max ${f(pct(r.work, 1))} ms; ` +
      `interval p50 ${f(i50)} ms (${(1000 / i50).toFixed(0)} fps), p95 ${f(pct(r.intervals, 0.95))} ms; ` +
      `readout avg ${r.readout.avg} / p95 ${r.readout.p95} ms, interval ${r.readout.interval} ms; ` +
      `job view ${r.detail ?? '-'} (zoom ${ZOOM}), last lane paint ${r.drawMs ?? '-'} ms; ${r.nodes} DOM nodes (${r.jobNodes} in the job view)`,
  );
  console.log(`opened in ${openMs} ms (link to a drawn job view): ${openNodes[0]} DOM nodes, ${openNodes[1]} in the job view`);
  console.log(
    `profile: per frame engine ${r.readout.engine} ms, snapshots ${r.readout.snapshot} ms (page readout, ` +
      `averages), lane paint ${r.drawMs ?? '-'} ms (last)`,
  );
  if (trace.length) console.log(`trace: ${phases(trace, r.work.length)}`);
} finally {
  await browser.close();
}
