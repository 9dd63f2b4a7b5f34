#!/usr/bin/env python3
"""What the test command did to the machine, so that a regression in load or speed shows.

    Scripts/test-monitor.py sample FILE
        Once a second until it is stopped (SIGTERM) or its parent goes: appends a line
        `<unix time> <1-min load average> <runnable tasks> <PostgreSQL client backends>` to FILE.
        Backends are counted from /proc (processes titled `postgres: <user> <db> <client> ...`),
        so it needs no connection and sees every cluster the tests start.

    Scripts/test-monitor.py report FILE LOG
        Prints the peak PostgreSQL backends, the peak load average and the peak of runnable
        tasks from FILE, and the 20 slowest tests in LOG (the test command's output: Swift
        Testing's `✔ Test name() passed after N seconds.` lines), each with the pass it ran in
        (the step of Scripts/test.sh and the configuration of Server/Scripts/ci.sh).

Standard library only: it runs before the virtual environment exists.
"""

import os
import re
import signal
import sys
import time


def backends():
    """The PostgreSQL client backends on this machine: `postgres: user db host(port) state`."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                title = f.read(200)
        except OSError:
            continue
        # A backend's title has its client after the user and database; the server's own
        # processes (checkpointer, walwriter, autovacuum launcher, ...) have none.
        if title.startswith(b"postgres: ") and (b"(" in title or b"[local]" in title):
            count += 1
    return count


def sample(path):
    parent = os.getppid()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    with open(path, "a", buffering=1) as out:
        while not stop and os.getppid() == parent:
            with open("/proc/loadavg") as f:
                fields = f.read().split()
            load, runnable = fields[0], fields[3].split("/")[0]
            out.write(f"{time.time():.0f} {load} {runnable} {backends()}\n")
            time.sleep(1)


STEP = re.compile(r"^== (.+?) \(at \d+s\) ==$")
PASS = re.compile(r"^ci\.sh: (?:building and )?testing Server/ \((\w+)\)( on PostgreSQL)?|^ci\.sh: the heavy group \((\w+)\)( on PostgreSQL)?")
TEST = re.compile(r"^\S+ Test (?!run with )(.+?) passed after ([0-9.]+) seconds\.$")


def report(samples_path, log_path):
    peaks = {"load": (0.0, 0), "runnable": (0, 0), "backends": (0, 0)}
    count = 0
    start = None
    try:
        with open(samples_path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 4:
                    continue
                at, load, runnable, pg = int(parts[0]), float(parts[1]), int(parts[2]), int(parts[3])
                start = start if start is not None else at
                count += 1
                for key, value in (("load", load), ("runnable", runnable), ("backends", pg)):
                    if value > peaks[key][0]:
                        peaks[key] = (value, at - start)
    except OSError:
        pass
    print(f"test-monitor: {count} samples, one a second")
    print(f"test-monitor: peak PostgreSQL backends {peaks['backends'][0]} (at {peaks['backends'][1]} s)")
    print(f"test-monitor: peak load average {peaks['load'][0]:.2f} (1 min, at {peaks['load'][1]} s)")
    print(f"test-monitor: peak runnable tasks {peaks['runnable'][0]} (at {peaks['runnable'][1]} s)")

    tests = []
    step, config = "", ""
    try:
        with open(log_path, errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\n")
                if m := STEP.match(line):
                    step, config = m.group(1), ""
                elif m := PASS.match(line):
                    if m.group(1):
                        config = m.group(1) + (" PostgreSQL" if m.group(2) else "")
                    else:
                        config = "heavy " + m.group(3) + (" PostgreSQL" if m.group(4) else "")
                elif m := TEST.match(line):
                    where = ", ".join(part for part in (step.split(":")[0], config) if part)
                    tests.append((float(m.group(2)), m.group(1), where))
    except OSError:
        pass
    tests.sort(reverse=True)
    # Swift Testing starts a test's clock before the test gets one of the run's slots
    # (SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH), so in a run of several at once a time
    # includes the wait for a slot; the heavy group runs one at a time and its times are exact.
    print(f"test-monitor: the 20 slowest of {len(tests)} tests (in groups run several at once, a time includes the wait for a slot)")
    for seconds, name, where in tests[:20]:
        print(f"  {seconds:8.1f} s  {name}  [{where}]")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "sample":
        sample(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main()
