// End to end: Export Flink job (issue 16). Run the `healthy` preset a little, trigger a
// checkpoint (a recorded action), press Export Flink job: the download is
// <slug>-flink.zip, a zip (PK\x03\x04) holding the job's files under one folder, and the
// recorded checkpoint trigger is in the generated job (the export is of the run, not of
// the preset). Compiling and running such a job on real Flink is the 6th test layer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BASE_URL, sharedBrowser, watchProblems } from './browser.mjs';

const browser = sharedBrowser();

test('Export Flink job downloads the run as a zip of its Flink job', { timeout: 120_000 }, async () => {
  const { context } = browser();
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(BASE_URL, { waitUntil: 'load' });
  await page.getByTestId('app').waitFor({ timeout: 20_000 });
  await page.getByTestId('preset-select').selectOption('healthy');
  await page.waitForFunction(() => document.querySelector('[data-testid="preset-select"]').value === 'healthy');
  for (let i = 0; i < 10; i++) await page.getByTestId('step').click();
  await page.getByTestId('trigger-checkpoint').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('export-flink').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'healthy-job-no-backpressure-flink.zip');
  const bytes = readFileSync(await download.path());
  assert.deepEqual([...bytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04], 'a zip');
  const text = bytes.toString('latin1');
  for (const f of ['src/main/java/playground/ScenarioJob.java', 'src/main/java/playground/Playground.java',
    'config.yaml', 'pom.xml', 'run-local.sh', 'README.md', 'scenario.json']) {
    assert.ok(text.includes(`healthy-job-no-backpressure-flink/${f}`), `the zip holds ${f}`);
  }
  assert.match(text, /new Trigger\(\d+L\)/, 'the recorded checkpoint trigger is exported');
  assert.match(await page.getByTestId('share-note').textContent(), /Downloaded healthy-job-no-backpressure-flink\.zip/);
  assert.deepEqual(problems, []);
  await page.close();
});
