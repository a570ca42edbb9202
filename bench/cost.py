#!/usr/bin/env python3
"""The cost of one request, measured by what the machine's load does not move (issue 20).

    bench/cost.py [--callgrind [--profile]] [--postgres] [--requests N] [--connections C] [ROW...]

A fixed workload against relaydeckd: C connections in lockstep (each sends one request, then
every answer is read before the next round), N requests after a warm-up, a server of its own
for each run.

- Without `--callgrind` (C = 10 unless given, 20,000 requests): the server's CPU time per
  request in µs (user + system of all its threads from /proc/<pid>/stat, what getrusage gives
  a process of itself), median (min–max) of BENCH_COST_RUNS runs (5). A turn of the loop holds
  the C requests of a round, so a write's group commit serves C writes, as under `wrk -c10`.
  Time the process waited for a core is not in it, so a shared machine moves it far less than
  requests per second.
- With `--callgrind` (C = 1 unless given, 2,000 requests): the server runs under valgrind's
  callgrind; the counters are zeroed after the warm-up (`callgrind_control -z`) and dumped
  after the workload (`-d`): instructions per request, the same for the same binary and
  inputs within about 1%. At valgrind's pace a request outlasts the loop's turn budget
  (4 ms), so every request is a turn and a COMMIT of its own whatever C is (one connection
  says so), and the activity batch (20 ms) holds a few entries instead of a hundred: compare
  instruction counts with instruction counts, not with the CPU time. Valgrind 3.19 cannot read
  the DWARF 5 of Swift 6.3, so it runs a copy of the binary without its debug sections (`strip
  --strip-debug`: the symbols stay). `--profile` prints the functions with the most own
  instructions and keeps the dump (call sites apart, `--dump-instr=yes`) as
  bench/results/callgrind.<row>.out for bench/callgrind_read.py.

With `--postgres` the store is PostgreSQL: a cluster of the run's own (bench/cost_postgres.py:
bench/postgres.py's), a new database for each server. Beside relaydeckd's figure each row then
says what the database did for a request over the same requests: with `--callgrind`, the
statements relaydeckd sent, the round trips (its batches, counted in the dump) and its
COMMITs, and below the table each statement's calls per request (the cluster logs them, which
costs it CPU time); without, the CPU time of the cluster's processes. The activity log's
batch leaves 20 ms after its first entry, so how many entries a batch holds, and so a GET's
figures, move a few % with the pace of a run.

Rows: health (`GET /health`), task-get (`GET /v1/tasks/{id}` with an API key), task-write
(`POST /v1/tasks`, then a `PATCH` of that task to done: each a committed write; 20 keys take
turns), task-write-full (the same with `DURABILITY=full`: an `fsync` at each COMMIT), mcp (`tools/call update_task` on one task, a new progress each call), push-devices
(the task-write workload on an account with 20 devices registered for push and APNs on: every
write plans pushes and prunes the coalescing windows, on a server of BENCH_PUSH_ACCOUNTS (200)
more accounts with 20 devices each; see bench/push_devices.py). Default:
all but push-devices. Output: stdout and bench/results/cost.md (cost-callgrind.md).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cost_postgres import CostCluster
from common import PUSH_ACCOUNTS, MCP_VERSION, ROOT, BINARY, WORK, Server, _children, call, cpu_seconds, log, new_account
from callgrind_read import Dump, print_self
from push_devices import populate, push_env, register_devices

_port = 0
COST_RUNS = int(os.environ.get("BENCH_COST_RUNS", "5"))
RESULTS = ROOT / "bench/results"
# The run's PostgreSQL (`--postgres`), and what it counted for each row's last run.
CLUSTER: CostCluster | None = None
DATABASE_COUNTS: dict[str, list[dict]] = {}


class Connection:
    """A keep-alive connection that sends one request and reads one answer (Content-Length
    framing: none of these answers is chunked)."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def answer(self) -> tuple[int, bytes]:
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.receive()
        head, rest = self.buffer.split(b"\r\n\r\n", 1)
        length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
        while len(rest) < length:
            rest += self.receive()
        self.buffer = rest[length:]
        return int(head[9:12]), rest[:length]

    def receive(self) -> bytes:
        chunk = self.sock.recv(262144)
        if not chunk:
            raise SystemExit("cost: the server closed a connection")
        return chunk


def request(method: str, path: str, headers: dict, body: bytes = b"") -> bytes:
    """The request's bytes; `Host` is the server's address, as wrk sends it (`/mcp` checks
    it against the server's own names)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{_port}", *(f"{k}: {v}" for k, v in headers.items())]
    if body or method in ("POST", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def lockstep(connections: list[Connection], requests: list[bytes], expect: int) -> list[bytes]:
    """Sends requests[i] on connections[i], all of them, then reads every answer."""
    for connection, data in zip(connections, requests):
        connection.sock.sendall(data)
    bodies = []
    for connection in connections:
        status, body = connection.answer()
        if status != expect:
            raise SystemExit(f"cost: expected {expect}, got {status}: {body[:300]!r}")
        bodies.append(body)
    return bodies


# --- the workloads: each takes the server and the connections, and returns a function that
# runs `rounds` rounds of lockstep and gives the number of requests it sent.

def health(server: Server, connections: list[Connection]):
    data = request("GET", "/health", {})

    def run(rounds: int) -> int:
        for _ in range(rounds):
            lockstep(connections, [data] * len(connections), 200)
        return rounds * len(connections)
    return run


def task_get(server: Server, connections: list[Connection]):
    _, [(_, secret)] = new_account(server.port)
    task = call(server.port, "POST", "/v1/tasks", {"title": "Benchmark the server", "description": "A task to read."},
                key=secret, expect=201)
    data = request("GET", f"/v1/tasks/{task['id']}", {"X-API-Key": secret})

    def run(rounds: int) -> int:
        for _ in range(rounds):
            lockstep(connections, [data] * len(connections), 200)
        return rounds * len(connections)
    return run


def task_write(server: Server, connections: list[Connection], keys=None):
    """A round of POSTs (one per connection, the keys taking turns), then a round of PATCHes
    of those tasks (progress 100, done), as bench/lua/task_write.lua does under wrk. A
    request counts one: a round pair is 2 × C requests."""
    if keys is None:
        _, keys = new_account(server.port, 20)
    secrets = [secret for _, secret in keys]
    state = {"n": 0}
    patch = b'{"progress":100,"status":"done"}'

    def run(rounds: int) -> int:
        sent = 0
        for _ in range(max(1, rounds // 2)):
            posts, used = [], []
            for _ in connections:
                state["n"] += 1
                secret = secrets[state["n"] % len(secrets)]
                body = f'{{"title":"Benchmark task {state["n"]}","priority":"high"}}'.encode()
                posts.append(request("POST", "/v1/tasks", {"X-API-Key": secret, "Content-Type": "application/json"}, body))
                used.append(secret)
            made = lockstep(connections, posts, 201)
            patches = [request("PATCH", f"/v1/tasks/{json.loads(body)['id']}",
                               {"X-API-Key": secret, "Content-Type": "application/json"}, patch)
                       for body, secret in zip(made, used)]
            lockstep(connections, patches, 200)
            sent += 2 * len(connections)
        return sent
    return run


def mcp(server: Server, connections: list[Connection]):
    """`tools/call update_task` as bench/lua/mcp_update_task.lua sends it (2026-07-28, the
    `_meta` fields and the Mcp-Method / Mcp-Name headers), a new progress each call."""
    _, [(_, secret)] = new_account(server.port)
    task = call(server.port, "POST", "/v1/tasks", {"title": "bench"}, key=secret, expect=201)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": MCP_VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "update_task",
               "Authorization": f"Bearer {secret}"}
    meta = (',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1.0"},'
            '"io.modelcontextprotocol/clientCapabilities":{}}')
    state = {"n": 0}

    def run(rounds: int) -> int:
        for _ in range(rounds):
            batch = []
            for _ in connections:
                state["n"] += 1
                body = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"update_task",'
                        '"arguments":{"task_id":"%s","progress":%d}%s}}' % (state["n"], task["id"], state["n"] % 100, meta))
                batch.append(request("POST", "/mcp", headers, body.encode()))
            for body in lockstep(connections, batch, 200):
                if b'"isError":false' not in body:
                    raise SystemExit(f"cost: the tool call failed: {body[:300]!r}")
        return rounds * len(connections)
    return run


def push_devices(server: Server, connections: list[Connection]):
    """The task-write workload on an account whose 20 devices are registered for push, on a
    server of BENCH_PUSH_ACCOUNTS (200) more accounts of 20 devices, each with a task."""
    populate(server.port, PUSH_ACCOUNTS)
    token, keys = new_account(server.port, 20)
    register_devices(server.port, token, 20)
    return task_write(server, connections, keys)


ROWS = {"health": health, "task-get": task_get, "task-write": task_write, "task-write-full": task_write, "mcp": mcp,
        "push-devices": push_devices}
DEFAULT_ROWS = ["health", "task-get", "task-write", "mcp"]


# --- measuring ------------------------------------------------------------------------------

def stripped_binary() -> Path:
    """The release binary without its debug sections, for valgrind (see the top): one copy per
    binary (`RELAYDECKD` may name an earlier build), made again when the binary is newer."""
    tag = hashlib.sha256(str(BINARY.resolve()).encode()).hexdigest()[:12]
    target = ROOT / f".build/cost/relaydeckd-nodebug-{tag}"
    if not target.exists() or target.stat().st_mtime < BINARY.stat().st_mtime:
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["strip", "--strip-debug", "-o", str(target), str(BINARY)], check=True)
    return target


def settle():
    """Lets the server finish what the last round left (the activity batch leaves 20 ms after
    its first entry), so that it falls on the right side of the measurement."""
    time.sleep(0.1)


def measure(row: str, requests: int, width: int, callgrind: bool, profile: bool) -> float:
    """One run: a server of its own, the warm-up, then `requests` requests. Returns µs of CPU
    per request, or instructions per request under callgrind."""
    env = push_env(WORK) if row == "push-devices" else {"DURABILITY": "full"} if row == "task-write-full" else {}
    database = None
    if CLUSTER:
        database, env["DATABASE_URL"] = CLUSTER.new_database()
    if callgrind:
        out = WORK / f"callgrind.{row}"
        server = Server(env, wrapper=["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={out}"],
                        binary=stripped_binary(), start_timeout=120)
    else:
        server = Server(env)
    global _port
    _port = server.port
    try:
        connections = [Connection(server.port) for _ in range(width)]
        run = ROWS[row](server, connections)
        run(max(2, (200 if callgrind else 2000) // width))
        settle()
        if database:
            log_offset = CLUSTER.reset(database)
            database_before = CLUSTER.cpu_seconds()
        if callgrind:
            subprocess.run(["callgrind_control", "-z", str(server.pid)], check=True, capture_output=True)
        else:
            before = cpu_seconds([server.pid])
        sent = run(max(2, requests // width))
        settle()
        if database:
            database_us = (CLUSTER.cpu_seconds() - database_before) * 1e6 / sent
            DATABASE_COUNTS.setdefault(row, []).append({"requests": sent, "statements": CLUSTER.statements(database, log_offset),
                                                        "cpu": database_us})
        if callgrind:
            subprocess.run(["callgrind_control", "-d", str(server.pid)], check=True, capture_output=True)
            dump = Path(f"{out}.1")
            total = int(re.search(r"^totals: (\d+)", dump.read_text(errors="replace"), re.M).group(1))
            if database:
                DATABASE_COUNTS[row][-1]["batches"] = batches_sent(dump)
            if profile:
                RESULTS.mkdir(exist_ok=True)
                kept = RESULTS / f"callgrind.{row}.out"
                shutil.copy(dump, kept)
                print_profile(kept, sent)
            return total / sent
        return (cpu_seconds([server.pid]) - before) * 1e6 / sent
    finally:
        for connection in locals().get("connections", []):
            connection.sock.close()
        server.stop()


def batches_sent(dump: Path) -> int:
    """The round trips to PostgreSQL in a dump: the calls of `PostgresConnection.run`, which
    sends one batch each (a statement is not a round trip: BEGIN goes with the first
    statement of its transaction)."""
    read = Dump(str(dump))
    return sum(read.called(function) for function in read.functions
               if read.shown[function] == "PostgresConnection.run(_:completion:)")


def print_profile(dump: Path, requests: int):
    """Where the instructions went: the functions with the most of their own, per request
    (bench/callgrind_read.py reads the dump further)."""
    print(f"\n{dump.name} ({requests:,} requests): own instructions per request")
    print_self(Dump(str(dump)), requests, 40)


def database_cells(row: str, callgrind: bool) -> str:
    """`--postgres`: a row's statements and transactions per request (its last run: those
    relaydeckd sent, and its COMMITs), and the cluster's CPU time per request, median
    (min–max) of the runs."""
    counts = DATABASE_COUNTS.get(row, [])
    if not callgrind:
        cpu = [count["cpu"] for count in counts]
        return f" {statistics.median(cpu):,.1f} ({min(cpu):,.1f}–{max(cpu):,.1f}) |"
    last = counts[-1]
    sent = [(calls, query) for calls, toplevel, query in last["statements"] if toplevel]
    top = sum(calls for calls, _ in sent) / last["requests"]
    commits = sum(calls for calls, query in sent if query == "COMMIT") / last["requests"]
    return f" {top:.2f} | {last['batches'] / last['requests']:.2f} | {commits:.2f} |"


def statement_lines(row: str) -> list[str]:
    """Each statement of a row's last run, with its calls per request (at least 0.01)."""
    counts = DATABASE_COUNTS.get(row, [])
    if not counts or not counts[-1]["statements"]:
        return []
    last = counts[-1]
    lines = ["", f"{row}: statements per request (the server's log; nested: run by a trigger's function, "
                 "pg_stat_statements)", ""]
    for calls, toplevel, query in last["statements"]:
        if calls / last["requests"] >= 0.01:
            shown = query if len(query) <= 160 else query[:157] + "..."
            lines.append(f"- {calls / last['requests']:.2f}{'' if toplevel else ' nested'}: `{shown}`")
    return lines


def main():
    global CLUSTER
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="*", metavar="ROW", help=" ".join(ROWS))
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--profile", action="store_true", help="with --callgrind: where the instructions went")
    parser.add_argument("--postgres", action="store_true", help="the store on PostgreSQL (a cluster of the run's own)")
    parser.add_argument("--requests", type=int)
    parser.add_argument("--connections", type=int)
    args = parser.parse_args()
    rows = args.rows or DEFAULT_ROWS
    unknown = [name for name in rows if name not in ROWS]
    if unknown:
        parser.error(f"unknown rows {unknown}; rows: {' '.join(ROWS)}")
    requests = args.requests or (2_000 if args.callgrind else 20_000)
    # Under callgrind a request takes longer than the loop's turn budget (4 ms), so each is a
    # turn of its own whatever the connections: one connection says so.
    args.connections = args.connections or (1 if args.callgrind else 10)
    runs = 1 if args.callgrind else COST_RUNS
    unit = "instructions" if args.callgrind else "µs of CPU"
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    header = f"| row | {unit} per request |"
    rule = "|---|---:|"
    if args.postgres:
        header += (" statements per request | round trips per request | COMMITs per request |" if args.callgrind
                   else " PostgreSQL's µs of CPU |")
        rule += "---:|---:|---:|" if args.callgrind else "---:|"
    flags = (" --callgrind" if args.callgrind else "") + (" --postgres" if args.postgres else "")
    lines = [f"## Cost per request ({time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, commit {commit}, "
             f"load average {os.getloadavg()[0]:.1f})", "",
             f"`bench/cost.py{flags} --requests {requests} --connections "
             f"{args.connections}`: {unit} per request" + ("" if args.callgrind else f", median (min–max) of {runs}"), "",
             header, rule]
    try:
        if args.postgres:
            CLUSTER = CostCluster(counting=args.callgrind)
        for row in rows:
            figures = []
            for run in range(runs):
                figures.append(measure(row, requests, args.connections, args.callgrind, args.profile))
                log(f"cost {row} run {run + 1}: {figures[-1]:,.1f} {unit} per request")
            if args.callgrind:
                cells = f"| {row} | {figures[0]:,.0f} |"
            else:
                cells = f"| {row} | {statistics.median(figures):,.1f} ({min(figures):,.1f}–{max(figures):,.1f}) |"
            lines.append(cells + (database_cells(row, args.callgrind) if args.postgres else ""))
    finally:
        for child in _children:
            if child.poll() is None:
                child.kill()
                child.wait()
        if CLUSTER:
            CLUSTER.stop()
        shutil.rmtree(WORK, ignore_errors=True)
    for row in rows:
        lines += statement_lines(row)
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"cost{'-callgrind' if args.callgrind else ''}{'-postgres' if args.postgres else ''}.md").write_text(text)


if __name__ == "__main__":
    sys.exit(main())
