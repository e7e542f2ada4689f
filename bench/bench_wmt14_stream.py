#!/usr/bin/env python
"""Peak memory of `tnb-data wmt14` unpacking one multi-GB archive member (apps_wmt14), as Gigaword's and the UN corpus's
are: a synthetic member of `--mb` MB of text (lines of words, with a U+2028, a U+0085 and a lone '\\r' inside some of
them, CRLF line ends in some), gzipped inside a plain tar as `training-giga-fren.tar` holds its members, streamed into
a corpus file by the same code `tnb-data` runs (`_members`, `_copy_lines`) in a fresh process, whose peak resident
memory (`ru_maxrss`) is the figure; the target is 2 GB whatever the member's size. The process then hashes the file it
wrote (`file_digest`, SHA-256), as `tnb-train --dataset wmt14` hashes its training files at each start to key the
encoded cache by their content: its time at this size is the second figure.

    python bench/bench_wmt14_stream.py --mb 3072 --json results/wmt14_stream.json     # a 3 GB member (about 7 GB of disk)
    python bench/bench_wmt14_stream.py --mb 2                                          # a smoke run
"""
import argparse, gzip, json, os, random, shutil, subprocess, sys, tarfile, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))

MEMBER = 'giga-fren.release2.fixed.fr.gz'
BLOCK = 1 << 20          # bytes of text in each distinct block the member is assembled from
BLOCKS = 64              # distinct blocks at most, further apart than gzip's 32 KB window: the member compresses as text does

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from transformer_nb.apps.wmt14 import _members, _copy_lines, file_digest
tar, name, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
def rss_mb():
    with open('/proc/self/statm') as f: return int(f.read().split()[1]) * resource.getpagesize() / 2**20
before = rss_mb(); t0 = time.perf_counter()
with open(out, 'w', encoding='utf-8', newline='\n') as o:
    lines = _members(tar, [name], lambda n, f: _copy_lines(f, o, n))[name]
t1 = time.perf_counter(); digest = file_digest(out); t2 = time.perf_counter()
print(json.dumps(dict(lines=lines, stream_seconds=round(t1 - t0, 3), digest_seconds=round(t2 - t1, 3), sha256=digest,
                      rss_after_imports_mb=round(before, 1), peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))))
"""

def blocks(n:int, seed:int=0) -> list[bytes]:
    "`n` distinct blocks of about BLOCK bytes of UTF-8 lines, some with the characters `str.splitlines()` breaks at."
    rng = random.Random(seed)
    words = ['la', 'maison', 'un', 'chat', 'voit', 'petit', 'vert', 'rivière', 'ville', 'vieux', 'été', 'où', 'déjà', 'cœur']
    odd = ['\u2028', '\x85', '\r', '']
    out = []
    for _ in range(n):
        lines, n = [], 0
        while n < BLOCK:
            line = ' '.join(rng.choices(words, k=rng.randint(3, 40))) + rng.choice(odd) + ' fin .' + rng.choice(['\n', '\r\n'])
            lines.append(line); n += len(line.encode())
        out.append(''.join(lines).encode())
    return out

def build(folder:Path, mb:float) -> tuple[Path, int]:
    "The tar with one gzipped member of about `mb` MB of text; the text's size in bytes."
    pool, rng, size = blocks(max(1, min(BLOCKS, int(mb)))), random.Random(1), 0
    gz = folder / MEMBER
    with gzip.open(gz, 'wb', compresslevel=1) as f:
        while size < mb * 2**20:
            b = rng.choice(pool)[:int(mb * 2**20) - size] if mb * 2**20 - size < BLOCK else rng.choice(pool)
            cut = b.rfind(b'\n') + 1 or len(b)                 # whole lines only
            f.write(b[:cut]); size += cut
    tar = folder / 'training-giga-fren.tar'
    with tarfile.open(tar, 'w') as t: t.add(gz, arcname=MEMBER)
    gz.unlink()
    return tar, size

def main(argv=None):
    from _common import command, load_average
    from transformer_nb.lib.machine import hardware
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split('\n\n')[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--mb', type=float, default=3072, help="MB of text in the member (default 3072: 3 GB)")
    p.add_argument('--dir', help="a folder for the archive and the file written (default: a temporary one, removed after)")
    p.add_argument('--json', help="write the figures to this file")
    a = p.parse_args(argv)
    work = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix='wmt14-stream-'))
    work.mkdir(parents=True, exist_ok=True)
    try:
        load_before = load_average(); t0 = time.perf_counter()
        tar, size = build(work, a.mb)
        built = time.perf_counter() - t0
        r = subprocess.run([sys.executable, '-c', CHILD, str(tar), MEMBER, str(work / 'train.fr')], capture_output=True, text=True,
                           env={**os.environ, 'OMP_NUM_THREADS': '1'})
        if r.returncode: sys.exit(f"the streaming process failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}")
        got = json.loads(r.stdout.splitlines()[-1])
        written = (work / 'train.fr').stat().st_size
    finally:
        if not a.dir: shutil.rmtree(work, ignore_errors=True)
    rec = dict(command=command('bench_wmt14_stream.py', argv), args=vars(a) | {'dir': None}, member=MEMBER, member_text_bytes=size,
               archive_build_seconds=round(built, 1), written_bytes=written, **got,
               stream_mb_s=round(size / 2**20 / max(got['stream_seconds'], 1e-9), 1),
               digest_gb_s=round(written / 2**30 / max(got['digest_seconds'], 1e-9), 2),
               target_peak_gb=2.0, target_met=got['peak_rss_mb'] <= 2 * 1024,
               machine=hardware(), cores=os.cpu_count(), load_before=load_before, load_after=load_average(), date=time.strftime('%Y-%m-%d'))
    print(f"member: {size / 2**20:,.0f} MB of text ({got['lines']:,} lines), gzipped in a tar, streamed in {got['stream_seconds']} s "
          f"({rec['stream_mb_s']} MB/s)")
    print(f"peak memory: {got['peak_rss_mb']:,.0f} MB ({got['rss_after_imports_mb']:,.0f} MB after the imports); target 2 GB: "
          f"{'met' if rec['target_met'] else 'NOT met'}")
    print(f"SHA-256 of the {written / 2**20:,.0f} MB written (the encoded cache's content key): {got['digest_seconds']} s ({rec['digest_gb_s']} GB/s)")
    print(f"on {rec['machine']}, {rec['cores']} cores, load {load_before} before, {rec['load_after']} after")
    if a.json: Path(a.json).write_text(json.dumps(rec, indent=1) + '\n')

if __name__ == '__main__': main()
