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
With --steps-between REGEX (traces without ProfilerStep#N) the steps are the
windows between host events whose name matches REGEX (searched, as RE2 and
Python's re.search do; a match starting inside an earlier marker of its
thread is nested and skipped): window i runs from marker i's start to marker i+1's start, the
last to the end of the trace (the latest end of a host or device event, GPU
annotations and waits and Kineto's own "Trace" span aside); a runtime call belongs to the window holding
its start (any thread) and its device events follow it; the window is the
step's host span (steps are named "step <i>", from 1).
Usage: kineto_steps.py [--steps-between REGEX] TRACE.json[.gz]
"""
import re
import sys

from kineto_trace import load, ps

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}


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


def host_launches(ev):
    """(event, correlation id, start in ps) per host event that launched device work."""
    for e in ev:
        a = e.get("args", {})
        if e.get("cat") not in DEVICE and "correlation" in a:
            yield e, a["correlation"], ps(e["ts"])


def profiler_steps(ev):
    """(name, host begin, host end) per ProfilerStep#N, and the step of each launch."""
    marks = [e for e in ev if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") not in ("gpu_user_annotation",)]
    marks.sort(key=lambda e: ps(e["ts"]))
    step_of_launch = {}
    for e, correlation, b in host_launches(ev):
        for i, s in enumerate(marks):
            if str(s["tid"]) == str(e["tid"]) and str(s["pid"]) == str(e["pid"]) and ps(s["ts"]) <= b and b + ps(e["dur"]) <= ps(s["ts"]) + ps(s["dur"]):
                step_of_launch[correlation] = i
    return [(s["name"], ps(s["ts"]), ps(s["ts"]) + ps(s["dur"])) for s in marks], step_of_launch


NOT_ACTIVITY = DEVICE | {"gpu_user_annotation", "cuda_sync"}


def windows_between(ev, pattern):
    """(name, window begin, window end) per marker window, and the step of each launch."""
    rx = re.compile(pattern)
    marks = sorted((e for e in ev if e.get("cat") not in NOT_ACTIVITY and rx.search(str(e.get("name", "")))),
                   key=lambda e: (ps(e["ts"]), -ps(e["dur"])))
    starts, open_until = [], {}
    for m in marks:
        thread = (str(m["pid"]), str(m["tid"]))
        if thread in open_until and ps(m["ts"]) < open_until[thread]:
            continue  # Nested in an earlier marker of its thread.
        open_until[thread] = ps(m["ts"]) + ps(m["dur"])
        if not starts or starts[-1] != ps(m["ts"]):
            starts.append(ps(m["ts"]))
    # Kineto's own "Trace" span (process "Spans") is the profiler's, not host or device activity.
    trace_end = max(ps(e["ts"]) + ps(e["dur"]) for e in ev if e.get("cat") not in ("gpu_user_annotation", "cuda_sync", "Trace"))
    bounds = starts + [trace_end]
    steps = [(f"step {i + 1}", bounds[i], bounds[i + 1]) for i in range(len(starts))]
    step_of_launch = {}
    for _, correlation, b in host_launches(ev):
        for i in range(len(starts)):
            if bounds[i] <= b and (b < bounds[i + 1] or i == len(starts) - 1):
                step_of_launch[correlation] = i
    return steps, step_of_launch


def main(argv):
    between = None
    if len(argv) == 3 and argv[0] == "--steps-between":
        between, path = argv[1], argv[2]
    elif len(argv) == 1:
        path = argv[0]
    else:
        sys.exit(__doc__)
    ev = [e for e in load(path) if e.get("ph") == "X"]
    if between is None:
        steps, step_of_launch = profiler_steps(ev)
    else:
        steps, step_of_launch = windows_between(ev, between)
    print(f"markers={len(steps)}")
    for name, hb, he in steps:
        print(f"{name}\thost_begin_ps={hb}\thost_end_ps={he}")
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
    for i, (name, hb, he) in enumerate(steps):
        if i not in runs:
            continue
        db, de = runs[i]
        b, e = min(hb, db), max(he, de)
        compute = union([(max(b, ps(d["ts"])), min(e, ps(d["ts"]) + ps(d["dur"])))
                         for d, g in zip(dev, group)
                         if g == i and d.get("cat") in ("kernel", "Kernel", "gpu_memset", "Memset")
                         and not d["name"].lower().startswith("nccl")
                         and ps(d["ts"]) < e and ps(d["ts"]) + ps(d["dur"]) > b])
        rows.append((name, (e - b) / 1e9, compute / 1e9))
    if len(rows) > 5:
        rows = rows[1:-1]
    for name, t, c in rows:
        print(f"{name}\tstep_ms={t:.6f}\tdevice_compute_ms={c:.6f}")
    print(f"steps={len(rows)} avg_step_ms={sum(r[1] for r in rows) / max(1, len(rows)):.6f}")


if __name__ == "__main__":
    main(sys.argv[1:])
