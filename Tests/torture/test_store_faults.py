"""Store faults beyond Tests/e2e/test_store_failures.py: the database on a file system that is
read-only, on a real file system that fills up (a small tmpfs), and locked by another process
while streams and parked calls are open. Writes get `503 unavailable` with `Retry-After`, the
server never crashes, everything that does not need the write lock keeps answering within
milliseconds, and the service comes back by itself when the fault goes."""

import errno
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from conftest import RELAXED_LIMITS
from server_process import wait_until
from torture_support import KeepAlive, inspect, new_account

LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("COMMIT")
db.close()
"""


def assert_unavailable(status, headers, body):
    assert status == 503, (status, body)
    assert headers.get("retry-after", "").isdigit(), headers
    assert json.loads(body)["error"]["code"] == "unavailable", body


@pytest.fixture
def tmpfs(tmp_path):
    """A small tmpfs of the test's own (root only); unmounted at the end."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    point = tmp_path / "mnt"
    point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(point)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield point
    subprocess.run(["umount", "-l", str(point)], check=False)


def open_stream(port: int, token: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    data = b""
    while b"event: ready" not in data:
        chunk = sock.recv(4096)
        assert chunk, data
        data += chunk
    return sock


def read_until(sock: socket.socket, marker: bytes, timeout: float) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while marker not in data:
        chunk = sock.recv(4096)
        assert chunk, data
        data += chunk
    return data


def test_while_another_process_holds_the_write_lock_everything_else_answers_at_once(start_server, tmp_path):
    db_path = tmp_path / "locked.db"
    server = start_server({**RELAXED_LIMITS, "DATABASE_PATH": str(db_path)})
    client = KeepAlive(server.port)
    token, [(key_id, secret)] = new_account(client)
    task = client.json("POST", "/v1/tasks", {"title": "before the lock"}, key=secret, expect=201)
    stream = open_stream(server.port, token)

    locker = subprocess.Popen([sys.executable, "-c", LOCKER, str(db_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout.readline().strip() == "locked"
        # A write waits for the lock on a timer, on a connection of its own.
        writer = KeepAlive(server.port, timeout=30)
        import threading
        outcome = {}
        thread = threading.Thread(target=lambda: outcome.update(
            answer=writer.call("PATCH", f"/v1/tasks/{task['id']}", {"progress": 10}, key=secret)))
        thread.start()
        time.sleep(0.2)
        slowest = 0.0
        for _ in range(10):
            started = time.monotonic()
            assert client.json("GET", "/health", expect=200) == {"status": "ok", "store": "ok"}
            assert client.json("GET", f"/v1/tasks/{task['id']}", key=secret, expect=200)["title"] == "before the lock"
            assert client.json("GET", "/v1/tasks", token=token, expect=200)["tasks"]
            client.json("GET", "/v1/inbox?wait=0", key=secret, expect=200)
            other = open_stream(server.port, token)  # a new stream gets `ready`
            other.close()
            slowest = max(slowest, time.monotonic() - started)
        # A parked call ends at the end of its wait, not later.
        started = time.monotonic()
        assert client.json("GET", "/v1/inbox?wait=1", key=secret, expect=200)["items"] == []
        parked = time.monotonic() - started
        # Generous bounds, no timing of performance: what they catch is a call that waited for
        # the lock (5 s), not a slow machine.
        assert slowest < 1.5, slowest
        assert 0.9 <= parked < 3.0, parked
        thread.join(timeout=30)
        assert_unavailable(*outcome["answer"])
    finally:
        locker.stdin.write("\n")
        locker.stdin.close()
        assert locker.wait(timeout=10) == 0

    # The lock is gone: the write goes through, and the stream that stayed open sees it.
    assert client.json("PATCH", f"/v1/tasks/{task['id']}", {"progress": 20}, key=secret, expect=200)["progress"] == 20
    assert b"task.updated" in read_until(stream, b"task.updated", 5)
    stream.close()


def test_a_read_only_file_system_gives_503_then_the_service_comes_back(start_server, tmpfs):
    db_path = tmpfs / "relaydeck.db"
    env = {**RELAXED_LIMITS, "DATABASE_PATH": str(db_path)}
    first = start_server(env, name="before")
    client = KeepAlive(first.port)
    token, [(_, secret)] = new_account(client)
    client.close()
    assert first.stop() == 0

    subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], check=True)
    try:
        server = start_server(env, name="read-only")
        client = KeepAlive(server.port)
        for _ in range(3):
            assert_unavailable(*client.call("POST", "/v1/accounts", {}))
            assert_unavailable(*client.call("POST", "/v1/tasks", {"title": "x"}, key=secret))
        status, headers, body = client.call("GET", "/health")
        assert status in (200, 503), (status, body)
        assert server.process.poll() is None
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(tmpfs)], check=True)
    wait_until(lambda: client.call("POST", "/v1/tasks", {"title": "writable again"}, key=secret)[0] == 201,
               timeout=15, interval=0.3, message="a write once the file system is writable")
    assert client.json("GET", "/v1/account", token=token, expect=200)
    assert client.json("GET", "/health", expect=200) == {"status": "ok", "store": "ok"}
    client.close()
    assert server.stop() == 0
    inspect(db_path).close()


def fill(directory) -> int:
    """Writes a filler file until the file system is full; returns its size."""
    size = 0
    # Unbuffered: a buffered file keeps the bytes a full disk refused and tries them again at
    # its close, which raised ENOSPC out of the `with` whenever the free space was not a whole
    # number of blocks.
    with open(directory / "filler", "wb", buffering=0) as filler:
        block = b"\0" * 65536
        try:
            while True:
                size += filler.write(block)
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    return size


def test_a_full_file_system_gives_503_then_the_service_comes_back(start_server, tmpfs):
    db_path = tmpfs / "relaydeck.db"
    server = start_server({**RELAXED_LIMITS, "DATABASE_PATH": str(db_path)})
    client = KeepAlive(server.port)
    token, [(_, secret)] = new_account(client)
    kept = [client.json("POST", "/v1/tasks", {"title": f"kept {n}"}, key=secret, expect=201)["id"] for n in range(20)]

    fill(tmpfs)
    refused = 0
    for n in range(200):  # the WAL takes what room is left, then every write is refused
        status, headers, body = client.call("POST", "/v1/tasks", {"title": f"full {n}", "description": "x" * 5000},
                                            key=secret)
        if status == 503:
            assert_unavailable(status, headers, body)
            refused += 1
        else:
            assert status == 201, (status, body)
    assert refused > 0
    # Reads go on, and the server is still there.
    for task_id in kept:
        assert client.json("GET", f"/v1/tasks/{task_id}", key=secret, expect=200)["id"] == task_id
    assert server.process.poll() is None

    (tmpfs / "filler").unlink()
    wait_until(lambda: client.call("POST", "/v1/tasks", {"title": "room again"}, key=secret)[0] == 201,
               timeout=15, interval=0.3, message="a write once there is room")
    assert client.json("GET", "/health", expect=200) == {"status": "ok", "store": "ok"}
    client.close()
    assert server.stop() == 0
    db = inspect(db_path)
    titles = {row[0] for row in db.execute("SELECT title FROM tasks")}
    db.close()
    assert {f"kept {n}" for n in range(20)} <= titles and "room again" in titles
