#!/usr/bin/env python3
"""Summarise one or more XSpace captures (``*.xplane.pb``) as JSON.

Used by capture_all.sh to record the facts quoted in
testdata/captures/README.md: planes, lines and events per plane, and whether
the capture holds the event families tfprof-analyze cares about:

* step markers     -- root events (TraceMe with a ``_r`` stat, e.g. from
                      ``tf.profiler.experimental.Trace(..., _r=1)``, tf_keras
                      ``fit`` or ``jax.profiler.StepTraceAnnotation``) and events
                      with a ``step_num`` stat; ``distinct_group_ids`` is how
                      many step groups TF's grouping pass assigned
* tf.data events   -- ``Iterator::...`` events on the host plane
* memory events    -- ``MemoryAllocation`` / ``MemoryDeallocation`` events

Usage: inspect_xplane.py FILE_OR_DIR [...]   (directories are searched
recursively for ``*.xplane.pb``).
"""

import argparse
import collections
import json
import os
import sys


def _load_xplane_pb2():
    # The XPlane protobuf classes ship inside the tensorflow wheel; importing
    # this submodule pulls in all of TensorFlow, which is slow but fine here.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from tensorflow.tsl.profiler.protobuf import xplane_pb2  # pylint: disable=import-outside-toplevel
    return xplane_pb2


def summarize(path, xplane_pb2):
    space = xplane_pb2.XSpace()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    out = {
        "file": os.path.basename(path),
        "bytes": os.path.getsize(path),
        "hostnames": list(space.hostnames),
        "num_planes": len(space.planes),
        "planes": [],
        "totals": collections.Counter(),
    }
    for plane in space.planes:
        stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
        ev_names = {k: v.name for k, v in plane.event_metadata.items()}
        n_events = 0
        root_names = collections.Counter()
        group_ids = set()
        p = {"name": plane.name, "id": plane.id, "num_lines": len(plane.lines),
             "lines": []}
        for line in plane.lines:
            n_events += len(line.events)
            p["lines"].append({"name": line.name, "id": line.id,
                               "events": len(line.events)})
            for ev in line.events:
                name = ev_names.get(ev.metadata_id, "")
                if name.startswith("Iterator::"):
                    out["totals"]["tfdata_iterator_events"] += 1
                if name in ("MemoryAllocation", "MemoryDeallocation"):
                    out["totals"]["memory_events"] += 1
                ev_stats = {stat_names.get(s.metadata_id) for s in ev.stats}
                if "step_num" in ev_stats:
                    out["totals"]["step_num_events"] += 1
                if "_r" in ev_stats:  # root event of a step (TraceMe _r=1)
                    out["totals"]["root_events"] += 1
                    root_names[name] += 1
                if "group_id" in ev_stats:
                    group_ids.add(next(s.int64_value for s in ev.stats
                                       if stat_names.get(s.metadata_id) == "group_id"))
        p["num_events"] = n_events
        p["root_event_names"] = dict(root_names)
        p["distinct_group_ids"] = len(group_ids)
        out["totals"]["events"] += n_events
        out["totals"]["lines"] += len(plane.lines)
        out["planes"].append(p)
    out["totals"] = dict(out["totals"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--brief", action="store_true",
                    help="omit the per-line listing")
    args = ap.parse_args()
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in sorted(names)
                          if n.endswith(".xplane.pb")]
        else:
            files.append(p)
    xplane_pb2 = _load_xplane_pb2()
    result = [summarize(f, xplane_pb2) for f in sorted(files)]
    if args.brief:
        for r in result:
            for p in r["planes"]:
                p.pop("lines")
    json.dump(result, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
