"§6.3 parsing (13_parsing): the generated treebank, linearised trees and their repair, EVALB scoring, the results file, the CLI."
import json, os, random, re, subprocess, sys
from collections import Counter
from pathlib import Path
import pytest
from nltk import Tree
from conftest import said
from transformer_nb.lib.records import load_results
from transformer_nb.parsing import PAPER_TABLE4, linearize
from transformer_nb.apps.parsing_task import (linearize_readable, delinearize, _coarsen, sample_treebank, parsing_corpus, parse_scores,
                                         write_treebank_files, viterbi_parse, right_branching, count_parses, english_pcfg, _parsing,
                                         evaluate_parser)
from transformer_nb.lib.treebank import brackets, evalb_counts, prf, read_trees, PARSE_KEYS, parse_table

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / 'results' / 'parsing.json'
ENV = {**os.environ, 'TNB_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MPLBACKEND': 'Agg'}

def cli(main:str, *args, cwd=None):
    "Run a console script's entry point as a user would."
    cmd = [sys.executable, '-c', f'from transformer_nb.apps.cli import {main}; {main}()', *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=cwd, timeout=300)

# --- the generated treebank ---

def test_every_entry_refuses_bad_input_in_one_line():
    "Each refusal of 12's functions (its check taught in lib_treebank, called at the entry) keeps its type and one-line message."
    john = Tree('S', [Tree('NP', [Tree('NNP', ['John'])]), Tree('VBD', ['left'])])
    cases = [(lambda: linearize_readable(john, 'pos'), "leaves='pos' must be one of ('words', 'XX', 'tags')"),
             (lambda: linearize_readable(Tree('NN', ['dog'])), "linearize needs a tree with a phrase above its words, got Tree('NN', ['dog'])"),
             (lambda: linearize_readable(Tree('S', [Tree('-LRB-', ['(']), Tree('NN', ['x'])])),
              "the word '(' starts with a bracket; escape it as the treebank does (-LRB-, -RRB-)"),
             (lambda: parsing_corpus(10, -1, 5), "n_valid must be an int >= 0, got -1"),
             (lambda: parsing_corpus(10, 1, 5, tgt_lang='xml'), "the parsing corpus has target languages ['tree', 'tree-xx', 'tree-tags'], got 'xml'"),
             (lambda: _parsing('de', None, None), "the parsing corpus reads English ('en'), not 'de'"),
             (lambda: parse_scores([('a b', '(S a b )S')], []), "0 outputs for 1 sentences: they must be aligned"),
             (lambda: evaluate_parser(None, None, []), "evaluate_parser got no (sentence, tree) pairs"),
             (lambda: right_branching(''), "right_branching needs at least one word")]
    for f, msg in cases:
        with pytest.raises(ValueError) as e: f()
        assert str(e.value) == msg
    assert linearize_readable(Tree('S', [Tree('-LRB-', ['(']), Tree('NN', ['x'])]), 'XX') == '(S XX XX )S'   # no word written, no refusal
    with pytest.raises(ValueError, match=r"^reference 2 is not a well-formed linearised tree for its sentence \("):
        parse_scores([('a b', '(S a b )S'), ('a b', '(S a b')], ['(S a b )S', '(S a b )S'])

def test_splits_are_deterministic_and_share_no_sentence():
    a, b = parsing_corpus(3000, 200, 300), parsing_corpus(3000, 200, 300)
    assert (a.train, a.valid, a.test) == (b.train, b.valid, b.test)
    assert parsing_corpus(3000, 200, 300, seed=1).test != a.test
    s = {k: [x for x, _ in getattr(a, k)] for k in ('train', 'valid', 'test')}
    for k, v in s.items(): assert len(set(v)) == len(v), f"a sentence repeats within {k}"
    assert not (set(s['train']) & set(s['test'])) and not (set(s['train']) & set(s['valid'])) and not (set(s['valid']) & set(s['test']))
    assert (a.name, a.src_lang, a.tgt_lang) == ('parsing', 'en', 'tree')

@pytest.mark.slow                     # counts and finds the parses of 150 sentences with a chart parser
def test_the_grammar_is_ambiguous():
    "The string does not determine the tree: many test sentences have several parses, and the best parse is often not the sampled one."
    test = parsing_corpus(0, 0, 150).test
    n = [count_parses(s) for s, _ in test]
    assert sum(k > 1 for k in n) / len(n) > 0.25 and min(n) >= 1
    vit = [viterbi_parse(s) for s, _ in test]
    wrong = sum(v is None or linearize(v) != ref for v, (_, ref) in zip(vit, test))
    assert 0.05 < wrong / len(test) < 0.5

def test_linearisation_round_trips_on_sampled_trees():
    for t in sample_treebank(300, seed=7):
        t = _coarsen(t)
        words = t.leaves()
        p = delinearize(linearize(t), words)
        assert p.wellformed and p.tree.leaves() == words
        assert linearize(p.tree) == linearize(t)
        assert brackets(p.tree) == brackets(t)              # nothing the scorer counts is lost with the POS tags

# --- repairs: the decoder's output never crashes anything ---

def test_random_token_soup_is_repaired_or_fails_cleanly():
    rng = random.Random(0)
    vocab = ['(S', ')S', '(NP', ')NP', '(VP', ')VP', '(PP', ')PP', 'XX', 'XX', 'XX', '(', ')', 'dog']
    words = 'the dog saw a cat in the park .'.split()
    for _ in range(2000):
        seq = ' '.join(rng.choice(vocab) for _ in range(rng.randint(0, 30)))
        p = delinearize(seq, words)
        if p.tree is None: assert p.repairs[0].startswith('unrepairable')
        else:
            assert p.tree.leaves() == words, seq
            assert all(len(st) > 0 for st in p.tree.subtrees())          # no empty constituent survives
        m, g, t = evalb_counts(delinearize('(S (NP XX XX )NP (VP XX (NP XX XX )NP (PP XX (NP XX XX )NP )PP )VP XX )S', words).tree, p.tree)
        assert 0 <= m <= min(g, t if p.tree is not None else 0)

def test_unrepairable_output_scores_zero_and_is_counted():
    pairs = [('it rained .', '(S (NP XX )NP (VP XX )VP XX )S')] * 3
    sc, rows = parse_scores(pairs, ['', 'XX XX XX', '(S (NP XX )NP (VP XX'])
    assert (sc['failed'], sc['malformed']) == (2, 1)
    assert [r['f1'] for r in rows] == [0.0, 0.0, 100.0]
    assert sc['recall'] == round(100 * 3 / 9, 2) and sc['precision'] == 100.0

# --- scoring with EVALB's rules (COLLINS.prm), on hand-worked trees ---

T = Tree.fromstring

def test_evalb_ignores_root_punctuation_preterminals_and_function_tags():
    gold = T("(TOP (S (`` ``) (NP-SBJ (NNP Ann)) (, ,) (VP (VBD saw) (NP (PRP him)) (PRT (RP off))) (. .) ('' '')))")
    assert brackets(gold) == Counter({('S', 0, 4): 1, ('NP', 0, 1): 1, ('VP', 1, 4): 1, ('NP', 2, 3): 1, ('ADVP', 3, 4): 1})
    test = T('(S (XX ``) (NP (XX Ann)) (XX ,) (VP (XX saw) (NP (XX him)) (ADVP (XX off))) (XX .) (XX \'\'))')
    assert evalb_counts(gold, test) == (5, 5, 5)

def test_evalb_removes_traces_and_the_constituents_they_empty():
    gold = T('(S (NP (NNS Sales)) (VP (VBD rose) (SBAR (-NONE- 0) (S (-NONE- *T*-1)))) (. .))')
    assert brackets(gold) == Counter({('S', 0, 2): 1, ('NP', 0, 1): 1, ('VP', 1, 2): 1})

def test_evalb_duplicates_are_a_multiset():
    "COLLINS README [7].5: n identical brackets in the gold file, m in the parse -> min(m, n) match."
    n1 = T('(S (NP (NN man)) (VP (VBD left)))')
    n3 = T('(S (NP (NP (NP (NN man)))) (VP (VBD left)))')
    assert evalb_counts(n1, n3) == (3, 3, 5)           # m > n: precision n/m, recall 100%
    assert evalb_counts(n3, n1) == (3, 5, 3)           # n > m: precision 100%, recall m/n
    assert evalb_counts(n3, n3) == (5, 5, 5)

def test_pp_attachment_error_costs_one_bracket():
    gold = T('(S (NP (NNP John)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .))')
    test = T('(S (NP (XX John)) (VP (XX saw) (NP (NP (XX the) (XX man)) (PP (XX with) (NP (XX a) (XX telescope))))) (XX .))')
    m, g, t = evalb_counts(gold, test)
    assert (m, g, t) == (6, 6, 7)
    p, r, f = prf(m, g, t)
    assert round(p, 2) == 85.71 and r == 100 and round(f, 2) == 92.31

# --- reading bracketed treebank files ---

def test_malformed_treebank_file_gives_one_line_with_file_line_and_column(tmp_path):
    bad = tmp_path / 'wsj_0042.mrg'
    bad.write_text('( (S (NP (NN dog))\n    (VP (VBD ran))) )\n( (S (NP (NN cat)) (VP (VBD sat)))) )\n')
    with pytest.raises(ValueError) as e: read_trees(bad)
    msg = str(e.value)
    assert len(msg.splitlines()) == 1 and f"{bad}, line 3, column 37: ')' closes nothing" in msg
    bad.write_text('( (S (NP (NN dog)) (VP (VBD ran)))\n')
    with pytest.raises(ValueError, match=r"wsj_0042.mrg, line 1, column 1: '\(' is never closed"): read_trees(bad)

@pytest.mark.slow
def test_treebank_folder_to_files_for_tnb_train(tmp_path):
    tree = '( (S (NP-SBJ (DT The) (NN dog)) (VP (VBD barked) (S (NP-SBJ (-NONE- *)) (VP (TO to) (VP (VB eat))))) (. .)) )\n'
    for sec in range(25):
        d = tmp_path / 'wsj' / f"{sec:02d}"; d.mkdir(parents=True)
        (d / f"wsj_{sec:02d}00.mrg").write_text(tree * 2)
    counts = write_treebank_files(tmp_path / 'wsj', tmp_path / 'ptb')
    assert counts == {'train': 40, 'valid': 2, 'test': 2}
    assert (tmp_path / 'ptb' / 'test.en').read_text().splitlines()[0] == 'The dog barked to eat .'
    assert (tmp_path / 'ptb' / 'test.tree').read_text().splitlines()[0] == \
        '(S (NP The dog )NP (VP barked (S (VP to (VP eat )VP )VP )S )VP . )S'
    r = cli('train_main', '--dataset', 'files', '--task', 'parsing', '--data-dir', tmp_path / 'ptb', '--src-lang', 'en', '--tgt-lang', 'tree',
            '--preset', 'tiny', '--steps', '2', '--vocab-size', '40', '--out', tmp_path / 'run', '--no-progress',
            '--beam', '1', '--test-limit', '2')
    assert r.returncode == 0, r.stderr[-2000:]
    assert 'bracket F1' in r.stdout and 'BLEU' not in r.stdout

# --- reference points and the stored results ---

def test_reference_parsers():
    s = 'the man saw the dog with a telescope .'
    assert viterbi_parse(s).leaves() == s.split() and viterbi_parse('the zebra slept .') is None
    assert right_branching('a b c').pformat(margin=999) == '(S (XX a) (NP (XX b) (XX c)))'
    assert count_parses(s) == 2 and english_pcfg().start().symbol() == 'S'

def test_results_file_has_every_system_with_provenance():
    recs = load_results(RESULTS, PARSE_KEYS)
    by = {r['id']: r for r in recs}
    models = ('parsing-greedy', 'parsing-beam21', 'parsing-xx-greedy', 'parsing-xx-beam21', 'parsing-postln-greedy')
    assert set(models) | {'parsing-viterbi', 'parsing-right-branching'} <= set(by)
    for r in recs:
        assert 0 <= r['precision'] <= 100 and 0 <= r['recall'] <= 100 and 0 <= r['f1'] <= 100, r['id']
        assert r['n_sentences'] == 1000 and sum(c['n'] for c in r['by_length'].values()) == 1000, r['id']
        assert re.fullmatch(r'[0-9a-f]{7,}(\+dirty)?', r['commit']) and re.fullmatch(r'\d{4}-\d\d-\d\d', r['date']), r['id']
        assert 'CPU' in r['hardware'] or 'CUDA' in r['hardware'], r['id']
        assert len(r['examples']) == 20 and all(len(e) == 3 for e in r['examples'])
        assert parse_scores([tuple(e[:2]) for e in r['examples']], [e[2] for e in r['examples']])   # stored outputs score
    for k in models:
        r = by[k]
        assert r['command'].startswith('train: tnb-train --dataset parsing') and 'evaluate: tnb-evaluate' in r['command']
        assert r['params'] > 0 and r['train_time_s'] > 0 and len(r['valid_nll']) >= 2, k
    for k in ('parsing-greedy', 'parsing-beam21'): assert by[k]['train_time_s'] <= 20 * 60, (k, by[k]['train_time_s'])
    assert 'beam 21, alpha 0.3' in by['parsing-beam21']['decoding'] and 'input+300' in by['parsing-beam21']['decoding']
    assert by['parsing-right-branching']['f1'] < min(by['parsing-greedy']['f1'], by['parsing-beam21']['f1'])
    assert max(by['parsing-greedy']['f1'], by['parsing-beam21']['f1']) <= by['parsing-viterbi']['f1'] + 1.0

def test_notebook_shows_the_results_file():
    nb = json.loads((ROOT / 'nbs' / '13_parsing.ipynb').read_text())
    shown = [''.join(o['data']['text/markdown']) for c in nb['cells'] if c['cell_type'] == 'code'
             for o in c.get('outputs', []) if 'text/markdown' in o.get('data', {})]
    recs = load_results(RESULTS, PARSE_KEYS)
    assert parse_table(recs) in shown, "re-run nbs/13_parsing.ipynb"
    by = {r['id']: r for r in recs}                                  # the main line's table: four rows, the model between floor and ceiling
    four = [t for t in shown if t.startswith('| parser (generated treebank')]
    assert len(four) == 1 and len(four[0].splitlines()) == 2 + 4, "re-run nbs/13_parsing.ipynb"
    for k in ('parsing-viterbi', 'parsing-greedy', 'parsing-beam21', 'parsing-right-branching'): assert f"| {by[k]['f1']:.1f} |" in four[0]
    assert len(PAPER_TABLE4) == 12

# --- the command line ---

@pytest.mark.slow
def test_tnb_train_parsing_reports_f1_and_tnb_evaluate_scores_trees(tmp_path):
    out = tmp_path / 'run'
    r = cli('train_main', '--dataset', 'parsing', '--preset', 'tiny', '--steps', '3', '--out', out, '--no-progress',
            '--beam', '1', '--test-limit', '3')
    assert r.returncode == 0, r.stderr[-2000:]
    assert re.search(r'test \(3 sentences, beam 1; [^)]*\): bracket F1 \d+\.\d\d \(precision', r.stdout), r.stdout[-500:]
    data = parsing_corpus(0, 0, 3)
    (tmp_path / 'test.en').write_text(''.join(s + '\n' for s, _ in data.test))
    (tmp_path / 'test.tree').write_text(''.join(t + '\n' for _, t in data.test))
    r = cli('evaluate_main', out, '--src', tmp_path / 'test.en', '--ref', tmp_path / 'test.tree', '--beam', '1', '--json',
            '--record', tmp_path / 'p.json', '--id', 'tiny')
    assert r.returncode == 0, r.stderr[-2000:]
    sc = json.loads(r.stdout)
    assert {'precision', 'recall', 'f1', 'malformed', 'failed'} <= set(sc) and sc['n_sentences'] == 3
    rec = load_results(tmp_path / 'p.json', PARSE_KEYS)[0]
    assert rec['id'] == 'tiny' and rec['command'].startswith('train: tnb-train --dataset parsing')
    r = cli('evaluate_main', out, '--src', tmp_path / 'test.en', '--ref', tmp_path / 'test.tree')   # §6.3's decoding by default
    assert r.returncode == 0 and '3 sentences (beam 21, alpha 0.3, max length input+300)' in r.stdout, (r.stdout, r.stderr[-2000:])
    (tmp_path / 'bad.tree').write_text('(S (NP XX )NP )S\n' * 3)                  # references with the wrong word count
    r = cli('evaluate_main', out, '--src', tmp_path / 'test.en', '--ref', tmp_path / 'bad.tree', '--beam', '1')
    assert r.returncode == 2 and len(said(r.stderr)) == 1 and 'reference 1 is not a well-formed' in r.stderr

# --- the second language pair (§6.1's EN-FR) ---

@pytest.mark.slow
def test_tnb_train_multi30k_en_fr(tmp_path, m30k_dir):
    m30k = m30k_dir
    out = tmp_path / 'enfr'
    r = cli('train_main', '--dataset', 'multi30k', '--src-lang', 'en', '--tgt-lang', 'fr', '--data-dir', m30k, '--preset', 'tiny',
            '--steps', '2', '--vocab-size', '500', '--max-tokens', '500', '--test-limit', '2', '--beam', '1', '--save-every', '0',
            '--out', out, '--no-progress')
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ParallelData('multi30k', en->fr" in r.stdout and re.search(r'test \(2 sentences, beam 1; [^)]*\): .*BLEU', r.stdout)
    assert "(reference 'Un homme avec un chapeau orange" in r.stdout                  # French references, first test sentence
    r = cli('evaluate_main', out, '--dataset', 'multi30k', '--data-dir', m30k, '--beam', '1', '--json')  # languages from the checkpoint
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)['n_sentences'] == 1000

def test_results_file_has_an_en_fr_run():
    recs = [r for r in load_results(ROOT / 'results' / 'results.json') if r['direction'] == 'en-fr']
    assert recs and all('--src-lang en --tgt-lang fr' in r['command'] for r in recs)
    assert max(r['bleu'] for r in recs) > 50                                          # the w512n3 recipe on Multi30k test2016
