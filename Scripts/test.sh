#!/usr/bin/env bash
# The README's test command: installs what is missing (Scripts/install-deps.sh test: the Debian
# packages of Scripts/debian-packages.txt when run as root, else it prints the install line and
# stops; the Python packages in the venv of Scripts/pyenv.sh), then runs every check of the
# repository. Exits non-zero on the first failure.
#
#   bash Scripts/test.sh                     every check below
#   bash Scripts/test.sh --newcomer-check    and then the newcomer check (also when CI=true)
#
#   SDK        build (warnings are errors) and tests on Linux
#   Apple      the Platform/Apple adapters and the example apps compiled against Apple API stubs,
#              and a self-test proving a wrong call fails
#   Obj-C      every selector of the Objective-C article exists (and a bogus one is caught)
#   Docs       every product's DocC catalog builds without warnings; every public symbol documented
#   Format     swift format finds nothing to change
#   Service    Server/ built and tested in debug and release
#   E2E        the SDK's Core engine against the running service
#   Newcomer   (CI) both README commands on a fresh clone in a minimal Debian 12 root
#              (Scripts/newcomer-check.sh); never inside that root (PUSH_NEWCOMER_INSIDE=1)
set -euo pipefail
cd "$(dirname "$0")/.."
newcomer=0
[ "${CI:-}" = true ] && newcomer=1
for arg in "$@"; do
    case "$arg" in
        --newcomer-check) newcomer=1 ;;
        --no-newcomer-check) newcomer=0 ;;
        *) echo "usage: bash Scripts/test.sh [--newcomer-check|--no-newcomer-check]" >&2; exit 64 ;;
    esac
done
[ -n "${PUSH_NEWCOMER_INSIDE:-}" ] && newcomer=0
started=$(date +%s)
step() { printf '\n== %s (at %ss) ==\n' "$1" "$(($(date +%s) - started))"; }
trap 'status=$?; printf "\ntest.sh: %s after %ss\n" "$([ $status = 0 ] && echo passed || echo FAILED)" "$(($(date +%s) - started))"' EXIT

step "Dependencies (Scripts/install-deps.sh test)"
bash Scripts/install-deps.sh test
# Every step's `python3` is the venv's, which has Scripts/python-requirements.txt.
PATH="$(dirname "$(Scripts/pyenv.sh)"):$PATH"
export PATH

step "SDK: build and test (debug, warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build

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

if [ "$newcomer" = 1 ]; then
    step "Newcomer: both README commands on a fresh clone in a minimal Debian 12 root"
    bash Scripts/newcomer-check.sh
fi
