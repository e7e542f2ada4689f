"The fast decoders' speed-ups (A10_fast_decoding): each can be turned off through `Speedups`, and none changes a result."
import dataclasses
import pytest
import torch
from transformer_nb.core import PAD_ID, EOS_ID
from transformer_nb.model import Transformer, get_config
from transformer_nb.decoding import greedy_decode, beam_search, Decoding
from transformer_nb.fast_decoding import fast_beam_search, FastCache, Speedups

torch.set_num_threads(1)
LEVERS = [f.name for f in dataclasses.fields(Speedups)]

def batch(n=8, vocab=40, seed=0):
    g = torch.Generator().manual_seed(seed)
    rows = [torch.randint(4, vocab, (int(torch.randint(1, 9, (1,), generator=g)),), generator=g).tolist() + [EOS_ID] for _ in range(n)]
    src = torch.full((n, max(map(len, rows))), PAD_ID)
    for i, r in enumerate(rows): src[i, :len(r)] = torch.tensor(r)
    return src

@pytest.fixture(scope='module')
def model():
    torch.manual_seed(0)
    return Transformer(get_config('tiny', src_vocab=300, tgt_vocab=300, norm_first=True)).eval()   # 300 > 4 chunks of 64

@pytest.mark.parametrize('lever', LEVERS)
def test_each_speedup_off_gives_the_same_translations(model, lever):
    src, off, d = batch(vocab=300), Speedups(**{lever: False}), Decoding(beam=3, max_extra=6)
    best = lambda nbest: [h[0][0] for h in nbest]
    assert best(fast_beam_search(model, src, d, nbest=1, speedups=off)) == best(fast_beam_search(model, src, d, nbest=1))
    assert best(fast_beam_search(model, src, d, speedups=off)) == best(beam_search(model, src, 3, max_extra=6))
    assert greedy_decode(model, src, 6, cache=FastCache(model.cfg.N, off)) == greedy_decode(model, src, 6)

def test_speedups_are_checked(model):
    with pytest.raises(ValueError, match='not both'): Speedups(one_token_step=False, grouped_cross=False)
    with pytest.raises(TypeError, match='speedups=1 must be a Speedups'): fast_beam_search(model, batch(vocab=300), speedups=1)
