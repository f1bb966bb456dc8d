#!/usr/bin/python3
"""Reads a quickstart trace with h5py, as users will, and checks its layout and invariants.

Usage: check_trace_h5py.py GCSIM_BINARY OUT_DIR. Exits 77 (skipped) when h5py is missing.
"""
import math
import subprocess
import sys

try:
    import h5py
    import numpy as np
except ImportError:
    print("h5py/numpy not available: skipped")
    sys.exit(77)

gcsim, out = sys.argv[1], sys.argv[2]
subprocess.run([gcsim, "run", "-o", out, "--no-plots", "-q"], check=True)
with h5py.File(f"{out}/quickstart.h5", "r") as f:
    for name in ("jobs", "events", "utilization", "nodes", "ledger", "pools", "node_events"):
        assert name in f, f"missing /{name}"
        assert f[name].chunks is not None, f"/{name} is not chunked"
        assert f[name].compression == "gzip", f"/{name} is not compressed"
    # Every dataset is checksummed; nothing is variable-length (docs/trace-format.md).
    for name, d in f.items():
        assert d.fletcher32, f"/{name} has no Fletcher32 checksum"
        for column in d.dtype.names or ():
            info = h5py.check_string_dtype(d.dtype[column])
            assert info is None or info.length is not None, f"/{name}.{column} is variable-length"
    assert int(f.attrs["trace_format"]) == 2
    jobs = f["jobs"][:]
    for column in ("samples_per_s", "step_time_s", "bottleneck", "compute_s", "input_s", "comm_s",
                   "comm_exposed_s", "memory_per_gpu_bytes"):
        assert column in f["jobs"].dtype.names, f"/jobs lacks {column}"
    assert len(jobs) == 502, len(jobs)
    status = h5py.check_enum_dtype(f["jobs"].dtype["status"])
    assert set(status) == {"completed", "running", "never_started", "interrupted"}, status
    done = jobs["status"] == status["completed"]
    assert done.any()
    assert np.all(jobs["end_s"][done] >= jobs["start_s"][done])
    assert np.all(jobs["start_s"][done] >= jobs["submit_s"][done])
    util = f["utilization"][:]
    assert np.all(np.diff(util["time_s"]) >= 0)
    assert np.all(util["allocated_gpus"] <= util["total_gpus"])
    assert util["total_gpus"][0] == 32
    attrs = f.attrs
    assert attrs["scenario_name"] == b"quickstart"
    assert int(attrs["seed"]) == 42
    assert "name: quickstart" in attrs["scenario_yaml"].decode()
    # /inputs rows point into /input_bytes.
    inputs = f["inputs"][:]
    blob = f["input_bytes"]
    assert blob.dtype == np.uint8 and blob.ndim == 1
    assert len(inputs) > 0
    assert all(int(r["offset"]) + int(r["size_bytes"]) <= blob.shape[0] for r in inputs)
    first = inputs[0]
    assert bytes(blob[int(first["offset"]):int(first["offset"]) + int(first["size_bytes"])]).strip(), first
    nodes = f["nodes"][:]
    # Every slot's state at the start, with its reason: the quickstart's nodes are all up.
    node_events = f["node_events"][:]
    state = h5py.check_enum_dtype(f["node_events"].dtype["state"])
    reason = h5py.check_enum_dtype(f["node_events"].dtype["reason"])
    assert list(state) == ["provisioning", "up", "draining", "down", "released"], state
    assert "spot_interruption" in reason and "scale_in" in reason, reason
    first = node_events[node_events["time_s"] == 0]
    assert len(first) == len(nodes)
    assert np.all(first["state"] == state["up"]) and np.all(first["reason"] == reason["initial"])
    total = nodes["cost_usd"].sum()
    busy = jobs["cost_usd"].sum()
    assert 0 < busy <= total + 1e-9, (busy, total)
    # The ledger holds every charge: its sum is the nodes' bills.
    ledger = f["ledger"][:]
    assert abs(ledger["usd"].sum() - total) <= 1e-6 * total, (ledger["usd"].sum(), total)
    cats = h5py.check_enum_dtype(f["ledger"].dtype["category"])
    assert {"compute_busy", "compute_idle", "ownership"} <= set(cats), cats
    kinds = h5py.check_enum_dtype(f["events"].dtype["kind"])
    assert {"submit", "start", "finish"} <= set(kinds)
    names = [n.decode() for n in jobs["name"][:3]]
    assert names[0] == "bert-large", names
    # Coded name columns (schema 5): an enum of the run's names, value 0 "n/a" (none).
    # Schema 6: the jobs submitted after the horizon are counted in an attribute, in no table.
    assert int(attrs["trace_schema"]) == 6
    after = int(attrs["jobs_after_horizon"])
    assert after >= 0 and np.all(jobs["submit_s"] <= float(attrs["horizon_s"])), after
    node_type = h5py.check_enum_dtype(f["jobs"].dtype["node_type"])
    assert node_type["n/a"] == 0 and len(node_type) >= 2, node_type
    pool_names = {p.decode() for p in f["pools"][:]["name"]}
    assert set(node_type) - {"n/a"} == pool_names, (node_type, pool_names)
    started = ~np.isnan(jobs["start_s"])
    assert np.all(jobs["node_type"][started] > 0) and np.all(jobs["node_type"][~started] == 0)
    team = h5py.check_enum_dtype(f["jobs"].dtype["team"])
    assert team["n/a"] == 0, team
    # The name cells are as wide as the longest name.
    width = f["jobs"].dtype["name"].itemsize
    assert width == max(len(n) for n in jobs["name"]), width
print("h5py read the trace: ok")
