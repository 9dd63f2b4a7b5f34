#!/usr/bin/env python3
"""A TCP proxy in front of a mock APNs that fails connections on demand (fault injection).

usage: fault_proxy.py --target-port N --control FILE [--port 0]

Prints `PORT <n>` once listening. The mode is the first word of --control, re-read on every
connection attempt (and every 50 ms for `refuse`):
  forward  pass bytes both ways to 127.0.0.1:<target-port>
  reset    accept the TCP connection and close it at once: the TLS handshake fails
  stall    accept and connect as forward, but drop every byte both ways, on new connections
           and on those already open (a connection that went dead without a FIN or RST)
  refuse   stop listening: connection attempts are refused. The port stays the proxy's: a
           second socket bound to it (never listening) keeps any other socket from taking
           it meanwhile. Without it, a server of a test running alongside could be given the
           free port by bind(0): the proxy then died on EADDRINUSE when asked to listen
           again, or the client reached that other server
Every accepted connection is counted: `accepted <n>` lines are appended to FILE.log.
"""
import argparse
import asyncio
import socket
import sys


class Proxy:
    def __init__(self, args):
        self.args = args
        self.accepted = 0
        self.server = None
        self.holder = None
        self.port = args.port

    def mode(self):
        try:
            with open(self.args.control) as f:
                return (f.read().split() or ["forward"])[0]
        except OSError:
            return "forward"

    def count(self):
        self.accepted += 1
        with open(self.args.control + ".log", "a") as f:
            f.write("accepted %d\n" % self.accepted)

    async def handle(self, reader, writer):
        self.count()
        if self.mode() not in ("forward", "stall"):
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.args.target_port)
        except OSError:
            writer.transport.abort()
            return

        async def pipe(source, sink):
            try:
                while True:
                    data = await source.read(65536)
                    if not data:
                        break
                    if self.mode() == "stall":
                        continue
                    sink.write(data)
                    await sink.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                sink.transport.abort()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def bound(self):
        """A socket bound to the proxy's port (the first one picks it). With SO_REUSEADDR on
        both, a listener may bind the port the holder holds, as long as the holder never listens."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        return sock

    async def listen(self):
        if self.holder is None:
            # Holds the port for the proxy's whole life: while nothing listens, connection
            # attempts are refused, and no other socket can bind it or pick it as a source port.
            self.holder = self.bound()
        sock = self.bound()
        sock.listen(128)
        self.server = await asyncio.start_server(self.handle, sock=sock)

    async def run(self):
        await self.listen()
        print("PORT %d" % self.port, flush=True)
        while True:
            await asyncio.sleep(0.05)
            refusing = self.mode() == "refuse"
            if refusing and self.server is not None:
                self.server.close()
                await self.server.wait_closed()
                self.server = None
            elif not refusing and self.server is None:
                try:
                    await self.listen()
                except OSError as error:
                    # Never die here: the test would only see refused connections. Say why
                    # and try again on the next tick.
                    print("fault_proxy.py: cannot listen again: %s" % error, file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--target-port", type=int, required=True)
    parser.add_argument("--control", required=True)
    args = parser.parse_args()
    try:
        asyncio.run(Proxy(args).run())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
