"""The CPU speed levers (lib_speed): the same function as 09's, and a model left as it was given."""
import torch, torch.nn as nn
from transformer_nb.core import set_seed
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.training import label_smoothed_nll
from transformer_nb.lib.speed import CpuLevers, FastDropout, BufferedLinear, kept_output, fused_label_smoothed_nll

def test_fused_loss_matches_09s():
    set_seed(0)
    x, y = torch.randn(40, 30, requires_grad=True), torch.randint(0, 30, (40,))
    for a, b in zip(fused_label_smoothed_nll(x, y, 0.1, rows=7), label_smoothed_nll(x, y, 0.1)): torch.testing.assert_close(a.float(), b.float())

def test_levers_go_in_for_the_block_and_the_models_own_modules_come_back():
    set_seed(0)
    m = build_model(get_model_config('tiny', src_vocab=30, tgt_vocab=30)).train()
    before = list(m.named_modules())
    levers = CpuLevers(m, buffered=True)
    src, tgt = torch.randint(4, 30, (2, 5)), torch.randint(4, 30, (2, 6))
    with levers, kept_output(m):
        assert any(type(x) is FastDropout for x in m.modules()) and type(m.generator.proj) is BufferedLinear
        m(src, tgt).sum().backward()
    assert list(m.named_modules()) == before and not any(type(x) in (FastDropout, BufferedLinear) for x in m.modules())
    assert type(m.generator.proj) is nn.Linear and m.generator.proj.weight is m.tgt_emb.lut.weight
