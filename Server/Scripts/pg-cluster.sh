#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and benchmarks: initdb in a directory, a server on
# a free loopback port and a Unix socket in that directory, trust authentication (loopback only).
#
#   Server/Scripts/pg-cluster.sh start DIR   creates and starts it; prints the URL to stdout:
#                                             postgres://push@127.0.0.1:PORT/push
#   Server/Scripts/pg-cluster.sh stop DIR    stops it and deletes DIR
#
# PG_CLUSTER_MAX_CONNECTIONS sets max_connections (default 1000, for the benchmarks' several
# instances; Server/Scripts/ci.sh sizes it to what the tests need, so that a test run that opens
# more connections than planned fails loudly instead of loading the machine).
# Tests run it with fsync off (nothing here must survive a power cut); PG_CLUSTER_DURABLE=1 keeps
# PostgreSQL's durable defaults (fsync, synchronous commit), as the benchmarks use.
# PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` user (made by
# Debian's postgresql package) or `nobody`. Needs Debian's `postgresql` (Scripts/debian-packages.txt).
set -euo pipefail

usage() { echo "usage: pg-cluster.sh start|stop DIR" >&2; exit 64; }
[ $# -eq 2 ] || usage
action=$1
dir=$2

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "pg-cluster.sh: PostgreSQL's server is not installed (Debian package postgresql)" >&2
    exit 1
fi

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        local user=postgres
        id -u postgres >/dev/null 2>&1 || user=nobody
        runuser -u "$user" -- "$@"
    else
        "$@"
    fi
}

case "$action" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" -eq 0 ]; then
        owner=postgres
        id -u postgres >/dev/null 2>&1 || owner=nobody
        chown "$owner" "$dir"
        chmod 0755 "$dir"
    fi
    as_owner "$bindir/initdb" -D "$dir/data" -U push --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        exit 1
    }
    # A free port: bind to 0 and read what the kernel chose (a race with other binders is
    # possible but pg_ctl then fails loudly, and the start is retried once).
    max_connections=${PG_CLUSTER_MAX_CONNECTIONS:-1000}
    [[ "$max_connections" =~ ^[1-9][0-9]*$ ]] || { echo "pg-cluster.sh: PG_CLUSTER_MAX_CONNECTIONS must be a number" >&2; exit 64; }
    options="-c max_connections=$max_connections"
    if [ "${PG_CLUSTER_DURABLE:-0}" != 1 ]; then
        options="$options -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    for attempt in 1 2 3; do
        port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        if as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
            -o "-h 127.0.0.1 -p $port -k $dir $options" \
            >/dev/null; then
            as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U push push
            echo "$port" >"$dir/port"
            echo "postgres://push@127.0.0.1:$port/push"
            exit 0
        fi
    done
    cat "$dir/server.log" >&2
    exit 1
    ;;
stop)
    if [ -d "$dir/data" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*) usage ;;
esac
