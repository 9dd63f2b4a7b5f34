#!/usr/bin/env bash
# Proves the README's two commands the way a newcomer would: in a minimal Debian 12 (bookworm)
# root made with debootstrap, holding only the Swift toolchain (this machine's, bind-mounted
# read-only) and the toolchain's own run-time dependencies (none of this repository's packages,
# no pip), on a fresh `git clone` of HEAD, it
#   1. checks that the main command, run as a user who is not root, stops with the exact
#      `sudo apt-get install -y ...` line,
#   2. runs the main command as root (`bash Scripts/push-server.sh --port 0 ...`): it installs
#      what is missing, builds and starts push-server; waits until it answers on /healthz; stops it,
#   3. runs the test command (`bash Scripts/test.sh`).
# The prepared root is cached as a tarball (keyed by the package list below) and unpacked fresh for
# every run, so nothing an earlier run installed survives. The Debian mirror is read from this
# machine's apt sources. Needs root, debootstrap, zstd; Scripts/test.sh runs it in CI.
#
#   bash Scripts/newcomer-check.sh
#
# Environment (all optional):
#   PUSH_NEWCOMER_MODE      representative (default): the test command with --representative:
#                           every install step, one suite of each test module (SDK and service,
#                           one on PostgreSQL), every end-to-end and browser test; the host's own
#                           run of the test command is the complete one
#                           full: the test command exactly as the README says, all of it
#   PUSH_NEWCOMER_CACHE     where the prepared root is cached (default /var/cache/push-newcomer)
#   PUSH_NEWCOMER_LOGS      where the logs of a run are kept (default /var/tmp/push-newcomer-logs)
#   PUSH_NEWCOMER_MAIN_TIMEOUT, PUSH_NEWCOMER_TEST_TIMEOUT   seconds the main command may take to
#                           answer (2400) and the test command to finish (3600)
#   PUSH_NEWCOMER_KEEP=1    keep the unpacked root after the run (for debugging; mounts are removed)
set -euo pipefail

if [ -n "${PUSH_NEWCOMER_INSIDE:-}" ]; then
    echo "newcomer-check: already inside a newcomer root; not starting another"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "newcomer-check: needs root (debootstrap, chroot and bind mounts)" >&2
    exit 1
fi
# Every mount below lives in a private mount namespace: none reaches this machine's, and all go
# when the namespace does (the trap also unmounts them explicitly).
if [ -z "${PUSH_NEWCOMER_NAMESPACE:-}" ]; then
    exec env PUSH_NEWCOMER_NAMESPACE=1 unshare --mount --propagation private bash "$0" "$@"
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
# What the Swift toolchain itself needs at run time on Debian 12: its binaries' shared libraries
# (swift-build and docc: libcurl4, libxml2, libsqlite3-0, libncurses6; the compiler: libuuid1,
# zlib1g), the C library's headers and start files (libc6-dev, libgcc-12-dev), the gold linker
# (binutils), libstdc++-12-dev (linking with --static-swift-stdlib fails without it), git for
# SwiftPM and the clone, certificates, time zones. Checked by building this repository in the
# root. Nothing of ours: the README's commands install those (Scripts/debian-packages.txt).
toolchain_packages=(
    binutils libc6-dev libgcc-12-dev libstdc++-12-dev
    libcurl4 libxml2 libsqlite3-0 libncurses6 libuuid1 zlib1g
    git ca-certificates tzdata
)
mode=${PUSH_NEWCOMER_MODE:-representative}
case "$mode" in
    representative) test_arguments=--representative ;;
    full) test_arguments="" ;;
    *) echo "newcomer-check: PUSH_NEWCOMER_MODE is representative or full, not $mode" >&2; exit 64 ;;
esac
cache_dir=${PUSH_NEWCOMER_CACHE:-/var/cache/push-newcomer}
started=$(date +%s)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
logs=${PUSH_NEWCOMER_LOGS:-/var/tmp/push-newcomer-logs}/$stamp
mkdir -p "$logs"
say() { printf 'newcomer-check: %s\n' "$*"; }
fail() { say "FAILED: $*" >&2; exit 1; }

# Its own tools come from Debian too (it runs as root): a fresh CI machine has none of them.
tools=()
for package in debootstrap zstd curl git; do
    command -v "$package" >/dev/null || tools+=("$package")
done
if [ "${#tools[@]}" -gt 0 ]; then
    say "installing ${tools[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 update >&2
    DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 install -y "${tools[@]}" >&2
fi
for tool in debootstrap zstd chroot curl git flock unshare; do
    command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install -y debootstrap zstd curl git)"
done

# The toolchain: the directory above the `usr/bin` that holds the real `swift`.
swift_path=$(command -v swift) || fail "no swift on PATH"
toolchain_usr=$(dirname "$(dirname "$(readlink -f "$swift_path")")")
toolchain=$(dirname "$toolchain_usr")
[ "$toolchain" != / ] && [ -x "$toolchain/usr/bin/swift-build" ] \
    || fail "the Swift toolchain must live in its own directory (found $toolchain_usr)"

# The Debian mirror this machine uses (deb822 sources, else the one-line format).
mirror=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    mirror=$(awk -v RS= -v suite="$suite" '
        $0 ~ ("Suites:[^\n]*(^|[ \t])" suite "([ \t\n]|$)") {
            if (match($0, /URIs:[ \t]*[^ \t\n]+/)) {
                uri = substr($0, RSTART, RLENGTH); sub(/URIs:[ \t]*/, "", uri); print uri; exit
            }
        }' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2; exit }' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || fail "no Debian $suite mirror in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"

key=$(printf '%s\n' "format 1" "$suite" "${toolchain_packages[@]}" | sha256sum | cut -c1-16)
tarball="$cache_dir/debian-$suite-$key.tar.zst"

# Kills (by id) every process whose root directory is $1, that is, everything started in it.
stop_processes_in() {
    local dir=$1 proc pids tries
    for tries in 1 2 3 4 5 6 7 8 9 10; do
        pids=()
        for proc in /proc/[0-9]*; do
            case "$(readlink "$proc/root" 2>/dev/null)" in
                "$dir" | "$dir (deleted)") pids+=("${proc#/proc/}") ;;
            esac
        done
        [ "${#pids[@]}" -gt 0 ] || return 0
        kill -KILL "${pids[@]}" 2>/dev/null || true
        sleep 0.5
    done
    say "processes remain in $dir: ${pids[*]}" >&2
}

run=""
build=""
main_pid=""
test_pid=""
cleanup() {
    local status=$? pid
    # The commands run in their own process groups: stop whatever is left of them, and of what
    # they started in groups of its own (swift test does), that is, every process in the root.
    for pid in $main_pid $test_pid; do
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    [ -n "$run" ] && stop_processes_in "$run"
    for pid in $main_pid $test_pid; do
        wait "$pid" 2>/dev/null || true
    done
    for dir in "$run" "$build"; do
        [ -n "$dir" ] && [ -d "$dir" ] || continue
        # Deepest mounts first.
        findmnt -rn -o TARGET | grep -E "^$dir(/|$)" | sort -r | while read -r target; do
            umount "$target" 2>/dev/null || umount -l "$target" || true
        done
        if findmnt -rn -o TARGET | grep -qE "^$dir(/|$)"; then
            say "mounts remain under $dir; not deleting it" >&2
        elif [ "$dir" = "$run" ] && [ "${PUSH_NEWCOMER_KEEP:-0}" = 1 ]; then
            say "kept the root at $run"
        else
            rm -rf --one-file-system "$dir"
        fi
    done
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1. The prepared root: debootstrap once, then from the cache.
prepare_started=$(date +%s)
mkdir -p "$cache_dir"
# One preparation at a time (two checkouts' CI runs on one machine); the second then finds the cache.
exec 9>"$cache_dir/.lock"
flock 9
if [ -f "$tarball" ]; then
    say "using the cached root $tarball"
    cold=0
else
    say "preparing a Debian $suite root (debootstrap; toolchain dependencies: ${toolchain_packages[*]})"
    cold=1
    build=$(mktemp -d /var/tmp/push-newcomer-build.XXXXXX)
    chmod 755 "$build"   # a root directory, traversable by apt's and the test's unprivileged users
    include=$(IFS=,; echo "${toolchain_packages[*]}")
    debootstrap --variant=minbase --include="$include" "$suite" "$build" "$mirror" >"$logs/debootstrap.log" 2>&1 \
        || { tail -30 "$logs/debootstrap.log"; fail "debootstrap (log: $logs/debootstrap.log)"; }
    # The same sources as this machine (updates and security too), as an installed system has.
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        rm -f "$build/etc/apt/sources.list"
        cp /etc/apt/sources.list.d/debian.sources "$build/etc/apt/sources.list.d/debian.sources"
    fi
    cp -L /etc/resolv.conf "$build/etc/resolv.conf"
    chroot "$build" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        sh -c 'apt-get -q update && apt-get -q -y dist-upgrade && apt-get clean && rm -rf /var/lib/apt/lists/*' \
        >>"$logs/debootstrap.log" 2>&1 || { tail -30 "$logs/debootstrap.log"; fail "upgrading the root"; }
    rm -f "$cache_dir"/debian-"$suite"-*.tar.zst
    tar -C "$build" --numeric-owner -cf - . | zstd -q -T0 -o "$tarball.partial.$$"
    mv "$tarball.partial.$$" "$tarball"
    rm -rf --one-file-system "$build"
    build=""
fi
run=$(mktemp -d /var/tmp/push-newcomer.XXXXXX)
zstd -q -dc "$tarball" | tar -C "$run" --numeric-owner -xf -
chmod 755 "$run"
flock -u 9
exec 9>&-
prepare_seconds=$(($(date +%s) - prepare_started))
say "root ready in ${prepare_seconds}s ($([ $cold = 1 ] && echo "cold: debootstrap" || echo "warm: unpacked from the cache")) at $run"

# What the newcomer's machine must not have yet: no package of Scripts/debian-packages.txt but
# openssl (ca-certificates, which git needs, depends on it), and no pip.
ours=()
while read -r package _; do
    case "$package" in '' | '#'* | openssl) continue ;; esac
    ours+=("$package")
done <"$repo/Scripts/debian-packages.txt"
present=$(chroot "$run" dpkg-query -W -f='${Package} ${Status}\n' "${ours[@]}" python3-pip 2>/dev/null \
    | awk '/install ok installed/ { print $1 }' | tr '\n' ' ' || true)
[ -z "$present" ] || fail "the fresh root already has $present"
say "the root has none of: ${ours[*]} python3-pip"

mount -t proc proc "$run/proc"
mount --rbind /sys "$run/sys"
mount --rbind /dev "$run/dev"
mkdir -p "$run$toolchain"
mount --bind -o ro "$toolchain" "$run$toolchain"
touch "$run$toolchain/.newcomer-write-test" 2>/dev/null && fail "the toolchain is writable inside the root"
shared="$repo/../shared"
if [ -d "$shared" ]; then
    mkdir -p "$run/work/shared"
    mount --bind -o ro "$shared" "$run/work/shared"
fi
cp -L /etc/resolv.conf "$run/etc/resolv.conf"
cp -L /etc/hosts "$run/etc/hosts"
# The certificate authorities this machine adds to Debian's (a TLS-inspecting egress proxy's, say)
# belong to its network, like resolv.conf: without them the root could not reach a package index.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$run/usr/local/share/ca-certificates/"
    chroot "$run" /usr/sbin/update-ca-certificates >/dev/null 2>&1 || fail "update-ca-certificates in the root"
fi

head=$(git -C "$repo" rev-parse HEAD)
git clone -q "$repo" "$run/work/push"
git -C "$run/work/push" checkout -q --detach "$head"
say "fresh clone of $head at /work/push (root: $run)"

# A newcomer's environment inside the root: the toolchain on PATH and nothing else of this machine's.
newcomer_env=(/usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb PUSH_NEWCOMER_INSIDE=1
    PATH="$toolchain/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")

# 2. The main command as a user who cannot install: the exact line, and a stop.
set +e
chroot --userspec=65534:65534 "$run" "${newcomer_env[@]}" HOME=/tmp \
    bash -c 'cd /work/push && bash Scripts/push-server.sh --port 0' >"$logs/main-command-user.log" 2>&1
user_status=$?
set -e
cat "$logs/main-command-user.log"
[ "$user_status" -ne 0 ] || fail "the main command ran as a user without the packages"
install_line=$(grep -E '^ +sudo apt-get install -y ' "$logs/main-command-user.log" | sed 's/^ *//') \
    || fail "the main command, as a user, printed no install line"
say "as a user, the main command stops with: $install_line"

# 3. The main command as root: installs, builds, starts; it must answer on /healthz.
main_started=$(date +%s)
# In its own process group, so that stopping it stops everything it started.
setsid chroot "$run" "${newcomer_env[@]}" \
    bash -c 'cd /work/push && exec bash Scripts/push-server.sh --port 0 --data-dir /tmp/newcomer-data' \
    >"$logs/main-command.log" 2>&1 &
main_pid=$!
deadline=$(($(date +%s) + ${PUSH_NEWCOMER_MAIN_TIMEOUT:-2400}))
url=""
while [ "$(date +%s)" -lt "$deadline" ]; do
    kill -0 "$main_pid" 2>/dev/null || { tail -40 "$logs/main-command.log"; fail "the main command exited before answering"; }
    url=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$logs/main-command.log" | head -1 | sed 's/^listening on //') || true
    if [ -n "$url" ] && health=$(curl -fsS --max-time 5 "$url/healthz" 2>/dev/null); then
        break
    fi
    url=""
    sleep 1
done
[ -n "$url" ] || { tail -40 "$logs/main-command.log"; fail "the main command did not answer on /healthz in time"; }
main_seconds=$(($(date +%s) - main_started))
kill -TERM -- "-$main_pid" 2>/dev/null || true
stop_deadline=$(($(date +%s) + 30))
while kill -0 "$main_pid" 2>/dev/null && [ "$(date +%s)" -lt "$stop_deadline" ]; do sleep 0.2; done
kill -KILL -- "-$main_pid" 2>/dev/null || true
wait "$main_pid" 2>/dev/null || true
main_pid=""
grep -E '^install-deps:' "$logs/main-command.log" || true
say "the main command installed, built and answered $url/healthz after ${main_seconds}s: $health"

# 4. The test command.
test_started=$(date +%s)
say "running the test command ($mode mode: bash Scripts/test.sh${test_arguments:+ $test_arguments})"
setsid chroot "$run" "${newcomer_env[@]}" bash -c "cd /work/push && bash Scripts/test.sh $test_arguments" \
    >"$logs/test-command.log" 2>&1 &
test_pid=$!
tail -n +1 -f --pid="$test_pid" "$logs/test-command.log" &
tail_pid=$!
test_deadline=$(($(date +%s) + ${PUSH_NEWCOMER_TEST_TIMEOUT:-3600}))
while kill -0 "$test_pid" 2>/dev/null && [ "$(date +%s)" -lt "$test_deadline" ]; do sleep 2; done
kill -0 "$test_pid" 2>/dev/null \
    && fail "the test command did not finish in ${PUSH_NEWCOMER_TEST_TIMEOUT:-3600}s (log: $logs/test-command.log)"
set +e
wait "$test_pid"
test_status=$?
set -e
test_pid=""
wait "$tail_pid" || true
test_seconds=$(($(date +%s) - test_started))
[ "$test_status" -eq 0 ] || fail "the test command failed after ${test_seconds}s (log: $logs/test-command.log)"

say "what the fresh machine lacked, as the commands found and installed it:"
grep -h -E '^install-deps: installing' "$logs/main-command.log" "$logs/test-command.log" | sed 's/^/    /' || true
say "passed in $(($(date +%s) - started))s: root ${prepare_seconds}s ($([ $cold = 1 ] && echo cold || echo warm)), main command ${main_seconds}s, test command ${test_seconds}s ($mode); logs in $logs"
