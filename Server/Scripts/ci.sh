#!/usr/bin/env bash
# Builds and tests the push service (Server/) in debug and release.
# Installs what it needs first (Scripts/install-deps.sh: Debian packages when missing, the Python venv).
# Usage: Server/Scripts/ci.sh            (from anywhere; Scripts/test.sh calls it)
#        SERVER_CI_CONFIGS="release" Server/Scripts/ci.sh   (one configuration only)
# In release, the store and API suites (PushServerTests, DeliveryTests) run a second time on a
# throwaway PostgreSQL cluster (Server/Scripts/pg-cluster.sh); SERVER_CI_POSTGRES=0 skips that.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="$(cd "$here/.." && pwd)"
scratch="${SERVER_CI_SCRATCH:-$server/.build}"
configs="${SERVER_CI_CONFIGS:-debug release}"

# The Debian and Python packages (one list for the repository: Scripts/debian-packages.txt).
bash "$server/../Scripts/install-deps.sh" test
# Part 2's delivery tests start the Python mocks in Server/Mocks (h2 over TLS) and verify JWTs
# with Python's cryptography; the test CA and keys are made by the tests with openssl.
command -v openssl >/dev/null || { echo "ci.sh: openssl is needed"; exit 1; }
# They run `python3` from PATH: put the repository's virtual environment (Scripts/pyenv.sh) first.
python="$("$server/../Scripts/pyenv.sh")"
export PATH="$(dirname "$python"):$PATH"

# The kill tests run several services, mocks and (in release) thousands of pushes each: in
# release they run on their own after the other suites, so that neither group's deadlines meet
# the other's load on two cores.
heavy='MultiInstanceTests|EngineCrashTests|WebhookCrashTests|CrashRecoveryTests'
# Runs the tests (arguments: swift test's selection, e.g. --filter X), the kill tests apart in release.
run_tests() {
    local filter=("$@")
    if [ "$config" = release ]; then
        swift test --package-path "$server" --scratch-path "$scratch" -c "$config" --skip-build "${filter[@]}" --skip "$heavy"
        swift test --package-path "$server" --scratch-path "$scratch" -c "$config" --skip-build --filter "$heavy"
    else
        swift test --package-path "$server" --scratch-path "$scratch" -c "$config" --skip-build "${filter[@]}"
    fi
}

for config in $configs; do
    echo "ci.sh: building and testing Server/ ($config)"
    start=$(date +%s)
    swift build --package-path "$server" --scratch-path "$scratch" -c "$config" --build-tests -Xswiftc -warnings-as-errors
    run_tests
    echo "ci.sh: $config done in $(( $(date +%s) - start ))s"
    if [ "$config" = release ] && [ "${SERVER_CI_POSTGRES:-1}" = 1 ]; then
        # The suites that touch a store again, on PostgreSQL: a throwaway cluster (stopped and
        # deleted on exit); each test makes its own schema in it (PushTestSupport's TestDatabase).
        start=$(date +%s)
        pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/push-ci-pg-XXXXXX")
        trap 'bash "$here/pg-cluster.sh" stop "$pg_dir"' EXIT
        pg_url=$(bash "$here/pg-cluster.sh" start "$pg_dir")
        echo "ci.sh: testing Server/ ($config) on PostgreSQL ($pg_url)"
        PUSH_TEST_DATABASE_URL="$pg_url" run_tests --filter 'PushServerTests|DeliveryTests'
        bash "$here/pg-cluster.sh" stop "$pg_dir"
        trap - EXIT
        echo "ci.sh: $config on PostgreSQL done in $(( $(date +%s) - start ))s"
    fi
done
