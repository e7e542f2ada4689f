"""The fast decoders' speed-ups (A10_fast_decoding): each can be turned off through `Speedups`, and none changes a result;
and the translation of a stream names a few unknown lines, then counts the rest."""
import dataclasses, warnings
import pytest
import torch
from transformer_nb.core import PAD_ID, EOS_ID
from transformer_nb.model import Transformer, get_config
from transformer_nb.decoding import cached_greedy_decode, cached_beam_search, Decoding
from transformer_nb.data import Tokenizer
from transformer_nb.fast_decoding import fast_beam_search, FastCache, Speedups, translate_batches
from transformer_nb.options import DecodeOptions

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
    assert best(fast_beam_search(model, src, d, speedups=off)) == best(cached_beam_search(model, src, 3, max_extra=6))
    assert cached_greedy_decode(model, src, 6, cache=FastCache(model.cfg.N, off)) == cached_greedy_decode(model, src, 6)

def test_speedups_are_checked(model):
    with pytest.raises(ValueError, match='not both'): Speedups(one_token_step=False, grouped_cross=False)
    with pytest.raises(TypeError, match='speedups=1 must be a Speedups'): fast_beam_search(model, batch(vocab=300), speedups=1)

def test_translate_refuses_a_lone_surrogate_in_one_line():
    "A line the CLI refuses as not UTF-8 is refused by the library too, in one line, before any decoding (not pybind11's cast error)."
    from transformer_nb.data import Tokenizer
    from transformer_nb.model import Transformer, get_config
    from transformer_nb.fast_decoding import translate
    tok = Tokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=30)
    m = Transformer(get_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    with pytest.raises(ValueError) as e: translate(m, tok, ['one', '\udcff seven'])
    assert str(e.value) == 'sentences[1] is not valid UTF-8 text'

def test_translate_says_what_it_does_with_a_carriage_return_as_the_command_does():
    "`translate(m, tok, ['seven\\rnine'])` read the '\\r' as a space silently, where tnb-translate says so: the library warns in the same line."
    from transformer_nb.fast_decoding import translate
    tok = Tokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=30)
    m = Transformer(get_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter('always')
        out = translate(m, tok, ['one', 'one\rtwo', 'two\x1b'], beam=1)
    assert len(out) == 3 and out[1] == translate(m, tok, ['one two'], beam=1)[0]
    assert [str(w.message) for w in said] == ["sentences[1] holds control characters (\\r): each is read as a space, here and in any "
                                              "later line, so that every line in gives one line out"]
    assert said[0].filename == __file__                                 # pointed at the caller's line

def test_the_beam_size_is_checked_once_per_translate(monkeypatch):
    "translate checks its Decoding once at its entry and passes it down whole: one vocabulary check, no Decoding rebuilt."
    import transformer_nb.decoding as dec, transformer_nb.fast_decoding as fd
    from transformer_nb.data import Tokenizer
    from transformer_nb.model import Transformer, get_config
    tok = Tokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=30)
    m = Transformer(get_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    d = dec.Decoding(beam=3)
    calls = {'fits': 0, 'decoding': 0}
    fits, whole = fd.check_beam_fits, dec.Decoding.__post_init__
    monkeypatch.setattr(fd, 'check_beam_fits', lambda *a: (calls.__setitem__('fits', calls['fits'] + 1), fits(*a))[1])
    monkeypatch.setattr(dec.Decoding, '__post_init__', lambda *a: (calls.__setitem__('decoding', calls['decoding'] + 1), whole(*a))[1])
    fd.translate(m, tok, ['one two', 'three', 'two one'], d, max_tokens=4)
    assert calls == {'fits': 1, 'decoding': 0}

# The translation of a stream, as tnb-translate runs it.
class EveryLine:
    "A task that cannot know any line (as a model whose tokenizer lacks a piece of each)."
    def input_problems(self, tok, lines, src_lang=None): return [(i, "'z' unknown to the model's tokenizer") for i in range(len(lines))]

def test_unknown_lines_are_named_a_few_then_counted():
    "3,000 lines the model cannot know give a few warnings that name them and one line that counts the rest, not 3,000."
    torch.manual_seed(0)
    tok = Tokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=20)
    model = Transformer(get_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    batches = [['one'] * 1000] * 3
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        outs = [o for b in translate_batches(model, tok, Decoding(beam=1, max_extra=0), batches, lambda i: f"line {i + 1}", DecodeOptions(max_tokens=1000),
                                             problems=EveryLine().input_problems) for o in b]
    assert len(outs) == 3000
    said = [str(x.message) for x in w]
    assert 2 <= len(said) <= 11, len(said)
    assert said[0].startswith("line 1: 'one': ") and said[-1].startswith(f"{3000 - len(said) + 1:,} more"), said
