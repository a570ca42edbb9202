"""The PostgreSQL of `bench/cost.py --postgres`: bench/postgres.py's cluster (durable, the
defaults a benchmark keeps) that logs each statement it runs, so a run can say which
statements a request ran and how often, beside relaydeckd's cost. One cluster for the whole
run, a new database for each server (each starts on an empty store, as with SQLite).

The log (`log_statement=all`) names every statement a client sent, BEGIN and COMMIT too, and
is read between two offsets; it stays in the cluster's folder (its parameters are the
requests' values) and goes with it. `pg_stat_statements` adds what the log cannot see: the
statements of the counting triggers' functions. pg_stat_database's commit counter is not
used: a busy backend flushes its counts at most once a second, an idle one after 10 s."""

import re
from collections import Counter

from postgres import BenchCluster

# `execute rd3: SELECT ...` (a prepared statement), `execute <unnamed>: ...`, `statement: ...`
# (psql's simple queries, left out: the bench's own).
EXECUTE = re.compile(r"LOG:  execute [^:]*: (.*)")


class CostCluster(BenchCluster):
    """`BenchCluster` with each statement logged, and `pg_stat_statements` (Debian's
    postgresql ships it) counting the statements inside PL/pgSQL functions."""

    def __init__(self, counting: bool):
        """`counting`: statements logged and counted; they cost the cluster CPU time, so a run
        that measures it does without."""
        self._databases = 0
        self.counting = counting
        super().__init__()

    def _start(self) -> None:
        if self.counting:
            self._settings = [*self._settings, "shared_preload_libraries=pg_stat_statements",
                              "pg_stat_statements.track=all", "pg_stat_statements.max=5000", "log_statement=all"]
        super()._start()

    def new_database(self) -> tuple[str, str]:
        """(name, URL) of a new database for one server; the URL holds the password: never
        print it."""
        self._databases += 1
        name = f"cost_{self._databases}"
        url = self.database(name, "on")
        if self.counting:
            self.psql(name, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        return name, url

    def reset(self, database: str) -> int:
        """Zeroes the nested statements' counts (all databases: one server at a time runs);
        the log's offset now, for `statements`."""
        if not self.counting:
            return 0
        self.psql(database, "SELECT pg_stat_statements_reset()")
        return self.log_path.stat().st_size

    def statements(self, database: str, since: int) -> list[tuple[int, bool, str]]:
        """Each statement run in `database` since `reset` gave `since`: (calls, sent by a
        client, its text's first line), the most called first; none when not `counting`."""
        if not self.counting:
            return []
        with open(self.log_path, "rb") as log:
            log.seek(since)
            text = log.read().decode(errors="replace")
        sent = Counter(match.group(1).strip() for match in EXECUTE.finditer(text))
        rows = self.psql(database, "SELECT calls, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements "
                         "WHERE NOT toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = "
                         f"'{database}')")
        nested = []
        for line in rows.splitlines():
            calls, query = line.split("|", 1)
            nested.append((int(calls), False, query))
        found = [(calls, True, query) for query, calls in sent.items()] + nested
        return sorted(found, key=lambda item: (-item[0], item[2]))
