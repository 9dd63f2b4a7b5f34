#!/usr/bin/env bash
# Runs every check of the repository. Exits non-zero on the first failure.
# Needs the Debian packages that .ci/run installs.
#
#   SDK        build (warnings are errors) and tests on Linux; the receipt and VoIP-rule suites
#              5 more times
#   Apple      the Platform/Apple adapters and the example apps compiled against Apple API stubs,
#              and a self-test proving a wrong call fails
#   Obj-C      every selector of the Objective-C article exists (and a bogus one is caught)
#   Docs       every product's DocC catalog builds without warnings; every public symbol documented
#   Format     swift format finds nothing to change
#   Service    Server/ built and tested in debug and release
#   E2E        the SDK's Core engine against the running service
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== %s ==\n' "$1"; }

step "SDK: build and test (debug, warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build

step "SDK: the receipt and VoIP-rule suites 5 more times (races show up as flakes)"
for run in 1 2 3 4 5; do
    echo "run $run of 5"
    swift test --skip-build --filter 'ReceiptTests|ReceiptLedgerTests|ConcurrentReceiptTests|TwoProcessReceiptTests|VoIPRuleTests'
done

step "Apple compile check"
Scripts/apple-compile-check.sh
Scripts/apple-compile-check.sh --self-test

step "Objective-C surface"
python3 Scripts/check-objc-names.py
python3 Scripts/check-objc-selectors.py
bogus=$(mktemp /tmp/objc-bogus.XXXXXX.md)
printf '```objc\n[CometChatPushNotifications.shared noSuchSelectorWithValue:@"x"];\n```\n' >"$bogus"
if python3 Scripts/check-objc-selectors.py "$bogus" >/dev/null; then
    echo "check-objc-selectors: a bogus selector was not caught"; rm -f "$bogus"; exit 1
fi
rm -f "$bogus"
echo "check-objc-selectors: a bogus selector is caught"

step "Docs"
Scripts/docs-check.sh

if [ -x Scripts/format-check.sh ]; then
    step "Formatting"
    Scripts/format-check.sh
fi

step "Push service (Server/)"
bash Server/Scripts/ci.sh

step "End to end: SDK against the running service"
bash Scripts/e2e.sh
