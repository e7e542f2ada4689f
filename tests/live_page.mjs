// node tests/live_page.mjs URL: a reader's walk through a page with the front page's translator (#tnb-front) and an
// attention explorer with its own (apps_attention_explorer), in headless Chromium (Debian's `chromium`, $CHROMIUM, driven by playwright-core
// from nbs/live), every other host blocked. Prints JSON of what the reader saw, the requests made with each response's
// bytes over the wire (Chromium's network records), and any error. The walk:
// 1. the front translator: Translate on an empty box, a text over the limit (the counter), an example clicked (the
//    model loads, the translation comes), the beam view stepped with its buttons and the arrow keys; the links it built;
// 1b. a text over the limit translated: the counter and the warning count alike, the cut is where a sentence ends, and
//    the line "Model loaded in ..." is gone;
// 2. a hostile sentence (markup, an emoji) typed and translated;
// 2b. a paragraph of two sentences (each its own view); 2c. English in the German box (the line that says so);
// 2d. Arabic, then gibberish in Latin letters, in the German box (a line each, no switch offered); the page's tables,
//    the beam view's included, measured (wrapped whole words, or scrolling in their own box);
// 2e. the box emptied and Translate clicked: nothing of the last translation left on screen;
// 3. the switch to English→German, which loads the second model, and an English sentence;
// 4. the explorer: FIRST typed and Ctrl-Enter, then SECOND typed and clicked while FIRST still decodes; the grid;
// 5. the page opened again at #translator (10_decoding's link): an example decoded, the input and the result in view.
// The window is WIDTH px wide (default 1200); the page's tables (#tnb-path) are measured against it.
//
// node tests/live_page.mjs --tables URL: only the tables of the page at URL, WIDTH px wide, measured (`measureTables`):
// the layout test of the site's stylesheet (test_live.py, on every Markdown table of the notebooks).
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
const { chromium } = require('playwright-core');

// Each `main table` of the page: where it came from (data-from on an ancestor), its height and right edge, its width
// and the width it shows (scrollWidth > clientWidth: it scrolls in its own box), the window's width, and `broken`: every
// word (a run of letters and digits) of a cell split over two lines, which a cell may do only at a space or a hyphen
function measureTables() {
  return [...document.querySelectorAll('main table')].map(t => {
    const broken = [], box = t.getBoundingClientRect();
    for (const cell of t.querySelectorAll('th, td')) {
      const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n; (n = walk.nextNode());) for (const m of n.data.matchAll(/[\p{L}\p{N}]+/gu)) {
        const r = document.createRange();
        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        if (new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size > 1) broken.push(m[0]);
      }
    }
    // `split`: a name kept whole by the stylesheet that spans two lines: a cell's code (`tnb-train --seed`), and a row's
    // name in a table a cell prints (its first column, "base-seed1")
    const lines = el => new Set([...el.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size;
    const names = [...t.querySelectorAll('td code, th code'), ...(t.closest('.cell-output-display') ? t.querySelectorAll('td:first-child, th:first-child') : [])];
    const split = names.filter(el => el.textContent.trim() && lines(el) > 1).map(el => el.textContent.trim());
    return { from: t.closest('[data-from]')?.dataset.from || t.closest('[id]')?.id || '', height: Math.round(box.height), right: Math.round(box.right),
             scroll: t.scrollWidth, client: t.clientWidth, inner: innerWidth, broken, split,
             lefts: [...(t.querySelector('tbody tr')?.children || [])].map(c => Math.round(c.getBoundingClientRect().left)) };
  });
}

const [url, first, second, english, hostile] = process.argv.slice(2);
if (url === '--tables') {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const out = { errors: [] };
  try {
    const page = await browser.newPage({ viewport: { width: +(process.env.WIDTH || 1200), height: 900 } });
    page.on('pageerror', e => out.errors.push(e.message));
    await page.goto(first);
    out.tables = await page.evaluate(measureTables);
    out.width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  } catch (e) { out.errors.push(String(e).split('\n')[0]); }
  await browser.close();
  console.log(JSON.stringify(out));
  process.exit(0);
}
const PARAGRAPH = 'Ein Hund läuft über die Wiese. Zwei Katzen schlafen.', ENGLISH_IN_GERMAN = 'The dog is running in the park.';
const UNREADABLE = { script: 'مرحبا بالعالم', letters: 'xkqz vbrtw plmnq zzkj' };
const profile = mkdtempSync(join(tmpdir(), 'tnb-chromium-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, viewport: { width: +(process.env.WIDTH || 1200), height: 900 },
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const out = { requests: [], errors: [], dialogs: 0, steps: [] };
const origin = new URL(url).origin;
try {
  const page = ctx.pages()[0] || await ctx.newPage();
  page.setDefaultTimeout(120000);                    // a loaded CI machine: the model loads and decodes slower than 30 s
  await page.route(u => u.origin !== origin, r => { out.requests.push(`blocked ${r.request().url()}`); r.abort(); });
  page.on('request', r => out.requests.push(r.url()));
  page.on('dialog', d => { out.dialogs++; d.dismiss(); });
  const cdp = await ctx.newCDPSession(page), urls = {};          // the browser's own network records
  await cdp.send('Network.enable');
  out.transfers = [];                                                // [url, bytes over the wire, Content-Encoding]
  cdp.on('Network.responseReceived', e => { urls[e.requestId] = [e.response.url, e.response.headers['Content-Encoding'] || e.response.headers['content-encoding'] || '']; });
  cdp.on('Network.loadingFinished', e => { const [u, enc] = urls[e.requestId] || ['?', '']; out.transfers.push([u, e.encodedDataLength, enc]); });
  page.on('pageerror', e => out.errors.push(e.message));
  page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
  await page.goto(url);
  const F = '#tnb-front .tnb-live', X = '.tnb-x .tnb-live';
  await page.locator(`${F} .tnb-go`).waitFor({ timeout: 30000 });
  await page.locator(`${X} .tnb-go`).waitFor({ timeout: 30000 });
  await page.waitForFunction(s => /downloads/.test(document.querySelector(s).textContent), `${F} .tnb-note`);
  out.note = await page.textContent(`${F} .tnb-note`);
  out.placeholder = await page.getAttribute(`${F} textarea`, 'placeholder');
  out.requestsBeforeClick = out.requests.length;
  // 1. the front translator
  out.at = '1. the front translator';
  await page.click(`${F} .tnb-go`);
  out.empty = await page.textContent(`${F} .tnb-status`);
  await page.fill(`${F} textarea`, 'Ein Hund läuft über die Wiese. '.repeat(11));
  out.count = await page.textContent(`${F} .tnb-count`);
  const example = page.locator(`${F} .tnb-ex`).first();
  out.example = await example.textContent();
  await example.click();
  await page.waitForSelector(`${F} .tnb-result .tnb-hyp`);
  out.status = await page.textContent(`${F} .tnb-status`);
  out.front = { hyp: await page.textContent(`${F} .tnb-hyp`), meta: await page.textContent(`${F} .tnb-meta`),
                chips: await page.$$eval(`${F} .tnb-src-pieces .tnb-chips > span`, s => s.map(x => x.textContent)) };
  if (await page.locator(`${F} .tnb-beam-wrap:not([hidden])`).count()) {
    await page.click(`${F} .tnb-beam-wrap > summary`);
    const pos = () => page.textContent(`${F} .tnb-bv-pos`);
    out.steps.push(await pos());
    await page.click(`${F} .tnb-bv-nav button[aria-label="Next step"]`); out.steps.push(await pos());
    await page.focus(`${F} .tnb-beam`);
    await page.keyboard.press('ArrowRight'); out.steps.push(await pos());
    await page.keyboard.press('ArrowLeft'); out.steps.push(await pos());
    await page.keyboard.press('End'); out.steps.push(await pos());
    out.end = await page.textContent(`${F} .tnb-bv-end`);
    out.facts = await page.$$eval(`${F} .tnb-bv-facts li`, ls => ls.map(l => l.textContent));
    out.finished = await page.textContent(`${F} .tnb-bv-fin > b`);
    out.rows = await page.$$eval(`${F} .tnb-bv-table tbody tr`, rs => rs.map(r => r.className));
    await page.keyboard.press('Home'); out.steps.push(await pos());
    out.firstRows = await page.$$eval(`${F} .tnb-bv-table tbody tr`, rs => rs.map(r => [r.className, r.querySelector('.hyp').textContent]));
    out.attention = await page.$$eval(`${F} .tnb-bv-att .tnb-chips > span`, s => s.map(x => x.title));
  }
  out.links = await page.$$eval('.tnb-live a[href]', as => as.map(a => a.href));
  // 1b. over the limit: three sentences of four kept (the fourth would be cut inside), counted alike above and below
  out.at = '1b. a text over the limit';
  const LONG = 'Eine Frau mit einem roten Hut sitzt auf einer Bank im Park und liest ein Buch. '.repeat(4);
  await page.fill(`${F} textarea`, `  ${LONG}  `);
  out.over = { count: await page.textContent(`${F} .tnb-count`) };
  await page.click(`${F} .tnb-go`);
  await page.waitForFunction(s => /were translated/.test(document.querySelector(s)?.textContent || ''), `${F} .tnb-result .tnb-warn`);
  Object.assign(out.over, { warn: await page.textContent(`${F} .tnb-result .tnb-warn`), meta: await page.textContent(`${F} .tnb-meta`),
    which: await page.$$eval(`${F} .tnb-bv-which q:first-of-type`, qs => qs.map(q => q.textContent)), status: await page.textContent(`${F} .tnb-status`) });
  // 2. a hostile sentence
  out.at = '2. a hostile sentence';
  await page.fill(`${F} textarea`, hostile);
  await page.focus(`${F} textarea`);
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(([s, t]) => document.querySelector(s)?.textContent.includes(t), [`${F} .tnb-warn`, '😀']);
  out.hostile = { hyp: await page.textContent(`${F} .tnb-hyp`), warn: await page.textContent(`${F} .tnb-warn`),
                  scripts: await page.$$eval(`${F} script`, s => s.length) };
  // 2b. a paragraph: each sentence translated alone, with its own view
  out.at = '2b. a paragraph';
  await page.fill(`${F} textarea`, PARAGRAPH);
  await page.click(`${F} .tnb-go`);
  await page.waitForFunction(s => document.querySelectorAll(s).length === 2, `${F} .tnb-bv-sentence`);
  out.paragraph = { hyp: await page.textContent(`${F} .tnb-hyp`), which: await page.$$eval(`${F} .tnb-bv-which`, ps => ps.map(p => p.textContent)),
                    views: await page.$$eval(`${F} .tnb-bv-sentence .tnb-beam`, vs => vs.length) };
  // 2c. English in the German box: the page says so and offers the other direction (not taken here)
  out.at = '2c. English in the German box';
  await page.fill(`${F} textarea`, ENGLISH_IN_GERMAN);
  await page.click(`${F} .tnb-go`);
  await page.waitForSelector(`${F} .tnb-lang`);
  out.language = { line: await page.textContent(`${F} .tnb-lang`), offer: await page.textContent(`${F} .tnb-lang button`) };
  // 2d. what the model cannot read: a line, and no other direction offered
  out.at = '2d. text the model cannot read';
  out.unreadable = {};
  for (const [kind, text] of Object.entries(UNREADABLE)) {
    await page.fill(`${F} textarea`, text);
    await page.click(`${F} .tnb-go`);
    await page.waitForSelector(`${F} .tnb-lang-${kind}`);
    out.unreadable[kind] = { line: await page.textContent(`${F} .tnb-lang`), offers: await page.locator(`${F} .tnb-lang button`).count() };
  }
  out.tables = await page.evaluate(measureTables);
  // 2e. the box emptied: Translate leaves only the line that asks for a sentence
  out.at = '2e. the box emptied';
  await page.fill(`${F} textarea`, '');
  await page.click(`${F} .tnb-go`);
  out.emptied = { status: await page.textContent(`${F} .tnb-status`), result: await page.$eval(`${F} .tnb-result`, r => r.childNodes.length),
                  beam: await page.$eval(`${F} .tnb-beam-wrap`, w => ({ hidden: w.hidden, views: w.querySelectorAll('.tnb-beam').length })) };
  // 3. English → German
  out.at = '3. English → German';
  out.requestsBeforeSwitch = out.requests.slice();
  await page.click(`${F} .tnb-dir button[data-dir="en-de"]`);
  await page.waitForFunction(s => /English → German/.test(document.querySelector(s)?.textContent || ''), `${F} .tnb-note`);   // said once the note is rewritten
  out.switched = { placeholder: await page.getAttribute(`${F} textarea`, 'placeholder'), note: await page.textContent(`${F} .tnb-note`) };
  await page.fill(`${F} textarea`, english);
  await page.click(`${F} .tnb-go`);
  await page.waitForSelector(`${F} .tnb-result .tnb-hyp`);
  out.english = await page.textContent(`${F} .tnb-hyp`);
  // 4. the explorer
  out.at = '4. the explorer';
  await page.fill(`${X} textarea`, first);
  if (second) {
    // the second sentence arrives the moment the first starts decoding: typed and clicked from inside the page, in the
    // observer of the first's "Translating…", so it lands mid-decoding on any machine, fast or loaded (polling from here
    // could miss a decoding that ends between two polls)
    await page.evaluate(([X, second]) => {
      const result = document.querySelector(`${X} .tnb-result`), box = document.querySelector(`${X} textarea`);
      const seen = new MutationObserver(() => {
        if (!result.textContent.startsWith('Translating')) return;
        seen.disconnect();
        box.value = second; box.dispatchEvent(new Event('input', { bubbles: true }));
        document.querySelector(`${X} .tnb-go`).click();
        window.tnbSecondMidDecoding = true;
      });
      seen.observe(result, { childList: true, subtree: true, characterData: true });
    }, [X, second]);
  }
  await page.focus(`${X} textarea`);
  await page.keyboard.press('Control+Enter');
  if (second) await page.waitForFunction(() => window.tnbSecondMidDecoding === true);
  await page.waitForSelector(`${X} .tnb-result .tnb-hyp`);
  out.hyp = await page.textContent(`${X} .tnb-hyp`);
  out.option = await page.$eval('select[name=sentence]', s => s.options[s.selectedIndex].textContent);
  out.grid = await page.$eval('select[name=kind]', s => s.value) + ' ' + await page.$eval('select[name=layer]', s => s.value) + ' ' +
             await page.$eval('select[name=head]', s => s.value);
  out.cells = await page.$$eval('.tnb-x svg rect title', ts => ts.map(t => t.textContent));
  out.explorerBeam = await page.locator(`${X} .tnb-beam-wrap:not([hidden])`).count();
  out.width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  // 5. a link to #translator (10_decoding's): the page opens on the explorer's translator, an example decoded, in view
  out.at = '5. a link to #translator';
  const landing = await ctx.newPage();
  landing.setDefaultTimeout(120000);
  landing.on('pageerror', e => out.errors.push(e.message));
  await landing.route(u => u.origin !== origin, r => { out.requests.push(`blocked ${r.request().url()}`); r.abort(); });
  await landing.goto(`${url}#translator`);
  await landing.waitForSelector('#translator .tnb-result .tnb-hyp');
  await landing.waitForTimeout(300);
  out.landing = await landing.evaluate(() => {
    const box = s => document.querySelector(s).getBoundingClientRect();
    return { text: document.querySelector('#translator textarea').value, hyp: document.querySelector('#translator .tnb-hyp').textContent,
             input: [box('#translator textarea').top, box('#translator textarea').bottom], result: [box('#translator .tnb-hyp').top, box('#translator .tnb-hyp').bottom],
             height: innerHeight, scrolled: scrollY };
  });
} catch (e) {
  out.errors.push(`${String(e).split('\n')[0]} (in ${out.at})`);
  try { out.stuck = await ctx.pages()[0].evaluate(() => [...document.querySelectorAll('.tnb-live')].map(b => [b.querySelector('.tnb-status')?.textContent, b.querySelector('.tnb-result')?.textContent.slice(0, 200)])); } catch {}
}
await ctx.close();
rmSync(profile, { recursive: true, force: true });
console.log(JSON.stringify(out));
