#!/usr/bin/env bash
# The dashboard in a real browser: builds push-server, then Server/Scripts/dashboard_test.py drives
# headless Chromium (Debian's chromium + chromium-driver, through Selenium) against it and the mock
# APNs. Screenshots of every page go to .build/dashboard-screenshots (printed at the end).
#
#   Server/Scripts/dashboard-test.sh                 (debug build)
#   DASHBOARD_BUILD=release Server/Scripts/dashboard-test.sh
#   DASHBOARD_SCREENSHOTS=/some/dir Server/Scripts/dashboard-test.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="$(cd "$here/.." && pwd)"
root="$(cd "$server/.." && pwd)"
build="${DASHBOARD_BUILD:-debug}"
shots="${DASHBOARD_SCREENSHOTS:-$root/.build/dashboard-screenshots}"

# The browser and its driver come from Debian: Scripts/install-deps.sh test installs them
# (Scripts/debian-packages.txt), as the test command does before this step.
bash "$root/Scripts/install-deps.sh" test
command -v openssl >/dev/null || { echo "dashboard-test: openssl is needed (the mock's test CA)" >&2; exit 1; }

python="$("$root/Scripts/pyenv.sh")"
swift build --package-path "$server" --scratch-path "$server/.build" -c "$build" --product push-server -Xswiftc -warnings-as-errors
"$python" "$here/dashboard_test.py" --binary "$server/.build/$build/push-server" --mocks "$server/Mocks" --screenshots "$shots"
