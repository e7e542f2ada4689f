// A stand-in for live/translator.mjs in the page's tests while nbs/live/translator.mjs decodes greedily only: it is
// copied into a test site as translator.mjs, beside the real module (as translator_greedy.mjs), and adds what the page
// asks of a translator: translate(text, {beam, alpha, trace, onStep}) -> {text, src, out, record, unknown, cut, trace},
// beam search by the rule of the package's beam_search (10_decoding): the 2k best one-piece extensions of the k
// hypotheses, those among the k best that add </s> finish with score log p / ((5 + |Y|)/6)^alpha, the k best others go
// on; a sentence stops when its length limit is reached or its k-th finished score beats what any alive one could
// reach. The decoder has no cache here (it reads each hypothesis's whole prefix, one hypothesis at a time), so it is
// slow, and only for the page's tests.
import * as greedy from './translator_greedy.mjs';
export * from './translator_greedy.mjs';

const lp = (n, alpha) => ((5 + n) / 6) ** alpha;

function logSoftmax(logits, banned) {
  let m = -Infinity;
  for (let v = 0; v < logits.length; v++) if (!banned.has(v) && logits[v] > m) m = logits[v];
  let s = 0;
  for (let v = 0; v < logits.length; v++) if (!banned.has(v)) s += Math.exp(logits[v] - m);
  const z = m + Math.log(s), out = new Float64Array(logits.length);
  for (let v = 0; v < logits.length; v++) out[v] = banned.has(v) ? -Infinity : logits[v] - z;
  return out;
}

export class Translator extends greedy.Translator {
  static async load(...args) {
    const t = await greedy.Translator.load(...args);
    return Object.setPrototypeOf(t, Translator.prototype);
  }

  async translate(text, { beam = 4, alpha = 0.6, trace = false, onStep = () => {} } = {}) {
    if (beam <= 1 && !trace) return super.translate(text, { onStep });
    if (!text.trim()) return { text: '', src: [], out: [], record: null, unknown: [], cut: false, trace: trace ? [] : undefined };
    const { ort } = this, { pad, bos, eos } = this.special, K = Math.max(1, beam), piece = i => this.tokenizer.pieces[i];
    const src = this.sourceIds(text), S = src.length;
    const srcT = new ort.Tensor('int64', BigInt64Array.from(src, BigInt), [1, S]);
    const enc = await this.encoder.run({ src: srcT });
    let limit = S + this.maxExtra;
    if (this.maxLen) limit = Math.min(limit, this.maxLen);
    const run = async ys => this.decoder.run({ memory: enc.memory, src: srcT, tgt: new ort.Tensor('int64', BigInt64Array.from(ys, BigInt), [1, ys.length]) });
    const crossLast = r => {                                  // [layer][head][source] of the newest row, in percent
      const [N, H, T, C] = r.cross_attn.dims, d = r.cross_attn.data, out = [];
      for (let l = 0; l < N; l++) { const hs = []; for (let k = 0; k < H; k++) { const at = ((l * H + k) * T + T - 1) * C; hs.push(Array.from(d.subarray(at, at + C), x => 100 * x)); } out.push(hs); }
      return out;
    };
    const banned = new Set([pad, bos]), steps = [], finished = [];
    const hyp = (tokens, logp, score) => ({ tokens, pieces: tokens.map(piece), logp, score });
    let alive = [{ ys: [bos], logp: 0 }];
    for (let t = 0; t < limit; t++) {
      const outs = [];
      for (const a of alive) outs.push(await run(a.ys));
      const cand = [];
      alive.forEach((a, r) => {
        const lg = logSoftmax(outs[r].logits.data, banned);
        for (let v = 0; v < lg.length; v++) if (lg[v] > -Infinity) cand.push([a.logp + lg[v], r, v]);
      });
      cand.sort((x, y) => y[0] - x[0]);
      const top = cand.slice(0, Math.min(2 * K, cand.length)), L = lp(t + 1, alpha);
      const ended = new Set(), kept = [];
      top.forEach(([s, r, v], j) => { if (v === eos && j < K) { ended.add(j); finished.push({ ...hyp(alive[r].ys.slice(1), s, s / L), eos: true }); } });
      top.forEach(([s, r, v], j) => { if (v !== eos && kept.length < K) kept.push(j); });
      const next = kept.map(j => ({ ys: [...alive[top[j][1]].ys, top[j][2]], logp: top[j][0], from: top[j][1] }));
      const atLimit = t + 1 >= limit;
      if (atLimit) for (const n of next) finished.push({ ...hyp(n.ys.slice(1), n.logp, n.logp / L), eos: false });
      const scores = finished.map(f => f.score).sort((a, b) => b - a);
      const kth = scores.length >= K ? scores[K - 1] : -Infinity, bound = next.length ? next[0].logp / lp(limit, alpha) : -Infinity;
      const stop = atLimit || kth >= bound || !next.length;
      if (trace) {
        steps.push({
          t, candidates: top.map(([s, r, v], j) => ({ from: r, token: v, piece: piece(v), logp: s, score: s / L, kept: kept.includes(j), ended: ended.has(j) })),
          beams: stop ? [] : next.map(n => hyp(n.ys.slice(1), n.logp, n.logp / L)),
          finished: finished.map(f => hyp(f.tokens, f.logp, f.score)),
          chosen: top[0][2], cross: crossLast(outs[top[0][1]]),      // the best extension, and where its step looked
        });
      }
      await onStep(t);
      if (stop) break;
      alive = next;
    }
    finished.sort((a, b) => b.score - a.score);
    const best = finished[0], out = best.tokens;
    const tgtOut = best.eos ? [...out, eos] : out, tgtIn = [bos, ...tgtOut.slice(0, -1)];
    const last = await run(tgtIn);
    const nested = t => { const [N, H, R, C] = t.dims, d = t.data, o = []; for (let l = 0; l < N; l++) { const hs = []; for (let k = 0; k < H; k++) { const rows = []; for (let i = 0; i < R; i++) { const at = ((l * H + k) * R + i) * C; rows.push(Array.from(d.subarray(at, at + C), x => 100 * x)); } hs.push(rows); } o.push(hs); } return o; };
    const record = {
      src: text.trim(), hyp: this.tokenizer.decode(out), live: true,
      src_pieces: src.map(piece), tgt_in: tgtIn.map(piece), tgt_out: tgtOut.map(piece),
      weights: { encoder: nested(enc.enc_attn), decoder: nested(last.self_attn), cross: nested(last.cross_attn) },
    };
    return { text: greedy.oneLine(record.hyp), src, out, record, cut: false, trace: trace ? steps : undefined };
  }
}
