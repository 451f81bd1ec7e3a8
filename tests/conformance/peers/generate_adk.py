"""adk_tests.jsonl and adk_config.jsonl: ADK's evaluator unit tests, as data.

    python generate_adk.py

The cases of google/adk-python's tests/unittests/evaluation/
test_trajectory_evaluator.py and test_final_response_match_v1.py (each row
names the test it comes from in "source"), plus corners of our own ("source":
"kagent-evals"), written as ADK JSON (snake_case Invocation objects) and run
through the pinned google-adk: TrajectoryEvaluator, RougeEvaluator, and
LocalEvalService for what a whole eval case gets. adk_config.jsonl holds
test_config.json bodies and what ADK makes of them.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import os

os.environ.setdefault("GOOGLE_CLOUD_AGENT_ENGINE_ID", "")
logging.disable(logging.CRITICAL)  # ADK logs caught metric errors at ERROR

from google.adk.agents.base_agent import BaseAgent  # noqa: E402
from google.adk.evaluation import agent_evaluator as ae  # noqa: E402
from google.adk.evaluation.base_eval_service import EvaluateConfig  # noqa: E402
from google.adk.evaluation.base_eval_service import EvaluateRequest  # noqa: E402
from google.adk.evaluation.base_eval_service import InferenceResult  # noqa: E402
from google.adk.evaluation.base_eval_service import InferenceStatus  # noqa: E402
from google.adk.evaluation.eval_case import EvalCase  # noqa: E402
from google.adk.evaluation.eval_case import Invocation  # noqa: E402
from google.adk.evaluation.eval_config import EvalConfig  # noqa: E402
from google.adk.evaluation.eval_config import get_eval_metrics_from_config  # noqa: E402
from google.adk.evaluation.eval_metrics import EvalMetric  # noqa: E402
from google.adk.evaluation.eval_metrics import ToolTrajectoryCriterion  # noqa: E402
from google.adk.evaluation.eval_set import EvalSet  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import RougeEvaluator  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import _calculate_rouge_1_scores  # noqa: E402
from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager  # noqa: E402
from google.adk.evaluation.local_eval_service import LocalEvalService  # noqa: E402
from google.adk.evaluation.metric_evaluator_registry import DEFAULT_METRIC_EVALUATOR_REGISTRY  # noqa: E402
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator  # noqa: E402

from _vectors import VECTORS, error_text, write_jsonl  # noqa: E402

TRAJ_TESTS = "tests/unittests/evaluation/test_trajectory_evaluator.py"
ROUGE_TESTS = "tests/unittests/evaluation/test_final_response_match_v1.py"
OURS = "kagent-evals"


# ------------------------------------------------------------------ builders

def call(name, args=None, **extra):
    c = {"name": name}
    if args is not None:
        c["args"] = args
    c.update(extra)
    return c


def inv(tools=None, response=None, user="User input here.", **extra):
    """One Invocation in ADK's JSON (snake_case), as eval set files hold them."""
    i = {"user_content": {"parts": [{"text": user}], "role": "user"}}
    if response is not None:
        i["final_response"] = {"parts": [{"text": response}], "role": "model"} if isinstance(response, str) else response
    if tools is not None:
        i["intermediate_data"] = {"tool_uses": tools}
    i.update(extra)
    return i


def invocations(data):
    return None if data is None else [Invocation.model_validate(copy.deepcopy(d)) for d in data]


def result_data(result):
    return {
        "overall_score": result.overall_score,
        "overall_eval_status": result.overall_eval_status.name,
        "per_invocation": [{"score": r.score, "eval_status": r.eval_status.name}
                           for r in result.per_invocation_results],
    }


def metric_from(spec):
    """An EvalMetric from the row's JSON: {"metric_name", "threshold"?, "criterion"?}."""
    return EvalMetric.model_validate(copy.deepcopy(spec))


def run_evaluator(cls, metric, actual, expected):
    try:
        evaluator = cls(eval_metric=metric_from(metric))
    except Exception as exc:
        return {"error": error_text(exc), "stage": "construct"}
    try:
        return result_data(evaluator.evaluate_invocations(invocations(actual), invocations(expected)))
    except Exception as exc:
        return {"error": error_text(exc), "stage": "evaluate"}


rows: list[dict] = []


def traj(name, source, metric, actual, expected):
    rows.append({"kind": "tool_trajectory", "name": name, "source": source, "metric": metric,
                 "actual": actual, "expected": expected,
                 "result": run_evaluator(TrajectoryEvaluator, metric, actual, expected)})


def rouge(name, source, metric, actual, expected):
    rows.append({"kind": "response_match", "name": name, "source": source, "metric": metric,
                 "actual": actual, "expected": expected,
                 "result": run_evaluator(RougeEvaluator, metric, actual, expected)})


def crit(match_type="EXACT", threshold=0.5, **extra):
    return {"metric_name": "tool_trajectory_avg_score", "threshold": threshold,
            "criterion": {"threshold": threshold, "match_type": match_type, **extra}}


# --------------------------------------------------------- trajectory tests

def trajectory_tests():
    t = lambda n, a=None: call(n, a if a is not None else {})  # noqa: E731
    exact, in_order, any_order = crit("EXACT"), crit("IN_ORDER"), crit("ANY_ORDER")
    s = TRAJ_TESTS + "::"
    traj("string-match-type-from-criterion-dict", s + "test_trajectory_evaluator_accepts_string_match_type_from_eval_metric_dict",
         crit("ANY_ORDER"), [inv([t("test_func1"), t("test_func2")])], [inv([t("test_func2"), t("test_func1")])])
    one = [inv([call("test_func", {"arg1": "val1"})])]
    traj("equal-tool-calls", s + "test_evaluate_invocations_equal_tool_calls", exact, one, one)
    traj("different-tool-call-names", s + "test_evaluate_invocations_different_tool_call_names", exact,
         [inv([call("test_func1", {"arg1": "val1"})])], [inv([call("test_func2", {"arg1": "val1"})])])
    traj("different-tool-call-args", s + "test_evaluate_invocations_different_tool_call_args", exact,
         [inv([call("test_func", {"arg1": "val1"})])], [inv([call("test_func", {"arg1": "val2"})])])
    traj("different-number-of-tool-calls", s + "test_evaluate_invocations_different_number_of_tool_calls", exact,
         [inv([call("test_func", {"arg1": "val1"})])],
         [inv([call("test_func", {"arg1": "val1"}), call("test_func", {"arg1": "val1"})])])
    traj("no-tool-calls", s + "test_evaluate_invocations_no_tool_calls", exact, [inv([])], [inv([])])
    c1, c2 = call("test_func1", {"arg1": "val1"}), call("test_func2", {"arg1": "val1"})
    traj("multiple-invocations", s + "test_evaluate_invocations_multiple_invocations", exact,
         [inv([c1]), inv([c1])], [inv([c1]), inv([c2])])
    traj("in-order-extra-tool-calls", s + "test_evaluate_invocations_in_order_match_with_extra_tool_calls", in_order,
         [inv([t("t1"), t("t1_1"), t("t2"), t("t2_1"), t("t3"), t("t3_1")])], [inv([t("t1"), t("t2"), t("t3")])])
    traj("in-order-missing-tool-call", s + "test_evaluate_invocations_in_order_match_fails_with_missing_tool_call",
         in_order, [inv([t("t1"), t("t1_1"), t("t2"), t("t2_1"), t("t3_1")])], [inv([t("t1"), t("t2"), t("t4")])])
    traj("in-order-wrong-order", s + "test_evaluate_invocations_in_order_match_fails_with_wrong_order", in_order,
         [inv([t("t1"), t("t3"), t("t2")])], [inv([t("t1"), t("t2"), t("t3")])])
    traj("any-order-extra-different-order",
         s + "test_evaluate_invocations_any_order_match_with_extra_tool_calls_different_order", any_order,
         [inv([t("t2"), t("t2_1"), t("t1"), t("t1_1"), t("t3"), t("t3_1")])], [inv([t("t1"), t("t2"), t("t3")])])
    traj("any-order-missing-tool-call", s + "test_evaluate_invocations_any_order_match_fails_with_missing_tool_call",
         any_order, [inv([t("t1"), t("t1_1"), t("t2"), t("t2_1"), t("t3_1")])], [inv([t("t1"), t("t2"), t("t4")])])
    traj("any-order-duplicates", s + "test_evaluate_invocations_any_order_match_with_duplicates", any_order,
         [inv([t("t1"), t("t2"), t("t3"), t("t1")])], [inv([t("t1"), t("t2"), t("t1")])])
    traj("any-order-duplicates-missing", s + "test_evaluate_invocations_any_order_match_fails_with_duplicates_missing",
         any_order, [inv([t("t1"), t("t2"), t("t3")])], [inv([t("t1"), t("t2"), t("t1")])])
    traj("no-invocations", s + "test_evaluate_invocations_no_invocations", exact, [], [])

    ia = lambda mt: {"metric_name": "tool_trajectory_avg_score",  # noqa: E731
                     "criterion": {"threshold": 0.5, "match_type": mt, "ignore_args": True}}
    cases = [
        ("exact_different_args_pass", "EXACT", [call("t1", {"a": 1}), call("t2", {"b": 2})],
         [call("t1", {"x": 99}), call("t2", {"y": 100})]),
        ("exact_different_names_fail", "EXACT", [t("t1")], [t("t2")]),
        ("exact_different_count_fail", "EXACT", [t("t1"), t("t2")], [t("t1")]),
        ("exact_empty_lists_pass", "EXACT", [], []),
        ("in_order_different_args_pass", "IN_ORDER", [call("t1", {"a": 1}), t("extra"), call("t2", {"b": 2})],
         [call("t1", {"x": 99}), call("t2", {"y": 100})]),
        ("in_order_wrong_order_fail", "IN_ORDER", [t("t2"), t("t1")], [t("t1"), t("t2")]),
        ("in_order_missing_tool_fail", "IN_ORDER", [t("t1")], [t("t1"), t("t2")]),
        ("any_order_different_args_pass", "ANY_ORDER", [call("t2", {"b": 2}), call("t1", {"a": 1})],
         [call("t1", {"x": 99}), call("t2", {"y": 100})]),
        ("any_order_missing_tool_fail", "ANY_ORDER", [t("t1")], [t("t1"), t("t2")]),
    ]
    for test_id, mt, actual, expected in cases:
        traj(f"ignore-args-{test_id}", s + f"test_ignore_args[{test_id}]", ia(mt), [inv(actual)], [inv(expected)])
    traj("ignore-args-false-still-checks-args", s + "test_ignore_args_false_still_checks_args",
         {"metric_name": "tool_trajectory_avg_score",
          "criterion": {"threshold": 0.5, "match_type": "EXACT", "ignore_args": False}},
         [inv([call("t1", {"a": 1})])], [inv([call("t1", {"a": 2})])])
    traj("ignore-args-multiple-invocations-mixed", s + "test_ignore_args_multiple_invocations_mixed", ia("EXACT"),
         [inv([call("t1", {"a": 1})]), inv([t("t1")])], [inv([call("t1", {"z": 99})]), inv([t("t2")])])
    traj("ignore-args-camel-case-config", s + "test_ignore_args_with_camel_case_dict_config",
         {"metric_name": "tool_trajectory_avg_score",
          "criterion": {"threshold": 0.5, "matchType": "EXACT", "ignoreArgs": True}},
         [inv([call("t1", {"a": 1})])], [inv([call("t1", {"z": 999})])])

    # Corners of our own.
    for mt in ("EXACT", "IN_ORDER", "ANY_ORDER"):
        m = crit(mt, 1.0)
        traj(f"ours-null-args-differ-from-empty-{mt}", OURS, m, [inv([call("a")])], [inv([call("a", {})])])
        traj(f"ours-int-equals-float-equals-bool-{mt}", OURS, m, [inv([call("a", {"n": 1, "b": True})])],
             [inv([call("a", {"n": 1.0, "b": 1})])])
        traj(f"ours-nested-key-order-{mt}", OURS, m, [inv([call("a", {"o": {"x": 1, "y": [1, 2]}})])],
             [inv([call("a", {"o": {"y": [1, 2], "x": 1}})])])
        traj(f"ours-list-order-matters-{mt}", OURS, m, [inv([call("a", {"l": [1, 2]})])],
             [inv([call("a", {"l": [2, 1]})])])
        traj(f"ours-call-ids-ignored-{mt}", OURS, m, [inv([call("a", {}, id="x1")])], [inv([call("a", {}, id="y9")])])
        traj(f"ours-no-intermediate-data-{mt}", OURS, m, [inv()], [inv([call("a", {})])])
        traj(f"ours-no-intermediate-data-both-{mt}", OURS, m, [inv()], [inv()])
        traj(f"ours-empty-expected-{mt}", OURS, m, [inv([call("a", {})])], [inv([])])
        traj(f"ours-empty-actual-{mt}", OURS, m, [inv([])], [inv([call("a", {})])])
        traj(f"ours-length-mismatch-{mt}", OURS, m, [inv([]), inv([])], [inv([])])
        traj(f"ours-expected-none-{mt}", OURS, m, [inv([])], None)
        traj(f"ours-in-order-greedy-{mt}", OURS, m, [inv([call("a", {"x": 1}), call("a", {"x": 2}), call("b", {})])],
             [inv([call("a", {"x": 2}), call("b", {})])])
        events = {"invocation_events": [
            {"author": "agent", "content": {"role": "model", "parts": [
                {"text": "checking"}, {"function_call": {"name": "a", "args": {"x": 1}}}]}},
            {"author": "agent", "content": {"role": "user", "parts": [
                {"function_response": {"name": "a", "response": {"ok": True}}}]}},
            {"author": "sub", "content": {"role": "model", "parts": [{"function_call": {"name": "b", "args": {}}}]}},
        ]}
        traj(f"ours-invocation-events-form-{mt}", OURS, m, [inv(intermediate_data=events)],
             [inv([call("a", {"x": 1}), call("b", {})])])
    traj("ours-threshold-only-metric-is-exact", OURS, {"metric_name": "tool_trajectory_avg_score", "threshold": 0.5},
         [inv([call("b", {}), call("a", {})])], [inv([call("a", {}), call("b", {})])])
    traj("ours-no-threshold-anywhere", OURS, {"metric_name": "tool_trajectory_avg_score"}, [inv([])], [inv([])])
    traj("ours-criterion-threshold-wins-over-metric-threshold", OURS,
         {"metric_name": "tool_trajectory_avg_score", "threshold": 0.1,
          "criterion": {"threshold": 0.9, "match_type": "EXACT"}},
         [inv([call("a", {})]), inv([call("b", {})])], [inv([call("a", {})]), inv([call("a", {})])])
    traj("ours-score-equal-to-threshold-passes", OURS, crit("EXACT", 0.5),
         [inv([call("a", {})]), inv([call("b", {})])], [inv([call("a", {})]), inv([call("a", {})])])
    traj("ours-thirds-average", OURS, crit("EXACT", 0.6),
         [inv([call("a", {})]), inv([call("b", {})]), inv([call("a", {})])],
         [inv([call("a", {})]), inv([call("a", {})]), inv([call("a", {})])])
    for spelling in ("exact", " Exact ", "in-order", "IN ORDER", "Any_Order", 0, 1, 2, "1", "random string"):
        traj(f"ours-match-type-spelling-{spelling!r}", OURS,
             {"metric_name": "tool_trajectory_avg_score", "criterion": {"threshold": 1.0, "match_type": spelling}},
             [inv([call("b", {}), call("a", {})])], [inv([call("a", {}), call("b", {})])])


# -------------------------------------------------------------- ROUGE tests

def rouge_scores(name, source, candidate, reference, assertion=None):
    score = _calculate_rouge_1_scores(candidate, reference)
    row = {"kind": "rouge1", "name": name, "source": source, "candidate": candidate, "reference": reference,
           "precision": score.precision, "recall": score.recall, "fmeasure": score.fmeasure}
    if assertion:
        # What the upstream test asserts, and whether the pinned ADK meets it.
        op, value = assertion
        row["upstream_assertion"] = f"fmeasure {op} {value}"
        row["upstream_assertion_holds"] = {
            "==": score.fmeasure == value, ">": score.fmeasure > value, "<": score.fmeasure < value,
            "~": abs(score.fmeasure - value) <= 0.1 * abs(value)}[op]
    rows.append(row)


def rouge_tests():
    s = ROUGE_TESTS + "::"
    rouge_scores("empty-candidate-and-reference", s + "test_calculate_rouge_1_scores_empty_candidate_and_reference", "", "")
    rouge_scores("empty-candidate", s + "test_calculate_rouge_1_scores_empty_candidate", "", "This is a test reference.")
    rouge_scores("empty-reference", s + "test_calculate_rouge_1_scores_empty_reference", "This is a test candidate response.", "")
    rouge_scores("two-thirds-four-fifths", s + "test_calculate_rouge_1_scores", "This is a test candidate response.",
                 "This is a test reference.")
    multi = [
        (["The quick brown fox jumps.", "hello world"], ["The quick brown fox jumps over the lazy dog.", "hello"]),
        (["This is a test.", "Another test case."], ["This is a test.", "This is a different test."]),
        (["No matching words here.", "Second candidate."], ["Completely different text.", "Another reference."]),
        (["Same words", "Same words"], ["Same words", "Same words"]),
    ]
    for k, (cands, refs) in enumerate(multi):
        rouge(f"multiple-invocations-{k}", s + f"test_rouge_evaluator_multiple_invocations[{k}]",
              {"metric_name": "response_match_score", "threshold": 0.8},
              [inv(response=c, user="This is a test query.") for c in cands],
              [inv(response=r, user="This is a test query.") for r in refs])
    c = s + "TestNonEnglishRougeScoring::"
    for name, cand, ref, assertion in [
        ("test_thai_greeting_identical", "สวัสดี", "สวัสดี", ("==", 1.0)),
        ("test_thai_sentence_with_overlap", "สวัสดี คุณ สบายดี ไหม วันนี้", "สวัสดี คุณ อากาศ เป็น อย่างไร", ("<", 1.0)),
        ("test_thai_polite_particle_variation", "สวัสดี ครับ", "สวัสดี ค่ะ", ("~", 0.5)),
        ("test_chinese_greeting_identical", "你好世界", "你好世界", ("==", 1.0)),
        ("test_chinese_sentence_with_overlap", "今天 天气 很好", "今天 我 很 开心", ("<", 1.0)),
        ("test_chinese_different_sentences", "苹果 橙子 香蕉", "汽车 飞机 火车", ("==", 0)),
        ("test_arabic_greeting_identical", "مرحبا بالعالم", "مرحبا بالعالم", ("==", 1.0)),
        ("test_arabic_sentence_with_overlap", "أنا أحب القراءة والكتابة", "أنا أحب السفر والموسيقى", ("<", 1.0)),
        ("test_japanese_greeting_identical", "こんにちは", "こんにちは", ("==", 1.0)),
        ("test_japanese_sentence_with_overlap", "今日 は 天気 が いい です", "今日 は 仕事 が 忙しい です", (">", 0.5)),
        ("test_korean_greeting_identical", "안녕하세요", "안녕하세요", ("==", 1.0)),
        ("test_korean_sentence_with_overlap", "오늘 날씨가 좋습니다", "오늘 기분이 좋습니다", ("<", 1.0)),
        ("test_portuguese_sentence_identical", "Olá, como você está hoje?", "Olá, como você está hoje?", ("==", 1.0)),
        ("test_portuguese_sentence_with_overlap", "Eu gosto de programação e música", "Eu gosto de viajar e cozinhar", (">", 0.5)),
        ("test_french_sentence_with_accents", "Où est la bibliothèque s'il vous plaît?", "Où est la gare s'il vous plaît?", (">", 0.7)),
        ("test_german_sentence_with_umlauts", "Ich möchte ein Brötchen und Käse", "Ich möchte ein Brötchen und Wurst", (">", 0.8)),
        ("test_spanish_sentence_with_accents", "¿Cómo estás? Estoy muy bien gracias", "¿Cómo estás? Estoy cansado hoy", (">", 0.4)),
        ("test_english_stemming_running_vs_run", "I am running fast", "I am run fast", ("==", 1.0)),
        ("test_english_stemming_multiple_forms", "The dogs are running and jumping happily", "The dog is run and jump happy", (">", 0.7)),
        ("test_english_preserves_exact_matching", "The quick brown fox jumps over the lazy dog",
         "The quick brown fox jumps over the lazy dog", ("==", 1.0)),
        ("test_mixed_english_chinese", "Hello 世界 welcome to Python", "Hello 世界 welcome to Java", (">", 0.7)),
        ("test_mixed_with_numbers", "订单号 12345 已确认", "订单号 12345 已发货", (">", 0.5)),
    ]:
        rouge_scores(name.removeprefix("test_").replace("_", "-"), c + name, cand, ref, assertion)

    m = {"metric_name": "response_match_score", "threshold": 0.5}
    rouge("ours-missing-final-response-scored-as-empty", OURS, m, [inv()], [inv(response="The answer is 42.")])
    rouge("ours-both-final-responses-missing", OURS, m, [inv()], [inv()])
    rouge("ours-identical-responses", OURS, m, [inv(response="The answer is 42.")], [inv(response="The answer is 42.")])
    rouge("ours-null-text-part", OURS, m, [inv(response={"parts": [{"text": None}], "role": "model"})],
          [inv(response={"parts": [{"text": None}], "role": "model"})])
    rouge("ours-empty-parts", OURS, m, [inv(response={"parts": [], "role": "model"})], [inv(response="x")])
    rouge("ours-parts-joined-with-newline", OURS, m,
          [inv(response={"parts": [{"text": "The answer"}, {"text": "is 42."}], "role": "model"})],
          [inv(response="The answer is 42.")])
    rouge("ours-thought-part-text-counts", OURS, m,
          [inv(response={"parts": [{"text": "let me think", "thought": True}, {"text": "The answer is 42."}],
                         "role": "model"})],
          [inv(response="The answer is 42.")])
    rouge("ours-function-call-part-has-no-text", OURS, m,
          [inv(response={"parts": [{"function_call": {"name": "a", "args": {}}}, {"text": "Done."}], "role": "model"})],
          [inv(response="Done.")])
    rouge("ours-no-invocations", OURS, m, [], [])
    rouge("ours-length-mismatch", OURS, m, [inv(response="a")], [])
    rouge("ours-expected-none", OURS, m, [inv(response="a")], None)
    rouge("ours-criterion-threshold", OURS,
          {"metric_name": "response_match_score", "criterion": {"threshold": 0.9}},
          [inv(response="the cat sat on mats")], [inv(response="the cat sat")])
    rouge("ours-rouge-no-threshold-anywhere", OURS, {"metric_name": "response_match_score"}, [inv(response="a")],
          [inv(response="a")])
    rouge("ours-mean-over-invocations", OURS, {"metric_name": "response_match_score", "threshold": 0.8},
          [inv(response="the cat sat on mats"), inv(response="a b c")],
          [inv(response="the cat sat"), inv(response="a b c")])


# ------------------------------------------- a whole eval case, as ADK runs it

def run_service(eval_case: dict, actual, metrics: list[dict]):
    """LocalEvalService.evaluate on given inferences: the per-case verdict."""
    case = EvalCase.model_validate(copy.deepcopy(eval_case))
    manager = InMemoryEvalSetsManager()
    manager.create_eval_set(app_name="app", eval_set_id="set")
    manager.add_eval_case(app_name="app", eval_set_id="set", eval_case=case)
    service = LocalEvalService(root_agent=BaseAgent(name="agent"), eval_sets_manager=manager)
    inference = InferenceResult(app_name="app", eval_set_id="set", eval_case_id=case.eval_id,
                                inferences=invocations(actual), session_id=None,
                                status=InferenceStatus.SUCCESS)
    request = EvaluateRequest(inference_results=[inference],
                              evaluate_config=EvaluateConfig(eval_metrics=[metric_from(m) for m in metrics]))

    async def collect():
        return [r async for r in service.evaluate(evaluate_request=request)]

    try:
        results = asyncio.run(collect())
    except Exception as exc:
        return {"error": error_text(exc)}
    return case_result_data(results[0], runs=[results[0]])


def case_result_data(result, runs):
    per_metric = {}
    for per_inv in result.eval_metric_result_per_invocation:
        for m in per_inv.eval_metric_results:
            per_metric.setdefault(m.metric_name, []).append({"score": m.score, "eval_status": m.eval_status.name})
    grouped = ae.AgentEvaluator._get_eval_metric_results_with_invocation(runs)
    failures = ae.AgentEvaluator._process_metrics_and_get_failures(
        eval_metric_results=grouped, print_detailed_results=False, agent_module="agent")
    failures += ae.AgentEvaluator._get_failures_from_final_eval_status(
        eval_id=result.eval_id, eval_results_per_eval_id=runs, agent_module="agent")
    return {
        "final_eval_status": result.final_eval_status.name,
        "overall": [{"metric_name": m.metric_name, "score": m.score, "eval_status": m.eval_status.name,
                     "threshold": m.threshold} for m in result.overall_eval_metric_results],
        "per_invocation": per_metric,
        "agent_evaluator_failures": failures,
        "adk_eval_cli_counts_as": "passed" if result.final_eval_status.name == "PASSED" else "failed",
    }


def service_tests():
    tm = {"metric_name": "tool_trajectory_avg_score", "threshold": 1.0}
    rm = {"metric_name": "response_match_score", "threshold": 0.8}
    conv = [inv([call("a", {"x": 1})], response="The answer is 42.")]
    cases = [
        ("zero-invocations", {"eval_id": "c", "conversation": []}, [], [tm, rm]),
        ("actual-equals-expected", {"eval_id": "c", "conversation": conv}, conv, [tm, rm]),
        ("tool-args-changed", {"eval_id": "c", "conversation": conv},
         [inv([call("a", {"x": 2})], response="The answer is 42.")], [tm, rm]),
        ("missing-final-response", {"eval_id": "c", "conversation": conv}, [inv([call("a", {"x": 1})])], [tm, rm]),
        ("inference-count-differs", {"eval_id": "c", "conversation": conv}, conv + conv, [tm, rm]),
        ("unknown-metric-not-evaluated", {"eval_id": "c", "conversation": conv}, conv,
         [tm, {"metric_name": "no_such_metric", "threshold": 0.5}]),
        ("only-unknown-metric", {"eval_id": "c", "conversation": conv}, conv,
         [{"metric_name": "no_such_metric", "threshold": 0.5}]),
        ("conversation-scenario-needs-expected", {
            "eval_id": "c", "conversation_scenario": {"starting_prompt": "Hello", "conversation_plan": "Ask"}},
         [inv([], response="Hi!", user="Hello")], [tm, rm]),
        ("no-metrics", {"eval_id": "c", "conversation": conv}, conv, []),
        ("efficiency-metrics-informational", {"eval_id": "c", "conversation": conv}, conv,
         [tm, {"metric_name": "tool_call_count_v1"}]),
    ]
    for name, case, actual, metrics in cases:
        rows.append({"kind": "eval_case", "name": f"service-{name}", "source": OURS, "eval_case": case,
                     "actual": actual, "metrics": metrics, "result": run_service(case, actual, metrics)})


# ------------------------------------------------------------ test_config.json

def evaluator_view(metric: EvalMetric):
    """Which evaluator ADK's registry picks for a metric, and what it read."""
    try:
        ev = DEFAULT_METRIC_EVALUATOR_REGISTRY.get_evaluator(metric)
    except Exception as exc:
        return {"error": error_text(exc)}
    view = {"evaluator": type(ev).__name__}
    for attr in ("_threshold", "_match_type", "_ignore_args"):
        if hasattr(ev, attr):
            value = getattr(ev, attr)
            view[attr.lstrip("_")] = value.name if hasattr(value, "name") else value
    return view


def config_rows():
    out = []
    configs = [
        ("number-thresholds", {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.5}}),
        ("integer-threshold", {"criteria": {"tool_trajectory_avg_score": 1}}),
        ("string-threshold", {"criteria": {"tool_trajectory_avg_score": "0.5"}}),
        ("bool-threshold", {"criteria": {"tool_trajectory_avg_score": True}}),
        ("null-threshold", {"criteria": {"tool_trajectory_avg_score": None}}),
        ("list-threshold", {"criteria": {"tool_trajectory_avg_score": [1.0]}}),
        ("threshold-above-one", {"criteria": {"response_match_score": 2.0}}),
        ("object-threshold-only", {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.8}}}),
        ("object-match-type", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"}}}),
        ("object-match-type-lower-dash", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "any-order"}}}),
        ("object-match-type-int", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": 2}}}),
        ("object-match-type-int-string", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "2"}}}),
        ("object-match-type-unknown", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "FUZZY"}}}),
        ("object-camel-case", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "matchType": "IN_ORDER", "ignoreArgs": True}}}),
        ("object-ignore-args", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "ignore_args": True}}}),
        ("object-ignore-args-string", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "ignore_args": "yes"}}}),
        ("object-ignore-args-bad", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "ignore_args": "maybe"}}}),
        ("object-without-threshold", {"criteria": {"tool_trajectory_avg_score": {"match_type": "IN_ORDER"}}}),
        ("object-extra-keys-kept", {"criteria": {"tool_trajectory_avg_score": {"threshold": 1.0, "foo": 1}}}),
        ("response-match-object", {"criteria": {"response_match_score": {"threshold": 0.5}}}),
        ("response-match-with-match-type", {"criteria": {"response_match_score": {"threshold": 0.5, "match_type": "IN_ORDER"}}}),
        ("judge-metric", {"criteria": {"final_response_match_v2": {
            "threshold": 0.5, "judge_model_options": {"judge_model": "my favorite LLM", "num_samples": 5}}}}),
        ("hallucinations-with-user-simulator", {"criteria": {"hallucinations_v1": {"threshold": 0.8}},
                                                "user_simulator_config": {"model": "gemini-2.5-flash",
                                                                          "max_allowed_invocations": 10}}),
        ("unknown-metric", {"criteria": {"my_metric": 0.5}}),
        ("efficiency-metric-named", {"criteria": {"tool_call_count_v1": 1.0}}),
        ("empty-criteria", {"criteria": {}}),
        ("no-criteria-key", {}),
        ("unknown-top-level-key", {"criteria": {"tool_trajectory_avg_score": 1.0}, "foo": 1}),
        ("criteria-not-an-object", {"criteria": [1.0]}),
    ]
    for name, body in configs:
        row = {"kind": "test_config", "name": name, "test_config": body}
        try:
            config = EvalConfig.model_validate(copy.deepcopy(body))
        except Exception as exc:
            row["result"] = {"error": error_text(exc), "stage": "parse"}
            out.append(row)
            continue
        metrics = get_eval_metrics_from_config(config)
        row["result"] = {
            "metrics": [{"metric_name": m.metric_name, "threshold": m.threshold,
                         "criterion": None if m.criterion is None else m.criterion.model_dump(mode="json"),
                         "resolved": evaluator_view(m)} for m in metrics],
            "old_format_criteria_allowed": all(k in ae.ALLOWED_CRITERIA for k in config.criteria),
        }
        out.append(row)
    out.append({"kind": "test_config", "name": "missing-file-default", "test_config": None,
                "result": {"metrics": [{"metric_name": m.metric_name, "threshold": m.threshold,
                                        "criterion": None if m.criterion is None else m.criterion.model_dump(mode="json"),
                                        "resolved": evaluator_view(m)}
                                       for m in get_eval_metrics_from_config(
                                           ae.get_evaluation_criteria_or_default("/nonexistent/test_config.json"))]}})
    for spelling in ["exact", "EXACT", " exact ", "in order", "IN ORDER", "In OrDeR", "in-order", "IN-ORDER",
                     "in_order", "any order", "ANY ORDER", "any-order", "ANY-ORDER", "any_order", "random string",
                     "", "inorder", "IN__ORDER", "\tin order\n", 0, 1, 2, 3, 1.0, True]:
        row = {"kind": "match_type", "name": f"match-type-{spelling!r}",
               "source": TRAJ_TESTS + "::test_tool_trajectory_criterion_normalizes_string_match_type"
               if isinstance(spelling, str) and spelling.strip().lower().replace("-", " ").replace("_", " ")
               in ("exact", "in order", "any order") else OURS,
               "match_type": spelling}
        try:
            row["result"] = {"match_type": ToolTrajectoryCriterion(threshold=0.5, match_type=spelling).match_type.name}
        except Exception as exc:
            row["result"] = {"error": error_text(exc)}
        out.append(row)
    return out


def main():
    trajectory_tests()
    rouge_tests()
    service_tests()
    write_jsonl(VECTORS / "adk_tests.jsonl", rows)
    write_jsonl(VECTORS / "adk_config.jsonl", config_rows())


if __name__ == "__main__":
    main()
