"""The PostgreSQL of `bench/stores.py` (`make bench-postgres`): a cluster of the run's own, made
as the end-to-end tests make theirs (Tests/e2e/postgres_cluster.py: Debian's binaries, initdb
in a folder under /tmp, the server on a loopback port, stopped and removed at the end), but
durable: the tests turn fsync, full_page_writes and synchronous_commit off and shrink
shared_buffers, and a benchmark of a store must not, so those are left at PostgreSQL's
defaults. What the bench reads of it: the settings in force, the WAL's syncs and the commits
(`pg_stat_wal`, `pg_stat_database`), and the CPU time of its processes."""

import sys
import time

from common import ROOT, cpu_seconds, family

sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from postgres_cluster import PostgresCluster, binaries  # noqa: E402

# The tests' settings a benchmark leaves at PostgreSQL's defaults.
DEFAULTED = ("fsync", "synchronous_commit", "full_page_writes", "shared_buffers", "max_connections")

# A backend flushes its statistics at most once a second, and within a second of going idle
# (PostgreSQL 15's shared-memory statistics): counters read sooner miss the last ones.
STATS_SETTLE = 1.5


class BenchCluster(PostgresCluster):
    """`PostgresCluster` with the durability settings at their defaults."""

    def _start(self) -> None:
        self._settings = [s for s in self._settings if s.split("=", 1)[0] not in DEFAULTED]
        super()._start()

    def database(self, name: str, synchronous_commit: str) -> str:
        """A new database whose sessions commit with `synchronous_commit` (`on`: COMMIT waits
        for the WAL's fsync; `off`: the WAL writer syncs within 3 × wal_writer_delay); its URL,
        which holds the password: never print it."""
        self.create_database(name)
        self.psql("postgres", f"ALTER DATABASE {name} SET synchronous_commit = {synchronous_commit}")
        return self.url(name)

    def settings(self) -> str:
        """The settings that decide what a commit costs, as the server has them."""
        names = ("server_version", "fsync", "synchronous_commit", "full_page_writes", "wal_sync_method",
                 "shared_buffers", "commit_delay")
        rows = self.psql("postgres", "SELECT name, setting, unit FROM pg_settings WHERE name IN ("
                         + ", ".join(f"'{n}'" for n in names) + ") ORDER BY name")
        parts = []
        for line in rows.splitlines():
            name, setting, unit = line.split("|")
            if name == "shared_buffers":
                setting, unit = f"{int(setting) * 8 // 1024}", "MB"
            parts.append(f"{name} {setting}{unit or ''}")
        return ", ".join(parts)

    def commit_counters(self, database: str) -> tuple[int, int]:
        """(WAL syncs of the whole cluster, transactions committed in `database`), after the
        statistics of the last transactions have been flushed."""
        time.sleep(STATS_SETTLE)
        line = self.psql("postgres", "SELECT (SELECT wal_sync FROM pg_stat_wal), "
                         f"(SELECT xact_commit FROM pg_stat_database WHERE datname = '{database}')")
        syncs, commits = line.strip().split("|")
        return int(syncs), int(commits)

    def cpu_seconds(self) -> float:
        """User and system CPU time of the postmaster and its children now (the backends, the
        WAL writer, the checkpointer...); a backend that ended meanwhile (psql's) is left out."""
        total = 0.0
        for pid in family(self.process.pid):
            try:
                total += cpu_seconds([pid])
            except (FileNotFoundError, ProcessLookupError):
                pass
        return total
