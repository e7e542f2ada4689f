// The live translator: the exported encoder and decoder (`tnb-export --format onnx`) run by ONNX Runtime, decoding by
// the package's rules. The decoder is one step with a cache: it takes the newest token of each hypothesis, the rows of
// the keys and values kept that each continues, and the encoder-decoder keys and values computed once from the source,
// and returns the logits of the next token, the keys and values to keep, that step's attention, and the next token's
// log-probabilities (the graph's log-softmax of the logits, which beam search ranks: no exponential is taken here), so
// a token costs the same however long the prefix. Greedy decoding is `greedy_decode`'s rule; beam search is `beam_search_batch`'s as
// `translate` runs it (10_decoding, lib_fast_decoding), with the beam, alpha, max_extra and stop rule config.json records
// (its task's: beam 4 and alpha 0.6 for translation): length penalty ((5+|Y|)/6)^alpha (decoding.mjs), PAD and
// BOS never chosen, nor EOS at the first step (fairseq's min_len=1: no empty translation), the 2k best extensions each step, an EOS among the k best ends a hypothesis, the k best others go
// on, and the search stops when no hypothesis still going can beat the best that ended (or at the length cap: the
// source's length, EOS included, + max_extra, within learned positions).
// The same module runs in the page (onnxruntime-web's wasm build) and in Node (translate.mjs); ONNX Runtime is given.
import { Tokenizer } from './tokenizer.mjs';
import { modelFiles } from './files.mjs';
import { lengthPenalty, outputCap, readConfig, checkConfig } from './decoding.mjs';

export const KINDS = ['encoder', 'decoder', 'cross'];
export const MAX_CHARS = 300;          // the longest input, in characters (UTF-16 units, as a textarea's maxlength)
export const FORMAT_VERSION = 3;       // config.json's version: the decoder step with a cache, returning the log-probabilities too

export { modelFiles, lengthPenalty, readConfig, checkConfig };

// Bytes of `url`, reporting (bytes so far, total or 0) as they arrive
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

// SHA-256 of `bytes` in hex: the platform's (crypto.subtle: browsers in a secure context, Node), else a plain one (a page
// served over plain http from another host than localhost has no crypto.subtle)
export async function sha256(bytes) {
  const hex = b => Array.from(new Uint8Array(b), x => x.toString(16).padStart(2, '0')).join('');
  if (globalThis.crypto?.subtle) return hex(await crypto.subtle.digest('SHA-256', bytes));
  const K = new Uint32Array([0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb,
    0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f,
    0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
  const H = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const n = bytes.length, padded = new Uint8Array(((n + 9 + 63) >> 6) << 6), view = new DataView(padded.buffer), W = new Uint32Array(64);
  padded.set(bytes); padded[n] = 0x80;
  view.setUint32(padded.length - 8, Math.floor(n / 2 ** 29)); view.setUint32(padded.length - 4, (n << 3) >>> 0);
  const rotr = (x, k) => (x >>> k) | (x << (32 - k));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) W[i] = view.getUint32(off + 4 * i);
    for (let i = 16; i < 64; i++) {
      const a = W[i - 15], b = W[i - 2];
      W[i] = W[i - 16] + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + W[i - 7] + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10));
    }
    let [a, b, c, d, e, f, g, h] = H;
    for (let i = 0; i < 64; i++) {
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + W[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, h].forEach((x, i) => { H[i] = H[i] + x; });
  }
  return hex(new Uint8Array(new DataView(H.buffer).buffer).map((_, i, a) => a[(i & ~3) + 3 - (i & 3)]));   // big-endian words
}

// Row `r` of `scores` (rows of V): its `n` best tokens, best first (the lower id first on a tie), with their scores.
// The first n fill the list; after that a score is compared with the worst kept alone, and most go no further (this
// runs on every row of every step: 4 x 8,000 scores a step for the page's beam)
function rowTop(scores, r, V, n) {
  const at = r * V, ids = [], xs = [];
  const place = (x, v, k) => {                                // x into slot k or above, the lower ones moved down
    while (k > 0 && xs[k - 1] < x) { xs[k] = xs[k - 1]; ids[k] = ids[k - 1]; k--; }
    xs[k] = x; ids[k] = v;
  };
  let v = 0;
  for (; v < V && v < n; v++) place(scores[at + v], v, v);
  for (let worst = xs[n - 1]; v < V; v++) {
    const x = scores[at + v];
    if (!(x > worst)) continue;
    place(x, v, n - 1); worst = xs[n - 1];
  }
  return { ids, xs };
}

// Row `r` of `logits` (rows of V): its `n` best tokens, best first (the lower id first on a tie), with their log-
// probabilities computed as `topk_log_probs` does, (x - max) - log(sum(exp(x - max))), rounded to float32 as PyTorch's
// (greedy decoding's trace, whose first step's logits have lost EOS; beam search reads the graph's `logp`)
function rowBest(logits, r, V, n) {
  const at = r * V, { ids, xs } = rowTop(logits, r, V, n), max = xs[0];
  let sum = 0;
  for (let v = 0; v < V; v++) sum += Math.exp(logits[at + v] - max);
  const lse = Math.fround(Math.log(sum));
  return { ids, logp: xs.map(x => Math.fround(Math.fround(x - max) - lse)) };
}

// Batch row `b` of a (B, h, R, C) tensor as nested arrays [head][row][col] in percent (the explorer's weights)
function percent(t, b = 0) {
  const [, h, R, C] = t.dims, d = t.data, out = [];
  for (let k = 0; k < h; k++) {
    const heads = [];
    for (let i = 0; i < R; i++) {
      const at = ((b * h + k) * R + i) * C, row = new Array(C);
      for (let j = 0; j < C; j++) row[j] = 100 * d[at + j];
      heads.push(row);
    }
    out.push(heads);
  }
  return out;
}

export class Translator {
  // `decoding`: what checkConfig returns of `config` (decoding.mjs)
  constructor(ort, encoder, decoder, tokenizer, config, decoding) {
    Object.assign(this, { ort, encoder, decoder, tokenizer, config });
    this.special = config.special;
    const c = config.config;                // the model's config: only learned positions cap the output (max_positions)
    this.N = c.N; this.h = c.h; this.dk = c.d_k || c.d_model / c.h; this.dv = c.d_v || this.dk; this.V = c.tgt_vocab;
    this.maxPositions = c.pos === 'learned' ? c.max_len : null;
    this.maxSrc = config.max_len;           // source tokens, EOS included: config.json's limit (checkConfig), as onnx_translate reads it
    this.maxExtra = decoding.maxExtra;      // the decoding the export wrote: its task's (the paper's section 6.1 for translation)
    this.beam = decoding.beam; this.alpha = decoding.alpha; this.stop = decoding.stop;
    const kv = p => Array.from({ length: this.N }, (_, i) => [`${p}_k${i}`, `${p}_v${i}`]).flat();
    this.names = { cross: kv('cross'), past: kv('past'), present: kv('present'), logp: 'logp',
                   selfAttn: Array.from({ length: this.N }, (_, i) => `self_attn${i}`), crossAttn: Array.from({ length: this.N }, (_, i) => `cross_attn${i}`) };
  }

  // Load from a folder of `tnb-export --format onnx`: `read(name, onBytes)` gives a file's bytes (default: fetch from
  // `base`). `gz` maps the files that have a gzip copy beside them (NAME.gz, as vendor.mjs writes) to its size: those are
  // read compressed and decompressed here; the others, plain. Every file is checked against the sha256 config.json
  // records before use, and config.json itself against config.sha256 first (readConfig), its ids and settings against the
  // tokenizer (checkConfig). onProgress(bytes read, total) counts the bytes read. `ort` may be a promise (the page fetches
  // ONNX Runtime while the model downloads); `config`, config.json if read already by readConfig; `label(name)` names a
  // file in the errors (translate.mjs: its path).
  static async load(ort, base, { read, gz = {}, config = null, onProgress = () => {}, sessionOptions = {}, label = n => n } = {}) {
    const url = name => new URL(name, base).href;
    read = read || ((name, cb) => fetchBytes(url(name), cb));
    const dec = new TextDecoder();
    config = config || await readConfig(read, sha256, label);
    if (config.format !== 'transformer_nb-onnx') throw new Error(`${label('config.json')} is not the config of a transformer_nb ONNX export`);
    if (config.version !== FORMAT_VERSION)
      throw new Error(`${label('config.json')}: an export of version ${config.version}; this translator reads version ${FORMAT_VERSION} (a decoder with a cache): export it again`);
    const names = modelFiles(config);
    const size = n => n in gz ? gz[n] : (config.files?.[n]?.bytes || 0);
    const total = names.reduce((a, n) => a + size(n), 0), got = {};
    const seen = n => b => { got[n] = b; onProgress(Object.values(got).reduce((a, x) => a + x, 0), total); };
    const bytes = await Promise.all(names.map(async n => {
      let b = await read(n in gz ? `${n}.gz` : n, seen(n));
      if (n in gz) {
        try { b = await gunzip(b); }
        catch (e) { throw new Error(`${label(`${n}.gz`)} is damaged: it is no whole gzip file (${String(e.message || e).split('\n')[0]}); export the folder again`); }
      }
      const want = config.files?.[n]?.sha256;
      if (!want) throw new Error(`${label('config.json')} records no sha256 for ${n}: export the folder again`);
      if (await sha256(b) !== want) throw new Error(`${label(n)} is damaged: its sha256 differs from the one config.json records; export the folder again`);
      return b;
    }));
    ort = await ort;
    let tj;
    try { tj = JSON.parse(dec.decode(bytes[0])); }
    catch (e) { throw new Error(`${label('tokenizer.json')} is not valid JSON (${String(e.message || e).split('\n')[0]}): export the folder again`); }
    const decoding = checkConfig(config, tj, label('config.json'));   // every id and setting, before use
    const tokenizer = new Tokenizer(tj);
    const externalData = names.slice(3).map((path, i) => ({ path, data: bytes[3 + i] }));   // downloaded once, given to both
    const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all', ...(externalData.length ? { externalData } : {}), ...sessionOptions };
    const openModel = async (i, n) => {
      try { return await ort.InferenceSession.create(bytes[i], opts); }
      catch (e) { throw new Error(`${label(n)}: ONNX Runtime cannot read it (${String(e.message || e).split('\n')[0]}); export the folder again`); }
    };
    const encoder = await openModel(1, 'encoder.onnx'), decoder = await openModel(2, 'decoder.onnx');
    const N = config.config.N, n = decoder.inputNames.length;
    if (n !== 2 + 4 * N)
      throw new Error(`${label('config.json')}: config.N = ${N} does not match decoder.onnx, whose inputs are for ${Math.floor((n - 2) / 4)} layers; export the folder again`);
    const tr = new Translator(ort, encoder, decoder, tokenizer, config, decoding);
    await tr.checkGraphs(label);
    return tr;
  }

  // Refuse, in one line naming the file, an encoder.onnx or decoder.onnx that is not this export's (another model's, put in
  // its place), in the words of the package's `_check_graphs`: their inputs and outputs by name, then one step of both on a
  // one-token source, whose sizes (heads, key and value sizes, the target vocabulary) must be config.json's
  async checkGraphs(label) {
    const n = this.names, same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
    const graphs = [['encoder.onnx', this.encoder, ['src'], ['enc_attn', ...n.cross]],
                    ['decoder.onnx', this.decoder, ['tgt', 'parents', ...n.past, ...n.cross], ['logits', ...n.present, ...n.selfAttn, ...n.crossAttn, n.logp]]];
    for (const [f, s, ins, outs] of graphs)
      if (!same(s.inputNames, ins) || !same(s.outputNames, outs))
        throw new Error(`${label(f)} is not the graph config.json describes (its inputs and outputs are not those of a model of ${this.N} layers): another model's; export the folder again`);
    let enc, out;
    try { enc = await this.encode([this.special.eos], false); }
    catch (e) { throw this.together(label, e); }
    for (const name of n.cross) {
      const dims = enc.cross[name].dims;
      for (const [i, w] of [[1, this.h], [3, name.includes('_k') ? this.dk : this.dv]])
        if (dims[i] !== w) throw new Error(`${label('encoder.onnx')}: its output ${name} has ${dims[i]} where config.json's model has ${w} (dimension ${i}): another model's graph; export the folder again`);
    }
    try { out = await this.decoder.run({ tgt: this.int64([this.special.bos], [1, 1]), parents: this.int64([0], [1]), ...this.empty(), ...enc.cross }, ['logits']); }
    catch (e) { throw this.together(label, e); }
    if (out.logits.dims[1] !== this.V) throw new Error(`${label('decoder.onnx')}: its output logits has ${out.logits.dims[1]} where config.json's model has ${this.V} (dimension 1): another model's graph; export the folder again`);
  }

  together(label, e) {
    return new Error(`${label('encoder.onnx')} and ${label('decoder.onnx')} do not run together as config.json's model (${String(e.message || e).split('\n')[0].slice(0, 200)}): one is another model's; export the folder again`);
  }

  // The source as the package's translate makes it, from the text cut to MAX_CHARS characters: {text, ids (pieces +
  // EOS, cut to the model's max_len), cut, unknown} (see Tokenizer.encodeInfo for `unknown`)
  source(text) {
    let t = text.trim(), cut = false;
    if (t.length > MAX_CHARS) {
      let end = MAX_CHARS;
      if (/[\udc00-\udfff]/.test(t[end])) end--;                                     // never half a surrogate pair
      t = t.slice(0, end).trimEnd(); cut = true;
    }
    const info = this.tokenizer.encodeInfo(t);
    let ids = info.ids;
    if (ids.length + 1 > this.maxSrc) { ids = ids.slice(0, this.maxSrc - 1); cut = true; }
    return { text: t, ids: [...ids, this.special.eos], cut, unknown: info.unknown };
  }

  // The most tokens (EOS included) the output of a source of `srcLen` tokens (EOS included) may have (decoding.mjs)
  outputCap(srcLen) { return outputCap(this, srcLen); }

  int64(values, dims) { return new this.ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims); }

  // The encoder once: {enc (enc_attn, N x h x S x S), cross: the decoder's encoder-decoder keys and values by name}
  // (enc null unless `attention`: the self-attention is fetched only for the explorer's record)
  async encode(src, attention = true) {
    const out = await this.encoder.run({ src: this.int64(src, [1, src.length]) }, attention ? undefined : this.names.cross);
    return { enc: attention ? out.enc_attn : null, cross: Object.fromEntries(this.names.cross.map(n => [n, out[n]])) };
  }

  // The keys and values kept before the first step: one row, no position
  empty() {
    return Object.fromEntries(this.names.past.map((n, i) =>
      [n, new this.ort.Tensor('float32', new Float32Array(0), [1, this.h, 0, i % 2 ? this.dv : this.dk])]));
  }

  // One decoder step: rows `tokens` (B rows of T new tokens each) continue rows `parents` of `past` ->
  // {logits (B x V), past (for the next step), self: [self_attn per layer], cross: [cross_attn per layer]}; the
  // attention is fetched only if asked for (`attention`: 'all', 'cross' or 'none'); with `logp`, `logits` holds the
  // graph's log-probabilities (B x V) instead
  async step(cross, past, tokens, parents, attention = 'all', logp = false) {
    const B = tokens.length, T = tokens[0].length, n = this.names, scores = logp ? n.logp : 'logits';
    const fetch = [scores, ...n.present, ...(attention === 'all' ? n.selfAttn : []), ...(attention !== 'none' ? n.crossAttn : [])];
    const out = await this.decoder.run({ tgt: this.int64(tokens.flat(), [B, T]), parents: this.int64(parents, [B]), ...past, ...cross }, fetch);
    return { logits: out[scores].data, past: Object.fromEntries(n.past.map((x, i) => [x, out[n.present[i]]])),
             self: n.selfAttn.map(x => out[x]), cross: n.crossAttn.map(x => out[x]) };
  }

  // Translate one sentence: {text, src, out, record, unknown, cut, trace}. `beam` 1 decodes greedily; `record` is a
  // sentence of the explorer's data (src_pieces, tgt_in, tgt_out, weights[kind][layer][head][row][col] in percent) for
  // the output, or null without `record` (translate.mjs without --json: no attention fetched, no teacher-forced pass); with
  // `trace`, one entry per step (see `beamSearch`). Awaits onStep(t) after each step: the page yields there, and may
  // throw to stop.
  async translate(text, { beam = this.beam, alpha = this.alpha, trace = false, record = true, onStep = () => {} } = {}) {
    if (!Number.isInteger(beam) || beam < 1 || beam > this.V) throw new Error(`beam ${beam} must be a whole number from 1 to ${this.V}, the target vocabulary`);
    if (!(typeof alpha === 'number' && alpha >= 0 && alpha < Infinity)) throw new Error(`alpha ${alpha} must be a number >= 0`);
    const s = this.source(text), empty = { text: '', src: [], out: [], record: null, unknown: s.unknown, cut: s.cut, trace: trace ? [] : undefined };
    if (!s.text) return empty;
    const src = s.ids, enc = await this.encode(src, record);
    const limit = this.outputCap(src.length);                     // EOS included, as max_output_lengths
    const steps = trace ? [] : null;
    const res = beam === 1 ? await this.greedy(enc, limit, alpha, steps, onStep, record) : await this.beamSearch(enc, limit, beam, alpha, steps, onStep);
    const { out, ended } = res, gen = ended ? [...out, this.special.eos] : out;
    const hyp = this.tokenizer.decode(out);
    if (!record) return { text: oneLine(hyp), src, out, record: null, unknown: s.unknown, cut: s.cut, trace: steps || undefined };
    const tgtIn = [this.special.bos, ...gen.slice(0, -1)];
    let self = res.self, cross = res.cross;
    if (!self) {                                                   // one teacher-forced pass over the output for its grid
      const r = await this.step(enc.cross, this.empty(), [tgtIn], [0]);
      self = r.self.map(t => percent(t)); cross = r.cross.map(t => percent(t));
    }
    const piece = i => this.tokenizer.pieces[i];
    const rec = { src: s.text, hyp, live: true, src_pieces: src.map(piece), tgt_in: tgtIn.map(piece), tgt_out: gen.map(piece),
                 weights: { encoder: Array.from({ length: this.N }, (_, l) => percent(enc.enc, l)), decoder: self, cross } };
    return { text: oneLine(hyp), src, out, record: rec, unknown: s.unknown, cut: s.cut, trace: steps || undefined };
  }

  // Greedy decoding (`greedy_decode`): {out, ended, self, cross}, the attention rows of every step put together (with
  // `record`; else self and cross are null, and only the trace's encoder-decoder attention is fetched)
  async greedy(enc, limit, alpha, steps, onStep, record = true) {
    const { eos } = this.special, ys = [this.special.bos], rows = [];
    let past = this.empty(), logp = 0;
    for (let t = 0; t < limit; t++) {
      const r = await this.step(enc.cross, past, [[ys.at(-1)]], [0], record ? 'all' : steps ? 'cross' : 'none');
      past = r.past;
      const lg = r.logits;
      if (t === 0) this.firstStep(lg, 1);                          // no empty translation
      let best = 0;
      for (let v = 1; v < this.V; v++) if (lg[v] > lg[best]) best = v;
      if (record || steps) rows.push({ self: record ? r.self.map(x => percent(x)) : null, cross: r.cross.map(x => percent(x)) });
      if (steps) {
        const top = rowBest(lg, 0, this.V, 2), ended = best === eos || t + 1 >= limit, lp = lengthPenalty(t + 1, alpha);
        const tokens = [...ys.slice(1), best], chosenLogp = logp + top.logp[0];
        steps.push({ t, chosen: best, cross: rows.at(-1).cross.map(l => l.map(h => h[0])),
                     candidates: top.ids.map((token, k) => ({ from: 0, token, piece: this.tokenizer.pieces[token], logp: logp + top.logp[k],
                                                              score: (logp + top.logp[k]) / lp, kept: k === 0 && !ended, ended: k === 0 && ended })),
                     beams: ended ? [] : [this.hyp(tokens, chosenLogp, lp)], finished: ended ? [this.hyp(best === eos ? tokens.slice(0, -1) : tokens, chosenLogp, lp)] : [] });
        logp = chosenLogp;
      }
      ys.push(best);
      await onStep(t);
      if (best === eos) break;
    }
    const T = rows.length, ended = ys.at(-1) === eos;
    if (!record) return { out: ended ? ys.slice(1, -1) : ys.slice(1), ended, self: null, cross: null };
    const pad = row => [...row, ...new Array(T - row.length).fill(0)];
    return { out: ended ? ys.slice(1, -1) : ys.slice(1), ended,
             self: Array.from({ length: this.N }, (_, l) => Array.from({ length: this.h }, (_, k) => rows.map(r => pad(r.self[l][k][0])))),
             cross: Array.from({ length: this.N }, (_, l) => Array.from({ length: this.h }, (_, k) => rows.map(r => r.cross[l][k][0]))) };
  }

  // The first step's rule, as fairseq's min_len=1 and the package's decoders: EOS is forbidden, so a translation holds at
  // least one piece, never the empty line. Greedy search takes the best other logit; beam search (below) gives an EOS
  // candidate of step 1 the score -inf after the log-softmax, as the package's beam search does, so the other
  // candidates keep the model's own log p
  firstStep(logits, rows) {
    for (let j = 0; j < rows; j++) logits[j * this.V + this.special.eos] = -Infinity;
  }

  hyp(tokens, logp, lp, score = logp / lp) { return { tokens, pieces: tokens.map(i => this.tokenizer.pieces[i]), logp, score }; }

  // Beam search by `beam_search_batch`'s rule with nbest 1 (as `translate` runs it): {out, ended}. A trace entry per step:
  // {t, candidates: [{from, token, piece, logp, score, kept, ended}] (the 2k best extensions, best first; `from` indexes
  // the previous step's beams; logp cumulative, score = logp / lp(t+1)), beams (those kept: {tokens, pieces, logp,
  // score}), finished (every hypothesis ended so far, best first), chosen (the token of the best candidate), cross (the
  // encoder-decoder attention, [layer][head][source position] in percent, of the query that chose it)}
  async beamSearch(enc, limit, K, alpha, steps, onStep) {
    const { eos, bos } = this.special, V = this.V, n = Math.min(2 * K, V), lpCap = lengthPenalty(limit, alpha);
    let past = this.empty(), parents = [0], tokens = [[bos]], hyps = [{ tokens: [], logp: 0 }];
    const finished = [];                                            // {tokens, logp, score}, in the order they ended
    let best = -Infinity;
    for (let t = 0; t < limit; t++) {
      const r = await this.step(enc.cross, past, tokens, parents, steps ? 'cross' : 'none', true);
      past = r.past;
      const cand = [];
      hyps.forEach((hp, j) => {                                     // at step 1 an EOS candidate scores -inf: the others
        const { ids, xs } = rowTop(r.logits, j, V, n);                // keep their log p, nothing renormalised (as fairseq)
        ids.forEach((token, k) => cand.push({ from: j, token, logp: t === 0 && token === eos ? -Infinity : hp.logp + xs[k], rank: j * n + k }));
      });
      cand.sort((a, b) => b.logp - a.logp || a.rank - b.rank);
      const top = cand.slice(0, Math.min(2 * K, cand.length)), lp = lengthPenalty(t + 1, alpha), atLimit = t + 1 >= limit;
      top.forEach((c, i) => {                                       // EOS among the k best: a hypothesis ends
        c.ended = i < K && c.token === eos && Number.isFinite(c.logp);
        if (c.ended) { finished.push({ tokens: hyps[c.from].tokens, logp: c.logp, score: c.logp / lp, eos: true }); best = Math.max(best, c.logp / lp); }
      });
      const kept = top.filter(c => c.token !== eos).slice(0, K);   // the k best others go on
      const next = kept.map(c => ({ tokens: [...hyps[c.from].tokens, c.token], logp: c.logp }));
      kept.forEach((c, i) => {
        if (atLimit && Number.isFinite(c.logp)) {                  // out of length: they end too
          c.ended = true; finished.push({ tokens: next[i].tokens, logp: c.logp, score: c.logp / lp, eos: false }); best = Math.max(best, c.logp / lp);
        }
      });
      const bound = Math.max(...kept.map(c => c.logp)) / lpCap;   // the best a hypothesis still going can reach
      const done = atLimit || best >= bound || !kept.length || (this.stop === 'early' && top[0].token === eos && Number.isFinite(best));
      kept.forEach(c => { c.kept = !done; });                      // they go on to the next step, unless the search is over
      if (steps) steps.push({
        t, chosen: top[0].token, cross: r.cross.map(x => percent(x, top[0].from).map(h => h[0])),
        candidates: top.map(c => ({ from: c.from, token: c.token, piece: this.tokenizer.pieces[c.token], logp: c.logp, score: c.logp / lp,
                                    kept: !!c.kept, ended: !!c.ended })),
        beams: done ? [] : next.map(x => this.hyp(x.tokens, x.logp, lp)),
        finished: [...finished].sort((a, b) => b.score - a.score).map(f => this.hyp(f.tokens, f.logp, 1, f.score)) });
      await onStep(t);
      if (done) break;
      hyps = next; parents = kept.map(c => c.from); tokens = kept.map(c => [c.token]);
    }
    let win = finished[0];                                          // the best score; the first to end on a tie
    for (const f of finished) if (f.score > win.score) win = f;
    return { out: win.tokens, ended: win.eos };
  }
}

// The package's one_line: every line break a reader could split on becomes a space
const BREAKS = /[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;
export function oneLine(s) { return s.replace(BREAKS, ' '); }
