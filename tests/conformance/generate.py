"""Write conformance vectors by running the reference implementations.

    tests/conformance/generate.sh      # makes its own venv, then runs this

Every vector records inputs and what the reference returned (or that it
raised). tests/conformance.rs checks the Rust scorers against them without
Python. The generator is seeded, so a rerun with the same pinned packages
writes the same files.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import random
import sys
from pathlib import Path

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

from agentevals.trajectory.match import create_trajectory_match_evaluator  # noqa: E402
from google.adk.evaluation.eval_case import IntermediateData, Invocation  # noqa: E402
from google.adk.evaluation.eval_metrics import EvalMetric, ToolTrajectoryCriterion  # noqa: E402
from google.adk.evaluation.final_response_match_v1 import (  # noqa: E402
    _UnicodeAwareTokenizer,
    _calculate_rouge_1_scores,
)
from google.adk.evaluation.trajectory_evaluator import TrajectoryEvaluator  # noqa: E402
from google.genai import types as genai_types  # noqa: E402
from nltk.stem.porter import PorterStemmer  # noqa: E402

OUT = Path(__file__).resolve().parent / "vectors"
rng = random.Random(20261202)


def write(name: str, rows: list[dict]) -> None:
    OUT.mkdir(exist_ok=True)
    with open(OUT / name, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{name}: {len(rows)} vectors", file=sys.stderr)


# ---------------------------------------------------------------- agentevals

TOOLS = ["get_weather", "search", "lookup"]
KEYS = ["city", "q", "opts", "n"]
VALUES = [1, 1.0, True, False, 0, 0.0, "London", "Paris", None, [1, 2], [2, 1], {"units": "c"}, {"units": "f", "days": 1}]
MODES = ["strict", "unordered", "subset", "superset"]
ARGS_MODES = ["exact", "ignore", "subset", "superset"]
OVERRIDE_CHOICES = ["exact", "ignore", "subset", "superset", ["city"], ["opts.units"], ["n", "q"], ["opts.units", "city"], []]


def rand_args() -> dict:
    return {k: copy.deepcopy(rng.choice(VALUES)) for k in rng.sample(KEYS, rng.randint(0, 3))}


def dump_args(args: dict):
    """JSON text in varied layouts, or the object itself."""
    roll = rng.random()
    if roll < 0.15:
        return args
    items = list(args.items())
    rng.shuffle(items)
    if roll < 0.5:
        return json.dumps(dict(items))
    return json.dumps(dict(items), separators=(",", ":"), sort_keys=True)


def tool_call(name: str, args: dict, index: int) -> dict:
    call = {"type": "function", "function": {"name": name, "arguments": dump_args(args)}}
    if rng.random() < 0.7:
        call["id"] = f"call_{index}"
    return call


def trajectory(groups: list[list[tuple[str, dict]]], answer: bool = True) -> list[dict]:
    """A user turn, then per group an assistant message with its calls and
    one tool message per call, then (maybe) a final answer."""
    messages = [{"role": rng.choice(["user", "user", "human"]), "content": "question"}]
    counter = 0
    for group in groups:
        calls = []
        for name, args in group:
            calls.append(tool_call(name, args, counter))
            counter += 1
        messages.append({"role": rng.choice(["assistant", "assistant", "ai"]), "content": "", "tool_calls": calls})
        for call in calls:
            messages.append({"role": "tool", "content": "result", "tool_call_id": call.get("id", "")})
    if answer:
        messages.append({"role": "assistant", "content": "answer"})
    return messages


def rand_groups() -> list[list[tuple[str, dict]]]:
    return [[(rng.choice(TOOLS), rand_args()) for _ in range(rng.randint(1, 3))] for _ in range(rng.randint(0, 3))]


def equalish(value):
    """A value Python considers equal but spelled differently."""
    if value is True:
        return 1
    if value == 1 and not isinstance(value, bool):
        return rng.choice([1.0, True])
    if value == 0 and not isinstance(value, bool):
        return rng.choice([0.0, False])
    if isinstance(value, dict):
        return dict(reversed(list(value.items())))
    return value


def mutate(groups):
    groups = copy.deepcopy(groups)
    flat = [(g, i) for g in range(len(groups)) for i in range(len(groups[g]))]
    kind = rng.choice(
        ["same", "same", "drop", "duplicate", "swap_groups", "swap_in_group", "change_value", "equal_value",
         "add_key", "remove_key", "rename", "extra_call", "merge", "empty", "split"]
    )
    if kind == "drop" and flat:
        g, i = rng.choice(flat)
        del groups[g][i]
        groups = [x for x in groups if x]
    elif kind == "duplicate" and flat:
        g, i = rng.choice(flat)
        groups[g].insert(i, copy.deepcopy(groups[g][i]))
    elif kind == "swap_groups" and len(groups) > 1:
        a, b = rng.sample(range(len(groups)), 2)
        groups[a], groups[b] = groups[b], groups[a]
    elif kind == "swap_in_group":
        for group in groups:
            rng.shuffle(group)
    elif kind in ("change_value", "equal_value", "add_key", "remove_key") and flat:
        g, i = rng.choice(flat)
        name, args = groups[g][i]
        if kind == "change_value" and args:
            k = rng.choice(list(args))
            args[k] = copy.deepcopy(rng.choice(VALUES))
        elif kind == "equal_value" and args:
            k = rng.choice(list(args))
            args[k] = equalish(args[k])
        elif kind == "add_key":
            args[rng.choice(KEYS + ["extra"])] = copy.deepcopy(rng.choice(VALUES))
        elif kind == "remove_key" and args:
            del args[rng.choice(list(args))]
    elif kind == "rename" and flat:
        g, i = rng.choice(flat)
        groups[g][i] = (rng.choice(TOOLS), groups[g][i][1])
    elif kind == "extra_call":
        if groups and rng.random() < 0.5:
            rng.choice(groups).append((rng.choice(TOOLS), rand_args()))
        else:
            groups.append([(rng.choice(TOOLS), rand_args())])
    elif kind == "merge" and len(groups) > 1:
        groups = [sum(groups, [])]
    elif kind == "empty":
        groups = []
    elif kind == "split":
        groups = [[c] for group in groups for c in group]
    return groups, kind


def run_match(mode, args_mode, overrides, outputs, reference):
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode=mode,
        tool_args_match_mode=args_mode,
        tool_args_match_overrides=overrides,
    )
    try:
        result = evaluator(outputs=copy.deepcopy(outputs), reference_outputs=copy.deepcopy(reference))
        return {"key": result["key"], "score": result["score"]}
    except Exception as exc:  # the reference raised: the vector expects an error
        return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"}


def match_case(name, mode, args_mode, overrides, outputs, reference, note=""):
    row = {
        "name": name,
        "mode": mode,
        "args_mode": args_mode,
        "overrides": overrides,
        "outputs": outputs,
        "reference": reference,
        "expected": run_match(mode, args_mode, overrides, outputs, reference),
    }
    if note:
        row["note"] = note
    return row


def call(name, args):
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def assistant(*calls, role="assistant"):
    return {"role": role, "content": "", "tool_calls": list(calls)}


def user(text="q", role="user"):
    return {"role": role, "content": text}


def match_corners():
    rows = []
    a, a_xy = {"x": 1}, {"x": 1, "y": 2}
    for mode in MODES:
        rows.append(match_case(f"duplicates-ref-aa-out-a-{mode}", mode, "exact", None,
                               [assistant(call("a", {}))], [assistant(call("a", {})), assistant(call("a", {}))]))
        rows.append(match_case(f"duplicates-ref-a-out-aa-{mode}", mode, "exact", None,
                               [assistant(call("a", {}), call("a", {}))], [assistant(call("a", {}))]))
        for args_mode in ARGS_MODES:
            rows.append(match_case(f"empty-both-{mode}-{args_mode}", mode, args_mode, None, [], []))
            rows.append(match_case(f"empty-output-{mode}-{args_mode}", mode, args_mode, None, [],
                                   [user(), assistant(call("a", a))]))
            rows.append(match_case(f"empty-reference-{mode}-{args_mode}", mode, args_mode, None,
                                   [user(), assistant(call("a", a))], []))
            rows.append(match_case(f"greedy-miss-{mode}-{args_mode}", mode, args_mode, None,
                                   [assistant(call("a", a_xy), call("a", a))],
                                   [assistant(call("a", a), call("a", a_xy))]))
            rows.append(match_case(f"greedy-miss-separate-{mode}-{args_mode}", mode, args_mode, None,
                                   [assistant(call("a", a_xy)), assistant(call("a", a))],
                                   [assistant(call("a", a)), assistant(call("a", a_xy))]))
            rows.append(match_case(f"swapped-matcher-narrow-output-{mode}-{args_mode}", mode, args_mode, None,
                                   [assistant(call("a", a))], [assistant(call("a", a_xy))]))
            rows.append(match_case(f"swapped-matcher-wide-output-{mode}-{args_mode}", mode, args_mode, None,
                                   [assistant(call("a", a_xy))], [assistant(call("a", a))]))
        for left, right in [(1, 1.0), (True, 1), (False, 0), (1, True), (0.0, False), ([1, 2], [2, 1]), ({"b": 1, "a": 2}, {"a": 2, "b": 1.0})]:
            rows.append(match_case(f"python-equality-{json.dumps(left)}-{json.dumps(right)}-{mode}", mode, "exact", None,
                                   [assistant(call("a", {"v": left}))], [assistant(call("a", {"v": right}))]))
        rows.append(match_case(f"empty-tool-calls-list-{mode}", mode, "exact", None,
                               [user(), {"role": "assistant", "content": "x", "tool_calls": []}],
                               [user(), {"role": "assistant", "content": "y"}]))
        rows.append(match_case(f"role-aliases-{mode}", mode, "exact", None,
                               [user(role="human"), assistant(call("a", a), role="ai")],
                               [user(), assistant(call("a", a))]))
        rows.append(match_case(f"invalid-json-arguments-{mode}", mode, "exact", None,
                               [assistant({"type": "function", "function": {"name": "a", "arguments": "{bad"}})],
                               [assistant(call("a", {}))]))
        rows.append(match_case(f"non-object-arguments-{mode}", mode, "exact", None,
                               [assistant({"type": "function", "function": {"name": "a", "arguments": "[1, 2]"}})],
                               [assistant(call("a", {}))]))
        rows.append(match_case(f"keys-override-null-equals-missing-{mode}", mode, "exact", {"a": ["x", "opts.units"]},
                               [assistant(call("a", {"x": 1, "opts": None, "z": 9}))],
                               [assistant(call("a", {"x": 1.0}))]))
        rows.append(match_case(f"keys-override-nested-differs-{mode}", mode, "exact", {"a": ["opts.units"]},
                               [assistant(call("a", {"opts": {"units": "c"}}))],
                               [assistant(call("a", {"opts": {"units": "f"}}))]))
        rows.append(match_case(f"keys-override-list-index-not-supported-{mode}", mode, "exact", {"a": ["v.0"]},
                               [assistant(call("a", {"v": [1]}))], [assistant(call("a", {"v": [2]}))]))
        rows.append(match_case(f"empty-override-falls-back-{mode}", mode, "exact", {"a": []},
                               [assistant(call("a", {"x": 1}))], [assistant(call("a", {"x": 2}))]))
        rows.append(match_case(f"mode-override-{mode}", mode, "exact", {"a": "ignore"},
                               [assistant(call("a", {"x": 1}))], [assistant(call("a", {"x": 2}))]))
        rows.append(match_case(f"object-arguments-{mode}", mode, "exact", None,
                               [assistant({"type": "function", "function": {"name": "a", "arguments": {"x": 1}}})],
                               [assistant(call("a", {"x": 1}))]))
        rows.append(match_case(f"unknown-override-mode-{mode}", mode, "exact", {"a": "bogus"},
                               [assistant(call("a", {"x": 1}))], [assistant(call("a", {"x": 2}))],
                               note="agentevals reads an unknown override mode as ignore; kagent-evals rejects it"))
    rows.append(match_case("strict-calls-reordered-within-a-message", "strict", "exact", None,
                           [assistant(call("a", {}), call("b", {}))], [assistant(call("b", {}), call("a", {}))]))
    rows.append(match_case("strict-messages-reordered", "strict", "exact", None,
                           [assistant(call("a", {})), assistant(call("b", {}))],
                           [assistant(call("b", {})), assistant(call("a", {}))]))
    rows.append(match_case("strict-role-differs", "strict", "exact", None,
                           [user(), {"role": "assistant", "content": "x"}], [user(), {"role": "system", "content": "x"}]))
    rows.append(match_case("strict-content-not-compared", "strict", "exact", None,
                           [user("a"), {"role": "assistant", "content": "x"}], [user("b"), {"role": "assistant", "content": "y"}]))
    rows.append(match_case("unknown-role-is-an-error", "superset", "exact", None,
                           [{"role": "bogus", "content": ""}], []))
    return rows


def match_vectors():
    rows = match_corners()
    for i in range(720):
        mode = MODES[i % 4]
        args_mode = ARGS_MODES[(i // 4) % 4]
        groups = rand_groups()
        mutated, kind = mutate(groups)
        overrides = None
        if rng.random() < 0.4:
            overrides = {t: copy.deepcopy(rng.choice(OVERRIDE_CHOICES)) for t in rng.sample(TOOLS, rng.randint(1, 2))}
        reference = trajectory(groups, answer=rng.random() < 0.8)
        outputs = trajectory(mutated, answer=rng.random() < 0.8)
        rows.append(match_case(f"random-{i}-{kind}", mode, args_mode, overrides, outputs, reference))
    write("agentevals_match.jsonl", rows)


# ----------------------------------------------------------------------- ADK

ADK_NAMES = ["search", "lookup", "book"]
ADK_ARGS = [None, {}, {"q": "x"}, {"q": "x", "n": 1}, {"n": 1.0}, {"q": "y"}]
MATCH_TYPE_SPELLINGS = {
    "EXACT": ["EXACT", "exact", " Exact ", 0],
    "IN_ORDER": ["IN_ORDER", "in-order", "in order", 1],
    "ANY_ORDER": ["ANY_ORDER", "any_order", "Any-Order", 2],
}


def rand_uses():
    return [{"name": rng.choice(ADK_NAMES), "args": copy.deepcopy(rng.choice(ADK_ARGS))} for _ in range(rng.randint(0, 4))]


def mutate_uses(uses):
    uses = copy.deepcopy(uses)
    kind = rng.choice(["same", "same", "drop", "extra", "shuffle", "args", "rename", "dup"])
    if kind == "drop" and uses:
        del uses[rng.randrange(len(uses))]
    elif kind == "extra":
        uses.insert(rng.randint(0, len(uses)), {"name": rng.choice(ADK_NAMES), "args": copy.deepcopy(rng.choice(ADK_ARGS))})
    elif kind == "shuffle":
        rng.shuffle(uses)
    elif kind == "args" and uses:
        rng.choice(uses)["args"] = copy.deepcopy(rng.choice(ADK_ARGS))
    elif kind == "rename" and uses:
        rng.choice(uses)["name"] = rng.choice(ADK_NAMES)
    elif kind == "dup" and uses:
        i = rng.randrange(len(uses))
        uses.insert(i, copy.deepcopy(uses[i]))
    return uses


def invocation(uses):
    calls = [genai_types.FunctionCall(name=u["name"], args=u["args"]) for u in uses]
    return Invocation(user_content=genai_types.Content(parts=[genai_types.Part(text="q")]),
                      intermediate_data=IntermediateData(tool_uses=calls))


def run_adk(match_type, actual, expected):
    metric = EvalMetric(metric_name="tool_trajectory_avg_score",
                        criterion=ToolTrajectoryCriterion(threshold=1.0, match_type=match_type))
    try:
        result = TrajectoryEvaluator(eval_metric=metric).evaluate_invocations(
            [invocation(u) for u in actual], [invocation(u) for u in expected])
        return {"overall": result.overall_score, "per_invocation": [r.score for r in result.per_invocation_results]}
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"}


def adk_vectors():
    rows = []
    for i in range(320):
        canonical = rng.choice(list(MATCH_TYPE_SPELLINGS))
        spelling = rng.choice(MATCH_TYPE_SPELLINGS[canonical])
        count = rng.randint(1, 3)
        actual = [rand_uses() for _ in range(count)]
        expected = [mutate_uses(u) for u in actual]
        if rng.random() < 0.05:
            expected = expected[:-1] or [[]] * 2
        rows.append({"name": f"random-{i}", "match_type": spelling, "actual": actual, "expected": expected,
                     "result": run_adk(spelling, actual, expected)})
    for canonical, spellings in MATCH_TYPE_SPELLINGS.items():
        rows.append({"name": f"empty-expected-{canonical}", "match_type": spellings[0], "actual": [[{"name": "a", "args": {}}]],
                     "expected": [[]], "result": run_adk(spellings[0], [[{"name": "a", "args": {}}]], [[]])})
        rows.append({"name": f"empty-actual-{canonical}", "match_type": spellings[0], "actual": [[]],
                     "expected": [[{"name": "a", "args": {}}]], "result": run_adk(spellings[0], [[]], [[{"name": "a", "args": {}}]])})
        rows.append({"name": f"null-args-differ-from-empty-{canonical}", "match_type": spellings[0],
                     "actual": [[{"name": "a", "args": None}]], "expected": [[{"name": "a", "args": {}}]],
                     "result": run_adk(spellings[0], [[{"name": "a", "args": None}]], [[{"name": "a", "args": {}}]])})
        rows.append({"name": f"int-equals-float-{canonical}", "match_type": spellings[0],
                     "actual": [[{"name": "a", "args": {"n": 1}}]], "expected": [[{"name": "a", "args": {"n": 1.0}}]],
                     "result": run_adk(spellings[0], [[{"name": "a", "args": {"n": 1}}]], [[{"name": "a", "args": {"n": 1.0}}]])})
    write("adk_tool_trajectory.jsonl", rows)


# --------------------------------------------------------------------- ROUGE

SENTENCES = [
    "The current weather in London is 73.2 F with 63% humidity.",
    "Currently in **London**, it's a pleasant **73.2°F** with **63% humidity** and a light breeze at **9.2 mph**",
    "London: 73 degrees, humid, light breeze.",
    "It is raining in Paris today; temperatures around 18°C.",
    "I don't have a tool to look that up, but I can search for users.",
    "Here's what I found for themsquared on GitHub: user ID 5358781.",
    "dying lying tying skies news innings outings cannings proceed exceed succeed howe",
    "The generously analogous controllers were relational, conditional and radically hopeful.",
    "running runner runs ran easily fairly happiness happily agreed plastered motoring",
    "3,000 users; 2.5% growth; version 1.2.3-rc4; id=abc_def; e-mail: a@b.co",
    "café naïve résumé Straße façade coöperate",
    "Ｆｕｌｌｗｉｄｔｈ ＬＥＴＴＥＲＳ and ①②③ and ﬁne ligatures",
    "東京の天気は晴れです。気温は２５度。",
    "안녕하세요 서울 날씨는 맑음",
    "カタカナ・ひらがな混じりの文",
    "สวัสดีครับ วันนี้อากาศดี",
    "ສະບາຍດີ ພາສາລາວ",
    "សួស្តី ភាសាខ្មែរ",
    "မင်္ဂလာပါ မြန်မာ",
    "नमस्ते दुनिया, मौसम अच्छा है",
    "مرحبا بالعالم، الطقس جميل",
    "Ελληνικά ΣΟΦΟΣ σοφός",
    "emoji ☀️ 🌧️ 👍🏽 weather!!",
    "e\u0301 combining acute and a\u0308 umlaut",
    "İstanbul DİYARBAKIR ıi",
    "",
    "   \t\n  ",
    "!!! ??? ...",
    "a an the of in on at",
    "weather weather weather london",
]


def rouge_row(name, candidate, reference):
    score = _calculate_rouge_1_scores(candidate, reference)
    tokenizer = _UnicodeAwareTokenizer(use_stemmer=True)
    return {"name": name, "candidate": candidate, "reference": reference,
            "precision": score.precision, "recall": score.recall, "fmeasure": score.fmeasure,
            "candidate_tokens": tokenizer.tokenize(candidate), "reference_tokens": tokenizer.tokenize(reference)}


def rouge_vectors():
    rows = [rouge_row("known-0.7499999999999999", "the cat sat on mats", "the cat sat")]
    for i, sentence in enumerate(SENTENCES):
        rows.append(rouge_row(f"self-{i}", sentence, sentence))
    for i in range(260):
        reference = rng.choice(SENTENCES)
        words = reference.split()
        roll = rng.random()
        if roll < 0.3:
            candidate = rng.choice(SENTENCES)
        elif roll < 0.6 and words:
            rng.shuffle(words)
            candidate = " ".join(words[: rng.randint(0, len(words))])
        elif roll < 0.8:
            candidate = reference + " " + rng.choice(SENTENCES)
        else:
            candidate = " ".join(rng.choice(SENTENCES).split()[:3] + words[:2])
        rows.append(rouge_row(f"random-{i}", candidate, reference))
    write("adk_rouge.jsonl", rows)


def porter_vectors():
    stemmer = PorterStemmer()
    words = set()
    for path in sorted(Path(os.__file__).parent.glob("*.py"))[:60]:
        text = path.read_text(encoding="utf-8", errors="ignore").lower()
        for token in "".join(c if "a" <= c <= "z" else " " for c in text).split():
            if 3 < len(token) < 20:
                words.add(token)
    words |= {"sky", "skies", "dying", "lying", "tying", "news", "innings", "inning", "outings", "cannings",
              "howe", "proceed", "exceed", "succeed", "ies", "dies", "eed", "yyyy", "syzygy", "toy", "happy",
              "generalization", "oscillators", "triplicate", "electricity", "hopefulness", "callousness",
              "formaliti", "sensitiviti", "sensibiliti", "radicalli", "analogi", "geologi", "fulli", "controll",
              "roll", "abli", "conformabli", "ation", "ational"}
    rows = [{"word": w, "stem": stemmer.stem(w)} for w in sorted(words)]
    write("nltk_porter.jsonl", rows)


# -------------------------------------------------------------------- difflib

def difflib_vectors():
    rows = []
    names = ["search", "lookup", "book", "cancel", "list"]
    for i in range(240):
        a = [rng.choice(names) for _ in range(rng.randint(0, 12))]
        b = [rng.choice(names) for _ in range(rng.randint(0, 12))]
        rows.append({"name": f"random-{i}", "a": a, "b": b, "ratio": difflib.SequenceMatcher(None, a, b).ratio()})
    for i in range(12):
        # Past 200 items autojunk marks frequent names "popular".
        b = [rng.choice(names[: rng.randint(1, 5)]) for _ in range(rng.randint(200, 320))]
        a = b[rng.randint(0, 50):] if i % 2 else [rng.choice(names) for _ in range(rng.randint(0, 250))]
        rows.append({"name": f"autojunk-{i}", "a": a, "b": b, "ratio": difflib.SequenceMatcher(None, a, b).ratio()})
    rare = ["rare"] + ["common"] * 250
    rows.append({"name": "autojunk-rare-item", "a": ["rare", "common"], "b": rare,
                 "ratio": difflib.SequenceMatcher(None, ["rare", "common"], rare).ratio()})
    write("difflib_ratio.jsonl", rows)


if __name__ == "__main__":
    match_vectors()
    adk_vectors()
    rouge_vectors()
    porter_vectors()
    difflib_vectors()
