"""Reading a command's sentences (lib_text_io): standard input through a descriptor of its own. The rest of the module is
tested beside its code in the notebook; tnb-translate's refusal of a stream at its first line, which used to abort at
exit, is a case of tests/test_user_walk.py (a-100k-character-line)."""
import contextlib, os, sys
from transformer_nb.lib.textio import sentence_batches

def test_standard_input_is_read_through_a_descriptor_of_its_own(monkeypatch):
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
