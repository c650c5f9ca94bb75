#!/usr/bin/env python3
"""Writes the bad inputs of testdata/bad/ (see testdata/bad/README.md).

Deterministic: running it again gives the same bytes. Derived files start
from testdata/captures/tf_no_steps (a real TensorFlow capture). The cases a
test must make at run time (a FIFO) are made by tests/read/bad_inputs_test.cc.
"""
import glob
import gzip
import io
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "testdata", "bad")
SOURCE = glob.glob(os.path.join(ROOT, "testdata/captures/tf_no_steps/plugins/profile/*/*.xplane.pb"))[0]


def write(name, data):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.islink(path):
        os.unlink(path)
    with open(path, "wb") as f:
        f.write(data)


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as f:
        f.write(data)
    return buf.getvalue()


# --- protobuf wire encoding, by hand (no generated classes needed) ---------
def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(n, v):
    return varint(n << 3) + varint(v)


def field_bytes(n, data):
    if isinstance(data, str):
        data = data.encode()
    return varint((n << 3) | 2) + varint(len(data)) + data


def xplane(event_meta_id, stat_meta_id):
    """An XSpace with one plane, one line, one event: the event refers to
    event metadata `event_meta_id` and carries a stat of metadata
    `stat_meta_id`; the plane defines event metadata 1 and stat metadata 1."""
    stat = field_varint(1, stat_meta_id) + field_varint(4, 3)
    event = field_varint(1, event_meta_id) + field_varint(2, 0) + field_varint(3, 5000) + field_bytes(4, stat)
    line = field_varint(1, 1) + field_bytes(2, "thread") + field_varint(3, 1000) + field_bytes(4, event)
    event_metadata = field_varint(1, 1) + field_bytes(2, field_varint(1, 1) + field_bytes(2, "op"))
    stat_metadata = field_varint(1, 1) + field_bytes(2, field_varint(1, 1) + field_bytes(2, "step_num"))
    plane = (field_varint(1, 1) + field_bytes(2, "/host:CPU") + field_bytes(3, line) + field_bytes(4, event_metadata)
             + field_bytes(5, stat_metadata))
    return field_bytes(1, plane)


def main():
    capture = open(SOURCE, "rb").read()

    # XSpace: truncated at several points, bit-flipped, empty, wrong types.
    for cut in (7, 1000, len(capture) // 2, len(capture) - 1):
        write(f"truncated_{cut}.xplane.pb", capture[:cut])
    flipped = bytearray(capture)
    flipped[1] ^= 0x40  # The first plane's length: now past the end.
    write("bitflip_length.xplane.pb", bytes(flipped))
    flipped = bytearray(capture)
    for at in range(3000, len(flipped), 997):  # Scattered flips through the events.
        flipped[at] ^= 1 << (at % 8)
    write("bitflip_scattered.xplane.pb", bytes(flipped))
    write("empty.xplane.pb", b"")
    write("whitespace.trace.json", b" \n\t \n")
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0) + b"\0" * 4
    write("image_png.xplane.pb", png)
    elf = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + struct.pack("<HHI", 2, 0x3E, 1) + b"\0" * 40
    write("program_elf.xplane.pb", elf)
    write("host.overview_page.pb", field_bytes(1, "a TensorFlow tool output, not a capture"))
    write("dangling_event_metadata.xplane.pb", xplane(event_meta_id=99, stat_meta_id=1))
    write("dangling_stat_metadata.xplane.pb", xplane(event_meta_id=1, stat_meta_id=77))
    write("good_small.xplane.pb", xplane(event_meta_id=1, stat_meta_id=1))

    # gzip: zero bytes, an empty stream, truncated, a bomb.
    write("empty.trace.json.gz", b"")
    write("empty_stream.trace.json.gz", gz(b""))
    trace = (b'{"traceEvents":[' + b",".join(
        b'{"ph":"X","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":5}' % (i, i * 10) for i in range(2000)) + b"]}")
    z = gz(trace)
    write("truncated.trace.json.gz", z[: len(z) // 2])
    write("truncated.xplane.pb.gz", gz(capture)[:4000])
    # 24 MiB of spaces inside a valid trace: 24 KiB on disk. Refused with
    # --max-inflated-mb 16 (and by the default limit where memory is short).
    write("bomb.trace.json.gz", gz(b'{"traceEvents":[' + b" " * (24 << 20) + b"]}"))
    write("bomb.xplane.pb.gz", gz(b"\x0a\x80\x80\x80\x0c" + b"\0" * (24 << 20)))

    # JSON: broken nesting, not a trace, deep nesting, odd times.
    write("broken_nesting.trace.json",
          b'{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},'
          b'{"ph":"X","name":"b","pid":1,"tid":1,"ts":3,"dur":1,"args":{"k":[1,2}}]}')
    write("unclosed.trace.json", b'{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2},{"ph":"X"')
    write("not_a_trace.json", b'{"name": "package.json", "version": "1.0.0", "dependencies": {"a": "^1"}}\n')
    write("deep_args.trace.json.gz", gz(
        b'{"traceEvents":[{"ph":"X","name":"ok","pid":1,"tid":1,"ts":1,"dur":2},'
        b'{"ph":"X","name":"deep","pid":1,"tid":1,"ts":5,"dur":1,"args":{"a":' + b"[" * 100000 + b"]" * 100000
        + b"}}]}"))
    write("deep_top.trace.json.gz", gz(b"[" * 100000 + b"]" * 100000))
    write("deep_unclosed.trace.json.gz", gz(b'{"traceEvents":' + b"[" * 100000))
    odd = [
        b'{"ph":"X","name":"ok","pid":1,"tid":1,"ts":100,"dur":10}',
        b'{"ph":"X","name":"negative_ts","pid":1,"tid":1,"ts":-5,"dur":3}',
        b'{"ph":"X","name":"negative_dur","pid":1,"tid":1,"ts":200,"dur":-3}',
        b'{"ph":"X","name":"huge_ts","pid":1,"tid":1,"ts":1e300,"dur":1}',
        b'{"ph":"X","name":"huge_dur","pid":1,"tid":1,"ts":300,"dur":9.3e18}',
        b'{"ph":"X","name":"nan_ts","pid":1,"tid":1,"ts":"abc","dur":1}',
        b'{"ph":"X","name":"int_overflow","pid":1,"tid":1,"ts":99999999999999999999999,"dur":1}',
        b'{"ph":"B","name":"never_ended","pid":1,"tid":2,"ts":10}',
        b'{"ph":"E","pid":1,"tid":3,"ts":10}',
    ]
    write("odd_times.trace.json", b'{"traceEvents":[' + b",\n".join(odd) + b"]}\n")

    # Logdirs whose capture cannot be read: a dangling symlink, a folder
    # named like a capture. (A FIFO cannot be committed; the test makes one.)
    for d in ("logdir_dangling", "logdir_capture_is_folder"):
        os.makedirs(os.path.join(OUT, d, "plugins/profile/2024_01_01_00_00_00"), exist_ok=True)
    link = os.path.join(OUT, "logdir_dangling/plugins/profile/2024_01_01_00_00_00/host.xplane.pb")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink("missing/host.xplane.pb", link)
    write("logdir_capture_is_folder/plugins/profile/2024_01_01_00_00_00/host.xplane.pb/README",
          b"a folder named like a capture\n")


if __name__ == "__main__":
    main()
