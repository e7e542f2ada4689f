// The live translator in the attention explorer's page (explorer.py loads this module only where the site serves it).
// Nothing heavy loads until the reader clicks: then ONNX Runtime Web (wasm, one thread) and the exported int8 model
// come from the site itself, with a progress line. Each translation is greedy and joins the explorer's sentences, so
// the same grid shows its every layer and head.
import { modelFiles } from './files.mjs';   // the translator itself loads on the click (loadTranslator), not with the page

export const MAX_CHARS = 300;          // the longest input, in characters (said beside the box)
const here = new URL('./', import.meta.url), WASM = 'ort-wasm-simd-threaded.wasm';
const mb = n => (n / 1e6).toFixed(1);
// Let the page handle input and paint between two decoder steps (ONNX Runtime's wasm runs on this thread)
const channel = new MessageChannel(), waiting = [];
channel.port1.onmessage = () => waiting.shift()();
const yieldToPage = () => new Promise(r => { waiting.push(r); channel.port2.postMessage(0); });   // a task, not a microtask; unclamped, unlike setTimeout

// What the click downloads, from vendor.mjs's files.json: the gzip copies where it wrote them (fetched and decompressed
// here, so that the bytes on the wire do not depend on the server compressing them), else the plain files
async function sizes() {
  const [model, vendor] = await Promise.all(['model/config.json', 'vendor/files.json'].map(async f => {
    const r = await fetch(new URL(f, here));
    if (!r.ok) throw new Error(`${f}: ${r.status}`);
    return r.json();
  }));
  const gz = vendor.gz || {}, bytes = vendor.bytes || vendor;
  const modelGz = Object.fromEntries(Object.entries(gz).filter(([f]) => f.startsWith('model/')).map(([f, n]) => [f.slice(6), n]));
  const wasm = gz[`vendor/${WASM}`] ?? bytes[WASM], js = bytes['ort.wasm.min.mjs'] + bytes['ort-wasm-simd-threaded.mjs'];
  const files = modelFiles(model).map(f => modelGz[f] ?? model.files[f].bytes);
  return { model, js, wasm, wasmGz: `vendor/${WASM}` in gz, modelGz, total: files.reduce((a, b) => a + b, 0) + wasm + js };
}

// Load ONNX Runtime Web and the model (both at once), reporting bytes as they come; returns a Translator
export async function loadTranslator(onProgress = () => {}, info = null) {
  const { Translator, fetchBytes, gunzip } = await import('./translator.mjs');
  const { model, js, wasmGz, modelGz, total } = info || await sizes();
  const got = { wasm: 0, model: 0 }, report = () => onProgress(got.wasm + got.model, total);
  const ort = (async () => {
    const ort = await import(new URL('vendor/ort.wasm.min.mjs', here).href);
    got.wasm += js; report();                                // ONNX Runtime's two modules (the second loads with the first graph)
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.wasmPaths = new URL('vendor/', here).href;
    const wasm = await fetchBytes(new URL(`vendor/${WASM}${wasmGz ? '.gz' : ''}`, here).href, b => { got.wasm = js + b; report(); });
    ort.env.wasm.wasmBinary = wasmGz ? await gunzip(wasm) : wasm;
    ort.env.logLevel = 'error';
    return ort;
  })();
  ort.catch(() => {});                                       // a failure is reported by Translator.load, which awaits it
  return Translator.load(ort, new URL('model/', here).href, { config: model, gz: modelGz, onProgress: b => { got.model = b; report(); } });
}

const HTML = `
<div class="tnb-live-row"><textarea rows="2" maxlength="${MAX_CHARS}" placeholder="Ein Mann fährt mit dem Fahrrad über eine Brücke."
  aria-label="A German sentence to translate"></textarea></div>
<div class="tnb-live-row"><button type="button" class="tnb-go"></button>
  <span class="tnb-note">German, at most ${MAX_CHARS} characters; Ctrl-Enter translates. The model runs in your browser.</span></div>
<div class="tnb-status" aria-live="polite"></div><div class="tnb-out" aria-live="polite"></div>`;

// Give the explorer `root` (explorer.py's HTML) its live box; nothing happens where the model is not served
export async function attach(root) {
  const box = root.querySelector('.tnb-live');
  if (!box || box.dataset.ready) return;
  let info;
  try { info = await sizes(); } catch { return; }          // no exported model beside the page: the stored explorer only
  box.innerHTML = HTML; box.hidden = false; box.dataset.ready = '1';
  const text = box.querySelector('textarea'), go = box.querySelector('.tnb-go');
  const status = box.querySelector('.tnb-status'), out = box.querySelector('.tnb-out');
  let translator = null, loading = null, latest = 0;
  go.textContent = `Load the live model (${mb(info.total)} MB)`;

  async function load() {
    if (!loading) {
      go.disabled = true;
      const t0 = performance.now();
      loading = loadTranslator((b, total) => { status.textContent = `Loading the model: ${mb(b)} of ${mb(total)} MB`; }, info)
        .then(tr => {
          translator = tr;
          status.textContent = `Model loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s (${tr.config.quantize || 'float32'} weights, ONNX Runtime Web, one thread).`;
          go.textContent = 'Translate'; go.disabled = false;
          return tr;
        }, e => { loading = null; go.disabled = false; status.textContent = `The model did not load: ${e.message}`; throw e; });
    }
    return loading;
  }

  let busy = Promise.resolve();                           // one decoding at a time; a newer request stops the older
  async function run() {
    const mine = ++latest, sentence = text.value.trim().slice(0, MAX_CHARS);
    try { await load(); } catch { return; }
    const before = busy; let done;
    busy = new Promise(r => { done = r; });
    try { await before; await decode(mine, sentence); } finally { done(); }
  }

  async function decode(mine, sentence) {
    if (mine !== latest) return;                            // a newer request came while this one waited
    if (!sentence) { out.textContent = 'Type a German sentence in the box first.'; return; }
    out.textContent = 'Translating…';
    const t0 = performance.now();
    let res;
    try {
      res = await translator.translate(sentence, { onStep: async () => { await yieldToPage(); if (mine !== latest) throw new Error('superseded'); } });
    } catch (e) {
      if (e.message !== 'superseded') out.textContent = `Translation failed: ${e.message}`;
      return;
    }
    if (mine !== latest) return;
    const ms = performance.now() - t0;
    out.textContent = '';
    const b = document.createElement('b'); b.className = 'tnb-hyp'; b.textContent = res.text || '(nothing)';
    out.append('→ ', b, ` (greedy, ${res.out.length} tokens in ${ms.toFixed(0)} ms)`);
    if (root.tnbAdd) root.tnbAdd(res.record);
  }

  go.addEventListener('click', run);
  text.addEventListener('keydown', e => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); } });
  root.tnbLive = { run, load, get translator() { return translator; } };        // for tests and the benchmark
}
