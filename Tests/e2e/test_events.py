"""GET /v1/events over real sockets (events.md): ready, every event type with its exact data,
in commit order, only to the account's own streams; the 16-stream rule; a slow reader is cut
off with bounded memory; account.deleted ends the stream. curl -N reads one stream too."""

import json
import socket
import subprocess
import time

from api import assert_error, create_account, create_key
from server_process import wait_until


class SSE:
    """A raw event-stream client: the head, then frames as (event, data) pairs."""

    def __init__(self, server, token: str, receive_buffer: int | None = None):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.connect((server.host, server.port))
        self.sock.settimeout(10)
        self.sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n"
                          f"Authorization: Bearer {token}\r\n\r\n".encode())
        self.buffer = b""
        self.closed = False

    def head(self) -> str:
        while b"\r\n\r\n" not in self.buffer:
            self._read()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        return head.decode()

    def _read(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            self.closed = True
            raise EOFError("stream ended")
        self.buffer += chunk

    def next(self) -> tuple[str, dict | None]:
        while b"\n\n" not in self.buffer:
            self._read()
        frame, self.buffer = self.buffer.split(b"\n\n", 1)
        lines = frame.decode().split("\n")
        if lines[0].startswith(":"):
            return ("comment", None)
        assert lines[0].startswith("event: ") and lines[1].startswith("data: ") and len(lines) == 2, lines
        return lines[0][7:], json.loads(lines[1][6:])

    def ended(self) -> bool:
        try:
            while True:
                self._read()
        except EOFError:
            return True
        except socket.timeout:
            return False

    def close(self) -> None:
        self.sock.close()


def test_every_change_arrives_in_commit_order_with_its_exact_data(server, py):
    account, token = create_account(py)
    stream = SSE(server, token)
    head = stream.head()
    assert head.startswith("HTTP/1.1 200 OK") and "Content-Type: text/event-stream" in head
    assert stream.next() == ("ready", {"account_id": account["id"]})

    key, secret = create_key(py, token, "Cursor")
    assert stream.next() == ("key.created", {"key": key})
    renamed = py.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "Cursor (work)"}, token=token).json
    assert stream.next() == ("key.updated", {"key": renamed})

    task = py.call("POST", "/v1/tasks", json={"title": "Dark mode"}, token=secret).json
    assert stream.next() == ("task.created", {"task": task})
    patched = py.call("PATCH", f"/v1/tasks/{task['id']}", json={"progress": 40}, token=secret).json
    assert stream.next() == ("task.updated", {"task": patched})

    question = py.call("POST", "/v1/questions", json={"prompt": "Deploy?", "task_id": task["id"]}, token=secret).json
    assert stream.next() == ("question.created", {"question": question})
    answered = py.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Yes"}, token=token).json
    assert stream.next() == ("question.updated", {"question": answered})
    assert stream.next() == ("inbox.updated", {"key_id": key["id"], "unread": 1})

    assert py.call("GET", "/v1/inbox", token=secret).status == 200
    assert stream.next() == ("inbox.updated", {"key_id": key["id"], "unread": 0})

    assert py.call("DELETE", f"/v1/tasks/{task['id']}", token=secret).status == 204
    assert stream.next() == ("task.deleted", {"task_id": task["id"], "key_id": key["id"]})
    assert py.call("DELETE", f"/v1/keys/{key['id']}", token=token).status == 204
    assert stream.next() == ("key.deleted", {"key_id": key["id"]})

    assert py.call("DELETE", "/v1/account", token=token).status == 204
    assert stream.next() == ("account.deleted", {})
    assert stream.ended()
    stream.close()


def test_a_stream_never_sees_another_accounts_changes(server, py):
    _, mine = create_account(py)
    _, theirs = create_account(py)
    stream = SSE(server, mine)
    stream.head()
    stream.next()
    create_key(py, theirs, "Theirs")
    key, _ = create_key(py, mine, "Mine")
    assert stream.next() == ("key.created", {"key": key})
    stream.close()


def test_an_api_key_gets_403(py):
    _, token = create_account(py)
    _, secret = create_key(py, token)
    assert_error(py.call("GET", "/v1/events", token=secret), 403, ("forbidden", "An API key cannot use this route."))


def test_the_seventeenth_stream_ends_the_oldest(server, py):
    _, token = create_account(py)
    # Each opened once the one before is (its `ready` read): the oldest is the first. Opened
    # all at once, their order on a server that reads the store on a pool of connections is
    # the order their credential reads came back in, not the order they were sent.
    streams = []
    for _ in range(17):
        stream = SSE(server, token)
        stream.head()
        assert stream.next()[0] == "ready"
        streams.append(stream)
    assert streams[0].ended()
    create_key(py, token)
    for stream in streams[1:]:
        assert stream.next()[0] == "key.created"
        stream.close()
    streams[0].close()


def test_a_reader_that_stops_reading_is_cut_off_and_memory_stays_bounded(server, py):
    _, token = create_account(py)
    _, secret = create_key(py, token)
    task = py.call("POST", "/v1/tasks", json={"title": "Big"}, token=secret).json
    slow = SSE(server, token, receive_buffer=4096)
    slow.head()
    before = rss_kib(server.pid)
    description = "x" * 19_000
    for index in range(400):
        patched = py.call("PATCH", f"/v1/tasks/{task['id']}", json={"description": f"{index} {description}"},
                          token=secret)
        assert patched.status == 200
    # About 7.6 MB of events went to a client that reads nothing: past what the kernel's
    # socket buffers hold (a few MB on loopback), 512 KiB wait in the server, and it is cut.
    assert rss_kib(server.pid) - before < 16 * 1024
    slow.sock.settimeout(10)
    assert slow.ended()
    slow.close()
    assert py.call("GET", "/health").status == 200


def test_curl_reads_the_stream(server, py):
    account, token = create_account(py)
    curl = subprocess.Popen(["curl", "-sN", "-H", f"Authorization: Bearer {token}",
                             f"http://{server.host}:{server.port}/v1/events"], stdout=subprocess.PIPE, text=True)
    try:
        assert curl.stdout.readline() == "event: ready\n"
        assert json.loads(curl.stdout.readline()[6:]) == {"account_id": account["id"]}
        assert curl.stdout.readline() == "\n"
        key, _ = create_key(py, token)
        assert curl.stdout.readline() == "event: key.created\n"
        assert json.loads(curl.stdout.readline()[6:]) == {"key": key}
    finally:
        curl.terminate()
        curl.wait(timeout=5)


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")
