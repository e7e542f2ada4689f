"""00_core's exercises, proven by mutation: each "Break it" change is applied to the notebook's own cell, the notebook
runs top to bottom in an IPython shell of its own (from nbs/, as nbdev-test runs it), and the checks that fail are
exactly the ones the solution names; the "Think" exercise's change fails none, as its solution says; the
"Experiment"'s code runs as printed."""
import os
from nbtools import NBS, cells, code_blocks

NB = '00_core'

def failing_checks(mutate:dict[str, tuple[str, str]]) -> list[str]:
    "Ids of the code cells that raise when 00_core runs top to bottom with `mutate` {cell id: (old text, new text)}."
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance(); shell.reset(new_session=True)
    failed, cwd = [], os.getcwd()
    os.chdir(NBS)
    try:
        for cid, (kind, src) in cells(NB).items():
            if kind != 'code' or cid == 'colab-setup': continue
            if cid in mutate:
                old, new = mutate[cid]; assert old in src, f"{cid}: the exercise's text is gone from the cell"
                src = src.replace(old, new)
            r = shell.run_cell(src, silent=True, store_history=False)
            if not r.success: failed.append(cid)
    finally: os.chdir(cwd)
    return failed

def test_the_notebook_passes_unchanged():
    assert failing_checks({}) == []

def test_exercise_1_dropping_torch_seed_fails_the_check_after_set_seed():
    "Solution: 'The test cell right after `set_seed` fails' (and no other)."
    assert 'The test cell right after `set_seed` fails' in cells(NB)['d39be88c'][1]
    assert failing_checks({'6945f7e7': ('torch.manual_seed(seed)', 'pass')}) == ['8201089e']

def test_exercise_2_an_autocast_that_ignores_precision_fails_the_check_after_it():
    "Solution: 'The test cell right after `autocast`' catches it (and no other)."
    assert 'The test cell right after `autocast`' in cells(NB)['d39be88c'][1]
    old = "    if dtype is None: return contextlib.nullcontext()\n"
    assert failing_checks({'c569c8d3': (old, "    return contextlib.nullcontext()\n")}) == ['2128bff5']

def test_exercise_3_a_plain_list_in_count_params_fails_nothing():
    "Solution: the tests still pass, because `parameters()` already yields a shared matrix once."
    old = "    ps = {id(p): p for p in model.parameters() if p.requires_grad or not trainable_only}\n    return sum(p.numel() for p in ps.values())"
    new = "    ps = [p for p in model.parameters() if p.requires_grad or not trainable_only]\n    return sum(p.numel() for p in ps)"
    assert failing_checks({'3cbefbd7': (old, new)}) == []

def test_exercise_4_experiment_runs_as_printed(capsys):
    ns = {}
    exec("import torch\nfrom transformer_nb.core import autocast\n" + code_blocks(NB, 'd39be88c')[0], ns)
    out = capsys.readouterr().out.splitlines()
    assert [l.split()[0] for l in out] == ['fp32', 'bf16'] and all(l.endswith('ms per product') for l in out), out
