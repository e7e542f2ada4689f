"""The figures and names the "Use the library" page (use.ipynb, README.md's second part) quotes, checked against their
sources.

Run by the page's last (hidden) cell, which `exec`s this file in the page's namespace (from nbs/), so `nbdev-test`
fails when a quoted figure drifts: the main job's scores and times (results/main_job.json, a fresh run of `tnb-train`
per seed), the CPU Multi30k run (cpu_hour.json), Table 3's two fp32 seeds (table3_fp32.json), the shapes of the tensors table,
what the Figure 1 table says of the code, and the published models' download address. Names defined here start with
`_` and are deleted at the end."""
import importlib as _importlib, inspect as _inspect, json as _json, math as _math
from pathlib import Path as _Path
import torch as _torch
from fastcore.test import test_eq as _test_eq
from transformer_nb.lib.machine import NotebookFile as _NotebookFile
import frontpage as _fp

_q = _NotebookFile('use.ipynb').quoted
_read = lambda name: _json.loads(_Path(f'../results/{name}').read_text(encoding='utf-8'))

# the main job, run afresh: its exact match per seed, the machine, and its time
_main = sorted(_fp.main_job_runs(), key=lambda r: r['seed'])
assert _main and len({r['hardware'] for r in _main}) == 1, [r['hardware'] for r in _main]
_em = [f"{r['results']['tnb-train (avg:4)']['exact_match']:.1f}" for r in _main]
_seeds = [str(r['seed']) for r in _main]
_and = lambda xs: xs[0] if len(xs) == 1 else ', '.join(xs[:-1]) + ' and ' + xs[-1]
assert all(r['tnb_train'].startswith(f"tnb-train --seed {r['seed']} ") and r['threads'] == 1 for r in _main)   # its defaults, one thread
assert _main[0]['hardware'].startswith('AMD EPYC (AVX512), 2 cores')
_cpu = [r['time']['whole_command']['cpu_s'] for r in _main]
_wall = [r['time']['whole_command']['wall_s'] for r in _main]
_q('c0b1a8e3', f"scored {_and(_em)}% exact match with seed{'s' if len(_main) > 1 else ''} {_and(_seeds)}",
   "on the 2-core AMD EPYC with AVX-512", f"{min(_cpu):.0f} to {max(_cpu):.0f} s of CPU time",
   f"{min(_wall):.0f} to {max(_wall):.0f} s of wall time")
assert all(round(c / 60) == 2 for c in _cpu), _cpu                                # "about 2 minutes" on one quiet thread
assert {r['hardware'] for r in _main} == {'AMD EPYC (AVX512), 2 cores (CPU), torch 2.13.0+cpu'}, _main   # the CPU the text names
_q('u0000003', 'in about 2 minutes of CPU time on the 2-core AMD EPYC with AVX-512 that measured it', 'It uses one thread')

# the CPU Multi30k run and Table 3's two seeds
_hour = next(r for r in _read('cpu_hour.json') if r['direction'] == 'de-en')
_q('c0b1a8e3', f"ran {_hour['wall_s'] / 60:.1f} minutes", f"scored {_hour['test_bleu_lc']:.2f} lowercased BLEU",
   f"({_hour['final']['average']['test']['bleu_lc']:.2f} with the average", f"finishes the {_hour['updates']:,} updates sooner")
assert _hour['chosen_on_valid'] == 'last' and _hour['train_config']['max_time'] == 56 and _hour['wall_s'] < 3600
_t3 = {r['id']: r['bleu'] for r in _read('table3_fp32.json')}
_q('c0b1a8e3', f"scored {_t3['base']:.2f} and {_t3['base-seed1']:.2f} BLEU",
   f"under about {_math.ceil(abs(_t3['base'] - _t3['base-seed1'])):.0f} BLEU")

# the tensors table: each shape, measured on a tiny model
from transformer_nb.attention import pad_mask as _pad_mask, tgt_mask as _tgt_mask
from transformer_nb.model import Transformer as _Transformer
from transformer_nb.lib.options import get_config as _get_config
_B, _S, _T, _V = 2, 7, 5, 40
_m = _Transformer(_get_config('tiny', src_vocab=_V, tgt_vocab=_V)).eval()
_src, _tgt, _c = _torch.randint(4, _V, (_B, _S)), _torch.randint(4, _V, (_B, _T)), _m.cfg
_test_eq(_pad_mask(_src).shape, (_B, 1, 1, _S)); _test_eq(_tgt_mask(_tgt).shape, (_B, 1, _T, _T))
with _torch.no_grad():
    _memory = _m.encode(_src, _pad_mask(_src)); _test_eq(_memory.shape, (_B, _S, _c.d_model))
    _x = _m.tgt_pos(_m.tgt_emb(_tgt)); _test_eq(_x.shape, (_B, _T, _c.d_model))
    _ca = _m.decoder[0].cross_attn
    _dk = _c.d_model // _c.h   # 06's d_k (None: d_model/h)
    _test_eq(_ca.split_heads(_torch.randn(_B, _T, _c.h * _dk), _dk).shape, (_B, _c.h, _T, _dk))
    _test_eq(_ca.weights(_x, _memory, mask=_pad_mask(_src)).shape, (_B, _c.h, _T, _S))
    _test_eq(_m.decoder[0].ffn.w_1(_x).shape, (_B, _T, _c.d_ff))
    _test_eq(_m.decode(_memory, _pad_mask(_src), _tgt, _tgt_mask(_tgt)).shape, (_B, _T, _V))

# the Figure 1 table: every name exists where it says, and the softmax is where it says
for _mod, _names in _fp.FIGURE1.items():
    for _n in _names: assert hasattr(_importlib.import_module(f'transformer_nb.{_mod}'), _n), f'transformer_nb.{_mod}.{_n}'
for _n in ('encode', 'decode', 'drop', 'encoder', 'decoder'): assert hasattr(_m, _n), _n
assert 'log_softmax' in _inspect.getsource(_importlib.import_module('transformer_nb.training').label_smoothed_nll)   # the main line's, which the library's checks, then calls
assert 'log_softmax' in _inspect.getsource(_importlib.import_module('transformer_nb.decoding').beam_search)
assert 'topk_log_probs(logits' in _inspect.getsource(_importlib.import_module('transformer_nb.lib.fast_decoding'))

# the published models: how many, and where a wheel downloads them from
from transformer_nb.lib.checkpoints import PRETRAINED as _PRETRAINED, _PRETRAINED_URLS as _URLS
assert len(_PRETRAINED) == 3; _q('b0d1e1a0', 'Three trained models')
_q('b0d1e1a2', _URLS[0].format(version='<version>', file='<file>')); assert _URLS[1] == _URLS[0].replace('/v{version}/', '/main/')
_q('b0d1e1a2', 'the same path on `main` where that version has no release tag')

del (_importlib, _inspect, _json, _math, _Path, _torch, _test_eq, _NotebookFile, _fp, _q, _read, _main, _em, _seeds, _and,
     _cpu, _wall, _hour, _t3, _pad_mask, _tgt_mask, _Transformer, _get_config, _B, _S, _T, _V,
     _m, _src, _tgt, _c, _memory, _x, _ca, _mod, _names, _n, _PRETRAINED, _URLS)
