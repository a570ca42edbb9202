"""HTTP/1.1 framing over raw sockets: pipelining, odd splits, chunked bodies, 100-continue,
the size limits and the answers that close the connection."""

import json

import pytest

from api import ACCOUNT_TOKEN, create_account
from http_clients import PythonClient
from raw_http import ConnectionClosed, RawConnection, request_bytes

TOO_LARGE = {"error": {"code": "bad_request", "message": "The body is larger than 1 MB."}}
MALFORMED = {"error": {"code": "bad_request", "message": "The request is malformed."}}
TARGET_TOO_LONG = {"error": {"code": "bad_request", "message": "The request target is too long."}}
HEADERS_TOO_LARGE = {"error": {"code": "bad_request", "message": "The request headers are too large."}}
CODING = {"error": {"code": "bad_request", "message": "The transfer coding is not supported."}}
VERSION = {"error": {"code": "bad_request", "message": "The HTTP version is not supported."}}

MIB = 1024 * 1024


def assert_closing_error(conn, status, body):
    """The answer, `Connection: close`, then the server closes the connection."""
    response = conn.read_response()
    assert response.status == status, response
    assert response.header("Content-Type") == "application/json", response
    assert response.header("Connection") == "close", response
    assert response.json == body, response
    conn.expect_closed()
    return response


@pytest.fixture
def token(server):
    return create_account(PythonClient(server.host, server.port))[1]


def test_pipelined_requests_are_answered_in_order(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/health") + request_bytes("GET", "/nope")
                  + request_bytes("POST", "/v1/accounts", "{}"))
        first, second, third = conn.read_response(), conn.read_response(), conn.read_response()
        assert (first.status, second.status, third.status) == (200, 404, 201)
        assert first.json == {"status": "ok", "store": "ok"}
        assert second.json == {"error": {"code": "not_found", "message": "Not found."}}
        assert ACCOUNT_TOKEN.match(third.json["token"])
        assert conn.buffer == b""
        conn.send(request_bytes("GET", "/health"))
        assert conn.read_response().status == 200


def test_pipelined_requests_with_bodies_keep_their_boundaries(server, token):
    with RawConnection(server.port) as conn:
        auth = {"Authorization": f"Bearer {token}"}
        labels = ["one", "two", "three"]
        conn.send(b"".join(request_bytes("POST", "/v1/keys", json.dumps({"label": l}), auth) for l in labels))
        got = [conn.read_response() for _ in labels]
        assert [r.status for r in got] == [201, 201, 201]
        assert [r.json["key"]["label"] for r in got] == labels


def test_request_sent_one_byte_at_a_time(server, token):
    with RawConnection(server.port) as conn:
        conn.send_bytewise(request_bytes("POST", "/v1/keys", '{"label": "bytewise"}',
                                         {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}))
        response = conn.read_response()
        assert response.status == 201, response
        assert response.json["key"]["label"] == "bytewise"


def test_chunked_request_body(server, token):
    with RawConnection(server.port) as conn:
        head = request_bytes("POST", "/v1/keys", None, {"Authorization": f"Bearer {token}",
                                                         "Transfer-Encoding": "chunked"})
        body = b"6\r\n{\"labe\r\n" + b"3;ext=1\r\nl\":\r\n" + b"b\r\n \"Chunky\" }\r\n" + b"0\r\n\r\n"
        conn.send(head + body)
        response = conn.read_response()
        assert response.status == 201, response
        assert response.json["key"]["label"] == "Chunky"
        conn.send(request_bytes("GET", "/health"))
        assert conn.read_response().status == 200


def test_chunked_request_body_split_across_sends(server, token):
    with RawConnection(server.port) as conn:
        head = request_bytes("POST", "/v1/keys", None, {"Authorization": f"Bearer {token}",
                                                         "Transfer-Encoding": "chunked"})
        conn.send_bytewise(head + b"10\r\n{\"label\": \"split\r\n2\r\n\"}\r\n0\r\nX-Trailer: 1\r\n\r\n")
        response = conn.read_response()
        assert response.status == 201, response
        assert response.json["key"]["label"] == "split"


def test_expect_100_continue_gets_an_interim_answer(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("POST", "/v1/accounts", None, {"Content-Length": "2", "Expect": "100-continue"}))
        interim = conn.read_response()
        assert interim.status == 100, interim
        conn.send(b"{}")
        final = conn.read_response()
        assert final.status == 201, final
        assert ACCOUNT_TOKEN.match(final.json["token"])


def test_413_arrives_before_any_body_byte_is_sent(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("POST", "/v1/accounts", None, {"Content-Length": "2000000"}))
        response = assert_closing_error(conn, 413, TOO_LARGE)
        assert response.header("Content-Length") == str(len(response.body))


def test_413_with_expect_sends_no_100(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("POST", "/v1/accounts", None,
                                {"Content-Length": "2000000", "Expect": "100-continue"}))
        assert_closing_error(conn, 413, TOO_LARGE)


def test_413_just_over_one_mebibyte(server, token):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("POST", "/v1/keys", None,
                                {"Authorization": f"Bearer {token}", "Content-Length": str(MIB + 1)}))
        assert_closing_error(conn, 413, TOO_LARGE)


def test_a_body_of_exactly_one_mebibyte_is_read(server, token):
    prefix, suffix = b'{"label": "', b'"}'
    body = prefix + b"x" * (MIB - len(prefix) - len(suffix)) + suffix
    assert len(body) == MIB
    with RawConnection(server.port, timeout=30) as conn:
        conn.send(request_bytes("POST", "/v1/keys", body, {"Authorization": f"Bearer {token}"}))
        response = conn.read_response()
        assert response.status == 422, response
        assert response.json["error"]["fields"] == {"label": "Must be at most 160 bytes of UTF-8 as sent."}


def test_chunked_body_over_one_mebibyte_is_413(server):
    with RawConnection(server.port, timeout=30) as conn:
        conn.send(request_bytes("POST", "/v1/accounts", None, {"Transfer-Encoding": "chunked"}))
        chunk = b"%x\r\n" % (64 * 1024) + b" " * (64 * 1024) + b"\r\n"
        try:
            for _ in range(17):
                conn.send(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        response = conn.read_response()
        assert response.status == 413, response
        assert response.json == TOO_LARGE


def test_431_for_a_head_over_16_kib(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/health", None, {"X-Padding": "p" * 17000}))
        assert_closing_error(conn, 431, HEADERS_TOO_LARGE)


def test_431_for_more_than_100_fields(server):
    with RawConnection(server.port) as conn:
        fields = [(f"X-Field-{i}", "v") for i in range(100)]
        conn.send(request_bytes("GET", "/health", None, fields))
        assert_closing_error(conn, 431, HEADERS_TOO_LARGE)


def test_100_fields_are_fine(server):
    with RawConnection(server.port) as conn:
        fields = [("Host", "127.0.0.1")] + [(f"X-Field-{i}", "v") for i in range(99)]
        conn.send(request_bytes("GET", "/health", None, fields))
        assert conn.read_response().status == 200


def test_414_for_a_target_over_8_kib(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/" + "a" * 8192, None))
        assert_closing_error(conn, 414, TARGET_TOO_LONG)


def test_a_target_of_8_kib_is_routed(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/" + "a" * 8191, None))
        response = conn.read_response()
        assert response.status == 404, response
        conn.send(request_bytes("GET", "/health"))
        assert conn.read_response().status == 200


def test_content_length_with_transfer_encoding_is_400_and_closes(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("POST", "/v1/accounts", b"2\r\n{}\r\n0\r\n\r\n",
                                [("Content-Length", "13"), ("Transfer-Encoding", "chunked")]))
        assert_closing_error(conn, 400, MALFORMED)


@pytest.mark.parametrize("raw", [
    b"GARBAGE\r\n\r\n",
    b"GET /health HTTP/1.1\r\n\r\n",
    b"GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
    b"GET /health HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n",
    b"GET /health HTTP/1.1\r\nHost: a\r\nNo-Colon\r\n\r\n",
    b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n",
    b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nContent-Length: 1x\r\n\r\n",
    b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nContent-Length: +2\r\n\r\n{}",
    b"GET /health HTTP/1.1\r\nHost: a\r\nX-Nul: a\x00b\r\n\r\n",
    b"GET /health HTTP/1.1\r\nHost: a\rX: b\r\n\r\n",
    b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
], ids=["no-request-line", "missing-host", "two-hosts", "space-in-name", "no-colon",
        "conflicting-lengths", "negative-length", "non-numeric-length", "plus-sign-length", "nul-in-value",
        "bare-cr", "bad-chunk-size"])
def test_malformed_requests_are_400_and_close(server, raw):
    with RawConnection(server.port) as conn:
        conn.send(raw)
        assert_closing_error(conn, 400, MALFORMED)


def test_content_length_too_large_to_parse_is_refused_and_closes(server):
    with RawConnection(server.port) as conn:
        conn.send(b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n")
        response = conn.read_response()
        # Too large to parse, or parsed as too large: either refusal is the contract's.
        assert (response.status, response.json) in [(400, MALFORMED), (413, TOO_LARGE)], response
        assert response.header("Connection") == "close"
        conn.expect_closed()


def test_unsupported_transfer_coding_is_501(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("POST", "/v1/accounts", b"x", [("Transfer-Encoding", "gzip")]))
        assert_closing_error(conn, 501, CODING)


@pytest.mark.parametrize("version", ["HTTP/2.0", "HTTP/1.2", "HTTP/3.0"])
def test_unsupported_http_version_is_505(server, version):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/health", None, version=version))
        assert_closing_error(conn, 505, VERSION)


def test_keep_alive_reuses_the_connection(server, token):
    with RawConnection(server.port) as conn:
        for path in ["/health", "/v1/account", "/v1/keys", "/health"]:
            conn.send(request_bytes("GET", path, None, {"Authorization": f"Bearer {token}"}))
            response = conn.read_response()
            assert response.status == 200, response
            assert response.header("Connection") != "close"
        conn.send(request_bytes("HEAD", "/v1/account", None, {"Authorization": f"Bearer {token}"}))
        head = conn.read_response(head_request=True)
        assert head.status == 200 and int(head.header("Content-Length")) > 0
        conn.send(request_bytes("GET", "/health"))
        assert conn.read_response().status == 200


def test_errors_that_do_not_break_framing_keep_the_connection(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/nope"))
        assert conn.read_response().status == 404
        conn.send(request_bytes("POST", "/v1/keys", "{not json"))
        assert conn.read_response().status == 400
        conn.send(request_bytes("GET", "/v1/keys"))
        assert conn.read_response().status == 401
        conn.send(request_bytes("GET", "/health"))
        assert conn.read_response().status == 200


def test_connection_close_is_honoured(server):
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/health", None, {"Connection": "close"}))
        response = conn.read_response()
        assert response.status == 200
        assert response.header("Connection") == "close"
        conn.expect_closed()


def test_http_1_0_is_answered_and_closed(server):
    with RawConnection(server.port) as conn:
        conn.send(b"GET /health HTTP/1.0\r\n\r\n")
        response = conn.read_response()
        assert response.status == 200, response
        assert response.json == {"status": "ok", "store": "ok"}
        conn.expect_closed()


def test_http_1_0_post_with_body(server):
    with RawConnection(server.port) as conn:
        conn.send(b"POST /v1/accounts HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}")
        response = conn.read_response()
        assert response.status == 201, response
        assert ACCOUNT_TOKEN.match(response.json["token"])
        conn.expect_closed()


def test_client_closing_mid_request_leaves_the_server_healthy(server):
    for partial in [b"GET /hea", b"POST /v1/accounts HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n{\"a"]:
        conn = RawConnection(server.port)
        conn.send(partial)
        conn.close()
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/health"))
        assert conn.read_response().status == 200


def test_read_after_close_raises(server):
    # The helper itself must notice a close, or the tests above would prove nothing.
    with RawConnection(server.port) as conn:
        conn.send(request_bytes("GET", "/health", None, {"Connection": "close"}))
        conn.read_response()
        with pytest.raises(ConnectionClosed):
            conn.read_response()
