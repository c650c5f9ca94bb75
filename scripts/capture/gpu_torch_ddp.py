#!/usr/bin/env python3
"""A multi-rank PyTorch (Kineto) capture with one planted straggler rank.

``--ranks`` processes (default 4) train one small MLP with
``DistributedDataParallel`` under ``autocast(bfloat16)``; each rank writes
its own Kineto trace, ``<out>/tfprof-capture_rank<R>.<ms>.pt.trace.json.gz``,
with ``distributedInfo`` (backend, rank, world size) as PyTorch writes it.

The ranks share one GPU, so the process group is gloo over CUDA tensors
(NCCL refuses two ranks on one device); the all-reduces DDP issues appear as
``gloo:all_reduce`` / ``record_param_comms`` CPU ops.

Rank ``--straggler`` (default 2) is slow on purpose: before each step its
``load_batch`` region sleeps ``--delay-ms`` (default 20 ms), as a rank with a
slow input pipeline would.  The others then wait in the gradient all-reduce,
so every rank's step time is about the same while the straggler spends the
least time in collectives and the most in its own work: what a hosts table
must pick out.

Profiled with ``schedule(wait=1, warmup=1, active=4)`` (so ``ProfilerStep#2``
to ``#5``), ``record_shapes=True``.  ``--device cpu`` runs the same on CPU
(to try the script where there is no GPU; not the capture we keep).

Writes ``<out>/capture_info.json`` (versions, GPU, command, straggler).
Run by scripts/capture/gpu_capture_all.sh (capture ``torch_gpu_ddp``).
"""

import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.profiler import ProfilerActivity, profile, record_function, schedule, tensorboard_trace_handler

import _common  # pylint: disable=wrong-import-position  (scripts/capture/)

STEPS = 6  # wait 1 + warmup 1 + active 4


def train_rank(rank, args):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port)
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    cuda = args.device == "cuda"
    dev = torch.device("cuda", 0) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(0)
    torch.manual_seed(0)  # same weights on every rank, as DDP expects
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10)).to(dev)
    ddp = DistributedDataParallel(model, device_ids=[0] if cuda else None)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    torch.manual_seed(1 + rank)  # each rank its own data
    feats = torch.randn(STEPS, 256, 512, device=dev)
    labels = torch.randint(0, 10, (STEPS, 256), device=dev)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities, schedule=schedule(wait=1, warmup=1, active=4, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(args.out, worker_name=f"tfprof-capture_rank{rank}",
                                                          use_gzip=True),
                 record_shapes=True) as prof:
        for i in range(STEPS):
            with record_function("load_batch"):
                if rank == args.straggler:
                    time.sleep(args.delay_ms / 1000.0)
                x, y = feats[i], labels[i]
            with torch.autocast(args.device, dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(ddp(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()  # DDP's all-reduce of the gradients
            opt.step()
            if cuda:
                torch.cuda.synchronize()
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--straggler", type=int, default=2)
    ap.add_argument("--delay-ms", type=float, default=20.0)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--port", type=int, default=29531)
    args = ap.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_torch_ddp: no CUDA device (use --device cpu to try the script)")
    os.makedirs(args.out, exist_ok=True)
    mp.spawn(train_rank, args=(args,), nprocs=args.ranks, join=True)
    _common.write_capture_info(args.out, _common.torch_gpu_info(
        torch, on_gpu=args.device == "cuda", variant="ddp", ranks=args.ranks, backend="gloo",
        straggler_rank=args.straggler, straggler_delay_ms=args.delay_ms))


if __name__ == "__main__":
    main()
