"""Malformed HTTP over real sockets, beyond the framing tests of Tests/e2e: smuggling attempts
(each built so that a misread would answer a second, hidden request), heads far over the
limit, slow senders, half-closed sockets and thousands of idle connections. Each gets its
error or its close, and the server keeps serving everyone else."""

import resource
import socket
import threading
import time

import pytest

from conftest import RELAXED_LIMITS, scaled
from raw_http import RawConnection
from torture_support import KeepAlive, open_fds

# The hidden request: were it ever read as a request of its own, its answer would be a 404.
HIDDEN = b"GET /v1/smuggled HTTP/1.1\r\nHost: a\r\n\r\n"

SMUGGLING = {
    "cl-then-te": b"POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + HIDDEN,
    "te-then-cl": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 44\r\n\r\n0\r\n\r\n" + HIDDEN,
    "double-cl-same": b"POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(HIDDEN), len(HIDDEN)) + HIDDEN,
    "double-cl-differ": b"POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: %d\r\n\r\n" % len(HIDDEN) + HIDDEN,
    "cl-list": b"POST /health HTTP/1.1\r\nHost: a\r\nContent-Length: 0, 40\r\n\r\n" + HIDDEN,
    "te-chunked-twice": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n" + HIDDEN,
    "te-two-fields": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n" + HIDDEN,
    "te-space-before-colon": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding : chunked\r\nContent-Length: 0\r\n\r\n" + HIDDEN,
    "te-obs-fold": b"POST /health HTTP/1.1\r\nHost: a\r\nX-A: b\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 0\r\n\r\n" + HIDDEN,
    "te-xchunked": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n" + HIDDEN,
    "te-vertical-tab": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\x0bchunked\r\n\r\n0\r\n\r\n" + HIDDEN,
    "bare-lf-in-chunk": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\n\r\n" + HIDDEN,
    "chunk-size-overflow": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000000001\r\nx\r\n0\r\n\r\n" + HIDDEN,
    "chunk-ext-lf": b"POST /health HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;a\nb\r\nxx\r\n0\r\n\r\n" + HIDDEN,
}

# Heads that break the grammar (no body to hide anything in): refused with 400 and the close,
# or, where the grammar allows a lenient reading, answered, with the next request read as the
# next request (the pipelined request's own 404).
MALFORMED_HEADS = {
    "obs-fold": b"GET /health HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n",
    "bare-cr-head": b"GET /health HTTP/1.1\rHost: a\r\n\r\n",
    "bare-lf-head": b"GET /health HTTP/1.1\nHost: a\n\n",
    "absolute-form": b"GET http://evil/health HTTP/1.1\r\nHost: a\r\n\r\n",
    "http09": b"GET /health\r\n\r\n",
    "nul-in-target": b"GET /hea\x00lth HTTP/1.1\r\nHost: a\r\n\r\n",
    "tab-in-target": b"GET /hea\tlth HTTP/1.1\r\nHost: a\r\n\r\n",
    "two-spaces": b"GET  /health HTTP/1.1\r\nHost: a\r\n\r\n",
    "lower-version": b"GET /health http/1.1\r\nHost: a\r\n\r\n",
    "utf8-name": b"GET /health HTTP/1.1\r\nHost: a\r\nX-\xc3\xa9: v\r\n\r\n",
    "empty-name": b"GET /health HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n",
    "leading-space-field": b"GET /health HTTP/1.1\r\n Host: a\r\n\r\n",
}


def answers(data: bytes) -> list[int]:
    """The statuses of the complete answers in `data` (bodies skipped by Content-Length)."""
    statuses = []
    while data:
        head, sep, rest = data.partition(b"\r\n\r\n")
        assert sep, f"a partial answer: {data[:300]!r}"
        lines = head.split(b"\r\n")
        statuses.append(int(lines[0].split()[1]))
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        data = rest[length:]
    return statuses


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from server_process import ServerProcess
    process = ServerProcess(tmp_path_factory.mktemp("malformed"), {**RELAXED_LIMITS, "HTTP_HEADER_TIMEOUT": "2"}).start()
    yield process
    process.teardown()


@pytest.mark.parametrize("raw", SMUGGLING.values(), ids=SMUGGLING.keys())
def test_a_smuggled_request_is_never_answered(server, raw):
    with RawConnection(server.port, timeout=5) as conn:
        conn.send(raw)
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        statuses = answers(conn.read_until_eof(timeout=5))
    assert 404 not in statuses, statuses
    assert statuses, "no answer at all"
    # Only the visible request was read: its answer (405: /health takes no POST; 200 for a
    # GET read leniently) or a refusal of the framing (413 for a chunk size past the body
    # limit), after which nothing else is read.
    assert len(statuses) == 1, statuses
    assert statuses[0] in {200, 400, 405, 413, 501}, statuses
    assert KeepAlive(server.port).json("GET", "/health", expect=200)


@pytest.mark.parametrize("raw", MALFORMED_HEADS.values(), ids=MALFORMED_HEADS.keys())
def test_a_malformed_head_is_refused_and_closed(server, raw):
    with RawConnection(server.port, timeout=5) as conn:
        conn.send(raw + HIDDEN)
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        statuses = answers(conn.read_until_eof(timeout=5))
    assert statuses in ([400], [200, 404], [404, 404]), statuses
    assert KeepAlive(server.port).json("GET", "/health", expect=200)


def test_heads_far_over_the_limit_are_refused_without_being_buffered(server):
    """A head that never ends (a 1 MiB field, then 5,000 fields) is 431 once it passes 16 KiB;
    the server does not wait for the rest and its memory stays where it was."""
    from torture_support import rss_kb
    before = rss_kb(server.pid)
    for body in (b"X-Big: " + b"a" * (1 << 20), b"".join(b"X-%d: v\r\n" % n for n in range(5000))):
        with RawConnection(server.port, timeout=10) as conn:
            conn.send(b"GET /health HTTP/1.1\r\nHost: a\r\n")
            try:
                conn.sock.sendall(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server answered and closed before taking it all
            statuses = answers(conn.read_until_eof(timeout=10))
            assert statuses == [431], statuses
    assert rss_kb(server.pid) < before + 8 * 1024


def test_half_closed_sockets_get_their_answers_then_the_close(server):
    # Three pipelined requests, then the client's FIN: all three answered, then the close.
    with RawConnection(server.port, timeout=5) as conn:
        conn.send(b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n" * 3)
        conn.sock.shutdown(socket.SHUT_WR)
        assert answers(conn.read_until_eof(timeout=5)) == [200, 200, 200]
    # A head cut off by the FIN: no answer for half a request (or a 400), and the close.
    with RawConnection(server.port, timeout=5) as conn:
        conn.send(b"GET /health HTTP/1.1\r\nHost: a\r\nX-Part")
        conn.sock.shutdown(socket.SHUT_WR)
        assert answers(conn.read_until_eof(timeout=5)) in ([], [400])
    # A body cut off by the FIN.
    with RawConnection(server.port, timeout=5) as conn:
        conn.send(b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{\"a\"")
        conn.sock.shutdown(socket.SHUT_WR)
        assert answers(conn.read_until_eof(timeout=5)) in ([], [400])
    # A client that closes without reading its (large) answer: the server carries on.
    for _ in range(50):
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n" * 20)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        sock.close()  # a reset
    assert KeepAlive(server.port).json("GET", "/health", expect=200)


def test_slow_senders_time_out_while_others_are_served(server):
    """200 connections that send a head a byte at a time, slower than the header timeout (2 s):
    each gets 408 or the close, and a normal client meanwhile answers at once."""
    count = scaled(200, 1000)
    socks = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(count)]
    stop = threading.Event()

    def trickle():
        n = 0
        while not stop.is_set():
            for sock in socks:
                try:
                    sock.send(b"GET /health HTTP/1.1\r\nHost: a\r\n"[n % 30:n % 30 + 1])
                except OSError:
                    pass
            n += 1
            time.sleep(0.3)

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    client = KeepAlive(server.port, timeout=5)
    try:
        deadline = time.monotonic() + 3.5
        while time.monotonic() < deadline:
            started = time.monotonic()
            assert client.json("GET", "/health", expect=200)
            # Not a timing of performance: a server stuck behind the slow senders would take
            # their whole header timeout (2 s) or never answer.
            assert time.monotonic() - started < 1.5
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join()
    for sock in socks:
        sock.settimeout(5)
        data = b""
        try:
            while chunk := sock.recv(4096):
                data += chunk
        except ConnectionResetError:
            pass
        assert answers(data) in ([], [408]), data[:200]
        sock.close()


def test_thousands_of_idle_connections_do_not_slow_the_others(start_server):
    count = scaled(3000, 10000)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < count + 500:
        pytest.skip(f"the hard open-file limit ({hard}) is below {count + 500}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, count + 500), hard))
    server = start_server({**RELAXED_LIMITS, "MAX_CONNECTIONS": str(count + 100), "LOG_LEVEL": "info"})
    baseline = open_fds(server.pid)
    socks = []
    try:
        for n in range(count):
            sock = socket.create_connection(("127.0.0.1", server.port))
            if n % 2:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n")  # then idle on keep-alive
            socks.append(sock)
        client = KeepAlive(server.port, timeout=5)
        for _ in range(100):
            started = time.monotonic()
            assert client.json("GET", "/health", expect=200)
            assert time.monotonic() - started < 1.5  # served, not queued behind the idle ones
        client.close()
        assert open_fds(server.pid) >= baseline + count
    finally:
        for sock in socks:
            sock.close()
    from server_process import wait_until
    wait_until(lambda: open_fds(server.pid) <= baseline + 1, timeout=20, message="descriptors back to the baseline")
