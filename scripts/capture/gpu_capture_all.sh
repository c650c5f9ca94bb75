#!/usr/bin/env bash
# Makes the GPU captures (torch_gpu_amp, jax_gpu, torch_gpu_fp32_nosched,
# torch_gpu_fp8, torch_gpu_sdpa_backends, jax_gpu_cublas, torch_gpu_ddp,
# torch_gpu_launch_bound, torch_gpu_dataloader_bound, torch_gpu_memory_near_capacity,
# torch_gpu_compile, torch_gpu_cudagraphs, jax_gpu_thunks) on a machine with one CUDA GPU, torch (+triton) and jax with
# its CUDA plugin installed.  Each capture gets its own time limit and runs
# even when an earlier one failed; with TARDIR each capture folder is also
# packed into TARDIR/<name>.tgz (to carry it off the GPU machine).
#
# Usage: scripts/capture/gpu_capture_all.sh WORKDIR [TARDIR [NAME...]]
#   WORKDIR/<name>/ receives each capture; copy them to testdata/captures/.
#   NAMEs pick captures (default: all); TARDIR may be "" to skip packing.
# Then compute the expected values on any machine:
#   scripts/reference/kineto_gpu_facts.py  testdata/captures/torch_gpu_*/...json.gz
#   scripts/reference/jax_xplane_facts.py  testdata/captures/jax_gpu/plugins/profile/*/*.xplane.pb
#
# Captures run under `unshare -u` with host name "tfprof-capture" where that
# works (root), as scripts/capture/capture_all.sh does.
set -uo pipefail
set -x
export PYTHONUNBUFFERED=1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="${1:?usage: gpu_capture_all.sh WORKDIR [TARDIR]}"
tars="${2:-}"
shift 2 2>/dev/null || shift $#
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(torch_gpu_amp jax_gpu torch_gpu_fp32_nosched torch_gpu_fp8
                                 torch_gpu_sdpa_backends jax_gpu_cublas torch_gpu_ddp
                                 torch_gpu_launch_bound torch_gpu_dataloader_bound torch_gpu_memory_near_capacity
                                 torch_gpu_compile torch_gpu_cudagraphs jax_gpu_thunks)
py="${PYTHON:-python3}"
mkdir -p "$work"

nvidia-smi || true
"$py" - <<'EOF' || true
import importlib, platform
print("python", platform.python_version())
for m in ("torch", "triton", "jax", "jaxlib", "numpy"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:  # report and go on
        print(m, "unavailable:", e)
EOF

capture() {  # capture NAME SECONDS SCRIPT ARGS...
  local name="$1" limit="$2"; shift 2
  local start=$SECONDS rc
  if [ "$(id -u)" = 0 ] && unshare -u true 2>/dev/null; then
    timeout "$limit" unshare -u sh -c 'hostname tfprof-capture && exec "$@"' sh "$py" "$@"
  else
    timeout "$limit" "$py" "$@"
  fi
  rc=$?
  echo "=== $name rc=$rc seconds=$((SECONDS - start))"
  find "$work/$name" -type f -printf '%p %s\n' 2>/dev/null
  for t in $(find "$work/$name" -name '*.json.gz' ! -name 'perfetto*' 2>/dev/null); do
    "$py" "$here/../reference/kineto_gpu_facts.py" "$t" 2>&1 | "$py" -c '
import json, sys
d = json.load(sys.stdin); k = d["kernels"]
print("facts:", {x: k[x] for x in ("count", "total_ns", "inside_cpu_op", "outside_cpu_op",
      "by_enclosing_op_input_dtype", "tensor_core_union")})
print("steps:", [(s["name"], s["dur_ns"]) for s in d["profiler_steps"]])
print("memory:", d["memory_events"]["count"], "annotations:", d["user_annotations"])
print("top:", [(t["name"][:90], t["ns"]) for t in k["top_kernel_names"][:12]])' || true
  done
  if [ -n "$tars" ] && [ -d "$work/$name" ]; then
    tar -C "$work" -czf "$tars/$name.tgz" "$name"
  fi
}

for name in "${names[@]}"; do
  case "$name" in
    torch_gpu_amp) capture "$name" 150 "$here/gpu_torch.py" --variant amp --out "$work/$name" ;;
    jax_gpu) capture "$name" 120 "$here/gpu_jax.py" --out "$work/$name" ;;
    torch_gpu_fp32_nosched) capture "$name" 120 "$here/gpu_torch.py" --variant fp32_nosched --out "$work/$name" ;;
    torch_gpu_fp8) capture "$name" 60 "$here/gpu_torch.py" --variant fp8 --out "$work/$name" ;;
    torch_gpu_sdpa_backends) capture "$name" 90 "$here/gpu_torch.py" --variant sdpa --out "$work/$name" ;;
    jax_gpu_cublas) capture "$name" 90 "$here/gpu_jax.py" --cublas --out "$work/$name" ;;
    jax_gpu_thunks) capture "$name" 90 "$here/gpu_jax.py" --cublas --no-command-buffer --out "$work/$name" ;;
    torch_gpu_compile) capture "$name" 200 "$here/gpu_torch_compile.py" --variant compile --out "$work/$name" ;;
    torch_gpu_cudagraphs) capture "$name" 200 "$here/gpu_torch_compile.py" --variant cudagraphs --out "$work/$name" ;;
    torch_gpu_ddp) capture "$name" 150 "$here/gpu_torch_ddp.py" --out "$work/$name" ;;
    torch_gpu_launch_bound | torch_gpu_dataloader_bound | torch_gpu_memory_near_capacity)
      capture "$name" 120 "$here/gpu_torch_advise.py" --variant "${name#torch_gpu_}" --out "$work/$name" ;;
    *) echo "gpu_capture_all: unknown capture $name" >&2 ;;
  esac
done
echo "=== all done"
