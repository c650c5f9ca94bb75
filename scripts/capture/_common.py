"""Helpers shared by the capture programs in scripts/capture/.

Every capture program writes one TensorFlow-style log directory under
testdata/captures/<name>/ and then calls ``finalize_logdir`` so that only the
profile data (``plugins/profile/<run>/<host>.xplane.pb`` and friends) is kept.
"""

import argparse
import json
import os
import platform
import shutil
import socket
import sys
import time

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CAPTURES_DIR = os.path.join(REPO_ROOT, "testdata", "captures")

# tfevents files bigger than this are removed (TensorBoard scalars/graphs are
# not needed by tfprof-analyze; the tiny "*.profile-empty" marker is kept).
MAX_EVENTS_FILE_BYTES = 4 * 1024


def quiet_tf_logging():
    """Silences TensorFlow's C++ INFO logging (call before importing TF)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")


def parse_args(doc, name, **counts):
    """The command line of a capture program: ``--name`` (the capture's
    folder under testdata/captures/, default ``name``) and one integer
    option per keyword (``steps=5`` gives ``--steps``, default 5)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--name", default=name)
    for option, default in counts.items():
        ap.add_argument("--" + option.replace("_", "-"), type=int, default=default)
    return ap.parse_args()


def capture_dir(name):
    return os.path.join(CAPTURES_DIR, name)


def fresh_logdir(name):
    """Removes and re-creates testdata/captures/<name>/; returns its path."""
    path = capture_dir(name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def stop_tf_profiler(tf, logdir, label, value):
    """Stops TensorFlow's profiler (which writes the capture into ``logdir``),
    prints the run's last result (``label value``) and prunes the log
    directory to the profile data."""
    tf.profiler.experimental.stop()
    print(label, float(value))
    finalize_logdir(logdir)


def finalize_logdir(logdir, hoist=None):
    """Prunes a log directory down to the profile data.

    * ``hoist``: a sub-directory (e.g. ``"train"`` for Keras' TensorBoard
      callback, which writes ``<log_dir>/train/plugins/profile/...``) whose
      ``plugins/`` folder is moved up to ``<logdir>/plugins`` so that every
      capture has the same ``<name>/plugins/profile/<run>/`` layout.
    * Removes ``events.out.tfevents*`` files larger than a few KB.
    * Removes directories left empty.
    """
    if hoist:
        src = os.path.join(logdir, hoist, "plugins")
        if os.path.isdir(src):
            shutil.move(src, os.path.join(logdir, "plugins"))
        # Whatever else the callback wrote there (scalars, validation dir)
        # is not profile data.
        for leftover in (hoist, "validation"):
            p = os.path.join(logdir, leftover)
            if os.path.isdir(p):
                _prune_events(p)
                # Keep the tiny "*.profile-empty" marker next to the profile.
                for root, _, files in os.walk(p):
                    for f in files:
                        if f.endswith(".profile-empty"):
                            shutil.move(os.path.join(root, f), os.path.join(logdir, f))
                shutil.rmtree(p, ignore_errors=True)
    _prune_events(logdir)
    for root, dirs, files in os.walk(logdir, topdown=False):
        if root != logdir and not os.listdir(root):
            os.rmdir(root)
    total = 0
    for root, _, files in os.walk(logdir):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
            print("  kept", os.path.relpath(os.path.join(root, f), REPO_ROOT),
                  os.path.getsize(os.path.join(root, f)), "bytes", file=sys.stderr)
    print(f"  {logdir}: {total} bytes in total", file=sys.stderr)


def _prune_events(path):
    for root, _, files in os.walk(path):
        for f in files:
            full = os.path.join(root, f)
            if f.startswith("events.out.tfevents") and \
                    os.path.getsize(full) > MAX_EVENTS_FILE_BYTES:
                os.remove(full)


def torch_gpu_args(doc, variants, torch):
    """The command line of a PyTorch GPU capture with variants:
    ``--variant`` (one of ``variants``) and ``--out`` (made if missing).
    Exits without a CUDA device; seeds torch."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", required=True, choices=variants)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit(f"{os.path.basename(sys.argv[0])}: no CUDA device")
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    return args


def torch_gpu_info(torch, on_gpu=True, **fields):
    """What every PyTorch GPU capture's capture_info.json records (the
    command, Python, torch, CUDA runtime, GPU, host name, capture time),
    with ``fields`` added."""
    info = {
        "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda_runtime": torch.version.cuda,
        "gpu": torch.cuda.get_device_name(0) if on_gpu else None,
        "host_name_seen_by_process": socket.gethostname(),
        "captured_at_unix_s": int(time.time()),
    }
    info.update(fields)
    return info


def write_capture_info(out, info):
    """Writes ``<out>/capture_info.json`` (keys sorted) and prints it."""
    with open(os.path.join(out, "capture_info.json"), "w") as f:
        json.dump(info, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(info))
