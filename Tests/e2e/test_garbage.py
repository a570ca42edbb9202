"""Bad input never breaks the server: a seeded stream of mangled requests, each answered with
a status of the contract (or a closed connection), and the server alive and correct after."""

import json
import random
import socket

import pytest

from api import create_account
from http_clients import PythonClient
from raw_http import ConnectionClosed, RawConnection

PATHS = ["/health", "/v1/accounts", "/v1/account", "/v1/keys", "/v1/keys/key_x", "/v1/keys/",
         "/v1//keys", "/v1/keys/key_01arz3ndektsv4rrffq69g5fav", "/%00", "/v1/keys?label=x", "*", "/" + "a" * 300]
METHODS = ["GET", "HEAD", "POST", "PATCH", "PUT", "DELETE", "OPTIONS", "TRACE", "BREW", "get", ""]
BODIES = [b"", b"{}", b"[]", b"null", b'{"label": "x"}', b'{"label": 1e400}', b'{"label": "\\ud800"}',
          b'{"settings": {"live_activities": "yes"}}', b'{"label": "a", "label": "b"}', b"{" * 100,
          b"\xff\xfe{}", b'{"label": "' + "é".encode() * 41 + b'"}', b'"\x00"', b"1" * 5000]
ALLOWED = {200, 201, 204, 400, 401, 403, 404, 405, 408, 409, 413, 414, 422, 429, 431, 501, 503, 505}


def mangle(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(0, 4)):
        if not data:
            break
        i = rng.randrange(len(data))
        choice = rng.randrange(4)
        if choice == 0:
            data[i] = rng.randrange(256)
        elif choice == 1:
            del data[i]
        elif choice == 2:
            data.insert(i, rng.choice(b"\r\n :{}\"\x00\x7f\xff"))
        else:
            data[i:i] = data[i:i + rng.randint(1, 40)]
    return bytes(data)


def parse_answers(connection: RawConnection, received: bytes, head_request: bool, sent: bytes) -> list:
    """The answers in `received`, in order; any byte that is not part of a complete answer
    fails the test, with what was sent and what came back."""
    connection.buffer = received
    answers = []
    while connection.buffer:
        # Only the first answer can be to the HEAD the test chose; later ones answer whatever
        # the mangling made of the rest.
        to_head = head_request and not answers
        try:
            response = connection.read_response(head_request=to_head)
        except (ConnectionClosed, ConnectionResetError, TimeoutError, ValueError, AssertionError) as error:
            pytest.fail(f"an answer that does not parse ({error!r})\nsent: {sent!r}\nreceived: {received!r}")
        if to_head and _is_refusal_body(response, connection.buffer):
            # A request refused as malformed has no method the server trusts, so its refusal
            # carries a body even after HEAD; the close ends the connection's framing.
            response.body, connection.buffer = connection.buffer, b""
        answers.append(response)
    return answers


def _is_refusal_body(response, rest: bytes) -> bool:
    return (response.status >= 400 and response.header("Connection") == "close"
            and response.header("Content-Length") == str(len(rest)))


def test_mangled_requests_never_break_the_server(start_server):
    server = start_server({"RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000", "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000"})
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    rng = random.Random(20261129)
    answered = 0
    for _ in range(400):
        method, path, body = rng.choice(METHODS), rng.choice(PATHS), rng.choice(BODIES)
        headers = [f"Host: 127.0.0.1", f"Content-Length: {len(body)}"]
        if rng.random() < 0.6:
            headers.append(f"Authorization: Bearer {token}")
        if rng.random() < 0.2:
            headers.append("X-API-Key: mck_" + "Z" * rng.randint(0, 60))
        if rng.random() < 0.2:
            headers.append("X-Relaydeck-Host: " + "".join(chr(rng.randrange(0x20, 0x7f)) for _ in range(rng.randint(0, 80))))
        request = f"{method} {path} HTTP/1.1\r\n" + "\r\n".join(headers) + "\r\n\r\n"
        raw = request.encode() + body
        if rng.random() < 0.7:
            raw = mangle(rng, raw)
        with RawConnection(server.port, timeout=10) as connection:
            try:
                connection.send(raw)
                connection.sock.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass
            # Everything until the server closes: nothing at all is a refusal we accept, but
            # every byte that did come must be whole answers.
            received = connection.read_until_eof()
            if not received:
                continue
            for response in parse_answers(connection, received, head_request=method == "HEAD", sent=raw):
                assert response.status in ALLOWED, (raw, response)
                if response.body and response.status >= 400:
                    error = json.loads(response.body)["error"]
                    assert set(error) <= {"code", "message", "fields"}, (raw, response)
            answered += 1
    assert answered > 100
    assert server.process.poll() is None
    assert py.call("GET", "/health").json == {"status": "ok", "store": "ok"}
    # (The stream may well have deleted the first account: a new one works.)
    _, fresh = create_account(py)
    assert py.call("GET", "/v1/account", token=fresh).status == 200
    assert py.call("POST", "/v1/keys", token=fresh, json={"label": "after"}).status == 201
