#!/usr/bin/env python3
"""Writes the linker's symbol order file of the release binary (packaging/relaydeckd.order).

    bench/order_file.py [OUT]

The kernel maps a program's code 64 KiB at a time around each page it touches (fault-around),
from the page cache, and counts those pages in its resident memory. The start and the common
requests run about 5,000 functions, a megabyte or two of code, spread over the 11 MB of
`.text`, so before this file most of `.text` was resident after start (BENCHMARKS.md, round 4).
`make build` links with lld and `--symbol-ordering-file`, which puts the functions named here
first, together.

How the list is made: the release binary (`RELAYDECKD`, default .build/release/relaydeckd)
runs under callgrind with names left mangled (`--demangle=no`) through a start and the requests
a server serves every day: `/health`, an account and a key, a task created, changed, read and
listed, an MCP `initialize` and `tools/call update_task`, an event stream, a parked inbox wait,
the console's page, the activity log; once on SQLite and once on PostgreSQL (a cluster of its
own, as the end-to-end tests make theirs; skipped when PostgreSQL is not installed); every function callgrind saw run that the binary has a
symbol for is listed, sorted by name (so a module's functions stay next to each other and the
file changes little from one run to the next). A name the linker no longer finds is passed
over (`--no-warn-symbol-ordering`), so a stale file costs only memory, never a build; run this
again when the start or a common request changes much. The names are the same on every
architecture, so the one file serves the arm64 build too.
"""

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from common import ROOT, Server, call, new_account
from cost import stripped_binary

sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from postgres_cluster import PostgresCluster, binaries  # noqa: E402

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "packaging/relaydeckd.order"


def mcp(port: int, secret: str, body: dict, session: str | None = None) -> str | None:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", method="POST", data=json.dumps(body).encode())
    for name, value in (("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"),
                        ("Authorization", f"Bearer {secret}"), ("MCP-Protocol-Version", "2025-06-18")):
        request.add_header(name, value)
    if session:
        request.add_header("Mcp-Session-Id", session)
    with urllib.request.urlopen(request) as response:
        response.read()
        return response.headers.get("Mcp-Session-Id")


def raw(port: int, text: str, seconds: float) -> bytes:
    """A request on a socket of its own, read for `seconds` (an event stream, a parked wait)."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(text.encode())
        sock.settimeout(seconds)
        got = b""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            got += chunk
        return got


def exercise(port: int):
    call(port, "GET", "/health", expect=200)
    token, [(_, secret)] = new_account(port)
    for _ in range(3):
        task = call(port, "POST", "/v1/tasks", {"title": "Order the code", "description": "A task."}, key=secret, expect=201)
        call(port, "PATCH", f"/v1/tasks/{task['id']}", {"progress": 50, "status": "in_progress"}, key=secret, expect=200)
        call(port, "GET", f"/v1/tasks/{task['id']}", key=secret, expect=200)
        call(port, "GET", "/v1/tasks?limit=10", token=token, expect=200)
        call(port, "GET", "/v1/tasks?limit=10", key=secret, expect=200)
    session = mcp(port, secret, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "order", "version": "1"}}})
    mcp(port, secret, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    mcp(port, secret, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    for progress in (60, 70):
        mcp(port, secret, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "update_task", "arguments": {"task_id": task["id"], "progress": progress}}}, session)
    raw(port, f"GET /v1/events HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer {token}\r\n\r\n", 1.0)
    raw(port, f"GET /v1/inbox?wait=1 HTTP/1.1\r\nHost: b\r\nX-API-Key: {secret}\r\nConnection: close\r\n\r\n", 3.0)
    call(port, "GET", "/v1/activity", token=token)
    raw(port, "GET / HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n", 2.0)


def functions_run(binary: Path, symbols: set[str], env: dict, tag: str) -> set[str]:
    """The functions of `binary` that ran through a start and `exercise` with `env`, by
    callgrind's dump."""
    dump = ROOT / f".build/cost/callgrind.order.{tag}"
    dump.unlink(missing_ok=True)
    server = Server(env, wrapper=["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={dump}"],
                    binary=binary, start_timeout=120)
    try:
        exercise(server.port)
        time.sleep(0.5)
    finally:
        server.stop()
    names, ran = {}, set()
    # Callgrind names a function once, at its first `fn=` or `cfn=` (a call to it), by number after.
    for line in dump.read_text(errors="replace").splitlines():
        match = re.match(r"(c?)fn=\((\d+)\)(?: (.*))?$", line)
        if match:
            if match.group(3):
                names[match.group(2)] = re.sub(r"'\d+$", "", match.group(3))
            name = names.get(match.group(2))
            if name in symbols:
                ran.add(name)
    if len(ran) < 1000:
        raise SystemExit(f"bench: only {len(ran)} functions seen; is {dump} whole?")
    return ran


def main():
    binary = stripped_binary()
    symbols = set()
    for line in subprocess.run(["nm", str(binary)], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            symbols.add(parts[2])
    ran = functions_run(binary, symbols, {}, "sqlite")
    print(f"on SQLite: {len(ran):,} functions")
    # The same on PostgreSQL, when its binaries are here (`make test-deps` installs them): a
    # start on PostgreSQL runs the client, the pool and the feed's listener, which a start on
    # SQLite never does, and without them first the start's code is scattered again.
    if binaries() is None:
        print("bench: PostgreSQL is not installed; the order file has the SQLite start only", file=sys.stderr)
    else:
        cluster = PostgresCluster()
        try:
            url = cluster.url(cluster.create_database("order_file"))
            on_postgres = functions_run(binary, symbols, {"DATABASE_URL": url}, "postgres")
        finally:
            cluster.stop()
        print(f"on PostgreSQL: {len(on_postgres):,} functions, {len(on_postgres - ran):,} not run on SQLite")
        ran |= on_postgres
    OUT.write_text("".join(f"{name}\n" for name in sorted(ran)))
    print(f"{OUT}: {len(ran):,} functions")


if __name__ == "__main__":
    main()
