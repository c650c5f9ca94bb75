#!/usr/bin/env python3
"""Small PyTorch MLP profiled with ``torch.profiler`` (Kineto), CPU only.

A 784-128-10 MLP trained with SGD on synthetic data (batch 64).  The
profiler schedule is ``wait=1, warmup=1, active=4``; ``prof.step()`` after
every iteration makes Kineto emit ``ProfilerStep#N`` markers.  When the
active window ends, ``on_trace_ready`` exports a Chrome JSON trace to
testdata/captures/<name>/trace.json, and a gzip copy trace.json.gz.
"""

import argparse
import gzip
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _common  # pylint: disable=wrong-import-position

import torch  # pylint: disable=wrong-import-position
from torch import nn  # pylint: disable=wrong-import-position


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", default="torch_mlp")
    ap.add_argument("--no-gzip", action="store_true", help="keep only trace.json")
    args = ap.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(2)
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    xs = torch.rand(8, 64, 784)
    ys = torch.randint(0, 10, (8, 64))

    outdir = _common.fresh_logdir(args.name)
    trace_path = os.path.join(outdir, "trace.json")

    def on_trace_ready(prof):
        prof.export_chrome_trace(trace_path)

    schedule = torch.profiler.schedule(wait=1, warmup=1, active=4, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                schedule=schedule, on_trace_ready=on_trace_ready,
                                record_shapes=True) as prof:
        for i in range(6):
            opt.zero_grad()
            loss = loss_fn(model(xs[i]), ys[i])
            loss.backward()
            opt.step()
            prof.step()
    print("final loss", float(loss))
    if not args.no_gzip:
        with open(trace_path, "rb") as src, gzip.GzipFile(
                trace_path + ".gz", "wb", mtime=0) as dst:
            shutil.copyfileobj(src, dst)
    _common.finalize_logdir(outdir)


if __name__ == "__main__":
    main()
