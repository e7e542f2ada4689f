"""What only a GPU can check (skipped cleanly without CUDA): the fused attention kernels behind
`F.scaled_dot_product_attention` against the explicit path, bf16 autocast error bounds for the whole model,
`torch.compile` against eager, fused Adam, and the training loop, checkpoints and decoding on the GPU.

Errors are relative, ||out - ref|| / ||ref||, against a float64 reference on fresh random inputs: float32 lands far
under 1e-3, bf16 operands between 1e-3 and 1e-2."""
import pytest
import torch
import torch.nn.functional as F
from transformer_nb.core import set_seed, PAD_ID
from transformer_nb.lib.machine import autocast
from transformer_nb.attention import attention, pad_mask
from transformer_nb.attention import tgt_mask
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.data import collate
from transformer_nb.training import seq2seq_loss
from transformer_nb.lib.trainer import Trainer, make_optimizer_with_cooldown
from transformer_nb.lib.options import TrainConfig
from transformer_nb.lib.checkpoints import resolve_checkpoint, model_from_checkpoint
from transformer_nb.lib.runs import RunFolder
from transformer_nb.lib.fast_decoding import greedy_decode_batch, beam_search_batch
from transformer_nb.decoding import beam_search
from conftest import copy_ids

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')
DEV = 'cuda'

def rel(out, ref) -> float:
    "||out - ref|| / ||ref|| in float64; NaN anywhere fails."
    out, ref = out.detach().double(), ref.detach().double()
    assert torch.isfinite(out).all(), 'non-finite values in the output'
    return ((out - ref).norm() / ref.norm()).item()

def qkv(B=4, h=8, n_q=96, n_k=96, d=64, dtype=torch.bfloat16, seed=0):
    g = torch.Generator(device=DEV).manual_seed(seed)
    return [torch.randn(B, h, n, d, device=DEV, generator=g).to(dtype).requires_grad_() for n in (n_q, n_k, n_k)]

def tokens(B=6, n=23, V=50, seed=0):
    "Random ids with right padding of different lengths (row i keeps n - 3i tokens)."
    g = torch.Generator().manual_seed(seed)
    t = torch.randint(4, V, (B, n), generator=g)
    for i in range(B): t[i, max(1, n - 3 * i):] = PAD_ID
    return t.to(DEV)

# ---------------------------------------------------------------- the fused attention kernels
@pytest.mark.parametrize('dtype,bound', [(torch.bfloat16, 1e-2), (torch.float16, 2e-3)])
def test_flash_kernel_equals_explicit_attention(dtype, bound):
    "With no mask, SDPA may use FlashAttention; forcing it (it raises if it cannot run) must match the maths."
    from torch.nn.attention import sdpa_kernel, SDPBackend
    q, k, v = qkv(dtype=dtype, seed=1)
    ref, _ = attention(q.double(), k.double(), v.double())
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION): out = F.scaled_dot_product_attention(q, k, v)
    assert rel(out, ref) < bound
    g = torch.randn_like(ref)
    dq, dk, dv = torch.autograd.grad(out.double(), (q, k, v), g)
    rq, rk, rv = torch.autograd.grad(ref, (q, k, v), g)                      # the float64 path's gradients
    for a, b in ((dq, rq), (dk, rk), (dv, rv)): assert rel(a, b) < 3 * bound

@pytest.mark.parametrize('dtype,bound', [(torch.float32, 1e-5), (torch.bfloat16, 1e-2)])
def test_memory_efficient_kernel_with_our_masks(dtype, bound):
    "Padding and causal masks rule out FlashAttention; the memory-efficient kernel takes them and must agree."
    from torch.nn.attention import sdpa_kernel, SDPBackend
    t = tokens(B=4, n=40)
    q, k, v = qkv(B=4, n_q=40, n_k=40, dtype=dtype, seed=2)
    for m in (pad_mask(t), tgt_mask(t)):
        ref, _ = attention(q.double(), k.double(), v.double(), m)
        with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION): out = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        keep = m.expand(4, 8, 40, 40).any(-1, keepdim=True)                 # rows with something to attend to
        assert rel(out * keep, ref * keep) < bound

# ---------------------------------------------------------------- the whole model
def small_model(p_drop=0.0, seed=0, **kw):
    set_seed(seed)
    return build_model(get_model_config('small', src_vocab=300, tgt_vocab=300, p_drop=p_drop, **kw)).to(DEV)

@pytest.mark.parametrize('norm_first', [False, True])
def test_bf16_autocast_bounds(norm_first):
    "Logits, loss and gradients in bf16 autocast vs float32 on the GPU vs float64 on the GPU."
    m = small_model(norm_first=norm_first)
    src, tgt = tokens(V=300, seed=3), tokens(V=300, n=19, seed=4)
    ref = build_model(m.cfg).to(DEV).double(); ref.load_state_dict(m.state_dict())
    ref_logits = ref(src, tgt)
    torch.backends.cuda.matmul.allow_tf32 = False
    out32 = m(src, tgt)
    with autocast(DEV, 'bf16'): out16 = m(src, tgt)
    assert out16.dtype == torch.bfloat16
    real = (tgt != PAD_ID)[..., None]                                       # pad positions are never scored
    e32, e16 = rel(out32 * real, ref_logits * real), rel(out16.float() * real, ref_logits * real)
    print(f"logits: fp32 {e32:.1e}, bf16 {e16:.1e} relative to float64")
    assert e32 < 1e-5 and e16 < 1.5e-2              # measured on an H100: 4e-7 and 6e-3
    def grads(model, ctx):
        model.zero_grad()
        with ctx: loss, _, n = seq2seq_loss(model, src, tgt)
        (loss / n).backward()
        return (loss / n).item(), torch.cat([p.grad.flatten().double() for p in model.parameters() if p.grad is not None])
    l64, g64 = grads(ref, autocast(DEV, 'fp32'))
    l16, g16 = grads(m, autocast(DEV, 'bf16'))
    print(f"loss: bf16 {abs(l16 - l64) / l64:.1e}, gradients: bf16 {rel(g16, g64):.1e} relative to float64")
    assert abs(l16 - l64) / l64 < 2e-3 and rel(g16, g64) < 7e-2   # measured: 3e-4 and 3e-2

def test_compile_equals_eager():
    "torch.compile (inductor) computes the same logits and gradients as eager mode, in float32."
    torch.backends.cuda.matmul.allow_tf32 = False
    m = small_model()
    src, tgt = tokens(V=300, seed=5), tokens(V=300, n=19, seed=6)
    cm = torch.compile(m)
    m.eval(); assert rel(cm(src, tgt), m(src, tgt)) < 1e-5
    m.train()
    def grads(net):
        m.zero_grad(); loss, _, n = seq2seq_loss(net, src, tgt); (loss / n).backward()
        return loss.detach(), torch.cat([p.grad.flatten() for p in m.parameters() if p.grad is not None])
    (le, ge), (lc, gc) = grads(m), grads(cm)
    assert rel(lc, le) < 1e-5 and rel(gc, ge) < 1e-4

def test_fused_adam_on_the_gpu_matches_the_loop():
    "make_optimizer_with_cooldown picks fused Adam on CUDA; it takes the same steps as the per-parameter loop on the same gradients."
    m = small_model()
    fused_opt, _ = make_optimizer_with_cooldown(m, 256, warmup=10)
    assert fused_opt.defaults['fused']                                     # chosen automatically on CUDA
    twin = small_model(); plain, _ = make_optimizer_with_cooldown(twin, 256, warmup=10, fused=False)
    g = torch.Generator(device=DEV).manual_seed(0)
    for _ in range(3):
        for a, b in zip(m.parameters(), twin.parameters()):
            a.grad = torch.randn(a.shape, device=DEV, generator=g); b.grad = a.grad.clone()
        fused_opt.step(); plain.step()
    for a, b in zip(m.parameters(), twin.parameters()): assert rel(a, b) < 1e-6

# ---------------------------------------------------------------- training, checkpoints and decoding
class Batches:
    def __init__(self, n, bs): self.n, self.bs, self.e = n, bs, 0
    def set_epoch(self, e): self.e = e
    def __iter__(self):
        idx = torch.randperm(self.n, generator=torch.Generator().manual_seed(self.e)).tolist()
        return iter([idx[i:i + self.bs] for i in range(0, self.n, self.bs)])

def test_training_on_the_gpu_in_bf16_learns_saves_and_resumes(tmp_path):
    V, data = 16, copy_ids(2000, 16, seed=1)
    def run(out, steps, resume=None):
        set_seed(0)
        cfg = get_model_config('tiny', src_vocab=V, tgt_vocab=V, d_model=64, d_ff=128, p_drop=0.1)
        tc = TrainConfig(steps=steps, warmup=50, lr_scale=0.3, device='cuda', save_every=50,
                         keep=0, progress=False)
        t = Trainer(build_model(cfg), data, data[:200], tc=tc, run=out, sampler=Batches(len(data), 64),
                    valid_sampler=Batches(200, 100))
        if resume: path = resolve_checkpoint(resume, use='resume')[0]; t.load(torch.load(path, weights_only=True), path)
        t.fit(); return t
    t = run(tmp_path / 'a', 200)
    assert t.precision == 'bf16' and next(t.model.parameters()).is_cuda
    h = [r['loss'] for r in t.history['train']]
    assert sum(h[-20:]) / 20 < 0.5 * sum(h[:20]) / 20                     # it learns
    ck = torch.load(RunFolder(tmp_path / 'a').latest(), weights_only=True, map_location='cpu')   # weights_only, mapped to the CPU
    assert all(v.device.type == 'cpu' for v in ck['model'].values())
    model, _, _ = model_from_checkpoint(ck, device='cpu')
    src, _ = collate(data[:8])
    cpu = greedy_decode_batch(model, src)
    assert greedy_decode_batch(model.to(DEV), src.to(DEV)) == cpu == greedy_decode_batch(model, src.to(DEV))
    r = run(tmp_path / 'b', 200, resume=tmp_path / 'a' / 'checkpoint-0000100.pt')   # resume from update 100, in another folder:
    #                                                  # `a` holds its later checkpoints, which a continuation must not mix with
    again = [x['loss'] for x in r.history['train']][100:110]
    assert max(abs(a - b) for a, b in zip(again, h[100:110])) < 1e-3        # GPU kernels may reorder sums slightly

def test_beam_search_on_the_gpu_equals_the_cpu():
    "The readable and the fast decoders find the same outputs on the GPU as on the CPU (scores to float32 rounding)."
    m = build_model(get_model_config('tiny', src_vocab=40, tgt_vocab=40)).eval()
    src = tokens(B=5, n=9, V=40, seed=9).cpu()
    best = lambda nbest: [h[0][0] for h in nbest]
    readable = [beam_search(m, r[r != 0])[0][0] for r in src]                     # 10's, one sentence at a time, on the CPU
    cpu = (beam_search_batch(m, src, beam=4), greedy_decode_batch(m, src))
    m.to(DEV)
    gpu = (beam_search_batch(m, src.to(DEV), beam=4), greedy_decode_batch(m, src.to(DEV)))
    assert best(gpu[0]) == best(cpu[0]) == readable and gpu[1] == cpu[1]
    for hg, hc in zip(gpu[0], cpu[0]): assert abs(hg[0][1] - hc[0][1]) <= 1e-4 * abs(hc[0][1])   # beam scores, relative: float32 rounding
