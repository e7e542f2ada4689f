"""What the decoding benchmarks share (`bench_peers.py`, `ablate_beam.py`, `profile_decode.py`): their options, where
Multi30k's test files are, the source sentences as piece ids, and length-sorted batches of them.

The data folder is `--data-dir` when a script is given one, else `$TNB_MULTI30K`, else the first
`shared/data/multi30k` in this repository's folder or one of its parents (`find_multi30k`), e.g.
`../shared/data/multi30k` beside the checkout.
"""
import argparse, os, sys
from pathlib import Path
from transformer_nb.core import EOS_ID, PAD_ID
from transformer_nb.lib.tokens import pad_ids
from transformer_nb.lib.datasets import find_multi30k
from transformer_nb.lib.fast_decoding import length_batches
ROOT = Path(__file__).resolve().parents[1]                    # the repository

def decode_options(doc:str, repeats:int, repeats_help:str) -> argparse.ArgumentParser:
    "The options of a script that decodes test2016 with a checkpoint (`ablate_beam.py`, `profile_decode.py`); each adds its own."
    ap = argparse.ArgumentParser(allow_abbrev=False, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--checkpoint', required=True, help='a trained checkpoint, or its run folder (the newest checkpoint)')
    ap.add_argument('--data-dir', default=None, help='the Multi30k folder (default: $TNB_MULTI30K or shared/data/multi30k found upwards)')
    ap.add_argument('--src', default=None, help='source sentences, one per line (default: test_2016_flickr.de.gz of --data-dir)')
    ap.add_argument('--n', type=int, default=500, help='first N sentences (default 500)')
    ap.add_argument('--max-tokens', type=int, default=2000, help='source tokens per batch (default 2000)')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--repeats', type=int, default=repeats, help=f'{repeats_help} (default {repeats})')
    ap.add_argument('--json', default=None, help='write the results here, a JSON file')
    return ap

def multi30k_file(name:str, data_dir=None) -> Path:
    "A file of the Multi30k folder (`data_dir`, else `find_multi30k`); exits with a message saying how to point at it."
    d = Path(data_dir) if data_dir else find_multi30k(ROOT)
    if d is None or not (d / name).is_file():
        sys.exit(f"{name} not found{f' in {d}' if d else ''}: give --data-dir (or --src/--ref), or set TNB_MULTI30K to the "
                 f"Multi30k folder (e.g. ../shared/data/multi30k)")
    return d / name

def source_ids(tok, lines:list[str]) -> list[list[int]]:
    "Each sentence as our model reads it: its SentencePiece ids + EOS (encoded once, outside every timing)."
    return [tok.encode(l.strip()) + [EOS_ID] for l in lines]

def id_batches(srcs:list[list[int]], max_tokens:int):
    "(indices, (b, S) padded tensor) per length-sorted batch of at most `max_tokens` source tokens (padding included)."
    for batch in length_batches([len(s) for s in srcs], max_tokens):
        yield batch, pad_ids([srcs[i] for i in batch], PAD_ID)

def rel(path) -> str:
    "`path` relative to the repository if it is an absolute path of this machine (records name no machine's folders)."
    p = str(path)
    return os.path.relpath(p, ROOT) if os.path.isabs(p) and os.path.exists(p) else p

def command(script:str, argv) -> str:
    "The command line of a run, for its JSON record: `python bench/NAME.py ARGS`, paths relative to the repository."
    args = sys.argv[1:] if argv is None else argv
    return ' '.join(['python', f'bench/{script}', *(rel(a) for a in args)])

def load_average() -> list[float]:
    try: return [round(x, 2) for x in os.getloadavg()]
    except OSError: return [float('nan')] * 3
