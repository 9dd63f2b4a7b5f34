#!/usr/bin/env bash
# Runs a `swift test` that selects suites by name and fails unless it ran tests in at least N
# suites: a renamed suite would otherwise leave the selection empty and pass with no test.
#
#   Scripts/run-selected.sh N swift test --filter 'ASuite|BSuite' ...
set -euo pipefail
[ $# -ge 2 ] && [[ "$1" =~ ^[1-9][0-9]*$ ]] || { echo "usage: run-selected.sh N COMMAND..." >&2; exit 64; }
minimum=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
set +e
"$@" 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || exit "$status"
suites=$(sed -nE 's/^[^ ]+ Test run with [0-9]+ tests? in ([0-9]+) suites? passed.*/\1/p' "$out" | tail -1)
if [ -z "$suites" ] || [ "$suites" -lt "$minimum" ]; then
    echo "run-selected: tests ran in ${suites:-no} suites, fewer than the $minimum selected"
    exit 1
fi
