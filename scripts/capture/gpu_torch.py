#!/usr/bin/env python3
"""PyTorch (Kineto) captures on a CUDA GPU, for tfprof-analyze's PyTorch semantics.

Variants (``--variant``):

* ``amp``: a tiny vision transformer (conv patch embedding, 2 transformer
  blocks with ``F.scaled_dot_product_attention``, AdamW) trained under
  ``torch.autocast('cuda', dtype=torch.bfloat16)``, plus a small MLP trained
  under ``autocast(float16)`` with a ``GradScaler``, an explicit bf16
  ``torch.mm`` and one raw Triton kernel per step (a Triton launch has no
  enclosing aten op, so its kernel runs "outside any cpu_op") and one replay
  of a CUDA graph (captured before profiling: ``x * 2 + 1``; its kernels are
  launched by ``cudaGraphLaunch``, also outside any op).  Profiled with
  ``schedule(wait=1, warmup=1, active=3)``, ``record_shapes=True``,
  ``profile_memory=True``; ``tensorboard_trace_handler`` writes
  ``<out>/tfprof-capture.<ms>.pt.trace.json.gz``.  ``record_function``
  regions: ``my_region`` (forward + loss of the bf16 model) and
  ``fp16_gradscaler`` (the fp16 MLP step).
* ``fp32_nosched``: the same transformer in FP32 with TF32 disabled (cuBLAS
  and cuDNN), no profiler schedule and no ``prof.step()`` (so no
  ``ProfilerStep#N``); 5 batches from a ``DataLoader(num_workers=2,
  pin_memory=True)``, so ``enumerate(DataLoader)#...__next__`` annotations
  mark the iterations; the raw Triton kernel is launched outside any op and
  any annotation.  ``export_chrome_trace`` -> ``<out>/trace.json.gz``.
* ``sdpa``: bf16 ``F.scaled_dot_product_attention`` forward + backward
  (batch 8, 8 heads, 256 tokens, head dim 64) once under each backend
  (``sdpa_kernel(SDPBackend.X)`` inside ``record_function('sdpa_X')`` for
  FLASH_ATTENTION, EFFICIENT_ATTENTION, CUDNN_ATTENTION, MATH), 4 iterations,
  ``schedule(wait=0, warmup=1, active=3)`` -> ``<out>/trace.json.gz``: the
  attention kernel names of each backend under a labelled region.
* ``fp8``: ``torch._scaled_mm`` FP8 (e4m3 x e4m3, and e4m3 x e5m2) matmuls
  with bf16 output next to a bf16 ``torch.mm`` of the same shape, 4
  iterations, ``schedule(wait=0, warmup=1, active=3)`` -> ``<out>/trace.json.gz``.

Every variant writes ``<out>/capture_info.json`` (versions, GPU, command).
Needs a CUDA GPU; run by scripts/capture/gpu_capture_all.sh.
"""

import argparse
import gzip
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule

try:  # Triton ships with the CUDA wheels of torch; without it no raw launch.
    import triton
    import triton.language as tl
except ImportError:  # pragma: no cover - reported in capture_info.json
    triton = None

HOST_NAME = "tfprof-capture"  # worker name in the trace file name

if triton is not None:
    @triton.jit
    def _scale_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


TRITON_ERRORS = []  # a Triton launch needs a C compiler on first use: report, go on


def triton_scale(x, y, alpha):
    """y = alpha * x by a raw Triton launch (cuLaunchKernelEx, no aten op)."""
    if triton is None or TRITON_ERRORS:
        return
    try:
        n = x.numel()
        _scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, alpha, BLOCK=1024)
    except Exception as e:  # pylint: disable=broad-except
        TRITON_ERRORS.append(repr(e)[:500])
        print("triton launch failed:", e, file=sys.stderr)


class GraphReplay:
    """A CUDA graph of two elementwise ops; replay() is cudaGraphLaunch, no aten op."""

    def __init__(self, dev):
        self.error = None
        self.x = torch.randn(1 << 16, device=dev)
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):  # warm up the ops off the capture
                self.y = self.x * 2 + 1
            torch.cuda.current_stream().wait_stream(s)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.y = self.x * 2 + 1
        except Exception as e:  # pylint: disable=broad-except
            self.error = repr(e)[:500]
            print("CUDA graph capture failed:", e, file=sys.stderr)

    def replay(self):
        if self.error is None:
            self.graph.replay()


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads) \
            .permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class TinyViT(nn.Module):
    """32x32 images -> 4x4 patches (64 tokens of width d) -> 2 blocks -> 10 classes."""

    def __init__(self, d=128, heads=4):
        super().__init__()
        self.embed = nn.Conv2d(3, d, kernel_size=4, stride=4)
        self.blocks = nn.Sequential(Block(d, heads), Block(d, heads))
        self.head = nn.Linear(d, 10)

    def forward(self, img):
        x = self.embed(img).flatten(2).transpose(1, 2)
        return self.head(self.blocks(x).mean(dim=1))


def capture_info(args, extra):
    info = {
        "variant": args.variant,
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "triton": getattr(triton, "__version__", None),
        "gpu": torch.cuda.get_device_name(0),
        "compute_capability": list(torch.cuda.get_device_capability(0)),
        "host_name_seen_by_process": socket.gethostname(),
        "captured_at_unix_s": int(time.time()),
    }
    try:
        info["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        info["nvidia_smi"] = f"unavailable: {e}"
    info.update(extra)
    return info


def gzip_file(path):
    with open(path, "rb") as src, gzip.GzipFile(path + ".gz", "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(path)


def profile_four_iterations(body, out, **options):
    """Runs ``body`` once as a warm-up, then four times under the profiler
    (CPU and CUDA; schedule wait=0 warmup=1 active=3; record_shapes, plus
    ``options``) and writes <out>/trace.json.gz."""
    body()  # warm-up
    trace = os.path.join(out, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=0, warmup=1, active=3, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(trace),
                 record_shapes=True, **options) as prof:
        for _ in range(4):
            body()
            prof.step()
    gzip_file(trace)


def run_amp(args, out):
    dev = torch.device("cuda")
    torch.manual_seed(0)
    vit = TinyViT().to(dev)
    opt = torch.optim.AdamW(vit.parameters(), lr=1e-3)
    mlp = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
    opt16 = torch.optim.SGD(mlp.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cuda")
    imgs = torch.randn(8, 32, 3, 32, 32, device=dev)
    labels = torch.randint(0, 10, (8, 32), device=dev)
    feats = torch.randn(8, 32, 256, device=dev)
    a = torch.randn(512, 512, device=dev)
    b = torch.randn(512, 512, device=dev)
    tri_x = torch.randn(1 << 16, device=dev)
    tri_y = torch.empty_like(tri_x)
    graph = GraphReplay(dev)

    def one_step(i):
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            with record_function("my_region"):
                logits = vit(imgs[i])
                loss = F.cross_entropy(logits, labels[i])
                gram = torch.mm(a, b)  # explicit bf16 matmul (autocast)
        (loss + 1e-6 * gram.float().mean()).backward()
        opt.step()
        with record_function("fp16_gradscaler"):
            opt16.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                loss16 = F.cross_entropy(mlp(feats[i]), labels[i])
            scaler.scale(loss16).backward()
            scaler.step(opt16)
            scaler.update()
        triton_scale(tri_x, tri_y, 0.5)  # outside any aten op
        graph.replay()  # kernels of a CUDA graph: outside any aten op too
        return loss.item(), loss16.item()  # .item() syncs, as a logging loop does

    one_step(7)  # warm-up outside the profiler: Triton compile, cuDNN/cuBLAS init
    torch.cuda.synchronize()
    handler = torch.profiler.tensorboard_trace_handler(out, worker_name=HOST_NAME, use_gzip=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 on_trace_ready=handler, record_shapes=True, profile_memory=True,
                 with_stack=False) as prof:
        for i in range(5):
            print("step", i, "losses", one_step(i), flush=True)
            prof.step()
    return {"profiler": "schedule(wait=1, warmup=1, active=3, repeat=1), 5 iterations, "
                        "record_shapes, profile_memory, tensorboard_trace_handler(use_gzip)",
            "triton_errors": TRITON_ERRORS, "cuda_graph_error": graph.error,
            "sdpa_backends": {"flash": torch.backends.cuda.flash_sdp_enabled(),
                              "mem_efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
                              "cudnn": torch.backends.cuda.cudnn_sdp_enabled()}}


def run_fp32_nosched(args, out):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = torch.device("cuda")
    torch.manual_seed(0)
    vit = TinyViT().to(dev)
    opt = torch.optim.AdamW(vit.parameters(), lr=1e-3)
    ds = torch.utils.data.TensorDataset(torch.randn(160, 3, 32, 32), torch.randint(0, 10, (160,)))
    loader = torch.utils.data.DataLoader(ds, batch_size=32, num_workers=2, pin_memory=True)
    tri_x = torch.randn(1 << 16, device=dev)
    tri_y = torch.empty_like(tri_x)
    for x, y in loader:  # warm-up epoch outside the profiler
        F.cross_entropy(vit(x.to(dev)), y.to(dev)).backward()
    triton_scale(tri_x, tri_y, 0.5)
    torch.cuda.synchronize()
    trace = os.path.join(out, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 record_shapes=True, profile_memory=True, with_stack=False) as prof:
        for i, (x, y) in enumerate(loader):
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            opt.zero_grad(set_to_none=True)
            with record_function("my_region"):
                loss = F.cross_entropy(vit(x), y)
            loss.backward()
            opt.step()
            triton_scale(tri_x, tri_y, 0.5)
            print("iteration", i, "loss", loss.item(), flush=True)
    prof.export_chrome_trace(trace)
    gzip_file(trace)
    return {"triton_errors": TRITON_ERRORS, "profiler": "no schedule, no prof.step(); DataLoader(num_workers=2, pin_memory=True), "
                        "5 batches; record_shapes, profile_memory; export_chrome_trace",
            "allow_tf32": [torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32]}


def run_sdpa(args, out):
    from torch.nn.attention import SDPBackend, sdpa_kernel  # pylint: disable=import-outside-toplevel
    dev = torch.device("cuda")
    torch.manual_seed(0)
    q, k, v = (torch.randn(8, 8, 256, 64, device=dev, dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))
    backends = ["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"]
    failed = {}

    def body():
        for name in backends:
            if name in failed:
                continue
            try:
                with record_function(f"sdpa_{name}"), sdpa_kernel(getattr(SDPBackend, name)):
                    F.scaled_dot_product_attention(q, k, v).sum().backward()
            except RuntimeError as e:  # a backend this build or GPU lacks
                failed[name] = repr(e)[:300]
                print("sdpa backend", name, "failed:", e, file=sys.stderr)
        torch.cuda.synchronize()

    profile_four_iterations(body, out)
    return {"profiler": "schedule(wait=0, warmup=1, active=3, repeat=1), 4 iterations, "
                        "record_shapes; export_chrome_trace",
            "backends": backends, "failed_backends": failed}


def run_fp8(args, out):
    dev = torch.device("cuda")
    torch.manual_seed(0)
    m, k, n = 1024, 1024, 2048
    a = torch.randn(m, k, device=dev)
    w = torch.randn(n, k, device=dev)  # row-major (n, k): w.t() is column-major
    a8, w8 = a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
    w8_e5m2 = w.to(torch.float8_e5m2)
    one = torch.tensor(1.0, device=dev)
    a16, w16 = a.to(torch.bfloat16), w.to(torch.bfloat16)
    done = {}

    def body():
        with record_function("fp8_e4m3_x_e4m3"):
            torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        if done.get("e5m2", True):
            try:
                with record_function("fp8_e4m3_x_e5m2"):
                    torch._scaled_mm(a8, w8_e5m2.t(), scale_a=one, scale_b=one,
                                     out_dtype=torch.bfloat16)
                done["e5m2"] = True
            except RuntimeError as e:  # not every build supports mixed FP8 kinds
                print("e4m3 x e5m2 unsupported:", e, file=sys.stderr)
                done["e5m2"] = False
        with record_function("bf16_reference"):
            torch.mm(a16, w16.t())
        torch.cuda.synchronize()

    profile_four_iterations(body, out, profile_memory=False)
    return {"profiler": "schedule(wait=0, warmup=1, active=3, repeat=1), 4 iterations, "
                        "record_shapes; export_chrome_trace",
            "shapes": {"m": m, "k": k, "n": n}, "e4m3_x_e5m2_ran": done.get("e5m2")}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=["amp", "fp32_nosched", "fp8", "sdpa"], required=True)
    ap.add_argument("--out", required=True, help="output folder (re-created)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gpu_torch.py: no CUDA device")
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    run = {"amp": run_amp, "fp32_nosched": run_fp32_nosched, "fp8": run_fp8, "sdpa": run_sdpa}[args.variant]
    extra = run(args, args.out)
    with open(os.path.join(args.out, "capture_info.json"), "w") as f:
        json.dump(capture_info(args, extra), f, indent=1)
        f.write("\n")
    for name in sorted(os.listdir(args.out)):
        print("  kept", name, os.path.getsize(os.path.join(args.out, name)), "bytes")


if __name__ == "__main__":
    main()
