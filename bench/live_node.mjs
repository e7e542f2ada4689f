// node bench/live_node.mjs SENTENCES_JSON A_DIR A_MODEL B_DIR B_MODEL [--rounds R]: two versions of the page's translator
// code (each a copy of nbs/live: translator.mjs and what it imports), each with the export its own package wrote (MODEL:
// a `tnb-export --format onnx` folder; the two may be one), decoding the same sentences under Node as translate.mjs
// decodes them (ONNX Runtime Web's wasm build, one thread, the export's beam and alpha, no explorer record), interleaved:
// each round translates every sentence with A, then at once with B, so that a busy machine slows both alike. Each version
// waits for the event loop between steps as its own translate.mjs does (A: after every step, as translate.mjs did before
// the change; B: once 50 ms have passed; `TURN` in the environment: 'every', 'throttled' or 'none' for both). Prints JSON:
// per version and sentence the wall-clock milliseconds of each round and the process's CPU milliseconds (its least
// over the rounds: what the work costs when nothing else competes), the decoder steps, and whether the two versions
// gave the same translations. After a warm-up of every sentence once each (V8 compiles the wasm in tiers as it runs).
// bench/bench_live_node.py runs it and stores the figures; it is not a test.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
const ort = await import(require.resolve('onnxruntime-web'));
ort.env.wasm.numThreads = 1; ort.env.logLevel = 'error';

const args = process.argv.slice(2), at = args.indexOf('--rounds');
const rounds = at >= 0 ? Number(args.splice(at, 2)[1]) : 5;
if (args.length !== 5 || !(Number.isInteger(rounds) && rounds >= 1)) {
  console.error('usage: node bench/live_node.mjs SENTENCES_JSON A_DIR A_MODEL B_DIR B_MODEL [--rounds R]'); process.exit(2);
}
const [file, ...pairs] = args, codes = [pairs[0], pairs[2]], models = [pairs[1], pairs[3]];
const sentences = JSON.parse(readFileSync(file, 'utf8'));
const reader = dir => async n => new Uint8Array(readFileSync(join(dir, n)));
const every = () => new Promise(r => setImmediate(r));
let turned = performance.now();
const throttled = () => {
  if (performance.now() - turned < 50) return;
  return every().then(() => { turned = performance.now(); });
};
const TURNS = { every, throttled, none: () => {} };
const turns = process.env.TURN ? [TURNS[process.env.TURN], TURNS[process.env.TURN]] : [every, throttled];
const versions = [];
for (const [i, code] of codes.entries()) {
  const { Translator } = await import(pathToFileURL(join(resolve(code), 'translator.mjs')).href);
  versions.push({ code, tr: await Translator.load(ort, null, { read: reader(models[i]) }), turn: turns[i] });
}
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const once = async (v, s) => {
  let steps = 0;
  const t = performance.now(), c = cpu();
  const r = await v.tr.translate(s, { record: false, onStep: () => { steps++; return v.turn(); } });
  return { ms: performance.now() - t, cpu: cpu() - c, steps, text: r.text };
};
for (const s of sentences) for (const v of versions) await once(v, s);              // warm-up
const out = versions.map(v => ({ code: v.code, ms: sentences.map(() => []), cpu_ms: sentences.map(() => Infinity), steps: [], texts: [] }));
for (let r = 0; r < rounds; r++)
  for (const [i, s] of sentences.entries())
    for (const [k, v] of versions.entries()) {
      const x = await once(v, s), o = out[k];
      o.ms[i].push(Math.round(x.ms * 100) / 100); o.cpu_ms[i] = Math.min(o.cpu_ms[i], Math.round(x.cpu * 100) / 100);
      o.steps[i] = x.steps; o.texts[i] = x.text;
    }
console.log(JSON.stringify({ rounds, beam: versions[1].tr.beam, same: out[0].texts.every((t, i) => t === out[1].texts[i]), versions: out }));
