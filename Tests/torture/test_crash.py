"""Crash: `kill -9` at a random moment of a write load, many times over one database. After
each kill the database passes `PRAGMA integrity_check`, every write that got a 2xx is there
exactly as acknowledged (or as a later write that was in flight), nothing else is half there
(the per-key counts agree with the rows), and the restarted server serves it all."""

import json
import random
import threading
import time

import pytest

from conftest import RELAXED_LIMITS, scaled
from torture_support import KeepAlive, inspect, key_counts_match_tasks, new_account

WRITERS = 4


class Writer(threading.Thread):
    """One agent: creates a task, moves its progress, closes it; records what was acknowledged
    and what was in flight when the connection broke."""

    def __init__(self, port: int, secret: str, name: str, seed: int):
        super().__init__(daemon=True)
        self.client = KeepAlive(port, timeout=10)
        self.secret, self.name = secret, name
        self.random = random.Random(seed)
        self.acked: dict[str, dict] = {}          # task id -> the last acknowledged fields
        self.created_titles: set[str] = set()     # titles whose create got a 201
        self.sent_titles: set[str] = set()        # titles whose create was sent
        self.in_flight: tuple[str, dict] | None = None  # (task id, fields) of an unanswered PATCH
        self.requests = 0
        self.unexpected: list = []

    def run(self):
        n = 0
        try:
            while True:
                n += 1
                title = f"{self.name} task {n}"
                self.sent_titles.add(title)
                status, _, data = self.client.call("POST", "/v1/tasks", {"title": title, "status": "in_progress"},
                                                   key=self.secret)
                self.requests += 1
                if status != 201:
                    self.unexpected.append((status, data[:200]))
                    return
                task = json.loads(data)
                self.created_titles.add(title)
                self.acked[task["id"]] = {"title": title, "status": "in_progress", "progress": None}
                for fields in ({"progress": self.random.randint(1, 60)}, {"progress": self.random.randint(61, 99)},
                               {"status": "done", "progress": 100}):
                    expected = {**self.acked[task["id"]], **fields}
                    self.in_flight = (task["id"], expected)
                    status, _, data = self.client.call("PATCH", f"/v1/tasks/{task['id']}", fields, key=self.secret)
                    self.requests += 1
                    if status != 200:
                        self.unexpected.append((status, data[:200]))
                        return
                    self.acked[task["id"]] = expected
                    self.in_flight = None
        except Exception:
            return  # the server was killed: what was acknowledged is recorded


@pytest.mark.parametrize("durability", ["normal", "full"])
def test_kill_9_during_a_write_load_never_loses_an_acknowledged_write(start_server, tmp_path, durability):
    # Under both settings (README, "The store"): they differ only in what a power cut takes.
    rounds = scaled(8, 40)
    rng = random.Random(12)
    db_path = tmp_path / "crash.db"
    env = {**RELAXED_LIMITS, "DATABASE_PATH": str(db_path), "LOG_LEVEL": "info", "DURABILITY": durability}
    total_requests = 0
    everything: dict[str, dict] = {}

    for round_number in range(rounds):
        server = start_server(env, name=f"crash-{round_number}")
        server.expected_exit_code = None
        setup = KeepAlive(server.port)
        # What earlier rounds acknowledged is served after the restart.
        for task_id, fields in list(everything.items())[-20:]:
            assert setup.json("GET", f"/v1/tasks/{task_id}", key=fields["secret"], expect=200)["title"] == fields["title"]
        _, keys = new_account(setup, WRITERS)
        setup.close()

        writers = [Writer(server.port, secret, f"r{round_number}w{i}", rng.random()) for i, (_, secret) in enumerate(keys)]
        for writer in writers:
            writer.start()
        time.sleep(rng.uniform(0.2, 1.2))
        server.kill9()
        for writer in writers:
            writer.join(timeout=15)
            assert not writer.is_alive()
            assert not writer.unexpected, writer.unexpected

        db = inspect(db_path)
        try:
            key_counts_match_tasks(db)
            for writer in writers:
                total_requests += writer.requests
                rows = {row[0]: row[1:] for row in db.execute(
                    "SELECT id, title, status, progress FROM tasks WHERE title LIKE ?", (writer.name + " task %",))}
                # Every acknowledged task is there, as acknowledged or as the write in flight.
                for task_id, fields in writer.acked.items():
                    assert task_id in rows, f"acknowledged task {task_id} ({fields['title']}) lost"
                    stored = dict(zip(("title", "status", "progress"), rows[task_id]))
                    allowed = [fields]
                    if writer.in_flight and writer.in_flight[0] == task_id:
                        allowed.append(writer.in_flight[1])
                    assert stored in allowed, (task_id, stored, allowed)
                    everything[task_id] = {"title": fields["title"], "secret": writer.secret}
                # Nothing that was never sent; at most one create in flight beyond the 201s.
                titles = {row[0] for row in rows.values()}
                assert titles <= writer.sent_titles, titles - writer.sent_titles
                assert len(titles - writer.created_titles) <= 1, titles - writer.created_titles
        finally:
            db.close()

    assert total_requests >= scaled(500, 3000), f"only {total_requests} requests in {rounds} rounds"
    # One last restart: the server comes up on the database of all rounds and serves it.
    server = start_server(env, name="crash-final")
    client = KeepAlive(server.port)
    assert client.json("GET", "/health", expect=200) == {"status": "ok", "store": "ok"}
    for task_id, fields in list(everything.items())[::50]:
        assert client.json("GET", f"/v1/tasks/{task_id}", key=fields["secret"], expect=200)["title"] == fields["title"]
    client.close()
