#!/usr/bin/env python3
"""PyTorch 2 compiled training on a CUDA GPU under ``torch.profiler``: what a
current PyTorch job looks like once ``torch.compile`` has fused it.

A 512-2048-2048-10 MLP with LayerNorm and GELU (batch 512) trained under
``autocast(bfloat16)`` with AdamW (``fused=True``); the model is wrapped in
``torch.compile``.  Three steps run before the profiler (compilation and,
for ``reduce-overhead``, CUDA graph recording); then ``schedule(wait=1,
warmup=1, active=3)`` (``ProfilerStep#N``), ``record_shapes=True``, written
by ``tensorboard_trace_handler`` as
``<out>/tfprof-capture.<ns>.pt.trace.json.gz``.

Variants (``--variant``):

* ``compile``: ``torch.compile(model)`` (Inductor): the elementwise work runs
  as generated Triton kernels (``triton_poi_fused_*``, ``triton_per_fused_*``)
  under ``CompiledFunction`` / ``## Call CompiledFxGraph ... ##`` host ranges,
  the GEMMs as cuBLAS calls.
* ``cudagraphs``: ``torch.compile(model, mode="reduce-overhead")``: the same
  kernels replayed from CUDA graphs (``cudaGraphLaunch`` on the host, the
  kernels correlated to it).

Writes ``<out>/capture_info.json`` (versions, GPU, command, variant).
Run by scripts/capture/gpu_capture_all.sh.
"""

import time

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

import _common  # pylint: disable=wrong-import-position  (scripts/capture/)

WARMUP_STEPS = 3
PROFILED_STEPS = 5  # wait 1 + warmup 1 + active 3


def make_model(dev):
    return nn.Sequential(
        nn.Linear(512, 2048), nn.LayerNorm(2048), nn.GELU(),
        nn.Linear(2048, 2048), nn.LayerNorm(2048), nn.GELU(),
        nn.Linear(2048, 10)).to(dev)


def main():
    args = _common.torch_gpu_args(__doc__, ("compile", "cudagraphs"), torch)
    dev = torch.device("cuda")
    model = make_model(dev)
    mode = "reduce-overhead" if args.variant == "cudagraphs" else "default"
    compiled = torch.compile(model, mode=mode)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    xs = torch.randn(WARMUP_STEPS + PROFILED_STEPS, 512, 512, device=dev)
    ys = torch.randint(0, 10, (WARMUP_STEPS + PROFILED_STEPS, 512), device=dev)

    def step(i):
        if args.variant == "cudagraphs":
            torch.compiler.cudagraph_mark_step_begin()  # a new training iteration for cudagraph trees
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(compiled(xs[i]), ys[i])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss

    t0 = time.time()
    for i in range(WARMUP_STEPS):
        step(i)
    torch.cuda.synchronize()
    compile_s = time.time() - t0
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 on_trace_ready=tensorboard_trace_handler(args.out, worker_name="tfprof-capture", use_gzip=True),
                 record_shapes=True) as prof:
        for i in range(PROFILED_STEPS):
            loss = step(WARMUP_STEPS + i)
            torch.cuda.synchronize()
            prof.step()
    _common.write_capture_info(args.out, _common.torch_gpu_info(
        torch, variant=args.variant, compile_mode=mode, triton=getattr(__import__("triton"), "__version__", None),
        warmup_and_compile_s=round(compile_s, 1), final_loss=float(loss.detach())))


if __name__ == "__main__":
    main()
