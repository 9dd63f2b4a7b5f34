#!/usr/bin/env bash
# Compiles the SDK's Platform/Apple adapters (and the example apps' Swift sources) on Linux
# against the hand-written Apple API stubs in Tests/AppleStubs, in a throwaway package where
# canImport(UIKit), canImport(UserNotifications), … are true.
#
#   Scripts/apple-compile-check.sh              compile; exit non-zero on any error
#   Scripts/apple-compile-check.sh --self-test  prove the check works: a scratch copy with a
#                                               deliberately wrong call must fail to compile
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
mode=${1:-check}
work=$(mktemp -d /tmp/apple-compile-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

stubs=()
for dir in Tests/AppleStubs/*/; do
    name=$(basename "$dir")
    stubs+=("$name")
    mkdir -p "$work/Sources/$name"
    cp "$dir"*.swift "$work/Sources/$name/"
done

sdk=()
for module in CometChatPushNotificationsSwift CometChatPushNotificationsChat CometChatPushNotificationsCalls; do
    [ -d "Sources/$module" ] || continue
    sdk+=("$module")
    mkdir -p "$work/Sources/$module"
    (cd "Sources/$module" && find . -name '*.swift' -not -path '*.docc*' -exec cp --parents {} "$work/Sources/$module" \;)
done

# The SDK products a target of an example's XcodeGen project.yml links (its `product:` lines),
# one a line; nothing when the project does not name the target.
linked_products() {
    python3 - "$1" "$2" <<'PY'
import re, sys
path, target = sys.argv[1], sys.argv[2]
try:
    lines = open(path).read().splitlines()
except OSError:
    sys.exit(0)
inside = section = False
for line in lines:
    if re.match(r"^\S", line):
        section = line.startswith("targets:")
        inside = False
        continue
    if not section:
        continue
    m = re.match(r"^  (\S[^:]*):\s*$", line)
    if m:
        inside = m.group(1) == target
        continue
    m = re.match(r"^\s+product:\s*(\S+)", line)
    if inside and m:
        print(m.group(1))
PY
}

examples=()
declare -A example_deps
# Each Examples/<App>/Sources/<Target>/ folder is one module (the app, its extension), depending
# on the stubs and on the SDK products its project.yml links to that target (all of them when
# the project names none), so an extension that imports the Calls product fails here as in Xcode.
for target in Examples/*/Sources/*/; do
    [ -d "$target" ] || continue
    app=$(basename "$(dirname "$(dirname "$target")")")
    tname=$(basename "$target")
    name="Example_${app}_${tname}"
    examples+=("$name")
    example_deps[$name]=$(linked_products "Examples/$app/project.yml" "$tname" | tr '\n' ' ')
    # SwiftPM lets a module import any module built before it, so check imports by name too.
    if [ -n "${example_deps[$name]}" ]; then
        for imported in $(grep -rhoE '^(@[A-Za-z_]+(\([^)]*\))? )*import +CometChatPushNotifications[A-Za-z]*' "$target" \
            | grep -oE 'CometChatPushNotifications[A-Za-z]*' | sort -u); do
            if [[ " ${example_deps[$name]} " != *" $imported "* ]]; then
                echo "$target imports $imported, which Examples/$app/project.yml does not link to $tname"
                echo "apple-compile-check: FAILED"
                exit 1
            fi
        done
    fi
    mkdir -p "$work/Sources/$name"
    (cd "$target" && find . -name '*.swift' -exec cp --parents {} "$work/Sources/$name" \;)
done

stub_deps=$(for s in "${stubs[@]}"; do printf '.target(name: "%s"), ' "$s"; done)
{
    echo '// swift-tools-version: 6.0'
    echo 'import PackageDescription'
    echo 'let stubFlags: [SwiftSetting] = [.unsafeFlags(["-enable-library-evolution", "-suppress-warnings"])]'
    echo 'let package = Package(name: "AppleCompileCheck", targets: ['
    for s in "${stubs[@]}"; do
        # A stub framework depends on the stub frameworks it imports (Intents imports UserNotifications).
        sdeps=""
        for other in "${stubs[@]}"; do
            [ "$other" != "$s" ] && grep -qx "import $other" "$work/Sources/$s/"*.swift && sdeps+="\"$other\", "
        done
        echo "    .target(name: \"$s\", dependencies: [${sdeps%, }], swiftSettings: stubFlags),"
    done
    for m in "${sdk[@]}"; do
        deps="$stub_deps"
        [ "$m" != CometChatPushNotificationsSwift ] && deps+='.target(name: "CometChatPushNotificationsSwift"), '
        echo "    .target(name: \"$m\", dependencies: [${deps%, }]),"
    done
    for e in "${examples[@]}"; do
        deps="$stub_deps"
        for m in "${sdk[@]}"; do
            if [ -z "${example_deps[$e]}" ] || [[ " ${example_deps[$e]} " == *" $m "* ]]; then
                deps+=".target(name: \"$m\"), "
            fi
        done
        echo "    .target(name: \"$e\", dependencies: [${deps%, }]),"
    done
    echo '], swiftLanguageModes: [.v6])'
} > "$work/Package.swift"

if [ "$mode" = "--self-test" ]; then
    # A wrong label on a UIKit call, as a typo in an adapter would be.
    target="$work/Sources/CometChatPushNotificationsSwift/Platform/Apple/UIApplicationAdapter.swift"
    grep -q 'beginBackgroundTask(withName:' "$target"
    sed -i 's/beginBackgroundTask(withName:/beginBackgroundTask(named:/' "$target"
    if swift build --package-path "$work" >"$work/build.log" 2>&1; then
        echo "apple-compile-check self-test: FAILED — a wrong call compiled"
        exit 1
    fi
    grep -m1 'error:' "$work/build.log" || true
    echo "apple-compile-check self-test: ok — the wrong call was caught"
    exit 0
fi

if ! swift build --package-path "$work" >"$work/build.log" 2>&1; then
    grep -E 'error:' "$work/build.log" | sort -u | head -40
    echo "apple-compile-check: FAILED"
    exit 1
fi
warnings=$(grep -E 'warning:' "$work/build.log" | grep -v 'unsafeFlags' | sort -u || true)
[ -n "$warnings" ] && printf 'apple-compile-check warnings:\n%s\n' "$warnings"
echo "apple-compile-check: ok (${#sdk[@]} SDK modules, ${#examples[@]} example targets, ${#stubs[@]} stub frameworks)"
