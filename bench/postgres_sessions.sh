#!/usr/bin/env bash
# kagent's PostgreSQL with SESSIONS sessions of EVENTS events each, listed,
# fetched and scored end to end by `kagent-evals run` with the weather
# suite. Prints rows per second and peak memory of each step, and the run
# as a ratio of the floor: psql's COPY of exactly those event rows out of
# the same database.
#
# usage: bench/postgres_sessions.sh [SESSIONS] [EVENTS]   (default 10000 20)
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

cargo build --release --quiet --manifest-path "$root/Cargo.toml"
binary=$root/target/release/kagent-evals

python3 "$here/seed_kagent.py" "$sessions" "$events" bench__NS__weather_assistant \
  "$work/sessions.csv" "$work/events.csv"
"$psql" -q "$url" -f "$root/tests/data/kagent-schema.sql"
"$psql" -q "$url" -c "\copy session (id, user_id, created_at, updated_at, agent_id) from '$work/sessions.csv' csv"
"$psql" -q "$url" -c "\copy event (id, user_id, session_id, created_at, updated_at, data) from '$work/events.csv' csv"
# VACUUM as well: otherwise the first query after the load sets every row's
# hint bits (the listing took 7-9 s instead of under one).
"$psql" -q "$url" -c "vacuum analyze"
rows=$((sessions * events))
echo "seeded: $sessions sessions, $rows events"

sed -e 's/namespace: kagent/namespace: bench/' -e "s/limit: 50/limit: $sessions/" \
  "$root/examples/weather/suite.yaml" > "$work/suite.yaml"

best_of() {
  if [[ -z $1 ]] || (( $(echo "$2 < $1" | bc -l) )); then echo "$2"; else echo "$1"; fi
}

measure() {
  local label=$1
  shift
  local status=0
  KAGENT_EVALS_DATABASE_URL=$url /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2>"$work/err" || status=$?
  if [[ $status -gt 1 ]]; then
    cat "$work/err" >&2
    echo "$label could not be done (exit $status)" >&2
    exit 2
  fi
  read -r seconds kilobytes < <(tail -n 1 "$work/time")
  last_seconds=$seconds
  awk -v l="$label" -v s="$seconds" -v k="$kilobytes" -v r="$rows" 'BEGIN {
    printf "%-28s %7.2f s  %9.0f event rows/s  peak RSS %6.1f MiB\n", l, s, r / s, k / 1024
  }'
}

measure "list (sessions)" "$binary" sessions --source kagent-postgres --agent bench/weather-assistant --limit "$sessions"
listed=$(($(wc -l < "$work/out") - 1))
# The run and the floor alternate, best of three each: the machine is
# shared, and a neighbour's burst should not land on one side only.
run_seconds=
copy_seconds=
for _ in 1 2 3; do
  measure "list, fetch, score (run)" "$binary" run "$work/suite.yaml" --source kagent-postgres --format json
  run_seconds=$(best_of "$run_seconds" "$last_seconds")
  scored=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["sessions"])' "$work/out")
  measure "COPY of the event rows" "$psql" -q "$url" -c \
    "COPY (SELECT data FROM event WHERE deleted_at IS NULL ORDER BY session_id, created_at) TO STDOUT"
  copy_seconds=$(best_of "$copy_seconds" "$last_seconds")
done
echo "listed $listed sessions, scored $scored"
awk -v r="$run_seconds" -v f="$copy_seconds" 'BEGIN {
  printf "best of three: run %.2f s, COPY %.2f s\nrun / COPY floor: %.2fx   (aim: at most 1.5x)\n", r, f, r / f
}'
