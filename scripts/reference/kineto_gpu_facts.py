#!/usr/bin/env python3
"""Independent facts about one PyTorch profiler (Kineto) GPU trace, as JSON.

Written for the GPU captures in testdata/captures/torch_gpu_*/ (see the
README there, which describes every value), straight from the raw Chrome
trace JSON and never from tfprof-analyze.  Rules, in the trace's own terms:

* device activities are the ``X`` events of category ``kernel``,
  ``gpu_memcpy`` or ``gpu_memset`` (2021 builds: ``Kernel``/``Memcpy``/
  ``Memset``); times are integer nanoseconds from the exact decimal
  microseconds Kineto prints (``ts``/``dur`` have 3 decimals);
* a device activity's launch is the ``cuda_runtime`` or ``cuda_driver``
  (``Runtime``) event with the same ``args.correlation``;
* the op of a launch is the *innermost* ``cpu_op`` (``Operator``) on the
  launch's thread (same ``pid`` and ``tid``) whose span contains the whole
  launch; innermost = shortest such span.  ``ProfilerStep#N`` is never an
  op.  User annotations (``user_annotation``: ``record_function`` regions,
  ``ProfilerStep#N``, ``enumerate(DataLoader)...``) are looked up the same
  way, separately (``by_innermost_annotation``, ``kernels_launched``), and
  also thread-blind: a kernel counts for every annotation span, on any thread,
  in which its launch starts (``by_annotation_time_window``,
  ``kernels_launched_in_window``) -- the autograd thread launches the
  backward kernels outside the main thread's regions;
* dtype of a kernel: (a) the first floating-point entry of the enclosing op's
  ``args["Input type"]`` (record_shapes), (b) a name pattern (first match in
  the order of DTYPE_PATTERNS) -- the name rule is a heuristic;
* Tensor Core kernels: name patterns of TENSOR_CORE_PATTERNS, each counted on
  its own, and their union;
* ``[memory]`` instant events (profile_memory=True): per ``(Device Type,
  Device Id)`` the count, the peak of ``Total Allocated`` and ``Total
  Reserved`` and the sums of positive / negative ``Bytes``.

Usage: kineto_gpu_facts.py TRACE.json[.gz] [> expected_facts.json]
"""
import collections
import gzip
import json
import os
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

DEVICE_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy",
               "Memcpy": "memcpy", "gpu_memset": "memset", "Memset": "memset"}
LAUNCH_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
OP_CATS = {"cpu_op", "Operator"}
ANNOTATION_CATS = {"user_annotation"}
STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")

# Matched against the lower-cased kernel name, first match wins.
DTYPE_PATTERNS = [
    ("fp8", r"e4m3|e5m2|fp8|float8"),
    ("bf16", r"bf16|bfloat16"),
    ("fp16", r"fp16|(?<![bt])f16|half|hgemm|h884|h1688|h16816"),
    ("fp32", r"sgemm|fp32|f32|float|tf32|s1688|s16816"),
]
# Kernel-name fragments that mark Tensor Core (MMA) kernels on Hopper/Ampere.
# Each is reported separately; none is proof by itself ("cutlass" and "sm80"
# also name SIMT fp32 kernels, "gemm" names sgemm, and cuBLAS' FP32
# "sm80_xmma_gemm_f32f32_..._ffma_..." kernels are SIMT despite "xmma").  The
# union leaves out the ambiguous fragments and any name with a SIMT marker.
TENSOR_CORE_PATTERNS = ["wgmma", "gmma", "hmma", "xmma", "tensorop", "mma", "sm90", "sm80",
                        "cutlass", "flash", "fmha", "nvjet", "cublaslt", "gemm",
                        "s1688", "s16816", "h16816", "i8816", "f8f6f4", "e4m3"]
TENSOR_CORE_UNION = ["wgmma", "gmma", "hmma", "xmma", "tensorop", "flash", "nvjet",
                     "s16816", "h16816", "i8816", "e4m3"]
SIMT_MARKERS = ["ffma", "simt", "sgemm"]
FLOAT_TYPES = {"float": "fp32", "double": "fp64", "c10::BFloat16": "bf16", "c10::Half": "fp16",
               "c10::Float8_e4m3fn": "fp8_e4m3", "c10::Float8_e5m2": "fp8_e5m2",
               "c10::Float8_e4m3fnuz": "fp8_e4m3", "c10::Float8_e5m2fnuz": "fp8_e5m2"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def ns(x):
    return int((Decimal(x) * 1000).to_integral_value(ROUND_HALF_UP))


class Spans:
    """Per-thread spans; finds the innermost span that contains [b, e]."""

    def __init__(self):
        self.by_thread = collections.defaultdict(list)

    def add(self, thread, b, e, event):
        self.by_thread[thread].append((b, e, event))

    def innermost(self, thread, b, e):
        best = None
        for sb, se, ev in self.by_thread.get(thread, ()):
            if sb <= b and e <= se and (best is None or se - sb < best[1] - best[0]
                                        or (se - sb == best[1] - best[0] and sb > best[0])):
                best = (sb, se, ev)
        return best[2] if best else None

    def all_containing(self, thread, b, e):
        return [ev for sb, se, ev in self.by_thread.get(thread, ()) if sb <= b and e <= se]


def dtype_by_name(name):
    low = name.lower()
    for label, pat in DTYPE_PATTERNS:
        if re.search(pat, low):
            return label
    return "unknown"


def dtype_of_op(op):
    if op is None:
        return "no_op"
    for t in op.get("args", {}).get("Input type", []) or []:
        if t in FLOAT_TYPES:
            return FLOAT_TYPES[t]
    return "no_float_input"


def add(d, key, dur):
    c = d.setdefault(key, {"count": 0, "ns": 0})
    c["count"] += 1
    c["ns"] += dur


def facts(path):
    doc = load(path)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    out = {"file": os.path.basename(path), "bytes": os.path.getsize(path)}
    if isinstance(doc, dict):
        out["top_level_keys"] = sorted(k for k in doc if k != "traceEvents")
        out["device_properties"] = [p.get("name") for p in doc.get("deviceProperties", [])]
    counts = collections.Counter(f"{e.get('ph')}/{e.get('cat')}" for e in events)
    out["event_counts_by_ph_cat"] = dict(sorted(counts.items()))

    ops, annotations = Spans(), Spans()
    launches = {}
    duplicate_correlations = 0
    device, steps, gpu_annotations = [], [], collections.Counter()
    memory = collections.defaultdict(list)
    for e in events:
        ph, cat, a = e.get("ph"), e.get("cat"), e.get("args", {}) or {}
        if ph == "i" and e.get("name") == "[memory]":
            memory[f"{a.get('Device Type')}:{a.get('Device Id')}"].append(a)
            continue
        if ph != "X" or "dur" not in e:
            continue
        b = ns(e["ts"])
        span = (b, b + ns(e["dur"]))
        thread = (str(e.get("pid")), str(e.get("tid")))
        name = str(e.get("name", ""))
        if cat in DEVICE_CATS:
            device.append((DEVICE_CATS[cat], span, e))
        elif cat == "gpu_user_annotation":
            gpu_annotations[name] += 1
        elif STEP_RE.match(name):
            steps.append((span, thread, e))
            annotations.add(thread, *span, e)
        elif cat in OP_CATS:
            ops.add(thread, *span, e)
        elif cat in ANNOTATION_CATS:
            annotations.add(thread, *span, e)
        if cat in LAUNCH_CATS and "correlation" in a:
            duplicate_correlations += a["correlation"] in launches
            launches[a["correlation"]] = (thread, span, e)

    kernels = [(span, e) for kind, span, e in device if kind == "kernel"]
    out["cpu_ops"] = {"count": sum(len(v) for v in ops.by_thread.values()),
                      "distinct_names": len({ev["name"] for v in ops.by_thread.values() for _, _, ev in v}),
                      "threads": len(ops.by_thread)}
    out["user_annotations"] = dict(sorted(collections.Counter(
        ev["name"] for v in annotations.by_thread.values() for _, _, ev in v
        if not STEP_RE.match(ev["name"])).items()))
    out["gpu_user_annotations"] = dict(sorted(gpu_annotations.items()))
    out["launch_correlations_seen_twice"] = duplicate_correlations

    by_kind = {}
    for kind, (b, e), _ in device:
        add(by_kind, kind, e - b)
    out["device_activities"] = by_kind
    out["kernels"] = {
        "count": len(kernels), "total_ns": sum(e - b for (b, e), _ in kernels),
        "zero_duration": sum(1 for (b, e), _ in kernels if e == b),
        "by_device_stream": {}, "with_launch": {"count": 0, "ns": 0},
        "without_launch": {"count": 0, "ns": 0}, "launch_api": {},
        "inside_cpu_op": {"count": 0, "ns": 0}, "outside_cpu_op": {"count": 0, "ns": 0},
        "outside_cpu_op_by_name": {}, "outside_cpu_op_by_innermost_annotation": {},
        "by_innermost_annotation": {}, "by_enclosing_op_input_dtype": {},
        "by_name_dtype": {}, "tensor_core_by_pattern": {},
        "tensor_core_union": {"count": 0, "ns": 0}, "by_innermost_op": {},
        "by_launch_thread": {}, "by_annotation_time_window": {}}
    k = out["kernels"]
    step_kernels = collections.defaultdict(lambda: {"count": 0, "ns": 0})
    # Time-window view, thread-blind: a kernel counts for every annotation
    # span (any thread) in which its launch starts.  Backward kernels are
    # launched by the autograd thread, outside the main thread's regions.
    windows = [(ev["name"], sb, se) for v in annotations.by_thread.values()
               for sb, se, ev in v if not STEP_RE.match(ev["name"])]
    step_windows = {(e["ts"], e["name"]): span for span, _, e in steps}
    step_window_kernels = collections.defaultdict(lambda: {"count": 0, "ns": 0})
    by_name = {}
    for (b, e), ev in kernels:
        dur, a, name = e - b, ev.get("args", {}), ev["name"]
        add(k["by_device_stream"], f"device {a.get('device')} stream {a.get('stream')}", dur)
        add(by_name, name, dur)
        launch = launches.get(a.get("correlation"))
        op = None
        if launch is None:
            add(k["without_launch"], "all", dur)
        else:
            add(k["with_launch"], "all", dur)
            thread, (lb, le), lev = launch
            add(k["launch_api"], lev["name"], dur)
            add(k["by_launch_thread"], f"pid {thread[0]} tid {thread[1]}", dur)
            for ann_name in sorted({n for n, sb, se in windows if sb <= lb < se}):
                add(k["by_annotation_time_window"], ann_name, dur)
            for key in [key for key, (sb, se) in step_windows.items() if sb <= lb < se]:
                step_window_kernels[key]["count"] += 1
                step_window_kernels[key]["ns"] += dur
            op = ops.innermost(thread, lb, le)
            ann = annotations.innermost(thread, lb, le)
            ann_name = ann["name"] if ann else "(none)"
            ann_key = "ProfilerStep#N" if STEP_RE.match(ann_name) else ann_name
            add(k["by_innermost_annotation"], ann_key, dur)
            for s in annotations.all_containing(thread, lb, le):
                if STEP_RE.match(s["name"]):
                    step_kernels[(s["ts"], s["name"])]["count"] += 1
                    step_kernels[(s["ts"], s["name"])]["ns"] += dur
            if op is None:
                add(k["outside_cpu_op"], "all", dur)
                add(k["outside_cpu_op_by_name"], name[:120], dur)
                add(k["outside_cpu_op_by_innermost_annotation"], ann_key, dur)
            else:
                add(k["inside_cpu_op"], "all", dur)
                add(k["by_innermost_op"], op["name"], dur)
        add(k["by_enclosing_op_input_dtype"], dtype_of_op(op) if launch else "no_launch", dur)
        add(k["by_name_dtype"], dtype_by_name(name), dur)
        low = name.lower()
        for pat in TENSOR_CORE_PATTERNS:
            if pat in low:
                add(k["tensor_core_by_pattern"], pat, dur)
        if any(p in low for p in TENSOR_CORE_UNION) and not any(m in low for m in SIMT_MARKERS):
            add(k["tensor_core_union"], "all", dur)
    for key in ("with_launch", "without_launch", "inside_cpu_op", "outside_cpu_op", "tensor_core_union"):
        k[key] = k[key].get("all", {"count": 0, "ns": 0})
    for key in ("by_innermost_op", "outside_cpu_op_by_name"):
        k[key] = dict(sorted(k[key].items(), key=lambda kv: (-kv[1]["ns"], kv[0])))
    k["top_kernel_names"] = [{"name": n, **c} for n, c in
                             sorted(by_name.items(), key=lambda kv: (-kv[1]["ns"], kv[0]))[:25]]
    k["distinct_names"] = len(by_name)
    k["patterns"] = {"dtype_by_name (first match, lower-cased name)": dict(DTYPE_PATTERNS),
                     "tensor_core_by_pattern (substring, lower-cased name)": TENSOR_CORE_PATTERNS,
                     "tensor_core_union": TENSOR_CORE_UNION,
                     "tensor_core_union excludes names with": SIMT_MARKERS}

    steps.sort(key=lambda s: s[0][0])
    out["profiler_steps"] = [
        {"name": e["name"], "N": int(STEP_RE.match(e["name"]).group(1)), "cat": e.get("cat"),
         "dur_ns": se - sb, "kernels_launched": step_kernels[(e["ts"], e["name"])]["count"],
         "kernel_ns": step_kernels[(e["ts"], e["name"])]["ns"],
         "kernels_launched_in_window": step_window_kernels[(e["ts"], e["name"])]["count"],
         "kernel_ns_in_window": step_window_kernels[(e["ts"], e["name"])]["ns"]}
        for (sb, se), _, e in steps]

    mem = {"count": sum(len(v) for v in memory.values()), "by_device": {}}
    for dev, rows in sorted(memory.items()):
        bytes_ = [int(r.get("Bytes", 0)) for r in rows]
        mem["by_device"][dev] = {
            "count": len(rows),
            "peak_total_allocated": max(int(r.get("Total Allocated", 0)) for r in rows),
            "peak_total_reserved": max(int(r.get("Total Reserved", 0)) for r in rows),
            "allocated_bytes_sum": sum(x for x in bytes_ if x > 0),
            "freed_bytes_sum": -sum(x for x in bytes_ if x < 0),
            "allocations": sum(1 for x in bytes_ if x > 0),
            "frees": sum(1 for x in bytes_ if x < 0)}
    out["memory_events"] = mem
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    json.dump(facts(sys.argv[1]), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
