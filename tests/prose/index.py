"""The figures and names the front page (index.ipynb, the first part of README.md) quotes, checked against their sources.

Run by the page's last (hidden) cell, which `exec`s this file in the page's namespace (from nbs/), so `nbdev-test`
fails when a quoted figure drifts: the main job's time (results/main_job.json, a fresh run of `tnb-train` per seed),
the CPU Multi30k run (cpu_hour.json), the notation table's paper values against the `base` preset, and every name
that Figure 1 gives. The practitioner's figures are on the "Use the library" page (use.ipynb), checked by
tests/prose/use.py. Names defined here start with `_` and are deleted at the end."""
import importlib as _importlib, json as _json, re as _re
from pathlib import Path as _Path
from fastcore.test import test_eq as _test_eq
from transformer_nb.lib.machine import NotebookFile as _NotebookFile
import frontpage as _fp

_q = _NotebookFile('index.ipynb').quoted
_read = lambda name: _json.loads(_Path(f'../results/{name}').read_text(encoding='utf-8'))

# what you will build: the main job's CPU time (one thread) and the CPU Multi30k run
_cpu = [r['time']['whole_command']['cpu_s'] for r in _fp.main_job_runs()]
assert _cpu and all(round(c / 60) == 2 for c in _cpu), _cpu                     # "about 2 minutes of CPU time"
assert {r['hardware'] for r in _fp.main_job_runs()} == {'AMD EPYC (AVX512), 2 cores (CPU), torch 2.13.0+cpu'}   # the CPU it names
assert {r['threads'] for r in _fp.main_job_runs()} == {1}                        # "one thread, so also its wall time on a quiet machine"
_q('af482548', 'in about 2 minutes of CPU time on a 2-core AMD EPYC with AVX-512 (one thread, so also its wall time on a quiet machine)')
# the Multi30k claim names its score, its checkpoint and its machine, all from the run's record (cpu_hour.json)
_hour = next(r for r in _read('cpu_hour.json') if r['direction'] == 'de-en')
_test = _hour['final'][_hour['chosen_on_valid']]['test']
assert _hour['hardware'].startswith('AMD EPYC (AVX2), 2 cores') and _hour['cpu_count'] == 2, _hour['hardware']
assert _hour['chosen_on_valid'] == 'last' and _hour['decoding'].startswith('beam 4,') and '--recipe cpu-hour' in _hour['command']
assert _hour['final']['last']['valid']['bleu'] > _hour['final']['average']['valid']['bleu']   # "the translator's final weights": chosen on the validation set over the average
assert _test['bleu_lc'] == _hour['test_bleu_lc'] and 'test2016' in _hour['metric'] and _hour['wall_s'] < 3600   # "Multi30k's 2016 test set"
_own = '`tnb-train --dataset files --train train.de train.en --valid dev.de dev.en --src-lang de --tgt-lang en --epochs 10`'
_cmd = '`tnb-train --dataset multi30k --src-lang de --tgt-lang en --recipe cpu-hour`'   # the run's own options, as quoted
assert all(o in _hour['command'].split() for o in _cmd.strip('`').split()), (_cmd, _hour['command'])
_q('af482548', '`tnb-train` trains', "Below, the first\ntrains a German→English translator of Multi30k's photo captions "
   f"in {_hour['wall_s'] / 60:.0f} minutes of wall time on a 2-core AMD EPYC with\nAVX2; the second, one on your own aligned files:\n\n```sh\n{_cmd.strip('`')}\n{_own.strip('`')}\n```",
   f"On Multi30k's 2016 test set the translator's final weights score {_test['bleu']:.2f} BLEU with beam 4 (sacreBLEU, cased, detokenized; {_test['bleu_lc']:.2f} lowercased)")
assert _own.strip('`') in _Path('../transformer_nb/apps/cli.py').read_text(encoding='utf-8'), _own   # the command's own help gives it
_q('af482548', '```sh\npip install torch --index-url https://download.pytorch.org/whl/cpu')
# "The `cpu-hour` recipe sizes batches, updates and warm-up to finish within an hour on 2 cores": the recipe the task names
_recipe = _importlib.import_module('transformer_nb.apps.tasks').Task.recipes['cpu-hour']
assert _recipe.train['max_time'] <= 60 and _recipe.threads == 0 and _hour['cpu_count'] == 2, _recipe   # an hour at most, every core of 2
assert {'max_tokens', 'steps', 'warmup'} <= set(_recipe.train), _recipe                       # it sets batches, updates, warm-up
_q('af482548', 'The `cpu-hour` recipe sizes batches,\nupdates and warm-up to finish within an hour on 2 cores.')

# the path promises what each notebook's main line teaches: checkpoint averaging is a section of 10 before "Going deeper"
def _main(nb):                                                    # the markdown of a notebook's main line
    _md = [''.join(c['source']) for c in _json.loads(_Path(nb).read_text(encoding='utf-8'))['cells'] if c['cell_type'] == 'markdown']
    _end = next((i for i, t in enumerate(_md) if _re.search(r'^#+ Going deeper', t, _re.M)), len(_md))
    return '\n'.join(_md[:_end])
assert _re.search(r'^## Checkpoint averaging', _main('10_decoding.ipynb'), _re.M)
assert 'checkpoint averaging' in dict((n, w) for n, _, w in _fp.PATH)['10_decoding']

# the notation table: wherever the paper gives a value, the base preset has it
for _sym, _w1, _w2, _paper, _here in _fp.notation():
    if _paper != '—': _test_eq((_sym, float(_here)), (_sym, float(_paper)))

# Figure 1: every name it gives exists where it says
for _mod, _names in _fp.FIGURE1.items():
    for _n in _names: assert hasattr(_importlib.import_module(f'transformer_nb.{_mod}'), _n), f'transformer_nb.{_mod}.{_n}'

del (_importlib, _json, _re, _Path, _test_eq, _NotebookFile, _fp, _q, _read, _cpu, _hour, _cmd, _test, _main, _sym, _w1, _w2, _paper, _here,
     _mod, _names, _n, _recipe, _own)
