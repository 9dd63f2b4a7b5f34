#!/usr/bin/env bash
# Fails when any Swift file differs from what `swift format` (with .swift-format) makes of it.
# To fix: swift format format --configuration .swift-format -r -i Sources Tests Benchmarks Server/Sources Server/Tests Server/Benchmarks
# Then checks the SDK's layout rule that formatting cannot see: the Objective-C surface stays in
# API/ObjectiveC/ (Scripts/check-objc-apart.py, with its self-test).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 Scripts/check-objc-apart.py
python3 Scripts/check-objc-apart.py --self-test
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dirs=()
for d in Sources Tests Benchmarks Examples Server/Sources Server/Tests Server/Benchmarks; do
    [ -d "$d" ] && dirs+=("$d")
done
for d in "${dirs[@]}"; do
    mkdir -p "$scratch/$d"
    cp -R "$d/." "$scratch/$d/"
done
(cd "$scratch" && swift format format --configuration "$OLDPWD/.swift-format" -r -i "${dirs[@]}")
status=0
for d in "${dirs[@]}"; do
    if ! diff -r -q "$d" "$scratch/$d" >/dev/null; then
        diff -r "$d" "$scratch/$d" | head -40 || true
        status=1
    fi
done
if [ $status -ne 0 ]; then
    echo "format-check: files differ from swift format's output (see the command at the top of this script)"
    exit 1
fi
echo "format-check: all Swift files formatted"
