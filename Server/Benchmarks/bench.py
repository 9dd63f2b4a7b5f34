#!/usr/bin/env python3
"""Throughput benchmark: push-server (delivery engine) vs aioapns, same native mock APNs.

For each injected latency (default 0 ms and 50 ms) it:
  1. starts `apns-mock-native` (HTTP/2 over TLS, ALPN h2, test CA made now),
  2. starts `push-server --sender delivery` pointed at the mock, registers N device tokens
     through the HTTP API (admin + client endpoints; not timed),
  3. times N pushes: `POST /notifications/push/v1/send` (100 tokens per user, up to 1,000
     users per request) until the outbox reports N delivered; reads p50/p99 (job accepted ->
     APNs answered) from `/metrics` and the server's peak RSS (VmHWM),
  4. sends the same N notifications with `aioapns` to the same mock and times them.
Prints pushes/s for both (delivered pushes only; the service runs with its default
--sqlite-sync full). A script that prints numbers, not a test. For a long steady run that
watches memory, file descriptors and p99, see soak.py.

usage: python3 Server/Benchmarks/bench.py [-n 20000] [--latency 0 50] [--build-dir DIR]
Needs: release builds of push-server and apns-mock-native (the script runs `swift build`
unless --no-build), openssl, and `aioapns`: run with any python3, the script re-runs itself
with the repository's virtual environment (Scripts/pyenv.sh, which installs aioapns).
"""
import argparse
import asyncio
import http.client
import json
import os
import re
import signal
import statistics
import ssl
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.dirname(HERE)
KEY_ID, TEAM_ID, BUNDLE = "BENCHKEY01", "BENCHTEAM1", "com.example.bench"


def build(scratch):
    # push-server as it is deployed: release, Swift runtime linked in (one self-contained binary).
    for product, extra in (("push-server", ["--static-swift-stdlib"]), ("apns-mock-native", [])):
        subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--scratch-path", scratch,
                        "--product", product] + extra, check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--scratch-path", scratch,
                          "--show-bin-path"], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def start(cmd, pattern, env=None):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    deadline = time.time() + 30
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        match = re.search(pattern, line)
        if match:
            return proc, int(match.group(1))
    proc.kill()
    raise RuntimeError("could not start %s" % cmd[0])


class API:
    def __init__(self, port, admin_key):
        self.conn = http.client.HTTPConnection("127.0.0.1", port)
        self.admin_key = admin_key

    def call(self, method, path, body=None, headers=None):
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        self.conn.request(method, path, body=None if body is None else json.dumps(body), headers=all_headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError("%s %s -> %d %s" % (method, path, response.status, data[:200]))
        return json.loads(data)["data"] if data.startswith(b"{") else data.decode()

    def admin(self, method, path, body=None, app=None):
        headers = {"apikey": self.admin_key}
        if app:
            headers["appid"] = app
        return self.call(method, path, body, headers)


def cpu_seconds(pid):
    """User + system CPU time of a process, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tokens_for(n):
    return ["%064x" % (0xB000000000 + i) for i in range(n)]


def run_service(bin_dir, creds, mock_port, n, work, mock_pid=None):
    admin_key = "adm_bench_" + os.urandom(8).hex()
    env = dict(os.environ, PUSH_ADMIN_KEY=admin_key)
    cmd = [os.path.join(bin_dir, "push-server"), "--port", "0", "--data-dir", work, "--sender",
           os.environ.get("BENCH_SENDER", "delivery"),
           "--apns-url", "https://127.0.0.1:%d" % mock_port, "--ca-file", creds + "/ca.pem",
           # The default --sqlite-sync (full): measured as deployed.
           "--log-level", "error", "--rate-limit", "1000000", "--rate-burst", "1000000"]
    server, port = start(cmd, r"listening on http://[\d.]+:(\d+)", env)
    try:
        api = API(port, admin_key)
        app = "bench"
        api.admin("POST", "/apps", {"appId": app, "name": "Bench"})
        api.admin("POST", "/notifications/push/v1/providers/apns", {
            "providerId": "apns-bench", "keyId": KEY_ID, "teamId": TEAM_ID, "bundleId": BUNDLE,
            "p8Key": open(creds + "/apns.p8").read(), "production": False}, app=app)
        tokens = tokens_for(n)
        users = []
        for u in range((n + 99) // 100):
            uid = "user%d" % u
            api.admin("POST", "/users", {"uid": uid}, app=app)
            auth = api.admin("POST", "/users/%s/auth_tokens" % uid, app=app)["authToken"]
            for token in tokens[u * 100:(u + 1) * 100]:
                api.call("POST", "/notifications/push/v1/tokens",
                         {"fcmToken": token, "platform": "apns_ios_device", "providerId": "apns-bench",
                          "timezone": "UTC"}, {"appid": app, "authToken": auth})
            users.append(uid)
        # Timed part: accept N pushes, wait until APNs answered all of them.
        if os.environ.get("BENCH_PERF"):
            subprocess.Popen(["perf", "record", "-F", os.environ.get("BENCH_PERF_FREQ", "499"), "-g", "-p", str(server.pid), "-o", os.environ["BENCH_PERF"],
                              "--", "sleep", "12"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        cpu_before = cpu_seconds(server.pid)
        mock_cpu_before = cpu_seconds(mock_pid) if mock_pid else 0.0
        started = time.time()
        for i in range(0, len(users), 1000):
            api.admin("POST", "/notifications/push/v1/send", {
                "type": "chat",
                "message": {"id": "m%d" % i, "sender": {"uid": "sender", "name": "Bench"}, "receiver": {"uid": users[i]},
                            "text": "Hello from the benchmark"},
                "recipients": [{"uid": uid} for uid in users[i:i + 1000]]}, app=app)
        accepted = time.time() - started
        if os.environ.get("BENCH_TOP"):
            subprocess.Popen(["sh", "-c", "sleep 1; top -H -b -n 1 -p %d | head -25" % server.pid])
        if os.environ.get("BENCH_SENDER") == "none":
            with open("/proc/%d/status" % server.pid) as f:
                print("accept only: %.2f s, peak RSS %s" % (accepted, re.search(r"VmHWM:\s+(\d+ kB)", f.read()).group(1)))
            return None
        # Wait for the last answer on /healthz (live in-memory totals: cheap), then for the
        # outbox to have recorded every outcome (/admin/outbox counts rows: polled only then,
        # so the harness does not scan the jobs table 40 times a second while we measure).
        while True:
            poll_started = time.time()
            api.conn.request("GET", "/healthz")
            delivery = json.loads(api.conn.getresponse().read())["delivery"]
            if os.environ.get("BENCH_TIMES"):
                print("poll %.3f took %.3f %s" % (poll_started % 1000, time.time() - poll_started, delivery))
            if delivery.get("delivered", 0) + delivery.get("failed", 0) >= n:
                break
            if time.time() - started > 300:
                raise RuntimeError("timed out: %s" % delivery)
            time.sleep(0.01)
        while True:
            outbox = api.admin("GET", "/admin/outbox")["pushJobs"]
            if outbox["delivered"] + outbox["failed"] >= n:
                break
            if time.time() - started > 300:
                raise RuntimeError("timed out: %s" % outbox)
            time.sleep(0.005)
        elapsed = time.time() - started
        if os.environ.get("BENCH_TIMES"):
            print("started %.3f accepted %.3f done %.3f" % (started % 1000, (started + accepted) % 1000, (started + elapsed) % 1000))
        cpu = cpu_seconds(server.pid) - cpu_before
        mock_cpu = cpu_seconds(mock_pid) - mock_cpu_before if mock_pid else float("nan")
        metrics = api.call("GET", "/metrics")
        quantiles = dict(re.findall(r'push_delivery_latency_recent_seconds\{quantile="([\d.]+)"\} ([\d.e+-]+)', metrics))
        with open("/proc/%d/status" % server.pid) as f:
            rss = int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) / 1024
        if os.environ.get("BENCH_TOP"):
            print("accepted in %.2f s" % accepted)
        # pushes/s counts delivered pushes only (a failed push is not throughput).
        return {"rate": outbox["delivered"] / elapsed, "elapsed": elapsed, "failed": outbox["failed"], "cpu": cpu,
                "p50": float(quantiles.get("0.5", "nan")) * 1000, "p99": float(quantiles.get("0.99", "nan")) * 1000,
                "rss": rss, "mock_cpu": mock_cpu, "accepted": accepted}
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def run_aioapns(creds, mock_port, n):
    import logging
    logging.getLogger("aioapns").setLevel(logging.CRITICAL)
    import aioapns
    from aioapns import connection as apns_connection

    apns_connection.APNsDevelopmentClientProtocol.APNS_SERVER = "127.0.0.1"
    apns_connection.APNsDevelopmentClientProtocol.APNS_PORT = mock_port

    async def main():
        context = ssl.create_default_context(cafile=creds + "/ca.pem")
        context.set_alpn_protocols(["h2"])
        client = aioapns.APNs(key=open(creds + "/apns.p8").read(), key_id=KEY_ID, team_id=TEAM_ID,
                              topic=BUNDLE, use_sandbox=True, ssl_context=context)
        message = {"aps": {"alert": {"title": "Bench", "body": "Hello from the benchmark"}, "mutable-content": 1},
                   "type": "chat"}
        tokens = tokens_for(n)
        started = time.time()
        results = await asyncio.gather(*[
            client.send_notification(aioapns.NotificationRequest(device_token=t, message=message)) for t in tokens],
            return_exceptions=True)
        elapsed = time.time() - started
        ok = sum(1 for r in results if not isinstance(r, BaseException) and r.is_successful)
        return {"rate": n / elapsed, "elapsed": elapsed, "failed": n - ok}

    return asyncio.run(main())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20000)
    parser.add_argument("--latency", type=int, nargs="+", default=[0, 50])
    parser.add_argument("--scratch", default=os.path.join(SERVER, ".build-bench"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="runs per latency (the summary shows medians)")
    args = parser.parse_args()
    bin_dir = (subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--scratch-path",
                               args.scratch, "--show-bin-path"], capture_output=True, text=True).stdout.strip()
               if args.no_build else build(args.scratch))
    work = tempfile.mkdtemp(prefix="push-bench-")
    creds = os.path.join(work, "creds")
    subprocess.run(["sh", os.path.join(SERVER, "Mocks", "make_test_ca.sh"), creds], check=True)
    print("N = %d pushes per run, 2 cores, mock: apns-mock-native (HTTP/2 + TLS)" % args.n)
    print("%-8s %-10s %12s %9s %9s %9s %9s %7s %8s" % ("latency", "client", "pushes/s", "seconds", "p50 ms", "p99 ms",
                                                       "RSS MB", "failed", "CPU s"))
    summary = []
    for latency in args.latency:
        mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                                 creds + "/server.key", "--latency-ms", str(latency)], r"PORT (\d+)")
        ours_runs, peer_runs = [], []
        try:
            # Ours and the peer alternate, so slow spells of a shared machine hit both.
            for run in range(args.runs):
                ours = run_service(bin_dir, creds, mock_port, args.n,
                                   os.path.join(work, "data-%d-%d" % (latency, run)), mock.pid)
                ours_runs.append(ours)
                print("%-8s %-10s %12.0f %9.2f %9.1f %9.1f %9.1f %7d %8.2f" % (
                    "%d ms" % latency, "ours", ours["rate"], ours["elapsed"], ours["p50"], ours["p99"], ours["rss"],
                    ours["failed"], ours["cpu"]), flush=True)
                print("         (send accepted after %.2f s; mock CPU %.2f s)" % (ours["accepted"], ours["mock_cpu"]),
                      flush=True)
                peer_cpu = time.process_time()
                peer = run_aioapns(creds, mock_port, args.n)
                peer["cpu"] = time.process_time() - peer_cpu
                peer_runs.append(peer)
                print("%-8s %-10s %12.0f %9.2f %9s %9s %9s %7d %8.2f" % (
                    "%d ms" % latency, "aioapns", peer["rate"], peer["elapsed"], "-", "-", "-", peer["failed"],
                    peer["cpu"]), flush=True)
        finally:
            mock.send_signal(signal.SIGTERM)
            mock.wait(10)
        summary.append((latency, ours_runs, peer_runs))
    if args.runs > 1 or len(summary) > 1:
        print("\nmedian of %d run(s) per latency (RSS: the highest peak of all runs)" % args.runs)
        verdicts = []
        for latency, ours_runs, peer_runs in summary:
            ours_rate = statistics.median(r["rate"] for r in ours_runs)
            peer_rate = statistics.median(r["rate"] for r in peer_runs)
            rss = max(r["rss"] for r in ours_runs)
            p50 = statistics.median(r["p50"] for r in ours_runs)
            p99 = statistics.median(r["p99"] for r in ours_runs)
            print("%-8s ours %8.0f/s (runs %s), p50 %.0f ms, p99 %.0f ms, peak RSS %.1f MB; aioapns %8.0f/s" % (
                "%d ms" % latency, ours_rate, ", ".join("%.0f" % r["rate"] for r in ours_runs), p50, p99, rss,
                peer_rate))
            verdicts.append("%d ms: %s 10,000/s, %s aioapns, %s 64 MB" % (
                latency, ">=" if ours_rate >= 10000 else "BELOW", "faster than" if ours_rate > peer_rate else "NOT faster than",
                "under" if rss < 64 else "NOT under"))
        print("targets: " + "; ".join(verdicts))

def use_repository_venv():
    """Re-runs this script with the venv python of Scripts/pyenv.sh (which has aioapns) unless
    this already is that python."""
    pyenv = os.path.join(os.path.dirname(SERVER), "Scripts", "pyenv.sh")
    python = subprocess.run([pyenv], check=True, capture_output=True, text=True).stdout.strip()
    if os.path.realpath(sys.prefix) != os.path.realpath(os.path.dirname(os.path.dirname(python))):
        os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])


if __name__ == "__main__":
    use_repository_venv()
    main()
