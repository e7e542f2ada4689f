"""The fast decoders' speed-ups (lib_fast_decoding): each can be turned off through `Speedups`, and none changes a result;
and the translation of a stream names a few unknown lines, then counts the rest."""
import dataclasses, warnings
import pytest
import torch
from transformer_nb.core import PAD_ID, EOS_ID
from transformer_nb.lib.transformer import build_model
from transformer_nb.lib.options import get_model_config
from transformer_nb.decoding import greedy_decode, beam_search
from transformer_nb.lib.tokens import StoredTokenizer
from transformer_nb.lib.fast_decoding import greedy_decode_batch, beam_search_batch, Speedups, _translate_batches
from transformer_nb.lib.options import Decoding, DecodeOptions

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
    return build_model(get_model_config('tiny', src_vocab=300, tgt_vocab=300, norm_first=True)).eval()   # 300 > 4 chunks of 64

@pytest.mark.parametrize('lever', LEVERS)
def test_each_speedup_off_gives_the_same_translations(model, lever):
    src, off, d = batch(vocab=300), Speedups(**{lever: False}), Decoding(beam=3, max_extra=6)
    best = lambda nbest: [h[0][0] for h in nbest]
    assert best(beam_search_batch(model, src, d, nbest=1, speedups=off)) == best(beam_search_batch(model, src, d, nbest=1))
    assert best(beam_search_batch(model, src, d, speedups=off)) == [beam_search(model, r[r != 0], 3, 0.6, 6)[0][0] for r in src]   # 10's
    assert greedy_decode_batch(model, src, 6, speedups=off) == greedy_decode_batch(model, src, 6) == [greedy_decode(model, r[r != 0], 6) for r in src]

def test_speedups_are_checked(model):
    with pytest.raises(TypeError, match='speedups=1 must be a Speedups'): beam_search_batch(model, batch(vocab=300), speedups=1)

def test_translate_refuses_a_lone_surrogate_in_one_line():
    "A line the CLI refuses as not UTF-8 is refused by the library too, in one line, before any decoding (not pybind11's cast error)."
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    from transformer_nb.lib.fast_decoding import translate
    tok = StoredTokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=30)
    m = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    with pytest.raises(ValueError) as e: translate(m, tok, ['one', '\udcff seven'])
    assert str(e.value) == 'sentences[1] is not valid UTF-8 text'

def test_translate_says_what_it_does_with_a_carriage_return_as_the_command_does():
    "`translate(m, tok, ['seven\\rnine'])` read the '\\r' as a space silently, where tnb-translate says so: the library warns in the same line."
    from transformer_nb.lib.fast_decoding import translate
    tok = StoredTokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=30)
    m = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter('always')
        out = translate(m, tok, ['one', 'one\rtwo', 'two\x1b'], beam=1)
    assert len(out) == 3 and out[1] == translate(m, tok, ['one two'], beam=1)[0]
    assert [str(w.message) for w in said] == ["sentences[1] holds control characters (\\r): each is read as a space, here and in any "
                                              "later line, so that every line in gives one line out"]
    assert said[0].filename == __file__                                 # pointed at the caller's line

def test_the_beam_size_is_checked_once_per_translate(monkeypatch):
    "translate checks its Decoding once at its entry and passes it down whole: one vocabulary check, no Decoding rebuilt."
    import transformer_nb.lib.options as dec, transformer_nb.lib.fast_decoding as fd
    from transformer_nb.lib.tokens import StoredTokenizer
    from transformer_nb.lib.transformer import build_model
    from transformer_nb.lib.options import get_model_config
    tok = StoredTokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=30)
    m = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
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
    tok = StoredTokenizer.train(['one two three', 'eins zwei drei'] * 10, vocab_size=20)
    model = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    batches = [['one'] * 1000] * 3
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        outs = [o for b in _translate_batches(model, tok, Decoding(beam=1, max_extra=0), batches, lambda i: f"line {i + 1}", DecodeOptions(max_tokens=1000),
                                             problems=EveryLine().input_problems) for o in b]
    assert len(outs) == 3000
    said = [str(x.message) for x in w]
    assert 2 <= len(said) <= 11, len(said)
    assert said[0].startswith("line 1: 'one': ") and said[-1].startswith(f"{3000 - len(said) + 1:,} more"), said

# One tokenization per sentence: the length check, the task's unknown-piece check and the decoder share one encode.
class CountedSp:
    "A SentencePiece processor that counts its tokenizations (`encode`, whatever its output type), by text."
    def __init__(self, sp): self.sp, self.texts = sp, []
    def encode(self, text, *a, **k):
        self.texts += [text] if isinstance(text, str) else list(text); return self.sp.encode(text, *a, **k)
    def __getattr__(self, name): return getattr(self.sp, name)

SENTS = ['one two', 'three two one', 'two', 'one two three three', 'eins zwei', 'drei', 'zwei drei eins', 'one three']

def _counted():
    "A tokenizer whose tokenizations are counted, and its model."
    torch.manual_seed(0)
    tok = StoredTokenizer.train(['one two three', 'eins zwei drei', 'two three', 'zwei drei'] * 10, vocab_size=30)
    m = build_model(get_model_config('tiny', src_vocab=tok.vocab_size, tgt_vocab=tok.vocab_size)).eval()
    tok.sp = CountedSp(tok.sp)
    return m, tok

@pytest.mark.parametrize('known', [True, False])   # sentences given at once (checked before decoding), or a stream (checked as they come)
def test_tnb_translate_tokenizes_each_sentence_once(known):
    "The path of tnb-translate (`translate_source` with the task's `input_problems`) encodes each of N sentences once: not to check its length, then its pieces, then to decode it."
    from transformer_nb.lib.fast_decoding import translate_source
    from transformer_nb.apps.tasks import get_task
    m, tok = _counted()
    source = ([SENTS[:3], SENTS[3:]], lambda i: f"sentence {i + 1}", known)
    outs = list(translate_source(m, tok, Decoding(beam=2, max_extra=3), source, DecodeOptions(max_tokens=12, precision='fp32'),
                                 lambda t, lines: get_task('translation').input_problems(t, lines, 'en')))
    assert sum(map(len, outs)) == len(SENTS) and sorted(tok.sp.texts) == sorted(SENTS), tok.sp.texts

def test_translate_and_a_tasks_score_tokenize_each_source_once():
    from transformer_nb.lib.fast_decoding import translate
    from transformer_nb.apps.tasks import get_task
    m, tok = _counted()
    translate(m, tok, SENTS + ['', '  '], beam=2, max_extra=3, max_tokens=12, precision='fp32')
    assert sorted(tok.sp.texts) == sorted(SENTS), tok.sp.texts                 # the empty ones: none
    tok.sp.texts.clear()
    get_task('translation').score(m, tok, [(s, s) for s in SENTS], Decoding(beam=2, max_extra=3), DecodeOptions(precision='fp32'))
    assert sorted(tok.sp.texts) == sorted(SENTS), tok.sp.texts                 # the references are scored as text: not tokenized

def test_a_line_with_an_unknown_piece_is_still_named_once_encoded():
    "Only a line that holds a piece the tokenizer lacks is read as pieces a second time, to name that piece in its warning."
    from transformer_nb.apps.tasks import get_task
    m, tok = _counted()
    got = get_task('translation').input_problems(tok, ['one two', ' one ☃ two '], 'en')
    assert got == [(1, "'☃' unknown to the model's tokenizer (written as ⁇)")], got
    assert tok.sp.texts == ['one two', 'one ☃ two', 'one ☃ two'], tok.sp.texts

@pytest.mark.parametrize('beam', [1, 3])
def test_no_check_runs_per_sentence_or_per_decoding_step(monkeypatch, beam):
    "8 sentences decoded for up to 20 steps call each check as often as 2 for up to 2 steps (one batch each): the checks run once a call, at its entry."
    from test_trainer import count_checks
    from transformer_nb.lib.fast_decoding import translate_source
    from transformer_nb.apps.tasks import get_task
    m, tok = _counted()
    problems = lambda t, lines: get_task('translation').input_problems(t, lines, 'en')
    seen = []
    for n, extra in ((2, 2), (8, 20)):
        calls = count_checks(monkeypatch)
        list(translate_source(m, tok, Decoding(beam=beam, max_extra=extra), ([SENTS[:n]], str, True), DecodeOptions(precision='fp32'), problems))
        monkeypatch.undo(); seen.append(sorted(calls))
    assert seen[0] == seen[1], seen

def test_tnb_evaluate_tokenizes_each_source_once(monkeypatch, tmp_path, capsys):
    "tnb-evaluate checks each source's length and decodes it from one encode; its references are scored as text."
    from transformer_nb.apps.cli import evaluate_main
    texts, real = [], StoredTokenizer.encode
    monkeypatch.setattr(StoredTokenizer, 'encode', lambda self, text: (texts.append(text), real(self, text))[1])
    monkeypatch.setattr(StoredTokenizer, 'pieces', lambda self, text: texts.append(text))
    src = ['seven', 'three hundred', 'forty-two', 'nine', 'twelve']
    (tmp_path / 's').write_text(''.join(s + '\n' for s in src)); (tmp_path / 'r').write_text('sieben\ndreihundert\nzweiundvierzig\nneun\nzwölf\n')
    with pytest.raises(SystemExit) as e:
        evaluate_main(['pretrained:numbers', '--src', str(tmp_path / 's'), '--ref', str(tmp_path / 'r'), '--beam', '1', '--json', '--precision', 'fp32'])
    assert e.value.code in (0, None), capsys.readouterr().err
    assert sorted(texts) == sorted(src), texts

def test_a_copy_of_encoded_once_reads_through_to_its_tokenizer():
    "A copy (made without `__init__`) forwards to the tokenizer it copied, instead of recursing in `__getattr__`."
    import copy
    from transformer_nb.lib.fast_decoding import EncodedOnce
    m, tok = _counted()
    once = EncodedOnce(tok); once.encode('one two')
    c = copy.copy(once)
    assert (c.encode('one two'), c.vocab_size, tok.sp.texts) == (tok.encode('one two'), tok.vocab_size, ['one two', 'one two'])


# ---- one decode: 06's model.decode at every step, 01's attention by name, and never an empty output ----
def test_every_step_runs_the_papers_decode(monkeypatch):
    "Each step of the engine is 06's `Transformer.decode` and `DecoderLayer.forward` (the runtime trace a reviewer takes of tnb-translate)."
    from transformer_nb.model import Transformer, DecoderLayer
    from transformer_nb.apps.pretrained import load_pretrained
    from transformer_nb.lib.fast_decoding import translate
    calls = {'decode': 0, 'layer': 0}
    decode, layer = Transformer.decode, DecoderLayer.forward
    monkeypatch.setattr(Transformer, 'decode', lambda *a, **k: (calls.update(decode=calls['decode'] + 1), decode(*a, **k))[1])
    monkeypatch.setattr(DecoderLayer, 'forward', lambda *a, **k: (calls.update(layer=calls['layer'] + 1), layer(*a, **k))[1])
    model, tok, _ = load_pretrained('numbers')
    out = translate(model, tok, ['three hundred and twelve'], beam=4, precision='fp32')
    assert out[0] and calls['decode'] >= len(tok.encode(out[0])) + 1 and calls['layer'] == model.cfg.N * calls['decode']

@pytest.mark.parametrize('beam', [1, 4])
def test_paper_attention_translates_as_the_fused_kernel(beam):
    "`attention='paper'` (01's attention through 02's layer, `--attention paper`) gives the default's translations, but where float rounding breaks a tie."
    from conftest import differ_beyond_ties
    from transformer_nb.apps.pretrained import load_pretrained
    from transformer_nb.lib.fast_decoding import translate
    from transformer_nb.lib.transformer import FusedAttention
    model, tok, _ = load_pretrained('numbers')
    src = ['three hundred and twelve', 'forty-one', 'nine thousand and six', 'seventy', 'two hundred', 'one million and one']
    fused = translate(model, tok, src, beam=beam, precision='fp32')
    paper = translate(model, tok, src, options=DecodeOptions(attention='paper'), beam=beam, precision='fp32')
    assert all(m.paper for m in model.modules() if isinstance(m, FusedAttention))      # the kernel asked for, by name
    assert not differ_beyond_ties(model.float(), tok, src, fused, paper, beam=beam > 1)
    translate(model, tok, src[:1], beam=beam)                                          # the default again: PyTorch's kernel
    assert not any(m.paper for m in model.modules() if isinstance(m, FusedAttention))

def test_no_search_returns_an_empty_output():
    "A model whose first choice is EOS: 10's plain loops return nothing; the engine's greedy and beam search forbid EOS at"
    " the first step (fairseq's min_len=1), so every output has a token, and the later steps still end where EOS wins."
    torch.manual_seed(0)
    m = build_model(get_model_config('tiny', src_vocab=40, tgt_vocab=40)).eval()
    old = m.generator.proj                                                              # the same weight, and a bias: EOS leads everywhere
    m.generator.proj = torch.nn.Linear(old.in_features, old.out_features); m.generator.proj.weight = old.weight
    with torch.no_grad(): m.generator.proj.bias.zero_(); m.generator.proj.bias[EOS_ID] = 100.0
    src = batch(vocab=40, seed=3)
    assert all(greedy_decode(m, r[r != PAD_ID], 5) == [] for r in src)                 # the readable loop ends at once
    assert all(len(o) == 1 for o in greedy_decode_batch(m, src, 5))                     # one token, then EOS
    nb = beam_search_batch(m, src, Decoding(beam=4, max_extra=5))
    assert all(ids for h in nb for ids, _ in h) and all(len(h[0][0]) == 1 for h in nb)

def test_running_out_of_memory_is_one_line_in_the_library_as_in_the_commands(monkeypatch, capsys):
    "The CPU allocator's raw text (`[enforce fail at alloc_cpu.cpp] ...`) once came out of the library's translate and evaluate; they say it as tnb-translate does."
    import transformer_nb.lib.fast_decoding as FD
    from transformer_nb.lib.checkpoints import model_from_checkpoint
    from transformer_nb.lib.scoring import evaluate
    from transformer_nb.lib.safeguards import UserError
    from transformer_nb.apps.cli import translate_main
    def oom(*a, **k): raise RuntimeError("[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: "
                                         "you tried to allocate 17179869184 bytes. Error code 12 (Cannot allocate memory)")
    monkeypatch.setattr(FD, '_greedy_batch', oom); monkeypatch.setattr(FD, '_beam_batch', oom)
    model, tok, *_ = model_from_checkpoint('pretrained:numbers')
    said = "out of memory: decoding with {} and {} is too large for this machine; it asked for 16.0 GiB at once"
    for call in (lambda: FD.translate(model, tok, ['1 2'], beam=1), lambda: evaluate(model, tok, [('1 2', '1 2')], Decoding(beam=1))):
        with pytest.raises(UserError) as e: call()
        assert str(e.value) == said.format('beam=1', 'max_tokens=4000'), str(e.value)
    with pytest.raises(SystemExit) as e: translate_main(['pretrained:numbers', '--beam', '1', '1 2'])
    err = capsys.readouterr().err
    assert e.value.code == 1 and err.splitlines()[-1] == 'tnb-translate: error: ' + said.format('--beam 1', '--max-tokens 4000'), err
    assert 'alloc_cpu' not in err and 'Traceback' not in err, err

# Reading a command's sentences: standard input through a descriptor of its own. tnb-translate's refusal of a stream at its
# first line, which used to abort at exit, is a case of tests/test_user_walk.py (a-100k-character-line).
def test_standard_input_is_read_through_a_descriptor_of_its_own(monkeypatch):
    import contextlib, os, sys
    from transformer_nb.lib.fast_decoding import sentence_batches
    "Python's shutdown closes sys.stdin while `as_available`'s thread may be reading it (a fatal error, exit -6); a duplicate of its descriptor it never closes."
    r, w = os.pipe(); os.write(w, b'seven\r\nnine\n'); os.close(w)
    stdin = open(r, 'r', encoding='utf-8'); monkeypatch.setattr(sys, 'stdin', stdin)
    dups, real = [], os.dup
    monkeypatch.setattr(os, 'dup', lambda fd: dups.append(fd) or real(fd))
    with contextlib.ExitStack() as opened:
        batches, name, known = sentence_batches([], '-', opened, say=lambda m: None)
        assert [s for b in batches for s in b] == ['seven', 'nine'] and name(1) == 'standard input, line 2' and not known
    assert dups == [r] and not stdin.closed
    stdin.close()
