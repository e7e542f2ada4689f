"""Give every notebook in nbs/ an "Open in Colab" badge and a Colab setup cell, or check that each has them.

    python tools/colab.py            # insert or update both cells in every notebook (idempotent: a second run changes nothing)
    python tools/colab.py --check    # exit 1, naming the notebooks, if any notebook lacks them or has an outdated copy
                                     # (a setup cell whose time is not the one results/notebook_times.json gives is one)

The two cells, found again by their cell ids on every run (so running this after a merge, or after someone edited a
notebook, moves and updates them instead of adding copies):

- `colab-badge`, a markdown cell right after the title cell: a static badge linking the notebook's own path on GitHub
  (`https://colab.research.google.com/github/<user>/<repo>/blob/<branch>/nbs/<notebook>`). It renders on GitHub, in
  Jupyter, in Colab and on the docs site without running anything; written as an HTML link, it stays inline on the site
  (a markdown image alone in its paragraph becomes a centred figure with a caption there).
- `colab-setup`, a code cell right after the badge, marked `#| hide` (not on the docs site), six lines. Outside Colab
  it does nothing (`nbdev-test` runs it, so every Python that CI tests compiles it). In Colab it fetches the course
  (the notebooks read stored results from `../results` and their own file for their checks), installs the package
  from it only when `transformer_nb` is not importable already (the package's requirements are lower bounds, so pip
  keeps Colab's torch, numpy and the rest), moves into `nbs/` and prints how long running every cell takes on a 2-core
  CPU (Colab's free runtime has 2): the sentence the notebook's top states, from results/notebook_times.json
  (`python tools/run_notebooks.py --record`; a notebook the file lacks gets no time, with a warning). Multi30k then comes through the package's own checksummed download
  (`find_multi30k()` is None there, so `load_dataset('multi30k', ...)` downloads it into the cache).

The repository, branch and folder come from pyproject.toml (`[project.urls] Repository`, `[tool.nbdev] branch` and
`nbs_path`). The cells are written in nbdev's notebook format (1-space indented JSON), so `nbdev-clean` leaves them as
they are."""
import argparse, json, sys
from pathlib import Path
try: import tomllib                              # Python 3.11+
except ModuleNotFoundError: import tomli as tomllib   # Python 3.10 (the dev extras install tomli there)

ROOT = Path(__file__).resolve().parents[1]
BADGE_ID, SETUP_ID = 'colab-badge', 'colab-setup'
BADGE_IMG = 'https://colab.research.google.com/assets/colab-badge.svg'

from run_notebooks import TIMES, time_sentence     # the course's one source for running times (tools/run_notebooks.py)

def project() -> dict:
    "GitHub user/repo, branch and notebook folder of the project, read from pyproject.toml."
    pp = tomllib.loads((ROOT / 'pyproject.toml').read_text(encoding='utf-8'))
    url = pp['project']['urls']['Repository'].rstrip('/')
    return dict(url=url, repo='/'.join(url.split('/')[-2:]), branch=pp['tool']['nbdev']['branch'],
                nbs=pp['tool']['nbdev']['nbs_path'])

def colab_url(nb_name:str, p:dict|None=None) -> str:
    "The address that opens notebook `nb_name` (its own path in the repository) in Colab."
    p = p or project()
    return f"https://colab.research.google.com/github/{p['repo']}/blob/{p['branch']}/{p['nbs']}/{nb_name}"

def badge_source(nb_name:str, p:dict|None=None) -> str:
    "The badge as an inline HTML link: Quarto makes a markdown image alone in its paragraph a captioned, centred figure."
    return f'<a href="{colab_url(nb_name, p)}"><img src="{BADGE_IMG}" alt="Open In Colab" style="display:inline"></a>'

def setup_source(nb_name:str, p:dict|None=None, times:dict|None=None) -> str:
    "The Colab setup cell of `nb_name`; its last line prints the notebook's time from results/notebook_times.json."
    p = p or project()
    folder = p['url'].split('/')[-1]
    return '\n'.join([
        "#| hide",
        "import importlib.util as iu, os, subprocess as sp, sys   # Colab only (elsewhere nothing happens): fetch the course, install it unless installed (Colab's torch stays), go to nbs/",
        f"if 'google.colab' in sys.modules and not os.path.isfile('{nb_name}'):",
        f"    if not os.path.isdir('{folder}'): sp.run(['git', 'clone', '-q', '--depth=1', '{p['url']}'], check=True)",
        f"    if not getattr(iu.find_spec('transformer_nb'), 'origin', None): sp.run([sys.executable, '-m', 'pip', 'install', '-q', './{folder}'], check=True)",
        f"    os.chdir('{folder}/{p['nbs']}')" + (f"; print({time_sentence(nb_name, times)!r})" if measured(nb_name, times) else ''),
    ])

def measured(nb_name:str, times:dict|None=None) -> bool:
    "Whether results/notebook_times.json (or `times`) holds a time for `nb_name`."
    times = times if times is not None else json.loads(TIMES.read_text(encoding='utf-8')) if TIMES.is_file() else {'notebooks': {}}
    return nb_name in times['notebooks']

def _src(text:str) -> list:
    lines = text.split('\n')
    return [l + '\n' for l in lines[:-1]] + [lines[-1]]

def _cell(kind:str, cid:str, text:str) -> dict:
    c = dict(cell_type=kind, id=cid, metadata={}, source=_src(text))
    if kind == 'code': c.update(execution_count=None, outputs=[])
    return dict(sorted(c.items()))

def updated(nb:dict, nb_name:str, p:dict|None=None) -> dict:
    "`nb` with the badge right after the title cell and the setup cell right after the badge (other cells untouched)."
    cells = [c for c in nb['cells'] if c.get('id') not in (BADGE_ID, SETUP_ID)]
    if not cells or cells[0]['cell_type'] != 'markdown' or not ''.join(cells[0]['source']).startswith('# '):
        raise ValueError(f"{nb_name}: the first cell is not the '# Title' markdown cell")
    new = [_cell('markdown', BADGE_ID, badge_source(nb_name, p)), _cell('code', SETUP_ID, setup_source(nb_name, p))]
    return {**nb, 'cells': cells[:1] + new + cells[1:]}

def dump(nb:dict) -> str: return json.dumps(nb, indent=1, ensure_ascii=False) + '\n'

def main(argv=None) -> int:
    a = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument('--check', action='store_true', help="change nothing; exit 1 if a notebook lacks the cells or has old ones")
    args = a.parse_args(argv)
    p = project()
    stale = []
    times = json.loads(TIMES.read_text(encoding='utf-8')) if TIMES.is_file() else {'notebooks': {}}
    unmeasured = sorted(n.name for n in (ROOT / p['nbs']).glob('*.ipynb') if n.name not in times['notebooks'])
    if unmeasured:
        print(f"{TIMES.relative_to(ROOT)} has no time for {', '.join(unmeasured)}, whose setup cells print none (and "
              f"tests/test_times.py fails): run python tools/run_notebooks.py {' '.join(p['nbs'] + '/' + n for n in unmeasured)} "
              f"--record {TIMES.relative_to(ROOT)}", file=sys.stderr)
    for path in sorted((ROOT / p['nbs']).glob('*.ipynb')):
        old = path.read_text(encoding='utf-8')
        new = dump(updated(json.loads(old), path.name, p))
        if new == old: continue
        stale.append(path.name)
        if not args.check: path.write_text(new, encoding='utf-8')
    if args.check and stale:
        print(f"{len(stale)} notebooks lack the Colab badge or setup cell, or have an old copy: {', '.join(stale)}; "
              "run python tools/colab.py", file=sys.stderr)
        return 1
    print("every notebook has the Colab badge and setup cell" if args.check else
          f"updated {len(stale)} notebooks" + (f": {', '.join(stale)}" if stale else ''))
    return 0

if __name__ == '__main__': sys.exit(main())
