#!/bin/sh
# A day of one service at 1,000 requests per second: 86.4 million requests (issue 33,
# "Speed"; figures in docs/serving.md, "Batching"). Writes the scenario into a scratch
# folder and runs
#   /usr/bin/time -v GCSIM run serving-day.yaml -o OUT --no-plots
# RUNS times (default 3) with the default output.request_rows (1,000,000 sampled request rows
# in the trace) and RUNS times with none (`--set output.request_rows=0`), printing each
# run's wall clock, peak RSS, events, the requests per second of simulation (completed
# requests / wall clock of the whole `gcsim run`) and the trace's size.
# Four replicas of a 20 ms (lognormal) batch, max_batch 16, max_wait 5 ms, Poisson
# arrivals of mean 1 ms. Run it on a quiet machine: `uptime` is printed first.
#
#   bench/serving_bench.sh [GCSIM] [OUT]    (default build/cli/gcsim, /tmp/gcsim-serving-bench)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
gcsim=$(realpath "${1:-$src/build/cli/gcsim}")
out=${2:-/tmp/gcsim-serving-bench}
runs=${RUNS:-3}
mkdir -p "$out"
cat > "$out/serving-day.yaml" <<'YAML'
name: serving-day
horizon: 1d
cluster:
  node_types:
    - {name: n, gpu: A100-80GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 32}}
workload:
  services:
    - name: classify
      requests: {arrival: {dist: exponential, mean: 1ms}}
      latency: {dist: lognormal, median: 20ms, sigma: 0.3}
      batching: {max_batch: 16, max_wait: 5ms}
      replicas: {count: 4}
      slo: {p99: 200ms}
YAML
uptime
for rows in default 0; do
  set_rows=""
  [ "$rows" = default ] || set_rows="--set output.request_rows=$rows"
  i=1
  while [ "$i" -le "$runs" ]; do
    # shellcheck disable=SC2086
    /usr/bin/time -v "$gcsim" run "$out/serving-day.yaml" -o "$out" --no-plots $set_rows > "$out/run.log" 2> "$out/time.txt"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time.txt")
    requests=$(sed -n 's/.*service classify: \([0-9,]*\) requests.*/\1/p' "$out/run.log" | tr -d ,)
    events=$(sed -n 's/.*(\([0-9]*\) events).*/\1/p' "$out/run.log")
    seconds=$(echo "$wall" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    rate=$(awk -v r="$requests" -v s="$seconds" 'BEGIN { printf "%.2f", r / s / 1e6 }')
    bytes=$(wc -c < "$out/serving-day.h5")
    echo "request_rows $rows, run $i: wall $wall, max RSS $rss kB, $events events, $requests requests:" \
      "$rate M requests per second of simulation, trace $bytes bytes"
    i=$((i + 1))
  done
done
grep "service classify" "$out/run.log"
