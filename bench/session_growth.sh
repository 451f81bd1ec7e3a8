#!/usr/bin/env bash
# How reading one session grows with its size, and what a session near the
# read limits costs in memory.
#
# Growth: one session of 1,000, 10,000 and 100,000 event rows on each
# kagent line (0.10: bench/seed_kagent.py repeating captured ADK events;
# 1.0: tests/data/kagent-1.0/generate.py --scale 1, A2A v1 protobuf made by
# a2a-sdk's classes), each in a database of its own, read end to end by
# `kagent-evals extract --summary` (decode, convert, render the account) and
# `kagent-evals run` of a one-case suite (list, fetch, decode, score). Time
# per 1,000 rows should stay about flat from one size to the next.
#
# Limits: a kagent 1.0 session near each default limit (sessions.limits),
# and the same session just over it, read by `run`: peak RSS of each, and
# the over-limit session refused (exit 2, the limit named).
#
# usage: bench/session_growth.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
  "$root/hack/postgres.sh" stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
server=$("$root/hack/postgres.sh" start "$work/pg")
psql=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/psql
venv=$("$root/hack/python-env.sh" a2a1)
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
binary=$root/target/release/kagent-evals
data=$root/tests/data/kagent-1.0

# The URL of database $1 on the throwaway server, created empty.
database() {
  "$psql" -q "$server" -c "CREATE DATABASE $1"
  echo "${server/\/postgres\?//$1?}"
}

# A database $1 holding one kagent 1.0 session of $2 event rows: sets url
# and rows (its task and event rows together).
v1_session() {
  url=$(database "$1")
  "$psql" -q "$url" -f "$data/schema-c.sql"
  "$venv/bin/python" "$data/generate.py" --scale 1 --events-per-session "$2" \
    --out "$work/rows_$1" --load "$url" > /dev/null
  "$psql" -q "$url" -c "vacuum analyze"
  rows=$("$psql" -qAt "$url" -c "SELECT (SELECT count(*) FROM session_task) + (SELECT count(*) FROM session_task_event)")
}

# measure LABEL ROWS URL COMMAND...: wall time, time per 1,000 rows, peak RSS.
measure() {
  local label=$1 rows=$2 url=$3 status=0 started ended
  shift 3
  started=$(date +%s%N)
  KAGENT_EVALS_DATABASE_URL=$url /usr/bin/time -f "%M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || status=$?
  ended=$(date +%s%N)
  last_status=$status
  if [[ $status -gt 2 ]]; then
    cat "$work/err" >&2
    exit 2
  fi
  awk -v l="$label" -v n="$rows" -v ns="$((ended - started))" -v k="$(tail -n 1 "$work/time")" -v s="$status" 'BEGIN {
    printf "%-44s %8.3f s  %7.2f ms per 1,000 rows  peak RSS %7.1f MiB  exit %d\n", l, ns / 1e9, ns / 1e6 / (n / 1000), k / 1024, s
  }'
}

suite() { # FILE AGENT_API_VERSION NAMESPACE NAME TOOL
  cat > "$1" <<EOF
apiVersion: evals.kagent.dev/v1alpha1
kind: EvalSuite
metadata: {name: growth}
spec:
  agentRef: {apiVersion: $2, namespace: $3, name: $4}
  cases:
    - name: called-the-tool
      evaluators:
        - {name: tool, type: toolsUsed, toolsUsed: {mode: superset, expected: [$5]}}
EOF
}
suite "$work/v010.yaml" kagent.dev/v1alpha2 bench weather-assistant get-weather-by-city_get-weather-by-city
suite "$work/v1.yaml" api.kagent.dev/v1alpha3 kagent weather-agent get_weather
# Above the growth sessions' size: the growth is measured, not the limits.
roomy=(--max-session-rows 1000000 --max-session-bytes 1000000000)

echo "== growth: one session, read end to end"
for events in 1000 10000 100000; do
  url=$(database "v010_$events")
  python3 "$here/seed_kagent.py" 1 "$events" bench__NS__weather_assistant "$work/s.csv" "$work/e.csv"
  "$psql" -q "$url" -f "$root/tests/data/kagent-schema.sql"
  "$psql" -q "$url" -c "\copy session (id, user_id, created_at, updated_at, agent_id) from '$work/s.csv' csv"
  "$psql" -q "$url" -c "\copy event (id, user_id, session_id, created_at, updated_at, data) from '$work/e.csv' csv"
  "$psql" -q "$url" -c "vacuum analyze"
  session=$("$psql" -qAt "$url" -c "SELECT id FROM session LIMIT 1")
  measure "0.10, $events events: extract --summary" "$events" "$url" \
    "$binary" extract "$session" --source kagent-postgres --summary "${roomy[@]}"
  measure "0.10, $events events: run" "$events" "$url" \
    "$binary" run "$work/v010.yaml" --source kagent-postgres --format json "${roomy[@]}"

  v1_session "v1_$events" "$events"
  session=$("$psql" -qAt "$url" -c "SELECT id FROM session LIMIT 1")
  measure "1.0, $events events ($rows rows): extract --summary" "$rows" "$url" \
    "$binary" extract "$session" --source kagent-postgres --summary "${roomy[@]}"
  measure "1.0, $events events ($rows rows): run" "$rows" "$url" \
    "$binary" run "$work/v1.yaml" --source kagent-postgres --format json "${roomy[@]}"
done

echo "== limits: a kagent 1.0 session near each default limit, and just over it"
# rowBytes and sessionBytes: fifteen rows of 4 MiB (an unknown field
# appended, which the decoder skips) in a session of 1,000 events: 60 MiB,
# under sessionBytes (64 MiB); seventeen, over it; one row of 17 MiB is over
# rowBytes (16 MiB).
v1_session limits 1000
field() { # the bytes of protobuf field 15 holding N bytes of 'a', as SQL
  python3 -c 'import sys
n = int(sys.argv[1]); out = bytearray([0x7a])
while True:
    b = n & 0x7f; n >>= 7
    out.append(b | (0x80 if n else 0))
    if not n: break
print("'"'"'\\x" + out.hex() + "'"'"'::bytea || convert_to(repeat('"'"'a'"'"', " + sys.argv[1] + "), '"'"'UTF8'"'"')")' "$1"
}
"$psql" -q "$url" -c "UPDATE session_task_event SET data = data || $(field $((4 << 20)))
  WHERE sequence IN (SELECT sequence FROM session_task_event ORDER BY sequence LIMIT 15)"
"$psql" -q "$url" -c "vacuum analyze"
measure "60 MiB in 15 rows of 4 MiB (under both)" "$rows" "$url" \
  "$binary" run "$work/v1.yaml" --source kagent-postgres --format json
"$psql" -q "$url" -c "UPDATE session_task_event SET data = data || $(field $((4 << 20)))
  WHERE sequence IN (SELECT sequence FROM session_task_event ORDER BY sequence DESC LIMIT 2)"
measure "68 MiB in 17 rows of 4 MiB (over sessionBytes)" "$rows" "$url" \
  "$binary" run "$work/v1.yaml" --source kagent-postgres --format json
grep -q "sessions.limits.sessionBytes" "$work/out" || { echo "the session over sessionBytes was not refused" >&2; exit 1; }
"$psql" -q "$url" -c "UPDATE session_task_event SET data = data || $(field $((13 << 20)))
  WHERE sequence = (SELECT min(sequence) FROM session_task_event)"
measure "one row of 17 MiB (over rowBytes)" "$rows" "$url" \
  "$binary" run "$work/v1.yaml" --source kagent-postgres --format json
grep -q "sessions.limits.rowBytes" "$work/out" || { echo "the row over rowBytes was not refused" >&2; exit 1; }

# sessionRows: a session of about 19,900 rows, under the 20,000 rows per
# session; then about 20,200, over it.
for events in 17400 17700; do
  v1_session "rows_$events" "$events"
  measure "a session of $rows rows" "$rows" "$url" \
    "$binary" run "$work/v1.yaml" --source kagent-postgres --format json
done
grep -q "sessions.limits.sessionRows" "$work/out" || { echo "the session over sessionRows was not refused" >&2; exit 1; }

# rowElements: one archived agent message of 99,990 one-character parts
# (0.5 MiB), under the 100,000 elements per row; then 100,010, over it.
for parts in 99990 100010; do
  v1_session "elements_$parts" 20
  python3 - "$parts" "$work/message.bin" <<'EOF'
import sys
def field(number, body):
    n, out = len(body), bytearray([number << 3 | 2])
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out) + body
part = field(5, field(1, b"x"))
message = field(1, b"bench") + bytes([0x20, 0x02]) + part * int(sys.argv[1])
open(sys.argv[2], "wb").write(field(2, message))
EOF
  "$psql" -q "$url" -c "
    INSERT INTO session_task_event (history_id, task_id, data, created_at, message_id, published)
    SELECT history_id, task_id, pg_read_binary_file('$work/message.bin'), created_at, 'bench-parts', true
      FROM session_task_event ORDER BY sequence DESC LIMIT 1"
  measure "one row of $parts parts" 21 "$url" \
    "$binary" run "$work/v1.yaml" --source kagent-postgres --format json
done
grep -q "sessions.limits.rowElements" "$work/out" || { echo "the row over rowElements was not refused" >&2; exit 1; }
