"""golden.jsonl: the golden-case metrics as the oracle computes them.

    python generate_golden.py PATH/TO/golden_metrics.py

The oracle (shared/oracles/golden_metrics.py) is imported from the path given
and called on seeded random cases plus hand-picked corners. Each row is what
the oracle's own stdin/stdout driver reads and writes: {"metric", "actual",
"reference", options..., "expected"}, plus a "name".
"""

from __future__ import annotations

import copy
import importlib.util
import random
import sys
from pathlib import Path

from _vectors import VECTORS, write_jsonl

rng = random.Random(20261203)

NAMES = ["search", "lookup", "book", "cancel", "get_weather"]
KEYS = ["city", "q", "n", "opts", "opts.units", "a.b"]
VALUES = [
    1, 1.0, True, 0, 0.0, False, None, 2, "London", "Paris", "", [1, 2], [2, 1], [],
    {}, {"units": "c"}, {"units": "c", "days": 1}, {"days": 1.0, "units": "c"},
    {"b": 1, "a": {"c": [1, {"d": True}]}}, {"a": {"c": [1, {"d": 1}]}, "b": 1.0},
    [["units", "c"]],
]


def load_oracle(path: str):
    spec = importlib.util.spec_from_file_location("golden_metrics", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rand_args(keys=KEYS, most=3) -> dict:
    return {k: copy.deepcopy(rng.choice(VALUES)) for k in rng.sample(keys, rng.randint(0, min(most, len(keys))))}


def rand_calls(n_max=6, names=NAMES) -> list:
    return [[rng.choice(names), rand_args()] for _ in range(rng.randint(0, n_max))]


def equalish(value):
    """The same value as Python sees it, spelled differently in JSON."""
    if value is True:
        return rng.choice([1, 1.0])
    if value is False:
        return rng.choice([0, 0.0])
    if isinstance(value, (int, float)) and value in (0, 1):
        return rng.choice([bool(value), float(value)]) if isinstance(value, int) else rng.choice([bool(value), int(value)])
    if isinstance(value, dict):
        return {k: equalish(v) for k, v in reversed(list(value.items()))}
    if isinstance(value, list):
        return [equalish(v) for v in value]
    return value


class Rows:
    def __init__(self, oracle):
        self.oracle = oracle
        self.rows: list[dict] = []

    def add(self, name: str, metric: str, actual, reference=None, **options):
        row = {"name": name, "metric": metric, "actual": copy.deepcopy(actual)}
        if reference is not None:
            row["reference"] = copy.deepcopy(reference)
        row.update(copy.deepcopy(options))
        # Exactly the oracle driver's reading of a row, defaults included.
        act = [tuple(c) for c in row.get("actual", [])]
        ref = [tuple(c) for c in row.get("reference", [])]
        o = self.oracle
        if metric == "selection":
            row["expected"] = o.selection(act, ref)
        elif metric == "argument_correctness":
            row["expected"] = o.argument_correctness(act, ref, row.get("keys", {}))
        elif metric == "drift":
            row["expected"] = o.drift(act, ref)
        elif metric == "loops":
            row["expected"] = o.loops(act, row.get("window", 3))
        elif metric == "safety":
            row["expected"] = o.safety(act, row.get("required", []), row.get("forbidden", []))
        else:
            raise SystemExit(f"unknown metric {metric}")
        self.rows.append(row)


def selection(r: Rows):
    a, b = ["search", {}], ["lookup", {"q": "x"}]
    r.add("selection-both-empty", "selection", [], [])
    r.add("selection-actual-empty", "selection", [], [a])
    r.add("selection-reference-empty", "selection", [a], [])
    r.add("selection-reference-key-absent", "selection", [a])
    r.add("selection-duplicates-count-once", "selection", [a, a, a, b], [a])
    r.add("selection-order-and-args-ignored", "selection", [b, a], [["search", {"x": 1}], ["lookup", {}]])
    r.add("selection-disjoint", "selection", [a], [b])
    r.add("selection-one-third", "selection", [a, ["book", {}], ["cancel", {}]], [a])
    r.add("selection-name-case-sensitive", "selection", [["Search", {}]], [a])
    for i in range(300):
        r.add(f"selection-random-{i}", "selection", rand_calls(), rand_calls())


def argument_correctness(r: Rows):
    m = "argument_correctness"
    ref = [["get_weather", {"city": "London", "n": 1}]]
    r.add("args-no-keys-option", m, [["get_weather", {"city": "Paris"}]], ref)
    r.add("args-keys-for-other-tool-only", m, [["get_weather", {}]], ref, keys={"search": ["q"]})
    r.add("args-empty-key-list", m, [["get_weather", {}]], ref, keys={"get_weather": []})
    r.add("args-reference-empty", m, [["get_weather", {"city": 1}]], [], keys={"get_weather": ["city"]})
    r.add("args-both-empty", m, [], [], keys={"get_weather": ["city"]})
    r.add("args-tool-never-called-fails-its-keys", m, [["search", {"city": "London"}]], ref,
          keys={"get_weather": ["city", "n"]})
    r.add("args-actual-empty", m, [], ref, keys={"get_weather": ["city"]})
    r.add("args-absent-on-both-sides-equal", m, [["get_weather", {}]], [["get_weather", {}]],
          keys={"get_weather": ["city"]})
    r.add("args-absent-actual-null-reference-equal", m, [["get_weather", {}]], [["get_weather", {"city": None}]],
          keys={"get_weather": ["city"]})
    r.add("args-null-actual-absent-reference-equal", m, [["get_weather", {"city": None}]], [["get_weather", {}]],
          keys={"get_weather": ["city"]})
    r.add("args-absent-actual-value-reference", m, [["get_weather", {}]], ref, keys={"get_weather": ["city"]})
    r.add("args-first-call-only", m, [["get_weather", {"city": "Paris"}], ["get_weather", {"city": "London"}]],
          ref, keys={"get_weather": ["city"]})
    r.add("args-each-reference-call-uses-the-first-actual", m, [["get_weather", {"city": "London"}]],
          [["get_weather", {"city": "London"}], ["get_weather", {"city": "Paris"}]], keys={"get_weather": ["city"]})
    r.add("args-int-float-bool-equal", m, [["t", {"a": 1, "b": 1.0, "c": True, "d": 0, "e": False}]],
          [["t", {"a": True, "b": 1, "c": 1.0, "d": False, "e": 0.0}]], keys={"t": ["a", "b", "c", "d", "e"]})
    r.add("args-string-number-differ", m, [["t", {"a": "1"}]], [["t", {"a": 1}]], keys={"t": ["a"]})
    r.add("args-nested-key-order-ignored", m, [["t", {"o": {"a": 1, "b": [1, {"c": True}]}}]],
          [["t", {"o": {"b": [1.0, {"c": 1}], "a": 1.0}}]], keys={"t": ["o"]})
    r.add("args-list-order-significant", m, [["t", {"l": [1, 2]}]], [["t", {"l": [2, 1]}]], keys={"t": ["l"]})
    r.add("args-dotted-key-is-literal", m, [["t", {"opts": {"units": "c"}}]], [["t", {"opts": {"units": "c"}}]],
          keys={"t": ["opts.units"]})
    r.add("args-dotted-key-literal-present", m, [["t", {"opts.units": "c", "opts": {"units": "f"}}]],
          [["t", {"opts.units": "c"}]], keys={"t": ["opts.units"]})
    r.add("args-dotted-key-literal-differs", m, [["t", {"opts.units": "f"}]],
          [["t", {"opts.units": "c", "opts": {"units": "f"}}]], keys={"t": ["opts.units"]})
    r.add("args-duplicate-key-counts-twice", m, [["t", {"a": 1, "b": 2}]], [["t", {"a": 1, "b": 3}]],
          keys={"t": ["a", "a", "b"]})
    r.add("args-unlisted-keys-ignored", m, [["t", {"a": 1, "z": 9}]], [["t", {"a": 1, "z": 0}]], keys={"t": ["a"]})
    r.add("args-two-tools-mixed", m, [["a", {"x": 1}], ["b", {"y": 2}]], [["a", {"x": 1}], ["b", {"y": 3}], ["c", {}]],
          keys={"a": ["x"], "b": ["y"], "c": ["z"]})
    r.add("args-empty-dict-vs-empty-list-differ", m, [["t", {"a": {}}]], [["t", {"a": []}]], keys={"t": ["a"]})
    for i in range(500):
        reference = rand_calls(4)
        actual = copy.deepcopy(reference)
        rng.shuffle(actual)
        for call in actual:
            roll = rng.random()
            if roll < 0.25 and call[1]:
                k = rng.choice(list(call[1]))
                call[1][k] = equalish(call[1][k])
            elif roll < 0.45 and call[1]:
                k = rng.choice(list(call[1]))
                call[1][k] = copy.deepcopy(rng.choice(VALUES))
            elif roll < 0.55 and call[1]:
                del call[1][rng.choice(list(call[1]))]
            elif roll < 0.65:
                call[0] = rng.choice(NAMES)
        if rng.random() < 0.3:
            actual += rand_calls(2)
        keys = {t: rng.sample(KEYS + ["missing"], rng.randint(0, 3)) for t in rng.sample(NAMES, rng.randint(0, 4))}
        if rng.random() < 0.1:
            r.add(f"args-random-{i}", m, actual, reference)  # no keys option: the driver's default {}
        else:
            r.add(f"args-random-{i}", m, actual, reference, keys=keys)


def drift(r: Rows):
    def calls(names):
        return [[n, {}] for n in names]

    r.add("drift-both-empty", "drift", [], [])
    r.add("drift-actual-empty", "drift", [], calls(["a"]))
    r.add("drift-reference-empty", "drift", calls(["a"]), [])
    r.add("drift-reference-key-absent", "drift", calls(["a"]))
    r.add("drift-same", "drift", calls(["a", "b", "c"]), calls(["a", "b", "c"]))
    r.add("drift-args-ignored", "drift", [["a", {"x": 1}]], [["a", {"x": 2}]])
    r.add("drift-swapped", "drift", calls(["a", "b"]), calls(["b", "a"]))
    r.add("drift-order-of-sides-matters", "drift", calls(["a", "b", "a"]), calls(["b", "c", "a"]))
    r.add("drift-order-of-sides-matters-reversed", "drift", calls(["b", "c", "a"]), calls(["a", "b", "a"]))
    for i in range(280):
        names = NAMES[: rng.randint(1, 5)]
        a = [[rng.choice(names), rand_args(most=1)] for _ in range(rng.randint(0, 12))]
        b = [[rng.choice(names), {}] for _ in range(rng.randint(0, 12))]
        r.add(f"drift-random-{i}", "drift", a, b)
    for i in range(8):
        # Past 200 items difflib's autojunk marks frequent names popular.
        b = [[rng.choice(NAMES[: rng.randint(1, 3)]), {}] for _ in range(rng.randint(201, 260))]
        a = b[rng.randint(0, 40):] if i % 2 else [[rng.choice(NAMES), {}] for _ in range(rng.randint(150, 240))]
        r.add(f"drift-autojunk-{i}", "drift", a, b)


def loops(r: Rows):
    s1, s2, s3 = ["search", {"q": "x"}], ["lookup", {"id": 1}], ["book", {}]
    r.add("loops-empty", "loops", [], window=3)
    r.add("loops-default-window-is-3", "loops", [s1, s2, s3, s1])
    r.add("loops-default-window-4-apart-not-a-loop", "loops", [s1, s2, s3, ["cancel", {}], s1])
    for window in (0, 1, 2, 3, 4):
        gap = window if window else 7
        filler = [["f%d" % k, {}] for k in range(max(gap - 1, 0))]
        r.add(f"loops-window-{window}-repeat-exactly-window-apart", "loops", [s1] + filler + [s1], window=window)
        filler2 = [["f%d" % k, {}] for k in range(gap)]
        r.add(f"loops-window-{window}-repeat-window-plus-one-apart", "loops", [s1] + filler2 + [s1], window=window)
        r.add(f"loops-window-{window}-back-to-back", "loops", [s1, s1, s1], window=window)
        r.add(f"loops-window-{window}-alternating", "loops", [s1, s2, s1, s2, s1, s2], window=window)
    r.add("loops-window-0-whole-history", "loops", [s1] + [["f%d" % k, {}] for k in range(20)] + [s1], window=0)
    r.add("loops-args-distinguish", "loops", [["t", {"a": 1}], ["t", {"a": 2}]], window=3)
    r.add("loops-key-order-ignored", "loops", [["t", {"a": 1, "b": 2}], ["t", {"b": 2, "a": 1}]], window=3)
    r.add("loops-int-float-bool-equal", "loops", [["t", {"a": 1}], ["t", {"a": 1.0}], ["t", {"a": True}]], window=3)
    r.add("loops-zero-false-equal", "loops", [["t", {"a": 0}], ["t", {"a": False}], ["t", {"a": 0.0}]], window=3)
    r.add("loops-nested-equal", "loops", [["t", {"o": {"x": [1, {"y": True}]}}], ["t", {"o": {"x": [1.0, {"y": 1}]}}]],
          window=3)
    r.add("loops-list-order-significant", "loops", [["t", {"l": [1, 2]}], ["t", {"l": [2, 1]}]], window=3)
    r.add("loops-empty-dict-equals-empty-list", "loops", [["t", {"a": {}}], ["t", {"a": []}]], window=3)
    r.add("loops-dict-equals-list-of-pairs", "loops", [["t", {"a": {"k": 1}}], ["t", {"a": [["k", 1]]}]], window=3)
    r.add("loops-null-vs-absent-differ", "loops", [["t", {"a": None}], ["t", {}]], window=3)
    r.add("loops-name-distinguishes", "loops", [["t", {}], ["u", {}]], window=3)
    r.add("loops-each-repeat-listed", "loops", [s1, s1, s2, s2, s1], window=2)
    pool_size = 4
    for i in range(520):
        pool = [[rng.choice(NAMES[:3]), rand_args(["a", "b"], 1)] for _ in range(pool_size)]
        calls = [copy.deepcopy(rng.choice(pool)) for _ in range(rng.randint(0, 10))]
        window = rng.choice([None, 0, 1, 2, 3, 3, 4, 5])
        if calls and rng.random() < 0.5:
            # A repeat placed exactly `window` (or window + 1) calls after its original.
            w = window if window not in (None, 0) else 3
            i0 = rng.randrange(len(calls))
            pos = i0 + w + rng.choice([0, 1])
            repeat = [calls[i0][0], equalish(calls[i0][1])]
            while len(calls) < pos:
                calls.append([rng.choice(["x", "y", "z"]), {"k": rng.randint(0, 9)}])
            calls.insert(pos, repeat)
        if window is None:
            r.add(f"loops-random-{i}", "loops", calls)
        else:
            r.add(f"loops-random-{i}", "loops", calls, window=window)


def safety(r: Rows):
    a, b = ["search", {}], ["delete_repo", {"force": True}]
    r.add("safety-no-lists", "safety", [a])
    r.add("safety-both-lists-empty", "safety", [a], required=[], forbidden=[])
    r.add("safety-nothing-called-required", "safety", [], required=["search"])
    r.add("safety-nothing-called-forbidden", "safety", [], forbidden=["delete_repo"])
    r.add("safety-forbidden-touched", "safety", [a, b], forbidden=["delete_repo"])
    r.add("safety-forbidden-touched-twice-listed-once", "safety", [b, b], forbidden=["delete_repo"])
    r.add("safety-required-missing", "safety", [a], required=["lookup"])
    r.add("safety-required-duplicated-listed-once", "safety", [a], required=["lookup", "lookup"])
    r.add("safety-forbidden-before-missing-and-sorted", "safety", [["z_bad", {}], ["a_bad", {}]],
          required=["zz", "aa"], forbidden=["z_bad", "a_bad"])
    r.add("safety-required-and-forbidden-same-tool-called", "safety", [a], required=["search"], forbidden=["search"])
    r.add("safety-required-and-forbidden-same-tool-not-called", "safety", [b], required=["search"], forbidden=["search"])
    r.add("safety-reference-ignored", "safety", [a], [["lookup", {}]], required=["search"])
    tools = NAMES + ["delete_repo", "drop_table"]
    for i in range(340):
        r.add(f"safety-random-{i}", "safety", [[rng.choice(tools), {}] for _ in range(rng.randint(0, 6))],
              required=rng.sample(tools, rng.randint(0, 3)), forbidden=rng.sample(tools, rng.randint(0, 3)))


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    r = Rows(load_oracle(sys.argv[1]))
    selection(r)
    argument_correctness(r)
    drift(r)
    loops(r)
    safety(r)
    write_jsonl(VECTORS / "golden.jsonl", r.rows)


if __name__ == "__main__":
    main()
