#!/usr/bin/env bash
# Checks that every analysis command answers the same on a capture and on
# its run summary: for each input, `summarize` it (whole, and host file by
# host file then `combine`d in reverse order), then run every command on the
# capture and on both summaries and compare JSON, stderr (with the input's
# path replaced) and exit code. Prints one line per difference and a count;
# exits 1 when any differ.
#
# Usage: scripts/scale_out/check_summaries.sh BINARY INPUT...
#   (inputs: run folders or capture files; COMPAT=xprof adds --compat xprof)
set -uo pipefail
bin="$1"; shift
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
commands=(overview steps op-stats placement kernel-stats input-pipeline memory tf-data hosts metrics advise)
compat=()
[ -n "${COMPAT:-}" ] && compat=(--compat "$COMPAT")
runs=0 differ=0
for input in "$@"; do
  rm -rf "$work"/*
  mkdir -p "$work/apart"
  if ! "$bin" summarize "$input" "${compat[@]}" -o "$work/whole.tfsum" 2>"$work/summarize.err"; then
    # Inputs that cannot be summarised must fail the same way as the commands do.
    "$bin" overview "$input" "${compat[@]}" >/dev/null 2>"$work/overview.err"
    if ! diff -q <(sed "s|$input|INPUT|g" "$work/summarize.err") <(sed "s|$input|INPUT|g" "$work/overview.err") >/dev/null; then
      echo "DIFFER summarize error: $input"; differ=$((differ + 1))
    fi
    continue
  fi
  # Host by host when the input is a run folder of several hosts (the files
  # the tool reads, as the hosts table names them), else the whole only.
  hostfiles=()
  if [ -d "$input" ]; then
    mapfile -t hostfiles < <("$bin" hosts "$input" "${compat[@]}" -f csv 2>/dev/null |
      python3 -c 'import csv,sys; [print(r["file"]) for r in csv.DictReader(sys.stdin)]' | sed "s|^|$input/|")
  fi
  apart="$work/whole.tfsum"
  if [ ${#hostfiles[@]} -gt 1 ]; then
    ok=1
    for f in "${hostfiles[@]}"; do
      "$bin" summarize "$f" "${compat[@]}" -o "$work/apart/$(basename "$f").tfsum" 2>/dev/null || { ok=0; break; }
    done
    if [ $ok = 1 ]; then
      mapfile -t parts < <(ls "$work"/apart/*.tfsum | sort -r)
      "$bin" combine "${parts[@]}" -o "$work/apart.tfsum" && apart="$work/apart.tfsum"
    fi
  fi
  for cmd in "${commands[@]}"; do
    "$bin" "$cmd" "$input" "${compat[@]}" -f json >"$work/raw.json" 2>"$work/raw.err"; raw_rc=$?
    sed -i "s|$input|INPUT|g" "$work/raw.err"
    for s in "$work/whole.tfsum" "$apart"; do
      runs=$((runs + 1))
      "$bin" "$cmd" "$s" "${compat[@]}" -f json >"$work/sum.json" 2>"$work/sum.err"; sum_rc=$?
      sed -i "s|$s|INPUT|g" "$work/sum.err"
      if [ $raw_rc != $sum_rc ] || ! cmp -s "$work/raw.json" "$work/sum.json" || ! cmp -s "$work/raw.err" "$work/sum.err"; then
        echo "DIFFER $cmd ($raw_rc/$sum_rc) $(basename "$s"): $input"; differ=$((differ + 1))
      fi
    done
  done
done
echo "check_summaries: $runs runs, $differ differ"
[ $differ = 0 ]
