"""How cost grows, the rows of issue 20 that load the server with more than requests: the
purge of a large key under readers (`purge`), 10,000 event streams under a steady write rate
(`streams`), and the WAL under a steady write load (`wal`). `bench/bench.py` runs them like
its other rows (`bench/run.sh purge streams wal`; `make bench-scale` runs these and `growth`).

Settings (environment): BENCH_PURGE_TASKS (100000) and BENCH_PURGE_ACTIVITY (50000), the
deleted key's rows; BENCH_STREAMS (10000) and BENCH_STREAM_WRITES (1000 a second) for
BENCH_STREAM_SECONDS (10); BENCH_WAL_SECONDS (20).
"""

import json
import os
import re
import selectors
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from common import (DURATION, LUA, NOTES, RUNS, WORK, Server, absolute, call, copy_tasks, fmt, log, new_account,
                    open_stream, percentile, raise_fd_limit, wrk)

PURGE_TASKS = int(os.environ.get("BENCH_PURGE_TASKS", "100000"))
PURGE_ACTIVITY = int(os.environ.get("BENCH_PURGE_ACTIVITY", "50000"))
# The readers' keys: at 60,000 reads a second one key would pass RATE_LIMIT_REQUESTS_PER_MINUTE
# (the bench's 1,000,000) within the quiet run and the one during the purge, and the rest of
# its reads would be 429s.
PURGE_READERS = 10
STREAMS = int(os.environ.get("BENCH_STREAMS", "10000"))
STREAM_WRITES = int(os.environ.get("BENCH_STREAM_WRITES", "1000"))
STREAM_SECONDS = int(os.environ.get("BENCH_STREAM_SECONDS", "10"))
WAL_SECONDS = int(os.environ.get("BENCH_WAL_SECONDS", "20"))
METRICS_TOKEN = "bench-metrics-token-0123456789"


def metrics(port: int) -> dict[str, float]:
    """The server's /metrics (METRICS_TOKEN set) as `name{labels}` -> value."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                     headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    with urllib.request.urlopen(request) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def p99_ms(result: dict) -> float:
    """wrk's 99th percentile latency (`--latency`) in ms."""
    match = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", result["out"], re.M)
    if not match:
        raise SystemExit(f"bench: wrk gave no 99th percentile:\n{result['out']}")
    return float(match.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[match.group(2)]


def checked(name: str, result: dict) -> dict:
    if result["non2xx"] or result["errors"]:
        raise SystemExit(f"bench: {name}: {result['non2xx']} non-2xx, {result['errors']} socket errors\n{result['out']}")
    return result


# --- purge ----------------------------------------------------------------------------------

def build_purge_database(path: Path) -> tuple[str, list[tuple[str, str]], str]:
    """One account with PURGE_READERS reader keys (one task each) and the key to delete
    (BENCH_PURGE_TASKS tasks, BENCH_PURGE_ACTIVITY activity entries), copied in by sqlite3: no
    key reaches those numbers through the API (its caps, the newest-200 trim of the log), but a
    deletion must take whatever a store holds. The readers take turns (bench/lua/task_get.lua)
    so that none nears its rate limit over the quiet run and the one during the purge, as in
    the task-get row. Returns the account's token, each reader's (task, secret), and the key to
    delete."""
    server = Server({"METRICS_TOKEN": METRICS_TOKEN}, db=path)
    token, keys = new_account(server.port, PURGE_READERS + 1)
    readers, (victim_id, _) = keys[:-1], keys[-1]
    call(server.port, "POST", "/v1/tasks", {"title": "read me", "description": "The task the readers read."},
         key=readers[0][1], expect=201)
    server.stop()
    db = sqlite3.connect(path)
    account = db.execute("SELECT account_id FROM keys WHERE id = ?", (victim_id,)).fetchone()[0]
    db.close()
    copy_tasks(path, [(reader_id, account, 1, 1) for reader_id, _ in readers] + [(victim_id, account, PURGE_TASKS, 50)])
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    base = int(time.time() * 1000) - PURGE_ACTIVITY
    db.executemany("INSERT INTO activity (key_id, at, id, surface, action, status, code, message, duration_ms, "
                   "client_name, client_version, host) VALUES (?, ?, ?, 'rest', 'GET /v1/tasks/{task_id}', 'ok', NULL, "
                   "NULL, 1, NULL, NULL, NULL)",
                   ((victim_id, base + n, f"act_{n:026d}") for n in range(PURGE_ACTIVITY)))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    gets = [(db.execute("SELECT id FROM tasks WHERE key_id = ?", (reader_id,)).fetchone()[0], secret)
            for reader_id, secret in readers]
    db.close()
    return token, gets, victim_id


def bench_purge():
    """50 clients read the readers' tasks (`wrk -c50`, the keys taking turns) for BENCH_DURATION, once with nothing else going on
    and once right after `DELETE /v1/keys/{id}` of a key with BENCH_PURGE_TASKS tasks and
    BENCH_PURGE_ACTIVITY activity entries, whose purge then runs in steps of 200 rows
    (`Purger`); p99 of the reads of each, and how long the purge took."""
    source = WORK / "purge-source.db"
    token, gets, victim = build_purge_database(source)
    script, env = LUA / "task_get.lua", {"BENCH_GETS": ",".join(f"{t}={s}" for t, s in gets)}
    quiet, during, ratio, purge_seconds, longest = [], [], [], [], []
    for run in range(RUNS):
        path = WORK / f"purge-{run}.db"
        shutil.copy(source, path)
        server = Server({"METRICS_TOKEN": METRICS_TOKEN}, db=path)
        url = f"http://127.0.0.1:{server.port}/v1/tasks/{gets[0][0]}"
        wrk(url, script, duration=2, env=env)
        quiet.append(p99_ms(checked("purge quiet", wrk(url, script, env=env))))
        started = time.monotonic()
        ended: list[float] = []

        def watch():
            # While the readers run too: the purge's end is seen within 50 ms of it.
            while metrics(server.port)["relaydeck_purge_pending_keys"] > 0:
                if time.monotonic() - started > 600:
                    return
                time.sleep(0.05)
            ended.append(time.monotonic())

        call(server.port, "DELETE", f"/v1/keys/{victim}", token=token, expect=204)
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        during.append(p99_ms(checked("purge during", wrk(url, script, env=env))))
        watcher.join(timeout=600)
        if not ended:
            raise SystemExit("bench: the purge did not end within 10 minutes")
        purge_seconds.append(ended[0] - started)
        longest.append(metrics(server.port)["relaydeck_loop_longest_turn_cpu_seconds"] * 1000)
        ratio.append(during[-1] / quiet[-1])
        log(f"purge run {run + 1}: reads p99 {quiet[-1]:.2f} ms quiet, {during[-1]:.2f} ms during the purge "
            f"({purge_seconds[-1]:.1f} s); longest turn {longest[-1]:.2f} ms CPU")
        server.stop()
        path.unlink()
    absolute(f"purge: reads' p99 during the purge of a key of {PURGE_TASKS:,} tasks and {PURGE_ACTIVITY:,} activity "
             f"entries, 50 readers (quiet: {fmt(quiet, ' ms', 2)})", during, " ms", "≤ 2 × quiet",
             statistics.median(ratio) <= 2, 2)
    NOTES.append(f"purge: the reads' p99 during it over the quiet one {fmt(ratio, ' ×', 2)}; the purge took "
                 f"{fmt(purge_seconds, ' s', 1)} from the DELETE (the reads ran for {DURATION} s from it: a purge "
                 f"shorter than that is inside them, and the reads after its end count in the p99 too); the longest "
                 f"loop turn of the run {fmt(longest, ' ms', 2)} of CPU.")


# --- streams --------------------------------------------------------------------------------

def bench_streams():
    """BENCH_STREAMS event streams (16 an account, the contract's most) while BENCH_STREAM_WRITES
    PATCHes a second arrive, one account after another, for BENCH_STREAM_SECONDS: fan-out p99
    (a PATCH sent → its 16 streams all have its `task.updated`), the writes' own p99, and the
    loop's lag (a `GET /health` every 10 ms, and the longest turn's CPU from /metrics)."""
    limit = raise_fd_limit(STREAMS + 200)
    streams_total = min(STREAMS, limit - 200)
    if streams_total < STREAMS:
        NOTES.append(f"streams: the open-file limit here is {limit}, so the row ran with {streams_total:,} streams.")
    fanout, answers, health, longest, reader_cpu = [], [], [], [], []
    for run in range(RUNS):
        server = Server({"MAX_CONNECTIONS": str(streams_total + 1000), "METRICS_TOKEN": METRICS_TOKEN})
        accounts = []
        while sum(len(a["streams"]) for a in accounts) < streams_total:
            token, [(_, secret)] = new_account(server.port)
            task = call(server.port, "POST", "/v1/tasks", {"title": "fan-out"}, key=secret, expect=201)["id"]
            count = min(16, streams_total - sum(len(a["streams"]) for a in accounts))
            accounts.append({"secret": secret, "task": task, "streams": [open_stream(server.port, token) for _ in range(count)]})
        socks = [s for a in accounts for s in a["streams"]]
        selector = selectors.DefaultSelector()
        for sock in socks:
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        arrivals: dict[tuple[str, int], list[float]] = {}
        pattern = re.compile(rb'event: task\.updated\ndata: \{"task":\{"id":"(tsk_[0-9a-z]+)".*?"progress":(\d+)')
        buffers = {sock: b"" for sock in socks}

        def read_for(seconds: float):
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                for key, _ in selector.select(0.05):
                    sock = key.fileobj
                    chunk = sock.recv(65536)
                    if not chunk:
                        raise SystemExit("bench: a stream was closed")
                    now = time.monotonic()
                    data = buffers[sock] + chunk
                    cut = data.rfind(b"\n\n")
                    if cut < 0:
                        buffers[sock] = data
                        continue
                    buffers[sock] = data[cut + 2:]
                    for match in pattern.finditer(data, 0, cut):
                        arrivals.setdefault((match.group(1).decode(), int(match.group(2))), []).append(now)

        read_for(3)  # every `ready`, and the ping-free quiet before the writes
        arrivals.clear()
        out = WORK / f"stream-writes-{run}.json"
        plan = [(a["task"], a["secret"]) for a in accounts]
        plan_file = WORK / f"stream-plan-{run}.json"
        plan_file.write_text(json.dumps(plan))
        writer = subprocess.Popen([sys.executable, str(Path(__file__).parent / "stream_writer.py"), str(server.port),
                                   str(plan_file), str(STREAM_WRITES), str(STREAM_SECONDS), str(out)])
        cpu_before = time.process_time()
        read_for(STREAM_SECONDS + 3)
        reader_cpu.append((time.process_time() - cpu_before) / (STREAM_SECONDS + 3))
        if writer.wait(timeout=60) != 0:
            raise SystemExit("bench: the writer of the streams row failed")
        written = json.loads(out.read_text())
        per_account = {a["task"]: len(a["streams"]) for a in accounts}
        times = []
        for task, progress, sent_at in written["sent"]:
            got = arrivals.get((task, progress), [])
            if len(got) >= per_account[task]:
                times.append((max(got) - sent_at) * 1000)
        missing = len(written["sent"]) - len(times)
        fanout.append(percentile(times, 99))
        answers.append(percentile(written["answers"], 99))
        health.append(percentile(written["health"], 99))
        longest.append(metrics(server.port)["relaydeck_loop_longest_turn_cpu_seconds"] * 1000)
        log(f"streams run {run + 1}: {len(socks):,} streams, {len(written['sent']):,} writes in "
            f"{written['seconds']:.1f} s; fan-out p50 {percentile(times, 50):.2f} p99 {fanout[-1]:.2f} ms "
            f"({missing} writes not seen on all streams); writes p99 {answers[-1]:.2f} ms; /health p99 "
            f"{health[-1]:.2f} ms; longest turn {longest[-1]:.2f} ms CPU; reader {reader_cpu[-1]:.0%} of a core")
        if missing:
            raise SystemExit(f"bench: {missing} writes of the streams row never reached all their streams")
        for sock in socks:
            sock.close()
        selector.close()
        server.stop()
    name = f"streams: {streams_total:,} open, {STREAM_WRITES:,} `PATCH`es a second"
    absolute(f"{name}: fan-out p99 (a `PATCH` → all 16 streams of its account)", fanout, " ms", "–", None, 2)
    absolute(f"{name}: loop lag, `GET /health` every 10 ms, p99", health, " ms", "–", None, 2)
    NOTES.append(f"streams: the writes' own p99 {fmt(answers, ' ms', 2)}; the longest loop turn {fmt(longest, ' ms', 2)} "
                 f"of CPU; the bench's reader used {fmt([c * 100 for c in reader_cpu], '%', 0)} of a core (near "
                 "100% it, not the server, would set the fan-out figure).")


# --- wal --------------------------------------------------------------------------------------

def checkpoint_figures(samples: dict[str, float], thread: str) -> tuple[float, float]:
    """How many checkpoints the `thread` ("checkpointer" or "loop") ran, and their mean ms."""
    count = samples.get(f'relaydeck_store_checkpoint_duration_seconds_count{{thread="{thread}"}}', 0)
    seconds = samples.get(f'relaydeck_store_checkpoint_duration_seconds_sum{{thread="{thread}"}}', 0)
    return count, seconds / max(1, count) * 1000


def bench_wal():
    """The task-write load (`wrk`, bench/lua/task_write.lua) for BENCH_WAL_SECONDS: the WAL
    file's largest size (sampled every 20 ms), the checkpoints of the thread and of the loop
    (/metrics), and the p99 of a reader's `GET /v1/tasks/{id}` (one request at a time, on a
    connection of its own) in the 100 ms windows in which the loop checkpointed (past 10,000
    WAL frames, `Store.inlineCheckpointFrames`: every request waits for it) against the others."""
    largest, thread_cp, loop_cp, read_with, read_without, write_p99, rates = [], [], [], [], [], [], []
    for run in range(RUNS):
        server = Server({"METRICS_TOKEN": METRICS_TOKEN})
        _, keys = new_account(server.port, 20)
        _, [(_, reader)] = new_account(server.port, 1)
        task = call(server.port, "POST", "/v1/tasks", {"title": "read me"}, key=reader, expect=201)["id"]
        wal = Path(str(server.db) + "-wal")
        env = {"BENCH_KEYS": ",".join(f"{key_id}={secret}" for key_id, secret in keys)}
        done = threading.Event()
        sizes, windows = [], []

        def sample():
            while not done.is_set():
                sizes.append(wal.stat().st_size if wal.exists() else 0)
                time.sleep(0.02)

        def probe():
            conn = socket.create_connection(("127.0.0.1", server.port))
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            request = f"GET /v1/tasks/{task} HTTP/1.1\r\nHost: b\r\nX-API-Key: {reader}\r\n\r\n".encode()
            checkpoints = checkpoint_figures(metrics(server.port), "loop")[0]
            while not done.is_set():
                window_end = time.monotonic() + 0.1
                latencies = []
                while time.monotonic() < window_end:
                    started = time.monotonic()
                    conn.sendall(request)
                    data = b""
                    while not data.endswith(b"}"):
                        data += conn.recv(65536)
                    latencies.append((time.monotonic() - started) * 1000)
                now = checkpoint_figures(metrics(server.port), "loop")[0]
                windows.append((now > checkpoints, latencies))
                checkpoints = now
            conn.close()

        threads = [threading.Thread(target=sample, daemon=True), threading.Thread(target=probe, daemon=True)]
        for thread in threads:
            thread.start()
        result = checked("wal", wrk(f"http://127.0.0.1:{server.port}/v1/tasks", LUA / "task_write.lua",
                                    duration=WAL_SECONDS, env=env))
        done.set()
        for thread in threads:
            thread.join(timeout=10)
        samples = metrics(server.port)
        thread_cp.append(checkpoint_figures(samples, "checkpointer"))
        loop_cp.append(checkpoint_figures(samples, "loop"))
        with_cp = [ms for had, latencies in windows if had for ms in latencies]
        without = [ms for had, latencies in windows if not had for ms in latencies]
        largest.append(max(sizes) / 1e6)
        rates.append(result["rps"])
        write_p99.append(p99_ms(result))
        read_with.append(percentile(with_cp, 99) if with_cp else 0)
        read_without.append(percentile(without, 99) if without else 0)
        log(f"wal run {run + 1}: {result['rps']:,.0f} writes/s, WAL at most {largest[-1]:.1f} MB; checkpoints: the "
            f"thread {thread_cp[-1][0]:.0f} ({thread_cp[-1][1]:.1f} ms each), the loop {loop_cp[-1][0]:.0f} "
            f"({loop_cp[-1][1]:.1f} ms each); reads p99 {read_with[-1]:.2f} ms in the {sum(h for h, _ in windows)} "
            f"windows with a loop checkpoint, {read_without[-1]:.2f} ms in the {sum(not h for h, _ in windows)} "
            f"others; writes p99 {write_p99[-1]:.2f} ms")
        server.stop()
    absolute(f"WAL: largest size under the task-write load ({fmt(rates, ' writes/s')}), {WAL_SECONDS} s", largest, " MB",
             "–", None, 1)
    absolute("WAL: a reader's p99 in the 100 ms windows in which the loop checkpointed "
             f"(other windows: {fmt(read_without, ' ms', 2)})", read_with, " ms", "–", None, 2)
    NOTES.append(f"WAL: checkpoints a run: the thread's {fmt([c for c, _ in thread_cp], '', 0)} of "
                 f"{fmt([m for _, m in thread_cp], ' ms', 1)} each, the loop's (past 10,000 frames) "
                 f"{fmt([c for c, _ in loop_cp], '', 0)} of {fmt([m for _, m in loop_cp], ' ms', 1)} each; the writes' "
                 f"own p99 {fmt(write_p99, ' ms', 2)}.")
