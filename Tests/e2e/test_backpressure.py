"""Clients that pipeline hundreds of requests with sizeable answers and never read.

The server answers a connection only while that connection's unsent answers are under
4 MiB, and hands the loop to the others between turns: its memory grows by the bound per
such client at most, and another client's `/health` stays quick throughout.
"""

import socket
import time

from api import create_account, create_key
from http_clients import PythonClient
from raw_http import RawConnection, request_bytes
from server_process import resident_bytes

RELAXED_LIMITS = {
    "RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000",
    "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000",
}
CLIENTS = 6
REQUESTS_PER_CLIENT = 1500
MIB = 1024 * 1024
# Per client: the 4 MiB bound, one answer over it, one 64 KiB read kept unparsed.
PER_CLIENT_BOUND = 4 * MIB + 64 * 1024
# The allocator's own slack and the other client's traffic.
SLACK = 16 * MIB
ATTACK_SECONDS = 6.0
# Long labels make the answers sizeable: the widest one the server accepts is used.
LABELS = ["👍🏽" * 20, "x" * 40]


def account_with_large_key_list(py) -> tuple[str, int]:
    """An account with 20 keys of long labels; returns the token and the size of the list."""
    _, token = create_account(py)
    label = next(l for l in LABELS if py.call("POST", "/v1/keys", json={"label": l}, token=token).status == 201)
    for _ in range(19):
        create_key(py, token, label)
    listed = py.call("GET", "/v1/keys", token=token)
    assert listed.status == 200 and len(listed.json["keys"]) == 20, listed
    return token, len(listed.body)


def timed_health(port: int) -> float:
    started = time.monotonic()
    with RawConnection(port, timeout=10) as conn:
        conn.send(request_bytes("GET", "/health"))
        response = conn.read_response()
    assert response.status == 200, response
    return time.monotonic() - started


def test_clients_that_pipeline_and_never_read_leave_memory_bounded_and_health_quick(start_server):
    server = start_server(dict(RELAXED_LIMITS, LOG_LEVEL="info"))
    py = PythonClient(server.host, server.port)
    token, answer_size = account_with_large_key_list(py)
    # Unthrottled, each client would queue REQUESTS_PER_CLIENT answers.
    assert answer_size * REQUESTS_PER_CLIENT > 2 * PER_CLIENT_BOUND, answer_size
    request = request_bytes("GET", "/v1/keys", None, {"Authorization": f"Bearer {token}"})
    baseline = resident_bytes(server.pid)

    attackers = []
    for _ in range(CLIENTS):
        sock = socket.create_connection((server.host, server.port))
        sock.setblocking(False)
        attackers.append([sock, request * REQUESTS_PER_CLIENT])
    latencies, peak = [], baseline
    try:
        deadline = time.monotonic() + ATTACK_SECONDS
        while time.monotonic() < deadline:
            for attacker in attackers:
                # Send what the socket takes; a server that stopped reading takes nothing.
                if attacker[1]:
                    try:
                        attacker[1] = attacker[1][attacker[0].send(attacker[1]):]
                    except BlockingIOError:
                        pass
            latencies.append(timed_health(server.port))
            peak = max(peak, resident_bytes(server.pid))
            time.sleep(0.05)
        growth = peak - baseline
        bound = CLIENTS * (PER_CLIENT_BOUND + answer_size) + SLACK
        seen = (f"resident memory grew by {growth / MIB:.1f} MiB (bound {bound / MIB:.1f} MiB); "
                f"slowest /health {max(latencies):.3f} s of {len(latencies)}")
        assert growth < bound and max(latencies) < 0.5, seen
    finally:
        for attacker in attackers:
            attacker[0].close()

    # The server is still whole: it answers, and the key list is intact.
    assert timed_health(server.port) < 1.0
    listed = py.call("GET", "/v1/keys", token=token)
    assert listed.status == 200 and len(listed.body) == answer_size, listed


def test_a_client_that_stops_reading_gets_every_answer_in_order_once_it_reads(start_server):
    server = start_server(RELAXED_LIMITS)
    py = PythonClient(server.host, server.port)
    token, answer_size = account_with_large_key_list(py)
    paths = ["/nope" if i % 3 == 0 else "/v1/keys" for i in range(600)]
    with RawConnection(server.port, timeout=20) as conn:
        conn.send(b"".join(request_bytes("GET", p, None, {"Authorization": f"Bearer {token}"}) for p in paths))
        # Long enough for the server to reach its bound and stop.
        time.sleep(1.0)
        answers = [conn.read_response() for _ in paths]
        assert [a.status for a in answers] == [404 if p == "/nope" else 200 for p in paths]
        assert all(len(a.body) == answer_size for a in answers if a.status == 200)
        assert conn.buffer == b""
