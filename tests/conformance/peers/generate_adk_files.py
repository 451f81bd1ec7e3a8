"""adk_files.jsonl: what ADK makes of eval files and their test_config.json.

    python generate_adk_files.py

adk_files/fixtures/ holds google/adk-python's own fixture files (see
adk_files/SOURCE.md); adk_files/synthetic/ holds small files of ours, written
by this script, for the corners the fixtures do not reach. For every eval
file, one row: how ADK loads it (AgentEvaluator, the pytest-facing API, and
the `adk eval` CLI's loader, which differ for the old list format), the
metrics its test_config.json names, and, for every eval case, the verdict
LocalEvalService gives when the case's own conversation is the actual one
(variant "identical") and when the actual differs from it ("args-changed",
"response-changed", "both-changed"). Metrics that need a judge model are
listed as skipped, not run.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import shutil
import warnings
from pathlib import Path

logging.disable(logging.CRITICAL)
warnings.simplefilter("ignore")

from google.adk.evaluation import agent_evaluator as ae  # noqa: E402
from google.adk.evaluation.eval_config import get_eval_metrics_from_config  # noqa: E402
from google.adk.evaluation.eval_config import get_evaluation_criteria_or_default  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import _get_text_from_content  # noqa: E402
from google.adk.evaluation.local_eval_sets_manager import load_eval_set_from_file  # noqa: E402

from _vectors import HERE, REPO, VECTORS, error_text, write_jsonl  # noqa: E402
from generate_adk import run_service  # noqa: E402

FILES = HERE / "adk_files"
# Metrics scored without a model; anything else needs a judge and is skipped.
OFFLINE = {"tool_trajectory_avg_score", "response_match_score", "tool_call_count_v1",
           "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1"}

ROW = [{"query": "Turn off device_2 in the Bedroom.",
        "expected_tool_use": [{"tool_name": "set_device_info",
                               "tool_input": {"location": "Bedroom", "device_id": "device_2", "status": "OFF"}}],
        "reference": "I have set the device_2 status to off."}]
EVALSET_CASE = {"eval_id": "case-1", "conversation": [{
    "invocation_id": "i-1",
    "user_content": {"role": "user", "parts": [{"text": "What is the weather in London?"}]},
    "final_response": {"role": "model", "parts": [{"text": "It is 18 degrees and cloudy in London."}]},
    "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "London"}}]}}]}
# Our own corners, each a folder: {file name: JSON body}. A body of None means
# the folder has no test_config.json.
SYNTHETIC = {
    "old_missing_reference": {
        "data.test.json": [{"query": "Turn off device_2.", "expected_tool_use": []}],
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 1.0}}},
    "old_missing_reference_with_response_match": {
        "data.test.json": [{"query": "Turn off device_2.", "expected_tool_use": []}],
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}}},
    "old_disallowed_criterion": {
        "data.test.json": ROW, "test_config.json": {"criteria": {"hallucinations_v1": 0.5}}},
    "old_no_config": {"data.test.json": ROW},
    "old_only_first_row_validated": {
        "data.test.json": ROW + [{"query": "And device_3?"}],
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}}},
    "old_intermediate_responses": {
        "data.test.json": [{**ROW[0], "expected_intermediate_agent_responses": [
            {"author": "sub_agent", "text": "Looking up the device."}]}],
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 1.0}}},
    "old_object_criteria": {
        "data.test.json": ROW,
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
                                          "response_match_score": {"threshold": 0.5}}}},
    "old_not_a_list_of_objects": {"data.test.json": [["Turn off device_2."]]},
    "old_two_rows_one_case": {
        "data.test.json": ROW + [{"query": "Now turn it on.", "expected_tool_use": [
            {"tool_name": "set_device_info", "tool_input": {"device_id": "device_2", "status": "ON"}}],
            "reference": "Done, device_2 is on."}],
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 0.5, "response_match_score": 0.5}}},
    "evalset_zero_invocations": {
        "data.test.json": {"eval_set_id": "s", "eval_cases": [{"eval_id": "empty", "conversation": []}]},
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}},
    "evalset_conversation_and_scenario": {
        "data.test.json": {"eval_set_id": "s", "eval_cases": [{
            **EVALSET_CASE, "conversation_scenario": {"starting_prompt": "Hi", "conversation_plan": "Ask"}}]}},
    "evalset_unknown_key_in_invocation": {
        "data.test.json": {"eval_set_id": "s", "eval_cases": [{
            "eval_id": "typo", "conversation": [{**EVALSET_CASE["conversation"][0], "final_respons": None}]}]}},
    "evalset_camel_case": {
        "data.evalset.json": {"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [{
            "userContent": {"role": "user", "parts": [{"text": "hi"}]},
            "finalResponse": {"role": "model", "parts": [{"text": "hello"}]},
            "intermediateData": {"toolUses": [{"name": "t", "args": {}}]}}]}]},
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}},
    "evalset_camel_case_cases": {
        "data.evalset.json": {"eval_set_id": "s", "eval_cases": [{"evalId": "c", "conversation": [{
            "userContent": {"role": "user", "parts": [{"text": "hi"}]},
            "finalResponse": {"role": "model", "parts": [{"text": "hello"}]},
            "intermediateData": {"toolUses": [{"name": "t", "args": {}}]}}]}]},
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}},
    "evalset_args_null_and_multi_turn": {
        "data.evalset.json": {"eval_set_id": "s", "eval_cases": [EVALSET_CASE, {
            "eval_id": "case-2", "conversation": [
                {"user_content": {"parts": [{"text": "list devices"}]},
                 "intermediate_data": {"tool_uses": [{"name": "list_devices"}]},
                 "final_response": {"parts": [{"text": "device_1, device_2"}]}},
                {"user_content": {"parts": [{"text": "thanks"}]},
                 "final_response": {"parts": [{"text": "You are welcome."}, {"text": "Anything else?"}]}}]}]},
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "ANY_ORDER"},
                                          "response_match_score": 0.6}}},
    "evalset_ignore_args": {
        "data.evalset.json": {"eval_set_id": "s", "eval_cases": [EVALSET_CASE]},
        "test_config.json": {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "ignore_args": True}}}},
    "evalset_judge_metric_only": {
        "data.evalset.json": {"eval_set_id": "s", "eval_cases": [EVALSET_CASE]},
        "test_config.json": {"criteria": {"final_response_match_v2": {
            "threshold": 0.5, "judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 3}}}}},
}


def write_synthetic():
    root = FILES / "synthetic"
    if root.exists():
        shutil.rmtree(root)
    for folder, files in SYNTHETIC.items():
        (root / folder).mkdir(parents=True)
        for name, body in files.items():
            (root / folder / name).write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")


def rel(path: Path) -> str:
    return str(path.relative_to(REPO))


def metric_data(m):
    return {"metric_name": m.metric_name, "threshold": m.threshold,
            "criterion": None if m.criterion is None else m.criterion.model_dump(mode="json")}


def scrub(eval_set: EvalSet, generated: bool):
    """The loaded eval set as JSON; ids and times ADK generated are masked."""
    data = eval_set.model_dump(mode="json", exclude_none=True)
    if generated:
        data["eval_set_id"] = data["name"] = "<uuid4>"
        data["creation_timestamp"] = "<time.time()>"
        for case in data["eval_cases"]:
            case["creation_timestamp"] = "<time.time()>"
            for invocation in case.get("conversation") or []:
                invocation["invocation_id"] = "<uuid4>"
                invocation["creation_timestamp"] = "<time.time()>"
    return data


def invocation_json(invocation) -> dict:
    return invocation.model_dump(mode="json", exclude_none=True)


def masked(actual: list[dict], generated: bool) -> list[dict]:
    """Invocations as recorded: ids and times ADK made up when migrating the
    old format (uuid4, time.time()) are masked so reruns write the same."""
    if not generated:
        return actual
    return [{**i, "invocation_id": "<uuid4>", "creation_timestamp": "<time.time()>"} for i in actual]


def changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + " (changed)"
    return "changed"


def variant(conversation: list[dict], kind: str) -> list[dict]:
    """The case's conversation with one tool call's args and/or one final response changed."""
    actual = copy.deepcopy(conversation)
    if kind in ("args-changed", "both-changed"):
        for invocation in actual:
            uses = (invocation.get("intermediate_data") or {}).get("tool_uses") or []
            if uses:
                args = uses[0].setdefault("args", {})
                if args:
                    key = sorted(args)[0]
                    args[key] = changed(args[key])
                else:
                    args["unexpected"] = "argument"
                break
        else:
            if actual:
                actual[0].setdefault("intermediate_data", {}).setdefault("tool_uses", []).append(
                    {"name": "unexpected_tool", "args": {}})
    if kind in ("response-changed", "both-changed"):
        for invocation in reversed(actual):
            parts = (invocation.get("final_response") or {}).get("parts") or []
            texts = [p for p in parts if p.get("text")]
            if texts:
                words = texts[0]["text"].split()
                texts[0]["text"] = " ".join(words[: max(1, len(words) // 2)] + ["but", "something", "else", "entirely"])
                break
        else:
            if actual:
                actual[-1]["final_response"] = {"role": "model", "parts": [{"text": "An unexpected answer."}]}
    return actual


def case_summary(case) -> dict:
    summary = {"eval_id": case.eval_id,
               "kind": "conversation" if case.conversation is not None else "conversation_scenario"}
    if case.conversation is not None:
        summary["invocations"] = [{
            "user": _get_text_from_content(i.user_content),
            "final_response_text": _get_text_from_content(i.final_response),
            "tool_uses": [{"name": c.name, "args": c.args} for c in
                          (i.intermediate_data.tool_uses if i.intermediate_data is not None
                           and hasattr(i.intermediate_data, "tool_uses") else [])],
        } for i in case.conversation]
    else:
        summary["conversation_scenario"] = case.conversation_scenario.model_dump(mode="json", exclude_none=True)
    return summary


def process(path: Path) -> dict:
    config_path = path.parent / "test_config.json"
    row = {"file": rel(path), "test_config": rel(config_path) if config_path.exists() else None}
    raw = json.loads(path.read_text())
    try:
        EvalSet.model_validate_json(path.read_text())
        row["format"] = "evalset"
    except Exception as exc:
        row["format"] = "old_list" if isinstance(raw, list) else "invalid_evalset"
        row["evalset_validation_error"] = error_text(exc)

    config = None
    try:
        config = ae.AgentEvaluator.find_config_for_test_file(str(path))
        metrics = get_eval_metrics_from_config(config)
        row["criteria"] = [metric_data(m) for m in metrics]
    except Exception as exc:
        row["criteria"] = {"error": error_text(exc)}
        metrics = []

    eval_set = None
    try:
        eval_set = ae.AgentEvaluator._load_eval_set_from_file(str(path), config, {})
        row["agent_evaluator_load"] = {"eval_set": scrub(eval_set, row["format"] != "evalset")}
    except Exception as exc:
        row["agent_evaluator_load"] = {"error": error_text(exc)}
    try:
        cli_set = load_eval_set_from_file(str(path), "eval_set_id_from_cli")
        row["adk_eval_cli_load"] = {"eval_case_ids": [c.eval_id for c in cli_set.eval_cases],
                                    "eval_set_id": cli_set.eval_set_id}
    except Exception as exc:
        row["adk_eval_cli_load"] = {"error": error_text(exc)}
    if config is not None:
        cli_config = get_evaluation_criteria_or_default(str(config_path))
        row["adk_eval_cli_criteria_same"] = [metric_data(m) for m in get_eval_metrics_from_config(cli_config)] == \
            row["criteria"]

    if eval_set is None:
        return row
    offline = [metric_data(m) for m in metrics if m.metric_name in OFFLINE]
    row["skipped_metrics"] = [{"metric_name": m.metric_name, "why": "needs a judge model"}
                              for m in metrics if m.metric_name not in OFFLINE]
    row["cases"] = []
    for case in eval_set.eval_cases:
        case_json = case.model_dump(mode="json", exclude_none=True)
        entry = case_summary(case)
        entry["runs"] = []
        if case.conversation is not None:
            conversation = [invocation_json(i) for i in case.conversation]
            for kind in ("identical", "args-changed", "response-changed", "both-changed"):
                actual = conversation if kind == "identical" else variant(conversation, kind)
                run = {"variant": kind, "metrics": offline,
                       "result": run_service(case_json, actual, offline)}
                if kind != "identical":
                    run["actual"] = masked(actual, row["format"] != "evalset")
                entry["runs"].append(run)
        else:
            # A scenario case has no expected conversation; the reference-based
            # metrics are run anyway on a one-turn actual to show what ADK does.
            actual = [{"user_content": {"role": "user", "parts": [{"text": case.conversation_scenario.starting_prompt}]},
                       "final_response": {"role": "model", "parts": [{"text": "Hello! How can I help?"}]},
                       "intermediate_data": {"tool_uses": []}}]
            probe = [{"metric_name": "tool_trajectory_avg_score", "threshold": 1.0},
                     {"metric_name": "response_match_score", "threshold": 0.8}]
            entry["runs"].append({"variant": "scenario-one-turn", "actual": actual, "metrics": probe,
                                  "result": run_service(case_json, actual, probe)})
        row["cases"].append(entry)
    return row


def main():
    write_synthetic()
    files = sorted(p for p in FILES.rglob("*.json") if p.name != "test_config.json")
    # Error texts quote absolute paths; keep the vectors machine-independent.
    rows = [json.loads(json.dumps(process(p)).replace(str(REPO) + "/", "")) for p in files]
    write_jsonl(VECTORS / "adk_files.jsonl", rows)


if __name__ == "__main__":
    main()
