#!/usr/bin/env python3
"""Makes a large Chrome trace for benchmarking the JSON reader by repeating a
real trace's events, each copy shifted in time past the previous one.

    scripts/bench/make_big_json.py SOURCE.json[.gz] OUT.json --size-mb 1024 [--one-line]

Metadata (ph M) events are written once. Timestamps are shifted in integer
nanoseconds and written with three decimals, as Kineto does, so the copies
keep the source's precision. The output is one event per line (Kineto's
layout), or a single line with --one-line. Large outputs belong in /tmp,
never in the repository.
"""
import argparse
import gzip
import json
import sys


def load_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def to_ns(ts):
    return round(float(ts) * 1000)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--size-mb", type=float, default=1024)
    parser.add_argument("--one-line", action="store_true", help="no newlines between events")
    args = parser.parse_args()

    events = [e for e in load_events(args.source) if isinstance(e, dict) and e]
    metadata = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    if not timed:
        sys.exit("no timed events in " + args.source)
    start = min(to_ns(e["ts"]) for e in timed)
    end = max(to_ns(e["ts"]) + to_ns(e.get("dur", 0)) for e in timed)
    span = end - start + 1000

    # Serialise each event once with a placeholder for ts, then only the
    # number changes between copies.
    templates = []
    for e in timed:
        copy = dict(e)
        copy["ts"] = "@TS@"
        prefix, suffix = json.dumps(copy, ensure_ascii=False).split('"@TS@"')
        templates.append((to_ns(e["ts"]), prefix, suffix))

    sep = "," if args.one_line else ",\n"
    target = int(args.size_mb * 1e6)
    written = 0
    copies = 0
    with open(args.out, "w", encoding="utf-8") as out:
        head = '{"traceEvents":[' + ("" if args.one_line else "\n")
        out.write(head)
        written += len(head)
        first = True
        for e in metadata:
            text = json.dumps(e, ensure_ascii=False)
            out.write(("" if first else sep) + text)
            written += len(text) + len(sep)
            first = False
        while written < target:
            shift = copies * span
            chunk = []
            for ts_ns, prefix, suffix in templates:
                t = ts_ns + shift
                chunk.append(f"{prefix}{t // 1000}.{t % 1000:03d}{suffix}")
            text = sep.join(chunk)
            out.write(("" if first else sep) + text)
            written += len(text) + len(sep)
            first = False
            copies += 1
        tail = ("" if args.one_line else "\n") + "]}\n"
        out.write(tail)
    print(f"{args.out}: {copies} copies of {len(timed)} events (+{len(metadata)} metadata), "
          f"{written / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
