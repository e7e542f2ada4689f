#!/usr/bin/env python
"""How close the int8 ONNX export's greedy outputs stay to the float32 export's on the barely trained models of
tests/test_export.py (its `trained_checkpoint`, 200 updates, each tie mode; its 80 `words(80, 7)` inputs): lines
identical, and chrF (sacreBLEU) of the int8 lines against the float32 lines, with the chrF of unrelated lines (each
float32 line against the next one) for scale. The count of identical lines depends on the CPU's int8 kernels; the test
asserts chrF >= its `INT8_CHRF` instead. Stored in `results/int8_agreement.json`.

    python experiments/int8_agreement.py --json results/int8_agreement.json     # a few minutes on one CPU core
"""
import argparse, importlib.util, json, tempfile
from pathlib import Path
import sacrebleu
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.tokens import StoredTokenizer
from transformer_nb.apps.export import export_onnx, onnx_translate

ROOT = Path(__file__).resolve().parents[1]

def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--json', default=None, help='write the figures here (results/int8_agreement.json)')
    a = p.parse_args(argv)
    limit_threads(1)
    spec = importlib.util.spec_from_file_location('test_export', ROOT / 'tests' / 'test_export.py')
    T = importlib.util.module_from_spec(spec); spec.loader.exec_module(T)         # the test's models and inputs, as it builds them
    tok, src, rows = StoredTokenizer.train(T.words(2000, 1), vocab_size=24), T.words(80, 7), {}
    chrf = lambda h, r: round(sacrebleu.corpus_chrf(h, [r]).score, 2)
    with tempfile.TemporaryDirectory() as tmp:
        for tie in ('all', 'decoder', 'none'):
            d = Path(tmp) / tie
            c = T.trained_checkpoint(d / 'm.pt', tok, tie=tie)
            int8, fp32 = onnx_translate(export_onnx(c, d / 'int8'), src, beam=1), onnx_translate(export_onnx(c, d / 'fp32', quantize=None), src, beam=1)
            rows[tie] = {'identical': sum(x == y for x, y in zip(int8, fp32)), 'chrf_int8_vs_float32': chrf(int8, fp32),
                         'chrf_unrelated_lines': chrf(fp32[1:] + fp32[:1], fp32)}
            print(tie, rows[tie], flush=True)
    out = {'n_sentences': len(src), 'bound_in_tests': T.INT8_CHRF, 'ties': rows, 'hardware': hardware(), 'threads': 1,
           'commit': git_commit(ROOT), 'command': 'python experiments/int8_agreement.py' + (f' --json {a.json}' if a.json else '')}
    if a.json: Path(a.json).write_text(json.dumps(out, indent=1) + '\n', encoding='utf-8')

if __name__ == '__main__': main()
