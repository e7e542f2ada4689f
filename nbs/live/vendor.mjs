// node nbs/live/vendor.mjs [LIVE_DIR]: copy what the pages load into LIVE_DIR (default nbs/live; the docs workflow gives
// _docs/live, the built site's folder), so the site serves it itself: the page's modules (app, translator, tokenizer),
// ONNX Runtime Web's wasm build from npm's pinned packages (package-lock.json) into vendor/ (with files.json, their
// sizes, which the page's "Load" button adds to the model's), and KaTeX's dist into katex/. Run after `npm ci`.
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url)), mods = join(here, 'node_modules');
const ORT = ['ort.wasm.min.mjs', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'];
const out = resolve(process.argv[2] || here), vendor = join(out, 'vendor');
mkdirSync(out, { recursive: true });
if (out !== here) for (const f of ['app.mjs', 'translator.mjs', 'tokenizer.mjs']) cpSync(join(here, f), join(out, f));
rmSync(vendor, { recursive: true, force: true }); mkdirSync(vendor);
const files = {};
for (const f of ORT) { cpSync(join(mods, 'onnxruntime-web', 'dist', f), join(vendor, f)); files[f] = statSync(join(vendor, f)).size; }
writeFileSync(join(vendor, 'files.json'), JSON.stringify(files, null, 1) + '\n');
const katex = join(out, 'katex');
rmSync(katex, { recursive: true, force: true });
cpSync(join(mods, 'katex', 'dist'), katex, { recursive: true });
console.log(`${vendor}: ${Object.keys(files).join(', ')}; ${katex}: ${readdirSync(katex).length} entries`);
