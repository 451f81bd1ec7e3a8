#!/usr/bin/env bash
# kagent 1.0's PostgreSQL (schema generation C) with SESSIONS Sessions of
# EVENTS stream events each, made by tests/data/kagent-1.0/generate.py
# --scale; the weather agent's Sessions (every other one, so half) listed,
# fetched, decoded and scored end to end by `kagent-evals run` with a suite
# derived from examples/weather/suite.yaml. Prints rows per second and peak
# memory of each step, and the run as a ratio of the sum of two floors
# measured in the same run on exactly the rows the run reads (every
# `session_task.data` and published `session_task_event.data` of those
# Sessions' histories):
#
#   - psql's \copy of those rows out of the same database, in binary
#     format (bytea as its bytes, as the run receives them);
#   - examples/bare_prost_decode.rs: those same bytes decoded as
#     lf.a2a.v1.Task and lf.a2a.v1.StreamResponse with prost alone, on
#     every core (the process's whole time, reading the frames included).
#
# usage: bench/kagent_v1_sessions.sh [SESSIONS] [EVENTS]   (default 10000 20)
# KAGENT_EVALS_BENCH_DATABASE_URL: an empty database to use instead of a
# throwaway cluster started with hack/postgres.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
sessions=${1:-10000}
events=${2:-20}
work=$(mktemp -d)
chmod 755 "$work"
cleanup() {
  if [[ -z ${KAGENT_EVALS_BENCH_DATABASE_URL:-} ]]; then
    "$root/hack/postgres.sh" stop "$work/pg" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
url=${KAGENT_EVALS_BENCH_DATABASE_URL:-$("$root/hack/postgres.sh" start "$work/pg")}
psql=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/psql
venv=$("$root/hack/python-env.sh" a2a1)

cargo build --release --quiet --manifest-path "$root/Cargo.toml"
# Apart: an example's build unifies the dev-dependencies' features, which
# would make this a different kagent-evals from `cargo build --release`'s.
cargo build --release --quiet --manifest-path "$root/Cargo.toml" --example bare_prost_decode
binary=$root/target/release/kagent-evals
decoder=$root/target/release/examples/bare_prost_decode

data=$root/tests/data/kagent-1.0
"$psql" -q "$url" -f "$data/schema-c.sql"
"$venv/bin/python" "$data/generate.py" --scale "$sessions" --events-per-session "$events" \
  --out "$work/rows" --load "$url"
# VACUUM as well: otherwise the first query after the load sets every row's
# hint bits (with 0.10's tables the listing took 7-9 s instead of under one).
"$psql" -q "$url" -c "vacuum analyze"
seeded=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["events"])' "$work/rows/manifest.json")
echo "seeded: $sessions Sessions, $seeded events"

# The histories the run reads: the weather agent's Sessions as the reader
# lists them (not deleted, not forked; the suite's limit is every Session).
histories="SELECT s.history_id FROM session_record s JOIN agent_runtime_revision r ON r.revision = s.prepared_revision WHERE s.state <> 'RUNTIME_STATE_DELETED' AND s.source_checkpoint_id IS NULL AND r.namespace = 'kagent' AND r.agent_name = 'weather-agent'"
tasks_sql="SELECT t.data FROM session_task t WHERE t.history_id IN ($histories) ORDER BY t.history_id, t.position"
events_sql="SELECT e.data FROM session_task_event e WHERE e.published AND e.history_id IN ($histories) ORDER BY e.history_id, e.sequence"
weather=$("$psql" -qAt "$url" -c "SELECT count(*) FROM ($histories) h")

# The prost floor's input: the same bytes as frames (u32 LE length + bytes),
# from psql's binary COPY of the same queries.
"$psql" -q "$url" -c "\\copy ($tasks_sql) to '$work/tasks.pgcopy' with (format binary)"
"$psql" -q "$url" -c "\\copy ($events_sql) to '$work/events.pgcopy' with (format binary)"
python3 - "$work" <<'EOF'
import struct, sys
work = sys.argv[1]
for name in ("tasks", "events"):
    data = open(f"{work}/{name}.pgcopy", "rb").read()
    assert data[:11] == b"PGCOPY\n\xff\r\n\0", name
    at = 15 + 4 + struct.unpack_from(">i", data, 15)[0]
    rows = nbytes = 0
    with open(f"{work}/{name}.frames", "wb") as out:
        while True:
            (fields,) = struct.unpack_from(">h", data, at)
            at += 2
            if fields == -1:
                break
            (length,) = struct.unpack_from(">i", data, at)
            at += 4
            out.write(struct.pack("<I", length))
            out.write(data[at:at + length])
            at += length
            rows += 1
            nbytes += length
    open(f"{work}/{name}.count", "w").write(f"{rows} {nbytes}\n")
EOF
read -r task_rows task_bytes < "$work/tasks.count"
read -r event_rows event_bytes < "$work/events.count"
rows=$((task_rows + event_rows))
echo "read by the run: $weather weather-agent Sessions, $task_rows task rows ($task_bytes bytes), $event_rows event rows ($event_bytes bytes)"

# examples/weather/suite.yaml for kagent 1.0's weather agent, adapted to
# what generate.py --scale writes: its tool is get_weather, a Session calls
# it three times in three turns (once, twice, not at all: 20 events are
# tasks of 7, 9 and 4 rows), and the Sessions whose first question is about
# London ask next about Paris, then Berlin.
cat > "$work/suite.yaml" <<EOF
apiVersion: evals.kagent.dev/v1alpha1
kind: EvalSuite
metadata:
  name: weather-agent
spec:
  agentRef:
    apiVersion: api.kagent.dev/v1alpha3
    namespace: kagent
    name: weather-agent
  sessions:
    limit: $sessions
  cases:
    - name: answer-comes-from-the-weather-tool
      evaluators:
        - name: called-the-weather-tool
          type: toolsUsed
          toolsUsed:
            mode: superset
            expected: [get_weather]
    # The budget: three calls of the weather tool, no other tool.
    - name: uses-no-tool-outside-its-budget
      evaluators:
        - name: no-unexpected-tools
          type: toolsUsed
          toolsUsed:
            mode: subset
            expected: [get_weather, get_weather, get_weather]
    - name: looks-up-the-city-the-user-asked-about
      match:
        regex: "(?i)\\\\blondon\\\\b"
      evaluators:
        - name: strict-with-args
          type: trajectoryMatch
          trajectoryMatch:
            mode: strict
            argsMode: exact
            reference:
              - {role: user, content: What is the weather in London?}
              - role: assistant
                content: ""
                tool_calls:
                  - {type: function, function: {name: get_weather, arguments: '{"city": "London"}'}}
              - {role: tool, content: (weather for London)}
              - {role: assistant, content: (grounded answer)}
              - {role: user, content: What is the weather in Paris?}
              - role: assistant
                content: ""
                tool_calls:
                  - {type: function, function: {name: get_weather, arguments: '{"city": "Paris"}'}}
              - {role: tool, content: (weather for Paris)}
              - role: assistant
                content: ""
                tool_calls:
                  - {type: function, function: {name: get_weather, arguments: '{"city": "Paris"}'}}
              - {role: tool, content: (weather for Paris)}
              - {role: assistant, content: (grounded answer)}
              - {role: user, content: What is the weather in Berlin?}
              - {role: assistant, content: (an answer without a tool)}
EOF

best_of() {
  if [[ -z $1 ]] || (( $(echo "$2 < $1" | bc -l) )); then echo "$2"; else echo "$1"; fi
}

measure() {
  local label=$1
  shift
  local status=0 started ended
  # Wall time from the clock to the millisecond (the floors take tenths of
  # a second, where time's hundredths are coarse); CPU and peak RSS from time.
  started=$(date +%s%N)
  KAGENT_EVALS_DATABASE_URL=$url /usr/bin/time -f "%M %U %S" -o "$work/time" "$@" > "$work/out" 2>"$work/err" || status=$?
  ended=$(date +%s%N)
  if [[ $status -gt 1 ]]; then
    cat "$work/err" >&2
    echo "$label could not be done (exit $status)" >&2
    exit 2
  fi
  read -r kilobytes user system < <(tail -n 1 "$work/time")
  last_seconds=$(echo "scale=3; ($ended - $started) / 1000000000" | bc -l)
  awk -v l="$label" -v s="$last_seconds" -v k="$kilobytes" -v c="$(echo "$user + $system" | bc -l)" -v r="$rows" 'BEGIN {
    printf "%-30s %6.3f s  %9.0f rows/s  CPU %6.2f s  peak RSS %6.1f MiB\n", l, s, (s > 0 ? r / s : 0), c, k / 1024
  }'
}

measure "list (Sessions)" "$binary" sessions --source kagent-postgres --agent kagent/weather-agent --limit "$sessions"
listed=$(($(wc -l < "$work/out") - 1))
# The run and the floors alternate, best of three each: the machine is
# shared, and a neighbour's burst should not land on one side only.
run_seconds=
copy_seconds=
decode_seconds=
for _ in 1 2 3; do
  measure "list, fetch, decode, score" "$binary" run "$work/suite.yaml" --source kagent-postgres --format json
  run_seconds=$(best_of "$run_seconds" "$last_seconds")
  summary=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["summary"]))' "$work/out")
  measure "COPY of the rows (binary)" "$psql" -q "$url" \
    -c "\\copy ($tasks_sql) to stdout with (format binary)" \
    -c "\\copy ($events_sql) to stdout with (format binary)"
  copy_seconds=$(best_of "$copy_seconds" "$last_seconds")
  measure "prost decode of the bytes" "$decoder" "$work/events.frames" "$work/tasks.frames"
  decode_seconds=$(best_of "$decode_seconds" "$last_seconds")
done
echo "listed $listed Sessions; the run's summary: $summary"
awk -v r="$run_seconds" -v c="$copy_seconds" -v d="$decode_seconds" 'BEGIN {
  printf "best of three: run %.3f s, \\copy %.3f s, prost decode %.3f s\n", r, c, d
  printf "run / (\\copy + decode) floor: %.2fx   (aim: at most 1.5x)\n", r / (c + d)
}'
scored=$(python3 -c 'import json,sys; s=json.loads(sys.argv[1]); print(s["sessions"] - s["unreadableSessions"])' "$summary")
if [[ $listed != "$weather" || $scored != "$weather" ]]; then
  echo "expected all $weather weather-agent Sessions listed and scored: listed $listed, scored $scored" >&2
  exit 1
fi
