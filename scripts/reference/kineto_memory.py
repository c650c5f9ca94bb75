#!/usr/bin/env python3
"""Independent memory numbers for a PyTorch (Kineto) trace recorded with
profile_memory=True, to check `tfprof-analyze memory` against
(tests/analyze/kineto_memory_test.cc).

Written from the rules in docs/memory.md ("PyTorch traces"), not from our code:
  * every instant event named `[memory]` is one allocator event; its device
    is (args "Device Type", "Device Id"): type 0 is the CPU ("cpu"), else
    c10's device type name and the id ("cuda:0", "hip:0");
  * "Bytes" > 0 is an allocation of that size, < 0 a free of -Bytes;
  * per device, events are taken in time order (ties: file order); the
    memory allocated after each is its "Total Allocated" arg, or, in traces
    without it (2021 builds), the running sum of Bytes from 0;
  * the peak is the most allocated, at the first event that reaches it;
    reserved at the peak is its "Total Reserved"; the peak reserved is the
    most "Total Reserved", first reached;
  * allocations are matched with frees by "Addr" (a second allocation at a
    live address replaces the first); live at the peak = allocations up to
    and including the peak event not freed by then; frees at an address with
    no live allocation are unmatched (allocated before the trace);
  * each allocation's op is the innermost cpu_op (2021: Operator) open on
    its thread (pid, tid) at its time: start <= t < end, ops taken by start,
    longer first (ProfilerStep#N markers are not ops);
  * the peak's step is the ProfilerStep#N (a user_annotation) whose span
    holds the peak time, the latest starting one if several.
Times are exact decimals: ordered as integer picoseconds, printed as the
trace's own microseconds (absolute, as its `ts`).
Usage: kineto_memory.py TRACE.json[.gz]   (prints JSON, one object per device)
"""
import collections
from decimal import Decimal
import json
import sys

from kineto_trace import load, ps

# c10::DeviceType names (c10/core/DeviceType.h), by enum value.
DEVICE_TYPES = ["cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip", "fpga", "maia", "xla", "vulkan",
                "metal", "xpu", "mps", "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone"]
OPS = {"cpu_op", "Operator"}


def device_name(args):
    t, i = int(args.get("Device Type", 0)), int(args.get("Device Id", -1))
    if t == 0:
        return "cpu"
    name = DEVICE_TYPES[t] if 0 <= t < len(DEVICE_TYPES) else "device_type_%d" % t
    return "%s:%d" % (name, i)


def ops_of_memory_events(events):
    """(file index of a [memory] event) -> the op it ran in, or ""."""
    threads = collections.defaultdict(list)
    for n, e in enumerate(events):
        key = (str(e.get("pid")), str(e.get("tid")))
        if e.get("ph") == "X" and "dur" in e and e.get("cat") in OPS and not str(e["name"]).startswith("ProfilerStep#"):
            b = ps(e["ts"])
            threads[key].append((b, -(ps(e["dur"])), n, e["name"]))
        elif e.get("ph") == "i" and e.get("name") == "[memory]":
            threads[key].append((ps(e["ts"]), 0, n, None))
    out = {}
    for items in threads.values():
        items.sort()  # by start, longer first, then file order
        stack = []  # (end, name)
        for b, neg_dur, n, name in items:
            while stack and stack[-1][0] <= b:
                stack.pop()
            if name is None:
                out[n] = stack[-1][1] if stack else ""
            else:
                stack.append((b - neg_dur, name))
    return out


def main(path):
    events = load(path)
    op_of = ops_of_memory_events(events)
    steps = []
    for e in events:
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#"):
            b = ps(e["ts"])
            steps.append((b, b + ps(e["dur"]), e["name"]))
    steps.sort()
    by_device = collections.defaultdict(list)
    for n, e in enumerate(events):
        if e.get("ph") == "i" and e.get("name") == "[memory]":
            by_device[device_name(e.get("args", {}))].append((ps(e["ts"]), n, e))
    us = lambda t: str(Decimal(t) / 1000000)  # exact: the trace's own microseconds
    result = {}
    for device, items in sorted(by_device.items()):
        items.sort(key=lambda x: (x[0], x[1]))
        allocated = 0
        totals = all("Total Allocated" in e["args"] for _, _, e in items)
        has_addr = all("Addr" in e["args"] for _, _, e in items)
        peak = None  # (allocated, time, reserved, index)
        peak_reserved = None
        allocs = frees = unmatched = 0
        live = {}
        live_at_peak = None
        for k, (t, n, e) in enumerate(items):
            a = e["args"]
            b = int(a["Bytes"])
            if b >= 0:
                allocs += 1
            else:
                frees += 1
            allocated = int(a["Total Allocated"]) if totals else allocated + b
            reserved = int(a["Total Reserved"]) if "Total Reserved" in a else None
            if has_addr:
                addr = int(a["Addr"])
                if b >= 0:
                    live[addr] = (b, op_of.get(n, ""))
                elif live.pop(addr, None) is None:
                    unmatched += 1
            if peak is None or allocated > peak[0]:
                peak = (allocated, t, reserved, k)
                live_at_peak = dict(live)
            if reserved is not None and (peak_reserved is None or reserved > peak_reserved[0]):
                peak_reserved = (reserved, t)
        by_op = collections.defaultdict(lambda: [0, 0])
        for size, op in (live_at_peak or {}).values():
            by_op[op][0] += size
            by_op[op][1] += 1
        step = ""
        for b, end, name in steps:
            if b <= peak[1] < end:
                step = name
        result[device] = {
            "allocations": allocs,
            "deallocations": frees,
            "unmatched_frees": unmatched if has_addr else None,
            "peak_allocated_bytes": peak[0],
            "peak_ts_us": us(peak[1]),
            "peak_step_name": step,
            "reserved_at_peak_bytes": peak[2],
            "peak_reserved_bytes": peak_reserved[0] if peak_reserved else None,
            "peak_reserved_ts_us": us(peak_reserved[1]) if peak_reserved else None,
            "live_at_peak_bytes": sum(v[0] for v in by_op.values()) if has_addr else None,
            "live_at_peak_allocations": sum(v[1] for v in by_op.values()) if has_addr else None,
            "top_ops_at_peak": sorted(([op, v[0], v[1]] for op, v in by_op.items()), key=lambda r: (-r[1], r[0]))[:5],
        }
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
