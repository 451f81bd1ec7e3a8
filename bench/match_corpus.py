"""Write a reproducible corpus of agentevals comparisons as JSON lines.

Each line is one case in the format `kagent-evals match --cases` reads:
an output and a reference trajectory of 4 to 24 tool calls with nested
arguments, a mode, an args mode and sometimes a per-tool override. About
half the outputs are perturbed (a call dropped, renamed, reordered or an
argument changed) so both passing and failing paths are exercised.

usage: match_corpus.py CASES OUT.jsonl [SEED]
"""

import json
import random
import sys

TOOLS = ["get_weather", "search_docs", "k8s_get_resources", "k8s_get_pod_logs",
         "helm_list_releases", "prometheus_query", "create_ticket", "send_message"]
MODES = ["strict", "unordered", "subset", "superset"]
ARGS_MODES = ["exact", "ignore", "subset", "superset"]


def args(rng):
    value = {"namespace": rng.choice(["default", "kagent", "prod"]),
             "limit": rng.randint(1, 100),
             "filters": {"label": rng.choice(["app=web", "tier=db"]), "since": f"{rng.randint(1, 48)}h"}}
    if rng.random() < 0.5:
        value["verbose"] = rng.random() < 0.5
    return value


def call(name, arguments):
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def trajectory(rng):
    messages = [{"role": "user", "content": "What is wrong with the web pods?"}]
    for _ in range(rng.randint(2, 8)):
        calls = [call(rng.choice(TOOLS), args(rng)) for _ in range(rng.randint(1, 3))]
        messages.append({"role": "assistant", "content": "", "tool_calls": calls})
        messages.append({"role": "tool", "content": "ok"})
    messages.append({"role": "assistant", "content": "The web pods are out of memory."})
    return messages


def perturb(rng, messages):
    messages = json.loads(json.dumps(messages))
    with_calls = [m for m in messages if m.get("tool_calls")]
    target = rng.choice(with_calls)
    kind = rng.choice(["drop", "rename", "reorder", "argument"])
    if kind == "drop" and len(target["tool_calls"]) > 1:
        target["tool_calls"].pop()
    elif kind == "rename":
        target["tool_calls"][0]["function"]["name"] = rng.choice(TOOLS)
    elif kind == "reorder":
        rng.shuffle(with_calls[0]["tool_calls"])
    else:
        function = target["tool_calls"][-1]["function"]
        arguments = json.loads(function["arguments"])
        arguments["limit"] = arguments["limit"] + 1
        function["arguments"] = json.dumps(arguments)
    return messages


def main():
    count, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    with open(path, "w") as out:
        for index in range(count):
            reference = trajectory(rng)
            outputs = perturb(rng, reference) if rng.random() < 0.5 else reference
            case = {"name": f"case-{index}", "mode": rng.choice(MODES),
                    "args_mode": rng.choice(ARGS_MODES), "overrides": None,
                    "outputs": outputs, "reference": reference}
            if rng.random() < 0.2:
                case["overrides"] = {rng.choice(TOOLS): rng.choice([["namespace", "filters.label"], "ignore"])}
            out.write(json.dumps(case) + "\n")


if __name__ == "__main__":
    main()
