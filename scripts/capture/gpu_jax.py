#!/usr/bin/env python3
"""JAX MLP training on a CUDA GPU under ``jax.profiler.trace``.

A jitted SGD step on a 784-1024-1024-10 MLP (synthetic data, batch 256): the
first layer multiplies in **bfloat16** (inputs and weights cast to bf16, f32
result), the others in f32 (XLA's default precision).  One step runs before
the trace (compilation); then ``--steps`` steps (default 5) each run inside
``jax.profiler.StepTraceAnnotation('train', step_num=i)``, followed by one
``jax.profiler.TraceAnnotation('my_region')`` with an eval forward pass (a
non-step annotation).  ``jax.profiler.trace(out, create_perfetto_trace=True)``
writes ``<out>/plugins/profile/<run>/<host>.xplane.pb`` and
``perfetto_trace.json.gz``.  Also writes ``<out>/capture_info.json``.
With ``--cublas``, XLA's Triton GEMM fusions are off
(``XLA_FLAGS=--xla_gpu_enable_triton_gemm=false``), so the dots run as cuBLAS
custom calls with cuBLAS kernel names.  With ``--no-command-buffer``, XLA runs each
thunk on its own instead of replaying the step as a CUDA graph
(``XLA_FLAGS=--xla_gpu_enable_command_buffer=``), so every kernel carries
the HLO op that made it (as TensorFlow's XLA and older JAX captures do).
Needs a CUDA GPU; run by scripts/capture/gpu_capture_all.sh.
"""

import argparse
import json
import os
import platform
import shutil
import socket
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
if "--cublas" in sys.argv:  # must be set before jax initialises its backend
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_gpu_enable_triton_gemm=false").strip()
if "--no-command-buffer" in sys.argv:
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_gpu_enable_command_buffer=").strip()
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import jax  # pylint: disable=wrong-import-position
import jax.numpy as jnp  # pylint: disable=wrong-import-position


def init_params(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "w1": jax.random.normal(k1, (784, 1024)) * 0.03, "b1": jnp.zeros(1024),
        "w2": jax.random.normal(k2, (1024, 1024)) * 0.03, "b2": jnp.zeros(1024),
        "w3": jax.random.normal(k3, (1024, 10)) * 0.03, "b3": jnp.zeros(10),
    }


def forward(params, x):
    h = jnp.dot(x.astype(jnp.bfloat16), params["w1"].astype(jnp.bfloat16),
                preferred_element_type=jnp.float32)  # bf16 matmul, f32 result
    h = jax.nn.relu(h + params["b1"])
    h = jax.nn.relu(h @ params["w2"] + params["b2"])
    return h @ params["w3"] + params["b3"]


def loss_fn(params, x, y):
    logp = jax.nn.log_softmax(forward(params, x))
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.05 * g, params, grads), loss


@jax.jit
def eval_logits(params, x):
    return forward(params, x)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="log folder (re-created)")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--cublas", action="store_true",
                    help="XLA_FLAGS=--xla_gpu_enable_triton_gemm=false (read at import time)")
    ap.add_argument("--no-command-buffer", action="store_true",
                    help="XLA_FLAGS=--xla_gpu_enable_command_buffer= (read at import time)")
    args = ap.parse_args()
    gpus = jax.devices("gpu")  # raises without a GPU backend
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)

    params = init_params(jax.random.PRNGKey(0))
    kx, ky = jax.random.split(jax.random.PRNGKey(1))
    xs = jax.random.uniform(kx, (args.steps + 1, 256, 784))
    ys = jax.random.randint(ky, (args.steps + 1, 256), 0, 10)
    params, loss = train_step(params, xs[0], ys[0])  # compile outside the trace
    eval_logits(params, xs[0]).block_until_ready()

    with jax.profiler.trace(args.out, create_perfetto_trace=True):
        for i in range(args.steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                params, loss = train_step(params, xs[i + 1], ys[i + 1])
                loss.block_until_ready()
        with jax.profiler.TraceAnnotation("my_region"):
            eval_logits(params, xs[0]).block_until_ready()
    print("final loss", float(loss))

    info = {
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": getattr(__import__("jaxlib"), "__version__", None),
        "backend": jax.default_backend(),
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
        "gpu": [d.device_kind for d in gpus],
        "host_name_seen_by_process": socket.gethostname(),
        "captured_at_unix_s": int(time.time()),
        "profiler": f"jax.profiler.trace(create_perfetto_trace=True); {args.steps} steps in "
                    "StepTraceAnnotation('train', step_num=i), then TraceAnnotation('my_region')",
    }
    with open(os.path.join(args.out, "capture_info.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")
    for root, _, files in os.walk(args.out):
        for name in sorted(files):
            p = os.path.join(root, name)
            print("  kept", os.path.relpath(p, args.out), os.path.getsize(p), "bytes")


if __name__ == "__main__":
    main()
