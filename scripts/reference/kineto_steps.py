#!/usr/bin/env python3
"""Independent step numbers for a PyTorch (Kineto) trace, to check
`tfprof-analyze steps` against (tests/analyze/kineto_steps_test.cc).

Written from the rules in docs/overview.md, not from our code:
  * steps are the host's ProfilerStep#N annotations;
  * a device event (kernel, memcpy, memset) belongs to the step whose
    ProfilerStep#N contains, on the same thread, the runtime call with the same
    `correlation`; device events without such a launch take the step of the
    device event before them (by start time, longer first) on their device;
  * a step's device span is the longest run of consecutive (in time) device
    events of that step; the step runs from the earlier to the later end of
    the ProfilerStep and that run (PyTorch's host runs ahead of the device);
  * device compute of a step = the union of that step's kernel (but NCCL's:
    collectives) and memset intervals, clipped to the step;
  * with more than five steps the first and the last are dropped.
Usage: kineto_steps.py TRACE.json[.gz]
"""
import gzip
from decimal import Decimal, ROUND_HALF_UP
import json
import sys

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)["traceEvents"]  # ns digits of epoch-us times kept


def union(intervals):
    total, end = 0, None
    for b, e in sorted(intervals):
        if end is None or b > end:
            total += e - b
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def main(path):
    ev = [e for e in load(path) if e.get("ph") == "X"]
    # Times in integer picoseconds, as the reader keeps them (exact decimal:
    # a float loses ~0.3 us at epoch-microsecond timestamps).
    def ps(x):
        return int((Decimal(x) * 1000000).to_integral_value(ROUND_HALF_UP))
    steps = [e for e in ev if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") not in ("gpu_user_annotation",)]
    steps.sort(key=lambda e: ps(e["ts"]))
    step_of_launch = {}
    for e in ev:
        a = e.get("args", {})
        if e.get("cat") in DEVICE or "correlation" not in a:
            continue
        b = ps(e["ts"])
        for i, s in enumerate(steps):
            if str(s["tid"]) == str(e["tid"]) and str(s["pid"]) == str(e["pid"]) and ps(s["ts"]) <= b and b + ps(e["dur"]) <= ps(s["ts"]) + ps(s["dur"]):
                step_of_launch[a["correlation"]] = i
    dev = [e for e in ev if e.get("cat") in DEVICE]
    dev.sort(key=lambda e: (ps(e["ts"]), -ps(e["dur"])))
    group, last = [], None
    for e in dev:
        g = step_of_launch.get(e["args"].get("correlation"))
        if g is None:
            g = last
        else:
            last = g
        group.append(g)
    runs = {}
    i = 0
    while i < len(dev):
        g = group[i]
        b = ps(dev[i]["ts"])
        end = b + ps(dev[i]["dur"])
        j = i + 1
        while j < len(dev) and group[j] == g:
            end = max(end, ps(dev[j]["ts"]) + ps(dev[j]["dur"]))
            j += 1
        if g is not None and end - b > runs.get(g, (0, 0))[1] - runs.get(g, (0, 0))[0]:
            runs[g] = (b, end)
        i = j
    rows = []
    for i, s in enumerate(steps):
        hb, he = ps(s["ts"]), ps(s["ts"]) + ps(s["dur"])
        if i not in runs:
            continue
        db, de = runs[i]
        b, e = min(hb, db), max(he, de)
        compute = union([(max(b, ps(d["ts"])), min(e, ps(d["ts"]) + ps(d["dur"])))
                         for d, g in zip(dev, group)
                         if g == i and d.get("cat") in ("kernel", "Kernel", "gpu_memset", "Memset")
                         and not d["name"].lower().startswith("nccl")
                         and ps(d["ts"]) < e and ps(d["ts"]) + ps(d["dur"]) > b])
        rows.append((s["name"], (e - b) / 1e9, compute / 1e9))
    if len(rows) > 5:
        rows = rows[1:-1]
    for name, t, c in rows:
        print(f"{name}\tstep_ms={t:.6f}\tdevice_compute_ms={c:.6f}")
    print(f"steps={len(rows)} avg_step_ms={sum(r[1] for r in rows) / len(rows):.6f}")


if __name__ == "__main__":
    main(sys.argv[1])
