"""Every option of every command (as `--help` listed them before the options were made from the settings dataclasses)
is still accepted, with its value; and every option says what it is, with its default."""
import argparse, contextlib, io
import pytest
from transformer_nb.apps import cli
from transformer_nb.lib.safeguards import heavy_imports

heavy_imports()

TRAIN = [   # (arguments, the setting they give, its value)
    (['--dataset', 'copy'], 'dataset', 'copy'), (['--task', 'translation'], 'task', 'translation'), (['--src-lang', 'de'], 'src_lang', 'de'),
    (['--tgt-lang', 'en'], 'tgt_lang', 'en'), (['--data-dir', 'd'], 'data_dir', 'd'), (['--train', 'a', 'b'], 'train', ['a', 'b']),
    (['--valid', 'a', 'b'], 'valid', ['a', 'b']), (['--test', 'a', 'b'], 'test', ['a', 'b']), (['--vocab-size', '100'], 'vocab_size', 100),
    (['--max-len', '50'], 'max_len', 50), (['--normalization', 'nfkc'], 'normalization_rule_name', 'nfkc'),
    (['--byte-fallback'], 'byte_fallback', True), (['--no-byte-fallback'], 'byte_fallback', False), (['--preset', 'tiny'], 'preset', 'tiny'),
    (['--d-model', '64'], 'd_model', 64), (['--N', '2'], 'N', 2), (['--h', '4'], 'h', 4), (['--d-ff', '128'], 'd_ff', 128),
    (['--d-k', '16'], 'd_k', 16), (['--d-v', '16'], 'd_v', 16), (['--p-drop', '0.2'], 'p_drop', 0.2), (['--p-attn', '0.1'], 'p_attn', 0.1),
    (['--p-ffn', '0.1'], 'p_ffn', 0.1), (['--pos', 'learned'], 'pos', 'learned'), (['--max-tokens', '500'], 'max_tokens', 500),
    (['--accum', '2'], 'accum', 2), (['--epochs', '3'], 'epochs', 3), (['--steps', '10'], 'steps', 10), (['--warmup', '5'], 'warmup', 5),
    (['--cooldown', '2'], 'cooldown', 2), (['--save-every', '5'], 'save_every', 5), (['--keep', '2'], 'keep', 2),
    (['--average', '2'], 'average', 2), (['--valid-every', '5'], 'valid_every', 5), (['--seed', '1'], 'seed', 1),
    (['--lr-scale', '0.5'], 'lr_scale', 0.5), (['--clip', '1'], 'clip', 1.0), (['--max-time', '1.5'], 'max_time', 1.5),
    (['--eps-ls', '0.2'], 'eps_ls', 0.2), (['--device', 'cpu'], 'device', 'cpu'), (['--precision', 'fp32'], 'precision', 'fp32'),
    (['--compile'], 'compile', True), (['--threads', '2'], 'threads', 2), (['--recipe', 'cpu-hour'], 'recipe', 'cpu-hour'),
    (['--out', 'r'], 'out', 'r'), (['--resume', 'r'], 'resume', 'r'), (['--new-data'], 'new_data', True), (['--overwrite'], 'overwrite', True),
    (['--beam', '2'], 'beam', 2), (['--test-limit', '5'], 'test_limit', 5), (['--no-progress'], 'progress', False), (['--debug'], 'debug', True)]
DECODING = [
    (['--beam', '2'], 'beam', 2), (['--alpha', '0.3'], 'alpha', 0.3), (['--early-stop'], 'stop', 'early'), (['--max-tokens', '100'], 'max_tokens', 100),
    (['--max-src-len', '20'], 'max_src_len', 20), (['--precision', 'fp32'], 'precision', 'fp32'), (['--device', 'cpu'], 'device', 'cpu'),
    (['--threads', '1'], 'threads', 1), (['--debug'], 'debug', True)]
TRANSLATE = DECODING + [(['-i', 'f'], 'input', 'f'), (['--input', 'f'], 'input', 'f'), (['-o', 'f'], 'output', 'f'), (['--output', 'f'], 'output', 'f'),
                        (['a b', 'c'], 'sentences', ['a b', 'c'])]
EVALUATE = DECODING + [
    (['--src', 's'], 'src', 's'), (['--ref', 'r'], 'ref', 'r'), (['--dataset', 'copy'], 'dataset', 'copy'), (['--src-lang', 'de'], 'src_lang', 'de'),
    (['--tgt-lang', 'en'], 'tgt_lang', 'en'), (['--data-dir', 'd'], 'data_dir', 'd'), (['--split', 'valid'], 'split', 'valid'),
    (['--hyp-out', 'h'], 'hyp_out', 'h'), (['--json'], 'json', True), (['--record', 'r.json'], 'record', 'r.json'), (['--id', 'x'], 'id', 'x')]
AVERAGE = [(['--last', '2'], 'last', 2), (['--debug'], 'debug', True)]
EXPORT = [(['--quantization', 'int8'], 'quantization', 'int8'), (['--max-positions', '100'], 'max_positions', 100), (['--debug'], 'debug', True),
          (['--format', 'onnx'], 'format', 'onnx'), (['--float32'], 'float32', True), (['--overwrite'], 'overwrite', True),
          (['--out', 'd'], 'out', 'd'), (['--ctranslate2', 'c'], 'ctranslate2', 'c')]

PARSE = {'train': lambda argv: cli._train_parser().parse_args(argv), 'translate': lambda argv: cli._parse_translate(['ckpt', *argv]),
         'evaluate': lambda argv: cli._evaluate_cli_parser().parse_args(['ckpt', *argv]),
         'average': lambda argv: cli._average_parser().parse_args(['a.pt', '-o', 'b.pt', *argv]),
         'export': lambda argv: cli._export_parser().parse_args(['-o', 'out', *argv])}

@pytest.mark.parametrize('name, argv, dest, value', [(n, *o) for n, opts in (('train', TRAIN), ('translate', TRANSLATE), ('evaluate', EVALUATE),
                                                                                ('average', AVERAGE), ('export', EXPORT)) for o in opts])
def test_every_option_is_still_accepted(name, argv, dest, value):
    assert getattr(PARSE[name](argv), dest) == value

def test_the_positional_arguments_and_required_options():
    assert cli._parse_translate(['ckpt']).checkpoint == 'ckpt' and cli._evaluate_cli_parser().parse_args(['ckpt']).checkpoint == 'ckpt'
    a = cli._average_parser().parse_args(['a.pt', 'b.pt', '--output', 'c.pt'])
    assert (a.checkpoints, a.output) == (['a.pt', 'b.pt'], 'c.pt')

def test_export_help_still_shows_its_options():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as e: cli.export_main(['--ctranslate2', 'ckpt', '-o', 'out', '--help'])
    assert e.value.code == 0 and '--ctranslate2' in out.getvalue() and 'ctranslate2 only' in out.getvalue()

def _parsers():
    return {'tnb-train': cli._train_parser(), 'tnb-translate': cli._translate_parser(), 'tnb-evaluate': cli._evaluate_cli_parser(),
            'tnb-average': cli._average_parser(), 'tnb-export': cli._export_parser()}

@pytest.mark.parametrize('prog', ['tnb-train', 'tnb-translate', 'tnb-evaluate', 'tnb-average', 'tnb-export'])
def test_every_option_says_what_it_is_and_its_default(prog):
    "Each option has help; one that takes a value says its default (or is required, or positional)."
    for a in _parsers()[prog]._actions:
        if isinstance(a, argparse._HelpAction): continue
        assert a.help, (prog, a.option_strings or a.dest)
        takes = a.option_strings and a.nargs != 0 and not isinstance(a, argparse.BooleanOptionalAction)
        assert not takes or a.required or 'default' in a.help, (prog, a.option_strings, a.help)

def test_the_options_are_the_settings_fields():
    "tnb-train's model and training options are the fields of ModelConfig and TrainConfig, helped by the fields' comments in a command's words."
    from transformer_nb.lib.options import settings
    from transformer_nb.lib.safeguards import plain
    from transformer_nb.lib.options import TrainConfig
    from transformer_nb.lib.options import Decoding
    helps = {a.dest: a.help for a in cli._train_parser()._actions}
    for s in settings(TrainConfig): assert helps[s.name].startswith(plain(s.help.split(' (None:')[0])), s.name
    assert helps['max_time'].startswith('also stop after this many minutes')
    helps = {a.dest: a.help for a in cli._translate_parser()._actions}
    for k in ('beam', 'alpha', 'max_extra'): assert helps[k].startswith(plain(next(s.help for s in settings(Decoding) if s.name == k))), k

@pytest.mark.parametrize('prog', ['tnb-train', 'tnb-translate', 'tnb-evaluate', 'tnb-average', 'tnb-export'])
def test_every_option_is_made_from_a_declaration(prog):
    "Each option (and positional) carries the declared type that checks it; argparse holds no choices of its own."
    made = [a for a in _parsers()[prog]._actions if not isinstance(a, argparse._HelpAction)]
    assert [a.dest for a in made if not hasattr(a, 'declared')] == [] and [a.dest for a in made if a.choices] == []
    if prog == 'tnb-train': assert len([a for a in made if a.option_strings]) == 63    # every one of its 63 options (norm, ffn, rope, kv_groups, attention and check among them)

def test_no_bound_or_choice_is_typed_in_the_commands():
    "cli.py makes options from declarations: no `choices=`, no range, no table of sizes of its own."
    import inspect, re
    text = inspect.getsource(cli)                                   # tnb-export's parser too
    assert not re.findall(r"choices=|number\(|_SIZES|Range\(", text)

def test_a_refusal_names_the_option_the_user_typed():
    "The library names the setting; the command says it with the option its parser made for it."
    from transformer_nb.lib.safeguards import said
    from transformer_nb.lib.options import TrainConfig
    p = cli._train_parser()
    for argv, line in [(['--seed', '4294967296'], '--seed 4294967296 must be an int in [0, 4294967295]'),
                       (['--precision', 'fp8'], '--precision fp8 must be auto, fp32, bf16 or fp16'),
                       (['--max-len', '1'], '--max-len 1 must be an int in [2, 1000000], or none'), (['--threads', '-1'], '--threads -1 must be an int in [0, 1024], or none')]:
        with pytest.raises(ValueError) as e: p.parse_args(argv)
        assert said(e.value, p.options()) == line, said(e.value, p.options())
    for argv, line in [(['--quantization', 'int4'], "--quantization int4 must be float32, int8, int8_float32, int8_float16, int8_bfloat16, int16, float16 or bfloat16, or none"),
                       (['--max-positions', '0'], '--max-positions 0 must be an int in [1, 1000000], or none'), (['--format', 'tf'], '--format tf must be ctranslate2, onnx or hf')]:
        with pytest.raises(ValueError) as e: cli._export_parser().parse_args(['c', '-o', 'd', *argv])   # tnb-export's bounds: its declaration's
        assert said(e.value, cli._export_parser().options()) == line, said(e.value)
    table = p.parse_args([]).table                                      # this command's table, as it hands it to run_cli
    with pytest.raises(ValueError) as e: TrainConfig(cooldown=5)        # a refusal from the library, under the command
    assert said(e.value, table) == '--cooldown 5 needs --steps N: the update it ends at', said(e.value, table)   # a setting not given: the option to give
    assert said(e.value) == 'cooldown=5 needs steps=None: the update it ends at'   # no table: Python's words, nothing kept from the parse

def test_no_library_message_spells_an_option():
    "A library message names the setting (`last=0`); only the command layer says it as an option (`--last 0`)."
    import pathlib, re
    pkg = pathlib.Path(cli.__file__).parents[1]
    found = [f"{p.name}:{i}" for p in sorted(pkg.rglob('*.py')) if p.stem not in ('cli', 'commands', 'process', '_modidx')
             for i, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"\(--\w|\{name\.replace\('_', '-'\)\}", line)]
    assert found == [], found

def test_help_is_in_a_command_users_words():
    "--max-time's help once said 'None: no time limit' and --device's None/'auto', words a command refuses: no Python literal is left."
    helps = {a.option_strings[0]: a.help for a in cli._train_parser()._actions if a.option_strings}
    assert "default: the recipe's, else no time limit" in helps['--max-time'] and 'else auto, the best available' in helps['--device'], (helps['--max-time'], helps['--device'])
    assert not [o for o, h in helps.items() if h and ('None' in h or 'False' in h or 'True' in h)]
    assert [h.count('default') for o, h in helps.items() if o in ('--d-k', '--d-v')] == [1, 1]   # one default each


def test_every_count_has_a_declared_bound_and_a_huge_one_is_named_by_its_length():
    """A count with no upper bound took 10^26, and 5,000 digits were echoed back with argparse's converter named: every
    count of the commands has an upper bound on its field, and a number too long to read is said by its length."""
    from transformer_nb.lib.safeguards import said
    import transformer_nb.lib.options as O
    for cls, names in ((O.TrainConfig, ('steps', 'epochs', 'save_every', 'keep', 'average', 'valid_every', 'log_every', 'max_len')),
                       (O.RunOptions, ('test_limit',)), (O.Decoding, ('beam', 'max_extra')), (O.AverageOptions, ('last',)),
                       (O.ModelConfig, ('max_len',)), (O.DecodeOptions, ('max_tokens', 'max_src_len'))):
        hints = {s.name: s.kind for s in O.settings(cls)}
        for n in names: assert hints[n].range.hi is not None and hints[n].range.hi <= 10**9, (cls.__name__, n, hints[n].range)
    p = _parsers()['tnb-train']
    for argv, line in [(['--steps', '1' + '0' * 26], '--steps 100000000000000000000000000 must be an int in [1, 1000000000], or none'),
                       (['--steps', '1' + '0' * 30], '--steps <a number of 31 digits> must be an int in [1, 1000000000], or none'),
                       (['--keep', '9' * 5000], '--keep <a number of 5,000 digits> must be an int in [0, 1000000], or none'),
                       (['--save-every', str(10**9 + 1)], '--save-every 1000000001 must be an int in [0, 1000000000]')]:
        with pytest.raises(ValueError) as e: p.parse_args(argv)
        assert said(e.value, p.options()) == line, said(e.value, p.options())

def test_a_cpu_or_mps_index_is_refused():
    "The CPU and MPS are one device each: --device cpu:1 was accepted; cuda:N names a GPU by its index."
    from transformer_nb.lib.safeguards import said
    p = _parsers()['tnb-train']
    for bad in ('cpu:1', 'mps:2'):
        with pytest.raises(ValueError) as e: p.parse_args(['--device', bad])
        assert said(e.value, p.options()) == f'--device {bad} must be a device: auto, cpu, cuda, cuda:N or mps, or none'
    assert p.parse_args(['--device', 'cpu:0']).device == 'cpu:0' and p.parse_args(['--device', 'cuda:3']).device == 'cuda:3'
