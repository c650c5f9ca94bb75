#!/usr/bin/env python3
"""Writes the inputs that used to take quadratic (or worse) time, at a scale.

    scripts/bench/make_hostile_inputs.py OUT_DIR [SCALE]

SCALE multiplies each case's size (1, 2, 4 for a linearity check). Writes,
under OUT_DIR/<SCALE>x/:
  errors.xplane.pb   an XSpace with 40,000*SCALE distinct `errors` and as many
                     `warnings` (their de-duplication was a linear scan each)
  hosts/             a run folder of 100*SCALE host files of the same size but
                     different bytes (the duplicate-host check compared every
                     same-size pair)
  tf_data.xplane.pb  a tf.data capture whose producer/consumer links form a
                     cycle every root call reaches (each call walked up to the
                     visit limit): 100*SCALE root calls, 4 events in the cycle
  symlinks/          a logdir with 6*SCALE symlinks to itself (the folder
                     walk went through every one of them, 4 levels deep)
  spans/             a folder of 2,000*SCALE one-span PyTorch trace files of
                     one worker (tensorboard_trace_handler with a repeating
                     schedule): each span's run copied the whole file list
Nothing here is committed: scripts/bench/bench_quadratic.sh makes the files
in a temporary folder and times the tool on them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from make_bad_inputs import field_bytes, field_varint  # noqa: E402  (the shared wire helpers)


def plane(name, lines, event_names, stat_names):
    """An XPlane: `lines` are encoded XLines; metadata ids are 1-based
    positions in `event_names` / `stat_names`."""
    parts = [field_varint(1, 1), field_bytes(2, name)]
    parts += [field_bytes(3, line) for line in lines]
    for i, n in enumerate(event_names, 1):
        parts.append(field_bytes(4, field_varint(1, i) + field_bytes(2, field_varint(1, i) + field_bytes(2, n))))
    for i, n in enumerate(stat_names, 1):
        parts.append(field_bytes(5, field_varint(1, i) + field_bytes(2, field_varint(1, i) + field_bytes(2, n))))
    return b"".join(parts)


def line(line_id, events, timestamp_ns=1000):
    parts = [field_varint(1, line_id), field_bytes(2, f"thread {line_id}"), field_varint(3, timestamp_ns)]
    parts += [field_bytes(4, e) for e in events]
    return b"".join(parts)


def event(meta, offset_ps, duration_ps, stats=()):
    """`stats`: (stat metadata id, int value) pairs."""
    out = field_varint(1, meta) + field_varint(2, offset_ps) + field_varint(3, duration_ps)
    for key, value in stats:
        out += field_bytes(4, field_varint(1, key) + field_varint(4, value))
    return out


def tiny_host_plane():
    return plane("/host:CPU", [line(1, [event(1, 0, 1000)])], ["op"], [])


def errors_capture(n):
    parts = [field_bytes(1, tiny_host_plane())]  # Joined once: += on bytes is quadratic.
    for i in range(n):
        parts.append(field_bytes(2, f"error {i:08d}: the profiler could not do something"))
        parts.append(field_bytes(3, f"warning {i:08d}: the profiler noticed something"))
    return b"".join(parts)


def same_size_hosts(folder, n):
    os.makedirs(folder, exist_ok=True)
    for i in range(n):
        # The hostname field differs, its length does not.
        data = field_bytes(1, tiny_host_plane()) + field_bytes(4, f"host{i:06d}")
        with open(os.path.join(folder, f"host{i:06d}.xplane.pb"), "wb") as f:
            f.write(data)


# Event and stat metadata ids of the tf.data capture.
ROOT, CYCLE, PRODUCE, CONSUME = 1, 2, 3, 4
ID, PARENT_ID, ELEMENT_ID = 1, 2, 3


def tf_data_cycle_capture(roots, cycle_events):
    """Root calls `Iterator::Prefetch` (id 2) each consume element 8. The
    cycle's events `Iterator::Prefetch::Map` (id 2, parent_id 2) are made
    inside PrefetchProduce{element_id=8} and consume element 8 themselves:
    every consumer with id 2 links to every one of them, them included."""
    ms = 1_000_000_000
    root_events = []
    for r in range(roots):
        start = r * 10 * ms
        root_events.append(event(ROOT, start, 5 * ms, [(ID, 2)]))
        root_events.append(event(CONSUME, start + ms, ms, [(ELEMENT_ID, 8)]))
    cycle = []
    for c in range(cycle_events):
        start = c * 10 * ms
        cycle.append(event(PRODUCE, start, 5 * ms, [(ELEMENT_ID, 8)]))
        cycle.append(event(CYCLE, start + ms, 3 * ms, [(ID, 2), (PARENT_ID, 2)]))
        cycle.append(event(CONSUME, start + 2 * ms, ms, [(ELEMENT_ID, 8)]))
    host = plane("/host:CPU", [line(1, root_events), line(2, cycle)],
                 ["Iterator::Prefetch", "Iterator::Prefetch::Map", "PrefetchProduce", "PrefetchConsume"],
                 ["id", "parent_id", "element_id"])
    return field_bytes(1, host)


def self_symlink_logdir(folder, links):
    run = os.path.join(folder, "plugins/profile/2024_01_01_00_00_00")
    os.makedirs(run, exist_ok=True)
    with open(os.path.join(run, "host.xplane.pb"), "wb") as f:
        f.write(field_bytes(1, tiny_host_plane()))
    for i in range(links):
        link = os.path.join(folder, f"loop{i:03d}")
        if not os.path.lexists(link):
            os.symlink(".", link)


def one_worker_spans(folder, spans):
    os.makedirs(folder, exist_ok=True)
    body = '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]}'
    for i in range(spans):
        path = os.path.join(folder, f"node_1234.{1700000000000000000 + i}.pt.trace.json")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(body)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    scale = int(sys.argv[2]) if len(sys.argv) == 3 else 1
    out = os.path.join(sys.argv[1], f"{scale}x")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "errors.xplane.pb"), "wb") as f:
        f.write(errors_capture(40_000 * scale))
    same_size_hosts(os.path.join(out, "hosts"), 100 * scale)
    with open(os.path.join(out, "tf_data.xplane.pb"), "wb") as f:
        f.write(tf_data_cycle_capture(100 * scale, 4))
    self_symlink_logdir(os.path.join(out, "symlinks"), 6 * scale)
    one_worker_spans(os.path.join(out, "spans"), 2_000 * scale)


if __name__ == "__main__":
    main()
