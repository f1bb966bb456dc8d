#!/usr/bin/env bash
# Saturated cluster at scale, every policy: wall time and peak memory of the whole `gcsim run`
# (generate, simulate, write the trace, print the summary), as /usr/bin/time -v measures them.
# 688 nodes x 8 A100 (5,504 GPUs); jobs arrive every 1 s on average, 1/2/4/8/16 GPUs, lognormal
# durations (median 30 min, sigma 1): about 3.4x the cluster's capacity, so the waiting queue
# grows with the job count (docs/scheduling.md, "las" on this case).
#
# usage: bench/saturated_policies.sh [GCSIM] [COUNTS] [POLICIES] [TIMEOUT_S]
#   GCSIM     the binary (default build/cli/gcsim)
#   COUNTS    job counts (default "20000 100000 1000000")
#   POLICIES  (default "fifo sjf backfill las")
#   TIMEOUT_S a run past it is stopped and shown as such (default 900)
# Prints one row per run: count, policy, wall s, max RSS MiB, exit status, jobs completed.
set -u
GCSIM=${1:-build/cli/gcsim}
COUNTS=${2:-"20000 100000 1000000"}
POLICIES=${3:-"fifo sjf backfill las"}
TIMEOUT_S=${4:-900}
DIR=$(mktemp -d /tmp/saturated.XXXXXX)
echo "# $(uptime)"
echo "# gcsim: $GCSIM; scratch: $DIR"
printf '%-8s %-9s %9s %9s %6s %s\n' jobs policy wall_s rss_MiB exit completed
for n in $COUNTS; do
  cat > "$DIR/sat$n.yaml" <<YAML
name: sat$n
seed: 1
horizon: 3650d
run_until: done
cluster:
  node_types:
    - name: a100
      gpu: A100-40GB-SXM
      gpus: 8
      count: 688
      price: {on_demand_per_hour: 32.77}
scheduler:
  policy: fifo
workload:
  generators:
    - name: j
      count: $n
      arrival: {dist: exponential, mean: 1s}
      gpus: {choice: [1, 2, 4, 8, 16]}
      duration: {dist: lognormal, median: 1800s, sigma: 1.0}
      team: team-0
YAML
  for p in $POLICIES; do
    out="$DIR/out-$n-$p"
    /usr/bin/time -v -o "$DIR/time-$n-$p" timeout "$TIMEOUT_S" "$GCSIM" run "$DIR/sat$n.yaml" \
      --set scheduler.policy="$p" --no-plots -o "$out" > "$DIR/log-$n-$p" 2>&1
    rc=$?
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$DIR/time-$n-$p")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$DIR/time-$n-$p")
    done_=$(grep -o 'jobs: [0-9]* completed' "$DIR/log-$n-$p" | grep -o '[0-9]*' || true)
    [ "$rc" = 124 ] && done_="(stopped at ${TIMEOUT_S} s)"
    printf '%-8s %-9s %9s %9s %6s %s\n' "$n" "$p" "$wall" "$rss" "$rc" "${done_:-?}"
  done
done
