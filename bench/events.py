#!/usr/bin/env python3
"""Fan-out of the event stream (issue 8): how long one change takes to reach the streams of
its account while 0, 1, 100 and 1,000 streams are open, as a ratio against the same change
with no stream open (the reference, measured in the same run), and the resident memory one
open stream costs. Loopback only; the server is stopped at the end.

    python3 bench/events.py [path/to/relaydeckd]

A change reaches only its own account's streams, at most 16 (events.md): N streams are
spread over ceil(N / 16) accounts, and the measured account holds min(N, 16) of them.
"""

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

BINARY = sys.argv[1] if len(sys.argv) > 1 else ".build/release/relaydeckd"
ROUNDS = int(os.environ.get("BENCH_EVENT_ROUNDS", "200"))


def call(port, method, path, token=None, body=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read() or b"null")


def open_stream(port, token):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    data = b""
    while b"event: ready" not in data:
        data += sock.recv(4096)
    sock.setblocking(False)
    return sock


def drain(sock):
    try:
        while sock.recv(65536):
            pass
    except BlockingIOError:
        pass


def wait_for(sock, marker: bytes, deadline: float) -> bool:
    sock.setblocking(True)
    sock.settimeout(max(0.001, deadline - time.monotonic()))
    data = b""
    try:
        while marker not in data:
            data += sock.recv(65536)
        return True
    finally:
        sock.setblocking(False)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def measure(port, token, secret, task_id, watched):
    """Median seconds from sending a PATCH to the last watched stream having the event."""
    times = []
    for index in range(ROUNDS):
        for sock in watched:
            drain(sock)
        started = time.perf_counter()
        call(port, "PATCH", f"/v1/tasks/{task_id}", secret, {"progress": index % 101})
        deadline = time.monotonic() + 5
        for sock in watched:
            wait_for(sock, b"task.updated", deadline)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main():
    workdir = tempfile.mkdtemp(prefix="relaydeck-bench-events-")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, LISTEN=f"127.0.0.1:{port}", DATABASE_PATH=f"{workdir}/bench.db", LOG_LEVEL="warn",
               RATE_LIMIT_REQUESTS_PER_MINUTE="1000000", RATE_LIMIT_ACCOUNTS_PER_HOUR="1000000")
    server = subprocess.Popen([BINARY], env=env, stderr=subprocess.DEVNULL)
    streams = []
    try:
        for _ in range(100):
            try:
                call(port, "GET", "/health")
                break
            except OSError:
                time.sleep(0.05)
        token = call(port, "POST", "/v1/accounts", body={})["token"]
        secret = call(port, "POST", "/v1/keys", token, {"label": "bench"})["secret"]
        task_id = call(port, "POST", "/v1/tasks", secret, {"title": "bench"})["id"]

        reference = measure(port, token, secret, task_id, [])
        rows = [("0 (reference)", reference, 1.0)]
        others = []
        for total in (1, 100, 1000):
            mine = min(total, 16)
            while len(streams) < mine:
                streams.append(open_stream(port, token))
            while len(streams) + len(others) < total:
                other = call(port, "POST", "/v1/accounts", body={})["token"]
                for _ in range(min(16, total - len(streams) - len(others))):
                    others.append(open_stream(port, other))
            latency = measure(port, token, secret, task_id, streams[:mine])
            rows.append((f"{total} ({mine} of the account)", latency, latency / reference))

        before = rss_kib(server.pid)
        extra = [open_stream(port, call(port, "POST", "/v1/accounts", body={})["token"]) for _ in range(1000)]
        per_stream = (rss_kib(server.pid) - before) * 1024 / len(extra)
        for sock in extra + others:
            sock.close()

        print("| open streams | PATCH to last event (median) | ratio to no stream |")
        print("|---|---:|---:|")
        for label, latency, ratio in rows:
            print(f"| {label} | {latency * 1000:.3f} ms | {ratio:.2f} |")
        print(f"\nresident memory per open stream: {per_stream / 1024:.1f} KiB (1,000 streams)")
    finally:
        for sock in streams:
            sock.close()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)


if __name__ == "__main__":
    main()
