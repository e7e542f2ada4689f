# Sourced by the scripts in experiments/gpu on a bare GPU machine (see README.md there): no pip index, no internet.
# Installs the carried wheels (.whl/: fastcore, nbdev and what they need) beside the machine's own PyTorch, puts this
# checkout on PYTHONPATH and the tnb-* commands on PATH, and points DATA at the carried Multi30k copy.
set -eo pipefail
export PYTHONUNBUFFERED=1 MPLBACKEND=Agg OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
ROOT=$(pwd)
if [ ! -e /tmp/site/.done ] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  touch /tmp/site/.done
fi
export PYTHONPATH=$ROOT:/tmp/site PATH=/tmp/tnb-bin:/tmp/site/bin:$PATH
mkdir -p /tmp/tnb-bin
for t in train translate evaluate average; do
  cat > /tmp/tnb-bin/tnb-$t <<SH
#!/bin/sh
exec python3 -c "import sys; sys.argv[0] = 'tnb-$t'; from transformer_nb.apps.cli import ${t}_main; ${t}_main()" "\$@"
SH
  chmod +x /tmp/tnb-bin/tnb-$t
done
DATA=$ROOT/.gpu/data/multi30k
if [ ! -d ../shared/data/multi30k ] && [ -d "$DATA" ]; then   # where the tests and notebooks look, as in CI
  mkdir -p ../shared/data && cp -r "$DATA" ../shared/data/
fi
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
