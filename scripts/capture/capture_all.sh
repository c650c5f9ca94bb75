#!/usr/bin/env bash
# Re-makes every real capture under testdata/captures/ with the .venv/
# environment (scripts/reference/setup_venv.sh creates it), then writes a
# summary of each XSpace capture to testdata/captures/<name>/xplane_summary.json.
#
# Usage: scripts/capture/capture_all.sh [NAME ...]   (default: all captures)
#
# Captures run under a private UTS namespace (`unshare -u`, needs root) whose
# host name is "tfprof-capture", so the <host>.xplane.pb file names and the
# XSpace host names do not depend on the machine.  Without unshare the real
# host name is used.  Timestamps (run folder names, event times) always differ
# between runs, so re-making a capture changes its bytes: re-run
# scripts/reference/compute_all.sh afterwards.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="$root/.venv/bin/python"
[ -x "$py" ] || { echo "capture_all: run scripts/reference/setup_venv.sh first" >&2; exit 1; }
cd "$root"

host="tfprof-capture"
run() {  # run NAME ARGS... : runs one capture program with a fixed host name
  local name="$1"; shift
  echo "=== $name"
  if [ "$(id -u)" = 0 ] && unshare -u true 2>/dev/null; then
    unshare -u sh -c 'hostname "$0" && exec "$@"' "$host" "$py" "$@" 2>"/tmp/capture_$name.log" ||
      { echo "capture_all: $name failed, see /tmp/capture_$name.log" >&2; return 1; }
  else
    "$py" "$@" 2>"/tmp/capture_$name.log" ||
      { echo "capture_all: $name failed, see /tmp/capture_$name.log" >&2; return 1; }
  fi
  grep -E '^  (kept|/)' "/tmp/capture_$name.log" || true
  if compgen -G "testdata/captures/$name/plugins/profile/*/*.xplane.pb" >/dev/null; then
    "$py" scripts/capture/inspect_xplane.py --brief "testdata/captures/$name" \
      > "testdata/captures/$name/xplane_summary.json" 2>/dev/null
  fi
}

all=(tf_input_bound tf_prefetch tf_custom_loop tf_no_steps tf_two_hosts tf_memory
     jax_mlp torch_mlp tf_keras3_fit tf1_timeline)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=("${all[@]}")

for name in "${names[@]}"; do
  case "$name" in
    tf_input_bound) run "$name" scripts/capture/tf_keras_fit.py --name "$name" --variant input_bound --keras 2 ;;
    tf_prefetch)    run "$name" scripts/capture/tf_keras_fit.py --name "$name" --variant prefetch --keras 2 ;;
    tf_keras3_fit)  run "$name" scripts/capture/tf_keras_fit.py --name "$name" --variant input_bound --keras 3 ;;
    tf_custom_loop) run "$name" scripts/capture/tf_custom_loop.py --name "$name" ;;
    tf_no_steps)    run "$name" scripts/capture/tf_no_steps.py --name "$name" ;;
    tf_two_hosts)   run "$name" scripts/capture/tf_two_hosts.py --name "$name" ;;
    tf_memory)      run "$name" scripts/capture/tf_memory.py --name "$name" ;;
    jax_mlp)        run "$name" scripts/capture/jax_mlp.py --name "$name" ;;
    torch_mlp)      run "$name" scripts/capture/torch_mlp.py --name "$name" ;;
    tf1_timeline)   run "$name" scripts/capture/tf1_timeline.py --name "$name" ;;
    *) echo "capture_all: unknown capture $name" >&2; exit 2 ;;
  esac
done
