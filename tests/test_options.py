"""The settings' declarations (lib_options): a size past any machine is refused by its own bound, named, as the library
builds the settings and as a command parses them."""
import pytest
from transformer_nb.lib.options import SettingError
from transformer_nb.lib.options import TrainConfig

ABSURD = 99999999999999999999999999   # a size no run has: 10^26

@pytest.mark.parametrize('name', ['tokens_per_update', 'warmup', 'cooldown', 'max_tokens', 'accum'])
def test_a_training_size_past_any_machine_is_refused_by_its_bound(name):
    extra = {'steps': 1} if name == 'cooldown' else {}
    with pytest.raises(SettingError) as e: TrainConfig(**{name: ABSURD, **extra})
    assert str(e.value).startswith(f"{name}={ABSURD} must be an int in [") and len(str(e.value).splitlines()) == 1, str(e.value)
    with pytest.raises(SettingError, match=f"^{name}=1e\\+26 must be an int in"): TrainConfig(**{name: 1e26, **extra})

@pytest.mark.parametrize('option', ['--tokens-per-update', '--warmup', '--cooldown', '--max-tokens', '--accum'])
@pytest.mark.parametrize('value', [str(ABSURD), '1e26'])
def test_tnb_train_names_the_option_past_its_bound(option, value, capsys, tmp_path):
    "As the command says it: one line naming the option and its bound, exit 2, before any work."
    from transformer_nb.apps.cli import train_main
    with pytest.raises(SystemExit) as e: train_main([option, value, '--steps', '1', '--out', str(tmp_path / 'run')])
    err = capsys.readouterr().err.strip()
    assert not (tmp_path / 'run').exists() and e.value.code == 2 and err.startswith(f"tnb-train: error: {option} {value} must be an int in [") and '\n' not in err, err


def test_table3s_rows_are_12s_rows_declared_once():
    "The presets of Table 3's rows are 12's `table3_variants` of the paper's base, each row that changes the model (row D's"
    " label smoothing is training's), in the paper's order after its two models; lib_options writes no row of its own."
    import re, inspect
    from transformer_nb.lib import options
    from transformer_nb.variations_config import table3_variants
    rows = table3_variants(options.PRESETS['base'])
    model_rows = {k: dict(options.PRESETS['base'], **v) for k, v in rows.items() if k != 'base' and 'eps_ls' not in v}
    assert {k: options.PRESETS[k] for k in model_rows} == model_rows
    assert list(options.PRESETS)[3:] == ['base', 'big', *(k for k in model_rows if k != 'big')]   # the two models, then the rows
    assert not [k for k in options.PRESETS if k not in ('tiny', 'mini', 'small', 'base') and k not in rows]
    src = inspect.getsource(options)
    presets = src[src.index('PRESETS = {'):src.index('def get_config')]
    assert not re.findall(r"'[A-E]-", presets), "a Table 3 row written out in lib_options' presets"

def test_every_settings_help_is_read_as_fastcore_reads_it():
    "`_field_docs` (each module parsed once) gives every dataclass of the package the help fastcore's `docments` gives it."
    import dataclasses, importlib, pkgutil
    import transformer_nb
    from fastcore.docments import docments
    from transformer_nb.lib.options import _field_docs
    mods = [importlib.import_module(m.name) for m in pkgutil.walk_packages(transformer_nb.__path__, 'transformer_nb.')]
    classes = {v for m in mods for v in vars(m).values()
               if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__.startswith('transformer_nb.')}
    assert len(classes) >= 30, sorted(c.__qualname__ for c in classes)
    for c in classes: assert _field_docs(c) == {k: v for k, v in docments(c).items() if k != 'return'}, c
    assert sum(bool(v) for c in classes for v in _field_docs(c).values()) >= 100     # most fields have a help to read

def test_a_help_read_beside_above_or_from_annotated_and_an_empty_comment_as_fastcore_reads_them(tmp_path, monkeypatch):
    "Each way a field's help can be written, in a module of its own: `_field_docs` reads it as `docments` does."
    import importlib, textwrap
    from fastcore.docments import docments
    from transformer_nb.lib.options import _field_docs
    (tmp_path / 'fd_case.py').write_text(textwrap.dedent('''\
        from dataclasses import dataclass, field
        from typing import Annotated
        @dataclass
        class A:
            x: int = 1  #
            # two lines
            #   above
            y: Annotated[int, 'meta'] = 2
            z: Annotated[int, 'meta2'] = 3   # beside
            w: Annotated[int, 'meta3'] = 4
            v: int = field(default=5, init=False)   # not an argument
            u: int = 6
        '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    A = importlib.import_module('fd_case').A
    assert _field_docs(A) == {'x': '', 'y': 'two lines\n  above', 'z': 'beside', 'w': 'meta3', 'u': None}
    assert _field_docs(A) == {k: v for k, v in docments(A).items() if k != 'return'}
