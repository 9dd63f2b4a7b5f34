#!/usr/bin/env bash
# End to end, in two parts, both run by one `swift test --filter EndToEndTests`:
#
#  EndToEndTests           the SDK's Core engine (simulated platform, real URLSession) against
#                          push-server started with a development seed and `--sender log`.
#  SimulatedEndToEndTests  issue 18: push-server (SQLite, its real delivery engine and APNs
#                          client) sending to the mock APNs (Server/Mocks/mock_push.py, HTTP/2
#                          over TLS, JWT checked, a throwaway test CA); the test reads each push
#                          from the mock's log and hands it to the simulated device it was
#                          addressed to (two devices of one user): mute, quiet hours,
#                          mentions-only, read sync, and the trace of a push.
#  MessageChangesEndToEndTests  issue 27, on the same setup: a push-server of the test's own
#                          (the binary, the mock's URL and CA are handed over as PUSH_SIM_E2E_*)
#                          killed with SIGKILL while the mock holds its answers (the mock's
#                          --script, a file the test writes) and restarted on the same port and
#                          store: every message shown exactly once on each device, resends
#                          included; an edit and a deletion on both devices by their background
#                          pushes; an edit and a deletion while the iPad's app is force-quit,
#                          applied by the catch-up at launch; a deletion that reaches the device
#                          before its message; a revoked auth token (the phone skipped with the
#                          reason `revoked`, the iPad still notified, the phone logged out).
#  PrivatePushEndToEndTests  issue 28, on the same setup: a household in a `private` app beside
#                          one in a `standard` app, sent the same message, edit and call: the
#                          mock's log of the private one names no one (uids, names, text, avatar
#                          URL, conversation and session ids), and its devices show, ring and
#                          report what the standard one's do.
#
# Stops everything it started (the test stops the service it started). Fails unless every suite
# really ran and no test was skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d /tmp/push-e2e.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
    done
    rm -rf "$data"
}
trap cleanup EXIT
random_hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# Waits (up to 30 s) until file $2 has a line matching $3, while process $1 lives.
wait_for() {
    local pid="$1" file="$2" pattern="$3"
    for _ in $(seq 1 300); do
        grep -Eq "$pattern" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$file" 2>/dev/null || true
    echo "e2e: no line matching '$pattern' in $file"
    exit 1
}

# The same flags as the test command's builds (Scripts/test.sh, Server/Scripts/ci.sh), so that
# after them nothing is rebuilt.
swift build --package-path Server --product push-server -Xswiftc -warnings-as-errors
binary="$(swift build --package-path Server --show-bin-path)/push-server"
command -v openssl >/dev/null || { echo "e2e: openssl is needed (the mock APNs's test CA)"; exit 1; }
python="$(Scripts/pyenv.sh)"

# 1. The service with a development seed and the log sender: the delivery engine (claims,
# leases, batched finishing) drives the log sender, which sends nothing and records each push
# delivered.
export PUSH_ADMIN_KEY="e2e-$(random_hex 16)"
"$binary" --port 0 --data-dir "$data/seeded" --seed-dev --sender log >"$data/server.log" 2>&1 &
pids+=($!)
wait_for "${pids[-1]}" "$data/server.log" 'listening on http'
[ -s "$data/seeded/dev-seed.json" ] || { cat "$data/server.log"; echo "e2e: no dev seed"; exit 1; }

# 2. The mock APNs, with a throwaway CA and key (never committed), logging every request.
sh Server/Mocks/make_test_ca.sh "$data/ca"
# Its --script (per-token answers) starts empty: every push gets 200 until a test writes it.
echo '{}' >"$data/apns-script.json"
"$python" Server/Mocks/mock_push.py --port 0 --cert "$data/ca/server.pem" --key "$data/ca/server.key" \
    --apns-key "$data/ca/apns.pub.pem" --key-id TESTKEY123 --team-id TESTTEAM12 --log "$data/apns.jsonl" \
    --script "$data/apns-script.json" \
    >"$data/mock.out" 2>"$data/mock.err" &
pids+=($!)
wait_for "${pids[-1]}" "$data/mock.out" '^PORT [0-9]+'
mock_port=$(sed -nE 's/^PORT ([0-9]+).*/\1/p' "$data/mock.out" | head -1)

# 3. The service that sends for real, to the mock (its CA trusted), with its own store.
PUSH_SECRET_KEY="$(random_hex 32)" "$binary" --port 0 --data-dir "$data/sending" --sqlite-sync normal \
    --apns-url "https://127.0.0.1:$mock_port" --ca-file "$data/ca/ca.pem" >"$data/sending.log" 2>&1 &
pids+=($!)
wait_for "${pids[-1]}" "$data/sending.log" 'listening on http'
sending_url=$(sed -nE 's/.*listening on (http:[^ ]+).*/\1/p' "$data/sending.log" | head -1)
echo "e2e: seeded service in $data/seeded; sending service at $sending_url, mock APNs at 127.0.0.1:$mock_port"

# swift test passes a suite whose tests were all skipped: count the tests that really passed.
set +e
PUSH_E2E_SEED="$data/seeded/dev-seed.json" PUSH_E2E_ADMIN_KEY="$PUSH_ADMIN_KEY" \
    PUSH_SIM_E2E_URL="$sending_url" PUSH_SIM_E2E_ADMIN_KEY="$PUSH_ADMIN_KEY" PUSH_SIM_E2E_APNS_LOG="$data/apns.jsonl" \
    PUSH_SIM_E2E_APNS_KEY_FILE="$data/ca/apns.p8" PUSH_SIM_E2E_KEY_ID=TESTKEY123 PUSH_SIM_E2E_TEAM_ID=TESTTEAM12 \
    PUSH_SIM_E2E_SERVER_BINARY="$binary" PUSH_SIM_E2E_APNS_URL="https://127.0.0.1:$mock_port" \
    PUSH_SIM_E2E_CA_FILE="$data/ca/ca.pem" PUSH_SIM_E2E_APNS_SCRIPT="$data/apns-script.json" \
    swift test -Xswiftc -warnings-as-errors --filter EndToEndTests 2>&1 | tee "$data/test.log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    echo "e2e: swift test failed ($status); the sending service's log and the mock's errors follow"
    tail -n 60 "$data/sending.log"
    tail -n 20 "$data/mock.err"
    exit "$status"
fi
passed=$(grep -E '^[^ ]+ Test .+ passed after ' "$data/test.log" | grep -vc 'Test run with' || true)
skipped=$(grep -Ec '^[^ ]+ (Test|Suite) .+ skipped' "$data/test.log" || true)
for suite in 'End to end with the push service' 'Simulated end to end: the real service' \
    'Simulated end to end: one notification per message' 'Simulated end to end: private push'; do
    grep -Eq "^[^ ]+ Suite \"$suite[^\"]*\" passed after " "$data/test.log" || {
        echo "e2e: the suite \"$suite\" did not run and pass"
        exit 1
    }
done
if [ "$passed" -eq 0 ] || [ "$skipped" -ne 0 ]; then
    echo "e2e: $passed tests passed and $skipped were skipped; the end-to-end suites did not run"
    exit 1
fi
echo "e2e: $passed end-to-end tests passed"
