#!/bin/sh
# `gcsim alerts` over a month of 5,000 GPUs (issue 32; results in docs/alerts.md, "Cost").
#
#   bench/alerts_month.sh [GCSIM] [OUT]
#
# GCSIM: the gcsim binary (default build/cli/gcsim); OUT: a scratch folder (default
# /tmp/gcsim-alerts-month). Runs scenarios/examples/monitoring/fleet-5000-month.yaml once
# (625 p4d nodes, 29,952 jobs, metrics every 15 s; kept in OUT for the next call), then
# the guides' rules (scenarios/examples/monitoring/guide-rules.yml) over its trace under
# /usr/bin/time -v, RUNS times (default 3): each run's wall, CPU and peak RSS, and the
# firings by alert. Run it on a quiet machine: `uptime` is printed first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
gcsim=$(realpath "${1:-$src/build/cli/gcsim}")
out=${2:-/tmp/gcsim-alerts-month}
runs=${RUNS:-3}
mkdir -p "$out"
uptime
trace="$out/fleet-5000-month.h5"
if [ ! -f "$trace" ]; then
  "$gcsim" run "$src/scenarios/examples/monitoring/fleet-5000-month.yaml" -o "$out" --no-plots > "$out/run.log"
fi
i=1
while [ "$i" -le "$runs" ]; do
  /usr/bin/time -v "$gcsim" alerts "$trace" --rules "$src/scenarios/examples/monitoring/guide-rules.yml" --json \
    > "$out/alerts.json" 2> "$out/time.txt"
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time.txt")
  user=$(sed -n 's/.*User time (seconds): //p' "$out/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$out/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time.txt")
  echo "run $i: wall $wall, user $user s, sys $sys s, peak RSS $rss KB"
  i=$((i + 1))
done
echo "firings by alert:"
grep -o '"alert": "[A-Za-z0-9_]*"' "$out/alerts.json" | sort | uniq -c
