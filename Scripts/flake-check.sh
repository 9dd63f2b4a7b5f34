#!/usr/bin/env bash
# Runs the SDK's test suite (`swift test`) and the push service's suite (debug,
# `swift test --package-path Server`) N times each and prints, per suite, `passed K of N`.
# A failed run's log is kept (its path and failing tests are printed); passing logs are not.
# Exits non-zero unless every run of both suites passed.
#
#   Scripts/flake-check.sh [N]            N runs of each suite (default 20)
#   FLAKE_SUITES=sdk Scripts/flake-check.sh 5    only one suite (sdk or server)
#   Scripts/flake-check.sh --full N [--hog]     N runs of the README's whole test command
#                                 (bash Scripts/test.sh); with --hog a busy loop per core runs
#                                 beside every run (a machine that is not idle); prints each
#                                 run's wall time, peak load and PostgreSQL backends, and
#                                 `full: passed K of N`
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: $0 [N] | $0 --full N [--hog]  (N >= 1)" >&2; exit 2; }
full=0
hog=0
if [ "${1:-}" = --full ]; then
    full=1
    runs=${2:-}
    case "${3:-}" in --hog) hog=1 ;; '') ;; *) usage ;; esac
else
    runs=${1:-20}
fi
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || usage

if [ "$full" = 1 ]; then
    logs=$(mktemp -d /tmp/flake-check-full.XXXXXX)
    hogs=()
    stop_hogs() {
        local pid
        for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
        for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
        hogs=()
    }
    trap stop_hogs EXIT
    passed=0
    for ((i = 1; i <= runs; i++)); do
        if [ "$hog" = 1 ]; then
            for ((core = 0; core < $(nproc); core++)); do
                bash -c 'while :; do :; done' &
                hogs+=($!)
            done
        fi
        started=$(date +%s)
        if bash Scripts/test.sh --no-newcomer-check >"$logs/run-$i.log" 2>&1; then
            passed=$((passed + 1))
            verdict=passed
        else
            verdict=FAILED
        fi
        stop_hogs
        echo "flake-check: full run $i of $runs $verdict in $(( $(date +%s) - started )) s$([ "$hog" = 1 ] && echo " (a busy loop per core beside it)"); log: $logs/run-$i.log"
        grep -E '^test-monitor: peak' "$logs/run-$i.log" | sed 's/^/    /' || true
        [ "$verdict" = passed ] || grep -E '✘ Test [^r]|error:|Fatal error|FAILED' "$logs/run-$i.log" | head -10 || true
    done
    echo
    echo "full$([ "$hog" = 1 ] && echo " with a CPU hog"): passed $passed of $runs"
    [ "$passed" -eq "$runs" ]
    exit
fi
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
