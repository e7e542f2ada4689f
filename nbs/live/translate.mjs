// node nbs/live/translate.mjs MODEL_DIR [--beam N] [--alpha A] [--json] [--trace] 'sentence' ...   (or sentences on stdin)
// Each argument, or each line of stdin, is translated as one sentence, as tnb-translate reads its lines: split a paragraph
// into sentences first, one a line (the page splits a paragraph itself, with app.mjs's splitSentences).
// One translation per sentence, from a folder of `tnb-export --format onnx`, by the modules the page loads
// (translator.mjs, tokenizer.mjs) and ONNX Runtime Web's wasm backend, one thread: beam search with the beam and
// alpha the export's config.json records (its task's: 4 and 0.6 for translation) unless told (--beam 1: greedy), as
// tnb-translate decodes. config.json is read once its sha256 is the one config.sha256 records and its ids are the
// tokenizer's (decoding.mjs), and every file is checked against the sha256 config.json records. Exit codes as
// tnb-translate's: 0 done; 1 a failure (a full disk); 2 a mistake in the command or its files (a damaged export: one
// line); 70 a bug; 130 Ctrl-C; 141 the reader left (| head); 143 SIGTERM.
// What tnb-translate refuses, this refuses in its words (exit 2): an option's bad value, a NUL byte or invalid
// UTF-8 on standard input, a sentence longer than the model's limit of tokens. A sentence longer than the page's 300
// characters (within that limit) is cut there, as the page cuts it, and said on stderr.
// Where the folder holds gzip copies (NAME.gz, as vendor.mjs writes them for the site), it reads those and decompresses
// them as the page does. With --json, each line is the page's result as JSON ({text, src, out, unknown, cut}, and with
// --trace the step-by-step trace of the search; `record`, the grid's weights, is left out).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Translator, MAX_CHARS, sha256 } from './translator.mjs';
import { readConfig } from './decoding.mjs';
import { modelFiles } from './files.mjs';

const USAGE = "usage: node nbs/live/translate.mjs MODEL_DIR [--beam N] [--alpha A] [--json] [--trace] 'sentence' ... (or sentences on stdin, one sentence a line)";
const HELP = `${USAGE}

Translate each sentence with a folder of \`tnb-export --format onnx\` (ONNX Runtime Web, one thread), one line out per
sentence, as the site's live translator and tnb-translate decode it.

positional arguments:
  MODEL_DIR     the export's folder (config.json, config.sha256, tokenizer.json, encoder.onnx, decoder.onnx)
  sentence      a sentence to translate; none: one sentence a line on standard input

options:
  -h, --help    show this help and exit
  --beam N      beam width, an int in [1, 1000] (1: greedy); default: the export's (config.json, its task's)
  --alpha A     length penalty ((5+|Y|)/6)^A, a number in [0, 10]; default: the export's
  --json        one JSON object a line: the page's result ({text, src, out, unknown, cut})
  --trace       with --json: the search step by step

exit codes: 0 done; 1 a failure (a full disk); 2 a mistake in the command, its input or its export; 70 a bug;
130 interrupted (Ctrl-C); 141 the reader of the output left; 143 SIGTERM`;
const fail = (msg, code = 2) => { console.error(`translate.mjs: ${msg}`); process.exit(code); };
// A bug here ends in one line and 70, as the Python commands end; Ctrl-C and SIGTERM quietly, with their statuses
process.on('uncaughtException', e => fail(`internal error: ${String(e?.stack || e).split('\n')[0]}`, 70));
process.on('unhandledRejection', e => fail(`internal error: ${String(e?.stack || e).split('\n')[0]}`, 70));
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));
// Standard output that cannot be written: a reader that stops early (\`| head -1\`) ends it quietly, with the status
// tnb-translate ends with there (141: SIGPIPE's); a full disk (/dev/full) or another error, one line and 1
const outError = e => e.code === 'EPIPE' ? process.exit(141)
  : fail(`standard output: ${({ ENOSPC: 'No space left on device', EDQUOT: 'Disk quota exceeded', EIO: 'Input/output error' })[e.code] || e.message}`, 1);
process.stdout.on('error', outError);
const write = text => { try { process.stdout.write(text); } catch (e) { outError(e); } };

// A value as tnb-translate's messages write it: text as Python's shlex.quote quotes it, a float as Python's repr
const quote = s => s === '' ? "''" : /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`;
const pyFloat = x => Number.isNaN(x) ? 'nan' : !Number.isFinite(x) ? (x > 0 ? 'inf' : '-inf') : Number.isInteger(x) && Math.abs(x) < 1e16 ? x.toFixed(1) : String(x);
const count = n => n.toLocaleString('en-US');
// An option's text as a number, as tnb-translate reads it (transformer_nb.lib.options.from_text): ASCII digits only, else the text
const WRITTEN = { int: /^[+-]?[0-9]+$/, float: /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$|^[+-]?(?:inf|infinity|nan)$/i };
const number = (text, kind) => WRITTEN[kind].test(text.trim()) ? Number(text.trim().replace(/^([+-]?)inf(inity)?$/i, '$1Infinity')) : text;
const OPTION = { '--beam': ['int', x => Number.isInteger(x) && x >= 1 && x <= 1000, 'an int in [1, 1000]'], '--alpha': ['float', x => Number.isFinite(x) && x >= 0 && x <= 10, 'a number in [0, 10]'] };
const looksNegative = v => /^-\d+$|^-\d*\.\d+$/.test(v);    // argparse takes these as values, any other '-...' as an option

const args = process.argv.slice(2), given = [], opts = { trace: false };   // beam and alpha: config.json's unless given
let json = false;
let dir = null;
for (let i = 0, options = true; i < args.length; i++) {
  const a = args[i], [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, null];
  if (options && a === '--') { options = false; continue; }
  if (options && flag in OPTION) {
    const v = inline ?? args[++i];
    if (v === undefined || (inline === null && v.startsWith('-') && !looksNegative(v))) fail(`argument ${flag}: expected one argument`);
    const [kind, ok, words] = OPTION[flag], x = number(v, kind);
    const said = typeof x === 'string' ? quote(x) : kind === 'float' ? pyFloat(x) : String(x);
    if (typeof x === 'string' || !ok(x)) fail(`${flag} ${said} must be ${words}`);
    opts[flag.slice(2)] = x; continue;
  }
  if (options && (a === '-h' || a === '--help')) { write(HELP + '\n'); process.exit(0); }
  if (options && (a === '--json' || a === '--trace')) { if (a === '--json') json = true; else opts.trace = true; continue; }
  if (options && a.startsWith('-') && a !== '-' && !looksNegative(a)) fail(`unrecognized arguments: ${a}`);
  if (dir === null) dir = a; else given.push(a);
}
if (dir === null) fail(USAGE);
if (dir.trim() === '') fail("argument MODEL_DIR: an empty value ('')");
if (opts.trace && !json) fail('--trace needs --json: the trace is printed as JSON');

// The lines of standard input's bytes, checked as tnb-translate checks them (transformer_nb.lib.safeguards.iter_lines): a NUL
// byte, or bytes that are not UTF-8, refused naming the line and the offset in Python's words; a BOM dropped; each trimmed
function utf8Error(b, i) {       // [reason, offset] of the first byte at or after i that Python's UTF-8 decoder refuses, or null
  for (; i < b.length; i++) {
    const c = b[i];
    if (c < 0x80) continue;
    const n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n) return ['invalid start byte', i];
    const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80, hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < n; k++) {
      if (i + k >= b.length) return ['unexpected end of data', i];
      const x = b[i + k];
      if (k === 1 ? x < lo || x > hi : (x & 0xc0) !== 0x80) return ['invalid continuation byte', i];
    }
    i += n - 1;
  }
  return null;
}

function stdinLines(bytes) {
  const mac = !bytes.includes(0x0a) && bytes.includes(0x0d), lines = [], dec = new TextDecoder();
  for (let start = 0, line = 1; start < bytes.length; line++) {
    let end = start;
    while (end < bytes.length && bytes[end] !== 0x0a && !(mac && bytes[end] === 0x0d)) end++;
    const next = end + 1;
    if (!mac && end > start && bytes[end - 1] === 0x0d && end < bytes.length) end--;   // '\r\n' ends a line; a lone '\r' is in it
    const b = bytes.subarray(start, end), nul = b.indexOf(0);
    if (nul >= 0) fail(`standard input, line ${line}: a NUL byte at offset ${start + nul}; this is not UTF-8 text (a binary file, or UTF-16 text: convert it to UTF-8)`);
    const bad = utf8Error(b, 0);
    if (bad) fail(`standard input, line ${line}: invalid UTF-8 (${bad[0]}: byte b'\\x${b[bad[1]].toString(16).padStart(2, '0')}' at offset ${start + bad[1]}); the text must be UTF-8 encoded`);
    const s = dec.decode(b);
    lines.push((line === 1 ? s.replace(/^\ufeff/, '') : s).trim());
    start = next;
  }
  return lines;
}

// ONNX Runtime Web, one of nbs/live's pinned packages: imported once the arguments are read, so that the usage line and
// an option's error need no package, and its absence is one line that says how to install it
const ort = await import('onnxruntime-web').catch(e => {
  if (e.code === 'ERR_MODULE_NOT_FOUND') fail('ONNX Runtime Web is not installed: run npm ci --prefix nbs/live', 1);
  throw e;
});
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
// A folder that is no export, or a config.json that is not one, refused in onnx_translate's words (transformer_nb.apps.export.OnnxModel)
const isFile = p => { try { return statSync(p).isFile(); } catch { return false; } };
const there = f => isFile(join(dir, f)) || isFile(join(dir, `${f}.gz`));
for (const f of ['config.json', 'encoder.onnx', 'decoder.onnx'])
  if (!there(f)) fail(`${dir} is not an ONNX export (no ${f}): write one with export_onnx (tnb-export --format onnx)`);
let config, tr;
const read = async name => new Uint8Array(readFileSync(join(dir, name))), label = f => join(dir, f);
try { config = await readConfig(read, sha256, label); }     // its bytes, against config.sha256: before any use
catch (e) { fail(e.message.split('\n')[0]); }
if (config.format !== 'transformer_nb-onnx') fail(`${join(dir, 'config.json')} is not the config of a transformer_nb ONNX export`);
for (const f of modelFiles(config)) if (!there(f)) fail(`${join(dir, f)} is missing: config.json lists it; export the folder again`);   // the files it reads (files.mjs)
try {
  const gz = Object.fromEntries(readdirSync(dir).filter(f => f.endsWith('.gz')).map(f => [f.slice(0, -3), statSync(join(dir, f)).size]));
  tr = await Translator.load(ort, null, { read, gz, config, label });
} catch (e) { fail(e.message.split('\n')[0]); }   // a damaged export: one line naming the file, exit 2, as tnb-translate refuses it
if (opts.beam > tr.V) fail(`--beam ${opts.beam} is more than the target vocabulary of ${tr.V} pieces`);
// The event loop turns between decoder steps (ONNX Runtime Web's promises resolve without it), so that Ctrl-C and
// SIGTERM stop a long run at once: once TURN_MS have passed since the last turn, not after every step. A turn after each
// step made every step wait for the event loop, a wait that grows with the machine's load: the 20 longest test2016
// sentences took about twice as long as without it (bench/live_node.mjs)
const TURN_MS = 50;
let turned = performance.now();
const turn = () => {
  if (performance.now() - turned < TURN_MS) return;
  return new Promise(r => setImmediate(r)).then(() => { turned = performance.now(); });
};
const name = i => given.length ? `sentence ${i + 1}` : `standard input, line ${i + 1}`;
// Control characters but a tab (a stray '\r', an escape, a bell) read as spaces, said once, at the first line that holds
// one, in tnb-translate's words (transformer_nb.lib.fast_decoding.spaced): both then translate the same text
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
const escape = c => ({ '\n': '\\n', '\r': '\\r' })[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;   // as Python's repr
const sentences = (given.length ? given : stdinLines(readFileSync(0))).map((s, i, all) => {
  if (!s.match(CONTROL)) return s;
  if (all.findIndex(x => x.match(CONTROL)) === i)
    console.error(`translate.mjs: ${name(i)} holds control characters (${[...new Set(s.match(CONTROL))].map(escape).join('')}): ` +
                  'each is read as a space, here and in any later line, so that every line in gives one line out');
  return s.replace(CONTROL, ' ');
});
// Sentences longer than the model's limit (tokens, EOS included), refused before any decoding in tnb-translate's words
const limit = tr.maxSrc, bad = [];
for (const [i, s] of sentences.entries()) {
  const t = s.trim(), chars = [...t].length;
  if (chars > 64 * limit) bad.push([i, chars, 'characters']);
  else if (t && tr.tokenizer.encode(t).length + 1 > limit) bad.push([i, tr.tokenizer.encode(t).length + 1, 'tokens']);
}
if (bad.length) {
  const [i, n, unit] = bad[0];
  const what = unit === 'tokens' ? `${count(n)} tokens long (its end-of-sentence token included), more than the limit of ${count(limit)}`
                                  : `${count(n)} characters long, far more than any sentence within the limit of ${count(limit)} tokens`;
  const more = bad.length === 1 ? '' : `; ${count(bad.length - 1)} more: ${bad.slice(1, 4).map(([j]) => name(j)).join(', ')}${bad.length > 4 ? ', ...' : ''}`;
  fail(`${name(i)} is ${what}${more}: split it into sentences`);
}
for (const [i, s] of sentences.entries()) {
  let r;
  try { r = await tr.translate(s, { ...opts, record: false, onStep: turn }); } catch (e) { fail(`sentence ${i + 1}: ${e.message.split('\n')[0]}`, 1); }
  if (r.cut) console.error(`translate.mjs: sentence ${i + 1} is longer than the page's ${MAX_CHARS} characters (or the model's ` +
                          `${tr.maxSrc} tokens): cut there, as the page cuts it`);
  if (!json) { write(r.text + '\n'); continue; }
  const { record, trace, ...rest } = r;
  write(JSON.stringify(opts.trace ? { ...rest, trace } : rest) + '\n');
}
