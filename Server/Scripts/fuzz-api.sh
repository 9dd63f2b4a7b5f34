#!/usr/bin/env bash
# Fuzzes the running service with schemathesis against Server/openapi.json: the client API and
# the admin API, with the seeded admin key, app and auth token. Deterministic (fixed seed, one
# worker, no example database). Fails on any 5xx and on any answer the document does not allow
# (status code, content type, body schema, headers), and when an undocumented method does not get
# 405 with a correct Allow header. Prints how many requests the service answered.
#
#   Server/Scripts/fuzz-api.sh                 # builds push-server (debug) and fuzzes it
#   PUSH_SERVER_BINARY=path/to/push-server Server/Scripts/fuzz-api.sh
#   FUZZ_MAX_EXAMPLES=200 FUZZ_SEED=7 Server/Scripts/fuzz-api.sh     # a longer or another run
#   FUZZ_KEEP=/tmp/fuzz Server/Scripts/fuzz-api.sh     # keep the service's log and the JUnit and HAR reports
#   FUZZ_CHECKS=all Server/Scripts/fuzz-api.sh         # other schemathesis checks (comma-separated)
#
# The service runs with `--sender log` (jobs are logged, nothing goes to APNs or FCM) and
# without rate limits. /healthz and /metrics are left out: only the delivery engine serves them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="$(cd "$here/.." && pwd)"
root="$(cd "$server/.." && pwd)"
seed="${FUZZ_SEED:-20261130}"
max_examples="${FUZZ_MAX_EXAMPLES:-150}"

python="$("$root/Scripts/pyenv.sh")"

if [ -z "${PUSH_SERVER_BINARY:-}" ]; then
    # The flags of the test command's other builds (Scripts/test.sh, e2e.sh, dashboard-test.sh):
    # other flags would rebuild the whole service, and then they would rebuild it again.
    swift build --package-path "$server" --product push-server -Xswiftc -warnings-as-errors
    PUSH_SERVER_BINARY="$(swift build --package-path "$server" --show-bin-path)/push-server"
fi

work=$(mktemp -d /tmp/push-fuzz.XXXXXX)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

random_hex() { head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
export PUSH_ADMIN_KEY="fuzz-admin-$(random_hex)"
export PUSH_SEED_AUTH_TOKEN="dev-user_fuzz$(random_hex)"
export PUSH_SECRET_KEY="$(random_hex)$(random_hex)"
# The fuzzer sets the seed app's webhook URL to whatever it likes (`http://jUV:44892/…`): the
# service's libcurl must reach no host but this machine. The admin API refuses most of them (not
# https, or a name that resolves to a private address; no --allow-insecure-webhooks here), and
# every post of the others goes to a proxy address on loopback where nothing listens (libcurl
# reads these variables; NO_PROXY is cleared), which the destination check refuses before
# connecting. So no post leaves the machine; only the admin API's check of a URL asks the
# resolver about its made-up host name (getaddrinfo).
sink="http://127.0.0.1:9"
env -u NO_PROXY -u no_proxy http_proxy="$sink" https_proxy="$sink" HTTPS_PROXY="$sink" ALL_PROXY="$sink" all_proxy="$sink" \
    "$PUSH_SERVER_BINARY" --port 0 --data-dir "$work/data" --seed-dev --sender log --rate-limit 0 \
    --log-level info >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do
    [ -s "$work/data/dev-seed.json" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; echo "fuzz-api: the service did not start"; exit 1; }
    sleep 0.1
done
[ -s "$work/data/dev-seed.json" ] || { cat "$work/server.log"; echo "fuzz-api: no dev seed"; exit 1; }
read -r base_url app_id < <("$python" -c '
import json, sys
seed = json.load(open(sys.argv[1]))
print(seed["baseURL"], seed["appId"])' "$work/data/dev-seed.json")
echo "fuzz-api: push-server at $base_url (app $app_id), seed $seed, at most $max_examples examples per operation"

status=0
# Two passes on the same service: the client API first (with the seeded user's session, before
# the admin pass may delete that user), then the admin API and the service's own paths. Every
# request carries all three headers: admin routes read apikey (and appid), client routes appid
# and authToken, and neither looks at the other's. Secrets reach schemathesis through the
# environment, never its command line.
fuzz() {
    local name="$1"
    shift
    echo "fuzz-api: $name"
    "$python" - "$server/openapi.json" "$base_url" "$app_id" "$seed" "$max_examples" "$work/report-$name" "$@" <<'PY' || status=1
import os, subprocess, sys
schema, base_url, app_id, seed, max_examples, report, *selection = sys.argv[1:]
command = [
    os.path.join(os.path.dirname(sys.executable), "st"),
    "--config-file", os.path.join(os.path.dirname(os.path.abspath(schema)), "Scripts", "schemathesis.toml"),
    "run", schema,
    "--url", base_url,
    "--header", f"apikey: {os.environ['PUSH_ADMIN_KEY']}",
    "--header", f"authToken: {os.environ['PUSH_SEED_AUTH_TOKEN']}",
    "--header", f"appid: {app_id}",
    "--checks", os.environ.get("FUZZ_CHECKS", ",".join([
        "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance",
        "response_headers_conformance", "unsupported_method", "allow_header_conformance", "missing_required_header"])),
    "--mode", "all",
    "--phases", "examples,coverage,fuzzing",
    "--max-examples", max_examples,
    "--seed", seed,
    "--generation-database", "none",
    "--workers", "1",
    "--request-timeout", "10",
    "--suppress-health-check", "all",
    "--output-sanitize", "true",
    "--no-color",
    "--report", "junit,har" if os.environ.get("FUZZ_KEEP") else "junit", "--report-dir", report,
    *selection,
]
sys.exit(subprocess.call(command, cwd=os.path.dirname(report)))
PY
}
fuzz client --include-tag client
# The client pass may have unregistered the session's tokens: register one of each kind again,
# so the admin pass's send examples (to dev-user) build real jobs and payloads.
"$python" - "$base_url" "$app_id" <<'PY' || status=1
import json, os, sys, urllib.request
base_url, app_id = sys.argv[1:]
tokens = [("ab" * 32, "apns_ios_device"), ("cd" * 32, "apns_ios_voip"), ("fcm-token-fuzz", "fcm_ios")]
for token, platform in tokens:
    request = urllib.request.Request(
        base_url + "/notifications/push/v1/tokens", method="POST",
        data=json.dumps({"fcmToken": token, "platform": platform}).encode(),
        headers={"appid": app_id, "authToken": os.environ["PUSH_SEED_AUTH_TOKEN"], "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200, answer.status
print("fuzz-api: registered", len(tokens), "tokens for the admin pass")
PY
# /healthz and /metrics are left out: only the delivery engine serves them (not with --sender log).
fuzz admin --exclude-tag client --exclude-path /healthz --exclude-path /metrics

requests=$(grep -cE '\] (GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|TRACE) ' "$work/server.log" || true)
echo "fuzz-api: the service answered $requests requests; by status:"
grep -oE '\] (GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|TRACE) [^ ]* [0-9]{3} ' "$work/server.log" |
    awk '{ print $NF }' | sort | uniq -c | sed 's/^/    /'
jobs=$(grep -oE 'send accepted .* jobs=[0-9]+' "$work/server.log" | awk -F'jobs=' '{ sum += $2 } END { print sum + 0 }')
echo "fuzz-api: $(grep -c 'send accepted' "$work/server.log" || true) sends accepted, $jobs push jobs built and handed to the log sender"
if grep -qE '\] (GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|TRACE) [^ ]* 5[0-9]{2} ' "$work/server.log"; then
    echo "fuzz-api: the service answered 5xx:"
    grep -E '\] (GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS|TRACE) [^ ]* 5[0-9]{2} ' "$work/server.log" | head -20
    status=1
fi
if grep -qiE 'request failed|fatal|crash' "$work/server.log"; then
    echo "fuzz-api: the service logged failures:"
    grep -iE 'request failed|fatal|crash' "$work/server.log" | head -20
    status=1
fi
kill -0 "$server_pid" 2>/dev/null || { echo "fuzz-api: the service died"; status=1; }
[ -n "${FUZZ_KEEP:-}" ] && mkdir -p "$FUZZ_KEEP" && cp -R "$work/server.log" "$work"/report-* "$FUZZ_KEEP/"
if [ "$status" -ne 0 ]; then
    echo "fuzz-api: FAILED"
    exit "$status"
fi
echo "fuzz-api: passed"
