"""The proof that 06_model's exercises are right, away from the learner: `check_sublayer` passes the printed solution,
reports the unwritten stub as not written, and fails every wrong variant with a message naming the case; exercise 2's
check (`check_forward`) reports the stub, passes its solution and names what a wrong `my_forward` gets wrong; the "break it" exercise, applied to the code,
makes exactly the checks its solution names fail."""
import pytest
import torch.nn.functional as F
from nbtools import assert_break_it, assert_rejects, _body, cells, code_blocks, namespace, run_check

NB = '06_model'

def test_sublayer_solution_passes_and_stub_is_reported(capsys):
    ns = namespace(NB, 'b6d0a002', 'b6d0a004')
    assert ns['check_sublayer'](ns['MySublayer']) is True
    stub = namespace(NB, 'b6d0a002', _body(cells(NB)['b6d0a003'][1]).split('\ncheck_sublayer')[0])
    assert stub['check_sublayer'](stub['MySublayer']) is False
    assert 'is not written yet' in capsys.readouterr().out

WRONG = {   # forward(s, x, f) of a wrong sub-layer -> what the check's message must say
    'pre-LN':             (lambda s, x, f: x + s.drop(f(s.norm(x))), 'but x \\+ f\\(LayerNorm\\(x\\)\\), pre-LN'),
    'norm of the branch': (lambda s, x, f: x + s.norm(s.drop(f(x))), 'but x \\+ LayerNorm\\(f\\(x\\)\\)'),
    'no residual':        (lambda s, x, f: s.norm(s.drop(f(x))), 'but LayerNorm\\(f\\(x\\)\\), with no residual'),
    'dropout on the sum': (lambda s, x, f: s.norm(s.drop(x + f(x))), 'the dropout acts on f\\(x\\) only'),
    'dropout last':       (lambda s, x, f: s.drop(s.norm(x + f(x))), 'the dropout acts on f\\(x\\) only'),
    'no dropout':         (lambda s, x, f: s.norm(x + f(x)), 'where is the dropout'),
    'returns nothing':    (lambda s, x, f: None, 'must return a tensor shaped like x'),
    'gain and bias unused': (lambda s, x, f: F.layer_norm(x + s.drop(f(x)), x.shape[-1:]), "without the LayerNorm's gain and bias: normalise with your nn.LayerNorm"),
    'two norms':          (lambda s, x, f: s.norm(x + s.drop(f(s.norm(x)))), 'LayerNorm\\(x \\+ f\\(x\\)\\): add x'),
}

@pytest.mark.parametrize('name', WRONG)
def test_sublayer_wrong_answers_are_named(name):
    fwd, says = WRONG[name]
    ns = namespace(NB, 'b6d0a002', 'b6d0a004')
    assert_rejects(ns['check_sublayer'], type(name, (ns['MySublayer'],), {'forward': fwd}), says=says)

def _forward_check():
    ns = namespace(NB, 'cd986a1d', 'b67ef6b1', '85fcd006', 'ad5109b1', '7a34aa08', '0a73f877', 'a06e0001', 'a06e0002',
                   '88eb653a', "tiny = get_config('tiny', src_vocab=50, tgt_vocab=50)", '67d67f6c', 'a06e0011')
    return ns, "assert check_forward(my_forward) is True", code_blocks(NB, 'a06e0013')[0]

def test_my_forward_stub_is_reported(capsys):
    ns = _forward_check()[0]
    exec(_body(cells(NB)['a06e0012'][1]), ns)
    assert 'my_forward is not written yet' in capsys.readouterr().out

def test_my_forward_solution_passes(capsys):
    run_check(*_forward_check())
    assert 'post-LN and pre-LN' in capsys.readouterr().out

SUB = "return x + f(norm(x)) if pre else norm(x + f(x))"
@pytest.mark.parametrize('old, new, says', [
    (SUB, "return norm(x + f(x))", r"pre-LN: my_forward.*: your sub-layers are post-LN, LayerNorm\(x \+ f\(x\)\); with model.cfg.norm_first"),
    (SUB, "return x + f(norm(x))", r"post-LN: my_forward.*: your sub-layers are pre-LN, x \+ f\(LayerNorm\(x\)\); the paper's"),
    ("z = model.enc_norm(x)", "z = x", r"pre-LN: my_forward.*: pre-LN ends the encoder with model.enc_norm"),
    ("return model.generator(model.dec_norm(y))", "return model.generator(y)", r"pre-LN: my_forward.*: pre-LN ends the decoder with model.dec_norm"),
    ("lambda t: l.self_attn(t, mask=tgt_mask)", "lambda t: l.self_attn(t)", r"post-LN: my_forward.*: the future leaks"),
    ("lambda t: l.self_attn(t, mask=src_mask)", "lambda t: l.self_attn(t)", r"post-LN: my_forward.*: padding leaks"),
    ("return model.generator(model.dec_norm(y))", "return model.dec_norm(y)", r"post-LN: my_forward must return the logits, shape \(4, 7, 50\)"),
    ("x = model.src_pos(model.src_emb(src))", "x = model.src_emb.lut(src)", r"post-LN: my_forward.*: write each sub-layer"),
])
def test_my_forward_wrong_answers_are_named(old, new, says):
    run_check(*_forward_check(), old, new, says)

PARITY, COUNTS = '67d67f6c', 'df36e9cf'

def test_break_it_1_no_final_norm_in_pre_ln():
    parity = 'tests/test_model.py::test_parity_with_nn_transformer'
    assert_break_it(NB, '0a73f877', "self.enc_norm = nn.LayerNorm(d) if cfg.norm_first else nn.Identity()",
                    "self.enc_norm = nn.Identity()", 'model', [parity], prose=False, fail_cells={PARITY, COUNTS}, fail_tests={parity})
