"""What the two-node modules share (test_two_nodes*.py; test_postgres_serving.py takes its
cluster): a PostgreSQL cluster of the module's own (postgres_cluster.py, in either mode of the
suite), two relaydeckd on one new database of it, and an event stream read on a thread of its
own, so that a test can count what each node's stream carried."""

import socket
import threading

import pytest

from http_clients import PythonClient
from postgres_cluster import PostgresCluster, new_database
from test_events import SSE

@pytest.fixture(scope="module")
def postgres():
    """A cluster of the test module's own (test_postgres_serving.py imports it too)."""
    cluster = PostgresCluster()
    yield cluster
    cluster.stop()


class TwoNodes:
    """Starts two servers on one new database (each in a folder of its own): `env` is added to
    both, `each` (two dicts) to node A's and node B's own. `database` names the last one made."""

    def __init__(self, start_server, postgres, tmp_path):
        self.start_server, self.postgres, self.tmp_path = start_server, postgres, tmp_path
        self.database = None

    def __call__(self, env: dict | None = None, each: tuple[dict, dict] = ({}, {}), timeout: float = 30.0):
        self.database = new_database(self.postgres, "rd_nodes")
        shared = {"DATABASE_URL": self.postgres.url(self.database), **(env or {})}
        started = []
        for name, own in zip(("node-a", "node-b"), each):
            folder = self.tmp_path / name
            folder.mkdir()
            server = self.start_server({**shared, **own}, workdir=folder, name=name)
            started.append((server, PythonClient(server.host, server.port, timeout=timeout)))
        return started

    def psql(self, sql: str) -> list[str]:
        """The rows of `sql` in the nodes' database, one line each (psql's unaligned form)."""
        return self.postgres.psql(self.database, sql).splitlines()


@pytest.fixture
def nodes(start_server, postgres, tmp_path):
    return TwoNodes(start_server, postgres, tmp_path)


class EventLog:
    """An account's event stream on one node, read on a thread into `events` (comments left
    out) until `close`."""

    def __init__(self, server, token: str, account_id: str):
        self.stream = SSE(server, token)
        assert self.stream.head().startswith("HTTP/1.1 200 OK")
        assert self.stream.next() == ("ready", {"account_id": account_id})
        self.events: list[tuple[str, dict]] = []
        self.ended = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                event = self.stream.next()
            except socket.timeout:
                continue
            except (EOFError, OSError):
                self.ended = True
                return
            if event[0] != "comment":
                with self._lock:
                    self.events.append(event)

    def received(self) -> list[tuple[str, dict]]:
        with self._lock:
            return list(self.events)

    def close(self) -> None:
        self.stream.close()
        self._thread.join(5)
