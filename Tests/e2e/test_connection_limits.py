"""Timers and the connection cap: HTTP_HEADER_TIMEOUT, HTTP_IDLE_TIMEOUT, MAX_CONNECTIONS.

The timeouts are 0.5 s; the tests only assert what happens eventually (with deadlines of
several seconds) and that it does not happen absurdly early, so a loaded machine cannot
make them flake."""

import socket
import time

import pytest

from raw_http import RawConnection, request_bytes
from server_process import wait_until

SLOW = {"error": {"code": "bad_request", "message": "The request took too long to arrive."}}
TOO_MANY = {"error": {"code": "unavailable", "message": "The server has too many connections."}}


@pytest.mark.slow
def test_slow_headers_get_408_then_close(start_server):
    server = start_server({"HTTP_HEADER_TIMEOUT": "0.5"})
    with RawConnection(server.port) as conn:
        started = time.monotonic()
        conn.send(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        response = conn.read_response(timeout=10)
        elapsed = time.monotonic() - started
        assert response.status == 408, response
        assert response.header("Connection") == "close"
        assert response.json == SLOW
        assert elapsed >= 0.4, elapsed
        conn.expect_closed()


@pytest.mark.slow
def test_headers_trickling_in_still_time_out(start_server):
    server = start_server({"HTTP_HEADER_TIMEOUT": "0.5"})
    with RawConnection(server.port) as conn:
        conn.send(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        # Each field arrives within the timeout, but the head as a whole does not.
        deadline = time.monotonic() + 10
        field = 0
        while time.monotonic() < deadline and not _readable(conn.sock):
            try:
                conn.send(f"X-Slow-{field}: v\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                break
            field += 1
            time.sleep(0.1)
        response = conn.read_response(timeout=10)
        assert response.status == 408, response
        assert response.json == SLOW


def _readable(sock) -> bool:
    sock.setblocking(False)
    try:
        return bool(sock.recv(1, socket.MSG_PEEK))
    except BlockingIOError:
        return False
    finally:
        sock.setblocking(True)


@pytest.mark.slow
def test_a_fast_request_is_not_cut_by_the_header_timeout(start_server):
    server = start_server({"HTTP_HEADER_TIMEOUT": "0.5"})
    with RawConnection(server.port) as conn:
        for _ in range(3):
            conn.send(request_bytes("GET", "/health"))
            assert conn.read_response().status == 200
            time.sleep(0.2)


@pytest.mark.slow
def test_idle_keep_alive_connection_is_closed_without_an_answer(start_server):
    server = start_server({"HTTP_IDLE_TIMEOUT": "0.5"})
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/health"))
        assert conn.read_response().status == 200
        started = time.monotonic()
        conn.expect_closed(timeout=10)
        assert time.monotonic() - started >= 0.4


@pytest.mark.slow
def test_idle_timeout_restarts_after_each_request(start_server):
    server = start_server({"HTTP_IDLE_TIMEOUT": "0.5"})
    with RawConnection(server.port) as conn:
        for _ in range(4):
            conn.send(request_bytes("GET", "/health"))
            assert conn.read_response().status == 200
            time.sleep(0.25)
        conn.expect_closed(timeout=10)


@pytest.mark.slow
def test_fourth_connection_over_max_connections_gets_503(start_server):
    server = start_server({"MAX_CONNECTIONS": "3"})
    held = [RawConnection(server.port) for _ in range(3)]
    try:
        for conn in held:
            conn.send(request_bytes("GET", "/health"))
            assert conn.read_response().status == 200
        extra = RawConnection(server.port)
        try:
            # The refusal may come at once or once a request arrives; ask to be sure.
            try:
                extra.send(request_bytes("GET", "/health"))
            except (BrokenPipeError, ConnectionResetError):
                pass
            response = extra.read_response(timeout=10)
            assert response.status == 503, response
            assert response.header("Retry-After") == "1"
            assert response.header("Connection") == "close"
            assert response.json == TOO_MANY
            extra.expect_closed()
        finally:
            extra.close()
        # The three open connections still work.
        for conn in held:
            conn.send(request_bytes("GET", "/health"))
            assert conn.read_response().status == 200
        # A slot freed by a client that leaves is usable again.
        held.pop().close()

        def new_connection_works():
            with RawConnection(server.port) as conn:
                conn.send(request_bytes("GET", "/health"))
                try:
                    return conn.read_response(timeout=5).status == 200
                except Exception:
                    return False
        wait_until(new_connection_works, timeout=10, interval=0.2, message="a freed connection slot")
    finally:
        for conn in held:
            conn.close()
