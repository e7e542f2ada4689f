"""README.md as a new user meets it: its "Use it from Python" section runs as printed, from a script in a folder outside
the repository (no run folder, no clone beside it), and prints what its comments say; PyTorch's CPU build comes before
the first command that installs the package; and the published models' section gives each file's sha256 and size as
the package checks them."""
import os, re, subprocess, sys
import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, 'TNB_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MPLBACKEND': 'Agg'}

def readme() -> str: return (ROOT / 'README.md').read_text(encoding='utf-8')

def section(title:str) -> str: return readme().split(f'\n## {title}\n', 1)[1].split('\n## ', 1)[0]

def python_section() -> str:
    blocks = re.findall(r'```python\n(.*?)```', section('Use it from Python'), re.S)
    assert len(blocks) == 1, "README's Python section should hold one python block"
    return blocks[0]

@pytest.mark.slow
def test_readme_python_section_runs_from_any_folder(tmp_path):
    code = python_section()
    assert "load_pretrained('numbers')" in code and 'runs/' not in code      # nothing a training run must write first
    (tmp_path / 'example.py').write_text(code, encoding='utf-8')
    env = {k: v for k, v in ENV.items() if k != 'TNB_PRETRAINED'}
    r = subprocess.run([sys.executable, 'example.py'], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout.splitlines()
    said = re.search(r'print\(hyps\)\s+# (.+)', code).group(1)               # what the comment promises
    assert out[0] == said, (out[0], said)
    assert out[1].split()[0] == '100.0' and 'nc:6|nw:0' in out[1]             # chrF of two right translations, its signature
    assert out[2].endswith(' parameters') and int(out[2].split()[0].replace(',', '')) > 60_000_000
    assert list(tmp_path.iterdir()) == [tmp_path / 'example.py']              # it wrote nothing where it ran

def test_the_cpu_build_comes_before_the_first_install():
    text = readme()
    cpu, first = text.find('pip install torch --index-url https://download.pytorch.org/whl/cpu'), text.find('pip install -e')
    assert 0 <= cpu < first, "README installs the package before it says to install PyTorch's CPU build"

def test_the_models_section_gives_each_file_as_the_package_checks_it():
    from transformer_nb.lib.checkpoints import PRETRAINED
    text = section('The published models')
    for name, pf in PRETRAINED.items():
        row = next((l for l in text.splitlines() if l.startswith(f'| `{name}` |')), '')
        assert pf.sha256 in row and f'{pf.size / 1e6:.1f} MB' in row, (name, row)
    assert 'TNB_PRETRAINED' in text and 'pip install .' in text and 'holds no models' in text

def test_the_course_map_lists_every_appendix_and_the_reading_order_ends_at_the_last():
    "A new appendix gets its row in the course map, and the reading order runs to the last appendix the sidebar lists."
    order = re.findall(r'^\s*-\s+([\w.-]+)\.ipynb\s*$', (ROOT / 'nbs' / 'sidebar.yml').read_text(encoding='utf-8'), re.M)
    text, wings = section('Course map'), [n for n in order if n.split('_')[0] in ('lib', 'apps', 'course')]
    missing = [a for a in wings if f'| [{a}](nbs/{a}.ipynb) |' not in text]
    assert not missing, f"README's course map (nbs/use.ipynb) has no row for {missing}"
    assert f'[{wings[-1]}](nbs/{wings[-1]}.ipynb) (the library, the applications' in text

def test_the_main_jobs_time_is_one_figure_said_as_what_it_is():
    "README and `tnb-train --help` give the main job one time, CPU time (its wall time on a quiet machine, one thread), from one"
    "source, `cli.MAIN_JOB_MINUTES`, which is what results/main_job.json measured, and README names the CPU that measured it; no other figure is left."
    "The front page sets it beside the Multi30k run's time, which is wall time (results/cpu_hour.json), and says which each is."
    import json, statistics
    from transformer_nb.apps.cli import MAIN_JOB_MINUTES, _EPILOG
    runs = [r for r in json.loads((ROOT / 'results' / 'main_job.json').read_text()) if r['name'] == 'tnb-train']
    assert runs and MAIN_JOB_MINUTES == round(statistics.median(r['time']['whole_command']['cpu_s'] for r in runs) / 60)
    said = f"in about {MAIN_JOB_MINUTES} minutes of CPU time"
    assert readme().count(said) == 2 and f"about {MAIN_JOB_MINUTES} minutes of CPU time" in _EPILOG, _EPILOG
    assert {r['hardware'] for r in runs} == {'AMD EPYC (AVX512), 2 cores (CPU), torch 2.13.0+cpu'}, runs   # the CPU README names with the time
    assert {r['threads'] for r in runs} == {1}, runs                                                        # "one thread"
    flat = ' '.join(readme().split())
    assert f"{said} on a 2-core AMD EPYC with AVX-512 (one thread, so also its wall time on a quiet machine)." in flat
    assert f"{said} on the 2-core AMD EPYC with AVX-512 that measured it" in flat
    assert 'It uses one thread, so on a quiet 2-core machine that is also its wall time' in flat
    assert 'one thread' in _EPILOG
    assert not re.findall(r'main job[^.]*?about \d+ minutes (?!of CPU time)', ' '.join((readme() + _EPILOG).split()))
    hour = next(r for r in json.loads((ROOT / 'results' / 'cpu_hour.json').read_text()) if r['direction'] == 'de-en')
    assert hour['hardware'].startswith('AMD EPYC (AVX2), 2 cores'), hour['hardware']                        # the Multi30k run: wall time, its own CPU
    assert f"photo captions in {hour['wall_s'] / 60:.0f} minutes of wall time on a 2-core AMD EPYC with AVX2;" in flat

def test_readme_says_how_to_export_and_which_extra_it_needs():
    "README names tnb-export's two formats and the extra each needs, as pyproject.toml declares them and the command asks for them."
    try: import tomllib
    except ModuleNotFoundError: import tomli as tomllib   # Python 3.10
    extras = tomllib.loads((ROOT / 'pyproject.toml').read_text())['project']['optional-dependencies']
    text = readme()
    assert 'pip install -e ".[onnx]"' in text and 'tnb-export --format onnx' in text and {'onnx', 'onnxruntime'} <= {re.split('[<>=]', d)[0] for d in extras['onnx']}
    assert 'pip install -e ".[deploy]"' in text and 'tnb-export --ctranslate2' in text and any(d.startswith('ctranslate2') for d in extras['deploy'])
    src = (ROOT / 'transformer_nb' / 'apps' / 'export.py').read_text()
    assert "pip install 'transformer-nb[onnx]'" in src and "pip install 'transformer-nb[deploy]'" in src

def test_readme_gives_the_learners_page_then_the_library():
    "README is the front page for learners (short), then \"Use the library\" under its own title, without what only the site"
    " needs there (a second badge, navigation lines, the page's running time); links to either page go to its section."
    text = readme()
    assert text.index('\n## Try it\n') < text.index('\n## Three ways in\n') < text.index('\n# Use the library\n') \
        < text.index('\n## Install and run the main job\n') < text.index('\n## Use it from Python\n')
    front, use = text.split('\n# Use the library\n', 1)
    assert len(front.split()) <= 1500, f"the front page has grown to {len(front.split())} words (at most 1,500)"
    assert 'colab-badge' not in use and '[← ' not in use and 'Running every cell takes' not in use
    assert '](nbs/use.ipynb' not in text and '](nbs/index.ipynb' not in text and '](#use-the-library)' in front

def test_the_tagline_is_the_package_and_site_description():
    "The front page's tagline is the package's description (pyproject.toml; settings.ini mirrors it, tests/test_config.py) and the site's (nbs/nbdev.yml)."
    import yaml
    try: import tomllib
    except ModuleNotFoundError: import tomli as tomllib   # Python 3.10
    desc = tomllib.loads((ROOT / 'pyproject.toml').read_text())['project']['description']
    site = yaml.safe_load((ROOT / 'nbs' / 'nbdev.yml').read_text(encoding='utf-8'))['website']['description']
    tagline = re.search(r'^> (.+)$', readme(), re.M).group(1)
    assert site == desc and tagline.replace('*', '') == desc + '.', (tagline, desc, site)
