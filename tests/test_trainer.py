"""The Trainer (A3_trainer): a finished run resumed completes what it lacks; the caller's model is left as given; a damaged
checkpoint is named."""
import pytest
from transformer_nb.core import set_seed
from transformer_nb.model import Transformer, get_config
from transformer_nb.trainer import Trainer, TrainConfig
from transformer_nb.checkpoints import load_checkpoint, save_checkpoint
from transformer_nb.datasets import load_dataset
from transformer_nb.workflow import train_model, run_summary
from conftest import copy_ids

SMALL = dict(preset='tiny', vocab_size=16, steps=4, max_tokens=400, save_every=2, average=2, valid_every=3, progress=False)

@pytest.fixture(scope='module')
def small(): return load_dataset('copy', n_train=300, n_valid=20, n_test=20, n_symbols=6, max_len=5)

def test_the_last_checkpoint_holds_the_final_validation(small, tmp_path):
    "Saved at update 4 by save_every=2, then validated at the end: the checkpoint is written again with that validation."
    train_model(small, out=str(tmp_path), say=lambda m: None, **SMALL)
    ck = load_checkpoint(tmp_path / 'checkpoint-0000004.pt')
    assert [v['step'] for v in ck['meta']['history']['valid']] == [3, 4]

def test_a_finished_run_resumed_makes_its_missing_average_and_final_validation(small, tmp_path):
    "The disk was full when average.pt was written; the checkpoint's history ends at update 3's validation (an older run)."
    train_model(small, out=str(tmp_path), say=lambda m: None, **SMALL)
    (tmp_path / 'average.pt').unlink()
    path = tmp_path / 'checkpoint-0000004.pt'
    ck = load_checkpoint(path); ck['meta']['history']['valid'] = ck['meta']['history']['valid'][:1]; save_checkpoint(path, **ck)
    said = []
    r = train_model(small, resume=tmp_path, say=said.append)
    assert any('nothing to train' in s for s in said) and any('averaged the last 2 checkpoints (updates 2, 4)' in s for s in said), said
    assert r.averaged == tmp_path / 'average.pt' and r.averaged.is_file()
    assert r.history['valid'][-1]['step'] == 4 and 'at update 4' in run_summary(r, 1.0)[-1]
    assert [v['step'] for v in load_checkpoint(path)['meta']['history']['valid']] == [3, 4]

def test_the_callers_model_is_left_as_given():
    "The CPU levers go into the model for an update and come out after it: the caller's model keeps its own modules."
    set_seed(0)
    model = Transformer(get_config('tiny', src_vocab=20, tgt_vocab=20, p_drop=0.1))
    before = list(model.named_modules())
    t = Trainer(model, copy_ids(64), tc=TrainConfig(steps=2, warmup=1, max_tokens=200, device='cpu', precision='fp32', progress=False),
                say=lambda m: None)
    assert list(model.named_modules()) == before
    t.fit()
    assert t.step == 2 and list(model.named_modules()) == before and t.model is model

def test_a_damaged_schedule_names_the_checkpoint(tmp_path):
    set_seed(0)
    mk = lambda: Trainer(Transformer(get_config('tiny', src_vocab=20, tgt_vocab=20)), copy_ids(64),
                         tc=TrainConfig(steps=1, warmup=1, max_tokens=200, device='cpu', progress=False), say=lambda m: None)
    ck = mk().state()
    with pytest.raises(ValueError, match=r"x\.pt: its optimiser or learning-rate schedule state is damaged"):
        mk().load({**ck, 'scheduler': {'junk': 1}}, tmp_path / 'x.pt')
