"""Run folders, resumes and streams under interference, with real processes: an interrupt that lands while an update is
applied still resumes bit for bit with the run's own settings; links planted in a run folder while it trains are
replaced, never followed; a stopped translation keeps what it wrote; records and errors name what they are about.

Each test runs the command-line tools as a user does (a fresh interpreter per command, one thread, tiny copy-task
models); hooks injected into the child (`code=`) only decide *when* something happens (a signal, a pause), never what
the tools do about it."""
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest, torch
from transformer_nb.checkpoints import load_checkpoint
from conftest import ENV, TINY, cmd, tool, tiny_run, one_line, said, default_signals
pytestmark = pytest.mark.slow        # every test here starts the tools in fresh processes

@pytest.fixture(scope='module')
def run(tmp_path_factory):
    "A tiny copy-task run of two updates."
    return tiny_run(tmp_path_factory, 'folders', '--steps', '2')

def _weights(path) -> dict: return load_checkpoint(path)['model']

# In the child: a SIGINT sent while the optimiser applies update 8, after the weights changed and before the schedule and
# the update count did: the one moment when an interrupt could leave a checkpoint that is half one update, half the next.
_MID_UPDATE = ("import os, signal, torch.optim.lr_scheduler as L; _s = L.LambdaLR.step\n"
               "def _step(self, *a, **k):\n"
               "    if self.last_epoch == 7: os.kill(os.getpid(), signal.SIGINT)\n"
               "    return _s(self, *a, **k)\n"
               "L.LambdaLR.step = _step")

def test_an_interrupt_while_an_update_is_applied_resumes_bit_for_bit(tmp_path):
    opts = ['--steps', '12', '--keep', '0', '--max-tokens', '500', '--save-every', '5', '--valid-every', '0']   # none the default
    whole, cut = tmp_path / 'whole', tmp_path / 'cut'
    assert tool('train', *TINY, *opts, '--out', whole).returncode == 0
    r = subprocess.run(cmd('train', *TINY, *opts, '--out', cut, code=f"exec({_MID_UPDATE!r})"), capture_output=True,
                       env=ENV, stdin=subprocess.DEVNULL, preexec_fn=default_signals, timeout=300)
    assert r.returncode == 130, r.stderr[-2000:]
    r = tool('train', '--resume', cut, '--no-progress', '--test-limit', '0')     # no options: the run's own are restored
    assert r.returncode == 0, r.stderr[-3000:]
    names = sorted(p.name for p in cut.glob('checkpoint-*.pt'))
    assert names == [f'checkpoint-{s:07d}.pt' for s in (5, 8, 10, 12)], names    # --keep 0 kept every one, --save-every 5 went on
    assert not (cut / 'average.pt').exists()
    a, b = _weights(whole / 'checkpoint-0000012.pt'), _weights(cut / 'checkpoint-0000012.pt')
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a), [k for k in a if not torch.equal(a[k], b[k])][:3]
    assert load_checkpoint(cut / 'checkpoint-0000012.pt')['meta']['train_config']['max_tokens'] == 500

# In the child: before update 9, wait (at most a minute) until the test has planted its links and created GO.
_PAUSE = ("import os, time, transformer_nb.trainer as T; _u = T.Trainer.update\n"
          "def _update(self, *a, **k):\n"
          "    if self.step == 8:\n"
          "        print('PAUSED', flush=True); end = time.time() + 60\n"
          "        while not os.path.exists(os.environ['GO']) and time.time() < end: time.sleep(0.05)\n"
          "    return _u(self, *a, **k)\n"
          "T.Trainer.update = _update")

def test_links_planted_while_a_run_trains_are_replaced_never_followed(tmp_path):
    out, victim, go = tmp_path / 'run', tmp_path / 'victim.txt', tmp_path / 'GO'
    victim.write_text('precious\n')
    p = subprocess.Popen(cmd('train', *TINY, '--steps', '16', '--save-every', '8', '--valid-every', '8', '--keep', '0',
                             '--out', out, code=f"exec({_PAUSE!r})"), env={**ENV, 'GO': str(go)}, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline() and 'PAUSED' in ''.join(iter(p.stdout.readline, 'PAUSED\n')) + 'PAUSED'
        assert (out / 'checkpoint-0000008.pt').is_file() and (out / 'log.jsonl').is_file()
        for name in ('log.jsonl', 'loss.png', 'checkpoint-0000016.pt'):       # the names it writes next are predictable
            (out / name).unlink(missing_ok=True); (out / name).symlink_to(victim)
        go.touch(); rest, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None: p.kill()
    assert p.returncode == 0, err[-3000:]
    assert victim.read_text() == 'precious\n'
    assert not [q.name for q in out.iterdir() if q.is_symlink()]
    assert load_checkpoint(out / 'checkpoint-0000016.pt')['step'] == 16 and (out / 'loss.png').read_bytes()[:4] == b'\x89PNG'
    assert [json.loads(l)['valid']['step'] for l in (out / 'log.jsonl').read_text().splitlines()] == [16]
    assert any('log.jsonl had been replaced by a symbolic link' in l and 'not followed' in l for l in said(err)), err

# In the child: EOS never wins, so every sentence decodes to its length limit: decoding takes a while, whatever was learned.
_NO_EOS = ("import transformer_nb.fast_decoding as f, transformer_nb.decoding as d; _n = d.next_token_logits\n"
           "def _no_eos(model, logits):\n    logits = _n(model, logits).clone(); logits[:, 3] = -float('inf'); return logits\n"
           "f.next_token_logits = d.next_token_logits = _no_eos")

def test_sigterm_keeps_the_translations_already_written(run, tmp_path):
    src = tmp_path / 'src.txt'; src.write_text('a b c\n' * 1500)
    p = subprocess.Popen(cmd('translate', run, '-i', src, '--beam', '1', code=f"exec({_NO_EOS!r})"), env=ENV,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_signals)
    try:
        first = p.stdout.read1(1 << 16)                    # the first batch's lines, written as soon as they were decoded
        p.send_signal(signal.SIGTERM)
        rest, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None: p.kill()
    kept = (first + rest).decode().splitlines()
    assert p.returncode == 143, (p.returncode, err[-2000:])
    from transformer_nb import commands
    assert 0 < len(kept) < 1500 and len(kept) % getattr(commands, 'FILE_BATCH', 5000) == 0, len(kept)   # whole batches, in order
    assert said(err.decode())[-1] == 'tnb-translate: interrupted (SIGTERM)', err[-2000:]

def test_records_name_their_split_and_errors_name_the_file(run, tmp_path):
    res = tmp_path / 'results.json'
    r = tool('evaluate', run, '--split', 'valid', '--beam', '1', '--record', res)
    assert r.returncode == 0, r.stderr[-3000:]
    [rec] = json.loads(res.read_text())
    assert (rec['split'], rec['test_set'], rec['decoding']) == ('valid', 'copy-valid-x-x', 'greedy')
    assert rec['run'] and rec['run'][:6] in rec['id'] and 'valid' in rec['id'] and 'beam1' in rec['id']
    ck = load_checkpoint(run / 'checkpoint-0000002.pt')         # weights turned into whole numbers: a damaged file
    ck['model'] = {k: v.long() if v.is_floating_point() else v for k, v in ck['model'].items()}
    bad = tmp_path / 'int64.pt'; torch.save(ck, bad)
    pytest.importorskip('ctranslate2')
    r = tool('export', '--ctranslate2', bad, '-o', tmp_path / 'exported')
    one_line(r, 'tnb-export', f'{bad}: its tensor', 'torch.int64', 'edited or damaged')
    assert not (tmp_path / 'exported').exists()

def test_a_gzip_bomb_and_a_tiny_vocabulary_get_one_line_in_our_terms(run, tmp_path):
    import gzip
    bomb = tmp_path / 'test.de.gz'; bomb.write_bytes(gzip.compress(b'a b\n' * (40 << 20), compresslevel=9))   # 160 MiB in ~160 KiB
    r = tool('evaluate', run, '--src', bomb, '--ref', bomb, timeout=120)
    one_line(r, 'tnb-evaluate', f'{bomb}: expands to more than', 'over 200 times its size')
    r = tool('translate', run, '-i', bomb, timeout=120)                         # streamed, and refused before decoding
    one_line(r, 'tnb-translate', f'-i {bomb}: expands to more than', 'over 200 times its size'); assert not r.stdout
    src, tgt = tmp_path / 'train.src', tmp_path / 'train.tgt'
    src.write_text('wö ä ü ß 中 é\n' * 20); tgt.write_text('x y\n' * 20)
    r = tool('train', '--dataset', 'files', '--train', src, tgt, '--vocab-size', '8', '--byte-fallback', '--out', tmp_path / 'r',
             '--no-progress', '--test-limit', '0')
    line = one_line(r, 'tnb-train', 'a vocabulary of 8 pieces is too small', '--vocab-size', '--no-byte-fallback')
    assert 'character_coverage' not in line and '.cc' not in line, line       # never SentencePiece's own options and sources
