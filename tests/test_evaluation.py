"`scoring` (lib_scoring: what the tools run for 11_results and 12_variations) and `Task.score`: the decoding passed whole, the inputs checked at the entry, what the scoring functions refuse and what their records say."
import math
import pytest
import torch
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.lib.tokens import StoredTokenizer
from transformer_nb.lib.options import Decoding
from transformer_nb.lib.options import DecodeOptions
FP32 = DecodeOptions(precision='fp32')
from transformer_nb.lib.fast_decoding import translate
from transformer_nb.lib.scoring import evaluate
from transformer_nb.apps.tasks import Task
import re

torch.set_num_threads(1)

@pytest.fixture(scope='module')
def tok(): return StoredTokenizer.train(['one two three four', 'eins zwei drei vier', 'two three', 'zwei drei'] * 10, vocab_size=30)

@pytest.fixture(scope='module')
def model(tok):
    torch.manual_seed(0)
    return build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()   # untrained: runs to the cap

PAIRS = [('one two', 'eins zwei'), ('three four two', 'drei vier zwei'), ('four', 'vier')] * 4

def test_task_score_honours_every_decoding_setting(model, tok):
    "`Task.score` decodes with each field of the `Decoding` it is given: beam, alpha, stop and the length cap max_extra."
    srcs, pieces = [s for s, _ in PAIRS], {}
    for extra in (0, 40):
        d = Decoding(beam=1, max_extra=extra)
        scores, hyps = Task().score(model, tok, PAIRS, d, FP32)
        assert hyps == translate(model, tok, srcs, beam=1, max_extra=extra, precision='fp32'), extra
        pieces[extra] = sum(len(tok.encode(h)) for h in hyps)
    assert pieces[0] < pieces[40], pieces                                  # an untrained model's outputs run to the cap
    scores, hyps = Task().score(model, tok, PAIRS, Decoding(beam=3, alpha=0.2, max_extra=2, stop='early'), FP32)
    assert (scores['beam'], scores['alpha'], scores['stop']) == (3, 0.2, 'early')
    assert hyps == translate(model, tok, srcs, beam=3, alpha=0.2, max_extra=2, stop='early', precision='fp32')

def test_evaluate_takes_the_decoding_whole(model, tok):
    d = Decoding(beam=2, alpha=0.0, max_extra=3)
    assert evaluate(model, tok, PAIRS, d, FP32) == evaluate(model, tok, PAIRS, Decoding().but(beam=2, alpha=0.0, max_extra=3), FP32)
    assert evaluate(model, tok, PAIRS, d, FP32)[1] == translate(model, tok, [s for s, _ in PAIRS], d, FP32)
    assert translate(model, tok, ['one'], d, beam=1, precision='fp32') == translate(model, tok, ['one'], beam=1, max_extra=3, precision='fp32')

@pytest.mark.parametrize('bad,says', [
    (dict(max_tokens=float('nan')), 'max_tokens=nan must be an int in [1, 100000000]'),
    (dict(max_tokens=2.5), 'max_tokens=2.5 must be an int in [1, 100000000]'),
    (dict(max_tokens=True), 'max_tokens=True must be an int in [1, 100000000]'),
    (dict(max_src_len=math.inf), 'max_src_len=inf must be an int in [2, 1000000]'),
    (dict(precision='fp8'), "precision='fp8' must be 'auto', 'fp32', 'bf16' or 'fp16'"),
    (dict(precision=''), "precision='' must be 'auto'"),
    (dict(device='gpu'), "device='gpu' must be a device"),
    (dict(device=1.5), "device=1.5 must be a device"),
    (dict(beam=1, stop='early'), "stop='early' is a rule of beam search, and beam=1 is greedy decoding"),
], ids=lambda x: str(x) if isinstance(x, dict) else '')
def test_translate_checks_its_inputs_at_the_entry(model, tok, bad, says):
    "Each input of `translate` checked before any decoding, in one line that names it as the caller wrote it."
    with pytest.raises(ValueError, match=f'^{__import__("re").escape(says)}') as e: translate(model, tok, ['one two'], **bad)
    assert '\n' not in str(e.value)

def test_translate_refuses_a_cuda_device_it_lacks(model, tok):
    dev = 'cuda:99' if torch.cuda.is_available() else 'cuda'
    with pytest.raises(ValueError, match=f"device='{dev}'") as e: translate(model, tok, ['one'], device=dev)
    assert '\n' not in str(e.value)

def test_beam_wider_than_the_vocabulary(model, tok):
    with pytest.raises(ValueError, match=f'beam={tok.vocab_size + 1} is more than the target vocabulary of {tok.vocab_size} pieces'):
        translate(model, tok, ['one'], beam=tok.vocab_size + 1)
    with pytest.raises(TypeError, match='decoding=4 must be a Decoding'): translate(model, tok, ['one'], 4)


def test_evaluate_refuses_non_pairs():
    with pytest.raises(ValueError, match='list of .source, reference. pairs'): evaluate(None, None, 'a sentence')
    with pytest.raises(ValueError, match=r'pairs\[1\] is not a \(source, reference\) pair'): evaluate(None, None, [('a', 'b'), 'c'])


@pytest.mark.parametrize('which, says', [
    ('model', 'model must be a Transformer (a torch.nn.Module), got a NoneType'),
    ('tokenizer', 'tokenizer must have encode and decode (a Tokenizer), got a NoneType'),
    ('sentences', 'sentences must be a list of sentences (str), got a NoneType'),
])
def test_translate_names_a_missing_argument(model, tok, which, says):
    args = {'model': model, 'tokenizer': tok, 'sentences': ['one two'], which: None}
    with pytest.raises(TypeError) as e: translate(**args)
    assert str(e.value).startswith(says), str(e.value)
    if which == 'sentences': return
    with pytest.raises(TypeError) as e: evaluate(args['model'], args['tokenizer'], PAIRS)
    assert str(e.value).startswith(says), str(e.value)


# --- every public function of `scoring` refuses nonsense at its entry, in one line naming the argument ---

def test_sentence_maps_are_12s_and_keep_the_models_mode(model, tok):
    "`sentence_maps` gives 12's `attention_maps` of the pair, bit for bit, and leaves the model in the mode it found (12's leaves it in eval)."
    from transformer_nb.core import BOS_ID, EOS_ID
    from transformer_nb.variations import attention_maps
    from transformer_nb.lib.scoring import sentence_maps
    src = torch.tensor([tok.encode('one two') + [EOS_ID]]); tgt = torch.tensor([[BOS_ID] + tok.encode('eins zwei')])
    theirs = attention_maps(model, src, tgt)
    was = model.training
    try:
        for mode in (True, False):
            ours, _ = sentence_maps(model.train(mode), tok, 'one two', 'eins zwei')
            assert model.training is mode
            assert list(ours) == list(theirs)
            for k in ours: assert all(torch.equal(a, b[0]) for a, b in zip(ours[k], theirs[k], strict=True))
        attention_maps(model.train(), src, tgt)
        assert model.training is False
    finally: model.train(was)

def test_length_batches_checks_the_lengths():
    from transformer_nb.lib.fast_decoding import length_batches
    with pytest.raises(TypeError, match=r"^lengths must be a list of token counts \(ints\), got a str: 'abc'$"): length_batches('abc')
    for bad, i in (([3, -1], 1), ([0], 0), ([2, 1.5], 1), ([None], 0)):                         # [3, -1] was batched
        with pytest.raises(ValueError, match=rf"^lengths\[{i}\]={re.escape(repr(bad[i]))} must be an int >= 1"): length_batches(bad)
    assert length_batches([]) == []

def test_long_sources_and_source_limits_check_their_inputs(model, tok):
    from transformer_nb.lib.fast_decoding import long_sources, _source_limits
    with pytest.raises(TypeError, match='^tokenizer must have encode and decode'): long_sources(None, ['one'], 10)
    with pytest.raises(TypeError, match='^sentences must be a list of sentences, got one str'): long_sources(tok, 'one two', 10)
    with pytest.raises(TypeError, match=r'^sentences must be a list of sentences \(str\), got a NoneType'): long_sources(tok, None, 10)
    with pytest.raises(TypeError, match=r'^model must be a Transformer \(a torch.nn.Module\), got a NoneType'): _source_limits(None)

def test_evaluate_refuses_pairs_that_are_no_list():
    with pytest.raises(ValueError, match='^evaluate needs a list of .source, reference. pairs, got a float'): evaluate(None, None, float('nan'))

def test_table3_functions_check_the_records_and_the_base():
    from transformer_nb.lib.scoring import table3_table, plot_table3
    from transformer_nb.lib.options import PRESETS
    with pytest.raises(TypeError, match=r"^recs must be a list of Table 3 records \(dicts"): table3_table('x', {})
    base = [dict(id='base', variant='base', overrides={}, seed=0, params=1, valid_ppl=2.0, bleu=30.0)]
    with pytest.raises(TypeError, match=r"^base must be a model preset \(a dict such as PRESETS\['small'\]\), got \{\} \(it lacks d_model, h, N, d_ff\)"):
        table3_table(base, {})
    with pytest.raises(TypeError, match=r"^base must be a model preset"): plot_table3(base, 'small')
    with pytest.raises(ValueError, match=r"^recs\[0\] \(base\) lacks 'bleu': not a Table 3 record"):
        table3_table([dict(id='base', variant='base', overrides={}, seed=0, params=1, valid_ppl=2.0)], PRESETS['small'])
    with pytest.raises(ValueError, match="no 'base' run"): plot_table3([], PRESETS['small'])

def test_attention_functions_check_model_tokenizer_and_text(model, tok):
    from transformer_nb.lib.scoring import sentence_maps, _attention_record
    says = r'^model must be a Transformer \(a torch.nn.Module\), got a NoneType$'
    with pytest.raises(TypeError, match=says): sentence_maps(None, tok, 'one', 'eins')
    with pytest.raises(TypeError, match=says): _attention_record(None, tok, ['one'])
    with pytest.raises(TypeError, match='^tokenizer must have encode and decode'): sentence_maps(model, None, 'one', 'eins')
    with pytest.raises(TypeError, match=r'^src_text must be a sentence \(a str\), got a list'): sentence_maps(model, tok, [], 'eins')   # was accepted

def test_load_attention_names_a_bad_path_or_file(tmp_path):
    from transformer_nb.lib.scoring import load_attention
    with pytest.raises(TypeError, match=r"^path must be a file's path, got a NoneType$"): load_attention(None)
    (tmp_path / 'a.json').write_text('{"sentences": [')
    with pytest.raises(ValueError, match=r'a\.json is not an attention file \(not JSON text'): load_attention(tmp_path / 'a.json')
    (tmp_path / 'b.json').write_text('[1, 2]')
    with pytest.raises(ValueError, match=r'b\.json is not an attention file: `python experiments/attention_maps.py` writes one'):
        load_attention(tmp_path / 'b.json')
