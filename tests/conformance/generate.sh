#!/usr/bin/env bash
# Regenerate the conformance vectors: a venv of its own with the pinned
# reference implementations, then generate.py. Only needed when a reference
# version or a vector family changes; CI checks the committed vectors.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv"
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet -r "$here/requirements.txt"
fi
"$venv/bin/python" "$here/generate.py"
"$venv/bin/pip" freeze > "$here/vectors/PACKAGES.txt"
