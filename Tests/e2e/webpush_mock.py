"""A mock Web Push service: HTTPS (HTTP/1.1) on 127.0.0.1 with a certificate of its own, for
the tests of relaydeckd's Web Push sender.

It plays both sides a real push service joins: it makes subscriptions as a browser makes them
(a P-256 key pair and a 16-byte auth secret per subscription, an endpoint under its own URL),
and on each `POST /push/<id>` it checks what a push service checks (the VAPID header of RFC
8292: an ES256 JWT that verifies with its `k=` key, `aud` this service's origin, `exp` no more
than 24 h ahead, `sub` a `mailto:` or `https:` URI; `Content-Encoding: aes128gcm`; `TTL`), then
decrypts the body with the subscription's private key (RFC 8291, as a browser does) and records
the plaintext. It answers `201`, or what the subscription's script says (`410`, `429` with a
`Retry-After`, `500`, ...): a subscription made with script `[429, 201]` answers the first push
429 and every later one 201. A script's `0` holds that answer for 5 seconds, then answers 201
(a service slower than the sender's patience; the request is recorded with status 0 at once);
`-1` never answers (the connection stays open, silent, for 60 s); `-2` trickles a status line,
one byte every 0.3 s, and never ends the head.

As a program: `python webpush_mock.py --ready-file F --events-file E [--subscription ID:STATUS,...]...`.
It writes `{"port", "origin", "ca_file", "subscriptions": {ID: {"endpoint", "p256dh", "auth"}}}`
to F (atomically) once it listens, appends one JSON line per request to E, and stops on SIGTERM.
"""

from __future__ import annotations

import argparse
import base64
import http.server
import json
import os
import signal
import ssl
import tempfile
import threading
import time

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.hmac import HMAC
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from mock_tls import make_certificate


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    extract = HMAC(salt, hashes.SHA256())
    extract.update(ikm)
    prk = extract.finalize()
    expand = HMAC(prk, hashes.SHA256())
    expand.update(info + b"\x01")
    return expand.finalize()[:length]


class Subscription:
    """A browser's subscription: its keys, and what the service answers its pushes."""

    def __init__(self, origin: str, sub_id: str, script: list[int]):
        self.id = sub_id
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        self.auth = os.urandom(16)
        self.endpoint = f"{origin}/push/{sub_id}"
        self.script = list(script)

    def as_json(self) -> dict:
        return {"endpoint": self.endpoint, "p256dh": b64url(self.public), "auth": b64url(self.auth)}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 section 3.4 and RFC 8188, the receiver's side: one record."""
        salt, rs, idlen = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        sender = body[21:21 + idlen]
        sealed = body[21 + idlen:]
        if idlen != 65 or rs < 18 or len(sealed) > rs:
            raise ValueError(f"a header this service cannot read (idlen {idlen}, rs {rs}, {len(sealed)} bytes)")
        shared = self.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender))
        ikm = hkdf(self.auth, shared, b"WebPush: info\x00" + self.public + sender, 32)
        cek = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        record = AESGCM(cek).decrypt(nonce, sealed, None).rstrip(b"\x00")
        if not record.endswith(b"\x02"):
            raise ValueError("the record does not end with the last record's delimiter")
        return record[:-1]


def check_vapid(header: str, origin: str) -> dict:
    """The VAPID header's problems (RFC 8292), and its claims."""
    result: dict = {"problems": []}
    if not header.startswith("vapid "):
        result["problems"].append("not a vapid Authorization")
        return result
    fields = dict(part.strip().split("=", 1) for part in header[len("vapid "):].split(","))
    token, key = fields.get("t", ""), fields.get("k", "")
    parts = token.split(".")
    if len(parts) != 3:
        result["problems"].append("t is not a JWT")
        return result
    header_json, claims = json.loads(unb64url(parts[0])), json.loads(unb64url(parts[1]))
    result["claims"] = claims
    if header_json.get("alg") != "ES256":
        result["problems"].append("alg is not ES256")
    signature = unb64url(parts[2])
    try:
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        public.verify(der, f"{parts[0]}.{parts[1]}".encode(), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError) as error:
        result["problems"].append(f"the signature does not verify with k: {error!r}")
    if claims.get("aud") != origin:
        result["problems"].append(f"aud {claims.get('aud')!r} is not {origin!r}")
    exp = claims.get("exp")
    if not isinstance(exp, int) or exp > time.time() + 24 * 3600 or exp < time.time():
        result["problems"].append(f"exp {exp!r} is not within the next 24 h")
    sub = claims.get("sub", "")
    if not (isinstance(sub, str) and (sub.startswith("mailto:") or sub.startswith("https:"))):
        result["problems"].append(f"sub {sub!r} is not mailto: or https:")
    result["k"] = key
    return result


class WebPushMock:
    def __init__(self, directory: str, events_file: str):
        self.directory = directory
        self.events_file = events_file
        self.lock = threading.Lock()
        self.subscriptions: dict[str, Subscription] = {}
        # Requests being handled now, and the most there ever were at once.
        self.in_flight = 0
        self.max_in_flight = 0
        cert_file, key_file = make_certificate(directory, "webpush-mock")
        self.ca_file = cert_file
        mock = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # no access log on stderr
                pass

            def do_POST(self):
                mock.handle(self)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.origin = f"https://127.0.0.1:{self.port}"

    def subscribe(self, sub_id: str, script: list[int] | None = None) -> Subscription:
        with self.lock:
            made = Subscription(self.origin, sub_id, script or [])
            self.subscriptions[sub_id] = made
            return made

    def record(self, event: dict) -> None:
        with self.lock, open(self.events_file, "a") as out:
            out.write(json.dumps(event) + "\n")

    def handle(self, request: http.server.BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self.handle_push(request)
        finally:
            with self.lock:
                self.in_flight -= 1

    def handle_push(self, request: http.server.BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length", "0"))
        body = request.rfile.read(length)
        sub_id = request.path.removeprefix("/push/")
        event = {"event": "push", "path": request.path, "ttl": request.headers.get("TTL"),
                 "urgency": request.headers.get("Urgency"), "topic": request.headers.get("Topic"),
                 "content_encoding": request.headers.get("Content-Encoding"),
                 "content_type": request.headers.get("Content-Type"), "length": len(body)}
        vapid = check_vapid(request.headers.get("Authorization", ""), self.origin)
        event["vapid"] = vapid
        with self.lock:
            subscription = self.subscriptions.get(sub_id)
            status = subscription.script.pop(0) if subscription and subscription.script else 201
        if subscription is None:
            status = 404
        elif vapid["problems"]:
            status = 403
        else:
            try:
                event["plaintext"] = subscription.decrypt(body).decode()
            except (InvalidTag, ValueError) as error:
                event["decrypt_error"] = repr(error)
                status = 400
        event["status"] = status
        event["at"] = time.time()
        self.record(event)
        try:
            if status == -1:
                time.sleep(60)
                return
            if status == -2:
                for byte in b"HTTP/1.1 201 Created\r\nX-Slow: " + b"x" * 200:
                    request.wfile.write(bytes([byte]))
                    request.wfile.flush()
                    time.sleep(0.3)
                return
            if status == 0:
                time.sleep(5)
                status = 201
            self.answer(request, status)
        except OSError:
            pass  # the sender gave up and closed the connection

    def answer(self, request: http.server.BaseHTTPRequestHandler, status: int) -> None:
        request.send_response(status)
        if status == 429 or status >= 500:
            request.send_header("Retry-After", "1")
        if status == 201:
            request.send_header("Location", f"{self.origin}/message/{time.time_ns()}")
        request.send_header("Content-Length", "0")
        request.end_headers()

    def start(self) -> "WebPushMock":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready-file", required=True)
    parser.add_argument("--events-file", required=True)
    parser.add_argument("--subscription", action="append", default=[],
                        help="ID or ID:STATUS,STATUS,... (the answers to its first pushes)")
    options = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="webpush-mock-")
    mock = WebPushMock(directory, options.events_file)
    made = {}
    for spec in options.subscription:
        sub_id, _, script = spec.partition(":")
        made[sub_id] = mock.subscribe(sub_id, [int(s) for s in script.split(",") if s]).as_json()
    mock.start()
    ready = {"port": mock.port, "origin": mock.origin, "ca_file": mock.ca_file, "subscriptions": made}
    partial = options.ready_file + ".part"
    with open(partial, "w") as out:
        json.dump(ready, out)
    os.replace(partial, options.ready_file)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    mock.stop()


if __name__ == "__main__":
    main()
