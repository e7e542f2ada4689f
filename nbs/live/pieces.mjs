// node nbs/live/pieces.mjs TOKENIZER_JSON < sentences: per line, its pieces (space-separated), a tab, its ids
// node nbs/live/pieces.mjs TOKENIZER_JSON --decode < ids: per line of space-separated ids, the text they decode to
// (the JavaScript side of the tokenizer's parity test with Python's sentencepiece).
import { readFileSync } from 'node:fs';
import { Tokenizer } from './tokenizer.mjs';

const [path, mode] = process.argv.slice(2);
if (!path) { console.error('usage: node nbs/live/pieces.mjs TOKENIZER_JSON [--decode] < lines'); process.exit(2); }
const tok = new Tokenizer(JSON.parse(readFileSync(path, 'utf8')));
const lines = readFileSync(0, 'utf8').split('\n');
if (lines.at(-1) === '') lines.pop();
const one = mode === '--decode'
  ? l => tok.decode(l.trim() ? l.trim().split(' ').map(Number) : [])
  : l => { const p = tok.encodeNormalized(tok.normalize(l)); return p.map(x => x[0]).join(' ') + '\t' + p.map(x => x[1]).join(' '); };
process.stdout.write(lines.map(one).join('\n') + '\n');
