"""The settings' declarations (lib_options): a size past any machine is refused by its own bound, named, as the library
builds the settings and as a command parses them."""
import pytest
from transformer_nb.lib.checks import SettingError
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
