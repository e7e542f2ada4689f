// node nbs/live/vendor.mjs [LIVE_DIR]: copy what the pages load into LIVE_DIR (default nbs/live; the docs workflow gives
// _docs/live, the built site's folder), so the site serves it itself: the page's modules (app, translator, tokenizer),
// ONNX Runtime Web's wasm build from npm's pinned packages (package-lock.json) into vendor/, and KaTeX's dist into katex/.
// Run after `npm ci`, and after the model is exported into LIVE_DIR/model: the big files the click downloads (ONNX
// Runtime's .wasm; the model's tokenizer.json, encoder.onnx, decoder.onnx and external data) get gzip -9 copies,
// NAME.gz, which the page fetches and decompresses itself, so that what crosses the wire is compressed whatever the
// server does. vendor/files.json lists the sizes the page's "Load" button adds up: `bytes`, ONNX Runtime's plain files;
// `gz`, each compressed copy's (by its path under LIVE_DIR).
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { modelFiles } from './translator.mjs';

const here = dirname(fileURLToPath(import.meta.url)), mods = join(here, 'node_modules');
const ORT = ['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'];
const out = resolve(process.argv[2] || here), vendor = join(out, 'vendor'), model = join(out, 'model');
mkdirSync(out, { recursive: true });
if (out !== here) for (const f of ['app.mjs', 'files.mjs', 'translator.mjs', 'tokenizer.mjs']) cpSync(join(here, f), join(out, f));
rmSync(vendor, { recursive: true, force: true }); mkdirSync(vendor);
const bytes = {}, gz = {};
for (const f of ORT) { cpSync(join(mods, 'onnxruntime-web', 'dist', f), join(vendor, f)); bytes[f] = statSync(join(vendor, f)).size; }
const compress = path => { const z = gzipSync(readFileSync(join(out, path)), { level: 9 }); writeFileSync(join(out, `${path}.gz`), z); gz[path] = z.length; };
compress('vendor/ort-wasm-simd-threaded.wasm');
if (existsSync(join(model, 'config.json'))) {
  for (const f of readdirSync(model)) if (f.endsWith('.gz')) rmSync(join(model, f));
  for (const f of modelFiles(JSON.parse(readFileSync(join(model, 'config.json'), 'utf8')))) compress(`model/${f}`);
}
writeFileSync(join(vendor, 'files.json'), JSON.stringify({ bytes, gz }, null, 1) + '\n');
const katex = join(out, 'katex');
rmSync(katex, { recursive: true, force: true });
cpSync(join(mods, 'katex', 'dist'), katex, { recursive: true });
const mb = n => (n / 1e6).toFixed(2);
console.log(`${vendor}: ${Object.keys(bytes).join(', ')}; gzip copies: ${Object.entries(gz).map(([f, n]) => `${f} ${mb(n)} MB`).join(', ')}; ` +
            `${katex}: ${readdirSync(katex).length} entries`);
