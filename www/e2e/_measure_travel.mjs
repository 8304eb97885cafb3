import { launch } from './browser.mjs';
const b = await launch();
const page = await b.context.newPage();
await page.goto(process.env.BASE_URL, { waitUntil: 'load' });
await page.getByTestId('app').waitFor();
for (const name of ['large', 'backpressure']) {
  await page.getByTestId('preset-select').selectOption(name);
  await page.getByTestId('timeline').waitFor();
  await page.getByTestId('speed').evaluate((el) => { el.value = '75'; el.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.getByTestId('play').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="play"]') && !document.querySelector('[data-testid="app"]').dataset.playing.includes('true'), null, { timeout: 120000 });
  const fs = page.getByTestId('frame-stats');
  console.log(name, 'played to', await page.locator('.tl').getAttribute('data-now'), 'frame avg', await fs.getAttribute('data-avg-ms'), 'p95', await fs.getAttribute('data-p95-ms'));
  const knob = page.getByTestId('timeline-handle');
  for (const key of ['Home', 'End', 'ArrowLeft', 'ArrowLeft']) {
    await knob.focus();
    await knob.press(key);
    await page.waitForFunction(() => document.querySelector('.tl').dataset.computing === 'false', null, { timeout: 30000 });
    await page.waitForTimeout(300);
    console.log(name, key, await page.locator('.tl-status').textContent());
  }
  // drag half-way: seek from a snapshot to the middle
  const track = await page.getByTestId('timeline-track').boundingBox();
  await page.mouse.click(track.x + track.width * 0.37, track.y + 17);
  await page.waitForTimeout(600);
  console.log(name, 'click 37%', await page.locator('.tl-status').textContent());
}
await b.close();
