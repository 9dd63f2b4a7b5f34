#!/usr/bin/env bash
# Installs what the README's two commands need and a fresh Debian machine lacks:
#   Scripts/install-deps.sh service   the Debian packages that build and run push-server
#   Scripts/install-deps.sh test      those, the test command's packages, and the Python packages
#                                     of Scripts/python-requirements.txt (in the venv of Scripts/pyenv.sh)
# The Debian packages are listed in Scripts/debian-packages.txt (the one list to extend).
# As root it runs apt-get; otherwise it prints the exact install line and exits with status 1.
# PUSH_SKIP_INSTALL=1 skips the Debian packages (for machines that provide them another way).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
group=${1:-test}
case "$group" in
    service | test) ;;
    *) echo "usage: Scripts/install-deps.sh [service|test]" >&2; exit 64 ;;
esac

wanted=()
while read -r package needed_by _; do
    case "$package" in '' | '#'*) continue ;; esac
    if [ "$group" = test ] || [ "$needed_by" = service ]; then wanted+=("$package"); fi
done <"$root/Scripts/debian-packages.txt"

if [ "${PUSH_SKIP_INSTALL:-0}" = 1 ]; then
    echo "install-deps: PUSH_SKIP_INSTALL=1, not checking the Debian packages (${wanted[*]})" >&2
elif ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
    echo "install-deps: not a Debian-like system; make sure these (or your system's equivalents) are installed: ${wanted[*]}" >&2
else
    missing=()
    for package in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        if [ "$(id -u)" -ne 0 ]; then
            {
                echo "install-deps: these Debian packages are missing: ${missing[*]}"
                echo "Install them (as root) and run the command again:"
                echo
                echo "    sudo apt-get install -y ${missing[*]}"
                echo
            } >&2
            exit 1
        fi
        echo "install-deps: installing ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        # Wait for another apt (a second checkout's CI) instead of failing on its lock.
        apt-get -q -o DPkg::Lock::Timeout=600 update >&2
        apt-get -q -o DPkg::Lock::Timeout=600 install -y "${missing[@]}" >&2
    fi
fi

if [ "$group" = test ]; then
    # Creates (or refreshes) the venv; prints its python, which the caller does not need here.
    "$root/Scripts/pyenv.sh" >/dev/null
fi
