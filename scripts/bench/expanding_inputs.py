#!/usr/bin/env python3
"""Peak memory and exit code of `tfprof-analyze info` on small inputs that
expand far beyond their size on disk (docs/robustness.md, "Memory the file
size does not show"). The same inputs are made by
tests/read/memory_budget_test.cc; nothing is written into the repository.

    scripts/bench/expanding_inputs.py [--limit 200M] BINARY [BINARY...]

Prints, per input and binary: the file's size, the exit code, peak RSS
(/usr/bin/time -v) and the error line.
"""
import argparse
import gzip
import io
import os
import re
import subprocess
import tempfile


def varint(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as f:
        f.write(data)
    return buf.getvalue()


def inputs():
    lines = b"\x1a\x00" * 4_000_000
    pids = ",".join('{"ph":"i","ts":0,"pid":%d}' % p for p in range(20000))
    one_event_lines = b"\x1a\x02\x22\x00" * 4_000_000 + b"\x22\x00"
    tids = ",".join('{"ph":"X","ts":%d,"dur":1,"pid":1,"tid":%d}' % (t, t) for t in range(1_000_000))
    cats = ",".join('{"ph":"b","ts":1,"pid":1,"cat":"c%d","id":1,"name":"n"}' % t for t in range(300_000))
    return {
        # 2,000,000 empty planes (field 1, length 0), gzipped.
        "empty_planes.xplane.pb.gz": gz(b"\x0a\x00" * 2_000_000),
        # One plane of 4,000,000 empty lines (field 3, length 0).
        "empty_lines.xplane.pb": b"\x0a" + varint(len(lines)) + lines,
        # 20,000 processes of one instant event each.
        "pids.trace.json.gz": gz(('{"traceEvents":[' + pids + "]}").encode()),
        # One plane of 4,000,000 lines of one empty event each (metadata id 0,
        # defined by an empty entry).
        "one_event_lines.xplane.pb": b"\x0a" + varint(len(one_event_lines)) + one_event_lines,
        # 1,000,000 threads of one event each.
        "tids.trace.json": ('{"traceEvents":[' + tids + "]}").encode(),
        # 300,000 async b events of distinct categories: a line each.
        "async_cats.trace.json": ('{"traceEvents":[' + cats + "]}").encode(),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", default="200M", help="TFPROF_MEMORY_LIMIT")
    ap.add_argument("binaries", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'input':<28} {'bytes':>9} {'binary':<28} {'exit':>4} {'peak MiB':>9}  error")
        for name, data in inputs().items():
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            for binary in args.binaries:
                env = dict(os.environ, TFPROF_MEMORY_LIMIT=args.limit)
                r = subprocess.run(["/usr/bin/time", "-v", binary, "info", path], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1))
                signal = re.search(r"Command terminated by signal (\d+)", r.stderr)
                code = re.search(r"Exit status: (\d+)", r.stderr)
                code = 128 + int(signal.group(1)) if signal else int(code.group(1)) if code else r.returncode
                error = next((l for l in r.stderr.splitlines() if l.startswith("tfprof-analyze: error:")), "")
                error = error.replace(path, name)
                print(f"{name:<28} {len(data):>9} {binary[-28:]:<28} {code:>4} "
                      f"{peak / 1024:>9.0f}  {error}")


if __name__ == "__main__":
    main()
