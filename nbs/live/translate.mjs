// node nbs/live/translate.mjs MODEL_DIR 'sentence' ...   (or sentences on stdin, one a line, when none is given)
// One greedy translation per sentence, from a folder of `tnb-export --format onnx`, by the modules the page loads
// (translator.mjs, tokenizer.mjs) and ONNX Runtime Web's wasm backend, one thread. Where the folder holds gzip copies
// (NAME.gz, as vendor.mjs writes them for the site), it reads those and decompresses them as the page does.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { Translator } from './translator.mjs';

const [dir, ...given] = process.argv.slice(2);
if (!dir) { console.error("usage: node nbs/live/translate.mjs MODEL_DIR 'sentence' ... (or sentences on stdin)"); process.exit(2); }
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
let tr;
try {
  const gz = Object.fromEntries(readdirSync(dir).filter(f => f.endsWith('.gz')).map(f => [f.slice(0, -3), statSync(join(dir, f)).size]));
  tr = await Translator.load(ort, null, { read: async name => new Uint8Array(readFileSync(join(dir, name))), gz });
} catch (e) { console.error(`${dir}: ${e.message}`); process.exit(1); }
let sentences = given;
if (!given.length) { sentences = readFileSync(0, 'utf8').split('\n'); if (sentences.at(-1) === '') sentences.pop(); }
for (const s of sentences) process.stdout.write((await tr.translate(s)).text + '\n');
