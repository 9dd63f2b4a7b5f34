#!/usr/bin/env bash
# Compiles the Apple side against a real iOS SDK (../shared/ios-sdk, see its README), in Swift 6
# mode with warnings as errors: the SDK's four modules; each example target with only the SDK
# products its project.yml links (an app extension also with -application-extension); the call
# forms test (Tests/CometChatPushNotificationsCallsTests/CallForms: every form of every call that
# completes later, in synchronous and async code); and every Objective-C snippet in
# docs/Snippets, which the docs show (check-objc-snippets.py). Then it checks the exported
# Objective-C names (check-objc-names.py) and proves that it can fail: a scratch copy with a wrong
# argument label in an adapter, a warning in an adapter, a missing member in an example, an
# async form named like a call the docs make without `await`, a wrong selector in a snippet, a
# misspelled delegate method in a snippet (clang cannot see that one), an unprefixed Objective-C
# name, and a doc block that differs from its file must each be caught.
#
#   Scripts/ios-compile-check.sh                  check, then the self-test
#   Scripts/ios-compile-check.sh --no-self-test   check only
#
# Without ../shared/ios-sdk (someone else's machine) it says so and exits 0; under CI=true its
# absence fails. IOS_SDK_TOOL names another copy of ios-sdk.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tool=${IOS_SDK_TOOL:-$root/../shared/ios-sdk/ios-sdk.sh}
if [ ! -f "$tool" ]; then
    if [ "${CI:-}" = true ]; then
        echo "ios-compile-check: FAILED: no iOS SDK tool at $tool; CI must compile the Apple side"
        exit 1
    fi
    echo "ios-compile-check: skipped: no iOS SDK tool at $tool (it lives in the team's shared folder;"
    echo "  without it nothing here compiles the Apple side: UIKit, PushKit, CallKit, Objective-C)"
    exit 0
fi
export IOS_WERROR=1 IOS_SWIFT_VERSION=6
work=$root/.build/ios-check
rm -rf "$work"
mkdir -p "$work"
modules=(CometChatPushNotificationsSwift CometChatPushNotificationsChat CometChatPushNotificationsCalls CometChatPushNotificationsTesting)
fail() { echo "ios-compile-check: FAILED: $*"; exit 1; }

# A folder with the compiled modules named (swiftmodule, emitted header, clang module map), as a
# target that links only those products sees them.
module_set() {
    local dir=$1 from=$2 name; shift 2
    mkdir -p "$dir/objc"
    for name in "$@"; do
        cp "$from/$name".swift* "$dir/" || return 1
        cp "$from/objc/$name-Swift.h" "$dir/objc/" || return 1
        printf 'module %s {\n  header "%s-Swift.h"\n  export *\n}\n' "$name" "$name" >>"$dir/objc/module.modulemap"
    done
}

# The SDK products a target of an example's XcodeGen project.yml links (its `product:` lines),
# one a line, and `app-extension` first when the target is one.
target_spec() {
    python3 - "$1" "$2" <<'PY'
import re, sys
path, target = sys.argv[1], sys.argv[2]
inside = section = False
for line in open(path).read().splitlines():
    if re.match(r"^\S", line):
        section, inside = line.startswith("targets:"), False
        continue
    if not section:
        continue
    m = re.match(r"^  (\S[^:]*):\s*$", line)
    if m:
        inside = m.group(1) == target
        continue
    if inside and re.match(r"^\s+type:\s*app-extension\s*$", line):
        print("app-extension")
    m = re.match(r"^\s+product:\s*(\S+)", line)
    if inside and m:
        print(m.group(1))
PY
}

# Compiles one example target folder into OUT against the products its project.yml links.
compile_example() {
    local folder=$1 out=$2 app tname spec extra=""
    app=$(basename "$(dirname "$(dirname "$folder")")")
    tname=$(basename "$folder")
    mapfile -t spec < <(target_spec "Examples/$app/project.yml" "$tname")
    [ ${#spec[@]} -gt 0 ] || { echo "Examples/$app/project.yml does not name the target $tname"; return 1; }
    if [ "${spec[0]}" = app-extension ]; then extra=-application-extension; spec=("${spec[@]:1}"); fi
    module_set "$out" "$work/sdk" "${spec[@]}" || return 1
    IOS_EXTRA="$extra" "$tool" swift "$out" "$folder=$tname"
}

# Compiles each Objective-C snippet against what its target links: the extension's against Core
# and Chat, the app's against Core, Chat and Calls.
compile_snippets() {
    local dir=$1 file status=0
    for file in "$dir"/*.m; do
        case $(basename "$file") in
            NotificationService*) "$tool" objc "$work/snippets-extension" "$file" || status=1 ;;
            *) "$tool" objc "$work/snippets-app" "$file" || status=1 ;;
        esac
    done
    return $status
}

echo "ios-compile-check: the iOS SDK tool's own self-test"
"$tool" selftest || fail "the iOS SDK tool's self-test"

echo "ios-compile-check: SDK modules"
"$tool" swift "$work/sdk" "${modules[@]/#/Sources/}" || fail "an SDK module does not compile cleanly"

echo "ios-compile-check: example targets"
examples=0
for folder in Examples/*/Sources/*/; do
    folder=${folder%/}
    examples=$((examples + 1))
    compile_example "$folder" "$work/example-$examples" || fail "$folder does not compile cleanly"
done
[ $examples -gt 0 ] || fail "no example targets under Examples/*/Sources"

echo "ios-compile-check: call forms"
callforms=Tests/CometChatPushNotificationsCallsTests/CallForms
compile_callforms() { # SDK_OUT SOURCES OUT: the call forms against Core and Calls as an app sees them
    module_set "$3" "$1" CometChatPushNotificationsSwift CometChatPushNotificationsCalls || return 1
    "$tool" swift "$3" "$2=CallForms"
}
compile_callforms "$work/sdk" "$callforms" "$work/callforms" || fail "$callforms does not compile cleanly"

echo "ios-compile-check: Objective-C snippets"
module_set "$work/snippets-app" "$work/sdk" CometChatPushNotificationsSwift CometChatPushNotificationsChat CometChatPushNotificationsCalls
module_set "$work/snippets-extension" "$work/sdk" CometChatPushNotificationsSwift CometChatPushNotificationsChat
compile_snippets docs/Snippets || fail "an Objective-C snippet does not compile"
python3 Scripts/check-objc-snippets.py --headers "$work/sdk/objc" || fail "the docs' Objective-C snippets"
python3 Scripts/check-objc-names.py "$work/sdk/objc" || fail "Objective-C names"
snippets=$(find docs/Snippets -name '*.m' | wc -l)
echo "ios-compile-check: ok (${#modules[@]} SDK modules, $examples example targets, the call forms, $snippets Objective-C files)"

[ "${1:-}" = --no-self-test ] && exit 0

# Self-test: each mutation of a scratch copy must make the check fail.
scratch=$work/self-test
mkdir -p "$scratch"
cp -r Sources Examples docs "$scratch/"
mutate() { # FILE FROM TO: replaces the first FROM, and fails the self-test if there is none
    grep -qF -- "$2" "$scratch/$1" || fail "self-test: '$2' is no longer in $1; pick another mutation"
    python3 - "$scratch/$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
open(path, "w").write(text.replace(old, new, 1))
PY
}
caught() { # NAME PATTERN COMMAND...: the command must fail, saying PATTERN (so for that reason)
    local name=$1 pattern=$2; shift 2
    if "$@" >"$scratch/$name.log" 2>&1; then fail "self-test: $name was not caught"; fi
    grep -qE -- "$pattern" "$scratch/$name.log" || fail "self-test: $name failed, but not for that reason: $(tail -5 "$scratch/$name.log")"
    echo "ios-compile-check self-test: caught $name"
}
adapter=Sources/CometChatPushNotificationsSwift/Platform/Apple/NotificationPermissionsAdapter.swift

cp "$scratch/$adapter" "$scratch/adapter.orig"
mutate "$adapter" "requestAuthorization(options:" "requestAuthorization(option:"
caught "a wrong argument label in an adapter" "incorrect argument label" "$tool" swift "$scratch/core" "$scratch/Sources/CometChatPushNotificationsSwift"
cp "$scratch/adapter.orig" "$scratch/$adapter"
mutate "$adapter" "_ = try? await UNUserNotificationCenter" "let unused = 1; _ = try? await UNUserNotificationCenter"
caught "a warning in an adapter" "warning: initialization of immutable value 'unused'" "$tool" swift "$scratch/core" "$scratch/Sources/CometChatPushNotificationsSwift"

example=Examples/CallsOnlyApp/Sources/CallsOnlyApp/AppDelegate.swift
mutate "$example" "CometChatPushNotifications.shared.delegate" "CometChatPushNotifications.shared.delegat"
caught "a missing member in an example" "has no member 'delegat'" compile_example "$scratch/Examples/CallsOnlyApp/Sources/CallsOnlyApp" "$scratch/example"

cp "$scratch/adapter.orig" "$scratch/$adapter"
mkdir -p "$scratch/Tests/CometChatPushNotificationsCallsTests"
cp -r "$callforms" "$scratch/$callforms"
mutate Sources/CometChatPushNotificationsSwift/API/CometChatPushNotifications+Preferences.swift \
    "func setConversationMutedAndWait(userId:" "func setConversationMuted(userId:"
"$tool" swift "$scratch/async-sdk" "$scratch/Sources/CometChatPushNotificationsSwift" "$scratch/Sources/CometChatPushNotificationsCalls" >/dev/null \
    || fail "self-test: the SDK with a renamed async form does not compile"
caught "an async form named like a call the docs make without await" "is 'async' but is not marked with 'await'" \
    compile_callforms "$scratch/async-sdk" "$scratch/$callforms" "$scratch/async-callforms"

mutate docs/Snippets/AppDelegate.m "initializeWithConfig:" "initializeWithConfiguration:"
caught "a wrong selector in a snippet" "declares the selector 'initializeWithConfiguration:'" "$tool" objc "$work/snippets-app" "$scratch/docs/Snippets/AppDelegate.m"

mkdir -p "$scratch/names"
module_set "$scratch/names" "$work/sdk" CometChatPushNotificationsSwift
rm "$scratch/names/objc/CometChatPushNotificationsSwift-Swift.h"
mutate Sources/CometChatPushNotificationsCalls/API/IncomingCall.swift "@objc(PNIncomingCall)" "@objc(IncomingCall)"
"$tool" swift "$scratch/names" "$scratch/Sources/CometChatPushNotificationsCalls" >/dev/null || fail "self-test: the renamed Calls module does not compile"
caught "an unprefixed Objective-C name" "class IncomingCall: Objective-C names start with PN" python3 Scripts/check-objc-names.py "$scratch/names/objc"

mkdir -p "$scratch/doc-root/docs"
cp -r docs/Snippets "$scratch/doc-root/docs/"
cp Sources/CometChatPushNotificationsSwift/CometChatPushNotificationsSwift.docc/ObjectiveC.md "$scratch/doc-root/"
mutate doc-root/ObjectiveC.md "initializeWithConfig:" "initializeWith:"
caught "a doc block that differs from its file" "ObjectiveC.md:[0-9]+: the block differs from docs/Snippets/AppDelegate.m" python3 Scripts/check-objc-snippets.py "$scratch/doc-root"
mutate docs/Snippets/PushDelegate.m "- (void)navigateToChatForUser:" "- (void)navigateToChatWithUser:"
caught "a misspelled delegate method in a snippet" "implements -navigateToChatWithUser:" python3 Scripts/check-objc-snippets.py --headers "$work/sdk/objc" "$scratch"
echo "ios-compile-check self-test: ok (8 kinds of mistake caught)"
