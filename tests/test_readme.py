"""README's "Use it from Python" section runs as printed: every line of its code block, in a fresh interpreter, in a
folder where the main job's run folder exists (a numbers run trained for a few updates, averaged as the main job does)."""
import os, re, subprocess, sys
import pytest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, 'TNB_THREADS': '1', 'OMP_NUM_THREADS': '1', 'MPLBACKEND': 'Agg'}

def python_section() -> str:
    text = (ROOT / 'README.md').read_text(encoding='utf-8')
    section = text.split('## Use it from Python', 1)[1].split('\n## ', 1)[0]
    blocks = re.findall(r'```python\n(.*?)```', section, re.S)
    assert len(blocks) == 1, "README's Python section should hold one python block"
    return blocks[0]

@pytest.mark.slow
def test_readme_python_section_runs(tmp_path):
    code = python_section()
    assert "model_from_checkpoint('runs/numbers')" in code
    r = subprocess.run([sys.executable, '-c', 'from transformer_nb.cli import train_main; train_main()', '--preset', 'tiny',
                        '--steps', '4', '--save-every', '2', '--average', '2', '--no-progress', '--test-limit', '0'],
                       cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / 'runs' / 'numbers' / 'average.pt').is_file()
    r = subprocess.run([sys.executable, '-c', code], cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout.splitlines()
    assert out[0].startswith('[') and len(eval(out[0])) == 2            # two translations (an untrained model's guesses)
    assert 'nc:6|nw:0' in out[1]                                        # sacreBLEU's chrF signature
    assert out[2].endswith(' parameters') and int(out[2].split()[0].replace(',', '')) > 60_000_000
