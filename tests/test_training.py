"Training (09) and its appendices (lib_checkpoints checkpoints, lib_trainer trainer): schedule, label smoothing, accumulation, checkpoints (atomic, weights_only, keep-n), resume, NaN stop, Ctrl-C."
import math, random
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from transformer_nb.core import set_seed, PAD_ID
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.training import noam_lr, label_smoothed_nll, label_smoothing_loss, accumulate_grads, make_optimizer
from transformer_nb.lib.trainer import Trainer, TrainingDiverged, noam_lr_with_cooldown, make_optimizer_with_cooldown
from transformer_nb.lib.options import TrainConfig
import transformer_nb.lib.trainer as trainer
from transformer_nb.data import collate
from transformer_nb.lib.checkpoints import rng_state, set_rng_state, save_checkpoint, open_checkpoint, resolve_checkpoint, model_from_checkpoint, _CKPT_FORMAT
from transformer_nb.lib.runs import RunFolder
from conftest import copy_ids

torch.set_num_threads(1)
V = 16

class Batches:
    "Fixed-size batches of indices, reshuffled per epoch by their own generator (no global RNG)."
    def __init__(self, n, bs): self.n, self.bs, self.e = n, bs, 0
    def set_epoch(self, e): self.e = e
    def __iter__(self):
        idx = torch.randperm(self.n, generator=torch.Generator().manual_seed(self.e)).tolist()
        return iter([idx[i:i + self.bs] for i in range(0, self.n, self.bs)])

DATA = copy_ids(96, V, seed=3)

def make(out=None, steps=6, p_drop=0.2, callbacks=(), **kw):
    set_seed(0)
    cfg = get_model_config('tiny', src_vocab=V, tgt_vocab=V, p_drop=p_drop)
    kw.setdefault('device', 'cpu'); kw.setdefault('precision', 'fp32')   # exact comparisons: float32 on the CPU
    tc = TrainConfig(steps=steps, warmup=4, progress=False, **kw)
    return Trainer(build_model(cfg), DATA, DATA[:32], tc=tc, run=out, sampler=Batches(len(DATA), 16),
                   valid_sampler=Batches(32, 32), callbacks=callbacks)

def ck(p):
    "(checkpoint, path) of the checkpoint or run folder `p`, for `Trainer.load`."
    path = resolve_checkpoint(p, use='resume')[0]
    return torch.load(path, weights_only=True), path

def losses(t): return [r['loss'] for r in t.history['train']]

# --- schedule ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('d,w', [(512, 4000), (256, 100), (64, 7)])
def test_schedule_peak_at_warmup(d, w):
    lrs = [noam_lr(s, d, w) for s in range(0, 3 * w)]
    assert lrs[0] == 0.0 and int(np.argmax(lrs)) == w
    assert math.isclose(max(lrs), d ** -0.5 * w ** -0.5, rel_tol=1e-12)
    assert math.isclose(noam_lr(4 * w, d, w), max(lrs) / 2, rel_tol=1e-12)

def test_scheduler_steps_per_update_not_micro_batch():
    t = make(steps=3, accum=3, p_drop=0.0)
    t.fit()
    assert t.sched.last_epoch == 3 and [r['lr'] for r in t.history['train']] == [noam_lr(s, 32, 4) for s in (1, 2, 3)]

def test_cooldown_ends_the_schedule_linearly_and_resumes_exactly(tmp_path):
    "cooldown=c: the last c updates run at c/c, ..., 1/c of the paper's rate; off (0) it is the paper's schedule."
    assert [noam_lr_with_cooldown(s, 32, 4, total=10, cooldown=3) for s in (7, 8, 9, 10)] == [noam_lr(s, 32, 4) * f for s, f in ((7, 1), (8, 1), (9, 2 / 3), (10, 1 / 3))]
    assert [noam_lr_with_cooldown(s, 32, 4, total=10) for s in range(12)] == [noam_lr(s, 32, 4) for s in range(12)]
    t = make(steps=8, cooldown=4, p_drop=0.0)
    t.fit()
    assert [r['lr'] for r in t.history['train']] == [noam_lr_with_cooldown(s, 32, 4, total=8, cooldown=4) for s in range(1, 9)]
    a = make(out=tmp_path / 'a', steps=8, cooldown=4, save_every=5, p_drop=0.0); a.fit()   # resumed inside the cool-down
    b = make(out=tmp_path / 'b', steps=8, cooldown=4, p_drop=0.0)
    b.load(*ck(tmp_path / 'a' / 'checkpoint-0000005.pt')); b.fit()
    assert [r['lr'] for r in b.history['train']] == [r['lr'] for r in a.history['train']]

def test_the_library_schedule_and_loss_equal_the_main_lines():
    "noam_lr_with_cooldown without its extras is noam_lr; make_optimizer_with_cooldown's rates are make_optimizer's; the checked loss is the loss."
    for d, w in ((512, 4000), (64, 7)):
        assert [noam_lr_with_cooldown(s, d, w) for s in range(3 * w)] == [noam_lr(s, d, w) for s in range(3 * w)]
    rates = lambda make, **kw: [(o.param_groups[0]['lr'], o.step(), s.step())[0] for o, s in [make(torch.nn.Linear(2, 2), 64, 10, **kw)] for _ in range(25)]
    assert rates(make_optimizer_with_cooldown) == rates(make_optimizer)
    assert rates(make_optimizer_with_cooldown, scale=0.5) == rates(make_optimizer, lr=0.5)     # the main line's lr is the library's scale
    weights = []                                                       # the same Adam steps on the same gradients
    for make, kw in ((make_optimizer_with_cooldown, {'scale': 0.5}), (make_optimizer, {'lr': 0.5})):
        torch.manual_seed(0); m = torch.nn.Linear(3, 2); opt, sched = make(m, 64, 10, **kw)
        for i in range(12):
            m.zero_grad(); m(torch.full((1, 3), float(i))).sum().backward(); opt.step(); sched.step()
        weights.append([p.detach().clone() for p in m.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*weights))

def test_the_schedule_is_checked_once_when_built_not_per_update(monkeypatch):
    "make_optimizer_with_cooldown checks noam's arguments once; its scheduler's updates check nothing."
    calls = []
    monkeypatch.setattr(trainer, 'check_noam_args', lambda *a: calls.append(a))
    opt, sched = make_optimizer_with_cooldown(torch.nn.Linear(2, 2), 64, 10, total=30, cooldown=5)
    for _ in range(30): opt.step(); sched.step()
    assert len(calls) == 1

def test_bad_schedule_args():
    with pytest.raises(ValueError, match='needs steps'): TrainConfig(cooldown=10)
    with pytest.raises(ValueError, match=r'^cooldown=5 needs total'): noam_lr_with_cooldown(1, 512, 10, cooldown=5)
    with pytest.raises(ValueError, match=r'^warmup=0 must be an int >= 1$'): noam_lr_with_cooldown(1, 512, 0)
    with pytest.raises(ValueError, match=r'^step=-1 must be an int >= 0$'): noam_lr_with_cooldown(-1)
    with pytest.raises(ValueError, match=r'^step=1.5 must be an int >= 0$'): noam_lr_with_cooldown(1.5)
    with pytest.raises(ValueError, match=r'^cooldown=-1 must be an int >= 0$'): noam_lr_with_cooldown(1, 512, 10, total=100, cooldown=-1)
    for eps in (-0.1, 1.0, float('nan'), '0.1'):
        with pytest.raises(ValueError, match=rf'^eps_ls={eps!r} must be a number in \[0, 1\)$'): TrainConfig(eps_ls=eps)
    with pytest.raises(ValueError, match='steps=0'): TrainConfig(steps=0)
    with pytest.raises(ValueError, match="precision='fp8'"): TrainConfig(precision='fp8')

# --- label smoothing ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize('eps', [0.0, 0.1, 0.25])
def test_label_smoothing_matches_pytorch(eps):
    g = torch.Generator().manual_seed(0)
    logits, tgt = torch.randn(4, 9, 37, generator=g) * 3, torch.randint(4, 37, (4, 9), generator=g)
    padded = tgt.clone(); padded[1, 3:] = PAD_ID; padded[3, 7:] = PAD_ID
    for t in (tgt, padded):
        ref = F.cross_entropy(logits.reshape(-1, 37), t.reshape(-1), label_smoothing=eps, ignore_index=PAD_ID)
        torch.testing.assert_close(label_smoothing_loss(logits, t, eps), ref, rtol=1e-6, atol=1e-6)
    _, nll, n = label_smoothed_nll(logits, padded, eps)
    torch.testing.assert_close(nll / n, F.cross_entropy(logits.reshape(-1, 37), padded.reshape(-1), ignore_index=PAD_ID))

def test_label_smoothing_ignores_pad_logits():
    logits, tgt = torch.randn(2, 5, 11), torch.tensor([[5, 6, 0, 0, 0], [7, 0, 0, 0, 0]])
    other = logits.clone(); other[tgt == PAD_ID] = 1e4                      # garbage where the target is pad
    assert torch.equal(label_smoothing_loss(logits, tgt), label_smoothing_loss(other, tgt))

# --- accumulation ------------------------------------------------------------------------------------------------
def test_accumulated_gradient_equals_big_batch():
    set_seed(0)
    m = build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V, p_drop=0.0))
    ex = copy_ids(10, V, seed=5, max_len=12)
    def grads(batches):
        m.zero_grad(); accumulate_grads(m, batches)
        return [p.grad.clone() for p in m.parameters()]
    big, acc = grads([collate(ex)]), grads([collate(ex[:1]), collate(ex[1:6]), collate(ex[6:])])
    for a, b in zip(acc, big): torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)

def test_trainer_accumulation_equals_one_big_batch():
    """Trainer with accum=2 over (b0, b1) uses the same gradient as accum=1 over b0+b1 (Adam's first step is
    ~lr*sign(g), too insensitive to compare weights)."""
    class One(Batches):
        def __iter__(self): return iter([list(range(48))])
    class Two(Batches):
        def __iter__(self): return iter([list(range(20)), list(range(20, 48))])
    params = []
    for sampler, accum in ((One(96, 48), 1), (Two(96, 48), 2)):
        t = make(steps=1, p_drop=0.0, accum=accum); t.sampler = sampler; t.fit()
        params.append([p.detach().clone() for p in t.model.parameters()])
        params.append([p.grad.clone() for p in t.model.parameters()])
    for a, b in zip(params[1], params[3]): torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    assert not torch.equal(params[0][0], make(steps=1).model.src_emb.lut.weight)      # a step was taken

# --- checkpoints -------------------------------------------------------------------------------------------------
def test_checkpoint_is_atomic(tmp_path, monkeypatch):
    p = tmp_path / 'model.pt'
    save_checkpoint(p, step=1, w=torch.ones(3))
    def broken_save(obj, f): f.write(b'half a checkpoint'); raise OSError('disk full')
    monkeypatch.setattr(torch, 'save', broken_save)
    with pytest.raises(OSError, match='disk full'): save_checkpoint(p, overwrite=True, step=2, w=torch.zeros(3))
    monkeypatch.undo()
    ck = torch.load(p, weights_only=True)
    assert ck['step'] == 1 and torch.equal(ck['w'], torch.ones(3))
    assert sorted(x.name for x in tmp_path.iterdir()) == ['model.pt']                   # no temp file left

def test_checkpoint_loads_weights_only_and_rebuilds_model(tmp_path):
    t = make(tmp_path, steps=3); t.fit()
    path = RunFolder(tmp_path).latest()
    ck = torch.load(path, weights_only=True)                                  # no pickled code inside
    assert ck['format'] == _CKPT_FORMAT and ck['step'] == 3
    assert {'config', 'model', 'tokenizer', 'optimizer', 'scheduler', 'rng', 'data_pos', 'meta'} <= set(ck)
    assert set(ck['rng']) == {'torch', 'cuda', 'python', 'numpy'} and ck['data_pos']['epoch'] == 0
    model, tok, _ = model_from_checkpoint(path)
    assert tok is None and not model.training
    for (k, a), b in zip(model.state_dict().items(), t.model.state_dict().values()): assert torch.equal(a, b), k

def test_checkpoint_errors_are_one_line(tmp_path):
    with pytest.raises(FileNotFoundError, match='checkpoint not found'): open_checkpoint(tmp_path / 'x.pt', None)
    (tmp_path / 'x.pt').write_bytes(b'\x00' * 100)
    with pytest.raises(ValueError, match='x.pt is not a checkpoint') as e: open_checkpoint(tmp_path / 'x.pt', None)
    assert '\n' not in str(e.value)
    good = save_checkpoint(tmp_path / 'g.pt', step=1, w=torch.ones(1000))
    (tmp_path / 't.pt').write_bytes(good.read_bytes()[:300])                   # truncated
    with pytest.raises(ValueError, match='t.pt is cut short: its 300 bytes'): open_checkpoint(tmp_path / 't.pt', None)
    torch.save({'format': 'other'}, tmp_path / 'o.pt')
    with pytest.raises(ValueError, match='not a transformer_nb checkpoint'): open_checkpoint(tmp_path / 'o.pt', None)

def test_keep_last_n(tmp_path):
    t = make(tmp_path, steps=7, save_every=2, keep=2); t.fit()
    assert [p.name for p in RunFolder(tmp_path).checkpoints()] == ['checkpoint-0000006.pt', 'checkpoint-0000007.pt']
    assert (tmp_path / 'loss.png').is_file()

def test_rng_state_roundtrip():
    s = rng_state(); a = (torch.rand(2), random.random(), np.random.rand())
    set_rng_state(s); b = (torch.rand(2), random.random(), np.random.rand())
    assert torch.equal(a[0], b[0]) and a[1:] == b[1:]

# --- resume, NaN, Ctrl-C ------------------------------------------------------------------------------------------
class Kill(Exception): pass

def test_resume_gives_identical_losses(tmp_path):
    full = make(tmp_path / 'a', steps=9, save_every=3); full.fit()        # 6 batches per epoch: crosses an epoch
    def kill(t, stats):
        if t.step == 8: raise Kill
    with pytest.raises(Kill): make(tmp_path / 'b', steps=9, save_every=3, callbacks=[kill]).fit()
    assert RunFolder(tmp_path / 'b').latest().name == 'checkpoint-0000006.pt'
    r = make(tmp_path / 'b', steps=9, save_every=3).load(*ck(tmp_path / 'b'))
    assert (r.step, r.epoch, r.batch_idx) == (6, 0, 6)                   # saved at the end of epoch 0
    r.fit()
    assert losses(r) == losses(full) and len(losses(full)) == 9
    for a, b in zip(r.model.parameters(), full.model.parameters()): assert torch.equal(a, b)

def test_resume_rejects_other_config(tmp_path):
    make(tmp_path, steps=1).fit()
    set_seed(0)
    t = Trainer(build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V, d_ff=48)), DATA, tc=TrainConfig(progress=False),
                sampler=Batches(96, 16))
    with pytest.raises(ValueError, match='d_ff'): t.load(*ck(tmp_path))

def test_nan_loss_stops_and_keeps_last_good_checkpoint(tmp_path):
    def poison(t, stats):
        if t.step == 5:                                                    # after checkpoint 4, before 6
            with torch.no_grad(): t.model.generator.proj.weight.fill_(float('nan'))
    t = make(tmp_path, steps=10, save_every=2, callbacks=[poison])
    with pytest.raises(TrainingDiverged, match=r'loss is nan at update 6.*checkpoint-0000004.pt'): t.fit()
    assert [p.name for p in RunFolder(tmp_path).checkpoints()][-1] == 'checkpoint-0000004.pt'
    ck = torch.load(RunFolder(tmp_path).latest(), weights_only=True)
    assert all(torch.isfinite(v).all() for v in ck['model'].values())

def test_keyboard_interrupt_saves_and_resumes(tmp_path, capsys):
    full = make(tmp_path / 'a', steps=6); full.fit()
    def ctrl_c(t, stats):
        if t.step == 4: raise KeyboardInterrupt
    t = make(tmp_path / 'b', steps=6, callbacks=[ctrl_c])
    t.fit()                                                               # returns cleanly
    assert t.interrupted and 'interrupted at update 4' in capsys.readouterr().out
    assert RunFolder(tmp_path / 'b').latest().name == 'checkpoint-0000004.pt'
    r = make(tmp_path / 'b', steps=6).load(*ck(tmp_path / 'b')); r.fit()
    assert losses(r) == losses(full)

def test_interrupt_mid_update_resumes_exactly(tmp_path, monkeypatch):
    """Ctrl-C inside update 4, after its forward pass drew dropout masks: the checkpoint holds the state of the last
    completed update, random generators included, so the redone update draws the same masks."""
    full = make(tmp_path / 'a', steps=5); full.fit()
    t = make(tmp_path / 'b', steps=5)
    calls = {'n': 0}; fwd = t.model.forward
    def forward(*a, **k):
        calls['n'] += 1
        out = fwd(*a, **k)                                                # dropout (p=0.2) advances the generator
        if calls['n'] == 4: raise KeyboardInterrupt                      # during update 4 (after 3 complete)
        return out
    t.model.forward = forward; t.net = t.model
    t.fit()
    assert t.interrupted and RunFolder(tmp_path / 'b').latest().name == 'checkpoint-0000003.pt'
    r = make(tmp_path / 'b', steps=5).load(*ck(tmp_path / 'b')); r.fit()
    assert losses(r) == losses(full)

def test_validation_reports_perplexity_from_nll():
    t = make(steps=2, p_drop=0.0, valid_every=2); t.fit()
    v = t.history['valid'][-1]
    assert math.isclose(v['ppl'], math.exp(v['nll']), rel_tol=1e-9) and v['loss'] > v['nll']

# --- time limit ----------------------------------------------------------------------------------------------------
def test_max_time_stops_training_and_saves(tmp_path):
    t = make(tmp_path / 'run', steps=10**6, max_time=0.02, p_drop=0.0)       # 1.2 s of a million updates
    t.fit()
    assert t.timed_out and 0 < t.step < 10**6
    assert RunFolder(tmp_path / 'run').latest().name == f'checkpoint-{t.step:07d}.pt'   # the last update is saved
    u = make(steps=3); u.fit(); assert not u.timed_out and u.step == 3

@pytest.mark.parametrize('bad', [0, -1, float('nan'), float('inf')])
def test_max_time_must_be_positive(bad):
    with pytest.raises(ValueError, match='max_time'): TrainConfig(max_time=bad)
