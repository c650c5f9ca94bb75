#!/usr/bin/env python3
"""Summarise a many-host run on a Dask cluster and combine it into one run summary.

Maps ``tfprof-analyze summarize`` over the host capture files (one task per
host, run on whichever worker Dask picks), then combines the summaries in a
tree (``tfprof-analyze combine``, at most ``--fan-in`` summaries per task),
and writes the run's summary. Every analysis command reads the result as it
reads the captures::

    scripts/scale_out/dask_run.py --workers 8 logdir/plugins/profile/RUN -o run.tfsum
    tfprof-analyze overview run.tfsum
    tfprof-analyze hosts run.tfsum

INPUTS are host capture files, or run folders: a folder stands for its
``*.xplane.pb`` files, or, when it has none, its Chrome traces
(``*.pt.trace.json[.gz]``, ``*.trace.json[.gz]``; name others one by one). Workers must be able to read the inputs at the
paths given (a shared file system, or each worker's own disk with the files
at the same path) and run ``--tool`` (default: ``tfprof-analyze`` on the
PATH). Summaries travel through Dask as bytes (kilobytes to a few MB per
host), so no shared output folder is needed.

``summarize`` and ``combine`` are deterministic, so a task Dask retries (a
lost worker) gives the same bytes, and any fan-in or order gives the same
run summary as reading the folder in one process. The tool's memory guard
and ``--max-events`` apply per task (pass them after ``--``).

Without ``--scheduler`` a ``LocalCluster`` of ``--workers`` processes runs on
this machine (one thread each: the tool uses two cores per summary). With
``--scheduler tcp://HOST:8786`` the tasks go to an existing cluster
(dask-jobqueue on Slurm/PBS, dask-kubernetes, ``dask scheduler`` +
``dask worker``); docs/scale-out.md shows each.

Environment: scripts/scale_out/setup_venv.sh (pinned dask/distributed).
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time


# A run folder's Chrome traces, by the names the profilers give them (other
# JSON files, such as notes beside the traces, are not hosts): name other
# traces one by one.
TRACE_PATTERNS = ("*.pt.trace.json", "*.pt.trace.json.gz", "*.trace.json", "*.trace.json.gz")


def host_files(inputs):
    files = []
    for path in inputs:
        if os.path.isdir(path):
            found = sorted(glob.glob(os.path.join(path, "*.xplane.pb")))
            if not found:
                found = sorted(set(f for pattern in TRACE_PATTERNS for f in glob.glob(os.path.join(path, pattern))))
            if not found:
                sys.exit(f"dask_run: {path}: no host capture files in it (*.xplane.pb, {', '.join(TRACE_PATTERNS)})")
            files.extend(found)
        elif os.path.isfile(path):
            files.append(path)
        else:
            sys.exit(f"dask_run: {path}: no such file or folder")
    return files


def run_tool(args):
    """Runs the tool; its stdout (a summary's bytes) or its one error line as an exception."""
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def summarize(tool, path, extra):
    return run_tool([tool, "summarize", path, "-o", "-", *extra])


def combine(tool, *summaries):
    """Combines summary bytes (written to a private folder, since the tool reads files)."""
    if len(summaries) == 1:
        return summaries[0]
    with tempfile.TemporaryDirectory(prefix="tfprof-combine-") as tmp:
        names = []
        for i, data in enumerate(summaries):
            names.append(os.path.join(tmp, f"{i:05d}.tfsum"))
            with open(names[-1], "wb") as f:
                f.write(data)
        return run_tool([tool, "combine", *names, "-o", "-"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", help="host capture files or run folders")
    ap.add_argument("-o", "--output", required=True, help="the run summary to write")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--scheduler", help="address of a running Dask scheduler (tcp://host:8786)")
    where.add_argument("--workers", type=int, default=2, help="LocalCluster processes (default 2)")
    ap.add_argument("--tool", default="tfprof-analyze", help="the tfprof-analyze binary, as workers find it")
    ap.add_argument("--fan-in", type=int, default=32, help="summaries per combine task (default 32)")
    ap.add_argument("--retries", type=int, default=2, help="times Dask retries a failed task (default 2)")
    ap.epilog = "After --: options for every summarize (--compat, --max-events, --step-marker, ...)."
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    if args.fan_in < 2:
        sys.exit("dask_run: --fan-in must be at least 2")
    files = host_files(args.inputs)

    from dask.distributed import Client, LocalCluster  # pylint: disable=import-outside-toplevel

    start = time.monotonic()
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        level = [client.submit(summarize, args.tool, f, extra, key=f"summarize-{i}", retries=args.retries, pure=False)
                 for i, f in enumerate(files)]
        depth = 0
        while len(level) > 1:
            depth += 1
            level = [client.submit(combine, args.tool, *level[i:i + args.fan_in], retries=args.retries,
                                   key=f"combine-{depth}-{i}", pure=False)
                     for i in range(0, len(level), args.fan_in)]
        try:
            data = level[0].result()
        except RuntimeError as e:  # a summarize or combine that failed after its retries: its one line
            sys.exit(f"dask_run: {e}")
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    tmp = args.output + ".part"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, args.output)
    print(f"dask_run: {len(files)} hosts -> {args.output} ({len(data)} bytes, {depth} combine levels) "
          f"in {time.monotonic() - start:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
