#!/usr/bin/env bash
# A Python virtual environment for the A2A tests, from the exact pins in
# tests/a2a/requirements-NAME.txt, at target/python/NAME.
#
#   hack/python-env.sh NAME            # prints the venv's directory on stdout
#   hack/python-env.sh --compile NAME  # re-resolves requirements-NAME.in into the .txt
#
# The venv is rebuilt only when the requirements file changes (its sha256 is
# kept in the venv), so every test may call this. uv does the installing: pip
# backtracks for minutes on the kagent packages. uv itself is installed from
# PyPI into target/python/.bootstrap. Measured with an empty uv cache: uv
# itself 3 s, then adk 4 s (694 MB), langgraph 3 s, crewai 6 s, openai 2 s;
# an up-to-date venv returns in 0.2 s. Names: adk, langgraph, crewai, openai,
# a2a1 (a2a-sdk 1.3.0 for the kagent 1.0 assets; 1 s with a warm cache).
#
# Python 3.13 is taken from $PYTHON, else python3.13 on PATH, else pyenv's.
set -euo pipefail

UV_VERSION=0.13.8

root=$(cd "$(dirname "$0")/.." && pwd)
base=$root/target/python

compile=0
if [[ ${1:-} == --compile ]]; then
  compile=1
  shift
fi
name=${1:?usage: hack/python-env.sh [--compile] NAME}
requirements=$root/tests/a2a/requirements-$name.txt

is313() { [[ -n $1 ]] && "$1" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 13))' 2>/dev/null; }
python=${PYTHON:-}
# A pyenv shim named python3.13 may exist and still fail, so each candidate is run.
for candidate in "$python" "$(command -v python3.13 || true)" /root/.pyenv/versions/3.13.0/bin/python3.13; do
  if is313 "$candidate"; then
    python=$candidate
    break
  fi
  python=
done
if [[ -z $python ]]; then
  echo "python-env: no Python 3.13 found; set PYTHON" >&2
  exit 1
fi

mkdir -p "$base"
# Tests start in parallel: one builder at a time, the others wait and reuse.
exec 9>"$base/.lock"
flock 9

uv=$base/.bootstrap/bin/uv
if [[ ! -x $uv ]] || [[ $("$uv" --version) != "uv $UV_VERSION"* ]]; then
  echo "python-env: installing uv $UV_VERSION" >&2
  rm -rf "$base/.bootstrap"
  "$python" -m venv "$base/.bootstrap" >&2
  "$base/.bootstrap/bin/pip" install -q --disable-pip-version-check "uv==$UV_VERSION" >&2
fi
# uv must never fetch an interpreter of its own: only package registries are reachable.
export UV_PYTHON_DOWNLOADS=never

if [[ $compile == 1 ]]; then
  "$uv" pip compile --quiet --python "$python" --no-header --annotation-style line \
    "$root/tests/a2a/requirements-$name.in" -o "$requirements" >&2
  echo "$requirements"
  exit 0
fi

[[ -f $requirements ]] || { echo "python-env: $requirements is missing" >&2; exit 1; }
venv=$base/$name
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [[ -f $venv/.requirements.sha256 && $(cat "$venv/.requirements.sha256") == "$want" ]]; then
  echo "$venv"
  exit 0
fi

echo "python-env: building $venv" >&2
started=$SECONDS
rm -rf "$venv"
"$uv" venv --quiet --python "$python" "$venv" >&2
"$uv" pip sync --quiet --python "$venv/bin/python" "$requirements" >&2
# Written last: an interrupted build has no stamp and is redone.
echo "$want" > "$venv/.requirements.sha256"
echo "python-env: $name ready in $((SECONDS - started)) s" >&2
echo "$venv"
