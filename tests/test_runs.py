"""The run folder (A10_runs): one claim for a run, and a log that survives a cut line."""
import warnings
import pytest
from transformer_nb.runs import RunFolder

def test_a_cut_last_line_does_not_swallow_the_next_record(tmp_path):
    "A disk that filled up mid-record leaves the log's last line cut: the next record starts on a line of its own."
    run = RunFolder(tmp_path)
    run.log.write_text('{"valid": {"step": 4, "loss": 1.5}}\n{"valid": {"step": 8, "lo')
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter('always')
        run.append_log({'valid': {'step': 12}})
        records = run.read_log()
    assert records == [{'valid': {'step': 4, 'loss': 1.5}}, {'valid': {'step': 12}}]
    assert any('its last line was cut' in str(w.message) for w in said), [str(w.message) for w in said]

def test_the_log_reader_says_how_many_lines_it_skipped(tmp_path):
    run = RunFolder(tmp_path)
    run.log.write_text('{"valid": {"step": 4}}\nnot json\n{"valid": {"step": 8}}\n{"cut\n')
    with pytest.warns(UserWarning, match=r"2 line\(s\) that are not JSON records skipped \(line 2, 4\)"):
        assert run.read_log() == [{'valid': {'step': 4}}, {'valid': {'step': 8}}]

def test_a_resume_trims_the_log_past_its_checkpoint(tmp_path):
    "A run killed after validating at update 12 and resumed from its checkpoint of update 8 writes those records again."
    run = RunFolder(tmp_path)
    for s in (4, 8): run.checkpoint(s).write_bytes(b'w')
    for s in (4, 8, 12): run.append_log({'valid': {'step': s}})
    said = []
    with run.claim(8, run.checkpoint(8), say=said.append): pass
    assert run.read_log() == [{'valid': {'step': 4}}, {'valid': {'step': 8}}] and 'removed 1 record(s) of updates past 8' in said[0]

def test_claim_refuses_another_runs_files_and_overwrite_deletes_them(tmp_path):
    from transformer_nb.runs import RunConflict
    run = RunFolder(tmp_path)
    run.checkpoint(10).write_bytes(b'w')
    with pytest.raises(RunConflict, match="holds another run's files") as e:
        with run.claim(): pass
    assert e.value.files == [run.checkpoint(10)] and not e.value.later
    said = []
    with run.claim(overwrite=True, say=said.append):
        with run.claim(): pass                                    # re-entrant: tnb-train claims, then fit
    assert not run.checkpoint(10).exists() and said and 'deleted 1 file(s)' in said[0]
