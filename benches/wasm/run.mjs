// The wasm half of scripts/bench-wasm.sh: loads the `bench_wasm` module (wasm-bindgen
// --target nodejs output in PKG) and times whole-job runs of PRESET exactly as
// benches/whole_job.rs does natively: one warm-up run capped at 2 s of virtual time (V8
// tiers the hot functions up), then full runs until MIN_SECS of wall time have passed.
//
//   node benches/wasm/run.mjs PKG PRESET MIN_SECS
// The last line, `RESULT wasm hops_per_sec=… runs=… hash=…`, is what the script reads.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const [pkg, preset = 'large', minSecsText = '3'] = process.argv.slice(2);
const minSecs = Number(minSecsText);
const require = createRequire(import.meta.url);
const { run_whole_job: runWholeJob } = require(join(resolve(pkg), 'bench_wasm.js'));

runWholeJob(preset, 2_000_000);
const started = performance.now();
let runs = 0;
let hops = 0;
let last;
while (runs === 0 || (performance.now() - started) / 1000 < minSecs) {
  last = runWholeJob(preset, 0).split(' ');
  runs += 1;
  hops += Number(last[1]);
}
const secs = (performance.now() - started) / 1000;
const rate = hops / secs;
const [subtasks, runHops, virtualUs, checkpoints, hash] = last;
console.log(
  `wasm   ${preset}: ${subtasks} subtasks, ${(Number(virtualUs) / 1e6).toFixed(0)} s virtual, ` +
    `${runHops} record-hops and ${checkpoints} checkpoints a run; ${runs} runs in ` +
    `${secs.toFixed(2)} s: ${(rate / 1e6).toFixed(2)} M record-hops/s (node ${process.version})`,
);
console.log(`RESULT wasm hops_per_sec=${rate.toFixed(0)} runs=${runs} hash=${hash}`);
