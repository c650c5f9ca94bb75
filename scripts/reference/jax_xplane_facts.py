#!/usr/bin/env python3
"""Independent facts about one JAX GPU capture (``<host>.xplane.pb``), as JSON.

Written for testdata/captures/jax_gpu/ (the README there describes every
value), straight from the XSpace protobuf and never from tfprof-analyze.
Rules:

* times: an event starts at ``line.timestamp_ns * 1000 + offset_ps`` ps and
  lasts ``duration_ps``; reported in integer ns (ps // 1000 of the sums);
* an event's stats are its own ``XEvent.stats`` plus its metadata's
  ``XEventMetadata.stats``; a ``ref_value`` stat means the stat_metadata name
  it points to;
* steps: host-plane events with a ``step_num`` stat (JAX's
  ``StepTraceAnnotation``), with their name, number and duration;
* device kernels: events on ``/device:GPU:N`` planes, on lines whose name
  starts with ``Stream`` (the CUPTI tracer's per-stream lines), excluding
  ``Memcpy``/``Memset`` names; grouped by the ``hlo_module`` and ``hlo_op``
  stats, by the HLO category when a stat carries one, by the dtype and
  Tensor-Core name patterns of kineto_gpu_facts.py, and by the host step
  whose span contains the kernel's start;
* XLA ops on the host: events of ``/host:CPU`` lines carrying an ``hlo_op``
  stat, if any;
* host launches: ``/host:CPU`` events with a ``correlation_id`` stat (the
  CUPTI API callbacks: ``cuGraphLaunch (CudaGraph:N)``, ``MemcpyH2D``, a
  fusion's name...); a device kernel is linked to the host event with the
  same ``correlation_id`` (``by_launch``); ``cuda_graph_id`` on a kernel
  means it ran as a node of a CUDA graph (XLA command buffer);
* memory: host-plane ``MemoryAllocation`` / ``MemoryDeallocation`` events per
  ``allocator_name`` (count, peak of ``peak_bytes_in_use``, largest
  ``bytes_allocated``).

The XSpace classes are generated at run time by ``protoc`` from
proto/xplane.proto, whose field numbers are those of the published
tsl/profiler/protobuf/xplane.proto; needs protoc and the python3 protobuf
runtime (Debian: protobuf-compiler, python3-protobuf).
Usage: jax_xplane_facts.py FILE.xplane.pb [> expected_facts.json]
"""
import collections
import importlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kineto_gpu_facts as names  # noqa: E402  (same name patterns for both frameworks)

PROTO = os.path.join(HERE, "..", "..", "proto", "xplane.proto")


def load_space(path):
    tmp = tempfile.mkdtemp(prefix="xplane_pb2_")
    proto_dir = os.path.dirname(os.path.abspath(PROTO))
    subprocess.run(["protoc", f"--proto_path={proto_dir}", f"--python_out={tmp}",
                    os.path.abspath(PROTO)], check=True)
    sys.path.insert(0, tmp)
    pb2 = importlib.import_module("xplane_pb2")
    space = pb2.XSpace()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    return space


def stat_value(stat, stat_names):
    kind = stat.WhichOneof("value")
    if kind == "ref_value":
        return stat_names.get(stat.ref_value, "")
    if kind == "bytes_value":
        return f"<{len(stat.bytes_value)} bytes>"
    return getattr(stat, kind) if kind else None


def add(d, key, dur_ps):
    c = d.setdefault(key, {"count": 0, "ps": 0})
    c["count"] += 1
    c["ps"] += dur_ps


def to_ns(d):
    """{"count", "ps"} -> {"count", "ns"} everywhere in a dict of such."""
    return {k: {"count": v["count"], "ns": v["ps"] // 1000} for k, v in
            sorted(d.items(), key=lambda kv: (-kv[1]["ps"], str(kv[0])))}


def facts(path):
    space = load_space(path)
    out = {"file": os.path.basename(path), "bytes": os.path.getsize(path),
           "hostnames": list(space.hostnames), "errors": list(space.errors),
           "warnings": list(space.warnings), "planes": []}
    events = []  # (plane, line, name, begin_ps, dur_ps, stats)
    for plane in space.planes:
        stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
        p = {"name": plane.name, "lines": [], "plane_stats": {
            stat_names.get(s.metadata_id, str(s.metadata_id)): stat_value(s, stat_names)
            for s in plane.stats}}
        stat_keys = collections.Counter()
        for line in plane.lines:
            p["lines"].append({"name": line.name, "events": len(line.events)})
            for ev in line.events:
                md = plane.event_metadata.get(ev.metadata_id)
                stats = {}
                for s in list(md.stats if md else []) + list(ev.stats):
                    stats[stat_names.get(s.metadata_id, str(s.metadata_id))] = stat_value(s, stat_names)
                stat_keys.update(stats.keys())
                begin = line.timestamp_ns * 1000 + ev.offset_ps
                events.append((plane.name, line.name, md.name if md else "", begin,
                               ev.duration_ps, stats))
        p["num_events"] = sum(x["events"] for x in p["lines"])
        p["event_stat_names"] = dict(sorted(stat_keys.items()))
        out["planes"].append(p)

    host = [e for e in events if e[0] == "/host:CPU"]
    steps = sorted((e for e in host if "step_num" in e[5]), key=lambda e: e[3])
    out["steps"] = [{"name": e[2], "step_num": e[5]["step_num"], "line": e[1],
                     "dur_ns": e[4] // 1000, "group_id": e[5].get("group_id")} for e in steps]
    out["host_annotations"] = dict(collections.Counter(
        e[2] for e in host if e[2] in ("my_region",) or "step_num" in e[5]))
    host_xla = {}
    for e in host:
        if "hlo_op" in e[5]:
            add(host_xla, e[2], e[4])
    out["host_events_with_hlo_op"] = to_ns(host_xla)
    launch_of = {}
    launch_names = collections.Counter()
    for e in host:
        if "correlation_id" in e[5]:
            launch_of[e[5]["correlation_id"]] = e[2]
            launch_names[e[2]] += 1
    out["host_launch_events"] = dict(sorted(launch_names.items()))
    memory = {}
    for e in host:
        if e[2] in ("MemoryAllocation", "MemoryDeallocation"):
            m = memory.setdefault(str(e[5].get("allocator_name")), {
                "MemoryAllocation": 0, "MemoryDeallocation": 0, "peak_bytes_in_use": 0,
                "max_bytes_allocated": 0})
            m[e[2]] += 1
            m["peak_bytes_in_use"] = max(m["peak_bytes_in_use"], int(e[5].get("peak_bytes_in_use", 0)))
            m["max_bytes_allocated"] = max(m["max_bytes_allocated"], int(e[5].get("bytes_allocated", 0)))
    out["memory_events"] = dict(sorted(memory.items()))

    dev = {}
    for plane, line, name, begin, dur, stats in events:
        if not plane.startswith("/device:GPU:"):
            continue
        d = dev.setdefault(plane, {"lines": {}, "kernels": {}, "memcpy_memset": {},
                                   "by_hlo_module": {}, "by_hlo_op": {}, "by_hlo_category": {},
                                   "by_name_dtype": {}, "tensor_core_by_pattern": {},
                                   "tensor_core_union": {}, "by_step": {}, "kernel_names": {},
                                   "without_hlo_op": {}, "by_launch": {},
                                   "in_cuda_graph": {}})
        add(d["lines"], line, dur)
        if not line.startswith("Stream"):
            continue
        if name.startswith(("Memcpy", "Memset", "memcpy", "memset")):
            add(d["memcpy_memset"], name, dur)
            continue
        add(d["kernels"], "all", dur)
        add(d["by_launch"], launch_of.get(stats.get("correlation_id"), "(no host event)"), dur)
        if "cuda_graph_id" in stats:
            add(d["in_cuda_graph"], "all", dur)
        add(d["kernel_names"], name, dur)
        add(d["by_hlo_module"], str(stats.get("hlo_module", "(none)")), dur)
        if "hlo_op" in stats:
            add(d["by_hlo_op"], str(stats["hlo_op"]), dur)
        else:
            add(d["without_hlo_op"], name[:120], dur)
        for key in ("hlo_category", "category", "hlo_op_category"):
            if key in stats:
                add(d["by_hlo_category"], f"{key}={stats[key]}", dur)
        add(d["by_name_dtype"], names.dtype_by_name(name), dur)
        low = name.lower()
        for pat in names.TENSOR_CORE_PATTERNS:
            if pat in low:
                add(d["tensor_core_by_pattern"], pat, dur)
        if any(p in low for p in names.TENSOR_CORE_UNION) and \
                not any(m in low for m in names.SIMT_MARKERS):
            add(d["tensor_core_union"], "all", dur)
        step = next((s[5]["step_num"] for s in steps if s[3] <= begin < s[3] + s[4]), "(none)")
        add(d["by_step"], str(step), dur)
    out["devices"] = {}
    for plane, d in sorted(dev.items()):
        out["devices"][plane] = {
            "kernels": to_ns(d["kernels"]).get("all", {"count": 0, "ns": 0}),
            "tensor_core_union": to_ns(d["tensor_core_union"]).get("all", {"count": 0, "ns": 0}),
            "in_cuda_graph": to_ns(d["in_cuda_graph"]).get("all", {"count": 0, "ns": 0}),
            **{k: to_ns(d[k]) for k in ("lines", "memcpy_memset", "by_launch", "by_hlo_module", "by_hlo_op",
                                        "by_hlo_category", "without_hlo_op", "by_name_dtype",
                                        "tensor_core_by_pattern", "by_step")},
            "distinct_kernel_names": len(d["kernel_names"]),
            "top_kernel_names": [{"name": n, **c} for n, c in list(to_ns(d["kernel_names"]).items())[:25]],
        }
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    json.dump(facts(sys.argv[1]), sys.stdout, indent=1, default=str)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
