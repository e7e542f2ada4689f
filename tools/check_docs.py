"""Process every notebook into its docs page offline, as the deploy workflow's Quarto build would see it.

nbdev's `proc_nbs` runs the docs processors (directives, `show_doc`, exported and import cells) on each notebook and
raises when a page's cells fail. Quarto itself cannot be installed on machines without GitHub access, so this is the
check CI can run: it fails when a page would break, and when any notebook produced no page.

    python tools/check_docs.py
"""
import json, sys
from pathlib import Path
from nbdev.config import get_config
from nbdev.serve import proc_nbs

def main():
    cfg = get_config()
    cache = Path(proc_nbs(n_workers=2))
    srcs = sorted(p.relative_to(cfg.nbs_path) for p in Path(cfg.nbs_path).glob('*.ipynb'))
    missing = [str(s) for s in srcs if not (cache/s).exists()]
    if missing: sys.exit(f"docs processing produced no page for {missing}")
    empty = [str(s) for s in srcs if not json.loads((cache/s).read_text())['cells']]
    if empty: sys.exit(f"docs pages without cells: {empty}")
    print(f"{len(srcs)} docs pages processed")

if __name__ == '__main__': main()
