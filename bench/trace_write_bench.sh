#!/bin/sh
# Trace-writer benchmark (issue 29 item 5; results in docs/trace-format.md, "Compression").
#
#   bench/trace_write_bench.sh [GCSIM] [N ...]
#
# GCSIM: the gcsim binary (default build/cli/gcsim); N: workload sizes (default 100000).
# For each N it writes the review's P5 workload (bench/make_jobs_csv.py) into a
# scratch folder, then
#   1. `gcsim run bigN.yaml --no-plots -q --trace-compression L` for each level L: the
#      whole command's wall and CPU time (/usr/bin/time -v, RUNS runs, default 3, each
#      printed) and the trace's size;
#   2. `gcsim compare bigN.yaml --policy fifo --policy sjf --no-plots` at -j 1 and -j 2
#      (default level), in turn, RUNS pairs: each pair's -j 2 wall over -j 1's (the
#      issue's target, a 1.8x speed-up on two idle cores, is a ratio <= 0.56).
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
# wall and CPU seconds of one whole command, as "WALL CPU"
timed() {
  /usr/bin/time -f '%e %U %S' -o "$work/time.txt" "$@" > /dev/null 2>&1 || true
  awk '{ printf "%s %.2f", $1, $2 + $3 }' "$work/time.txt"
}
for n in $sizes; do
  python3 "$here/make_jobs_csv.py" "$n" --out "$work" > /dev/null
  echo "== $n jobs: gcsim run, per compression level ($runs runs: wall s, CPU s) =="
  for level in 0 1 2 3 4 6 9; do
    out="$work/out$level"
    line=""
    i=0
    while [ "$i" -lt "$runs" ]; do
      line="$line  $(timed "$gcsim" run "$work/big$n.yaml" -o "$out" --no-plots -q --trace-compression "$level")"
      i=$((i + 1))
    done
    printf 'level %s: trace %s bytes; runs:%s\n' "$level" "$(stat -c %s "$out/big$n.h5")" "$line"
  done
  echo "== $n jobs: gcsim compare --policy fifo --policy sjf, -j 2 then -j 1, in pairs (wall s, CPU s; ratio of walls) =="
  i=0
  while [ "$i" -lt "$runs" ]; do
    a=$(timed "$gcsim" compare "$work/big$n.yaml" --policy fifo --policy sjf --no-plots -j 2)
    b=$(timed "$gcsim" compare "$work/big$n.yaml" --policy fifo --policy sjf --no-plots -j 1)
    echo "$a $b" | awk '{ printf "-j 2: %s s wall, %s s CPU; -j 1: %s s wall, %s s CPU; ratio %.2f\n", $1, $2, $3, $4, $1 / $3 }'
    i=$((i + 1))
  done
done
