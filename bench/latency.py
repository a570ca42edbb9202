"""The timed rows of one change each, on one server or across two (`bench/bench.py`'s `fanout`
and `wakeup`, `bench/stores.py`'s the same on SQLite and PostgreSQL): the change is made on
one port and awaited on another, which is the same port on one node."""

import json
import socket
import time

from common import ROUNDS, await_marker, call, log, new_account, open_stream, percentile

# Rounds left out at the start of each run.
WARM_UP = 20


class Fanout:
    """`streams_total` event streams open on `stream_port`, 16 per account (the contract's
    most); each account has a task and a writer connection on `write_port`."""

    def __init__(self, write_port: int, stream_port: int, streams_total: int = 1000):
        self.accounts = []
        for n in range((streams_total + 15) // 16):
            token, [(_, secret)] = new_account(write_port)
            task = call(write_port, "POST", "/v1/tasks", {"title": "fan-out"}, key=secret, expect=201)
            self.accounts.append({"token": token, "secret": secret, "task": task["id"],
                                  "streams": [open_stream(stream_port, token)
                                              for _ in range(min(16, streams_total - n * 16))]})
        self.streams = [s for a in self.accounts for s in a["streams"]]
        await_marker(self.streams, b"event: ready", 30)
        self.writers = [socket.create_connection(("127.0.0.1", write_port)) for _ in self.accounts]
        self.progress = 0

    def run(self, label: str = "") -> tuple[float, float]:
        """One run: ROUNDS PATCHes (after WARM_UP), each timed until all 16 streams of its
        account have its `task.updated`; then a PATCH in every account at once, timed until
        all streams have theirs. Returns (the rounds' p99, the burst), in ms."""
        times = []
        for r in range(ROUNDS + WARM_UP):
            account = self.accounts[r % len(self.accounts)]
            self.progress = self.progress % 99 + 1
            started = time.monotonic()
            self.writers[0].sendall(self._patch(account))
            arrived = await_marker(account["streams"], b"task.updated", 10)
            if r >= WARM_UP:
                times.append((max(arrived.values()) - started) * 1000)
            self._drain(self.writers[0])
        log(f"fan-out{label}: 16 streams of the account, p50 {percentile(times, 50):.2f} ms, "
            f"p99 {percentile(times, 99):.2f} ms")
        self.progress = self.progress % 99 + 1
        started = time.monotonic()
        for account, writer in zip(self.accounts, self.writers):
            writer.sendall(self._patch(account))
        arrived = await_marker(self.streams, b"task.updated", 30)
        burst = (max(arrived.values()) - started) * 1000
        for writer in self.writers:
            self._drain(writer)
        log(f"fan-out{label}: a change in all {len(self.accounts)} accounts, all {len(self.streams)} streams "
            f"in {burst:.2f} ms")
        return percentile(times, 99), burst

    def close(self):
        for sock in self.streams + self.writers:
            sock.close()

    def _patch(self, account) -> bytes:
        body = json.dumps({"progress": self.progress}).encode()
        return (f"PATCH /v1/tasks/{account['task']} HTTP/1.1\r\nHost: b\r\nX-API-Key: {account['secret']}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body

    @staticmethod
    def _drain(sock):
        sock.setblocking(True)
        sock.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
            data += sock.recv(65536)
        assert data.startswith(b"HTTP/1.1 200"), data[:200]


class Wakeup:
    """A parked `GET /v1/inbox?wait=50` on `wait_port`; the account sends the key a message on
    `send_port`. A sender may send 60 messages an hour (`overview.md`), so the rounds take
    turns over accounts (50 each), made for `runs` runs. `parked(port)` returns once the call
    is parked (by default after 3 ms; the server answers nothing until a message comes)."""

    def __init__(self, send_port: int, wait_port: int, runs: int, parked=None):
        self.wait_port = wait_port
        self.parked = parked or (lambda port: time.sleep(0.003))
        needed = (ROUNDS + WARM_UP) * runs
        self.pairs = []
        for _ in range((needed + 49) // 50):
            token, [(key_id, secret)] = new_account(send_port)
            self.pairs.append((token, key_id, secret))
        self.sender = socket.create_connection(("127.0.0.1", send_port))
        self.sender.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sent = 0

    def run(self, label: str = "") -> float:
        """One run: ROUNDS messages (after WARM_UP), each timed from its send until the parked
        answer is in. Returns their p99 in ms."""
        times = []
        for r in range(ROUNDS + WARM_UP):
            token, key_id, secret = self.pairs[self.sent // 50]
            self.sent += 1
            waiting = socket.create_connection(("127.0.0.1", self.wait_port))
            waiting.sendall(f"GET /v1/inbox?wait=50 HTTP/1.1\r\nHost: b\r\nX-API-Key: {secret}\r\n\r\n".encode())
            self.parked(self.wait_port)
            body = json.dumps({"key_id": key_id, "text": f"wake {r}"}).encode()
            message = (f"POST /v1/messages HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
            started = time.monotonic()
            self.sender.sendall(message)
            arrived = await_marker([waiting], b'"unread"', 10)
            if r >= WARM_UP:
                times.append((arrived[waiting] - started) * 1000)
            waiting.close()
            self.sender.settimeout(5)
            data = b""
            while b"}" not in data.split(b"\r\n\r\n", 1)[-1]:
                data += self.sender.recv(65536)
            assert data.startswith(b"HTTP/1.1 201"), data[:300]
        log(f"wake-up{label}: p50 {percentile(times, 50):.3f} ms, p99 {percentile(times, 99):.3f} ms")
        return percentile(times, 99)

    def close(self):
        self.sender.close()
