// What an export's config.json says about decoding, checked once, and the two rules of length that the search
// (translator.mjs) and the page's beam view (app.mjs) share: one module, so that each is written once.
// config.json is read only once its bytes are the ones config.sha256 (written beside it by the export) records, and
// each id and setting is checked against the tokenizer, in the words of the package's own check
// (transformer_nb.apps.export.check_onnx_config and read_onnx_config).

// GNMT's length penalty lp(|Y|) = ((5 + |Y|) / 6)^alpha (`length_penalty`, 10_decoding), |Y| counting EOS
export const lengthPenalty = (n, alpha) => ((5 + n) / 6) ** alpha;

// The most tokens (EOS included) the output of a source of `srcLen` tokens (EOS included) may have: srcLen + the
// export's max_extra (4,096 at most: `extra_tokens`), within learned positions (`max_output_lengths`, lib_fast_decoding)
export function outputCap({ maxExtra, maxPositions }, srcLen) {
  const L = srcLen + Math.min(maxExtra, 4096);
  return maxPositions ? Math.min(L, maxPositions) : L;
}

// A JSON value's type as Python names it (the package's message says `holds a JSON list`)
const pyType = x => x === null ? 'NoneType' : Array.isArray(x) ? 'list' : typeof x === 'string' ? 'str' : typeof x === 'boolean' ? 'bool' : Number.isInteger(x) ? 'int' : 'float';
const show = v => JSON.stringify(v === undefined ? null : v);
const whole = (v, low) => typeof v === 'number' && Number.isInteger(v) && v >= low;

// config.json's object, read by `read(name)` (its bytes), once they match config.sha256; `label(name)` names a file in
// the errors (translate.mjs: its path). `sha256(bytes)` gives the hex digest. Throws one line naming the file.
export async function readConfig(read, sha256, label = n => n) {
  let digest;
  try { digest = new TextDecoder().decode((await read('config.sha256', () => {})).slice(0, 200)).split(/\s+/)[0]; }
  catch { throw new Error(`${label('config.sha256')} is missing: an export holds the sha256 of its config.json there; export the folder again (tnb-export --format onnx)`); }
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new Error(`${label('config.sha256')} is damaged: it holds no sha256; export the folder again`);
  const bytes = await read('config.json', () => {});
  if (await sha256(bytes) !== digest) throw new Error(`${label('config.json')} is damaged: its sha256 differs from the one config.sha256 records; export the folder again`);
  let config;
  try { config = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)); }
  catch (e) { throw new Error(`${label('config.json')} is not valid JSON (${e.message.split('\n')[0]}): export the folder again`); }
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new Error(`${label('config.json')} holds a JSON ${pyType(config)}, not the object an export writes: export the folder again`);
  return config;
}

// The decoding config.json records ({beam, alpha, maxExtra, stop}), once every id and setting is one the translator can
// use: the special ids the tokenizer's (tokenizer.json, checked by its sha256), the vocabularies its size, the sizes
// whole numbers, the longest source (max_len, the readers' limit) within the model's, the decoding as the package's
// `Decoding` declares it. Else one line naming the file and the field.
export function checkConfig(config, tokenizer, name = 'config.json') {
  const bad = (field, v, what) => new Error(`${name}: ${field} = ${show(v)} ${what}; export the folder again`);
  const c = config.config, sp = config.special, V = tokenizer.pieces.length;
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw bad('config', c, "is not a model's config");
  for (const k of ['N', 'h', 'd_model', 'd_ff', 'max_len', 'src_vocab', 'tgt_vocab'])
    if (!whole(c[k], 1)) throw bad(`config.${k}`, c[k], 'must be a whole number >= 1');
  for (const k of ['d_k', 'd_v'])
    if (c[k] != null && !whole(c[k], 1)) throw bad(`config.${k}`, c[k], 'must be a whole number >= 1, or null');
  for (const k of ['src_vocab', 'tgt_vocab']) if (c[k] !== V) throw bad(`config.${k}`, c[k], `is not the tokenizer's ${V} pieces`);
  if (sp === null || typeof sp !== 'object' || Array.isArray(sp)) throw bad('special', sp, 'must name the ids pad, bos, eos and unk');
  for (const k of ['pad', 'bos', 'eos', 'unk']) {
    const want = tokenizer[`${k}_id`];
    if (sp[k] !== want) throw bad(`special.${k}`, sp[k], `is not the tokenizer's ${k} id, ${want}`);
  }
  if (c.pad_id !== sp.pad) throw bad('config.pad_id', c.pad_id, `is not the tokenizer's pad id, ${sp.pad}`);
  if (!(whole(config.max_len, 2) && config.max_len <= c.max_len))
    throw bad('max_len', config.max_len, `must be a whole number from 2 to ${c.max_len}, the model's config.max_len`);
  const { beam, alpha, max_extra: maxExtra, stop } = config;
  if (!(whole(beam, 1) && beam <= c.tgt_vocab)) throw bad('beam', beam, `must be a whole number from 1 to ${c.tgt_vocab}, the target vocabulary`);
  if (!(typeof alpha === 'number' && alpha >= 0 && alpha <= 10)) throw bad('alpha', alpha, 'must be a number in [0, 10]');
  if (!whole(maxExtra, 0)) throw bad('max_extra', maxExtra, 'must be a whole number >= 0');
  if (stop !== 'exact' && stop !== 'early') throw bad('stop', stop, 'must be "exact" or "early"');
  return { beam, alpha, maxExtra, stop };
}
