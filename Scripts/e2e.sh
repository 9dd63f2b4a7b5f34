#!/usr/bin/env bash
# End to end: starts the push service (Server/) on a free loopback port with a development seed,
# runs the SDK's EndToEndTests against it (the Core engine on the simulated platform, real
# URLSession), and stops the service. Fails unless at least one test really ran and none was
# skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d /tmp/push-e2e.XXXXXX)
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    rm -rf "$data"
}
trap cleanup EXIT

# The same flags as the test command's builds (Scripts/test.sh, Server/Scripts/ci.sh), so that
# after them nothing is rebuilt.
swift build --package-path Server --product push-server -Xswiftc -warnings-as-errors
binary="$(swift build --package-path Server --show-bin-path)/push-server"
export PUSH_ADMIN_KEY="e2e-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
# --sender log: the delivery engine (claims, leases, batched finishing) drives the log sender,
# which sends nothing and records each push delivered.
"$binary" --port 0 --data-dir "$data" --seed-dev --sender log >"$data/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    [ -s "$data/dev-seed.json" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$data/server.log"; echo "e2e: the service did not start"; exit 1; }
    sleep 0.1
done
[ -s "$data/dev-seed.json" ] || { cat "$data/server.log"; echo "e2e: no dev seed"; exit 1; }

# swift test passes a suite whose tests were all skipped: count the tests that really passed.
set +e
PUSH_E2E_SEED="$data/dev-seed.json" PUSH_E2E_ADMIN_KEY="$PUSH_ADMIN_KEY" swift test -Xswiftc -warnings-as-errors --filter EndToEndTests 2>&1 \
    | tee "$data/test.log"
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { echo "e2e: swift test failed ($status)"; exit "$status"; }
passed=$(grep -E '^[^ ]+ Test .+ passed after ' "$data/test.log" | grep -vc 'Test run with' || true)
skipped=$(grep -Ec '^[^ ]+ (Test|Suite) .+ skipped' "$data/test.log" || true)
if [ "$passed" -eq 0 ] || [ "$skipped" -ne 0 ]; then
    echo "e2e: $passed tests passed and $skipped were skipped; the end-to-end suite did not run"
    exit 1
fi
echo "e2e: $passed end-to-end tests passed"
