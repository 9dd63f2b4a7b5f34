#!/usr/bin/env bash
# Starts push-server for local runs and end-to-end tests, with a development app, user,
# auth token and APNs provider already created (--seed-dev), and waits until it answers.
#
#   Server/Scripts/start-dev-server.sh [--port 8099] [--data-dir DIR] [--build debug|release] [-- extra push-server flags]
#
# Environment it honours (all optional):
#   PUSH_SEED_AUTH_TOKEN  the auth token to create for the seed user (default: generated)
#   PUSH_ADMIN_KEY        the admin key (default: generated into DIR/admin.key)
#   PUSH_SEED_APP_ID, PUSH_SEED_UID, PUSH_SEED_PROVIDER_ID   seed names (dev-app, dev-user, dev-apns)
#
# Prints (stdout, machine-readable, last lines):
#   PUSH_SERVER_PID=<pid>
#   PUSH_SERVER_URL=http://127.0.0.1:<port>
#   PUSH_SERVER_SEED=<DIR>/dev-seed.json     ({"baseURL","appId","uid","authToken","providerId"}, mode 0600)
# Stop it with: kill <pid>. Its log goes to <DIR>/server.log.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="$(cd "$here/.." && pwd)"
port=8099
data_dir=""
build=debug
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --port) port="$2"; shift 2 ;;
        --data-dir) data_dir="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) echo "unknown option $1" >&2; exit 64 ;;
    esac
done
[ -n "$data_dir" ] || data_dir="$(mktemp -d "${TMPDIR:-/tmp}/push-dev-XXXXXX")"
mkdir -p "$data_dir"

swift build --package-path "$server" --scratch-path "$server/.build" -c "$build" --product push-server >&2
binary="$server/.build/$build/push-server"

"$binary" --host 127.0.0.1 --port "$port" --data-dir "$data_dir" --seed-dev "${extra[@]}" >"$data_dir/server.log" 2>&1 &
pid=$!

for _ in $(seq 1 100); do
    if grep -q "listening on" "$data_dir/server.log" 2>/dev/null && [ -f "$data_dir/dev-seed.json" ]; then
        url="$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$data_dir/server.log" | head -1)"
        echo "PUSH_SERVER_PID=$pid"
        echo "PUSH_SERVER_URL=$url"
        echo "PUSH_SERVER_SEED=$data_dir/dev-seed.json"
        exit 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "push-server exited; log:" >&2
        cat "$data_dir/server.log" >&2
        exit 1
    fi
    sleep 0.1
done
echo "push-server did not start within 10 s; log:" >&2
cat "$data_dir/server.log" >&2
kill "$pid" 2>/dev/null || true
exit 1
