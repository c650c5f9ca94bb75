#!/usr/bin/env python3
"""Independent counts over TensorFlow 1 timeline.json files, for tests.

Plain Python over the raw JSON (no tfprof-analyze code): what the tool's
op-stats, kernel-stats, overview and placement must find in a TF1 timeline
(docs/formats/tf1-timeline.md).  Several files are the steps of one run, in
the order given.

What TF1's timeline.py writes: processes "<device> Compute" (op events,
ph "X", args {name, op}) and "<device> Tensors"; devices are the executor's
("/job:.../device:GPU:0", ".../cpu:0") or the GPU tracer's
("/device:GPU:0/stream:14", "/gpu:0/stream:all", "/device:GPU:0/memcpy").
The tracer writes each kernel on its stream and on "stream:all", each copy
on its stream and on "memcpy".  Counted here:

* host ops: events of the executor devices' Compute processes, per op type
  (args.op) and per op (args.name): occurrences and total microseconds;
  total per executor device.
* device activity: events of the per-stream processes (or, for a device
  without any, "stream:all" and "memcpy"): per op, occurrences and total us;
  per GPU, the total.  The op's occurrences on the device are those of its
  most frequent activity (kernel or copy name), its time their sum, as the
  TensorFlow Profiler counts an op's kernels; per op type, the sums over its
  ops.
* kernels: stream events that are not copies (a copy is an event also in the
  "memcpy" process: same ts, dur, name and args.name), keyed by (kernel name,
  op): occurrences, total/min/max us.  The kernel name is the event name (the
  op type), or args.kernel where ROCm builds wrote one.
* steps: per file, the first and last microsecond of its Compute events.
* gpus: the tracer devices; devices: executor devices.
* memory (files written with show_memory=True): per allocator, the peak of
  its "Memory" counter series on the Allocators process (the first time in
  the files' order that the most was in use), and the tensors alive then:
  timeline.py's AllocationMaximum, recomputed from the "Tensor" object
  events (N: created, O: snapshot with its tensor_description, D: last
  unref) the way timeline.py computes it, (time, +/-requested bytes, name)
  sorted, over its trackers (only the last of a name that comes again has a
  deletion); the recomputed running sum must equal the counters.  Tensors
  created and deleted in one microsecond are not counted as allocations nor
  alive (timeline.py keeps them in its set for ever).

Usage: tf1_timeline_facts.py FILE... [--json]
"""

import argparse
import collections
import json
import os
import re
import sys


def device_of(process):
    """(device, kind, stream) of a process name, or None when not TF1's."""
    for suffix, kind in ((" Compute", "compute"), (" Tensors", "tensors")):
        if process.endswith(suffix):
            dev = process[: -len(suffix)]
            break
    else:
        return None
    if "/stream:" in dev:
        base, stream = dev.split("/stream:", 1)
        return base, kind, "all" if stream == "all" else stream
    if dev.endswith("/memcpy"):
        return dev[: -len("/memcpy")], kind, "memcpy"
    return dev, kind, None


def is_gpu(device):
    last = device.rsplit("/", 1)[-1].lower()
    return re.fullmatch(r"(device:)?gpu:\d+", last) is not None


def memory_facts(events, path, memory):
    """Adds the file's counter peaks and tensors alive at them to `memory`."""
    counters = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "C" and e.get("cat") == "Memory":
            counters[e["name"]].append((e["ts"], e["args"][e["name"]]))
    # timeline.py's trackers: an object is (pid, id, name) (a name that
    # comes again, in a while loop, shifts later ids onto reused ones), the
    # later events of one key win, and only trackers with a deletion (the
    # last one of each name) are counted.
    objects = {}
    for e in events:
        if e.get("cat") != "Tensor" or e.get("ph") not in ("N", "O", "D"):
            continue
        t = objects.setdefault((e["pid"], e["id"], e["name"]), {"name": e["name"]})
        if e["ph"] == "N":
            t["created"] = e["ts"]
        elif e["ph"] == "D":
            t["deleted"] = e["ts"]
        else:
            desc = e["args"]["snapshot"]["tensor_description"]
            alloc = desc.split("allocation_description {", 1)[-1]
            m = re.search(r"^\s*requested_bytes: (\d+)$", alloc, re.M)
            t["bytes"] = int(m.group(1)) if m else 0
            m = re.search(r"^\s*allocator_name: (.*)$", alloc, re.M)
            t["allocator"] = m.group(1).strip() if m else ""
    tensors = {k: t for k, t in objects.items() if "deleted" in t}
    changes = collections.defaultdict(list)
    for t in tensors.values():
        changes[t["allocator"]].append((t["created"], t["bytes"], t["name"]))
        changes[t["allocator"]].append((t["deleted"], -t["bytes"], t["name"]))
    for allocator, series in counters.items():
        # Created and deleted in one microsecond: timeline.py's sort takes
        # the bytes away before adding them, and then keeps the tensor in its
        # set for ever; not alive here (docs/memory.md).
        instant = {t["name"] for t in tensors.values()
                   if t["allocator"] == allocator and t["created"] == t["deleted"]}
        recomputed, alive, total, peak = [], {}, 0, (None, 0, {})
        for ts, b, name in sorted(changes[allocator]):
            total += b
            if b < 0:
                alive.pop(name, None)
            elif name not in instant:
                alive[name] = b
            recomputed.append((ts, total))
            if total > peak[1]:
                peak = (ts, total, dict(alive))
        assert recomputed == series, "%s: %s's counters are not timeline.py's sum" % (path, allocator)
        m = memory.setdefault(allocator, {"peak_bytes": 0, "tensors": 0})
        m["tensors"] += sum(1 for t in tensors.values()
                            if t["allocator"] == allocator and t["name"] not in instant)
        if peak[0] is not None and peak[1] > m["peak_bytes"]:
            m.update(peak_bytes=peak[1], peak_ts_us=peak[0], peak_file=os.path.basename(path),
                     alive_at_peak=dict(sorted(peak[2].items())))


def facts(paths):
    host_types = collections.defaultdict(lambda: [0, 0])
    host_ops = collections.defaultdict(lambda: [0, 0])
    host_per_device = collections.Counter()
    # (op name, op type) -> activity name -> [occurrences, us]
    device_acts = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    device_per_gpu = collections.Counter()
    kernels = {}
    copies = 0
    steps = []
    gpus, executors = [], []
    memory = {}
    for path in paths:
        with open(path) as f:
            events = json.load(f)["traceEvents"]
        memory_facts(events, path, memory)
        names = {e["pid"]: e["args"]["name"] for e in events
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
        by_pid = collections.defaultdict(list)
        for e in events:
            if e.get("ph") == "X":
                by_pid[e["pid"]].append(e)
        first, last = None, None
        tracer = collections.defaultdict(lambda: {"streams": [], "all": [], "memcpy": []})
        for pid, evs in by_pid.items():
            parsed = device_of(names.get(pid, ""))
            if not parsed or parsed[1] != "compute":
                continue
            for e in evs:
                first = e["ts"] if first is None else min(first, e["ts"])
                last = e["ts"] + e["dur"] if last is None else max(last, e["ts"] + e["dur"])
            dev, _, stream = parsed
            if stream is None:
                if dev not in executors:
                    executors.append(dev)
                for e in evs:
                    op, name = e["args"]["op"], e["args"]["name"]
                    for table, key in ((host_types, op), (host_ops, (name, op))):
                        table[key][0] += 1
                        table[key][1] += e["dur"]
                    host_per_device[dev] += e["dur"]
            elif is_gpu(dev):
                if dev not in gpus:
                    gpus.append(dev)
                slot = "streams" if stream not in ("all", "memcpy") else stream
                tracer[dev][slot].append(evs)
        if first is not None:
            steps.append({"file": os.path.basename(path), "begin_us": first, "end_us": last})
        for dev, t in tracer.items():
            key = lambda e: (e["ts"], e["dur"], e["name"], e["args"].get("name"))
            copy_keys = collections.Counter(key(e) for evs in t["memcpy"] for e in evs)
            sources = t["streams"] if t["streams"] else t["all"] + t["memcpy"]
            memcpy_ids = {id(evs) for evs in t["memcpy"]}
            for evs in sources:
                for e in evs:
                    if id(evs) in memcpy_ids:
                        is_copy = True
                    elif t["streams"] and copy_keys[key(e)] > 0:
                        copy_keys[key(e)] -= 1
                        is_copy = True
                    else:
                        is_copy = False
                    op, name = e["args"]["op"], e["args"]["name"]
                    if is_copy:
                        copies += 1
                        activity = e["name"] if op.startswith("MEMCPY") else "MEMCPY"
                    else:
                        activity = e["args"].get("kernel") or e["name"]
                        k = kernels.setdefault((activity, name), [0, 0, None, None])
                        k[0] += 1
                        k[1] += e["dur"]
                        k[2] = e["dur"] if k[2] is None else min(k[2], e["dur"])
                        k[3] = e["dur"] if k[3] is None else max(k[3], e["dur"])
                    a = device_acts[(name, op)][activity]
                    a[0] += 1
                    a[1] += e["dur"]
                    device_per_gpu[dev] += e["dur"]
    device_ops = {}
    device_types = collections.defaultdict(lambda: {"occurrences": 0, "total_us": 0})
    for (name, op), acts in device_acts.items():
        device_ops[name] = {"type": op, "occurrences": max(a[0] for a in acts.values()),
                            "total_us": sum(a[1] for a in acts.values())}
        device_types[op]["occurrences"] += device_ops[name]["occurrences"]
        device_types[op]["total_us"] += device_ops[name]["total_us"]
    return {
        "files": [os.path.basename(p) for p in paths],
        "executor_devices": executors,
        "gpus": gpus,
        "host_op_types": {k: {"occurrences": v[0], "total_us": v[1]} for k, v in sorted(host_types.items())},
        "host_ops": {"%s:%s" % k: {"occurrences": v[0], "total_us": v[1]} for k, v in sorted(host_ops.items())},
        "host_total_us_per_device": dict(host_per_device),
        "device_ops": dict(sorted(device_ops.items())),
        "device_op_types": dict(sorted(device_types.items())),
        "device_total_us_per_gpu": dict(device_per_gpu),
        "kernels": [{"kernel": k[0], "op": k[1], "occurrences": v[0], "total_us": v[1], "min_us": v[2], "max_us": v[3]}
                    for k, v in sorted(kernels.items(), key=lambda kv: (-kv[1][1], kv[0]))],
        "kernel_total_us": sum(v[1] for v in kernels.values()),
        "copies": copies,
        "steps": steps,
        "memory": dict(sorted(memory.items())),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--summary", action="store_true", help="print only the totals and the top rows")
    args = ap.parse_args()
    f = facts(args.files)
    if args.summary:
        print("gpus", f["gpus"], "executor devices", f["executor_devices"])
        print("host op events", sum(v["occurrences"] for v in f["host_op_types"].values()),
              "host us", sum(f["host_total_us_per_device"].values()))
        print("device us per gpu", f["device_total_us_per_gpu"], "kernel us", f["kernel_total_us"],
              "copies", f["copies"])
        for t, v in sorted(f["host_op_types"].items(), key=lambda kv: -kv[1]["total_us"])[:5]:
            print("  host type", t, v)
        for k in f["kernels"][:5]:
            print("  kernel", k)
        print("steps", f["steps"])
        return
    json.dump(f, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
