#!/usr/bin/env bash
# Record the A2A task bodies a kagent Python runtime POSTs to the controller,
# into tests/data/kagent-tasks/RUNTIME/.
#
#   tests/a2a/capture_tasks.sh RUNTIME [CASE]    # RUNTIME: adk | langgraph | crewai | openai
#
# Starts the scripted model (runtimes/script.json), the controller stand-in
# (task_store.py) and the runtime's agent on free loopback ports, runs
# runtimes/RUNTIME/cases.json through drive.py, and stops all three. Scratch
# files and logs stay in target/python/capture/RUNTIME.
set -euo pipefail

runtime=${1:?usage: tests/a2a/capture_tasks.sh adk|langgraph|crewai|openai [CASE]}
only=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[[ -f $here/runtimes/$runtime/cases.json ]] || { echo "no runtime $runtime" >&2; exit 2; }

venv=$("$root/hack/python-env.sh" "$runtime")
py=$venv/bin/python
work=$root/target/python/capture/$runtime
out=$root/tests/data/kagent-tasks/$runtime
rm -rf "$work"
mkdir -p "$work" "$out"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

# listening FILE: the port a server printed as `listening on HOST:PORT`.
listening() {
  for _ in $(seq 1 100); do
    if [[ -s $1 ]]; then sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$1"; return; fi
    sleep 0.1
  done
  echo "no server started: $1" >&2
  exit 1
}

"$py" "$here/scripted_model.py" --port 0 --script "$here/runtimes/script.json" \
  --log "$work/model.jsonl" >"$work/model.out" 2>"$work/model.err" &
pids+=($!)
"$py" "$here/task_store.py" --port 0 --log "$work/controller.jsonl" \
  >"$work/controller.out" 2>"$work/controller.err" &
pids+=($!)
model_port=$(listening "$work/model.out")
store_port=$(listening "$work/controller.out")
agent_port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
model_url=http://127.0.0.1:$model_port/v1
agent_url=http://127.0.0.1:$agent_port/

# A clean environment: nothing of the caller's (keys, proxies) reaches the runtime.
# OPENAI_API_BASE is kagent-openai's name for the base URL; OPENAI_BASE_URL the SDK's.
agent_env=(env -i PATH=/usr/bin:/bin HOME="$work" LANG=C.UTF-8
  KAGENT_NAME=weather-agent KAGENT_NAMESPACE=kagent KAGENT_URL=http://127.0.0.1:$store_port
  OPENAI_API_KEY=scripted OPENAI_BASE_URL="$model_url" OPENAI_API_BASE="$model_url"
  CREWAI_DISABLE_TELEMETRY=true CREWAI_DISABLE_TRACKING=true OTEL_SDK_DISABLED=true
  AGENT_URL="$agent_url")

started=$SECONDS
if [[ $runtime == adk ]]; then
  "$py" "$here/agent/workdir.py" "$work/agent" --model-url "$model_url" --agent-url "$agent_url" >/dev/null
  (cd "$work/agent" && exec "${agent_env[@]}" "$venv/bin/kagent-adk" run weather_agent \
    --working-dir . --host 127.0.0.1 --port "$agent_port") >"$work/agent.log" 2>&1 &
else
  (cd "$work" && exec "${agent_env[@]}" "$py" "$here/runtimes/$runtime/agent.py" \
    --host 127.0.0.1 --port "$agent_port") >"$work/agent.log" 2>&1 &
fi
agent_pid=$!
pids+=("$agent_pid")
until curl -sf "${agent_url}.well-known/agent-card.json" >"$work/agent-card.json"; do
  if ! kill -0 "$agent_pid" 2>/dev/null; then
    echo "the $runtime agent exited; its log:" >&2
    tail -n 40 "$work/agent.log" >&2
    exit 1
  fi
  if ((SECONDS - started > 180)); then
    echo "the $runtime agent did not answer within 180 s" >&2
    exit 1
  fi
  sleep 0.2
done
echo "$runtime agent ready in $((SECONDS - started)) s" >&2

"$py" "$here/drive.py" --agent "$agent_url" --cases "$here/runtimes/$runtime/cases.json" \
  --controller-log "$work/controller.jsonl" --out "$out" ${only:+--only "$only"}

if grep -rliE 'bearer|"authorization"' "$out"; then
  echo "a credential-like header reached the fixtures above" >&2
  exit 1
fi
