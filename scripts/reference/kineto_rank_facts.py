#!/usr/bin/env python3
"""Independent per-rank facts of a multi-rank PyTorch (Kineto) run, to check
`tfprof-analyze hosts` against (tests/tools/scale_out_cli_test.cc), straight
from the raw traces and never from tfprof-analyze:

* ``rank``, ``world_size``, ``backend``: the trace's ``distributedInfo``;
* ``profiler_steps``: each host ``ProfilerStep#N`` annotation (category
  ``user_annotation``) with its duration in integer picoseconds;
* ``regions``: per ``record_function`` region name (``user_annotation``,
  ProfilerStep aside) its count and each duration in picoseconds, in time
  order;
* ``step_avg_ms``: the mean of the steps' durations; ``p50_ms``/``p90_ms``:
  nearest-rank percentiles of them (the smallest duration with at least p%
  of the steps at or below it).

Usage: kineto_rank_facts.py TRACE.json[.gz]... > expected_facts.json
"""
import collections
import gzip
import json
import math
import os
import sys
from decimal import Decimal

from kineto_trace import ps


def facts(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f, parse_float=Decimal)
    info = trace.get("distributedInfo", {})
    steps, regions = [], collections.defaultdict(list)
    for e in sorted(trace["traceEvents"], key=lambda e: (Decimal(e.get("ts", 0)), e.get("name", ""))):
        if e.get("ph") != "X" or e.get("cat") != "user_annotation":
            continue
        if e["name"].startswith("ProfilerStep#"):
            steps.append({"name": e["name"], "dur_ps": ps(e["dur"])})
        else:
            regions[e["name"]].append(ps(e["dur"]))
    durs = sorted(s["dur_ps"] for s in steps)

    def nearest_rank(p):
        return durs[max(1, math.ceil(p / 100 * len(durs))) - 1] / 1e9 if durs else None

    return {
        "rank": info.get("rank"), "world_size": info.get("world_size"), "backend": info.get("backend"),
        "profiler_steps": steps,
        "step_avg_ms": sum(durs) / len(durs) / 1e9 if durs else None,
        "p50_ms": nearest_rank(50), "p90_ms": nearest_rank(90),
        "regions": {name: {"count": len(d), "dur_ps": d} for name, d in sorted(regions.items())},
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = {os.path.basename(p): facts(p) for p in sorted(sys.argv[1:])}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
