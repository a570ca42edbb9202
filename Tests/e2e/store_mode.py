"""Which store the servers of this run keep their data in: SQLite (the default) or, with
`RELAYDECK_E2E_STORE=postgres` (`make test-e2e-postgres`), PostgreSQL (issue 25: the whole
suite run against it as it runs against SQLite).

In that mode one cluster of the tests' own (postgres_cluster.py) serves the whole session, and
each store the tests name gets a database of its own: a store is what `DATABASE_PATH` names
(the server's folder's `relaydeck.db` unless a test says otherwise), so a server started again
on the same folder finds its data again, as it would in the file, and two servers that share
a folder share the database. `base_environment` sets `DATABASE_URL` to it; a test that sets
`DATABASE_URL` or `DATABASE_URL_FILE` itself (even to None, to ask for SQLite) is left alone.

A test that cannot mean the same thing on PostgreSQL is marked `sqlite_only(why)`; one that
fails because the server is wrong on PostgreSQL is marked `fails_on_postgres(defect)`, a
strict xfail, so that it turns red once the defect is fixed.
"""

import atexit
import os
from pathlib import Path

import pytest

MODES = ("sqlite", "postgres")
MODE = os.environ.get("RELAYDECK_E2E_STORE", "sqlite") or "sqlite"
if MODE not in MODES:
    raise RuntimeError(f"RELAYDECK_E2E_STORE={MODE!r}: use one of {', '.join(MODES)}")
ON_POSTGRES = MODE == "postgres"


# What a test adds to its environment to serve from SQLite in either mode (a store to copy
# from, say): DATABASE_URL named, to nothing.
SQLITE_STORE = {"DATABASE_URL": None}


def sqlite_only(why: str):
    """Skips a test in the PostgreSQL mode: `why` says what it tests that only SQLite has."""
    return pytest.mark.skipif(ON_POSTGRES, reason=f"SQLite only: {why}")


def fails_on_postgres(defect: str):
    """A test the server fails on PostgreSQL today: `defect` names what is wrong."""
    return pytest.mark.xfail(ON_POSTGRES, reason=f"server defect on PostgreSQL: {defect}", strict=True)


class SessionDatabases:
    """The session's cluster, started at the first need, and a database per store path."""

    def __init__(self):
        self.cluster = None
        self.by_path: dict[str, str] = {}
        self.made = 0

    def start(self):
        if self.cluster is None:
            from postgres_cluster import PostgresCluster
            self.cluster = PostgresCluster()
            atexit.register(self.stop)
        return self.cluster

    def stop(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None
            self.by_path.clear()

    def database_for(self, store_path: str) -> str:
        """The database of `store_path`, made the first time it is named; `:memory:` is a new
        one each time, as SQLite's is."""
        cluster = self.start()
        name = self.by_path.get(store_path)
        if name is None:
            self.made += 1
            name = cluster.create_database(f"rd_{self.made}")
            if store_path != ":memory:":
                self.by_path[store_path] = name
        return name

    def url_for(self, store_path: str) -> str:
        return self.cluster_url(self.database_for(store_path))

    def cluster_url(self, database: str) -> str:
        return self.start().url(database)


DATABASES = SessionDatabases()


def store_path(workdir: Path, env: dict[str, str]) -> str:
    """The store a server of `env` started in `workdir` opens: `DATABASE_PATH` made absolute."""
    path = env.get("DATABASE_PATH") or "relaydeck.db"
    if path == ":memory:":
        return path
    return str((Path(workdir) / path).resolve())


def add_database_url(workdir: Path, env: dict[str, str], overrides: dict) -> None:
    """In the PostgreSQL mode, points `env` at the database of its store, unless the test chose
    its database itself."""
    if not ON_POSTGRES or "DATABASE_URL" in overrides or "DATABASE_URL_FILE" in overrides:
        return
    env["DATABASE_URL"] = DATABASES.url_for(store_path(workdir, env))
