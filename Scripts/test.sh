#!/usr/bin/env bash
# Runs every check of the repository. Exits non-zero on the first failure.
# Needs the Debian packages that .ci/run installs.
#
#   SDK        build (warnings are errors) and tests on Linux; the receipt and VoIP-rule suites
#              5 more times
#   Apple      the SDK's modules, the example apps and the docs' Objective-C snippets compiled
#              against a real iOS SDK (../shared/ios-sdk), with a self-test proving mistakes fail
#   Docs       every product's DocC catalog builds without warnings; every public symbol documented
#   Format     swift format finds nothing to change
#   Service    Server/ built and tested in debug and release
#   Dashboard  the web dashboard driven by headless Chromium (screenshots in .build/dashboard-screenshots)
#   API fuzz   schemathesis against the running service, checked against Server/openapi.json
#   E2E        the SDK's Core engine against the running service
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== %s ==\n' "$1"; }
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

step "SDK: build and test (debug, warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build

step "SDK: the receipt and VoIP-rule suites 5 more times (races show up as flakes)"
for round in 1 2 3 4 5; do
    echo "run $round of 5"
    swift test --skip-build --filter 'ReceiptTests|ReceiptLedgerTests|ConcurrentReceiptTests|TwoProcessReceiptTests|VoIPRuleTests'
done

step "Apple side: the real iOS SDK (Swift 6, warnings are errors), Objective-C snippets"
run Scripts/ios-compile-check.sh

step "Docs"
run Scripts/docs-check.sh

step "Formatting"
run Scripts/format-check.sh

step "Push service (Server/)"
run Server/Scripts/ci.sh

step "Dashboard: headless Chromium against the running service and the mock APNs"
bash Server/Scripts/dashboard-test.sh
step "API fuzzing: schemathesis against the running service (Server/openapi.json)"
bash Server/Scripts/fuzz-api.sh

step "End to end: SDK against the running service"
run Scripts/e2e.sh
