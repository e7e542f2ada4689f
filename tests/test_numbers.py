"The numbers task (apps_numbers): a module of its own, registered when the registry first asks for it."
from types import SimpleNamespace
from transformer_nb.apps.tasks import get_task, task_for, BUILT_IN
from transformer_nb.lib.tokens import StoredTokenizer
from transformer_nb.lib.datasets import load_dataset

def test_the_numbers_task_is_its_own_module():
    t = get_task('numbers')
    assert type(t).__module__ == 'transformer_nb.apps.numbers' == BUILT_IN['numbers'][0] and task_for('numbers') is t
    assert (t.recipe.vocab_size, t.recipe.train['steps']) == (1024, 1050)

def test_its_scores_and_inputs():
    t = get_task('numbers')
    sc = {'bleu': 0.0, 'chrf': 90.0, 'exact_match': 75.0, 'bleu_char': 95.5, 'exact_by_magnitude': {'0-99': {'exact_match': 100.0, 'n': 4}}}
    assert t.headline(sc, ['dreihundertzwei'] * 4).startswith('exact match 75.0%, chrF 90.0, BLEU on characters 95.5 (word BLEU 0.0')
    assert t.details(sc) == ['exact match per magnitude: 0-99 100.0% (of 4)']
    tok = StoredTokenizer.train(load_dataset('copy', n_train=100, n_valid=0, n_test=0), vocab_size=16)
    problems = dict(t.input_problems(tok, ['a b', '', 'three'], 'en'))
    assert sorted(problems) == [0, 2] and 'not an English number in words' in problems[0]
    assert [t.example(SimpleNamespace(src_lang=l, test=[('drei', 'three')])) for l in ('en', 'de')] == ['three hundred forty-two', 'drei']
