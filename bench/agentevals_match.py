"""Score a `match --cases` corpus with agentevals and print the throughput.

Timing covers reading, parsing and scoring in this process after the
imports, with one evaluator per distinct configuration, as a user would
build them: the most favourable reading of agentevals' speed.

usage: agentevals_match.py CASES.jsonl RESULTS.jsonl
"""

import json
import sys
import time

from agentevals.trajectory.match import create_trajectory_match_evaluator


def main():
    source, results_path = sys.argv[1], sys.argv[2]
    evaluators = {}
    started = time.perf_counter()
    count = 0
    with open(source) as cases, open(results_path, "w") as results:
        for line in cases:
            case = json.loads(line)
            overrides = case.get("overrides")
            key = (case["mode"], case["args_mode"], json.dumps(overrides, sort_keys=True))
            evaluator = evaluators.get(key)
            if evaluator is None:
                evaluator = create_trajectory_match_evaluator(
                    trajectory_match_mode=case["mode"],
                    tool_args_match_mode=case["args_mode"],
                    tool_args_match_overrides=overrides,
                )
                evaluators[key] = evaluator
            result = evaluator(outputs=case["outputs"], reference_outputs=case["reference"])
            results.write(json.dumps({"name": case["name"], "score": result["score"]}) + "\n")
            count += 1
    elapsed = time.perf_counter() - started
    print(f"{count} {elapsed:.6f}")


if __name__ == "__main__":
    main()
