"""The proof that 06_model's exercises are right, away from the learner. Their checks live in `transformer_nb.course.model`
(course_model): `check_sublayer` passes the printed `MySublayer`, reports the unwritten stub as not written, and names every wrong
variant; `check_forward` (exercise 2) reports the stub, passes the printed `my_forward`, names the mistakes of a wrong
one and refuses the parts the exercise forbids (the model's `encode`/`decode`/`forward`, its layers and sub-layers);
`check_parsing_counts` (exercise 3) passes the printed `parsing_counts` and names the setting behind a wrong count; the "break it"
exercise, applied to the code, makes exactly the checks its solution names fail."""
import re
import pytest
from transformer_nb.lib.transformer import final_norm
import torch.nn.functional as F
from nbtools import assert_break_it, _body, cells, code_blocks, namespace
from transformer_nb.course.model import check_sublayer, check_forward, check_parsing_counts

NB = '06_model'

def verdict(check, *answer, capsys) -> tuple[bool, str]:
    "What `check(*answer)` returns, and the line it prints."
    ok = check(*answer)
    return ok, capsys.readouterr().out

def assert_named(check, *answer, says:str, capsys):
    "The check refuses the answer (False, never an exception) with a line that matches the regular expression `says`."
    ok, out = verdict(check, *answer, capsys=capsys)
    assert ok is False and re.search(says, out), out

def test_sublayer_solution_passes_and_stub_is_reported(capsys):
    assert verdict(check_sublayer, namespace(NB, 'b6d0a004')['MySublayer'], capsys=capsys) == \
        (True, "MySublayer is the paper's post-LN sub-layer\n")
    stub = namespace(NB, _body(cells(NB)['b6d0a003'][1]).split('\ncheck_sublayer')[0])
    assert verdict(check_sublayer, stub['MySublayer'], capsys=capsys) == \
        (False, "MySublayer is not written yet: replace `raise NotImplementedError` with your code (or open the solution)\n")

WRONG = {   # forward(s, x, f) of a wrong sub-layer -> what the check's message must say
    'pre-LN':             (lambda s, x, f: x + s.drop(f(s.norm(x))), 'but x \\+ f\\(LayerNorm\\(x\\)\\), pre-LN'),
    'norm of the branch': (lambda s, x, f: x + s.norm(s.drop(f(x))), 'but x \\+ LayerNorm\\(f\\(x\\)\\)'),
    'no residual':        (lambda s, x, f: s.norm(s.drop(f(x))), 'but LayerNorm\\(f\\(x\\)\\), with no residual'),
    'dropout on the sum': (lambda s, x, f: s.norm(s.drop(x + f(x))), 'the dropout acts on f\\(x\\) only'),
    'dropout last':       (lambda s, x, f: s.drop(s.norm(x + f(x))), 'the dropout acts on f\\(x\\) only'),
    'no dropout':         (lambda s, x, f: s.norm(x + f(x)), 'where is the dropout'),
    'returns nothing':    (lambda s, x, f: None, 'must return a tensor shaped like x'),
    'gain and bias unused': (lambda s, x, f: F.layer_norm(x + s.drop(f(x)), x.shape[-1:]), "without the LayerNorm's gain and bias: normalise with your nn.LayerNorm"),
    'two norms':          (lambda s, x, f: s.norm(x + s.drop(f(s.norm(x)))), 'your output is LayerNorm\\(x \\+ f\\(LayerNorm\\(x\\)\\)\\): f reads x as it is'),
    'raises':             (lambda s, x, f: x.reshape(3, -1, 7), "RuntimeError: shape '\\[3, -1, 7\\]' is invalid"),
    'f(x) detached':      (lambda s, x, f: s.norm(x + s.drop(f(x).detach())), 'no gradient reaches f: .*no .detach\\(\\)'),
    'no grad around f':   (lambda s, x, f: s.norm(x + s.drop(f(x.detach()).detach())), 'no gradient reaches f'),
    'dropout rescaled again': (lambda s, x, f: s.norm(x + s.drop(f(x)) * (1 - s.drop.p)), 'the kept entries of f\\(x\\) are 0.5 times what nn.Dropout'),
    'dropout scaled twice': (lambda s, x, f: s.norm(x + s.drop(f(x)) / (1 - s.drop.p)), 'the kept entries of f\\(x\\) are 2 times what nn.Dropout'),
}

@pytest.mark.parametrize('name', WRONG)
def test_sublayer_wrong_answers_are_named(name, capsys):
    fwd, says = WRONG[name]
    cls = name.replace(' ', '_')
    wrong = type(cls, (namespace(NB, 'b6d0a004')['MySublayer'],), {'forward': fwd})
    assert_named(check_sublayer, wrong, says=f"^(Not yet: |{cls} raised ).*{says}", capsys=capsys)

def my_forward(old=None, new=''):
    "The printed `my_forward` (exercise 2's solution), with `old` replaced by `new`: a wrong answer."
    code = code_blocks(NB, 'a06e0013')[0]
    if old is not None:
        assert code.count(old) == 1, old
        code = code.replace(old, new)
    return namespace(NB, code)['my_forward']

def test_my_forward_stub_is_reported(capsys):
    ns = namespace(NB, _body(cells(NB)['a06e0012'][1]).split('\ncheck_forward')[0])
    assert verdict(check_forward, ns['my_forward'], capsys=capsys)[1].startswith('my_forward is not written yet')

def test_my_forward_solution_passes(capsys):
    assert verdict(check_forward, my_forward(), capsys=capsys) == (True, "my_forward computes Transformer.forward\n")

SUB = "return norm(x + f(x))"
@pytest.mark.parametrize('old, new, says', [
    (SUB, "return x + f(norm(x))", r"^Not yet: my_forward.*: your sub-layers are pre-LN, x \+ f\(LayerNorm\(x\)\); the paper's"),
    ("lambda t: l.self_attn(t, mask=tgt_mask)", "lambda t: l.self_attn(t)", r"^Not yet: my_forward.*: the future leaks"),
    ("lambda t: l.self_attn(t, mask=src_mask)", "lambda t: l.self_attn(t)", r"^Not yet: my_forward.*: padding leaks"),
    ("return model.generator(y)", "return y", r"^Not yet: my_forward must return the logits, shape \(4, 7, 50\)"),
    ("x = model.src_pos(model.src_emb(src))", "x = model.src_emb.lut(src)", r"^Not yet: my_forward.*: a stack's input is the bare table's rows"),
    ("x = model.src_pos(model.src_emb(src))", "x = model.src_emb(src)", r"^Not yet: my_forward.*: the encoder's input has no positions"),
    ("y = model.tgt_pos(model.tgt_emb(tgt))", "y = model.tgt_emb(tgt)", r"^Not yet: my_forward.*: the decoder's input has no positions"),
    ("x = model.src_pos(model.src_emb(src))", "x = model.src_pos(model.src_emb.lut(src))", r"^Not yet: my_forward.*: an embedding without its sqrt\(d_model\)"),
    # the exercise's rule: none of the model's own stacks
    ("        x = residual(l.sub[1].norm, x, l.ffn)", "        x = l.sub[1](x, l.ffn)", r"my_forward calls SublayerConnection: this exercise asks you to write it out"),
    ("    z = x ", "    z = model.encode(src) ", r"my_forward calls Transformer.encode"),
    ("    return model.generator(y)", "    return model.decode(z, src_mask, tgt)", r"my_forward calls Transformer.decode"),
    ("    for l in model.encoder:", "    for l in model.encoder:\n        x = l(x, src_mask); continue", r"my_forward calls EncoderLayer"),
    ("    for l in model.decoder:", "    for l in model.decoder:\n        y = l(y, z, src_mask, tgt_mask); continue", r"my_forward calls DecoderLayer"),
    ("    x = model.src_pos(model.src_emb(src))", "    return model(src, tgt)", r"my_forward calls Transformer.forward"),
])
def test_my_forward_wrong_answers_are_named(old, new, says, capsys):
    assert_named(check_forward, my_forward(old, new), says=says, capsys=capsys)

def test_parsing_counts_stub_and_solution(capsys):
    stub = namespace(NB, _body(cells(NB)['b06f0011'][1]).split('\ncheck_parsing_counts')[0])
    assert verdict(check_parsing_counts, stub['parsing_counts'], capsys=capsys)[1].startswith('parsing_counts is not written yet')
    sol = namespace(NB, 'from transformer_nb.model import Transformer\nfrom transformer_nb.lib.options import get_config', 'b06f0012')
    assert verdict(check_parsing_counts, sol['parsing_counts'], capsys=capsys) == \
        (True, "tied 100,384,768 and untied 133,152,768: the parsing model's counts\n")

@pytest.mark.parametrize('over, which, says', [
    (dict(N=6), 'tied', r"tied=[\d,]+ is not the count of §6.3's model: N=6, the base model's depth"),
    (dict(d_model=512), 'untied', r"untied=[\d,]+ is not .*: d_model=512, the base model's"),
    (dict(d_ff=4096), 'tied', r"d_ff=4096, the big model's"),
    (dict(src_vocab=16, tgt_vocab=16), 'tied', r"a vocabulary of 16 \(16K is sixteen thousand tokens\)"),
    (dict(N=6, src_vocab=16384, tgt_vocab=16384), 'untied', r"N=6, the base model's depth"),    # a slip on the other reading
    (dict(tie='decoder'), 'untied', r"untied=[\d,]+ is tie='decoder' .*: untied is tie='none'"),
    (dict(d_k=64, d_v=64), 'tied', r"d_k = d_v = 64, the base model's: here d_k = d_model/h = 128"),
    (dict(N=3), 'untied', r"untied=[\d,]+ is not the count .*N=3: §6.3's 4 layers are in each stack"),
])
def test_parsing_counts_wrong_answers_are_named(over, which, says, capsys):
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    parsing = dict(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)
    count = lambda **o: count_config_params(get_model_config('base', **{**parsing, **o}))
    right = dict(tied=count(tie='all'), untied=count(tie='none'))
    wrong = {**right, which: count(**{'tie': 'all' if which == 'tied' else 'none', **over})}
    assert_named(check_parsing_counts, lambda: (wrong['tied'], wrong['untied']), says='^Not yet: .*' + says, capsys=capsys)
    assert_named(check_parsing_counts, lambda: (right['untied'], right['tied']), says='the two counts are swapped', capsys=capsys)
    assert_named(check_parsing_counts, lambda: right['tied'], says=r'must return two counts, \(tied, untied\)', capsys=capsys)

def test_parsing_counts_leaves_16k_as_the_paper_does(capsys):
    "The paper writes 16K: 16,000 and 16,384 both pass, each counted the same way in both; a mix of the two is named."
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    count = lambda v, tie: count_config_params(get_model_config('base', N=4, d_model=1024, src_vocab=v, tgt_vocab=v, tie=tie))
    ok, msg = verdict(check_parsing_counts, lambda: (count(16384, 'all'), count(16384, 'none')), capsys=capsys)
    assert ok is True and 'with 16K read as 16,384 (the paper writes only 16K; 16,000 is as right)' in msg, msg
    assert "16,000" not in verdict(check_parsing_counts, lambda: (count(16000, 'all'), count(16000, 'none')), capsys=capsys)[1]
    assert_named(check_parsing_counts, lambda: (count(16000, 'all'), count(16384, 'none')),
                 says=r'tied counts a vocabulary of 16,000 and untied one of 16,384: read 16K the same way in both', capsys=capsys)
    assert_named(check_parsing_counts, lambda: (count(16384, 'none'), count(16384, 'all')), says='the two counts are swapped', capsys=capsys)

FORWARD, PARITY = '19628ca9', '67d67f6c'

@pytest.mark.slow
def test_break_it_1_the_decoder_sees_the_future():
    """The main line's forward-pass test catches it (and, under Going deeper, the comparison with PyTorch's
    nn.Transformer; the library's model is 06's own, so it changes with it); so do the tests of 06's own model."""
    future, parity = 'tests/test_model.py::test_the_papers_model_never_lets_the_future_leak', 'tests/test_model.py::test_the_library_model_is_the_papers_on_the_same_weights'
    assert_break_it(NB, '0a73f877', "make_tgt_mask(tgt)", "pad_mask(tgt)", 'model', [future, parity],
                    prose=False, fail_cells={FORWARD, PARITY}, fail_tests={future})   # parity: the same model on both sides

# ---------------------------------------------------------------- fresh wrong answers, written as new learners would
import functools
import torch
import torch.nn as nn
from transformer_nb.core import count_params
from transformer_nb.attention import pad_mask
from transformer_nb.attention import tgt_mask as make_tgt_mask
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.course import model as _ex
from nbtools import assert_rejects
FRESH = {}   # label: (checker, answer, the words its message must contain)
def add(checker, label, kw, *args): FRESH[checker, label] = args

# 06 MySublayer: each answer and the words its message must contain
class SL_pre(nn.Module):
    def __init__(self, d_model, p_drop): super().__init__(); self.norm = nn.LayerNorm(d_model); self.drop = nn.Dropout(p_drop)
    def forward(self, x, f): return x + self.drop(f(self.norm(x)))
add('check_sublayer', 'pre-LN', ['pre-ln', 'before', 'post-ln'], SL_pre)
class SL_nores(SL_pre):
    def forward(self, x, f): return self.norm(self.drop(f(x)))
add('check_sublayer', 'no residual', ['residual', 'x +'], SL_nores)
class SL_dropsum(SL_pre):
    def forward(self, x, f): return self.norm(self.drop(x + f(x)))
add('check_sublayer', 'dropout on the sum', ['dropout', 'sum', 'residual'], SL_dropsum)
class SL_nodrop(SL_pre):
    def forward(self, x, f): return self.norm(x + f(x))
add('check_sublayer', 'no dropout', ['dropout'], SL_nodrop)
class SL_fdrop(SL_pre):
    def forward(self, x, f): return self.norm(x + f(self.drop(x)))
add('check_sublayer', 'dropout on the input of f', ['dropout', 'input', 'output of'], SL_fdrop)
class SL_fnorm(SL_pre):
    def forward(self, x, f): return self.norm(x + self.drop(f(x)))
    def __init__(self, d_model, p_drop): super().__init__(d_model, p_drop); self.norm = nn.LayerNorm(d_model, elementwise_affine=False)
add('check_sublayer', 'LayerNorm without gain/bias', ['gain', 'affine', 'bias', 'learn', 'parameter'], SL_fnorm)
class SL_fdrop_F(SL_pre):
    def forward(self, x, f): return self.norm(x + F.dropout(f(x), self.drop.p))
add('check_sublayer', 'F.dropout without training flag (drops in eval)', ['eval', 'training'], SL_fdrop_F)
SAYS_CHECK_SUBLAYER = {
"pre-LN": "the\\ output\\ is\\ not\\ LayerNorm\\(x\\ \\+\\ f\\(x\\)\\)\\ but\\ x\\ \\+\\ f\\(LayerNorm\\(x\\)\\),\\ pre\\-LN:\\ add\\ x\\ to\\ f\\(x\\),\\ then",
"no residual": "the\\ output\\ is\\ not\\ LayerNorm\\(x\\ \\+\\ f\\(x\\)\\)\\ but\\ LayerNorm\\(f\\(x\\)\\),\\ with\\ no\\ residual\\ x:\\ add\\ x\\ to\\ f\\(",
"dropout on the sum": "the\\ dropout\\ acts\\ on\\ f\\(x\\)\\ only,\\ not\\ on\\ x,\\ the\\ sum\\ or\\ the\\ output",
"no dropout": "where\\ is\\ the\\ dropout\\?",
"dropout on the input of f": "the\\ dropout\\ acts\\ on\\ f's\\ output,\\ Dropout\\(f\\(x\\)\\),\\ not\\ on\\ its\\ input",
"LayerNorm without gain/bias": "the\\ paper's\\ LayerNorm\\ learns\\ them,\\ nn\\.LayerNorm\\(d_model\\)",
"F.dropout without training flag (drops in eval)": "in\\ eval\\ mode\\ the\\ dropout\\ must\\ do\\ nothing"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_SUBLAYER))
def test_fresh_wrong_answers_named_by_check_sublayer(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_sublayer, *FRESH['check_sublayer', label], says=SAYS_CHECK_SUBLAYER[label])

# 06 my_forward: each answer and the words its message must contain
def _fw(model, src, tgt, *, pos=True, causal=True, srcmask_cross=True, mem='z', prenorm=None, enc_norm=True,
        tgtmask=None, emb_tgt='tgt', self_mask_enc=True, order='sa_ca_ff', gen=True, last_norm=True):
    pre = model.cfg.norm_first if prenorm is None else prenorm
    def residual(norm, x, f): return x + f(norm(x)) if pre else norm(x + f(x))
    src_mask = pad_mask(src)
    tmask = make_tgt_mask(tgt) if causal else pad_mask(tgt)
    if tgtmask is not None: tmask = tgtmask(tgt)
    x = model.src_emb(src); x = model.src_pos(x) if pos else x
    for l in model.encoder:
        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask if self_mask_enc else None))
        x = residual(l.sub[1].norm, x, l.ffn)
    z = final_norm(model, 'enc')(x) if enc_norm else x
    y = (model.tgt_emb if emb_tgt == 'tgt' else model.src_emb)(tgt); y = model.tgt_pos(y) if pos else y
    for l in model.decoder:
        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tmask))
        m = z if mem == 'z' else x
        if order == 'sa_ca_ff':
            y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, m, mask=src_mask if srcmask_cross else None))
            y = residual(l.sub[2].norm, y, l.ffn)
        else:
            y = residual(l.sub[1].norm, y, l.ffn)
            y = residual(l.sub[2].norm, y, lambda t: l.cross_attn(t, m, mask=src_mask if srcmask_cross else None))
    y = final_norm(model, 'dec')(y) if last_norm else y
    return model.generator(y) if gen else y
def fw(name, **kw):
    f = functools.partial(_fw, **kw); f.__name__ = name; return f
add('check_forward', 'no positions', ['position'], fw('my_forward', pos=False))
add('check_forward', 'no causal mask in decoder', ['causal', 'future', 'make_tgt_mask'], fw('my_forward', causal=False))
add('check_forward', 'no source mask in cross-attention', ['pad', 'src_mask', 'mask'], fw('my_forward', srcmask_cross=False))
add('check_forward', 'no padding mask in encoder self-attention', ['pad', 'src_mask', 'mask'], fw('my_forward', self_mask_enc=False))
add('check_forward', 'FFN before cross-attention', ['order', 'cross', 'ffn'], fw('my_forward', order='ff_ca'))
add('check_forward', 'returns decoder states not logits', ['generator', 'logits', 'shape'], fw('my_forward', gen=False))
def fw_encode(model, src, tgt):
    sm = pad_mask(src); return model.decode(model.encode(src, sm), sm, tgt)
fw_encode.__name__ = 'my_forward'
add('check_forward', 'calls encode/decode', ['encode', 'forbid'], fw_encode)
add('check_forward', 'always pre-LN', ['norm_first', 'pre-ln', 'post-ln'], fw('my_forward', prenorm=True))
SAYS_CHECK_FORWARD = {
"no positions": "my_forward's\\ logits\\ differ\\ from\\ the\\ model's\\ by\\ up\\ to\\ [\\d.]+:\\ neither\\ stack's\\ input\\ has\\ positi",
"no causal mask in decoder": "my_forward's\\ logits\\ differ\\ from\\ the\\ model's\\ by\\ up\\ to\\ [\\d.]+:\\ the\\ future\\ leaks:\\ the\\ decoder's\\ ",
"no source mask in cross-attention": "my_forward's\\ logits\\ differ\\ from\\ the\\ model's\\ by\\ up\\ to\\ [\\d.]+:\\ padding\\ leaks:\\ the\\ encoder's\\ self\\-",
"no padding mask in encoder self-attention": "my_forward's\\ logits\\ differ\\ from\\ the\\ model's\\ by\\ up\\ to\\ [\\d.]+:\\ padding\\ leaks:\\ the\\ encoder's\\ sel",
"FFN before cross-attention": "my_forward's\\ logits\\ differ\\ from\\ the\\ model's\\ by\\ up\\ to\\ [\\d.]+:\\ the\\ decoder's\\ feed\\-forward\\ netwo",
"returns decoder states not logits": "got\\ torch\\.Size\\(\\[4,\\ 7,\\ 32\\]\\)",
"calls encode/decode": "this\\ exercise\\ asks\\ you\\ to\\ write\\ it\\ out,\\ each\\ sub\\-layer\\ with\\ its\\ layer's\\ self_attn,\\ cross_a",
"always pre-LN": "the\\ paper's\\ are\\ LayerNorm\\(x\\ \\+\\ f\\(x\\)\\)"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_FORWARD))
def test_fresh_wrong_answers_named_by_check_forward(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_forward, *FRESH['check_forward', label], says=SAYS_CHECK_FORWARD[label])

# 06 parsing_counts: each answer and the words its message must contain
def _pc(**kw):
    cfg = dict(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000); cfg.update(kw)
    tie = cfg.pop('tie_pair', ('all', 'none'))
    with torch.device('meta'):
        return tuple(count_params(build_model(get_model_config('base', **cfg, tie=t))) for t in tie)
def pc_big(): return _pc(h=16, d_ff=4096)
add('check_parsing_counts', 'big model sizes (h=16, d_ff=4096)', ['d_ff', '4096', 'big'], pc_big)
def pc_N6(): return _pc(N=6)
add('check_parsing_counts', 'N=6', ['n=4', 'layers', 'n='], pc_N6)
def pc_512(): return _pc(d_model=512)
add('check_parsing_counts', 'd_model=512', ['d_model', '1024'], pc_512)
def pc_vocab37(): return _pc(src_vocab=37000, tgt_vocab=37000)
add('check_parsing_counts', 'vocabulary 37000', ['vocab', '16'], pc_vocab37)
def pc_swapped(): return tuple(reversed(_pc()))
add('check_parsing_counts', '(untied, tied) swapped', ['order', 'swap', 'tied'], pc_swapped)
def pc_decoder(): return _pc(tie_pair=('decoder', 'none'))
add('check_parsing_counts', "tie='decoder' for tied", ['tie', 'decoder', 'all'], pc_decoder)
def pc_dff1024(): return _pc(d_ff=1024)
add('check_parsing_counts', 'd_ff = d_model (1024)', ['d_ff', '2048'], pc_dff1024)
def pc_oneN(): return _pc(N=2)
add('check_parsing_counts', 'N=2 (4 layers total)', ['n=4', 'layers', 'each stack'], pc_oneN)
def pc_sum():
    t, u = _pc(); return t, u, u - t
add('check_parsing_counts', 'returns a 3-tuple', ['two', 'tuple', 'pair'], pc_sum)
SAYS_CHECK_PARSING_COUNTS = {
"big model sizes (h=16, d_ff=4096)": "d_ff=4096,\\ the\\ big\\ model's:\\ apart\\ from\\ N\\ and\\ d_model\\ the\\ model\\ is\\ base's,\\ d_ff\\ =\\ 2048",
"N=6": "N=6,\\ the\\ base\\ model's\\ depth:\\ §6\\.3\\ has\\ 4\\ layers",
"d_model=512": "d_model=512,\\ the\\ base\\ model's:\\ §6\\.3's\\ is\\ 1024",
"vocabulary 37000": "a\\ vocabulary\\ of\\ 37,000:\\ §6\\.3's\\ is\\ 16K",
"(untied, tied) swapped": "tied\\ shares\\ one\\ matrix,\\ so\\ it\\ is\\ the\\ smaller",
"tie='decoder' for tied": "tied\\ is\\ tie='all',\\ one\\ matrix\\ for\\ the\\ source\\ and\\ target\\ embeddings\\ and\\ the\\ output\\ layer",
"d_ff = d_model (1024)": "d_ff=1,024:\\ apart\\ from\\ N\\ and\\ d_model\\ the\\ model\\ is\\ base's,\\ d_ff\\ =\\ 2048",
"N=2 (4 layers total)": "N=2:\\ §6\\.3's\\ 4\\ layers\\ are\\ in\\ each\\ stack,\\ N=4\\ \\(4\\ encoder\\ and\\ 4\\ decoder\\ layers\\)",
"returns a 3-tuple": "got\\ \\(100384768,\\ 133152768,\\ 32768000\\)"
}

@pytest.mark.parametrize('label', list(SAYS_CHECK_PARSING_COUNTS))
def test_fresh_wrong_answers_named_by_check_parsing_counts(label):
    "Each wrong answer a new learner writes is refused, with a message that names its mistake."
    assert_rejects(_ex.check_parsing_counts, *FRESH['check_parsing_counts', label], says=SAYS_CHECK_PARSING_COUNTS[label])

# ---------------------------------------------------------------- mistakes named since: swapped masks, log-probabilities, a causal-only mask, 32K
@pytest.mark.parametrize('old, new, says', [
    ("src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)", "tgt_mask, src_mask = pad_mask(src), make_tgt_mask(tgt)",
     r"^Not yet: my_forward raised RuntimeError \(.*\) on a source of 9 and a target of 7 tokens, and runs when both have 7: a mask "
     r"is used where the other belongs \(swapped\)\. The encoder's self-attention and the cross-attention take pad_mask\(src\)"),
    ("return model.generator(y)", "return model.generator(y).log_softmax(-1)",
     r"^Not yet: my_forward.*: these are log-probabilities \(log_softmax of the logits\): Transformer.forward returns the logits"),
    ("return model.generator(y)", "return model.generator(y).softmax(-1)",
     r"^Not yet: my_forward.*: these are probabilities \(softmax of the logits\)"),
    ("make_tgt_mask(tgt)", "causal_mask(tgt.shape[1])",
     r"^Not yet: my_forward.*: the decoder's self-attention mask is causal only: make_tgt_mask\(tgt\) is causal_mask\(T\) and pad_mask\(tgt\)"),
], ids=['masks swapped', 'log-probabilities', 'probabilities', 'causal-only target mask'])
def test_my_forward_mask_and_output_mistakes_are_named(old, new, says, capsys):
    f = my_forward(old, new)
    f.__globals__.setdefault('causal_mask', __import__('transformer_nb.attention', fromlist=['causal_mask']).causal_mask)
    assert_named(check_forward, f, says=says, capsys=capsys)

def test_parsing_counts_32k_tied_is_read_as_a_vocabulary_slip(capsys):
    "A tied count with a 32K vocabulary (16K a side) equals tie='decoder' at 16K; the vocabulary, the slip of the same tie mode, is named."
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    count = lambda v, tie: count_config_params(get_model_config('base', N=4, d_model=1024, src_vocab=v, tgt_vocab=v, tie=tie))
    assert count(32000, 'all') == count(16000, 'decoder')                  # why it was misread
    assert_named(check_parsing_counts, lambda: (count(32000, 'all'), count(16000, 'none')),
                 says=r"^Not yet: tied=[\d,]+ is not the count of §6.3's model: either a vocabulary of 32,000: §6.3's is 16K, or it is tie='decoder'", capsys=capsys)

# ---------------------------------------------------------------- each kind of mistake, in the ways learners write it
MASKS = "src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)"
SWAPPED = (r"^Not yet: my_forward raised RuntimeError \(.*\) on a source of 9 and a target of 7 tokens, and runs when both have 7: "
           r"a mask is used where the other belongs \(swapped\)")
@pytest.mark.parametrize('old, new, says', [
    ("x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))",
     "x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=tgt_mask))", SWAPPED),
    ("lambda t: l.cross_attn(t, z, mask=src_mask)", "lambda t: l.cross_attn(t, z, mask=tgt_mask)", SWAPPED),
    ("lambda t: l.self_attn(t, mask=tgt_mask)", "lambda t: l.self_attn(t, mask=src_mask)", SWAPPED),
    ("lambda t: l.cross_attn(t, z, mask=src_mask)", "lambda t: l.cross_attn(t, z, mask=pad_mask(tgt))", SWAPPED),
    (MASKS, "src_mask, tgt_mask = make_tgt_mask(tgt), pad_mask(src)", SWAPPED),
    ("return model.generator(y)", "return torch.nn.functional.log_softmax(model.generator(y), dim=-1)",
     r"^Not yet: my_forward.*: these are log-probabilities \(log_softmax of the logits\)"),
    ("return model.generator(y)", "return model.generator(y).softmax(-1).log()", r"^Not yet: my_forward.*: these are log-probabilities"),
    ("return model.generator(y)", "return model.generator(y).log_softmax(1)",
     r"^Not yet: my_forward.*: that is a log_softmax over the positions \(dim=1\), which mixes them: return the logits"),
    (MASKS, "src_mask, tgt_mask = pad_mask(src), torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).tril()",
     r"^Not yet: my_forward.*: the decoder's self-attention mask is causal only: make_tgt_mask\(tgt\) is causal_mask\(T\) and pad_mask\(tgt\)"),
    (MASKS, "src_mask, tgt_mask = pad_mask(src), ~torch.ones(tgt.shape[1], tgt.shape[1], dtype=torch.bool).triu(1)",
     r"^Not yet: my_forward.*: the decoder's self-attention mask is causal only"),
    (MASKS, "src_mask, tgt_mask = pad_mask(src), causal_mask(tgt.shape[1])[None, None]",
     r"^Not yet: my_forward raised RuntimeError \(.*\): a mask has more axes than the scores \(B, h, n_q, n_k\): .*add no axes"),
    ("lambda t: l.cross_attn(t, z, mask=src_mask)", "lambda t: l.cross_attn(t, t, mask=tgt_mask)",
     r"^Not yet: my_forward.*: the decoder never reads the source: the cross-attention's keys and values are the encoder's output z"),
    ("return norm(x + f(x))", "return norm(x) + f(x)",
     r"^Not yet: my_forward.*: each sub-layer adds f\(x\) to LayerNorm\(x\): the paper's is LayerNorm\(x \+ f\(x\)\)"),
], ids=['encoder: target mask', 'cross: target mask', 'decoder: source mask', 'cross: pad_mask(tgt)', 'swapped when made',
        'F.log_softmax', 'softmax().log()', 'log_softmax over positions', 'tril of ones', 'not triu', 'extra axes',
        'cross-attention to y', 'LayerNorm(x) + f(x)'])
def test_my_forward_names_each_way_of_mixing_masks_or_outputs(old, new, says, capsys):
    f = my_forward(old, new)
    f.__globals__.setdefault('causal_mask', __import__('transformer_nb.attention', fromlist=['causal_mask']).causal_mask)
    assert_named(check_forward, f, says=says, capsys=capsys)

@pytest.mark.parametrize('tied, untied, says', [
    ((32768, 'all'), (16384, 'none'), r"tied=[\d,]+ is not the count of §6.3's model: either a vocabulary of 32,768: §6.3's is 16K"),
    ((32000, 'all'), (32000, 'none'), r"tied=[\d,]+ is not the count of §6.3's model: either a vocabulary of 32,000"),
    ((16000, 'all'), (32000, 'none'), r"untied=[\d,]+ is not the count of §6.3's model: a vocabulary of 32,000: §6.3's is 16K"),
    ((16000, 'none'), (32000, 'none'), r"tied=133,152,768 is the untied count \(tie='none'\): with tie='all' the source and target "
                                       r"embeddings and the output layer share one matrix"),
], ids=['2^15 tied, 2^14 untied', '32K both', '32K untied', 'tied counted untied'])
def test_parsing_counts_names_each_reading_of_32k(tied, untied, says, capsys):
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    count = lambda v, tie: count_config_params(get_model_config('base', N=4, d_model=1024, src_vocab=v, tgt_vocab=v, tie=tie))
    assert_named(check_parsing_counts, lambda: (count(*tied), count(*untied)), says='^Not yet: ' + says, capsys=capsys)

@pytest.mark.parametrize('old, new, says', [
    ("    x = model.src_pos(model.src_emb(src))", "    x = z = model.src_pos(model.src_emb(src))",
     r"the memory z is not the last encoder layer's output: run every layer of model.encoder, in order"),
    ("    for l in model.encoder:", "    for l in model.encoder[:1]:", r"the memory z is not the last encoder layer's output"),
    ("    for l in model.decoder:", "    for l in reversed(model.decoder):", r"the decoder's layers did not all run, in order"),
], ids=['memory = the embeddings', 'one encoder layer', 'decoder reversed'])
def test_my_forward_names_stacks_run_in_part_or_out_of_order(old, new, says, capsys):
    f = my_forward(old, new) if old != "    x = model.src_pos(model.src_emb(src))" else \
        namespace(NB, code_blocks(NB, 'a06e0013')[0].replace("    z = x ", "    pass ").replace(old, new))['my_forward']
    assert_named(check_forward, f, says='^Not yet: my_forward.*' + says, capsys=capsys)

def test_my_forward_names_logits_of_the_encoder(capsys):
    assert_named(check_forward, my_forward("return model.generator(y)", "return model.generator(z)"),
                 says=r"^Not yet: my_forward must return the logits, shape \(4, 7, 50\); got .*\[4, 9, 50\]\): one row per source token; "
                      r"the logits come from the decoder's output y", capsys=capsys)

def test_parsing_counts_names_the_base_model_itself(capsys):
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    count = lambda tie: count_config_params(get_model_config('base', N=6, d_model=512, src_vocab=37000, tgt_vocab=37000, tie=tie))
    assert_named(check_parsing_counts, lambda: (count('all'), count('none')),
                 says=r"^Not yet: tied=[\d,]+ is not the count of §6.3's model: the base model itself, N=6 and d_model=512: §6.3's has N=4 "
                      r"and d_model=1024; and a vocabulary of 37,000: §6.3's is 16K", capsys=capsys)

@pytest.mark.parametrize('old, new, says', [
    ("y = residual(l.sub[2].norm, y, l.ffn)", "y = residual(l.sub[2].norm, y, model.encoder[0].ffn)",
     r"the decoder uses the encoder's feed-forward network: each decoder layer has its own"),
    ("lambda t: l.self_attn(t, mask=tgt_mask)", "lambda t: l.self_attn(t, z, mask=src_mask)",
     r"the decoder's self-attention reads the memory z: its queries, keys and values all come from the decoder's own input"),
    ("        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)",
     "        x = residual(l.sub[1].norm, x, l.ffn)\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))",
     r"the encoder's feed-forward network runs before its self-attention"),
    ("return model.generator(y)", "return model.generator(y + x.mean(1, keepdim=True))",
     r"something was added to the decoder's output before model.generator, the same at every target position"),
    ("return model.generator(y)", "return model.generator(y) + 0.5",
     r"the logits are model.generator\(y\) as it returns them: something was added to them after the output layer"),
], ids=['encoder FFN in the decoder', 'self-attention on z', 'encoder FFN first', 'a term before the generator', 'a term after it'])
def test_my_forward_names_layers_built_another_way_and_terms_added(old, new, says, capsys):
    assert_named(check_forward, my_forward(old, new), says='^Not yet: my_forward.*' + says, capsys=capsys)

def test_parsing_counts_names_two_vocabularies(capsys):
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    count = lambda tie, src, tgt: count_config_params(get_model_config('base', N=4, d_model=1024, src_vocab=src, tgt_vocab=tgt, tie=tie))
    assert_named(check_parsing_counts, lambda: (count('all', 16000, 16000), count('none', 16000, 32000)),
                 says=r"^Not yet: untied=[\d,]+ counts a source vocabulary of 16,000 and a target one of 32,000: §6.3's model has "
                      r"one vocabulary of 16K for both", capsys=capsys)


class _NormedTwice(nn.Module):
    "LayerNorm(LayerNorm(x) + Dropout(f(x))): the residual input normalised as well."
    def __init__(self, d_model, p_drop): super().__init__(); self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
    def forward(self, x, f): return self.norm(self.norm(x) + self.drop(f(x)))

def test_the_residual_input_normalised_too_is_named():
    assert_rejects(_ex.check_sublayer, _NormedTwice, says=r"but LayerNorm\(LayerNorm\(x\) \+ f\(x\)\): x goes into the sum as it is: normalise only the sum, once")
    assert _ex.check_sublayer(_ex.SublayerConnection) is True

def _forward(model, src, tgt, swap=False):
    "§3.1 from the parts, post-LN; `swap` gives the cross-attention the memory as its queries (and no mask)."
    from transformer_nb.attention import pad_mask, tgt_mask
    res = lambda n, x, f: n(x + f(x))
    sm, tm = pad_mask(src), tgt_mask(tgt)
    x = model.src_pos(model.src_emb(src))
    for l in model.encoder: x = res(l.sub[1].norm, res(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=sm)), l.ffn)
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = res(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tm))
        y = res(l.sub[1].norm, y, (lambda t: l.cross_attn(x, t)) if swap else (lambda t: l.cross_attn(t, x, mask=sm)))
        y = res(l.sub[2].norm, y, l.ffn)
    return model.generator(y)

def test_the_cross_attentions_arguments_swapped_are_named():
    "The memory as the queries fails on a source and a target of different lengths: named, not read as swapped masks."
    assert_rejects(_ex.check_forward, lambda m, s, t: _forward(m, s, t, swap=True),
                   says=r"the cross-attention's queries are the memory z; it is cross_attn\(t, z, mask=src_mask\), the decoder's stream first")
    assert _ex.check_forward(_forward) is True

def test_three_untied_matrices_are_named():
    from transformer_nb.lib.options import get_config
    from transformer_nb.model import Transformer
    with torch.device('meta'): tied = count_params(Transformer(get_config('base', N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)))
    assert_rejects(_ex.check_parsing_counts, lambda: (tied, tied + 3 * 16000 * 1024),
                   says=r"untied=149,536,768 adds three matrices of 16K x d_model to tied=100,384,768, but tied already holds one of them: untied adds two")
    assert _ex.check_parsing_counts(lambda: (tied, tied + 2 * 16000 * 1024)) is True

# ---------------------------------------------------------------- mistakes nobody listed, named by what the answer does
def _sub_by(fwd):
    "A sub-layer with one nn.LayerNorm and one nn.Dropout, whose forward is `fwd(self, x, f)`."
    class SublayerConnection(nn.Module):
        def __init__(self, d_model, p_drop): super().__init__(); self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
        def forward(self, x, f): return fwd(self, x, f)
    return SublayerConnection

@pytest.mark.parametrize('fwd, says', [
    (lambda s, x, f: s.norm(x - s.drop(f(x))), r"f\(x\) = 2x: the output is not LayerNorm\(x \+ f\(x\)\); your output is LayerNorm\(x \+ -[\d.]+ f\(x\)\)"),   # f(x) = 2x: any c < -1/2 fits alike
    (lambda s, x, f: s.norm(x + 0.5 * s.drop(f(x))), r"your output is LayerNorm\(x \+ 0\.5 f\(x\)\): the sum is x \+ Dropout\(f\(x\)\), x and f\(x\) once each"),
    (lambda s, x, f: x + s.drop(f(x)) + 0 * s.norm(x), r"your output is not normalised over the features: .*at \[batch \d, position \d\] they are"),
    (lambda s, x, f: s.norm(x + s.drop(f(x + x))), r"the output is not LayerNorm\(x \+ f\(x\)\); at \[batch \d, position \d, feature \d\] yours is .* \(80 of 80 entries differ\)"),
])
def test_sublayer_mistakes_nobody_listed_are_named_by_property(fwd, says):
    assert_rejects(_ex.check_sublayer, _sub_by(fwd), says=says)

from transformer_nb.lib.transformer import count_config_params as _ccp
from transformer_nb.lib.options import get_model_config as _gmc
_cnt = lambda tie, v=16000: _ccp(_gmc('base', N=4, d_model=1024, src_vocab=v, tgt_vocab=v, tie=tie))

@pytest.mark.parametrize('counts, says', [
    (lambda: (_cnt('all') + 2048, _cnt('none') + 2048), r"tied=100,386,816 is not the count of §6\.3's model: it is \+2,048 from §6\.3's count 100,384,768 \(16K read as 16,000\), exactly \+1 LayerNorms 2 d_model"),
    (lambda: (_cnt('all') + 4 * 1024 * 1024 + 4096, _cnt('none')), r"exactly \+1 attention blocks 4 d_model² \+ 4 d_model"),
    (lambda: (_cnt('all') + 7, _cnt('none')), r"it is \+7 from §6\.3's count 100,384,768 \(16K read as 16,000\), no sum of the model's blocks"),
])
def test_parsing_counts_off_by_blocks_nobody_listed_are_named(counts, says):
    assert_rejects(_ex.check_parsing_counts, counts, says=says)

@pytest.mark.parametrize('old, new, says', [
    ("    z = x ", "    z = x + 0.1 * x.mean(0, keepdim=True) ", r"sentence 0 alone gets other logits than within the batch: the sentences influence each other"),
    ("l.cross_attn(t, z, mask=src_mask)", "l.cross_attn(t, 0.5 * z, mask=src_mask)",
     r"in the order of the equations; the logits differ at target positions \[0, 1, 2, 3, 4, 5, 6\] of 7, at \[batch \d+, position \d+, token \d+\] yours is"),
])
def test_forward_mistakes_nobody_listed_are_named_by_property(old, new, says):
    assert_rejects(_ex.check_forward, my_forward(old, new), says=says)


# ---------------------------------------------------------------- more mistakes, each named by what the answer does
import transformer_nb.course.model as _named

def test_a_layernorm_written_by_hand_is_named():
    class MySublayer(nn.Module):                        # The Annotated Transformer's LayerNorm beside an unused nn.LayerNorm
        def __init__(self, d_model, p_drop):
            super().__init__(); self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
            self.a_2, self.b_2 = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model))
        def forward(self, x, f):
            y = x + self.drop(f(x))
            return self.a_2 * (y - y.mean(-1, keepdim=True)) / (y.std(-1, keepdim=True) + 1e-6) + self.b_2
    assert_rejects(_named.check_sublayer, MySublayer, says=r"your LayerNorm is not nn\.LayerNorm: it divides by the standard deviation "
                   r"with Bessel's correction plus eps .*; its gain and bias are its own")

def test_one_norm_for_every_sub_layer_is_named():
    from transformer_nb.attention import pad_mask
    from transformer_nb.model import make_tgt_mask
    def my_forward(model, src, tgt):
        sm, tm = pad_mask(src), make_tgt_mask(tgt)
        x = model.src_pos(model.src_emb(src))
        for l in model.encoder:
            n = l.sub[0].norm; x = n(x + l.self_attn(x, mask=sm)); x = n(x + l.ffn(x))
        y = model.tgt_pos(model.tgt_emb(tgt))
        for l in model.decoder:
            n = l.sub[0].norm
            y = n(y + l.self_attn(y, mask=tm)); y = n(y + l.cross_attn(y, x, mask=sm)); y = n(y + l.ffn(y))
        return model.generator(y)
    assert_rejects(_named.check_forward, my_forward, says=r"every sub-layer of a layer uses sub\[0\]\.norm")

@pytest.mark.parametrize('tied, says', [
    (49_983_488, r"tied=49,983,488 .*exactly without the decoder's 4 layers"),
    (100_343_808, r"tied=100,343,808 .*exactly without all 20 LayerNorms"),
])
def test_a_count_without_a_whole_part_is_named(tied, says):
    assert_rejects(_named.check_parsing_counts, lambda: (tied, 133_152_768), says=says)

def test_a_norm_on_the_branch_and_a_shifted_target_are_named():
    from transformer_nb.attention import pad_mask
    from transformer_nb.model import make_tgt_mask
    def forward_by(rule, cut=False):
        def my_forward(model, src, tgt):
            tgt = tgt[:, :-1] if cut else tgt
            sm, tm = pad_mask(src), make_tgt_mask(tgt)
            x = model.src_pos(model.src_emb(src))
            for l in model.encoder:
                x = rule(l.sub[0].norm, x, l.self_attn(x, mask=sm)); x = rule(l.sub[1].norm, x, l.ffn(x))
            y = model.tgt_pos(model.tgt_emb(tgt))
            for l in model.decoder:
                y = rule(l.sub[0].norm, y, l.self_attn(y, mask=tm)); y = rule(l.sub[1].norm, y, l.cross_attn(y, x, mask=sm))
                y = rule(l.sub[2].norm, y, l.ffn(y))
            return model.generator(y)
        return my_forward
    assert_rejects(_named.check_forward, forward_by(lambda n, x, y: x + n(y)), says=r"each sub-layer adds LayerNorm\(f\(x\)\) to x, the norm on the branch")
    assert_rejects(_named.check_forward, forward_by(lambda n, x, y: n(x + y), cut=True), says=r"got torch\.Size\(\[4, 6, 50\]\): one position short")

@pytest.mark.parametrize('old, new, says', [
    ("        y = residual(l.sub[2].norm, y, l.ffn)\n", "", r"the decoder layers skip their feed-forward network, sub\[2\]"),
    ("        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n", "",
     r"the decoder never reads the source"),
    ("        x = residual(l.sub[1].norm, x, l.ffn)\n", "", r"the encoder layers skip their feed-forward network, sub\[1\]"),
    ("        x = residual(l.sub[1].norm, x, l.ffn)\n", "        x = residual(l.sub[1].norm, x, l.ffn); zs.append(x)\n",
     r"decoder layer k reads encoder layer k's output: every decoder layer's cross-attention reads the memory z"),
    ("        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n",
     "        zs.append(x); x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n", r"decoder layer k reads encoder layer k's input"),
], ids=['decoder without FFN', 'decoder without cross-attention', 'encoder without FFN', 'layer k reads layer k', 'layer k reads layer k input'])
def test_layers_left_out_or_read_layer_by_layer_are_named(old, new, says, capsys):
    "A sub-layer left out of every layer, and a decoder layer that reads the encoder layer of its own depth, are named by what they compute."
    fn = my_forward(old, new)
    if 'zs.' in new:                                          # the decoder's layer k reads zs[k], not z
        code = code_blocks(NB, 'a06e0013')[0].replace(old, new).replace("    for l in model.encoder:", "    zs = []\n    for l in model.encoder:")
        code = code.replace("    for l in model.decoder:", "    for k, l in enumerate(model.decoder):").replace("l.cross_attn(t, z, mask", "l.cross_attn(t, zs[k], mask")
        fn = namespace(NB, code)['my_forward']
    assert_named(check_forward, fn, says=r"^Not yet: my_forward.*" + says, capsys=capsys)


# ---------------------------------------------------------------- a LayerNorm by hand, the keep rate as dropout, the decoder's order, the generator, untied doubled
class _HandLN(nn.Module):
    "The Annotated Transformer's LayerNorm: the unbiased standard deviation, eps added to it."
    def __init__(self, d_model, p_drop):
        super().__init__(); self.a, self.b, self.drop = nn.Parameter(torch.ones(d_model)), nn.Parameter(torch.zeros(d_model)), nn.Dropout(p_drop)
    def forward(self, x, f):
        y = x + self.drop(f(x)); return self.a * (y - y.mean(-1, keepdim=True)) / (y.std(-1, keepdim=True) + 1e-6) + self.b

def test_a_layernorm_written_by_hand_without_an_nn_layernorm_is_named():
    assert_rejects(_named.check_sublayer, _HandLN, says=r"your LayerNorm is written by hand, as The Annotated Transformer's: .*Bessel's correction")

def test_the_keep_probability_given_as_the_dropout_rate_is_named():
    class KeepRate(_ex.SublayerConnection):
        def __init__(self, d_model, p_drop): super().__init__(d_model, p_drop); self.drop = nn.Dropout(1 - p_drop)
    assert_rejects(_named.check_sublayer, KeepRate, says=r"with p_drop = 0\.1 your dropout drops about 90% of the entries: .*not the probability of keeping it")

def _written_out(model, src, tgt, order=(0, 1, 2), generator=True):
    "Transformer.forward written out, the decoder's sub-layers run in `order` (each with its own norm), the generator applied or not."
    sm, tm = pad_mask(src), make_tgt_mask(tgt)
    z = model.src_pos(model.src_emb(src))
    for l in model.encoder:
        z = l.sub[0].norm(z + l.self_attn(z, mask=sm)); z = l.sub[1].norm(z + l.ffn(z))
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        f = (lambda t: l.self_attn(t, mask=tm), lambda t: l.cross_attn(t, z, mask=sm), l.ffn)
        for i in order: y = l.sub[i].norm(y + f[i](y))
    return model.generator(y) if generator else y

def test_the_written_out_forward_passes():
    assert _named.check_forward(_written_out) is True

@pytest.mark.parametrize('kw, says', [
    (dict(order=(1, 0, 2)), r"the decoder's sub-layers run as encoder-decoder attention, self-attention, the FFN: the order is self-attention"),
    (dict(generator=False), r"got torch\.Size\(\[4, 7, 32\]\): the last axis is d_model = 32, the decoder's output y: the logits are model\.generator\(y\)"),
])
def test_forward_order_and_generator_are_named(kw, says):
    assert_rejects(_named.check_forward, lambda m, s, t: _written_out(m, s, t, **kw), says=says)

def test_untied_as_twice_the_tied_count_is_named():
    from transformer_nb.lib.transformer import count_config_params
    tied = count_config_params(get_model_config('base', N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000, tie='all'))
    assert_rejects(_named.check_parsing_counts, lambda: (tied, 2 * tied), says=r"untied=[\d,]+ is 2 x tied=[\d,]+: untying copies no layer")

@pytest.mark.parametrize('old, new, says', [
    ('residual(l.sub[2].norm, y, l.ffn)', 'residual(l.sub[1].norm, y, l.ffn)', 'sub\\[2\\] of each decoder layer normalises with sub\\[1\\].norm'),
    ('residual(l.sub[1].norm, x, l.ffn)', 'residual(l.sub[0].norm, x, l.ffn)', 'sub\\[1\\] of each encoder layer normalises with sub\\[0\\].norm'),
    ('residual(l.sub[0].norm, y, lambda t: l.self_attn', 'residual(l.sub[2].norm, y, lambda t: l.self_attn', 'sub\\[0\\] of each decoder layer normalises with sub\\[2\\].norm')])
def test_a_sub_layer_with_another_sub_layers_norm_is_named(old, new, says, capsys):
    assert_named(check_forward, my_forward(old, new), says=f"^Not yet: .*{says}: each sub-layer has a LayerNorm of its own", capsys=capsys)

# ---------------------------------------------------------------- slips of later blind answers, named by property
def _post_ln(model, src, tgt, final_norm=False, lut=False):
    "§3.1 from the parts, post-LN; `final_norm`: one more LayerNorm before the generator; `lut`: the embeddings' bare tables."
    from transformer_nb.attention import pad_mask, tgt_mask
    res, emb = (lambda n, x, f: n(x + f(x))), (lambda e, t: e.lut(t) if lut else e(t))
    sm, tm = pad_mask(src), tgt_mask(tgt)
    x = model.src_pos(emb(model.src_emb, src))
    for l in model.encoder: x = res(l.sub[1].norm, res(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=sm)), l.ffn)
    y = model.tgt_pos(emb(model.tgt_emb, tgt))
    for l in model.decoder:
        y = res(l.sub[2].norm, res(l.sub[1].norm, res(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tm)), lambda t: l.cross_attn(t, x, mask=sm)), l.ffn)
    return model.generator(F.layer_norm(y, y.shape[-1:]) if final_norm else y)

class _NormOverPositions(nn.Module):                                   # F.layer_norm over (n, d_model), no module
    def __init__(self, d_model, p_drop): super().__init__(); self.drop = nn.Dropout(p_drop)
    def forward(self, x, f): return F.layer_norm(x + self.drop(f(x)), x.shape[1:])

def test_an_extra_final_layernorm_and_bare_embedding_tables_are_named():
    assert _ex.check_forward(_post_ln) is True
    assert_rejects(_ex.check_forward, lambda m, s, t: _post_ln(m, s, t, final_norm=True),
                   says=r"the decoder's output went through one more LayerNorm before model.generator")
    assert_rejects(_ex.check_forward, lambda m, s, t: _post_ln(m, s, t, lut=True),
                   says=r"an embedding without its sqrt\(d_model\): call model.src_emb\(src\) and model.tgt_emb\(tgt\), not their .lut")

def test_a_layernorm_over_the_positions_and_features_is_named():
    assert_rejects(_ex.check_sublayer, _NormOverPositions, says=r"normalises over the positions and the features together \(x.shape\[1:\]\)")

def test_learned_positions_counted_as_parameters_are_named(capsys):
    from transformer_nb.lib.transformer import count_config_params
    from transformer_nb.lib.options import get_model_config
    count = lambda tie: count_config_params(get_model_config('base', N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000, tie=tie))
    assert_named(check_parsing_counts, lambda: (count('all') + 2 * 1024 * 1024, count('none') + 2 * 1024 * 1024),
                 says=r"exactly 2 tables of learned positions, 1,024 x 1024 \(max_len x d_model.*\): the paper's sinusoidal positions have no parameters", capsys=capsys)

# ---------------------------------------------------------------- the cross-attention on its own stream, the norms of a layer exchanged, a causal encoder
def _forward_as(model, src, tgt, cross_self=False, norms=(0, 1, 2), enc_causal=False):
    "§3.1 from the parts, post-LN, with one slip: the cross-attention reading the decoder's stream, decoder sub-layer i normalised with sub[norms[i]].norm, or a causal encoder."
    from transformer_nb.attention import pad_mask, tgt_mask, causal_mask
    res = lambda n, x, f: n(x + f(x))
    sm, tm = pad_mask(src), tgt_mask(tgt)
    em = sm & causal_mask(src.shape[1]) if enc_causal else sm
    x = model.src_pos(model.src_emb(src))
    for l in model.encoder: x = res(l.sub[1].norm, res(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=em)), l.ffn)
    y = model.tgt_pos(model.tgt_emb(tgt))
    for l in model.decoder:
        y = res(l.sub[norms[0]].norm, y, lambda t: l.self_attn(t, mask=tm))
        y = res(l.sub[norms[1]].norm, y, lambda t: l.cross_attn(t, t if cross_self else x, mask=sm))
        y = res(l.sub[norms[2]].norm, y, l.ffn)
    return model.generator(y)

@pytest.mark.parametrize('kw, says', [
    (dict(cross_self=True), r"on a source of 9 and a target of 7 tokens, and runs when both have 7: the cross-attention reads its keys and values from the decoder's own stream, not from the memory z"),
    (dict(norms=(1, 0, 2)), r"in each decoder layer sub\[0\] normalises with sub\[1\].norm, sub\[1\] normalises with sub\[0\].norm: each sub-layer has a LayerNorm of its own"),
    (dict(enc_causal=True), r"the encoder's self-attention is causal too: .*the encoder's mask is pad_mask\(src\) alone"),
])
def test_a_cross_attention_on_its_own_stream_exchanged_norms_and_a_causal_encoder_are_named(kw, says):
    assert_rejects(_ex.check_forward, functools.partial(_forward_as, **kw), says=says)
    assert _ex.check_forward(_forward_as) is True

# ---------------------------------------------------------------- a dropout rate fixed at 0.1; f called twice; one layer reused
class _FixedP(SL_pre):
    def __init__(self, d_model, p_drop): super().__init__(d_model, 0.1)
    def forward(self, x, f): return self.norm(x + self.drop(f(x)))
class _FTwice(SL_pre):
    def forward(self, x, f): return self.norm(x + 0.5 * self.drop(f(x)) + 0.5 * self.drop(f(x)))
class _Right(SL_pre):
    def forward(self, x, f): return self.norm(x + self.drop(f(x)))

@pytest.mark.parametrize('cls, says', [
    (_FixedP, r"with p_drop = 0.3 your dropout drops about 10% of the entries, as if p_drop were 0.1: the rate is fixed; .*nn.Dropout\(p_drop\)"),
    (_FTwice, r"forward calls f 2 times: call it once, Dropout\(f\(x\)\); each call draws its own dropout mask"),
])
def test_a_fixed_dropout_rate_and_f_called_twice_are_named(cls, says):
    assert_rejects(_ex.check_sublayer, cls, says=says)
    assert _ex.check_sublayer(_Right) is True

def _first_layers(model, src, tgt):
    "Transformer.forward written out, but every layer of each stack is that stack's first layer."
    sm, tm, pre = pad_mask(src), make_tgt_mask(tgt), model.cfg.norm_first
    res = lambda sub, x, f: x + f(sub.norm(x)) if pre else sub.norm(x + f(x))
    x, y = model.src_pos(model.src_emb(src)), model.tgt_pos(model.tgt_emb(tgt))
    e, d = model.encoder[0], model.decoder[0]
    for _ in model.encoder: x = res(e.sub[1], res(e.sub[0], x, lambda t: e.self_attn(t, mask=sm)), e.ffn)
    if pre: x = final_norm(model, 'enc')(x)
    for _ in model.decoder:
        y = res(d.sub[1], res(d.sub[0], y, lambda t: d.self_attn(t, mask=tm)), lambda t: d.cross_attn(t, x, mask=sm))
        y = res(d.sub[2], y, d.ffn)
    return model.generator(final_norm(model, 'dec')(y) if pre else y)

def test_a_stack_that_reuses_its_first_layer_is_named():
    assert_rejects(_ex.check_forward, _first_layers, says=r"my_forward's logits differ .*: your logits do not change when the weights of encoder layer 2 "
                                                          r"of 2 change: run every layer of model.encoder in turn, each with its own weights")

# ---------------------------------------------------------------- a fresh blind set: wrong answers written before reading the messages
import re as _n9re
from nbtools import assert_rejects as _n9_rejects
from transformer_nb.course.model import check_sublayer as _n9_sub
def _n9_S(fwd, eps=1e-5):
    class S(nn.Module):
        def __init__(self, d_model, p_drop): super().__init__(); self.norm = nn.LayerNorm(d_model, eps=eps); self.drop = nn.Dropout(p_drop)
        def forward(self, x, f): return fwd(self, x, f)
    return S
def _n9_inplace(s, x, f):
    x += s.drop(f(x)); return s.norm(x)
def _n9_manual_axis(s, x, f):
    y = x + s.drop(f(x)); return (y - y.mean(1, keepdim=True)) / (y.var(1, keepdim=True, unbiased=False) + 1e-5).sqrt()
_n9_post = lambda s, x, f: s.norm(x + s.drop(f(x)))
NINTH = [('pre-LN', _n9_sub, (_n9_S(lambda s, x, f: x + s.drop(f(s.norm(x)))),), "x + f(LayerNorm(x)), pre-LN"),
         ('dropout after the norm', _n9_sub, (_n9_S(lambda s, x, f: s.drop(s.norm(x + f(x)))),), "the dropout acts on f(x) only"),
         ('no residual', _n9_sub, (_n9_S(lambda s, x, f: s.norm(s.drop(f(x)))),), "with no residual x"),
         ('in-place residual x +=', _n9_sub, (_n9_S(_n9_inplace),), "forward changed its input x in place"),
         ('eps 1e-3', _n9_sub, (_n9_S(_n9_post, eps=1e-3),), "your nn.LayerNorm has eps=0.001"),
         ('normalised over the positions', _n9_sub, (_n9_S(_n9_manual_axis),), "normalises over the positions (dim 1)")]

@pytest.mark.parametrize('eps', [1e-5, 1e-6, 1e-12])
def test_ninth_any_layernorm_eps_up_to_1e_5_passes(eps):
    "The paper fixes no epsilon: PyTorch's 1e-5, tensor2tensor's 1e-6 and smaller ones all pass."
    assert _n9_sub(_n9_S(_n9_post, eps=eps)) is True
from transformer_nb.attention import pad_mask as _n9_pad_mask
from transformer_nb.model import make_tgt_mask as _n9_tgt_mask, Transformer as _n9_T
from transformer_nb.core import count_params as _n9_count
from transformer_nb.lib.options import get_config as _n9_cfg
def _n9_fw(causal=True, srcmask_cross=True, gen=True):
    def my_forward(model, src, tgt):
        sm = _n9_pad_mask(src); tm = _n9_tgt_mask(tgt) if causal else _n9_pad_mask(tgt)
        x = model.src_pos(model.src_emb(src))
        for l in model.encoder: x = l.sub[0].norm(x + l.self_attn(x, mask=sm)); x = l.sub[1].norm(x + l.ffn(x))
        y = model.tgt_pos(model.tgt_emb(tgt))
        for l in model.decoder:
            y = l.sub[0].norm(y + l.self_attn(y, mask=tm)); y = l.sub[1].norm(y + l.cross_attn(y, x, mask=sm if srcmask_cross else None))
            y = l.sub[2].norm(y + l.ffn(y))
        return model.generator(y) if gen else y
    return my_forward
def _n9_tied(N=4):
    with torch.device('meta'): return _n9_count(_n9_T(_n9_cfg('base', N=N, d_model=1024, src_vocab=16000, tgt_vocab=16000)))
NINTH += [('forward: no causal mask', _ex.check_forward, (_n9_fw(causal=False),), "the future leaks"),
          ('forward: no pad mask in the cross-attention', _ex.check_forward, (_n9_fw(srcmask_cross=False),), "padding leaks"),
          ('forward: no generator', _ex.check_forward, (_n9_fw(gen=False),), "the logits are model.generator(y)"),
          ('counts swapped', _ex.check_parsing_counts, (lambda: (_n9_tied() + 2 * 16000 * 1024, _n9_tied()),), "the two counts are swapped"),
          ('untied adds one matrix', _ex.check_parsing_counts, (lambda: (_n9_tied(), _n9_tied() + 16000 * 1024),), "untied is tie='none'"),
          ('N = 6', _ex.check_parsing_counts, (lambda: (_n9_tied(6), _n9_tied(6) + 2 * 16000 * 1024),), "§6.3 has 4 layers")]

def test_ninth_right_forward_passes():
    assert _ex.check_forward(_n9_fw()) is True

@pytest.mark.parametrize('label', [c[0] for c in NINTH])
def test_ninth_blind_answers_named(label):
    "Each answer of the blind set is refused with a message that names its mistake."
    _, check, answer, words = next(c for c in NINTH if c[0] == label)
    _n9_rejects(check, *answer, says=_n9re.escape(words))


# ---------------------------------------------------------------- the thirteenth blind set's misses (results/checker_answers.json)
def _one_pre_ln_forward(stack, i):
    "A my_forward whose sub-layer `i` of every layer of `stack` is pre-LN, x + f(norm(x)), the other sub-layers post-LN."
    def my_forward(model, src, tgt):
        sub = lambda L, k, x, f: x + f(L.sub[k].norm(x)) if (L in model.encoder) == (stack == 'encoder') and k == i else L.sub[k].norm(x + f(x))
        src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)
        x = model.drop(model.src_pos(model.src_emb(src)))
        for L in model.encoder:
            x = sub(L, 0, x, lambda t: L.self_attn(t, mask=src_mask)); x = sub(L, 1, x, L.ffn)
        y = model.drop(model.tgt_pos(model.tgt_emb(tgt)))
        for L in model.decoder:
            y = sub(L, 0, y, lambda t: L.self_attn(t, mask=tgt_mask)); y = sub(L, 1, y, lambda t: L.cross_attn(t, x, mask=src_mask)); y = sub(L, 2, y, L.ffn)
        return model.generator(y)
    return my_forward

@pytest.mark.parametrize('stack, i, name', [('decoder', 0, 'self-attention'), ('decoder', 2, 'feed-forward network'), ('encoder', 1, 'feed-forward network')])
def test_one_sub_layer_pre_ln_is_named(stack, i, name):
    "One sub-layer of every layer of a stack written pre-LN, the rest post-LN: that sub-layer named, not only where the logits differ."
    assert_rejects(check_forward, _one_pre_ln_forward(stack, i), says=rf"the {stack}'s {name}, sub\[{i}\], is pre-LN")


# ---------------------------------------------------------------- the fifteenth blind set's misses (results/checker_answers.json)
class _FunctionalDropout(nn.Module):
    "The paper's sub-layer with F.dropout(t, p), whose training= defaults to True: it drops in eval mode too."
    def __init__(self, d_model, p_drop): super().__init__(); self.norm, self.p = nn.LayerNorm(d_model), p_drop
    def forward(self, x, f): return self.norm(x + F.dropout(f(x), self.p))

def test_functional_dropout_left_on_in_eval_is_named():
    assert_rejects(check_sublayer, _FunctionalDropout, says=r"^Not yet: in eval mode the dropout must do nothing: a dropout made in forward drops in eval too "
                   r"\(F\.dropout\(t, p\), whose training= is True unless given.*hold an nn\.Dropout\(p_drop\) made in __init__")

# ---------------------------------------------------------------- the seventeenth blind set's misses
@pytest.mark.parametrize('old, new, says', [
    ("x = model.src_pos(model.src_emb(src))", "x = model.src_pos(model.src_emb(src) * model.cfg.d_model ** 0.5)",
     r"^Not yet: my_forward.*: an embedding is scaled by sqrt\(d_model\) twice: model.src_emb and model.tgt_emb multiply by it already"),
    ("return model.generator(y)", "return model.generator(y), z", r"^Not yet: my_forward must return the logits, shape \(4, 7, 50\); got a tuple of 2, \(4, 7, 50\), \(4, 9, 32\): return the tensor alone"),
], ids=['scaled twice', '(logits, memory)'])
def test_the_seventeenth_sets_my_forward_misses_are_named(old, new, says, capsys):
    assert_named(check_forward, my_forward(old, new), says=says, capsys=capsys)

def test_a_sublayer_returning_a_1_tuple_is_named():
    class MySublayer(nn.Module):
        def __init__(self, d_model, p_drop): super().__init__(); self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)
        def forward(self, x, f): return (self.norm(x + self.drop(f(x))),)       # Hugging Face's (hidden_states,)
    assert_rejects(check_sublayer, MySublayer, says=r"^Not yet: forward\(x, f\) must return a tensor shaped like x, \(2, 5, 8\); got a tuple of 1, \(2, 5, 8\)")


# ---------------------------------------------------------------- the twenty-first blind set's misses
from transformer_nb.course.model import check_forward as _t21_check_forward, check_parsing_counts as _t21_check_parsing_counts, check_sublayer as _t21_check_sublayer
from nbtools import assert_rejects as _t21_rejects

_T21_PRELUDE = 'from transformer_nb.model import Transformer\nfrom transformer_nb.attention import pad_mask, tgt_mask as make_tgt_mask\nfrom transformer_nb.config import TransformerConfig\nfrom transformer_nb.core import count_params'   # the names the exercise's cell sees
_T21 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'an nn.Dropout made inside forward: always in training mode': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.p = nn.LayerNorm(d_model), p_drop\n    def forward(self, x, f):\n        return self.norm(x + nn.Dropout(self.p)(f(x)))',
        'or nn\\.Dropout\\(p\\) built there, a new module in training mode'),
    'forward puts the layer back in training mode (self.train())': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        self.train()\n        return self.norm(x + self.drop(f(x)))',
        'your forward put the layer back in training mode'),
    "the encoder's layers run in reverse": ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in reversed(model.encoder):\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y)',
        "the encoder's layers run in reverse, the last first"),
    'the counts in millions, rounded': ('parsing_counts', "\ndef parsing_counts():\n    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)\n    with torch.device('meta'): tied = count_params(Transformer(cfg))\n    return round(tied / 1e6), round((tied + 2 * 16000 * 1024) / 1e6)",
        'tied=100 is the count in millions'),
    'counted over state_dict(): the tied matrix three times, the buffers too': ('parsing_counts', "\ndef parsing_counts():\n    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)\n    with torch.device('meta'): m = Transformer(cfg)\n    tied = sum(t.numel() for t in m.state_dict(keep_vars=True).values())\n    return tied, tied + 2 * 16000 * 1024",
        'state_dict\\(\\) \\(or named_parameters\\(remove_duplicate=False\\)\\) lists that matrix'),
}

@pytest.mark.parametrize('label', list(_T21))
def test_the_twenty_first_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T21[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T21_PRELUDE, ns); exec(src, ns)
    check = {'MySublayer': _t21_check_sublayer, 'my_forward': _t21_check_forward, 'parsing_counts': _t21_check_parsing_counts}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t21_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-third blind set's misses
from transformer_nb.course.model import check_sublayer as _t23_check_sublayer
from nbtools import assert_rejects as _t23_rejects

_T23_PRELUDE = ''   # the names the exercise's cell sees
_T23 = {   # label: (the exercise's function, the answer's code, what its message must say)
    'F.layer_norm with no learned gain and bias': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.d_model, self.drop = d_model, nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return F.layer_norm(x + self.drop(f(x)), (self.d_model,))',
        'your\\ sub\\-layer\\ holds\\ no\\ gain\\ and\\ bias'),
    'nn.LayerNorm created in forward: its parameters not registered': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.d_model, self.drop = d_model, nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return nn.LayerNorm(self.d_model)(x + self.drop(f(x)))',
        'an\\ nn\\.LayerNorm\\ built\\ in\\ forward'),
}

@pytest.mark.parametrize('label', list(_T23))
def test_the_twenty_third_sets_misses_are_named(label):
    import math, torch, torch.nn as nn, torch.nn.functional as F
    fn, src, says = _T23[label]
    ns = dict(math=math, torch=torch, nn=nn, F=F)
    exec(_T23_PRELUDE, ns); exec(src, ns)
    check = {'MySublayer': _t23_check_sublayer}[fn]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t23_rejects(check, ns[fn], says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-fourth blind set's misses
from transformer_nb.course.model import check_sublayer as _t24_check_sublayer
from nbtools import assert_rejects as _t24_rejects

_T24_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.model import *\nfrom transformer_nb.attention import pad_mask, tgt_mask as make_tgt_mask\nfrom transformer_nb.config import TransformerConfig\nfrom transformer_nb.core import count_params'   # the names the exercise's cell sees
_T24 = {   # label: (the exercise, the answer's code, what its message must say)
    'a LayerNorm by hand with the mean and variance without keepdim': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        y = x + self.drop(f(x))\n        mu, var = y.mean(-1), y.var(-1, unbiased=False)\n        return (y - mu) / (var + self.norm.eps).sqrt() * self.norm.weight + self.norm.bias',
        'forward\\(x, f\\) raised RuntimeError .*a mean or variance over the features without keepdim=True is \\(B, n\\)'),
    'the LayerNorm without a bias (bias=False)': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model, bias=False), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'your nn.LayerNorm has a gain and no bias \\(bias=False'),
}

@pytest.mark.parametrize('label', list(_T24))
def test_the_twenty_fourth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T24[label]
    ns = {}
    exec(_T24_PRELUDE, ns); exec(src, ns)
    run = {'MySublayer': lambda ns: _t24_check_sublayer(ns['MySublayer'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t24_rejects(lambda: run(ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-sixth blind set's misses
from nbtools import assert_rejects as _t26_rejects

_T26_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.model import *\nfrom transformer_nb.attention import pad_mask, tgt_mask as make_tgt_mask\nfrom transformer_nb.config import TransformerConfig\nfrom transformer_nb.core import count_params\nfrom transformer_nb.course.model import check_sublayer, check_forward, check_parsing_counts'   # the names the exercise's cell sees
_T26 = {   # label: (the exercise, the answer's code, what its message must say)
    'x.detach() in the residual: no gradient through the skip': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x.detach() + self.drop(f(x)))',
        'no gradient flows through the residual x'),
    'the LayerNorm in float64, returned in float64': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model).double(), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm((x + self.drop(f(x))).double())',
        'returned torch\\.float64 for a torch\\.float32 x'),
    "a final LayerNorm on the memory (the Annotated Transformer's Encoder.norm), the last layer's norm reused": ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = model.encoder[-1].sub[1].norm(x)\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y)',
        'the memory z is normalised once more after the last encoder layer'),
    "late-binding lambdas built in a loop: every sub-layer calls the last layer's parts": ('my_forward', '\ndef my_forward(model, src, tgt):\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    enc = []\n    for l in model.encoder:\n        enc.append((l.sub[0].norm, lambda t: l.self_attn(t, mask=src_mask)))\n        enc.append((l.sub[1].norm, lambda t: l.ffn(t)))\n    x = model.src_pos(model.src_emb(src))\n    for norm, f in enc: x = norm(x + f(x))\n    z, dec = x, []\n    for l in model.decoder:\n        dec.append((l.sub[0].norm, lambda t: l.self_attn(t, mask=tgt_mask)))\n        dec.append((l.sub[1].norm, lambda t: l.cross_attn(t, z, mask=src_mask)))\n        dec.append((l.sub[2].norm, lambda t: l.ffn(t)))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for norm, f in dec: y = norm(y + f(y))\n    return model.generator(y)',
        "your logits do not change when encoder layer 1's self_attn changes"),
    'the positions added twice (src_pos applied to its own output)': ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_pos(model.src_emb(src)))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y)',
        "the encoder's input has the positions added twice"),
    'the logits returned as float64 (.double())': ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y).double()',
        "my_forward's logits are torch\\.float64, the model's torch\\.float32"),
    'counts as float tensors (torch.tensor of the sums)': ('parsing_counts', "\ndef parsing_counts():\n    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)\n    with torch.device('meta'): tied = count_params(Transformer(cfg))\n    return torch.tensor(float(tied)), torch.tensor(float(tied + 2 * 16000 * 1024))",
        'gave the right counts as Tensor and Tensor: return two Python ints'),
}

@pytest.mark.parametrize('label', list(_T26))
def test_the_twenty_sixth_sets_misses_are_named(label):
    import torch
    ex, src, says = _T26[label]
    ns = {}
    exec(_T26_PRELUDE, ns); exec(src, ns)
    calls = {'MySublayer': 'check_sublayer(MySublayer)', 'my_forward': 'check_forward(my_forward)', 'parsing_counts': 'check_parsing_counts(parsing_counts)'}
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t26_rejects(lambda: eval(calls[ex], ns), says=says)
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the twenty-ninth blind set's misses
from transformer_nb.course.model import check_forward as _t29_check_forward, check_parsing_counts as _t29_check_parsing_counts, check_sublayer as _t29_check_sublayer
from nbtools import assert_rejects as _t29_rejects

_T29_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.model import *\nfrom transformer_nb.attention import pad_mask, tgt_mask as make_tgt_mask\nfrom transformer_nb.config import TransformerConfig\nfrom transformer_nb.core import count_params'   # the names the exercise's cell sees
_T29 = {   # label: (the exercise, the answer's code, what its message must say)
    'nn.Dropout(inplace=True): an f that returns its input (or a view) has x dropped too': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop, inplace=True)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'an in-place dropout (nn.Dropout(p, inplace=True)'),
    'nn.Dropout1d: whole positions dropped, not single features': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout1d(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'your dropout drops whole positions of f(x)'),
    'the source mask (B, S) without its head and query axes': ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = src != PAD_ID, make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y)',
        'a mask of shape (4, 9) reached an attention'),
    "the FFN sub-layer fed the layer's input, not the attention sub-layer's output": ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        a = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = l.sub[1].norm(a + l.ffn(x))\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y)',
        "in each encoder layer the feed-forward network, sub[1], reads the layer's input"),
    'the tied count with 16,000, the untied one with 16,384': ('parsing_counts', "\ndef parsing_counts():\n    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)\n    with torch.device('meta'): tied = count_params(Transformer(cfg))\n    return tied, tied + 384 * 1024 + 2 * 16384 * 1024",
        'tied counts a vocabulary of 16,000 and untied one of 16,384'),
    '(a variant) F.dropout inplace': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.p = nn.LayerNorm(d_model), p_drop\n    def forward(self, x, f):\n        return self.norm(x + F.dropout(f(x), self.p, self.training, inplace=True))',
        'forward changed x in place: an in-place dropout'),
    '(a variant) src mask (B,1,S)': ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = (src != PAD_ID)[:, None], make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y)',
        'a mask of shape (4, 1, 9) reached an attention'),
    '(a variant) decoder ffn fed layer input': ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y0 = y\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = l.sub[2].norm(y + l.ffn(y0))\n    return model.generator(y)',
        'in each decoder layer the feed-forward network, sub[2], reads the output of sub[0]'),
    '(a variant) list': ('parsing_counts', "\ndef parsing_counts():\n    cfg = TransformerConfig(N=4, d_model=1024, src_vocab=16000, tgt_vocab=16000)\n    with torch.device('meta'): tied = count_params(Transformer(cfg))\n    return [tied, tied + 2 * 16000 * 1024]",
        ': a list of two: write `return tied, untied`, a tuple'),
    '(a variant) squeeze at end (my_forward)': ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y).squeeze()',
        '.squeeze() without a dim drops every axis of size 1'),
    '(a variant) squeeze at end (MySublayer)': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x))).squeeze()',
        '.squeeze() without a dim drops every axis of size 1'),
}

@pytest.mark.parametrize('label', list(_T29))
def test_the_twenty_ninth_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T29[label]
    ns = {}
    exec(_T29_PRELUDE, ns); exec(src, ns)
    run = {'MySublayer': lambda ns: _t29_check_sublayer(ns['MySublayer']), 'my_forward': lambda ns: _t29_check_forward(ns['my_forward']), 'parsing_counts': lambda ns: _t29_check_parsing_counts(ns['parsing_counts'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t29_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-third blind set's misses
from transformer_nb.course.model import check_forward as _t33_check_forward, check_sublayer as _t33_check_sublayer
from nbtools import assert_rejects as _t33_rejects

_T33_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.model import *\nfrom transformer_nb.attention import pad_mask, tgt_mask as make_tgt_mask\nfrom transformer_nb.config import TransformerConfig\nfrom transformer_nb.core import count_params'   # the names the exercise's cell sees
_T33 = {   # label: (the exercise, the answer's code, what its message must say)
    'nn.Dropout built inside forward: always in training mode': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + nn.Dropout(self.drop.p)(f(x)))',
        'in eval mode the dropout must do nothing: a dropout made in forward'),
    "(a variant) F.dropout with the held module's p, training= left out": ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model, p_drop):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + F.dropout(f(x), self.drop.p))',
        'in eval mode the dropout must do nothing: a dropout made in forward'),
    '(another kind) the decoder output scaled by sqrt(d_model) before the generator': ('my_forward', '\ndef my_forward(model, src, tgt):\n    def residual(norm, x, f): return norm(x + f(x))\n    src_mask, tgt_mask = pad_mask(src), make_tgt_mask(tgt)\n    x = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        x = residual(l.sub[0].norm, x, lambda t: l.self_attn(t, mask=src_mask))\n        x = residual(l.sub[1].norm, x, l.ffn)\n    z = x\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = residual(l.sub[0].norm, y, lambda t: l.self_attn(t, mask=tgt_mask))\n        y = residual(l.sub[1].norm, y, lambda t: l.cross_attn(t, z, mask=src_mask))\n        y = residual(l.sub[2].norm, y, l.ffn)\n    return model.generator(y * math.sqrt(y.shape[-1]))',
        "the decoder's output was multiplied by 5.657 = sqrt(d_model) before model.generator"),
}

@pytest.mark.parametrize('label', list(_T33))
def test_the_thirty_third_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T33[label]
    ns = {}
    exec(_T33_PRELUDE, ns); exec(src, ns)
    run = {'MySublayer': lambda ns: _t33_check_sublayer(ns['MySublayer']), 'my_forward': lambda ns: _t33_check_forward(ns['my_forward'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t33_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the thirty-seventh blind set's misses
from transformer_nb.course.model import check_sublayer as _t37_check_sublayer, check_forward as _t37_check_forward, check_parsing_counts as _t37_check_parsing_counts
from nbtools import assert_rejects as _t37_rejects

_T37_PRELUDE = 'import math, copy, random, torch, torch.nn as nn, torch.nn.functional as F\nfrom collections import Counter\nfrom transformer_nb.core import *\nfrom transformer_nb.model import *\nfrom transformer_nb.attention import pad_mask, tgt_mask as make_tgt_mask\nfrom transformer_nb.config import TransformerConfig\nfrom transformer_nb.core import count_params'   # the names the exercise's cell sees
_T37 = {   # label: (the exercise, the answer's code, what its message must say)
    'the norm and the dropout in a plain list': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.parts = [nn.LayerNorm(d_model), nn.Dropout(p_drop)]\n    def forward(self, x, f):\n        norm, drop = self.parts\n        return norm(x + drop(f(x)))',
        'sit in a plain Python list, self.parts'),
    '(a variant) a tuple of modules': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.parts = (nn.LayerNorm(d_model), nn.Dropout(p_drop))\n    def forward(self, x, f):\n        norm, drop = self.parts\n        return norm(x + drop(f(x)))',
        'sit in a plain Python tuple, self.parts'),
    'f(x.detach())': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x.detach())))',
        'the gradient reaches x through the residual alone, not through f'),
    '(a variant) f(x.data)': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x.data)))',
        'f reads x.detach() (or x.data)'),
    'the original (non-inverted) dropout': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.p = nn.LayerNorm(d_model), p_drop\n    def forward(self, x, f):\n        y = f(x)\n        if self.training: y = y * (torch.rand_like(y) >= self.p)\n        else: y = y * (1 - self.p)\n        return self.norm(x + y)',
        'in eval mode your f(x) is scaled by 0.5 = 1 - p_drop: the original dropout'),
    'locked dropout': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.p = nn.LayerNorm(d_model), p_drop\n    def forward(self, x, f):\n        y = f(x)\n        if self.training and self.p > 0:\n            mask = (torch.rand(y.shape[0], 1, y.shape[-1]) >= self.p).to(y.dtype) / (1 - self.p)   # (B, 1, d_model)\n            y = y * mask\n        return self.norm(x + y)',
        'your dropout drops the same features at every position of a sentence: one mask per sentence'),
    '(a variant) one mask for the whole batch': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.p = nn.LayerNorm(d_model), p_drop\n    def forward(self, x, f):\n        y = f(x)\n        if self.training and self.p > 0:\n            mask = (torch.rand(1, 1, y.shape[-1]) >= self.p).to(y.dtype) / (1 - self.p)   # (B, 1, d_model)\n            y = y * mask\n        return self.norm(x + y)',
        'one mask per batch'),
    "the LayerNorm's gain started at zero": ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n        nn.init.zeros_(self.norm.weight)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'with a gain of 0 it outputs its bias alone'),
    '(a variant) the gain started at 0.5': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n        nn.init.constant_(self.norm.weight, 0.5)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'it starts at gain 1 and bias 0'),
    'the LayerNorm built lazily': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = None, nn.Dropout(p_drop)\n    def forward(self, x, f):\n        if self.norm is None: self.norm = nn.LayerNorm(x.shape[-1])\n        return self.norm(x + self.drop(f(x)))',
        'no nn.LayerNorm until forward runs'),
    '(a variant) built on first use with hasattr': ('MySublayer', "\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.drop = nn.Dropout(p_drop)\n    def forward(self, x, f):\n        if not hasattr(self, 'norm'): self.norm = nn.LayerNorm(x.shape[-1])\n        return self.norm(x + self.drop(f(x)))",
        'a lazy build'),
    'nn.LayerNorm(512)': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(512), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        "your nn.LayerNorm normalises (512,) features, and d_model is 8 here: a width written in, the base model's 512"),
    '(a variant) nn.LayerNorm(1024)': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(1024), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'normalises (1024,) features'),
    'dropout of p_drop / 2': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop / 2)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'with p_drop = 0.1 your dropout drops about 5% of the entries, and with p_drop = 0.3 about 15%: the rate it used is p_drop / 2, not the rate it was given, p_drop'),
    '(a variant) dropout of 2 p_drop': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(min(2 * p_drop, 0.9))\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'the rate it used is 2 p_drop, not the rate it was given'),
    '(a variant) a dropout rate fixed at 0.05': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(0.05)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x)))',
        'a rate fixed at about 0.05 whatever p_drop is'),
    '0.5 (x + f(x)) normalised': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(0.5 * (x + self.drop(f(x))))',
        'your output is LayerNorm(0.5 (x + f(x)))'),
    '0.5 times the normalised sum': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return 0.5 * self.norm(x + self.drop(f(x)))',
        'your output is 0.5 times LayerNorm(x + f(x))'),
    '0.5 (x + f(x)), no norm': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return 0.5 * (x + self.drop(f(x)))',
        'your output is 0.5 times x + f(x), with no LayerNorm'),
    '(a variant) the normalised sum over sqrt(2)': ('MySublayer', '\nclass MySublayer(nn.Module):\n    def __init__(self, d_model:int, p_drop:float):\n        super().__init__()\n        self.norm, self.drop = nn.LayerNorm(d_model), nn.Dropout(p_drop)\n    def forward(self, x, f):\n        return self.norm(x + self.drop(f(x))) / 2 ** 0.5',
        'your output is 0.707 times LayerNorm(x + f(x))'),
    "the target's positions from src_pos": ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.src_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        "with learned positions (Table 3, row E) your logits differ: the target's positions come from model.src_pos"),
    "(a variant) the source's positions from tgt_pos": ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.tgt_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        "the source's positions come from model.tgt_pos"),
    'the FFN sub-layers without their residual': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(l.ffn(y))\n    return model.generator(y)',
        'the feed-forward sub-layers of both stacks have no residual'),
    "(a variant) the decoder's FFN without its residual": ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(l.ffn(y))\n    return model.generator(y)',
        "the decoder's feed-forward network, sub[2], has no residual"),
    'sqrt(d_model) after the positions': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb.lut(src)) * math.sqrt(model.cfg.d_model)\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb.lut(tgt)) * math.sqrt(model.cfg.d_model)\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        'the sqrt(d_model) multiplies the positions too'),
    '(a variant) on the source side alone': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb.lut(src)) * math.sqrt(model.cfg.d_model)\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        '(E x + PE) · sqrt(d_model)'),
    'the logits times sqrt(d_model)': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y) * math.sqrt(model.cfg.d_model)',
        'your logits are 5.657 = sqrt(d_model) times model.generator(y)'),
    '(a variant) the logits over sqrt(d_model)': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y) / math.sqrt(model.cfg.d_model)',
        '= 1/sqrt(d_model) times model.generator(y)'),
    'a causal mask without its diagonal': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n    T = tgt.shape[1]\n    tm = pad_mask(tgt) & torch.ones(T, T, dtype=torch.bool).tril(-1)\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        "the decoder's causal mask hides each position from itself too"),
    '(a variant) triu for the hidden part, diagonal included': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n    T = tgt.shape[1]\n    tm = pad_mask(tgt) & ~torch.ones(T, T, dtype=torch.bool).triu()\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        'hides each position from itself too'),
    "the logits zeroed at the target's pads": ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y).masked_fill((tgt == PAD_ID)[..., None], 0.0)',
        "only at the target's padded positions (zeroed there)"),
    '(a variant) -inf at the pads': ('my_forward', "\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y).masked_fill((tgt == PAD_ID)[..., None], float('-inf'))",
        "only at the target's padded positions (-inf there)"),
    'F.dropout on the embedding sums in eval': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = F.dropout(model.src_pos(model.src_emb(src)), 0.1)\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = F.dropout(model.tgt_pos(model.tgt_emb(tgt)), 0.1)\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        'your logits change from one call to the next on the same batch, in eval mode'),
    '(a variant) an nn.Dropout made in my_forward': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n    drop = nn.Dropout(0.1)\n    z = drop(model.src_pos(model.src_emb(src)))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = drop(model.tgt_pos(model.tgt_emb(tgt)))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        'a dropout that does not follow model.eval()'),
    'the cross-attention through self_attn': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.self_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.self_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        'the encoder-decoder attention calls l.self_attn'),
    '(a variant) the self-attention through cross_attn': ('my_forward', '\ndef my_forward(model, src, tgt):\n    sm, tm = pad_mask(src), make_tgt_mask(tgt)\n\n    z = model.src_pos(model.src_emb(src))\n    for l in model.encoder:\n        z = l.sub[0].norm(z + l.self_attn(z, mask=sm))\n        z = l.sub[1].norm(z + l.ffn(z))\n    y = model.tgt_pos(model.tgt_emb(tgt))\n    for l in model.decoder:\n        y = l.sub[0].norm(y + l.cross_attn(y, mask=tm))\n        y = l.sub[1].norm(y + l.cross_attn(y, z, mask=sm))\n        y = l.sub[2].norm(y + l.ffn(y))\n    return model.generator(y)',
        "the decoder's self-attention calls l.cross_attn"),
    "counted without the linear layers' biases": ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * d * d\n    ffn = 2 * d * d_ff\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        'exactly without the biases of all the linear layers'),
    '(a variant) the attention biases alone left out': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * d * d\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        'exactly without the biases of the 12 attention blocks, 4 d_model each'),
    'each decoder layer counted as an encoder layer': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * (d * d + d)\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, attn + ffn + 2 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        "exactly without the decoder layers' encoder-decoder attention and its LayerNorm, 4 of each"),
    '(a variant) the cross-attention left out, its LayerNorm kept': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * (d * d + d)\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, attn + ffn + 3 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        "exactly without the decoder layers' encoder-decoder attention, 4 blocks"),
    'the FFN counted as one layer': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * (d * d + d)\n    ffn = d * d_ff + d_ff\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        'each FFN counted with one layer, W_1 and b_1, and W_2 and b_2 left out'),
    'W^O left out': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 3 * (d * d + d)\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        'exactly without the output projection W^O and its bias in all 12 attention blocks'),
    '(a variant) W^O left out, its bias counted': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 3 * d * d + 4 * d\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        'exactly without the output projection W^O of all 12 attention blocks, d_model² each'),
    "each LayerNorm's gain alone": ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * (d * d + d)\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = N * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        'exactly without the bias (or the gain) of all 20 LayerNorms'),
    'a 6-layer decoder': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * (d * d + d)\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = N * enc + 6 * dec + V * d\n    return tied, tied + 2 * V * d',
        'exactly 2 more decoder layers: N = 6 in the decoder'),
    '(a variant) a 6-layer encoder': ('parsing_counts', '\ndef parsing_counts():\n    V, d, d_ff, N = 16000, 1024, 2048, 4\n    attn = 4 * (d * d + d)\n    ffn = 2 * d * d_ff + d_ff + d\n    ln = 2 * d\n    enc, dec = attn + ffn + 2 * ln, 2 * attn + ffn + 3 * ln\n    tied = 6 * enc + N * dec + V * d\n    return tied, tied + 2 * V * d',
        'exactly 2 more encoder layers: N = 6 in the encoder'),
    "nn.Transformer's final norms": ('parsing_counts', "\ndef parsing_counts():\n    V, d = 16000, 1024\n    with torch.device('meta'):\n        core = nn.Transformer(d_model=d, nhead=8, num_encoder_layers=4, num_decoder_layers=4, dim_feedforward=2048)\n    tied = sum(p.numel() for p in core.parameters()) + V * d\n    return tied, tied + 2 * V * d",
        "exactly the final LayerNorm of each stack (nn.Transformer's encoder.norm and decoder.norm"),
}

@pytest.mark.parametrize('label', list(_T37))
def test_the_thirty_seventh_sets_misses_are_named(label):
    import re, torch
    ex, src, says = _T37[label]
    ns = {}
    exec(_T37_PRELUDE, ns); exec(src, ns)
    run = {'MySublayer': lambda ns: _t37_check_sublayer(ns['MySublayer']), 'my_forward': lambda ns: _t37_check_forward(ns['my_forward']), 'parsing_counts': lambda ns: _t37_check_parsing_counts(ns['parsing_counts'])}[ex]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try: _t37_rejects(lambda: run(ns), says=re.escape(says))
    finally: torch.set_default_dtype(dtype); torch.set_grad_enabled(grad)   # an answer that changes them must not change the next test


# ---------------------------------------------------------------- the comparisons' tolerance: the rounding of the sub-layer's own sums, on any CPU
def test_sublayer_computed_in_float64_passes_and_a_float16_norm_is_refused(capsys):
    "The sub-layer's outputs (f(x) = 0, and two sub-layers against nn.TransformerEncoderLayer) are compared at the rounding of the "
    "norm's and the layer's additions: the sum normalised in float64, cast back, passes; the nearest wrong answer, the norm in float16, is refused."
    base = namespace(NB, 'b6d0a004')['MySublayer']
    def norm_in(dtype):
        def forward(s, x, f):
            t = (x + s.drop(f(x))).to(dtype)
            return F.layer_norm(t, t.shape[-1:], s.norm.weight.to(dtype), s.norm.bias.to(dtype), s.norm.eps).to(x.dtype)
        return forward
    assert verdict(check_sublayer, type('MySublayer', (base,), {'forward': norm_in(torch.float64)}), capsys=capsys) == \
        (True, "MySublayer is the paper's post-LN sub-layer\n")
    assert_named(check_sublayer, type('Half', (base,), {'forward': norm_in(torch.float16)}), says="^Not yet: f\\(x\\) = 2x: the output is not LayerNorm", capsys=capsys)
