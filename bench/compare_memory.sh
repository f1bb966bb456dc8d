#!/bin/sh
# Peak memory of `gcsim compare` with four policies against one policy on a written-out
# workload (issue 29, item 4; review architecture-2026-12-04 §3c.2 and probe P5). Every
# policy runs over one shared, read-only Scenario (RunOptions::scheduler), so four
# policies should cost about what one does: target, max RSS of four within 1.5x of one.
#
#   bench/compare_memory.sh [GCSIM] [JOBS...]     (default: build/cli/gcsim, 100000 1000000)
#
# Writes jobsN.csv and bigN.yaml with bench/make_jobs_csv.py (the review's P5 workload:
# exponential arrivals of mean 20 s, sizes 1/2/4/8, lognormal(7, 1.2) s durations, 200 x
# 8-GPU A100 nodes, fifo) into a scratch folder, then runs, at -j 1,
#   /usr/bin/time -v GCSIM compare bigN.yaml --policy fifo --no-plots --json -j 1
#   /usr/bin/time -v GCSIM compare bigN.yaml --policy fifo --policy sjf --policy las --policy srtf --no-plots --json -j 1
# and prints wall time and max RSS of each. The figures are in docs/engine.md.
set -eu
GCSIM=$(realpath "${1:-build/cli/gcsim}")
[ $# -gt 0 ] && shift
SIZES=${*:-100000 1000000}
DATA_DIR=$(pwd)
HERE=$(dirname "$(realpath "$0")")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gcsim-compare-memory.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
cd "$WORK"
for N in $SIZES; do
  python3 "$HERE/make_jobs_csv.py" "$N" --out "$WORK" > /dev/null
  for POLICIES in "--policy fifo" "--policy fifo --policy sjf --policy las --policy srtf"; do
    # shellcheck disable=SC2086
    GCSIM_DATA_DIR="$DATA_DIR" /usr/bin/time -v "$GCSIM" compare "big$N.yaml" $POLICIES --no-plots --json -j 1 \
      > out.json 2> time.log || { cat time.log; exit 1; }
    wall=$(sed -n "s/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p" time.log)
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' time.log)
    echo "jobs=$N policies=$(echo $POLICIES | wc -w | awk '{print $1/2}') wall=$wall max_rss_kb=$rss"
  done
done
