"""DDP (lib_distributed, lib_trainer): `torchrun --nproc_per_node=2` on CPU (gloo) takes the same first steps as one process with the
same global batch, and `tnb-train` on two nodes (`--nnodes 2`) writes the weights of one node with two processes. Run as a test; the same file is the worker that torchrun starts (`--worker OUT`)."""
import os, socket, subprocess, sys
from pathlib import Path
import pytest, torch

pytestmark = pytest.mark.slow        # every test here runs the tools in fresh processes (`pytest -m 'not slow'` skips them)

STEPS = 3

def setup():
    from transformer_nb.core import set_seed
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    from conftest import copy_ids                    # tests/ is on sys.path: under pytest, and as torchrun's script
    set_seed(0)
    data = copy_ids(64, 16, seed=7, max_len=9)
    return build_model(get_model_config('tiny', src_vocab=16, tgt_vocab=16, p_drop=0.0)), data

def recorder(rec):
    def cb(t, stats):
        rec.append({'loss': stats['loss'], 'tokens': stats['tokens'],
                    'params': [p.detach().clone() for p in t.model.parameters()],
                    'grads': [p.grad.detach().clone() for p in t.model.parameters()]})
    return cb

def worker(out):
    "Started by torchrun: train STEPS updates with the default (rank-sharded) DistributedTokenBatchSampler; rank 0 saves."
    from transformer_nb.lib.trainer import Trainer
    from transformer_nb.lib.options import TrainConfig
    torch.set_num_threads(1)
    model, data = setup()
    rec = []
    t = Trainer(model, data, tc=TrainConfig(steps=STEPS, warmup=2, max_tokens=120, progress=False, save_every=2), run=out,
                callbacks=[recorder(rec)])
    assert t.world == 2 and t.sampler.world_size == 2 and t.sampler.rank == t.rank
    t.fit()
    if t.rank == 0: torch.save(rec, Path(out) / 'ddp.pt')

class Interleaved:
    "One process, the global batch of 2 ranks: rank 0's batch i then rank 1's batch i, accumulated (accum=2)."
    def __init__(self, s): self.s = s
    def set_epoch(self, e): self.s.set_epoch(e)
    def __iter__(self): return iter(self.s.all_batches())

def free_port():
    with socket.socket() as s: s.bind(('127.0.0.1', 0)); return s.getsockname()[1]

def test_ddp_two_processes_match_one(tmp_path):
    from transformer_nb.lib.trainer import Trainer
    from transformer_nb.lib.options import TrainConfig
    from transformer_nb.lib.runs import RunFolder
    from transformer_nb.lib.tokens import DistributedTokenBatchSampler
    env = {**os.environ, 'OMP_NUM_THREADS': '1', 'TNB_THREADS': '1', 'CUDA_VISIBLE_DEVICES': ''}   # gloo on CPUs, also on a GPU box
    cmd = [sys.executable, '-m', 'torch.distributed.run', '--nproc_per_node=2', f'--master_port={free_port()}',
           __file__, '--worker', str(tmp_path)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    ddp = torch.load(tmp_path / 'ddp.pt', weights_only=True)
    assert [p.name for p in RunFolder(tmp_path).checkpoints()] == ['checkpoint-0000002.pt', 'checkpoint-0000003.pt']

    torch.set_num_threads(1)
    model, data = setup()
    s = DistributedTokenBatchSampler([len(a) for a, _ in data], [len(b) for _, b in data], 120, shuffle=True, seed=0, rank=0, world_size=2)
    rec = []
    t = Trainer(model, data, tc=TrainConfig(steps=STEPS, warmup=2, accum=2, progress=False, device='cpu'), sampler=Interleaved(s),
                callbacks=[recorder(rec)])
    t.fit()
    assert len(rec) == len(ddp) == STEPS
    from transformer_nb.lib.machine import rounding_tol, logit_terms
    L = max(max(len(x), len(y)) for x, y in data)                       # the longest sentence: the attention's sums
    loss_terms = logit_terms(model.cfg, L, L, vocab=True) + 2 * 120     # a token's loss from the network's sums; then an update's, two ranks' of 120
    for a, b in zip(rec, ddp):
        assert a['tokens'] == b['tokens']
        assert abs(a['loss'] - b['loss']) <= rounding_tol(a['loss'], loss_terms), (a['loss'], b['loss'])
        for x, y in zip(a['grads'], b['grads']): torch.testing.assert_close(x, y, rtol=1e-4, atol=1e-6)
        for x, y in zip(a['params'], b['params']): torch.testing.assert_close(x, y, rtol=1e-4, atol=1e-5)

def _tnb_train(tmp_path, out, *launch) -> list:
    "`torchrun LAUNCH tnb_train.py ...`: two updates of the copy task into `out`, as the --help example runs it."
    script = tmp_path / 'tnb_train.py'
    script.write_text('from transformer_nb.apps.cli import train_main\ntrain_main()\n')
    return [sys.executable, '-m', 'torch.distributed.run', *launch, str(script), '--dataset', 'copy', '--preset', 'tiny',
            '--vocab-size', '16', '--steps', '2', '--max-tokens', '400', '--out', str(out), '--no-progress', '--test-limit', '0']

def test_two_nodes_give_the_weights_of_one_node_with_two_processes(tmp_path):
    """`tnb-train` under `torchrun --nnodes 2` (one process a node, c10d rendezvous on 127.0.0.1: two launches on this
    machine, as on two hosts) writes the checkpoint that `torchrun --nproc_per_node 2` on one node writes."""
    from transformer_nb.lib.runs import RunFolder
    env = {**os.environ, 'OMP_NUM_THREADS': '1', 'TNB_THREADS': '1', 'CUDA_VISIBLE_DEVICES': ''}
    r = subprocess.run(_tnb_train(tmp_path, tmp_path / 'one', '--nproc_per_node=2', f'--master_port={free_port()}'),
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    port = free_port()
    nodes = [subprocess.Popen(_tnb_train(tmp_path, tmp_path / 'two', '--nnodes=2', '--nproc_per_node=1', f'--node_rank={n}',
                                         '--rdzv_backend=c10d', f'--rdzv_endpoint=127.0.0.1:{port}', '--rdzv_id=two-nodes', '--local_addr=127.0.0.1'),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for n in (0, 1)]
    outs = [p.communicate(timeout=300) for p in nodes]
    for p, (o, e) in zip(nodes, outs): assert p.returncode == 0, o[-2000:] + e[-3000:]
    one, two = (RunFolder(tmp_path / d).checkpoints() for d in ('one', 'two'))
    assert [p.name for p in one] == [p.name for p in two] == ['checkpoint-0000002.pt'], (one, two)
    a, b = torch.load(one[-1], weights_only=True), torch.load(two[-1], weights_only=True)
    assert a['step'] == b['step'] == 2 and a['data_pos'] == b['data_pos']
    for k in a['model']: assert torch.equal(a['model'][k], b['model'][k]), k       # the same weights, bit for bit

def test_the_tokenizer_is_learnt_once_for_all_ranks(tmp_path):
    "Under torchrun, rank 0 alone learns the SentencePiece vocabulary (`rank0_first`), and both ranks train with it."
    from transformer_nb.lib.checkpoints import open_checkpoint
    env = {**os.environ, 'OMP_NUM_THREADS': '1', 'TNB_THREADS': '1', 'CUDA_VISIBLE_DEVICES': ''}
    cmd = _tnb_train(tmp_path, tmp_path / 'run', '--nproc_per_node=2', f'--master_port={free_port()}')
    (tmp_path / 'tnb_train.py').write_text(
        "import os, transformer_nb.lib.tokens as D\n_train = D.StoredTokenizer.train.__func__\n"
        "def train(cls, *a, **k): os.write(1, f\"LEARNT BY RANK {os.environ['RANK']}\\n\".encode()); return _train(cls, *a, **k)\n"   # one write: no other line cuts into it
        "D.StoredTokenizer.train = classmethod(train)\nfrom transformer_nb.apps.cli import train_main\ntrain_main()\n")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert [l for l in r.stdout.splitlines() if l.startswith('LEARNT BY RANK')] == ['LEARNT BY RANK 0'], r.stdout[-3000:]
    assert open_checkpoint(tmp_path / 'run', None).step == 2

if __name__ == '__main__' and sys.argv[1:2] == ['--worker']:
    worker(sys.argv[2])
