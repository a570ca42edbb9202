"""A request body is bounded as a whole, not only between bytes.

`HTTP_HEADER_TIMEOUT` also bounds the pause while a body arrives and is the grace before the
body's minimum average rate (1 KiB/s) applies: a body of n bytes must be in within
timeout + n / 1024 s of the end of its head."""

import select
import time

import pytest

from raw_http import RawConnection, request_bytes

SLOW = {"error": {"code": "bad_request", "message": "The request took too long to arrive."}}
TIMEOUT = 1.0
MINIMUM_RATE = 1024


@pytest.mark.slow
def test_a_body_that_trickles_gets_408_by_its_total_deadline(start_server):
    server = start_server({"HTTP_HEADER_TIMEOUT": str(TIMEOUT)})
    with RawConnection(server.port) as conn:
        conn.send(b"POST /v1/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n")
        head_sent = time.monotonic()
        # A byte every 0.2 s: each well within the pause the timeout allows.
        sent = 0
        # (Readable means the answer, or the close, has come.)
        while sent < 1000 and time.monotonic() - head_sent < 10 and not select.select([conn.sock], [], [], 0)[0]:
            try:
                conn.send(b" ")
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += 1
            time.sleep(0.2)
        response = conn.read_response(timeout=10)
        elapsed = time.monotonic() - head_sent
        assert response.status == 408, response
        assert response.header("Connection") == "close"
        assert response.json == SLOW
        # Due at timeout + sent / rate; the margin is for a loaded machine and the polling.
        assert TIMEOUT * 0.9 <= elapsed <= TIMEOUT + sent / MINIMUM_RATE + 1.0, (elapsed, sent)
        conn.expect_closed()


@pytest.mark.slow
def test_a_body_slower_than_the_timeout_but_above_the_minimum_rate_is_read(start_server):
    server = start_server({"HTTP_HEADER_TIMEOUT": str(TIMEOUT), "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000"})
    body = b"{" + b" " * 5998 + b"}"
    with RawConnection(server.port) as conn:
        request = request_bytes("POST", "/v1/accounts", body)
        head, body_start = request[:-len(body)], len(request) - len(body)
        conn.send(head)
        started = time.monotonic()
        # 1500 bytes every 0.4 s (3.7 KB/s): 1.6 s in all, longer than the timeout.
        for offset in range(body_start, len(request), 1500):
            time.sleep(0.4)
            conn.send(request[offset:offset + 1500])
        response = conn.read_response(timeout=10)
        assert time.monotonic() - started > TIMEOUT
        assert response.status == 201, response
