// node tests/site_names.mjs URL: the names in the tables of the page at URL, WIDTH px wide, in headless Chromium (Debian's
// `chromium`, $CHROMIUM, driven by playwright-core from nbs/live, as tests/live_page.mjs does), every other host blocked.
// Prints JSON: `split`, each name of a table cell that the page shows on more than one line (a name with hyphens that
// is no compound of lower-case words, an arrow `->`, a cell's code), measured on its line boxes (a Range over the text:
// getClientRects), with the white-space Chromium computed for it; `tables`, each table's right edge and its widths
// (scrollWidth > clientWidth: it scrolls in its own box); `width`, the page's width and the window's; `errors`.
import { createRequire } from 'node:module';
const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
const { chromium } = require('playwright-core');

function measureNames() {
  const NAME = /(?<![\w.+\-])[A-Za-z0-9][\w.+]*(?:-[\w+]+(?:\.[\w+]+)*)+(?![\w\-])|(?<![-=<])->(?![->])/g;
  const compound = t => /^[a-z]+(?:-[a-z]+)+$/.test(t);                     // 'self-attention' may break at its hyphen
  const lines = r => new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size;
  const split = [], tables = [];
  for (const t of document.querySelectorAll('main table')) {
    const b = t.getBoundingClientRect();
    tables.push({ from: t.closest('[data-from]')?.dataset.from || '', right: Math.round(b.right), scroll: t.scrollWidth, client: t.clientWidth });
    for (const cell of t.querySelectorAll('th, td')) {
      const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n; (n = walk.nextNode());) {
        if (n.parentElement.closest('.math, .katex')) continue;              // maths: KaTeX sets it, not a name
        const inCode = !!n.parentElement.closest('code');
        const names = inCode ? [{ 0: n.data.trim(), index: n.data.indexOf(n.data.trim()) }] : [...n.data.matchAll(NAME)].filter(m => !compound(m[0]));
        for (const m of names) {
          if (!m[0]) continue;
          const r = document.createRange();
          r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
          if (lines(r) > 1) split.push({ name: m[0], from: t.closest('[data-from]')?.dataset.from || '', whiteSpace: getComputedStyle(n.parentElement).whiteSpace });
        }
      }
    }
  }
  return { split, tables, width: [document.documentElement.scrollWidth, innerWidth] };
}

const url = process.argv[2];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
let out = { errors: [] };
try {
  const page = await browser.newPage({ viewport: { width: +(process.env.WIDTH || 1200), height: 900 } });
  const origin = new URL(url).origin;
  await page.route(u => u.origin !== origin, r => { out.errors.push(`blocked ${r.request().url()}`); r.abort(); });
  page.on('pageerror', e => out.errors.push(e.message));
  page.on('console', m => { if (m.type() === 'error') out.errors.push(m.text()); });
  await page.goto(url);
  out = { ...out, ...(await page.evaluate(measureNames)) };
} catch (e) { out.errors.push(String(e).split('\n')[0]); }
await browser.close();
console.log(JSON.stringify(out));
