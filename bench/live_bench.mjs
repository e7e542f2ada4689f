// node bench/live_bench.mjs URL SENTENCES_JSON: the live translator in headless Chromium (Debian's `chromium`, driven by
// playwright-core from nbs/live), one thread, through the page's own code: URL serves a page that loads ONNX Runtime
// Web and the model as the site's page does (vendor/ and model/ with their gzip copies, translator.mjs) and sets
// `window.tnbBench` to {translator, loadMs} once ready. Prints JSON: the bytes over the wire after the page itself
// (Chromium's network records: in all and per file), the load time, the browser's version, and per decoding (greedy,
// beam 4) each sentence's milliseconds (`translate`, text to text: tokenizing, encoder, decoder steps, the grid's
// weights) and its decoder steps, with the renderer's CPU seconds and the wall seconds of the whole run (on a shared
// machine the two differ). bench/bench_live.py runs it; it is not a test.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [url, file] = process.argv.slice(2);
const sentences = JSON.parse(readFileSync(file, 'utf8'));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const out = { errors: [], browser: browser.version(), files: {} };
try {
  const page = await browser.newPage();
  page.on('pageerror', e => out.errors.push(e.message));
  page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
  const cdp = await page.context().newCDPSession(page), urls = {};
  await cdp.send('Network.enable');
  let page0 = true;
  cdp.on('Network.responseReceived', e => { urls[e.requestId] = e.response.url; });
  cdp.on('Network.loadingFinished', e => {
    const u = urls[e.requestId] || '?';
    if (page0 && u === url) { page0 = false; return; }           // the page itself: not the translator's load
    out.files[u.slice(url.length)] = e.encodedDataLength;
  });
  await page.goto(url);
  await page.waitForFunction(() => window.tnbBench || window.tnbBenchError, null, { timeout: 300000, polling: 50 });
  const err = await page.evaluate(() => window.tnbBenchError);
  if (err) throw new Error(err);
  out.loadMs = await page.evaluate(() => window.tnbBench.loadMs);
  out.loadBytes = Object.values(out.files).reduce((a, b) => a + b, 0);
  // the renderer's CPU time, from the browser's own records: on a shared machine, the time this work took of a core
  const bcdp = await browser.newBrowserCDPSession();
  const cpu = async () => (await bcdp.send('SystemInfo.getProcessInfo')).processInfo.filter(p => p.type === 'renderer').reduce((a, p) => a + p.cpuTime, 0);
  await page.evaluate(async list => {                                // warm-up: the wasm code is compiled in tiers as it runs
    const tr = window.tnbBench.translator;
    for (const s of list.slice(0, 10)) { await tr.translate(s, { beam: 1 }); await tr.translate(s, { beam: 4 }); }
  }, sentences);
  out.runs = {};
  for (const [name, beam] of [['greedy', 1], ['beam4', 4]]) {
    const c0 = await cpu(), t0 = Date.now();
    out.runs[name] = await page.evaluate(async ([list, beam]) => {
      const tr = window.tnbBench.translator, ms = [], steps = [];
      for (const s of list) {
        let n = 0;
        const t = performance.now();
        await tr.translate(s, { beam, onStep: () => { n++; } });
        ms.push(Math.round((performance.now() - t) * 100) / 100); steps.push(n);
      }
      return { beam, ms, steps };
    }, [sentences, beam]);
    Object.assign(out.runs[name], { cpuSeconds: (await cpu()) - c0, wallSeconds: (Date.now() - t0) / 1000 });
  }
} catch (e) { out.errors.push(String(e)); }
await browser.close();
console.log(JSON.stringify(out));
