// node nbs/live/pieces.mjs TOKENIZER_JSON < lines: the pieces of each input line, space-separated, one line each
// (the JavaScript side of the tokenizer's parity test with Python's sentencepiece).
import { readFileSync } from 'node:fs';
import { Tokenizer } from './tokenizer.mjs';

const [path] = process.argv.slice(2);
if (!path) { console.error('usage: node nbs/live/pieces.mjs TOKENIZER_JSON < sentences'); process.exit(2); }
const tok = new Tokenizer(JSON.parse(readFileSync(path, 'utf8')));
const lines = readFileSync(0, 'utf8').split('\n');
if (lines.at(-1) === '') lines.pop();
process.stdout.write(lines.map(l => tok.encodePieces(l).join(' ')).join('\n') + '\n');
