// node nbs/live/vendor.mjs LIVE_DIR [NAME=EXPORT_DIR ...]: put into LIVE_DIR (the built site's live/ folder) what the
// pages fetch, and nothing else, so that the site serves it itself:
// - the page's ES modules: app.mjs and the modules it imports, found by reading their imports;
// - vendor/: ONNX Runtime Web's wasm build from npm's pinned package (package-lock.json): its two modules, and its
//   .wasm as a gzip copy only (NAME.gz, which the page fetches and decompresses itself, so that what crosses the wire is
//   compressed whatever the server does: GitHub Pages may not compress .wasm, .onnx or .bin);
// - models/NAME/ for each NAME=EXPORT_DIR, a folder of `tnb-export --format onnx`: its config.json, and gzip copies of
//   config.sha256 (config.json's sha256, which the page checks before it reads config.json), and gzip copies of the files
//   the page downloads (tokenizer.json, encoder.onnx, decoder.onnx and their external data);
// - katex/: KaTeX's script, its style and its woff2 fonts (the format every browser that runs the page reads);
// - vendor/files.json: each of those files by its path under LIVE_DIR with its bytes on the wire (`bytes`), which the
//   page adds up for its "downloads N MB" before anything is downloaded; the models' names (`models`), weights
//   (`weights`: int8 or float32, which the page says) and beams (`decoding`: the beam config.json records, which the
//   decoding menu names before the model loads; once loaded, the page reads config.json's).
// Run after `npm ci --prefix nbs/live`. It replaces what an earlier run wrote (vendor/, models/, katex/), so it can run
// again on the same folder. tools/preview.py runs it, after exporting the published models.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { modelFiles } from './files.mjs';

const here = dirname(fileURLToPath(import.meta.url)), mods = join(here, 'node_modules');
const ORT = ['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs'], WASM = 'ort-wasm-simd-threaded.wasm';
const [dest, ...pairs] = process.argv.slice(2);
const fail = msg => { console.error(`vendor.mjs: ${msg}`); process.exit(2); };
if (!dest) fail('usage: node nbs/live/vendor.mjs LIVE_DIR [NAME=EXPORT_DIR ...]');
const out = resolve(dest);
if (out === here) fail(`${out} is nbs/live itself: give the built site's live/ folder (e.g. _docs/live)`);
if (!existsSync(join(mods, 'onnxruntime-web'))) fail(`${mods}: no onnxruntime-web (run npm ci --prefix nbs/live first)`);
const models = pairs.map(p => {
  const m = /^([a-z]{2}-[a-z]{2}|[\w-]+)=(.+)$/.exec(p);
  if (!m) fail(`${p}: give NAME=EXPORT_DIR (e.g. de-en=build/de-en)`);
  if (!existsSync(join(m[2], 'config.json'))) fail(`${m[2]}: no config.json (not a folder of tnb-export --format onnx)`);
  return [m[1], resolve(m[2])];
});

// The page's modules: app.mjs and every module it imports from beside itself (static or dynamic, './x.mjs')
function pageModules(start = 'app.mjs') {
  const seen = new Set(), todo = [start];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    for (const [, g] of readFileSync(join(here, f), 'utf8').matchAll(/(?:from|import\()\s*['"]\.\/([\w.-]+\.mjs)['"]/g)) todo.push(g);
  }
  return [...seen].sort();
}

mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.endsWith('.mjs')) rmSync(join(out, f));
for (const d of ['vendor', 'models', 'katex', 'model']) rmSync(join(out, d), { recursive: true, force: true });
const bytes = {}, written = p => { bytes[p] = statSync(join(out, p)).size; };
const gzipTo = (from, to) => { writeFileSync(join(out, to), gzipSync(readFileSync(from), { level: 9 })); written(to); };
const page = pageModules();
for (const f of page) cpSync(join(here, f), join(out, f));

mkdirSync(join(out, 'vendor'));
for (const f of ORT) { cpSync(join(mods, 'onnxruntime-web', 'dist', f), join(out, 'vendor', f)); written(`vendor/${f}`); }
gzipTo(join(mods, 'onnxruntime-web', 'dist', WASM), `vendor/${WASM}.gz`);

for (const [name, dir] of models) {
  const to = join(out, 'models', name);
  mkdirSync(to, { recursive: true });
  for (const f of ['config.json', 'config.sha256']) {
    if (!existsSync(join(dir, f))) fail(`${join(dir, f)} is missing: export the folder again (tnb-export --format onnx)`);
    cpSync(join(dir, f), join(to, f)); written(`models/${name}/${f}`);
  }
  for (const f of modelFiles(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')))) gzipTo(join(dir, f), `models/${name}/${f}.gz`);
}

const katex = join(mods, 'katex', 'dist');
mkdirSync(join(out, 'katex', 'fonts'), { recursive: true });
for (const f of ['katex.min.js', 'katex.min.css']) cpSync(join(katex, f), join(out, 'katex', f));
for (const f of readdirSync(join(katex, 'fonts'))) if (f.endsWith('.woff2')) cpSync(join(katex, 'fonts', f), join(out, 'katex', 'fonts', f));

const weights = Object.fromEntries(models.map(([n, d]) => [n, JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')).quantize || 'float32']));
const decoding = Object.fromEntries(models.map(([n, d]) => [n, { beam: JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')).beam }]));
writeFileSync(join(out, 'vendor', 'files.json'), JSON.stringify({ bytes, models: models.map(m => m[0]), weights, decoding }, null, 1) + '\n');
const mb = n => (n / 1e6).toFixed(2), total = prefix => Object.entries(bytes).filter(([f]) => f.startsWith(prefix)).reduce((a, [, n]) => a + n, 0);
console.log(`${out}: modules ${page.join(', ')}; ONNX Runtime ${mb(total('vendor/'))} MB; ` +
            models.map(([n]) => `model ${n} ${mb(total(`models/${n}/`))} MB`).join('; ') + `; KaTeX with ${readdirSync(join(out, 'katex', 'fonts')).length} fonts`);
