#!/usr/bin/env python3
"""Fails on an #include that crosses the layers of lib/ the wrong way.

The layers and what each may include (besides itself) are the ALLOWED table
below; CMakeLists.txt links the same libraries. Reads every .h/.cc under
lib/ and prints `file:line: lib/<from> may not include "<path>"` for each
include of another layer that the table does not allow, or of tools/,
tests/ or fuzz/ (only the CLI and the tests sit above the library).

  scripts/check_layering.py [ROOT]     check the tree at ROOT (default: ..)
  scripts/check_layering.py --self-test
"""
import os
import re
import sys
import tempfile

# Direct includes each layer may make. Transitive reach is written out so a
# layer may name what it uses without going through a middle layer.
ALLOWED = {
    "util": set(),
    "model": {"util"},
    "read": {"model", "util"},
    "summary": {"read", "model", "util"},
    "report": {"model", "util"},
    "render": {"report", "model", "util"},
    "analyze": {"summary", "read", "model", "util", "report"},
    "export": {"summary", "read", "model", "util"},
    "advise": {"analyze", "summary", "read", "model", "util", "report"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def violations(root):
    """Yields (file, line number, message) for every forbidden include."""
    lib = os.path.join(root, "lib")
    for layer in sorted(os.listdir(lib)):
        folder = os.path.join(lib, layer)
        if not os.path.isdir(folder):
            continue
        for dirpath, _, names in os.walk(folder):
            for name in sorted(names):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if layer not in ALLOWED:
                    yield rel, 0, f"lib/{layer} is not a known layer (add it to ALLOWED and CMakeLists.txt)"
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, text in enumerate(f, 1):
                        m = INCLUDE.match(text)
                        if not m:
                            continue
                        target = m.group(1)
                        top = target.split("/", 1)[0]
                        if top in ("tools", "tests", "fuzz"):
                            yield rel, number, f'lib/{layer} may not include "{target}"'
                        elif top == "lib":
                            parts = target.split("/")
                            other = parts[1] if len(parts) > 2 else ""
                            if other != layer and other not in ALLOWED[layer]:
                                yield rel, number, f'lib/{layer} may not include "{target}"'


def check(root):
    found = list(violations(root))
    for rel, number, message in found:
        print(f"{rel}:{number}: {message}")
    if found:
        print(f"layering: {len(found)} include(s) against the layers (see ALLOWED in {sys.argv[0]})")
        return 1
    print("layering: every include of lib/ follows the layers")
    return 0


def self_test():
    """The check finds an analysis that includes a renderer, and only that."""
    with tempfile.TemporaryDirectory() as root:
        files = {
            "lib/model/model.h": '#include "lib/util/split.h"\n',
            "lib/util/split.h": "",
            "lib/render/render.h": '#include "lib/report/report.h"\n',
            "lib/report/report.h": '#include "lib/model/model.h"\n',
            "lib/analyze/good.h": '#include "lib/summary/x.h"\n#include "lib/report/report.h"\n',
            "lib/analyze/bad.h": '#pragma once\n\n#include "lib/render/render.h"\n',
            "lib/read/up.cc": '#include "lib/read/up.h"\n#include "tools/commands.h"\n',
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        got = sorted((rel, number) for rel, number, _ in violations(root))
        want = [("lib/analyze/bad.h", 3), ("lib/read/up.cc", 2)]
        if got != want:
            print(f"self-test: found {got}, want {want}")
            return 1
    print("self-test: the check finds lib/analyze -> lib/render and lib/read -> tools/")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
