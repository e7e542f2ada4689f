"""Checkpoints (lib_checkpoints) as the tools meet them, with real processes: averaging needs one config and one
tokenizer and never replaces a training checkpoint; missing, foreign, damaged, unreadable, pickled-code and not-a-file
checkpoints each get one line naming the file; a resume checks the step and the shapes."""
import os, random, shutil
import transformer_nb.lib.checkpoints as C
from pathlib import Path
import pytest, torch
from transformer_nb.lib.checkpoints import open_checkpoint
from transformer_nb.lib.runs import RunFolder
from transformer_nb.lib.safeguards import UserError
from conftest import tool, one_line, temps
from dataclasses import asdict
from transformer_nb.core import set_seed
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.checkpoints import (save_checkpoint, _check_checkpoint, resolve_checkpoint, model_from_checkpoint,
                                        rng_state, _CKPT_FORMAT)

def _variant(run, tmp_path, name, change=None, **fields):
    """A copy of the run's newest checkpoint, saved as `tmp_path/name`: `change(ck)` edits it in place; each field given
    is set (a callable gets the checkpoint and returns the value; None removes the field)."""
    ck = torch.load(RunFolder(run).latest(), weights_only=True)
    if change is not None: change(ck)
    for k, v in fields.items():
        if v is None: ck.pop(k, None)
        else: ck[k] = v(ck) if callable(v) else v
    if isinstance(ck.get('config'), dict) and 'config_sha256' in ck: ck['config_sha256'] = C.config_print(ck['config'])   # saved so, not edited after
    torch.save(ck, tmp_path / name)
    return tmp_path / name

@pytest.mark.slow   # runs the tools in fresh processes
def test_average_needs_one_config_and_one_tokenizer(run, tmp_path):
    from transformer_nb.lib.tokens import StoredTokenizer
    ck = torch.load(RunFolder(run).latest(), weights_only=True)
    n = StoredTokenizer.from_bytes(ck['tokenizer']).vocab_size
    other = StoredTokenizer.train([' '.join('zyxwvutsrq'[i % 10] for i in range(j, j + 6)) for j in range(200)], vocab_size=n)
    assert other.vocab_size == n and other.to_bytes() != ck['tokenizer']
    tok = _variant(run, tmp_path, 'tok.pt', tokenizer=other.to_bytes())
    r = tool('average', RunFolder(run).latest(), tok, '-o', tmp_path / 'avg.pt')
    one_line(r, 'tnb-average', 'different tokenizers')
    drop = _variant(run, tmp_path, 'drop.pt', config=lambda c: {**c['config'], 'p_drop': 0.3})
    one_line(tool('average', RunFolder(run).latest(), drop, '-o', tmp_path / 'avg.pt'), 'tnb-average', 'different training settings (p_drop: 0.0 vs 0.3)')
    assert not (tmp_path / 'avg.pt').exists() and temps(tmp_path) == []

@pytest.mark.slow   # runs the tools in fresh processes
def test_average_never_replaces_a_training_checkpoint(run, tmp_path):
    shutil.copytree(run, tmp_path / 'run'); newest = RunFolder(tmp_path / 'run').latest(); before = newest.read_bytes()
    for more in ([], ['--overwrite']): one_line(tool('average', tmp_path / 'run', '--last', '2', '-o', newest, *more), 'tnb-average', 'a checkpoint-<step>.pt name would pass this file off')
    one_line(tool('average', tmp_path / 'run', '--last', '2', '-o', tmp_path / 'run' / 'checkpoint-0099999.pt'), 'tnb-average', 'a checkpoint-<step>.pt name would pass this file off')
    assert newest.read_bytes() == before and [p.name for p in RunFolder(tmp_path / 'run').checkpoints()] == ['checkpoint-0000010.pt', 'checkpoint-0000020.pt']

@pytest.mark.slow   # runs the tools in fresh processes
def test_missing_or_foreign_fields_get_one_line_naming_the_file(run, tmp_path):
    r = tool('average', run, '--last', '2', '-o', tmp_path / 'avg.pt')
    assert r.returncode == 0, r.stderr
    r = tool('train', '--resume', tmp_path / 'avg.pt', '--out', tmp_path / 'x', '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', f'{tmp_path}/avg.pt lacks the optimizer, scheduler, rng and data_pos that resuming needs', 'average of checkpoints')
    cases = [('noconfig.pt', dict(config=None), 'noconfig.pt lacks the config that inference needs'),
             ('newer.pt', dict(config=lambda c: {**c['config'], 'alibi': True}), 'newer.pt: its config has fields this version does not know (alibi)'),
             ('badh.pt', dict(config=lambda c: {**c['config'], 'h': 'four'}), 'badh.pt: its config is not valid'),
             ('tok.pt', dict(tokenizer=b'not a sentencepiece model'), 'tok.pt: its tokenizer cannot be read'),
             ('shape.pt', dict(config=lambda c: {**c['config'], 'd_ff': 96}), 'shape.pt: the weights do not match the architecture in its config')]
    for name, change, msg in cases:
        one_line(tool('translate', _variant(run, tmp_path, name, **change), 'a b'), 'tnb-translate', msg)
    one_line(tool('train', '--resume', tmp_path / 'noconfig.pt', '--out', tmp_path / 'y', '--steps', '30'), 'tnb-train', 'noconfig.pt lacks the config')

def _other_tokenizer(ck):
    from transformer_nb.lib.tokens import StoredTokenizer
    ck['tokenizer'] = StoredTokenizer.train(['one two three four five six seven eight nine ten'] * 20, vocab_size=40).to_bytes()

def _nan(ck): ck['model']['decoder.0.ffn.w_1.weight'][0, 0] = float('nan')

@pytest.mark.slow   # runs the tools in fresh processes
def test_checkpoints_are_checked_against_their_use(run, tmp_path):
    class Evil:
        def __reduce__(self): return (os.system, (f'touch {tmp_path}/ran',))
    torch.save({'format': 'transformer_nb.checkpoint/1', 'model': Evil()}, tmp_path / 'evil.pt')
    one_line(tool('translate', _variant(run, tmp_path, 'tok.pt', _other_tokenizer), 'a'), 'tnb-translate',
             'its tokenizer has', 'the tokenizer belongs to another model')
    one_line(tool('translate', _variant(run, tmp_path, 'nan.pt', _nan), 'a', '--beam', '2'), 'tnb-translate',
             'nan.pt: 1 of its weight tensors hold NaN or infinite values (e.g. decoder.0.ffn.w_1.weight)')
    one_line(tool('translate', tmp_path / 'evil.pt', 'a'), 'tnb-translate', 'evil.pt was blocked: it holds pickled Python code (posix.system)')
    assert not (tmp_path / 'ran').exists()

@pytest.mark.slow   # runs the tools in fresh processes
def test_resume_checks_the_step_and_the_shapes(run, tmp_path):
    neg = _variant(run, tmp_path, 'neg.pt', lambda ck: ck.update(step=-5))
    one_line(tool('train', '--resume', neg, '--out', tmp_path / 'a', '--steps', '30', '--no-progress', '--test-limit', '0'),
             'tnb-train', 'neg.pt: its step (-5) must be whole numbers >= 0')
    def wider(ck): ck['model']['encoder.0.ffn.w_1.weight'] = torch.zeros(96, 32)
    one_line(tool('train', '--resume', _variant(run, tmp_path, 'shape.pt', wider), '--out', tmp_path / 'b', '--steps', '30',
                  '--no-progress', '--test-limit', '0'),
             'tnb-train', 'shape.pt: the weights do not match the architecture in its config (encoder.0.ffn.w_1.weight has shape (96, 32)')
    assert not list((tmp_path).glob('*/checkpoint-*.pt'))

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('make,needle', [
    (lambda d: os.mkfifo(d / 'fifo.pt') or d / 'fifo.pt', 'fifo.pt is not a regular file'),   # reading it would wait for ever
    (lambda d: Path('/dev/zero'), '/dev/zero is not a regular file'),
])
def test_a_checkpoint_that_is_no_file_is_named_for_what_it_is(tmp_path, make, needle):
    path = make(tmp_path)
    one_line(tool('translate', path, 'a', timeout=60), 'tnb-translate', needle)
    one_line(tool('train', '--resume', path, timeout=60), 'tnb-train', needle)


def _damage(path, how):
    "Damage the checkpoint file `path`: its meta a list, its schedule junk, or the file cut at 50,000 bytes (a full disk)."
    if how == 'cut': path.write_bytes(path.read_bytes()[:50_000]); return
    ck = torch.load(path, weights_only=True)
    ck.update(meta=[1, 2]) if how == 'meta' else ck.update(scheduler={'junk': 1})
    torch.save(ck, path)

@pytest.mark.slow   # runs the tools in fresh processes
@pytest.mark.parametrize('how, says', [
    ('meta', 'checkpoint-0000020.pt: its meta is a list, not a dict'),
    ('schedule', 'checkpoint-0000020.pt: its optimiser or learning-rate schedule state is damaged'),
    ('cut', 'checkpoint-0000020.pt is cut short'),
])
def test_a_damaged_newest_checkpoint_is_named_by_the_commands(folder, how, says):
    "The newest checkpoint of a run damaged: tnb-train --resume and tnb-translate name the file, never an internal error; a cut one offers the older good one."
    _damage(folder / 'checkpoint-0000020.pt', how)
    tools = [('train', ['--resume', folder, '--steps', '30', '--no-progress', '--test-limit', '0'])]
    if how != 'schedule': tools.append(('translate', [folder, 'a b']))          # translating needs no schedule
    for name, args in tools:
        line = one_line(tool(name, *args), f'tnb-{name}', says)
        assert 'internal error' not in line, line
        if how == 'cut': assert f'give {folder}/checkpoint-0000010.pt instead' in line, line

# Checkpoints (lib_checkpoints): damaged files are named as damaged, with the file, never an internal error.
def _checkpoint(path, step=4, **extra):
    set_seed(0)
    m = build_model(get_model_config('tiny', src_vocab=64, tgt_vocab=64))
    return save_checkpoint(path, format=_CKPT_FORMAT, config=asdict(m.cfg), model=m.state_dict(), optimizer={}, scheduler={},
                           step=step, rng=rng_state(), data_pos={'epoch': 0, 'batch': step}, meta={'run': 'r1'}, **extra)

@pytest.mark.parametrize('keep', [500, 50_000, -1])
def test_a_cut_checkpoint_is_named_cut_short_without_an_os_error(tmp_path, keep):
    "torch's zip reader raises OSError(EINVAL) on a file cut at 50,000 bytes: the file is named as cut short, with its size, and no OS error's text."
    whole = _checkpoint(tmp_path / 'whole.pt').read_bytes()
    (tmp_path / 'cut.pt').write_bytes(whole[:keep])
    with pytest.raises(ValueError) as e: open_checkpoint(tmp_path / 'cut.pt')
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'cut.pt'} is cut short: its {len(whole[:keep]):,} bytes are the start of a checkpoint whose end is missing"), msg
    assert 'Errno' not in msg and 'Invalid argument' not in msg and '\n' not in msg, msg

def test_a_checkpoint_of_format_1_opens_through_the_upgrade_hook(run, tmp_path):
    """A training checkpoint as the previous format wrote it (format 1: its tokenizer may be a uint8 tensor, its meta None)
    opens for resuming, upgraded by the one hook; the published models, written in format 1, open as format 3."""
    from transformer_nb.lib.checkpoints import PRETRAINED
    ck = torch.load(RunFolder(run).latest(), weights_only=True)
    old = {**ck, 'format': 'transformer_nb.checkpoint/1', 'tokenizer': torch.tensor(list(ck['tokenizer']), dtype=torch.uint8)}
    torch.save(old, tmp_path / 'v1.pt')
    c = open_checkpoint(tmp_path / 'v1.pt', 'resume')
    assert _CKPT_FORMAT == 'transformer_nb.checkpoint/4' and c.tokenizer_bytes == ck['tokenizer']   # a uint8 tensor in format 1: bytes now
    assert c.meta == ck['meta'] and c.tokenizer.vocab_size == c.config.src_vocab and c.step == ck['step']
    assert all(torch.equal(a, b) for a, b in zip(c.model().state_dict().values(), ck['model'].values()))
    torch.save({**old, 'meta': None}, tmp_path / 'v1-no-meta.pt')
    assert open_checkpoint(tmp_path / 'v1-no-meta.pt').meta == {}                    # format 1's None: no metadata
    models = Path(__file__).resolve().parents[1] / 'models'
    for name, pf in PRETRAINED.items():
        assert torch.load(models / pf.file, weights_only=True, mmap=True)['format'] == 'transformer_nb.checkpoint/1'   # as published
        assert isinstance(open_checkpoint(f'pretrained:{name}').tokenizer_bytes, bytes)

def _fused(sd:dict) -> dict:
    "`sd` as format 2 wrote it: W^Q, W^K and W^V of each attention stacked by rows in `in_proj`, W^O as `out_proj`."
    out = {}
    for k, v in sd.items():
        if '.w_q.' in k:
            pre, p = k.split('.w_q.')
            out[f'{pre}.in_proj.{p}'] = torch.cat([sd[f'{pre}.w_{n}.{p}'] for n in 'qkv'])
        elif '.w_k.' not in k and '.w_v.' not in k: out[k.replace('.w_o.', '.out_proj.')] = v
    return out

def test_a_checkpoint_of_format_2_loads_its_stacked_attention_and_refuses_to_resume(run, tmp_path):
    """A checkpoint written when attention kept one `in_proj` (format 2) opens with its weights mapped to 02's w_q, w_k,
    w_v, w_o (the same model, tensor for tensor); its optimiser state, whose moments fit the stacked matrix, is refused
    for resuming in one line that says why."""
    ck = torch.load(RunFolder(run).latest(), weights_only=True)
    old = {**ck, 'format': 'transformer_nb.checkpoint/2', 'model': _fused(ck['model'])}
    assert any('.in_proj.' in k for k in old['model']) and not any('.w_q.' in k for k in old['model'])
    torch.save(old, tmp_path / 'v2.pt')
    got = open_checkpoint(tmp_path / 'v2.pt').model().state_dict()
    assert set(got) == set(ck['model']) and all(torch.equal(got[k], v) for k, v in ck['model'].items())
    with pytest.raises(ValueError) as e: open_checkpoint(tmp_path / 'v2.pt', 'resume')
    assert str(e.value) == (f"{tmp_path / 'v2.pt'} was written when attention stacked W^Q, W^K and W^V in one in_proj (format 2): "
                            "its weights translate, evaluate and average, but its optimiser state fits no parameter of this "
                            "version, so it cannot resume")
    torch.save({k: v for k, v in old.items() if k != 'optimizer'}, tmp_path / 'v2-weights.pt')   # weights only: nothing to refuse
    assert 'fused_attention_optimizer' not in open_checkpoint(tmp_path / 'v2-weights.pt')._state

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_damaged_old_checkpoint_names_its_key_in_every_command(run, tmp_path):
    "A format-2 file with W^O missing or W^Q;W^K;W^V misshapen, and a format-3 pre-LN file whose optimiser state lacks its groups, are named in one line, exit 2 (a bare KeyError once made every command exit 70)."
    ck = torch.load(RunFolder(run).latest(), weights_only=True)
    old = {**ck, 'format': 'transformer_nb.checkpoint/2', 'model': _fused(ck['model'])}
    wo = next(k for k in old['model'] if k.endswith('.out_proj.weight'))
    wqkv = wo.replace('.out_proj.', '.in_proj.')
    for name, model, needle in (('no-wo', {k: v for k, v in old['model'].items() if k != wo}, f'model key {wo} .* is missing'),
                                ('short-qkv', {**old['model'], wqkv: old['model'][wqkv][:-1]}, f'model key {wqkv} is misshapen')):
        torch.save({**old, 'model': model}, tmp_path / f'{name}.pt')
        with pytest.raises(ValueError, match=f"{tmp_path / name}.pt is a format-2 checkpoint this version cannot upgrade: {needle}"):
            open_checkpoint(tmp_path / f'{name}.pt')
    bad = tmp_path / 'no-wo.pt'
    for cmd, argv in (('translate', [bad, 'a b']), ('evaluate', [bad]), ('average', [bad, '-o', tmp_path / 'avg.pt']),
                      ('export', [bad, '-o', tmp_path / 'ex']), ('train', ['--resume', bad])):
        one_line(tool(cmd, *argv), f'tnb-{cmd}', f'model key {wo}')
    v3 = {**ck, 'format': 'transformer_nb.checkpoint/3', 'config': {**ck['config'], 'norm_first': True, 'tie': 'none'},
          'optimizer': {'state': {}}}
    torch.save(v3, tmp_path / 'v3.pt')
    with pytest.raises(ValueError, match=r"v3\.pt is a format-3 checkpoint this version cannot upgrade: key optimizer is misshapen"):
        open_checkpoint(tmp_path / 'v3.pt')

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_config_edited_after_its_weights_is_refused(run, tmp_path):
    "A config edited to another head count loaded silently where every shape still fits: its fingerprint, kept with the weights, refuses it in every reader."
    ck = torch.load(RunFolder(run).latest(), weights_only=True)
    assert ck['config_sha256'] == C.config_print(ck['config'])
    h = next(n for n in (1, 2, 8) if n != ck['config']['h'] and ck['config']['d_model'] % n == 0)
    torch.save({**ck, 'config': {**ck['config'], 'h': h, 'd_k': None, 'd_v': None}}, tmp_path / 'h.pt')
    with pytest.raises(ValueError, match=r"h\.pt: its config was changed after the weights were saved"): open_checkpoint(tmp_path / 'h.pt')
    one_line(tool('translate', tmp_path / 'h.pt', 'a b'), 'tnb-translate', 'its config was changed after the weights were saved')

def test_model_from_checkpoint_says_what_it_takes():
    with pytest.raises(TypeError, match=r"model_from_checkpoint takes a checkpoint file, a run folder, 'pretrained:NAME', a Checkpoint or a checkpoint dict, not int 123"):
        model_from_checkpoint(123)

def test_a_meta_that_is_not_a_dict_names_the_file(tmp_path):
    ck = torch.load(_checkpoint(tmp_path / 'c.pt'), weights_only=True)
    for use in ('inference', 'resume'):
        with pytest.raises(ValueError, match=r"x\.pt: its meta is a list, not a dict"): _check_checkpoint({**ck, 'meta': [1, 2]}, 'x.pt', use)

@pytest.mark.parametrize('use', ['inference', 'resume'])
def test_an_unreadable_newest_checkpoint_is_named_with_the_newest_good_one(tmp_path, use):
    "A stray checkpoint-9999999.pt that is not a checkpoint: named, and the newest readable one offered; never skipped in silence."
    run = RunFolder(tmp_path)
    _checkpoint(run.checkpoint(4))
    run.checkpoint(9999999).write_text('not a checkpoint\n')
    with pytest.raises(ValueError) as e: resolve_checkpoint(tmp_path, use)
    msg = str(e.value)
    assert 'checkpoint-9999999.pt is not a checkpoint' in msg and f'give {run.checkpoint(4)} instead, or remove {run.checkpoint(9999999)}' in msg, msg


_PATH = "must be a checkpoint file, a run folder or 'pretrained:NAME'"
_DICT = 'ck must be what a checkpoint holds (a dict; open a file with open_checkpoint(path)), got a str'

@pytest.mark.parametrize('call, exc, says', [
    (lambda p, ck: open_checkpoint(None), TypeError, f"ref {_PATH}, got a NoneType"),
    (lambda p, ck: open_checkpoint(123), TypeError, f"ref {_PATH}, got a int"),
    (lambda p, ck: resolve_checkpoint(None), TypeError, f"ref {_PATH}, got a NoneType"),
    (lambda p, ck: open_checkpoint(p, use='train'), ValueError, "use='train' must be 'inference', 'average', 'resume' or None"),
    (lambda p, ck: save_checkpoint(None, model={}), TypeError, "path must be a file's path, got a NoneType"),
    (lambda p, ck: C.save_averaged([p], None), TypeError, "out_path must be a file's path, got a NoneType"),
    (lambda p, ck: C.Checkpoint('x.pt'), TypeError, _DICT),
    (lambda p, ck: _check_checkpoint('x.pt'), TypeError, _DICT),
    (lambda p, ck: _check_checkpoint(ck, use='x'), ValueError, "use='x' must be 'inference', 'average' or 'resume'"),
    (lambda p, ck: model_from_checkpoint(ck, device='gpu'), ValueError, "device='gpu' must be a device: 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'"),
    (lambda p, ck: open_checkpoint(p, map_location='gpu'), ValueError, "map_location='gpu' must be a device: 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'"),   # not 'corrupt or truncated'
    *([] if torch.cuda.is_available() else
      [(lambda p, ck: open_checkpoint(p, map_location='cuda'), ValueError, "map_location='cuda': CUDA is not available on this machine")]),
])
def test_checkpoints_refuse_in_the_callers_terms(tmp_path, call, exc, says):
    "A wrong type or value for a checkpoint function: one line naming the argument, never pathlib's or PyTorch's own error."
    p = _checkpoint(tmp_path / 'c.pt')
    with pytest.raises(exc) as e: call(p, torch.load(p, weights_only=True))
    assert str(e.value).startswith(says) and '\n' not in str(e.value), str(e.value)


@pytest.mark.parametrize('call, exc, says', [
    (lambda p, ck: save_checkpoint(p.parent / 'empty.pt'), ValueError, "save_checkpoint got nothing to save to "),   # was a near-empty file
    (lambda p, ck: save_checkpoint(p.parent / 'empty.pt', format=_CKPT_FORMAT), ValueError, "save_checkpoint got nothing to save"),
    (lambda p, ck: C.set_rng_state('x'), TypeError, "s must be a generator state as rng_state() returns it (a dict), got a str"),
    (lambda p, ck: C.set_rng_state({}), ValueError, "s is not a generator state as rng_state() returns it: it lacks 'torch', 'cuda', 'python', 'numpy'"),
    (lambda p, ck: C.set_rng_state({**rng_state(), 'python': [3, [1, 2], None]}), ValueError, "s is not a generator state as rng_state() returns it: its 'python' is not Python's"),
    (lambda p, ck: C._check_tokenizer(None, ck['config'], 'c.pt'), TypeError, "tok must be a StoredTokenizer, got a NoneType"),
    (lambda p, ck: C._check_tokenizer(_tok(64), 'cfg', 'c.pt'), TypeError, "cfg must be a model's config (a ModelConfig, or a checkpoint's config dict), got 'cfg'"),
    (lambda p, ck: open_checkpoint(p, map_location=-1), TypeError, "map_location=-1 must be a device ('cpu', 'cuda:0', a torch.device), a dict or a function"),  # was 'corrupt or truncated?'
    (lambda p, ck: _check_checkpoint(ck, use=['inference']), ValueError, "use=['inference'] must be 'inference', 'average' or 'resume'"),
    (lambda p, ck: C._check_weights(ck, 'c.pt', model='m'), TypeError, "model must be a Transformer, got a str"),
    (lambda p, ck: C._check_weights({}, 'c.pt'), ValueError, "c.pt: its config and model are missing or not a dict"),
    (lambda p, ck: C.average_checkpoints(3.0), TypeError, "paths must be a list of checkpoint files, got a float"),
    (lambda p, ck: C.average_checkpoints([p, None]), TypeError, "paths[1] must be a checkpoint file, got a NoneType"),
    (lambda p, ck: C.save_averaged([p, None], p.parent / 'avg.pt'), TypeError, "paths[1] must be a checkpoint file, got a NoneType"),
    (lambda p, ck: C._pretrained_path(['numbers']), ValueError, "no published model ['numbers']: the names are"),
])
def test_more_checkpoint_functions_refuse_in_the_callers_terms(tmp_path, call, exc, says):
    p = _checkpoint(tmp_path / 'c.pt')
    with pytest.raises(exc) as e: call(p, torch.load(p, weights_only=True))
    assert str(e.value).startswith(says) and '\n' not in str(e.value), str(e.value)
    assert not (tmp_path / 'empty.pt').exists()

def _tok(n):
    "A stand-in with the one thing _check_tokenizer reads."
    return type('Tok', (), {'vocab_size': n})()

def test_check_tokenizer_takes_a_config_or_its_dict():
    cfg = get_model_config('tiny', src_vocab=64, tgt_vocab=64)
    assert C._check_tokenizer(_tok(64), cfg, 'x') is not None and C._check_tokenizer(_tok(64), asdict(cfg), 'x') is not None
    with pytest.raises(ValueError, match='x: its tokenizer has 63 pieces'): C._check_tokenizer(_tok(63), cfg, 'x')

def test_save_checkpoint_names_a_file_in_the_way_and_makes_no_folder(tmp_path):
    "A folder that is a file was a raw FileExistsError ([Errno 17]); one deeper, a raw NotADirectoryError. A missing folder is refused as the commands refuse it (`check_parent`), never made."
    (tmp_path / 'f').write_text('x')
    for target in (tmp_path / 'f' / 'c.pt', tmp_path / 'f' / 'sub' / 'c.pt'):
        with pytest.raises(UserError) as e: save_checkpoint(target, step=1)
        assert str(e.value) == f"path {target}: {tmp_path / 'f'} is a file, not a folder", str(e.value)
    with pytest.raises(UserError) as e: save_checkpoint(tmp_path / 'new' / 'sub' / 'c.pt', step=1)
    assert str(e.value) == f"path {tmp_path / 'new' / 'sub' / 'c.pt'}: the folder {tmp_path / 'new' / 'sub'} does not exist" and not (tmp_path / 'new').exists()

def test_average_builds_no_model_and_averages_bit_for_bit(tmp_path):
    """The architecture check of averaging takes its shapes from a model built on the meta device: no weights allocated or
    initialised, so no random number is drawn. The average itself is unchanged: the float32 sum in the order given, divided
    by the count, cast back; tied tensors stay one tensor."""
    paths = []
    for i in range(3):
        set_seed(i)
        m = build_model(get_model_config('tiny', src_vocab=64, tgt_vocab=64)).to(torch.bfloat16 if i == 2 else torch.float32)
        paths.append(save_checkpoint(tmp_path / f'c{i}.pt', config=asdict(m.cfg), model=m.state_dict(), step=10 * (i + 1), meta={'run': 'r1'}))
    sds = [open_checkpoint(p, None).weights for p in paths]
    set_seed(123); before = (torch.get_rng_state(), torch.rand(1))
    set_seed(123)
    avg = C.average_checkpoints(paths)
    assert torch.equal(torch.get_rng_state(), before[0]) and torch.equal(torch.rand(1), before[1])   # nothing drawn
    for k, v in sds[-1].items():
        want = v if not v.is_floating_point() else (sum((sd[k].float() for sd in sds[1:]), sds[0][k].float().clone()) / 3).to(v.dtype)
        assert avg['model'][k].dtype == v.dtype and torch.equal(avg['model'][k], want), k
    assert avg['model']['src_emb.lut.weight'] is avg['model']['generator.proj.weight']
    assert avg['meta']['averaged_steps'] == [10, 20, 30]
    bad = torch.load(paths[0], weights_only=True); bad['model']['encoder.0.ffn.w_1.weight'] = torch.zeros(3, 3)
    torch.save(bad, tmp_path / 'bad.pt')                              # the same protection: a shape the config does not describe
    with pytest.raises(ValueError, match=r'bad\.pt: the weights do not match the architecture in its config \(encoder\.0\.ffn\.w_1\.weight has shape \(3, 3\)'):
        C.average_checkpoints([tmp_path / 'bad.pt', paths[1]])
    with pytest.raises(ValueError, match=r"cannot average .*c0\.pt and .*bad\.pt: different architectures \(tensor 'encoder\.0\.ffn\.w_1\.weight': shape"):
        C.average_checkpoints([paths[0], tmp_path / 'bad.pt'])


# Damage (lib_checkpoints): every zip record of a checkpoint carries a CRC-32, checked once as the file is opened, before
# torch.load (which checks none): a damaged file is refused in one line that names it and the record, exit code 2.
def _flip(src, dst, record:str, every:int=64) -> Path:
    "A copy of `src` with every `every`-th byte of its zip record `record` flipped: what a bad disk or a bad copy leaves."
    import zipfile
    b = bytearray(Path(src).read_bytes())
    with zipfile.ZipFile(src) as z: info = z.getinfo(record)
    at = info.header_offset
    start = at + 30 + int.from_bytes(b[at + 26:at + 28], 'little') + int.from_bytes(b[at + 28:at + 30], 'little')
    for i in range(start, start + info.compress_size, every): b[i] ^= 0xFF
    Path(dst).write_bytes(bytes(b))
    return Path(dst)

def _model_records(path) -> int:
    "How many zip records the model's tensors take: they are written first, one per storage (tied weights share one)."
    return len({v.untyped_storage().data_ptr() for v in open_checkpoint(path, None, mmap=True).weights.values()})

@pytest.mark.slow   # runs the tools in fresh processes
def test_damaged_weights_are_refused_before_a_tensor_is_used(numbers, tmp_path):
    """Every 64th byte of a tensor record flipped: tnb-translate printed an empty line (exit 0), or ended in an internal
    error's IndexError (exit 70). The damage is one that torch.load reads right past; the command now says 'damaged'."""
    good = RunFolder(numbers).latest()
    want = torch.load(good, weights_only=True)['model']
    for i, record in enumerate(('archive/data/0', f'archive/data/{_model_records(good) // 2}')):   # the first tensor, one in the middle
        bad = _flip(good, tmp_path / f'bad{i}.pt', record)
        got = torch.load(bad, weights_only=True)['model']                     # loads without a word: the damage is in the weights
        assert any(not torch.equal(got[k], v) for k, v in want.items()), record
        line = one_line(tool('translate', bad, 'seven'), 'tnb-translate', f'{bad} is damaged: its record {record} does not match the CRC-32')
        assert 'internal error' not in line, line

@pytest.mark.slow   # runs the tools in fresh processes
def test_damaged_adam_moments_are_never_resumed_from(folder, tmp_path):
    "Damage in the optimiser's state alone: torch.load gives the same weights and other moments; tnb-train --resume refuses the file, writing nothing."
    newest = RunFolder(folder).latest()
    record = f'archive/data/{_model_records(newest)}'                         # the first record after the model's: Adam's
    was = torch.load(newest, weights_only=True)
    _flip(newest, newest, record)
    now = torch.load(newest, weights_only=True)
    assert all(torch.equal(now['model'][k], v) for k, v in was['model'].items())                      # the weights are whole
    moments = lambda ck: [t for s in ck['optimizer']['state'].values() for t in s.values() if isinstance(t, torch.Tensor)]
    assert any(not torch.equal(a, b) for a, b in zip(moments(now), moments(was)))                      # the moments are not
    before = sorted(p.name for p in folder.iterdir())
    r = tool('train', '--resume', newest, '--steps', '30', '--no-progress', '--test-limit', '0')
    one_line(r, 'tnb-train', f'{newest} is damaged: its record {record} does not match the CRC-32')
    assert sorted(p.name for p in folder.iterdir()) == before and temps(folder) == []

@pytest.mark.slow   # runs the tools in fresh processes
def test_a_zeroed_tail_is_damage_and_a_cut_file_is_cut_short(numbers, tmp_path):
    "The whole length, its last 4 KiB zeros (a crash that never wrote them): damaged. The same bytes without that tail: cut short."
    b = RunFolder(numbers).latest().read_bytes()
    (tmp_path / 'zeros.pt').write_bytes(b[:-4096] + bytes(4096)); (tmp_path / 'cut.pt').write_bytes(b[:-4096])
    line = one_line(tool('translate', tmp_path / 'zeros.pt', 'seven'), 'tnb-translate', f"{tmp_path / 'zeros.pt'} is damaged: its last")
    assert 'cut short' not in line, line
    one_line(tool('translate', tmp_path / 'cut.pt', 'seven'), 'tnb-translate', f"{tmp_path / 'cut.pt'} is cut short: its {len(b) - 4096:,} bytes")


# One opener, one line: the five commands open a checkpoint through `open_checkpoint`, so each fault is said in the same
# words, with exit code 2, whichever command meets it. Run in this process: the tools' mains, as their entry points call them.
FAULTS = {   # fault -> (make the file or folder in d from the run's newest checkpoint, what the line says of it)
    'missing': (lambda d, ck: d / 'nope.pt', 'checkpoint not found: {p}'),
    'not a checkpoint': (lambda d, ck: (d / 'random.pt').write_bytes(random.Random(0).randbytes(5000)) and d / 'random.pt',
                         '{p} is not a checkpoint: not a file written by torch.save'),
    'empty': (lambda d, ck: (d / 'empty.pt').write_bytes(b'') or d / 'empty.pt', '{p} is empty: not a checkpoint'),
    'cut short': (lambda d, ck: (d / 'cut.pt').write_bytes(ck.read_bytes()[:50_000]) and d / 'cut.pt', '{p} is cut short: its 50,000 bytes'),
    'damaged': (lambda d, ck: _flip(ck, d / 'flipped.pt', 'archive/data/0'),
                '{p} is damaged: its record archive/data/0 does not match the CRC-32 written with it'),
    'a folder without checkpoints': (lambda d, ck: (d / 'empty-run').mkdir() or d / 'empty-run', '{p} holds no checkpoint-<step>.pt files'),
}
COMMANDS = {   # command -> its arguments, given the checkpoint p and a folder d to write in
    'train': lambda p, d: ['--resume', p, '--steps', '30', '--no-progress', '--test-limit', '0', '--threads', '1'],
    'translate': lambda p, d: [p, 'a b', '--threads', '1'],
    'evaluate': lambda p, d: [p, '--src', d / 'src.txt', '--ref', d / 'src.txt', '--threads', '1'],
    'average': lambda p, d: [p, '-o', d / 'avg.pt'],
    'export': lambda p, d: [p, '-o', d / 'exported'],
}

@pytest.mark.parametrize('fault', FAULTS)
def test_each_fault_is_one_line_and_exit_2_in_every_command(run, tmp_path, capsys, fault):
    import transformer_nb.apps.cli as cli
    make, says = FAULTS[fault]
    p = make(tmp_path, RunFolder(run).latest()); (tmp_path / 'src.txt').write_text('a b\n')
    said = {}
    for name, args in COMMANDS.items():
        with pytest.raises(SystemExit) as e: getattr(cli, f'{name}_main')([str(a) for a in args(p, tmp_path)])
        lines = [l for l in capsys.readouterr().err.splitlines() if ': error: ' in l or 'Traceback' in l]
        assert e.value.code == 2 and len(lines) == 1 and lines[0].startswith(f'tnb-{name}: error: '), (name, e.value.code, lines)
        said[name] = lines[0].split(': error: ', 1)[1]
    assert len(set(said.values())) == 1, said                                   # the same line, word for word
    assert said['translate'].startswith(says.format(p=p)), said['translate']
    assert not (tmp_path / 'avg.pt').exists() and not (tmp_path / 'exported').exists() and temps(tmp_path) == []


# tnb-average beside a live run (lib_checkpoints' `average_run`): a checkpoint pruned between the listing and its reading
# is never named as missing; the folder is listed again, and if it keeps changing the command says so.
def test_average_lists_a_live_run_again_when_it_prunes(folder, tmp_path, capsys, monkeypatch):
    import transformer_nb.apps.cli as cli
    run, real = RunFolder(folder), C.open_checkpoint
    def saves(src, step): torch.save({**torch.load(src, weights_only=True), 'step': step}, run.checkpoint(step))   # the live run's next checkpoint
    def a_live_run(ref, use='inference', **kw):                 # as the oldest listed is read, the run saves 30 and prunes 10
        if Path(ref) == run.checkpoint(10) and not run.checkpoint(30).exists():
            saves(run.checkpoint(20), 30); run.checkpoint(10).unlink()
        return real(ref, use, **kw)
    monkeypatch.setattr(C, 'open_checkpoint', a_live_run)
    with pytest.raises(SystemExit) as e: cli.average_main([str(folder), '--last', '2', '-o', str(tmp_path / 'avg.pt')])
    out, err = capsys.readouterr()
    assert e.value.code == 0 and 'checkpoint-0000020.pt, checkpoint-0000030.pt' in out and 'not found' not in err, (out, err)
    assert [Path(p).name for p in real(tmp_path / 'avg.pt').meta['averaged_from']] == ['checkpoint-0000020.pt', 'checkpoint-0000030.pt']
    def pruned_every_time(ref, use='inference', **kw):          # a newer one saved, the one being read pruned, every time
        n = max(int(q.stem.split('-')[1]) for q in run.checkpoints()); saves(ref, n + 10); Path(ref).unlink()
        return real(ref, use, **kw)
    monkeypatch.setattr(C, 'open_checkpoint', pruned_every_time)
    with pytest.raises(SystemExit) as e: cli.average_main([str(folder), '--last', '1', '-o', str(tmp_path / 'gone.pt')])
    err = capsys.readouterr().err
    assert e.value.code == 2 and f'{folder} changed while its checkpoints were read' in err and 'not found' not in err, err
    assert not (tmp_path / 'gone.pt').exists()


# Run identity: a checkpoint of another run placed among a run's checkpoints is named, never taken for this run's own.
def _of_run(path, step, run_id):
    set_seed(0)
    m = build_model(get_model_config('tiny', src_vocab=64, tgt_vocab=64))
    Path(path).unlink(missing_ok=True)                                     # a run's checkpoint is never replaced but by its run: the test's own setup
    return save_checkpoint(path, format=_CKPT_FORMAT, config=asdict(m.cfg), model=m.state_dict(), optimizer={}, scheduler={},
                           step=step, rng=rng_state(), data_pos={'epoch': 0, 'batch': step}, meta={'run': run_id})

def test_another_runs_checkpoint_placed_as_the_newest_is_refused_alike(tmp_path):
    "Decoding, averaging and resuming the folder all refuse it in the same line (the folder mixes two runs), naming both files."
    run = RunFolder(tmp_path)
    _of_run(run.checkpoint(20), 20, 'r1'); _of_run(run.checkpoint(40), 40, 'r2')
    want = (f"{run.checkpoint(40)} comes from another run (r2) than checkpoint-0000020.pt beside it (r1): the folder mixes two runs; "
            "give the checkpoint file you mean, or move the other run's file out")
    for use in ('inference', 'resume'):
        with pytest.raises(ValueError) as e: resolve_checkpoint(tmp_path, use)
        assert str(e.value) == want, str(e.value)
    with pytest.raises(ValueError) as e: C.average_run(tmp_path, tmp_path / 'avg.pt', last=2)
    assert str(e.value) == want and not (tmp_path / 'avg.pt').exists()
    assert resolve_checkpoint(run.checkpoint(40)) == (run.checkpoint(40), 'the file given')   # the file itself, given: used
    _of_run(run.checkpoint(60), 60, 'r2')                                  # two of r2's, and r1's older one: r2's folder now, said plainly
    assert resolve_checkpoint(tmp_path) == (run.checkpoint(60), "the newest checkpoint of the folder")

def test_a_renamed_checkpoint_is_never_taken_for_the_newest(tmp_path):
    "checkpoint-0000020.pt renamed checkpoint-0000099.pt: its name says 99, it holds 20; decoding, averaging and resuming the folder refuse it alike."
    run = RunFolder(tmp_path)
    _of_run(run.checkpoint(20), 20, 'r1'); _of_run(run.checkpoint(40), 40, 'r1')
    run.checkpoint(20).rename(run.checkpoint(99))
    for use in ('inference', 'resume'):
        with pytest.raises(ValueError) as e: resolve_checkpoint(tmp_path, use)
        assert str(e.value) == (f"{run.checkpoint(99)}: its name says update 99, but it holds update 20 (it was renamed): a run folder stands "
                                "for its newest checkpoint by the update it holds; name it checkpoint-0000020.pt again, or give the file itself"), str(e.value)
    with pytest.raises(ValueError, match='its name says update 99, but it holds update 20'): C.average_run(tmp_path, tmp_path / 'a.pt', last=2)
    with pytest.raises(ValueError, match='its name says update 99, but it holds update 20'): C.average_run([run.checkpoint(40), run.checkpoint(99)], tmp_path / 'b.pt')
    run.checkpoint(99).rename(run.checkpoint(20))
    assert resolve_checkpoint(tmp_path)[0] == run.checkpoint(40)
    _of_run(run.checkpoint(10_000_000), 10_000_000, 'r1')                   # past 10 million updates: ordered by the number, not the name
    assert resolve_checkpoint(tmp_path)[0] == run.checkpoint(10_000_000) and run.checkpoints()[-2:] == [run.checkpoint(40), run.checkpoint(10_000_000)]

def test_resume_names_another_runs_later_files_as_another_runs(tmp_path):
    "Resuming update 20 of run r1 where a checkpoint of update 40 of run r2 lies: 'another run's files', never 'a later continuation of this run'."
    from transformer_nb.lib.runs import RunConflict
    run = RunFolder(tmp_path)
    _of_run(run.checkpoint(20), 20, 'r1'); _of_run(run.checkpoint(40), 40, 'r2')
    with pytest.raises(RunConflict) as e:
        with run.claim(20, run.checkpoint(20)): pass
    assert not e.value.later and f"{tmp_path} holds another run's files (checkpoint-0000040.pt)" in str(e.value), str(e.value)
    _of_run(run.checkpoint(40), 40, 'r1')                                  # this run's own later file: a later continuation, as before
    with pytest.raises(RunConflict) as e:
        with run.claim(20, run.checkpoint(20)): pass
    assert e.value.later and 'a later continuation of this run' in str(e.value), str(e.value)
    assert [p.name for p in run.checkpoints()] == ['checkpoint-0000020.pt', 'checkpoint-0000040.pt']

def test_average_last_n_over_a_shorter_run_takes_what_it_holds(folder, tmp_path, capsys):
    "`tnb-average RUN --last 5` after a trial that wrote two checkpoints once exited 2 ('fewer than the 5 asked for'); it averages those two and says so in one line (the cluster page's step 6 after a short run)."
    import transformer_nb.apps.cli as cli
    with pytest.raises(SystemExit) as e: cli.average_main([str(folder), '--last', '5', '-o', str(tmp_path / 'avg5.pt')])
    out, err = capsys.readouterr()
    assert e.value.code == 0 and 'averaged 2 checkpoints (checkpoint-0000010.pt, checkpoint-0000020.pt)' in out, (out, err)
    assert err.strip().splitlines() == [f"tnb-average: {folder} holds 2 checkpoint-<step>.pt files, fewer than the 5 asked for: using those 2"], err
    assert C.open_checkpoint(tmp_path / 'avg5.pt', None).meta['averaged_steps'] == [10, 20]
