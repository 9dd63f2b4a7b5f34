#!/usr/bin/env python3
"""Mock APNs and mock FCM for behaviour tests: HTTP/2 over TLS (ALPN h2), Python `h2`.

It stands in for Apple's and Google's servers only, and speaks their protocols:

APNs  POST /3/device/<token>
  - checks `authorization: bearer <JWT>` (ES256, raw r||s) against --apns-key, with the
    expected --key-id / --team-id; a token older than an hour -> 403 ExpiredProviderToken.
  - the one-stream-until-authenticated rule: a new connection advertises
    SETTINGS_MAX_CONCURRENT_STREAMS = 1 and raises it to --max-streams after the first
    request with a valid token succeeded. A client that opens more streams than allowed is
    logged as a violation and the connection is closed with GOAWAY.
  - checks apns-topic (bundle id, `.voip` for voip pushes) and apns-push-type are present.
FCM   POST /token (OAuth jwt-bearer exchange, RS256 assertion checked against --fcm-key)
      POST /v1/projects/<project>/messages:send (bearer must be an issued access token)

Answers per device token come from --script (JSON file, re-read when it changes):
  {"<token>": [{"status": 410, "reason": "Unregistered", "timestamp": 123,
                "retry_after": 2, "delay_ms": 0, "fcm_error": "UNREGISTERED"}, ...]}
Each request for a token consumes the next answer; the last one repeats. Tokens not in the
script get 200. Every request is appended as a JSON line to --log, and every PING a client
sends as {"kind": "ping"}.
Faults (an answer with "fault", for fault-injection tests; logged like any request):
  "close"          drop the TCP connection without answering (mid-stream)
  "reset"          the same with a TCP reset (RST, not FIN): the client's next read fails
  "goaway"         GOAWAY (NO_ERROR, no debug data) naming the stream before this one as the
                   last processed, then close: this and later streams were not processed
  "goaway_reason"  the same with APNs-style debug data {"reason": "Shutdown"}
  "hang"           never answer the stream (the client's per-request deadline must end it)
The chosen port is printed on stdout as `PORT <n>` once listening.
"""
import argparse
import asyncio
import base64
import json
import os
import socket
import ssl
import struct
import sys
import time
import urllib.parse
import uuid

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verify_jwt import verify  # noqa: E402


class Script:
    """Per-token answers, reloaded when the file changes; remembers how far each token got."""

    def __init__(self, path):
        self.path, self.mtime, self.answers, self.used = path, None, {}, {}

    def next(self, token):
        if self.path and os.path.exists(self.path):
            mtime = os.stat(self.path).st_mtime_ns
            if mtime != self.mtime:
                with open(self.path) as f:
                    self.answers, self.mtime, self.used = json.load(f), mtime, {}
        answers = self.answers.get(token)
        if not answers:
            return {"status": 200}
        index = self.used.get(token, 0)
        self.used[token] = index + 1
        return answers[min(index, len(answers) - 1)]


class Server:
    def __init__(self, args):
        self.args = args
        self.script = Script(args.script)
        self.log = open(args.log, "a", buffering=1) if args.log else None
        with open(args.apns_key, "rb") as f:
            self.apns_key = f.read()
        self.fcm_key = open(args.fcm_key, "rb").read() if args.fcm_key else None
        self.access_tokens = set()

    def record(self, entry):
        entry["t"] = time.time()
        if self.log:
            self.log.write(json.dumps(entry, sort_keys=True) + "\n")

    # APNs ------------------------------------------------------------------------------
    def apns_answer(self, headers, path, body):
        token = path[len("/3/device/"):]
        auth = headers.get("authorization", "")
        entry = {"kind": "apns", "token": token, "jwt": auth[len("bearer "):],
                 "topic": headers.get("apns-topic"), "push_type": headers.get("apns-push-type"),
                 "priority": headers.get("apns-priority"), "expiration": headers.get("apns-expiration"),
                 "collapse_id": headers.get("apns-collapse-id"), "apns_id": headers.get("apns-id"),
                 "body": body.decode("utf-8", "replace")}
        answer = None
        try:
            header, claims = verify(self.apns_key, auth[len("bearer "):])
            if header.get("kid") != self.args.key_id or claims.get("iss") != self.args.team_id:
                answer = {"status": 403, "reason": "InvalidProviderToken"}
            elif not isinstance(claims.get("iat"), int) or claims["iat"] < time.time() - 3600:
                answer = {"status": 403, "reason": "ExpiredProviderToken"}
        except Exception:  # noqa: BLE001 - any bad token is an auth failure
            answer = {"status": 403, "reason": "InvalidProviderToken" if auth else "MissingProviderToken"}
        if answer is None and not entry["topic"]:
            answer = {"status": 400, "reason": "MissingTopic"}
        if answer is None and entry["push_type"] == "voip" and not entry["topic"].endswith(".voip"):
            answer = {"status": 400, "reason": "DeviceTokenNotForTopic"}
        if answer is None:
            answer = self.script.next(token)
        entry["status"] = answer.get("status", 0)
        entry["reason"] = answer.get("reason")
        if answer.get("fault"):
            entry["fault"] = answer["fault"]
            self.record(entry)
            return answer["fault"], None, 0, False
        self.record(entry)
        out = [(":status", str(answer["status"])), ("apns-id", entry["apns_id"] or str(uuid.uuid4()))]
        if answer.get("retry_after") is not None:
            out.append(("retry-after", str(answer["retry_after"])))
        payload = b""
        if answer["status"] != 200:
            error = {"reason": answer.get("reason", "InternalServerError")}
            if answer.get("timestamp") is not None:
                error["timestamp"] = answer["timestamp"]
            payload = json.dumps(error).encode()
            out += [("content-type", "application/json"), ("content-length", str(len(payload)))]
        authenticated = answer["status"] != 403
        return out, payload, answer.get("delay_ms", self.args.latency_ms), authenticated

    # FCM -------------------------------------------------------------------------------
    def fcm_token(self, body):
        form = urllib.parse.parse_qs(body.decode())
        entry = {"kind": "oauth", "grant_type": form.get("grant_type", [""])[0]}
        status, result = 400, {"error": "invalid_grant"}
        try:
            header, claims = verify(self.fcm_key, form.get("assertion", [""])[0])
            ok = (entry["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
                  and claims.get("scope") == "https://www.googleapis.com/auth/firebase.messaging"
                  and claims.get("aud", "").endswith("/token")
                  and 0 < claims.get("exp", 0) - claims.get("iat", 0) <= 3600)
            entry["claims"] = claims
            if ok:
                access = "mock-access-" + uuid.uuid4().hex
                self.access_tokens.add(access)
                status, result = 200, {"access_token": access, "expires_in": 3599, "token_type": "Bearer"}
        except Exception as e:  # noqa: BLE001
            entry["error"] = str(e)
        entry["status"] = status
        self.record(entry)
        return status, result, []

    def fcm_send(self, headers, path, body):
        auth = headers.get("authorization", "")
        entry = {"kind": "fcm", "path": path}
        if auth[len("Bearer "):] not in self.access_tokens:
            entry["status"] = 401
            self.record(entry)
            return 401, fcm_error(401, "UNAUTHENTICATED", None), []
        message = json.loads(body).get("message", {})
        entry["token"] = message.get("token")
        entry["message"] = message
        answer = self.script.next(message.get("token"))
        entry["status"] = answer["status"]
        self.record(entry)
        extra = [("retry-after", str(answer["retry_after"]))] if answer.get("retry_after") is not None else []
        if answer["status"] == 200:
            project = path.split("/")[3]
            return 200, {"name": "projects/%s/messages/%s" % (project, uuid.uuid4().hex)}, extra
        return answer["status"], fcm_error(answer["status"], answer.get("status_text"), answer.get("fcm_error")), extra


def fcm_error(code, status, fcm_code):
    statuses = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND",
                429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
    error = {"code": code, "message": "mock error", "status": status or statuses.get(code, "UNKNOWN")}
    if fcm_code:
        error["details"] = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                             "errorCode": fcm_code}]
    return {"error": error}


class Connection(asyncio.Protocol):
    def __init__(self, server):
        self.server = server
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(
            client_side=False, header_encoding="utf-8"))
        self.streams = {}
        self.authenticated = False
        self.transport = None
        # After a GOAWAY, the last stream it says was processed: later streams are not (like APNs,
        # the mock neither answers nor records them, so the client's resend is its only send).
        self.goaway_last = None

    def connection_made(self, transport):
        self.transport = transport
        self.conn.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1})
        self.conn.initiate_connection()
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and self.transport and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.TooManyStreamsError:
            self.server.record({"kind": "violation", "reason": "too many concurrent streams"})
            self.conn.close_connection(error_code=h2.errors.ErrorCodes.PROTOCOL_ERROR)
            self.flush()
            self.transport.close()
            return
        except h2.exceptions.ProtocolError as e:
            self.server.record({"kind": "violation", "reason": str(e)})
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = (dict(event.headers), bytearray())
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id][1].extend(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                if event.stream_id in self.streams:
                    headers, body = self.streams.pop(event.stream_id)
                    self.handle(event.stream_id, headers, bytes(body))
            elif isinstance(event, h2.events.StreamReset):
                self.streams.pop(event.stream_id, None)
            elif isinstance(event, h2.events.PingReceived):
                # h2 answers it; logged so that tests see a client's keep-alive.
                self.server.record({"kind": "ping"})
        self.flush()

    def handle(self, stream_id, headers, body):
        if self.goaway_last is not None and stream_id > self.goaway_last:
            return
        path = headers.get(":path", "")
        if path.startswith("/3/device/"):
            out, payload, delay, authenticated = self.server.apns_answer(headers, path, body)
            if isinstance(out, str):
                self.fault(out, stream_id)
                return
            if authenticated and not self.authenticated:
                self.authenticated = True
                self.conn.update_settings({
                    h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.server.args.max_streams})
        elif path == "/token":
            status, result, extra = self.server.fcm_token(body)
            payload, delay = json.dumps(result).encode(), 0
            out = [(":status", str(status)), ("content-type", "application/json")] + extra
        elif path.startswith("/v1/projects/") and path.endswith("/messages:send"):
            status, result, extra = self.server.fcm_send(headers, path, body)
            payload, delay = json.dumps(result).encode(), self.server.args.latency_ms
            out = [(":status", str(status)), ("content-type", "application/json")] + extra
        else:
            out, payload, delay = [(":status", "404")], b"", 0
        if delay:
            asyncio.get_running_loop().call_later(delay / 1000, self.respond, stream_id, out, payload)
        else:
            self.respond(stream_id, out, payload)

    def fault(self, kind, stream_id):
        if kind == "hang":
            return
        if kind in ("goaway", "goaway_reason"):
            self.goaway_last = max(stream_id - 2, 0)
            data = json.dumps({"reason": "Shutdown"}).encode() if kind == "goaway_reason" else None
            self.conn.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, additional_data=data,
                                       last_stream_id=max(stream_id - 2, 0))
            self.flush()
            asyncio.get_running_loop().call_later(0.05, self.close)
            return
        if kind == "reset":
            # Linger on with a zero timeout: close() sends RST instead of FIN.
            sock = self.transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.transport.abort()

    def close(self):
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def respond(self, stream_id, headers, payload):
        if self.transport is None or self.transport.is_closing():
            return
        try:
            self.conn.send_headers(stream_id, headers, end_stream=not payload)
            if payload:
                self.conn.send_data(stream_id, payload, end_stream=True)
        except (h2.exceptions.StreamClosedError, h2.exceptions.StreamIDTooLowError):
            # The client reset the stream (its deadline passed) before a delayed answer.
            return
        self.flush()

    def connection_lost(self, exc):
        self.transport = None


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--apns-key", required=True, help="APNs public key (PEM)")
    parser.add_argument("--fcm-key", help="FCM service account public key (PEM)")
    parser.add_argument("--key-id", default="TESTKEY123")
    parser.add_argument("--team-id", default="TESTTEAM12")
    parser.add_argument("--max-streams", type=int, default=1000)
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--script")
    parser.add_argument("--log")
    args = parser.parse_args()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(args.cert, args.key)
    context.set_alpn_protocols(["h2"])
    server = Server(args)
    loop = asyncio.get_running_loop()
    listener = await loop.create_server(lambda: Connection(server), "127.0.0.1", args.port, ssl=context)
    print("PORT %d" % listener.sockets[0].getsockname()[1], flush=True)
    async with listener:
        await listener.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
