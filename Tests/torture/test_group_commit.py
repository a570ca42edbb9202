"""Group commit (APIHandler+GroupCommit): the writes of one loop turn share a transaction and
their answers leave after its COMMIT. Many clients writing at once, some of them with
requests that fail: every 2xx is visible at once to any reader, every failure left nothing
behind, and the events of the committed changes reach a stream, each once."""

import json
import socket
import threading

from conftest import RELAXED_LIMITS
from torture_support import KeepAlive, inspect, key_counts_match_tasks, new_account

CLIENTS = 24
ROUNDS = 40


def test_concurrent_writes_with_failures_in_the_same_turns(start_server, tmp_path):
    db_path = tmp_path / "group.db"
    server = start_server({**RELAXED_LIMITS, "DATABASE_PATH": str(db_path), "LOG_LEVEL": "info"})
    setup = KeepAlive(server.port)
    token, keys = new_account(setup, 4)
    stream = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    stream.sendall(f"GET /v1/events HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {token}\r\n\r\n".encode())

    created: list[tuple[str, str, str]] = []   # (task id, title, secret) of every 201
    problems: list = []
    lock = threading.Lock()
    start = threading.Barrier(CLIENTS)

    def client(n: int):
        secret = keys[n % len(keys)][1]
        own = KeepAlive(server.port, timeout=30)
        start.wait()
        for r in range(ROUNDS):
            title = f"c{n} r{r}"
            status, _, body = own.call("POST", "/v1/tasks", {"title": title}, key=secret)
            if status != 201:
                problems.append(("create", status, body[:200]))
                continue
            task = json.loads(body)
            # Read back at once on another request: the 201 means committed.
            status, _, body = own.call("GET", f"/v1/tasks/{task['id']}", key=secret)
            if status != 200 or json.loads(body)["title"] != title:
                problems.append(("read back", status, body[:200]))
            # A request that fails in the middle of the turn's batch: a 422 that changes nothing.
            status, _, body = own.call("PATCH", f"/v1/tasks/{task['id']}", {"progress": 500}, key=secret)
            if status != 422:
                problems.append(("bad patch", status, body[:200]))
            with lock:
                created.append((task["id"], title, secret))
        own.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not problems, problems[:5]
    assert len(created) == CLIENTS * ROUNDS

    # Every created task is there, untouched by the failed PATCH.
    for task_id, title, secret in created[::7]:
        task = setup.json("GET", f"/v1/tasks/{task_id}", key=secret, expect=200)
        assert (task["title"], task["progress"]) == (title, None)
    # Each creation reached the stream once.
    stream.settimeout(10)
    data = b""
    while data.count(b"event: task.created") < len(created):
        chunk = stream.recv(65536)
        assert chunk, "the stream closed"
        data += chunk
    ids = [json.loads(line[6:])["task"]["id"] if b'"task"' in line else None
           for line in data.split(b"\n")[:-1] if line.startswith(b"data: ") and b"tsk_" in line]
    assert {task_id for task_id, _, _ in created} <= set(ids)
    assert data.count(b"event: task.created") == len(created)
    stream.close()
    setup.close()
    assert server.stop() == 0
    db = inspect(db_path)
    key_counts_match_tasks(db)
    assert db.execute("SELECT count(*) FROM tasks").fetchone()[0] == len(created)
    db.close()
