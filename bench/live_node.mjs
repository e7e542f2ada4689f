// node bench/live_node.mjs SENTENCES_JSON A_DIR A_MODEL B_DIR B_MODEL [--rounds R]: two versions of the page's translator
// code (each a copy of nbs/live: translator.mjs and what it imports), each with the export its own package wrote (MODEL:
// a `tnb-export --format onnx` folder; the two may be one), decoding the same sentences under Node as translate.mjs
// decodes them (ONNX Runtime Web's wasm build, one thread, the export's beam and alpha, no explorer record), interleaved:
// each round translates every sentence with A, then at once with B, so that a busy machine slows both alike. Each
// version runs in a Node process of its own, as a page runs one translator (one ONNX Runtime, one wasm memory): two
// translators in one process share ONNX Runtime's wasm instance, and the longest sentence then took a tenth more CPU
// time than alone. Each version waits for the event loop between steps as its own translate.mjs does (A: after every
// step, as translate.mjs did before that change; B: once 50 ms have passed; `TURN` in the environment: 'every',
// 'throttled' or 'none' for both). Prints JSON: per version and sentence the wall-clock milliseconds of each round and
// its process's CPU milliseconds (the least over the rounds: what the work costs when nothing else competes), the
// decoder steps, and whether the two versions gave the same translations. After a warm-up of every sentence once each
// (V8 compiles the wasm in tiers as it runs). bench/bench_live_node.py runs it and stores the figures; it is not a test.
// `node bench/live_node.mjs --serve CODE MODEL TURN` is one version's process: a sentence as a JSON line on stdin, its
// figures as a JSON line on stdout.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
if (args[0] === '--serve') {                                     // one version, in its own process
  const [, code, model, how] = args;
  const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
  const ort = await import(require.resolve('onnxruntime-web'));
  ort.env.wasm.numThreads = 1; ort.env.logLevel = 'error';
  const { Translator } = await import(pathToFileURL(join(resolve(code), 'translator.mjs')).href);
  const tr = await Translator.load(ort, null, { read: async n => new Uint8Array(readFileSync(join(model, n))) });
  const every = () => new Promise(r => setImmediate(r));
  let turned = performance.now();
  const throttled = () => {
    if (performance.now() - turned < 50) return;
    return every().then(() => { turned = performance.now(); });
  };
  const turn = { every, throttled, none: () => {} }[how];
  const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
  process.stdout.write(JSON.stringify({ beam: tr.beam }) + '\n');
  for await (const line of createInterface({ input: process.stdin })) {
    let steps = 0;
    const t = performance.now(), c = cpu();
    const r = await tr.translate(JSON.parse(line), { record: false, onStep: () => { steps++; return turn(); } });
    process.stdout.write(JSON.stringify({ ms: performance.now() - t, cpu: cpu() - c, steps, text: r.text }) + '\n');
  }
  process.exit(0);
}

const at = args.indexOf('--rounds');
const rounds = at >= 0 ? Number(args.splice(at, 2)[1]) : 5;
if (args.length !== 5 || !(Number.isInteger(rounds) && rounds >= 1)) {
  console.error('usage: node bench/live_node.mjs SENTENCES_JSON A_DIR A_MODEL B_DIR B_MODEL [--rounds R]'); process.exit(2);
}
const [file, ...pairs] = args, codes = [pairs[0], pairs[2]], models = [pairs[1], pairs[3]];
const sentences = JSON.parse(readFileSync(file, 'utf8'));
const turns = process.env.TURN ? [process.env.TURN, process.env.TURN] : ['every', 'throttled'];
if (!turns.every(t => ['every', 'throttled', 'none'].includes(t))) { console.error(`TURN=${process.env.TURN} must be every, throttled or none`); process.exit(2); }
// A version's process: ask(sentence) -> its figures
function serve(code, model, turn) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', code, model, turn], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) { console.error(`live_node.mjs: the process of ${code} ended`); process.exit(1); }
    return JSON.parse(value);
  };
  return { code, child, ready: next(), ask: s => { child.stdin.write(JSON.stringify(s) + '\n'); return next(); } };
}
const versions = codes.map((code, i) => serve(code, models[i], turns[i]));
const ready = await Promise.all(versions.map(v => v.ready));
for (const s of sentences) for (const v of versions) await v.ask(s);                // warm-up
const out = versions.map(v => ({ code: v.code, ms: sentences.map(() => []), cpu_ms: sentences.map(() => Infinity), steps: [], texts: [] }));
for (let r = 0; r < rounds; r++)
  for (const [i, s] of sentences.entries())
    for (const [k, v] of versions.entries()) {
      const x = await v.ask(s), o = out[k];
      o.ms[i].push(Math.round(x.ms * 100) / 100); o.cpu_ms[i] = Math.min(o.cpu_ms[i], Math.round(x.cpu * 100) / 100);
      o.steps[i] = x.steps; o.texts[i] = x.text;
    }
for (const v of versions) v.child.stdin.end();
console.log(JSON.stringify({ rounds, beam: ready[1].beam, same: out[0].texts.every((t, i) => t === out[1].texts[i]), versions: out }));
