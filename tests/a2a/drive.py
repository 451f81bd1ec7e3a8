"""Send scripted A2A conversations to an agent and save what the runtime stored.

    python3 drive.py --agent http://127.0.0.1:PORT/ --cases cases.json \
        --controller-log controller.jsonl --out DIR

cases.json is a list of `{"name", "steps": [...]}`; each case is one new
contextId, each step one JSON-RPC call:
`{"text": "...", "data": {...}, "method": "message/send" | "message/stream",
  "headers": {...}, "same_task": true, "expect": "completed"}`
(`same_task` resumes the task the previous step left, e.g. input-required;
headers carry over to later steps of the case). A step whose final state is
not `expect` fails the run.

For each case it writes, into DIR:
- CASE.json: the bodies of POST /api/tasks the runtime sent, in order, as received;
- CASE.a2a.json: each JSON-RPC request with its response (or stream events);
- CASE.session-events.json: the bodies of POST /api/sessions/{id}/events, if any.
Standard library only.
"""

import argparse
import json
import os
import sys
import time
import urllib.request
import uuid


def read_log(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def wait_quiet(path, quiet=1.0, limit=15.0):
    """Wait until the controller log stops growing: task saves may trail the response."""
    deadline = time.time() + limit
    size = -1
    while time.time() < deadline:
        now = os.path.getsize(path) if os.path.exists(path) else 0
        if now == size:
            return
        size = now
        time.sleep(quiet)


def call(agent, method, message, headers):
    request = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": {"message": message}}
    h = {"Content-Type": "application/json", **headers}
    if method == "message/stream":
        h["Accept"] = "text/event-stream"
    http = urllib.request.Request(agent, json.dumps(request).encode(), h)
    with urllib.request.urlopen(http, timeout=180) as response:
        if method != "message/stream":
            body = json.loads(response.read())
            result = body.get("result") or {}
            return request, {"response": body}, result.get("status", {}).get("state"), result.get("id")
        events = []
        for line in response:
            line = line.decode("utf-8").strip()
            if line.startswith("data:"):
                events.append(json.loads(line[5:].strip()))
        state = task_id = None
        for event in events:
            result = event.get("result") or {}
            task_id = result.get("taskId") or result.get("id") or task_id
            if "status" in result:
                state = result["status"].get("state")
        return request, {"events": events}, state, task_id


def run_case(agent, case, log_path, out):
    start = len(read_log(log_path))
    context_id = str(uuid.uuid4())
    headers = {}
    task_id = None
    exchanges = []
    for step in case["steps"]:
        headers.update(step.get("headers") or {})
        parts = []
        if step.get("text"):
            parts.append({"kind": "text", "text": step["text"]})
        if step.get("data") is not None:
            parts.append({"kind": "data", "data": step["data"]})
        message = {"kind": "message", "role": "user", "messageId": str(uuid.uuid4()),
                   "contextId": context_id, "parts": parts}
        if step.get("same_task"):
            message["taskId"] = task_id
        request, answer, state, task_id = call(agent, step.get("method", "message/send"), message, headers)
        exchanges.append({"request": request, **answer})
        if step.get("expect") and state != step["expect"]:
            raise SystemExit(f"case {case['name']}: expected {step['expect']}, got {state}: "
                             f"{json.dumps(answer)[:2000]}")
        wait_quiet(log_path)
    entries = read_log(log_path)[start:]
    tasks = [json.loads(e["raw"]) for e in entries if e["method"] == "POST" and e["path"] == "/api/tasks"]
    events = [json.loads(e["raw"]) for e in entries
              if e["method"] == "POST" and e["path"].startswith("/api/sessions/") and e["path"].endswith("/events")]
    write(os.path.join(out, case["name"] + ".json"), tasks)
    write(os.path.join(out, case["name"] + ".a2a.json"), exchanges)
    if events:
        write(os.path.join(out, case["name"] + ".session-events.json"), events)
    return len(tasks)


def write(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, ensure_ascii=False)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent", required=True)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--controller-log", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", help="run only this case")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(args.cases, encoding="utf-8") as f:
        cases = json.load(f)
    for case in cases:
        if args.only and case["name"] != args.only:
            continue
        began = time.time()
        count = run_case(args.agent, case, args.controller_log, args.out)
        print(f"{case['name']}: {count} task saves in {time.time() - began:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
