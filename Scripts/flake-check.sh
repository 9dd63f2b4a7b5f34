#!/usr/bin/env bash
# Runs the SDK's test suite (`swift test`) and the push service's suite (debug,
# `swift test --package-path Server`) N times each and prints, per suite, `passed K of N`.
# A failed run's log is kept (its path and failing tests are printed); passing logs are not.
# Exits non-zero unless every run of both suites passed.
#
#   Scripts/flake-check.sh [N]            N runs of each suite (default 20)
#   FLAKE_SUITES=sdk Scripts/flake-check.sh 5    only one suite (sdk or server)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [N]  (N >= 1)" >&2; exit 2; }
suites=${FLAKE_SUITES:-sdk server}
logs=$(mktemp -d /tmp/flake-check.XXXXXX)

# The service's tests start the Python mocks: the repository's virtual environment first on PATH,
# as Server/Scripts/ci.sh does.
if [[ " $suites " == *" server "* ]]; then
    python="$(Scripts/pyenv.sh)"
    export PATH="$(dirname "$python"):$PATH"
fi

build() {
    local name=$1; shift
    echo "flake-check: building the $name suite"
    if ! "$@" >"$logs/$name-build.log" 2>&1; then
        tail -30 "$logs/$name-build.log"
        echo "flake-check: the $name suite does not build (log: $logs/$name-build.log)"
        exit 1
    fi
}

# run_suite NAME COMMAND...: runs COMMAND N times; prints and records `NAME: passed K of N`.
summary=()
all_passed=true
run_suite() {
    local name=$1; shift
    local passed=0 started
    for ((i = 1; i <= runs; i++)); do
        started=$(date +%s)
        if "$@" >"$logs/$name-$i.log" 2>&1; then
            passed=$((passed + 1))
            rm -f "$logs/$name-$i.log"
            echo "flake-check: $name run $i of $runs passed ($(( $(date +%s) - started )) s)"
        else
            echo "flake-check: $name run $i of $runs FAILED ($(( $(date +%s) - started )) s; log: $logs/$name-$i.log)"
            grep -E '✘ Test [^r]|error:|Fatal error' "$logs/$name-$i.log" | head -10 || true
        fi
    done
    summary+=("$name: passed $passed of $runs")
    [ "$passed" -eq "$runs" ] || all_passed=false
}

for suite in $suites; do
    case $suite in
        sdk)
            # The flags of Scripts/test.sh and Server/Scripts/ci.sh, so their builds are reused.
            build sdk swift build --build-tests -Xswiftc -warnings-as-errors
            run_suite sdk swift test --skip-build
            ;;
        server)
            build server swift build --package-path Server --build-tests -Xswiftc -warnings-as-errors
            run_suite server swift test --package-path Server --skip-build
            ;;
        *) echo "flake-check: unknown suite $suite (sdk, server)" >&2; exit 2 ;;
    esac
done

echo
for line in "${summary[@]}"; do echo "$line"; done
$all_passed && rmdir "$logs" 2>/dev/null || true
$all_passed
