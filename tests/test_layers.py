"The library's building blocks (lib_layers): each checked version equals the paper's on what the paper's accepts, with the same parameters."
import pytest
import torch
from transformer_nb.ffn import FeedForward
from transformer_nb.embeddings import Embeddings, Generator, tie_weights
from transformer_nb.positional import sinusoidal_encoding, SinusoidalPositionalEncoding, LearnedPositionalEmbedding
from transformer_nb.attention import causal_mask, tgt_mask
from transformer_nb.lib.layers import (causal_mask_on, tgt_mask_on, CheckedFeedForward, CheckedEmbeddings, tie_weights_strict, sinusoidal_encoding_on,
                                   CheckedSinusoidalEncoding, CheckedLearnedEmbedding, checked_positions)

torch.set_num_threads(1)

def test_checked_feed_forward_equals_the_papers():
    "Built from the same seed: the same parameters, the same names, the same output in eval mode; `of` shares the weights."
    x = torch.randn(3, 7, 16)
    torch.manual_seed(0); paper = FeedForward(16, 48)
    torch.manual_seed(0); ours = CheckedFeedForward(16, 48, p_inner=0.3)
    assert list(ours.state_dict()) == list(paper.state_dict())
    for a, b in zip(ours.state_dict().values(), paper.state_dict().values()): assert torch.equal(a, b)
    assert torch.equal(ours.eval()(x), paper(x))
    shared = CheckedFeedForward.of(paper, 0.3)
    assert shared.w_1 is paper.w_1 and shared.w_2 is paper.w_2 and torch.equal(shared.eval()(x), paper(x))
    state = torch.random.get_rng_state(); CheckedFeedForward.of(paper); assert torch.equal(state, torch.random.get_rng_state())   # no draws

@pytest.mark.parametrize('pad_id', [0, 5, None])
def test_checked_embeddings_equal_the_papers(pad_id):
    ids = torch.tensor([[0, 5, 9, 3]])
    torch.manual_seed(1); paper = Embeddings(10, 8, pad_id)
    torch.manual_seed(1); ours = CheckedEmbeddings(10, 8, pad_id)
    assert list(ours.state_dict()) == list(paper.state_dict()) and torch.equal(ours(ids), paper(ids))

def test_tie_weights_strict_ties_what_tie_weights_ties():
    for make in (lambda: (Embeddings(10, 8), Embeddings(10, 8), Generator(8, 10)), lambda: (Generator(8, 10), Embeddings(10, 8))):
        torch.manual_seed(0); a = make(); W = tie_weights(*a)
        torch.manual_seed(0); b = make(); V = tie_weights_strict(*b)
        assert torch.equal(W, V)
        assert all((m.lut if isinstance(m, Embeddings) else m.proj).weight is V for m in b)

@pytest.mark.parametrize('n,d_model,start', [(3, 8, 0), (50, 16, 7), (0, 4, 0), (5, 512, 1000)])
def test_sinusoidal_encoding_on_equals_the_papers(n, d_model, start):
    assert torch.equal(sinusoidal_encoding_on(n, d_model, start, dtype=torch.float64), sinusoidal_encoding(start + n, d_model)[start:])
    assert torch.equal(sinusoidal_encoding_on(n, d_model, start), sinusoidal_encoding(start + n, d_model)[start:].float())

def test_checked_positions_equal_the_papers():
    "Within the table, from position 0: the same sums as 05's modules, and the same (empty or learned) state."
    x = torch.randn(2, 10, 16)
    spe, ours = SinusoidalPositionalEncoding(16, max_len=12), CheckedSinusoidalEncoding(16, max_len=12)
    assert torch.equal(ours(x), spe(x)) and torch.equal(checked_positions(spe)(x), spe(x))
    assert list(ours.state_dict()) == list(spe.state_dict()) == []
    torch.manual_seed(2); lpe = LearnedPositionalEmbedding(16, max_len=12)
    torch.manual_seed(2); lours = CheckedLearnedEmbedding(16, max_len=12)
    assert list(lours.state_dict()) == list(lpe.state_dict()) and torch.equal(lours(x), lpe(x))
    shared = checked_positions(lpe)
    assert isinstance(shared, CheckedLearnedEmbedding) and shared.emb is lpe.emb and torch.equal(shared(x), lpe(x))

def test_the_papers_modules_use_one_fixed_table():
    "05's sinusoidal module is the plain one, a fixed table of max_len rows; the checked one keeps it as a buffer, never saved."
    spe = SinusoidalPositionalEncoding(16, max_len=12)
    assert spe.pe.shape == (12, 16) and spe.state_dict() == {} and dict(spe.named_buffers()) == {}
    ours = CheckedSinusoidalEncoding(16, max_len=12)
    assert list(dict(ours.named_buffers())) == ['pe'] and ours.state_dict() == {} and ours.to(torch.float64).pe.dtype == torch.float64
    with pytest.raises(RuntimeError, match='must match the size'): spe(torch.zeros(1, 13, 16))     # past the table: PyTorch's error

def test_the_model_runs_the_checked_blocks_with_the_papers_parameters():
    "The model's positions and FFNs are the checked ones, over the weights the paper's layers drew: the same state dict names."
    from transformer_nb.lib.transformer import TransformerModel
    from transformer_nb.lib.options import get_model_config
    torch.manual_seed(0); m = TransformerModel(get_model_config('tiny', src_vocab=20, tgt_vocab=20, pos='learned', max_len=16))
    assert isinstance(m.src_pos, CheckedLearnedEmbedding) and isinstance(m.encoder[0].ffn, CheckedFeedForward)
    assert 'src_pos.emb.weight' in m.state_dict() and 'encoder.0.ffn.w_1.weight' in m.state_dict()
    assert not any('.drop.' in k for k in m.state_dict())
    with pytest.raises(ValueError, match='max_len=16'): m.encode(torch.ones(1, 17, dtype=torch.long))

def test_masks_on_a_device_equal_the_papers():
    "Made on the target's device (the meta device stands in for a GPU); on the CPU, 01's masks."
    assert causal_mask_on(3, 'meta').device.type == 'meta' and tgt_mask_on(torch.tensor([[5, 6, 0]], device='meta')).device.type == 'meta'
    for n in (0, 1, 4): assert torch.equal(causal_mask_on(n), causal_mask(n))
    for t in (torch.tensor([[5, 6, 7, 0], [8, 9, 0, 0]]), torch.tensor([[0, 4]])):
        assert torch.equal(tgt_mask_on(t), tgt_mask(t)) and torch.equal(tgt_mask_on(t, pad_id=5), tgt_mask(t, pad_id=5))
