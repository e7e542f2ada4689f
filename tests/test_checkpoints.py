"""Checkpoints (A1_checkpoints): damaged files are named as damaged, with the file, never an internal error."""
from dataclasses import asdict
import pytest
from transformer_nb.core import set_seed
from transformer_nb.model import Transformer, get_config
from transformer_nb.checkpoints import (save_checkpoint, load_checkpoint, check_checkpoint, resolve_checkpoint, model_from_checkpoint,
                                        rng_state, _CKPT_FORMAT)
from transformer_nb.runs import RunFolder

def _checkpoint(path, step=4, **extra):
    set_seed(0)
    m = Transformer(get_config('tiny', src_vocab=64, tgt_vocab=64))
    return save_checkpoint(path, format=_CKPT_FORMAT, config=asdict(m.cfg), model=m.state_dict(), optimizer={}, scheduler={},
                           step=step, rng=rng_state(), data_pos={'epoch': 0, 'batch': step}, meta={'run': 'r1'}, **extra)

def test_a_cut_checkpoint_is_corrupt_or_truncated_not_an_os_error(tmp_path):
    "torch's zip reader raises OSError(EINVAL) on a file cut at 50,000 bytes: that is the file's content, not the disk."
    whole = _checkpoint(tmp_path / 'whole.pt').read_bytes()
    (tmp_path / 'cut.pt').write_bytes(whole[:50_000])
    with pytest.raises(ValueError, match=r"cut\.pt is not a readable checkpoint \(corrupt or truncated\?\)"): load_checkpoint(tmp_path / 'cut.pt')

def test_model_from_checkpoint_says_what_it_takes():
    with pytest.raises(TypeError, match=r"model_from_checkpoint takes a checkpoint dict, a checkpoint file or a run folder, not int 123"):
        model_from_checkpoint(123)

def test_a_meta_that_is_not_a_dict_names_the_file(tmp_path):
    ck = load_checkpoint(_checkpoint(tmp_path / 'c.pt'))
    for use in ('inference', 'resume'):
        with pytest.raises(ValueError, match=r"x\.pt: its meta is a list, not a dict"): check_checkpoint({**ck, 'meta': [1, 2]}, 'x.pt', use)

@pytest.mark.parametrize('use', ['inference', 'resume'])
def test_an_unreadable_newest_checkpoint_is_named_with_the_newest_good_one(tmp_path, use):
    "A stray checkpoint-9999999.pt that is not a checkpoint: named, and the newest readable one offered; never skipped in silence."
    run = RunFolder(tmp_path)
    _checkpoint(run.checkpoint(4))
    run.checkpoint(9999999).write_text('not a checkpoint\n')
    with pytest.raises(ValueError) as e: resolve_checkpoint(tmp_path, use)
    msg = str(e.value)
    assert 'checkpoint-9999999.pt is not a readable checkpoint' in msg and f'give {run.checkpoint(4)} instead, or remove {run.checkpoint(9999999)}' in msg, msg
