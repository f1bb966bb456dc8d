#!/bin/sh
# gcsim sweep's throughput (docs/sweeps.md, "Speed"): 200 points x 5 replications of a
# 256-GPU, one-week scenario (32 nodes of 8 A100, about 1,500 generated jobs), on 1 and on
# 2 threads, against the same scenario run alone by `gcsim run` in a loop (each run loads
# its scenario, writes its trace and plots none).
#
#   bench/sweep_bench.sh [GCSIM] [LOOP_RUNS]     (default: build/cli/gcsim, 40)
#
# Prints, for each, the wall time and max RSS of the whole command (/usr/bin/time -v), the
# runs per second, the ratio of 2 threads to 1, and the cost of one run in the sweep
# against one `gcsim run`. The figures are in docs/sweeps.md.
set -eu
GCSIM=$(realpath "${1:-build/cli/gcsim}")
LOOP_RUNS=${2:-40}
DATA_DIR=$(pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gcsim-sweep-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
cd "$WORK"
cat > base.yaml <<'YAML'
name: week256
seed: 1
horizon: 7d
cluster:
  node_types:
    - {name: a100, gpu: A100-40GB-SXM, gpus: 8, cpu_cores: 96, memory: 1152GiB, count: 32,
       price: {on_demand_per_hour: 32.77}}
scheduler: {policy: fifo}
workload:
  generators:
    - name: g
      count: 1500
      arrival: {dist: exponential, mean: 6m}
      gpus: {choice: [1, 2, 4, 8, 16], weights: [0.4, 0.2, 0.2, 0.15, 0.05]}
      duration: {dist: lognormal, median: 2h, sigma: 1.2}
YAML
# 20 fleet sizes x 10 policy settings = 200 points, 5 replications each.
cat > sweep.yaml <<'YAML'
base: base.yaml
replications: 5
vary:
  grid:
    cluster.node_types[0].count: [16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54]
    scheduler: [{policy: fifo}, {policy: sjf}, {policy: srtf}, {policy: las}, {policy: backfill},
                {policy: backfill, mode: conservative}, {policy: fifo, blocking: skip},
                {policy: fifo, placement: best-fit}, {policy: sjf, blocking: skip}, {policy: fifo, placement: spread}]
metrics: [total_cost_usd, jct_mean_s, wait_p95_s, gpu_utilization]
YAML
measure() {  # measure NAME COMMAND...: wall seconds and max RSS (KiB) of the whole command
  name=$1
  shift
  GCSIM_DATA_DIR="$DATA_DIR" /usr/bin/time -v "$@" > /dev/null 2> time.log || { cat time.log; exit 1; }
  wall=$(sed -n "s/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p" time.log | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  rss=$(sed -n "s/.*Maximum resident set size (kbytes): //p" time.log)
  echo "$name $wall $rss"
}
echo "load: $(uptime)"
j1=$(measure "sweep -j 1" "$GCSIM" sweep sweep.yaml -j 1 -q --no-plots --restart -o out1)
j2=$(measure "sweep -j 2" "$GCSIM" sweep sweep.yaml -j 2 -q --no-plots --restart -o out2)
cmp out1/sweep.csv out2/sweep.csv
loop_start=$(date +%s.%N)
i=0
while [ "$i" -lt "$LOOP_RUNS" ]; do
  GCSIM_DATA_DIR="$DATA_DIR" "$GCSIM" run base.yaml --replication "$i" --no-plots -q -o loop
  i=$((i + 1))
done
loop_end=$(date +%s.%N)
echo "$j1" "$j2" "$loop_start" "$loop_end" "$LOOP_RUNS" | awk '{
  w1 = $4; w2 = $9; loop = $12 - $11; n = $13
  printf "sweep -j 1: %7.2f s wall, %6.1f runs/s, max RSS %6.1f MiB (1000 runs)\n", w1, 1000 / w1, $5 / 1024
  printf "sweep -j 2: %7.2f s wall, %6.1f runs/s, max RSS %6.1f MiB (1000 runs)\n", w2, 1000 / w2, $10 / 1024
  printf "2 threads / 1 thread: %.2fx\n", w1 / w2
  printf "gcsim run in a loop: %d runs in %.2f s, %.1f ms a run; a sweep run (-j 1): %.1f ms, %.2fx of it\n", n, loop, 1000 * loop / n, w1, (w1 / 1000) / (loop / n)
}'
