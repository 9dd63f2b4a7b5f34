#!/usr/bin/env python3
"""Registration benchmark: how long one user's N token registrations take, and whether each
one gets slower as the table grows (issue 24).

It starts a built `push-server` (`--max-tokens-per-user 10000 --rate-limit 0 --sender none`, the
default `--sqlite-sync full`) on a fresh SQLite data directory and/or on a fresh schema of a
throwaway PostgreSQL cluster (Scripts/pg-cluster.sh, PostgreSQL's durable defaults), creates an
app, an APNs provider and a user with an auth token through the admin API, then registers N
distinct device tokens for that one user through the client API (`POST
/notifications/push/v1/tokens`, one keep-alive connection, one request at a time) and prints the
total time and the rate of each 1,000 registrations, so that growth is visible: the first and
the last 1,000 side by side. A script that prints numbers, not a test.

usage: python3 Server/Benchmarks/registrations.py [--binary PATH] [--store sqlite|postgres|both] [-n 5000]
       python3 Server/Benchmarks/registrations.py --database postgres://user@host/db   (an existing server)
Needs: a built push-server (default Server/.build/release/push-server; built with `swift build -c
release --product push-server` when missing), and for PostgreSQL Debian's `postgresql` package.
Standard library only.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.dirname(HERE)
PEM = "-----BEGIN PRIVATE KEY-----\nTUlHVEFnRUFNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQkcwd2F3SUJBUVFn\n-----END PRIVATE KEY-----\n"


def psql(url, sql):
    root = "/usr/lib/postgresql"
    versions = sorted((int(v) for v in os.listdir(root) if v.isdigit()), reverse=True) if os.path.isdir(root) else []
    binary = next((p for p in ("%s/%d/bin/psql" % (root, v) for v in versions) if os.access(p, os.X_OK)), "psql")
    return subprocess.run([binary, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


def start_server(binary, data_dir, database, admin_key):
    cmd = [binary, "--port", "0", "--data-dir", data_dir, "--max-tokens-per-user", "10000", "--rate-limit", "0",
           "--sender", "none", "--log-level", "error"]
    env = dict(os.environ, PUSH_ADMIN_KEY=admin_key, PUSH_SECRET_KEY="A" * 43 + "=")
    if database:
        env["PUSH_DATABASE_URL"] = database  # keeps a password out of the process listing
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        match = re.search(r"listening on http://[\d.]+:(\d+)", line)
        if match:
            return proc, int(match.group(1))
    proc.kill()
    raise RuntimeError("push-server did not start")


class Client:
    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, headers, body=None):
        self.conn.request(method, path, body=None if body is None else json.dumps(body),
                          headers={"Content-Type": "application/json", **headers})
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError("%s %s -> %d %s" % (method, path, response.status, data[:200]))
        return json.loads(data)["data"]


def run(binary, n, database, label):
    admin_key = "adm_bench_" + os.urandom(8).hex()
    work = tempfile.mkdtemp(prefix="push-registrations-")
    proc, port = start_server(binary, work, database, admin_key)
    try:
        api = Client(port)
        admin = {"apikey": admin_key}
        api.call("POST", "/apps", admin, {"appId": "bench", "name": "Bench"})
        app = dict(admin, appid="bench")
        api.call("POST", "/notifications/push/v1/providers/apns", app,
                 {"providerId": "apns-1", "keyId": "BENCHKEY01", "teamId": "BENCHTEAM1", "bundleId": "com.example.bench",
                  "p8Key": PEM, "production": False})
        user = api.call("POST", "/users", app, {"uid": "bob", "name": "Bob", "withAuthToken": True})
        session = {"appid": "bench", "authToken": user["authToken"]}
        batches = []
        started = last = time.perf_counter()
        for i in range(n):
            api.call("POST", "/notifications/push/v1/tokens", session,
                     {"fcmToken": "%064x" % (0xB000000000 + i), "platform": "apns_ios_device", "providerId": "apns-1"})
            if (i + 1) % 1000 == 0 or i + 1 == n:
                now = time.perf_counter()
                batches.append((((i % 1000) + 1), now - last))
                last = now
        total = time.perf_counter() - started
        kept = api.call("GET", "/notifications/push/v1/tokens?uid=bob", app)["pushTokens"]
        rates = ["%.0f/s" % (count / seconds) for count, seconds in batches]
        print("%-10s %d registrations in %.1f s (%.0f/s); kept %d; per 1,000: %s" % (
            label, n, total, n / total, len(kept), " · ".join(rates)))
        first, final = batches[0], batches[-1]
        print("%-10s first 1,000: %.0f/s (%.2f ms each); last 1,000: %.0f/s (%.2f ms each)" % (
            label, first[0] / first[1], 1000 * first[1] / first[0], final[0] / final[1], 1000 * final[1] / final[0]))
        sys.stdout.flush()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default=os.path.join(SERVER, ".build", "release", "push-server"))
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("-n", type=int, default=5000)
    parser.add_argument("--database", help="an existing PostgreSQL server (a fresh schema is made and dropped)")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--product", "push-server"], check=True)
    if args.store in ("sqlite", "both"):
        run(args.binary, args.n, None, "SQLite")
    if args.store in ("postgres", "both"):
        cluster = None
        url = args.database
        if not url:
            cluster = os.path.join(tempfile.gettempdir(), "push-registrations-pg-" + os.urandom(4).hex())
            url = subprocess.run(["bash", os.path.join(SERVER, "Scripts", "pg-cluster.sh"), "start", cluster], check=True,
                                 capture_output=True, text=True, env=dict(os.environ, PG_CLUSTER_DURABLE="1")).stdout.strip()
        schema = "bench_" + os.urandom(6).hex()
        try:
            psql(url, "CREATE SCHEMA %s" % schema)
            run(args.binary, args.n, url + ("&" if "?" in url else "?") + "options=-csearch_path%3D" + schema, "PostgreSQL")
            psql(url, "DROP SCHEMA %s CASCADE" % schema)
        finally:
            if cluster:
                subprocess.run(["bash", os.path.join(SERVER, "Scripts", "pg-cluster.sh"), "stop", cluster],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
