"""Large lists as an attacker asks for them (issue 26, defect 1).

One key holds 400 open tasks of 80,000-byte descriptions (32 MB of text, each task at the
widest the byte bounds allow). Before the page budget, `GET /v1/tasks?limit=500` built a
16 MB answer on the loop before its first byte left, and MCP `resources/read tasks://open`
all 32 MB; every other client waited meanwhile, and a client that never read held it all.
Now a page holds 1 MiB of tasks at most and ends early with a `next_cursor`, a large
answer is written in pieces as its client reads (chunked), and the resource is cut with a
note and the cursor to go on with.
"""

import json
import socket
import subprocess
import threading
import time

import pytest

from api import create_account, create_key
from http_clients import PythonClient
from loop_turns import METRICS_TOKEN, turn_buckets, turns_longer_than
from mcp_support import MODERN, meta, tool, validate
from raw_http import RawConnection, request_bytes
from server_process import ServerProcess, resident_bytes

RELAXED_LIMITS = {
    "RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000",
    "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000",
    "LOG_LEVEL": "info",
}
MIB = 1024 * 1024
TASKS = 400
# 20,000 characters of 4 bytes: the longest description in characters and in bytes.
DESCRIPTION = "😀" * 20_000
TASK_BYTES = len(DESCRIPTION.encode())
# A page: the 1 MiB budget, plus the one task that may cross it, plus the JSON around them.
PAGE_BOUND = MIB + TASK_BYTES + 64 * 1024


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """A server whose key has TASKS large open tasks; yields (server, token, secret)."""
    server = ServerProcess(tmp_path_factory.mktemp("bounded"), {**RELAXED_LIMITS, "METRICS_TOKEN": METRICS_TOKEN}).start()
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    _, secret = create_key(py, token, "Loaded")
    body = None
    with RawConnection(server.port, timeout=30) as conn:
        for index in range(TASKS):
            body = json.dumps({"title": f"Task {index}", "description": DESCRIPTION})
            conn.send(request_bytes("POST", "/v1/tasks", body, {"Authorization": f"Bearer {secret}",
                                                                 "Content-Type": "application/json"}))
            response = conn.read_response()
            assert response.status == 201, response
    yield server, token, secret
    server.teardown()


def get(server, path: str, secret: str):
    with RawConnection(server.port, timeout=30) as conn:
        conn.send(request_bytes("GET", path, None, {"Authorization": f"Bearer {secret}"}))
        return conn.read_response()


def mcp_request(method: str, params: dict, id_: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": {**params, "_meta": meta()}}).encode()


def mcp_headers(secret: str, method: str, name: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name:
        headers["Mcp-Name"] = name
    return headers


def test_a_page_of_large_tasks_ends_at_its_byte_budget_and_the_cursors_list_every_task_once(loaded):
    server, _, secret = loaded
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        response = get(server, "/v1/tasks?limit=500" + (f"&cursor={cursor}" if cursor else ""), secret)
        assert response.status == 200, response
        assert len(response.body) <= PAGE_BOUND, len(response.body)
        # A page this large is written in pieces as it is read.
        assert response.header("transfer-encoding") == "chunked", response.headers
        assert response.header("content-length") is None, response.headers
        page = response.json
        assert set(page) == {"tasks", "next_cursor"}, list(page)
        assert page["tasks"], "a page with a cursor before it is never empty"
        seen += [task["id"] for task in page["tasks"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
        # Cut by the budget, not by the limit.
        assert len(page["tasks"]) < 500
    assert len(seen) == TASKS and len(set(seen)) == TASKS
    assert pages >= TASKS * TASK_BYTES // (MIB + TASK_BYTES)


def test_a_small_page_is_one_answer_with_its_content_length(loaded):
    server, token, _ = loaded
    py = PythonClient(server.host, server.port)
    _, small = create_key(py, token, "Small")
    for index in range(3):
        assert py.call("POST", "/v1/tasks", json={"title": f"Small {index}"}, api_key=small).status == 201
    response = get(server, "/v1/tasks?limit=2", small)
    assert response.status == 200, response
    assert response.header("content-length") == str(len(response.body)), response.headers
    assert response.header("transfer-encoding") is None, response.headers
    assert len(response.json["tasks"]) == 2 and response.json["next_cursor"]


def test_http10_client_gets_a_large_page_up_to_the_close(loaded):
    server, _, secret = loaded
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall(f"GET /v1/tasks?limit=500 HTTP/1.0\r\nAuthorization: Bearer {secret}\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(1 << 16):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"transfer-encoding" not in head.lower() and b"content-length" not in head.lower(), head
    page = json.loads(body)
    assert page["next_cursor"] and 1 < len(page["tasks"]) < 500


def test_mcp_list_tasks_is_cut_by_the_budget_and_pages_on(loaded):
    server, _, secret = loaded
    client = PythonClient(server.host, server.port)
    result = tool(client, secret, "list_tasks", {"limit": 500})
    structured = result["structuredContent"]
    assert 1 < len(structured["tasks"]) < 500
    assert structured["next_cursor"], structured
    assert "call list_tasks again with cursor" in result["content"][0]["text"]
    following = tool(client, secret, "list_tasks", {"limit": 500, "cursor": structured["next_cursor"]})
    first_ids = {task["id"] for task in structured["tasks"]}
    assert not first_ids & {task["id"] for task in following["structuredContent"]["tasks"]}


def test_mcp_open_tasks_resource_is_cut_with_a_note_and_a_cursor(loaded):
    server, _, secret = loaded
    with RawConnection(server.port, timeout=30) as conn:
        conn.send(request_bytes("POST", "/mcp", mcp_request("resources/read", {"uri": "tasks://open"}),
                                mcp_headers(secret, "resources/read", "tasks://open")))
        response = conn.read_response()
    assert response.status == 200, response
    assert len(response.body) <= 2 * PAGE_BOUND, len(response.body)
    message = response.json
    validate(message, "JSONRPCResultResponse")
    validate(message["result"], "ReadResourceResult")
    content = json.loads(message["result"]["contents"][0]["text"])
    assert content["truncated"] is True
    assert 1 < len(content["tasks"]) < TASKS
    assert "list_tasks" in content["note"] and content["next_cursor"] in content["note"]
    # The cursor goes on where the resource stopped, with list_tasks' own filter.
    client = PythonClient(server.host, server.port)
    rest = tool(client, secret, "list_tasks", {"status": ["todo", "in_progress"], "limit": 500,
                                               "cursor": content["next_cursor"]})
    assert not {t["id"] for t in content["tasks"]} & {t["id"] for t in rest["structuredContent"]["tasks"]}


class Probe(threading.Thread):
    """A request (`GET /health` unless told) on a connection of its own every few
    milliseconds; the slowest answer is the loop's longest stall (plus loopback and this
    thread's own scheduling), and with a request that reads the store, the store's too (on
    PostgreSQL, a wait for one of the pool's connections). Each answer's status is kept."""

    def __init__(self, port: int, request: bytes = request_bytes("GET", "/health")):
        super().__init__(daemon=True)
        self.port = port
        self.request = request
        self.latencies: list[float] = []
        self.statuses: list[int] = []
        self.stop = threading.Event()

    def run(self):
        with RawConnection(self.port, timeout=10) as conn:
            while not self.stop.is_set():
                started = time.monotonic()
                conn.send(self.request)
                response = conn.read_response()
                self.latencies.append(time.monotonic() - started)
                self.statuses.append(response.status)
                time.sleep(0.005)

    def summary(self) -> str:
        ordered = sorted(self.latencies)
        return f"{len(ordered)} probes, p50 {ordered[len(ordered) // 2] * 1000:.2f} ms, worst {ordered[-1] * 1000:.2f} ms"


# The loop's longest turn the attack may cause, in the loop thread's CPU time (`loop_turns`:
# a bound of the histogram). Without the budget and the pieces, one resources/read alone held
# the loop for hundreds of milliseconds here. /health's own latency, measured from outside,
# counts the load generators' turns on the same two cores too (a run failed at 50.6 ms with
# a median of 1.2), so it is only held to the bound that means the loop stopped.
TURN_BOUND = 0.016
FROZEN = 1.0
CLIENTS_THAT_NEVER_READ = 8
ATTACK_SECONDS = 6.0


def test_health_and_another_accounts_reads_stay_quick_and_memory_bounded_while_large_lists_are_read_slowly_never_read_or_abandoned(loaded):
    server, _, secret = loaded
    port = server.port
    # Another account's key reading its one task the whole time: its reads go through the store
    # (on PostgreSQL the pool's connections, which the attack's reads hold in turn).
    py = PythonClient(server.host, port)
    _, other_token = create_account(py)
    _, other_secret = create_key(py, other_token, "Bystander")
    with RawConnection(port, timeout=10) as conn:
        conn.send(request_bytes("POST", "/v1/tasks", json.dumps({"title": "Mine"}),
                                {"Authorization": f"Bearer {other_secret}", "Content-Type": "application/json"}))
        mine = conn.read_response()
        assert mine.status == 201, mine
    other_read = request_bytes("GET", f"/v1/tasks/{json.loads(mine.body)['id']}", None,
                               {"Authorization": f"Bearer {other_secret}"})
    list_request = request_bytes("GET", "/v1/tasks?limit=500", None, {"Authorization": f"Bearer {secret}"})
    resource_request = request_bytes("POST", "/mcp", mcp_request("resources/read", {"uri": "tasks://open"}),
                                     mcp_headers(secret, "resources/read", "tasks://open"))
    list_tool = request_bytes("POST", "/mcp", mcp_request("tools/call", {"name": "list_tasks", "arguments": {"limit": 500}}),
                              mcp_headers(secret, "tools/call", "list_tasks"))
    baseline = resident_bytes(server.pid)
    before = turn_buckets(port)

    # Clients that read the largest answers in a loop, in processes of their own (curl).
    url = f"http://{server.host}:{port}"
    body_file = server.workdir / "resource-read.json"
    body_file.write_bytes(mcp_request("resources/read", {"uri": "tasks://open"}))
    headers = mcp_headers(secret, "resources/read", "tasks://open")
    # (A short pause between two reads keeps the load generators from taking both cores of a
    # small machine from the server: the stall measured is then the server's own.)
    loop = f'end=$((SECONDS+{int(ATTACK_SECONDS)})); while [ $SECONDS -lt $end ]; do "$@" || exit 1; sleep 0.01; done'
    loops = [
        ["bash", "-c", loop, "loop", "curl", "-sS", "-o", "/dev/null", "-H", f"Authorization: Bearer {secret}",
         f"{url}/v1/tasks?limit=500"],
        ["bash", "-c", loop, "loop", "curl", "-sS", "-o", "/dev/null", *sum((["-H", f"{n}: {v}"] for n, v in headers.items()), []),
         "--data-binary", f"@{body_file}", f"{url}/mcp"],
    ]
    readers = [subprocess.Popen(argv) for argv in loops]
    probe = Probe(port)
    bystander = Probe(port, other_read)
    never_read, slow = [], None
    peak = baseline
    try:
        probe.start()
        bystander.start()
        # Clients that ask again and again and never read a byte.
        for index in range(CLIENTS_THAT_NEVER_READ):
            sock = socket.create_connection((server.host, port))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall([list_request, resource_request, list_tool][index % 3] * 4)
            never_read.append(sock)
        # One that reads 4 KiB every 20 ms.
        slow = socket.create_connection((server.host, port))
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.sendall(resource_request)
        slow.setblocking(False)
        deadline = time.monotonic() + ATTACK_SECONDS
        while time.monotonic() < deadline:
            # Clients that ask for the largest answers and go away at once.
            with socket.create_connection((server.host, port)) as gone:
                gone.sendall(resource_request + list_request)
            try:
                slow.recv(4096)
            except BlockingIOError:
                pass
            peak = max(peak, resident_bytes(server.pid))
            time.sleep(0.02)
    finally:
        probe.stop.set()
        bystander.stop.set()
        probe.join(timeout=15)
        bystander.join(timeout=15)
        for sock in never_read:
            sock.close()
        if slow:
            slow.close()
        for reader in readers:
            reader.wait(timeout=30)
    turns, long_turns = turns_longer_than(before, turn_buckets(port), TURN_BOUND)
    assert all(reader.returncode == 0 for reader in readers), [reader.returncode for reader in readers]
    assert len(probe.latencies) > 100, len(probe.latencies)
    assert len(bystander.latencies) > 50, len(bystander.latencies)
    worst = max(probe.latencies)
    print(f"/health: {probe.summary()}; another account's task read: {bystander.summary()}; "
          f"RSS {baseline / MIB:.0f} -> {peak / MIB:.0f} MiB; "
          f"{long_turns} of {turns} loop turns over {TURN_BOUND * 1000:.0f} ms of CPU")
    assert set(probe.statuses) == {200}, sorted(set(probe.statuses))
    # Never a 503 for want of a connection, nor a read left waiting behind the attack's.
    assert set(bystander.statuses) == {200}, sorted(set(bystander.statuses))
    assert long_turns == 0, f"{long_turns} of {turns} loop turns took more than {TURN_BOUND * 1000:.0f} ms of CPU"
    assert worst < FROZEN, f"/health took {worst * 1000:.1f} ms at worst"
    assert max(bystander.latencies) < FROZEN, f"another account's read took {max(bystander.latencies) * 1000:.1f} ms at worst"
    # Each client that never reads holds one page of tasks and a few pieces at most.
    growth = peak - baseline
    assert growth < CLIENTS_THAT_NEVER_READ * 3 * MIB + 64 * MIB, f"RSS grew by {growth / MIB:.0f} MiB"
    # And the server still answers in full.
    assert get(server, "/v1/tasks?limit=1", secret).status == 200

