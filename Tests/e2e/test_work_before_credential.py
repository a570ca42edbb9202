"""Clients without a credential that send the largest JSON bodies in a loop.

The contract refuses a body that is not JSON (400) before it reads the credential, so the
server must look at every body it is sent; it does so with a scan of the bytes and builds
the value only after the credential is accepted. Eight connections sending 1 MiB JSON arrays
without a credential (each parse used to cost 50 ms of the loop: /health p50 317 ms) hold
no loop turn for long, /health on a second connection is answered throughout, and every
attack request gets its 401.

How long a turn takes is read from the server (`loop_turns`: the loop thread's CPU time per
turn), not from /health's latency: on a two-core machine the eight attacking threads take
the CPU from the server too, and a latency bound measured from outside failed on that alone.
"""

import socket
import statistics
import threading
import time

from http_clients import PythonClient
from loop_turns import METRICS_TOKEN, turn_buckets, turns_longer_than
from raw_http import RawConnection, request_bytes

ATTACKERS = 8
ATTACK_SECONDS = 5.0
MIB = 1024 * 1024
# `[1,1,...]`, the shape of the attack, just under the 1 MiB body limit.
ARRAY = b"[" + b",".join([b"1"] * (MIB // 2 - 1)) + b"]"
# No turn of the loop may take more CPU than this while the attack lasts (a histogram bound
# of `relaydeck_loop_turn_cpu_seconds`): one body's scan and reads take a few milliseconds,
# the turn's budget is 4 ms, and the old parse of one body alone took 50.
TURN_BOUND = 0.016
# A /health answer slower than this means the loop stopped, whatever the machine is doing.
FROZEN = 1.0


def attack(port: int, path: str, stop: threading.Event, statuses: list[int], errors: list[str]) -> None:
    request = request_bytes("POST", path, ARRAY, {"Content-Type": "application/json"})
    try:
        conn = RawConnection(port, timeout=10)
        while not stop.is_set():
            conn.send(request)
            response = conn.read_response()
            statuses.append(response.status)
            if response.header("Connection") == "close":
                conn.close()
                conn = RawConnection(port, timeout=10)
        conn.close()
    except Exception as error:  # reported by the test, not lost in the thread
        errors.append(repr(error))


def test_large_json_bodies_without_a_credential_leave_health_quick(start_server):
    assert len(ARRAY) <= MIB
    server = start_server({"LOG_LEVEL": "info", "METRICS_TOKEN": METRICS_TOKEN})
    py = PythonClient(server.host, server.port)
    assert py.call("POST", "/v1/tasks", body=ARRAY).status == 401
    # The order of checks holds: not JSON is still 400 before the credential.
    assert py.call("POST", "/v1/tasks", body=ARRAY[:-1]).status == 400

    stop = threading.Event()
    statuses: list[int] = []
    errors: list[str] = []
    paths = ["/v1/tasks", "/v1/keys", "/v1/messages", "/v1/questions"]
    threads = [threading.Thread(target=attack, args=(server.port, paths[i % len(paths)], stop, statuses, errors))
               for i in range(ATTACKERS)]
    before = turn_buckets(server.port)
    for thread in threads:
        thread.start()
    latencies = []
    try:
        time.sleep(0.3)
        with RawConnection(server.port, timeout=10) as probe:
            deadline = time.monotonic() + ATTACK_SECONDS
            while time.monotonic() < deadline:
                started = time.monotonic()
                probe.send(request_bytes("GET", "/health"))
                assert probe.read_response().status == 200
                latencies.append(time.monotonic() - started)
                time.sleep(0.02)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=20)
    turns, long_turns = turns_longer_than(before, turn_buckets(server.port), TURN_BOUND)
    assert not errors, errors
    assert statuses and set(statuses) == {401}, set(statuses)
    p50, worst = statistics.median(latencies), max(latencies)
    seen = (f"/health p50 {p50 * 1000:.1f} ms, max {worst * 1000:.1f} ms over {len(latencies)} probes, "
            f"while {len(statuses)} bodies of {len(ARRAY)} bytes were refused; "
            f"{long_turns} of {turns} loop turns over {TURN_BOUND * 1000:.0f} ms of CPU")
    print(seen)
    assert long_turns == 0 and worst < FROZEN, seen
    # Enough attack traffic for the bound to mean something: each connection sent a body
    # every half second at least.
    assert len(statuses) >= ATTACKERS * ATTACK_SECONDS * 2, seen
