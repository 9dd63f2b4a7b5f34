#!/usr/bin/env bash
# The README's main command: installs the Debian packages push-server needs (when missing), then
# builds and runs it with your flags. On a machine that has them, this is just
#   swift run --package-path Server push-server [flags]
#
#   Scripts/push-server.sh                      SQLite under ./data, http://127.0.0.1:8080
#   Scripts/push-server.sh --port 0 --seed-dev  any push-server flag (--help lists them)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v swift >/dev/null; then
    echo "push-server.sh: no swift on PATH; install a Swift 6 toolchain (swift.org/install) first" >&2
    exit 1
fi
bash "$root/Scripts/install-deps.sh" service
exec swift run --package-path "$root/Server" push-server "$@"
