#!/usr/bin/env bash
# Cases per second of agentevals' trajectory match and of
# `kagent-evals match --cases` on the same generated corpus, their ratio,
# and a check that every verdict agrees; and, as the floor, a scan of the
# corpus that builds nothing (examples/bare_parse.rs --scan, every core).
#
# usage: bench/match_throughput.sh [CASES]   (default 20000)
# KAGENT_EVALS_BENCH_PYTHON: a python that has agentevals==0.0.9, instead of
# building bench/.venv from bench/requirements.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cases=${1:-20000}
python=${KAGENT_EVALS_BENCH_PYTHON:-$here/.venv/bin/python}
if [[ ! -x $python ]]; then
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kagent-evals --example bare_parse
binary=$root/target/release/kagent-evals
bare=$root/target/release/examples/bare_parse
mkdir "$work/corpus"
corpus=$work/corpus/cases.jsonl
"$python" "$here/match_corpus.py" "$cases" "$corpus"
echo "corpus: $cases cases, $(du -h "$corpus" | cut -f1)"

read -r python_count python_seconds < <("$python" "$here/agentevals_match.py" "$corpus" "$work/agentevals.jsonl")

# Whole process, start to exit, output included: the least favourable
# reading for us. Best of three runs, as the machine is shared; the scan is
# timed alongside, so both see the same machine.
ours_seconds=
scan_seconds=
for _ in 1 2 3; do
  started=$(date +%s.%N)
  status=0
  "$binary" match --cases "$corpus" > "$work/ours.jsonl" 2>/dev/null || status=$?
  seconds=$(echo "$(date +%s.%N) - $started" | bc -l)
  if [[ $status -gt 1 ]]; then
    echo "kagent-evals could not score the corpus (exit $status)" >&2
    exit 2
  fi
  if [[ -z $ours_seconds ]] || (( $(echo "$seconds < $ours_seconds" | bc -l) )); then
    ours_seconds=$seconds
  fi
  started=$(date +%s.%N)
  "$bare" --scan "$work/corpus" > /dev/null
  seconds=$(echo "$(date +%s.%N) - $started" | bc -l)
  if [[ -z $scan_seconds ]] || (( $(echo "$seconds < $scan_seconds" | bc -l) )); then
    scan_seconds=$seconds
  fi
done

"$python" - "$work/agentevals.jsonl" "$work/ours.jsonl" <<'PY'
import json, sys
theirs = [json.loads(l) for l in open(sys.argv[1])]
ours = [json.loads(l) for l in open(sys.argv[2])]
assert len(theirs) == len(ours), (len(theirs), len(ours))
differ = [t["name"] for t, o in zip(theirs, ours) if t["score"] != o["score"]]
passed = sum(1 for t in theirs if t["score"])
print(f"verdicts: {len(ours)} compared, {passed} pass, {len(differ)} differ {differ[:5]}")
sys.exit(1 if differ else 0)
PY

awk -v n="$python_count" -v p="$python_seconds" -v o="$ours_seconds" -v s="$scan_seconds" 'BEGIN {
  printf "agentevals:   %10.0f cases/s (%.3f s, scoring loop only)\n", n / p, p
  printf "kagent-evals: %10.0f cases/s (%.3f s, whole process)\n", n / o, o
  printf "ratio:        %10.1fx   (aim: at least 100x)\n", p / o
  printf "scan:         %10.0f cases/s (%.3f s, every core, nothing built)\n", n / s, s
  printf "ours / scan:  %10.1fx\n", o / s
  printf "agentevals / scan: %5.1fx   (the most any serde_json reader could reach)\n", p / s
}'
