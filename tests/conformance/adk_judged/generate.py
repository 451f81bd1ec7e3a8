"""Write conformance vectors for ADK's judged metrics by running ADK itself.

    tests/conformance/adk_judged/generate.sh   # makes its own venv, then runs this

The judge is scripted: a model class registered under the name
`scripted-judge` answers every judge call from a per-run script, so ADK's own
evaluators, LocalEvalService and AgentEvaluator's case verdict run unchanged,
with no network and no key. Each row keeps what a reimplementation needs to
recompute ADK's numbers without Python: the eval config, the expected and
actual invocations (ADK JSON), the judge answers in the order ADK consumed
them (with the identity of the prompt each answered, never its text), what
ADK parsed from each answer, and ADK's per-invocation, per-run and per-case
results. SEMANTICS.md beside this file states the rules the rows exercise.

The generator is seeded; a rerun with the same pinned packages writes the
same files.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import itertools
import json
import logging
import re
import statistics
import sys
import warnings
from fractions import Fraction
from pathlib import Path
import random

warnings.filterwarnings("ignore")
# ADK logs every unparseable answer and every failed sample; the rows record
# those outcomes, so the log lines are noise here.
logging.disable(logging.CRITICAL)

from google.adk.agents import Agent  # noqa: E402
from google.adk.evaluation import hallucinations_v1  # noqa: E402
from google.adk.evaluation.agent_evaluator import AgentEvaluator  # noqa: E402
from google.adk.evaluation.base_eval_service import (  # noqa: E402
    EvaluateConfig,
    EvaluateRequest,
    InferenceResult,
    InferenceStatus,
)
from google.adk.evaluation.eval_case import EvalCase, Invocation  # noqa: E402
from google.adk.evaluation.eval_config import (  # noqa: E402
    EvalConfig,
    get_eval_metrics_from_config,
)
from google.adk.evaluation.final_response_match_v2 import (  # noqa: E402
    FinalResponseMatchV2Evaluator,
    _parse_critique,
)
from google.adk.evaluation.hallucinations_v1 import HallucinationsV1Evaluator  # noqa: E402
from google.adk.evaluation.in_memory_eval_sets_manager import (  # noqa: E402
    InMemoryEvalSetsManager,
)
from google.adk.evaluation.llm_as_judge_utils import get_text_from_content  # noqa: E402
from google.adk.evaluation.local_eval_service import LocalEvalService  # noqa: E402
from google.adk.evaluation.rubric_based_evaluator import RubricBasedEvaluator  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.models.registry import LLMRegistry  # noqa: E402
from google.genai import types as genai_types  # noqa: E402

OUT = Path(__file__).resolve().parent / "vectors"
JUDGE_MODEL = "scripted-judge"
RUBRIC_FR = "rubric_based_final_response_quality_v1"
RUBRIC_TU = "rubric_based_tool_use_quality_v1"
HALLU = "hallucinations_v1"
FRM = "final_response_match_v2"
rng = random.Random(20261203)


def write(name: str, rows: list[dict]) -> None:
    OUT.mkdir(exist_ok=True)
    with open(OUT / name, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{name}: {len(rows)} vectors", file=sys.stderr)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------ scripted judge


class ScriptedJudgeError(RuntimeError):
    """What the scripted judge raises for an answer scripted as an error."""


class RunScript:
    """The judge answers for one run of one case, and the log of their use.

    Rubric and final_response_match_v2 answers are listed per invocation, one
    per sample; ADK asks invocation by invocation, sample by sample (its
    default parallelism_limit of 1 keeps that order). Hallucination answers
    are listed per step (one NL response) as a segmenter answer and a
    validator answer; the validator is asked only when the segmenter yielded
    sentences, so it is looked up lazily.
    """

    def __init__(self, metric: str, plan: list, needles: list, steps: list):
        self.metric = metric
        self.calls: list[dict] = []
        self.steps: list[dict] = []  # hallucination steps as ADK scored them
        self.planned_steps = [list(s) for s in steps]
        if metric == HALLU:
            self.pending = [
                {"invocation": i, "step": s, **step}
                for i, inv_steps in enumerate(plan)
                for s, step in enumerate(inv_steps)
            ]
        else:
            self.pending = [
                {"invocation": i, "sample": k, "answer": a, "needle": needles[i]}
                for i, answers in enumerate(plan)
                for k, a in enumerate(answers)
            ]
        self.step = None
        # ADK catches what the judge raises, so a scripting fault is kept here
        # and raised by finish() instead of passing for a judge error.
        self.faults: list[str] = []

    @property
    def last(self) -> dict:
        return self.calls[-1]

    def take(self, prompt: str, temperature) -> dict:
        try:
            return self._take(prompt, temperature)
        except AssertionError as e:
            self.faults.append(str(e))
            raise

    def _take(self, prompt: str, temperature) -> dict:
        if self.metric == HALLU:
            if prompt.startswith(_SEGMENTER_HEAD):
                if not self.pending:
                    raise AssertionError("segmenter asked past the script")
                self.step = self.pending.pop(0)
                if self.step["nl_response"] not in prompt:
                    raise AssertionError("segmenter asked about an unplanned response")
                call = {"kind": "segmenter", "answer": self.step["segmenter"]}
            elif prompt.startswith(_VALIDATOR_HEAD):
                if self.step is None or self.step.get("validated"):
                    raise AssertionError("validator asked without a segmenter")
                self.step["validated"] = True
                call = {"kind": "validator", "answer": self.step["validator"]}
            else:
                raise AssertionError("unknown hallucination prompt")
            call.update(invocation=self.step["invocation"], step=self.step["step"])
        else:
            if not self.pending:
                raise AssertionError("judge asked past the script")
            planned = self.pending.pop(0)
            if planned["needle"] not in prompt:
                raise AssertionError("judge asked about an unplanned invocation")
            kind = "frm_judge" if self.metric == FRM else "rubric_judge"
            call = {
                "kind": kind,
                "invocation": planned["invocation"],
                "sample": planned["sample"],
                "answer": planned["answer"],
            }
        call["prompt_sha256"] = sha256(prompt)
        call["temperature"] = temperature
        call["parse"] = None  # replaced by what ADK parsed, if it parsed anything
        self.calls.append(call)
        return call["answer"]

    def finish(self) -> None:
        if self.faults:
            raise AssertionError(f"scripting faults: {self.faults}")
        if self.metric != HALLU and self.pending:
            raise AssertionError(f"{len(self.pending)} scripted answers unused")
        if self.metric == HALLU and (self.pending or self.planned_steps):
            raise AssertionError("scripted steps unused")


SCRIPT: RunScript | None = None
# The two hallucination prompts share their opening; they are told apart by
# their first 200 characters.
_SEGMENTER_HEAD = hallucinations_v1._HALLUCINATIONS_V1_SEGMENTER_PROMPT[:200]
_VALIDATOR_HEAD = hallucinations_v1._HALLUCINATIONS_V1_VALIDATOR_PROMPT[:200]
assert _SEGMENTER_HEAD != _VALIDATOR_HEAD


class ScriptedJudge(BaseLlm):
    """A judge model answering from SCRIPT: text, an error, or nothing."""

    @classmethod
    def supported_models(cls) -> list[str]:
        return [re.escape(JUDGE_MODEL)]

    async def generate_content_async(self, llm_request, stream: bool = False):
        prompt = "".join(
            part.text or ""
            for content in llm_request.contents
            for part in content.parts or []
        )
        temperature = llm_request.config.temperature if llm_request.config else None
        answer = SCRIPT.take(prompt, temperature)
        if "error" in answer:
            raise ScriptedJudgeError(answer["error"])
        if answer.get("no_response"):
            return
        if answer.get("empty"):
            yield LlmResponse()
            return
        parts = answer["parts"] if "parts" in answer else [answer["text"]]
        yield LlmResponse(
            content=genai_types.Content(
                role="model", parts=[genai_types.Part(text=t) for t in parts]
            )
        )


LLMRegistry.register(ScriptedJudge)


# Record what ADK parsed out of each answer by wrapping its own parsers; each
# runs right after the call it parses, before the next call is made.


def _rubric_scores_json(rubric_scores) -> list[dict]:
    return [
        {"rubric_id": r.rubric_id, "score": r.score, "rationale": r.rationale}
        for r in rubric_scores or []
    ]


_orig_rubric_convert = RubricBasedEvaluator.convert_auto_rater_response_to_score


def _rubric_convert(self, response):
    out = _orig_rubric_convert(self, response)
    SCRIPT.last["parse"] = {
        "score": out.score,
        "rubric_scores": _rubric_scores_json(out.rubric_scores),
    }
    return out


RubricBasedEvaluator.convert_auto_rater_response_to_score = _rubric_convert

_orig_frm_convert = FinalResponseMatchV2Evaluator.convert_auto_rater_response_to_score


def _frm_convert(self, response):
    out = _orig_frm_convert(self, response)
    text = get_text_from_content(response.content)
    SCRIPT.last["parse"] = {
        "label": None if text is None else _parse_critique(text).name,
        "score": out.score,
    }
    return out


FinalResponseMatchV2Evaluator.convert_auto_rater_response_to_score = _frm_convert

_orig_parse_sentences = hallucinations_v1._parse_sentences


def _parse_sentences(text):
    out = _orig_parse_sentences(text)
    SCRIPT.last["parse"] = {"sentences": list(out)}
    return out


hallucinations_v1._parse_sentences = _parse_sentences

_orig_parse_validation = hallucinations_v1._parse_validation_results


def _parse_validation(text):
    out = _orig_parse_validation(text)
    SCRIPT.last["parse"] = {
        "results": [{"sentence": r["sentence"], "label": r["label"]} for r in out]
    }
    return out


hallucinations_v1._parse_validation_results = _parse_validation

_STEP_OUTCOMES = [
    ("Segmenter returned no text", "segmenter_no_text"),
    ("Error during sentence segmentation", "segmenter_error"),
    ("No sentences produced by segmenter", "no_sentences"),
    ("Sentence validator returned no text", "validator_no_text"),
    ("Error during sentence validation", "validator_error"),
]
_orig_eval_nl = HallucinationsV1Evaluator._evaluate_nl_response


async def _evaluate_nl_response(self, nl_response, context):
    score, detail = await _orig_eval_nl(self, nl_response, context)
    outcome = "scored" if score is not None else "no_labels"
    if score is None:
        for prefix, code in _STEP_OUTCOMES:
            if detail.startswith(prefix):
                outcome = code
    SCRIPT.steps.append(
        {"nl_response": nl_response, "score": _num(score), "outcome": outcome}
    )
    return score, detail


HallucinationsV1Evaluator._evaluate_nl_response = _evaluate_nl_response

_orig_steps = HallucinationsV1Evaluator._get_steps_to_evaluate


def _get_steps_to_evaluate(self, actual):
    steps = _orig_steps(self, actual)
    planned = SCRIPT.planned_steps.pop(0) if SCRIPT.planned_steps else None
    if [s.nl_response for s in steps] != planned:
        # Raised inside ADK, which would take it for a metric failure.
        SCRIPT.faults.append(f"ADK steps {steps} differ from the plan {planned}")
    return steps


HallucinationsV1Evaluator._get_steps_to_evaluate = _get_steps_to_evaluate


def _num(value):
    """Scores as floats (statistics.mean of ints can return an int)."""
    return None if value is None else float(value)


# ------------------------------------------------------------ running ADK


def run_case(
    metric: str,
    eval_config: dict,
    expected: list[dict],
    runs: list[dict],
    case_rubrics: list[dict] | None = None,
) -> dict:
    """Evaluates each run against the same expected conversation, as
    AgentEvaluator does for num_runs, and returns ADK's results.

    runs: [{"actual": [invocation JSON], "plan": [...], "steps": [[nl, ...]]}]
    """
    global SCRIPT
    config = EvalConfig.model_validate(eval_config)
    metrics = [m for m in get_eval_metrics_from_config(config) if m.metric_name == metric]
    assert len(metrics) == 1
    case = {"eval_id": "case", "conversation": copy.deepcopy(expected)}
    if case_rubrics is not None:
        case["rubrics"] = copy.deepcopy(case_rubrics)
    manager = InMemoryEvalSetsManager()
    manager.create_eval_set("app", "set")
    manager.add_eval_case("app", "set", EvalCase.model_validate(case))
    service = LocalEvalService(
        root_agent=Agent(name="agent", model=JUDGE_MODEL), eval_sets_manager=manager
    )
    needles = [inv["user_content"]["parts"][0]["text"] for inv in expected]

    results = []
    out_runs = []
    for run in runs:
        SCRIPT = RunScript(metric, run["plan"], needles, run.get("steps", []))
        inference = InferenceResult(
            app_name="app",
            eval_set_id="set",
            eval_case_id="case",
            inferences=[Invocation.model_validate(copy.deepcopy(a)) for a in run["actual"]],
            session_id=None,
            status=InferenceStatus.SUCCESS,
        )
        request = EvaluateRequest(
            inference_results=[inference],
            evaluate_config=EvaluateConfig(eval_metrics=metrics),
        )

        async def collect():
            return [r async for r in service.evaluate(request)]

        (result,) = asyncio.run(collect())
        SCRIPT.finish()
        results.append(result)
        overall = result.overall_eval_metric_results[0]
        invocations = []
        for i, per_inv in enumerate(result.eval_metric_result_per_invocation):
            m = per_inv.eval_metric_results[0]
            entry = {
                "score": _num(m.score),
                "eval_status": m.eval_status.name,
                "rubric_scores": None
                if m.details.rubric_scores is None
                else _rubric_scores_json(m.details.rubric_scores),
            }
            invocations.append(entry)
        if metric == HALLU:
            # Steps were logged in order; split them by invocation.
            it = iter(SCRIPT.steps)
            for i, inv_steps in enumerate(run.get("steps", [])):
                invocations[i]["steps"] = [next(it) for _ in inv_steps]
        out_runs.append(
            {
                "actual": run["actual"],
                "calls": SCRIPT.calls,
                "invocations": invocations,
                "overall": {
                    "score": _num(overall.score),
                    "eval_status": overall.eval_status.name,
                    "rubric_scores": None
                    if overall.details.rubric_scores is None
                    else [
                        {"rubric_id": r.rubric_id, "score": r.score}
                        for r in overall.details.rubric_scores
                    ],
                },
                "final_eval_status": result.final_eval_status.name,
            }
        )
        SCRIPT = None

    # AgentEvaluator's case verdict over all runs, from its own code; its
    # detail printer is where the case score and status surface.
    captured: dict = {}

    def capture(**kwargs):
        captured.update(
            score=kwargs["overall_score"],
            eval_status=kwargs["overall_eval_status"].name,
            threshold=kwargs["threshold"],
        )

    saved = AgentEvaluator._print_details
    AgentEvaluator._print_details = staticmethod(capture)
    try:
        grouped = AgentEvaluator._get_eval_metric_results_with_invocation(results)
        failures = AgentEvaluator._process_metrics_and_get_failures(
            eval_metric_results=grouped,
            print_detailed_results=True,
            agent_module="agent",
        )
    finally:
        AgentEvaluator._print_details = staticmethod(saved)
    scores = [
        inv["score"] for run in out_runs for inv in run["invocations"] if inv["score"] is not None
    ]
    naive = sum(scores) / len(scores) if scores else None
    case_out = {
        "score": _num(captured["score"]),
        "eval_status": captured["eval_status"],
        "threshold": captured["threshold"],
        "passed": not failures,
        # Where left-to-right f64 summation would miss ADK's exact mean.
        "naive_f64_mean_differs": naive != captured["score"],
    }
    return {"runs": out_runs, "case": case_out}


def criterion_json(metric: str, threshold: float, num_samples: int | None, **extra) -> dict:
    crit = {"threshold": threshold}
    options = {"judge_model": JUDGE_MODEL}
    if num_samples is not None:
        options["num_samples"] = num_samples
    crit["judge_model_options"] = options
    crit.update(extra)
    return crit


def row(name: str, family: str, metric: str, eval_config: dict, expected, runs, case_rubrics=None, note=None) -> dict:
    result = run_case(metric, eval_config, expected, runs, case_rubrics)
    out = {
        "name": name,
        "family": family,
        "metric": metric,
        "eval_config": eval_config,
        "expected": expected,
        **result,
    }
    if case_rubrics is not None:
        out["case_rubrics"] = case_rubrics
    if note:
        out["note"] = note
    return out


# ------------------------------------------------------------ invocations

CITIES = [("Paris", 21), ("London", 17), ("Tokyo", 26), ("Lima", 19), ("Oslo", 8), ("Cairo", 33)]


def text_content(role: str, text: str) -> dict:
    return {"role": role, "parts": [{"text": text}]}


def user_text(i: int, city: str) -> str:
    return f"Turn {i + 1}: what is the weather in {city}?"


def expected_invocations(cities) -> list[dict]:
    return [
        {
            "invocation_id": f"e-{i + 1}",
            "user_content": text_content("user", user_text(i, city)),
            "final_response": text_content("model", f"It is {temp} °C in {city}."),
            "intermediate_data": {
                "tool_uses": [{"id": f"c{i + 1}", "name": "get_weather", "args": {"city": city}}],
                "tool_responses": [
                    {"id": f"c{i + 1}", "name": "get_weather", "response": {"temp_c": temp}}
                ],
                "intermediate_responses": [],
            },
        }
        for i, (city, temp) in enumerate(cities)
    ]


def actual_invocation(run: int, i: int, city: str, temp: int, *, style: str | None = None) -> dict:
    """An IntermediateData invocation as ADK's eval sets store it."""
    style = style or rng.choice(["right", "right", "right", "wrong_temp", "chatty", "thinking", "no_tool", "no_final"])
    answer_temp = temp if style != "wrong_temp" else temp + rng.choice([-5, 4, 10])
    final = f"It is {answer_temp} °C in {city}."
    if style == "chatty":
        final += " Enjoy your day!"
    tool_uses, tool_responses, inter = [], [], []
    if style != "no_tool":
        tool_uses = [{"id": f"c{i + 1}", "name": "get_weather", "args": {"city": city}}]
        tool_responses = [{"id": f"c{i + 1}", "name": "get_weather", "response": {"temp_c": temp}}]
    if style == "thinking":
        inter = [["agent", [{"text": f"Looking up {city}."}]]]
    inv = {
        "invocation_id": f"r{run + 1}-{i + 1}",
        "user_content": text_content("user", user_text(i, city)),
        "final_response": text_content("model", final),
        "intermediate_data": {
            "tool_uses": tool_uses,
            "tool_responses": tool_responses,
            "intermediate_responses": inter,
        },
    }
    if style == "no_final":
        del inv["final_response"]
    return inv


# ------------------------------------------------------------ rubric answers

FR_RUBRICS = [
    "The response states the temperature reported by the tool.",
    "The response names the city the user asked about.",
    "The response is a single short sentence.",
]
TU_RUBRICS = [
    "The agent calls get_weather.",
    "The call to get_weather passes the city named by the user.",
    "The agent makes no more than one tool call.",
]
YES_WORDS = ["yes", "Yes", "YES", "yes.", "**yes**", "Yes, it does"]
NO_WORDS = ["no", "No", "NO", "no.", "**no**", "No, it does not"]
# Words whose score shows ADK's substring rule: "yes" wins, else "no" anywhere.
ODD_VERDICTS = ["N/A", "not applicable", "unknown", "maybe", "yes/no", "nope", ""]


def rubrics_json(texts: list[str], ids: list[str] | None = None) -> list[dict]:
    ids = ids or [f"r{k + 1}" for k in range(len(texts))]
    return [
        {"rubric_id": rid, "rubric_content": {"text_property": t}}
        for rid, t in zip(ids, texts)
    ]


def decorate(text: str) -> str:
    """The rubric text as judges echo it, still matching after ADK's normalization."""
    return rng.choice(
        [
            f"**{text}**",
            text.upper(),
            f"`{text}`",
            "  " + text.replace(" ", "  ") + "  ",
            text.replace("'", "\u2019") + " ",
            f"- {text}",
        ]
    )


def rubric_block(rid: str | None, prop: str, rationale: str, verdict: str, evidence: bool) -> str:
    lines = []
    if rid is not None:
        lines.append(f"ID: {rid}")
    lines.append(f"Property: {prop}")
    if evidence:
        lines.append("Evidence: the tool output and the final answer.")
    lines.append(f"Rationale: {rationale}")
    lines.append(f"Verdict: {verdict}")
    return "\n".join(lines)


def rubric_answer(rubrics: list[dict], sample: int, style: str | None = None) -> dict:
    """One judge answer for every rubric of one invocation, in some style."""
    style = style or rng.choices(
        [
            "clean", "odd_verdict", "subset", "malformed", "garbage", "json",
            "unknown_rubric", "duplicate", "wrong_id", "multipart", "error", "empty",
            "no_response",
        ],
        weights=[60, 5, 5, 4, 4, 2, 3, 3, 2, 2, 5, 3, 2],
    )[0]
    if style == "error":
        return {"error": "scripted judge failure"}
    if style == "empty":
        return {"empty": True}
    if style == "no_response":
        return {"no_response": True}
    if style == "garbage":
        return {"text": "The response looks fine to me overall."}
    if style == "json":
        return {"text": json.dumps({"rubric_id": rubrics[0]["rubric_id"], "verdict": "yes"})}
    order = list(rubrics)
    rng.shuffle(order)
    with_ids = rng.random() < 0.7
    evidence = rng.random() < 0.5
    blocks = []
    for r in order:
        rid = r["rubric_id"]
        text = r["rubric_content"]["text_property"]
        prop = text if rng.random() < 0.75 else decorate(text)
        verdict = rng.choice(YES_WORDS if rng.random() < 0.6 else NO_WORDS)
        if style == "odd_verdict" and r is order[0]:
            verdict = rng.choice(ODD_VERDICTS)
        blocks.append([rid if with_ids else None, prop, f"s{sample + 1} {rid}", verdict, evidence])
    if style == "subset" and len(blocks) > 1:
        blocks.pop(rng.randrange(len(blocks)))
    if style == "duplicate":
        dup = list(blocks[0])
        dup[2] += " again"
        dup[3] = rng.choice(YES_WORDS + NO_WORDS)
        blocks.append(dup)
    if style == "unknown_rubric":
        blocks.append(["r9" if with_ids else None, "The response is written in French.", f"s{sample + 1} r9", "yes", evidence])
    if style == "wrong_id" and len(rubrics) > 1:
        # The ID line names another rubric; ADK trusts the ID over the text.
        other = [r["rubric_id"] for r in rubrics if r["rubric_id"] != blocks[0][0]]
        blocks[0][0] = rng.choice(other) if blocks[0][0] else rubrics[-1]["rubric_id"]
    texts = [rubric_block(*b) for b in blocks]
    if style == "malformed":
        k = rng.randrange(len(texts))
        texts[k] = texts[k].replace("\nVerdict:", "\nFinal verdict -")
    body = "\n\n".join(texts)
    if style == "multipart":
        head, _, tail = body.partition("\nRationale:")
        return {"parts": [head, "Rationale:" + tail]}
    return {"text": body}


def clean_rubric_answer(rubrics: list[dict], sample: int, verdicts: list[bool]) -> dict:
    blocks = [
        rubric_block(r["rubric_id"], r["rubric_content"]["text_property"], f"s{sample + 1} {r['rubric_id']}", "yes" if v else "no", False)
        for r, v in zip(rubrics, verdicts)
    ]
    return {"text": "\n\n".join(blocks)}


def rubric_random_rows(metric: str, texts: list[str], family: str, count: int) -> list[dict]:
    rows = []
    for n in range(count):
        n_rubrics = rng.randint(1, 3)
        num_samples = rng.choice([1, 3, 4])
        n_inv = rng.randint(1, 3)
        n_runs = rng.randint(1, 5)
        threshold = rng.choice([0.5, 0.6, 0.7, 0.75, 0.8, 1.0])
        rubrics = rubrics_json(rng.sample(texts, n_rubrics))
        cities = rng.sample(CITIES, n_inv)
        expected = expected_invocations(cities)
        crit = criterion_json(metric, threshold, num_samples, rubrics=rubrics)
        if rng.random() < 0.15:
            crit["include_intermediate_responses_in_final"] = True
        runs = []
        for r in range(n_runs):
            actual = [actual_invocation(r, i, c, t) for i, (c, t) in enumerate(cities)]
            plan = [[rubric_answer(rubrics, k) for k in range(num_samples)] for _ in cities]
            runs.append({"actual": actual, "plan": plan})
        rows.append(
            row(f"{family}-{n:03d}", family, metric, {"criteria": {metric: crit}}, expected, runs)
        )
    return rows


def rubric_edge_rows(metric: str, texts: list[str]) -> list[dict]:
    """Hand-picked cases: ties, unparseable and errored samples, thresholds."""
    rows = []
    fam = "edge"

    def simple(name, n_rubrics, threshold, runs_verdicts, num_samples=1, note=None, extra=None, case_rubrics=None, expected_extra=None):
        """runs_verdicts[run][invocation][sample] is a list of per-rubric bools
        or an answer dict used as is."""
        rubrics = rubrics_json(texts[:n_rubrics])
        n_inv = len(runs_verdicts[0])
        cities = CITIES[:n_inv]
        expected = expected_invocations(cities)
        if expected_extra:
            for inv, add in zip(expected, expected_extra):
                inv.update(add)
        crit = criterion_json(metric, threshold, num_samples, rubrics=rubrics, **(extra or {}))
        runs = []
        for r, inv_verdicts in enumerate(runs_verdicts):
            actual = [actual_invocation(r, i, c, t, style="right") for i, (c, t) in enumerate(cities)]
            plan = []
            for samples in inv_verdicts:
                answers = []
                for k, s in enumerate(samples):
                    answers.append(s if isinstance(s, dict) else clean_rubric_answer(rubrics, k, s))
                plan.append(answers)
            runs.append({"actual": actual, "plan": plan})
        rows.append(row(f"{metric}-{name}", fam, metric, {"criteria": {metric: crit}}, expected, runs, case_rubrics, note))

    Y, N = [True], [False]
    garbage = {"text": "Looks good."}
    err = {"error": "scripted judge failure"}
    simple("tie-2-2", 1, 0.5, [[[Y, Y, N, N]]], 4, "an even split votes no")
    simple("tie-1-1-unparsed-2", 1, 0.5, [[[Y, garbage, N, garbage]]], 4, "unparseable samples do not vote; 1-1 is a tie, so no")
    simple("2yes-1no-1unparsed", 1, 0.5, [[[Y, N, garbage, Y]]], 4, "2 yes beat 1 no")
    simple("1yes-3unparsed", 1, 0.5, [[[garbage, Y, garbage, garbage]]], 4, "a single parsed yes decides")
    simple("all-unparsed", 1, 0.5, [[[garbage, garbage, garbage]]], 3, "no vote at all: no rubric score, invocation not evaluated")
    simple("one-error-of-3", 1, 0.5, [[[Y, err, Y]]], 3, "one failed judge call drops the whole invocation")
    simple("error-in-one-invocation", 1, 0.5, [[[Y], [err]], [[N], [Y]]], 1, "the errored invocation leaves the denominator")
    simple("all-errors", 2, 0.5, [[[err], [err]]], 1, "nothing scored: case not evaluated")
    simple("per-rubric-votes", 2, 0.5, [[[[True, False], [True, True], [False, False]]]], 3, "r1 2-1 yes, r2 1-2 no")
    simple("ties-per-rubric", 3, 0.3, [[[[True, True, False], [True, True, False], [False, False, True], [True, False, True]]]], 4, "r1 3-1 yes, r2 and r3 2-2 ties vote no: 1/3")
    # Effective thresholds: the case score moves in steps of 1/(rubrics*runs*invocations).
    simple("eff-1x2-at-0.7-half", 1, 0.7, [[[Y]], [[N]]], 1, "1 rubric x 2 runs: 0.5 < 0.7, only 1.0 passes")
    simple("eff-1x2-at-0.7-full", 1, 0.7, [[[Y]], [[Y]]], 1)
    simple("eff-1x5-at-0.7-3of5", 1, 0.7, [[[Y]]] * 3 + [[[N]]] * 2, 1, "0.6 fails 0.7")
    simple("eff-1x5-at-0.7-4of5", 1, 0.7, [[[Y]]] * 4 + [[[N]]], 1, "0.8 is the least passing score")
    simple("eff-2x5-at-0.7-7of10", 2, 0.7, [[[[True, True]]]] * 2 + [[[[True, False]]]] * 3, 1, "7 of 10 yes is exactly 0.7")
    simple("eff-2x5-at-0.7-6of10", 2, 0.7, [[[[True, True]]]] * 1 + [[[[True, False]]]] * 4, 1)
    simple("eff-3x5-at-0.8-spread", 3, 0.8, [[[[True, True, False]]]] * 3 + [[[[True, True, True]]]] * 2, 1, "12 of 15 yes spread over runs: the exact mean of 2/3-floats is 0.7999999999999999, which fails 0.8")
    simple("eff-3x5-at-0.8-packed", 3, 0.8, [[[[True, True, True]]]] * 4 + [[[[False, False, False]]]], 1, "12 of 15 yes packed into whole runs: exactly 0.8, passes")
    simple("eff-3x5-at-0.4-spread", 3, 0.4, [[[[True, False, False]]]] * 4 + [[[[True, True, False]]]], 1, "6 of 15 as 1/3+1/3+1/3+1/3+2/3: 0.39999999999999997 fails 0.4")
    simple("eff-2x3x2-at-0.75", 2, 0.75, [[[[True, True]], [[True, False]]]] * 3, 1, "2 rubrics x 3 runs x 2 invocations: 9 of 12")
    # Rubrics beyond the criterion's: case level and invocation level, filtered by type.
    own_type = "FINAL_RESPONSE_QUALITY" if metric == RUBRIC_FR else "TOOL_USE_QUALITY"
    other_type = "TOOL_USE_QUALITY" if metric == RUBRIC_FR else "FINAL_RESPONSE_QUALITY"
    case_rubrics = [
        {"rubric_id": "c1", "rubric_content": {"text_property": "The answer is polite."}, "type": own_type},
        {"rubric_id": "c2", "rubric_content": {"text_property": "The answer cites a source."}, "type": other_type},
        {"rubric_id": "c3", "rubric_content": {"text_property": "The answer is in English."}},
    ]
    rubrics_all = rubrics_json(texts[:1]) + [case_rubrics[0]]
    simple(
        "case-rubrics-typed",
        1,
        0.5,
        [[[clean_rubric_answer(rubrics_all, 0, [True, False])]]],
        1,
        "case-level rubrics join only when their type is this metric's; untyped ones are dropped",
        case_rubrics=case_rubrics,
    )
    inv_rubric = {"rubric_id": "i1", "rubric_content": {"text_property": "The answer gives the unit."}, "type": own_type}
    with_inv = rubrics_json(texts[:1]) + [inv_rubric]
    simple(
        "invocation-rubric-on-first-turn",
        1,
        0.5,
        [[[clean_rubric_answer(with_inv, 0, [True, False])], [clean_rubric_answer(rubrics_json(texts[:1]), 0, [True])]]],
        1,
        "turn 1's prompt carries i1, but ADK formats every prompt before asking and parses each answer against the rubric list of the last formatted turn, which lacks i1: the i1 verdict is dropped",
        expected_extra=[{"rubrics": [inv_rubric]}, {}],
    )
    simple(
        "invocation-rubric-on-last-turn",
        1,
        0.5,
        [[[clean_rubric_answer(rubrics_json(texts[:1]), 0, [True])], [clean_rubric_answer(with_inv, 0, [True, False])]]],
        1,
        "turn 1 has 1 rubric (yes), turn 2 has 2 (yes, no): the run's overall is the mean over all rubric scores (2/3), the case's the mean over invocations (0.75)",
        expected_extra=[{}, {"rubrics": [inv_rubric]}],
    )
    simple(
        "earlier-turn-answers-later-rubric",
        1,
        0.5,
        [[[clean_rubric_answer(with_inv, 0, [True, False])], [clean_rubric_answer(with_inv, 0, [True, True])]]],
        1,
        "i1 belongs to turn 2 only, yet turn 1's answer about i1 is scored, since parsing uses the last formatted turn's rubrics",
        expected_extra=[{}, {"rubrics": [inv_rubric]}],
    )
    simple(
        "none-rubric-vote-in-mean",
        2,
        0.5,
        [[[{"text": rubric_block("r1", texts[0], "s1 r1", "yes", False) + "\n\n" + rubric_block("r2", texts[1], "s1 r2", "N/A", False)}],
          [clean_rubric_answer(rubrics_json(texts[:2]), 0, [False, False])]]],
        1,
        "an unreadable verdict scores None and leaves both means: run overall 1/3 over rubric scores, case 0.5 over invocations",
    )
    simple(
        "duplicate-criterion-and-invocation-id",
        1,
        0.5,
        [[[]]],
        1,
        "an invocation rubric reusing a criterion rubric_id makes the metric fail to run: not evaluated, and no judge call",
        expected_extra=[{"rubrics": [{"rubric_id": "r1", "rubric_content": {"text_property": "Same id."}, "type": own_type}]}],
    )
    return rows


def rubric_missing_rows(metric: str) -> list[dict]:
    """A criterion without rubrics: ADK refuses to run the metric."""
    expected = expected_invocations(CITIES[:1])
    rows = []
    for name, crit in [
        ("no-rubrics", criterion_json(metric, 0.5, 1)),
        ("bare-threshold", 0.5),
    ]:
        runs = [{"actual": [actual_invocation(0, 0, *CITIES[0], style="right")], "plan": [[]]}]
        rows.append(row(f"{metric}-{name}", "edge", metric, {"criteria": {metric: crit}}, expected, runs, note="no rubrics: not evaluated, no judge call"))
    return rows


# ------------------------------------------------------------ final_response_match_v2 answers


def frm_answer(valid: bool, style: str | None = None) -> dict:
    style = style or rng.choices(
        ["pretty", "compact", "bracket", "bare", "fenced", "truefalse", "soft_invalid", "odd", "garbage", "error", "empty", "no_response"],
        weights=[30, 12, 8, 6, 6, 5, 6, 10, 4, 6, 3, 2],
    )[0]
    label = "valid" if valid else "invalid"
    reasoning = "The agent gives the same temperature." if valid else "The temperatures differ."
    if style == "pretty":
        return {"text": '{\n  "reasoning": "%s",\n  "is_the_agent_response_valid": "%s"\n}' % (reasoning, label)}
    if style == "compact":
        return {"text": '{"reasoning": "%s", "is_the_agent_response_valid": "%s"}' % (reasoning, label)}
    if style == "bracket":
        return {"text": '{\n  "reasoning": [%s],\n  "is_the_agent_response_valid": [%s],\n}' % (reasoning, label)}
    if style == "bare":
        return {"text": '{"is_the_agent_response_valid": %s, "reasoning": "%s"}' % (label, reasoning)}
    if style == "fenced":
        return {"text": '```json\n{\n  "reasoning": "%s",\n  "is_the_agent_response_valid": "%s"\n}\n```' % (reasoning, label)}
    if style == "truefalse":
        return {"text": '{"reasoning": "%s", "is_the_agent_response_valid": %s}' % (reasoning, "true" if valid else "false")}
    if style == "soft_invalid":
        word = rng.choice(["almost", "partially_valid", "partially", "false"])
        return {"text": '{"reasoning": "%s", "is_the_agent_response_valid": "%s"}' % (reasoning, word)}
    if style == "odd":
        return {"text": rng.choice(ODD_FRM)}
    if style == "garbage":
        return {"text": "The agent response is valid."}
    if style == "error":
        return {"error": "scripted judge failure"}
    if style == "empty":
        return {"empty": True}
    return {"no_response": True}


# Answers whose label shows ADK's regex and word list at their edges.
ODD_FRM = [
    '{"reasoning": "x", "is_the_agent_response_valid": "Valid"}',
    '{"reasoning": "x", "is_the_agent_response_valid": "VALID"}',
    '{"reasoning": "x", "is_the_agent_response_valid": "partially valid"}',
    '{"reasoning": "x", "is_the_agent_response_valid": "yes"}',
    '{"reasoning": "x", "is_the_agent_response_valid" : "valid"}',
    '"is_the_agent_response_valid": "valid"',
    '"is_the_agent_response_valid": "valid"\n',
    '{"reasoning": "x", "is_the_agent_response_valid": "invalid."}',
    '{"reasoning": "x", "is_the_agent_response_valid": " valid "}',
    '{"reasoning": "x", "is_the_agent_response_valid": ["valid"]}',
    '{"reasoning": "x", "is_the_agent_response_valid":\n  "invalid"\n}',
    '{"reasoning": "x", "is_the_agent_response_invalid": "true"}',
    '{"reasoning": "x", "is_the_agent_response_invalid": "false"}',
    '{"reasoning": "x", "is_the_agent_response_invalid": "no"}',
    '{"reasoning": "x", "is_the_agent_response_invalid": "invalid"}',
    '{"reasoning": "x", "is_the_agent_response_valid": "valid", "is_the_agent_response_invalid": "true"}',
    "{'reasoning': 'x', 'is_the_agent_response_valid': 'valid'}",
    '{"reasoning": "x", "is_the_agent_response_valid": "\u201cvalid\u201d"}',
]


def frm_random_rows(count: int) -> list[dict]:
    rows = []
    for n in range(count):
        num_samples = rng.choice([1, 3, 4])
        n_inv = rng.randint(1, 3)
        n_runs = rng.randint(1, 5)
        threshold = rng.choice([0.5, 0.6, 0.7, 0.75, 0.8, 1.0])
        cities = rng.sample(CITIES, n_inv)
        expected = expected_invocations(cities)
        crit = criterion_json(FRM, threshold, num_samples)
        if rng.random() < 0.2:
            crit["include_intermediate_responses_in_final"] = True
        runs = []
        for r in range(n_runs):
            actual = [actual_invocation(r, i, c, t) for i, (c, t) in enumerate(cities)]
            plan = []
            for inv, exp in zip(actual, expected):
                said = get_text_from_content(Invocation.model_validate(inv).final_response) or ""
                right = exp["final_response"]["parts"][0]["text"].rstrip(".") in said
                bias = 0.8 if right else 0.25
                plan.append([frm_answer(rng.random() < bias) for _ in range(num_samples)])
            runs.append({"actual": actual, "plan": plan})
        rows.append(row(f"frm-{n:03d}", "random", FRM, {"criteria": {FRM: crit}}, expected, runs))
    return rows


def frm_edge_rows() -> list[dict]:
    rows = []

    def simple(name, threshold, runs_answers, note=None, crit_extra=None, eval_config=None):
        n_inv = len(runs_answers[0])
        cities = CITIES[:n_inv]
        expected = expected_invocations(cities)
        num_samples = len(runs_answers[0][0])
        crit = criterion_json(FRM, threshold, num_samples, **(crit_extra or {}))
        runs = []
        for r, inv_answers in enumerate(runs_answers):
            actual = [actual_invocation(r, i, c, t, style="right") for i, (c, t) in enumerate(cities)]
            plan = [[a if isinstance(a, dict) else frm_answer(a, "pretty") for a in samples] for samples in inv_answers]
            runs.append({"actual": actual, "plan": plan})
        rows.append(row(f"frm-{name}", "edge", FRM, eval_config or {"criteria": {FRM: crit}}, expected, runs, note=note))

    V, I = True, False
    nf = {"text": '{"reasoning": "x", "is_the_agent_response_valid": "maybe"}'}
    err = {"error": "scripted judge failure"}
    simple("tie-2-2", 0.5, [[[V, V, I, I]]], "an even split is invalid")
    simple("tie-1-1-notfound-2", 0.5, [[[V, nf, I, nf]]], "unreadable labels do not vote")
    simple("1valid-3notfound", 0.5, [[[nf, nf, V, nf]]], "a single readable valid decides")
    simple("all-notfound", 0.5, [[[nf, nf, nf]]], "no readable label: invocation not evaluated")
    simple("one-error-of-3", 0.5, [[[V, err, V]]], "one failed call drops the invocation")
    simple("error-then-scored", 0.5, [[[err], [V]], [[I], [V]]], "the errored invocation leaves the denominator: 2 of 3")
    simple("all-errors", 0.5, [[[err], [err]]], "nothing scored: not evaluated")
    simple("eff-1x2-at-0.7", 0.7, [[[V]], [[I]]], "0.5 fails 0.7")
    simple("eff-5runs-at-0.7", 0.7, [[[V]]] * 4 + [[[I]]], "0.8 passes 0.7")
    simple("eff-3inv-2runs-at-0.6", 0.6, [[[V], [V], [I]], [[V], [I], [V]]], "4 of 6")
    simple(
        "temperature-from-config",
        0.5,
        [[[V]]],
        "judge_model_config reaches the judge request unchanged",
        crit_extra=None,
        eval_config={"criteria": {FRM: {"threshold": 0.5, "judge_model_options": {"judge_model": JUDGE_MODEL, "num_samples": 1, "judge_model_config": {"temperature": 0.0}}}}},
    )
    return rows


# ------------------------------------------------------------ hallucinations_v1

LABELS = ["supported", "supported", "supported", "not_applicable", "unsupported", "contradictory", "disputed"]
ODD_LABELS = ["Supported", "NOT_APPLICABLE", " not_applicable ", "`supported`", "partially_supported", "n/a", "Unsupported", "**supported**"]


def split_sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    return [p for p in parts if p]


def segmenter_answer(nl: str) -> dict:
    style = rng.choices(["clean", "merged", "no_tags", "error", "empty", "no_response", "multiline"], weights=[75, 6, 5, 6, 3, 2, 3])[0]
    sentences = split_sentences(nl)
    if style == "clean" or (style in ("merged", "multiline") and len(sentences) < 2):
        return {"text": "\n".join(f"<sentence>{s}</sentence>" for s in sentences)}
    if style == "merged":
        return {"text": f"<sentence>{' '.join(sentences[:2])}</sentence>\n" + "\n".join(f"<sentence>{s}</sentence>" for s in sentences[2:])}
    if style == "multiline":
        return {"text": f"<sentence>{sentences[0]}\n{sentences[1]}</sentence>" + "".join(f"<sentence>{s}</sentence>" for s in sentences[2:])}
    if style == "no_tags":
        return {"text": "\n".join(sentences)}
    if style == "error":
        return {"error": "scripted judge failure"}
    if style == "empty":
        return {"empty": True}
    return {"no_response": True}


def validation_block(sentence: str, label: str, bold: bool = False) -> str:
    sup = "the tool output" if label in ("supported", "disputed") else "null"
    con = "the tool output" if label in ("contradictory", "disputed") else "null"
    if bold:
        return f"**sentence:** {sentence}\n**label:** {label}\n**rationale:** r\n**supporting_excerpt:** {sup}\n**contradicting_excerpt:** {con}"
    return f"sentence: {sentence}\nlabel: {label}\nrationale: checked against the context\nsupporting_excerpt: {sup}\ncontradicting_excerpt: {con}"


def validator_answer(sentences: list[str]) -> dict:
    style = rng.choices(
        ["clean", "odd_label", "fewer", "extra", "bold", "missing_field", "garbage", "error", "empty", "no_response", "capital_keys"],
        weights=[60, 10, 5, 4, 3, 3, 3, 5, 2, 2, 3],
    )[0]
    if style == "error":
        return {"error": "scripted judge failure"}
    if style == "empty":
        return {"empty": True}
    if style == "no_response":
        return {"no_response": True}
    if style == "garbage":
        return {"text": "All sentences are supported."}
    labels = [rng.choice(LABELS) for _ in sentences]
    if style == "odd_label":
        labels[rng.randrange(len(labels))] = rng.choice(ODD_LABELS)
    blocks = [validation_block(s, lab, bold=(style == "bold")) for s, lab in zip(sentences, labels)]
    if style == "fewer" and len(blocks) > 1:
        blocks.pop(rng.randrange(len(blocks)))
    if style == "extra":
        blocks.append(validation_block("Have a nice day.", rng.choice(LABELS)))
    if style == "missing_field":
        k = rng.randrange(len(blocks))
        blocks[k] = blocks[k].replace("\nrationale: checked against the context", "")
    if style == "capital_keys":
        blocks = [b.replace("sentence:", "Sentence:").replace("label:", "Label:") for b in blocks]
    return {"text": "\n\n".join(blocks)}


def hallu_invocation(run: int, i: int, city: str, temp: int, *, layout: str | None = None):
    """An invocation with events; returns it and its NL texts in event order."""
    layout = layout or rng.choice(["events", "events", "events_two_texts", "events_no_text", "intermediate_data", "no_final"])
    final_temp = temp if rng.random() < 0.7 else temp + 3
    final = rng.choice(
        [
            f"It is {final_temp} °C in {city}.",
            f"It is {final_temp} °C in {city}. Enjoy your day!",
            f"{city} is at {final_temp} °C. It will rain tomorrow. Pack an umbrella!",
            f"The weather in {city}: {final_temp} °C and sunny.",
        ]
    )
    inv = {
        "invocation_id": f"r{run + 1}-{i + 1}",
        "user_content": text_content("user", user_text(i, city)),
        "final_response": text_content("model", final),
    }
    texts = []
    call = {"function_call": {"id": f"c{i + 1}", "name": "get_weather", "args": {"city": city}}}
    resp = {"function_response": {"id": f"c{i + 1}", "name": "get_weather", "response": {"temp_c": temp}}}
    if layout == "intermediate_data":
        inv["intermediate_data"] = {
            "tool_uses": [call["function_call"]],
            "tool_responses": [resp["function_response"]],
            "intermediate_responses": [["agent", [{"text": f"Checking {city} now."}]]],
        }
    else:
        events = []
        if layout != "events_no_text":
            t = f"Let me check {city}."
            texts.append(t)
            events.append({"author": "agent", "content": {"role": "model", "parts": [{"text": t}, call]}})
        else:
            events.append({"author": "agent", "content": {"role": "model", "parts": [call]}})
        events.append({"author": "agent", "content": {"role": "user", "parts": [resp]}})
        if layout == "events_two_texts":
            t = f"The service says {temp} °C for {city}. I will also look at the wind."
            texts.append(t)
            events.append({"author": "agent", "content": {"role": "model", "parts": [{"text": t}]}})
        inv["intermediate_data"] = {"invocation_events": events}
    if layout == "no_final":
        del inv["final_response"]
    return inv, texts


def hallu_steps(inv: dict, texts: list[str], intermediate: bool) -> list[str]:
    steps = list(texts) if intermediate else []
    final = inv.get("final_response")
    if final:
        steps.append(final["parts"][0]["text"])
    return steps


def hallu_plan(steps: list[str]) -> list[dict]:
    plan = []
    for nl in steps:
        seg = segmenter_answer(nl)
        sentences = re.findall(r"<sentence>(.*?)</sentence>", seg.get("text", ""), re.DOTALL)
        plan.append({"nl_response": nl, "segmenter": seg, "validator": validator_answer(sentences or ["-"])})
    return plan


def hallu_random_rows(count: int) -> list[dict]:
    rows = []
    for n in range(count):
        n_inv = rng.randint(1, 3)
        n_runs = rng.randint(1, 5)
        threshold = rng.choice([0.5, 0.6, 0.7, 0.75, 0.8, 1.0])
        intermediate = rng.random() < 0.4
        cities = rng.sample(CITIES, n_inv)
        expected = expected_invocations(cities)
        crit = criterion_json(HALLU, threshold, rng.choice([None, 1, 3]))
        if intermediate or rng.random() < 0.2:
            crit["evaluate_intermediate_nl_responses"] = intermediate
        runs = []
        for r in range(n_runs):
            actual, plan, steps = [], [], []
            for i, (c, t) in enumerate(cities):
                inv, texts = hallu_invocation(r, i, c, t)
                s = hallu_steps(inv, texts, intermediate)
                actual.append(inv)
                steps.append(s)
                plan.append(hallu_plan(s))
            runs.append({"actual": actual, "plan": plan, "steps": steps})
        rows.append(row(f"hallu-{n:03d}", "random", HALLU, {"criteria": {HALLU: crit}}, expected, runs))
    return rows


def hallu_edge_rows() -> list[dict]:
    rows = []

    def simple(name, threshold, runs_spec, intermediate=False, note=None):
        """runs_spec[run][invocation] = (layout, [(segmenter, validator) per step])"""
        n_inv = len(runs_spec[0])
        cities = CITIES[:n_inv]
        expected = expected_invocations(cities)
        crit = criterion_json(HALLU, threshold, 3, evaluate_intermediate_nl_responses=intermediate)
        runs = []
        for r, spec in enumerate(runs_spec):
            actual, plan, steps = [], [], []
            for i, ((layout, answers), (c, t)) in enumerate(zip(spec, cities)):
                inv, texts = hallu_invocation(r, i, c, t, layout=layout)
                inv["final_response"] = text_content("model", f"It is {t} °C in {c}. Enjoy your day!") if layout != "no_final" else None
                if inv["final_response"] is None:
                    del inv["final_response"]
                s = hallu_steps(inv, texts, intermediate)
                assert len(s) == len(answers), (name, s, answers)
                actual.append(inv)
                steps.append(s)
                plan.append([{"nl_response": nl, "segmenter": seg, "validator": val} for nl, (seg, val) in zip(s, answers)])
            runs.append({"actual": actual, "plan": plan, "steps": steps})
        rows.append(row(f"hallu-{name}", "edge", HALLU, {"criteria": {HALLU: crit}}, expected, runs, note=note))

    def seg(*sentences):
        return {"text": "".join(f"<sentence>{s}</sentence>" for s in sentences)}

    def val(*labels):
        return {"text": "\n\n".join(validation_block(f"s{k}", lab) for k, lab in enumerate(labels))}

    err = {"error": "scripted judge failure"}
    two = seg("It is 21 °C in Paris.", "Enjoy your day!")
    simple("all-supported", 1.0, [[("events", [(two, val("supported", "not_applicable"))])]], note="not_applicable counts as supported")
    simple("one-of-two", 0.5, [[("events", [(two, val("supported", "unsupported"))])]])
    simple("labels-not-sentences", 0.5, [[("events", [(two, val("supported", "contradictory", "disputed"))])]], note="the denominator is the validator's blocks, not the segmenter's sentences")
    simple("odd-label-dropped", 0.5, [[("events", [(two, val("supported", "`supported`"))])]], note="an unknown label leaves both numerator and denominator")
    simple("segmenter-error", 0.5, [[("events", [(err, val("supported"))])], [("events", [(two, val("unsupported", "supported"))])]], note="a failed segmenter call leaves the step unscored; the case mean skips it")
    simple("validator-error", 0.5, [[("events", [(two, err)])]], note="nothing scored: not evaluated")
    simple("no-final-response", 0.5, [[("no_final", [])]], note="no NL response: no judge call, not evaluated")
    simple(
        "intermediate-steps",
        0.5,
        [[("events_two_texts", [(seg("Let me check Paris."), val("not_applicable")), (seg("The service says 21 °C for Paris.", "I will also look at the wind."), val("supported", "unsupported")), (two, val("supported", "supported"))])]],
        intermediate=True,
        note="each NL text is a step; the invocation score is the mean of step scores (1 + 0.5 + 1) / 3",
    )
    simple(
        "intermediate-off",
        0.5,
        [[("events_two_texts", [(two, val("supported", "disputed"))])]],
        intermediate=False,
        note="with the flag off only the final response is judged",
    )
    simple(
        "intermediate-data-layout",
        0.5,
        [[("intermediate_data", [(two, val("supported", "supported"))])]],
        intermediate=True,
        note="tool_uses/intermediate_responses data yields no intermediate steps even with the flag on",
    )
    simple(
        "invocation-means",
        0.6,
        [[("events", [(two, val("supported", "unsupported"))]), ("events", [(seg("a", "b", "c"), val("supported", "supported", "unsupported"))])]],
        note="case = mean of invocation scores (1/2 and 2/3), not of sentences",
    )
    return rows


# ------------------------------------------------------------ effective thresholds

THRESHOLDS = [0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]


def exact_mean_score(R: int, per_slot_yes: list[int]) -> float:
    """ADK's arithmetic for a case of clean verdicts: each invocation scores
    statistics.mean of its rubric scores, the case statistics.mean of those."""
    return statistics.mean(statistics.mean([1.0] * j + [0.0] * (R - j)) for j in per_slot_yes)


def spread(k: int, slots: int, R: int) -> list[int]:
    base, extra = divmod(k, slots)
    return [base + (1 if s < extra else 0) for s in range(slots)]


def packed(k: int, slots: int, R: int) -> list[int]:
    out = []
    for _ in range(slots):
        take = min(R, k)
        out.append(take)
        k -= take
    return out


def pipeline_score(R: int, n_runs: int, n_inv: int, per_slot_yes: list[int], threshold: float) -> dict:
    """The case score and verdict from ADK's own pipeline for clean verdicts."""
    rubrics = rubrics_json(FR_RUBRICS[:R])
    cities = CITIES[:n_inv]
    expected = expected_invocations(cities)
    crit = criterion_json(RUBRIC_FR, threshold, 1, rubrics=rubrics)
    runs = []
    slot = 0
    for r in range(n_runs):
        actual = [actual_invocation(r, i, c, t, style="right") for i, (c, t) in enumerate(cities)]
        plan = []
        for _ in cities:
            j = per_slot_yes[slot]
            slot += 1
            plan.append([clean_rubric_answer(rubrics, 0, [v < j for v in range(R)])])
        runs.append({"actual": actual, "plan": plan})
    return run_case(RUBRIC_FR, {"criteria": {RUBRIC_FR: crit}}, expected, runs)["case"]


def threshold_rows() -> list[dict]:
    rows = []
    for R in (1, 2, 3):
        for n_runs in range(1, 6):
            for n_inv in (1, 2, 3):
                slots = n_runs * n_inv
                total = R * slots
                # Every multiset of per-invocation yes counts, through ADK's
                # mean of means; a few of them also through the full pipeline.
                by_k: dict[int, set[float]] = {}
                for combo in itertools.combinations_with_replacement(range(R + 1), slots):
                    by_k.setdefault(sum(combo), set()).add(exact_mean_score(R, list(combo)))
                effective = {}
                for t in THRESHOLDS:
                    k_min = next(k for k in range(total + 1) if Fraction(k, total) >= Fraction(str(t)))
                    always = next(k for k in range(total + 1) if all(s >= t for s in by_k[k]) and all(all(s >= t for s in by_k[j]) for j in range(k, total + 1)))
                    sometimes = next(k for k in range(total + 1) if any(s >= t for s in by_k[k]))
                    checks = []
                    for k in sorted({max(k_min - 1, 0), k_min}):
                        for name, dist in (("spread", spread(k, slots, R)), ("packed", packed(k, slots, R))):
                            case = pipeline_score(R, n_runs, n_inv, dist, t)
                            assert case["score"] == exact_mean_score(R, dist), (R, n_runs, n_inv, dist)
                            checks.append({"yes": k, "layout": name, "per_invocation_yes": dist, "score": case["score"], "passed": case["passed"]})
                    effective[str(t)] = {
                        "exact_effective": float(Fraction(k_min, total)),
                        "min_yes": k_min,
                        "min_yes_always_passing": always,
                        "min_yes_sometimes_passing": sometimes,
                        "pipeline_checks": checks,
                    }
                rows.append(
                    {
                        "rubrics": R,
                        "runs": n_runs,
                        "invocations": n_inv,
                        "step": float(Fraction(1, total)),
                        "scores_by_yes": {str(k): sorted(v) for k, v in sorted(by_k.items())},
                        "thresholds": effective,
                    }
                )
    return rows


def main() -> None:
    write("rubric_based_final_response_quality_v1.jsonl",
          rubric_random_rows(RUBRIC_FR, FR_RUBRICS, "random", 70) + rubric_edge_rows(RUBRIC_FR, FR_RUBRICS) + rubric_missing_rows(RUBRIC_FR))
    write("rubric_based_tool_use_quality_v1.jsonl",
          rubric_random_rows(RUBRIC_TU, TU_RUBRICS, "random", 40) + rubric_edge_rows(RUBRIC_TU, TU_RUBRICS) + rubric_missing_rows(RUBRIC_TU))
    write("final_response_match_v2.jsonl", frm_random_rows(70) + frm_edge_rows())
    write("hallucinations_v1.jsonl", hallu_random_rows(70) + hallu_edge_rows())
    write("effective_thresholds.jsonl", threshold_rows())


if __name__ == "__main__":
    main()
