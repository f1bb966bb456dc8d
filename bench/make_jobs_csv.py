#!/usr/bin/env python3
"""Writes the scale workload of the architecture review's probe P5 (docs/engine.md,
"A million jobs"): N jobs with exponential arrivals of mean 20 s, sizes 1/2/4/8 GPUs,
lognormal(7, 1.2) s durations, five teams, as a CSV table, and two scenarios over
200 x 8-GPU A100 nodes: bigN.yaml (`jobs: {file: jobsN.csv}`) and genN.yaml (the same
shape drawn by a generator).

    bench/make_jobs_csv.py 1000000 --out /tmp/scale   # jobs1000000.csv, big1000000.yaml, gen1000000.yaml

With --yaml it also writes yamlN.yaml: the same jobs written inline, one flow map a line
(`- {name: j0, submit: 2.886s, gpus: 1, duration: 1048.697s, team: team-0}`, times to the
millisecond), the scenario of issue 31's loading figure (17 MB for 200,000 jobs):

    bench/make_jobs_csv.py 200000 --yaml --out /tmp/scale   # ... and yaml200000.yaml
"""
import argparse
import math
import os
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("count", type=int, help="number of jobs")
    ap.add_argument("--out", default=".", help="folder to write into")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--yaml", action="store_true", help="also write yamlN.yaml, the jobs inline as flow maps")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    n = a.count
    csv = os.path.join(a.out, f"jobs{n}.csv")
    t = 0.0
    rows = []
    with open(csv, "w") as f:
        f.write("name,submit,gpus,duration,team\n")
        for i in range(n):
            t += rng.expovariate(1 / 20.0)
            gpus = rng.choice((1, 2, 4, 8))
            dur = math.exp(rng.gauss(7, 1.2))
            f.write(f"j{i},{t:.6f}s,{gpus},{dur:.6f}s,team-{i % 5}\n")
            if a.yaml:
                rows.append(f"    - {{name: j{i}, submit: {t:.3f}s, gpus: {gpus}, duration: {dur:.3f}s, team: team-{i % 5}}}\n")
    cluster = """cluster:
  node_types:
    - name: a100
      gpu: A100-40GB-SXM
      gpus: 8
      cpu_cores: 48
      memory: 1152GiB
      count: 200
      price: {on_demand_per_hour: 32.77}
scheduler:
  policy: fifo
"""
    head = f"seed: 1\nhorizon: {max(1, math.ceil(t / 86400) + 30)}d\nrun_until: done\n"
    with open(os.path.join(a.out, f"big{n}.yaml"), "w") as f:
        f.write(f"name: big{n}\n" + head + cluster + f"workload:\n  jobs: {{file: jobs{n}.csv}}\n")
    if a.yaml:
        with open(os.path.join(a.out, f"yaml{n}.yaml"), "w") as f:
            f.write(f"name: yaml{n}\n" + head + cluster + "workload:\n  jobs:\n")
            f.writelines(rows)
    with open(os.path.join(a.out, f"gen{n}.yaml"), "w") as f:
        f.write(f"name: gen{n}\n" + head + cluster +
                f"""workload:
  generators:
    - name: j
      count: {n}
      arrival: {{dist: exponential, mean: 20s}}
      gpus: {{choice: [1, 2, 4, 8]}}
      duration: {{dist: lognormal, median: {math.exp(7):.3f}s, sigma: 1.2}}
      team: team-0
""")


if __name__ == "__main__":
    main()
