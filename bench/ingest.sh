#!/usr/bin/env bash
# Ingest speed and memory, as ratios measured in one run on this machine:
#   (a) `kagent-evals run` over SESSIONS session files (real captured events,
#       Python and Go renderings, 20 a session) with one cheap evaluator,
#       against a bare serde_json::Value parse of the same bytes
#       (examples/bare_parse.rs), against a scan of those bytes that builds
#       nothing, on every core (the least a serde_json reader can do), and,
#       given a checkout of
#       themsquared/kagent-agentevals, against its Python converter;
#   (d) peak RSS of `extract` on one large session, against its size.
#
# usage: bench/ingest.sh [SESSIONS] [KAGENT_AGENTEVALS_CHECKOUT]   (default 8000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
sessions=${1:-8000}
peer=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin kagent-evals --example bare_parse
bin=$root/target/release/kagent-evals
bare=$root/target/release/examples/bare_parse

python3 - "$root" "$work" "$sessions" <<'PY'
import pathlib, sys
root, work, sessions = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
pool = []
for folder in ["kagent-captured", "go-runtime/pascal", "go-runtime/camel"]:
    for f in sorted((root / "tests/data" / folder).glob("*.jsonl")):
        pool.extend(l for l in f.read_text().splitlines() if l.strip())
(work / "sessions").mkdir()
for n in range(sessions):
    lines = [pool[(n * 7 + k) % len(pool)] for k in range(20)]
    (work / "sessions" / f"s{n:06d}.jsonl").write_text("\n".join(lines) + "\n")
big = [pool[k % len(pool)] for k in range(190000)]
(work / "big.jsonl").write_text("\n".join(big) + "\n")
PY
cat > "$work/suite.yaml" <<YAML
apiVersion: evals.kagent.dev/v1alpha1
kind: EvalSuite
metadata: {name: ingest}
spec:
  sessions: {limit: $sessions}
  cases:
    - name: no-loops
      evaluators:
        - {name: loops, type: loops, loops: {}}
YAML
bytes=$(du -sb "$work/sessions" | cut -f1)
big_bytes=$(stat -c %s "$work/big.jsonl")

# Best of three, in seconds; also the peak RSS of the best run (KiB).
best() {
  local best_s= best_kb=
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || true
    read -r s kb < "$work/time"
    if [[ -z $best_s ]] || awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s best_kb=$kb; fi
  done
  echo "$best_s $best_kb"
}

read -r run_s run_kb < <(best "$bin" run "$work/suite.yaml" --fixture "$work/sessions" --format json -o "$work/report.json")
read -r bare_s _ < <(best "$bare" "$work/sessions")
read -r scan_s _ < <(best "$bare" --scan "$work/sessions")
printf 'corpus: %d sessions, %.0f MB\n' "$sessions" "$(echo "$bytes / 1000000" | bc -l)"
printf 'kagent-evals run:      %6.2f s (peak RSS %d MiB)\n' "$run_s" "$((run_kb / 1024))"
printf 'bare Value parse:      %6.2f s\n' "$bare_s"
printf 'run / bare parse:      %6.2fx   (aim: at most 1.0x)\n' "$(echo "$run_s / $bare_s" | bc -l)"
printf 'scan, every core:      %6.2f s\n' "$scan_s"
printf 'run / scan:            %6.2fx\n' "$(echo "$run_s / $scan_s" | bc -l)"
if [[ -n $peer ]]; then
  cat > "$work/convert.py" <<'PY'
import json, pathlib, sys
sys.path.insert(0, str(pathlib.Path(sys.argv[1]) / "src"))
from kagent_evals.trajectory import event_stream_to_trajectory
n = 0
for f in sorted(pathlib.Path(sys.argv[2]).glob("*.jsonl")):
    events = [json.loads(l) for l in f.read_text().splitlines() if l.strip()]
    n += len(event_stream_to_trajectory(events))
print(n)
PY
  read -r py_s _ < <(best python3 "$work/convert.py" "$peer" "$work/sessions")
  printf 'Python converter:      %6.2f s\n' "$py_s"
  printf 'Python / run:          %6.2fx   (aim: at least 10x)\n' "$(echo "$py_s / $run_s" | bc -l)"
  printf 'Python / scan:         %6.2fx   (no serde_json reader does better)\n' "$(echo "$py_s / $scan_s" | bc -l)"
fi
read -r ex_s ex_kb < <(best "$bin" extract any --fixture "$work/big.jsonl")
printf 'extract of one %.0f MB session: %.2f s, peak RSS %d MiB = %.2fx its size (aim: at most 2x)\n' \
  "$(echo "$big_bytes / 1000000" | bc -l)" "$ex_s" "$((ex_kb / 1024))" "$(echo "$ex_kb * 1024 / $big_bytes" | bc -l)"
