"""One voice on time: each notebook's running time is measured once, into results/notebook_times.json with the machine
that ran it (`python tools/run_notebooks.py --record results/notebook_times.json`), and stated in the same words at
the notebook's top and in its Colab setup cell: `time_phrase(seconds)` in the sentence `TIME_SENTENCE`. After a new
measurement, `python tools/run_notebooks.py --sync-tops` and `python tools/colab.py` write it into both."""
import json, re, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'tools'))
import run_notebooks as rn

NBS = sorted((ROOT / 'nbs').glob('*.ipynb'))
TOP = 12          # the sentence sits in the notebook's opening cells: title, badge, setup, navigation, introduction
NO_TOP = {'index.ipynb'}   # the landing page is read, not run: its Colab cell states its time, its prose the path's

def times() -> dict: return json.loads(rn.TIMES.read_text(encoding='utf-8'))

def problems(cells:list, name:str, t:dict, top:bool=True) -> list[str]:
    """What disagrees between notebook `name`'s cells and the times file `t` (an empty list when all three agree);
    `top=False`: the prose states no time of its own (the landing page)."""
    if name not in t['notebooks']: return [f"{name}: no time in {rn.TIMES.name}: run tools/run_notebooks.py --record"]
    want, out = rn.time_sentence(name, t), []
    text = lambda c: ''.join(c['source'])
    where = [i for i, c in enumerate(cells) if c['cell_type'] == 'markdown' and rn.TIME_RE.search(text(c))]
    found = [m.group(0) for c in cells if c['cell_type'] == 'markdown' for m in rn.TIME_RE.finditer(text(c))]
    if not top:
        if found: out.append(f"{name}: the landing page states its own running time: {found}")
    elif len(found) != 1: out.append(f"{name}: the prose states the running time {len(found)} times, not once")
    elif found[0] != want: out.append(f"{name}: the top says {found[0]!r}, the times file {want!r}")
    elif where[0] >= TOP: out.append(f"{name}: the running time is stated in cell {where[0]}, not at the top")
    setup = next((text(c) for c in cells if c.get('id') == 'colab-setup'), '')
    if want not in setup: out.append(f"{name}: the Colab setup cell does not say {want!r}")
    return out

def test_time_phrase():
    assert [rn.time_phrase(s) for s in (5, 59.9, 60, 89.9, 90, 149, 150, 374)] == [
        'under a minute', 'under a minute', 'about a minute', 'about a minute', 'about 2 minutes', 'about 2 minutes',
        'about 2 minutes', 'about 6 minutes']
    for s in (5, 75, 374, 1250):      # every phrase is one the sentence's pattern finds
        assert rn.TIME_RE.fullmatch(rn.TIME_SENTENCE.format(phrase=rn.time_phrase(s), where='on a quiet 2-core machine'))

def test_the_file_names_its_machine_and_every_notebook():
    t = times()
    m = t['machine']
    assert m['cpu'] and m['cores'] >= 1 and m['torch'] and m['python'] and isinstance(m['isa'], list), m
    for run in t['runs']:
        assert re.fullmatch(r'\d{4}-\d\d-\d\d', run['date']) and 'aten_cpu_capability' in run, run
        assert len(run['load_before']) == 3 and len(run['load_after']) == 3, run
    assert sorted(t['notebooks']) == sorted(p.name for p in NBS), "measure every notebook: tools/run_notebooks.py --record"
    for name, e in t['notebooks'].items(): assert e['seconds'] > 0 and 0 <= e['run'] < len(t['runs']), (name, e)

@pytest.mark.parametrize('p', NBS, ids=lambda p: p.stem)
def test_top_colab_cell_and_file_agree(p):
    assert not problems(json.loads(p.read_text(encoding='utf-8'))['cells'], p.name, times(), p.name not in NO_TOP)

def test_the_agreement_check_can_fail():
    md = lambda s, cid='x': {'cell_type': 'markdown', 'id': cid, 'source': [s]}
    setup = lambda s: {'cell_type': 'code', 'id': 'colab-setup', 'source': [f"print({s!r})"]}
    t = {'machine': {'cores': 2}, 'runs': [{'load_before': [0.3], 'load_after': [0.5]}], 'notebooks': {'a.ipynb': {'seconds': 30, 'run': 0}}}
    ok, two = rn.TIME_SENTENCE.format(phrase='under a minute', where='on a quiet 2-core machine'), rn.TIME_SENTENCE.format(phrase='about 2 minutes', where='on a quiet 2-core machine')
    assert problems([md('# A'), setup(ok), md(f"Intro. {ok}")], 'a.ipynb', t) == []
    assert problems([md('# A'), setup(ok), md(f"Intro. {two}")], 'a.ipynb', t) == [
        f"a.ipynb: the top says {two!r}, the times file {ok!r}"]
    assert problems([md('# A'), setup(two), md(ok)], 'a.ipynb', t) == [f"a.ipynb: the Colab setup cell does not say {ok!r}"]
    assert problems([md('# A'), setup(ok), md(ok), md(ok)], 'a.ipynb', t) == [
        "a.ipynb: the prose states the running time 2 times, not once"]
    assert problems([md('# A'), setup(ok)] + [md('text')] * TOP + [md(ok)], 'a.ipynb', t) == [
        f"a.ipynb: the running time is stated in cell {TOP + 2}, not at the top"]
    assert problems([md('# A')], 'b.ipynb', t)[0].startswith('b.ipynb: no time')
    assert problems([md('# A'), setup(ok)], 'a.ipynb', t, top=False) == []
    assert problems([md('# A'), setup(ok), md(ok)], 'a.ipynb', t, top=False) == [
        f"a.ipynb: the landing page states its own running time: [{ok!r}]"]

def test_sync_tops_rewrites_only_the_time_sentence(tmp_path):
    old = rn.TIME_SENTENCE.format(phrase='about 9 minutes', where='on a quiet 2-core machine')
    nb = {'cells': [{'cell_type': 'markdown', 'id': 'x', 'source': [f"Before. {old} After."]}]}
    (tmp_path / 'a.ipynb').write_text(json.dumps(nb), encoding='utf-8')
    t = {'machine': {'cores': 2}, 'runs': [{'load_before': [0.3], 'load_after': [0.5]}], 'notebooks': {'a.ipynb': {'seconds': 100, 'run': 0}}}
    assert rn.sync_tops(t, tmp_path) == ['a.ipynb']
    cell = json.loads((tmp_path / 'a.ipynb').read_text(encoding='utf-8'))['cells'][0]
    assert ''.join(cell['source']) == f"Before. {rn.TIME_SENTENCE.format(phrase='about 2 minutes', where='on a quiet 2-core machine')} After."
    assert rn.sync_tops(t, tmp_path) == []

def test_the_front_page_shows_the_files_times():
    "index's path table (a stored output, also in README.md) gives each paper notebook's phrase from the file, and the"
    " path's total as wall time and CPU time, on the machine as the file records its load (`where_measured`)."
    cells = json.loads((ROOT / 'nbs' / 'index.ipynb').read_text(encoding='utf-8'))['cells']
    table = next(''.join(c['outputs'][0]['data']['text/markdown']) for c in cells if c.get('id') == '1d3e0a03')
    t = times()
    paper = sorted(p.name for p in (ROOT / 'nbs').glob('[0-9][0-9]_*.ipynb'))
    for name in paper:
        row = next((l for l in table.splitlines() if l.startswith(f"| [{name[:-6]}]")), '')
        assert row.endswith(f"| {rn.time_phrase(t['notebooks'][name]['seconds'])} |"), f"re-run nbs/index.ipynb: {row!r}"
    wall, cpu = (rn.time_phrase(sum(t['notebooks'][n][k] for n in paper)) for k in ('seconds', 'cpu_seconds'))
    said = f"takes {wall} of wall time ({cpu} of CPU time), one notebook at a time {rn.where_measured(t, paper)}."
    assert said in table, "re-run nbs/index.ipynb and tools/make_readme.py"
    assert '| Run All (wall time) |' in table.splitlines()[0]

def test_a_busy_machine_is_never_called_quiet():
    "The machine phrase follows the loads the file records for the notebooks named, before and after each run."
    run = lambda before, after: {'load_before': [before, 1, 1], 'load_after': [after, 1, 1]}
    t = {'machine': {'cores': 2}, 'runs': [run(0.3, 0.5), run(0.4, 3.2), run(4.1, 0.2)],
         'notebooks': {'a': {'run': 0}, 'b': {'run': 1}, 'c': {'run': 2}}}
    assert rn.where_measured(t, ['a']) == 'on a quiet 2-core machine'
    assert rn.where_measured(t, ['a', 'b']) == 'on a 2-core machine shared with other work (load average up to 3.2)'
    assert rn.where_measured(t, ['c']) == 'on a 2-core machine shared with other work (load average up to 4.1)'
    t['runs'][1].update(workers=1, load_after=[1.9, 1, 1])             # one notebook at a time on a machine quiet as it began:
    assert rn.where_measured(t, ['b']) == 'on a quiet 2-core machine'   # the load after is the notebooks' own
    t['runs'][1]['workers'] = 2
    assert rn.where_measured(t, ['b']) == 'on a 2-core machine shared with other work (load average up to 1.9)'
    t['runs'][0]['load_after'] = []                                     # a run with no load recorded is not called quiet
    assert rn.where_measured(t, ['a']) == 'on a 2-core machine whose load was not recorded'

# ---------------------------------------------------------------- beside a laptop's other work
# Each paper notebook caps PyTorch's threads (lib_machine's `notebook_threads`), so that beside two busy processes Run All
# takes at most 3 times as long as without them: both measured one after the other on the same machine, into
# results/notebook_times_busy.json (`tools/run_notebooks.py --busy 2`, see its docstring).
BUSY, SLOWER_MAX = ROOT / 'results' / 'notebook_times_busy.json', 3
PAPER = [p.name for p in NBS if p.name[:2].isdigit()]

def busy_problems(t:dict, names:list=PAPER) -> list[str]:
    "What the busy measurement `t` fails: a notebook of `names` not measured both ways, or more than 3 times slower beside busy processes."
    out = []
    for name in names:
        e = t['notebooks'].get(name, {})
        if 'seconds' not in e or 'busy_seconds' not in e: out.append(f"{name}: not measured both with and without busy processes")
        elif e['busy_seconds'] > SLOWER_MAX * e['seconds']:
            out.append(f"{name}: {e['busy_seconds']:.0f} s beside busy processes, more than {SLOWER_MAX} times its {e['seconds']:.0f} s")
    return out

def test_the_busy_check_can_fail():
    t = {'notebooks': {'a.ipynb': {'seconds': 10, 'busy_seconds': 31}, 'b.ipynb': {'seconds': 10, 'busy_seconds': 30}, 'c.ipynb': {'seconds': 5}}}
    assert busy_problems(t, ['a.ipynb', 'b.ipynb', 'c.ipynb']) == [
        'a.ipynb: 31 s beside busy processes, more than 3 times its 10 s', 'c.ipynb: not measured both with and without busy processes']

def test_paper_notebooks_beside_two_busy_processes_take_at_most_3_times_as_long():
    t = json.loads(BUSY.read_text(encoding='utf-8'))
    assert t['machine']['cpu'] and t['machine']['cores'] >= 1, t['machine']
    busy_runs = {e['busy_run'] for e in t['notebooks'].values() if 'busy_run' in e}
    assert busy_runs and all(t['runs'][i].get('busy') == 2 for i in busy_runs), "measured beside two busy processes"
    assert not busy_problems(t)

def test_record_adds_a_busy_run_to_each_entry(tmp_path):
    path, run = tmp_path / 'times.json', dict(date='2026-01-01', workers=1, load_before=[0.1] * 3, load_after=[0.2] * 3)
    rn.record(path, [dict(notebook='a.ipynb', status='ok', seconds=10.0, cpu=9.0)], run)
    rn.record(path, [dict(notebook='a.ipynb', status='ok', seconds=25.0, cpu=9.5), dict(notebook='b.ipynb', status='error', seconds=1.0, cpu=1.0)],
              dict(run, busy=2))
    t = json.loads(path.read_text(encoding='utf-8'))
    assert t['notebooks'] == {'a.ipynb': dict(seconds=10.0, cpu_seconds=9.0, run=0, busy_seconds=25.0, busy_cpu_seconds=9.5, busy_run=1)}
    assert [r.get('busy') for r in t['runs']] == [None, 2] and t['runs'][1]['notebooks'] == ['a.ipynb']
