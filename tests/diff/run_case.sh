#!/usr/bin/env bash
# Runs one text diff-test case (tests/diff/<group>/<case>.test; format in
# tests/diff/README.md) and compares what the command printed with what the
# case expects.
#
#   tests/diff/run_case.sh TOOL CASE_FILE
#
# Exit 0: the output matches; 1: it differs (a `diff -u` of expected vs
# actual is printed); 77: skipped (the case needs the corpus and it is
# absent); 2: the case file is malformed.
# TFPROF_DIFF_UPDATE=1 rewrites the case's expected part from the actual
# output instead of comparing (for deliberate changes; review the git diff).
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 TOOL CASE_FILE" >&2
  exit 2
fi
tool=$(realpath "$1")
case_file=$(realpath "$2")
src=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
corpus=${TFPROF_CORPUS:-$src/../shared/corpus}

work=$(mktemp -d "${TMPDIR:-/tmp}/tfprof-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The case's own part: everything before the first "--- exit" line (header
# and inline files). The rest is regenerated from the run and compared.
awk '/^--- exit /{exit} {print}' "$case_file" >"$work/case_part"

command=$(sed -n 's/^command: //p' "$work/case_part" | head -n 1)
if [[ -z $command ]]; then
  echo "$case_file: no 'command:' line in the header" >&2
  exit 2
fi

# Inline files ("--- file NAME" up to the next "--- " line) go to a fresh
# folder; a case that has any runs there, so paths the tool prints are the
# bare names, with "testdata" linked to the repository's. Other cases run in
# the repository root.
run_dir=$src
if grep -q '^--- file ' "$work/case_part"; then
  run_dir=$work/files
  mkdir "$run_dir"
  ln -s "$src/testdata" "$run_dir/testdata"
  if ! awk -v dir="$run_dir" '
      /^--- file / { name = substr($0, 10)
                     if (name == "" || name ~ /\// || name ~ /^\.\.?$/) { bad = 1; exit }
                     out = dir "/" name; printf "" > out; next }
      /^--- / { out = ""; next }
      out != "" { print >> out }
      END { exit bad }' "$work/case_part"; then
    echo "$case_file: a '--- file' name must be a plain file name" >&2
    exit 2
  fi
fi

# {corpus}: the real captures of ../shared/corpus (or $TFPROF_CORPUS). The
# case runs in a folder where "corpus" links to them, so printed paths do
# not depend on where the corpus lives.
if [[ $command == *"{corpus}"* ]]; then
  if [[ ! -d $corpus ]]; then
    echo "SKIP: $(basename "$case_file") needs the corpus, not found at $corpus (set TFPROF_CORPUS)"
    exit 77
  fi
  if [[ $run_dir == "$src" ]]; then
    run_dir=$work/files
    mkdir "$run_dir"
  fi
  ln -s "$(realpath "$corpus")" "$run_dir/corpus"
  command=${command//\{corpus\}/corpus}
fi

# The command line is split as the shell would (quotes allowed); the first
# word must be the tool.
eval "args=($command)"
if [[ ${args[0]} != tfprof-analyze ]]; then
  echo "$case_file: the command must start with 'tfprof-analyze'" >&2
  exit 2
fi

(
  cd "$run_dir" || exit 1
  LC_ALL=C TZ=UTC exec "$tool" "${args[@]:1}"
) >"$work/stdout" 2>"$work/stderr" </dev/null
rc=$?

# Writes one output section verbatim; an output not ending in a newline is
# marked, so the case file stays line-based.
section() {
  local name=$1 file=$2
  [[ -s $file ]] || return 0
  echo "--- $name"
  cat "$file"
  if [[ $(tail -c 1 "$file" | od -An -c | tr -d ' ') != '\n' ]]; then
    printf '\n\\ no newline at end of %s\n' "$name"
  fi
}

{
  cat "$work/case_part"
  echo "--- exit $rc"
  section stdout "$work/stdout"
  section stderr "$work/stderr"
} >"$work/actual"

if cmp -s "$case_file" "$work/actual"; then
  exit 0
fi
if [[ ${TFPROF_DIFF_UPDATE:-} == 1 ]]; then
  cp "$work/actual" "$case_file"
  echo "updated $case_file"
  exit 0
fi
echo "$(basename "$case_file"): output differs (expected vs actual; TFPROF_DIFF_UPDATE=1 rewrites the case):"
diff -u --label "expected: $case_file" --label "actual: $command" "$case_file" "$work/actual"
exit 1
