"""results/checker_answers.json, the checkers measured on wrong answers written from the exercises' text alone: its tables
add up. In each table ('first_run', 'after') the five kinds of verdict add up to the answers, per notebook and in all; the
'all' row is the sum of the notebooks; both tables hold the same answers; and the list of answers gives each table's counts."""
import json
from collections import Counter
from pathlib import Path
import pytest

DATA = json.loads((Path(__file__).parent.parent / 'results' / 'checker_answers.json').read_text())
KINDS = ('named', 'generic', 'misleading', 'passed', 'crashed')
TABLES = ('first_run', 'after')
PAPER = [f'{i:02d}' for i in range(14)]

def test_the_file_says_where_and_when_it_was_measured():
    assert DATA['cpu'] and DATA['date'] and DATA['right_answers'] > 0

@pytest.mark.parametrize('table', TABLES)
def test_every_paper_notebook_has_a_row(table):
    assert sorted(k[:2] for k in DATA[table] if k != 'all') == PAPER

@pytest.mark.parametrize('table', TABLES)
def test_the_kinds_add_up_to_the_answers(table):
    for nb, row in DATA[table].items():
        assert set(row) == {'answers', *KINDS}, nb
        assert sum(row[k] for k in KINDS) == row['answers'], (table, nb)

@pytest.mark.parametrize('table', TABLES)
def test_the_totals_are_the_sums_of_the_notebooks(table):
    rows = [v for k, v in DATA[table].items() if k != 'all']
    assert DATA[table]['all'] == {k: sum(r[k] for r in rows) for k in ('answers', *KINDS)}

def test_both_tables_count_the_same_answers():
    assert {k: v['answers'] for k, v in DATA['first_run'].items()} == {k: v['answers'] for k, v in DATA['after'].items()}

@pytest.mark.parametrize('table', TABLES)
def test_the_list_of_answers_gives_the_tables(table):
    count = Counter((a['notebook'], a[table]) for a in DATA['answers'])
    for nb, row in DATA[table].items():
        if nb == 'all': continue
        assert {k: count[nb, k] for k in KINDS} == {k: row[k] for k in KINDS}, (table, nb)
    assert len(DATA['answers']) == DATA[table]['all']['answers']
