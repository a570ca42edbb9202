"""Soak: a steady mixed load for SOAK_SECONDS (short form 60 s, long form 600 s): agents
create, update and close tasks, ask questions that the app answers, send each other messages
and park on their inbox; apps hold event streams open and read every event. The server's
resident memory and open descriptors are sampled every few seconds: no error answer, no
growth beyond a bound after the warm-up, no descriptor leak, every stream alive to the end."""

import json
import os
import socket
import threading
import time

from conftest import RELAXED_LIMITS, scaled
from server_process import wait_until
from torture_support import KeepAlive, new_account, open_fds, rss_kb

AGENTS = 6
STREAMS = 8
SAMPLE_EVERY = 3.0


class Load:
    def __init__(self, port, seconds):
        self.port, self.seconds = port, seconds
        self.stop = threading.Event()
        self.errors: list = []
        self.requests = 0
        self.lock = threading.Lock()

    def count(self, n=1):
        with self.lock:
            self.requests += n

    def check(self, what, status, body, allowed):
        if status not in allowed:
            self.errors.append((what, status, body[:300]))
            self.stop.set()


def agent(load: Load, token: str, key_id: str, secret: str, peers: list[str], n: int):
    client = KeepAlive(load.port, timeout=30)
    app = KeepAlive(load.port, timeout=30)
    message_every = max(2.0, load.seconds / 50)  # 60 messages an hour per sender
    last_message = 0.0
    i = 0
    try:
        while not load.stop.is_set():
            i += 1
            s, _, b = client.call("POST", "/v1/tasks", {"title": f"agent {n} task {i}", "description": "x" * (i % 500)},
                                  key=secret)
            load.check("create", s, b, {201})
            if s != 201:
                return
            task_id = json.loads(b)["id"]
            for fields in ({"status": "in_progress", "progress": 10}, {"progress": 70, "status_note": "almost"},
                           {"status": "done", "progress": 100}):
                s, _, b = client.call("PATCH", f"/v1/tasks/{task_id}", fields, key=secret)
                load.check("patch", s, b, {200})
            s, _, b = client.call("GET", f"/v1/tasks/{task_id}", key=secret)
            load.check("get", s, b, {200})
            if i % 5 == 0:
                s, _, b = client.call("POST", "/v1/questions", {"prompt": f"go on {i}?", "task_id": task_id}, key=secret)
                load.check("ask", s, b, {201})
                question = json.loads(b)["id"]
                s, _, b = app.call("POST", f"/v1/questions/{question}/answer", {"answer": "Yes"}, token=token)
                load.check("answer", s, b, {200})
                s, _, b = client.call("GET", f"/v1/questions/{question}?wait=5", key=secret)
                load.check("get answer", s, b, {200})
                if s == 200 and json.loads(b)["status"] != "answered":
                    load.check("answer status", 0, b, {200})
            if time.monotonic() - last_message >= message_every:
                last_message = time.monotonic()
                s, _, b = client.call("POST", "/v1/messages", {"to": peers[i % len(peers)], "text": f"hello {i}"},
                                      key=secret)
                load.check("message", s, b, {201})
                s, _, b = client.call("GET", "/v1/inbox?wait=1", key=secret)
                load.check("inbox", s, b, {200})
            if i % 20 == 0:
                s, _, b = app.call("GET", "/v1/tasks?limit=50", token=token)
                load.check("list", s, b, {200})
            load.count(6)
    except Exception as error:  # a broken connection is an error of the soak
        load.errors.append(("agent", repr(error)))
        load.stop.set()
    finally:
        client.close()
        app.close()


def stream(load: Load, token: str, seen: list):
    sock = socket.create_connection(("127.0.0.1", load.port), timeout=10)
    sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    events = 0
    sock.settimeout(1)
    try:
        while not load.stop.is_set():
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                load.errors.append(("stream closed", events))
                load.stop.set()
                return
            events += chunk.count(b"\nevent: ") + chunk.startswith(b"event: ")
    finally:
        seen.append(events)
        sock.close()


def test_a_steady_mixed_load_leaves_memory_and_descriptors_bounded(start_server):
    seconds = int(os.environ.get("SOAK_SECONDS", scaled(60, 600)))
    server = start_server({**RELAXED_LIMITS, "LOG_LEVEL": "info"})
    setup = KeepAlive(server.port)
    accounts = [new_account(setup, AGENTS // 2) for _ in range(2)]
    setup.close()
    baseline_fds = open_fds(server.pid)

    load = Load(server.port, seconds)
    seen: list = []
    threads = []
    for a, (token, keys) in enumerate(accounts):
        for _ in range(STREAMS // 2):
            threads.append(threading.Thread(target=stream, args=(load, token, seen), daemon=True))
        for n, (key_id, secret) in enumerate(keys):
            peers = [other for other, _ in keys if other != key_id]  # another key of the account
            threads.append(threading.Thread(target=agent, args=(load, token, key_id, secret, peers, a * 10 + n),
                                            daemon=True))
    for thread in threads:
        thread.start()

    samples = []  # (seconds since start, RSS kB, descriptors)
    started = time.monotonic()
    while time.monotonic() - started < seconds and not load.stop.is_set():
        time.sleep(SAMPLE_EVERY)
        samples.append((round(time.monotonic() - started), rss_kb(server.pid), open_fds(server.pid)))
    load.stop.set()
    for thread in threads:
        thread.join(timeout=60)
    print(f"\nsoak: {load.requests} requests in {seconds} s, events per stream {seen}")
    print("soak samples (s, RSS kB, fds):", samples)

    assert not load.errors, load.errors[:10]
    assert server.process.poll() is None
    assert len(seen) == STREAMS and min(seen) > 0, seen
    # After the warm-up (the first quarter), memory stays within a bound: SQLite's page cache
    # and the buffers are allocated by then, so growth beyond a few MB would be a leak.
    warm = [rss for t, rss, _ in samples if t >= seconds / 4]
    assert max(warm) - warm[0] < 8 * 1024, samples
    assert max(rss for _, rss, _ in samples) < 64 * 1024, samples
    # The same clients all along: the descriptor count does not creep.
    fds = [n for t, _, n in samples if t >= seconds / 4]
    assert max(fds) - min(fds) <= 4, samples
    wait_until(lambda: open_fds(server.pid) <= baseline_fds, timeout=20, message="descriptors back to the baseline")
