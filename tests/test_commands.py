"The commands' shared parts (A12_commands)."
import warnings
import torch
from transformer_nb.model import Transformer, get_config
from transformer_nb.data import Tokenizer
from transformer_nb.decoding import Decoding
from transformer_nb.commands import translate_batches

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
        outs = [o for b in translate_batches(model, tok, {}, EveryLine(), Decoding(beam=1, max_extra=0), batches,
                                             lambda i: f"line {i + 1}", 1000) for o in b]
    assert len(outs) == 3000
    said = [str(x.message) for x in w]
    assert 2 <= len(said) <= 11, len(said)
    assert said[0].startswith("line 1: 'one': ") and said[-1].startswith(f"{3000 - len(said) + 1:,} more"), said
