"""Logs: one line per request at debug, with the route pattern (never an ID), and no secret."""

import json
import os
import re
import subprocess

from api import create_account, create_key
from http_clients import PythonClient
from server_process import ServerProcess, base_environment, binary_path

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


# -- the journal ------------------------------------------------------------------------

TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def journal_stream_of(path) -> str:
    """JOURNAL_STREAM as systemd sets it for a stderr that is this file: DEVICE:INODE."""
    status = os.stat(path)
    return f"{status.st_dev}:{status.st_ino}"


def start_on_journal(tmp_path, env=None) -> ServerProcess:
    """The server with JOURNAL_STREAM naming the very file its stderr goes to, as under
    systemd with StandardError=journal."""
    server = ServerProcess(tmp_path, env)
    server.log_path.touch()  # opened again with truncation by start: the same inode
    server.env["JOURNAL_STREAM"] = journal_stream_of(server.log_path)
    return server.start()


def test_under_the_journal_each_line_has_its_priority_and_no_time(tmp_path):
    # A NOTIFY_SOCKET that is no socket path gives a warning line at start.
    server = start_on_journal(tmp_path, {"NOTIFY_SOCKET": "not-a-path"})
    try:
        PythonClient(server.host, server.port).call("GET", "/health")
        assert server.stop() == 0
    finally:
        server.teardown()
    lines = server.log_lines()
    assert "<6>info listening address=" + server.address in lines, lines
    assert "<4>warn NOTIFY_SOCKET is not a Unix socket path; not notifying systemd" in lines, lines
    assert any(re.fullmatch(r"<7>debug request method=GET route=/health status=200 duration_ms=\S+", line)
               for line in lines), lines
    assert all(re.match(r"<[3467]>(error|warn|info|debug) ", line) for line in lines), lines
    assert not any(TIMESTAMP.search(line) for line in lines), lines


def test_under_the_journal_json_lines_have_the_priority_before_the_object(tmp_path):
    server = start_on_journal(tmp_path, {"LOG_FORMAT": "json"})
    try:
        assert server.stop() == 0
    finally:
        server.teardown()
    priorities = {"error": "<3>", "warn": "<4>", "info": "<6>", "debug": "<7>"}
    records = []
    for line in server.log_lines():
        prefix, text = line[:3], line[3:]
        record = json.loads(text)
        assert prefix == priorities[record["level"]], line
        assert TIMESTAMP.match(record["time"]), line
        records.append(record)
    assert any(r["msg"] == "listening" for r in records), records


def test_a_stale_journal_stream_is_ignored(start_server):
    """A JOURNAL_STREAM inherited by a process whose stderr is something else: plain lines."""
    server = start_server({"JOURNAL_STREAM": "8:12345"})
    server.stop()
    lines = server.log_lines()
    assert any(re.match(r"\d{4}-\d\d-\d\dT\S+ info listening address=", line) for line in lines), lines
    assert not any(line.startswith("<") for line in lines), lines


def test_a_refused_start_is_an_error_in_the_journal(tmp_path):
    log = tmp_path / "stderr.log"
    log.touch()
    env = base_environment(tmp_path, {"LOG_FORMAT": "xml", "JOURNAL_STREAM": journal_stream_of(log)})
    with open(log, "wb") as stderr:
        done = subprocess.run([str(binary_path())], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=stderr, timeout=20)
    assert done.returncode == 1
    assert log.read_text() == '<3>relaydeckd: LOG_FORMAT: expected text or json (got "xml")\n'
