#!/usr/bin/env python3
"""Computes xprof's reference tool outputs for one profiler capture.

    compute_reference.py CAPTURE OUTDIR [--tool TOOL ...]

CAPTURE is one ``<host>.xplane.pb`` file, a run folder holding one or more
``<host>.xplane.pb`` files (one per host), or a log directory with exactly one
``plugins/profile/<run>/`` folder below it.

For every requested tool the capture is converted with the *installed*
profiler plugin's own Python API (``raw_to_tool_data.xspace_to_tool_data``)
and the result is written to ``OUTDIR/<tool>.json``, pretty-printed with
sorted keys (JSON object order carries no meaning in any of these outputs;
list order is kept exactly as xprof produced it).  A conversion that fails
writes ``OUTDIR/<tool>.error.txt`` instead; the other tools still run.

Which plugin package is used depends on the virtual environment:

* ``xprof`` (main venv, .venv/): overview_page, input_pipeline_analyzer,
  framework_op_stats, kernel_stats, memory_profile (the default tool set).
* ``tensorboard_plugin_profile`` 2.19.0 (.venv-tfdata/): the last release
  that still converts ``tf_data_bottleneck_analysis``; run this script from
  that venv with ``--tool tf_data_bottleneck_analysis``.

``memory_profile`` handles one host at a time (xprof asserts this), so a
multi-host run folder gets one ``memory_profile.<host>.json`` per host.

``OUTDIR/versions.json`` records, per tool, the package and version that
produced it (merged with what an earlier run from the other venv wrote), plus
the input file names, sizes and SHA-256 sums.

The xplane files are copied into a temporary folder before conversion:
xprof writes cache files (e.g. ``NO_MODULE.hlo_proto.pb``) next to the
xplanes it reads and may reuse cached results from there, and the corpus in
../shared is read-only.
"""

import argparse
import glob
import hashlib
import importlib
import json
import multiprocessing
import os
import shutil
import sys
import tempfile

DEFAULT_TOOLS = [
    "overview_page",
    "input_pipeline_analyzer",
    "framework_op_stats",
    "kernel_stats",
    "memory_profile",
]

# Older plugin releases used other names for some tools.
TOOL_ALIASES = {
    "framework_op_stats": ["tensorflow_stats"],
    "tensorflow_stats": ["framework_op_stats"],
}


class Converter:
    """Thin wrapper over whichever profiler plugin package is installed."""

    def __init__(self):
        errors = []
        for package, dist in (("xprof", "xprof"),
                              ("tensorboard_plugin_profile", "tensorboard-plugin-profile")):
            try:
                self.raw_to_tool_data = importlib.import_module(
                    package + ".convert.raw_to_tool_data")
                self.wrapper = importlib.import_module(
                    package + ".convert._pywrap_profiler_plugin")
                self.version = importlib.import_module(package + ".version").__version__
                self.package = dist
                return
            except ImportError as e:  # try the next package
                errors.append(f"{package}: {e}")
        raise SystemExit("no profiler plugin package importable:\n  " + "\n  ".join(errors))

    def tool_names(self, paths):
        try:
            return self.raw_to_tool_data.xspace_to_tool_names(paths)
        except Exception:  # pylint: disable=broad-except
            return []

    def resolve_tool(self, tool, available):
        """Maps a tool name onto what this plugin release calls it.

        tensorboard_plugin_profile <= 2.19 marks XSpace-based tools with a
        trailing '^' (e.g. 'overview_page^') and its xspace_to_tool_data
        insists on that suffix; xprof strips it.  Returns the name to pass.
        """
        candidates = [tool] + TOOL_ALIASES.get(tool, [])
        for name in candidates:
            if name + "^" in available:
                return name + "^"
            if name in available:
                return name
        if self.package == "tensorboard-plugin-profile":
            return tool + "^"
        return tool

    def convert(self, paths, tool):
        """Returns (text, error): the tool's output text, or an error message."""
        params = {"use_saved_result": False}
        try:
            data, _content_type = self.raw_to_tool_data.xspace_to_tool_data(paths, tool, params)
        except Exception as e:  # pylint: disable=broad-except
            return None, f"{type(e).__name__}: {e}"
        if data is None:
            # The high-level API drops the converter's message on failure; ask
            # the C++ wrapper directly to get it.
            try:
                raw, ok = self.wrapper.xspace_to_tools_data(paths, tool.rstrip("^"))
                msg = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
                if ok:
                    msg = "xspace_to_tool_data returned no data (tool unknown to this release?)"
            except Exception as e:  # pylint: disable=broad-except
                msg = f"{type(e).__name__}: {e}"
            return None, msg or "conversion failed without a message"
        if isinstance(data, bytes):
            data = data.decode("utf-8")
        return data, None


def run_isolated(fn, *args):
    """Runs fn(*args) in a forked child so that a crash (a CHECK failure or
    segfault inside the C++ converter) costs one tool, not the whole run.

    Returns (result, None) or (None, error message)."""
    ctx = multiprocessing.get_context("fork")
    parent_end, child_end = ctx.Pipe(duplex=False)

    def child():
        try:
            child_end.send((fn(*args), None))
        except Exception as e:  # pylint: disable=broad-except
            child_end.send((None, f"{type(e).__name__}: {e}"))

    proc = ctx.Process(target=child)
    proc.start()
    child_end.close()
    try:
        result = parent_end.recv()
    except EOFError:
        result = None
    proc.join()
    if result is None:
        return None, f"converter process died (exit code {proc.exitcode})"
    return result


def find_xplanes(capture):
    """Returns the sorted list of .xplane.pb files making up one capture."""
    if os.path.isfile(capture):
        return [capture]
    direct = sorted(glob.glob(os.path.join(capture, "*.xplane.pb")))
    if direct:
        return direct
    runs = sorted({os.path.dirname(p) for p in glob.glob(
        os.path.join(capture, "**", "plugins", "profile", "*", "*.xplane.pb"), recursive=True)})
    if len(runs) != 1:
        raise SystemExit(f"{capture}: expected one run folder with *.xplane.pb, found {len(runs)}")
    return sorted(glob.glob(os.path.join(runs[0], "*.xplane.pb")))


def host_of(path):
    return os.path.basename(path)[: -len(".xplane.pb")]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_result(outdir, stem, text, error):
    """Writes <stem>.json or <stem>.error.txt; removes the stale other one."""
    json_path = os.path.join(outdir, stem + ".json")
    err_path = os.path.join(outdir, stem + ".error.txt")
    for stale in (json_path, err_path):
        if os.path.exists(stale):
            os.remove(stale)
    pretty = None
    if error is None:
        try:
            # allow_nan=False: refuse to write non-standard NaN/Infinity tokens.
            pretty = json.dumps(json.loads(text), indent=1, sort_keys=True,
                                ensure_ascii=False, allow_nan=False)
        except ValueError as e:
            error = f"output is not strict JSON ({e}); first 200 chars: {text[:200]!r}"
    if error is not None:
        with open(err_path, "w", encoding="utf-8") as f:
            f.write(error.rstrip() + "\n")
        return "error", err_path
    with open(json_path, "w", encoding="utf-8") as f:
        f.write(pretty + "\n")
    return "ok", json_path


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("capture", help="an .xplane.pb file, a run folder, or a log dir")
    ap.add_argument("outdir")
    ap.add_argument("--tool", action="append",
                    help="tool to convert (repeatable); default: " + ", ".join(DEFAULT_TOOLS))
    ap.add_argument("--label", help="capture name recorded in versions.json")
    args = ap.parse_args()

    tools = args.tool or DEFAULT_TOOLS
    conv = Converter()
    sources = find_xplanes(args.capture)
    os.makedirs(args.outdir, exist_ok=True)

    status = {}
    with tempfile.TemporaryDirectory(prefix="tfprof_ref_") as tmp:
        paths = []
        for src in sources:
            dst = os.path.join(tmp, os.path.basename(src))
            shutil.copyfile(src, dst)
            paths.append(dst)
        available, _ = run_isolated(conv.tool_names, paths)
        available = available or []
        for tool in tools:
            name = conv.resolve_tool(tool, available)
            if tool == "memory_profile" and len(paths) > 1:
                jobs = [(f"{tool}.{host_of(p)}", [p]) for p in paths]
            else:
                jobs = [(tool, paths)]
            for stem, job_paths in jobs:
                res, crash = run_isolated(conv.convert, job_paths, name)
                text, error = res if res is not None else (None, crash)
                if error:
                    # Make messages independent of the temporary folder.
                    error = error.replace(tmp + os.sep, "")
                result, out = write_result(args.outdir, stem, text, error)
                status[stem] = {"status": result, "package": conv.package,
                                "version": conv.version, "tool_name_used": name}
                print(f"  {stem}: {result} -> {out}", file=sys.stderr)

    # Merge into versions.json (the tf.data tool is computed from another venv).
    vpath = os.path.join(args.outdir, "versions.json")
    meta = {}
    if os.path.exists(vpath):
        with open(vpath, encoding="utf-8") as f:
            meta = json.load(f)
    meta["capture"] = args.label or meta.get("capture") or os.path.basename(
        os.path.normpath(args.capture))
    meta["inputs"] = [{"file": os.path.basename(p), "bytes": os.path.getsize(p),
                       "sha256": sha256(p)} for p in sources]
    meta.setdefault("converters", {})[conv.package] = conv.version
    meta.setdefault("tools", {}).update(status)
    meta["tools"] = dict(sorted(meta["tools"].items()))
    with open(vpath, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
