#!/usr/bin/env python3
"""Speed and memory of tfprof-analyze against the reference analysers
(issue #16): xprof 2.24.2 on the same xplane.pb, HolisticTraceAnalysis on the
same Kineto trace; a TF trace.json is measured for ours alone (no reference
reads it). Called by bench_speed.sh, which sets up the venv; see there for
usage.

Every measurement is one process under /usr/bin/time -v (user CPU, peak RSS)
timed with a monotonic clock (wall), right after the input was read to warm
the page cache: it is read again before every repetition, because these
machines page cold file cache out within minutes and a reference's run of
several GB evicts it (a 13 s `op-stats` of 3 s CPU in session 23 was a read
from disk). Best of N repetitions (lowest wall); all repetitions are kept in
the JSON.
"""
import argparse
import datetime
import hashlib
import json
import mmap
import os
import re
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.environ.get("TFPROF_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
T4_XPLANE = ("e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716/train/plugins/profile/"
             "2023_11_07_18_47_18/instance-2.xplane.pb")
T4_TRACE_JSON = T4_XPLANE.replace(".xplane.pb", ".trace.json.gz")
# A100 training run, 109k events (kernels, memcpy/memset, runtime, flows,
# ProfilerStep annotations), current Kineto schema with distributedInfo.
KINETO_TRACE = "hta/negative_queue_length_values_check/rank0.json.gz"
# The project's own current-TensorFlow CPU capture (scripts/capture/tf_memory.py):
# no group_id stats, so every grouping command builds the event forest, which
# the T4 capture (grouped when taken) never does; BFC allocator events.
TF_CPU_XPLANE = os.path.join(ROOT, "testdata/captures/tf_memory/plugins/profile/2026_11_21_08_22_42/"
                             "tfprof-capture.xplane.pb")
# JAX 0.8 on an AMD MI300X (attention): small host events with no step
# names (no group ids, roots or ProfilerStep#N), XLA's BFC allocator events,
# device events with hlo_op stats. The shape of a JAX user's capture.
JAX_XPLANE = "tracelens/mi300/jax08_attention/tw003.xplane.pb"

# Per input kind: our commands and the reference run that does the same work.
XPROF_TOOLS = {
    "info": None,  # reading only; no counterpart
    "overview": "overview_page",
    "op-stats": "framework_op_stats",
    "kernel-stats": "kernel_stats",
    "input-pipeline": "input_pipeline_analyzer",
    "memory": "memory_profile",
}
HTA_ANALYSES = {
    "info": None,
    "overview": "temporal_breakdown",
    "op-stats": None,
    "kernel-stats": "kernel_breakdown",
}
INPUTS = {
    "xplane": {"commands": XPROF_TOOLS, "reference": "xprof"},
    "kineto": {"commands": HTA_ANALYSES, "reference": "hta"},
    # CPU only: no kernel-stats.
    "tfcpu": {"commands": {k: v for k, v in XPROF_TOOLS.items() if k != "kernel-stats"}, "reference": "xprof"},
    "jax": {"commands": XPROF_TOOLS, "reference": "xprof"},
    # TF's trace viewer JSON carries no kernel details, so kernel-stats
    # answers "analysis unavailable" (exit 4) on it; memory has no events.
    "tfjson": {"commands": {"info": None, "overview": None, "op-stats": None},
               "reference": None},
}


def log(msg):
    print(f"bench_speed: {msg}", file=sys.stderr, flush=True)


def parse_time_v(text):
    """User+system CPU seconds, peak RSS bytes and minor page faults (each a
    4 KiB page of fresh or re-mapped memory: on these VMs first touching
    fresh memory costs ~5x writing it again, the larger part of `memory`'s
    system time) from /usr/bin/time -v."""
    def field(name):
        m = re.search(rf"^\s*{re.escape(name)}: (.+)$", text, re.M)
        if not m:
            raise RuntimeError(f"/usr/bin/time output lacks '{name}'")
        return m.group(1)
    return {"user_s": float(field("User time (seconds)")),
            "sys_s": float(field("System time (seconds)")),
            "peak_rss": int(field("Maximum resident set size (kbytes)")) * 1024,
            "minor_faults": int(field("Minor (reclaiming a frame) page faults"))}


def measure(argv, log_path):
    """Runs argv once; returns wall/user/sys/peak_rss, rc and the last JSON
    line it printed (the reference runners report their inner timings so)."""
    with open(log_path, "w", encoding="utf-8") as err:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-v"] + argv, stdout=subprocess.PIPE,
                              stderr=err, text=True, check=False)
        wall = time.perf_counter() - start
    with open(log_path, encoding="utf-8", errors="replace") as f:
        result = parse_time_v(f.read())
    result.update({"wall_s": round(wall, 3), "rc": proc.returncode})
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            try:
                result["inner"] = json.loads(line)
                break
            except ValueError:
                pass
    return result


def best_of(argv, reps, log_path, input_path):
    runs = []
    for _ in range(reps):
        warm(input_path)
        runs.append(measure(argv, log_path))
    ok = [r for r in runs if r["rc"] == 0]
    best = min(ok, key=lambda r: r["wall_s"]) if ok else runs[-1]
    return dict(best, reps=runs)


def warm(path):
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def mem_available():
    with open("/proc/meminfo", encoding="ascii") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def load_average():
    with open("/proc/loadavg", encoding="ascii") as f:
        return " ".join(f.read().split()[:3])


def machine_probe():
    """The machine's state, as the time of fixed pieces of work: SHA-256 over
    128 MiB on one thread, then the same on two threads at once; and the
    cost of a fresh page (64 MiB of anonymous memory mapped, a byte written
    to each page, unmapped). These VMs switch between a fast and a slow
    state for minutes at a time (sessions 29-31): in the slow one a fresh
    page costs 3.5-5 us instead of about 2 and two busy threads may slow
    each other down. Ours runs on two threads and faults in its model, the
    references fault in many times more, so the table's times and ratios
    move with the state; the probe says which state a run met."""
    pages = 64 << 20
    start = time.monotonic()
    m = mmap.mmap(-1, pages)
    m[::4096] = bytes(pages // 4096)
    m.close()
    page_us = (time.monotonic() - start) / (pages // 4096) * 1e6
    data = bytes(32 << 20)

    def work():
        for _ in range(4):
            hashlib.sha256(data).digest()  # Releases the GIL on large buffers.

    start = time.monotonic()
    work()
    one = time.monotonic() - start
    threads = [threading.Thread(target=work) for _ in range(2)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"one_thread_s": round(one, 3), "two_threads_s": round(time.monotonic() - start, 3),
            "page_us": round(page_us, 2)}


# ---------------------------------------------------------------- inputs

def build_inputs(args, kinds, sizes):
    """Returns {(kind, MiB): path}, making what is missing under BENCH_DIR."""
    paths = {}
    for mib in sizes:
        for kind, name, src, what in (
                ("xplane", "big", os.path.join(CORPUS, T4_XPLANE), "the T4 capture of the corpus (set TFPROF_CORPUS)"),
                ("tfcpu", "tfcpu", TF_CPU_XPLANE, "the project's tf_memory test capture"),
                ("jax", "jax", os.path.join(CORPUS, JAX_XPLANE), "the MI300X JAX capture of the corpus (set TFPROF_CORPUS)")):
            if kind not in kinds:
                continue
            out = os.path.join(args.bench_dir, f"{name}_{mib}.xplane.pb")
            if not os.path.exists(out):
                need(args.make_big_xplane, "build it: ninja -C build make_big_xplane")
                need(src, what)
                log(f"making {out} ({mib} MiB) from {src}")
                subprocess.run([args.make_big_xplane, src, str(mib), out], check=True,
                               stderr=subprocess.DEVNULL)
            paths[(kind, mib)] = out
        for kind, src_rel in (("kineto", KINETO_TRACE), ("tfjson", T4_TRACE_JSON)):
            if kind not in kinds:
                continue
            out = os.path.join(args.bench_dir, f"{kind}_{mib}.json")
            if not os.path.exists(out):
                src = os.path.join(CORPUS, src_rel)
                need(src, "a trace of the corpus (set TFPROF_CORPUS)")
                log(f"making {out} ({mib} MiB) from {src_rel}")
                tmp = out + ".part"
                # make_big_json counts MB of 10^6 bytes; sizes here are MiB.
                subprocess.run([sys.executable, os.path.join(ROOT, "scripts/bench/make_big_json.py"),
                                src, tmp, "--size-mb", str(mib * 1.048576)], check=True,
                               stdout=subprocess.DEVNULL)
                os.replace(tmp, out)
            paths[(kind, mib)] = out
    return paths


def need(path, hint):
    if not os.path.exists(path):
        sys.exit(f"bench_speed: missing {path}: {hint}")


def scratch_link(args, name, target):
    """A folder holding only a symlink to target: xprof may write caches
    beside the capture and HTA reads every trace of a folder."""
    folder = os.path.join(args.bench_dir, "scratch", name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    link = os.path.join(folder, os.path.basename(target) if name.startswith("xprof")
                        else "rank-0.json")
    os.symlink(os.path.abspath(target), link)
    return folder, link


# ---------------------------------------------------------------- runs

def run_reference(args, kind, mib, path, command, ref_name):
    size = os.path.getsize(path)
    free = mem_available()
    if free < args.ref_mem_factor * size + (2 << 30):
        return {"skipped": f"{free / 2**30:.1f} GiB available, "
                           f"want {args.ref_mem_factor}x the file + 2 GiB"}
    py = os.path.join(ROOT, ".venv-bench", "bin", "python")
    logs = os.path.join(args.bench_dir, "logs", f"{kind}_{mib}_{command}_ref.txt")
    if INPUTS[kind]["reference"] == "xprof":
        _, link = scratch_link(args, f"xprof_{mib}", path)
        argv = [py, os.path.join(ROOT, "scripts/bench/ref_xprof.py"), link, ref_name]
    else:
        folder, _ = scratch_link(args, f"hta_{mib}", path)
        argv = [py, os.path.join(ROOT, "scripts/bench/ref_hta.py"), folder, ref_name]
    reps = ref_reps_for(args, size)
    log(f"  reference {INPUTS[kind]['reference']} {ref_name} on {kind} {mib} MiB (best of {reps}) ...")
    result = dict(best_of(argv, reps, logs, path), best_of=reps)
    if result["rc"] != 0:
        result["failed"] = f"exit {result['rc']}, see {logs}"
    return result


def ref_reps_for(args, size):
    """How many runs a reference's best is taken of. Up to
    --ref-reps-max-mib, as many as ours (--reps): the best of five against
    the best of one flattered ours, as a reference's single run varies
    1.5x (xprof's memory_profile at 103 MiB: 1.50-2.61 s over the single
    runs of sessions 36-40, 1.52-2.29 s within one run of five; session
    40). Above it, one:
    xprof takes 12-116 s a tool at 1 GB and HTA 200 s, and ours are 30x
    and more ahead there. --ref-reps sets it for every size."""
    if args.ref_reps:
        return args.ref_reps
    return args.reps if size <= args.ref_reps_max_mib * 2**20 else 1


def run_ours(args, kind, mib, path, command):
    logs = os.path.join(args.bench_dir, "logs", f"{kind}_{mib}_{command}_ours.txt")
    argv = [args.bin, command, path, "-f", "json", "-o", "/dev/null"]
    result = best_of(argv, args.reps, logs, path)
    if result["rc"] != 0:
        result["failed"] = f"exit {result['rc']}, see {logs}"
    return result


def run_all(args, paths, probes):
    """All of our runs first, every input, then the references: a
    reference's run of several GB leaves this machine slow for a while after
    it exits (the kernel reclaiming and compacting its memory on the other
    vCPU): our runs right after HTA's 6 GB took 1.3-1.5x the wall and user
    CPU they took before it (sessions 24 and 25)."""
    rows = []
    probes["start"] = machine_probe()
    inputs = sorted(paths.items(), key=lambda kv: (kv[0][1], kv[0][0]))
    for (kind, mib), path in inputs:
        size = os.path.getsize(path)
        log(f"{kind} {mib} MiB: {path} ({size:,} B); load average {load_average()}")
        for command, ref_name in INPUTS[kind]["commands"].items():
            if args.commands and command not in args.commands:
                continue
            row = {"input": kind, "size_mib": mib, "file": path, "file_bytes": size,
                   "command": command, "ref_name": ref_name, "load_before": load_average()}
            log(f"  ours {command} ...")
            row["ours"] = run_ours(args, kind, mib, path, command)
            row["load_after"] = load_average()
            rows.append(row)
    probes["after ours"] = machine_probe()
    for row in rows:
        kind, ref_name = row["input"], row.pop("ref_name")
        ref = INPUTS[kind]["reference"]
        if ref_name and ref not in args.skip_ref:
            load = load_average()
            row["reference"] = dict(run_reference(args, kind, row["size_mib"], row["file"], row["command"], ref_name),
                                    name=f"{ref} {ref_name}", load_before=load, load_after=load_average())
    probes["end"] = machine_probe()
    return rows


# ---------------------------------------------------------------- table

def gib(n):
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def cell(run, size):
    if "failed" in run:
        return f"failed ({run['failed']})"
    return (f"{run['wall_s']:.2f} s, {run['user_s']:.2f} s user, {gib(run['peak_rss'])}, "
            f"{run['peak_rss'] / size:.2f}x")


def cpu(run):
    return run["user_s"] + run["sys_s"]


def markdown(rows, header):
    """The issue's table. "faster by" is the wall ratio; the CPU ratio (user
    + system) beside it is the steadier one on a loaded machine."""
    lines = header + [
        "",
        "| input | command | ours: wall, user CPU, peak RSS, peak/file | reference | "
        "reference: wall, user CPU, peak RSS, peak/file | faster by: wall (CPU) |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        size = row["file_bytes"]
        ours = row["ours"]
        ref = row.get("reference")
        ref_name, ref_cell, ratio = "", "", ""
        if ref:
            ref_name = ref["name"]
            if "skipped" in ref:
                ref_cell = f"skipped: {ref['skipped']}"
            else:
                ref_cell = cell(ref, size)
                if "failed" not in ref and "failed" not in ours:
                    ratio = (f"{ref['wall_s'] / ours['wall_s']:.1f}x "
                             f"({cpu(ref) / max(cpu(ours), 0.01):.1f}x)")
        lines.append(f"| {row['input']} {size / 2**20:.0f} MiB | {row['command']} | "
                     f"{cell(ours, size)} | {ref_name} | {ref_cell} | {ratio} |")
    return "\n".join(lines) + "\n"


def header_lines(result):
    lines = [
        f"Measured {result['started']} on {result['cores']} cores, binary {result['binary']} at "
        f"{result['git']}; load average (1/5/15 min) {result['load_start']} at the start, "
        f"{result['load_end']} at the end.",
        f"Ours best of {result.get('reps', 3)}, references best of {ref_reps_text(result)}; "
        "wall from a monotonic clock around each process, user CPU and peak RSS from "
        "/usr/bin/time -v; page cache warmed before each repetition.",
    ]
    probes = result.get("machine_probe")  # Runs saved before session 31 have none.
    if probes:
        lines.append("Machine probe (SHA-256 of 128 MiB on one thread / on each of two at once, and a fresh "
                     "page's cost; see machine_probe): " +
                     ", ".join(f"{when} {p['one_thread_s']:.2f} / {p['two_threads_s']:.2f} s, "
                               f"{p.get('page_us', 0):.1f} us a page"
                               for when, p in probes.items()) + ".")
    return lines


def ref_reps_text(result):
    """The references' repetitions as a run says them: runs saved before
    session 40 took one at every size (ref_reps 1)."""
    reps = result.get("ref_reps", 1)
    if reps:
        return str(reps)
    return f"{result.get('reps', 3)} up to {result.get('ref_reps_max_mib', 256)} MiB, of 1 above"


def git_head():
    try:
        return subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1024", help="MiB, comma-separated (default 100,1024)")
    parser.add_argument("--inputs", default="xplane,tfcpu,kineto,tfjson",
                        help="which of xplane,tfcpu,jax,kineto,tfjson (default all but jax)")
    parser.add_argument("--commands", default="",
                        help="comma-separated subset of info,overview,op-stats,kernel-stats,"
                             "input-pipeline,memory (default all that apply)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of ours (best of)")
    parser.add_argument("--ref-reps", type=int, default=0,
                        help="repetitions of a reference (default: as many as --reps up to "
                             "--ref-reps-max-mib, one above)")
    parser.add_argument("--ref-reps-max-mib", type=int, default=256,
                        help="the largest input whose references repeat as ours do (default 256)")
    parser.add_argument("--skip-ref", default="", help="xprof,hta or all: references not to run")
    parser.add_argument("--ref-mem-factor", type=float, default=16,
                        help="run a reference only when MemAvailable >= this x the file "
                             "+ 2 GiB (xprof took 14.6 GiB for 1 GiB; default 16)")
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "tfprof-analyze"))
    parser.add_argument("--make-big-xplane", default=os.path.join(ROOT, "build", "make_big_xplane"))
    parser.add_argument("--bench-dir", default=os.environ.get("BENCH_DIR", "/tmp/tfprof-bench"))
    parser.add_argument("--report", metavar="SPEED_JSON",
                        help="only print the table of a saved run (speed*.json)")
    args = parser.parse_args()
    if args.report:
        with open(args.report, encoding="utf-8") as f:
            saved = json.load(f)
        print(markdown(saved["rows"], header_lines(saved)))
        return
    sizes = [int(s) for s in args.sizes.split(",") if s]
    kinds = [k for k in args.inputs.split(",") if k]
    for k in kinds:
        if k not in INPUTS:
            sys.exit(f"bench_speed: unknown input '{k}' (xplane, tfcpu, jax, kineto, tfjson)")
    args.commands = [c for c in args.commands.split(",") if c]
    args.skip_ref = ["xprof", "hta"] if args.skip_ref == "all" else args.skip_ref.split(",")
    need(args.bin, "build it: ninja -C build tfprof-analyze")
    if os.path.realpath(args.bench_dir).startswith(ROOT + os.sep):
        sys.exit("bench_speed: BENCH_DIR must be outside the repository")
    os.makedirs(os.path.join(args.bench_dir, "logs"), exist_ok=True)

    paths = build_inputs(args, kinds, sizes)
    started = datetime.datetime.now(datetime.timezone.utc)
    load_start = load_average()
    probes = {}
    rows = run_all(args, paths, probes)
    result = {"started": started.strftime("%Y-%m-%d %H:%M UTC"), "load_start": load_start,
              "load_end": load_average(), "cores": os.cpu_count(), "binary": args.bin,
              "git": git_head(), "reps": args.reps, "ref_reps": args.ref_reps,
              "ref_reps_max_mib": args.ref_reps_max_mib, "machine_probe": probes,
              "rows": rows}
    table = markdown(rows, header_lines(result))
    print(table)
    # speed.md/json are the latest run; the stamped JSON keeps every run.
    stamp = started.strftime("%Y%m%dT%H%M%S")
    for name in ("speed.json", f"speed-{stamp}.json"):
        with open(os.path.join(args.bench_dir, name), "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    with open(os.path.join(args.bench_dir, "speed.md"), "w", encoding="utf-8") as f:
        f.write(table)
    log(f"wrote {args.bench_dir}/speed.md, speed.json and speed-{stamp}.json")


if __name__ == "__main__":
    main()
