#!/usr/bin/env python3
"""Makes a large Chrome trace for benchmarking the JSON reader by repeating a
real trace's events, each copy shifted in time past the previous one.

    scripts/bench/make_big_json.py SOURCE.json[.gz] OUT.json --size-mb 1024 [--one-line]

Metadata (ph M) events are written once. Timestamps are shifted in integer
nanoseconds and written with three decimals, as Kineto does, so the copies
keep the source's precision. The output is one event per line (Kineto's
layout), or a single line with --one-line. Large outputs belong in /tmp,
never in the repository.

The source's other top-level keys (Kineto's deviceProperties and
distributedInfo, TF's displayTimeUnit) are kept, written before traceEvents.
Integer ids that link events (Kineto's correlation and External id, flow
ids, ...) are shifted in every copy past the largest id of the source, so a
copy's kernels link to that copy's launches only, as in a real long trace:
repeated ids would make a reader (ours, or HolisticTraceAnalysis, which joins
on them) pair every copy with every other.
"""
import argparse
import gzip
import json
import re
import sys

# Integer fields, top level or in args, that identify or link events.
ID_ARGS = ("correlation", "External id", "Ev Idx", "Sequence number",
           "Python id", "Python parent id")
ID_TOP = ("id",)  # flow events (ph s/t/f)
SLOT = re.compile(r'"@@(TS|ID)(-?\d+)@@"')


def load_trace(path):
    """Returns (events, other top-level keys as a dict)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    if isinstance(doc, list):
        return doc, {}
    return doc["traceEvents"], {k: v for k, v in doc.items() if k != "traceEvents"}


def to_ns(ts):
    return round(float(ts) * 1000)


def is_id(value):
    return isinstance(value, int) and not isinstance(value, bool)


def make_template(event, ts_ns):
    """Serialises the event once with placeholders for ts and the ids.

    Returns (pieces, slots): the text is pieces[0] + v0 + pieces[1] + ...,
    where slot i is ("TS", 0) or ("ID", original id)."""
    copy = dict(event)
    copy["ts"] = f"@@TS{ts_ns}@@"
    for key in ID_TOP:
        if is_id(copy.get(key)):
            copy[key] = f"@@ID{copy[key]}@@"
    if isinstance(copy.get("args"), dict):
        args = dict(copy["args"])
        for key in ID_ARGS:
            if is_id(args.get(key)):
                args[key] = f"@@ID{args[key]}@@"
        copy["args"] = args
    text = json.dumps(copy, ensure_ascii=False)
    parts = SLOT.split(text)
    pieces = parts[0::3]
    slots = [(kind, int(value)) for kind, value in zip(parts[1::3], parts[2::3])]
    return pieces, slots


def max_id(events):
    biggest = 0
    for e in events:
        for key in ID_TOP:
            if is_id(e.get(key)):
                biggest = max(biggest, e[key])
        args = e.get("args")
        if isinstance(args, dict):
            for key in ID_ARGS:
                if is_id(args.get(key)):
                    biggest = max(biggest, args[key])
    return biggest


def render(pieces, slots, ts_shift, id_shift):
    out = [pieces[0]]
    for (kind, value), piece in zip(slots, pieces[1:]):
        if kind == "TS":
            t = value + ts_shift
            out.append(f"{t // 1000}.{t % 1000:03d}")
        else:
            out.append(str(value + id_shift))
        out.append(piece)
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--size-mb", type=float, default=1024)
    parser.add_argument("--one-line", action="store_true", help="no newlines between events")
    args = parser.parse_args()

    all_events, top_level = load_trace(args.source)
    events = [e for e in all_events if isinstance(e, dict) and e]
    metadata = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    if not timed:
        sys.exit("no timed events in " + args.source)
    start = min(to_ns(e["ts"]) for e in timed)
    end = max(to_ns(e["ts"]) + to_ns(e.get("dur", 0)) for e in timed)
    span = end - start + 1000
    id_span = max_id(timed) + 1

    # Serialise each event once with placeholders; only numbers change
    # between copies.
    templates = [make_template(e, to_ns(e["ts"])) for e in timed]

    sep = "," if args.one_line else ",\n"
    target = int(args.size_mb * 1e6)
    written = 0
    copies = 0
    with open(args.out, "w", encoding="utf-8") as out:
        head = "{"
        for key, value in top_level.items():
            head += json.dumps(key) + ":" + json.dumps(value, ensure_ascii=False) + ","
            if not args.one_line:
                head += "\n"
        head += '"traceEvents":[' + ("" if args.one_line else "\n")
        out.write(head)
        written += len(head)
        first = True
        for e in metadata:
            text = json.dumps(e, ensure_ascii=False)
            out.write(("" if first else sep) + text)
            written += len(text) + len(sep)
            first = False
        while written < target:
            ts_shift = copies * span
            id_shift = copies * id_span
            text = sep.join(render(p, s, ts_shift, id_shift) for p, s in templates)
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
