#!/bin/bash
# Writes the trace fuzzer's corpus: small valid traces of two tiny scenarios (the second
# with teams and a budget that stops new jobs), so that mutations start from the tables
# gcsim writes for most runs. Usage: tests/fuzz/make_trace_corpus.sh GCSIM_BINARY (from the repository root).
set -euo pipefail
gcsim=$1
out=tests/fuzz/trace_corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/one-job.yaml" <<'YAML'
name: one-job
horizon: 2h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 1, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: a, submit: 0h, gpus: 8, duration: 1h}
YAML
cat > "$work/budget.yaml" <<'YAML'
name: budget
horizon: 4h
cluster:
  node_types:
    - {name: n, gpu: A100-40GB-SXM, gpus: 8, count: 2, price: {on_demand_per_hour: 8}}
workload:
  jobs:
    - {name: a, submit: 0h, gpus: 8, duration: 1h, team: x}
    - {name: b, submit: 0h, gpus: 16, duration: 2h, team: y}
    - {name: c, submit: 1h, gpus: 16, duration: 1h, team: y}
budgets:
  - {team: x, limit: $10, action: stop_new}
YAML
mkdir -p "$out"
for s in one-job budget; do
  "$gcsim" run "$work/$s.yaml" -o "$work/out" --no-plots -q
  cp "$work/out/$s.h5" "$out/$s.h5"
done
ls -l "$out"
