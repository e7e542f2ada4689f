"""No committed file carries the build machine's paths: every file `git ls-files` lists, read as a reader of the
repository or a user of the package meets it: text files line by line, notebooks cell by cell (sources and stored
outputs), and the metadata of the checkpoints in models/ (loaded with `weights_only=True`, the tensors skipped).

A machine's path is an absolute path into a home or work folder (`/work`, `/root`, `/home` or `/Users`, and the
name in it; `C:` and the Windows user folders), or one the machine made up for a moment under `/tmp` (`tempfile`'s
`tmp` folders, IPython's `ipykernel_` files, pytest's folders; macOS's `var/folders`). A path written as an example
for the reader (`--out /tmp/run`, `--json /tmp/trial.json`) names no machine and passes; so does a relative one
(`runs/numbers`). The patterns below are spelled so that this file holds none of them."""
import json, re, subprocess
from pathlib import Path
import pytest, torch

ROOT = Path(__file__).resolve().parents[1]

MACHINE_PATH = re.compile(
    r"(?<![\w~-])(?:/(?:work|root|home|Users)/[\w.+@-]+"           # a home or work folder, and the name in it
    r"|/tmp/(?:tmp[a-z0-9_]{6,}|ipykernel_\d+|pytest-of-[\w.-]+)"   # a folder the machine named for a moment
    r"|/(?:private/)?var/folders/"                                  # macOS's temporary folders
    r"|\b[A-Za-z]:\\{1,2}(?:Users|Documents and Settings)\\)",      # Windows' home folders, as typed or as JSON writes them
    re.IGNORECASE)

def found(text:str) -> list[str]: return [m.group(0) for m in MACHINE_PATH.finditer(text)]

def _strings(x, where=''):
    "(where, string) for every string in a checkpoint's nested dicts and lists; tensors and numbers are skipped."
    if isinstance(x, dict):
        for k, v in x.items(): yield from _strings(v, f"{where}.{k}" if where else str(k))
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x): yield from _strings(v, f"{where}[{i}]")
    elif isinstance(x, str): yield where, x

def notebook_places(nb:dict):
    "(where, text) of a notebook: each cell's source and each of its stored outputs."
    for i, c in enumerate(nb.get('cells', [])):
        cell = f"cell {i}" + (f" ({c['id']})" if c.get('id') else '')
        yield f"{cell} source", ''.join(c.get('source', ''))
        for o in c.get('outputs', []):
            texts = [o.get('text', '')] + list(o.get('data', {}).values()) + [o.get('evalue', ''), *o.get('traceback', [])]
            yield f"{cell} output", '\n'.join(t if isinstance(t, str) else ''.join(t) if isinstance(t, list) else json.dumps(t) for t in texts)

def places(path:Path):
    "(where, text) of a committed file as its reader meets it; nothing for a binary file other than a checkpoint."
    if path.suffix == '.pt':
        ck = torch.load(path, map_location='cpu', weights_only=True, mmap=True)
        yield from ((f"checkpoint {w}", s) for w, s in _strings({k: v for k, v in ck.items() if k != 'model'}))
        return
    data = path.read_bytes()
    if b'\0' in data: return                                               # an image or another binary file
    try: text = data.decode('utf-8')
    except UnicodeDecodeError: return
    if path.suffix == '.ipynb':
        yield from notebook_places(json.loads(text)); return
    for i, line in enumerate(text.splitlines(), 1): yield f"line {i}", line

def problems(root:Path, files:list[str]) -> list[str]:
    "'FILE, WHERE: PATH' for every machine path in `files` (relative to `root`)."
    return [f"{f}, {where}: {p}" for f in files if (root / f).is_file() for where, text in places(root / f) for p in found(text)]

def committed(root:Path) -> list[str]:
    r = subprocess.run(['git', 'ls-files', '-z'], cwd=root, capture_output=True)
    if r.returncode: pytest.skip(f"not a git checkout ({r.stderr.decode(errors='replace').strip()[:100]}): no committed files to read")
    return [f for f in r.stdout.decode().split('\0') if f]

W = '/wo' + 'rk/'      # the prefixes this file plants, spelled so that this file itself holds none

def test_the_path_check_can_fail(tmp_path):
    assert found(f"tnb-train --out {W}runs/pre-numbers") == [f"{W}runs"]
    assert found("../../../.." + W + "wt/shared/data") == [f"{W}wt"]            # climbed to from a relative path
    for bad in ('/ro' + 'ot/.pyenv/versions/3.11', '/ho' + 'me/ada/x', '/tm' + 'p/tmp5lno6ax4/copy', '/tm' + 'p/ipykernel_17884/1.py',
                'C:' + '\\\\Users\\\\ada', 'C:' + '\\Users\\ada', '/Us' + 'ers/ada/x', '/priv' + 'ate/var/folders/xy/T'):
        assert found(f"at {bad}: here"), bad
    for fine in ('--out /tmp/run', '--json /tmp/trial.json', 'runs/numbers', 'https://example.org/home/page', "'/work/' not in",
                 '~/home/x', 'a/work/b', 'shared/data/multi30k'):
        assert found(fine) == [], fine
    (tmp_path / 'notes.md').write_text(f"fine\nrun {W}runs/pre-de-en here\n")
    nb = {'cells': [{'cell_type': 'markdown', 'id': 'a1', 'source': ['fine']},
                    {'cell_type': 'code', 'id': 'b2', 'source': ['x'], 'outputs': [{'output_type': 'stream', 'text': ['/ro' + 'ot/.pyenv/x\n']}]}]}
    (tmp_path / 'x.ipynb').write_text(json.dumps(nb))
    torch.save({'model': {'w': torch.zeros(1)}, 'meta': {'command': f'tnb-train --out {W}runs/pre-numbers', 'ok': 'runs/x'}}, tmp_path / 'm.pt')
    (tmp_path / 'image.png').write_bytes(b'\x89PNG\0' + W.encode())
    assert problems(tmp_path, ['notes.md', 'x.ipynb', 'm.pt', 'image.png']) == [
        f"notes.md, line 2: {W}runs", "x.ipynb, cell 1 (b2) output: /ro" + "ot/.pyenv", f"m.pt, checkpoint meta.command: {W}runs"]

def test_no_committed_file_holds_a_build_machines_path():
    bad = problems(ROOT, committed(ROOT))
    assert not bad, f"{len(bad)} build machine path(s) in committed files (write them relative, or as the command was typed):\n" + '\n'.join(bad)
