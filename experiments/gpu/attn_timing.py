"""01_attention on a GPU: the explicit path (scores, softmax, weighted sum) against the fused kernel behind
F.scaled_dot_product_attention, same inputs, CUDA events, medians of 50 after warm-up.
    python3 experiments/gpu/attn_timing.py OUT.json"""
import json, statistics, sys, torch
import torch.nn.functional as F
from transformer_nb.attention import attention
from transformer_nb.lib.machine import hardware

def cuda_ms(f, reps=50):
    for _ in range(5): f()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
    return statistics.median(ts)

rows = []
with torch.inference_mode():
    for BH, n, d in [(8, 128, 64), (64, 1024, 64), (64, 4096, 64)]:
        for dtype in (torch.float32, torch.bfloat16):
            q, k, v = (torch.randn(BH, n, d, device='cuda', dtype=dtype) for _ in range(3))
            ex, fu = cuda_ms(lambda: attention(q, k, v)), cuda_ms(lambda: F.scaled_dot_product_attention(q, k, v))
            rows.append(dict(batch_heads=BH, n=n, d_k=d, dtype=str(dtype).split('.')[-1], explicit_ms=round(ex, 4),
                             fused_ms=round(fu, 4), speedup=round(ex / fu, 2)))
            print(rows[-1], flush=True)
json.dump(dict(hardware=hardware(), rows=rows), open(sys.argv[1], 'w'), indent=1)
