#!/usr/bin/env python3
"""Independent PyTorch op numbers for a Kineto trace, to check
`tfprof-analyze op-stats` and `kernel-stats` against
(tests/analyze/kineto_ops_test.cc).

Written from the rules in docs/op-stats.md, not from our code:
  * host ops are the `cpu_op` events (2021 builds: `Operator`) but the
    ProfilerStep#N step markers; type and name are the event name;
  * on each thread (pid, tid) ops nest by containment: events taken by start,
    longer first, an op is inside the innermost open op that ends after it
    starts; self time = time minus the time of the ops directly inside;
  * a device event (kernel, memcpy, memset) ran for the innermost op open on
    the thread of the runtime call with the same `correlation`, when the call
    starts (same containment rule);
  * kernel stats rows: kernel name, launch parameters and op;
  * also counted: how often the device event's `External id` names that op's
    `External id` (the other link Kineto writes).
Times are integer picoseconds from exact decimals, as the reader keeps them
(a float loses ~0.3 us at epoch-microsecond timestamps).
Usage: kineto_ops.py TRACE.json[.gz] [TOP]
"""
import collections
import gzip
from decimal import Decimal, ROUND_HALF_UP
import json
import sys

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
OPS = {"cpu_op", "Operator"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f, parse_float=Decimal)["traceEvents"]


def ps(x):
    return int((Decimal(x) * 1000000).to_integral_value(ROUND_HALF_UP))


def ext_id(args):
    return args.get("External id", args.get("external id"))


def main(path, top):
    ev = [e for e in load(path) if e.get("ph") == "X" and "dur" in e]
    threads = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") in DEVICE:
            continue
        is_op = e.get("cat") in OPS and not str(e["name"]).startswith("ProfilerStep#")
        is_launch = not is_op and "correlation" in e.get("args", {})
        if is_op or is_launch:
            b = ps(e["ts"])
            threads[(str(e["pid"]), str(e["tid"]))].append((b, b + ps(e["dur"]), is_op, e))
    stats = {}  # name -> [occurrences, total_ps, self_ps]
    op_of_corr = {}
    for items in threads.values():
        items.sort(key=lambda x: (x[0], -(x[1] - x[0])))
        stack = []  # [begin, end, name, children_ps]

        def close(o):
            s = stats.setdefault(o[2], [0, 0, 0])
            s[0] += 1
            s[1] += o[1] - o[0]
            s[2] += max(0, o[1] - o[0] - o[3])

        for b, end, is_op, e in items:
            while stack and stack[-1][1] <= b:
                close(stack.pop())
            if not is_op:
                if stack:
                    op_of_corr[e["args"]["correlation"]] = (stack[-1][2], stack[-1][4])
                continue
            if stack:
                stack[-1][3] += end - b
            stack.append([b, end, e["name"], 0, ext_id(e.get("args", {}))])
        while stack:
            close(stack.pop())
    rows = sorted(stats.items(), key=lambda kv: (-kv[1][2], kv[0]))
    print(f"host_ops={len(rows)} executions={sum(s[0] for _, s in rows)} self_ps={sum(s[2] for _, s in rows)}")
    for name, (n, t, s) in rows[:top]:
        print(f"host\t{name}\toccurrences={n}\ttotal_ps={t}\tself_ps={s}")
    dev_ops = collections.defaultdict(lambda: [0, 0])  # op -> [activities, ps]
    kernels = collections.defaultdict(lambda: [0, 0])  # (kernel, op) -> [launches, ns]
    with_op = same_ext = 0
    dev = [e for e in ev if e.get("cat") in DEVICE]
    for e in dev:
        a = e.get("args", {})
        op = op_of_corr.get(a.get("correlation"))
        if op is not None:
            with_op += 1
            same_ext += ext_id(a) is not None and ext_id(a) == op[1]
            d = dev_ops[op[0]]
            d[0] += 1
            d[1] += ps(e["dur"])
        else:
            op = ("", None)  # Launched outside any op: a kernel row without an op.
        if e.get("cat") in ("kernel", "Kernel") and ps(e["dur"]) > 0:
            # Kernel stats' row key: kernel, launch parameters and op.
            k = kernels[(e["name"], json.dumps(a.get("grid")), json.dumps(a.get("block")),
                         a.get("registers per thread", 0), a.get("shared memory", 0), op[0])]
            k[0] += 1
            k[1] += ps(e["dur"]) // 1000
    print(f"device_events={len(dev)} with_op={with_op} external_id_agrees={same_ext}")
    for name, (n, t) in sorted(dev_ops.items(), key=lambda kv: (-kv[1][1], kv[0]))[:top]:
        print(f"device\t{name}\tactivities={n}\tps={t}")
    print(f"kernel_rows={len(kernels)}")
    for (k, grid, block, regs, shmem, op), (n, t) in sorted(kernels.items(), key=lambda kv: (-kv[1][1], kv[0]))[:top]:
        print(f"kernel\t{k[:60]}\tgrid={grid} block={block} regs={regs}\top={op}\tlaunches={n}\ttotal_ns={t}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5)
