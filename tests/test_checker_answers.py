"""results/checker_answers.json, the checkers measured on wrong answers written from the exercises' text alone: its tables
add up. The file holds sixteen measurements, the first at its top level, a second, with answers written apart from the
first, under 'second', a third, written blind once the checkers named mistakes by property, under 'third', a fourth,
written blind once more after the checkers were improved again, under 'fourth', and a fifth, written blind after a
further improvement, under 'fifth', a sixth, written blind after one more, under 'sixth', a seventh and an eighth, written blind and apart by two writers
once the checkers had been improved five times, under 'seventh' and 'eighth', a ninth and a tenth, written blind and apart by two
more writers once the checkers had been improved six times, under 'ninth' and 'tenth', and an eleventh and a twelfth, written
blind and apart by two more writers once the checkers had been improved eight times, under 'eleventh' and 'twelfth', and a
thirteenth, written blind by one more writer after the twelfth's fixes, under 'thirteenth', a fourteenth, written blind by one
more writer after the thirteenth's fixes, under 'fourteenth', a fifteenth, written blind by one more writer after the
fourteenth's fixes, under 'fifteenth', and a sixteenth, written blind by one more writer after the fifteenth's fixes, under
'sixteenth'; a seventeenth and an eighteenth, written blind by two more writers after the sixteenth's fixes for notebooks
00 to 07 and 08 to 14 alone, under 'seventeenth' and 'eighteenth', have rows for those notebooks only (PART); so have a
nineteenth and a twentieth, written blind by two more writers after their fixes for notebooks 00 to 07 and 08 to 14 alone,
under 'nineteenth' and 'twentieth', and a twenty-first, written blind by one more writer after the nineteenth's fixes for
notebooks 00 to 07 alone, under 'twenty-first', and a twenty-second, written blind by one more writer after the twentieth's
fixes for notebooks 08 to 14 alone, under 'twenty-second', and a twenty-third, written blind by one more writer after the
twenty-first's fixes for notebooks 00 to 07 alone, under 'twenty-third', a twenty-fourth, written blind by one more writer
after the twenty-third's fixes for notebooks 00 to 07 alone, under 'twenty-fourth', and a twenty-fifth, written blind by one more
writer after the twenty-second's fixes for notebooks 08 to 14 alone, under 'twenty-fifth', a twenty-sixth, written blind by one more
writer after the twenty-fourth's fixes for notebooks 00 to 07 alone, under 'twenty-sixth', and a twenty-seventh, written blind by one
more writer after the twenty-fifth's fixes for notebooks 08 to 14 alone, under 'twenty-seventh', and four more, written blind
and apart by four more writers after the twenty-sixth's and twenty-seventh's fixes, each for a quarter of the paper path: a
twenty-eighth for notebooks 00 to 03, a twenty-ninth for 04 to 07, a thirtieth for 08 to 10 and a thirty-first for 11 to 14,
under those names; and four more, written blind and apart by four more writers after those four sets' fixes, one for each
quarter again: a thirty-second for 00 to 03, a thirty-third for 04 to 07, a thirty-fourth for 08 to 10 and a thirty-fifth for
11 to 14, under those names; and four more, written blind and apart by four more writers after those fixes, one for
each quarter, each told the mistakes the earlier sets had written for its notebooks so as to go where they had not: a
thirty-sixth for 00 to 03, a thirty-seventh for 04 to 07, a thirty-eighth for 08 to 10 and a thirty-ninth for 11 to 14,
under those names; and, written at the same time on the same checkers but told nothing of the earlier sets, a fortieth
and a forty-first, each by one more writer for every paper notebook: a representative sample of the first slips a
learner makes, under 'fortieth' and 'forty-first' (their 14_since_2017 under their 'since_2017'). In each
table ('first_run', 'after') of each measurement the five kinds of verdict add up to the answers, per notebook and in all; the 'all' row is the sum of the notebooks; both tables hold the same answers; and the list
of answers gives each table's counts."""
import json
from collections import Counter
from pathlib import Path
import pytest

DATA = json.loads((Path(__file__).parent.parent / 'results' / 'checker_answers.json').read_text())
RUNS = {'first': DATA, 'second': DATA['second'], 'third': DATA['third'], 'fourth': DATA['fourth'], 'fifth': DATA['fifth'], 'sixth': DATA['sixth'],
        'seventh': DATA['seventh'], 'eighth': DATA['eighth'], 'ninth': DATA['ninth'], 'tenth': DATA['tenth'],
        'eleventh': DATA['eleventh'], 'twelfth': DATA['twelfth'], 'thirteenth': DATA['thirteenth'],
        'fourteenth': DATA['fourteenth'], 'fifteenth': DATA['fifteenth'], 'sixteenth': DATA['sixteenth'],
        'seventeenth': DATA['seventeenth'], 'eighteenth': DATA['eighteenth'],
        'nineteenth': DATA['nineteenth'], 'twentieth': DATA['twentieth'], 'twenty-first': DATA['twenty-first'],
        'twenty-second': DATA['twenty-second'], 'twenty-third': DATA['twenty-third'],
        'twenty-fourth': DATA['twenty-fourth'], 'twenty-fifth': DATA['twenty-fifth'],
        'twenty-sixth': DATA['twenty-sixth'], 'twenty-seventh': DATA['twenty-seventh'],
        'twenty-eighth': DATA['twenty-eighth'], 'twenty-ninth': DATA['twenty-ninth'],
        'thirtieth': DATA['thirtieth'], 'thirty-first': DATA['thirty-first'],
        'thirty-second': DATA['thirty-second'], 'thirty-third': DATA['thirty-third'],
        'thirty-fourth': DATA['thirty-fourth'], 'thirty-fifth': DATA['thirty-fifth'],
        'thirty-sixth': DATA['thirty-sixth'], 'thirty-seventh': DATA['thirty-seventh'], 'thirty-eighth': DATA['thirty-eighth'],
        'thirty-ninth': DATA['thirty-ninth'], 'fortieth': DATA['fortieth'], 'forty-first': DATA['forty-first']}
KINDS = ('named', 'generic', 'misleading', 'passed', 'crashed')
TABLES = ('first_run', 'after')
PAPER = [f'{i:02d}' for i in range(14)]
PART = {'seventeenth': PAPER[:8], 'eighteenth': PAPER[8:],
        'nineteenth': PAPER[:8], 'twentieth': PAPER[8:], 'twenty-first': PAPER[:8], 'twenty-second': PAPER[8:],
        'twenty-third': PAPER[:8], 'twenty-fourth': PAPER[:8], 'twenty-fifth': PAPER[8:],
        'twenty-sixth': PAPER[:8], 'twenty-seventh': PAPER[8:],
        'twenty-eighth': PAPER[:4], 'twenty-ninth': PAPER[4:8], 'thirtieth': PAPER[8:11], 'thirty-first': PAPER[11:],
        'thirty-second': PAPER[:4], 'thirty-third': PAPER[4:8], 'thirty-fourth': PAPER[8:11], 'thirty-fifth': PAPER[11:],
        'thirty-sixth': PAPER[:4], 'thirty-seventh': PAPER[4:8], 'thirty-eighth': PAPER[8:11], 'thirty-ninth': PAPER[11:]}   # a measurement of some notebooks only: the paper notebooks it has rows for
BOTH = [(run, table) for run in RUNS for table in TABLES]
LATER = [run for run in RUNS if run != 'first']

@pytest.mark.parametrize('run', RUNS)
def test_the_file_says_where_and_when_it_was_measured(run):
    d = RUNS[run]
    assert d['cpu'] and d['date'] and d['what'] and d['right_answers'] > 0

@pytest.mark.parametrize('run, table', BOTH)
def test_every_paper_notebook_has_a_row(run, table):
    assert sorted(k[:2] for k in RUNS[run][table] if k != 'all') == PART.get(run, PAPER)

@pytest.mark.parametrize('run, table', BOTH)
def test_the_kinds_add_up_to_the_answers(run, table):
    for nb, row in RUNS[run][table].items():
        assert set(row) == {'answers', *KINDS}, nb
        assert sum(row[k] for k in KINDS) == row['answers'], (run, table, nb)

@pytest.mark.parametrize('run, table', BOTH)
def test_the_totals_are_the_sums_of_the_notebooks(run, table):
    rows = [v for k, v in RUNS[run][table].items() if k != 'all']
    assert RUNS[run][table]['all'] == {k: sum(r[k] for r in rows) for k in ('answers', *KINDS)}

@pytest.mark.parametrize('run', RUNS)
def test_both_tables_count_the_same_answers(run):
    d = RUNS[run]
    assert {k: v['answers'] for k, v in d['first_run'].items()} == {k: v['answers'] for k, v in d['after'].items()}

@pytest.mark.parametrize('run, table', BOTH)
def test_the_list_of_answers_gives_the_tables(run, table):
    d = RUNS[run]
    count = Counter((a['notebook'], a[table]) for a in d['answers'])
    for nb, row in d[table].items():
        if nb == 'all': continue
        assert {k: count[nb, k] for k in KINDS} == {k: row[k] for k in KINDS}, (run, table, nb)
    assert len(d['answers']) == d[table]['all']['answers']

@pytest.mark.parametrize('run', LATER)
def test_a_later_measurement_names_its_notebooks_as_the_first(run):
    assert set(DATA[run]['first_run']) == {k for k in DATA['first_run'] if k == 'all' or k[:2] in PART.get(run, PAPER)}

@pytest.mark.parametrize('run', LATER)
def test_every_answer_says_what_its_check_printed_before_and_after(run):
    assert all(a['message'] and a['first_message'] for a in RUNS[run]['answers'])
