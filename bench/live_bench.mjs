// node bench/live_bench.mjs URL SENTENCES_JSON [SCREENS_DIR]: the live translator in headless Chromium (Debian's
// `chromium`, driven by playwright-core from nbs/live), one thread. Prints JSON: bytes the first load fetches (in all, and
// each response's, from Chromium's network records) and its time, each sentence's greedy time (decoding
// alone, and the page's whole run: decoding, yields, the grid), and what a reader meets (umlauts, one word, an empty
// box, a 500-character paste). With SCREENS_DIR, screenshots there at 1,400 and 390 px wide. Bench/bench_live.py runs
// it; it is not a test.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [url, file, screens] = process.argv.slice(2);
const sentences = JSON.parse(readFileSync(file, 'utf8'));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const out = { errors: [], requests: [] };
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
page.on('pageerror', e => out.errors.push(e.message));
const cdp = await page.context().newCDPSession(page);
await cdp.send('Network.enable');
let bytes = 0;
const urls = {}, files = {};                 // after the click: each response's bytes over the wire and Content-Encoding
cdp.on('Network.responseReceived', e => { const h = e.response.headers; urls[e.requestId] = [e.response.url, h['Content-Encoding'] || h['content-encoding'] || '']; });
cdp.on('Network.loadingFinished', e => {
  bytes += e.encodedDataLength;
  if (out.bytesBeforeClick !== undefined && out.loadBytes === undefined) { const [u, enc] = urls[e.requestId] || ['?', '']; files[u] = [e.encodedDataLength, enc]; }
});
page.on('request', r => out.requests.push(r.url()));
await page.goto(url);
const go = page.locator('.tnb-x .tnb-live .tnb-go');
await go.waitFor();
await page.waitForFunction(() => /downloads/.test(document.querySelector('.tnb-x .tnb-live .tnb-note').textContent), null, { polling: 20 });
out.label = await page.textContent('.tnb-x .tnb-live .tnb-note');
out.bytesBeforeClick = bytes;
const t0 = Date.now();
await page.evaluate(() => document.querySelector('.tnb-x').tnbLive.loadModel());   // what the first click does first
out.loadMs = Date.now() - t0;
out.loadBytes = bytes - out.bytesBeforeClick;
out.loadFiles = files;
out.status = await page.textContent('.tnb-x .tnb-live .tnb-status');

// timings: one warm-up sentence, then each sentence, decoding alone and the page's whole run
out.times = await page.evaluate(async list => {
  const root = document.querySelector('.tnb-x'), live = root.tnbLive, tr = live.translator, ta = root.querySelector('textarea');
  live.decoding.value = '1';                                  // greedy, in the page's run too
  await tr.translate(list[0], { beam: 1 });
  const decode = [], run = [], tokens = [];
  for (const s of list) {
    let t = performance.now();
    const r = await tr.translate(s, { beam: 1 });
    decode.push(performance.now() - t); tokens.push(r.out.length + 1);
    ta.value = s; t = performance.now();
    await live.run();
    run.push(performance.now() - t);
  }
  return { decode, run, tokens };
}, sentences);

// what a reader meets
const tries = {};
const said = () => ['.tnb-status', '.tnb-result'].map(c => document.querySelector(`.tnb-x .tnb-live ${c}`).textContent).join(' | ');
async function attempt(name, fill) {
  await page.fill('.tnb-x .tnb-live textarea', '');
  await page.focus('.tnb-x .tnb-live textarea');
  await fill();
  await page.evaluate(() => { document.querySelector('.tnb-x .tnb-live .tnb-status').textContent = ''; });
  const before = await page.evaluate(said);
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(b => {
    const t = ['.tnb-status', '.tnb-result'].map(c => document.querySelector(`.tnb-x .tnb-live ${c}`).textContent).join(' | ');
    return t !== b && !t.includes('Translating');
  }, before, { timeout: 120000, polling: 20 });
  tries[name] = { typed: (await page.inputValue('.tnb-x .tnb-live textarea')).length, out: await page.evaluate(said) };
}
await attempt('umlauts', () => page.keyboard.insertText('Ein älterer Mann öffnet die Tür für zwei Mädchen, die über die Straße gehen.'));
if (screens) await page.screenshot({ path: `${screens}/live-1400.png`, fullPage: true });
await attempt('one word', () => page.keyboard.insertText('Hund'));
await attempt('empty box', async () => {});
await attempt('500-character paste', () => page.keyboard.insertText(('Eine Frau mit einem roten Hut sitzt auf einer Bank im Park und liest ein Buch. ').repeat(7).slice(0, 500)));
if (screens) {
  await page.setViewportSize({ width: 390, height: 844 });
  await attempt('umlauts, 390 px', () => page.keyboard.insertText('Zwei Jungen spielen Fußball auf einer grünen Wiese.'));
  await page.screenshot({ path: `${screens}/live-390.png`, fullPage: true });
}
out.tries = tries;
await browser.close();
console.log(JSON.stringify(out));
