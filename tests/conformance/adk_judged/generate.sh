#!/usr/bin/env bash
# Regenerate the judged-metric conformance vectors: a venv of its own with the
# pinned ADK, then generate.py. Only needed when the ADK version or a vector
# family changes; the committed vectors are what the tests read. The venv
# lives under target/ so that it stays out of the work tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
venv="${ADK_JUDGED_VENV:-$repo/target/adk-judged-venv}"
python="${PYTHON:-python3}"
if [[ ! -x $venv/bin/python ]]; then
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi
"$venv/bin/python" "$here/generate.py"
"$venv/bin/pip" freeze > "$here/vectors/PACKAGES.txt"
