#!/usr/bin/env bash
# Regenerate the peer conformance vectors by running the peers themselves.
#
#   tests/conformance/peers/generate.sh AGENTEVALS_CHECKOUT KAGENT_AGENTEVALS_CHECKOUT [GOLDEN_ORACLE]
#
# AGENTEVALS_CHECKOUT: a checkout of langchain-ai/agentevals whose
#   python/pyproject.toml says version 0.0.9 (its tests are run, the library
#   comes from PyPI).
# KAGENT_AGENTEVALS_CHECKOUT: a checkout of themsquared/kagent-agentevals
#   (not on PyPI; its src/ is imported).
# GOLDEN_ORACLE: golden_metrics.py, by default shared/oracles/ beside the repo.
#
# Only needed when a peer version or a vector family changes; tests read the
# committed vectors without Python.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
if [[ $# -lt 2 ]]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
agentevals=$(cd "$1" && pwd)
kagent=$(cd "$2" && pwd)
oracle=${3:-$repo/../shared/oracles/golden_metrics.py}
venv="$here/.venv"
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
  constraints=()
  # The last run's exact versions, so a rerun resolves the same packages.
  [[ -f $here/vectors/PACKAGES.txt ]] && constraints=(-c "$here/vectors/PACKAGES.txt")
  "$venv/bin/pip" install --quiet -r "$here/requirements.txt" "${constraints[@]}"
fi
py="$venv/bin/python"
cd "$here"
"$py" generate_golden.py "$oracle"
"$py" generate_agentevals.py "$agentevals"
"$py" generate_adk.py
"$py" generate_adk_files.py
"$py" generate_kagent.py "$kagent"
"$venv/bin/pip" freeze --exclude-editable > "$here/vectors/PACKAGES.txt"
