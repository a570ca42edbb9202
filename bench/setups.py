"""The three columns of `bench/stores.py`: relaydeckd on a SQLite file, one relaydeckd on a
PostgreSQL database, and two relaydeckd on one PostgreSQL database; and the wrk load of a row
split over a setup's nodes."""

import itertools
import threading

from common import Server, cpu_seconds, wrk
from postgres import BenchCluster

SQLITE, POSTGRES, TWO_NODES = "SQLite, one node", "PostgreSQL, one node", "PostgreSQL, two nodes"
COLUMNS = (SQLITE, POSTGRES, TWO_NODES)
NODES = {SQLITE: 1, POSTGRES: 1, TWO_NODES: 2}
_databases = itertools.count(1)


class Setup:
    """One column of a row: its relaydeckd, each with a folder of its own, on a fresh SQLite
    file or on a new database of `cluster`. Changes are made on the first node; event streams
    and waits are held by the last (the same node when there is one). `durable`: SQLite's
    `DURABILITY=full` against PostgreSQL's `synchronous_commit=on` (a COMMIT waits for the
    WAL's fsync in both); otherwise `normal` against `off`, the same promise (the process may
    die, a power cut may take the last commits, nothing is ever half there)."""

    def __init__(self, column: str, row: str, cluster: BenchCluster, env: dict | None = None, durable: bool = False):
        self.column = column
        self.cluster = cluster
        self.database = None
        env = dict(env or {})
        if column == SQLITE:
            if durable:
                env["DURABILITY"] = "full"
        else:
            self.database = f"rd_{row.replace('-', '_')}_{next(_databases)}"
            env["DATABASE_URL"] = cluster.database(self.database, "on" if durable else "off")
        self.servers = []
        try:
            for _ in range(NODES[column]):
                self.servers.append(Server(env))
        except BaseException:
            self.stop()
            raise

    @property
    def ports(self) -> list[int]:
        return [server.port for server in self.servers]

    @property
    def postgres(self) -> bool:
        return self.database is not None

    def server_cpu(self) -> float:
        return cpu_seconds([server.pid for server in self.servers])

    def database_cpu(self) -> float:
        return self.cluster.cpu_seconds() if self.postgres else 0.0

    def stop(self):
        for server in self.servers:
            server.stop()
        self.servers = []


def load(setup: Setup, path: str, connections: int, script=None, env: dict | None = None,
         duration: int | None = None) -> dict:
    """wrk against every node of `setup` at once, the connections shared out among them: the
    requests per second summed, the answers that were not 2xx and the socket errors, wrk's
    largest CPU use, and the CPU time per request (µs) of relaydeckd (all nodes) and of the
    database's processes."""
    ports = setup.ports
    shares = [connections // len(ports) + (1 if n < connections % len(ports) else 0) for n in range(len(ports))]
    assert min(shares) > 0, "fewer connections than nodes"
    results = [None] * len(ports)

    def run(n: int):
        results[n] = wrk(f"http://127.0.0.1:{ports[n]}{path}", script, duration=duration, connections=shares[n], env=env)

    server_before, database_before = setup.server_cpu(), setup.database_cpu()
    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(ports))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    requests = max(1, sum(r["requests"] for r in results))
    return {"rps": sum(r["rps"] for r in results), "requests": requests,
            "bad": sum(r["non2xx"] + r["errors"] for r in results), "wrk_cpu": max(r["cpu"] for r in results),
            "server_us": (setup.server_cpu() - server_before) * 1e6 / requests,
            "database_us": (setup.database_cpu() - database_before) * 1e6 / requests,
            "out": "\n".join(r["out"] for r in results)}
