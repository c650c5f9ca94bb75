#!/usr/bin/env python3
"""PyTorch (Kineto) GPU captures that each show one performance problem, for
the advisor's rules (issue: advise) to fire on, and for their twins to stay
quiet on.

Variants (``--variant``), each profiled with ``schedule(wait=1, warmup=1,
active=3)`` (``ProfilerStep#2``-``#4``), ``record_shapes=True``, written by
``tensorboard_trace_handler`` as ``<out>/tfprof-capture.<ns>.pt.trace.json.gz``:

* ``launch_bound``: each step runs 300 tiny elementwise ops (``x * 1.0001 +
  1e-4`` on a 256-float tensor) and one small matmul: thousands of kernel
  launches of about a microsecond each, so launch latency and the host,
  not the GPU, set the step time (the "many tiny ops" case; what CUDA
  graphs or torch.compile fix).
* ``dataloader_bound``: a small MLP fed by a ``DataLoader(num_workers=0)``
  whose dataset sleeps 3 ms per sample (batch 4: ~12 ms of loading per
  step) on the main process, without ``pin_memory``: the GPU idles while
  the host loads (``enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__``
  annotations mark the loading).
* ``memory_near_capacity``: holds a block of 90% of the GPU's memory, then
  trains a small MLP with ``profile_memory=True``: the ``[memory]`` events'
  ``Total Reserved`` near the device's memory (``deviceProperties``'
  ``totalGlobalMem``).

Writes ``<out>/capture_info.json`` (versions, GPU, command, variant).
Run by scripts/capture/gpu_capture_all.sh.
"""

import time

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

import _common  # pylint: disable=wrong-import-position  (scripts/capture/)

STEPS = 5  # wait 1 + warmup 1 + active 3


def profiler(out, **options):
    return profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                   schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                   on_trace_ready=tensorboard_trace_handler(out, worker_name="tfprof-capture", use_gzip=True),
                   record_shapes=True, **options)


def launch_bound(out):
    dev = torch.device("cuda")
    x = torch.randn(256, device=dev)
    a = torch.randn(64, 64, device=dev)
    with profiler(out) as prof:
        for _ in range(STEPS):
            y = x
            for _ in range(300):
                y = y * 1.0001 + 1e-4
            _ = a @ a
            torch.cuda.synchronize()
            prof.step()
    return {"tiny_ops_per_step": 600, "tensor_elements": 256}


class SlowDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        time.sleep(0.003)  # A slow decode on the main process.
        return torch.randn(512), torch.randint(0, 10, ()).item()


def dataloader_bound(out):
    dev = torch.device("cuda")
    model = nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(SlowDataset(), batch_size=4, num_workers=0, pin_memory=False)
    it = iter(loader)
    with profiler(out) as prof:
        for _ in range(STEPS):
            x, y = next(it)
            x, y = x.to(dev), y.to(dev)
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            torch.cuda.synchronize()
            prof.step()
    return {"sleep_per_sample_ms": 3, "batch_size": 4, "num_workers": 0, "pin_memory": False}


def memory_near_capacity(out):
    dev = torch.device("cuda")
    free, total = torch.cuda.mem_get_info()
    hold = torch.empty(int(total * 0.90) // 4, dtype=torch.float32, device=dev)  # ~90% of the card.
    model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 1024, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    with profiler(out, profile_memory=True) as prof:
        for _ in range(STEPS):
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            torch.cuda.synchronize()
            prof.step()
    held = hold.numel() * 4
    del hold
    return {"held_bytes": held, "device_total_bytes": total, "device_free_before_bytes": free}


def main():
    args = _common.torch_gpu_args(__doc__, ("launch_bound", "dataloader_bound", "memory_near_capacity"), torch)
    extra = {"launch_bound": launch_bound, "dataloader_bound": dataloader_bound,
             "memory_near_capacity": memory_near_capacity}[args.variant](args.out)
    _common.write_capture_info(args.out, _common.torch_gpu_info(torch, variant=args.variant, **extra))


if __name__ == "__main__":
    main()
