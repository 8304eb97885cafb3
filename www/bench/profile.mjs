// A CPU profile of the playground while it plays (issue 19): which functions — engine,
// Yew, the page's own code, the browser — a played stretch spends its main-thread time in.
// Not a test: it prints figures and asserts nothing.
//
//   KEEP_NAMES=1 DIST_DIR=/tmp/dist-names bash scripts/build-site.sh
//   python3 scripts/serve_dist.py /tmp/dist-names 8094 &
//   BASE_URL=http://127.0.0.1:8094/ node www/bench/profile.mjs JOB.json [SLIDER] [SECONDS]
//
// Opens the scenario file JOB.json by its link (e.g. www/bench/jobs/large300.json) in
// headless Chromium at 1440×900, sets the speed slider to SLIDER (default 75 = 100×), plays
// to SECONDS of virtual time (default 120) under the V8 sampling profiler (CDP
// `Profiler`, one sample every 200 µs) and prints the achieved speed, then the top
// functions by self time and by inclusive time (TOPN of each, default 45). `(program)` is
// the browser's own work outside script (style, layout, paint); `(idle)` is time the main
// thread waited. Against the site in dist/ the Rust functions show as `wasm-function[N]`:
// build one with names (above) to read them.
import { readFileSync } from 'node:fs';
import { encodeLink, launch, setPauseAt, setSpeed, waitStill } from '../e2e/browser.mjs';
const BASE_URL = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const TOPN = Number(process.env.TOPN ?? 45);
const [JOB, SLIDER = '75', SECONDS = '120'] = process.argv.slice(2);
if (!JOB) {
  console.error('usage: node www/bench/profile.mjs JOB.json [SLIDER] [SECONDS]');
  process.exit(2);
}
const browser = await launch();
const page = await browser.context.newPage();
await page.setViewportSize({ width: 1440, height: 900 });
const doc = JSON.parse(readFileSync(JOB, 'utf8'));
await page.goto(`${BASE_URL}${encodeLink(doc, { level: 9 })}`, { waitUntil: 'load' });
await page.waitForFunction(() => document.querySelector('[data-testid="job-lanes"]')?.dataset.zoom, null, { timeout: 120_000 });
const untilUs = Math.round(Number(SECONDS) * 1e6);
await setSpeed(page, Number(SLIDER));
await setPauseAt(page, untilUs);
const cdp = await browser.context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
await cdp.send('Profiler.start');
const t0 = Date.now();
await page.getByTestId('play').click();
await waitStill(page, untilUs, 600_000);
const wall = (Date.now() - t0) / 1000;
const { profile } = await cdp.send('Profiler.stop');
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const counts = new Map();
for (const s of profile.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const self = new Map(); const incl = new Map(); let total = 0;
for (const [id, c] of counts) {
  total += c;
  const name = byId.get(id).callFrame.functionName || '(anon)';
  self.set(name, (self.get(name) ?? 0) + c);
  const seen = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const nm = byId.get(x).callFrame.functionName || '(anon)';
    if (seen.has(nm)) continue; seen.add(nm);
    incl.set(nm, (incl.get(nm) ?? 0) + c);
  }
}
console.log(`achieved ${(Number(SECONDS) / wall).toFixed(0)}x, ${total} samples`);
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([n, c]) => `${(100 * c / total).toFixed(1).padStart(5)}% ${n.slice(0, 140)}`).join('\n');
console.log('--- self'); console.log(top(self, TOPN));
console.log('--- inclusive'); console.log(top(incl, TOPN));
await browser.close();
