#!/bin/sh
# `gcsim compare -j 2` against `-j 1` of two policies (issue 29, item 5: -j 2 at least 1.8x
# faster on two idle cores; the figures are in docs/trace-format.md, "Runs side by side").
#
#   bench/compare_speedup.sh [GCSIM] [JOBS]      (default: build/cli/gcsim, 100000; RUNS=5)
#
# Writes the review's P5 workload of JOBS written-out jobs (bench/make_jobs_csv.py: a CSV
# table and bigJOBS.yaml) into a scratch folder, then runs, in turn (-j 1, -j 2, -j 1, ...,
# RUNS pairs after one unmeasured pair),
#   /usr/bin/time -v GCSIM compare bigJOBS.yaml --policy fifo --policy sjf --no-plots -j 1
#   /usr/bin/time -v GCSIM compare bigJOBS.yaml --policy fifo --policy sjf --no-plots -j 2
# checks that both print the same table, and prints each run's wall, user and system
# seconds and max RSS, the medians, and the speed-up: the median of the pairs' -j 1 / -j 2
# wall ratios (pairing keeps the ratio fair when the machine's load drifts). Then
# `gcsim validate bigJOBS.yaml` (the scenario's load, the serial head of a compare) the
# same way. `uptime` is printed first and last: -j 2 needs two idle cores, and on a
# loaded machine the user seconds (which load hardly changes) say more than the wall.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
gcsim=$(realpath "${1:-$src/build/cli/gcsim}")
jobs=${2:-100000}
runs=${RUNS:-5}
export GCSIM_DATA_DIR="$src"
work=$(mktemp -d "${TMPDIR:-/tmp}/compare-speedup.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work"
python3 "$here/make_jobs_csv.py" "$jobs" --out "$work" > /dev/null
echo "uptime: $(uptime)"
echo "cores: $(nproc)"

# one LABEL ARGS...: runs gcsim ARGS under /usr/bin/time -v; appends "LABEL wall user sys rss_kb"
# to runs.txt and keeps the output in LABEL.out.
one() {
  label=$1
  shift
  /usr/bin/time -v "$gcsim" "$@" > "$label.out" 2> time.log || { cat time.log; exit 1; }
  python3 - "$label" time.log >> runs.txt <<'PY'
import sys
label, log = sys.argv[1], open(sys.argv[2]).read().splitlines()
v = {}
for line in log:
    k, _, x = line.strip().rpartition(": ")
    v[k] = x
w = v["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
wall = sum(float(p) * 60 ** i for i, p in enumerate(reversed(w)))
print(label, wall, v["User time (seconds)"], v["System time (seconds)"], v["Maximum resident set size (kbytes)"])
PY
}

args="compare big$jobs.yaml --policy fifo --policy sjf --no-plots"
: > runs.txt
# shellcheck disable=SC2086
one warm1 $args -j 1
# shellcheck disable=SC2086
one warm2 $args -j 2
i=0
while [ "$i" -lt "$runs" ]; do
  # shellcheck disable=SC2086
  one j1 $args -j 1
  # shellcheck disable=SC2086
  one j2 $args -j 2
  cmp -s j1.out j2.out || { echo "-j 1 and -j 2 printed different tables"; diff j1.out j2.out; exit 1; }
  one validate validate "big$jobs.yaml"
  i=$((i + 1))
done
python3 - runs.txt <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for label, wall, user, sys_s, rss in rows:
    if label.startswith("warm"):
        continue
    by.setdefault(label, []).append((float(wall), float(user), float(sys_s), int(rss)))
for label in ("j1", "j2", "validate"):
    r = by[label]
    for wall, user, sys_s, rss in r:
        print(f"  {label:8} wall {wall:6.2f} s  user {user:6.2f} s  sys {sys_s:5.2f} s  max RSS {rss / 1024:7.1f} MiB")
    med = [statistics.median(x[k] for x in r) for k in range(4)]
    print(f"{label:10} median of {len(r)}: wall {med[0]:.2f} s, user {med[1]:.2f} s, sys {med[2]:.2f} s, "
          f"max RSS {med[3] / 1024:.1f} MiB")
pairs = [a[0] / b[0] for a, b in zip(by["j1"], by["j2"])]
print("speed-up of -j 2 over -j 1 (median of the pairs' wall ratios): "
      f"{statistics.median(pairs):.2f}x (pairs: {', '.join(f'{p:.2f}' for p in pairs)})")
PY
echo "uptime: $(uptime)"
