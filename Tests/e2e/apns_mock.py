"""A mock of the Apple Push Notification service: HTTP/2 over TLS on 127.0.0.1, built on the
`h2` package, for the tests of relaydeckd's APNs client.

It checks what APNs checks first (the provider token: an ES256 JWT whose signature verifies
with the test key, with the right `kid` and `iss` and an `iat` under an hour old; the path
`/3/device/<token>`; `apns-topic`; a payload), records every request, and answers `200` with
an `apns-id`, or what a test asked for.

In a test (a thread of its own runs the server):

    mock = APNsMock(max_concurrent_streams=100).start()
    env = {"APNS_PRODUCTION_URL": mock.url, "APNS_SANDBOX_URL": mock.url,
           "APNS_CA_FILE": mock.ca_file, "APNS_TEAM_ID": mock.team_id,
           "APNS_KEY_ID": mock.key_id, "APNS_PRIVATE_KEY": mock.private_key_pem}
    mock.fail_next(410, count=1)               # the next request gets 410 Unregistered
    mock.fail_next(400, "BadDeviceToken", token="ab12...")   # every request for that token
    mock.fail_next("goaway")                   # GOAWAY before the next request is answered
    requests = mock.wait_for(3, timeout=10)    # the first 3 requests (a list of Request)
    mock.stop()

As a program (for tests in other languages): `python apns_mock.py --ready-file F
--events-file E [--max-streams N] [--delay-ms D] [--script 429,200,goaway,...] [--stall-after N]`. It writes
`{"port", "url", "ca_file", "private_key_file", "team_id", "key_id"}` to F (atomically) once
it listens, appends one JSON line per event to E (`connection`, `request`, `ping`, `goaway`,
`stalled`, `closed`), and stops on SIGTERM. The script answers the next requests in order; after it,
`200`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import signal
import ssl
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events
import h2.settings
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from mock_tls import make_certificate

DEFAULT_TEAM_ID = "TEAM123456"
DEFAULT_KEY_ID = "KEY1234567"
# APNs refuses a provider token older than one hour (ExpiredProviderToken).
MAX_TOKEN_AGE = 3600

# The reason APNs gives with each status when a test names none.
DEFAULT_REASONS = {
    400: "BadRequest", 403: "Forbidden", 404: "BadPath", 405: "MethodNotAllowed", 410: "Unregistered",
    413: "PayloadTooLarge", 429: "TooManyRequests", 500: "InternalServerError", 503: "ServiceUnavailable",
}


@dataclass
class Request:
    """One request as the mock received it, and what it answered."""
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    connection: int
    stream_id: int
    device_token: str | None
    jwt_error: str | None = None
    jwt_header: dict | None = None
    jwt_claims: dict | None = None
    status: int = 0
    reason: str | None = None
    # Streams of all connections open when this one ended (this one included).
    open_streams: int = 0

    @property
    def json(self):
        return json.loads(self.body)

    def to_event(self) -> dict:
        return {"event": "request", "method": self.method, "path": self.path, "headers": self.headers,
                "body": self.body.decode("utf-8", "replace"), "connection": self.connection,
                "stream_id": self.stream_id, "device_token": self.device_token, "jwt_error": self.jwt_error,
                "jwt_claims": self.jwt_claims, "status": self.status, "reason": self.reason,
                "open_streams": self.open_streams}


@dataclass
class _Rule:
    answer: int | str  # a status, or "goaway"
    reason: str | None
    count: int | None  # None: for ever
    token: str | None


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def verify_provider_token(token: str, public_key: ec.EllipticCurvePublicKey, key_id: str, team_id: str,
                          now: float | None = None) -> tuple[str | None, dict | None, dict | None]:
    """(error reason or None, header, claims) of an APNs provider token, as APNs judges it."""
    now = time.time() if now is None else now
    parts = token.split(".")
    if len(parts) != 3 or any("=" in part for part in parts):
        return "InvalidProviderToken", None, None
    try:
        header = json.loads(_b64url_decode(parts[0]))
        claims = json.loads(_b64url_decode(parts[1]))
        signature = _b64url_decode(parts[2])
    except ValueError:
        return "InvalidProviderToken", None, None
    if header.get("alg") != "ES256" or header.get("kid") != key_id or claims.get("iss") != team_id:
        return "InvalidProviderToken", header, claims
    iat = claims.get("iat")
    if not isinstance(iat, int) or isinstance(iat, bool):
        return "InvalidProviderToken", header, claims
    # The signature is the raw r || s of JWS (RFC 7518 3.4), 32 bytes each, not DER.
    if len(signature) != 64:
        return "InvalidProviderToken", header, claims
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public_key.verify(der, f"{parts[0]}.{parts[1]}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "InvalidProviderToken", header, claims
    if now - iat > MAX_TOKEN_AGE:
        return "ExpiredProviderToken", header, claims
    if iat > now + 60:
        return "InvalidProviderToken", header, claims
    return None, header, claims


class APNsMock:
    """The mock server. `start()` returns it listening; every public method is thread-safe."""

    def __init__(self, *, max_concurrent_streams: int = 1000, delay: float = 0.0, team_id: str = DEFAULT_TEAM_ID,
                 key_id: str = DEFAULT_KEY_ID, private_key_pem: str | None = None, directory: str | None = None,
                 events_file: str | None = None, stall_after: int | None = None):
        self.team_id = team_id
        self.key_id = key_id
        self.max_concurrent_streams = max_concurrent_streams
        # Seconds before each answer, so that streams stay open side by side.
        self.delay = delay
        # Once this many requests were received, stop reading every connection (but keep it
        # open): a server that hangs, for PING and request timeouts.
        self.stall_after = stall_after
        if private_key_pem is None:
            key = ec.generate_private_key(ec.SECP256R1())
            private_key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                serialization.NoEncryption()).decode()
        # The provider key (the .p8) the client signs with; the mock keeps its public half.
        self.private_key_pem = private_key_pem
        self._public_key = serialization.load_pem_private_key(private_key_pem.encode(), None).public_key()
        self._own_directory = None if directory else tempfile.TemporaryDirectory(prefix="apns-mock-")
        self.directory = directory or self._own_directory.name
        self.ca_file, self._key_file = make_certificate(self.directory, "apns-mock")
        self.private_key_file = os.path.join(self.directory, "AuthKey_test.p8")
        with open(self.private_key_file, "w") as out:
            out.write(private_key_pem)
        self._events_file = events_file
        self._lock = threading.Condition()
        self._rules: list[_Rule] = []
        self.requests: list[Request] = []
        self.connections = 0
        self.pings = 0
        self.goaways = 0
        self.peak_concurrent_streams = 0
        self._open_streams = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- control ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def fail_next(self, answer: int | str, reason: str | None = None, *, count: int | None = 1,
                  token: str | None = None) -> None:
        """The next `count` requests (for `token` only, when given; `count=None` for ever) get
        `answer`: a status (with `reason`, or APNs' usual one), or "goaway" (GOAWAY that leaves
        the request unprocessed, then the connection closes)."""
        with self._lock:
            self._rules.append(_Rule(answer, reason, count, token))

    def clear_failures(self) -> None:
        with self._lock:
            self._rules.clear()

    def wait_for(self, n: int, timeout: float = 10.0) -> list[Request]:
        """The first `n` requests, waiting for them at most `timeout` seconds (AssertionError)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self.requests) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the APNs mock got {len(self.requests)} requests, not {n}, in {timeout}s")
                self._lock.wait(left)
            return list(self.requests[:n])

    def wait_until(self, predicate, timeout: float = 10.0) -> None:
        """Waits until `predicate(mock)` is true (checked on each event)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("the APNs mock did not reach the expected state in time")
                self._lock.wait(min(left, 0.1))

    # -- life -------------------------------------------------------------------------

    def start(self) -> "APNsMock":
        ready = threading.Event()
        failure: list[BaseException] = []

        def run():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            try:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.minimum_version = ssl.TLSVersion.TLSv1_2
                context.load_cert_chain(self.ca_file, self._key_file)
                context.set_alpn_protocols(["h2"])
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context))
                self.port = self._server.sockets[0].getsockname()[1]
            except BaseException as error:  # reported to start()
                failure.append(error)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            # Stopped: close the listener and end the connections still being served.
            self._server.close()
            tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
            for task in tasks:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

        self._thread = threading.Thread(target=run, name="apns-mock", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._loop and self._thread:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
        if self._own_directory:
            self._own_directory.cleanup()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- serving ----------------------------------------------------------------------

    def _event(self, record: dict) -> None:
        if self._events_file:
            with open(self._events_file, "a") as out:
                out.write(json.dumps(record) + "\n")

    def _notify(self) -> None:
        with self._lock:
            self._lock.notify_all()

    def _take_rule(self, token: str | None) -> _Rule | None:
        with self._lock:
            for rule in self._rules:
                if rule.token is not None and rule.token != token:
                    continue
                if rule.count is not None:
                    rule.count -= 1
                    if rule.count <= 0:
                        self._rules.remove(rule)
                return rule
        return None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._lock:
            self.connections += 1
            number = self.connections
            self._lock.notify_all()
        self._event({"event": "connection", "connection": number})
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        conn = h2.connection.H2Connection(config=config)
        conn.local_settings = h2.settings.Settings(client=False, initial_values={
            h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.max_concurrent_streams,
            h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: 8000,
        })
        conn.initiate_connection()
        writer.write(conn.data_to_send())
        streams: dict[int, dict] = {}
        state = {"closing": False, "open": 0}

        def flush():
            data = conn.data_to_send()
            if data and not writer.is_closing():
                writer.write(data)

        def answer(stream_id: int, status: int, reason: str | None):
            with self._lock:
                self._open_streams -= 1
            state["open"] -= 1
            if state["closing"] or writer.is_closing():
                return
            headers = [(":status", str(status)), ("apns-id", str(uuid.uuid4()).upper())]
            if status == 200:
                conn.send_headers(stream_id, headers, end_stream=True)
            else:
                body = {"reason": reason or DEFAULT_REASONS.get(status, "BadRequest")}
                if status == 410:
                    body["timestamp"] = int(time.time() * 1000)
                data = json.dumps(body).encode()
                conn.send_headers(stream_id, headers + [("content-type", "application/json"),
                                                        ("content-length", str(len(data)))])
                conn.send_data(stream_id, data, end_stream=True)
            flush()

        def finish(stream_id: int):
            stream = streams.pop(stream_id)
            headers = stream["headers"]
            path = headers.get(":path", "")
            token = path[len("/3/device/"):] if path.startswith("/3/device/") else None
            authorization = headers.get("authorization", "")
            jwt_error, jwt_header, claims = ("MissingProviderToken", None, None)
            if authorization.startswith("bearer "):
                jwt_error, jwt_header, claims = verify_provider_token(
                    authorization[len("bearer "):], self._public_key, self.key_id, self.team_id)
            request = Request(method=headers.get(":method", ""), path=path,
                              headers={k: v for k, v in headers.items() if not k.startswith(":")},
                              body=bytes(stream["body"]), connection=number, stream_id=stream_id,
                              device_token=token, jwt_error=jwt_error, jwt_header=jwt_header, jwt_claims=claims,
                              open_streams=self._open_streams)
            rule = self._take_rule(token)
            if rule is not None and rule.answer == "goaway":
                # The request is left unprocessed: last-stream-id below it, so the client
                # must send it again on a new connection.
                request.status, request.reason = 0, "goaway"
                self._record(request)
                with self._lock:
                    self.goaways += 1
                    self._open_streams -= 1
                state["closing"] = True
                conn.close_connection(error_code=0, last_stream_id=max(0, stream_id - 2))
                flush()
                self._event({"event": "goaway", "connection": number, "last_stream_id": max(0, stream_id - 2)})
                asyncio.get_running_loop().call_later(0.05, writer.close)
                self._notify()
                return
            status, reason = 200, None
            if request.method != "POST":
                status, reason = 405, "MethodNotAllowed"
            elif token is None or not token:
                status, reason = 404, "BadPath"
            elif jwt_error:
                status, reason = 403, jwt_error
            elif not request.headers.get("apns-topic"):
                status, reason = 400, "MissingTopic"
            elif not request.body:
                status, reason = 400, "PayloadEmpty"
            elif rule is not None:
                status, reason = int(rule.answer), rule.reason or DEFAULT_REASONS.get(int(rule.answer))
            request.status, request.reason = status, (reason if status != 200 else None)
            self._record(request)
            if self.delay > 0:
                asyncio.get_running_loop().call_later(self.delay, answer, stream_id, status, reason)
            else:
                answer(stream_id, status, reason)

        try:
            while True:
                if self.stall_after is not None and len(self.requests) >= self.stall_after:
                    self._event({"event": "stalled", "connection": number})
                    await asyncio.Event().wait()
                data = await reader.read(65536)
                if not data:
                    break
                try:
                    events = conn.receive_data(data)
                except h2.exceptions.ProtocolError as error:
                    self._event({"event": "protocol_error", "connection": number, "error": str(error)})
                    with self._lock:
                        self.protocol_errors = getattr(self, "protocol_errors", 0) + 1
                    flush()
                    break
                for event in events:
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = {"headers": dict(event.headers), "body": bytearray()}
                        state["open"] += 1
                        with self._lock:
                            self._open_streams += 1
                            self.peak_concurrent_streams = max(self.peak_concurrent_streams, self._open_streams)
                    elif isinstance(event, h2.events.DataReceived):
                        if event.stream_id in streams:
                            streams[event.stream_id]["body"] += event.data
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        if event.stream_id in streams:
                            finish(event.stream_id)
                    elif isinstance(event, h2.events.StreamReset):
                        if streams.pop(event.stream_id, None) is not None:
                            state["open"] -= 1
                            with self._lock:
                                self._open_streams -= 1
                    elif isinstance(event, h2.events.PingReceived):
                        with self._lock:
                            self.pings += 1
                            self._lock.notify_all()
                        self._event({"event": "ping", "connection": number})
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        state["closing"] = True
                flush()
                if state["closing"] and not streams:
                    break
        except (ConnectionError, ssl.SSLError, asyncio.CancelledError):
            pass
        finally:
            state["closing"] = True
            with self._lock:
                self._open_streams -= len(streams)
            if not writer.is_closing():
                writer.close()
            self._event({"event": "closed", "connection": number})
            self._notify()

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)
            self._lock.notify_all()
        self._event(request.to_event())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A mock APNs server (HTTP/2, TLS) on 127.0.0.1.")
    parser.add_argument("--ready-file", required=True, help="JSON with port, url, ca_file, ... once listening")
    parser.add_argument("--events-file", required=True, help="one JSON line per connection, request, ping, goaway")
    parser.add_argument("--max-streams", type=int, default=1000, help="SETTINGS_MAX_CONCURRENT_STREAMS")
    parser.add_argument("--delay-ms", type=int, default=0, help="wait this long before each answer")
    parser.add_argument("--script", default="", help="answers of the next requests in order: 429,200,goaway,"
                        "400:BadDeviceToken,403:ExpiredProviderToken,...")
    parser.add_argument("--stall-after", type=int, help="stop reading once this many requests came")
    parser.add_argument("--private-key-file", help="the provider key (.p8) the client signs with; made up if absent")
    parser.add_argument("--team-id", default=DEFAULT_TEAM_ID)
    parser.add_argument("--key-id", default=DEFAULT_KEY_ID)
    args = parser.parse_args(argv)

    key_pem = open(args.private_key_file).read() if args.private_key_file else None
    directory = os.path.dirname(os.path.abspath(args.ready_file))
    mock = APNsMock(max_concurrent_streams=args.max_streams, delay=args.delay_ms / 1000, team_id=args.team_id,
                    key_id=args.key_id, private_key_pem=key_pem, directory=directory,
                    events_file=args.events_file, stall_after=args.stall_after)
    for item in filter(None, args.script.split(",")):
        answer, _, reason = item.partition(":")
        mock.fail_next(answer if answer == "goaway" else int(answer), reason or None)
    mock.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    ready = {"port": mock.port, "url": mock.url, "ca_file": mock.ca_file,
             "private_key_file": mock.private_key_file, "team_id": mock.team_id, "key_id": mock.key_id}
    partial = args.ready_file + ".partial"
    with open(partial, "w") as out:
        json.dump(ready, out)
    os.rename(partial, args.ready_file)
    stop.wait()
    mock.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
