"Decoding (10_decoding, lib_fast_decoding): greedy and beam search invariants, the library's engine against the main"
" line's one-sentence searches, translate, checkpoint averaging (lib_checkpoints)."
import contextlib, dataclasses, operator, warnings
import pytest
import torch
import transformer_nb.lib.fast_decoding as FD
from transformer_nb.core import PAD_ID, UNK_ID, BOS_ID, EOS_ID
from transformer_nb.lib.transformer import build_model, with_cache
from transformer_nb.model import Transformer
from transformer_nb.lib.options import get_config
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.checkpoints import save_checkpoint, average_checkpoints, save_averaged
from transformer_nb.decoding import greedy_decode, beam_search, length_penalty, next_token_logits
from transformer_nb.lib.fast_decoding import (greedy_decode_batch, beam_search_batch, max_output_lengths, inference, log_probs, DecoderCache,
                                          step_logits, _check_penalty, argmax_rows, topk_rows, topk_log_probs, FastCache)
from transformer_nb.lib.fast_decoding import translate, length_batches
from transformer_nb.lib.options import Decoding
from transformer_nb.lib.machine import rounding_tol, logit_terms

torch.set_num_threads(1)
V = 16

_TRAINED = {}
def make_model(seed=0, dtype=torch.float64, steps=60, **kw):
    "A tiny model trained for ~1 s to reverse id sequences: varied output lengths, beam search differs from greedy."
    key = (seed, dtype, steps, tuple(sorted(kw.items())))
    if key not in _TRAINED:
        torch.manual_seed(seed)
        m = build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V, **kw))
        opt = torch.optim.Adam(m.parameters(), lr=1e-2)
        for step in range(steps):
            src = rand_src(n=32, seed=1000 + step)
            tgt = pad([[BOS_ID] + r[r != PAD_ID][:-1].flip(0).tolist() + [EOS_ID] for r in src])
            logits = m(src, tgt[:, :-1])
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tgt[:, 1:].flatten(), ignore_index=PAD_ID)
            opt.zero_grad(); loss.backward(); opt.step()
        _TRAINED[key] = m.to(dtype).eval()
    return _TRAINED[key]

def pad(rows):
    out = torch.full((len(rows), max(map(len, rows))), PAD_ID)
    for i, r in enumerate(rows): out[i, :len(r)] = torch.tensor(r)
    return out

def rand_src(n=8, lo=1, hi=8, seed=1):
    g = torch.Generator().manual_seed(seed)
    return pad([torch.randint(4, V, (int(torch.randint(lo, hi + 1, (1,), generator=g)),), generator=g).tolist() + [EOS_ID]
                for _ in range(n)])

def rows_alone(src):  # each sentence as its own batch without padding
    return [src[i:i + 1, :int((src[i] != PAD_ID).sum())] for i in range(src.shape[0])]

def best(nbest): return [h[0][0] for h in nbest]   # the ids of each sentence's best hypothesis

def no_eos(model):
    "`model` that never ends a sentence: its output layer (the same weight) gets a bias of -inf at EOS, so every output runs to its cap."
    old = model.generator.proj
    new = torch.nn.Linear(old.in_features, old.out_features, device=old.weight.device, dtype=old.weight.dtype)
    new.weight = old.weight
    with torch.no_grad(): new.bias.zero_(); new.bias[EOS_ID] = float('-inf')
    model.generator.proj = new
    return model

@pytest.fixture
def no_eos_fast(monkeypatch):
    "The same for the fast decoders' step, `TorchStep` (06's `model.decode` on the newest tokens, a cache held)."
    step = FD.TorchStep.__call__
    def step_no_eos(self, tokens):
        out = step(self, tokens).clone(); out[..., EOS_ID] = float('-inf'); return out
    monkeypatch.setattr(FD.TorchStep, "__call__", step_no_eos)

@pytest.fixture
def count_rows(monkeypatch):
    "Counts the decoder rows (hypotheses x steps) the fast decoders compute: `calls['n']`."
    calls, step = {'n': 0}, FD.TorchStep.__call__
    def counting(self, tokens):
        calls['n'] += tokens.shape[0]; return step(self, tokens)
    monkeypatch.setattr(FD.TorchStep, '__call__', counting)
    return calls

CONFIGS = [dict(), dict(norm_first=True), dict(pos='learned', max_len=64), dict(tie='none')]

def main_greedy(m, src, max_extra=50):
    "10's `greedy_decode`, one sentence of the batch `src` at a time."
    return [greedy_decode(m, r[r != PAD_ID], max_extra) for r in src]

def main_beam(m, src, beam=4, alpha=0.6, max_extra=50):
    "10's `beam_search`, one sentence of the batch `src` at a time: the n-best lists."
    return [beam_search(m, r[r != PAD_ID], beam, alpha, max_extra) for r in src]

@pytest.fixture(scope='module')
def model(): return make_model()

@pytest.fixture(scope='module')
def src(): return rand_src()

def score_tol(m, src, *nbests) -> float:
    """How far rounding may move the scores of `nbests` (each: per sentence of `src`, its (ids, score) list), in the model's
    dtype (lib_machine's `rounding_tol`): a score adds its tokens' log-probabilities (over lp >= 1), each a logit and a
    log-sum-exp of the network's sums (`logit_terms`), and V exponentials of at most 1. Never a tolerance tuned on one CPU."""
    hyps = [(i, ids) for nb in nbests for i, h in enumerate(nb) for ids, _ in h]
    tgt = pad([[BOS_ID] + list(ids) for _, ids in hyps])
    with torch.no_grad(): z = m(src[[i for i, _ in hyps]], tgt).double()            # (R, T, V): each token's logits, teacher-forced
    keep = torch.cat([torch.ones(len(hyps), 1, dtype=torch.bool), tgt[:, 1:] != PAD_ID], 1)   # each id, and the EOS after the last
    mag = ((torch.where(z.isfinite(), z.abs(), 0).amax(-1) + z.logsumexp(-1).abs()) * keep).sum(1)
    dt = next(m.parameters()).dtype
    return rounding_tol(mag, logit_terms(m.cfg, src.shape[1], tgt.shape[1]), dt) + rounding_tol(keep.sum(1).double(), m.cfg.tgt_vocab, dt)

def drop_empty(want, *got):
    """(want, *got) without the sentences whose result in `want` (10's plain searches: per sentence its ids, or its n-best
    list) is empty or holds an empty hypothesis, where 10's loop ended at its first step; the engine (`got`) forbids that
    (fairseq's min_len=1), so there it never returns one. Every other sentence must agree."""
    empty = lambda r: r == [] or (isinstance(r[0], tuple) and any(ids == [] for ids, _ in r))
    gone = [i for i, r in enumerate(want) if empty(r)]
    for g in got:
        assert not any(empty(g[i]) for i in range(len(g))), g
    keep = lambda rs: [r for i, r in enumerate(rs) if i not in gone]
    return (keep(want), *map(keep, got))

def same_nbest(a, b, tol):
    "The same hypotheses (ids, in the same order) exactly; scores within `tol` (`score_tol`)."
    assert [[ids for ids, _ in h] for h in a] == [[ids for ids, _ in h] for h in b]
    for ha, hb in zip(a, b):
        for (_, sa), (_, sb) in zip(ha, hb): assert abs(sa - sb) <= tol, (sa, sb, tol)

@pytest.mark.parametrize('beam, alpha', [(1, 0.0), (1, 0.6), (4, 0.0), (4, 0.6)])
def test_the_librarys_decoders_equal_the_main_lines(model, src, beam, alpha):
    "The engine's beam_search_batch and (beam 1) greedy_decode_batch give the main line's one-sentence searches' n-best lists"
    " and tokens on 8 sentences of a trained model (float64: scores to 1e-9)."
    want = main_beam(model, src, beam, alpha, 6)
    for got in (beam_search_batch(model, src, Decoding(beam, alpha, 6)), beam_search_batch(model, src, beam=beam, alpha=alpha, max_extra=6, use_cache=False)):
        w, g = drop_empty(want, got)      # an n-best list with an empty hypothesis (the model this CPU trained may rank one): the engine forbids it
        assert len(w) >= len(want) - 2; same_nbest(g, w, score_tol(model, src, want))
    if beam == 1: assert greedy_decode_batch(model, src, 6) == main_greedy(model, src, 6) == greedy_decode_batch(model, src, 6, use_cache=False)
    logits = torch.randn(5, V, dtype=torch.bfloat16)
    assert torch.equal(step_logits(model, logits.clone()), next_token_logits(logits.float(), PAD_ID))

def paper_twin(m):
    "06's `Transformer` (the paper's model: its config has no pad_id, its decode takes the target mask) with the weights of the library's `m`."
    twin = Transformer(get_config('tiny', src_vocab=m.cfg.src_vocab, tgt_vocab=m.cfg.tgt_vocab)).to(next(m.parameters()).dtype)
    twin.load_state_dict(m.state_dict())                                  # the library's model: 06's parameters, 06's names
    return twin.eval()

def test_the_main_lines_searches_decode_06s_model_as_the_librarys(model, src):
    "10's greedy_decode and beam_search run on 06's `Transformer` and give it the outputs they give the library's model with"
    " the same weights (float64: scores to 1e-9), on 8 sentences, beams 1 and 4; and on an untrained 06 model, as a learner builds it."
    twin = paper_twin(model)
    assert type(twin) is Transformer and not hasattr(twin.cfg, 'pad_id')
    assert main_greedy(twin, src, 6) == main_greedy(model, src, 6)
    for beam, alpha in [(1, 0.0), (4, 0.6)]: same_nbest(main_beam(twin, src, beam, alpha, 6), want := main_beam(model, src, beam, alpha, 6), score_tol(model, src, want))
    torch.manual_seed(0)
    fresh, s = Transformer(get_config('tiny', src_vocab=12, tgt_vocab=12)).eval(), torch.tensor([4, 5, EOS_ID])
    out, nbest = greedy_decode(fresh, s, 3), beam_search(fresh, s, max_extra=3)
    assert len(out) <= 6 and not {PAD_ID, BOS_ID, EOS_ID} & set(out), out
    assert 1 <= len(nbest) <= 4 and all(len(ids) <= 6 and not {PAD_ID, BOS_ID, EOS_ID} & set(ids) for ids, _ in nbest), nbest

def test_the_library_forbids_pad_and_bos():
    "10's next_token_logits forbids core's PAD_ID and BOS; the library's engine, in float32 at least, the same two."
    m = build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V))
    assert step_logits(m, torch.zeros(2, V, dtype=torch.bfloat16))[0].isinf().nonzero().flatten().tolist() == [PAD_ID, BOS_ID]
    assert next_token_logits(torch.zeros(2, V))[0].isinf().nonzero().flatten().tolist() == [PAD_ID, BOS_ID]

def test_the_test_model_is_not_degenerate(model, src):
    g, b = greedy_decode_batch(model, src), best(beam_search_batch(model, src))
    assert len(set(map(len, g))) >= 3 and sum(x != y for x, y in zip(g, b)) >= 2, (g, b)

def test_beam_one_without_the_penalty_is_greedy(model, src):
    "With alpha = 0, a finished hypothesis outranks the open one, which only loses log-probability: the search ends where greedy does."
    g = greedy_decode_batch(model, src)
    assert best(beam_search_batch(model, src, beam=1, alpha=0)) == g
    assert best(beam_search_batch(model, src, beam=1, alpha=0, use_cache=False)) == greedy_decode_batch(model, src, use_cache=False)
    assert best(main_beam(model, src, beam=1, alpha=0)) == main_greedy(model, src) == g

def test_beam_one_with_the_penalty_is_greedy_or_goes_past_its_end(model, src):
    """With alpha > 0, a beam of 1 keeps the best open hypothesis beside greedy's finished output, and the penalty may rank a
    longer one higher: its output is greedy's or begins with it. Which one wins can hang on the last bit of a score, so
    only the prefix is asserted."""
    g = greedy_decode_batch(model, src)
    for search in (beam_search_batch, main_beam):
        for alpha in (0.6, 2.0):
            for b, gi in zip(best(search(model, src, beam=1, alpha=alpha)), g): assert b[:len(gi)] == gi, (search, alpha, b, gi)

@pytest.mark.parametrize('kw', CONFIGS)
def test_cache_changes_nothing(kw):
    m, src = make_model(**kw), rand_src(seed=2)
    assert greedy_decode_batch(m, src, use_cache=False) == greedy_decode_batch(m, src)
    same_nbest(beam_search_batch(m, src, use_cache=False), ref := beam_search_batch(m, src), score_tol(m, src, ref))

@pytest.mark.parametrize('kw', CONFIGS[:2])
def test_independent_of_batch_and_padding(kw):
    m, src = make_model(**kw), rand_src(seed=3)
    g, nb = greedy_decode_batch(m, src), beam_search_batch(m, src)
    tol = score_tol(m, src, nb)
    assert [greedy_decode_batch(m, s)[0] for s in rows_alone(src)] == g
    assert operator.eq(*drop_empty(main_greedy(m, src), g))
    same_nbest([beam_search_batch(m, s)[0] for s in rows_alone(src)], nb, tol)
    same_nbest(*drop_empty(main_beam(m, src), nb), tol)
    wider = torch.cat([src, torch.zeros(src.shape[0], 5, dtype=torch.long)], 1)
    assert greedy_decode_batch(m, wider) == g
    same_nbest(beam_search_batch(m, wider), nb, tol)
    perm = torch.randperm(src.shape[0], generator=torch.Generator().manual_seed(0))
    assert greedy_decode_batch(m, src[perm]) == [g[i] for i in perm.tolist()]
    same_nbest(beam_search_batch(m, src[perm]), [nb[i] for i in perm.tolist()], tol)

def teacher_forced_score(m, src_row, ids, alpha, ended):
    y = torch.tensor([[BOS_ID] + ids + ([EOS_ID] if ended else [])])
    with inference(m):
        logits = m(src_row[None], y[:, :-1])[0].double()
        logits[:, [PAD_ID, BOS_ID]] = float('-inf')
        logp = logits.log_softmax(-1).gather(1, y[0, 1:, None]).sum().item()
    return logp / length_penalty(y.shape[1] - 1, alpha)

@pytest.mark.parametrize('alpha', [0.0, 0.6, 1.0])
def test_nbest_ranked_by_normalised_score(model, src, alpha):
    caps = max_output_lengths(model, src).tolist()
    readable, fast = main_beam(model, src, beam=4, alpha=alpha), beam_search_batch(model, src, beam=4, alpha=alpha)
    for nb in (readable, fast):
        for i, hyps in enumerate(nb):
            scores = [s for _, s in hyps]
            assert len(hyps) == 4 and scores == sorted(scores, reverse=True)
            row = src[i][src[i] != PAD_ID]
            for ids, s in hyps:
                ended = len(ids) < caps[i]    # shorter than the cap: it ended in EOS
                assert abs(s - teacher_forced_score(model, row, ids, alpha, ended)) < 1e-6
    want, got, one = drop_empty(readable, fast, beam_search_batch(model, src, beam=4, alpha=alpha, nbest=1))   # as above: no empty hypothesis
    assert len(want) >= len(readable) - 2
    same_nbest(got, want, score_tol(model, src, readable))
    same_nbest(one, [h[:1] for h in want], score_tol(model, src, readable))

def test_length_penalty_changes_the_winner():
    "With alpha=0 beam search prefers shorter outputs than with alpha=1 (summed over a batch)."
    m, src = make_model(), rand_src(n=12, seed=4)
    short = sum(map(len, best(beam_search_batch(m, src, alpha=0.0))))
    long = sum(map(len, best(beam_search_batch(m, src, alpha=1.0))))
    assert short <= long

def test_length_penalty_values():
    assert length_penalty(1) == 1.0
    assert abs(length_penalty(20, 0.6) - (25 / 6) ** 0.6) < 1e-12
    assert length_penalty(7, 1.0) == 2.0

def no_eos_model(**kw):
    torch.manual_seed(0)
    return no_eos(build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V, **kw))).double().eval()

def test_max_length_reached_and_respected(no_eos_fast):
    m, src = no_eos_model(), rand_src(seed=5)
    n = (src != PAD_ID).sum(1)
    for extra in (0, 3):
        assert [len(o) for o in greedy_decode_batch(m, src, max_extra=extra)] == (n + extra).tolist()
        assert [len(o) for o in best(beam_search_batch(m, src, max_extra=extra))] == (n + extra).tolist()
        assert greedy_decode_batch(m, src, max_extra=extra, use_cache=False) == greedy_decode_batch(m, src, max_extra=extra)
        assert [len(o) for o in main_greedy(m, src, max_extra=extra)] == (n + extra).tolist()         # the main line's caps
        assert [len(o) for o in best(main_beam(m, src, max_extra=extra))] == (n + extra).tolist()
    assert [len(o) for o in greedy_decode_batch(m, src)] == (n + 50).tolist()   # the paper's default: input + 50

def test_learned_positions_cap_output(no_eos_fast):
    m, src = no_eos_model(pos='learned', max_len=9), rand_src(seed=6)
    assert all(len(o) == 9 for o in greedy_decode_batch(m, src))
    assert all(len(o) == 9 for o in best(beam_search_batch(m, src)))
    assert all(len(o) == 9 for o in greedy_decode_batch(m, src, use_cache=False))

def test_outputs_never_hold_specials(model, src):
    for outs in (greedy_decode_batch(model, src), best(beam_search_batch(model, src)), main_greedy(model, src),
                 best(main_beam(model, src))):
        assert all(i not in (PAD_ID, BOS_ID, EOS_ID) for o in outs for i in o)

def test_mode_restored_and_no_grad(model, src, monkeypatch):
    "Every decoder runs its encoder and every step in eval mode without autograd, and leaves the model's mode as it was."
    seen = []
    def watch(*a): seen.append((torch.is_grad_enabled(), model.training))
    hooks = [m.register_forward_pre_hook(watch) for m in model.modules()]
    try:
        for mode in (True, False):
            for decode in (greedy_decode_batch, beam_search_batch):
                model.train(mode); n = len(seen)
                with torch.enable_grad(): decode(model, src)
                assert len(seen) > n, decode.__name__                           # the watch saw the decoder run
                assert model.training == mode, decode.__name__
                assert seen[n:] == [(False, False)] * (len(seen) - n), decode.__name__   # no autograd, no dropout
    finally:
        for h in hooks: h.remove()
        model.eval()

def test_bad_inputs(model):
    greedy, beam = greedy_decode_batch, beam_search_batch
    with pytest.raises(ValueError, match=r'\[1\]'): greedy(model, torch.tensor([[5, 3], [0, 0]]))
    with pytest.raises(ValueError, match=r'\[1\]'): beam(model, torch.tensor([[5, 3], [0, 0]]))
    with pytest.raises(ValueError, match='beam=0'): beam(model, torch.tensor([[5, 3]]), beam=0)
    with pytest.raises(ValueError, match='alpha=-1'): beam(model, torch.tensor([[5, 3]]), alpha=-1)
    with pytest.raises(ValueError, match='max_extra=-2'): greedy(model, torch.tensor([[5, 3]]), max_extra=-2)
    with pytest.raises(TypeError, match='float32'): greedy(model, torch.ones(1, 3))
    with pytest.raises(ValueError, match=r'\(3,\)'): beam(model, torch.tensor([5, 6, 3]))
    with pytest.raises(IndexError, match='src: token id 16 .*vocabulary of 16'): greedy(model, torch.tensor([[5, 16, 3]]))

class CharTok:
    chars = 'abcdefghijkl'
    def encode(self, s): return [4 + self.chars.index(c) if c in self.chars else UNK_ID for c in s]
    def decode(self, ids): return ''.join(self.chars[i - 4] for i in ids if i >= 4)

def test_translate_order_empty_and_batching(model):
    tok = CharTok()
    sents = ['abc', '', 'kjihgfedcba', '  \t', 'a', 'fed', 'lll', 'xyz!']   # 'xyz!' -> UNKs, no crash
    out = translate(model, tok, sents, max_tokens=8)
    assert len(out) == len(sents) and out[1] == '' and out[3] == ''
    assert out == translate(model, tok, sents, max_tokens=10_000)             # batching is irrelevant
    assert out == translate(model, tok, sents[::-1])[::-1]                   # order restored
    alone = [translate(model, tok, [s])[0] for s in sents]
    assert out == alone
    enc = lambda s: torch.tensor([tok.encode(s.strip()) + [EOS_ID]])
    assert out == [tok.decode(beam_search(model, enc(s)[0])[0][0]) if s.strip() else '' for s in sents]   # the main line's search
    greedy = [tok.decode(greedy_decode(model, enc(s)[0])) if s.strip() else '' for s in sents]
    assert translate(model, tok, sents, beam=1) == greedy
    assert translate(model, tok, []) == []
    with pytest.raises(TypeError, match='wrap it'): translate(model, tok, 'abc')
    with pytest.raises(TypeError, match=r'sentences\[1\]'): translate(model, tok, ['abc', None])

def test_translate_refuses_what_learned_positions_cannot_hold_and_the_decoders_truncate():
    "translate() refuses a source past the model's positions, as the commands do; the decoders it calls truncate one, saying so."
    from transformer_nb.lib.options import PAPER_DECODING
    from transformer_nb.lib.fast_decoding import translate_checked
    m = make_model(pos='learned', max_len=10, steps=0)
    with pytest.raises(ValueError, match=r'sentences\[0\] is 25 tokens long .*more than the limit of 10'): translate(m, CharTok(), ['abcdefghijkl' * 2, 'abc'])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        out = translate_checked(m, CharTok(), ['abcdefghijkl' * 2, 'abc'], PAPER_DECODING, 4000, contextlib.nullcontext())
    assert len(out) == 2 and len(w) == 1 and 'truncated' in str(w[0].message)
    assert all(len(o) <= 10 for o in out)

def test_length_batches():
    lens = [5, 1, 9, 3, 3, 7]
    bs = length_batches(lens, max_tokens=12)
    assert sorted(i for b in bs for i in b) == list(range(len(lens)))
    assert all(len(b) == 1 or len(b) * max(lens[i] for i in b) <= 12 for b in bs)
    with pytest.raises(ValueError, match='max_tokens=0'): length_batches(lens, 0)

# ---- checkpoint averaging (lib_checkpoints) ----
def ckpt(model, step=1, **extra):
    return {'format': 'transformer_nb.checkpoint/1', 'config': dataclasses.asdict(model.cfg), 'model': model.state_dict(),
            'tokenizer': b'tok', 'optimizer': {'state': {}}, 'scheduler': {}, 'step': step, 'epoch': 0,
            'rng': {}, 'data_pos': {}, 'meta': {'run': 'x'}, **extra}

def small(seed, **kw):
    torch.manual_seed(seed); return build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V, **kw))

def test_average_of_copies_is_identity(tmp_path):
    m = small(0)
    p = save_checkpoint(tmp_path / 'a.pt', **ckpt(m, 7))
    avg = average_checkpoints([p, p])
    sd = m.state_dict()
    assert set(avg['model']) == set(sd)
    for k, v in sd.items(): assert torch.equal(avg['model'][k], v), k
    assert avg['step'] == 7 and avg['tokenizer'] == b'tok' and avg['config'] == dataclasses.asdict(m.cfg)
    assert 'optimizer' not in avg and avg['meta']['run'] == 'x' and len(avg['meta']['averaged_from']) == 2

def test_average_is_the_mean_and_keeps_dtype_and_ties(tmp_path):
    ms = [small(s) for s in range(3)]
    sds = [{k: v.half() if k == 'decoder.0.ffn.w_1.weight' else v for k, v in m.state_dict().items()} for m in ms]
    paths = [save_checkpoint(tmp_path / f'c{i}.pt', **{**ckpt(m, i), 'model': sd}) for i, (m, sd) in enumerate(zip(ms, sds))]
    (tmp_path / 'sub').mkdir()                                   # a file goes into a folder that is there (check_parent)
    out = save_averaged(paths, tmp_path / 'sub' / 'avg.pt')
    assert out.is_file() and not [p for p in (tmp_path / 'sub').iterdir() if p.name != 'avg.pt']   # no temp left
    avg = torch.load(out, weights_only=True)['model']
    k = 'encoder.1.self_attn.w_q.weight'
    assert torch.allclose(avg[k], torch.stack([sd[k] for sd in sds]).mean(0), atol=1e-7)
    assert avg['decoder.0.ffn.w_1.weight'].dtype == torch.float16
    assert avg['src_emb.lut.weight'].data_ptr() == avg['generator.proj.weight'].data_ptr()    # still tied
    m = small(9); m.load_state_dict(avg)                                                       # loads back

def test_average_refuses_tensors_the_architecture_lacks(tmp_path):
    "A tensor the config's model does not have (here a counter buffer) is named, not averaged or copied."
    sd = {**small(0).state_dict(), 'counter': torch.tensor(1)}
    p = save_checkpoint(tmp_path / 'c.pt', **{**ckpt(small(0), 0), 'model': sd})
    with pytest.raises(ValueError, match=r'c\.pt: the weights do not match.*unexpected.*counter'): average_checkpoints([p, p])

def test_average_mismatched_architecture(tmp_path):
    a = save_checkpoint(tmp_path / 'a.pt', **ckpt(small(0)))
    b = save_checkpoint(tmp_path / 'wide.pt', **ckpt(small(0, d_ff=128)))
    with pytest.raises(ValueError, match=r'a\.pt.*wide\.pt.*d_ff: 64 vs 128'): average_checkpoints([a, b])
    c = save_checkpoint(tmp_path / 'h2.pt', **ckpt(small(0, h=2)))          # same shapes, different heads
    with pytest.raises(ValueError, match='h: 4 vs 2'): average_checkpoints([a, c])
    d = ckpt(small(0)); d['model'] = {**d['model'], 'extra.weight': torch.zeros(2)}
    d = save_checkpoint(tmp_path / 'extra.pt', **d)
    with pytest.raises(ValueError, match="'extra.weight' only in"): average_checkpoints([a, d])
    e = save_checkpoint(tmp_path / 'drop.pt', **ckpt(small(0, p_drop=0.3)))  # not one run either: refused, and said why
    with pytest.raises(ValueError, match=r'different training settings \(p_drop: 0.0 vs 0.3\)'): average_checkpoints([a, e])

def test_average_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError, match='nope.pt'): average_checkpoints([tmp_path / 'nope.pt'])
    (tmp_path / 'junk.pt').write_bytes(b'\x00garbage')
    with pytest.raises(ValueError, match='junk.pt'): average_checkpoints([tmp_path / 'junk.pt'])
    torch.save({'weights': torch.zeros(1)}, tmp_path / 'foreign.pt')
    with pytest.raises(ValueError, match='not a transformer_nb checkpoint'): average_checkpoints([tmp_path / 'foreign.pt'])
    with pytest.raises(ValueError, match='at least one'): average_checkpoints([])

@pytest.mark.skipif(not torch.cuda.is_available(), reason='needs CUDA')
def test_cuda_matches_cpu():
    m, src = make_model(dtype=torch.float32), rand_src(seed=7)
    cpu = (beam_search_batch(m, src), greedy_decode_batch(m, src))
    m.cuda()
    try:
        gpu = beam_search_batch(m, src.cuda())
        same_nbest(gpu, cpu[0], score_tol(m.cpu(), src, cpu[0]))
        assert greedy_decode_batch(m, src.cuda()) == cpu[1]
    finally: m.cpu()


def test_beam_never_stops_while_a_better_hypothesis_is_alive(model, src):
    "The stopping bound: beam 4's best normalised score is at least that of the greedy output (which beam 1 finds)."
    for search in (beam_search_batch, main_beam):
        for alpha in (0.0, 0.6, 1.0):
            top = [h[0][1] for h in search(model, src, beam=4, alpha=alpha)]
            greedy = [h[0][1] for h in search(model, src, beam=1, alpha=alpha)]
            worse = [(i, b, g) for i, (b, g) in enumerate(zip(top, greedy)) if b < g - 1e-9]
            assert not worse, (search.__name__, alpha, worse)


class ScriptedModel(torch.nn.Module):
    "A fake decoder whose next-token distribution depends only on the prefix length: for five steps 'good' (id 4) with"
    " p=0.9, EOS 0.06, junk (id 5) 0.03, UNK 0.01; then EOS with p=0.98. Greedy finds 4 4 4 4 4 EOS."
    def __init__(self):
        super().__init__()
        from types import SimpleNamespace
        self.cfg, self.w = SimpleNamespace(pos='sinusoidal', max_len=1024, max_positions=None, src_vocab=16, tgt_vocab=6), torch.nn.Linear(1, 1)
    def encode(self, src, src_mask): return torch.zeros(src.shape[0], src.shape[1], 1)
    def decode(self, memory, src_mask, tgt, tgt_mask=None, cache=None):
        p = torch.full((6,), 1e-4)
        if tgt.shape[1] < 6: p[4], p[EOS_ID], p[5], p[UNK_ID] = 0.9, 0.06, 0.03, 0.01
        else: p[EOS_ID] = 0.98
        return p.log().expand(tgt.shape[0], tgt.shape[1], 6).clone()

def test_beam_search_does_not_stop_while_a_better_hypothesis_is_alive():
    "fairseq's rule (stop once k hypotheses end) returns a short improbable one here; the bound must not."
    m, src = ScriptedModel(), torch.tensor([[7, 8, EOS_ID]])
    for alpha in (0.0, 0.6, 1.0):
        for search in (lambda *a, **kw: beam_search_batch(*a, **kw, use_cache=False), main_beam):
            ids, score = search(m, src, beam=4, alpha=alpha)[0][0]
            assert ids == [4, 4, 4, 4, 4], (alpha, ids, score)
        assert ids == greedy_decode_batch(m, src, use_cache=False)[0]


# ---- the fast beam search (lib_fast_decoding) against the readable one (10) ----

SLOW = pytest.mark.slow                # 15-30 s each on 2 cores: one configuration stays in the fast tier
@pytest.mark.parametrize('kw', [CONFIGS[0], *(pytest.param(kw, marks=SLOW) for kw in CONFIGS[1:])])
@pytest.mark.parametrize('dtype', [torch.float64, torch.float32])
def test_fast_beam_search_equals_reference(kw, dtype):
    """The same n-best lists (ids, in order) on random batches, beams, penalties, caps; scores equal to float rounding
    (the fast search groups a sentence's hypotheses in encoder-decoder attention, which changes the rounding)."""
    m = make_model(dtype=dtype, **kw)
    for seed in range(10):
        src = rand_src(n=1 + seed % 9, hi=1 + seed % 12, seed=100 + seed)
        for k, alpha, extra in [(4, 0.6, 50), (1, 0.6, 50), (3, 1.0, 2), (5, 0.0, 0), (2, 0.6, 5)]:
            ref = main_beam(m, src, k, alpha, extra) if not m.cfg.max_positions else beam_search_batch(m, src, Decoding(k, alpha, extra), use_cache=False)
            ref, got, one = drop_empty(ref, beam_search_batch(m, src, Decoding(k, alpha, extra)), beam_search_batch(m, src, Decoding(k, alpha, extra), nbest=1))
            if not ref: continue                                       # every sentence ended at 10's first step: nothing left to compare
            same_nbest(got, ref, tol := score_tol(m, src, ref))
            # nbest=1 stops sentences earlier, so the others run in smaller batches: same ids, scores to float rounding
            same_nbest(one, [h[:1] for h in ref], tol)

def test_fast_beam_search_equals_reference_at_the_cap_and_when_scripted(monkeypatch):
    m, src = no_eos_model(), rand_src(seed=5)          # every hypothesis runs into its cap
    step = FD.TorchStep.__call__
    monkeypatch.setattr(FD.TorchStep, '__call__', lambda *a: step(*a).index_fill_(-1, torch.tensor([EOS_ID]), float('-inf')))
    for extra in (0, 3):
        same_nbest(beam_search_batch(m, src, max_extra=extra), ref := beam_search_batch(m, src, max_extra=extra, use_cache=False), score_tol(m, src, ref))
    monkeypatch.undo()
    torch.manual_seed(0)
    untrained = build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V)).eval()
    same_nbest(beam_search_batch(untrained, rand_src(seed=6)), want := main_beam(untrained, rand_src(seed=6)), score_tol(untrained, rand_src(seed=6), want))
    sm, s = ScriptedModel(), torch.tensor([[7, 8, EOS_ID]])
    for alpha in (0.0, 0.6, 1.0):
        got, want = beam_search_batch(sm, s, alpha=alpha, use_cache=False), main_beam(sm, s, alpha=alpha)   # its lower ranks tie exactly
        same_nbest([h[:1] for h in got], [h[:1] for h in want], rounding_tol([s for h in want for _, s in h], 6 * 6))   # 6 steps of a 6-token softmax

def test_beam_larger_than_vocabulary(model):
    assert len(beam_search_batch(model, torch.tensor([[5, 3]]), beam=V)) == 1             # the whole vocabulary is fine
    want = [[h for h in main_beam(model, torch.tensor([[5, 3]]), beam=V)[0] if h[0]]]        # 10's n-best but its empty hypothesis,
    got = [beam_search_batch(model, torch.tensor([[5, 3]]), beam=V)[0][:len(want[0])]]      # which the engine never returns
    assert len(want[0]) >= V - 1 and all(ids for ids, _ in got[0])
    same_nbest(got, want, score_tol(model, torch.tensor([[5, 3]]), want))
    with pytest.raises(ValueError, match=f'beam={V + 1} is more than the target vocabulary of {V} pieces'):
        beam_search_batch(model, torch.tensor([[5, 3]]), beam=V + 1)
    for bad in (0, 5, 2.0):
        with pytest.raises(ValueError, match='nbest='): beam_search_batch(model, torch.tensor([[5, 3]]), beam=4, nbest=bad)
    assert [len(h) for h in beam_search_batch(model, rand_src(seed=9), beam=4, nbest=2)] == [2] * 8

def test_nbest_one_stops_earlier_with_the_same_answer(count_rows):
    "With nbest=1 a sentence stops once its best finished hypothesis beats the bound: fewer decoder steps, same best."
    m, src = make_model(), rand_src(n=12, seed=11)
    full = beam_search_batch(m, src); rows_full = count_rows['n']; count_rows['n'] = 0
    top = beam_search_batch(m, src, nbest=1); rows_best = count_rows['n']
    same_nbest(top, [h[:1] for h in full], score_tol(m, src, full))
    same_nbest(top, [h[:1] for h in main_beam(m, src)], score_tol(m, src, full))
    assert 0 < rows_best < rows_full, (rows_best, rows_full)

def test_early_stop_computes_fewer_rows_and_never_scores_higher(count_rows):
    "stop='early' ends a sentence when its best candidate is EOS: at most the exact search's rows and score."
    for kw in CONFIGS[:2]:
        m = make_model(**kw)
        for seed in range(4):
            src, rows = rand_src(n=10, seed=200 + seed), {}
            for stop in ('exact', 'early'):
                count_rows['n'] = 0
                top = beam_search_batch(m, src, nbest=1, stop=stop)
                rows[stop] = (count_rows['n'], best(top), [h[0][1] for h in top])
            assert 0 < rows['early'][0] <= rows['exact'][0], (seed, rows['early'][0], rows['exact'][0])
            assert all(e <= x + 1e-9 for x, e in zip(rows['exact'][2], rows['early'][2])), seed
    with pytest.raises(ValueError, match="stop='fast'"): beam_search_batch(m, src, stop='fast')
    with pytest.raises(ValueError, match="stop='fast'"): translate(m, None, ['x'], beam=1, stop='fast')


# ---- the fast greedy decoder (lib_fast_decoding) against the readable one (10) ----
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
@pytest.mark.parametrize('seed', [0, 1, 2])
def test_fast_greedy_equals_greedy_on_untrained_models(seed, dtype):
    "Random untrained models of several shapes: greedy decoding with the fast cache returns the ids of the whole prefix each step, and of 10's greedy_decode."
    kw = [dict(), dict(norm_first=True, tie='none', tgt_vocab=23), dict(pos='learned', max_len=40, h=2, d_k=12, d_v=20)][seed]
    torch.manual_seed(seed)
    m = build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=kw.pop('tgt_vocab', V), **kw)).to(dtype).eval()
    for s in range(3):
        src = rand_src(n=7, hi=10, seed=300 + 10 * seed + s)
        g = greedy_decode_batch(m, src, max_extra=8)
        assert greedy_decode_batch(m, src, max_extra=8, use_cache=False) == g
        if not m.cfg.max_positions: assert operator.eq(*drop_empty(main_greedy(m, src, max_extra=8), g))
        assert len(set(map(len, g))) >= 2, g                       # outputs of several lengths: a real check


# ---- the engine's step (lib_fast_decoding): 06's decode holding a cache ----
def held(m, mem, sm, tgt, cache):
    "06's `model.decode` on the new tokens `tgt`, `cache` held (no mask: one new token per row)."
    with with_cache(m, cache): return m.decode(mem, sm, tgt, None)

@pytest.mark.parametrize('kw', CONFIGS + [dict(h=2, d_k=12, d_v=20)])
@pytest.mark.parametrize('dtype', [torch.float32, torch.float64])
def test_fast_cache_equals_decoder_cache(kw, dtype):
    "06's decode holding a FastCache (lazy reorders) gives its logits holding a DecoderCache, bit for bit, step by step; both = teacher forcing."
    torch.manual_seed(1)
    m = build_model(get_model_config('tiny', src_vocab=V, tgt_vocab=V, **kw)).to(dtype).eval()
    src = rand_src(n=5, seed=12)
    tgt = torch.randint(4, V, (5, 7), generator=torch.Generator().manual_seed(3)); tgt[:, 0] = BOS_ID
    with torch.inference_mode():
        sm = (src != PAD_ID)[:, None, None]
        mem = m.encode(src, sm)
        fc, dc = FastCache(m.cfg.N), DecoderCache(m.cfg.N)
        for t in range(tgt.shape[1]):
            fast, slow = held(m, mem, sm, tgt[:, t:t + 1], fc), held(m, mem, sm, tgt[:, t:t + 1], dc)
            assert fast.shape == (5, 1, V) and torch.equal(fast, slow)
        assert len(fc) == len(dc) == tgt.shape[1]
        want = m(src, tgt)[:, -1]
        torch.testing.assert_close(slow[:, 0], want, rtol=0, atol=rounding_tol(want, logit_terms(m.cfg, src.shape[1], tgt.shape[1])))   # == teacher forcing
        keep = torch.tensor([4, 0, 0, 2])                                                   # beams follow their parents
        fc.select(keep); dc.select(keep)
        nxt = torch.tensor([[5], [6], [7], [8]])
        assert torch.equal(held(m, mem[keep], sm[keep], nxt, fc), held(m, mem[keep], sm[keep], nxt, dc))
        assert all(a.cache is None for l in m.decoder for a in (l.self_attn, l.cross_attn)) and m.tgt_pos.cache is None   # handed back

@pytest.mark.parametrize('h', (1, 2, 4))
def test_fused_attention_groups_memory(h):
    "FusedAttention (lib_transformer) holding a cache, with one memory row per group of g query rows (beam search's k"
    " hypotheses of a sentence), equals the layer on the repeated memory, to float rounding, and keeps one row per sentence."
    from transformer_nb.lib.transformer import FusedAttention
    from transformer_nb.multihead import MultiHeadAttention
    from transformer_nb.lib.fast_decoding import KVCache
    torch.manual_seed(h)
    m = FusedAttention(MultiHeadAttention(8 * h, h)).eval()
    g = torch.Generator().manual_seed(h)
    b, k, S = 3, 4, 6
    mem = torch.randn(b, S, 8 * h, generator=g)
    keep = (torch.arange(S) < torch.tensor([[6], [2], [4]]))[:, None, None]              # (b, 1, 1, S) source padding
    rep, rep_mask = mem.repeat_interleave(k, 0), keep.repeat_interleave(k, 0)
    def attend(cache, *a, **kw):
        m.cache = cache
        try: return m(*a, **kw)
        finally: m.cache = None
    with torch.inference_mode():
        c1, c2 = KVCache(), KVCache()                                                      # cross-attention, filled once
        for t in range(3):
            xt = torch.randn(b * k, 1, 8 * h, generator=g)
            want = attend(c2, xt, rep, mask=rep_mask)
            torch.testing.assert_close(attend(c1, xt, mem, mask=keep), want, rtol=0, atol=rounding_tol(want, 3 * 8 * h + S))
        assert c1.k.shape[0] == b and c2.k.shape[0] == b * k                              # one memory row per sentence


# ---- the chunked argmax and top-k, and beam search over a vocabulary wide enough to use them ----
def test_chunked_argmax_and_topk():
    "argmax_rows = torch.argmax (first maximum, NaN included); topk_rows has torch.topk's values; topk_log_probs is exact."
    g = torch.Generator().manual_seed(0)
    for width in (8000, 8003, 2048, 1000, 100):                      # chunks of 64, a short tail, too narrow to chunk
        x = torch.randn(64, width, generator=g)
        x[:, [PAD_ID, BOS_ID]] = float('-inf'); x[1, -1] = 40.0; x[2, 64:72] = 30.0 + torch.arange(8.)   # the best 8 in one chunk
        ties = x.round()                                             # integers: many ties for the maximum
        ties[3, 100 % width] = float('nan')
        for t in (x, ties): assert torch.equal(argmax_rows(t), t.argmax(-1))
        for n in (1, 8):
            vals, ids = topk_rows(x, n)
            assert torch.equal(vals, x.topk(n, dim=1).values) and torch.equal(ids, x.topk(n, dim=1).indices)
            lp, lp_ids = topk_log_probs(x, n)
            assert torch.equal(lp, log_probs(x).topk(n, dim=1).values) and torch.equal(lp_ids, ids)
            tv, ti = topk_rows(ties[4:], n)                          # ties: the same values, n distinct columns
            assert torch.equal(tv, ties[4:].topk(n, dim=1).values) and torch.equal(ties[4:].gather(1, ti), tv)
            assert all(len(set(r)) == n for r in ti.tolist())

@pytest.mark.parametrize('kw', CONFIGS[:2])
def test_fast_beam_search_equals_reference_wide_vocabulary(kw):
    "With |V| = 2048 the chunked argmax and top-k are used: greedy = beam 1, fast = readable."
    torch.manual_seed(0)
    m = build_model(get_model_config('tiny', src_vocab=2048, tgt_vocab=2048, **kw)).eval()
    src = pad([torch.randint(4, 2048, (n,), generator=torch.Generator().manual_seed(n)).tolist() + [EOS_ID] for n in (3, 6, 1, 4)])
    for k, extra in ((4, 3), (2, 6)):
        ref = main_beam(m, src, k, 0.6, extra)
        same_nbest(beam_search_batch(m, src, Decoding(k, 0.6, extra)), ref, score_tol(m, src, ref))
        same_nbest(beam_search_batch(m, src, Decoding(k, 0.6, extra), nbest=1), [h[:1] for h in ref], score_tol(m, src, ref))
    g = greedy_decode_batch(m, src, max_extra=5)
    assert best(beam_search_batch(m, src, beam=1, max_extra=5)) == best(main_beam(m, src, beam=1, max_extra=5))
    assert main_greedy(m, src, max_extra=5) == g == greedy_decode_batch(m, src, max_extra=5, use_cache=False)


@pytest.mark.parametrize('bad', [1.5, float('nan'), True, '5'])
def test_greedy_checks_max_extra_as_beam_search_does(model, bad):
    "max_extra must be an int in [0, 1000000] for every decoder: greedy decoding neither accepts 1.5 nor fails deep inside on NaN."
    for decode in (greedy_decode_batch, beam_search_batch):
        with pytest.raises(ValueError) as e: decode(model, torch.tensor([[5, 3]]), max_extra=bad)
        assert str(e.value).startswith(f'max_extra={bad!r}') and 'must be an int in [0, 1000000]' in str(e.value), (decode.__name__, str(e.value))


# --- the decoders refuse what is not a model, a cache, a count of tokens or logits, in one line naming it ---

_NOT_A_MODEL = r'^model must be a Transformer \(a torch.nn.Module\), got a NoneType$'

def test_decoders_name_a_missing_model():
    "greedy_decode(None, src) was an AttributeError about 'training'; beam_search's about 'cfg'."
    src = rand_src(n=2)
    with pytest.raises(TypeError, match=_NOT_A_MODEL): greedy_decode_batch(None, src)
    with pytest.raises(TypeError, match=_NOT_A_MODEL): beam_search_batch(None, src)
    with pytest.raises(TypeError, match=r'^model must be a torch.nn.Module, got a str$'):
        with inference('model'): pass
    with pytest.raises(TypeError, match=r'^speedups=.fast. must be a Speedups'): greedy_decode_batch(make_model(), src, speedups='fast')

@pytest.mark.parametrize('args, says', [
    ((5,), None),                                                     # fine: the paper's alpha
    ((5, -1), 'alpha=-1 must be a number in [0, 10]'),                 # was accepted: a bonus for short outputs
    ((5, float('nan')), 'alpha=nan must be a number in [0, 10]'),
    ((5, '0.6'), "alpha='0.6' must be a number in [0, 10]"),
    (('5',), "n='5' must be a number >= 0"),
    ((-7,), 'n=-7 must be a number >= 0'),
    ((float('inf'),), 'n=inf must be a number >= 0'),
])
def test_length_penalty_checks_its_inputs(args, says):
    n, alpha = (*args, 0.6)[:2]
    if says is None: _check_penalty(n, alpha); assert length_penalty(n, alpha) > 1; return
    with pytest.raises(ValueError) as e: _check_penalty(n, alpha)
    assert str(e.value).startswith(says), str(e.value)

def test_log_probs_wants_a_tensor():
    with pytest.raises(ValueError, match=r'^logits=\[\[0.1, 0.2\]\] must be a Tensor$'): log_probs([[0.1, 0.2]])
    torch.testing.assert_close(log_probs(torch.tensor([[0.0, 0.0]])), torch.log(torch.tensor([[0.5, 0.5]])))
