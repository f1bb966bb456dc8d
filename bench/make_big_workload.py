#!/usr/bin/env python3
"""Writes the review's P5 scale workload (docs/engine.md, "Review findings"; review §8 P5):
jobs<N>.csv and big<N>.yaml in OUT_DIR. Columns name,submit,gpus,duration,team;
exponential arrivals of mean 20 s, sizes 1/2/4/8, lognormal(7, 1.2) s durations, on 200
8-GPU A100 nodes. Deterministic (seed 1). Usage: make_big_workload.py N OUT_DIR"""
import math
import os
import random
import sys


def main():
    n = int(sys.argv[1])
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1)
    with open(os.path.join(out, f"jobs{n}.csv"), "w") as f:
        f.write("name,submit,gpus,duration,team\n")
        t = 0.0
        for i in range(n):
            t += rng.expovariate(1 / 20.0)
            gpus = rng.choice([1, 2, 4, 8])
            dur = math.exp(rng.gauss(7.0, 1.2))
            f.write(f"j{i},{t:.6f}s,{gpus},{dur:.6f}s,team{i % 4}\n")
    horizon_d = max(30, math.ceil(n * 20 / 86400 * 1.5))
    with open(os.path.join(out, f"big{n}.yaml"), "w") as f:
        f.write(f"""name: big{n}
seed: 1
horizon: {horizon_d}d
run_until: done
cluster:
  node_types:
    - name: a100
      gpu: A100-40GB-SXM
      gpus: 8
      cpu_cores: 48
      memory: 1152GiB
      count: 200
      price: {{on_demand_per_hour: 32.77}}
scheduler:
  policy: fifo
workload:
  jobs: {{file: jobs{n}.csv}}
""")


if __name__ == "__main__":
    main()
