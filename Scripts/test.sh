#!/usr/bin/env bash
# Runs every check of the repository. Exits non-zero on the first failure.
# Needs the Debian packages that .ci/run installs.
#
#   SDK        build (warnings are errors) and tests on Linux
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

step "SDK: build and test (debug, warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build

step "Apple side: the real iOS SDK (Swift 6, warnings are errors), Objective-C snippets"
Scripts/ios-compile-check.sh

step "Docs"
Scripts/docs-check.sh

if [ -x Scripts/format-check.sh ]; then
    step "Formatting"
    Scripts/format-check.sh
fi

step "Push service (Server/)"
bash Server/Scripts/ci.sh

step "Dashboard: headless Chromium against the running service and the mock APNs"
bash Server/Scripts/dashboard-test.sh
step "API fuzzing: schemathesis against the running service (Server/openapi.json)"
bash Server/Scripts/fuzz-api.sh

step "End to end: SDK against the running service"
bash Scripts/e2e.sh
