"""What the benchmark scripts share (`bench/bench.py`, `bench/cost.py`, `bench/scale.py`): the
settings from the environment, relaydeckd and nginx as child processes, wrk, the CPU time of
a process, the API calls that set a row up, and the table of results."""

import json
import os
import re
import resource
import selectors
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
# The growth GET row's keys, taking turns (each under the bench's rate limit).
GROWTH_READERS = 10
PUSH_ACCOUNTS = int(os.environ.get("BENCH_PUSH_ACCOUNTS", "200"))
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

    def __init__(self, env: dict | None = None, db: Path | None = None, wrapper: list[str] | None = None,
                 binary: Path | None = None, start_timeout: float = 20):
        """`wrapper`: argv the binary runs under (valgrind); `binary`: instead of BINARY."""
        global _servers
        _servers += 1
        self.dir = WORK / f"server-{_servers}"
        self.dir.mkdir()
        self.db = db or self.dir / "bench.db"
        self.log_path = self.dir / "relaydeckd.log"
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LISTEN": "127.0.0.1:0",
                       "DATABASE_PATH": str(self.db), **RELAXED, **(env or {})}
        self.log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen([*(wrapper or []), str(binary or BINARY)], env=environment, cwd=self.dir, stdin=subprocess.DEVNULL,
                                        stdout=self.log_file, stderr=subprocess.STDOUT)
        _children.append(self.process)
        deadline = time.monotonic() + start_timeout
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


def start_to_ready(path: Path, runs: int, env: dict | None = None) -> list[float]:
    """ms from exec to `READY=1` on NOTIFY_SOCKET (a datagram socket of the bench), `runs`
    times, after one start left out (the first after a copy checks a file it has not seen).
    `env` is added to the server's (`DATABASE_URL`: the store is that database, not `path`)."""
    notify_path = WORK / f"notify-{free_port()}.sock"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    figures = []
    for run in range(runs + 1):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LISTEN": "127.0.0.1:0", "DATABASE_PATH": str(path),
               "NOTIFY_SOCKET": str(notify_path), **RELAXED, **(env or {})}
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
