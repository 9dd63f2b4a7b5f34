#!/usr/bin/env python3
"""Single-push latency on an idle service: job accepted -> APNs answered, one push at a time.

Starts `apns-mock-native` and `push-server --sender delivery` (as bench.py does), makes one app,
one APNs provider, one user with one device token, then sends N pushes to that user, one at a
time with a pause between them (so the engine is idle when each arrives), after a few warm-up
pushes that are not counted. Each push's latency is what the service itself measured: the
increase of `push_delivery_latency_seconds_sum` in `/metrics` (from the job's acceptance to the
provider's answer) over that one push. Prints p50, p90, p99, max and mean, and the client's
view (the send request's start to the moment `/healthz` counted the answer, polled every 2 ms).
A script that prints numbers, not a test.

usage: python3 Server/Benchmarks/latency.py [-n 200] [--pause-ms 100] [--latency-ms 0]
       python3 Server/Benchmarks/latency.py --bin-dir DIR      binaries built elsewhere (another commit)
       python3 Server/Benchmarks/latency.py --postgres         the store on a throwaway PostgreSQL cluster
Needs release builds of push-server and apns-mock-native (built into Server/.build-bench unless
--no-build or --bin-dir) and openssl; only Python's standard library.
"""
import argparse
import base64
import json
import os
import random
import re
import signal
import statistics
import subprocess
import tempfile
import time

from bench import API, BUNDLE, KEY_ID, SERVER, TEAM_ID, Postgres, build, start

WARM_UP = 5


def latency_totals(api):
    """(sum of latencies in seconds, count) of `push_delivery_latency_seconds` in /metrics."""
    metrics = api.call("GET", "/metrics")
    total = float(re.search(r"^push_delivery_latency_seconds_sum (\S+)$", metrics, re.M).group(1))
    count = int(re.search(r"^push_delivery_latency_seconds_count (\d+)$", metrics, re.M).group(1))
    return total, count


def answered(api):
    api.conn.request("GET", "/healthz")
    delivery = json.loads(api.conn.getresponse().read())["delivery"]
    return delivery.get("delivered", 0) + delivery.get("failed", 0)


def measure(api, n, pause):
    app, uid = "latency", "alice"
    api.admin("POST", "/users", {"uid": uid}, app=app)
    auth = api.admin("POST", "/users/%s/auth_tokens" % uid, app=app)["authToken"]
    api.call("POST", "/notifications/push/v1/tokens",
             {"fcmToken": "%064x" % 0xA11CE, "platform": "apns_ios_device", "providerId": "apns-latency", "timezone": "UTC"},
             {"appid": app, "authToken": auth})
    server, client = [], []
    for number in range(WARM_UP + n):
        # A pause of pause/2 to 3*pause/2, so that the sends do not fall into step with any
        # period of the service (an idle poll).
        time.sleep(random.uniform(pause / 2, pause * 3 / 2))
        before_sum, before_count = latency_totals(api)
        before = answered(api)
        started = time.monotonic()
        api.admin("POST", "/notifications/push/v1/send", {
            "type": "chat", "recipients": [{"uid": uid}],
            "message": {"id": "m%d" % number, "sender": {"uid": "bob", "name": "Bob"}, "receiver": {"uid": uid},
                        "text": "one at a time"}}, app=app)
        while answered(api) <= before:
            if time.monotonic() - started > 60:
                raise RuntimeError("push %d not answered within 60 s" % number)
            time.sleep(0.002)
        seen = time.monotonic() - started
        after_sum, after_count = latency_totals(api)
        if after_count != before_count + 1:
            raise RuntimeError("push %d: %d answers instead of one" % (number, after_count - before_count))
        if number >= WARM_UP:
            server.append((after_sum - before_sum) * 1000)
            client.append(seen * 1000)
    return server, client


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def describe(name, values):
    return "%-34s p50 %6.1f  p90 %6.1f  p99 %6.1f  max %6.1f  mean %6.1f ms" % (
        name, quantile(values, 0.5), quantile(values, 0.9), quantile(values, 0.99), max(values), statistics.mean(values))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=200, help="pushes measured (after %d warm-up pushes)" % WARM_UP)
    parser.add_argument("--pause-ms", type=float, default=100, help="mean pause between pushes")
    parser.add_argument("--latency-ms", type=int, default=0, help="the mock's answer delay")
    parser.add_argument("--scratch", default=os.path.join(SERVER, ".build-bench"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--bin-dir", help="a directory with release builds of push-server and apns-mock-native")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL cluster as the store")
    args = parser.parse_args()
    if args.bin_dir:
        bin_dir = args.bin_dir
    elif args.no_build:
        bin_dir = subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--scratch-path", args.scratch,
                                  "--show-bin-path"], check=True, capture_output=True, text=True).stdout.strip()
    else:
        bin_dir = build(args.scratch)
    work = tempfile.mkdtemp(prefix="push-latency-")
    creds = os.path.join(work, "creds")
    subprocess.run(["sh", os.path.join(SERVER, "Mocks", "make_test_ca.sh"), creds], check=True, stdout=subprocess.DEVNULL)
    postgres = Postgres.start_cluster() if args.postgres else None
    schema = None
    mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                             creds + "/server.key", "--latency-ms", str(args.latency_ms)], r"PORT (\d+)")
    server = None
    try:
        admin_key = "adm_latency_" + os.urandom(8).hex()
        env = dict(os.environ, PUSH_ADMIN_KEY=admin_key, PUSH_SECRET_KEY=base64.b64encode(os.urandom(32)).decode())
        cmd = [os.path.join(bin_dir, "push-server"), "--port", "0", "--data-dir", os.path.join(work, "data"),
               "--sender", "delivery", "--apns-url", "https://127.0.0.1:%d" % mock_port, "--ca-file", creds + "/ca.pem",
               "--log-level", "error", "--rate-limit", "0"]
        if postgres:
            schema, database = postgres.new_schema()
            cmd += ["--database", database]
        server, port = start(cmd, r"listening on http://[\d.]+:(\d+)", env)
        api = API(port, admin_key)
        api.admin("POST", "/apps", {"appId": "latency", "name": "Latency"})
        api.admin("POST", "/notifications/push/v1/providers/apns", {
            "providerId": "apns-latency", "keyId": KEY_ID, "teamId": TEAM_ID, "bundleId": BUNDLE,
            "p8Key": open(creds + "/apns.p8").read(), "production": False}, app="latency")
        measured, seen = measure(api, args.n, args.pause_ms / 1000)
        print("N = %d single pushes, mean pause %.0f ms, mock latency %d ms, store %s, binaries %s" % (
            args.n, args.pause_ms, args.latency_ms, "PostgreSQL" if postgres else "SQLite", bin_dir))
        print(describe("accepted -> APNs answer (/metrics)", measured))
        print(describe("send request -> answer seen", seen))
    finally:
        if server:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        mock.send_signal(signal.SIGTERM)
        mock.wait(10)
        if postgres:
            if schema:
                postgres.drop_schema(schema)
            postgres.stop()


if __name__ == "__main__":
    main()
