"""The CPU speed levers (lib_speed): the same function as 09's, put in once for a run (a block inside another changes
nothing), and a model left as it was given, in the mode it was left in."""
import torch, torch.nn as nn
from transformer_nb.core import set_seed
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.speed import CpuLevers, FastDropout, BufferedLinear, kept_output

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

def test_a_block_inside_another_swaps_nothing_and_the_model_keeps_its_mode():
    "The trainer enters the levers once a run and each update enters them again: only the outermost block swaps, and the model's own modules come back in the mode the model was set to meanwhile, with no `train()` call of their own."
    set_seed(0)
    m = build_model(get_model_config('tiny', src_vocab=30, tgt_vocab=30, p_drop=0.1)).train()
    levers, calls, real = CpuLevers(m, buffered=True), [], nn.Module.train
    names = list(m.state_dict())
    nn.Module.train = lambda self, mode=True: (calls.append(type(self).__name__), real(self, mode))[1]
    try:
        with levers:
            inside = [x for x in m.modules()]
            with levers: assert [x for x in m.modules()] == inside          # nothing swapped in or out
            assert [x for x in m.modules()] == inside and list(m.state_dict()) == names
        assert calls == []
        m.eval()
        with levers: assert not any(x.training for x in m.modules())
        with levers: m.train()
    finally: nn.Module.train = real
    assert all(x.training for x in m.modules()) and not any(type(x) in (FastDropout, BufferedLinear) for x in m.modules())
