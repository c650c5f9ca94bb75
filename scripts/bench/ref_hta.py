#!/usr/bin/env python3
"""Runs one HolisticTraceAnalysis analysis on a Kineto trace, for the speed
benchmark.

    ref_hta.py TRACE_DIR ANALYSIS

TRACE_DIR holds the trace (HTA reads every trace file of a folder, one per
rank). ANALYSIS is one of:
  kernel_breakdown    get_gpu_kernel_breakdown(): time per kernel type and
                      per kernel name (our kernel-stats)
  temporal_breakdown  get_temporal_breakdown(): idle / compute / non-compute
                      GPU time (the device-time part of our overview)
Each run loads the trace itself (TraceAnalysis parses it), as our CLI does.
Prints one JSON line: {"analysis", "load_s", "analysis_s", "rows"}.
"""
import json
import sys
import time

ANALYSES = {
    "kernel_breakdown": lambda a: a.get_gpu_kernel_breakdown(visualize=False),
    "temporal_breakdown": lambda a: a.get_temporal_breakdown(visualize=False),
}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ANALYSES:
        sys.exit(__doc__)
    trace_dir, analysis = sys.argv[1], sys.argv[2]
    from hta.trace_analysis import TraceAnalysis  # pylint: disable=import-outside-toplevel

    start = time.perf_counter()
    traces = TraceAnalysis(trace_dir=trace_dir)
    loaded = time.perf_counter()
    result = ANALYSES[analysis](traces)
    done = time.perf_counter()
    frames = result if isinstance(result, tuple) else (result,)
    print(json.dumps({"analysis": analysis, "load_s": round(loaded - start, 3),
                      "analysis_s": round(done - loaded, 3),
                      "rows": [len(f) for f in frames]}))


if __name__ == "__main__":
    main()
