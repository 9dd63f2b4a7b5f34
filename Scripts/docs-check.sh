#!/usr/bin/env bash
# Checks that every document, Markdown link, anchor and iOS rule number the repository cites is
# in it (Scripts/check-doc-references.py, then its self-test), builds every product's DocC
# catalog with docc (warnings are errors) and checks that every public symbol of the SDK has a
# /// comment. Exits non-zero when any of these fails.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/docs-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

status=0
python3 Scripts/check-doc-references.py || status=1
python3 Scripts/check-doc-references.py --self-test || status=1

modules=(CometChatPushNotificationsSwift CometChatPushNotificationsChat CometChatPushNotificationsCalls CometChatPushNotificationsTesting)
mkdir -p "$work/graphs"
for module in "${modules[@]}"; do
    swift build --scratch-path .build-docs --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/graphs" >"$work/build-$module.log" 2>&1 \
        || { cat "$work/build-$module.log"; exit 1; }
done

for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    [ -d "$catalog" ] || continue
    mkdir -p "$work/$module"
    cp "$work/graphs/$module".symbols.json "$work/$module/"
    cp "$work/graphs/$module"@*.symbols.json "$work/$module/" 2>/dev/null || true
    if docc convert "$catalog" --additional-symbol-graph-dir "$work/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "com.cometchat.push.$module" \
        --output-path "$work/out-$module" --warnings-as-errors >"$work/docc-$module.log" 2>&1; then
        echo "docs: $module builds without warnings"
    else
        grep -E "warning|error" -A3 "$work/docc-$module.log" | head -40
        echo "docs: $module FAILED"
        status=1
    fi
done

python3 Scripts/doc-coverage.py "$work/graphs" "${modules[@]}" || status=1
exit $status
