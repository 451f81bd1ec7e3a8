"""agentevals_tests.jsonl: agentevals' own trajectory-match tests, as data.

    python generate_agentevals.py PATH/TO/agentevals-checkout

Runs the checkout's python/tests/test_trajectory.py and test_trajectory_async.py
with pytest against the pinned agentevals from PyPI, while a recorder wraps
create_(async_)trajectory_match_evaluator: every evaluator a test builds and
every call it makes is written out as one row (the factory's arguments, the
outputs and reference_outputs it was given, and what agentevals returned),
with the pytest outcome of the test it came from. The LLM-judge tests are not
run. Overrides that are Python callables cannot be data: such rows are kept
with a "skip" reason and the callable replaced by "<callable>".
"""

from __future__ import annotations

import asyncio
import copy
import os
import sys
from pathlib import Path

os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
os.environ["LANGSMITH_TEST_TRACKING"] = "false"

import pytest  # noqa: E402
from langchain_core.messages import BaseMessage  # noqa: E402

import agentevals.trajectory.match as match  # noqa: E402
from agentevals.trajectory.utils import _normalize_to_openai_messages_list  # noqa: E402
from _vectors import VECTORS, error_text, write_jsonl  # noqa: E402

TEST_FILES = ["python/tests/test_trajectory.py", "python/tests/test_trajectory_async.py"]

rows: list[dict] = []
current = {"nodeid": None, "calls": 0}
outcomes: dict[str, str] = {}


def as_data(messages):
    """The messages as JSON data, and which form the test passed them in."""
    if isinstance(messages, list) and any(isinstance(m, BaseMessage) for m in messages):
        # LangChain objects: record what agentevals turns them into.
        return _normalize_to_openai_messages_list(copy.deepcopy(messages)), "langchain"
    if isinstance(messages, dict) and "messages" in messages:
        return copy.deepcopy(messages), "dict-with-messages"
    return copy.deepcopy(messages), "openai"


def overrides_as_data(overrides):
    if overrides is None:
        return None, None
    data, callables = {}, []
    for tool, value in overrides.items():
        if callable(value):
            data[tool] = "<callable>"
            callables.append(tool)
        else:
            data[tool] = copy.deepcopy(value)
    skip = None
    if callables:
        skip = f"tool_args_match_overrides for {', '.join(callables)} is a Python callable"
    return data, skip


def record(factory_kwargs, call_kwargs, result, variant):
    current["calls"] += 1
    outputs, outputs_kind = as_data(call_kwargs.get("outputs"))
    reference, reference_kind = as_data(call_kwargs.get("reference_outputs"))
    overrides, skip = overrides_as_data(factory_kwargs.get("tool_args_match_overrides"))
    row = {
        "name": f"{current['nodeid']}#{current['calls']}",
        "test": current["nodeid"],
        "variant": variant,
        "trajectory_match_mode": factory_kwargs.get("trajectory_match_mode", "strict"),
        "tool_args_match_mode": factory_kwargs.get("tool_args_match_mode", "exact"),
        "tool_args_match_overrides": overrides,
        "outputs": outputs,
        "outputs_kind": outputs_kind,
        "reference_outputs": reference,
        "reference_outputs_kind": reference_kind,
        "result": result,
    }
    if skip:
        row["skip"] = skip
    rows.append(row)


def result_data(raw):
    return {"key": raw["key"], "score": raw["score"], "comment": raw.get("comment"),
            "metadata": raw.get("metadata")}


real_sync = match.create_trajectory_match_evaluator
real_async = match.create_async_trajectory_match_evaluator


def recording_sync(**factory_kwargs):
    evaluator = real_sync(**factory_kwargs)

    def wrapped(**call_kwargs):
        kept = copy.deepcopy({k: v for k, v in call_kwargs.items() if k != "inputs"})
        try:
            raw = evaluator(**call_kwargs)
        except Exception as exc:
            record(factory_kwargs, kept, {"error": error_text(exc)}, "sync")
            raise
        record(factory_kwargs, kept, result_data(raw), "sync")
        return raw

    return wrapped


def recording_async(**factory_kwargs):
    evaluator = real_async(**factory_kwargs)

    async def wrapped(**call_kwargs):
        kept = copy.deepcopy({k: v for k, v in call_kwargs.items() if k != "inputs"})
        try:
            raw = await evaluator(**call_kwargs)
        except Exception as exc:
            record(factory_kwargs, kept, {"error": error_text(exc)}, "async")
            raise
        record(factory_kwargs, kept, result_data(raw), "async")
        return raw

    return wrapped


match.create_trajectory_match_evaluator = recording_sync
match.create_async_trajectory_match_evaluator = recording_async


class Recorder:
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        current["nodeid"], current["calls"] = item.nodeid, 0
        yield
        current["nodeid"] = None

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            outcomes[report.nodeid] = report.outcome


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    checkout = Path(sys.argv[1]).resolve()
    code = pytest.main(
        ["-q", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning",
         *[str(checkout / t) for t in TEST_FILES]],
        plugins=[Recorder()],
    )
    # The checkout's own agentevals sources must not have shadowed the pin.
    assert "site-packages" in match.__file__, match.__file__
    for row in rows:
        row["test_outcome"] = outcomes.get(row["test"], "unknown")
    write_jsonl(VECTORS / "agentevals_tests.jsonl", rows)
    if code not in (0, pytest.ExitCode.OK):
        raise SystemExit(f"agentevals' tests did not all pass (pytest exit {code})")


if __name__ == "__main__":
    main()
