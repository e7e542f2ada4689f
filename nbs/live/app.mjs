// The live translator of the docs site. The site's build (tools/site_html.py) puts two kinds of hook on its pages: the
// front page's `front(box)`, a compact translator, and `attach(explorer)` on each attention explorer (apps_attention_explorer),
// the full one, whose translations join the explorer's grid. Nothing heavy loads with the page: the first translation
// downloads ONNX Runtime Web (wasm, one thread) and the chosen direction's int8 model, from the site itself, with a
// progress line; the other direction's model loads only when the reader switches to it. Each translation is decoded as
// the export decodes it (config.json: its beam and alpha, its task's), or greedily, as the reader picks, and its search
// is shown a step at a time (BeamView).
import { lengthPenalty, outputCap as cap } from './decoding.mjs';
// What int8 weights change, as measured for each direction decoded as this page decodes it (results/int8.json,
// bench/bench_int8.py: the int8 export against the float32 one, the export's beam search, on Multi30k's test set;
// tests/test_live.py ties the figures to the file). Each direction's note is said under that direction only.
export const INT8_NOTES = {
  'de-en': 'Its weights are int8: on Multi30k\'s 1,000 test2016 sentences, decoded by beam search with 4 hypotheses (this page\'s default), int8 changes 104 translations against float32 weights, and BLEU from 40.40 to 40.51.',
  'en-de': 'Its weights are int8: on Multi30k\'s 1,000 test2016 sentences, decoded by beam search with 4 hypotheses (this page\'s default), int8 changes 108 translations against float32 weights, and BLEU from 37.22 to 37.01.',
};
export const MAX_CHARS = 300;                  // the longest input, in characters: the page says so before it cuts
export const DIRECTIONS = {
  'de-en': { from: 'German', to: 'English', examples: [
    'Ein brauner Hund rennt durch den tiefen Schnee.', 'Zwei Kinder spielen am Strand.',
    'Eine Frau mit einem roten Hut fährt Fahrrad.', 'Ein Mann spielt Gitarre auf der Straße.'] },
  'en-de': { from: 'English', to: 'German', examples: [
    'A brown dog runs through the deep snow.', 'Two children are playing on the beach.',
    'A woman in a red hat is riding a bike.', 'A man is playing guitar on the street.'] },
};
// The page of the full translator, at the translator `attach` puts there (tools/check_docs.py checks that the page exists
// and the anchor is one it has, as it checks every page link written in nbs/live)
export const EXPLORER = 'apps_attention_explorer.html#translator';
const SPACE = '\u2581', WASM = 'ort-wasm-simd-threaded.wasm';
const here = new URL('./', import.meta.url);
const mb = n => (n / 1e6).toFixed(1), a = w => (/^[AEIOU]/.test(w) ? 'an ' : 'a ') + w;

// ---- what a reader sees of pieces and text (exported for the tests) ----------------------------------------------------
// A SentencePiece piece as the page shows it: without the word-start mark ▁ (a lone ▁ is a visible space)
export const shownPiece = p => p === SPACE ? '\u2423' : p.replace(/^\u2581/, '');
// Whether a piece goes on the word before it (it has no ▁ and is no special piece like </s>)
export const continues = p => !p.startsWith(SPACE) && !/^<.*>$/.test(p);
// The text of a list of pieces, as a reader would write it (</s> and <s> left out)
export const piecesText = ps => ps.filter(p => !/^<\/?s>$/.test(p)).join('').replaceAll(SPACE, ' ').trim();
// Characters a reader cannot see, by name: shown as ⟨name⟩ wherever the page shows what the model read
const INVISIBLE = { 0x00AD: 'soft hyphen', 0x200B: 'zero-width space', 0x200C: 'zero-width non-joiner', 0x200D: 'zero-width joiner',
  0x2060: 'word joiner', 0xFEFF: 'zero-width no-break space', 0x200E: 'left-to-right mark', 0x200F: 'right-to-left mark',
  0x00A0: 'no-break space', 0x202F: 'narrow no-break space', 0x180E: 'Mongolian vowel separator', 0x034F: 'combining grapheme joiner' };
const ODD = /[\p{Cf}\p{Cc}\p{Zs}\p{Zl}\p{Zp}\u034f]/u, PLAIN = /[ \t\n\r]/;
// `text` with each character a reader cannot see (a format or control character, a space other than the plain one)
// written as ⟨its name⟩, or ⟨U+XXXX⟩
export const visible = text => [...text].map(c => !ODD.test(c) || PLAIN.test(c) ? c
  : `⟨${INVISIBLE[c.codePointAt(0)] || `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`}⟩`).join('');

// `text` split into sentences, each to be translated alone (the models were trained on one sentence at a time): at a line
// break, and after . ! ? or … (and any closing quote or bracket) followed by a space and a capital letter, a digit or an
// opening quote, unless the word before the full stop is a number of at most three digits that a word other than a
// sentence's usual first word follows (an ordinal: "am 3. Mai"; a year ends its sentence: "Im Jahr 2010. Danach"; so
// does "Es waren 100. Dann 200."), one letter ("J. K.", "z. B."), has a full stop inside ("z.B.", "e.g.") or is an
// abbreviation that a name or a number follows (Dr., Mr., St., Nr., and a street's ...str., "Hauptstr. 5"). An
// abbreviation that may end a sentence (Inc., Ltd., etc., usw.) ends one before a capital: "Acme Inc. The dog runs." is two.
const ABBREV = new Set(['dr', 'mr', 'mrs', 'ms', 'prof', 'st', 'nr', 'no', 'vs', 'bzw', 'ca', 'hr', 'fr', 'str', 'mt', 'vgl', 'evtl', 'ggf', 'geb', 'abb']);
// Words that begin a sentence far more often than they follow an ordinal: pronouns, articles, conjunctions and adverbs
const OPENERS = new Set(['dann', 'danach', 'darauf', 'da', 'so', 'nun', 'jetzt', 'heute', 'aber', 'und', 'doch', 'es', 'er', 'sie',
  'wir', 'ich', 'du', 'ihr', 'man', 'der', 'die', 'das', 'ein', 'eine', 'wer', 'was', 'wie', 'wo', 'warum',
  'then', 'the', 'a', 'an', 'it', 'he', 'she', 'we', 'i', 'you', 'they', 'there', 'this', 'that', 'but', 'and', 'now', 'so']);
// Where each sentence of `text` ends: [start, end] offsets into `text`, untrimmed, in order (splitSentences trims them)
export function sentenceSpans(text) {
  const out = [];
  for (const line of text.matchAll(/[^\n\r\u2028\u2029]+/g)) {
    const re = /([.!?…]+)["'»«“”’)\]]*\s+(?=[\p{Lu}\p{N}"'„“«‘(¿¡])/gu, at = line.index, body = line[0];
    let start = 0, m;
    while ((m = re.exec(body))) {
      const end = m.index + m[0].length, before = body.slice(start, m.index).split(/\s+/).at(-1) || '';
      const next = (body.slice(end).match(/^[\p{L}]+/u) || [''])[0].toLowerCase();
      const ordinal = /^\p{N}{1,3}$/u.test(before) && !OPENERS.has(next);
      const street = /\p{Ll}str$/u.test(before) && /^\p{N}/u.test(body.slice(end));   // Hauptstr. 5: a street, then its number
      if (m[1] === '.' && (ordinal || street || /^\p{L}$/u.test(before) || /\./.test(before) || ABBREV.has(before.toLowerCase()))) continue;
      out.push([at + start, at + end]); start = end;
    }
    out.push([at + start, at + body.length]);
  }
  return out.filter(([a, b]) => text.slice(a, b).trim());
}
export const splitSentences = text => sentenceSpans(text).map(([a, b]) => text.slice(a, b).trim());

// Which language `text` looks like, by its common words (and German's letters ä ö ü ß): the name of one of WORDS'
// languages, or null. The models read German and English; the others are there to be named when a reader types them
// (a word in two lists, like "des", German and French, counts for neither).
const WORDS = {
  German: 'der die das den dem des ein eine einer einem einen eines und ist sind mit auf im vom zum zur nicht zwei drei vier sich von zu vor bei am beim für über unter neben hinter ihr sein seine ihre es er sie wir ich du auch oder aber als wie was wird werden hat haben mann männer frau frauen menschen kind kinder hund junge mädchen spielt spielen läuft steht sitzt trägt vor einem',
  English: 'the a and is are with on of to at by from two three four his her their its it he she they we i you also or but as what will be has have man men woman women people child children dog boy girl plays playing runs running stands standing sits sitting wearing this that there',
  French: 'un le la les une des du d l qu c n j en et est sont avec dans sur pour par au aux ce cette ces qui que il elle ils elles nous vous je son sa ses leur leurs homme hommes femme femmes enfant enfants chien chiens fille filles garçon garçons fait font rue vélo deux trois quatre pas ne devant joue jouent regarde regardent porte portent assis assise debout marche petit petite grand grande rouge bleu noir noire blanc blanche chemise chapeau plage neige eau voiture ville très mais où',
  Spanish: 'un el la los las una unos unas del y con en por para pero como que está están hay hombre hombres mujer mujeres niño niños niña niñas perro perros chica chicas chico chicos calle bicicleta dos tres cuatro sobre juega juegan mira lleva llevan sentado sentada camisa sombrero playa nieve agua coche ciudad rojo roja azul negro negra blanco blanca muy también su sus',
  Italian: 'un il lo la gli una dei degli delle della del nel nella sul sulla con per che è sono uomo uomini donna donne bambino bambini bambina ragazzo ragazza ragazzi cane cani strada spiaggia acqua macchina città rosso rossa blu nero nera bianco bianca camicia cappello due tre quattro gioca giocano guarda indossa seduto seduta davanti anche molto su',
  Portuguese: 'uma os do dos na nas em com não são estão ele ela eles elas seu sua homem homens mulher mulheres menino meninos menina meninas cachorro cão rua praia neve água carro cidade vermelho vermelha preto preta branco branca chapéu dois duas três brincando usando muito também',
  Dutch: 'een het van op en naar niet ook maar wordt worden heeft hebben zijn vrouw vrouwen kinderen hond honden jongen meisje meisjes straat fiets strand sneeuw twee drie speelt spelen loopt zit zitten draagt rode blauwe zwarte witte bij met aan uit dit deze',
};
const SETS = (() => {
  const lists = Object.entries(WORDS).map(([k, v]) => [k, new Set(v.split(' '))]), times = {};
  for (const [, ws] of lists) for (const w of ws) times[w] = (times[w] || 0) + 1;
  return Object.fromEntries(lists.map(([k, ws]) => [k, new Set([...ws].filter(w => times[w] === 1))]));
})();
export function looksLike(text) {
  const words = text.toLowerCase().match(/\p{L}+/gu) || [], n = {};
  for (const [lang, set] of Object.entries(SETS)) n[lang] = words.filter(w => set.has(w)).length;
  n.German += (text.match(/[äöüß]/gi) || []).length > 0 ? 2 : 0;
  const [a, b] = Object.entries(n).sort((x, y) => y[1] - x[1]);
  return a[1] >= 2 && a[1] > 2 * b[1] ? a[0] : null;
}
// `pieces` (a source's, as the model read them) by word: [{text, pieces}], a word starting at each piece with ▁; the
// special pieces (<s>, </s>, <unk>) left out
function pieceWords(pieces) {
  const out = [];
  for (const p of pieces) {
    if (/^<.*>$/.test(p)) continue;
    if (p.startsWith(SPACE) || !out.length) out.push({ text: '', pieces: [] });
    out.at(-1).pieces.push(p); out.at(-1).text += p.replace(/^\u2581/, '');
  }
  return out;
}
// A word in capitals ("NOTHING"): two letters or more, none of them lower case
const capitals = w => (w.match(/\p{L}/gu) || []).length >= 2 && /^[^\p{Ll}]*$/u.test(w) && /\p{Lu}/u.test(w);
// How many of these pieces (those with a letter) are one letter alone: {single, total}
const singles = ps => { const l = ps.filter(p => /\p{L}/u.test(p)); return { single: l.filter(p => [...p.replace(/^\u2581/, '')].length === 1).length, total: l.length }; };
// How many of a source's pieces the model cannot read: {unknown, total}, an unknown piece or a byte piece (<0xE4>, of a
// tokenizer with byte fallback) each unknown; </s> and a lone word start left out
export function unknownShare(pieces, unk = '<unk>') {
  const real = pieces.filter(p => p !== SPACE && !/^<\/?s>$/.test(p));
  return { unknown: real.filter(p => p === unk || /^<0x[0-9A-Fa-f]{2}>$/.test(p)).length, total: real.length };
}
// "3 of the 4 pieces the model read are", "1 of the 4 pieces ... is", "The one piece the model read is"
const piecesAre = ({ unknown, total }) => total === 1 ? 'The one piece the model read is'
  : `${unknown} of the ${total} pieces the model read ${unknown === 1 ? 'is' : 'are'}`;
// What the page says of a text the model may not read as its language `from` (`other`: the other direction's source
// language, or null): {kind, why, offer} or null. kind 'other': words of another language, German, English, French,
// Spanish, ... (looksLike): the same line for each, and the switch to the other direction offered (offer) only where it
// reads that language; 'script': most letters of another script than the Latin the model reads; 'unknown': most pieces
// unknown (or bytes); 'capitals': most words in capitals, split into single letters (the model's captions are written
// in ordinary case); 'letters': most of the pieces single letters, as the model splits what it never saw (gibberish, or
// another language in Latin letters), words in capitals left out (a sign quoted in an ordinary caption, "NOTHING LEFT",
// is no reason to say the model cannot read the caption). `pieces`: the source pieces the model read.
export function readingNote(text, pieces, from, other = null) {
  const looks = looksLike(text), means = `it reads ${from} (the words of image captions), so the translation means little.`;
  if (looks && looks !== from) return { kind: 'other', offer: looks === other,
    why: `This looks like ${looks}, but this model reads ${from}: it reads your words as ${from} ones, so the translation means little.` };
  const letters = (text.match(/\p{L}/gu) || []).length, latin = (text.match(/\p{Script=Latin}/gu) || []).length;
  if (letters && latin / letters < 0.5)
    return { kind: 'script', offer: false, why: `The model cannot read this: it reads ${from}, in Latin letters, and most of these letters are of another script, unknown to it; the translation means little.` };
  const share = unknownShare(pieces);
  if (share.total && share.unknown / share.total > 0.5) return { kind: 'unknown', offer: false, why: `${piecesAre(share)} unknown to it: ${means}` };
  const words = pieceWords(pieces).filter(w => /\p{L}/u.test(w.text)), caps = words.filter(w => capitals(w.text));
  const inCaps = singles(caps.flatMap(w => w.pieces)), rest = singles(words.filter(w => !capitals(w.text)).flatMap(w => w.pieces));
  if (caps.length >= 2 && caps.length > words.length / 2 && inCaps.single > inCaps.total / 2)
    return { kind: 'capitals', offer: false, why: `Most of these words are in capitals, which the model splits into single letters (${inCaps.single} of ${inCaps.total} pieces), as it splits words it has never seen: it learned ${from} from captions written in ordinary case. Write it so, or the translation means little.` };
  if (rest.total >= 4 && rest.single > rest.total / 2)
    return { kind: 'letters', offer: false, why: `The model cannot read this: it splits it into single letters (${rest.single} of ${rest.total} pieces), as it splits words it has never seen; ${means}` };
  return null;
}
// `text` cut to MAX_CHARS characters (UTF-16 units, as the translator and a textarea count them) where a sentence ends
// (splitSentences), else, in a sentence longer than the limit, at the last space before the limit, or at the limit in a
// word longer than 40 characters, never inside an emoji's surrogate pair
export function cutText(text, max = MAX_CHARS) {
  if (text.length <= max) return { text, cut: false };
  let end = 0;
  for (const [a, b] of sentenceSpans(text)) {
    const e = a + text.slice(a, b).trimEnd().length;
    if (e > max) break;
    end = e;
  }
  if (end) return { text: text.slice(0, end), cut: true };
  let at = max;
  if (/[\udc00-\udfff]/.test(text[at])) at--;
  const space = text.lastIndexOf(' ', max);
  if (space > max - 40) at = space;
  return { text: text.slice(0, at).trimEnd(), cut: true };
}
// What the counter and the warning say of the box's `value`, alike: {n, text, cut}, n the characters of the text the
// page translates (the box's text without the spaces around it, in UTF-16 units, as cutText counts), text what of it is
// translated (cutText), cut whether that is less
export function countChars(value) {
  const all = value.trim(), { text, cut } = cutText(all);
  return { n: all.length, text, cut };
}
// What of `text` the model cannot read as written: [{text, as}], `as` 'unknown' (characters its vocabulary lacks, each
// run one unknown piece), 'dropped' (characters its normalization removes) or 'space' (characters it reads as a space,
// as a zero-width space). From the translator's own report where it gives one (`unknown`), else from its tokenizer;
// characters a reader cannot see are checked against the tokenizer either way.
export function unreadable(translator, text, res) {
  const tok = translator?.tokenizer, out = [], seen = new Set();
  const note = (t, as) => { if (t && !seen.has(t)) { seen.add(t); out.push({ text: t, as }); } };
  if (Array.isArray(res?.unknown)) for (const u of res.unknown) typeof u === 'string' ? note(u, 'unknown') : note(u.text ?? u.piece ?? String(u), u.as || 'unknown');
  else if (tok) {
    const unk = translator.special?.unk ?? 1;
    for (const [p, id] of tok.encodeNormalized(tok.normalize(text))) if (id === unk) note(p.replaceAll(SPACE, ' ').trim(), 'unknown');
    for (const c of new Set(text)) if (!/\s/.test(c) && tok.normalize(c) === '') note(c, 'dropped');
  }
  if (tok) for (const c of new Set(text)) {
    if (seen.has(c) || !ODD.test(c) || PLAIN.test(c)) continue;
    const r = tok.normalize(`a${c}b`);
    if (r === tok.normalize('ab')) note(c, 'dropped'); else if (r === tok.normalize('a b')) note(c, 'space');
  }
  return out;
}

// ---- loading -----------------------------------------------------------------------------------------------------------
// vendor/files.json (vendor.mjs): every file the page downloads, with its bytes on the wire ({bytes: {path: n}, models})
let listing = null;
export function files() {
  listing = listing || fetch(new URL('vendor/files.json', here)).then(r => { if (!r.ok) throw new Error(`vendor/files.json: ${r.status}`); return r.json(); });
  listing.catch(() => { listing = null; });
  return listing;
}
const sum = (bytes, prefix) => Object.entries(bytes).filter(([f]) => f.startsWith(prefix)).reduce((a, [, n]) => a + n, 0);

// Bytes each time a bar moves: ONNX Runtime (once, for both directions) and each direction's model
let ortLoad = null;
const progress = { ort: 0, ortTotal: 0, listeners: new Set() };
function loadOrt(info, fetchBytes, gunzip) {
  if (ortLoad) return ortLoad;
  const b = info.bytes, js = b['vendor/ort.wasm.min.mjs'] + b['vendor/ort-wasm-simd-threaded.mjs'], gz = `vendor/${WASM}.gz` in b;
  progress.ortTotal = sum(b, 'vendor/');
  const tell = () => progress.listeners.forEach(f => f());
  ortLoad = (async () => {
    const ort = await import(new URL('vendor/ort.wasm.min.mjs', here).href);
    progress.ort = b['vendor/ort.wasm.min.mjs']; tell();
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.wasmPaths = new URL('vendor/', here).href;
    const wasm = await fetchBytes(new URL(`vendor/${WASM}${gz ? '.gz' : ''}`, here).href, n => { progress.ort = js + n; tell(); });
    ort.env.wasm.wasmBinary = gz ? await gunzip(wasm) : wasm;
    ort.env.logLevel = 'error';
    progress.ort = progress.ortTotal; tell();
    return ort;
  })();
  ortLoad.catch(() => { ortLoad = null; });
  return ortLoad;
}

const models = {};
// The Translator of direction `name` (loaded once); onProgress(bytes, total) counts what this load still downloads
export function loadTranslator(name, onProgress = () => {}) {
  if (models[name]) return models[name];
  models[name] = (async () => {
    const info = await files(), { Translator, fetchBytes, gunzip } = await import('./translator.mjs');
    const base = `models/${name}/`, b = info.bytes;
    if (!(`${base}config.json` in b)) throw new Error(`this site has no ${name} model`);
    const gz = Object.fromEntries(Object.entries(b).filter(([f]) => f.startsWith(base) && f.endsWith('.gz')).map(([f, n]) => [f.slice(base.length, -3), n]));
    const ortDone = ortLoad && progress.ort === progress.ortTotal, modelTotal = sum(b, base);
    let got = 0;
    const tell = () => onProgress((ortDone ? 0 : progress.ort) + got, (ortDone ? 0 : progress.ortTotal || sum(b, 'vendor/')) + modelTotal);
    progress.listeners.add(tell);
    try {
      const ort = loadOrt(info, fetchBytes, gunzip);
      return await Translator.load(ort, new URL(base, here).href, { gz, onProgress: n => { got = n; tell(); } });
    } finally { progress.listeners.delete(tell); }
  })();
  models[name].catch(() => { delete models[name]; });
  return models[name];
}
// Bytes the first translation in direction `name` downloads (ONNX Runtime too, unless it is loaded)
async function downloadSize(name) {
  const b = (await files()).bytes;
  return (ortLoad ? 0 : sum(b, 'vendor/')) + sum(b, `models/${name}/`);
}

// Let the page handle input and paint between two decoder steps (ONNX Runtime's wasm runs on this thread)
const channel = new MessageChannel(), waiting = [];
channel.port1.onmessage = () => waiting.shift()();
channel.port1.unref?.(); channel.port2.unref?.();   // under Node (the tests), the channel keeps no process alive
const yieldToPage = () => new Promise(r => { waiting.push(r); channel.port2.postMessage(0); });   // a task, not a microtask

// ---- a little DOM ------------------------------------------------------------------------------------------------------
function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v === true ? '' : v);
  }
  for (const k of kids.flat()) if (k != null && k !== false) e.append(k);
  return e;
}
// Chips of pieces: one per piece, a piece that continues a word against the one before; unknown pieces marked
// (`unknown`: the indices of unknown pieces, whose text is what the reader typed; default: the pieces '<unk>')
function chips(pieces, weights = null, unknown = null) {
  const unk = unknown || new Set(pieces.flatMap((p, i) => p === '<unk>' ? [i] : []));
  return h('span', { class: 'tnb-chips' }, pieces.map((p, i) => {
    const shown = visible(shownPiece(p)), e = h('span', { class: [continues(p) && i ? 'cont' : '', unk.has(i) ? 'unk' : ''].join(' ').trim() || null }, shown);
    if (p === SPACE) e.title = 'a word start alone (see below)';
    if (weights) {
      const w = weights[i] / 100;
      e.style.background = `rgba(31, 90, 220, ${(0.85 * w).toFixed(3)})`;
      if (w > 0.45) e.style.color = '#fff';
      e.title = `${shownPiece(p)}: ${w.toFixed(2)}`;
    }
    return e;
  }));
}
// The pieces the model read of `sentence` as the page shows them: {pieces, unknown}, an unknown piece as the text it
// stands for (the record's pieces name it <unk>), `unknown` the indices of those
function readPieces(tr, sentence, res) {
  const src = res.record?.src_pieces || res.trace?.[0]?.source || [], unk = tr.special?.unk ?? 1;
  const info = tr.tokenizer?.encodeInfo?.(sentence.trim());
  const unknown = new Set((res.src || []).flatMap((id, i) => id === unk ? [i] : []));
  if (info && info.pieces.length + 1 === src.length) return { pieces: [...info.pieces, src.at(-1)], unknown };
  return { pieces: src, unknown: null };
}
// The line that explains the chip ␣, where `pieces` hold one: a word's start read as a piece of its own
function spaceNote(pieces) {
  if (!pieces.includes(SPACE)) return [];
  return [h('p', { class: 'tnb-what tnb-space-note' }, '␣ is the start of a word read as a piece of its own: the vocabulary has no piece that begins a word with what follows it (often an unknown character), so the model reads the word start alone, then the rest.')];
}
const fmt = x => Number.isFinite(x) ? x.toFixed(2) : '−∞';

// ---- the beam, step by step --------------------------------------------------------------------------------------------
const isEnd = p => p === '</s>';
// The first step's rule (translator.mjs's firstStep), said under every step's table
export const FIRST_STEP = "At step 1 ⟨end⟩ is never a row: it is forbidden there, so a translation holds at least one piece (fairseq's min_len = 1).";
// The most pieces a translation of a source of `srcLen` tokens (EOS included) may have, EOS included, as the translator
// caps it (`max_output_lengths`, 10_decoding): srcLen + max_extra, within learned positions
export function outputCap(tr, srcLen) {
  return cap(tr, srcLen);
}

// What the beam view says of step t of `res.trace` (translator.mjs), decoded with `beam` and `alpha` and the length cap
// `limit` (outputCap); exported for the tests, which hold it against a search traced in Python. By 10_decoding's rule,
// as tnb-translate runs it (one translation wanted): the step lists the 2k best one-piece extensions by log p; an
// ⟨end⟩ among the k best finishes its hypothesis, scored log p / lp(|Y|); an ⟨end⟩ below them is dropped; the k best
// rows without ⟨end⟩ go on (at the cap, they finish too). The search stops when the best finished score is at least the
// best open log p / lp(L), the most an open hypothesis could still score, or at the cap. With beam 1 (greedy), the
// step's two rows are the piece taken and the runner-up. Returns {t, greedy, rows: [{tokens, prefix, piece, logp, score
// (null unless it finishes), fate ('goes on' | 'finishes' | 'dropped' | 'left open' | 'taken' | 'not taken'), why,
// bestOpen, path}], open (the best open {text, logp, reach} or null), finished (every finished {text, score, tokens} so
// far, best first), chosen ({text, score, tokens, step}: the translation, the best finished at the end), done, stop
// ('bound' | 'cap' | 'end' | null)}.
export function beamStep(res, t, { beam, alpha, limit }) {
  const tr = res.trace, s = tr[t], K = beam, greedy = K === 1;
  const prev = t ? tr[t - 1].beams : [{ tokens: [], pieces: [] }], lp = lengthPenalty(t + 1, alpha), atCap = t + 1 >= limit;
  const last = tr.at(-1).finished[0], same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const chosen = { text: piecesText(last.pieces), score: last.score, tokens: last.tokens,
                   step: tr.findIndex(e => e.finished.some(f => same(f.tokens, last.tokens))) };
  const byEos = chosen.tokens.length < limit;                   // it ended with ⟨end⟩ (else at the cap)
  let open = 0;
  const rows = s.candidates.map((c, i) => {
    const parent = prev[c.from] || { tokens: [], pieces: [] }, end = isEnd(c.piece), tokens = end ? parent.tokens : [...parent.tokens, c.token];
    let fate, why = '';
    if (greedy) fate = i === 0 ? 'taken' : 'not taken';
    else if (end) {
      fate = i < K && Number.isFinite(c.logp) ? 'finishes' : 'dropped';
      if (fate === 'dropped') why = `⟨end⟩ below the ${K} best rows`;
    } else if (open < K && Number.isFinite(c.logp)) { open++; fate = atCap ? 'finishes' : 'goes on'; if (atCap) why = 'the length cap'; }
    else { fate = 'dropped'; why = `not among the ${K} best rows without ⟨end⟩`; }
    const onPath = same(parent.tokens, chosen.tokens.slice(0, t)) &&
      (t < chosen.tokens.length ? !end && c.token === chosen.tokens[t] : t === chosen.tokens.length && byEos && end);
    const finishes = fate === 'finishes' || (greedy && i === 0 && (end || atCap));
    return { tokens, text: piecesText([...parent.pieces, c.piece]), prefix: piecesText(parent.pieces), piece: c.piece, logp: c.logp, score: finishes ? c.logp / lp : null,
             fate, why, bestOpen: false, path: onPath };
  });
  const openRows = rows.filter(r => greedy ? r.fate === 'taken' && r.score === null : r.fate === 'goes on');
  const first = openRows[0] || null;
  if (first) first.bestOpen = true;
  const finished = (s.finished || []).map(f => ({ text: piecesText(f.pieces || []), score: f.score, tokens: f.tokens }));
  const best = finished[0] || null, reach = first ? first.logp / lengthPenalty(limit, alpha) : null;
  const stop = greedy ? (rows[0] && isEnd(rows[0].piece) ? 'end' : atCap ? 'cap' : null)
             : atCap ? 'cap' : !first ? 'bound' : best && best.score >= reach ? 'bound' : null;
  for (const r of rows) if (stop && r.fate === 'goes on') r.fate = 'left open';
  return { t, greedy, rows, open: first && { text: first.text, logp: first.logp, reach }, finished, best, chosen, done: !!stop, stop };
}

// One step t of `trace` (translator.mjs: {t, candidates: [{from, token, piece, logp, score, kept, ended}], beams,
// finished, chosen, cross}) as beamStep reads it; `compact` for the front page. Back/Next buttons and the arrow keys
// move through the steps. show(res, {source, beam, alpha, limit}).
export class BeamView {
  constructor(box, { compact = false } = {}) {
    this.box = box; this.compact = compact; this.t = 0; this.res = null;
    this.layer = null; this.head = 'mean';
    box.classList.add('tnb-beam');
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', 'Beam search, step by step');
    box.tabIndex = 0;
    box.addEventListener('keydown', e => {
      const go = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (e.target.tagName === 'SELECT') return;
      if (go) { e.preventDefault(); this.go(this.t + go); }
      else if (e.key === 'Home') { e.preventDefault(); this.go(0); }
      else if (e.key === 'End') { e.preventDefault(); this.go(Infinity); }
    });
  }
  show(res, { source, unknown = null, beam, alpha, limit }) {
    Object.assign(this, { res, source, unknown, beam, alpha, limit });
    this.box.setAttribute('aria-label', beam > 1 ? 'Beam search, step by step' : 'Greedy decoding, step by step');
    this.layer = res.trace?.[0]?.cross ? res.trace[0].cross.length - 1 : 0;
    this.go(0);
  }
  get steps() { return this.res?.trace?.length || 0; }
  go(t) {
    if (!this.steps) return;
    this.t = Math.max(0, Math.min(this.steps - 1, t));
    this.draw();
  }
  draw() {
    const { res, t, compact, beam: K, alpha, limit } = this, tr = res.trace, last = t === tr.length - 1;
    const v = beamStep(res, t, { beam: K, alpha, limit }), greedy = v.greedy, q = x => `“${x}”`;
    const nav = h('div', { class: 'tnb-bv-nav' },
      h('button', { type: 'button', 'aria-label': 'First step', disabled: t === 0, onclick: () => this.go(0) }, '« First'),
      h('button', { type: 'button', 'aria-label': 'Previous step', disabled: t === 0, onclick: () => this.go(t - 1) }, '◀ Back'),
      h('span', { class: 'tnb-bv-pos', 'aria-live': 'polite' }, `Step ${t + 1} of ${tr.length}`),
      h('button', { type: 'button', 'aria-label': 'Next step', disabled: last, onclick: () => this.go(t + 1) }, 'Next ▶'),
      h('button', { type: 'button', 'aria-label': 'Last step', disabled: last, onclick: () => this.go(Infinity) }, 'Last »'));
    // the rule, at every step
    const rule = h('p', { class: 'tnb-bv-rule' }, greedy
      ? `Greedy decoding keeps one hypothesis: each step it takes the most probable next piece (row 1; row 2 is the runner-up, never taken). It stops when the piece taken is ⟨end⟩, or at ${limit} pieces, the length cap. ${FIRST_STEP}`
      : `The rows: the ${2 * K} best one-piece extensions of the ${t ? `${K} open hypotheses` : 'start, <s> alone'}, by log p (the sum of their pieces' log-probabilities). ` +
        `An ⟨end⟩ among the ${K} best rows finishes its hypothesis, ranked by score = log p / ((5 + |Y|)/6)^${alpha}; an ⟨end⟩ below them is dropped, whatever its log p. ` +
        `The ${K} best rows without ⟨end⟩ go on. The search stops once the best finished score is at least the most an open hypothesis could still score (its log p / lp(${limit}), ${limit} pieces being the length cap), or at the cap: one translation is wanted, as tnb-translate wants one (10_decoding's beam_search, which returns the ${K} best, waits for the ${K}th). ${FIRST_STEP}`);
    const badge = (cls, text) => h('span', { class: `tnb-bv-badge ${cls}` }, text);
    const rows = v.rows.map((r, i) => {
      const end = isEnd(r.piece), added = end ? h('span', { class: 'tnb-eos' }, '⟨end⟩') : h('b', {}, (r.piece.startsWith(SPACE) && r.prefix ? ' ' : '') + shownPiece(r.piece));
      const cls = { 'goes on': 'kept', 'left open': 'kept', finishes: 'ended', dropped: 'dropped', taken: end || (last && v.stop === 'cap') ? 'ended' : 'kept', 'not taken': 'dropped' }[r.fate];
      return h('tr', { class: [cls, r.bestOpen ? 'best-open' : '', r.path ? 'path' : ''].filter(Boolean).join(' ') },
        h('td', { class: 'n' }, String(i + 1)),
        h('td', { class: 'hyp' }, h('span', { class: 'prefix' }, r.prefix), added),
        h('td', { class: 'num lp', 'data-label': 'log p' }, fmt(r.logp)),
        greedy ? null : h('td', { class: 'num sc', 'data-label': r.score === null ? null : 'score' }, r.score === null ? '' : fmt(r.score)),
        h('td', { class: 'fate' }, h('span', {}, r.fate + (r.why ? `: ${r.why}` : '')),
          r.bestOpen && !greedy ? badge('open', 'best open') : null,
          r.path && !greedy ? badge('path', (end && r.fate === 'finishes') || (r.fate === 'finishes' && v.stop === 'cap') ? 'the translation' : 'leads to the translation') : null));
    });
    const table = h('table', { class: 'tnb-bv-table' },
      h('caption', {}, greedy ? `Step ${t + 1}: the two most probable next pieces` : `Step ${t + 1}: the ${v.rows.length} best one-piece extensions, by log p`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'hypothesis + piece'),
        h('th', { scope: 'col', class: 'num' }, 'log p'), greedy ? null : h('th', { scope: 'col', class: 'num' }, 'score'), h('th', { scope: 'col' }, ''))),
      h('tbody', {}, rows));
    // the three hypotheses that matter at this step, each with the number that decides, and whether the search stops
    const facts = [];
    if (!greedy) {
      facts.push(h('li', { class: 'open' }, badge('open', 'best open'), ' ', v.open
        ? `${q(v.open.text)}, log p ${fmt(v.open.logp)}: the most it could still score is ${fmt(v.open.logp)} / lp(${limit}) = ${fmt(v.open.reach)}`
        : 'none'));
      facts.push(h('li', { class: 'fin' }, badge('fin', 'best finished'), ' ', v.best ? `${q(v.best.text)}, score ${fmt(v.best.score)}` : 'none yet'));
      facts.push(h('li', { class: 'path' }, badge('path', 'the translation'), ' ', `${q(v.chosen.text)}, score ${fmt(v.chosen.score)}: `,
        v.chosen.step < t ? `finished at step ${v.chosen.step + 1}` : v.chosen.step === t ? 'it finishes at this step' : 'it is still open; its row is marked'));
      facts.push(h('li', { class: 'stop' }, v.stop === 'cap' ? `Step ${t + 1} reaches the length cap, ${limit} pieces: the search stops.`
        : !v.open ? 'No hypothesis is open: the search stops.'
        : !v.best ? 'Nothing has finished yet: the search goes on.'
        : `Best finished ${fmt(v.best.score)} ${v.done ? '≥' : '<'} ${fmt(v.open.reach)}, the most an open one could score: ` +
          (v.done ? 'none can beat it, so the search stops.' : 'one still could, so the search goes on.')));
    }
    const out = [nav, rule, h('div', { class: 'tnb-bv-scroll' }, table)];
    if (facts.length) out.push(h('ul', { class: 'tnb-bv-facts' }, facts));
    if (!greedy) {
      const shown = compact ? 3 : 8, fin = v.finished;
      out.push(h('div', { class: 'tnb-bv-fin' },
        h('b', {}, fin.length > shown ? `Finished (${fin.length}, the ${shown} best shown):` : `Finished (${fin.length}):`), ' ',
        fin.length ? fin.slice(0, shown).map((f, i) => h('span', { class: i === 0 ? 'best' : null }, `${q(f.text)} ${fmt(f.score)}`)) : 'none yet'));
    }
    // the attention of the query that scored row 1
    const top = v.rows[0]?.piece, s = tr[t];
    if (s.cross && top != null) {
      const L = s.cross.length, H = s.cross[0].length;
      const pick = this.head === 'mean'
        ? s.cross[this.layer][0].map((_, j) => s.cross[this.layer].reduce((a, hd) => a + hd[j], 0) / H)
        : s.cross[this.layer][this.head];
      const sel = (name, items, value, set) => h('label', {}, name, ' ', h('select', { onchange: e => { set(e.target.value); this.draw(); this.box.focus(); } },
        items.map(([v, t]) => h('option', { value: v, selected: String(v) === String(value) }, t))));
      const att = h('div', { class: 'tnb-bv-att' },
        h('p', {}, `Where the decoder looked in the source as it scored row 1's “${isEnd(top) ? '⟨end⟩' : shownPiece(top)}”: `,
          `its encoder–decoder attention, ${compact ? `layer ${this.layer + 1}, mean of the heads.` : 'in the layer and head chosen here.'}`),
        compact ? null : h('span', { class: 'tnb-bv-sel' },
          sel('layer', [...Array(L).keys()].map(i => [i, i + 1]), this.layer, v => { this.layer = +v; }),
          sel('head', [['mean', 'mean'], ...[...Array(H).keys()].map(i => [i, i + 1])], this.head, v => { this.head = v === 'mean' ? 'mean' : +v; })),
        chips(this.source, pick, this.unknown), ...spaceNote(this.source));
      out.push(att);
    }
    if (last) out.push(h('p', { class: 'tnb-bv-end' }, greedy
      ? (v.stop === 'cap' ? `Greedy decoding stops here, at the length cap of ${limit} pieces. ` : 'Greedy decoding stops here: the piece taken is ⟨end⟩. ')
      : (v.stop === 'cap' ? `The search stops here, at the length cap of ${limit} pieces. ` : 'The search stops here. '),
      greedy ? 'The translation is its one hypothesis: ' : 'The translation is the finished hypothesis with the best score: ',
      h('b', {}, q(res.text)), greedy ? '.' : `, ${fmt(v.chosen.score)}.`));
    this.box.replaceChildren(...out);
  }
}

// ---- the translator box ------------------------------------------------------------------------------------------------
class Live {
  // host: where the box goes; explorer: the apps_attention_explorer explorer whose grid shows each translation (full mode), else null
  constructor(host, { explorer = null, compact = false, names }) {
    Object.assign(this, { host, explorer, compact, names });
    this.dir = names[0]; this.latest = 0; this.busy = Promise.resolve(); this.said = new Set();
    const id = `tnb-${Math.random().toString(36).slice(2, 8)}`;
    this.text = h('textarea', { rows: 2, id: `${id}-text`, 'aria-describedby': `${id}-count`, spellcheck: 'false' });
    this.count = h('span', { class: 'tnb-count', id: `${id}-count`, 'aria-live': 'polite' });
    this.go = h('button', { type: 'button', class: 'tnb-go', onclick: () => this.run() }, 'Translate');
    this.dirs = h('div', { class: 'tnb-dir', role: 'group', 'aria-label': 'Direction' }, names.map(n =>
      h('button', { type: 'button', 'data-dir': n, 'aria-pressed': String(n === this.dir), onclick: () => this.switchTo(n) },
        `${DIRECTIONS[n].from} → ${DIRECTIONS[n].to}`)));
    // the export's decoding (its beam, from config.json once the model is loaded, from vendor/files.json before), or greedy
    this.decoding = h('select', { 'aria-label': 'Decoding', onchange: () => { if (this.text.value.trim()) this.run(); } },
      h('option', { value: 'export', selected: true }, 'beam search'), h('option', { value: 'greedy' }, 'greedy'));
    this.examples = h('div', { class: 'tnb-examples' });
    this.note = h('p', { class: 'tnb-note' });
    this.status = h('div', { class: 'tnb-status', 'aria-live': 'polite' });
    this.result = h('div', { class: 'tnb-result', 'aria-live': 'polite' });
    this.beamBox = h('div', { class: 'tnb-beams' });
    this.beamHead = compact ? h('summary', {}, 'Watch the beam search, step by step') : h('h4', {}, 'The beam search, step by step');
    this.beamWrap = h(compact ? 'details' : 'div', { class: 'tnb-beam-wrap', hidden: true }, this.beamHead, this.beamBox);
    this.box = h('div', { class: `tnb-live${compact ? ' tnb-compact' : ''}` },
      h('div', { class: 'tnb-bar' }, this.dirs, h('label', { class: 'tnb-dec' }, 'Decoding ', this.decoding)),
      this.examples,
      h('label', { class: 'tnb-label', for: `${id}-text` }),
      this.text,
      h('div', { class: 'tnb-bar' }, this.go, this.count),
      this.note, this.status, this.result, this.beamWrap);
    this.text.addEventListener('input', () => this.counted());
    this.text.addEventListener('keydown', e => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.run(); } });
    host.replaceChildren(this.box);
    this.switchTo(this.dir, true);
  }
  // For the tests and the benchmark (bench/live_bench.mjs): the current direction's Translator once loaded, and its load
  get translator() { return this.ready?.[this.dir] || null; }
  loadModel() { return this.load(this.dir, this.latest); }
  // The counter: the characters the page translates (countChars, as the warning under a cut translation counts them)
  counted() {
    const { n, text, cut } = countChars(this.text.value), tail = text.split(' ').slice(-3).join(' ');
    this.count.classList.toggle('over', cut);
    this.count.textContent = cut ? `${n} / ${MAX_CHARS} characters: only the first ${text.length} will be translated, up to “…${tail}”`
      : `${n} / ${MAX_CHARS} characters`;
  }
  // Nothing of an earlier translation left on screen: its result, its beam view, the status line
  clear() {
    this.result.replaceChildren(); this.beamBox.replaceChildren(); this.views = []; this.beamWrap.hidden = true; this.status.textContent = '';
  }
  async switchTo(name, first = false) {
    const d = DIRECTIONS[name];
    if (!first && name === this.dir) return;
    this.dir = name; this.latest++;
    for (const b of this.dirs.children) b.setAttribute('aria-pressed', String(b.dataset.dir === name));
    this.box.querySelector('.tnb-label').textContent = `${d.from} sentence`;
    this.text.placeholder = `Type ${a(d.from)} sentence here, or pick an example`;
    this.examples.replaceChildren(h('span', {}, 'Examples:'), ...d.examples.map(s =>
      h('button', { type: 'button', class: 'tnb-ex', onclick: () => { this.text.value = s; this.counted(); this.run(); } }, s)));
    if (!first) this.clear();
    this.counted();
    this.describe();
  }
  async describe() {
    const name = this.dir, d = DIRECTIONS[name], loaded = models[name] && this.ready?.[name];
    const note = ['The model runs in your browser. '];
    if (!loaded) { try { note.push(`The first ${d.from} → ${d.to} translation downloads it (${mb(await downloadSize(name))} MB). `); } catch {} }
    let weights = 'int8';
    try { weights = (await files()).weights?.[name] || weights; } catch {}
    if (weights === 'int8') note.push(`${INT8_NOTES[name]} `);
    note.push('Ctrl-Enter translates.');
    let beam = this.ready?.[name]?.beam;
    if (beam === undefined) { try { beam = (await files()).decoding?.[name]?.beam; } catch {} }
    if (name !== this.dir) return;
    this.note.textContent = note.join('');
    if (beam) this.decoding.options[0].textContent = beam > 1 ? `beam search, ${beam} hypotheses` : 'greedy (the export\'s decoding)';
  }
  // Translate the box's text. Whatever an earlier translation left (its result, its beam view, "Model loaded in ...")
  // goes first: an empty box leaves only the line that asks for a sentence.
  async run() {
    const mine = ++this.latest, name = this.dir, raw = this.text.value.trim();
    this.clear();
    if (!raw) { this.status.textContent = `Type ${a(DIRECTIONS[name].from)} sentence in the box, or click an example.`; this.text.focus(); return; }
    let tr;
    try { tr = await this.load(name, mine); } catch { return; }
    const before = this.busy; let done;
    this.busy = new Promise(r => { done = r; });
    try { await before; await this.decode(mine, tr, raw); } finally { done(); }
  }
  async load(name, mine) {
    if (this.ready?.[name]) return this.ready[name];
    const t0 = performance.now();
    this.go.disabled = true;
    try {
      const tr = await loadTranslator(name, (b, total) => {
        if (mine === this.latest || this.dir === name) this.status.textContent = `Downloading the ${DIRECTIONS[name].from} → ${DIRECTIONS[name].to} model: ${mb(b)} of ${mb(total)} MB`;
      });
      (this.ready ||= {})[name] = tr;
      this.status.textContent = `Model loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s.`;
      this.describe();
      return tr;
    } catch (e) {
      this.status.textContent = `The model did not load: ${e.message}`;
      throw e;
    } finally { this.go.disabled = false; }
  }
  async decode(mine, tr, raw) {
    if (mine !== this.latest) return;                       // a newer request came while this one waited
    const { n: chars, text, cut } = countChars(raw), beam = this.decoding.value === 'greedy' ? 1 : tr.beam, sentences = splitSentences(text);
    this.result.replaceChildren(h('span', { class: 'tnb-wait' }, 'Translating…'));
    const t0 = performance.now(), results = [];
    try {
      for (const [i, s] of sentences.entries()) {
        if (sentences.length > 1) this.result.replaceChildren(h('span', { class: 'tnb-wait' }, `Translating sentence ${i + 1} of ${sentences.length}…`));
        results.push(await tr.translate(s, { beam, alpha: tr.alpha, trace: true,
          onStep: async () => { await yieldToPage(); if (mine !== this.latest) throw new Error('superseded'); } }));
      }
    } catch (e) {
      if (e.message !== 'superseded' && mine === this.latest) this.result.textContent = `Translation failed: ${e.message}`;
      return;
    }
    if (mine !== this.latest) return;
    const ms = performance.now() - t0, n = sentences.length, d = DIRECTIONS[this.dir];
    const traced = results.every(r => Array.isArray(r.trace) && r.trace.length > 0);
    const how = traced && beam > 1 ? `beam search, ${beam} hypotheses, α = ${tr.alpha}` : 'greedy';
    const joined = results.map(r => r.text).filter(Boolean).join(' ');
    const lost = [], srcs = results.map(r => r.record?.src_pieces || []), read = results.map((r, i) => readPieces(tr, sentences[i], r));
    for (const [i, r] of results.entries()) for (const u of unreadable(tr, sentences[i], r)) if (!lost.some(x => x.text === u.text)) lost.push(u);
    const hyp = h('b', { class: 'tnb-hyp', lang: d.to === 'German' ? 'de' : 'en' }, joined || '(nothing)');
    const pieces = results.reduce((a, r) => a + r.out.length, 0);
    const parts = [h('p', { class: 'tnb-line' }, '→ ', hyp),
      h('p', { class: 'tnb-meta' }, `${n > 1 ? `${n} sentences, each translated alone · ` : ''}${how} · ${pieces} pieces in ${ms.toFixed(0)} ms`)];
    if (cut || results.some(r => r.cut)) parts.push(h('p', { class: 'tnb-warn' }, `Only the first ${text.length} of ${chars} characters were translated.`));
    // the reader's language: words of the other direction's (the switch offered), or a text the model cannot read
    const other = this.names.find(m => m !== this.dir), said = readingNote(text, srcs.flat(), d.from, other ? DIRECTIONS[other].from : null);
    if (said) {
      const offer = said.offer ? h('button', { type: 'button', class: 'tnb-switch', onclick: async () => { await this.switchTo(other); this.text.value = raw; this.counted(); this.run(); } },
        `Translate it ${DIRECTIONS[other].from} → ${DIRECTIONS[other].to}`) : null;
      parts.push(h('p', { class: `tnb-lang tnb-lang-${said.kind}` }, said.why, offer ? ' ' : '', offer));
    }
    const unknown = lost.filter(u => u.as === 'unknown' || u.as === 'bytes'), dropped = lost.filter(u => u.as === 'dropped'), spaces = lost.filter(u => u.as === 'space');
    const code = u => h('code', {}, visible(u.text));
    if (unknown.length) parts.push(h('p', { class: 'tnb-warn' }, 'Not in the model\'s vocabulary, so read as the unknown piece (marked red below): ', ...unknown.map(code), '.'));
    if (dropped.length) parts.push(h('p', { class: 'tnb-warn' }, 'Left out by the model\'s normalization: ', ...dropped.map(code), '.'));
    if (spaces.length) parts.push(h('p', { class: 'tnb-warn' }, 'Read as a space by the model\'s normalization, so a word is split there: ', ...spaces.map(code), '.'));
    if (this.compact && srcs.some(p => p.length)) {
      parts.push(h('p', { class: 'tnb-src-pieces' }, h('span', { class: 'tnb-what' }, 'What the model read: '),
                   ...read.flatMap((r, i) => [i ? h('span', { class: 'tnb-what' }, ' | ') : null, chips(r.pieces, null, r.unknown)])), ...spaceNote(srcs.flat()));
    }
    if (this.compact && results.some(r => r.record)) {
      const to = new URL(`${document.querySelector('meta[name="quarto:offset"]')?.content || './'}${EXPLORER}`, location.href);
      to.search = new URLSearchParams({ dir: this.dir, text }).toString();
      parts.push(h('p', { class: 'tnb-more' }, h('a', { href: to.href }, `Every attention weight of ${n > 1 ? 'these sentences' : 'this sentence'}, layer by layer and head by head: the attention explorer`)));
    }
    this.result.replaceChildren(...parts);
    // one view of the search per sentence
    this.beamWrap.hidden = !traced;
    const what = beam > 1 ? 'the beam search' : 'greedy decoding';
    this.beamHead.textContent = n > 1 ? `${this.compact ? 'Watch ' : ''}${what} of each sentence, step by step` : `${this.compact ? 'Watch ' : ''}${what}, step by step`;
    if (!this.compact) this.beamHead.textContent = this.beamHead.textContent[0].toUpperCase() + this.beamHead.textContent.slice(1);
    if (traced) {
      this.views = results.map((r, i) => {
        const box = h('div'), view = new BeamView(box, { compact: this.compact });
        view.show(r, { source: read[i].pieces, unknown: read[i].unknown, beam, alpha: tr.alpha, limit: outputCap(tr, r.src.length) });
        return n > 1 ? h('div', { class: 'tnb-bv-sentence' }, h('p', { class: 'tnb-bv-which' }, `Sentence ${i + 1} of ${n}: `, h('q', {}, sentences[i]), ' → ', h('q', {}, r.text)), box) : box;
      });
      this.beamBox.replaceChildren(...this.views);
    }
    if (this.explorer?.tnbAdd) for (const r of results) if (r.record) this.explorer.tnbAdd(r.record);
    this.host.dispatchEvent(new CustomEvent('tnb-translated', { detail: { ms, text: joined, beam: traced ? beam : 1, sentences: n } }));
  }
}

// The models this site serves, in DIRECTIONS' order, or [] (then no translator: the stored explorer only)
async function served() {
  try { const m = (await files()).models || []; return Object.keys(DIRECTIONS).filter(n => m.includes(n)); } catch { return []; }
}

// The front page's compact translator, in `box`
export async function front(box) {
  if (!box || box.dataset.ready) return;
  const names = await served();
  if (!names.length) { box.querySelector('.tnb-wait')?.replaceChildren('This build of the site has no live translator.'); return; }
  box.dataset.ready = '1';
  box.tnbLive = new Live(box, { compact: true, names });
}

// The full translator on the attention explorer `root` (explorer.py's HTML): its translations join the explorer's grid.
// The first one on a page is #translator. A link to it (#translator: 10_decoding's, the front page's with ?dir=…&text=…)
// lands on it: the page scrolls to it and translates the text given, else the first example, so that the reader finds
// a sentence decoded and its search ready to step through; once translated, if the reader has not scrolled meanwhile,
// the page scrolls again, so that the input and the result are in view whatever moved above them.
export async function attach(root) {
  if (!root || root.dataset.live) return;
  const names = await served();
  if (!names.length) return;
  root.dataset.live = '1';
  const host = h('div', { class: 'tnb-live-host' });
  if (!document.getElementById('translator')) host.id = 'translator';
  root.insertBefore(host, root.querySelector('.tnb-ctl'));
  const live = root.tnbLive = new Live(host, { explorer: root, names });
  const q = new URLSearchParams(location.search), dir = q.get('dir'), text = q.get('text');
  const landed = host.id === 'translator' && location.hash === '#translator';
  if (dir && names.includes(dir)) await live.switchTo(dir);
  if (!text && !landed) return;
  live.text.value = (text || DIRECTIONS[live.dir].examples[0]).slice(0, 2000); live.counted();
  if (landed) {
    host.scrollIntoView({ block: 'start' });
    const at = window.scrollY;
    host.addEventListener('tnb-translated', () => { if (Math.abs(window.scrollY - at) < 4) live.text.scrollIntoView({ block: 'start' }); }, { once: true });
  }
  live.run();
}
