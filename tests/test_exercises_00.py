"""00_core's exercises, proven by mutation: each "Break it" change is applied to the notebook's own cell (and to the
exported module, as nbdev-export would), the notebook runs top to bottom in an IPython shell of its own (from nbs/, as
nbdev-test runs it: tests/nbtools.py's `break_it`), and the checks that fail are exactly the ones the solution names;
the "Think" exercise's change fails none, as its solution says. The exercises on precision moved with it to A23_machine
and are proven here too."""
from nbtools import break_it, cells, code_blocks

NB, EX = '00_core', 'c0e0ex00'
MACHINE = 'A23_machine'

def failing_checks(cell:str|None=None, old:str='', new:str='', nb:str=NB, module:str='core') -> set:
    "Ids of the cells that raise when `nb` runs top to bottom (but its Colab setup) with `old` -> `new` in `cell`."
    return set(break_it(nb, cell, old, new, module if cell else None, skip=('colab-setup',))[0])

def test_the_notebook_passes_unchanged():
    assert failing_checks() == set()

def test_exercise_1_dropping_torch_seed_fails_the_check_after_set_seed():
    "Solution: 'The test cell right after `set_seed` fails' (and no other)."
    assert 'The test cell right after `set_seed` fails' in cells(NB)[EX][1]
    assert failing_checks('6945f7e7', 'torch.manual_seed(seed)', 'pass') == {'8201089e'}

def test_exercise_2_a_plain_list_in_count_params_fails_nothing():
    "Solution: the tests still pass, because `parameters()` already yields a shared matrix once."
    old = "    ps = {id(p): p for p in model.parameters() if p.requires_grad or not trainable_only}\n    return sum(p.numel() for p in ps.values())"
    new = "    ps = [p for p in model.parameters() if p.requires_grad or not trainable_only]\n    return sum(p.numel() for p in ps)"
    assert failing_checks('3cbefbd7', old, new) == set()

def test_machine_exercise_1_an_autocast_that_ignores_precision_fails_the_check_after_it():
    "A23_machine's exercise 1, solution: 'The test cell right after `autocast`' catches it (and no other)."
    assert 'The test cell right after `autocast`' in cells(MACHINE)['d39be88c'][1]
    old = "    if dtype is None: return contextlib.nullcontext()\n"
    assert failing_checks('c569c8d3', old, "    return contextlib.nullcontext()\n", nb=MACHINE, module='machine') == {'2128bff5'}

def test_machine_exercise_2_experiment_runs_as_printed(capsys):
    ns = {}
    exec("import torch\nfrom transformer_nb.machine import autocast\n" + code_blocks(MACHINE, 'd39be88c')[0], ns)
    out = capsys.readouterr().out.splitlines()
    assert [l.split()[0] for l in out] == ['fp32', 'bf16'] and all(l.endswith('ms per product') for l in out), out
