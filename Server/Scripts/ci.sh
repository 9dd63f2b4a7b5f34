#!/usr/bin/env bash
# Builds and tests the push service (Server/) in debug and release: in each the light group of
# suites (several tests at once), then in release the heavy group (one test at a time); in
# release, the suites that run the service or its store ($store_modules below) run a second time
# on a throwaway PostgreSQL cluster (Server/Scripts/pg-cluster.sh). Installs what it needs first
# (Scripts/install-deps.sh: Debian packages when missing, the Python venv).
#
#   Server/Scripts/ci.sh                                  (from anywhere; Scripts/test.sh calls it)
#   SERVER_CI_CONFIGS="release" Server/Scripts/ci.sh      one configuration only
#   SERVER_CI_POSTGRES=0                                  without the PostgreSQL pass
#   SERVER_CI_WIDTH, SERVER_CI_PG_WIDTH                   tests at once in the light group on
#                                                         SQLite (6) and PostgreSQL (4)
#   SERVER_CI_PG_MAX_CONNECTIONS                          the cluster's max_connections (100)
#   PUSH_TEST_SCOPE=representative                        debug only, one suite of each test
#                                                         module and one on PostgreSQL
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
server="$(cd "$here/.." && pwd)"
scratch="${SERVER_CI_SCRATCH:-$server/.build}"
configs="${SERVER_CI_CONFIGS:-debug release}"

# The Debian and Python packages (one list for the repository: Scripts/debian-packages.txt).
bash "$server/../Scripts/install-deps.sh" test
# The delivery and service tests start the Python mocks in Server/Mocks (h2 over TLS) and verify JWTs
# with Python's cryptography; the test CA and keys are made by the tests with openssl.
command -v openssl >/dev/null || { echo "ci.sh: openssl is needed"; exit 1; }
# They run `python3` from PATH: put the repository's virtual environment (Scripts/pyenv.sh) first.
python="$("$server/../Scripts/pyenv.sh")"
export PATH="$(dirname "$python"):$PATH"

# Two groups, so that the machine's runnable work stays near its core count and no test's time
# limit meets another's load:
#  light  every other suite, at most $SERVER_CI_WIDTH tests at once on SQLite and
#         $SERVER_CI_PG_WIDTH on PostgreSQL (Swift Testing starts every test at once otherwise:
#         318 PostgreSQL backends and a load average of 118 on two cores were seen);
#  heavy  the suites below, one test at a time, after the light ones, in release only (in debug
#         their time limits would measure the debug build): kill tests, loads, fuzzing and the
#         tests whose point is a time limit (back-off, deadlines, restarts). A new suite of that
#         kind goes in this list.
heavy=(
    LiveServiceTests.MultiInstanceTests LiveServiceTests.EngineCrashTests LiveServiceTests.WebhookCrashTests
    LiveServiceTests.CrashRecoveryTests LiveServiceTests.FuzzTests LiveServiceTests.ConnectionLimitTests
    LiveServiceTests.GroupSendCrashTests
    OutboundTests.CurlUploadTests OutboundTests.HostileClientTests OutboundTests.OutboundRequestTests
    OutboundTests.WakeUpTests APITests.DoorLimitsTests
    DeliveryTests.RestartTests DeliveryTests.FaultTests
    APNsTests.APNsClientLoadTests APNsTests.RetryAfterTests APNsTests.NativeHTTP2ClientTests
)
light_width=${SERVER_CI_WIDTH:-6}
pg_width=${SERVER_CI_PG_WIDTH:-4}
scope=${PUSH_TEST_SCOPE:-full}
# The representative scope (the newcomer check's): debug only, one suite of each test module,
# and one on PostgreSQL, so that every install step and every kind of test is proven once.
representative='ServerSupportTests.JSONCodecTests|PushCryptoTests.JWTTests|APNsTests.APNsClientTests|DeliveryTests.APNsDeliveryTests'
representative+='|PushStoreTests.StoreTests|APITests.SendTests|OutboundTests.WebhookTests|LiveServiceTests.InProcessCallTests'
representative_pg='APITests.SendTests|PushStoreTests.PostgresStoreTests'
# The test modules that run the service or open a store: the PostgreSQL pass runs them again.
store_modules='PushStoreTests|APITests|OutboundTests|LiveServiceTests|DeliveryTests'
case "$scope" in
    full) ;;
    representative) configs=debug ;;
    *) echo "ci.sh: PUSH_TEST_SCOPE is full or representative, not $scope" >&2; exit 64 ;;
esac
# A regular expression of the suites of $1 (a list of modules, e.g. 'APITests|DeliveryTests').
heavy_of() {
    local suite selected=()
    for suite in "${heavy[@]}"; do
        [[ "${suite%%.*}" =~ ^($1)$ ]] && selected+=("${suite//./\\.}")
    done
    (IFS='|'; echo "${selected[*]}")
}
all_heavy=$(heavy_of '[A-Za-z]+')
# Every suite of the list must exist: a renamed one would silently leave the heavy group.
for suite in "${heavy[@]}"; do
    grep -rqE "^(@Suite.*)?struct ${suite#*.} " "$server/Tests/${suite%%.*}" \
        || { echo "ci.sh: the heavy suite $suite is not in Server/Tests/${suite%%.*}"; exit 1; }
done

# How many suites a selection ('A.B|C.D') names.
count() { tr '|' '\n' <<<"$1" | wc -l; }
# swift test with at most $1 tests at once (Swift Testing's maximum parallelization width);
# `--suites N` next: fail unless tests of at least N suites ran (Scripts/run-selected.sh).
swift_test() {
    local width=$1 check=()
    shift
    if [ "$1" = --suites ]; then
        check=("$server/../Scripts/run-selected.sh" "$2")
        shift 2
    fi
    SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$width "${check[@]}" \
        swift test --package-path "$server" --scratch-path "$scratch" -c "$config" --skip-build "$@"
}
# Runs the tests of modules $1 ('' for all): the light group at width $2, then (in release) the
# heavy group one at a time. $3 says where ("" or " on PostgreSQL").
run_tests() {
    local modules=$1 width=$2 where=$3 selection=()
    if [ "$scope" = representative ]; then
        if [ -n "$modules" ]; then
            swift_test "$width" --suites "$(count "$representative_pg")" --filter "$representative_pg"
        else
            swift_test "$width" --suites "$(count "$representative")" --filter "$representative"
        fi
        return
    fi
    [ -n "$modules" ] && selection=(--filter "$modules")
    swift_test "$width" "${selection[@]}" --skip "$all_heavy"
    if [ "$config" = release ]; then
        local group
        group=$(heavy_of "${modules:-[A-Za-z]+}")
        echo "ci.sh: the heavy group ($config)$where, one test at a time: ${group//\\/}"
        swift_test 1 --suites "$(count "$group")" --filter "$group"
    fi
}

for config in $configs; do
    echo "ci.sh: building and testing Server/ ($config)"
    start=$(date +%s)
    swift build --package-path "$server" --scratch-path "$scratch" -c "$config" --build-tests -Xswiftc -warnings-as-errors
    run_tests "" "$light_width" ""
    echo "ci.sh: $config done in $(( $(date +%s) - start ))s"
    if { [ "$config" = release ] || [ "$scope" = representative ]; } && [ "${SERVER_CI_POSTGRES:-1}" = 1 ]; then
        # The suites that touch a store again, on PostgreSQL: a throwaway cluster (stopped and
        # deleted on exit); each test makes its own schema in it (PushTestSupport's TestDatabase).
        start=$(date +%s)
        pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/push-ci-pg-XXXXXX")
        trap 'bash "$here/pg-cluster.sh" stop "$pg_dir"' EXIT
        # Sized to what the tests need (at width $pg_width about 10 backends; the kill tests run
        # three instances of 7 connections each): more means a test opens connections it should not.
        pg_url=$(PG_CLUSTER_MAX_CONNECTIONS=${SERVER_CI_PG_MAX_CONNECTIONS:-100} bash "$here/pg-cluster.sh" start "$pg_dir")
        echo "ci.sh: testing Server/ ($config) on PostgreSQL ($pg_url)"
        PUSH_TEST_DATABASE_URL="$pg_url" run_tests "$store_modules" "$pg_width" " on PostgreSQL"
        bash "$here/pg-cluster.sh" stop "$pg_dir"
        trap - EXIT
        echo "ci.sh: $config on PostgreSQL done in $(( $(date +%s) - start ))s"
    fi
done
