// node bench/live_steps.mjs MODEL_DIR [--runs R]: the CPU time of one decoder step of the live translator
// (nbs/live/translator.mjs), under Node with ONNX Runtime Web's wasm build, one thread, as the page runs it: for 1 row
// (greedy) and 4 rows (beam 4), after 1, 10 and 25 positions kept, fetching the logits and the keys and values only
// ('none', as beam search does) or every head's attention too ('all', as greedy decoding does for the explorer's grid).
// It measures the process's CPU time (process.cpuUsage), not the wall clock, and keeps the least of 5 rounds, so that
// figures taken on a busy machine can be compared; each round is preceded by a warm-up (V8 compiles the wasm in tiers
// as it runs, so the first steps are slower). MODEL_DIR is a `tnb-export --format onnx` folder. Not a test: it prints
// JSON, with the load average, for comparing two versions of the page's code or of the export on the same machine.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(new URL('../nbs/live/package.json', import.meta.url));
const ort = await import(require.resolve('onnxruntime-web'));
const { Translator } = await import(new URL('../nbs/live/translator.mjs', import.meta.url).href);

const args = process.argv.slice(2), at = args.indexOf('--runs');
const runs = at >= 0 ? Number(args.splice(at, 2)[1]) : 200;
if (args.length !== 1 || !(Number.isInteger(runs) && runs >= 1)) { console.error('usage: node bench/live_steps.mjs MODEL_DIR [--runs R]'); process.exit(2); }
ort.env.wasm.numThreads = 1; ort.env.logLevel = 'error';
const dir = args[0];
const tr = await Translator.load(ort, null, { read: async name => new Uint8Array(readFileSync(join(dir, name))) });
const src = tr.source('Ein Mann mit einem orangefarbenen Hut, der etwas anstarrt, und ein Hund.').ids;
const enc = await tr.encode(src);
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
{                                                               // V8's tiers: the first few hundred steps run slower code
  let past = tr.empty();
  for (let t = 0; t < 300; t++) past = (await tr.step(enc.cross, t % 30 ? past : tr.empty(), [[5]], [0], t % 2 ? 'all' : 'none')).past;
}
const out = { model: dir.split('/').filter(Boolean).at(-1), quantize: tr.config.quantize || 'float32', source_tokens: src.length, runs, ms_per_step: {} };
for (const [B, P] of [[1, 1], [1, 10], [1, 25], [4, 10], [4, 25]]) {
  let past = tr.empty(), tokens = [[tr.special.bos]], parents = [0];
  for (let t = 0; t < P; t++) {                                 // P positions kept, in B rows
    past = (await tr.step(enc.cross, past, tokens, parents, 'none')).past;
    tokens = Array.from({ length: B }, () => [5 + t]); parents = new Array(B).fill(0);
  }
  parents = parents.map((_, i) => i);
  for (const attention of ['none', 'all']) {
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < Math.min(50, runs); i++) await tr.step(enc.cross, past, tokens, parents, attention);
      const c0 = cpu();
      for (let i = 0; i < runs; i++) await tr.step(enc.cross, past, tokens, parents, attention);
      best = Math.min(best, (cpu() - c0) / runs);
    }
    out.ms_per_step[`rows=${B} kept=${P} attention=${attention}`] = +best.toFixed(3);
  }
}
try { out.load_average = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number); } catch {}
console.log(JSON.stringify(out, null, 1));
