#!/usr/bin/env python3
"""Memory per connection of push-server's HTTP server (issue 24), and how much of it one
address can pin.

Starts push-server (release, --sender log, SQLite in a temporary directory), then opens
connections to it in steps and reads the service's resident memory (VmRSS) after each step:
  idle      connections that send nothing (what a flood of idle sockets costs),
  partial   connections that sent a request line and a 1 KiB header, without the blank line
            that ends the headers (what a slow-loris connection pins: its read buffer).
The connections come from 127.0.0.1 ... 127.0.0.k (any 127.x address is loopback on Linux), at
most --per-address from each, so the per-address limit never refuses them; each step also checks
that a /healthz probe from 127.0.0.1 still answers, and prints its time. The increase in RSS per
connection is what --max-connections should be sized against. A script that prints numbers, not
a test.

usage: python3 Server/Benchmarks/connections.py [--steps 2000 5000 10000] [--per-address 200]
                                                 [--binary PATH] [--no-build]
Raises its own open-file limit to the hard limit (the service does the same at start).
"""
import argparse
import http.client
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.dirname(HERE)


def build():
    subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--product", "push-server",
                    "--static-swift-stdlib"], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run(["swift", "build", "-c", "release", "--package-path", SERVER, "--show-bin-path"],
                         check=True, capture_output=True, text=True)
    return os.path.join(out.stdout.strip(), "push-server")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))


def probe(port):
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=("127.0.0.1", 0))
    connection.request("GET", "/healthz")
    status = connection.getresponse().status
    connection.close()
    return status, (time.monotonic() - started) * 1000


def open_connections(port, count, per_address, offset, partial):
    """Opens `count` connections, the first being connection number `offset` of the run."""
    sockets = []
    for index in range(count):
        n = (offset + index) // per_address  # the n-th source address: 127.0.0.2, 127.0.0.3, ...
        address = f"127.0.{n // 250}.{2 + n % 250}"
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((address, 0))
        s.connect(("127.0.0.1", port))
        if partial:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"x" * 1024 + b"\r\n")
        sockets.append(s)
    return sockets


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, nargs="+", default=[2000, 5000, 10000])
    parser.add_argument("--per-address", type=int, default=200)
    parser.add_argument("--binary")
    parser.add_argument("--no-build", action="store_true")
    options = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    binary = options.binary or (os.path.join(SERVER, ".build/release/push-server") if options.no_build else build())
    work = tempfile.mkdtemp(prefix="push-connections-")
    # A request deadline longer than the run: the connections must stay open while memory is read.
    server = subprocess.Popen(
        [binary, "--port", "0", "--data-dir", os.path.join(work, "data"), "--sender", "log", "--request-timeout", "3600",
         "--max-connections", str(max(options.steps) + 1000)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "PUSH_ADMIN_KEY": "bench"})
    try:
        port = None
        for line in server.stdout:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                port = int(match.group(1))
                break
        if port is None:
            sys.exit("push-server did not start")
        time.sleep(1)
        print(f"push-server {binary}, open-file limit {hard}")
        for partial in (False, True):
            kind = "partial (1 KiB of headers)" if partial else "idle"
            base = rss_kib(server.pid)
            held, opened = [], 0
            print(f"\n{kind}: baseline RSS {base / 1024:.1f} MiB")
            print(f"{'connections':>12} {'RSS MiB':>9} {'KiB/conn':>9} {'/healthz ms':>12}")
            for step in options.steps:
                held += open_connections(port, step - opened, options.per_address, opened, partial)
                opened = step
                time.sleep(1)
                rss = rss_kib(server.pid)
                status, ms = probe(port)
                print(f"{step:>12} {rss / 1024:>9.1f} {(rss - base) / step:>9.2f} {ms:>9.1f} ({status})")
            for s in held:
                s.close()
            time.sleep(2)
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
