"""The changes since 2017 (14_since_2017, `transformer_nb.since2017`): each one's property, its swap into 06's model
(parameters reused, the same function where its paper says so), and the tools that select it (`ModelConfig`'s
`norm_first`, `norm`, `ffn`, `rope`, `kv_groups`): trained, saved, decoded with and without the cache, refused by the
exports in one line."""
import copy, operator, re
import pytest
import torch, torch.nn as nn, torch.nn.functional as F
from transformer_nb.model import Transformer
from transformer_nb.config import TransformerConfig
from transformer_nb.multihead import MultiHeadAttention
from transformer_nb.ffn import FeedForward
from transformer_nb.positional import pe_shift_matrix
from transformer_nb.since2017 import (pre_ln, RMSNorm, rms_norm, rotate, rotary, SwiGLU, swiglu, GroupedKV,
                                      group_kv, since2017_variants)
from transformer_nb.lib.options import get_model_config, PRESETS
from transformer_nb.lib.transformer import build_model, count_config_params, to_torch_transformer
from transformer_nb.lib.options import SettingError
from transformer_nb.lib.machine import rounding_tol, logit_terms
from transformer_nb.lib.fast_decoding import greedy_decode_batch, beam_search_batch
from test_decoding import make_model, rand_src, same_nbest, score_tol, main_beam, main_greedy, drop_empty, V
from conftest import tool, tiny_run, TINY, one_line

torch.set_num_threads(1)
ALL5 = since2017_variants(PRESETS['tiny'])['all5']

# ---- each change's property

@pytest.mark.parametrize('d, start', [(2, 0), (16, 0), (16, 7), (64, 100)])
def test_rotary_scores_depend_on_the_offset_alone(d, start):
    "q_m . k_n is a function of n - m: the same for every pair of positions at one offset, from any start."
    g = torch.Generator().manual_seed(d)
    q, k, n = torch.randn(d, generator=g, dtype=torch.float64), torch.randn(d, generator=g, dtype=torch.float64), 9
    S = rotate(q.expand(n, d), start) @ rotate(k.expand(n, d), start).T
    for o in range(-n + 1, n): torch.testing.assert_close(S.diagonal(o), S.diagonal(o)[:1].expand(n - abs(o)), rtol=0, atol=rounding_tol(S, 2 * d, torch.float64))
    assert not torch.allclose(S.diagonal(1)[0], S.diagonal(2)[0])          # and the offset matters

def test_rotary_turns_as_05s_shift_matrix():
    "R_m is 05's M_m transposed per pair (05 turns (sin, cos); RoFormer turns (x_2i, x_2i+1) the other way round), and keeps lengths."
    x = torch.randn(3, 16, dtype=torch.float64)
    for m in (0, 1, 5):
        turned = rotate(x[None, :1].expand(1, m + 1, 16).contiguous())[0, m]
        torch.testing.assert_close(turned, pe_shift_matrix(m, 16).T @ x[0])
        torch.testing.assert_close(turned.norm(), x[0].norm())

def test_grouped_query_attention_with_h_groups_is_multi_head_and_with_one_is_multi_query():
    torch.manual_seed(0)
    mha, x = MultiHeadAttention(48, 6).double(), torch.randn(2, 5, 48, dtype=torch.float64)
    for g in (6, 3, 2, 1):
        m = copy.deepcopy(mha); m.w_k, m.w_v = GroupedKV(m.w_k, 6, g), GroupedKV(m.w_v, 6, g)
        _, k, v = m.project(x)                                              # (B, h, n, d)
        for t in (k, v):                                                    # heads of a group share one head: consecutive heads
            assert all(torch.equal(t[:, i], t[:, i // (6 // g) * (6 // g)]) for i in range(6))
        if g == 6: torch.testing.assert_close(m(x), mha(x), rtol=0, atol=rounding_tol(mha(x), 48, torch.float64))
        if g == 1: assert torch.equal(k, k[:, :1].expand_as(k)) and torch.equal(v, v[:, :1].expand_as(v))
        assert sum(p.numel() for p in m.w_k.parameters()) == 48 * 8 * g + 8 * g     # g heads of 8: fewer parameters

def test_rms_norm_is_layer_norm_without_centring():
    ln = nn.LayerNorm(32).double(); nn.init.normal_(ln.weight)
    a = torch.randn(4, 7, 32, dtype=torch.float64) * 3
    centred = a - a.mean(-1, keepdim=True)
    torch.testing.assert_close(RMSNorm(ln)(centred), ln(centred), rtol=0, atol=rounding_tol(ln(centred), 32, torch.float64))
    assert not torch.allclose(RMSNorm(ln)(a + 1), ln(a + 1))                # not on inputs of another mean
    assert RMSNorm(ln).weight is ln.weight and len(list(RMSNorm(ln).parameters())) == 1   # its gain shared, no bias

@pytest.mark.parametrize('d', [96, 192, 384])
def test_swiglu_at_two_thirds_matches_the_ffns_parameters(d):
    relu, glu = FeedForward(d, 4 * d), SwiGLU(FeedForward(d, 2 * 4 * d // 3))
    matrices = lambda m: sum(p.numel() for p in m.parameters() if p.dim() == 2)
    assert matrices(glu) == matrices(relu) == 8 * d * d
    x = torch.randn(3, d)
    torch.testing.assert_close(glu(x), glu.w_2(F.silu(glu.w_1(x)) * glu.v(x)))

def test_at_initialisation_pre_ln_grows_with_depth_and_post_ln_gradients_peak_at_the_output():
    "Xiong et al.'s Figure 3, measured on 06's model of 8 layers: the residual stream entering each decoder layer, and each layer's W2 gradient."
    def measure(change):
        torch.manual_seed(0); m = Transformer(TransformerConfig(src_vocab=60, tgt_vocab=60, d_model=128, N=8, h=4, d_ff=512, p_drop=0.0)); change(m)
        size = []
        for l in m.decoder: l.register_forward_pre_hook(lambda l, a: size.append(a[0].norm(dim=-1).mean().item()))
        src, tgt = torch.randint(4, 60, (8, 12)), torch.randint(4, 60, (8, 13))
        F.cross_entropy(m(src, tgt[:, :-1]).flatten(0, 1), tgt[:, 1:].flatten()).backward()
        return size, [l.ffn.w_2.weight.grad.norm().item() for l in m.decoder]
    (post, post_g), (pre, pre_g) = measure(lambda m: None), measure(pre_ln)
    assert all(abs(s / 128 ** 0.5 - 1) < 0.01 for s in post[1:]), post               # post-LN: sqrt(d_model), layer after layer
    assert pre == sorted(pre) and pre[-1] > 1.5 * pre[0], pre                         # pre-LN: grows with depth
    assert post_g.index(max(post_g)) == len(post_g) - 1 and post_g[-1] > 3 * post_g[0], post_g   # post-LN: largest at the output
    assert max(pre_g) / min(pre_g) < max(post_g) / min(post_g) / 3, (pre_g, post_g)

# ---- the swaps, in 06's model and in the tools

@pytest.mark.parametrize('name', list(since2017_variants(PRESETS['tiny'])))
def test_each_change_is_a_swap_that_keeps_06s_parameters(name):
    "The tools' model with a change holds every parameter 06 drew that the change keeps, and counts as count_config_params says."
    cfg = get_model_config('tiny', src_vocab=30, tgt_vocab=30, **since2017_variants(PRESETS['tiny'])[name])
    torch.manual_seed(0); paper = Transformer(cfg)
    torch.manual_seed(0); ours = build_model(cfg)
    assert type(ours) is Transformer and count_config_params(cfg) == sum(p.numel() for p in {id(p): p for p in ours.parameters()}.values())
    kept = {k: v for k, v in paper.state_dict().items() if not (cfg.kv_groups and k.startswith('decoder') and ('w_k' in k or 'w_v' in k))
            and not (cfg.norm == 'rms' and 'norm.bias' in k)}
    ours_sd = {re.sub(r'\.(w_[qk])\.proj\.', r'.\1.', k): v for k, v in ours.state_dict().items()}   # a rotary projection keeps 02's as `proj`
    for k, v in kept.items(): assert torch.equal(ours_sd[k], v), k

def test_the_swaps_are_the_ones_the_page_makes_by_hand():
    cfg = get_model_config('tiny', src_vocab=30, tgt_vocab=30, **ALL5)
    torch.manual_seed(0); tools = build_model(cfg).eval()
    torch.manual_seed(0); hand = Transformer(cfg).eval(); group_kv(hand, cfg.kv_groups); rotary(hand); swiglu(hand); pre_ln(hand); rms_norm(hand)
    src, tgt = rand_src(n=3, seed=5) % 30, torch.randint(4, 30, (3, 6))
    with torch.no_grad(): torch.testing.assert_close(tools(src, tgt), hand(src, tgt), rtol=0, atol=rounding_tol(hand(src, tgt), logit_terms(cfg, src.shape[1], 6)))
    kinds = {type(m).__name__ for m in tools.modules()}
    assert {'Rotary', 'GroupedKV', 'SwiGLU', 'PreNorm', 'RMSNorm', 'NoPositions', 'FusedAttention'} <= kinds and 'LayerNorm' not in kinds
    assert isinstance(tools.encoder[0].self_attn.w_k.proj, nn.Linear) and not isinstance(tools.encoder[0].self_attn.w_v, GroupedKV)   # the encoder keeps h

@pytest.mark.parametrize('kw', [dict(rope=True), dict(kv_groups=2), dict(ffn='swiglu', d_ff=43), dict(norm='rms'), ALL5])
def test_the_cache_and_the_engine_decode_a_changed_model_as_10_does(kw):
    "The engine's searches, with the cache and without, give 10's one-sentence beam search and greedy decoding on a trained model."
    m, src = make_model(**kw), rand_src(seed=2)
    want, got, whole = drop_empty(main_beam(m, src, 4, 0.6, 6), beam_search_batch(m, src, beam=4, alpha=0.6, max_extra=6),
                                  beam_search_batch(m, src, beam=4, alpha=0.6, max_extra=6, use_cache=False))   # 10's may end at once; the engine never
    same_nbest(got, want, score_tol(m, src, want))
    same_nbest(whole, want, score_tol(m, src, want))
    assert greedy_decode_batch(m, src, 6) == greedy_decode_batch(m, src, 6, use_cache=False)
    assert operator.eq(*drop_empty(main_greedy(m, src, 6), greedy_decode_batch(m, src, 6)))

def test_the_changed_model_moves_to_any_device_and_dtype():
    m = build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V, **ALL5))
    src, tgt = rand_src(seed=4), torch.randint(4, V, (8, 5))
    assert m.to(torch.bfloat16)(src, tgt).dtype == torch.bfloat16
    assert m.to('meta')(src.to('meta'), tgt.to('meta')).shape == (8, 5, V)

def test_settings_that_do_not_fit_together_are_refused_in_one_line():
    with pytest.raises(SettingError, match='h=8 heads do not split into kv_groups=3 groups'): get_model_config('mini', kv_groups=3)
    with pytest.raises(SettingError, match="pos='learned' must be the default"): get_model_config('mini', rope=True, pos='learned')
    with pytest.raises(SettingError, match="p_ffn=0.1 drops the ReLU's activations"): get_model_config('mini', ffn='swiglu', p_ffn=0.1)
    with pytest.raises(SettingError, match="nn.Transformer holds only the paper's layers, and this model has norm='rms'"):
        to_torch_transformer(build_model(get_model_config('tiny', src_vocab=20, tgt_vocab=20, norm='rms')))
    to_torch_transformer(build_model(get_model_config('tiny', src_vocab=20, tgt_vocab=20, norm_first=True)))   # pre-LN is nn.Transformer's too

# ---- the commands

@pytest.fixture(scope='module')
def all5_run(tmp_path_factory) -> str:
    return str(tiny_run(tmp_path_factory, 'all5', '--steps', '3', '--norm-first', '--norm', 'rms', '--rope', '--ffn', 'swiglu', '--kv-groups', '2'))

@pytest.mark.slow
def test_tnb_train_selects_each_change_and_the_tools_read_it_back(all5_run, tmp_path):
    from transformer_nb.lib.checkpoints import model_from_checkpoint
    model, _, ck = model_from_checkpoint(all5_run)
    assert (model.cfg.norm_first, model.cfg.norm, model.cfg.rope, model.cfg.ffn, model.cfg.kv_groups) == (True, 'rms', True, 'swiglu', 2)
    r = tool('translate', all5_run, '--beam', '2', stdin='3 4 5\n', text=True)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 1, r.stderr[-2000:]
    r = tool('average', all5_run, '-o', str(tmp_path / 'avg.pt'))
    assert r.returncode == 0, r.stderr[-2000:]
    r = tool('export', all5_run, '-o', str(tmp_path / 'onnx'), '--format', 'onnx')
    one_line(r, 'tnb-export', "holds only the paper's layers", 'rope=True', 'kv_groups=2', code=2)
    assert not (tmp_path / 'onnx').exists()

@pytest.mark.slow
def test_tnb_train_refuses_a_change_that_does_not_fit_in_one_line(tmp_path):
    r = tool('train', *TINY, '--steps', '1', '--kv-groups', '3', '--out', str(tmp_path / 'run'))
    one_line(r, 'tnb-train', '--h 4 heads do not split into --kv-groups 3 groups')
    assert not (tmp_path / 'run').exists() or not any((tmp_path / 'run').iterdir())
