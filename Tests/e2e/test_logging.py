"""Logs: one line per request at debug, with the route pattern (never an ID), and no secret."""

import re

from api import create_account, create_key
from http_clients import PythonClient

REQUEST_LINE = re.compile(
    r"\bdebug request method=(?P<method>[A-Z]+) route=(?P<route>\S+) status=(?P<status>\d{3}) "
    r"duration_ms=(?P<duration>\d+(?:\.\d+)?)$")


def request_records(server):
    return [m.groupdict() for m in map(REQUEST_LINE.search, server.log_lines()) if m]


def test_each_request_is_logged_with_its_route_pattern(start_server):
    server = start_server()
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    key, secret = create_key(py, token, "logged")
    py.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "renamed"}, token=token)
    py.call("GET", "/v1/keys", api_key=secret)
    py.call("DELETE", f"/v1/keys/{key['id']}", token=token)
    py.call("GET", "/health")
    server.stop()
    seen = [(r["method"], r["route"], r["status"]) for r in request_records(server)]
    assert seen == [
        ("POST", "/v1/accounts", "201"),
        ("POST", "/v1/keys", "201"),
        ("PATCH", "/v1/keys/{key_id}", "200"),
        ("GET", "/v1/keys", "403"),
        ("DELETE", "/v1/keys/{key_id}", "204"),
        ("GET", "/health", "200"),
    ], server.log()
    assert not any(key["id"] in line for line in server.log_lines() if " request " in line)


def test_no_request_lines_at_info(start_server):
    server = start_server({"LOG_LEVEL": "info"})
    py = PythonClient(server.host, server.port)
    create_account(py)
    py.call("GET", "/health")
    server.stop()
    assert request_records(server) == []
    assert not any(" debug " in line for line in server.log_lines()), server.log()


def test_secrets_sent_in_requests_are_not_logged(start_server):
    server = start_server()
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    _, secret = create_key(py, token)
    # Credentials in every place a request can carry them, right and wrong.
    py.call("GET", "/v1/keys", token=token, headers={"X-API-Key": secret})
    py.call("GET", "/v1/keys", headers={"Authorization": f"Basic {token}"})
    py.call("GET", f"/v1/keys?key={secret}", token=token)
    py.call("GET", f"/nope/{token}")
    server.stop()
    server.assert_no_secret_in_log()
