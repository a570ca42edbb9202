#!/usr/bin/env python3
"""The benchmarks of issue 12, one command: `make bench` (or `python3 bench/bench.py [ROW...]`).

Each row starts its own relaydeckd (the static release binary) on loopback with a fresh
database in a temporary directory, warms up, runs a fixed amount of work, and prints its
figure next to the reference measured in the same run (nginx for HTTP, a server on the
official Python MCP SDK for MCP), with min / median / max over BENCH_RUNS runs. The table goes
to stdout and to bench/results/latest.md. See bench/README.md for what each row measures.

Rows: health task-get task-write task-write-full mcp fanout wakeup capacity idle start growth
(default: all).
Settings (environment): RELAYDECKD, BENCH_RUNS (3), BENCH_DURATION (10 s of wrk per run),
BENCH_CONNECTIONS (50), BENCH_ROUNDS (200 timed events per run for fan-out and wake-up),
BENCH_CAPACITY (10000 streams and as many parked waits), BENCH_START_TASKS (100000).
"""

import json
import os
import re
import resource
import selectors
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BINARY = Path(os.environ.get("RELAYDECKD", ROOT / ".build/release/relaydeckd"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
DURATION = int(os.environ.get("BENCH_DURATION", "10"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "50"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "200"))
CAPACITY = int(os.environ.get("BENCH_CAPACITY", "10000"))
START_TASKS = int(os.environ.get("BENCH_START_TASKS", "100000"))
GROWTH_TASKS = int(os.environ.get("BENCH_GROWTH_TASKS", "1000000"))
GROWTH_ACCOUNTS = int(os.environ.get("BENCH_GROWTH_ACCOUNTS", "500"))
PYTHON = sys.executable
WORK = Path(tempfile.mkdtemp(prefix="relaydeck-bench."))
LUA = ROOT / "bench" / "lua"
MCP_VERSION = "2026-07-28"

# The widest limits: the bench measures the server, not its rate limiter.
RELAXED = {
    "RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000",
    "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000",
    "LOG_LEVEL": "info",
}

_children: list[subprocess.Popen] = []
_servers = 0


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# --- processes ------------------------------------------------------------------------------

class Server:
    """One relaydeckd with a fresh database; `port` once it listens."""

    def __init__(self, env: dict | None = None, db: Path | None = None):
        global _servers
        _servers += 1
        self.dir = WORK / f"server-{_servers}"
        self.dir.mkdir()
        self.db = db or self.dir / "bench.db"
        self.log_path = self.dir / "relaydeckd.log"
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LISTEN": "127.0.0.1:0",
                       "DATABASE_PATH": str(self.db), **RELAXED, **(env or {})}
        self.log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen([str(BINARY)], env=environment, cwd=self.dir, stdin=subprocess.DEVNULL,
                                        stdout=self.log_file, stderr=subprocess.STDOUT)
        _children.append(self.process)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            match = re.search(r"listening address=127\.0\.0\.1:(\d+)", self.log_path.read_text(errors="replace"))
            if match:
                self.port = int(match.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.01)
        raise SystemExit(f"bench: relaydeckd did not start:\n{self.log_path.read_text(errors='replace')}")

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.log_file.close()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of the processes `pids` so far (all their threads), from
    /proc/<pid>/stat: the same figures getrusage gives a process of itself."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def family(pid: int) -> list[int]:
    """`pid` and its children (nginx's master and its worker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [pid, *map(int, children)]


def cpu_note(name: str, sides: list[tuple[str, list[float]]]):
    """A note with each side's CPU time per request, in µs: median (min–max) of the runs."""
    parts = [f"{side} {fmt(values, ' µs', 1)}" for side, values in sides if values]
    NOTES.append(f"{name}: CPU time per request (server processes, /proc/<pid>/stat over each run): " + "; ".join(parts) + ".")


def call(port: int, method: str, path: str, body=None, token=None, key=None, headers=None, expect=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if key:
        request.add_header("X-API-Key", key)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request) as response:
            status, data = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, data = error.code, error.read()
    if expect is not None and status != expect:
        raise SystemExit(f"bench: {method} {path} gave {status}: {data[:300]!r}")
    return json.loads(data) if data else None


def new_account(port: int, keys: int = 1) -> tuple[str, list[tuple[str, str]]]:
    token = call(port, "POST", "/v1/accounts", {}, expect=201)["token"]
    made = []
    for n in range(keys):
        body = call(port, "POST", "/v1/keys", {"label": f"agent {n}"}, token=token, expect=201)
        made.append((body["key"]["id"], body["secret"]))
    return token, made


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Nginx:
    """Debian's nginx with its own prefix: one worker, keep-alive, `return` with the bodies given.
    `locations` maps an nginx location (`= /health`, `/v1/tasks/`) to (status, body)."""

    def __init__(self, locations: dict[str, tuple[int, str]]):
        self.dir = WORK / f"nginx-{free_port()}"
        (self.dir / "logs").mkdir(parents=True)
        (self.dir / "tmp").mkdir()
        self.port = free_port()
        blocks = []
        for location, (status, body) in locations.items():
            assert "$" not in body
            quoted = "'" + body.replace("\\", "\\\\").replace("'", "\\'") + "'"
            blocks.append(f"location {location} {{ default_type application/json; return {status} {quoted}; }}")
        (self.dir / "nginx.conf").write_text(f"""
worker_processes 1;
daemon off;
master_process on;
pid {self.dir}/nginx.pid;
error_log {self.dir}/logs/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    keepalive_timeout 75s;
    keepalive_requests 10000000;
    client_body_temp_path {self.dir}/tmp/body;
    proxy_temp_path {self.dir}/tmp/proxy;
    fastcgi_temp_path {self.dir}/tmp/fastcgi;
    uwsgi_temp_path {self.dir}/tmp/uwsgi;
    scgi_temp_path {self.dir}/tmp/scgi;
    server {{
        listen 127.0.0.1:{self.port};
        {' '.join(blocks)}
    }}
}}
""")
        self.process = subprocess.Popen(["nginx", "-p", str(self.dir), "-e", str(self.dir / "logs/error.log"),
                                         "-c", str(self.dir / "nginx.conf")])
        _children.append(self.process)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port)).close()
                return
            except OSError:
                time.sleep(0.02)
        raise SystemExit("bench: nginx did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


# --- wrk ------------------------------------------------------------------------------------

def wrk(url: str, script: Path | None = None, headers: dict | None = None, duration: int | None = None,
        connections: int | None = None, env: dict | None = None) -> dict:
    """One wrk run: requests/s, non-2xx answers, socket errors and wrk's own CPU use (a
    generator near 100% of a core is the bottleneck)."""
    argv = ["wrk", "-t1", f"-c{connections or CONNECTIONS}", f"-d{duration or DURATION}s", "--latency"]
    for name, value in (headers or {}).items():
        argv += ["-H", f"{name}: {value}"]
    if script:
        argv += ["-s", str(script)]
    argv.append(url)
    started = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, **(env or {})})
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    if not rps:
        raise SystemExit(f"bench: wrk gave no figure:\n{out}")
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    p99 = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", out)
    return {"rps": float(rps.group(1)), "requests": int(total.group(1)) if total else 0, "non2xx": int(bad.group(1)) if bad else 0,
            "errors": sum(map(int, errors.groups())) if errors else 0,
            "cpu": (usage.ru_utime + usage.ru_stime) / wall, "p99": p99.group(0).strip() if p99 else "", "out": out}


def summary(values: list[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def fmt(values, unit="", digits=0):
    lo, mid, hi = summary(values)
    return f"{mid:,.{digits}f}{unit} ({lo:,.{digits}f}–{hi:,.{digits}f})"


RESULTS: list[str] = []
NOTES: list[str] = []


def row(name, ours, reference, ratio_target, ours_cpu=None, ref_cpu=None, unit=" req/s"):
    """A ratio row: medians, ranges, the ratio of the medians against its target."""
    ratio = statistics.median(ours) / statistics.median(reference)
    verdict = "met" if ratio >= ratio_target else "missed"
    RESULTS.append(f"| {name} | {fmt(ours, unit)} | {fmt(reference, unit)} | {ratio:.2f} | ≥ {ratio_target} | {verdict} |")
    generator = []
    if ours_cpu and max(ours_cpu) > 0.9:
        generator.append(f"wrk used {max(ours_cpu):.0%} of a core against relaydeckd")
    if ref_cpu and max(ref_cpu) > 0.9:
        generator.append(f"wrk used {max(ref_cpu):.0%} of a core against the reference")
    if generator:
        NOTES.append(f"{name}: the generator is near its limit ({'; '.join(generator)}).")


def absolute(name, values, unit, target, met, digits=1):
    """An absolute row; `met` is judged on the median of the runs (None: no target)."""
    verdict = "" if met is None else "met" if met else "missed"
    RESULTS.append(f"| {name} | {fmt(values, unit, digits)} | – | – | {target} | {verdict} |")


def measured(url, pids, script=None, headers=None, env=None, connections=None) -> dict:
    """One wrk run, with the CPU time per request (µs) the processes `pids` used during it."""
    before = cpu_seconds(pids)
    result = wrk(url, script, headers, env=env, connections=connections)
    result["cpu_per_request"] = (cpu_seconds(pids) - before) * 1e6 / max(1, result["requests"])
    return result


def compare(name, path, ours_url_headers, nginx_locations, ratio_target, script=None, env=None, ours_pid=None):
    """wrk against relaydeckd and nginx, alternating, BENCH_RUNS times each."""
    ours_port, headers = ours_url_headers
    nginx = Nginx(nginx_locations)
    ours, ref, ours_cpu, ref_cpu = [], [], [], []
    per_request = {"relaydeckd": [], "nginx": []}
    pids = {"relaydeckd": [ours_pid] if ours_pid else [], "nginx": []}
    try:
        # Warm-up: both sides, 2 s each.
        wrk(f"http://127.0.0.1:{ours_port}{path}", script, headers, duration=2, env=env)
        wrk(f"http://127.0.0.1:{nginx.port}{path}", script, headers, duration=2, env=env)
        # After the warm-up: the master has forked its worker by then.
        pids["nginx"] = family(nginx.process.pid)
        for run in range(RUNS):
            for side, port, figures, cpu in (("relaydeckd", ours_port, ours, ours_cpu),
                                             ("nginx", nginx.port, ref, ref_cpu)):
                result = measured(f"http://127.0.0.1:{port}{path}", pids[side], script, headers, env=env)
                if pids[side]:
                    per_request[side].append(result["cpu_per_request"])
                if result["non2xx"] or result["errors"]:
                    raise SystemExit(f"bench: {name} {side}: {result['non2xx']} non-2xx, {result['errors']} socket "
                                     f"errors\n{result['out']}")
                figures.append(result["rps"])
                cpu.append(result["cpu"])
                log(f"{name} run {run + 1}: {side} {result['rps']:,.0f} req/s (wrk CPU {result['cpu']:.0%}, "
                    f"p99 {result['p99']})")
    finally:
        nginx.stop()
    row(name, ours, ref, ratio_target, ours_cpu, ref_cpu)
    cpu_note(name, list(per_request.items()))


# --- rows -----------------------------------------------------------------------------------

def bench_health():
    server = Server()
    body = json.dumps(call(server.port, "GET", "/health"), separators=(",", ":"))
    compare("`GET /health`, 50 connections", "/health", (server.port, {}), {"= /health": (200, body)}, 0.9, ours_pid=server.pid)
    server.stop()


def raw_body(port, path, key) -> str:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"X-API-Key": key})
    with urllib.request.urlopen(request) as response:
        return response.read().decode()


def bench_task_get():
    server = Server()
    _, [(_, secret)] = new_account(server.port)
    task = call(server.port, "POST", "/v1/tasks", {"title": "Benchmark the server", "description": "A task to read."},
                key=secret, expect=201)
    path = f"/v1/tasks/{task['id']}"
    body = raw_body(server.port, path, secret)
    compare("`GET /v1/tasks/{id}` with an API key", path, (server.port, {"X-API-Key": secret}),
            {f"= {path}": (200, body)}, 0.6, ours_pid=server.pid)
    server.stop()


def bench_task_write(synchronous: str = "NORMAL"):
    """POST /v1/tasks, then PATCH of that task's progress to done (bench/lua/task_write.lua:
    each 201's id goes to a queue; the next request PATCHes it). Twenty keys of one account
    take turns so that no key reaches its cap of open tasks. `synchronous`: the server's
    DATABASE_SYNCHRONOUS (the row `task-write-full` is the same with FULL)."""
    server = Server({"DATABASE_SYNCHRONOUS": synchronous})
    _, keys = new_account(server.port, 20)
    task = call(server.port, "POST", "/v1/tasks", {"title": "bench"}, key=keys[0][1], expect=201)
    body = json.dumps(task, separators=(",", ":"))
    env = {"BENCH_KEYS": ",".join(f"{key_id}={secret}" for key_id, secret in keys)}
    name = "`POST /v1/tasks` + `PATCH` progress (one commit each)"
    if synchronous != "NORMAL":
        name += f", `DATABASE_SYNCHRONOUS={synchronous}`"
    compare(name, "/v1/tasks", (server.port, {}),
            {"= /v1/tasks": (201, body), "/v1/tasks/": (200, body)}, 0.3, script=LUA / "task_write.lua", env=env,
            ours_pid=server.pid)
    db = sqlite3.connect(server.db)
    open_tasks = db.execute("SELECT count(*) FROM tasks WHERE status IN ('todo', 'in_progress')").fetchone()[0]
    db.close()
    NOTES.append(f"task write ({synchronous}): {open_tasks} tasks left open at the end (a 201 whose PATCH did not come before wrk "
                 f"stopped); every answer was 2xx.")
    server.stop()


def bench_mcp():
    """`tools/call update_task` (progress changes each call) against relaydeckd and against
    bench/mcp_reference.py (MCPServer of the `mcp` SDK under uvicorn, stateless, JSON answers,
    one SQLite UPDATE committed per call)."""
    server = Server()
    _, [(_, secret)] = new_account(server.port)
    task = call(server.port, "POST", "/v1/tasks", {"title": "bench"}, key=secret, expect=201)
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
    sides = (("relaydeckd", server.port, {"BENCH_MCP_TASK": task["id"], "BENCH_MCP_SECRET": secret,
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


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def open_stream(port: int, token: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    return sock


def await_marker(socks: list[socket.socket], marker: bytes, timeout: float) -> dict:
    """Reads every socket until each has `marker`; returns socket -> monotonic arrival time."""
    selector = selectors.DefaultSelector()
    buffers = {}
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
        buffers[sock] = b""
    arrived = {}
    deadline = time.monotonic() + timeout
    while len(arrived) < len(socks):
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: {len(socks) - len(arrived)} of {len(socks)} sockets never got {marker!r}")
        for selected, _ in selector.select(0.5):
            sock = selected.fileobj
            try:
                chunk = sock.recv(65536)
            except BlockingIOError:
                continue
            if not chunk:
                raise SystemExit("bench: a stream was closed")
            buffers[sock] += chunk
            if marker in buffers[sock] and sock not in arrived:
                arrived[sock] = time.monotonic()
                selector.unregister(sock)
                buffers[sock] = buffers[sock][buffers[sock].index(marker):]
    selector.close()
    return arrived


def bench_fanout():
    """1,000 event streams open (16 per account, the contract's most, so 63 accounts). Per
    round one PATCH: time until all 16 streams of its account have the `task.updated` (the
    row's figure, p99 over the rounds); then a PATCH in every account at once: time until all
    1,000 streams have their account's event."""
    streams_total = 1000
    server = Server({"MAX_CONNECTIONS": "5000"})
    accounts = []
    for n in range((streams_total + 15) // 16):
        token, [(_, secret)] = new_account(server.port)
        task = call(server.port, "POST", "/v1/tasks", {"title": "fan-out"}, key=secret, expect=201)
        accounts.append({"token": token, "secret": secret, "task": task["id"],
                         "streams": [open_stream(server.port, token) for _ in range(min(16, streams_total - n * 16))]})
    await_marker([s for a in accounts for s in a["streams"]], b"event: ready", 30)
    writers = [socket.create_connection(("127.0.0.1", server.port)) for _ in accounts]

    def patch_bytes(account, progress):
        body = json.dumps({"progress": progress}).encode()
        return (f"PATCH /v1/tasks/{account['task']} HTTP/1.1\r\nHost: b\r\nX-API-Key: {account['secret']}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body

    def drain(sock):
        sock.setblocking(True)
        sock.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
            data += sock.recv(65536)
        assert data.startswith(b"HTTP/1.1 200"), data[:200]

    per_run, burst_runs = [], []
    progress = 0
    for run in range(RUNS):
        times = []
        for r in range(ROUNDS + 20):  # the first 20 are the warm-up
            account = accounts[r % len(accounts)]
            progress = progress % 99 + 1
            started = time.monotonic()
            writers[0].sendall(patch_bytes(account, progress))
            arrived = await_marker(account["streams"], b"task.updated", 10)
            if r >= 20:
                times.append((max(arrived.values()) - started) * 1000)
            drain(writers[0])
        per_run.append(percentile(times, 99))
        log(f"fan-out run {run + 1}: 16 streams of the account, p50 {percentile(times, 50):.2f} ms, "
            f"p99 {percentile(times, 99):.2f} ms")
        # The burst: one PATCH in each account, sent back to back.
        progress = progress % 99 + 1
        started = time.monotonic()
        for account, writer in zip(accounts, writers):
            writer.sendall(patch_bytes(account, progress))
        arrived = await_marker([s for a in accounts for s in a["streams"]], b"task.updated", 30)
        burst_runs.append((max(arrived.values()) - started) * 1000)
        for writer in writers:
            drain(writer)
        log(f"fan-out run {run + 1}: a change in all {len(accounts)} accounts, all {streams_total} streams "
            f"in {burst_runs[-1]:.2f} ms")
    for sock in [s for a in accounts for s in a["streams"]] + writers:
        sock.close()
    server.stop()
    absolute(f"fan-out: 1 `PATCH`, its account's 16 streams (of {streams_total} open), p99", per_run, " ms",
             "p99 < 5 ms", statistics.median(per_run) < 5, 2)
    absolute(f"fan-out: a `PATCH` in each of {len(accounts)} accounts, all {streams_total} streams have it",
             burst_runs, " ms", "–", None, 2)


def bench_wakeup():
    """A parked `GET /v1/inbox?wait=50`; the account sends the key a message; time from the
    send until the parked call's answer is in. A sender may send 60 messages an hour
    (`overview.md`), so the rounds take turns over accounts (50 each)."""
    server = Server()
    needed = (ROUNDS + 20) * RUNS
    pairs = []
    for _ in range((needed + 49) // 50):
        token, [(key_id, secret)] = new_account(server.port)
        pairs.append((token, key_id, secret))
    sender = socket.create_connection(("127.0.0.1", server.port))
    sender.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    per_run, n = [], 0
    for run in range(RUNS):
        times = []
        for r in range(ROUNDS + 20):
            token, key_id, secret = pairs[n // 50]
            n += 1
            parked = socket.create_connection(("127.0.0.1", server.port))
            parked.sendall(f"GET /v1/inbox?wait=50 HTTP/1.1\r\nHost: b\r\nX-API-Key: {secret}\r\n\r\n".encode())
            time.sleep(0.003)  # parked by now (the server answers nothing until a message comes)
            body = json.dumps({"key_id": key_id, "text": f"wake {r}"}).encode()
            message = (f"POST /v1/messages HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
            started = time.monotonic()
            sender.sendall(message)
            arrived = await_marker([parked], b'"unread"', 10)
            if r >= 20:
                times.append((arrived[parked] - started) * 1000)
            parked.close()
            sender.settimeout(5)
            data = b""
            while b"}" not in data.split(b"\r\n\r\n", 1)[-1]:
                data += sender.recv(65536)
            assert data.startswith(b"HTTP/1.1 201"), data[:300]
        per_run.append(percentile(times, 99))
        log(f"wake-up run {run + 1}: p50 {percentile(times, 50):.3f} ms, p99 {percentile(times, 99):.3f} ms")
    sender.close()
    server.stop()
    absolute("wake-up: message sent → parked `GET /v1/inbox?wait=50` answered, p99", per_run, " ms", "p99 < 1 ms",
             statistics.median(per_run) < 1, 3)


def raise_fd_limit(needed: int) -> int:
    """Raises this process's open-file limit (the server inherits it and raises its own soft
    limit to the hard one; a process with CAP_SYS_RESOURCE may raise the hard limit too).
    Returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < needed:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (needed, needed))
            return needed
        except (ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            return hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, needed), hard))
    return needed


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


TASK_ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def copy_tasks(path: Path, plan: list[tuple[str, str, int, int]]) -> int:
    """Replaces the tasks of the database at `path` (made by the server, with one task of its
    own as the template) with copies: `plan` is (key_id, account_id, tasks, open ones) per key,
    the open ones `todo`, the rest `done`; the per-key counts and the change counter are kept
    right (the schema's triggers keep the text counts). Returns the tasks in the file."""
    db = sqlite3.connect(path, isolation_level=None)
    template = db.execute("SELECT * FROM tasks LIMIT 1").fetchone()
    columns = [d[0] for d in db.execute("SELECT * FROM tasks LIMIT 1").description]
    db.execute("DELETE FROM tasks")
    db.execute("BEGIN")
    insert = f"INSERT INTO tasks ({','.join(columns)}) VALUES ({','.join('?' * len(columns))})"
    seq = 0
    for key_id, account_id, tasks, open_tasks in plan:
        rows = []
        for n in range(tasks):
            seq += 1
            row = dict(zip(columns, template))
            value, text = seq, ""
            for _ in range(26):
                value, digit = divmod(value, 32)
                text = TASK_ID_ALPHABET[digit] + text
            row.update(id="tsk_" + text, key_id=key_id, account_id=account_id, title=f"task {seq}",
                       status="todo" if n < open_tasks else "done", updated_at=row["created_at"] + seq,
                       completed_at=None if n < open_tasks else row["created_at"] + seq, created_seq=seq,
                       changed_seq=seq)
            rows.append([row[c] for c in columns])
        db.executemany(insert, rows)
        db.execute("UPDATE keys SET todo_count = ?, in_progress_count = 0, done_count = ?, cancelled_count = 0 "
                   "WHERE id = ?", (open_tasks, tasks - open_tasks, key_id))
    db.execute("UPDATE changes SET seq = ?", (seq,))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    count = db.execute("SELECT count(*) FROM tasks").fetchone()[0]
    db.close()
    return count


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


def start_to_ready(path: Path, runs: int) -> list[float]:
    """ms from exec to `READY=1` on NOTIFY_SOCKET (a datagram socket of the bench), `runs`
    times, after one start left out (the first after a copy checks a file it has not seen)."""
    notify_path = WORK / f"notify-{free_port()}.sock"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    figures = []
    for run in range(runs + 1):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LISTEN": "127.0.0.1:0", "DATABASE_PATH": str(path),
               "NOTIFY_SOCKET": str(notify_path), **RELAXED}
        started = time.monotonic()
        process = subprocess.Popen([str(BINARY)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        notify.settimeout(10)
        while True:
            message = notify.recv(4096)
            if b"READY=1" in message:
                break
        elapsed = (time.monotonic() - started) * 1000
        process.terminate()
        process.wait(timeout=30)
        if run:
            figures.append(elapsed)
        log(f"start run {run}: READY=1 after {elapsed:.1f} ms ({path.name}){' (warm-up)' if not run else ''}")
    notify.close()
    return figures


def bench_start():
    """exec to `READY=1` with a database of BENCH_START_TASKS tasks (`start_to_ready`)."""
    path = WORK / "start.db"
    count = build_start_database(path, START_TASKS)
    figures = start_to_ready(path, RUNS)
    absolute(f"start: exec → `READY=1`, {count:,} tasks", figures, " ms", "< 100 ms", statistics.median(figures) < 100)


def build_growth_database(path: Path) -> tuple[list[tuple[str, str]], str, int]:
    """BENCH_GROWTH_ACCOUNTS accounts of 20 keys (made through the API) holding
    BENCH_GROWTH_TASKS tasks: the first key 5,000 (the page row reads it), the first
    account's other keys none (the write row's keys, far from their cap), the rest spread
    over the other keys, 50 of each key's open. Returns the first account's keys, a task of
    the first key and the tasks in the file."""
    server = Server(db=path)
    first = None
    for n in range(GROWTH_ACCOUNTS):
        _, made = new_account(server.port, 20)
        first = first or made
    call(server.port, "POST", "/v1/tasks", {"title": "template", "description": "A task of the growth benchmark."},
         key=first[0][1], expect=201)
    server.stop()
    db = sqlite3.connect(path)
    key_accounts = list(db.execute("SELECT id, account_id FROM keys"))
    db.close()
    writers = {key_id for key_id, _ in first[1:]}
    others = [(k, a) for k, a in key_accounts if k != first[0][0] and k not in writers]
    per_key = max(0, GROWTH_TASKS - 5_000) // max(1, len(others))
    account = dict(key_accounts)[first[0][0]]
    plan = [(first[0][0], account, 5_000, 50)] + [(k, a, per_key, min(50, per_key)) for k, a in others]
    count = copy_tasks(path, plan)
    db = sqlite3.connect(path)
    task_id = db.execute("SELECT id FROM tasks WHERE key_id = ? LIMIT 1", (first[0][0],)).fetchone()[0]
    db.close()
    return first, task_id, count


def build_empty_store(path: Path) -> tuple[list[tuple[str, str]], str]:
    """One account of 20 keys; the first key holds 100 tasks (one full page)."""
    server = Server(db=path)
    _, keys = new_account(server.port, 20)
    ids = [call(server.port, "POST", "/v1/tasks", {"title": f"task {n}", "description": "A task of the growth benchmark."},
                key=keys[0][1], expect=201)["id"] for n in range(100)]
    server.stop()
    return keys, ids[0]


def bench_growth():
    """How cost grows: the same reads and writes on an empty store and on one of
    BENCH_GROWTH_TASKS tasks over BENCH_GROWTH_ACCOUNTS × 20 keys, alternating, each with a
    server of its own: a task GET, a page of 100 of a key's tasks (5,000 of them in the
    large store), the task-write script, start to `READY=1`, resident memory after the
    runs. Target: each within 1.5 × its figure on the empty store."""
    large_path, empty_path = WORK / "growth-large.db", WORK / "growth-empty.db"
    started = time.monotonic()
    large_keys, large_task, count = build_growth_database(large_path)
    log(f"growth: built {count:,} tasks over {GROWTH_ACCOUNTS * 20:,} keys in {time.monotonic() - started:.0f} s")
    empty_keys, empty_task = build_empty_store(empty_path)
    stores = {"large": (large_path, large_keys, large_task), "empty": (empty_path, empty_keys, empty_task)}
    figures = {(store, what): [] for store in stores for what in ("get", "page", "write", "get cpu", "page cpu", "write cpu")}
    memory = {store: [] for store in stores}
    for run in range(RUNS):
        for store, (path, keys, task_id) in stores.items():
            server = Server(db=path)
            secret = keys[0][1]
            url = f"http://127.0.0.1:{server.port}"
            env = {"BENCH_KEYS": ",".join(f"{key_id}={key_secret}" for key_id, key_secret in keys[1:])}
            loads = (("get", f"{url}/v1/tasks/{task_id}", None, {"X-API-Key": secret}, None),
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
    "task-write-full": lambda: bench_task_write("FULL"),
    "mcp": bench_mcp,
    "fanout": bench_fanout,
    "wakeup": bench_wakeup,
    "capacity": bench_capacity,
    "idle": bench_idle,
    "start": bench_start,
    "growth": bench_growth,
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
