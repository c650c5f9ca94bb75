#!/usr/bin/env python3
"""How far op-stats from TensorFlow's `<host>.trace.json.gz` agree with
op-stats from the `<host>.xplane.pb` of the same capture, for every run folder
holding both (docs/op-stats.md quotes the result).

Usage: compare_json_xplane_op_stats.py TFPROF_ANALYZE RUN_FOLDER [...]
Per pair: ops (rows other than IDLE) on each side, rows in both, rows whose
occurrences and self time agree to 1 ns, and the total self time of each side.
"""
import glob
import json
import subprocess
import sys


def rows(tool, path):
    out = subprocess.run([tool, "op-stats", path, "-f", "json", "--top", "0"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    table = json.loads(out.stdout)["tables"]["op_stats"]
    return {(r["host_or_device"], r["op_type"], r["op_name"]): r for r in table if r["op_type"] != "IDLE"}


def main(tool, folders):
    for folder in folders:
        for xplane in sorted(glob.glob(folder.rstrip("/") + "/*.xplane.pb")):
            trace = xplane[: -len(".xplane.pb")] + ".trace.json.gz"
            x, j = rows(tool, xplane), rows(tool, trace)
            if x is None or j is None:
                print(f"{xplane}: no op stats ({'xplane' if x is None else 'json'})")
                continue
            for side in ("Host", "Device"):
                xs = {k: v for k, v in x.items() if k[0] == side}
                js = {k: v for k, v in j.items() if k[0] == side}
                both = xs.keys() & js.keys()
                same = sum(1 for k in both if xs[k]["occurrences"] == js[k]["occurrences"]
                           and abs(xs[k]["total_self_time_us"] - js[k]["total_self_time_us"]) <= 0.001)
                tx = sum(v["total_self_time_us"] for v in xs.values())
                tj = sum(v["total_self_time_us"] for v in js.values())
                print(f"{xplane.split('/profile/')[-1]}\t{side}\txplane_ops={len(xs)}\tjson_ops={len(js)}\tin_both={len(both)}"
                      f"\tequal={same}\tself_us xplane={tx:.3f} json={tj:.3f} diff={tj - tx:+.3f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
