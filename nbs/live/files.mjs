// The files of an export that the page downloads: the vocabulary, both graphs, and the external data they read
// (embedding.bin: an int8 export's tied embedding table, stored once for both graphs), as config.json lists them.
// A module of its own, so that the page sizes its button before the click without loading the translator.
export function modelFiles(config) {
  return ['tokenizer.json', 'encoder.onnx', 'decoder.onnx', ...Object.keys(config.files || {}).filter(f => f.endsWith('.bin'))];
}
