// node nbs/live/translate.mjs MODEL_DIR [--beam N] [--alpha A] [--json] [--trace] 'sentence' ...   (or sentences on stdin)
// One translation per sentence, from a folder of `tnb-export --format onnx`, by the modules the page loads
// (translator.mjs, tokenizer.mjs) and ONNX Runtime Web's wasm backend, one thread: beam search with the beam and alpha
// the export's config.json records (the paper's 4 and 0.6) unless told (--beam 1: greedy), as tnb-translate decodes.
// Every file is checked against the sha256 config.json
// records; a sentence longer than the page's 300 characters is cut there, as the page cuts it, and said on stderr.
// Where the folder holds gzip copies (NAME.gz, as vendor.mjs writes them for the site), it reads those and decompresses
// them as the page does. With --json, each line is the page's result as JSON ({text, src, out, unknown, cut}, and with
// --trace the step-by-step trace of the search; `record`, the grid's weights, is left out).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { Translator, MAX_CHARS } from './translator.mjs';

const USAGE = "usage: node nbs/live/translate.mjs MODEL_DIR [--beam N] [--alpha A] [--json] [--trace] 'sentence' ... (or sentences on stdin)";
const fail = (msg, code = 2) => { console.error(`translate.mjs: ${msg}`); process.exit(code); };
const args = process.argv.slice(2), given = [], opts = { trace: false };   // beam and alpha: config.json's unless given
let json = false;
let dir = null;
for (let i = 0, options = true; i < args.length; i++) {
  const a = args[i], [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, null];
  if (options && a === '--') { options = false; continue; }
  if (options && (flag === '--beam' || flag === '--alpha')) {
    const v = inline ?? args[++i];
    if (v === undefined) fail(`${flag} needs a value`);
    const x = Number(v);
    if (flag === '--beam' && !(Number.isInteger(x) && x >= 1)) fail(`--beam ${v}: must be a whole number >= 1`);
    if (flag === '--alpha' && !(v.trim() !== '' && Number.isFinite(x) && x >= 0)) fail(`--alpha ${v}: must be a number >= 0`);
    opts[flag.slice(2)] = x; continue;
  }
  if (options && (a === '--json' || a === '--trace')) { if (a === '--json') json = true; else opts.trace = true; continue; }
  if (options && a.startsWith('--')) fail(`unknown option ${flag}; ${USAGE}`);
  if (dir === null) dir = a; else given.push(a);
}
if (dir === null) fail(USAGE);
if (opts.trace && !json) fail('--trace needs --json: the trace is printed as JSON');
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
let tr;
try {
  const gz = Object.fromEntries(readdirSync(dir).filter(f => f.endsWith('.gz')).map(f => [f.slice(0, -3), statSync(join(dir, f)).size]));
  tr = await Translator.load(ort, null, { read: async name => new Uint8Array(readFileSync(join(dir, name))), gz });
} catch (e) { fail(`${dir}: ${e.message.split('\n')[0]}`, 1); }
let sentences = given;
if (!given.length) { sentences = readFileSync(0, 'utf8').split('\n'); if (sentences.at(-1) === '') sentences.pop(); }
for (const [i, s] of sentences.entries()) {
  let r;
  try { r = await tr.translate(s, opts); } catch (e) { fail(`sentence ${i + 1}: ${e.message.split('\n')[0]}`, 1); }
  if (r.cut) console.error(`translate.mjs: sentence ${i + 1} is longer than the page's ${MAX_CHARS} characters (or the model's ` +
                          `${tr.maxSrc} tokens): cut there, as the page cuts it`);
  if (!json) { process.stdout.write(r.text + '\n'); continue; }
  const { record, trace, ...rest } = r;
  process.stdout.write(JSON.stringify(opts.trace ? { ...rest, trace } : rest) + '\n');
}
