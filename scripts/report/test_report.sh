#!/usr/bin/env bash
# ctest `report_html` / `report_browser`: `tfprof-analyze report` on every
# bundled capture (and the corpus' T4 GPU run when present) writes pages
# that parse, close every element and fetch nothing (check_html.py); with
# --browser, each also loads in headless Chromium with no console message
# (no script error). The browser half skips (exit 77) without chromium
# (scripts/setup.sh installs it when it can).
# Usage: scripts/report/test_report.sh TOOL [--browser]
set -euo pipefail
tool="$1"; browser="${2:-}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "$browser" = --browser ] && ! command -v chromium >/dev/null; then
  echo "SKIPPED: no chromium (Debian package chromium; scripts/setup.sh installs it when it can)"
  exit 77
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
inputs=("$root"/testdata/captures/*/)
t4="${TFPROF_CORPUS:-$root/../shared/corpus}/e4040-2023fall-assign2-hd2551/logs/fit/20231107-184716"
[ -d "$t4" ] && inputs+=("$t4")
pages=()
for input in "${inputs[@]}"; do
  page="$work/$(basename "$input").html"
  "$tool" report "$input" -o "$page"
  pages+=("$page")
done
# Two runs on one page: what changed, then both runs side after side.
"$tool" report "$root/testdata/captures/tf_input_bound" "$root/testdata/captures/tf_prefetch" -o "$work/diff.html"
pages+=("$work/diff.html")
# One report per page too (--format html), the tf.data graph among them.
for cmd in tf-data kernel-stats memory; do
  "$tool" "$cmd" "$root/testdata/captures/tf_input_bound" -f html -o "$work/$cmd.html" 2>/dev/null || continue
  pages+=("$work/$cmd.html")
done
python3 "$root/scripts/report/check_html.py" "${pages[@]}"
if [ "$browser" = --browser ]; then
  for page in "${pages[@]}"; do
    log="$(timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
      --user-data-dir="$work/profile" --dump-dom "file://$page" 2>&1 >"$work/dom.html" || true)"
    if grep -q "CONSOLE" <<<"$log"; then
      echo "$page: console messages:"; grep "CONSOLE" <<<"$log"; exit 1
    fi
    grep -q "</section>" "$work/dom.html" || { echo "$page: the browser built no section"; exit 1; }
  done
fi
echo "report: ${#pages[@]} pages ok"
