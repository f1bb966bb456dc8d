#!/bin/sh
# Trace-writer benchmark (issue 29 item 5; results in docs/trace-format.md, "Compression").
#
#   bench/trace_write_bench.sh [GCSIM] [N ...]
#
# GCSIM: the gcsim binary (default build/cli/gcsim); N: workload sizes (default 100000).
# For each N it writes the review's P5 workload (bench/make_jobs_csv.py) into a
# scratch folder, then
#   1. `gcsim run bigN.yaml --no-plots -q --trace-compression L` for each level L: the
#      whole command's median wall and CPU time (farm-bench, 3 runs) and the trace's size;
#   2. `gcsim compare bigN.yaml --policy fifo --policy sjf --no-plots` at -j 1 and -j 2
#      (default level), paired runs: farm-bench's "A/B wall" is -j 2 over -j 1 (the
#      issue's target, a 1.8x speed-up on two idle cores, is A/B wall <= 0.56).
# Times are of whole processes (loading the CSV, the run, reading the trace back).
# Run it on a quiet machine: `uptime` is printed first, and -j 2 needs two idle cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
gcsim=$(realpath "${1:-$src/build/cli/gcsim}")
[ $# -gt 0 ] && shift
sizes=${*:-100000}
export GCSIM_DATA_DIR="$src"
work=$(mktemp -d "${TMPDIR:-/tmp}/trace-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
runs=${RUNS:-3}
uptime
nproc
for n in $sizes; do
  python3 "$here/make_jobs_csv.py" "$n" --out "$work" > /dev/null
  echo "== $n jobs: gcsim run, per compression level (median of $runs) =="
  for level in 0 1 2 3 4 6 9; do
    out="$work/out$level"
    farm-bench -n "$runs" --warmup 0 --timeout 3600 -- \
      "$gcsim" run "$work/big$n.yaml" -o "$out" --no-plots -q --trace-compression "$level" >"$work/fb.txt" 2>&1 || true
    size=$(stat -c %s "$out/big$n.h5")
    printf 'level %s: trace %s bytes\n' "$level" "$size"
    grep -E 'wall|cpu' "$work/fb.txt" | sed 's/^/    /'
  done
  echo "== $n jobs: gcsim compare --policy fifo --policy sjf, -j 2 (A) vs -j 1 (B), paired =="
  farm-bench -n "$runs" --warmup 0 --timeout 3600 \
    --vs "$gcsim compare $work/big$n.yaml --policy fifo --policy sjf --no-plots -j 1" -- \
    "$gcsim" compare "$work/big$n.yaml" --policy fifo --policy sjf --no-plots -j 2 || true
done
