// The live translator: the exported encoder and decoder (`tnb-export --format onnx`) run by ONNX Runtime, greedy
// decoding by the rule of `greedy_decode` (start from BOS, append the most probable token, PAD and BOS never chosen,
// stop at EOS or after the source's length + max_extra tokens), and every layer's and head's attention of the result.
// The same module runs in the page (onnxruntime-web's wasm build) and in Node (translate.mjs); ONNX Runtime is given.
import { Tokenizer } from './tokenizer.mjs';
import { modelFiles } from './files.mjs';

export const KINDS = ['encoder', 'decoder', 'cross'];

export { modelFiles };

// Bytes of `url`, reporting (bytes so far, total or 0) as they arrive; `read` replaces fetch (Node reads files)
export async function fetchBytes(url, onBytes = () => {}) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: ${r.status} ${r.statusText}`);
  const total = +(r.headers.get('content-length') || 0), parts = [];
  let got = 0;
  if (!r.body) { const b = new Uint8Array(await r.arrayBuffer()); onBytes(b.length, b.length); return b; }
  for (const reader = r.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value); got += value.length; onBytes(got, total);
  }
  const out = new Uint8Array(got);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

// The content of gzip `bytes` (a file's NAME.gz), by the platform's DecompressionStream (browsers; Node ≥ 18), so that
// what crosses the wire is compressed whatever the server does. Bytes that are not gzip come back as they are: a server
// that sends NAME.gz with `Content-Encoding: gzip` has had it undone by the browser already.
export async function gunzip(bytes) {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// A (N, h, rows, cols) float32 tensor as nested arrays weights[layer][head][row][col], in percent (as the stored explorer)
function nested(t) {
  const [N, h, R, C] = t.dims, d = t.data, out = [];
  for (let l = 0; l < N; l++) {
    const heads = [];
    for (let k = 0; k < h; k++) {
      const rows = [];
      for (let i = 0; i < R; i++) {
        const at = ((l * h + k) * R + i) * C, row = new Array(C);
        for (let j = 0; j < C; j++) row[j] = 100 * d[at + j];
        rows.push(row);
      }
      heads.push(rows);
    }
    out.push(heads);
  }
  return out;
}

export class Translator {
  constructor(ort, encoder, decoder, tokenizer, config) {
    Object.assign(this, { ort, encoder, decoder, tokenizer, config });
    this.special = config.special;
    const c = config.config;               // the model's config: only learned positions cap the length (max_positions)
    this.maxLen = c.pos === 'learned' ? c.max_len : null;
    this.maxExtra = config.max_extra;
  }

  // Load from a folder of `tnb-export --format onnx`: `read(name, onBytes)` gives a file's bytes (default: fetch from
  // `base`). `gz` maps the files that have a gzip copy beside them (NAME.gz, as vendor.mjs writes) to its size: those are
  // read compressed and decompressed here; the others, plain. onProgress(bytes read, total) counts the bytes read.
  // `ort` may be a promise (the page fetches ONNX Runtime while the model downloads); `config`, config.json if read already.
  static async load(ort, base, { read, gz = {}, config = null, onProgress = () => {}, sessionOptions = {} } = {}) {
    const url = name => new URL(name, base).href;
    read = read || ((name, cb) => fetchBytes(url(name), cb));
    const dec = new TextDecoder();
    config = config || JSON.parse(dec.decode(await read('config.json', () => {})));
    if (config.format !== 'transformer_nb-onnx') throw new Error(`config.json: format ${config.format}, expected transformer_nb-onnx`);
    const names = modelFiles(config);
    const size = n => n in gz ? gz[n] : (config.files?.[n]?.bytes || 0);
    const total = names.reduce((a, n) => a + size(n), 0), got = {};
    const seen = n => b => { got[n] = b; onProgress(Object.values(got).reduce((a, x) => a + x, 0), total); };
    const bytes = await Promise.all(names.map(async n => n in gz ? gunzip(await read(`${n}.gz`, seen(n))) : read(n, seen(n))));
    ort = await ort;
    const tokenizer = new Tokenizer(JSON.parse(dec.decode(bytes[0])));
    const externalData = names.slice(3).map((path, i) => ({ path, data: bytes[3 + i] }));   // downloaded once, given to both
    const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all', ...(externalData.length ? { externalData } : {}), ...sessionOptions };
    const encoder = await ort.InferenceSession.create(bytes[1], opts);
    const decoder = await ort.InferenceSession.create(bytes[2], opts);
    return new Translator(ort, encoder, decoder, tokenizer, config);
  }

  // Source ids as the package's translate makes them: the stripped sentence's pieces (cut to the learned positions) + EOS
  sourceIds(text) {
    let ids = this.tokenizer.encode(text.trim());
    if (this.maxLen && ids.length + 1 > this.maxLen) ids = ids.slice(0, this.maxLen - 1);
    return [...ids, this.special.eos];
  }

  // Greedy translation of one sentence: {text, src, out, record}; `record` is a sentence of the explorer's data
  // (src_pieces, tgt_in, tgt_out and weights[kind][layer][head][row][col] in percent). Awaits onStep(t) after each token.
  async translate(text, { onStep = () => {} } = {}) {
    if (!text.trim()) return { text: '', src: [], out: [], record: null };
    const { ort } = this, { pad, bos, eos } = this.special;
    const src = this.sourceIds(text), S = src.length;
    const srcT = new ort.Tensor('int64', BigInt64Array.from(src, BigInt), [1, S]);
    const enc = await this.encoder.run({ src: srcT });
    let limit = S + this.maxExtra;
    if (this.maxLen) limit = Math.min(limit, this.maxLen);
    const ys = [bos];
    let last = null;
    for (let t = 0; t < limit; t++) {
      const tgt = new ort.Tensor('int64', BigInt64Array.from(ys, BigInt), [1, ys.length]);
      last = await this.decoder.run({ memory: enc.memory, src: srcT, tgt });
      const lg = last.logits.data;
      let best = -1, bestV = -Infinity;
      for (let v = 0; v < lg.length; v++) {
        if (v === pad || v === bos) continue;
        if (lg[v] > bestV) { bestV = lg[v]; best = v; }
      }
      ys.push(best);
      await onStep(t);                    // the page yields here, so that it stays responsive while decoding
      if (best === eos) break;
    }
    const gen = ys.slice(1), out = gen.at(-1) === eos ? gen.slice(0, -1) : gen;
    const piece = i => this.tokenizer.pieces[i];
    const record = {
      src: text.trim(), hyp: this.tokenizer.decode(out), live: true,
      src_pieces: src.map(piece), tgt_in: ys.slice(0, -1).map(piece), tgt_out: gen.map(piece),
      weights: { encoder: nested(enc.enc_attn), decoder: nested(last.self_attn), cross: nested(last.cross_attn) },
    };
    return { text: oneLine(record.hyp), src, out, record };
  }
}

// The package's one_line: every line break a reader could split on becomes a space
const BREAKS = /[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;
export function oneLine(s) { return s.replace(BREAKS, ' '); }
