#!/usr/bin/env python3
"""The benchmarks of issue 12, one command: `make bench` (or `python3 bench/bench.py [ROW...]`).

Each row starts its own relaydeckd (the static release binary) on loopback with a fresh
database in a temporary directory, warms up, runs a fixed amount of work, and prints its
figure next to the reference measured in the same run (nginx for HTTP, a server on the
official Python MCP SDK for MCP), with min / median / max over BENCH_RUNS runs. The table goes
to stdout and to bench/results/latest.md. See bench/README.md for what each row measures.

Rows: health task-get task-write task-write-full push-devices mcp fanout wakeup capacity idle start growth
purge streams wal (default: all; the last four are "how cost grows", bench/scale.py and
`make bench-scale`).
Settings (environment): RELAYDECKD, BENCH_RUNS (3), BENCH_DURATION (10 s of wrk per run),
BENCH_CONNECTIONS (50), BENCH_ROUNDS (200 timed events per run for fan-out and wake-up),
BENCH_CAPACITY (10000 streams and as many parked waits), BENCH_START_TASKS (100000).
"""

import json
import os
import selectors
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from common import (BINARY, CAPACITY, CONNECTIONS, DURATION, GROWTH_ACCOUNTS, GROWTH_READERS, GROWTH_TASKS, LUA, MCP_VERSION, NOTES,
                    PUSH_ACCOUNTS, PYTHON, RESULTS, ROOT, RUNS, START_TASKS, WORK, Server, _children, absolute,
                    await_marker, call, compare, copy_tasks, cpu_note, fmt, free_port, log, measured, new_account,
                    open_stream, raise_fd_limit, row, rss_kb, start_to_ready, wrk)
from latency import Fanout, Wakeup
from push_devices import populate, push_env, register_devices
from scale import bench_purge, bench_streams, bench_wal

# --- rows -----------------------------------------------------------------------------------

def bench_health():
    server = Server()
    body = json.dumps(call(server.port, "GET", "/health"), separators=(",", ":"))
    compare("`GET /health`, 50 connections", "/health", (server.port, {}), {"= /health": (200, body)}, 0.95, ours_pid=server.pid)
    server.stop()


def raw_body(port, path, key) -> str:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"X-API-Key": key})
    with urllib.request.urlopen(request) as response:
        return response.read().decode()


def bench_task_get():
    """`GET /v1/tasks/{id}` with an API key: 20 keys of one account, each reading a task of its
    own, take turns (bench/lua/task_get.lua), so that no key comes near its rate limit."""
    server = Server()
    _, keys = new_account(server.port, 20)
    gets = []
    for _, secret in keys:
        task = call(server.port, "POST", "/v1/tasks", {"title": "Benchmark the server", "description": "A task to read."},
                    key=secret, expect=201)
        gets.append((task["id"], secret))
    body = raw_body(server.port, f"/v1/tasks/{gets[0][0]}", gets[0][1])
    compare("`GET /v1/tasks/{id}` with an API key", "/v1/tasks/", (server.port, {}), {"/v1/tasks/": (200, body)}, 0.6,
            script=LUA / "task_get.lua", env={"BENCH_GETS": ",".join(f"{t}={s}" for t, s in gets)}, ours_pid=server.pid)
    server.stop()


def bench_task_write(durability: str = "normal"):
    """POST /v1/tasks, then PATCH of that task's progress to done (bench/lua/task_write.lua:
    each 201's id goes to a queue; the next request PATCHes it). Twenty keys of one account
    take turns so that no key reaches its cap of open tasks. `durability`: the server's
    DURABILITY (the row `task-write-full` is the same with `full`)."""
    server = Server({"DURABILITY": durability})
    _, keys = new_account(server.port, 20)
    task = call(server.port, "POST", "/v1/tasks", {"title": "bench"}, key=keys[0][1], expect=201)
    body = json.dumps(task, separators=(",", ":"))
    env = {"BENCH_KEYS": ",".join(f"{key_id}={secret}" for key_id, secret in keys)}
    name = "`POST /v1/tasks` + `PATCH` progress (one commit each)"
    name += f", `DURABILITY={durability}`"
    compare(name, "/v1/tasks", (server.port, {}),
            {"= /v1/tasks": (201, body), "/v1/tasks/": (200, body)}, 0.3, script=LUA / "task_write.lua", env=env,
            ours_pid=server.pid)
    db = sqlite3.connect(server.db)
    open_tasks = db.execute("SELECT count(*) FROM tasks WHERE status IN ('todo', 'in_progress')").fetchone()[0]
    db.close()
    NOTES.append(f"task write ({durability}): {open_tasks} tasks left open at the end (a 201 whose PATCH did not come before wrk "
                 f"stopped); every answer was 2xx.")
    server.stop()


def bench_push_devices():
    """The task-write row with push on (bench/push_devices.py: APNs that never answers, so
    every push planned stays in the outbox) and 20 devices on the writing account, on a
    server of BENCH_PUSH_ACCOUNTS (200) more accounts of 20 devices, each with a task, so that
    the coalescing windows of thousands of devices are in `push_windows` while it runs."""
    server = Server(push_env(WORK))
    populate(server.port, PUSH_ACCOUNTS)
    token, keys = new_account(server.port, 20)
    register_devices(server.port, token, 20)
    task = call(server.port, "POST", "/v1/tasks", {"title": "bench"}, key=keys[0][1], expect=201)
    body = json.dumps(task, separators=(",", ":"))
    env = {"BENCH_KEYS": ",".join(f"{key_id}={secret}" for key_id, secret in keys)}
    compare(f"task write, push on, 20 devices on the account ({PUSH_ACCOUNTS} more accounts of 20)", "/v1/tasks",
            (server.port, {}), {"= /v1/tasks": (201, body), "/v1/tasks/": (200, body)}, 0.3,
            script=LUA / "task_write.lua", env=env, ours_pid=server.pid)
    db = sqlite3.connect(server.db)
    windows, jobs = (db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("push_windows", "push_jobs"))
    db.close()
    NOTES.append(f"push devices: {windows:,} coalescing windows and {jobs:,} push jobs in the outbox at the end "
                 "(APNs never answered, so every planned push stayed).")
    server.stop()


def bench_mcp():
    """`tools/call update_task` (progress changes each call) against relaydeckd and against
    bench/mcp_reference.py (MCPServer of the `mcp` SDK under uvicorn, stateless, JSON answers,
    one SQLite UPDATE committed per call)."""
    server = Server()
    _, keys = new_account(server.port, 10)
    calls = [(call(server.port, "POST", "/v1/tasks", {"title": "bench"}, key=secret, expect=201)["id"], secret)
             for _, secret in keys]
    ref_port = free_port()
    ref_dir = WORK / "mcp-reference"
    ref_dir.mkdir()
    reference = subprocess.Popen([PYTHON, str(ROOT / "bench/mcp_reference.py"), str(ref_port), str(ref_dir / "ref.db")],
                                 stdout=open(ref_dir / "log", "wb"), stderr=subprocess.STDOUT)
    _children.append(reference)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", ref_port)).close()
            break
        except OSError:
            time.sleep(0.05)
    ours, ref, ours_cpu, ref_cpu = [], [], [], []
    per_request = {"relaydeckd": [], "mcp SDK": []}
    pids = {"relaydeckd": [server.pid], "mcp SDK": [reference.pid]}
    sides = (("relaydeckd", server.port, {"BENCH_MCP_CALLS": ",".join(f"{t}={s}" for t, s in calls),
                                          "BENCH_MCP_VERSION": MCP_VERSION}, ours, ours_cpu),
             ("mcp SDK", ref_port, {"BENCH_MCP_TASK": "tsk_bench", "BENCH_MCP_VERSION": "2025-06-18"}, ref, ref_cpu))
    try:
        for name, port, env, _, _ in sides:
            wrk(f"http://127.0.0.1:{port}/mcp", LUA / "mcp_update_task.lua", duration=2, connections=10, env=env)
        for run in range(RUNS):
            for name, port, env, figures, cpu in sides:
                result = measured(f"http://127.0.0.1:{port}/mcp", pids[name], LUA / "mcp_update_task.lua", env=env,
                                  connections=10)
                per_request[name].append(result["cpu_per_request"])
                if result["non2xx"] or result["errors"]:
                    raise SystemExit(f"bench: mcp {name}: {result['non2xx']} non-2xx, {result['errors']} errors\n"
                                     f"{result['out']}")
                figures.append(result["rps"])
                cpu.append(result["cpu"])
                log(f"mcp run {run + 1}: {name} {result['rps']:,.0f} calls/s (wrk CPU {result['cpu']:.0%})")
    finally:
        reference.terminate()
        reference.wait(timeout=10)
        server.stop()
    row("MCP `tools/call update_task`, 10 connections", ours, ref, 40, ours_cpu, ref_cpu, unit=" calls/s")
    cpu_note("MCP", list(per_request.items()))
    # What the reference's process used: it is one Python process on one core.
    versions = subprocess.run([PYTHON, "-c", "from importlib.metadata import version as v; "
                               "print(f\"mcp {v('mcp')}, uvicorn {v('uvicorn')}\")"],
                              capture_output=True, text=True).stdout.strip() or "versions unknown"
    NOTES.append(f"MCP: the reference ({versions}; stateless streamable HTTP, JSON answers, no access log) is one "
                 "uvicorn process (one core, as the SDK runs it); relaydeckd is one process with one loop too.")


def bench_fanout():
    """1,000 event streams open (16 per account, the contract's most, so 63 accounts). Per
    round one PATCH: time until all 16 streams of its account have the `task.updated` (the
    row's figure, p99 over the rounds); then a PATCH in every account at once: time until all
    1,000 streams have their account's event (bench/latency.py)."""
    server = Server({"MAX_CONNECTIONS": "5000"})
    fanout = Fanout(server.port, server.port)
    per_run, burst_runs = [], []
    for run in range(RUNS):
        p99, burst = fanout.run(f" run {run + 1}")
        per_run.append(p99)
        burst_runs.append(burst)
    fanout.close()
    server.stop()
    absolute(f"fan-out: 1 `PATCH`, its account's 16 streams (of {len(fanout.streams)} open), p99", per_run, " ms",
             "p99 < 5 ms", statistics.median(per_run) < 5, 2)
    absolute(f"fan-out: a `PATCH` in each of {len(fanout.accounts)} accounts, all {len(fanout.streams)} streams have it",
             burst_runs, " ms", "–", None, 2)


def bench_wakeup():
    """A parked `GET /v1/inbox?wait=50`; the account sends the key a message; time from the
    send until the parked call's answer is in (bench/latency.py)."""
    server = Server()
    wakeup = Wakeup(server.port, server.port, RUNS)
    per_run = [wakeup.run(f" run {run + 1}") for run in range(RUNS)]
    wakeup.close()
    server.stop()
    absolute("wake-up: message sent → parked `GET /v1/inbox?wait=50` answered, p99", per_run, " ms", "p99 < 1 ms",
             statistics.median(per_run) < 1, 3)


def bench_capacity():
    """BENCH_CAPACITY event streams (16 an account) and as many parked `GET /v1/inbox?wait=50`
    (32 a key, 20 keys an account) open at once; the server's resident memory then, /health's
    time meanwhile, and no error: every stream has `ready`, no parked call has answered."""
    capacity = CAPACITY
    limit = raise_fd_limit(2 * CAPACITY + 100)
    if limit < 2 * CAPACITY + 100:
        # Both the server and this client hold every connection: each needs 2 × capacity
        # descriptors plus its own few.
        capacity = (limit - 100) // 2
        NOTES.append(f"capacity: the hard open-file limit here is {limit} and cannot be raised (no CAP_SYS_RESOURCE), "
                     f"so the row ran with {capacity:,} streams and {capacity:,} parked waits instead of {CAPACITY:,}; "
                     f"the memory per connection is in the note below.")
    figures, health, per_connection = [], [], []
    for run in range(RUNS):
        server = Server({"MAX_CONNECTIONS": str(2 * capacity + 1000)})
        time.sleep(0.5)
        idle = rss_kb(server.pid)
        streams = []
        for _ in range((capacity + 15) // 16):
            token, _ = new_account(server.port, 0)
            streams += [open_stream(server.port, token) for _ in range(min(16, capacity - len(streams)))]
        await_marker(streams, b"event: ready", 120)
        waits = []
        while len(waits) < capacity:
            _, keys = new_account(server.port, 20)
            for _, secret in keys:
                for _ in range(min(32, capacity - len(waits))):
                    sock = socket.create_connection(("127.0.0.1", server.port))
                    sock.sendall(f"GET /v1/inbox?wait=50 HTTP/1.1\r\nHost: b\r\nX-API-Key: {secret}\r\n\r\n".encode())
                    waits.append(sock)
        time.sleep(2)
        # No parked call may have answered (a 429 or 503 would be an error).
        selector = selectors.DefaultSelector()
        for sock in waits:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        answered = selector.select(0.2)
        selector.close()
        if answered:
            data = answered[0][0].fileobj.recv(500)
            raise SystemExit(f"bench: {len(answered)} parked calls answered early: {data!r}")
        started = time.monotonic()
        call(server.port, "GET", "/health", expect=200)
        health.append((time.monotonic() - started) * 1000)
        figures.append(rss_kb(server.pid) / 1024)
        per_connection.append((rss_kb(server.pid) - idle) / (2 * capacity))
        log(f"capacity run {run + 1}: {len(streams)} streams + {len(waits)} parked waits, RSS {figures[-1]:.1f} MB, "
            f"/health in {health[-1]:.2f} ms")
        for sock in streams + waits:
            sock.close()
        server.stop()
    absolute(f"capacity: {capacity:,} streams + {capacity:,} parked waits, RSS", figures, " MB", "< 150 MB",
             statistics.median(figures) < 150)
    NOTES.append(f"capacity: `GET /health` answered in {fmt(health, ' ms', 2)} with all of them open; each open "
                 f"stream or parked wait costs {fmt(per_connection, ' kB', 2)} of resident memory "
                 f"(so {CAPACITY:,} + {CAPACITY:,} would be about "
                 f"{(statistics.median(figures) * 1024 + statistics.median(per_connection) * 2 * (CAPACITY - capacity)) / 1024:.0f} MB).")


def bench_idle():
    figures = []
    for _ in range(max(RUNS, 3)):
        server = Server()
        time.sleep(1)
        figures.append(rss_kb(server.pid) / 1024)
        server.stop()
    absolute("idle: resident memory after start", figures, " MB", "< 12 MB", statistics.median(figures) < 12)


def build_start_database(path: Path, tasks: int):
    """A database with `tasks` tasks: made by the server (accounts, keys, one task each through
    the API), then the rows copied in by sqlite3 with the per-key counts kept right. 100 keys
    (5 accounts of 20) hold 1,000 tasks each (the open ones under the cap)."""
    server = Server(db=path)
    keys = []
    for _ in range(5):
        _, made = new_account(server.port, 20)
        keys += made
    for _, secret in keys:
        call(server.port, "POST", "/v1/tasks", {"title": "template", "description": "A task of the start benchmark."},
             key=secret, expect=201)
    server.stop()
    db = sqlite3.connect(path)
    key_accounts = dict(db.execute("SELECT id, account_id FROM keys"))
    db.close()
    per_key = tasks // len(key_accounts)
    return copy_tasks(path, [(key_id, account_id, per_key, 200) for key_id, account_id in key_accounts.items()])


def bench_start():
    """exec to `READY=1` with a database of BENCH_START_TASKS tasks (`start_to_ready`)."""
    path = WORK / "start.db"
    count = build_start_database(path, START_TASKS)
    figures = start_to_ready(path, RUNS)
    absolute(f"start: exec → `READY=1`, {count:,} tasks", figures, " ms", "< 100 ms", statistics.median(figures) < 100)


def build_growth_database(path: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]], int]:
    """BENCH_GROWTH_ACCOUNTS accounts of 20 keys (made through the API) holding
    BENCH_GROWTH_TASKS tasks: the first key 5,000 (the page row reads it), the first
    account's other keys none (the write row's keys, far from their cap), the rest spread
    over the other keys, 50 of each key's open. Returns the first account's keys, the GET
    row's readers (a task and the secret of GROWTH_READERS keys of the second account, each
    reading a task of its own) and the tasks in the file."""
    server = Server(db=path)
    accounts = []
    for n in range(GROWTH_ACCOUNTS):
        _, made = new_account(server.port, 20)
        accounts.append(made)
    first = accounts[0]
    call(server.port, "POST", "/v1/tasks", {"title": "template", "description": "A task of the growth benchmark."},
         key=first[0][1], expect=201)
    server.stop()
    db = sqlite3.connect(path)
    key_accounts = list(db.execute("SELECT id, account_id FROM keys"))
    db.close()
    writers = {key_id for key_id, _ in first[1:]}
    others = [(k, a) for k, a in key_accounts if k != first[0][0] and k not in writers]
    per_key = max(1, max(0, GROWTH_TASKS - 5_000) // max(1, len(others)))
    account = dict(key_accounts)[first[0][0]]
    plan = [(first[0][0], account, 5_000, 50)] + [(k, a, per_key, min(50, per_key)) for k, a in others]
    count = copy_tasks(path, plan)
    db = sqlite3.connect(path)
    readers = [(db.execute("SELECT id FROM tasks WHERE key_id = ? LIMIT 1", (key_id,)).fetchone()[0], secret)
               for key_id, secret in (accounts[1] if len(accounts) > 1 else first)[:GROWTH_READERS]]
    db.close()
    return first, readers, count


def build_empty_store(path: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """One account of 20 keys; the first key holds 100 tasks (one full page), and each of the
    next GROWTH_READERS one, which it reads in the GET row."""
    server = Server(db=path)
    _, keys = new_account(server.port, 20)
    for n in range(100):
        call(server.port, "POST", "/v1/tasks", {"title": f"task {n}", "description": "A task of the growth benchmark."},
             key=keys[0][1], expect=201)
    readers = [(call(server.port, "POST", "/v1/tasks", {"title": "read me", "description": "A task of the growth benchmark."},
                     key=secret, expect=201)["id"], secret) for _, secret in keys[1:1 + GROWTH_READERS]]
    server.stop()
    return keys, readers


def bench_growth():
    """How cost grows: the same reads and writes on an empty store and on one of
    BENCH_GROWTH_TASKS tasks over BENCH_GROWTH_ACCOUNTS × 20 keys, alternating, each with a
    server of its own: a task GET, a page of 100 of a key's tasks (5,000 of them in the
    large store), the task-write script, start to `READY=1`, resident memory after the
    runs. Target: each within 1.5 × its figure on the empty store."""
    large_path, empty_path = WORK / "growth-large.db", WORK / "growth-empty.db"
    started = time.monotonic()
    large_keys, large_readers, count = build_growth_database(large_path)
    log(f"growth: built {count:,} tasks over {GROWTH_ACCOUNTS * 20:,} keys in {time.monotonic() - started:.0f} s")
    empty_keys, empty_readers = build_empty_store(empty_path)
    stores = {"large": (large_path, large_keys, large_readers), "empty": (empty_path, empty_keys, empty_readers)}
    figures = {(store, what): [] for store in stores for what in ("get", "page", "write", "get cpu", "page cpu", "write cpu")}
    memory = {store: [] for store in stores}
    for run in range(RUNS):
        for store, (path, keys, readers) in stores.items():
            server = Server(db=path)
            secret = keys[0][1]
            url = f"http://127.0.0.1:{server.port}"
            env = {"BENCH_KEYS": ",".join(f"{key_id}={key_secret}" for key_id, key_secret in keys[1:])}
            gets = {"BENCH_GETS": ",".join(f"{task}={reader}" for task, reader in readers)}
            # The GET row's keys take turns (bench/lua/task_get.lua): at 70,000 reads a second
            # one key would pass the bench's rate limit within a server's first minute.
            loads = (("get", f"{url}/v1/tasks/{readers[0][0]}", LUA / "task_get.lua", None, gets),
                     ("page", f"{url}/v1/tasks?limit=100", None, {"X-API-Key": secret}, None),
                     ("write", f"{url}/v1/tasks", LUA / "task_write.lua", None, env))
            for what, target, script, headers, wrk_env in loads:
                if run == 0:
                    wrk(target, script, headers, duration=2, env=wrk_env)
                result = measured(target, [server.pid], script, headers, env=wrk_env)
                if result["non2xx"] or result["errors"]:
                    raise SystemExit(f"bench: growth {store} {what}: {result['non2xx']} non-2xx, {result['errors']} "
                                     f"errors\n{result['out']}")
                figures[(store, what)].append(result["rps"])
                figures[(store, what + " cpu")].append(result["cpu_per_request"])
                log(f"growth run {run + 1}: {store} {what} {result['rps']:,.0f} req/s, "
                    f"{result['cpu_per_request']:.1f} µs CPU per request")
            memory[store].append(rss_kb(server.pid) / 1024)
            server.stop()
    names = {"get": "`GET /v1/tasks/{id}`", "page": "`GET /v1/tasks?limit=100`", "write": "task write script"}
    for what, name in names.items():
        row(f"growth: {name}, {count:,} tasks vs an empty store", figures[("large", what)], figures[("empty", what)],
            round(1 / 1.5, 2))
        cpu_note(f"growth: {name}", [("large", figures[("large", what + " cpu")]),
                                      ("empty", figures[("empty", what + " cpu")])])
    start_large, start_empty = start_to_ready(large_path, RUNS), start_to_ready(empty_path, RUNS)
    absolute(f"growth: exec → `READY=1`, {count:,} tasks (empty store: {fmt(start_empty, ' ms', 1)})", start_large,
             " ms", "≤ 1.5 × empty", statistics.median(start_large) <= 1.5 * statistics.median(start_empty))
    absolute(f"growth: resident memory after the runs, {count:,} tasks (empty store: {fmt(memory['empty'], ' MB', 1)})",
             memory["large"], " MB", "≤ 1.5 × empty", statistics.median(memory["large"]) <= 1.5 * statistics.median(memory["empty"]))


ROWS = {
    "health": bench_health,
    "task-get": bench_task_get,
    "task-write": bench_task_write,
    "task-write-full": lambda: bench_task_write("full"),
    "push-devices": bench_push_devices,
    "mcp": bench_mcp,
    "fanout": bench_fanout,
    "wakeup": bench_wakeup,
    "capacity": bench_capacity,
    "idle": bench_idle,
    "start": bench_start,
    "growth": bench_growth,
    "purge": bench_purge,
    "streams": bench_streams,
    "wal": bench_wal,
}


def main():
    chosen = sys.argv[1:] or list(ROWS)
    unknown = [name for name in chosen if name not in ROWS]
    if unknown:
        raise SystemExit(f"bench: unknown rows {unknown}; rows: {' '.join(ROWS)}")
    if not BINARY.exists():
        raise SystemExit(f"bench: {BINARY} is missing (make build)")
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            raise SystemExit(f"bench: {tool} is missing (make bench installs it)")
    try:
        loads = []
        for name in chosen:
            loads.append(f"{name} {os.getloadavg()[0]:.1f}")
            log(f"== {name} (load average {os.getloadavg()[0]:.1f})")
            ROWS[name]()
        NOTES.append("Load average (1 min) when each row began: " + ", ".join(loads) + " (2 cores: above ~1.5 "
                     "something else was running).")
    finally:
        for child in _children:
            if child.poll() is None:
                child.kill()
                child.wait()
        shutil.rmtree(WORK, ignore_errors=True)
    nginx_version = subprocess.run(["nginx", "-v"], capture_output=True, text=True).stderr.strip().split("/")[-1]
    lines = [
        f"## Relaydeck Server benchmarks ({time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, {os.cpu_count()} cores)",
        "",
        f"Median (min–max) of {RUNS} runs. HTTP rows: `wrk -t1 -c{CONNECTIONS} -d{DURATION}s` (MCP: `-c10`), "
        f"keep-alive, loopback, alternating relaydeckd and the reference; nginx {nginx_version}, one worker, "
        f"`return` with the same bodies. Ratio = median / median.",
        "",
        "| benchmark | relaydeckd | reference | ratio | target | |",
        "|---|---:|---:|---:|---|---|",
        *RESULTS,
        "",
        *[f"- {note}" for note in NOTES],
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "bench/results").mkdir(exist_ok=True)
    (ROOT / "bench/results/latest.md").write_text(text)


if __name__ == "__main__":
    main()
