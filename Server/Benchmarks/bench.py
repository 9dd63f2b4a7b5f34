#!/usr/bin/env python3
"""Throughput benchmark: push-server (delivery engine) vs aioapns, same native mock APNs.

For each injected latency (default 0 ms and 50 ms) it:
  1. starts `apns-mock-native` (HTTP/2 over TLS, ALPN h2, test CA made now),
  2. starts `push-server --sender delivery` pointed at the mock, registers N device tokens
     through the HTTP API (admin + client endpoints; not timed),
  3. times N pushes: `POST /notifications/push/v1/send` (100 tokens per user, up to 1,000
     users per request) until the outbox reports N delivered; reads p50/p99 (job accepted ->
     APNs answered) from `/metrics` and the server's peak RSS (VmHWM),
  4. sends the same N notifications with `aioapns` to the same mock and times them,
  5. sends the same N requests with `h2load -c 4 -m 1000` (nghttp2-client; bearer JWT, apns-topic,
     /3/device/<token>) to the same mock: the mock's ceiling on this machine (issue 32).
Prints pushes/s for both (delivered pushes only; the service runs with its default
--sqlite-sync full), ours as a percentage of h2load's, and the service's CPU µs per push.
Step 3 runs once per APNs transport of the service (--transports, default curl and native:
`--apns-transport`, issue 32), in turn in each run. --profile records the service with perf and
prints its CPU split by library. A script that prints numbers, not a test. For a long steady run that
watches memory, file descriptors and p99, see soak.py.

The summary ends with issue 32's targets, one a line, each `met` or `NOT met` with the medians
measured: ours >= 20 % of h2load's pushes/s at 0 ms (>= 15 % at other latencies), >= 10 x
aioapns', service CPU <= 50 µs per push, the accept of the 20,000-job send <= 0.15 s (SQLite;
only judged with -n 20000), peak RSS < 64 MB, and the steady p99 below; "not measured" for what
was skipped (--no-h2load, no --steady). The burst's p50/p99 in the table are queueing (20,000
jobs accepted at once), not the latency of a push at a given rate.

Steady rate (issue 32): --steady [RATE] (default 5,000/s) adds, after each latency's runs, a
fresh service started as in step 2 (SQLite, the service's default APNs transport unless
--transports names one) with its own mock run with --time-log. After registering N tokens it
sends one chat to one user (100 tokens) every 100/RATE s for --steady-seconds (default 10), from
4 client threads that take the slots in turn and keep the schedule, and times each push from its
send's HTTP answer to the mock's answer (both CLOCK_MONOTONIC; matched by device token). It
prints p50, p99 and max after --steady-warmup (default 1 s), the achieved rate, the part until
the push reached the mock, the service's own /metrics quantiles, and whether p99 < 50 ms + the
latency; --steady-runs N repeats it (the targets take the median p99). About 30 s per latency and
run (registration included), so not run by default; --runs 0 --steady runs it alone.

Several instances on one PostgreSQL (issue 17): --instances N with --database postgres://…
(each run gets a fresh schema) or --postgres (a throwaway durable cluster made with
Scripts/pg-cluster.sh, stopped at the end); the sends are spread over the instances and the
CPU seconds of the service processes and of PostgreSQL (postmaster and backends, from /proc)
are reported per 1,000 pushes. --scaling runs SQLite x1, PostgreSQL x1, x2 and x3 (at 50 ms
unless --latency is given) and prints a table.

Whole groups (issue 31): --group sends to N members (-n, default 50,000; one device token each)
twice in one service: as explicit uids (1,000 per send) and as one send naming a group of all of
them (answered 202 at once, expanded in the background, --group-batch members per transaction).
It prints, for each, the time until the API accepted the sends and the pushes/s to the mock until
the last one was answered.

Private push (issue 28): --private runs a standard app and a private app (every push sealed for
its token's key, RFC 8291; the tokens registered with `encryption` keys this script makes with
Python's cryptography) in turn against one mock, and prints pushes/s of both and the ratio
(target: private at least 50 % of standard).

usage: python3 Server/Benchmarks/bench.py [-n 20000] [--latency 0 50] [--transports curl native] [--scratch DIR]
       python3 Server/Benchmarks/bench.py --steady [5000] [--steady-seconds 10] [--steady-runs 1] [--runs 0]
       python3 Server/Benchmarks/bench.py --group [-n 50000] [--latency 0] [--runs 1]
       python3 Server/Benchmarks/bench.py --private [-n 20000] [--latency 0] [--runs 3]
       python3 Server/Benchmarks/bench.py --scaling [--postgres | --database URL] [--runs 3]
       python3 Server/Benchmarks/bench.py --instances 2 --postgres --latency 50
Needs: release builds of push-server and apns-mock-native (the script runs `swift build`
unless --no-build), openssl, and `aioapns`: run with any python3, the script re-runs itself
with the repository's virtual environment (Scripts/pyenv.sh, which installs aioapns).
"""
import argparse
import asyncio
import atexit
import base64
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import ssl
import subprocess
import sys
import tempfile
import threading
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
        if response.status // 100 != 2:  # 202: a send to a large group
            raise RuntimeError("%s %s -> %d %s" % (method, path, response.status, data[:200]))
        return json.loads(data)["data"] if data.startswith(b"{") else data.decode()

    def admin(self, method, path, body=None, app=None):
        headers = {"apikey": self.admin_key}
        if app:
            headers["appid"] = app
        return self.call(method, path, body, headers)


def cpu_seconds(pid, children=False):
    """User + system CPU time of a process, in seconds (with `children`, also that of its
    children that have exited and were waited for)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def psql_path():
    """psql of the newest PostgreSQL Debian installed (or the one on PATH)."""
    root = "/usr/lib/postgresql"
    versions = sorted((int(v) for v in os.listdir(root) if v.isdigit()), reverse=True) if os.path.isdir(root) else []
    for version in versions:
        path = "%s/%d/bin/psql" % (root, version)
        if os.access(path, os.X_OK):
            return path
    return "psql"


def psql(url, sql):
    out = subprocess.run([psql_path(), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def masked(url):
    """The URL without its password (never printed)."""
    return re.sub(r"(://[^:/?#@\s]*:)[^/?#\s]*@", r"\1***@", url)


class Postgres:
    """A PostgreSQL server for the runs: a fresh schema per run, and the CPU time of the
    server's processes (the postmaster, its live children, and the children it reaped)."""

    def __init__(self, url, cluster_dir=None):
        self.url = url
        self.cluster_dir = cluster_dir
        try:
            data = cluster_dir + "/data" if cluster_dir else psql(url, "SHOW data_directory")
            with open(os.path.join(data, "postmaster.pid")) as f:
                self.postmaster = int(f.readline())
        except (OSError, ValueError, subprocess.CalledProcessError):
            self.postmaster = None  # another machine's server, or no permission: CPU not measured

    @classmethod
    def start_cluster(cls):
        """A throwaway cluster with PostgreSQL's durable defaults (PG_CLUSTER_DURABLE=1)."""
        directory = os.path.join(tempfile.gettempdir(), "push-bench-pg-" + os.urandom(4).hex())
        out = subprocess.run(["bash", os.path.join(SERVER, "Scripts", "pg-cluster.sh"), "start", directory],
                             check=True, capture_output=True, text=True, env=dict(os.environ, PG_CLUSTER_DURABLE="1"))
        return cls(out.stdout.strip().splitlines()[-1], directory)

    def stop(self):
        if self.cluster_dir:
            subprocess.run(["bash", os.path.join(SERVER, "Scripts", "pg-cluster.sh"), "stop", self.cluster_dir],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def new_schema(self):
        """Creates a schema; returns (its name, the URL that uses it)."""
        name = "bench_" + os.urandom(6).hex()
        psql(self.url, "CREATE SCHEMA %s" % name)
        return name, self.url + ("&" if "?" in self.url else "?") + "options=-csearch_path%3D" + name

    def drop_schema(self, name):
        psql(self.url, "DROP SCHEMA IF EXISTS %s CASCADE" % name)

    def cpu(self):
        """CPU seconds of the server so far, or None when not measurable."""
        if self.postmaster is None:
            return None
        total = cpu_seconds(self.postmaster, children=True)
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % entry) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == self.postmaster:
                    total += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
            except (OSError, IndexError, ValueError):
                pass  # a backend that just exited: its time moves to the postmaster's children
        return total


def tokens_for(n):
    return ["%064x" % (0xB000000000 + i) for i in range(n)]


def run_senders(target, count, errors):
    """Runs target(0) … target(count - 1) on threads of their own and waits for them; raises
    the first error they recorded in `errors` (the run is then void)."""
    threads = [threading.Thread(target=target, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError("a send failed: %s" % errors[0])


def run_service(bin_dir, creds, mock_port, n, work, mock_pid=None, instances=1, postgres=None, pool=None,
                users_per_send=1000, private=False, transport=None, steady=None):
    """Starts `instances` push-servers (SQLite in `work`, or all on a fresh schema of
    `postgres`), registers n tokens, then times n pushes sent through the instances in turn
    (with `steady`, a dict of measure_steady's arguments: pushes at a steady rate instead)."""
    admin_key = "adm_bench_" + os.urandom(8).hex()
    # One secret key for every instance: each must open the providers the first one sealed.
    env = dict(os.environ, PUSH_ADMIN_KEY=admin_key, PUSH_SECRET_KEY=base64.b64encode(os.urandom(32)).decode())
    schema, database = postgres.new_schema() if postgres else (None, None)
    servers = []
    try:
        for index in range(instances):
            cmd = [os.path.join(bin_dir, "push-server"), "--port", "0", "--data-dir", os.path.join(work, "instance-%d" % index),
                   "--sender", os.environ.get("BENCH_SENDER", "delivery"),
                   "--apns-url", "https://127.0.0.1:%d" % mock_port, "--ca-file", creds + "/ca.pem",
                   # The default --sqlite-sync (full): measured as deployed.
                   "--log-level", "error", "--rate-limit", "1000000", "--rate-burst", "1000000"]
            if database:
                cmd += ["--database", database] + (["--database-pool", str(pool)] if pool else [])
            if transport:
                cmd += ["--apns-transport", transport]
            # One after the other: the first creates the schema.
            servers.append(start(cmd, r"listening on http://[\d.]+:(\d+)", env))
        if steady:
            return measure_steady(servers[0], creds, n, admin_key, **steady)
        return measure(servers, creds, n, admin_key, mock_pid, postgres, users_per_send, private)
    finally:
        for server, _ in servers:
            server.send_signal(signal.SIGTERM)
        for server, _ in servers:
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        if schema:
            postgres.drop_schema(schema)


def encryption_keys():
    """A device's Web Push keys as the SDK registers them (issue 28): a P-256 public key
    (65 bytes, uncompressed) and a 16-byte auth secret, base64url."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives import serialization
    point = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    b64 = lambda raw: base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return {"p256dh": b64(point), "auth": b64(os.urandom(16))}


def register(api, creds, n, private=False):
    """Not timed: the app `bench`, its APNs provider, n/100 users and n device tokens
    (tokens_for(n), 100 per user in order). Returns (app, the users' uids)."""
    app = "bench"
    api.admin("POST", "/apps", {"appId": app, "name": "Bench", **({"privacy": "private"} if private else {})})
    if private and api.admin("GET", "/apps/%s" % app).get("privacy") != "private":
        raise RuntimeError("this push-server does not keep an app's privacy yet: --private needs the store's private push")
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
            registration = {"fcmToken": token, "platform": "apns_ios_device", "providerId": "apns-bench", "timezone": "UTC"}
            if private:
                registration["encryption"] = encryption_keys()
            api.call("POST", "/notifications/push/v1/tokens", registration, {"appid": app, "authToken": auth})
        users.append(uid)
    return app, users


def measure(servers, creds, n, admin_key, mock_pid, postgres, users_per_send, private=False):
    apis = [API(port, admin_key) for _, port in servers]
    pids = [server.pid for server, _ in servers]
    app, users = register(apis[0], creds, n, private)
    api = apis[0]
    # Timed part: accept N pushes, wait until APNs answered all of them.
    if os.environ.get("BENCH_PERF"):
        # BENCH_PERF_CALLGRAPH=dwarf unwinds with DWARF (slower, but places time that frame
        # pointers cannot: inlined and frame-pointer-less libraries).
        subprocess.Popen(["perf", "record", "-F", os.environ.get("BENCH_PERF_FREQ", "499"),
                          "--call-graph", os.environ.get("BENCH_PERF_CALLGRAPH", "fp"), "-p", str(pids[0]),
                          "-o", os.environ["BENCH_PERF"] + (".private" if private else ""),
                          "--", "sleep", "12"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
    with open("/proc/%d/status" % pids[0]) as f:
        peak_before_send = re.search(r"VmHWM:\s+(\d+ kB)", f.read()).group(1)
    profile = start_profile(pids[0], "%d" % pids[0])
    cpu_before = sum(cpu_seconds(pid) for pid in pids)
    pg_cpu_before = postgres.cpu() if postgres else None
    mock_cpu_before = cpu_seconds(mock_pid) if mock_pid else 0.0
    started = time.time()
    # Each send goes to `users_per_send` users (100 tokens each); sends go to the instances in
    # turn, each instance's sends from its own thread.
    chunks = [users[i:i + users_per_send] for i in range(0, len(users), users_per_send)]
    errors = []

    def send_all(index):
        try:
            for number in range(index, len(chunks), len(apis)):
                chunk = chunks[number]
                apis[index].admin("POST", "/notifications/push/v1/send", {
                    "type": "chat",
                    "message": {"id": "m%d" % number, "sender": {"uid": "sender", "name": "Bench"},
                                "receiver": {"uid": chunk[0]}, "text": "Hello from the benchmark"},
                    "recipients": [{"uid": uid} for uid in chunk]}, app=app)
        except Exception as error:  # reported below: the run is void
            errors.append(error)

    run_senders(send_all, min(len(apis), len(chunks)), errors)
    accepted = time.time() - started
    if os.environ.get("BENCH_TOP"):
        subprocess.Popen(["sh", "-c", "sleep 1; top -H -b -n 1 -p %d | head -25" % pids[0]])
    if os.environ.get("BENCH_SENDER") == "none":
        with open("/proc/%d/status" % pids[0]) as f:
            print("accept only: %.2f s, peak RSS %s (%s before the send)" % (
                accepted, re.search(r"VmHWM:\s+(\d+ kB)", f.read()).group(1), peak_before_send))
        return None
    # Wait for the last answer on /healthz (live in-memory totals of each instance: cheap),
    # then for the outbox to have recorded every outcome (/admin/outbox counts rows: polled
    # only then, so the harness does not scan the jobs table 40 times a second while we measure).
    while True:
        poll_started = time.time()
        done = 0
        for each in apis:
            each.conn.request("GET", "/healthz")
            delivery = json.loads(each.conn.getresponse().read())["delivery"]
            done += delivery.get("delivered", 0) + delivery.get("failed", 0)
        if os.environ.get("BENCH_TIMES"):
            print("poll %.3f took %.3f done %d" % (poll_started % 1000, time.time() - poll_started, done))
        if done >= n:
            break
        if time.time() - started > 300:
            raise RuntimeError("timed out: %d of %d answered" % (done, n))
        time.sleep(0.01)
    while True:
        outbox = api.admin("GET", "/admin/outbox")["pushJobs"]
        if outbox["delivered"] + outbox["failed"] >= n:
            break
        if time.time() - started > 300:
            raise RuntimeError("timed out: %s" % outbox)
        time.sleep(0.005)
    elapsed = time.time() - started
    profile = stop_profile(profile)
    if os.environ.get("BENCH_TIMES"):
        print("started %.3f accepted %.3f done %.3f" % (started % 1000, (started + accepted) % 1000, (started + elapsed) % 1000))
    cpu = sum(cpu_seconds(pid) for pid in pids) - cpu_before
    pg_cpu = postgres.cpu() - pg_cpu_before if postgres and pg_cpu_before is not None else None
    mock_cpu = cpu_seconds(mock_pid) - mock_cpu_before if mock_pid else float("nan")
    p50s, p99s, rss = [], [], 0.0
    for each, pid in zip(apis, pids):
        metrics = each.call("GET", "/metrics")
        quantiles = dict(re.findall(r'push_delivery_latency_recent_seconds\{quantile="([\d.]+)"\} ([\d.e+-]+)', metrics))
        p50s.append(float(quantiles.get("0.5", "nan")) * 1000)
        p99s.append(float(quantiles.get("0.99", "nan")) * 1000)
        with open("/proc/%d/status" % pid) as f:
            rss = max(rss, int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) / 1024)
    if os.environ.get("BENCH_TOP"):
        print("accepted in %.2f s" % accepted)
    # pushes/s counts delivered pushes only (a failed push is not throughput). With several
    # instances: the highest p50/p99 of any instance, the highest peak RSS of any instance.
    return {"rate": outbox["delivered"] / elapsed, "elapsed": elapsed, "failed": outbox["failed"], "cpu": cpu,
            "pg_cpu": pg_cpu, "delivered": outbox["delivered"], "p50": max(p50s), "p99": max(p99s),
            "rss": rss, "mock_cpu": mock_cpu, "accepted": accepted, "profile": profile}


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



# --- h2load, the ceiling of the mock (issue 32) -------------------------------------------------

H2LOAD = "/usr/bin/h2load"  # Debian's nghttp2-client


def apns_jwt(creds):
    """An ES256 provider token of the test key, as APNs wants it (PyJWT, which aioapns uses)."""
    import jwt
    return jwt.encode({"iss": TEAM_ID, "iat": int(time.time())}, open(creds + "/apns.p8").read(), algorithm="ES256",
                      headers={"kid": KEY_ID})


def run_h2load(creds, mock_port, n, work, clients=4, streams=100):
    """The same N pushes from h2load (nghttp2's C load generator) to the same mock: `clients`
    connections, `streams` requests in flight on each, each request a POST of the aioapns
    message to /3/device/<token> (one token each, from an -i list) with the headers APNs takes
    (bearer JWT, apns-topic, apns-push-type, apns-priority). What a client with next to no cost
    per request gets from this mock on this machine: the ceiling. None without h2load."""
    if not os.path.exists(H2LOAD):
        return None
    payload = os.path.join(work, "h2load-payload.json")
    with open(payload, "w") as f:
        json.dump({"aps": {"alert": {"title": "Bench", "body": "Hello from the benchmark"}, "mutable-content": 1},
                   "type": "chat"}, f)
    uris = os.path.join(work, "h2load-uris.txt")
    with open(uris, "w") as f:
        f.writelines("https://127.0.0.1:%d/3/device/%s\n" % (mock_port, token) for token in tokens_for(n))
    cmd = [H2LOAD, "-n", str(n), "-c", str(clients), "-m", str(streams), "-t", "1", "-i", uris, "-d", payload,
           "-H", "authorization: bearer " + apns_jwt(creds), "-H", "apns-topic: " + BUNDLE,
           "-H", "apns-push-type: alert", "-H", "apns-priority: 10", "-H", "content-type: application/json"]
    before = os.times()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    after = os.times()
    finished = re.search(r"finished in ([\d.]+)(ms|s)", out)
    codes = re.search(r"status codes: (\d+) 2xx", out)
    if not finished or not codes:
        raise RuntimeError("h2load printed no result:\n" + out[-2000:])
    elapsed = float(finished.group(1)) / (1000 if finished.group(2) == "ms" else 1)
    ok = int(codes.group(1))
    return {"rate": ok / elapsed, "elapsed": elapsed, "failed": n - ok, "flags": "-c %d -m %d" % (clients, streams),
            "cpu": (after.children_user - before.children_user) + (after.children_system - before.children_system)}


# --- --steady: accept -> APNs answer at a steady rate (issue 32) ---------------------------------

STEADY_SENDERS = 4  # client threads taking the send slots in turn, each on its own connection


def quantile(values, q):
    """The q-quantile as the service computes its own (the sorted value at len * q); nan
    without values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def measure_steady(server, creds, n, admin_key, rate, seconds, warmup, time_log):
    """Registers n tokens (100 per user) as the main table does, then sends one chat to one
    user (100 pushes) every 100/rate seconds for `seconds`, the users in turn, from
    STEADY_SENDERS threads that each take every STEADY_SENDERS-th slot and wait for its time (a
    slow answer delays that send only, not the schedule). A push's latency is from its send's
    HTTP answer (time.monotonic_ns(), CLOCK_MONOTONIC) to the mock's answer to it (the mock's
    --time-log, the same clock), matched by device token: a token's k-th answer belongs to the
    k-th send to its user (a push the service sent twice counts with its last answer). The
    quantiles leave out the sends of the first `warmup` seconds (the service opens its APNs
    connections and signs its provider token then)."""
    process, port = server
    api = API(port, admin_key)
    app, users = register(api, creds, n)
    interval = 100.0 / rate
    slots = max(1, int(round(seconds / interval)))
    sends = [None] * slots  # per slot: (user, due, started, answered), CLOCK_MONOTONIC ns
    errors = []
    cpu_before = cpu_seconds(process.pid)
    begin = time.monotonic_ns() + 50000000  # the threads have started by then

    def send_slots(index):
        client = API(port, admin_key)
        try:
            for slot in range(index, slots, STEADY_SENDERS):
                due = begin + int(slot * interval * 1e9)
                wait = (due - time.monotonic_ns()) / 1e9
                if wait > 0:
                    time.sleep(wait)  # the slot's time on the schedule
                user = slot % len(users)
                started = time.monotonic_ns()
                client.admin("POST", "/notifications/push/v1/send", {
                    "type": "chat",
                    "message": {"id": "s%d" % slot, "sender": {"uid": "sender", "name": "Bench"},
                                "receiver": {"uid": users[user]}, "text": "Hello from the benchmark"},
                    "recipients": [{"uid": users[user]}]}, app=app)
                sends[slot] = (user, due, started, time.monotonic_ns())
        except Exception as error:  # reported below: the run is void
            errors.append(error)

    run_senders(send_slots, min(STEADY_SENDERS, slots), errors)
    pushes = sum(min(100, n - user * 100) for user, _, _, _ in sends)
    # The service's answers (/healthz, live counters), then the mock's log of them (flushed
    # after each batch of answers: it may trail the service by a batch). A new connection: the
    # service has closed the registration's, idle while the threads sent.
    api = API(port, admin_key)
    deadline = time.time() + 120
    while True:
        api.conn.request("GET", "/healthz")
        delivery = json.loads(api.conn.getresponse().read())["delivery"]
        if delivery.get("delivered", 0) + delivery.get("failed", 0) >= pushes:
            break
        if time.time() > deadline:
            raise RuntimeError("timed out: %s of %d answered" % (delivery, pushes))
        time.sleep(0.01)
    cpu = cpu_seconds(process.pid) - cpu_before
    while True:
        with open(time_log) as f:
            lines = f.read().splitlines()
        if len(lines) >= delivery.get("delivered", 0):
            break
        if time.time() > deadline:
            raise RuntimeError("the mock logged %d answers of %d" % (len(lines), delivery.get("delivered", 0)))
        time.sleep(0.01)
    metrics = api.call("GET", "/metrics")
    service = dict(re.findall(r'push_delivery_latency_recent_seconds\{quantile="([\d.]+)"\} ([\d.e+-]+)', metrics))
    with open("/proc/%d/status" % process.pid) as f:
        rss = int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) / 1024
    answers = {}
    for line in lines:
        answered, arrived, apns_id, token = line.split()
        answers[apns_id] = (int(answered), int(arrived), token)
    by_token = {}
    for answered, arrived, token in answers.values():
        by_token.setdefault(token, []).append((answered, arrived))
    slots_of = {}
    for slot, (user, _, _, _) in enumerate(sends):
        slots_of.setdefault(user, []).append(slot)
    first_counted = int(warmup / interval)
    total, counted, to_mock, unmatched = [], [], [], 0  # ms, from the send's answer
    for index, token in enumerate(tokens_for(n)):
        got = sorted(by_token.get(token, []))
        mine = slots_of.get(index // 100, [])
        if len(got) != len(mine):
            unmatched += len(mine)
            continue
        for (answered, arrived), slot in zip(got, mine):
            accepted = sends[slot][3]
            total.append((answered - accepted) / 1e6)
            if slot >= first_counted:
                counted.append((answered - accepted) / 1e6)
                to_mock.append((arrived - accepted) / 1e6)
    last_accepted = max(send[3] for send in sends)
    last_answer = max((answered for answered, _, _ in answers.values()), default=last_accepted)
    return {"rate": rate, "slots": slots, "interval": interval, "pushes": pushes,
            "achieved": pushes / ((last_accepted - begin) / 1e9 + interval),
            "late": max(send[2] - send[1] for send in sends) / 1e6,
            "send_p50": quantile([(send[3] - send[2]) / 1e6 for send in sends], 0.5),
            "send_p99": quantile([(send[3] - send[2]) / 1e6 for send in sends], 0.99),
            "delivered": delivery.get("delivered", 0), "failed": delivery.get("failed", 0),
            "counted": len(counted), "unmatched": unmatched, "drain": (last_answer - last_accepted) / 1e6,
            "p50": quantile(counted, 0.5), "p99": quantile(counted, 0.99), "max": max(counted, default=float("nan")),
            "all_p99": quantile(total, 0.99), "all_max": max(total, default=float("nan")),
            "to_mock_p50": quantile(to_mock, 0.5), "to_mock_p99": quantile(to_mock, 0.99),
            "service_p50": float(service.get("0.5", "nan")) * 1000, "service_p99": float(service.get("0.99", "nan")) * 1000,
            "cpu": cpu, "rss": rss}


def steady_held(result):
    """"" when the sends kept to the offered rate (95 % of it at least), else a warning: the
    latency was then measured at a lower rate than asked."""
    if result["achieved"] >= 0.95 * result["rate"]:
        return ""
    return " (the offered %d/s was NOT held: %.0f/s)" % (result["rate"], result["achieved"])


def run_steady(args, bin_dir, creds, work, latency, run):
    """One steady measurement at one latency: its own mock (with --time-log) and a fresh
    service started as the main table starts it. Prints it and returns it."""
    time_log = os.path.join(work, "steady-%d-%d.log" % (latency, run))
    mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                             creds + "/server.key", "--latency-ms", str(latency), "--time-log", time_log], r"PORT (\d+)")
    try:
        result = run_service(bin_dir, creds, mock_port, args.n, os.path.join(work, "steady-%d-%d" % (latency, run)), mock.pid,
                             transport=args.single_transport,
                             steady={"rate": args.steady, "seconds": args.steady_seconds, "warmup": args.steady_warmup,
                                     "time_log": time_log})
    finally:
        mock.send_signal(signal.SIGTERM)
        mock.wait(10)
    result["transport"] = args.single_transport or "default"
    print("%-8s steady: ours/%s, SQLite, %d pushes/s offered for %.0f s: one send to one user (100 tokens) every %.1f ms "
          "from %d client threads, %d tokens" % (
              "%d ms" % latency, result["transport"], args.steady, args.steady_seconds, result["interval"] * 1000,
              STEADY_SENDERS, args.n))
    print("         %d pushes in %d sends: %.0f/s achieved (a send started at most %.1f ms after its slot; a send "
          "request took p50 %.1f ms, p99 %.1f ms); delivered %d, failed %d; the last answer %.1f ms after the last send's" % (
              result["pushes"], result["slots"], result["achieved"], result["late"], result["send_p50"], result["send_p99"],
              result["delivered"], result["failed"], result["drain"]))
    print("         send answered -> mock answered, %d pushes after %.0f s warm-up: p50 %.1f ms, p99 %.1f ms, max %.1f ms "
          "(whole run: p99 %.1f ms, max %.1f ms)%s" % (
              result["counted"], args.steady_warmup, result["p50"], result["p99"], result["max"], result["all_p99"],
              result["all_max"], "; %d pushes not matched to a send, left out" % result["unmatched"]
              if result["unmatched"] else ""))
    print("         of which send answered -> at the mock: p50 %.1f ms, p99 %.1f ms; the service's own /metrics (job "
          "accepted -> answer, whole run): p50 %.1f ms, p99 %.1f ms" % (
              result["to_mock_p50"], result["to_mock_p99"], result["service_p50"], result["service_p99"]))
    print("         service CPU %.2f s: %.0f µs per push; peak RSS %.1f MB; p99 < 50 ms + %d ms: %s%s" % (
        result["cpu"], result["cpu"] / max(1, result["delivered"]) * 1e6, result["rss"], latency,
        "met" if result["p99"] < 50 + latency else "NOT met", steady_held(result)), flush=True)
    return result


# --- --profile: where the service's CPU goes (issue 32) ------------------------------------------

PROFILE = {}  # set by main() with --profile: {"dir": …, "freq": …}


def start_profile(pid, label):
    """Starts `perf record` (no call graph: only where each sample fell) on the service, or
    returns None without --profile."""
    if not PROFILE:
        return None
    path = os.path.join(PROFILE["dir"], "perf-%s.data" % label)
    proc = subprocess.Popen(["perf", "record", "-F", str(PROFILE["freq"]), "-p", str(pid), "-o", path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)  # perf attaches before the timed part starts
    return proc, path


def stop_profile(profile):
    """Ends the recording (SIGINT: perf writes its file) and returns the file's path."""
    if not profile:
        return None
    proc, path = profile
    proc.send_signal(signal.SIGINT)
    proc.wait(30)
    return path


# The groups of the CPU split: by the shared object a sample fell in, and inside the statically
# linked push-server by symbol (the Swift runtime and standard library, Foundation, ours).
LIBRARY_GROUPS = [
    ("kernel", lambda dso, sym: dso.startswith("[kernel") or dso == "[vdso]"),
    ("libc", lambda dso, sym: re.match(r"((libc|libm|libpthread)\.so|ld-linux)", dso) is not None),
    ("libcurl", lambda dso, sym: dso.startswith("libcurl")),
    ("nghttp2", lambda dso, sym: dso.startswith("libnghttp2")),
    ("OpenSSL", lambda dso, sym: dso.startswith(("libssl", "libcrypto"))),
    ("SQLite", lambda dso, sym: dso.startswith("libsqlite3")),
    ("libpq", lambda dso, sym: dso.startswith("libpq")),
    ("libmicrohttpd", lambda dso, sym: dso.startswith("libmicrohttpd")),
    ("Swift runtime + stdlib", lambda dso, sym: dso == "push-server" and (
        sym.startswith(("swift_", "swift::", "_swift", "$ss", "$sS", "__swift")) or "swift_" in sym[:12])),
    ("Foundation", lambda dso, sym: dso == "push-server" and sym.startswith(("$s20FoundationEssentials", "$s10Foundation"))),
    ("our code", lambda dso, sym: dso == "push-server"),
]


def cpu_split(path):
    """The recording's samples by group (percent of all), and the hottest symbols."""
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "--no-children", "-g", "none", "--sort", "dso,sym",
                          "--percent-limit", "0"], capture_output=True, text=True).stdout
    groups, symbols = {}, []
    for line in out.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[([.k])\]\s+(.*?)\s*$", line)
        if not match:
            continue
        percent, dso, kind, sym = float(match.group(1)), match.group(2), match.group(3), match.group(4)
        if kind == "k":
            dso = "[kernel.kallsyms]"
        group = next((name for name, test in LIBRARY_GROUPS if test(dso, sym)), "other (%s)" % dso)
        groups[group] = groups.get(group, 0.0) + percent
        symbols.append((percent, dso, sym))
    return groups, sorted(symbols, reverse=True)[:8]


def print_profile(ours, n, label):
    """Prints the service's CPU per push and, with --profile, its split by library."""
    per_push = ours["cpu"] / max(1, ours["delivered"]) * 1e6
    print("         service CPU %.2f s for %d pushes: %.0f µs per push (utime + stime, /proc/<pid>/stat)" % (
        ours["cpu"], n, per_push), flush=True)
    if not ours.get("profile"):
        return
    groups, symbols = cpu_split(ours["profile"])
    print("         CPU split (%s, perf record -F %d of push-server over the timed part):" % (label, PROFILE["freq"]))
    for name, percent in sorted(groups.items(), key=lambda item: -item[1]):
        print("           %-24s %5.1f %%  %5.0f µs/push" % (name, percent, per_push * percent / 100))
    print("         hottest symbols:")
    for percent, dso, sym in symbols:
        print("           %5.1f %%  %-18s %s" % (percent, dso[:18], sym[:100]))
    sys.stdout.flush()



def print_h2load_row(latency, h2, transport_runs):
    """h2load's row of the main table, and each transport's rate of this run as a share of it."""
    if not h2:
        return
    print("%-8s %-12s %12.0f %9.2f %9s %9s %9s %7d %8.2f %10s" % (
        "%d ms" % latency, "h2load", h2["rate"], h2["elapsed"], "-", "-", "-", h2["failed"], h2["cpu"], "-"), flush=True)
    for transport, runs in transport_runs.items():
        print("         (ours/%s = %.0f %% of h2load %s)" % (transport, runs[-1]["rate"] / h2["rate"] * 100, h2["flags"]),
              flush=True)


def print_h2load_summary(summary, h2_summary):
    """The medians of h2load and, per transport, of ours as a share of it and of the service's
    CPU per push."""
    for latency, transport_runs, peer_runs in summary:
        peer_rate = statistics.median(r["rate"] for r in peer_runs)
        h2 = [r for r in h2_summary.get(latency, []) if r]
        h2_rate = statistics.median(r["rate"] for r in h2) if h2 else None
        for transport, ours_runs in transport_runs.items():
            ours_rate = statistics.median(r["rate"] for r in ours_runs)
            per_push = statistics.median(r["cpu"] / max(1, r["delivered"]) * 1e6 for r in ours_runs)
            if h2_rate:
                print("%-8s h2load %8.0f/s: ours/%s = %.0f %% of h2load, aioapns = %.0f %% of h2load; "
                      "service CPU %.0f µs per push" % ("%d ms" % latency, h2_rate, transport, ours_rate / h2_rate * 100,
                                                       peer_rate / h2_rate * 100, per_push))
            else:
                print("%-8s ours/%s: service CPU %.0f µs per push" % ("%d ms" % latency, transport, per_push))


def verdict(ok, text):
    """A target's outcome: met or NOT met, then what was measured."""
    return "%-7s %s" % ("met" if ok else "NOT met", text)


def print_targets(args, summary, h2_summary, steady):
    """Issue 32's targets, one a line, each met or NOT met with what was measured (the medians
    of the runs, as the issue reads), or not measured and why."""
    print("\ntargets (issue 32; standard mode, SQLite with --sqlite-sync full, N = %d; %s):" % (
        args.n, "medians of %d run(s) per latency" % args.runs if args.runs else "--runs 0: the steady measurement only"))
    rows = []
    for latency, transport_runs, peer_runs in summary:
        h2 = [r for r in h2_summary.get(latency, []) if r]
        h2_rate = statistics.median(r["rate"] for r in h2) if h2 else None
        peer_rate = statistics.median(r["rate"] for r in peer_runs) if peer_runs else None
        share = 20 if latency == 0 else 15
        for transport, ours_runs in transport_runs.items():
            if not ours_runs:
                continue
            who = "%d ms ours/%s" % (latency, transport)
            rate = statistics.median(r["rate"] for r in ours_runs)
            if h2_rate:
                rows.append((who, "pushes/s >= %d %% of h2load's" % share, verdict(
                    rate >= share / 100 * h2_rate, "%.1f %% (%.0f/s of h2load's %.0f/s)" % (rate / h2_rate * 100, rate, h2_rate))))
            else:
                rows.append((who, "pushes/s >= %d %% of h2load's" % share, "not measured (%s)" % (
                    "--no-h2load" if args.no_h2load else "no %s: Debian's nghttp2-client" % H2LOAD)))
            if peer_rate:
                rows.append((who, "pushes/s >= 10 x aioapns'", verdict(
                    rate >= 10 * peer_rate, "%.1f x (%.0f/s against %.0f/s)" % (rate / peer_rate, rate, peer_rate))))
            else:
                rows.append((who, "pushes/s >= 10 x aioapns'", "not measured (no aioapns run)"))
            cpu = statistics.median(r["cpu"] / max(1, r["delivered"]) * 1e6 for r in ours_runs)
            rows.append((who, "service CPU <= 50 µs per push", verdict(cpu <= 50, "%.0f µs (accept, claim, send, record)" % cpu)))
            accepted = statistics.median(r["accepted"] for r in ours_runs)
            if args.n == 20000:
                rows.append((who, "accept of the 20,000-job send <= 0.15 s", verdict(
                    accepted <= 0.15, "%.3f s (SQLite, one send of 200 users x 100 tokens)" % accepted)))
            else:
                rows.append((who, "accept of a 20,000-job send <= 0.15 s", "not measured (N = %d: its %d jobs were "
                             "accepted in %.3f s; run with -n 20000)" % (args.n, args.n, accepted)))
            rss = statistics.median(r["rss"] for r in ours_runs)
            rows.append((who, "peak RSS < 64 MB", verdict(rss < 64, "%.1f MB (highest of the runs %.1f MB)" % (
                rss, max(r["rss"] for r in ours_runs)))))
        results = steady.get(latency)
        goal = "steady p99 accept -> answer < %d ms" % (50 + latency)
        if results:
            p99 = statistics.median(r["p99"] for r in results)
            slowest = min(results, key=lambda r: r["achieved"])
            rows.append(("%d ms ours/%s" % (latency, results[0]["transport"]), goal, verdict(
                p99 < 50 + latency, "%.1f ms at %.0f/s (p50 %.1f ms, max %.1f ms; %s)%s" % (
                    p99, statistics.median(r["achieved"] for r in results), statistics.median(r["p50"] for r in results),
                    max(r["max"] for r in results), "one run" if len(results) == 1 else "median of %d runs: p99 %s" % (
                        len(results), " · ".join("%.1f" % r["p99"] for r in results)), steady_held(slowest)))))
        else:
            rows.append(("%d ms" % latency, goal, "not measured (run with --steady 5000; the burst's p99 is queueing)"))
    width = max(len(row[0]) for row in rows)
    label = max(len(row[1]) for row in rows)
    for who, goal, outcome in rows:
        print("  %-*s  %-*s  %s" % (width, who, label, goal, outcome))
    print("  PostgreSQL x1 within 30 % of SQLite x1, scaling with instances: not measured in this table (--scaling)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20000)
    parser.add_argument("--latency", type=int, nargs="+",
                        help="mock answer delays in ms (default 0 50; 50 with --scaling or several instances)")
    parser.add_argument("--scratch", default=os.path.join(SERVER, ".build-bench"))
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--keep", action="store_true",
                        help="keep the work directory (each run's database, logs and credentials) instead of removing it at exit")
    parser.add_argument("--runs", type=int, default=3, help="runs per latency (the summary shows medians)")
    parser.add_argument("--instances", type=int, default=1, help="push-server processes sharing one PostgreSQL")
    parser.add_argument("--database", help="postgres://… URL the instances share (each run makes its own schema)")
    parser.add_argument("--postgres", action="store_true",
                        help="start a throwaway durable PostgreSQL cluster (Scripts/pg-cluster.sh) for the runs")
    parser.add_argument("--pool", type=int, help="--database-pool of each instance (default: the service's)")
    parser.add_argument("--users-per-send", type=int,
                        help="users (100 tokens each) per send request (default 1000; 10 in the cluster table)")
    parser.add_argument("--scaling", action="store_true",
                        help="SQLite x1, PostgreSQL x1, x2 and x3 in turn; prints the scaling table")
    parser.add_argument("--no-peer", action="store_true", help="skip aioapns; print the cluster table")
    parser.add_argument("--private", action="store_true",
                        help="standard and private (sealed, issue 28) apps in turn in the same run; prints both and the ratio")
    parser.add_argument("--transports", nargs="+", choices=["curl", "native"],
                        help="the service's APNs transports (--apns-transport) measured in turn in each run (default: "
                             "curl and native); the other tables use the first given, else the service's default (native)")
    parser.add_argument("--group", action="store_true",
                        help="a send to a group of N members (default 50,000) beside N explicit uids in sends of 1,000 "
                             "(issue 31): accept time and pushes/s of each")
    parser.add_argument("--no-h2load", action="store_true", help="skip h2load (nghttp2-client) against the mock")
    parser.add_argument("--h2load-clients", type=int, default=4, help="h2load's connections (-c)")
    parser.add_argument("--h2load-streams", type=int, default=1000,
                        help="h2load's requests in flight per connection (-m; default 1000, APNs's and the mock's stream "
                             "limit); at a latency L it cannot pass c*m/L per second")
    parser.add_argument("--profile", action="store_true",
                        help="record the service with perf over each timed part; print its CPU split by library")
    parser.add_argument("--profile-freq", type=int, default=999, help="perf's sampling rate with --profile (Hz)")
    parser.add_argument("--steady", type=int, nargs="?", const=5000, metavar="RATE",
                        help="main table: also, at each latency, a fresh service (SQLite, the service's default transport "
                             "unless --transports names one) sent RATE pushes/s (default 5000: one send to 100 tokens every "
                             "100/RATE s) for --steady-seconds; prints p50/p99/max of send answered -> mock answered "
                             "(issue 32: p99 < 50 ms + the latency). With --runs 0 only this")
    parser.add_argument("--steady-seconds", type=float, default=10, help="how long --steady sends (default 10)")
    parser.add_argument("--steady-runs", type=int, default=1,
                        help="--steady measurements per latency, each with a fresh service (the targets take the median p99)")
    parser.add_argument("--steady-warmup", type=float, default=1,
                        help="--steady leaves the pushes of its first seconds out of the quantiles (default 1)")
    args = parser.parse_args()
    # The main table compares both transports; the others measure one: the one asked for, else
    # the service's default (no flag).
    args.single_transport = args.transports[0] if args.transports else None
    args.transports = args.transports or ["curl", "native"]
    if args.profile:
        PROFILE.update({"dir": tempfile.mkdtemp(prefix="push-bench-perf-"), "freq": args.profile_freq})
        if not args.keep:
            atexit.register(shutil.rmtree, PROFILE["dir"], True)
    cluster = args.scaling or args.no_peer or args.instances > 1 or args.database or args.postgres
    if args.latency is None:
        args.latency = [50] if cluster else [0, 50]
    if args.instances > 1 and not (args.database or args.postgres):
        parser.error("several instances need PostgreSQL: --database postgres://… or --postgres")
    if args.steady is not None and (args.group or cluster or args.private):
        parser.error("--steady runs with the main table only (not with --group, --private or the cluster table)")
    if args.steady is not None and (args.steady < 100 or args.n < 100 or args.steady_runs < 1):
        parser.error("--steady sends 100 tokens at a time: RATE and -n must be at least 100, --steady-runs at least 1")
    if args.runs < 1 and args.steady is None:
        parser.error("--runs must be at least 1 (0 only with --steady: the steady measurement alone)")
    bin_dir = (subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--scratch-path",
                               args.scratch, "--show-bin-path"], capture_output=True, text=True).stdout.strip()
               if args.no_build else build(args.scratch))
    work = tempfile.mkdtemp(prefix="push-bench-")
    if args.keep:
        print("work directory (kept): %s" % work)
    else:
        # Each run's SQLite files and logs: tens of megabytes a run, removed at exit.
        atexit.register(shutil.rmtree, work, True)
    creds = os.path.join(work, "creds")
    subprocess.run(["sh", os.path.join(SERVER, "Mocks", "make_test_ca.sh"), creds], check=True)
    if args.group:
        return group_table(args, bin_dir, creds, work)
    if cluster:
        return cluster_table(args, bin_dir, creds, work)
    if args.private:
        return private_table(args, bin_dir, creds, work)
    print("N = %d pushes per run, 2 cores, mock: apns-mock-native (HTTP/2 + TLS)" % args.n)
    print("%-8s %-12s %12s %9s %9s %9s %9s %7s %8s %10s" % ("latency", "client", "pushes/s", "seconds", "p50 ms", "p99 ms",
                                                             "RSS MB", "failed", "CPU s", "CPU us/push"))
    summary, h2_summary, steady = [], {}, {}
    for latency in args.latency:
        mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                                 creds + "/server.key", "--latency-ms", str(latency)], r"PORT (\d+)")
        ours_runs, peer_runs, h2_runs = {transport: [] for transport in args.transports}, [], []
        try:
            # Ours (each transport) and the peer alternate, so slow spells of a shared machine hit all.
            for run in range(args.runs):
                for transport in args.transports:
                    ours = run_service(bin_dir, creds, mock_port, args.n,
                                       os.path.join(work, "data-%d-%d-%s" % (latency, run, transport)), mock.pid,
                                       transport=transport)
                    if ours is None:  # BENCH_SENDER=none: the accept alone was measured and printed
                        return
                    ours_runs[transport].append(ours)
                    print("%-8s %-12s %12.0f %9.2f %9.1f %9.1f %9.1f %7d %8.2f %10.0f" % (
                        "%d ms" % latency, "ours/" + transport, ours["rate"], ours["elapsed"], ours["p50"], ours["p99"],
                        ours["rss"], ours["failed"], ours["cpu"], ours["cpu"] / max(1, ours["delivered"]) * 1e6), flush=True)
                    print("         (send accepted after %.2f s; mock CPU %.2f s)" % (ours["accepted"], ours["mock_cpu"]),
                          flush=True)
                peer_cpu = time.process_time()
                peer = run_aioapns(creds, mock_port, args.n)
                peer["cpu"] = time.process_time() - peer_cpu
                peer_runs.append(peer)
                print("%-8s %-12s %12.0f %9.2f %9s %9s %9s %7d %8.2f %10.0f" % (
                    "%d ms" % latency, "aioapns", peer["rate"], peer["elapsed"], "-", "-", "-", peer["failed"],
                    peer["cpu"], peer["cpu"] / max(1, args.n - peer["failed"]) * 1e6), flush=True)
                h2 = None if args.no_h2load else run_h2load(creds, mock_port, args.n, work, args.h2load_clients,
                                                             args.h2load_streams)
                h2_runs.append(h2)
                print_h2load_row(latency, h2, ours_runs)
                for transport in args.transports:
                    print_profile(ours_runs[transport][-1], args.n, "%d ms, run %d, %s" % (latency, run + 1, transport))
        finally:
            mock.send_signal(signal.SIGTERM)
            mock.wait(10)
        summary.append((latency, ours_runs, peer_runs))
        h2_summary[latency] = h2_runs
        if args.steady is not None:
            steady[latency] = [run_steady(args, bin_dir, creds, work, latency, run) for run in range(args.steady_runs)]
    if args.runs:
        print("\nmedian of %d run(s) per latency (RSS: the highest peak of all runs)" % args.runs)
        for latency, transport_runs, peer_runs in summary:
            peer_rate = statistics.median(r["rate"] for r in peer_runs)
            for transport, ours_runs in transport_runs.items():
                ours_rate = statistics.median(r["rate"] for r in ours_runs)
                rss = max(r["rss"] for r in ours_runs)
                p50 = statistics.median(r["p50"] for r in ours_runs)
                p99 = statistics.median(r["p99"] for r in ours_runs)
                cpu = statistics.median(r["cpu"] / max(1, r["delivered"]) * 1e6 for r in ours_runs)
                print("%-8s ours/%-6s %8.0f/s (runs %s), p50 %.0f ms, p99 %.0f ms (burst), peak RSS %.1f MB, CPU %.0f us/push; "
                      "aioapns %8.0f/s" % (
                          "%d ms" % latency, transport, ours_rate, ", ".join("%.0f" % r["rate"] for r in ours_runs), p50,
                          p99, rss, cpu, peer_rate))
        print_h2load_summary(summary, h2_summary)
    print_targets(args, summary, h2_summary, steady)

def private_table(args, bin_dir, creds, work):
    """Standard and private mode in turn against one mock (so slow spells of a shared machine hit
    both): pushes/s of each, and private's as a share of standard's (target: at least 50 %)."""
    latency = args.latency[0] if args.latency else 0
    print("N = %d pushes per run, 2 cores, mock: apns-mock-native, latency %d ms; private: every push sealed (RFC 8291)"
          % (args.n, latency))
    print("%-9s %12s %9s %9s %9s %7s %8s" % ("mode", "pushes/s", "seconds", "p50 ms", "p99 ms", "failed", "CPU s"))
    mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                             creds + "/server.key", "--latency-ms", str(latency)], r"PORT (\d+)")
    rates = {"standard": [], "private": []}
    try:
        for run in range(args.runs):
            for mode in ("standard", "private"):
                result = run_service(bin_dir, creds, mock_port, args.n, os.path.join(work, "data-%s-%d" % (mode, run)),
                                     mock.pid, private=mode == "private", transport=args.single_transport)
                rates[mode].append(result["rate"])
                print("%-9s %12.0f %9.2f %9.1f %9.1f %7d %8.2f" % (
                    mode, result["rate"], result["elapsed"], result["p50"], result["p99"], result["failed"], result["cpu"]),
                    flush=True)
                print_profile(result, args.n, "%s, run %d" % (mode, run + 1))
                # The mock shares the two cores: its CPU per push is part of what each mode costs here.
                print("          mock CPU %.0f µs per push%s" % (
                    result["mock_cpu"] / max(1, result["delivered"]) * 1e6,
                    "; this run: private is %.0f %% of standard" % (result["rate"] / rates["standard"][-1] * 100)
                    if mode == "private" and rates["standard"] else ""), flush=True)
    finally:
        mock.send_signal(signal.SIGTERM)
        mock.wait(10)
    standard, private = statistics.median(rates["standard"]), statistics.median(rates["private"])
    ratio = private / standard * 100 if standard else float("nan")
    ratios = [p / s * 100 for p, s in zip(rates["private"], rates["standard"])]
    print("\nmedian of %d run(s): standard %.0f/s, private %.0f/s: private is %.0f %% of standard (target >= 50 %%: %s); "
          "each run: %s" % (args.runs, standard, private, ratio, "met" if ratio >= 50 else "NOT met",
                            ", ".join("%.0f %%" % r for r in ratios)))


def group_table(args, bin_dir, creds, work):
    """A send to a group of N members (issue 31) beside the same N as explicit uids in sends of
    1,000, in one service against one mock (the order alternates between runs, so that neither
    always meets the other's finished jobs): the time the API took to accept, and pushes/s until
    the mock answered the last push."""
    n = args.n if args.n != 20000 else 50000  # -n left at its default: the 50,000
    latency = args.latency[0] if args.latency else 0
    print("N = %d members, one device token each; 2 cores, mock: apns-mock-native, latency %d ms; SQLite (--sqlite-sync full)"
          % (n, latency))
    print("%-26s %12s %12s %10s %7s" % ("send", "accepted in", "pushes/s", "seconds", "failed"))
    mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                             creds + "/server.key", "--latency-ms", str(latency)], r"PORT (\d+)")
    admin_key = "adm_bench_" + os.urandom(8).hex()
    env = dict(os.environ, PUSH_ADMIN_KEY=admin_key, PUSH_SECRET_KEY=base64.b64encode(os.urandom(32)).decode())
    results = {"uids": [], "group": []}
    try:
        for run in range(args.runs):
            cmd = [os.path.join(bin_dir, "push-server"), "--port", "0", "--data-dir", os.path.join(work, "group-%d" % run),
                   "--sender", "delivery", "--apns-url", "https://127.0.0.1:%d" % mock_port, "--ca-file", creds + "/ca.pem",
                   "--log-level", "error", "--rate-limit", "0"] + (
                       ["--apns-transport", args.single_transport] if args.single_transport else [])
            server, port = start(cmd, r"listening on http://[\d.]+:(\d+)", env)
            try:
                api = API(port, admin_key)
                app = "bench"
                api.admin("POST", "/apps", {"appId": app, "name": "Bench"})
                api.admin("POST", "/notifications/push/v1/providers/apns", {
                    "providerId": "apns-bench", "keyId": KEY_ID, "teamId": TEAM_ID, "bundleId": BUNDLE,
                    "p8Key": open(creds + "/apns.p8").read(), "production": False}, app=app)
                # Not timed: N users with a token each, and a group of all of them (5,000 per call).
                uids = ["u%06d" % i for i in range(n)]
                for uid, token in zip(uids, tokens_for(n)):
                    auth = api.admin("POST", "/users", {"uid": uid, "withAuthToken": True}, app=app)["authToken"]
                    api.call("POST", "/notifications/push/v1/tokens",
                             {"fcmToken": token, "platform": "apns_ios_device", "providerId": "apns-bench"},
                             {"appid": app, "authToken": auth})
                for start_index in range(0, n, 5000):
                    api.admin("PUT" if start_index == 0 else "POST", "/groups/everyone/members",
                              {"uids": uids[start_index:start_index + 5000]}, app=app)
                answered = 0
                for mode in (("uids", "group") if run % 2 == 0 else ("group", "uids")):
                    message = {"id": "%s-%d" % (mode, run), "sender": {"uid": "sender", "name": "Bench"},
                               "receiver": {"guid": "everyone"}, "receiverType": "group", "text": "Hello from the benchmark"}
                    started = time.time()
                    if mode == "uids":
                        for index in range(0, n, 1000):
                            api.admin("POST", "/notifications/push/v1/send", {
                                "type": "chat", "message": dict(message, id="%s-%d" % (message["id"], index)),
                                "recipients": [{"uid": uid} for uid in uids[index:index + 1000]]}, app=app)
                    else:
                        answer = api.admin("POST", "/notifications/push/v1/send", {
                            "type": "chat", "message": message, "recipients": {"group": "everyone"}}, app=app)
                        if answer.get("state") != "expanding":
                            raise RuntimeError("the group send was not answered 202 expanding: %s" % answer)
                    accepted = time.time() - started
                    answered += n
                    while True:
                        api.conn.request("GET", "/healthz")
                        delivery = json.loads(api.conn.getresponse().read())["delivery"]
                        if delivery.get("delivered", 0) + delivery.get("failed", 0) >= answered:
                            break
                        if time.time() - started > 600:
                            raise RuntimeError("timed out: %s of %d answered" % (delivery, answered))
                        time.sleep(0.01)
                    elapsed = time.time() - started
                    failed = delivery.get("failed", 0)
                    results[mode].append((accepted, n / elapsed))
                    label = "group of %d (1 send)" % n if mode == "group" else "%d uids (%d sends)" % (n, (n + 999) // 1000)
                    print("%-26s %10.3f s %12.0f %10.2f %7d" % (label, accepted, n / elapsed, elapsed, failed), flush=True)
            finally:
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(10)
                except subprocess.TimeoutExpired:
                    server.kill()
    finally:
        mock.send_signal(signal.SIGTERM)
        mock.wait(10)
    if args.runs > 1:
        print("\nmedian of %d runs:" % args.runs)
        for mode in ("uids", "group"):
            print("%-6s accepted in %.3f s, %.0f pushes/s" % (
                mode, statistics.median(r[0] for r in results[mode]), statistics.median(r[1] for r in results[mode])))


def cluster_table(args, bin_dir, creds, work):
    """SQLite or PostgreSQL with one or more instances (--scaling: SQLite x1, PostgreSQL x1,
    x2, x3, alternating within each run so slow spells of the machine hit every one): pushes/s
    and CPU seconds per 1,000 pushes of the service processes and of PostgreSQL."""
    postgres = None
    started_cluster = False
    try:
        if args.database:
            postgres = Postgres(args.database)
        elif args.postgres or args.scaling:
            postgres = Postgres.start_cluster()
            started_cluster = True
        if args.scaling:
            configs = [("SQLite", 1), ("PostgreSQL", 1), ("PostgreSQL", 2), ("PostgreSQL", 3)]
        else:
            configs = [("PostgreSQL" if postgres else "SQLite", args.instances)]
        users_per_send = args.users_per_send or 10
        print("N = %d pushes per run, 2 cores, mock: apns-mock-native (HTTP/2 + TLS); %d users (%d pushes) per send, "
              "sends spread over the instances" % (args.n, users_per_send, users_per_send * 100))
        if postgres:
            print("PostgreSQL: %s%s%s" % (masked(postgres.url), " (throwaway durable cluster)" if started_cluster else "",
                                          "" if postgres.postmaster else "; its CPU is not measurable from here"))
        header = "%-8s %-15s %10s %8s %8s %8s %8s %6s %9s %9s %9s" % (
            "latency", "store", "pushes/s", "seconds", "p50 ms", "p99 ms", "RSS MB", "failed", "svc CPU s", "PG CPU s",
            "CPU s/1k")
        print(header)
        summary = []
        for latency in args.latency:
            mock, mock_port = start([os.path.join(bin_dir, "apns-mock-native"), "--cert", creds + "/server.pem", "--key",
                                     creds + "/server.key", "--latency-ms", str(latency)], r"PORT (\d+)")
            results = {config: [] for config in configs}
            try:
                for run in range(args.runs):
                    for config in configs:
                        store, instances = config
                        result = run_service(
                            bin_dir, creds, mock_port, args.n,
                            os.path.join(work, "data-%d-%d-%s-%d" % (latency, run, store, instances)), mock.pid,
                            instances=instances, postgres=postgres if store == "PostgreSQL" else None, pool=args.pool,
                            users_per_send=users_per_send, transport=args.single_transport)
                        results[config].append(result)
                        pg_cpu = result["pg_cpu"]
                        total_cpu = result["cpu"] + (pg_cpu or 0.0)
                        print("%-8s %-15s %10.0f %8.2f %8.1f %8.1f %8.1f %6d %9.2f %9s %9.3f" % (
                            "%d ms" % latency, "%s x%d" % config, result["rate"], result["elapsed"], result["p50"],
                            result["p99"], result["rss"], result["failed"], result["cpu"],
                            "-" if pg_cpu is None else "%.2f" % pg_cpu, total_cpu / max(1, result["delivered"]) * 1000),
                            flush=True)
            finally:
                mock.send_signal(signal.SIGTERM)
                mock.wait(10)
            summary.append((latency, results))
        print("\nmedians of %d run(s); CPU seconds per 1,000 delivered pushes (service: every push-server process, "
              "utime+stime; PostgreSQL: postmaster and backends)" % args.runs)
        print("| latency | store x instances | pushes/s (median) | runs | service CPU s/1k | PostgreSQL CPU s/1k | "
              "total CPU s/1k | p99 (ms, worst instance) | peak RSS per instance |")
        print("|---|---|---|---|---|---|---|---|---|")
        for latency, results in summary:
            medians = {}
            for config in configs:
                runs = results[config]
                rate = statistics.median(r["rate"] for r in runs)
                medians[config] = rate
                svc = statistics.median(r["cpu"] / max(1, r["delivered"]) * 1000 for r in runs)
                pg = [r["pg_cpu"] / max(1, r["delivered"]) * 1000 for r in runs if r["pg_cpu"] is not None]
                pg_text = "%.3f" % statistics.median(pg) if pg else "-"
                total = svc + (statistics.median(pg) if pg else 0.0)
                print("| %d ms | %s x%d | **%.0f** | %s | %.3f | %s | %.3f | %.0f | %.1f MB |" % (
                    latency, config[0], config[1], rate, " · ".join("%.0f" % r["rate"] for r in runs), svc, pg_text,
                    total, statistics.median(r["p99"] for r in runs), max(r["rss"] for r in runs)))
            if args.scaling:
                sqlite, pg1 = medians[("SQLite", 1)], medians[("PostgreSQL", 1)]
                pg2, pg3 = medians[("PostgreSQL", 2)], medians[("PostgreSQL", 3)]
                print("%d ms: PostgreSQL x1 is %.0f %% of SQLite x1 (target: within 30 %%, %s); x2 is %.0f %% of x1 "
                      "(target: not below, %s); x3 is %.0f %% of x1" % (
                          latency, pg1 / sqlite * 100, "met" if pg1 >= 0.7 * sqlite else "NOT met", pg2 / pg1 * 100,
                          "met" if pg2 >= pg1 else "NOT met", pg3 / pg1 * 100))
    finally:
        if started_cluster:
            postgres.stop()


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
