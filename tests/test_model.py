"06_model: parity with torch.nn.Transformer, the decoding cache, masks, presets vs Table 3, config and input errors."
from dataclasses import replace
import pytest, torch, torch.nn as nn
from transformer_nb.attention import pad_mask, causal_mask, tgt_mask
from transformer_nb.core import PAD_ID, count_params
from transformer_nb.lib.options import TrainConfig
from dataclasses import fields
from transformer_nb.model import Transformer
from transformer_nb.lib.options import PAPER_TABLE3, PRESETS, get_config
from transformer_nb.lib.transformer import build_model, count_config_params, to_torch_transformer, with_cache
from transformer_nb.lib.options import ModelConfig, get_model_config
from transformer_nb.lib.fast_decoding import DecoderCache
from transformer_nb.lib.machine import rounding_tol, logit_terms

def tol(model, ref, S:int, T:int) -> float:
    "How far two computations of the logits (or encoder states) `ref` may differ by rounding alone: lib_machine's `rounding_tol`, from the network's sums."
    return rounding_tol(ref, logit_terms(model.cfg, S, T))

torch.set_num_threads(1)
V = 50
TINY = get_model_config('tiny', src_vocab=V, tgt_vocab=V)

def make(seed=0, **over):
    torch.manual_seed(seed)
    return build_model(replace(TINY, **over)).eval()

@torch.no_grad()
def perturb(model, scale=0.2):
    "Random biases and LayerNorm gains/shifts (at init they are 0/1 and would hide wrongly copied weights)."
    for n, p in model.named_parameters():
        if p.dim() == 1: p.copy_(torch.randn_like(p) * scale + (1.0 if 'norm' in n and n.endswith('weight') else 0.0))
    return model

def random_batch(B=5, S=11, T=8, seed=0):
    "Random ids with padding on both sides: every row a different length, at least one full row each side."
    g = torch.Generator().manual_seed(seed)
    src, tgt = torch.randint(4, V, (B, S), generator=g), torch.randint(4, V, (B, T), generator=g)
    tgt[:, 0] = 2
    for b in range(1, B):
        src[b, torch.randint(1, S, (1,), generator=g).item():] = 0
        tgt[b, torch.randint(1, T, (1,), generator=g).item():] = 0
    return src, tgt

def reference_logits(model, ref, src, tgt):
    pad = PAD_ID
    xs, xt = model.src_pos(model.src_emb(src)), model.tgt_pos(model.tgt_emb(tgt))
    out = ref(xs, xt, tgt_mask=~causal_mask(tgt.shape[1])[0, 0], tgt_is_causal=True, src_key_padding_mask=src == pad,
              tgt_key_padding_mask=tgt == pad, memory_key_padding_mask=src == pad)
    return model.generator(out)

# ---------------------------------------------------------------- parity with nn.Transformer
@pytest.mark.parametrize('norm_first', [False, True])
@pytest.mark.parametrize('seed', [0, 1, 2])
@torch.no_grad()
def test_parity_with_nn_transformer(norm_first, seed):
    model = perturb(make(seed, norm_first=norm_first, N=3))
    ref = to_torch_transformer(model)
    assert isinstance(ref, nn.Transformer) and not ref.training
    src, tgt = random_batch(seed=seed)
    assert (src == 0).any() and (tgt == 0).any()
    want = reference_logits(model, ref, src, tgt)
    assert (model(src, tgt) - want).abs().max() <= tol(model, want, src.shape[1], tgt.shape[1])
    mem = ref.encoder(model.src_pos(model.src_emb(src)), src_key_padding_mask=src == 0)
    assert (model.encode(src, pad_mask(src)) - mem).abs().max() <= tol(model, mem, src.shape[1], 0)   # every position, padded ones included: no nested-tensor fast path

@torch.no_grad()
def test_parity_other_shapes():
    for over in (dict(h=1, d_k=32, d_v=32), dict(d_model=48, h=6, d_ff=40, tie='none')):
        model = perturb(make(3, **over))
        src, tgt = random_batch(seed=3)
        err = (model(src, tgt) - reference_logits(model, to_torch_transformer(model), src, tgt)).abs().max().item()
        assert err <= 1e-5, (over, err)

@torch.no_grad()
def test_parity_detects_an_extra_final_norm():
    "The test is sharp: nn.Transformer's own final LayerNorms (absent in post-LN) make it fail."
    model = perturb(make(0))
    ref = to_torch_transformer(model)
    ref.encoder.norm, ref.decoder.norm = nn.LayerNorm(32).eval(), nn.LayerNorm(32).eval()
    src, tgt = random_batch()
    assert (model(src, tgt) - reference_logits(model, ref, src, tgt)).abs().max() > 1e-2

def test_to_torch_transformer_rejects_unequal_heads():
    with pytest.raises(ValueError, match='d_k=16'): to_torch_transformer(build_model(get_model_config('B-dk16', N=1, src_vocab=V, tgt_vocab=V)))

# ---------------------------------------------------------------- incremental decoding
def decode_new(model, mem, sm, tgt, cache):
    "06's `model.decode` on the new tokens `tgt` only, `cache` held: the causal mask's new rows (None for one token)."
    start, n = len(cache), tgt.shape[1]
    with with_cache(model, cache): return model.decode(mem, sm, tgt, causal_mask(start + n)[..., start:, :] if n > 1 else None)

def stepwise(model, src, tgt, first=1):
    sm = pad_mask(src); mem = model.encode(src, sm); cache = DecoderCache(model.cfg.N)
    outs = [decode_new(model, mem, sm, tgt[:, :first], cache)]
    outs += [decode_new(model, mem, sm, tgt[:, i:i+1], cache) for i in range(first, tgt.shape[1])]
    return torch.cat(outs, 1), cache, mem

@pytest.mark.parametrize('over', [{}, dict(norm_first=True), dict(pos='learned', max_len=20), dict(d_k=12, d_v=20),
                                  dict(tie='none', tgt_vocab=61), dict(N=3, h=2)])
@torch.no_grad()
def test_cache_equals_teacher_forcing(over):
    model = perturb(make(1, **over))
    src, _ = random_batch(seed=4)
    tgt = torch.randint(4, V, (src.shape[0], 9)); tgt[:, 0] = 2
    full = model(src, tgt)
    for first in (1, 4):
        steps, cache, mem = stepwise(model, src, tgt, first)
        assert (steps - full).abs().max() <= tol(model, full, src.shape[1], tgt.shape[1])
    assert len(cache) == 9
    for sc, cc in cache.layers:
        assert sc.k.shape[2] == 9 and cc.k.shape[2] == src.shape[1]   # self grows; cross = source length

@torch.no_grad()
def test_cross_attention_kv_computed_once():
    model = make(0)
    src, _ = random_batch()
    tgt = torch.full((src.shape[0], 4), 7); tgt[:, 0] = 2
    sm = pad_mask(src); mem = model.encode(src, sm); cache = DecoderCache(model.cfg.N)
    decode_new(model, mem, sm, tgt[:, :1], cache)
    ks = [cc.k for _, cc in cache.layers]
    decode_new(model, mem, sm, tgt[:, 1:2], cache)
    assert all(cc.k is k for (_, cc), k in zip(cache.layers, ks))   # the very same tensors: not recomputed
    # ... and really used: a cache filled from another memory changes the output
    c2 = DecoderCache(model.cfg.N); decode_new(model, mem.flip(0), sm.flip(0), tgt[:, :1], c2)
    assert (decode_new(model, mem, sm, tgt[:, 1:2], c2) - decode_new(model, mem, sm, tgt[:, 1:2], cache)).abs().max() > 1e-3

@torch.no_grad()
def test_cache_select_reorders_like_beam_search():
    model = make(2)
    src, _ = random_batch(B=3, seed=5)
    tgt = torch.randint(4, V, (3, 5)); tgt[:, 0] = 2
    sm = pad_mask(src); mem = model.encode(src, sm); cache = DecoderCache(model.cfg.N)
    decode_new(model, mem, sm, tgt[:, :4], cache)
    idx = torch.tensor([2, 2, 0])
    assert cache.select(idx) is cache
    nxt = decode_new(model, mem[idx], sm[idx], tgt[idx, 4:5], cache)
    assert (nxt[:, 0] - model(src[idx], tgt[idx])[:, 4]).abs().max() <= tol(model, nxt, src.shape[1], 5)

# ---------------------------------------------------------------- masks
@pytest.mark.parametrize('over', [{}, dict(norm_first=True), dict(pos='learned', max_len=32)])
@torch.no_grad()
def test_padded_positions_never_change_real_outputs(over):
    model = perturb(make(0, **over))
    src, tgt = random_batch(seed=6)
    real_s, real_t = src != 0, tgt != 0
    sm, tm = pad_mask(src), tgt_mask(tgt)
    mem, logits = model.encode(src, sm), model(src, tgt)
    for seed in range(3):   # other tokens at padded positions, masks held fixed
        g = torch.Generator().manual_seed(seed)
        src2 = torch.where(real_s, src, torch.randint(4, V, src.shape, generator=g))
        tgt2 = torch.where(real_t, tgt, torch.randint(4, V, tgt.shape, generator=g))
        mem2 = model.encode(src2, sm)
        assert (mem2 - mem)[real_s].abs().max() <= tol(model, mem, src.shape[1], 0)
        assert (mem2 - mem)[~real_s].abs().max() > 1e-3          # the padded positions did change
        out = model.decode(mem2, sm, tgt2, tm)
        assert (out - logits)[real_t].abs().max() <= tol(model, logits, src.shape[1], tgt.shape[1])
    more = model(torch.nn.functional.pad(src, (0, 4)), torch.nn.functional.pad(tgt, (0, 3)))   # extra padding columns
    assert (more[:, :tgt.shape[1]] - logits).abs().max() <= tol(model, logits, src.shape[1] + 4, tgt.shape[1] + 3)

@torch.no_grad()
def test_future_tokens_never_affect_earlier_logits():
    model = perturb(make(0))
    src, _ = random_batch(seed=7)
    tgt = torch.randint(4, V, (src.shape[0], 8)); tgt[:, 0] = 2
    base = model(src, tgt)
    for t in range(1, 8):
        changed = tgt.clone(); changed[:, t] = (tgt[:, t] + 1 - 4) % (V - 4) + 4
        out = model(src, changed)
        assert (out[:, :t] - base[:, :t]).abs().max() <= tol(model, base, src.shape[1], tgt.shape[1])
        assert (out[:, t] - base[:, t]).abs().amax(-1).min() > 1e-4   # position t itself sees its input

def paper_and_library(seed=0, **over):
    "06's `Transformer` and the library's model (`build_model`) of one of 06's configurations, on the same (perturbed) weights."
    cfg = get_config('tiny', src_vocab=V, tgt_vocab=V, **over)
    torch.manual_seed(seed); lib = perturb(build_model(cfg)).eval()
    paper = Transformer(cfg).eval(); paper.load_state_dict(lib.state_dict())   # the same names and shapes
    return paper, lib

@torch.no_grad()
@pytest.mark.parametrize('pos', ['sinusoidal', 'learned'])
def test_the_library_model_is_the_papers_on_the_same_weights(pos):
    "The tools' model computes 06's on 06's weights (post-LN, no extra dropout, one matrix for all three), and its weights load back into 06's."
    paper, lib = paper_and_library(pos=pos, max_len=16)
    assert [(k, v.shape) for k, v in paper.state_dict().items()] == [(k, v.shape) for k, v in lib.state_dict().items()]
    src, tgt = random_batch(seed=3)
    assert (paper(src, tgt) - lib(src, tgt)).abs().max() <= tol(lib, lib(src, tgt), src.shape[1], tgt.shape[1])
    assert (paper.encode(src, pad_mask(src)) - lib.encode(src, pad_mask(src))).abs().max() <= tol(lib, lib.encode(src, pad_mask(src)), src.shape[1], 0)

@torch.no_grad()
def test_the_papers_model_never_lets_the_future_leak():
    "06's own model (not only the library's): changing target token t moves no logit before position t."
    paper, _ = paper_and_library(7)
    src, _ = random_batch(seed=7)
    tgt = torch.randint(4, V, (src.shape[0], 8)); tgt[:, 0] = 2
    base = paper(src, tgt)
    for t in range(1, 8):
        changed = tgt.clone(); changed[:, t] = (tgt[:, t] + 1 - 4) % (V - 4) + 4
        out = paper(src, changed)
        assert (out[:, :t] - base[:, :t]).abs().max() <= tol(paper, base, src.shape[1], tgt.shape[1])
        assert (out[:, t] - base[:, t]).abs().amax(-1).min() > 1e-4

# ---------------------------------------------------------------- presets and Table 3
def meta_count(cfg):
    with torch.device('meta'): return count_params(build_model(cfg))

@pytest.mark.parametrize('name', list(PRESETS))
def test_closed_form_count_matches_built_model(name):
    cfg = get_model_config(name)
    assert count_config_params(cfg) == meta_count(cfg)

@pytest.mark.parametrize('over', [dict(tie='none'), dict(tie='decoder', tgt_vocab=70), dict(norm_first=True),
                                  dict(pos='learned', max_len=40)])
def test_closed_form_count_variants(over):
    cfg = replace(TINY, **over)
    assert count_config_params(cfg) == count_params(build_model(cfg))

def test_presets_match_table3():
    base = get_model_config('base')
    assert (base.N, base.d_model, base.d_ff, base.h, base.d_k, base.d_v, base.p_drop) == (6, 512, 2048, 8, 64, 64, 0.1)
    big = get_model_config('big')
    assert (big.N, big.d_model, big.d_ff, big.h, big.d_k, big.d_v, big.p_drop) == (6, 1024, 4096, 16, 64, 64, 0.3)
    assert [(get_model_config(f'A-h{h}').h, get_model_config(f'A-h{h}').d_k, get_model_config(f'A-h{h}').d_v) for h in (1, 4, 16, 32)] == \
           [(1, 512, 512), (4, 128, 128), (16, 32, 32), (32, 16, 16)]
    assert [(get_model_config(n).d_k, get_model_config(n).d_v) for n in ('B-dk16', 'B-dk32')] == [(16, 64), (32, 64)]
    assert [get_model_config(f'C-N{n}').N for n in (2, 4, 8)] == [2, 4, 8]
    assert [(get_model_config(n).d_model, get_model_config(n).d_k) for n in ('C-d256', 'C-d1024')] == [(256, 32), (1024, 128)]
    assert [get_model_config(n).d_ff for n in ('C-dff1024', 'C-dff4096')] == [1024, 4096]
    assert [get_model_config(n).p_drop for n in ('D-drop0.0', 'D-drop0.2')] == [0.0, 0.2]
    assert not {'D-ls0.0', 'D-ls0.2'} & set(PRESETS) and {'D-ls0.0', 'D-ls0.2'} <= set(PAPER_TABLE3)   # row D's
    assert TrainConfig().eps_ls == 0.1 and 'eps_ls' not in {f.name for f in fields(ModelConfig)}              # training half
    assert get_model_config('E-learned').pos == 'learned' and base.pos == 'sinusoidal' and not base.norm_first
    assert set(PAPER_TABLE3) == set(PRESETS) - {'tiny', 'mini', 'small'} | {'D-ls0.0', 'D-ls0.2'}

def test_06s_config_is_table_3s_fields_and_big_alone_and_the_presets_are_the_librarys():
    """06's `config` module holds `TransformerConfig`, whose defaults are base, and `BIG`, Table 3's big row; the presets
    and Table 3's numbers are lib_options', base and big derived from 06's, and a preset is 06's configuration."""
    import transformer_nb.config as config, transformer_nb.lib.options as options
    assert sorted(config.__all__) == ['BIG', 'TransformerConfig'] and not {'PRESETS', 'PAPER_TABLE3', 'get_config', '_BASE'} & set(vars(config))
    assert {'PRESETS', 'PAPER_TABLE3', 'get_config'} <= set(options.__all__)
    assert get_config('base') == config.TransformerConfig() and get_config('big') == config.TransformerConfig(**config.BIG)
    assert get_config('big', p_drop=0.1) == config.TransformerConfig(d_model=1024, h=16, d_ff=4096, p_drop=0.1)   # §6.1's EN-FR big

SIZES = {(512, 2048): 'base', (1024, 4096): 'big'}   # Table 3's (d_model, d_ff) of its two models

def size_declarations(code:str) -> list[tuple[str, int]]:
    """(model, line) of each place in `code` that declares Table 3's base or big sizes: a dict literal, a `dict(...)` or
    any call's keywords, or a class body that sets both `d_model` and `d_ff` to base's (512, 2048) or big's (1024, 4096).
    A function's default arguments are not a declaration (03's `FeedForward(d_model=512, d_ff=2048)` quotes §3.3)."""
    import ast
    out = []
    for n in ast.walk(ast.parse(code)):
        if isinstance(n, ast.Dict): kv = [(k.value, v) for k, v in zip(n.keys, n.values) if isinstance(k, ast.Constant)]
        elif isinstance(n, ast.Call): kv = [(k.arg, k.value) for k in n.keywords if k.arg]
        elif isinstance(n, ast.ClassDef): kv = [(s.target.id, s.value) for s in n.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value]
        else: continue
        got = {k: v.value for k, v in kv if k in ('d_model', 'd_ff') and isinstance(v, ast.Constant)}
        if (got.get('d_model'), got.get('d_ff')) in SIZES: out.append((SIZES[got['d_model'], got['d_ff']], n.lineno))
    return sorted(out, key=lambda m: m[1])

def test_size_declarations_can_fail():
    assert size_declarations("BASE = dict(d_model=512, N=6, d_ff=2048)") == [('base', 1)]
    assert size_declarations("x = {'d_model': 1024, 'h': 16, 'd_ff': 4096}\nclass C:\n    d_model: int = 512\n    d_ff: int = 2048") == [('big', 1), ('base', 2)]
    assert size_declarations("TransformerConfig(d_model=1024, d_ff=4096)") == [('big', 1)]
    assert size_declarations("def f(d_model=512, d_ff=2048): pass\nrow = dict(d_model=1024, d_k=128)") == []

def test_table_3s_base_and_big_are_declared_in_one_module():
    "Base's and big's sizes are written once, in 06's `config` module (defaults of `TransformerConfig`, and `BIG`); everything else derives from it."
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    found = {str(p.relative_to(root)): d for p in sorted([*(root / 'transformer_nb').rglob('*.py'), *(root / 'experiments').rglob('*.py'), *(root / 'bench').rglob('*.py')])
             if (d := size_declarations(p.read_text(encoding='utf-8')))}
    assert list(found) == ['transformer_nb/config.py'] and sorted(m for m, _ in found['transformer_nb/config.py']) == ['base', 'big'], found

def test_param_counts_near_paper():
    """At a shared 37,000-token vocabulary (§5.1), all tied: base 63.08M vs the paper's 65M (-2.95%), big 214.2M vs 213M.
    The 3% tolerance covers the paper's rounding to whole millions and its unstated exact vocabulary (the counts of
    rows base..C imply ~41k tokens); it is not slack in the count, which is exact (closed form == built model)."""
    counts = {n: count_config_params(get_model_config(n)) for n in PRESETS}
    assert counts['base'] == 63_082_496 and counts['big'] == 214_245_376
    assert abs(counts['base'] / 65e6 - 1) < 0.03 and abs(counts['big'] / 213e6 - 1) < 0.03
    for name, (_, _, paper) in PAPER_TABLE3.items():
        if paper: assert abs(counts[name] / 1e6 - paper) < 4.5, (name, counts[name], paper)   # gap = vocab * d_model
    # the differences between rows follow the paper exactly up to rounding (the vocabulary cancels)
    for name in ('B-dk16', 'B-dk32', 'C-N2', 'C-N4', 'C-N8', 'C-dff1024', 'C-dff4096'):
        assert abs((counts[name] - counts['base']) / 1e6 - (PAPER_TABLE3[name][2] - 65)) < 1.0, name
    assert all(counts[f'A-h{h}'] == counts['base'] for h in (1, 4, 16, 32))
    assert all(counts[n] == counts['base'] for n in ('D-drop0.0', 'D-drop0.2'))   # (D-ls: the base model itself)
    # untied, base would be ~101M: far from 65M, so Table 3 counts the shared matrix once
    assert count_config_params(get_model_config('base', tie='none')) > 100e6

# ---------------------------------------------------------------- tying and initialisation
@pytest.mark.parametrize('tie,expect', [('all', (True, True)), ('decoder', (False, True)), ('none', (False, False))])
def test_tying(tie, expect):
    m = make(0, tie=tie)
    assert (m.src_emb.lut.weight is m.tgt_emb.lut.weight, m.tgt_emb.lut.weight is m.generator.proj.weight) == expect
    sd = m.state_dict()
    assert (sd['src_emb.lut.weight'].data_ptr() == sd['generator.proj.weight'].data_ptr()) == (tie == 'all')
    assert m.tgt_emb.lut.weight[0].abs().sum() == 0 and m.src_emb.lut.weight[0].abs().sum() == 0   # zero pad rows
    if tie != 'none': assert m.generator.proj.weight[0].abs().sum() == 0   # tied: the output row of PAD is that row
    m.tgt_emb.reset_parameters()   # re-initialising a module in place keeps the ties and the zero pad row
    assert (m.src_emb.lut.weight is m.tgt_emb.lut.weight, m.tgt_emb.lut.weight is m.generator.proj.weight) == expect
    assert m.tgt_emb.lut.weight[0].abs().sum() == 0

def test_initialisation():
    m = build_model(get_model_config('base', N=1, src_vocab=3000, tgt_vocab=3000))
    a = m.decoder[0].cross_attn; wq, wk, wv = a.w_q.weight, a.w_k.weight, a.w_v.weight
    bound = (6 / 1024) ** 0.5
    for w in (wq, wk, wv): assert abs(w.abs().max().item() - bound) < 1e-3 and abs(w.std().item() - bound / 3**0.5) < 2e-3
    E = m.src_emb.lut.weight
    assert abs(E[1:].std().item() - 512 ** -0.5) < 1e-3 and E[0].abs().sum() == 0
    for n, p in m.named_parameters():
        if n.endswith('bias'): assert p.abs().sum() == 0, n
        if 'norm' in n and n.endswith('weight'): assert (p == 1).all(), n
    assert not hasattr(m, 'enc_norm') and not hasattr(m, 'dec_norm')   # post-LN: no final norm
    assert isinstance(build_model(replace(TINY, norm_first=True)).enc_norm, nn.LayerNorm)

def test_dropout_only_in_training():
    m = make(0, p_drop=0.3)
    src, tgt = random_batch()
    m.train(); a, b = m(src, tgt), m(src, tgt)
    assert (a - b).abs().max() > 1e-3
    m.eval(); assert torch.equal(m(src, tgt), m(src, tgt))

def test_backward_reaches_every_parameter():
    m = make(0, norm_first=True).train()
    src, tgt = random_batch()
    torch.nn.functional.cross_entropy(m(src, tgt).flatten(0, 1), tgt.flatten(), ignore_index=0).backward()
    missing = [n for n, p in m.named_parameters() if p.grad is None or not p.grad.abs().sum() > 0]
    assert not missing, missing

# ---------------------------------------------------------------- errors
@pytest.mark.parametrize('kw,msg', [(dict(d_model=500), 'd_model=500'), (dict(h=0), 'h=0'), (dict(N=0), 'N=0'),
                                    (dict(p_drop=1.0), 'p_drop=1.0'), (dict(p_attn=-0.1), 'p_attn=-0.1'),
                                    (dict(pos='rope'), "'rope'"), (dict(tie='some'), "'some'"),
                                    (dict(src_vocab=10, tgt_vocab=12), 'src_vocab=10'), (dict(pad_id=5), 'pad_id=5 must be 0'),
                                    (dict(d_model=33, h=1), 'd_model=33')])
def test_config_errors(kw, msg):
    with pytest.raises(ValueError, match=msg): ModelConfig(**kw)

def test_get_config_errors():
    with pytest.raises(KeyError, match='huge'): get_model_config('huge')
    with pytest.raises(TypeError, match='heads'): get_model_config('base', heads=4)
    assert get_model_config('base', h=4).d_k == 128

def test_bad_token_ids():
    m = make(0)
    with pytest.raises(IndexError, match=r'src: token id 77 .*vocabulary of 50'): m(torch.tensor([[5, 77, 3]]), torch.tensor([[2, 5]]))
    with pytest.raises(IndexError, match=r'tgt: token id 50 .*vocabulary of 50'): m(torch.tensor([[5, 3]]), torch.tensor([[2, 50]]))
    with pytest.raises(IndexError, match='token id -3'): m(torch.tensor([[5, -3]]), torch.tensor([[2, 5]]))
    with pytest.raises(TypeError, match='float32'): m(torch.tensor([[5., 3.]]), torch.tensor([[2, 5]]))
    with pytest.raises(ValueError, match=r'\(batch, length\)'): m(torch.tensor([5, 3]), torch.tensor([[2, 5]]))

def test_too_long_for_learned_positions():
    m = make(0, pos='learned', max_len=10)
    with pytest.raises(ValueError, match=r'src of length 11: .*max_len=10'): m(torch.full((1, 11), 5), torch.tensor([[2, 5]]))
    with pytest.raises(ValueError, match=r'tgt of length 11: .*max_len=10'): m(torch.full((1, 3), 5), torch.full((1, 11), 5))
    m(torch.full((1, 10), 5), torch.full((1, 10), 5))   # exactly max_len is fine
    mem, cache = m.encode(torch.tensor([[5, 3]]), None), DecoderCache(m.cfg.N)
    decode_new(m, mem, None, torch.full((1, 10), 5), cache)
    with pytest.raises(ValueError, match='max_len=10'): decode_new(m, mem, None, torch.tensor([[5]]), cache)
    s = make(0)   # sinusoids: any length
    assert s(torch.full((1, 2000), 5), torch.tensor([[2, 5]])).shape == (1, 2, V)

def test_batch_size_mismatch():
    "forward's entry names the two batch sizes; 06's encode and decode trust what the library's decoders give them."
    m = make(0)
    src, tgt = random_batch(B=3)
    with pytest.raises(ValueError, match='src has 3 sentences, tgt has 2'): m(src, tgt[:2])
    with pytest.raises(ValueError, match='src has 3 sentences, tgt has 2'): m(src=src, tgt=tgt[:2])   # given by name, the same


def test_learned_positions_start_at_the_scale_of_sinusoids():
    "Row (E): learned position vectors start with the RMS of a sinusoidal encoding (1/sqrt 2), not d_model^-0.5."
    m = build_model(get_model_config('E-learned', src_vocab=1000, tgt_vocab=1000, max_len=256))
    for pos in (m.src_pos, m.tgt_pos):
        assert abs(pos.emb.weight.std().item() - 2 ** -0.5) < 0.01


# ---------------------------------------------------------------- the entry point checks its inputs once
def test_forward_names_an_id_outside_the_vocabulary():
    "forward's pre-hook names a bad id with its side."
    m = make(0)
    with pytest.raises(IndexError, match=r'^src: token id 77 is out of range for a vocabulary of 50 \(valid ids: 0..49\)$'):
        m(torch.tensor([[5, 77, 3]]), torch.tensor([[2, 5]]))
    with pytest.raises(IndexError, match=r'^tgt: token id -1 is out of range for a vocabulary of 50'):
        m(torch.tensor([[5, 3]]), torch.tensor([[2, -1]]))
    m2 = make(0, tie='none', tgt_vocab=61)
    m2(torch.tensor([[5]]), torch.tensor([[2, 60]]))                          # each side has its own vocabulary
    with pytest.raises(IndexError, match='src: token id 60 .*vocabulary of 50'): m2(torch.tensor([[60]]), torch.tensor([[2]]))
    with pytest.raises(IndexError, match='tgt: token id 61 .*vocabulary of 61'): m2(torch.tensor([[5]]), torch.tensor([[61]]))


def test_the_papers_methods_are_the_ones_that_run():
    "No subclass, no method replaced on the instance: `encode`, `decode` and `forward` are 06's own lines."
    m = make(0, norm_first=True, p_attn=0.1, p_ffn=0.1, tie='none')
    assert type(m) is Transformer and not {'encode', 'decode', 'forward'} & set(vars(m))

def test_forward_is_encode_then_decode_with_its_masks():
    "forward = decode(encode(src, pad_mask(src)), pad_mask(src), tgt, tgt_mask(tgt)); a mask shared by the batch (1, 1, T, T) fits too."
    m = make(0)
    src, tgt = random_batch(B=3, seed=8)
    sm = pad_mask(src); mem = m.encode(src, sm)
    assert m.decode(mem, sm, tgt, causal_mask(tgt.shape[1])).shape == (3, tgt.shape[1], V)
    torch.testing.assert_close(m(src, tgt), m.decode(mem, sm, tgt, tgt_mask(tgt)))


def test_entry_points_check_token_tensors():
    m = make(0)
    src, tgt = torch.tensor([[5, 3]]), torch.tensor([[2, 5]])
    for call in (lambda s: m(s, tgt),):
        with pytest.raises(TypeError, match='src must be a tensor of token ids, got list'): call([[5, 3]])
        with pytest.raises(TypeError, match='src must hold integer token ids, got dtype torch.float32'): call(src.float())
        with pytest.raises(TypeError, match='torch.bool'): call(src.bool())
        with pytest.raises(ValueError, match=r'src of shape \(1, 1, 2\) must be \(batch, length\)'): call(src[None])
    with pytest.raises(TypeError, match='tgt must hold integer token ids, got dtype torch.float64'): m(src, tgt.double())
    with pytest.raises(ValueError, match=r'tgt of shape \(2,\)'): m(src, tgt[0])
    assert m(src.int(), tgt.int()).shape == (1, 2, V)                  # int32 ids are fine

def test_transformer_wants_a_config_not_its_dict():
    "build_model(ck['config']) was an AttributeError about d_model: the checkpoint's dict is named, with the way to a config."
    cfg = get_model_config('tiny', src_vocab=20, tgt_vocab=20)
    with pytest.raises(TypeError, match=r"^cfg must be a TransformerConfig or a ModelConfig \(get_model_config\('base', ...\)\), got a dict; a checkpoint's config dict d is ModelConfig\(\*\*d\)$"):
        build_model(vars(cfg))
    with pytest.raises(TypeError, match=r'^cfg must be a TransformerConfig or a ModelConfig .*got a NoneType$'): count_config_params(None)
    with pytest.raises(TypeError, match=r"^name must be a preset's name, one of tiny, .*; got a list$"): get_model_config(['tiny'])

@pytest.mark.parametrize('kw, msg', [(dict(p_drop='0.1'), "p_drop='0.1' must be a number in [0, 1)"), (dict(p_ffn=None), 'p_ffn=None must be a number in [0, 1)'),
                                     (dict(d_k=-8), 'd_k=-8 must be an int >= 1, or None'), (dict(d_v='64'), "d_v='64' must be an int >= 1, or None")])
def test_config_names_a_value_of_the_wrong_type(kw, msg):
    "p_drop='0.1' was a comparison of int and str; d_k=-8 was accepted and failed later, in a layer."
    with pytest.raises(ValueError) as e: ModelConfig(**kw)
    assert str(e.value).startswith(msg), str(e.value)

# Weights that seed 0 gave a tiny model before W^Q, W^K and W^V were split out of one stacked matrix (the previous code,
# its `in_proj` rows mapped to w_q, w_k, w_v and `out_proj` to w_o): the first four of each row named.
SEEDED = {('src_emb.lut.weight', 1): [0.1960566, 0.2012403, 0.0699409, 0.0856785],
          ('encoder.0.self_attn.w_q.weight', 0): [0.0947285, -0.0249284, 0.1417736, -0.1805001],
          ('decoder.0.cross_attn.w_k.weight', 0): [0.127795, -0.2313023, 0.2161063, -0.03623],
          ('decoder.1.cross_attn.w_v.weight', 0): [0.2226486, 0.2695943, 0.0297755, 0.2269212],
          ('decoder.1.cross_attn.w_o.weight', 0): [0.2972375, 0.1866315, 0.2587615, 0.2681368],
          ('decoder.1.ffn.w_1.weight', 0): [-0.0750246, -0.1759502, 0.1638998, 0.1449651]}

def test_a_seed_builds_the_model_it_always_built():
    "The tools' attention is built where the paper's would be, its weights drawn in the same order: a seed gives the model it gave."
    torch.manual_seed(0)
    sd = build_model(get_model_config('tiny', src_vocab=50, tgt_vocab=50)).state_dict()
    for (k, row), want in SEEDED.items():
        assert torch.allclose(sd[k][row, :4], torch.tensor(want), atol=1e-6), (k, sd[k][row, :4].tolist())
    torch.manual_seed(0)
    other = build_model(get_model_config('tiny', src_vocab=50, tgt_vocab=50, p_attn=0.1)).state_dict()   # dropout draws nothing
    assert all(torch.equal(sd[k], other[k]) for k in sd)


# ---------------------------------------------------------------- 06's model alone, on any device and in any dtype
DEVICES = ['meta', 'cpu'] + (['cuda'] if torch.cuda.is_available() else [])

@pytest.mark.parametrize('device', DEVICES)
@pytest.mark.parametrize('dtype', [torch.float32, torch.bfloat16])
@pytest.mark.parametrize('pos', ['sinusoidal', 'learned'])
def test_06s_model_alone_moves_and_casts(device, dtype, pos):
    "The paper's modules alone (no library): 06's Transformer after .to(device, dtype) runs forward, encode and decode there."
    from transformer_nb.config import TransformerConfig
    torch.manual_seed(0)
    m = Transformer(TransformerConfig(src_vocab=V, tgt_vocab=V, d_model=32, N=2, h=4, d_ff=64, pos=pos, max_len=16)).to(device, dtype).eval()
    src, tgt = (t.to(device) for t in random_batch(B=3, S=9, T=6))
    with torch.no_grad():
        out = m(src, tgt)
        mem = m.encode(src, pad_mask(src))
        again = m.decode(mem, pad_mask(src), tgt, tgt_mask(tgt))
    assert out.shape == (3, 6, V) and out.dtype == dtype and out.device.type == device and mem.device.type == device
    assert m.src_pos.state_dict() == {} or pos == 'learned'      # 05's table is a buffer, never saved
    if device != 'meta':
        assert torch.isfinite(out).all() and torch.equal(out, again)
        if dtype == torch.float32 and device == 'cpu':
            ref = Transformer(m.cfg).eval(); ref.load_state_dict(m.state_dict())
            assert torch.equal(ref(src, tgt), out)
