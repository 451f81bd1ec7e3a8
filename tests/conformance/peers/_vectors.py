"""Shared helpers of the peer generators: where vectors go and how they are
written (one JSON object a line, sorted keys, so a rerun diffs clean)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "vectors"
REPO = HERE.parents[2]


def dumps(row) -> str:
    return json.dumps(row, ensure_ascii=False, sort_keys=True)


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(dumps(row) + "\n")
    print(f"{path.relative_to(HERE)}: {len(rows)} vectors", file=sys.stderr)


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2) + "\n")
    print(f"{path.relative_to(HERE)}: written", file=sys.stderr)


def error_text(exc: BaseException) -> str:
    """An exception as `Type: first line`, the form every vector records."""
    lines = str(exc).strip().splitlines() or [""]
    return f"{type(exc).__name__}: {lines[0]}"
