#!/usr/bin/env python
"""Training speed against OpenNMT-py 3.5.1 (lib_benchmarks): target tokens per second of training updates on Multi30k
de->en, the same configuration, the same pieces, the same batches and the same starting weights, one and two CPU threads.

Not a test: it prints figures and, with --json, stores them (results/train_bench.json, shown in lib_benchmarks).

    python bench/bench_train_peers.py --peer-python ../onmt-venv/bin/python --same-torch-python \\
        ../onmt-venv-sametorch/bin/python --threads 1 2 --batches 12 --repeats 3 --own-steps 40 --json results/train_bench.json
    python bench/bench_train_peers.py --batches 4 --repeats 1          # a quick trial ($ONMT_PYTHON set)

OpenNMT-py runs in its own virtual environment, outside the repository: `--peer-python`, else `$ONMT_PYTHON`
(bench/peer_opennmt.py says how to make it). The data folder is `--data-dir`, else `$TNB_MULTI30K`, else the first
`shared/data/multi30k` in or above the repository.

What is compared, like for like:
- the model: `mini` pre-LN (OpenNMT-py's Transformer is pre-LN only) with the dropout OpenNMT-py has, 0.1 on each
  sub-layer's output and after the FFN's ReLU (`p_ffn`), none on the attention weights; shared embeddings and output
  layer. Our weights are ported into OpenNMT-py (`peer_opennmt.py convert`), and the first batch's loss with dropout off
  is printed for both: the same number says both compute the same function;
- the pieces and batches: one SentencePiece model (8000 pieces, learned on the training set), the first `--batches`
  batches of an epoch of our `DistributedTokenBatchSampler` at `--max-tokens`, padded the same way, handed to both;
- an update: ours is `Trainer.update` (what `tnb-train` runs: collate, forward, label-smoothed loss, backward, gradient
  norm, Adam, schedule); OpenNMT-py's is what its `Trainer._gradient_accumulation` does (model, `LossCompute` with its
  statistics, `Optimizer.backward`, `Optimizer.step`), with the same Adam, noam schedule and label smoothing 0.1.

Two more systems on the same batches, in the same rounds: `ours without the CPU speed-ups` is `Trainer.update` with the
trainer's CPU speed-ups undone (`Trainer.speedups(False)`, lib_trainer: `nn.Dropout`, the plain output layer and
PyTorch's choice of attention kernel; both sides compute 09's loss), the baseline that says what they bring (`--no-plain` leaves it out);
`opennmt-py, our torch` (`--same-torch-python`) is OpenNMT-py in a second environment on the torch ours runs on
(bench/peer_opennmt.py says how to make it), which separates what the code does from what the PyTorch release does
(recent releases draw CPU dropout masks more slowly than 2.2).

With `--own-steps S` it also times each system end to end with its own data pipeline and batching, as a user runs it:
ours is `train_model` (what `tnb-train` runs: the pre-encoded pairs, `DistributedTokenBatchSampler`, the update loop), OpenNMT-py
is `onmt_train` on the same pieces written as text (its own readers, bucketing and batching at `-batch_type tokens
-batch_size --max-tokens`, its default data workers), both for S updates with no validation and no checkpoint. The
figure is the median over the intervals of 10 updates after the first 10 of target tokens per second of wall time, as
OpenNMT-py reports it every 10 updates; the first interval holds start-up.

Each repeat times all the batches once per system, the systems in turn (their order alternating); the figure is the
median over repeats of target tokens (BOS excluded, padding excluded) per second, and the ratio is between medians of
the same run. The first pass of each system is a warm-up and is not timed. The load average before and after is stored.
"""
import argparse, copy, dataclasses, datetime, json, os, platform, re, statistics, subprocess, sys, tempfile, time
from pathlib import Path
import torch
from _common import ROOT, command, load_average
from bench_peers import peer_python, write_stubs
from peer_opennmt import train_args, ONMT_SPECIALS
from transformer_nb.core import set_seed, PAD_ID
from transformer_nb.lib.machine import hardware, git_commit, limit_threads
from transformer_nb.lib.tokens import StoredTokenizer, encode_corpus, DistributedTokenBatchSampler, pad_pairs
from transformer_nb.lib.datasets import load_dataset, find_multi30k
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.trainer import Trainer
from transformer_nb.lib.options import TrainConfig

OURS, PEER, PLAIN, SAME = 'ours', 'opennmt-py', 'ours without the CPU speed-ups', 'opennmt-py, our torch'

class PeerTrainer:
    "OpenNMT-py's training updates in its own interpreter (bench/peer_opennmt.py train), timed inside that process."
    def __init__(self, python, model, tok, train:dict, batches:list, workdir:Path):
        env = {**os.environ, 'TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD': '1', 'PYTHONWARNINGS': 'ignore'}
        env.pop('PYTHONPATH', None)                                      # nothing of ours in OpenNMT-py's process
        if stubs := write_stubs(python, env, workdir): env['PYTHONPATH'] = str(stubs)
        workdir.mkdir(parents=True, exist_ok=True)
        ours, onmt = workdir / 'ours.pt', workdir / 'opennmt.pt'
        torch.save({"config": dataclasses.asdict(model.cfg), 'model': model.state_dict(),
                    'tokenizer': torch.frombuffer(bytearray(tok.to_bytes()), dtype=torch.uint8)}, ours)
        script = str(ROOT / 'bench' / 'peer_opennmt.py')
        r = subprocess.run([python, script, 'convert', str(ours), str(onmt)], env=env, capture_output=True, text=True)
        if r.returncode: sys.exit(f"OpenNMT-py conversion failed: {(r.stderr.strip().splitlines() or [r.returncode])[-1]}")
        self.version, self.torch = subprocess.run([python, '-c', 'import onmt, torch; print(onmt.__version__, torch.__version__)'],
                                                  env=env, capture_output=True, text=True).stdout.split()
        self.p = subprocess.Popen([python, script, 'train', str(onmt)], env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.info = self._ask(dict(train=train, batches=[[s.tolist(), t.tolist()] for s, t in batches]))
    def _ask(self, q:dict) -> dict:
        self.p.stdin.write(json.dumps(q) + '\n'); self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line: sys.exit("the OpenNMT-py process ended without an answer (run bench/peer_opennmt.py train by hand to see why)")
        return json.loads(line)
    def __call__(self, threads:int) -> float: return self._ask(dict(threads=threads))['seconds']
    def close(self): self.p.stdin.close(); self.p.wait()

class OurTrainer:
    """`Trainer.update` over the same batches (lists of example indices into the encoded pairs); `plain=True` undoes the
    trainer's speed-ups (`Trainer.speedups(False)`, lib_trainer), for the baseline measured in the same run."""
    def __init__(self, model, pairs, groups, tc, plain:bool=False):
        self.trainer, self.groups = Trainer(model, pairs, None, tc=tc, say=lambda msg: None), groups
        if plain: self.trainer.speedups(False)
    def loss0(self) -> float:
        "The first batch's mean label-smoothed loss with dropout off, before any update."
        from transformer_nb.training import seq2seq_loss
        src, tgt = pad_pairs([self.trainer.train_data[i] for i in self.groups[0]])
        m = self.trainer.model.eval()
        with torch.no_grad(): loss, _, n = seq2seq_loss(m, src, tgt, self.trainer.tc.eps_ls)
        m.train(); return float(loss / n)
    def __call__(self, threads:int) -> float:
        torch.set_num_threads(threads)
        t0 = time.perf_counter()
        for g in self.groups: self.trainer.update([g])
        return time.perf_counter() - t0

def own_ours(data, cfg, tc, steps:int, threads:int) -> list[float]:
    "Target tokens/s of each interval of 10 updates after the first 10, of `train_model` on `data` (start-up excluded)."
    from transformer_nb.apps.workflow import train_model
    marks = []
    torch.set_num_threads(threads)
    train_model(data, preset='mini', vocab_size=cfg.tgt_vocab, norm_first=True, p_ffn=cfg.p_ffn, max_tokens=tc.max_tokens,
                steps=steps, warmup=tc.warmup, lr_scale=tc.lr_scale, valid_every=0, save_every=0, keep=1, progress=False,
                say=lambda msg: None, callbacks=[lambda tr, st: marks.append((time.perf_counter(), st['tokens']))])
    return [sum(n for _, n in marks[i + 1:i + 11]) / (marks[i + 10][0] - marks[i][0]) for i in range(9, len(marks) - 10, 10)]

def own_peer(python, tok, data, cfg, train:dict, max_tokens:int, steps:int, threads:int, workdir:Path) -> list[float]:
    "The same for `onmt_train` on the pieces of `tok`, from the tok/s it reports every 10 updates (the first interval dropped)."
    d = workdir / 'own'
    if not (d / 'vocab.txt').exists():
        d.mkdir(parents=True, exist_ok=True)
        for side, k in (('src', 0), ('tgt', 1)):
            (d / f'train.{side}').write_text(''.join(' '.join(tok.pieces(p[k])) + '\n' for p in data.train), encoding='utf-8')
        (d / 'vocab.txt').write_text(''.join(f"{tok.sp.id_to_piece(i)}\t1\n" for i in range(len(ONMT_SPECIALS), tok.vocab_size)),
                                     encoding='utf-8')
        (d / 'config.yaml').write_text(json.dumps({'data': {'corpus_1': {'path_src': str(d / 'train.src'), 'path_tgt': str(d / 'train.tgt'),
                                                                         'transforms': []}},
                                                   'src_vocab': str(d / 'vocab.txt'), 'save_data': str(d / 'data')}))
    env = {**os.environ, 'OMP_NUM_THREADS': str(threads), 'PYTHONWARNINGS': 'ignore'}
    env.pop('PYTHONPATH', None)
    if stubs := write_stubs(python, env, workdir): env['PYTHONPATH'] = str(stubs)
    onmt_train = str(Path(python).parent / 'onmt_train')
    args = [onmt_train, '-config', str(d / 'config.yaml'), *train_args(cfg.__dict__, train), '-batch_size', str(max_tokens),
            '-train_steps', str(steps), '-report_every', '10', '-valid_steps', str(10 * steps), '-save_checkpoint_steps',
            str(10 * steps), '-save_model', str(d / 'model'), '-seed', '0', '-src_vocab_size', str(tok.vocab_size),
            '-tgt_vocab_size', str(tok.vocab_size), '-overwrite']
    r = subprocess.run(args, env=env, capture_output=True, text=True)
    rates = [float(m) for m in re.findall(r'Step +\d+/ *\d+;.*?; *\d+/ *(\d+) tok/s', r.stdout + r.stderr)]
    if r.returncode or not rates: sys.exit(f"onmt_train failed ({r.returncode}): {(r.stderr.strip().splitlines() or ['no output'])[-1]}")
    return rates[1:]

def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--data-dir', default=None, help='the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k found upwards)')
    ap.add_argument('--preset', default='mini')
    ap.add_argument('--vocab-size', type=int, default=8000)
    ap.add_argument('--max-tokens', type=int, default=4000, help='padded tokens per side and batch (default 4000)')
    ap.add_argument('--batches', type=int, default=20, help='batches per timed pass (default 20)')
    ap.add_argument('--threads', type=int, nargs='+', default=[1, 2])
    ap.add_argument('--repeats', type=int, default=5)
    ap.add_argument('--own-steps', type=int, default=0, help='also time each end to end with its own pipeline, this many updates (0: not)')
    ap.add_argument('--peer-python', default=None, help="OpenNMT-py's interpreter (default: $ONMT_PYTHON)")
    ap.add_argument('--same-torch-python', default=None, help="also OpenNMT-py on our torch (bench/peer_opennmt.py: the second environment)")
    ap.add_argument('--no-plain', action='store_true', help="leave out the baseline without the trainer's CPU speed-ups")
    ap.add_argument('--json', default=None, help='write the results here (e.g. results/train_bench.json)')
    a = ap.parse_args(argv)
    py = peer_python(a.peer_python)
    d = Path(a.data_dir) if a.data_dir else find_multi30k(ROOT)
    if d is None: sys.exit("Multi30k not found: give --data-dir, or set TNB_MULTI30K (e.g. ../shared/data/multi30k)")
    limit_threads(max(a.threads))
    data = load_dataset('multi30k', 'de', 'en', d)
    tok = StoredTokenizer.train(data, vocab_size=a.vocab_size)
    pairs = encode_corpus(tok, data.train, max_len=256)
    sampler = DistributedTokenBatchSampler([len(s) for s, _ in pairs], [len(t) for _, t in pairs], a.max_tokens, shuffle=True, seed=0)
    groups = sampler.batches()[:a.batches]
    batches = [pad_pairs([pairs[i] for i in g]) for g in groups]
    tokens = sum(int((t[:, 1:] != PAD_ID).sum()) for _, t in batches)
    padded = sum(t[:, 1:].numel() for _, t in batches)
    set_seed(0)
    model = build_model(get_model_config(a.preset, src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size, norm_first=True, p_ffn=0.1))
    cfg, tc = model.cfg, TrainConfig(max_tokens=a.max_tokens, warmup=4000, lr_scale=1.0, eps_ls=0.1, progress=False)
    train = dict(p_drop=cfg.p_drop, p_attn=cfg.p_attn, p_ffn=cfg.p_ffn, eps_ls=tc.eps_ls, warmup=tc.warmup, lr_scale=tc.lr_scale)
    work = Path(tempfile.mkdtemp(prefix='bench_train_peers.'))
    peer = PeerTrainer(py, model, tok, train, batches, work)            # ported before our first update changes the weights
    same = PeerTrainer(a.same_torch_python, model, tok, train, batches, work / 'same') if a.same_torch_python else None
    plain = None if a.no_plain else OurTrainer(copy.deepcopy(model), pairs, groups, tc, plain=True)
    ours = OurTrainer(model, pairs, groups, tc)
    systems = {OURS: ours, PEER: peer, **({SAME: same} if same else {}), **({PLAIN: plain} if plain else {})}
    loss0 = {OURS: ours.loss0(), PEER: peer.info['loss0'], **({SAME: same.info['loss0']} if same else {})}
    params = {OURS: sum(p.numel() for p in {id(p): p for p in model.parameters()}.values()), PEER: peer.info['params']}
    load_before = load_average()
    print(f"# {a.preset} pre-LN, p_drop = p_ffn = {cfg.p_drop}, {params[OURS] / 1e6:.2f}M params (OpenNMT-py "
          f"{params[PEER] / 1e6:.2f}M: its output layer has a bias); {len(batches)} batches of at most {a.max_tokens} "
          f"tokens, {tokens:,} target tokens ({tokens / padded:.0%} of the padded target); {hardware()}; OpenNMT-py "
          f"{peer.version} on torch {peer.torch}; load average {load_before[0]:.1f} at start")
    print(f"# first batch, dropout off, before any update: loss {loss0[OURS]:.5f} (ours), {loss0[PEER]:.5f} (OpenNMT-py)"
          + (f", {loss0[SAME]:.5f} (OpenNMT-py on torch {same.torch})" if same else ''))
    times = {}
    for th in a.threads:
        for name, fn in systems.items(): fn(th)                            # warm-up pass, not timed
        for rep in range(a.repeats):
            for name in (list(systems) if rep % 2 == 0 else list(systems)[::-1]):
                times.setdefault((th, name), []).append(systems[name](th))
            print(f"# {th} thread(s): repeat {rep + 1}/{a.repeats}, load average {load_average()[0]:.1f}", flush=True)
    peer.close()
    if same: same.close()
    own = {}
    for th in (a.threads if a.own_steps else []):
        for name in (OURS, PEER):
            rates = (own_ours(data, cfg, tc, a.own_steps, th) if name == OURS else
                     own_peer(py, tok, data, cfg, train, a.max_tokens, a.own_steps, th, work))
            own[th, name] = rates
            print(f"{name:>11}, {th} thread(s), own pipeline: {statistics.median(rates):7.0f} target tokens/s (median of "
                  f"{', '.join(f'{x:.0f}' for x in rates)})", flush=True)
    rows, ratios = [], {}
    for (th, name), ts in times.items():
        med = statistics.median(ts)
        rows.append(dict(system=name, threads=th, tokens_per_s=round(tokens / med), median_s=round(med, 3),
                         runs_s=[round(t, 3) for t in ts]))
        print(f"{name:>11}, {th} thread(s): {tokens / med:7.0f} target tokens/s (median {med:.2f}s of "
              f"{', '.join(f'{t:.2f}' for t in ts)})")
    for th in a.threads:
        r = statistics.median(times[th, PEER]) / statistics.median(times[th, OURS])
        ratios[f"ours / opennmt-py, {th} thread(s)"] = round(r, 3)
        print(f"# {th} thread(s): ours is {r:.2f}x OpenNMT-py")
        for other, label in ((SAME, 'opennmt-py on our torch'), (PLAIN, 'ours without the CPU speed-ups')):
            if (th, other) not in times: continue
            r = statistics.median(times[th, other]) / statistics.median(times[th, OURS])
            ratios[f"ours / {label}, {th} thread(s)"] = round(r, 3)
            print(f"# {th} thread(s): ours is {r:.2f}x {label}")
    own_rows = [dict(system=n, threads=th, tokens_per_s=round(statistics.median(r)), intervals=[round(x) for x in r])
                for (th, n), r in own.items()]
    for th in sorted({th for th, _ in own}):
        r = statistics.median(own[th, OURS]) / statistics.median(own[th, PEER])
        ratios[f"ours / opennmt-py, {th} thread(s), own pipelines"] = round(r, 3)
        print(f"# {th} thread(s), each with its own pipeline: ours is {r:.2f}x OpenNMT-py")
    if a.json:
        rec = dict(date=datetime.datetime.now().isoformat(timespec='seconds'), commit=git_commit(), hardware=hardware(),
                   python=platform.python_version(), torch=torch.__version__, opennmt=peer.version, opennmt_torch=peer.torch,
                   opennmt_same_torch=same.torch if same else None,
                   cpu_count=os.cpu_count(), threads=a.threads, preset=a.preset, config=dict(d_model=cfg.d_model, N=cfg.N, h=cfg.h, d_ff=cfg.d_ff,
                   norm_first=cfg.norm_first, p_drop=cfg.p_drop, p_ffn=cfg.p_ffn, p_attn=cfg.p_attn, vocab=tok.vocab_size),
                   params=params, loss_first_batch=loss0, max_tokens=a.max_tokens, batches=len(batches),
                   target_tokens=tokens, padded_target_tokens=padded, repeats=a.repeats, load_average_before=load_before,
                   load_average_after=load_average(), command=command('bench_train_peers.py', argv), results=rows, own_pipeline=own_rows,
                   own_steps=a.own_steps, ratios=ratios)
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')
        print(f"# wrote {a.json}")

if __name__ == '__main__': main()
