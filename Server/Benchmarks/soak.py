#!/usr/bin/env python3
"""Soak benchmark (a script that prints numbers, not a test): holds a steady push rate
against the native mock APNs and watches the service for leaks and latency drift.

  1. starts `apns-mock-native` with --latency-ms (default 50) and `push-server` (delivery
     engine, default options: --sqlite-sync full, as deployed),
  2. registers --tokens device tokens (100 per user),
  3. for --minutes, sends one chat per --tick to as many users as the rate needs
     (--rate pushes/s, default 5,000), and every 5 s samples the service's RSS (VmRSS),
     open file descriptors, delivered/failed totals (/healthz) and the p99 of the latest
     65,536 accept->answer latencies (/metrics),
  4. prints the samples and a verdict: after the warm-up (--warmup seconds) RSS stays
     within +-5 MB of its first post-warm-up sample, the fd count is flat, p99 < 250 ms,
     and the delivered rate (delivered pushes only) keeps up with the offered rate.

usage: python3 Server/Benchmarks/soak.py [--minutes 10] [--rate 5000] [--latency 50]
                                          [--warmup 180] [--no-build]
Needs: release builds of push-server and apns-mock-native (built unless --no-build), openssl.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import API, BUNDLE, KEY_ID, SERVER, TEAM_ID, build, start, tokens_for  # noqa: E402


def rss_mb(pid, field="VmRSS"):
    """A memory figure of /proc/PID/status in MB: VmRSS, or its parts RssAnon (heap),
    RssFile (mapped files) and RssShmem (SQLite's WAL index)."""
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(field + r":\s+(\d+) kB", f.read()).group(1)) / 1024


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--rate", type=int, default=5000, help="pushes per second offered")
    parser.add_argument("--latency", type=int, default=50, help="mock APNs answer delay, ms")
    # 180 s: the service's caches (SQLite's page cache, up to 2 MB, and libcurl's handles, one
    # per send in flight) fill over the first ~3 minutes (heaptrack: live heap 17 -> 19.5 MB by
    # 160 s, flat after); RSS is judged once they are full.
    parser.add_argument("--warmup", type=float, default=180, help="seconds before the RSS baseline")
    parser.add_argument("--tokens", type=int, default=5000)
    parser.add_argument("--tick", type=float, default=0.1, help="seconds between sends")
    parser.add_argument("--scratch", default=os.path.join(SERVER, ".build-bench"))
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    bin_dir = (subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--scratch-path",
                               args.scratch, "--show-bin-path"], capture_output=True, text=True).stdout.strip()
               if args.no_build else build(args.scratch))
    work = tempfile.mkdtemp(prefix="push-soak-")
    creds = os.path.join(work, "creds")
    subprocess.run(["sh", os.path.join(SERVER, "Mocks", "make_test_ca.sh"), creds], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                             creds + "/server.key", "--latency-ms", str(args.latency)], r"PORT (\d+)")
    admin_key = "adm_soak_" + os.urandom(8).hex()
    env = dict(os.environ, PUSH_ADMIN_KEY=admin_key)
    # Default --sqlite-sync (full): the soak measures the service as deployed.
    server, port = start([os.path.join(bin_dir, "push-server"), "--port", "0", "--data-dir", os.path.join(work, "data"),
                          "--apns-url", "https://127.0.0.1:%d" % mock_port, "--ca-file", creds + "/ca.pem",
                          "--log-level", "error", "--rate-limit", "0"], r"listening on http://[\d.]+:(\d+)", env)
    try:
        api = API(port, admin_key)
        app = "soak"
        api.admin("POST", "/apps", {"appId": app, "name": "Soak"})
        api.admin("POST", "/notifications/push/v1/providers/apns", {
            "providerId": "apns-soak", "keyId": KEY_ID, "teamId": TEAM_ID, "bundleId": BUNDLE,
            "p8Key": open(creds + "/apns.p8").read(), "production": False}, app=app)
        tokens = tokens_for(args.tokens)
        users = []
        for u in range((len(tokens) + 99) // 100):
            uid = "user%d" % u
            api.admin("POST", "/users", {"uid": uid}, app=app)
            auth = api.admin("POST", "/users/%s/auth_tokens" % uid, app=app)["authToken"]
            for token in tokens[u * 100:(u + 1) * 100]:
                api.call("POST", "/notifications/push/v1/tokens",
                         {"fcmToken": token, "platform": "apns_ios_device", "providerId": "apns-soak"},
                         {"appid": app, "authToken": auth})
            users.append(uid)
        per_tick = max(1, round(args.rate * args.tick / 100))  # users (100 tokens each) per send
        print("soak: %d pushes/s offered (%d users x 100 tokens every %.2f s) for %.1f min, mock latency %d ms, "
              "sqlite-sync full" % (per_tick * 100 / args.tick, per_tick, args.tick, args.minutes, args.latency),
              flush=True)
        print("%7s %10s %10s %9s %7s %8s %8s %9s" % ("t s", "offered", "delivered", "failed", "fds", "RSS MB", "anon MB",
                                                   "p99 ms"),
              flush=True)
        started = time.time()
        end = started + args.minutes * 60
        next_send = started
        next_sample = started + 5
        sent = 0
        cursor = 0
        samples = []
        while time.time() < end:
            now = time.time()
            if now >= next_send:
                chosen = [users[(cursor + i) % len(users)] for i in range(per_tick)]
                cursor += per_tick
                api.admin("POST", "/notifications/push/v1/send", {
                    "type": "chat",
                    "message": {"id": "m%d" % sent, "sender": {"uid": "sender", "name": "Soak"},
                                "receiver": {"uid": chosen[0]}, "text": "Soak"},
                    "recipients": [{"uid": uid} for uid in chosen]}, app=app)
                sent += per_tick * 100
                next_send += args.tick
            if now >= next_sample:
                api.conn.request("GET", "/healthz")
                health = json.loads(api.conn.getresponse().read())
                metrics = api.call("GET", "/metrics")
                p99 = re.search(r'push_delivery_latency_recent_seconds\{quantile="0.99"\} ([\d.e+-]+)', metrics)
                sample = {"t": now - started, "offered": sent, "delivered": health["delivery"]["delivered"],
                          "failed": health["delivery"]["failed"], "fds": fds(server.pid), "rss": rss_mb(server.pid),
                          "anon": rss_mb(server.pid, "RssAnon"),
                          "p99": float(p99.group(1)) * 1000 if p99 else float("nan")}
                samples.append(sample)
                print("%7.0f %10d %10d %9d %7d %8.1f %8.1f %9.1f" % (
                    sample["t"], sample["offered"], sample["delivered"], sample["failed"], sample["fds"], sample["rss"],
                    sample["anon"], sample["p99"]), flush=True)
                next_sample += 5
            time.sleep(max(0.0, min(next_send, next_sample) - time.time()))
        # Let the last sends drain, then judge.
        drain_deadline = time.time() + 60
        while time.time() < drain_deadline:
            api.conn.request("GET", "/healthz")
            delivery = json.loads(api.conn.getresponse().read())["delivery"]
            if delivery["delivered"] + delivery["failed"] >= sent:
                break
            time.sleep(0.2)
        elapsed = time.time() - started
        steady = [s for s in samples if s["t"] >= args.warmup] or samples
        base = steady[0]["rss"]
        rss_drift = max(abs(s["rss"] - base) for s in steady)
        fd_range = max(s["fds"] for s in steady) - min(s["fds"] for s in steady)
        p99_max = max(s["p99"] for s in steady)
        window = steady[-1]["t"] - steady[0]["t"]
        steady_rate = (steady[-1]["delivered"] - steady[0]["delivered"]) / window if window > 0 else float("nan")
        print("\nsummary (after %.0f s warm-up):" % args.warmup)
        print("  offered %d pushes, delivered %d, failed %d in %.0f s" % (sent, delivery["delivered"],
                                                                        delivery["failed"], elapsed))
        print("  delivered pushes/s over the steady window: %.0f (offered %.0f)" % (steady_rate,
                                                                                  per_tick * 100 / args.tick))
        print("  RSS: baseline %.1f MB, largest drift %.1f MB (limit 5)" % (base, rss_drift))
        print("  fds: %d..%d (range %d)" % (min(s["fds"] for s in steady), max(s["fds"] for s in steady), fd_range))
        print("  p99 accept->answer: max %.1f ms (limit 250)" % p99_max)
        ok = (rss_drift <= 5 and fd_range <= 4 and p99_max < 250 and delivery["failed"] == 0
              and steady_rate >= 0.95 * per_tick * 100 / args.tick)
        print("  verdict: %s" % ("PASS" if ok else "FAIL"))
        return 0 if ok else 1
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        mock.send_signal(signal.SIGTERM)
        mock.wait(10)


if __name__ == "__main__":
    sys.exit(main())
