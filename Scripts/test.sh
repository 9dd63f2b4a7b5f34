#!/usr/bin/env bash
# The README's test command: installs what is missing (Scripts/install-deps.sh test: the Debian
# packages of Scripts/debian-packages.txt when run as root, else it prints the install line and
# stops; the Python packages in the venv of Scripts/pyenv.sh), then runs every check of the
# repository. Exits non-zero on the first failure.
#
#   bash Scripts/test.sh                     every check below (the full scope)
#   bash Scripts/test.sh --newcomer-check    and then the newcomer check (also when CI=true)
#   bash Scripts/test.sh --representative    every install step, one suite of each test module,
#                                            every end-to-end and browser test (what the newcomer
#                                            check runs in its fresh root; see README.md)
#
# Its output also goes to .build/test-logs/test-command.log. At the end it prints the peak
# PostgreSQL backends, the peak load average and runnable tasks (sampled once a second by
# Scripts/test-monitor.py) and the 20 slowest tests, so that a regression in load or speed shows.
#
#   SDK        build (warnings are errors) and tests on Linux; the receipt and VoIP-rule suites
#              3 more times
#   Apple      the SDK's modules, the example apps, the call forms and the docs' Objective-C snippets compiled
#              against a real iOS SDK (../shared/ios-sdk), with a self-test proving mistakes fail
#   Docs       every cited document, link and iOS rule is in the repository; every product's DocC
#              catalog builds without warnings; every public symbol documented
#   Format     swift format finds nothing to change; Objective-C code only in API/ObjectiveC and
#              Platform/Apple, or as a type's @objc(Name) (Scripts/check-objc-apart.py, with its self-test)
#   Service    Server/ built and tested in debug and release
#   Dashboard  the web dashboard driven by headless Chromium (screenshots in .build/dashboard-screenshots)
#   API fuzz   schemathesis against the running service, checked against Server/openapi.json
#   E2E        the SDK's Core engine against the running service; two simulated devices of one
#              user against the service sending to the mock APNs (Scripts/e2e.sh)
#   Newcomer   (CI) both README commands on a fresh clone in a minimal Debian 12 root
#              (Scripts/newcomer-check.sh); never inside that root (PUSH_NEWCOMER_INSIDE=1)
set -euo pipefail
cd "$(dirname "$0")/.."
newcomer=0
[ "${CI:-}" = true ] && newcomer=1
scope=${PUSH_TEST_SCOPE:-full}
for arg in "$@"; do
    case "$arg" in
        --newcomer-check) newcomer=1 ;;
        --no-newcomer-check) newcomer=0 ;;
        --representative) scope=representative ;;
        *) echo "usage: bash Scripts/test.sh [--newcomer-check|--no-newcomer-check] [--representative]" >&2; exit 64 ;;
    esac
done
case "$scope" in
    full | representative) ;;
    *) echo "test.sh: PUSH_TEST_SCOPE is full or representative, not $scope" >&2; exit 64 ;;
esac
# Server/Scripts/ci.sh reads the scope too.
export PUSH_TEST_SCOPE=$scope
[ -n "${PUSH_NEWCOMER_INSIDE:-}" ] && newcomer=0
started=$(date +%s)
logs=.build/test-logs
mkdir -p "$logs"
log=$logs/test-command.log
samples=$logs/samples.txt
: >"$samples"
exec > >(tee "$log") 2>&1
monitor=""
step() { printf '\n== %s (at %ss) ==\n' "$1" "$(($(date +%s) - started))"; }
# Steps that run in the background, each in its own process group: stopped at exit.
background=()
finish() {
    local status=$1 group
    for group in "${background[@]}"; do
        kill -- "-$group" 2>/dev/null || true
        wait "$group" 2>/dev/null || true
    done
    if [ -n "$monitor" ]; then
        kill "$monitor" 2>/dev/null || true
        wait "$monitor" 2>/dev/null || true
    fi
    printf '\ntest.sh: %s after %ss (%s scope)\n' "$([ "$status" = 0 ] && echo passed || echo FAILED)" \
        "$(($(date +%s) - started))" "$scope"
    if command -v python3 >/dev/null; then python3 Scripts/test-monitor.py report "$samples" "$log" || true; fi
}
trap 'finish $?' EXIT
echo "test.sh: $scope scope; output also in $log"

step "Dependencies (Scripts/install-deps.sh test)"
bash Scripts/install-deps.sh test
# From here on, a sample of the machine's load and PostgreSQL backends once a second.
python3 Scripts/test-monitor.py sample "$samples" &
monitor=$!
# Swift Testing starts every test of a run at once unless told otherwise: at most this many
# (Server/Scripts/ci.sh sets its own widths per group), so that the runnable work stays near
# the core count.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${PUSH_TEST_WIDTH:-6}
# Every step's `python3` is the venv's, which has Scripts/python-requirements.txt.
PATH="$(dirname "$(Scripts/pyenv.sh)"):$PATH"
export PATH
# A check that is missing or not executable fails the run: a skipped check proves nothing.
run() {
    local script="$1"
    shift
    [ -f "$script" ] || { echo "test.sh: $script is missing"; exit 1; }
    [ -x "$script" ] || { echo "test.sh: $script is not executable"; exit 1; }
    "$script" "$@"
}
for script in Scripts/ios-compile-check.sh Scripts/docs-check.sh Scripts/format-check.sh \
    Server/Scripts/ci.sh Scripts/e2e.sh; do
    [ -f "$script" ] && [ -x "$script" ] || { echo "test.sh: $script is missing or not executable"; exit 1; }
done

# The service's builds (debug, and release in the full scope) run beside the SDK's steps: a
# Swift build seldom keeps both cores busy (the service's CI averaged 1.1 cores), so on a fresh
# clone this takes minutes off. They are the very commands Server/Scripts/ci.sh runs, which then
# finds nothing to do; a failure shows again there, with its errors. In their own process group,
# so that an early exit stops them.
server_configs=debug
[ "$scope" = full ] && server_configs="debug release"
setsid bash -c 'for config in $1; do
        swift build --package-path Server --scratch-path "$PWD/Server/.build" -c "$config" --build-tests -Xswiftc -warnings-as-errors || exit 1
    done' server-build "$server_configs" >"$logs/server-build.log" 2>&1 &
server_build=$!
background+=("$server_build")

step "SDK: build and test (debug, warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors
if [ "$scope" = full ]; then
    swift test --skip-build
else
    # One suite of each test module.
    run Scripts/run-selected.sh 3 swift test --skip-build --filter 'TokenLifecycleTests|NotificationServiceExtensionTests|RingingScenarioTests'
fi

if [ "$scope" = full ]; then
    step "SDK: the receipt and VoIP-rule suites 3 more times (races show up as flakes)"
    for round in 1 2 3; do
        echo "run $round of 3"
        swift test --skip-build --filter 'ReceiptTests|ReceiptLedgerTests|ConcurrentReceiptTests|TwoProcessReceiptTests|VoIPRuleTests'
    done

    step "Apple side: the real iOS SDK (Swift 6, warnings are errors), Objective-C snippets"
    run Scripts/ios-compile-check.sh

    step "Docs"
    run Scripts/docs-check.sh

    step "Formatting"
    run Scripts/format-check.sh
fi

step "Push service (Server/)"
if wait "$server_build"; then
    echo "test.sh: the service's builds ($server_configs), run beside the SDK's steps, are done"
else
    echo "test.sh: the service's early build failed (log: $logs/server-build.log); ci.sh builds again and shows why"
fi
run Server/Scripts/ci.sh

# The API fuzzer (one busy Python process) runs beside the browser test and the end-to-end
# suites, which mostly wait: each of the three runs its own service on a loopback port of its
# own. The representative scope proves the fuzzer runs; the full scope fuzzes in earnest.
step "API fuzzing, in the background: schemathesis against the running service (Server/openapi.json)"
fuzz_examples=150
[ "$scope" = full ] || fuzz_examples=20
FUZZ_MAX_EXAMPLES=$fuzz_examples setsid bash Server/Scripts/fuzz-api.sh >"$logs/fuzz-api.log" 2>&1 &
fuzz=$!
background+=("$fuzz")
echo "test.sh: the fuzzer's output follows when it is done ($logs/fuzz-api.log)"

step "Dashboard: headless Chromium against the running service and the mock APNs"
bash Server/Scripts/dashboard-test.sh

step "End to end: SDK against the running service"
run Scripts/e2e.sh

step "API fuzzing: its result"
set +e
wait "$fuzz"
fuzz_status=$?
set -e
cat "$logs/fuzz-api.log"
[ "$fuzz_status" -eq 0 ] || { echo "test.sh: the API fuzzer failed ($fuzz_status)"; exit 1; }

if [ "$newcomer" = 1 ]; then
    step "Newcomer: both README commands on a fresh clone in a minimal Debian 12 root"
    bash Scripts/newcomer-check.sh
fi
