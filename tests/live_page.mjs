// node tests/live_page.mjs URL SENTENCE [SECOND]: open the page in headless Chromium (Debian's `chromium`, driven by
// playwright-core from nbs/live), load the live model with the explorer's button, type SENTENCE, press Ctrl-Enter, and
// print JSON: the button's label, the translation, the grid's cells, the requests made (and each response's bytes over
// the wire, from Chromium's network records) and any error. With SECOND, it types SECOND and clicks while the first
// still decodes, and reports the translation that ends on the page.
import { createRequire } from 'node:module';
const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [url, sentence, second] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const out = { requests: [], errors: [] };
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(120000);                    // a loaded CI machine: the model loads and decodes slower than 30 s
  page.on('request', r => out.requests.push(r.url()));
  const cdp = await page.context().newCDPSession(page), urls = {};          // the browser's own network records
  await cdp.send('Network.enable');
  out.transfers = [];                                                // [url, bytes over the wire, Content-Encoding]
  cdp.on('Network.responseReceived', e => { urls[e.requestId] = [e.response.url, e.response.headers['Content-Encoding'] || e.response.headers['content-encoding'] || '']; });
  cdp.on('Network.loadingFinished', e => { const [u, enc] = urls[e.requestId] || ['?', '']; out.transfers.push([u, e.encodedDataLength, enc]); });
  page.on('pageerror', e => out.errors.push(e.message));
  page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
  await page.goto(url);
  const go = page.locator('.tnb-live .tnb-go');
  await go.waitFor({ timeout: 30000 });
  out.label = await go.textContent();
  out.requestsBeforeClick = out.requests.length;
  out.transfersBeforeClick = out.transfers.length;
  await go.click();                                                  // loads the model (the box is empty: nothing to translate)
  await page.waitForFunction(() => document.querySelector('.tnb-live .tnb-go').textContent === 'Translate', null, { timeout: 120000 });
  out.status = await page.textContent('.tnb-live .tnb-status');
  await page.waitForFunction(() => document.querySelector('.tnb-live .tnb-out').textContent !== '');
  out.empty = await page.textContent('.tnb-live .tnb-out');
  await page.fill('.tnb-live textarea', sentence);
  await page.focus('.tnb-live textarea');
  await page.keyboard.press('Control+Enter');
  if (second) {
    await page.waitForFunction(() => document.querySelector('.tnb-live .tnb-out').textContent.startsWith('Translating'), null, { polling: 20 });
    await page.fill('.tnb-live textarea', second);
    await go.click();
  }
  await page.waitForSelector('.tnb-live .tnb-out .tnb-hyp', { timeout: 120000 });
  out.hyp = await page.textContent('.tnb-live .tnb-out .tnb-hyp');
  out.line = await page.textContent('.tnb-live .tnb-out');
  out.option = await page.$eval('select[name=sentence]', s => s.options[s.selectedIndex].textContent);
  out.grid = await page.$eval('select[name=kind]', s => s.value) + ' ' + await page.$eval('select[name=layer]', s => s.value) + ' ' +
             await page.$eval('select[name=head]', s => s.value);
  out.cells = await page.$$eval('.tnb-x svg rect title', ts => ts.map(t => t.textContent));
} catch (e) { out.errors.push(String(e)); }
await browser.close();
console.log(JSON.stringify(out));
