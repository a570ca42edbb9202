"""Web Push sending against the binary (issue 21): the built relaydeckd, a mock push service
over HTTPS with its own CA (`webpush_mock.py`: it checks the VAPID JWT and its key, and decrypts
each message with the subscription's private key as a browser does), and real sockets. An
agent's question reaches the browser encrypted, with high urgency, its ID as Topic and a TTL
until it expires; its answer sends the quiet update under the same topic; a 410 removes the
subscription; a 503 is tried again after its Retry-After; a test notification is 202 and 5 a
minute; a push planned before a restart goes after it."""

import json
import time

from api import assert_rate_limited, create_account, create_key
from http_clients import PythonClient
from webpush_mock import WebPushMock


def start(start_server, tmp_path, name="mock"):
    events = tmp_path / f"{name}-events.jsonl"
    directory = tmp_path / name
    directory.mkdir()
    mock = WebPushMock(str(directory), str(events)).start()
    env = {"WEB_PUSH_ALLOW_PRIVATE_HOSTS": "true", "WEB_PUSH_CA_FILE": mock.ca_file,
           "WEB_PUSH_SUBJECT": "mailto:ops@example.org"}
    server = start_server(env)
    return mock, events, server, env


def pushes(events, count, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if events.exists():
            lines = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
            if len(lines) >= count:
                return lines
        time.sleep(0.05)
    raise AssertionError(f"{count} pushes did not arrive; got {events.read_text() if events.exists() else 'none'}")


def subscribe(client, token, mock, sub_id, script=None):
    made = mock.subscribe(sub_id, script)
    keys = made.as_json()
    body = {"endpoint": keys["endpoint"], "expirationTime": None, "keys": {"p256dh": keys["p256dh"], "auth": keys["auth"]},
            "label": "Mock browser"}
    response = client.call("PUT", f"/v1/web-push/subscriptions/wps_{sub_id}", json=body, token=token)
    assert response.status == 200, response
    return made


def test_a_question_reaches_the_browser_encrypted_and_its_answer_replaces_it(start_server, tmp_path):
    mock, events, server, _ = start(start_server, tmp_path)
    try:
        client = PythonClient(server.host, server.port)
        _, token = create_account(client)
        _, secret = create_key(client, token, label="Claude Code")
        subscribe(client, token, mock, "laptop")
        question = client.call("POST", "/v1/questions", json={"prompt": "Deploy to production now?", "expires_in": 600},
                               token=secret)
        assert question.status == 201, question
        question_id = question.json["id"]
        first = pushes(events, 1)[0]
        assert first["vapid"]["problems"] == [], first
        assert first["vapid"]["claims"]["sub"] == "mailto:ops@example.org"
        assert first["status"] == 201 and first["content_encoding"] == "aes128gcm"
        assert first["urgency"] == "high" and first["topic"] == question_id
        assert 590 <= int(first["ttl"]) <= 600
        key = client.call("GET", "/v1/web-push/key", token=token).json["public_key"]
        assert first["vapid"]["k"] == key
        payload = json.loads(first["plaintext"])
        assert payload["event"] == "question.created"
        assert payload["title"] == "Claude Code: Question" and payload["body"] == "Deploy to production now?"
        assert payload["kind"] == "confirm" and payload["options"] == ["Yes", "No"]
        assert payload["tag"] == question_id and payload["url"] == f"/app/#/questions/{question_id}"
        assert payload["question_id"] == question_id and payload["expires_at"]
        assert first["length"] % 256 == (86 + 1 + 16) % 256, "the record is padded to a multiple of 256 bytes"

        answered = client.call("POST", f"/v1/questions/{question_id}/answer", json={"answer": "Yes"}, token=token)
        assert answered.status == 200, answered
        second = pushes(events, 2)[1]
        assert second["urgency"] == "low" and second["topic"] == question_id
        update = json.loads(second["plaintext"])
        assert update["event"] == "question.updated" and update["title"] == "Claude Code: Answered"
    finally:
        mock.stop()


def test_a_410_removes_the_subscription_and_a_503_is_tried_again(start_server, tmp_path):
    mock, events, server, _ = start(start_server, tmp_path)
    try:
        client = PythonClient(server.host, server.port)
        _, token = create_account(client)
        _, secret = create_key(client, token)
        subscribe(client, token, mock, "gone", [410])
        subscribe(client, token, mock, "busy", [503, 201])
        result = client.call("POST", "/mcp", token=secret, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "notify_user", "arguments": {"title": "Build ready", "body": "Deploy?"}}})
        assert result.status == 200, result
        seen = pushes(events, 3, timeout=30)
        statuses = sorted((event["path"], event["status"]) for event in seen)
        assert statuses == [("/push/busy", 201), ("/push/busy", 503), ("/push/gone", 410)], statuses
        listed = client.call("GET", "/v1/web-push/subscriptions", token=token).json["subscriptions"]
        assert [s["id"] for s in listed] == ["wps_busy"]
    finally:
        mock.stop()


def test_a_test_notification_is_accepted_five_times_a_minute(start_server, tmp_path):
    mock, events, server, _ = start(start_server, tmp_path)
    try:
        client = PythonClient(server.host, server.port)
        _, token = create_account(client)
        subscribe(client, token, mock, "laptop")
        for _ in range(5):
            response = client.call("POST", "/v1/web-push/subscriptions/wps_laptop/test", token=token)
            assert response.status == 202 and response.json == {}, response
        assert_rate_limited(client.call("POST", "/v1/web-push/subscriptions/wps_laptop/test", token=token), 60)
        unknown = client.call("POST", "/v1/web-push/subscriptions/wps_nobody/test", token=token)
        assert unknown.status == 404, unknown
        _, secret = create_key(client, token)
        assert client.call("POST", "/v1/web-push/subscriptions/wps_laptop/test", token=secret).status == 403
        payload = json.loads(pushes(events, 1)[0]["plaintext"])
        assert payload["event"] == "test" and payload["url"] == "/app/#/settings"
    finally:
        mock.stop()


def test_a_push_planned_before_a_restart_goes_after_it(start_server, tmp_path):
    mock, events, server, env = start(start_server, tmp_path)
    try:
        client = PythonClient(server.host, server.port)
        _, token = create_account(client)
        _, secret = create_key(client, token)
        # The service holds its first answer for 5 s; the server stops while it waits, so the
        # push is still in the outbox, and the next start sends it again.
        subscribe(client, token, mock, "laptop", [0])
        client.call("POST", "/v1/questions", json={"prompt": "Ship it?"}, token=secret)
        assert pushes(events, 1)[0]["status"] == 0
        server.stop()
        restarted = time.time()
        start_server(env)
        seen = pushes(events, 2, timeout=30)
        assert seen[1]["status"] == 201 and seen[1]["at"] >= restarted
        assert json.loads(seen[1]["plaintext"])["body"] == "Ship it?"
    finally:
        mock.stop()
