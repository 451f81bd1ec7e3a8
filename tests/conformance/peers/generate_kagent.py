"""kagent_agentevals/*.jsonl: what themsquared/kagent-agentevals does, as data.

    python generate_kagent.py PATH/TO/kagent-agentevals-checkout

kagent-agentevals is not on PyPI, so it is imported from a checkout (its src/)
and run against the pinned agentevals. Every test of its tests/ directory
(test_trajectory.py, test_runner.py, test_demo.py) becomes rows here (the
"source" field names the test), plus corners of our own ("source":
"kagent-evals"). Its captured sessions are byte-identical to
tests/data/kagent-captured/, which rows refer to instead of copying them; its
suites are copied to kagent_agentevals/suites/ and the
vectors go to vectors/kagent_agentevals/.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"

from _vectors import HERE, REPO, VECTORS, error_text, write_jsonl  # noqa: E402

OUT = VECTORS / "kagent_agentevals"
SUITE_COPIES = HERE / "kagent_agentevals" / "suites"
SUITE_COPIES_REL = "tests/conformance/peers/kagent_agentevals/suites"
OURS = "kagent-evals"
CAPTURED = "tests/data/kagent-captured"
# The checkout's fixture files and the repo's copies of them.
FIXTURES = {
    "tests/fixtures/github-assistant-session.jsonl": f"{CAPTURED}/github-assistant-session.jsonl",
    "demo/fixtures/weather-grounded.jsonl": f"{CAPTURED}/weather-grounded.jsonl",
    "demo/fixtures/weather-ungrounded.jsonl": f"{CAPTURED}/weather-ungrounded.jsonl",
    "demo/fixtures/weather-wrong-city.jsonl": f"{CAPTURED}/weather-wrong-city.jsonl",
}
SUITES = {
    "suites/quickstart.yaml": "quickstart.yaml",
    "suites/demo-llm-judge.yaml": "demo-llm-judge.yaml",
    "suites/live-cluster.yaml": "live-cluster.yaml",
    "demo/suite.yaml": "demo-suite.yaml",
}
T_TRAJ, T_RUN, T_DEMO = "tests/test_trajectory.py::", "tests/test_runner.py::", "tests/test_demo.py::"
FIRST_INV = "e-525e129f-064a-4b57-8c45-8e342ca6c93f"
RETRY_INV = "e-c51ee408-e4c2-4bee-91aa-feb52996931c"

checkout: Path
K = None  # the imported kagent_evals package


def load_events(repo_path: str) -> list[dict]:
    return [json.loads(line) for line in (REPO / repo_path).read_text().splitlines() if line.strip()]


def plain(value):
    """Dataclasses and OrderedDicts as plain JSON data."""
    return json.loads(json.dumps(dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value))


# ------------------------------------------------------------------ converter

def ev(author, parts, **extra):
    role = "user" if author == "user" else "model"
    return {"author": author, "content": {"role": role, "parts": parts}, **extra}


def fcall(name, args, call_id="c1"):
    return {"function_call": {"id": call_id, "name": name, "args": args}}


def fresp(name, response, call_id="c1"):
    return {"function_response": {"id": call_id, "name": name, "response": response}}


def convert_row(name, source, *, events=None, fixture=None, invocation_id=None, **options):
    from kagent_evals import trajectory as tr

    evs = copy.deepcopy(events) if events is not None else load_events(fixture)
    if invocation_id is not None:
        evs = tr.split_by_invocation(evs)[invocation_id]
    row = {"name": name, "source": source, "options": options}
    if fixture is not None:
        row["fixture"] = fixture
    else:
        row["events"] = events
    if invocation_id is not None:
        row["invocation_id"] = invocation_id
    traj = tr.event_stream_to_trajectory(copy.deepcopy(evs), **options)
    summary_options = {k: v for k, v in options.items() if k != "unwrap_tool_output"}
    summaries = tr.summarize_events(copy.deepcopy(evs), **summary_options)
    row["expected"] = {
        "trajectory": traj,
        "tool_call_names": tr.tool_call_names(traj),
        "summary": [{**plain(s), "kept": s.kept} for s in summaries],
    }
    return row


def converter_rows():
    from kagent_evals import trajectory as tr

    rows = []
    gh = FIXTURES["tests/fixtures/github-assistant-session.jsonl"]
    for fixture in FIXTURES.values():
        base = Path(fixture).stem
        rows.append(convert_row(f"{base}-defaults", T_TRAJ + "test_real_session_shape", fixture=fixture))
        rows.append(convert_row(f"{base}-keep-internal", T_TRAJ + "test_adk_internal_tools_are_dropped_by_default",
                                fixture=fixture, drop_internal_tools=False))
        rows.append(convert_row(f"{base}-no-unwrap", OURS, fixture=fixture, unwrap_tool_output=False))
        rows.append(convert_row(f"{base}-include-partial", OURS, fixture=fixture, include_partial=True))
        for inv_id in tr.split_by_invocation(load_events(fixture)):
            rows.append(convert_row(f"{base}-invocation-{inv_id or 'none'}",
                                    T_TRAJ + "test_invocation_split_matches_session", fixture=fixture,
                                    invocation_id=inv_id))
    rows.append(convert_row("github-assistant-session-deny-ask-user", T_TRAJ + "test_extra_denylist_drops_named_tool",
                            fixture=gh, extra_tool_denylist=["ask_user"]))
    rows.append(convert_row("github-assistant-session-deny-internal-kept", OURS, fixture=gh,
                            drop_internal_tools=False, extra_tool_denylist=["adk_request_confirmation"]))

    s = T_TRAJ
    rows += [
        convert_row("role-from-part-type", s + "test_role_comes_from_part_type_not_author",
                    events=[ev("user", [fcall("do_thing", {"a": 1})]), ev("user", [fresp("do_thing", {"result": "ok"})])]),
        convert_row("partial-skipped", s + "test_partial_events_are_skipped_by_default",
                    events=[ev("agent", [{"text": "par"}], partial=True), ev("agent", [{"text": "partial then final"}])]),
        convert_row("partial-kept", s + "test_partial_events_are_skipped_by_default", include_partial=True,
                    events=[ev("agent", [{"text": "par"}], partial=True), ev("agent", [{"text": "partial then final"}])]),
        convert_row("contentless-and-system", s + "test_contentless_and_system_events_are_skipped",
                    events=[{"author": "system", "invocation_id": "header_update"},
                            {"author": "agent", "content": {"role": "model", "parts": []}},
                            {"author": "agent", "content": None}, ev("user", [{"text": "hello"}])]),
        convert_row("text-and-call-merge", s + "test_text_and_calls_in_one_event_merge_into_one_message",
                    events=[ev("agent", [{"text": "let me check"}, fcall("lookup", {})])]),
        convert_row("args-sorted", s + "test_tool_args_are_json_encoded_deterministically",
                    events=[ev("agent", [fcall("t", {"b": 2, "a": 1})])]),
        convert_row("mcp-error-marked", s + "test_mcp_error_is_marked",
                    events=[ev("agent", [fresp("t", {"content": [{"type": "text", "text": "boom"}], "isError": True})])]),
        convert_row("empty-input", s + "test_empty_input_produces_empty_trajectory", events=[]),
        convert_row("state-delta-ignored", s + "test_state_delta_never_reaches_the_trajectory",
                    events=[{"author": "system", "invocation_id": "header_update",
                             # The committed vectors hold no credential, not even a made-up one.
                             "actions": {"state_delta": {"headers": {"authorization": "Bearer REDACTED"}}}},
                            ev("user", [{"text": "hello"}])]),
    ]

    text_blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    outputs = {
        "result-string": {"result": "ok"},
        "result-object": {"result": {"b": 1, "a": [1, 2]}},
        "response-key": {"response": "r"},
        "output-key": {"output": 3},
        "content-key-string": {"content": "c"},
        "result-plus-other-key": {"result": "ok", "x": 1},
        "nested-result-unwrapped-once": {"result": {"result": "x"}},
        "mcp-text-blocks": {"content": text_blocks, "isError": False},
        "mcp-without-iserror": {"content": text_blocks},
        "mcp-iserror-true": {"content": text_blocks, "isError": True},
        "mcp-iserror-truthy-string": {"content": text_blocks, "isError": "yes"},
        "mcp-structured-content-not-unwrapped": {"content": text_blocks, "isError": False,
                                                 "structuredContent": {"a": 1}},
        "mcp-empty-content": {"content": [], "isError": False},
        "mcp-empty-content-alone": {"content": []},
        "mcp-non-text-block": {"content": [{"type": "image", "data": "x"}], "isError": False},
        "mcp-mixed-blocks": {"content": [{"type": "text", "text": "a"}, {"type": "image"}]},
        "mcp-block-without-text": {"content": [{"type": "text"}]},
        "mcp-block-number-text": {"content": [{"type": "text", "text": 5}]},
        "result-of-text-blocks": {"result": text_blocks},
        "bare-text-block-list": text_blocks,
        "bare-string": "plain",
        "number": 3,
        "null": None,
        "empty-object": {},
        "list-of-numbers": [1, 2],
        "unicode": {"result": {"city": "Zürich", "t": "°"}},
        "float-and-bool": {"a": 1.0, "b": True, "c": None},
    }
    for key, value in outputs.items():
        events = [ev("agent", [fresp("t", value)])]
        rows.append(convert_row(f"tool-output-{key}", OURS, events=events))
        rows.append(convert_row(f"tool-output-{key}-no-unwrap", OURS, events=events, unwrap_tool_output=False))

    rows += [
        convert_row("call-args-null", OURS, events=[ev("agent", [fcall("t", None)])]),
        convert_row("call-args-unicode-nested", OURS,
                    events=[ev("agent", [fcall("t", {"z": {"b": 1, "a": "é"}, "a": [3, 1]})])]),
        convert_row("call-without-id", OURS, events=[ev("agent", [{"function_call": {"name": "t", "args": {}}}])]),
        convert_row("call-empty-id", OURS, events=[ev("agent", [{"function_call": {"id": "", "name": "t"}}])]),
        convert_row("call-without-name", OURS, events=[ev("agent", [{"function_call": {"id": "c", "args": {}}}])]),
        convert_row("response-without-id-or-name", OURS,
                    events=[ev("agent", [{"function_response": {"response": {"result": 1}}}])]),
        convert_row("response-internal-dropped", OURS, events=[ev("agent", [fresp("adk_x", {"result": 1})])]),
        convert_row("internal-prefix-case-sensitive", OURS, events=[ev("agent", [fcall("ADK_x", {}), fcall("adkx", {})])]),
        convert_row("call-response-call-in-one-event", OURS,
                    events=[ev("agent", [fcall("a", {}), fresp("a", "r"), fcall("b", {}, "c2")])]),
        convert_row("text-response-text-in-one-event", OURS,
                    events=[ev("agent", [{"text": "one"}, fresp("a", "r"), {"text": "two"}])]),
        convert_row("texts-joined-with-newline", OURS, events=[ev("agent", [{"text": "one"}, {"text": "two "}])]),
        convert_row("whitespace-text-skipped", OURS, events=[ev("agent", [{"text": "  \n"}, {"text": "x"}])]),
        convert_row("user-text-not-trimmed", OURS, events=[ev("user", [{"text": "  hi  "}])]),
        convert_row("user-text-flushes-buffer", OURS, events=[ev("user", [fcall("a", {}), {"text": "q"}, fcall("b", {})])]),
        convert_row("model-role-user-author-text", OURS,
                    events=[{"author": "user", "content": {"role": "model", "parts": [{"text": "from user"}]}}]),
        convert_row("agent-author-role-user-text", OURS,
                    events=[{"author": "bot", "content": {"role": "user", "parts": [{"text": "from bot"}]}}]),
        convert_row("author-missing", OURS, events=[{"content": {"parts": [{"text": "who"}]}}]),
        convert_row("thought-part-kept-as-text", OURS,
                    events=[ev("agent", [{"text": "thinking...", "thought": True}, {"text": "answer"}])]),
        convert_row("non-dict-parts-skipped", OURS, events=[ev("agent", ["str", None, 3, {"text": "ok"}])]),
        convert_row("parts-not-a-list", OURS, events=[{"author": "a", "content": {"parts": {"text": "x"}}}]),
        convert_row("content-a-string", OURS, events=[{"author": "a", "content": "text"}]),
        convert_row("partial-truthy-string", OURS, events=[ev("agent", [{"text": "x"}], partial="yes")]),
        convert_row("partial-false", OURS, events=[ev("agent", [{"text": "x"}], partial=False)]),
        convert_row("call-and-response-both-in-one-part", OURS,
                    events=[ev("agent", [{**fcall("a", {}), **fresp("a", "r")}])]),
        convert_row("text-and-call-in-one-part", OURS, events=[ev("agent", [{"text": "t", **fcall("a", {})}])]),
        convert_row("response-not-a-dict", OURS, events=[ev("agent", [{"function_response": "x", "text": "t"}])]),
        convert_row("deny-list-applies-to-responses", OURS, extra_tool_denylist=["a"],
                    events=[ev("agent", [fcall("a", {})]), ev("user", [fresp("a", "r")])]),
        convert_row("filtered-summary-names-sorted", OURS,
                    events=[ev("agent", [fcall("adk_b", {}), fcall("adk_a", {}), fcall("adk_b", {})])]),
        convert_row("summary-snippet-truncated", OURS, events=[ev("agent", [{"text": "word " * 20}])]),
        convert_row("summary-unnamed-internal", OURS, events=[ev("agent", [{"function_call": {"name": ""}}])]),
    ]
    # split_by_invocation: first-seen order, events without an id grouped under "".
    split_events = [{"invocation_id": "b"}, {"invocation_id": None}, {"invocation_id": "a"}, {"author": "x"},
                    {"invocation_id": "b"}, {"invocation_id": ""}]
    rows.append({"name": "split-by-invocation-order", "source": OURS, "events": split_events,
                 "expected": {"split": [[k, len(v)] for k, v in tr.split_by_invocation(split_events).items()]}})
    rows.append({"name": "tool-call-names-tolerates-missing-fields", "source": OURS,
                 "trajectory": [{"role": "assistant", "tool_calls": [{}, {"function": {}}, {"function": {"name": "x"}}]},
                                {"role": "assistant", "tool_calls": None}],
                 "expected": {"tool_call_names": tr.tool_call_names(
                     [{"role": "assistant", "tool_calls": [{}, {"function": {}}, {"function": {"name": "x"}}]},
                      {"role": "assistant", "tool_calls": None}])}})
    events = load_events(gh)
    summaries = tr.summarize_events(events)
    rows.append({"name": "github-assistant-session-summary-counts", "source": T_DEMO + "test_summary_explains_every_event",
                 "fixture": gh, "expected": {
                     "events": len(events), "kept": sum(1 for x in summaries if x.kept),
                     "filtered": [x.reason for x in summaries if "filtered" in x.reason],
                     "reasons": sorted({x.reason for x in summaries if not x.kept})}})
    return rows


# ---------------------------------------------------------------------- runner

class StubSource:
    """The tests' stand-in source: "missing" has no events, "boom" raises."""

    def __init__(self, events):
        self._events = events

    def list_sessions(self):
        return []

    def events(self, session_id):
        if session_id == "missing":
            return []
        if session_id == "boom":
            raise RuntimeError("connection refused")
        return copy.deepcopy(self._events)


def case_result(result):
    data = plain(result)
    data["passed"] = result.passed
    return data


def runner_rows():
    from kagent_evals.runner import _reference_from_tool_names, _score_passed, run_case
    from kagent_evals.suite import Case, EvaluatorSpec

    gh = FIXTURES["tests/fixtures/github-assistant-session.jsonl"]
    rows = []

    def run(name, source, case, session):
        events = load_events(session["fixture"]) if "fixture" in session else session.get("events", [])
        result = run_case(case, StubSource(events))
        rows.append({"kind": "run_case", "name": name, "source": source, "case": plain(case),
                     "session": session, "session_id_behaviour": "missing -> no events; boom -> raises",
                     "result": case_result(result)})

    def tu(mode, expected, **kw):
        return EvaluatorSpec(type="tools_used", mode=mode, expected=expected, **kw)

    s, f = T_RUN, {"fixture": gh}
    run("tools-used-superset-passes", s + "test_tools_used_superset_passes_when_tool_was_called",
        Case("t", "s", evaluators=[tu("superset", ["search_users"])]), f)
    run("tools-used-superset-fails", s + "test_tools_used_superset_fails_for_uncalled_tool",
        Case("t", "s", evaluators=[tu("superset", ["delete_repo"])]), f)
    run("tools-used-subset-catches-extra", s + "test_tools_used_subset_catches_an_unexpected_tool",
        Case("t", "s", evaluators=[tu("subset", ["search_users"])]), f)
    run("invocation-scoping", s + "test_invocation_scoping_narrows_the_trajectory",
        Case("t", "s", invocation_id=RETRY_INV, evaluators=[tu("subset", ["search_users"])]), f)
    run("unknown-invocation", s + "test_unknown_invocation_reports_available_ids",
        Case("t", "s", invocation_id="nope", evaluators=[tu("superset", ["x"])]), f)
    run("load-failure", s + "test_load_failure_is_reported_not_raised",
        Case("t", "boom", evaluators=[tu("superset", ["x"])]), f)
    run("empty-session", s + "test_empty_session_is_reported",
        Case("t", "missing", evaluators=[tu("superset", ["x"])]), f)
    run("evaluator-construction-failure", s + "test_evaluator_construction_failure_is_captured_per_evaluator",
        Case("t", "s", evaluators=[tu("superset", ["search_users"]),
                                   EvaluatorSpec(type="llm_judge", model="not-a-real-provider:nope")]), f)
    # Corners of our own.
    run("tools-used-unordered", OURS, Case("t", "s", evaluators=[tu("unordered", ["ask_user", "search_users"])]), f)
    run("tools-used-duplicate-expected", OURS, Case("t", "s", evaluators=[tu("superset", ["search_users", "search_users"])]), f)
    run("tools-used-args-mode-forced-ignore", OURS,
        Case("t", "s", evaluators=[tu("superset", ["search_users"], tool_args_match_mode="exact")]), f)
    run("tools-used-keep-internal", OURS,
        Case("t", "s", drop_internal_tools=False, evaluators=[tu("subset", ["ask_user", "search_users"])]), f)
    run("tools-used-deny-list", OURS,
        Case("t", "s", extra_tool_denylist=["ask_user"], evaluators=[tu("subset", ["search_users"])]), f)
    run("everything-filtered", OURS,
        Case("t", "s", extra_tool_denylist=["a"], evaluators=[tu("superset", ["a"])]),
        {"events": [{"author": "x", "content": {"parts": [{"function_call": {"name": "a"}}]}}, {"author": "x"}]})
    run("header-only-invocation", OURS,
        Case("t", "s", invocation_id="header_update", evaluators=[tu("superset", ["x"])]), f)
    run("no-evaluators", OURS, Case("t", "s", evaluators=[]), f)
    ref = [{"role": "user", "content": "Try again"},
           {"role": "assistant", "content": "", "tool_calls": [
               {"type": "function", "function": {"name": "search_users", "arguments": '{"query": "themsquared"}'}}]},
           {"role": "tool", "content": "(x)"}, {"role": "assistant", "content": "(y)"}]
    tm = lambda mode, args="exact", reference=ref: EvaluatorSpec(  # noqa: E731
        type="trajectory_match", mode=mode, tool_args_match_mode=args, reference=reference)
    for mode in ("strict", "unordered", "subset", "superset"):
        run(f"trajectory-match-retry-{mode}", OURS, Case("t", "s", invocation_id=RETRY_INV, evaluators=[tm(mode)]), f)
        run(f"trajectory-match-whole-session-{mode}", OURS, Case("t", "s", evaluators=[tm(mode)]), f)
    run("trajectory-match-empty-reference-at-runtime", OURS,
        Case("t", "s", evaluators=[tm("superset", reference=[])]), f)
    run("trajectory-match-bad-reference-arguments", OURS,
        Case("t", "s", evaluators=[tm("superset", reference=[{"role": "assistant", "tool_calls": [
            {"function": {"name": "search_users", "arguments": "{bad"}}]}])]), f)
    run("continuous-score-threshold-unused-for-bool", OURS,
        Case("t", "s", evaluators=[tu("superset", ["search_users"], threshold=2.0)]), f)

    for score, threshold in [(0.8, None), (0.4, None), (0.8, 0.9), (True, None), (False, 0.1), (0.5, None),
                             (0.49, None), (1, None), (0, None), (0, 0), (None, None), ("yes", None), ("", None),
                             (0.7, 0.7), (True, 2.0)]:
        rows.append({"kind": "score_passed", "name": f"score-passed-{score!r}-{threshold!r}",
                     "source": s + "test_continuous_score_uses_threshold" if (score, threshold) in
                     [(0.8, None), (0.4, None), (0.8, 0.9), (True, None), (False, 0.1)] else OURS,
                     "score": score, "threshold": threshold, "passed": _score_passed(score, threshold)})
    rows.append({"kind": "reference_from_tool_names", "name": "reference-synthesis",
                 "source": s + "test_reference_synthesis_produces_one_call_per_name",
                 "names": ["a", "b"], "reference": _reference_from_tool_names(["a", "b"])})
    rows.append({"kind": "reference_from_tool_names", "name": "reference-synthesis-empty", "source": OURS,
                 "names": [], "reference": _reference_from_tool_names([])})
    return rows


# ----------------------------------------------------------------------- suites

SUITE_BODIES = {
    "rejects-trajectory-match-without-reference": (T_RUN + "test_suite_rejects_trajectory_match_without_reference", """
name: s
cases:
  - name: c
    session_id: abc
    evaluators:
      - type: trajectory_match
        mode: strict
"""),
    "rejects-tools-used-strict": (T_RUN + "test_suite_rejects_tools_used_with_strict_mode", """
name: s
cases:
  - name: c
    session_id: abc
    evaluators:
      - type: tools_used
        mode: strict
        expected: [a]
"""),
    "rejects-unknown-evaluator-type": (T_RUN + "test_suite_rejects_unknown_evaluator_type", """
name: s
cases:
  - name: c
    session_id: abc
    evaluators:
      - type: vibes
"""),
    "requires-session-id": (T_RUN + "test_suite_requires_session_id", """
name: s
cases:
  - name: c
    evaluators:
      - type: tools_used
        expected: [a]
"""),
    "judge-model-from-defaults": (T_RUN + "test_judge_model_falls_back_to_defaults", """
name: s
defaults:
  judge_model: anthropic:claude-sonnet-5
cases:
  - name: c
    session_id: abc
    evaluators:
      - type: llm_judge
"""),
    "empty-file": (OURS, ""),
    "top-level-list": (OURS, "- a\n- b\n"),
    "no-cases": (OURS, "name: s\n"),
    "cases-empty": (OURS, "name: s\ncases: []\n"),
    "cases-not-a-list": (OURS, "name: s\ncases: {a: 1}\n"),
    "case-not-a-mapping": (OURS, "name: s\ncases: [x]\n"),
    "defaults-not-a-mapping": (OURS, "defaults: [1]\ncases: [{session_id: a, evaluators: [{type: tools_used, expected: [a]}]}]\n"),
    "no-evaluators": (OURS, "cases: [{session_id: a}]\n"),
    "evaluator-not-a-mapping": (OURS, "cases: [{session_id: a, evaluators: [tools_used]}]\n"),
    "evaluator-type-missing": (OURS, "cases: [{session_id: a, evaluators: [{mode: superset}]}]\n"),
    "names-defaulted": (OURS, "cases:\n  - session_id: a\n    evaluators: [{type: tools_used, expected: [x]}]\n"),
    "defaults-applied": (OURS, """
name: d
defaults:
  tool_args_match_mode: ignore
  drop_internal_tools: false
  extra_tool_denylist: [ask_user]
  judge_model: openai:gpt-x
cases:
  - name: inherits
    session_id: s1
    evaluators:
      - type: trajectory_match
        reference: [{role: user, content: hi}]
      - type: tools_used
        expected: [a]
      - type: llm_judge
  - name: overrides
    session_id: s1
    drop_internal_tools: true
    extra_tool_denylist: []
    evaluators:
      - type: trajectory_match
        tool_args_match_mode: superset
        mode: unordered
        reference: [{role: user, content: hi}]
      - type: llm_judge
        model: provider:judge-model
        continuous: true
        threshold: 0.7
        prompt: "grade {outputs}"
        reference: [{role: user, content: hi}]
"""),
    "tools-used-unordered-and-subset": (OURS, """
cases:
  - session_id: s
    evaluators:
      - {type: tools_used, mode: unordered, expected: [a]}
      - {type: tools_used, mode: subset, expected: [a, b], tool_args_match_mode: exact}
"""),
    "tools-used-empty-expected": (OURS, "cases: [{session_id: s, evaluators: [{type: tools_used, expected: []}]}]\n"),
    "tools-used-expected-a-string": (OURS, "cases: [{session_id: s, evaluators: [{type: tools_used, expected: abc}]}]\n"),
    "bad-mode": (OURS, "cases: [{session_id: s, evaluators: [{type: trajectory_match, mode: fuzzy, reference: [{role: user}]}]}]\n"),
    "bad-args-mode": (OURS, "cases: [{session_id: s, evaluators: [{type: trajectory_match, tool_args_match_mode: fuzzy, reference: [{role: user}]}]}]\n"),
    "bad-args-mode-from-defaults": (OURS, "defaults: {tool_args_match_mode: fuzzy}\ncases: [{session_id: s, evaluators: [{type: tools_used, expected: [a]}]}]\n"),
    "llm-judge-without-model": (OURS, "cases: [{session_id: s, evaluators: [{type: llm_judge}]}]\n"),
    "llm-judge-bad-mode-not-checked": (OURS, "cases: [{session_id: s, evaluators: [{type: llm_judge, model: m, mode: fuzzy}]}]\n"),
    "session-id-number": (OURS, "cases: [{session_id: 42, invocation_id: 7, evaluators: [{type: tools_used, expected: [a]}]}]\n"),
    "session-id-empty-string": (OURS, "cases: [{session_id: '', evaluators: [{type: tools_used, expected: [a]}]}]\n"),
    "truthy-strings": (OURS, "cases: [{session_id: s, drop_internal_tools: 'no', evaluators: [{type: llm_judge, model: m, continuous: 'false', threshold: '0.7'}]}]\n"),
    "reference-a-mapping": (OURS, "cases: [{session_id: s, evaluators: [{type: trajectory_match, reference: {messages: [{role: user}]}}]}]\n"),
    "unknown-keys-ignored": (OURS, "name: u\nversion: 2\ncases: [{session_id: s, weight: 3, evaluators: [{type: tools_used, expected: [a], args: {x: 1}}]}]\n"),
    "source-block-kept-raw": (OURS, "source: {kind: fixture, path: a/b.jsonl, extra: 1}\ncases: [{session_id: s, evaluators: [{type: tools_used, expected: [a]}]}]\n"),
    "name-null-falls-back-to-stem": (OURS, "name: null\ncases: [{name: '', session_id: s, evaluators: [{type: tools_used, expected: [a]}]}]\n"),
}


def suite_data(suite, where: Path):
    data = plain(dataclasses.replace(suite, path=None))
    data["path"] = str(suite.path).replace(str(where), "<dir>") if suite.path else None
    return data


def suite_rows():
    from kagent_evals.suite import load_suite

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (source, body) in SUITE_BODIES.items():
            path = Path(tmp) / "s.yaml"
            path.write_text(body)
            row = {"name": name, "source": source, "yaml": body}
            try:
                row["result"] = suite_data(load_suite(path), Path(tmp))
            except Exception as exc:
                row["result"] = {"error": error_text(exc).replace(str(path), "<path>")}
            rows.append(row)
    for rel, copy_name in SUITES.items():
        row = {"name": f"repo-suite-{copy_name}", "source": rel, "suite_file": f"{SUITE_COPIES_REL}/{copy_name}"}
        row["result"] = suite_data(load_suite(checkout / rel), checkout)
        row["result"]["path"] = rel
        rows.append(row)
    return rows


# ---------------------------------------------------------------- suite runs

def run_rows():
    from kagent_evals.report import exit_code, render_json, render_junit, render_table
    from kagent_evals.runner import run_suite
    from kagent_evals.sources import build_source
    from kagent_evals.suite import load_suite

    rows = []
    plan = [
        ("quickstart", "suites/quickstart.yaml", "tests/fixtures/github-assistant-session.jsonl",
         T_RUN + "test_fixture_source_round_trips_the_quickstart_suite"),
        ("demo-grounded", "demo/suite.yaml", "demo/fixtures/weather-grounded.jsonl",
         T_DEMO + "test_grounded_session_passes_every_case"),
        ("demo-ungrounded", "demo/suite.yaml", "demo/fixtures/weather-ungrounded.jsonl",
         T_DEMO + "test_ungrounded_session_is_caught"),
        ("demo-wrong-city", "demo/suite.yaml", "demo/fixtures/weather-wrong-city.jsonl",
         T_DEMO + "test_wrong_city_is_caught_only_by_the_strict_case"),
        ("live-cluster-on-github-fixture", "suites/live-cluster.yaml", "tests/fixtures/github-assistant-session.jsonl", OURS),
        ("live-cluster-on-weather-fixture", "suites/live-cluster.yaml", "demo/fixtures/weather-grounded.jsonl", OURS),
        ("demo-suite-on-github-fixture", "demo/suite.yaml", "tests/fixtures/github-assistant-session.jsonl", OURS),
    ]
    for name, suite_rel, fixture_rel, source in plan:
        suite = load_suite(checkout / suite_rel)
        results = run_suite(suite, build_source({"kind": "fixture", "path": str(checkout / fixture_rel)}))
        rows.append({
            "name": name, "source": source, "suite_file": f"{SUITE_COPIES_REL}/{SUITES[suite_rel]}",
            "fixture": FIXTURES[fixture_rel],
            "results": [case_result(r) for r in results],
            "exit_code": exit_code(results),
            "render_json": json.loads(render_json(results, show_trajectory=True)),
            "render_table": render_table(results),
            "render_junit": render_junit(results, suite_name=suite.name),
        })
    return rows


# ---------------------------------------------------------------------- sources

@contextlib.contextmanager
def environment(cwd=None, **env):
    old_cwd, old_env = os.getcwd(), dict(os.environ)
    for key in ("KAGENT_EVALS_SOURCE", "KAGENT_EVALS_FIXTURE", "KAGENT_DB_DSN", "KAGENT_URL", "KAGENT_USER_ID",
                "KAGENT_TOKEN", "KAGENT_NAMESPACE", "KAGENT_DB_PASSWORD", "KAGENT_CONTEXT"):
        os.environ.pop(key, None)
    os.environ.update(env)
    os.environ["PATH"] = "/nonexistent"  # no kubectl, whatever the machine has
    if cwd:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(old_env)


def source_view(source):
    view = {"class": type(source).__name__}
    for attr in ("path", "namespace", "workload", "user", "database", "password", "context", "dsn",
                 "base_url", "user_id", "token", "timeout"):
        if hasattr(source, attr):
            value = getattr(source, attr)
            view[attr] = str(value) if isinstance(value, Path) else value
    return view


def source_rows():
    from kagent_evals import sources

    rows = []
    gh_rel = "tests/fixtures/github-assistant-session.jsonl"
    probes = [
        ("fixture-relative-path-from-checkout", {"kind": "fixture", "path": gh_rel}, "checkout", {}),
        ("fixture-relative-path-elsewhere", {"kind": "fixture", "path": gh_rel}, "elsewhere", {}),
        ("fixture-missing-path", {"kind": "fixture"}, "checkout", {}),
        ("fixture-path-from-env", {"kind": "fixture"}, "checkout", {"KAGENT_EVALS_FIXTURE": gh_rel}),
        ("fixture-kind-from-env", {"path": gh_rel}, "checkout", {"KAGENT_EVALS_SOURCE": "fixture"}),
        ("fixture-not-found", {"kind": "fixture", "path": "nope.jsonl"}, "checkout", {}),
        ("default-kind-is-kubectl", {}, "checkout", {}),
        ("kind-null-is-default", {"kind": None}, "checkout", {}),
        ("postgres-without-dsn", {"kind": "postgres"}, "checkout", {}),
        ("postgres-with-dsn", {"kind": "postgres", "dsn": "postgres://x"}, "checkout", {}),
        ("api-without-base-url", {"kind": "api"}, "checkout", {}),
        ("api-defaults", {"kind": "api", "base_url": "http://kagent:8083/"}, "checkout", {}),
        ("api-from-env", {"kind": "api"}, "checkout", {"KAGENT_URL": "http://k", "KAGENT_USER_ID": "u",
                                                       "KAGENT_TOKEN": "t"}),
        ("unknown-kind", {"kind": "s3"}, "checkout", {}),
    ]
    for name, spec, where, env in probes:
        cwd = checkout if where == "checkout" else Path(tempfile.gettempdir())
        row = {"kind": "build_source", "name": name, "source": OURS, "spec": spec, "cwd": where, "env": env}
        with environment(cwd, **env):
            try:
                built = sources.build_source(copy.deepcopy(spec))
                row["result"] = source_view(built)
                if isinstance(built, sources.FixtureSource):
                    row["result"]["list_sessions"] = [plain(s) for s in built.list_sessions()]
                    row["result"]["events_ignores_session_id"] = built.events("anything") == built.events("fixture")
            except Exception as exc:
                row["result"] = {"error": error_text(exc)}
        rows.append(row)

    # ApiSource.events on canned responses of GET /api/sessions/{id}.
    payloads = {
        "data-as-string": {"error": False, "data": {"events": [{"id": "1", "data": '{"author": "a"}'}]}},
        "data-as-object": {"error": False, "data": {"events": [{"id": "1", "data": {"author": "a"}}]}},
        "data-not-an-object": {"error": False, "data": {"events": [{"id": "1", "data": "[1]"}, {"id": "2", "data": 5}]}},
        "bare-events": {"error": False, "data": {"events": ['{"author": "a"}', {"author": "b"}]}},
        "unwrapped-payload": {"events": [{"data": {"author": "a"}}]},
        "no-events": {"error": False, "data": {"session": {}}},
        "data-a-list": {"error": False, "data": []},
        "api-error": {"error": True, "message": "session not found", "data": None},
    }
    for name, body in payloads.items():
        source = sources.ApiSource("http://k")
        raw = json.dumps(body)
        # The same unwrapping _get does, on a canned body instead of the network.
        def canned(path, params, raw=raw):
            parsed = json.loads(raw)
            if isinstance(parsed, dict) and parsed.get("error"):
                raise RuntimeError(f"kagent API error: {parsed.get('message')}")
            return parsed.get("data", parsed) if isinstance(parsed, dict) else parsed
        source._get = canned
        row = {"kind": "api_events", "name": f"api-{name}", "source": OURS, "response": body}
        try:
            row["result"] = {"events": source.events("s")}
        except Exception as exc:
            row["result"] = {"error": error_text(exc)}
        rows.append(row)

    # FixtureSource line parsing: blank lines skipped, a bad line is an error.
    for name, text in {"blank-lines": '\n{"a": 1}\n   \n{"b": 2}\n\n', "bad-line": '{"a": 1}\nnot json\n',
                       "empty": "", "crlf": '{"a": 1}\r\n{"b": 2}\r\n'}.items():
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write(text)
        row = {"kind": "fixture_lines", "name": f"fixture-{name}", "source": OURS, "text": text}
        try:
            row["result"] = {"events": sources.FixtureSource(f.name).events("x")}
        except Exception as exc:
            row["result"] = {"error": error_text(exc)}
        os.unlink(f.name)
        rows.append(row)
    rows.append({"kind": "sql", "name": "postgres-and-kubectl-queries", "source": OURS,
                 "events_sql": sources._EVENTS_SQL, "sessions_sql": sources._SESSIONS_SQL})
    return rows


# -------------------------------------------------------------------------- CLI

def cli_rows():
    rows = []
    gh = "tests/fixtures/github-assistant-session.jsonl"
    runs = [
        ("run-quickstart-table", ["run", "suites/quickstart.yaml"]),
        ("run-quickstart-json", ["run", "suites/quickstart.yaml", "--format", "json"]),
        ("run-quickstart-junit", ["run", "suites/quickstart.yaml", "--format", "junit"]),
        ("run-quickstart-show-trajectory", ["run", "suites/quickstart.yaml", "--show-trajectory"]),
        ("run-demo-grounded", ["run", "demo/suite.yaml", "--fixture", "demo/fixtures/weather-grounded.jsonl"]),
        ("run-demo-ungrounded", ["run", "demo/suite.yaml", "--fixture", "demo/fixtures/weather-ungrounded.jsonl"]),
        ("run-demo-wrong-city", ["run", "demo/suite.yaml", "--fixture", "demo/fixtures/weather-wrong-city.jsonl"]),
        ("run-missing-fixture", ["run", "demo/suite.yaml", "--fixture", "nope.jsonl"]),
        ("run-missing-suite", ["run", "nope.yaml"]),
        ("run-kubectl-unavailable", ["run", "suites/live-cluster.yaml"]),
        ("extract-default", ["extract", "--fixture", gh, "any"]),
        ("extract-invocation", ["extract", "--fixture", gh, "any", "--invocation-id", RETRY_INV]),
        ("extract-unknown-invocation", ["extract", "--fixture", gh, "any", "--invocation-id", "nope"]),
        ("extract-list-invocations", ["extract", "--fixture", gh, "any", "--list-invocations"]),
        ("extract-summary", ["extract", "--fixture", gh, "any", "--summary"]),
        ("extract-summary-include-internal", ["extract", "--fixture", gh, "any", "--summary", "--include-internal"]),
        ("extract-summary-drop-tool", ["extract", "--fixture", gh, "any", "--summary", "--drop-tool", "ask_user"]),
        ("extract-summary-weather", ["extract", "--fixture", "demo/fixtures/weather-grounded.jsonl", "x", "--summary"]),
        ("sessions-fixture", ["sessions", "--fixture", gh]),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAGENT_")}
    env.update(PYTHONPATH=str(checkout / "src"), PATH=str(Path(sys.executable).parent), PYTHONIOENCODING="utf-8")
    for name, argv in runs:
        done = subprocess.run([sys.executable, "-m", "kagent_evals.cli", *argv], cwd=checkout, env=env,
                              capture_output=True, text=True, timeout=300)
        rows.append({"name": name, "source": OURS, "argv": argv, "cwd": "checkout", "exit_code": done.returncode,
                     "stdout": done.stdout, "stderr": done.stderr})
    return rows


def main():
    global checkout
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    checkout = Path(sys.argv[1]).resolve()
    for theirs, ours in FIXTURES.items():
        a, b = (checkout / theirs).read_bytes(), (REPO / ours).read_bytes()
        if hashlib.sha256(a).digest() != hashlib.sha256(b).digest():
            raise SystemExit(f"{theirs} differs from {ours}: refresh the repo's copy first")
    sys.path.insert(0, str(checkout / "src"))
    import kagent_evals  # noqa: F401

    assert str(checkout) in kagent_evals.__file__
    SUITE_COPIES.mkdir(parents=True, exist_ok=True)
    for rel, name in SUITES.items():
        shutil.copyfile(checkout / rel, SUITE_COPIES / name)
    write_jsonl(OUT / "converter.jsonl", converter_rows())
    write_jsonl(OUT / "runner.jsonl", runner_rows())
    write_jsonl(OUT / "suites.jsonl", suite_rows())
    write_jsonl(OUT / "suite_runs.jsonl", run_rows())
    write_jsonl(OUT / "sources.jsonl", source_rows())
    write_jsonl(OUT / "cli.jsonl", cli_rows())


if __name__ == "__main__":
    main()
