#!/usr/bin/env bash
# Prints the path of a Python interpreter that has every package in Scripts/python-requirements.txt
# (the test mocks, the benchmark's rival, the API fuzzer, the browser driver), creating a virtual
# environment under .build/pyenv the first time and again whenever the list changes.
# Debian refuses system-wide pip installs (PEP 668), so nothing is installed outside the venv.
#
#   py=$(Scripts/pyenv.sh) && "$py" -m schemathesis ...
#   PATH="$(dirname "$(Scripts/pyenv.sh)"):$PATH"   # so that `python3` is the venv's
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
requirements="$root/Scripts/python-requirements.txt"
venv="${PUSH_PYENV:-$root/.build/pyenv}"
if [ ! -x "$venv/bin/python3" ] || ! cmp -s "$requirements" "$venv/.requirements"; then
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
        echo "pyenv: Python's venv module is missing; install it with: apt-get install -y python3-venv" >&2
        exit 1
    fi
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python3" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
    cp "$requirements" "$venv/.requirements"
fi
echo "$venv/bin/python3"
