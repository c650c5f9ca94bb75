#!/usr/bin/env python3
"""Converts one XSpace capture to one xprof tool, for the speed benchmark.

    ref_xprof.py CAPTURE.xplane.pb TOOL

Runs in .venv-bench (xprof 2.24.2), one tool per process so each
measurement starts cold, as our CLI does. Prints one JSON line:
{"tool", "convert_s" (the conversion alone, without Python start-up and
imports), "output_bytes"}. Exits 1 when xprof returns no data.

xprof may write cache files next to the capture, so the benchmark passes a
symlink inside a scratch folder, never the capture's own folder.
"""
import json
import sys
import time

from xprof.convert import raw_to_tool_data


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, tool = sys.argv[1], sys.argv[2]
    start = time.perf_counter()
    # use_saved_result=False: compute from the XSpace, never from a cache.
    data, _content_type = raw_to_tool_data.xspace_to_tool_data(
        [path], tool, {"use_saved_result": False})
    seconds = time.perf_counter() - start
    if data is None:
        print(json.dumps({"tool": tool, "error": "xprof returned no data"}))
        sys.exit(1)
    print(json.dumps({"tool": tool, "convert_s": round(seconds, 3), "output_bytes": len(data)}))


if __name__ == "__main__":
    main()
