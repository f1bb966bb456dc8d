#!/usr/bin/env python3
"""Writes a Microsoft Philly job log of N jobs (default 117,325: the published trace's
count) in the published layout (cluster_job_log: a JSON list of jobs, each {status, vc,
jobid, attempts: [{start_time, end_time, detail: [{ip, gpus: [...]}]}], submitted_time,
user}), its machine list, and a scenario that replays it, for the importer's speed at full
size (docs/traces.md, "Not there yet" has the figures). Deterministic for a seed.

The real cluster_job_log is not bundled (the tarball is 0.98 GB, git-LFS). Layout as
json.dump(..., indent=4) writes it, the way the published file and the fixture
tests/fixtures/traces/philly_cluster_job_log are printed; --compact writes one line.

Jobs: Poisson arrivals of mean 100 s from 2017-10-03; 1, 2, 4 or 8 GPUs (weights 0.6,
0.15, 0.15, 0.1) on one machine, 16 GPUs on two; lognormal run times (median 20 min,
sigma 1.8); 1 attempt, 10% 2 or 3; status Pass 60%, Killed 10%, Failed 30% (the AcmeTrace
summary's shares); 14 virtual clusters; 300 users. 552 machines: 321 of 8 GPUs (24 GB)
and 231 of 2 GPUs (12 GB).

    bench/make_philly.py --out /tmp/philly      # cluster_job_log, cluster_machine_list, big.yaml
    gcsim validate /tmp/philly/big.yaml         # the import report
"""
import argparse
import datetime
import json
import math
import os
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("count", type=int, nargs="?", default=117_325, help="number of jobs")
    ap.add_argument("--out", default=".", help="folder to write into")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--compact", action="store_true", help="one line, as json.dump without indent")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    big = [f"m{i}" for i in range(1, 322)]
    small = [f"m{i}" for i in range(322, 553)]
    with open(os.path.join(a.out, "cluster_machine_list"), "w") as f:
        f.write("machineId,number of GPUs,single GPU mem\n")
        for m in big:
            f.write(f"{m},8, 24GB\n")
        for m in small:
            f.write(f"{m},2, 12GB\n")

    def stamp(t):
        return (datetime.datetime(2017, 10, 3) + datetime.timedelta(seconds=int(t))).strftime("%Y-%m-%d %H:%M:%S")

    jobs = []
    t = 0.0
    for i in range(1, a.count + 1):
        t += rng.expovariate(1 / 100.0)
        gpus = rng.choices((1, 2, 4, 8, 16), weights=(0.6, 0.15, 0.15, 0.08, 0.02))[0]
        attempts = []
        start = t + rng.expovariate(1 / 200.0)
        for _ in range(rng.choices((1, 2, 3), weights=(0.9, 0.07, 0.03))[0]):
            run = max(1, int(round(1200 * math.exp(rng.gauss(0, 1.8)))))
            if gpus <= 2 and rng.random() < 0.5:
                detail = [{"ip": rng.choice(small), "gpus": [f"gpu{g}" for g in range(gpus)]}]
            elif gpus <= 8:
                detail = [{"ip": rng.choice(big), "gpus": [f"gpu{g}" for g in range(gpus)]}]
            else:
                detail = [{"ip": m, "gpus": [f"gpu{g}" for g in range(8)]} for m in rng.sample(big, 2)]
            attempts.append({"start_time": stamp(start), "end_time": stamp(start + run), "detail": detail})
            start += run + rng.randint(5, 600)
        jobs.append({
            "status": rng.choices(("Pass", "Killed", "Failed"), weights=(0.6, 0.1, 0.3))[0],
            "vc": f"vc{rng.randint(1, 14)}",
            "jobid": f"application_1506638472019_{i:06d}",
            "attempts": attempts,
            "submitted_time": stamp(t),
            "user": f"{rng.getrandbits(24):06x}",
        })
    with open(os.path.join(a.out, "cluster_job_log"), "w") as f:
        if a.compact:
            json.dump(jobs, f)
        else:
            json.dump(jobs, f, indent=4)
    with open(os.path.join(a.out, "big.yaml"), "w") as f:
        f.write("name: philly-full-size\nhorizon: 200d\nworkload:\n  trace:\n"
                "    format: philly\n    jobs: cluster_job_log\n    machines: cluster_machine_list\n"
                "    gpu_prices: {12GB: $0.9/h, 24GB: $1.1/h}\n")


if __name__ == "__main__":
    main()
