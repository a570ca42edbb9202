#!/usr/bin/env python3
"""SQLite and PostgreSQL side by side (issue 25): `make bench-postgres`, or
`bench/run.sh --stores [ROW...]`.

Each row runs in three setups (bench/setups.py): relaydeckd on a SQLite file, one relaydeckd on
a PostgreSQL database, and two relaydeckd on one PostgreSQL database, the load split between
them (two wrk at once, each with half the connections, the rates summed; a change made on one
node and awaited on the other). PostgreSQL is a cluster of the run's own on loopback
(bench/postgres.py), stopped at the end. The HTTP rows alternate the setups run by run. Each
figure is the median (min–max) of BENCH_RUNS runs, and each PostgreSQL figure's ratio is to
the SQLite column of the same run. The table goes to stdout and to bench/results/stores.md.

Rows: health task-get task-write task-write-full mcp fanout wakeup idle start (default: all).
Settings: those of bench/bench.py (RELAYDECKD, the binary; BENCH_RUNS, BENCH_DURATION,
BENCH_CONNECTIONS, BENCH_ROUNDS, BENCH_START_TASKS).
"""

import os
import shutil
import statistics
import subprocess
import sys
import time

from bench import build_start_database
from common import (BINARY, CONNECTIONS, DURATION, LUA, MCP_VERSION, NOTES, ROOT, RUNS, START_TASKS, WORK, Server,
                    _children, call, fmt, log, new_account, rss_kb, start_to_ready)
from latency import Fanout, Wakeup
from postgres import BenchCluster, binaries
from scale import METRICS_TOKEN, metrics
from setups import COLUMNS, SQLITE, TWO_NODES, Setup, load

CLUSTER: BenchCluster | None = None
TABLE: list[str] = []
CPU_TABLE: list[str] = []


def cells(figures: dict, unit: str, digits: int = 0) -> str:
    """A row's three cells: median (min–max), and for PostgreSQL the ratio of its median to
    SQLite's."""
    base = statistics.median(figures[SQLITE])
    parts = []
    for column in COLUMNS:
        cell = fmt(figures[column], unit, digits)
        if column != SQLITE and base:
            cell += f" · {statistics.median(figures[column]) / base:.2f} ×"
        parts.append(cell)
    return " | ".join(parts)


# --- the HTTP rows --------------------------------------------------------------------------

def throughput(row: str, name: str, path: str, prepare, script=None, connections: int = CONNECTIONS,
               durable: bool = False, unit: str = " req/s"):
    """wrk against each setup in turn, BENCH_RUNS times after 2 s of warm-up each. `prepare`
    makes a setup's rows through a node's port and returns wrk's environment. `durable`: the
    row's note says how many writes and commits each of PostgreSQL's WAL syncs carried (its group
    commit), read around each run as its commits are."""
    setups = []
    try:
        for column in COLUMNS:
            setups.append(Setup(column, row, CLUSTER, durable=durable))
        envs = [prepare(setup.ports[0]) for setup in setups]
        for setup, env in zip(setups, envs):
            load(setup, path, connections, script, env, duration=2)
        rates, server_us, database_us = ({c: [] for c in COLUMNS} for _ in range(3))
        group = {c: [0, 0, 0] for c in COLUMNS}  # WAL syncs, commits, requests
        for run in range(RUNS):
            for setup, env in zip(setups, envs):
                before = CLUSTER.commit_counters(setup.database) if setup.postgres else None
                result = load(setup, path, connections, script, env)
                if result["bad"]:
                    raise SystemExit(f"bench: {row} ({setup.column}): {result['bad']} answers not 2xx or socket errors\n"
                                     f"{result['out']}")
                if before:
                    after = CLUSTER.commit_counters(setup.database)
                    group[setup.column] = [group[setup.column][0] + after[0] - before[0],
                                           group[setup.column][1] + after[1] - before[1],
                                           group[setup.column][2] + result["requests"]]
                rates[setup.column].append(result["rps"])
                server_us[setup.column].append(result["server_us"])
                database_us[setup.column].append(result["database_us"])
                if result["wrk_cpu"] > 0.9:
                    NOTES.append(f"{row}, {setup.column}, run {run + 1}: wrk used {result['wrk_cpu']:.0%} of a core.")
                log(f"{row} run {run + 1}: {setup.column} {result['rps']:,.0f}{unit}, relaydeckd "
                    f"{result['server_us']:.1f} µs and database {result['database_us']:.1f} µs of CPU a request")
    finally:
        for setup in setups:
            setup.stop()
    TABLE.append(f"| {name} | {cells(rates, unit)} |")
    cpu = [fmt(server_us[SQLITE], " µs", 1)]
    for column in COLUMNS[1:]:
        cpu.append(f"{fmt(server_us[column], ' µs', 1)} + {fmt(database_us[column], ' µs', 1)}")
    CPU_TABLE.append(f"| {name} | {' | '.join(cpu)} |")
    NOTES.append(f"{name}: transactions committed a request in PostgreSQL (`pg_stat_database.xact_commit`, each "
                 f"statement outside a transaction being one): " + ", ".join(
                     f"{column.split(', ')[1]} {group[column][1] / group[column][2]:.2f}" for column in COLUMNS[1:]) + ".")
    for column, (syncs, commits, requests) in group.items():
        if durable and syncs:
            NOTES.append(f"{name}, {column}: {syncs:,} WAL syncs (`pg_stat_wal.wal_sync`) for {requests:,} writes "
                         f"answered ({syncs / requests:.2f} a write) and {commits:,} transactions committed "
                         f"(`pg_stat_database.xact_commit`, the reads' included: {commits / syncs:.2f} a sync), over "
                         f"the runs: PostgreSQL's group commit.")


def keys_with_tasks(port: int, keys: int) -> list[tuple[str, str]]:
    """(task id, secret) for each of `keys` keys of a new account, a task each."""
    _, made = new_account(port, keys)
    return [(call(port, "POST", "/v1/tasks", {"title": "Benchmark the server", "description": "A task to read."},
                  key=secret, expect=201)["id"], secret) for _, secret in made]


def writing_keys(port: int) -> dict:
    _, keys = new_account(port, 20)
    return {"BENCH_KEYS": ",".join(f"{key_id}={secret}" for key_id, secret in keys)}


def bench_health():
    throughput("health", f"`GET /health`, {CONNECTIONS} connections", "/health", lambda port: {})


def bench_task_get():
    throughput("task-get", "`GET /v1/tasks/{id}`, 20 keys taking turns", "/v1/tasks/",
               lambda port: {"BENCH_GETS": ",".join(f"{t}={s}" for t, s in keys_with_tasks(port, 20))},
               script=LUA / "task_get.lua")


def bench_task_write(durable: bool = False):
    name = "`POST /v1/tasks` + `PATCH` progress, " + ("durable (SQLite `DURABILITY=full`, PostgreSQL "
                                                      "`synchronous_commit=on`)" if durable else
                                                      "SQLite `DURABILITY=normal`, PostgreSQL `synchronous_commit=off`")
    throughput("task-write-full" if durable else "task-write", name, "/v1/tasks", writing_keys,
               script=LUA / "task_write.lua", durable=durable)


def bench_mcp():
    throughput("mcp", "MCP `tools/call update_task`, 10 connections, 10 keys taking turns", "/mcp",
               lambda port: {"BENCH_MCP_CALLS": ",".join(f"{t}={s}" for t, s in keys_with_tasks(port, 10)),
                             "BENCH_MCP_VERSION": MCP_VERSION},
               script=LUA / "mcp_update_task.lua", connections=10, unit=" calls/s")


# --- the timed rows -------------------------------------------------------------------------

def parked(port: int):
    """Returns once the node on `port` holds a parked call (`relaydeck_parked_calls`): on two
    nodes the message must come after the wait is parked, or it is read, not woken."""
    deadline = time.monotonic() + 5
    while metrics(port)["relaydeck_parked_calls"] < 1:
        if time.monotonic() > deadline:
            raise SystemExit("bench: the wait was not parked within 5 s")
        time.sleep(0.0005)


def timed(row: str, env: dict, rig, names: list[str], digits: int):
    """A row of figures in ms from `rig(setup)`'s `run`, which returns one per name; the runs
    alternate the setups."""
    setups, rigs = [], []
    figures = [{c: [] for c in COLUMNS} for _ in names]
    try:
        for column in COLUMNS:
            setups.append(Setup(column, row, CLUSTER, env=env))
            rigs.append(rig(setups[-1]))
        for run in range(RUNS):
            for setup, made in zip(setups, rigs):
                result = made.run(f" run {run + 1}, {setup.column}")
                for n, value in enumerate(result if isinstance(result, tuple) else (result,)):
                    figures[n][setup.column].append(value)
    finally:
        for made in rigs:
            made.close()
        for setup in setups:
            setup.stop()
    for name, values in zip(names, figures):
        TABLE.append(f"| {name} | {cells(values, ' ms', digits)} |")


def bench_fanout():
    timed("fanout", {"MAX_CONNECTIONS": "5000"}, lambda setup: Fanout(setup.ports[0], setup.ports[-1]),
          ["fan-out: 1 `PATCH`, its account's 16 streams (of 1,000 open), p99",
           "fan-out: a `PATCH` in each of 63 accounts, all 1,000 streams have it"], 2)


def bench_wakeup():
    timed("wakeup", {"METRICS_TOKEN": METRICS_TOKEN},
          lambda setup: Wakeup(setup.ports[0], setup.ports[-1], RUNS, parked=parked),
          ["wake-up: message sent → parked `GET /v1/inbox?wait=50` answered, p99"], 3)


# --- memory and start -----------------------------------------------------------------------

def bench_idle():
    """Resident memory of each node 1 s after its start (the database's own is not in it)."""
    figures = {c: [] for c in COLUMNS}
    for _ in range(max(RUNS, 3)):
        for column in COLUMNS:
            setup = Setup(column, "idle", CLUSTER)
            time.sleep(1)
            figures[column] += [rss_kb(server.pid) / 1024 for server in setup.servers]
            setup.stop()
    TABLE.append(f"| idle: resident memory of a node after start | {cells(figures, ' MB', 1)} |")


def bench_start():
    """exec to `READY=1` on a store of BENCH_START_TASKS tasks (bench/bench.py's database,
    copied into PostgreSQL by `relaydeckd migrate-to-postgres`); on two nodes, the second
    node's start while the first serves."""
    path = WORK / "start.db"
    count = build_start_database(path, START_TASKS)
    url = CLUSTER.database("rd_start", "off")
    copied = subprocess.run([str(BINARY), "migrate-to-postgres", "--from", str(path)], capture_output=True, text=True,
                            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DATABASE_URL": url})
    if copied.returncode != 0:
        raise SystemExit(f"bench: migrate-to-postgres failed:\n{copied.stderr[-2000:]}")
    figures = {SQLITE: start_to_ready(path, RUNS)}
    figures[COLUMNS[1]] = start_to_ready(path, RUNS, {"DATABASE_URL": url})
    first = Server({"DATABASE_URL": url})
    try:
        figures[TWO_NODES] = start_to_ready(path, RUNS, {"DATABASE_URL": url})
    finally:
        first.stop()
    TABLE.append(f"| start: exec → `READY=1`, {count:,} tasks (two nodes: the second, the first serving) | "
                 f"{cells(figures, ' ms', 1)} |")


ROWS = {
    "health": bench_health,
    "task-get": bench_task_get,
    "task-write": bench_task_write,
    "task-write-full": lambda: bench_task_write(durable=True),
    "mcp": bench_mcp,
    "fanout": bench_fanout,
    "wakeup": bench_wakeup,
    "idle": bench_idle,
    "start": bench_start,
}


def main():
    global CLUSTER
    chosen = sys.argv[1:] or list(ROWS)
    unknown = [name for name in chosen if name not in ROWS]
    if unknown:
        raise SystemExit(f"bench: unknown rows {unknown}; rows: {' '.join(ROWS)}")
    if not BINARY.exists():
        raise SystemExit(f"bench: {BINARY} is missing (make build)")
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk is missing (make bench-postgres installs it)")
    if binaries() is None:
        raise SystemExit("bench: no PostgreSQL in /usr/lib/postgresql/*/bin (make bench-postgres installs it)")
    started = time.gmtime()
    loads = []
    try:
        CLUSTER = BenchCluster()
        settings = CLUSTER.settings()
        for name in chosen:
            loads.append(f"{name} {os.getloadavg()[0]:.1f}")
            log(f"== {name} (load average {os.getloadavg()[0]:.1f})")
            ROWS[name]()
    finally:
        for child in _children:
            if child.poll() is None:
                child.kill()
                child.wait()
        if CLUSTER:
            CLUSTER.stop()
        shutil.rmtree(WORK, ignore_errors=True)
    NOTES.append("Load average (1 min) when each row began: " + ", ".join(loads) + " (2 cores: above ~1.5 something "
                 "else was running).")
    lines = [
        f"## SQLite and PostgreSQL side by side ({time.strftime('%Y-%m-%dT%H:%MZ', started)}, {os.cpu_count()} cores)",
        "",
        f"Median (min–max) of {RUNS} runs; `× ` is the median's ratio to SQLite's in the same run (above 1 is more "
        f"requests, or a longer time). HTTP rows: `wrk -t1 -c{CONNECTIONS} -d{DURATION}s` (MCP: `-c10`), two nodes: "
        f"two wrk at once, each with half the connections, the rates summed; fan-out and wake-up on two nodes: the "
        f"change on one, the streams or the wait on the other. Binary: `{BINARY}`. PostgreSQL on loopback, a "
        f"cluster of the run's own: {settings}.",
        "",
        "| row | " + " | ".join(COLUMNS) + " |",
        "|---|---:|---:|---:|",
        *TABLE,
        "",
        "CPU time a request (relaydeckd, all nodes and threads; + the PostgreSQL cluster's processes), from "
        "`/proc/<pid>/stat` over each run:",
        "",
        "| row | " + " | ".join(COLUMNS) + " |",
        "|---|---:|---:|---:|",
        *CPU_TABLE,
        "",
        *[f"- {note}" for note in NOTES],
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "bench/results").mkdir(exist_ok=True)
    (ROOT / "bench/results/stores.md").write_text(text)


if __name__ == "__main__":
    main()
