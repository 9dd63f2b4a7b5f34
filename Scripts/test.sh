#!/usr/bin/env bash
# Runs every check of the repository: the SDK's tests, the push service's tests (debug and
# release), the formatting check, and the checks later issues add. Exits non-zero on the first
# failure. Needs the apt packages that .ci/run installs.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== SDK: build and test (Linux, debug) =="
swift build --build-tests
swift test

if [ -x Scripts/format-check.sh ]; then
    echo "== Formatting =="
    Scripts/format-check.sh
fi

if [ -f Server/Scripts/ci.sh ]; then
    echo "== Push service =="
    bash Server/Scripts/ci.sh
fi
