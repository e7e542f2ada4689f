// SentencePiece BPE in plain JavaScript: the model's normalization (its precompiled character map, e.g. nmt_nfkc),
// then byte-pair merges by score, byte fallback (a character the vocabulary lacks becomes its UTF-8 bytes, <0xNN>
// pieces, in a model trained with it), then decoding back to text. It reads `tokenizer.json` of `tnb-export --format
// onnx` and gives the pieces Python's `sentencepiece` gives. Runs in the browser and in Node, with no dependency.

const NORMAL = 1, UNKNOWN = 2, CONTROL = 3, USER_DEFINED = 4, UNUSED = 5, BYTE = 6;
const SPACE = '\u2581';                               // ▁, the piece's mark for a space
const UNK_SURFACE = ' \u2047 ';                       // what sentencepiece decodes <unk> to

function base64Bytes(s) {
  const bin = atob(s), out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// The precompiled character map: a uint32 size, a darts-clone double-array trie over UTF-8 bytes, then the
// replacement strings (NUL-terminated) the trie's values point into.
class CharMap {
  constructor(blob) {
    const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
    const size = view.getUint32(0, true);
    if (size + 4 > blob.length) throw new Error(`precompiled_charsmap: trie of ${size} bytes in a blob of ${blob.length}`);
    this.units = new Uint32Array(size / 4);
    for (let i = 0; i < this.units.length; i++) this.units[i] = view.getUint32(4 + 4 * i, true);
    this.pool = blob.subarray(4 + size);
  }
  // [bytes matched, pool offset] of the longest rule that starts at bytes[pos], or null
  longest(bytes, pos) {
    const u = this.units, offset = x => (x >>> 10) << ((x & (1 << 9)) >>> 6);
    let node = 0, best = null;
    node ^= offset(u[node]);
    for (let i = pos; i < bytes.length; i++) {
      const c = bytes[i];
      node ^= c;
      const unit = u[node];
      if (unit === undefined || (unit & 0x800000ff) >>> 0 !== c) break;   // label differs: no longer match
      node ^= offset(unit);
      if ((unit >>> 8) & 1) best = [i + 1 - pos, u[node] & 0x7fffffff];  // a leaf: a rule ends here
    }
    return best;
  }
  replacement(at) {
    let end = at;
    while (this.pool[end] !== 0) end++;
    return this.pool.subarray(at, end);
  }
}

// Length in bytes of the valid UTF-8 character at bytes[i], or 0 when it is malformed (sentencepiece's IsValidDecodeUTF8)
function utf8Len(b, i) {
  const c = b[i], n = b.length - i, cont = k => k < n && (b[i + k] & 0xc0) === 0x80;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c < 0xe0) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c < 0xf0) {
    if (!cont(1) || !cont(2)) return 0;
    const cp = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
    return cp >= 0x800 && !(cp >= 0xd800 && cp <= 0xdfff) ? 3 : 0;
  }
  if (c >= 0xf0 && c < 0xf5) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const cp = ((c & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
    return cp >= 0x10000 && cp <= 0x10ffff ? 4 : 0;
  }
  return 0;
}

const enc = new TextEncoder(), dec = new TextDecoder();
const SPACE_BYTES = enc.encode(SPACE), REPLACEMENT = enc.encode('\ufffd');
const bytePiece = b => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;   // sentencepiece's ByteToPiece

// Text of UTF-8 `bytes` as sentencepiece decodes byte pieces: each valid character, and U+FFFD for each byte of none
function bytesText(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length;) {
    const n = utf8Len(bytes, i);
    s += n ? dec.decode(bytes.subarray(i, i + n)) : '\ufffd';
    i += n || 1;
  }
  return s;
}

// A max-heap of candidate merges: highest score first, then the leftmost.
class Agenda {
  constructor() { this.a = []; }
  better(x, y) { return x.score > y.score || (x.score === y.score && x.left < y.left); }
  push(x) {
    const a = this.a; a.push(x);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (!this.better(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]]; i = p;
    }
  }
  pop() {
    const a = this.a, top = a[0], last = a.pop();
    if (a.length) {
      a[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1, r = l + 1; let m = i;
        if (l < a.length && this.better(a[l], a[m])) m = l;
        if (r < a.length && this.better(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]]; i = m;
      }
    }
    return top;
  }
  get size() { return this.a.length; }
}

export class Tokenizer {
  // spec: the parsed tokenizer.json ({pieces: [[piece, score, type], ...], unk_id, bos_id, eos_id, pad_id, normalizer, model_type})
  constructor(spec) {
    if (spec.model_type !== 'bpe') throw new Error(`tokenizer.json: model_type ${spec.model_type}, only bpe is supported`);
    this.spec = spec;
    this.pieces = spec.pieces.map(p => p[0]);
    this.scores = spec.pieces.map(p => p[1]);
    this.types = spec.pieces.map(p => p[2]);
    this.unkId = spec.unk_id; this.bosId = spec.bos_id; this.eosId = spec.eos_id; this.padId = spec.pad_id;
    this.normal = new Map(); this.reserved = new Map(); this.userDefined = [];
    this.types.forEach((t, i) => {
      const m = (t === NORMAL || t === USER_DEFINED || t === UNUSED) ? this.normal : this.reserved;
      if (!m.has(this.pieces[i])) m.set(this.pieces[i], i);
      if (t === USER_DEFINED) this.userDefined.push(this.pieces[i]);
    });
    this.userDefined.sort((a, b) => b.length - a.length);             // longest first: a prefix match takes the longest
    const n = spec.normalizer;
    this.norm = n;
    this.charmap = n.precompiled_charsmap ? new CharMap(base64Bytes(n.precompiled_charsmap)) : null;
    this.byteFallback = !!spec.byte_fallback;                         // unknown characters become byte pieces
    this.byteIds = Array.from({ length: 256 }, (_, b) => this.reserved.get(bytePiece(b)));
    if (this.byteFallback && this.byteIds.some(i => i === undefined || this.types[i] !== BYTE))
      throw new Error('tokenizer.json: byte fallback is on, but the 256 byte pieces <0x00> ... <0xFF> are not all there');
    this.byteValue = new Map(this.byteIds.map((id, b) => [id, b]));    // a byte piece's id -> its byte
  }

  static async load(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: ${r.status} ${r.statusText}`);
    return new Tokenizer(await r.json());
  }

  get vocabSize() { return this.pieces.length; }

  userPrefix(str) {                                   // a user-defined symbol at the start of str, or ''
    for (const u of this.userDefined) if (str.startsWith(u)) return u;
    return '';
  }

  // [replacement bytes, bytes consumed] at bytes[pos]: sentencepiece's Normalizer::NormalizePrefix
  normalizePrefix(bytes, pos) {
    if (this.userDefined.length) {
      const u = this.userPrefix(dec.decode(bytes.subarray(pos, pos + 64 * 4)));
      if (u) { const b = enc.encode(u); return [b, b.length]; }
    }
    const hit = this.charmap ? this.charmap.longest(bytes, pos) : null;
    if (hit) return [this.charmap.replacement(hit[1]), hit[0]];
    const n = utf8Len(bytes, pos);
    return n ? [bytes.subarray(pos, pos + n), n] : [REPLACEMENT, 1];
  }

  // The normalized text, with spaces as ▁: sentencepiece's Normalizer::Normalize. The characters the normalization
  // removes (a zero-width space, a control character) are pushed on `dropped`, if given.
  normalize(text, dropped = null) {
    const b = enc.encode(text), n = this.norm, out = [];
    const removeExtra = n.remove_extra_whitespaces, escape = n.escape_whitespaces;
    let pos = 0;
    if (removeExtra) {
      while (pos < b.length) {
        const [r, len] = this.normalizePrefix(b, pos);
        if (!(r.length === 1 && r[0] === 0x20)) break;
        pos += len;
      }
    }
    if (pos >= b.length) return '';
    const pushSpace = () => { if (escape) out.push(...SPACE_BYTES); else out.push(0x20); };
    let prevSpace = removeExtra;
    if (n.add_dummy_prefix) pushSpace();
    while (pos < b.length) {
      const [r, len] = this.normalizePrefix(b, pos);
      if (dropped && !r.length) dropped.push(dec.decode(b.subarray(pos, pos + len)));
      let s = 0;
      if (prevSpace) while (s < r.length && r[s] === 0x20) s++;
      if (s < r.length) {
        for (let k = s; k < r.length; k++) { if (escape && r[k] === 0x20) out.push(...SPACE_BYTES); else out.push(r[k]); }
        prevSpace = r[r.length - 1] === 0x20;
      }
      pos += len;
      if (!removeExtra) prevSpace = false;
    }
    if (removeExtra) {
      const sp = escape ? SPACE_BYTES : [0x20];
      const endsWith = () => out.length >= sp.length && sp.every((x, k) => out[out.length - sp.length + k] === x);
      while (endsWith()) out.length -= sp.length;
    }
    return dec.decode(Uint8Array.from(out));
  }

  pieceToId(p) {
    if (this.reserved.has(p)) return this.reserved.get(p);
    return this.normal.has(p) ? this.normal.get(p) : this.unkId;
  }

  // BPE on normalized text: sentencepiece's bpe::Model::Encode. Returns [[piece, id], ...]
  encodeNormalized(text) {
    const syms = [];
    for (let rest = text; rest.length;) {
      const u = this.userDefined.length ? this.userPrefix(rest) : '';
      const ch = u || String.fromCodePoint(rest.codePointAt(0));
      syms.push({ piece: ch, freeze: !!u, prev: syms.length - 1, next: -1 });
      rest = rest.slice(ch.length);
    }
    syms.forEach((s, i) => { s.next = i + 1 < syms.length ? i + 1 : -1; });
    if (!syms.length) return [];
    const agenda = new Agenda(), revMerge = new Map();
    const add = (l, r) => {
      if (l === -1 || r === -1 || syms[l].freeze || syms[r].freeze) return;
      const piece = syms[l].piece + syms[r].piece, id = this.normal.get(piece);
      if (id === undefined) return;
      agenda.push({ left: l, right: r, score: this.scores[id], size: piece.length });
      if (this.types[id] === UNUSED) revMerge.set(piece, [syms[l].piece, syms[r].piece]);
    };
    for (let i = 1; i < syms.length; i++) add(i - 1, i);
    while (agenda.size) {
      const top = agenda.pop(), L = syms[top.left], R = syms[top.right];
      if (!L.piece || !R.piece || L.piece.length + R.piece.length !== top.size) continue;   // out of date
      L.piece += R.piece;
      L.next = R.next;
      if (R.next >= 0) syms[R.next].prev = top.left;
      R.piece = '';
      add(L.prev, top.left);
      add(top.left, L.next);
    }
    const out = [];
    const resegment = w => {
      const id = this.pieceToId(w);
      if (this.types[id] !== UNUSED || !revMerge.has(w)) { out.push([w, id]); return; }
      const [a, b] = revMerge.get(w); resegment(a); resegment(b);
    };
    for (let i = 0; i !== -1; i = syms[i].next) resegment(syms[i].piece);
    const merged = [];            // as sentencepiece: an unknown piece becomes its bytes (byte fallback), else a run is one <unk>
    for (const [w, id] of out) {
      const last = merged.at(-1);
      if (id === this.unkId && this.byteFallback) for (const b of enc.encode(w)) merged.push([bytePiece(b), this.byteIds[b]]);
      else if (id === this.unkId && last && last[1] === this.unkId) last[0] += w;
      else merged.push([w, id]);
    }
    return merged;
  }

  // The source as the translator needs it: {ids, pieces, unknown}, where `unknown` lists, in order and once each, what
  // the model cannot read as it was typed: {text, as} with as 'unknown' (became <unk>), 'bytes' (spelled in byte
  // pieces) or 'dropped' (removed by the normalization).
  encodeInfo(text) {
    const dropped = [], pieces = this.encodeNormalized(this.normalize(text, dropped)), unknown = [], seen = new Set();
    const note = (t, as) => { const k = `${as}\u0000${t}`; if (t && !seen.has(k)) { seen.add(k); unknown.push({ text: t, as }); } };
    for (const d of dropped) if (d.trim()) note(d, 'dropped');
    const surface = w => w.split(SPACE).join(' ').trim();
    for (let i = 0; i < pieces.length; i++) {
      const [w, id] = pieces[i];
      if (id === this.unkId) note(surface(w), 'unknown');
      else if (this.byteValue.has(id)) {                  // a run of byte pieces: the characters they spell
        let j = i; while (j < pieces.length && this.byteValue.has(pieces[j][1])) j++;
        note(bytesText(Uint8Array.from(pieces.slice(i, j), p => this.byteValue.get(p[1]))).trim(), 'bytes'); i = j - 1;
      }
    }
    return { ids: pieces.map(p => p[1]), pieces: pieces.map(p => p[0]), unknown };
  }

  // The pieces of a sentence, as strings (Python: sp.encode(text, out_type=str))
  encodePieces(text) { return this.encodeNormalized(this.normalize(text)).map(p => p[0]); }
  // The piece ids of a sentence, without BOS/EOS (Python: Tokenizer.encode)
  encode(text) { return this.encodeNormalized(this.normalize(text)).map(p => p[1]); }

  // Text of piece ids: stops at EOS, skips PAD and BOS, as the package's Tokenizer.decode, then sentencepiece's Decode:
  // a run of byte pieces is the text its bytes spell, and the first piece's leading ▁ is not a space.
  decode(ids) {
    const n = this.norm, strip = n.add_dummy_prefix || n.remove_extra_whitespaces;
    let text = '', bosWs = true, bosWsSeen = false, bytes = [];
    const flush = () => { if (bytes.length) { text += bytesText(Uint8Array.from(bytes)); bytes = []; } };
    for (const id of ids) {
      if (id === this.eosId) break;
      if (!(id >= 0 && id < this.vocabSize)) throw new Error(`token id ${id} is outside the vocabulary 0..${this.vocabSize - 1}`);
      if (id === this.padId || id === this.bosId) continue;
      const t = this.types[id];
      if (t === BYTE) { bytes.push(this.byteValue.get(id) ?? parseInt(this.pieces[id].slice(3, 5), 16)); continue; }
      flush();
      if (bosWsSeen || text) bosWs = false;
      let s = '', seen = false;
      if (t === CONTROL) s = '';
      else if (t === UNKNOWN) s = UNK_SURFACE;
      else {
        let p = this.pieces[id];
        if (bosWs && strip && p.startsWith(SPACE)) { p = p.slice(SPACE.length); seen = !n.remove_extra_whitespaces; }
        s = p.split(SPACE).join(' ');
      }
      bosWsSeen = seen;
      text += s;
    }
    flush();
    return text;
  }
}
