"""Pushes through APNs (push.md), against the mock APNs server of `apns_mock.py`.

Each test starts its own mock (HTTP/2 over TLS, a self-signed CA passed in `APNS_CA_FILE`,
the provider token checked against the test key) and its own relaydeckd pointed at it, then
drives the REST and MCP routes and asserts the pushes the mock received: path, headers and
JSON exactly as push.md shows them.
"""

import subprocess
import time
from pathlib import Path

import pytest

from api import create_account, create_key, create_task
from apns_mock import APNsMock
from http_clients import PythonClient
from mcp_support import tool
from server_process import base_environment, binary_path, wait_until
from store_mode import sqlite_only
from stored_rows import rows, value
from test_devices import BODY, PHONE, TABLET, put_device
from store_mode import ON_POSTGRES

BUNDLE = "com.example.relaydeck"
WATCH_BUNDLE = "com.example.relaydeck.watchkitapp"
APNS = "a1" * 32
WATCH_APNS = "e5" * 32
START = "b2" * 32
WIDGET = "c3" * 32
ACTIVITY = "d4" * 32


@pytest.fixture
def mock():
    server = APNsMock().start()
    yield server
    server.stop()


@pytest.fixture
def push_server(mock, start_server, tmp_path):
    """relaydeckd with push on, talking to `mock`."""
    def start(workdir=None, name="relaydeckd"):
        return start_server({
            "RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000",
            "APNS_TEAM_ID": mock.team_id, "APNS_KEY_ID": mock.key_id,
            "APNS_PRIVATE_KEY_FILE": mock.private_key_file, "APNS_BUNDLE_ID": BUNDLE,
            "APNS_WATCH_BUNDLE_ID": WATCH_BUNDLE, "APNS_PRODUCTION_URL": mock.url, "APNS_SANDBOX_URL": mock.url,
            "APNS_CA_FILE": mock.ca_file,
        }, workdir=workdir or tmp_path, name=name)
    return start


@pytest.fixture
def deck(push_server):
    """A push server, an account with a phone (an APNs token) and a key `Claude Code`."""
    server = push_server()
    client = PythonClient(server.host, server.port)
    account, token = create_account(client)
    key, secret = create_key(client, token, "Claude Code")
    assert put_device(client, token, PHONE, apns_token=APNS).status == 200
    return server, client, account, token, key, secret


def headers(request) -> dict:
    return {name: value for name, value in request.headers.items() if name.startswith("apns-")}


def requests_for(mock, token):
    return [request for request in mock.requests if request.device_token == token]


def push_type(mock, kind):
    return [request for request in mock.requests if request.headers.get("apns-push-type") == kind]


def test_an_agents_task_is_a_visible_notification_and_its_progress_ticks_are_silent(deck, mock):
    server, client, _, token, key, secret = deck
    task = create_task(client, secret=secret, title="Add dark mode support", priority="urgent")
    [request] = mock.wait_for(1)
    assert request.method == "POST"
    assert request.path == f"/3/device/{APNS}"
    assert request.jwt_error is None
    assert request.status == 200
    assert headers(request) == {"apns-push-type": "alert", "apns-topic": BUNDLE, "apns-priority": "10",
                                "apns-collapse-id": task["id"]}
    assert request.json == {
        "aps": {"alert": {"title": "Claude Code", "subtitle": "New task", "body": "Add dark mode support"},
                "sound": "default", "thread-id": key["id"], "category": "TASK", "interruption-level": "time-sensitive"},
        "event": "task.created", "task_id": task["id"], "key_id": key["id"]}

    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"progress": 40, "status_note": "Halfway"},
                           api_key=secret)
    assert response.status == 200, response
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "done"}, api_key=secret)
    assert response.status == 200, response
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"title": "Renamed"}, token=token)
    assert response.status == 200, response
    tick, done, by_app = mock.wait_for(4)[1:]
    silent = {"apns-push-type": "background", "apns-topic": BUNDLE, "apns-priority": "5"}
    assert headers(tick) == silent
    assert tick.json == {"aps": {"content-available": 1}, "event": "task.updated", "task_id": task["id"],
                         "key_id": key["id"]}
    assert done.json["aps"]["alert"]["subtitle"] == "Task done"
    assert headers(by_app) == silent
    assert by_app.json["event"] == "task.updated"


def test_a_task_with_notify_false_is_silent_and_its_deletion_too(deck, mock):
    _, client, _, _, key, secret = deck
    task = create_task(client, secret=secret, title="Quiet", notify=False)
    response = client.call("DELETE", f"/v1/tasks/{task['id']}", api_key=secret)
    assert response.status == 204, response
    created, deleted = mock.wait_for(2)
    assert headers(created)["apns-push-type"] == "background"
    assert deleted.json == {"aps": {"content-available": 1}, "event": "task.deleted", "task_id": task["id"],
                            "key_id": key["id"]}


def test_a_question_is_time_sensitive_until_it_expires_and_its_answer_is_silent(deck, mock):
    _, client, _, token, key, secret = deck
    response = client.call("POST", "/v1/questions", json={"prompt": "Deploy to production now?", "expires_in": 600},
                           api_key=secret)
    assert response.status == 201, response
    question = response.json
    [created] = mock.wait_for(1)
    assert headers(created) == {"apns-push-type": "alert", "apns-topic": BUNDLE, "apns-priority": "10",
                                "apns-collapse-id": question["id"],
                                "apns-expiration": str(int(question["expires_at"]))}
    assert created.json == {
        "aps": {"alert": {"title": "Claude Code", "subtitle": "Question", "body": "Deploy to production now?"},
                "sound": "default", "thread-id": key["id"], "category": "QUESTION_CONFIRM",
                "interruption-level": "time-sensitive", "mutable-content": 1},
        "event": "question.created", "question_id": question["id"], "kind": "confirm", "options": ["Yes", "No"],
        "task_id": None, "key_id": key["id"]}
    response = client.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Yes"}, token=token)
    assert response.status == 200, response
    answered = mock.wait_for(2)[1]
    assert headers(answered) == {"apns-push-type": "background", "apns-topic": BUNDLE, "apns-priority": "5",
                                 "apns-collapse-id": question["id"]}
    assert answered.json == {"aps": {"content-available": 1}, "event": "question.updated",
                             "question_id": question["id"], "key_id": key["id"]}


def test_notify_user_reports_the_devices_and_sends_to_each_with_its_topic(deck, mock):
    _, client, _, token, key, secret = deck
    assert put_device(client, token, TABLET, platform="watchos", apns_token=WATCH_APNS).status == 200
    task = create_task(client, secret=secret, title="Deploy", notify=False)
    mock.wait_for(2)
    result = tool(client, secret, "notify_user", {"title": "Approve the deploy", "body": "The build is ready.",
                                                  "task_id": task["id"]})
    assert result.get("isError") is not True, result
    assert result["structuredContent"] == {"sent": True, "devices": 2}
    phone, watch = mock.wait_for(4)[2:]
    assert phone.device_token == APNS and watch.device_token == WATCH_APNS
    assert headers(phone) == {"apns-push-type": "alert", "apns-topic": BUNDLE, "apns-priority": "10"}
    assert headers(watch)["apns-topic"] == WATCH_BUNDLE
    assert phone.json == {
        "aps": {"alert": {"title": "Claude Code", "subtitle": "Approve the deploy", "body": "The build is ready."},
                "sound": "default", "thread-id": key["id"], "category": "MESSAGE", "interruption-level": "active"},
        "event": "message", "key_id": key["id"], "task_id": task["id"]}


def test_notify_user_without_a_device_token_sends_nothing(push_server, mock):
    server = push_server()
    client = PythonClient(server.host, server.port)
    _, token = create_account(client)
    _, secret = create_key(client, token, "Claude Code")
    assert put_device(client, token, PHONE).status == 200
    result = tool(client, secret, "notify_user", {"title": "Hello", "body": "Nobody listens."})
    assert result["structuredContent"] == {"sent": False, "devices": 0}
    time.sleep(0.5)
    assert mock.requests == []


def test_live_activity_start_update_and_end(deck, mock):
    server, client, _, token, key, secret = deck
    assert put_device(client, token, PHONE, push_to_start_token=START).status == 200
    task = create_task(client, secret=secret, title="Ship it", status="in_progress", notify=False)
    mock.wait_until(lambda m: len(push_type(m, "liveactivity")) == 1)
    [start] = push_type(mock, "liveactivity")
    assert start.device_token == START
    assert headers(start) == {"apns-push-type": "liveactivity", "apns-topic": BUNDLE + ".push-type.liveactivity",
                              "apns-priority": "10"}
    aps = start.json["aps"]
    now = aps["timestamp"]
    assert abs(now - time.time()) < 60
    assert aps == {
        "timestamp": now, "event": "start",
        "content-state": {"title": "Ship it", "status": "in_progress", "progress": None, "note": None,
                          "updatedAt": task["updated_at"], "question": None},
        "stale-date": now + 1800, "relevance-score": 75, "attributes-type": "TaskActivityAttributes",
        "attributes": {"taskID": task["id"], "keyLabel": "Claude Code"},
        "alert": {"title": "Claude Code", "body": "Ship it"}}

    response = client.call("PUT", f"/v1/tasks/{task['id']}/live-activity", json={"device_id": PHONE, "push_token": ACTIVITY},
                           token=token)
    assert response.status == 204, response
    response = client.call("POST", "/v1/questions", json={"prompt": "Which region?", "kind": "choice",
                                                          "options": ["EU", "US"], "task_id": task["id"]}, api_key=secret)
    assert response.status == 201, response
    question = response.json
    mock.wait_until(lambda m: len(requests_for(m, ACTIVITY)) == 1)
    [update] = requests_for(mock, ACTIVITY)
    assert headers(update) == {"apns-push-type": "liveactivity", "apns-topic": BUNDLE + ".push-type.liveactivity",
                               "apns-priority": "10"}
    aps = update.json["aps"]
    assert aps["event"] == "update"
    assert aps["relevance-score"] == 100
    assert aps["stale-date"] == aps["timestamp"] + 1800
    assert aps["content-state"]["question"] == {"id": question["id"], "prompt": "Which region?", "kind": "choice",
                                                "options": ["EU", "US"]}

    time.sleep(5.2)
    response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "done"}, api_key=secret)
    assert response.status == 200, response
    done = response.json
    mock.wait_until(lambda m: any(r.json["aps"]["event"] == "end" for r in requests_for(m, ACTIVITY)))
    end = [r for r in requests_for(mock, ACTIVITY) if r.json["aps"]["event"] == "end"][0]
    aps = end.json["aps"]
    assert set(aps) == {"timestamp", "event", "content-state", "dismissal-date"}
    assert aps["dismissal-date"] == aps["timestamp"] + 900
    assert aps["content-state"] == {"title": "Ship it", "status": "done", "progress": 100, "note": None,
                                    "updatedAt": done["updated_at"],
                                    "question": {"id": question["id"], "prompt": "Which region?", "kind": "choice",
                                                 "options": ["EU", "US"]}}
    assert value(server.env, "SELECT count(*) FROM live_activities") == 0


def test_live_activity_updates_are_at_most_one_in_five_seconds_with_the_last_state(deck, mock):
    _, client, _, token, _, secret = deck
    task = create_task(client, secret=secret, title="Ticks", status="in_progress", notify=False)
    response = client.call("PUT", f"/v1/tasks/{task['id']}/live-activity", json={"device_id": PHONE, "push_token": ACTIVITY},
                           token=token)
    assert response.status == 204, response
    started = time.monotonic()
    for progress in (10, 20, 30, 40):
        response = client.call("PATCH", f"/v1/tasks/{task['id']}", json={"progress": progress}, api_key=secret)
        assert response.status == 200, response
    mock.wait_until(lambda m: len(requests_for(m, ACTIVITY)) >= 1)
    time.sleep(1)
    updates = requests_for(mock, ACTIVITY)
    if time.monotonic() - started < 4.5:
        assert len(updates) == 1
    # The update carries the task's state when it goes. With SQLite it goes in the turn of the
    # first PATCH's COMMIT, before the answer; with PostgreSQL the drain that sends it reads
    # the task after that COMMIT, turns later, when the next PATCH may have committed too.
    first = updates[0].json["aps"]["content-state"]["progress"]
    assert first == 10 or (ON_POSTGRES and first in (20, 30)), first
    mock.wait_until(lambda m: len(requests_for(m, ACTIVITY)) >= 2, timeout=15)
    assert time.monotonic() - started >= 4.5
    trailing = requests_for(mock, ACTIVITY)[1]
    assert trailing.json["aps"]["content-state"]["progress"] == 40
    time.sleep(6)
    assert len(requests_for(mock, ACTIVITY)) == 2


def test_widget_reloads_are_at_most_one_in_fifteen_seconds_with_a_trailing_one(deck, mock):
    _, client, _, token, _, secret = deck
    assert put_device(client, token, PHONE, widget_push_token=WIDGET).status == 200
    task = create_task(client, secret=secret, title="Widgets", notify=False)
    # The changes come after the first reload went out: changes that come while it still
    # waits in the outbox go with it (it carries the newest state), and need no trailing one.
    mock.wait_until(lambda m: len(requests_for(m, WIDGET)) >= 1)
    started = time.monotonic()
    [first] = requests_for(mock, WIDGET)
    assert headers(first) == {"apns-push-type": "widgets", "apns-topic": BUNDLE + ".push-type.widgets",
                              "apns-priority": "5"}
    assert first.json == {"aps": {"content-changed": True}}
    for progress in (1, 2, 3):
        client.call("PATCH", f"/v1/tasks/{task['id']}", json={"progress": progress}, api_key=secret)
    mock.wait_until(lambda m: len(requests_for(m, WIDGET)) >= 2, timeout=25)
    assert time.monotonic() - started >= 14
    time.sleep(2)
    assert len(requests_for(mock, WIDGET)) == 2


def test_a_refused_token_is_removed_from_the_device(deck, mock):
    server, client, account, token, _, secret = deck
    assert put_device(client, token, PHONE, apns_token=APNS, widget_push_token=WIDGET).status == 200
    mock.fail_next(410, token=APNS, count=None)
    mock.fail_next(400, "BadDeviceToken", token=WIDGET, count=None)
    create_task(client, secret=secret, title="Gone")
    mock.wait_until(lambda m: len(m.requests) >= 2)

    def tokens():
        [row] = rows(server.env, "SELECT apns_token, widget_push_token FROM devices WHERE account_id = ? AND id = ?",
                     (account["id"], PHONE))
        return tuple(row.values())
    wait_until(lambda: tokens() == (None, None), timeout=10, message="the refused tokens are removed")
    assert APNS not in server.log() and WIDGET not in server.log()


def test_a_push_refused_with_503_is_sent_again(deck, mock):
    _, client, _, _, _, secret = deck
    mock.fail_next(503, count=2)
    task = create_task(client, secret=secret, title="Retry")
    mock.wait_until(lambda m: any(r.status == 200 for r in m.requests), timeout=30)
    delivered = [r for r in mock.requests if r.status == 200]
    assert delivered[0].json["task_id"] == task["id"]
    assert [r.status for r in mock.requests][:2] == [503, 503]


@sqlite_only("a process killed with pushes in flight has them sent at the next start because a SQLite store has "
             "one process; on PostgreSQL another node may hold them, so they wait for their 2-minute lease "
             "(PushDispatcherTests.aClaimedJobIsNoOneElsesUntilItsLeaseEnds)")
def test_a_restart_delivers_the_pushes_that_were_pending(deck, mock, push_server, tmp_path):
    server, client, _, _, _, secret = deck
    mock.fail_next(503, count=None)
    task = create_task(client, secret=secret, title="Survives a crash")
    mock.wait_for(1)
    assert value(server.env, "SELECT count(*) FROM push_jobs") >= 1
    server.kill9()
    server.expected_exit_code = None
    mock.clear_failures()
    restarted = push_server(workdir=tmp_path, name="relaydeckd-restarted")
    mock.wait_until(lambda m: any(r.status == 200 for r in m.requests), timeout=20)
    delivered = [r for r in mock.requests if r.status == 200]
    assert delivered[0].json["task_id"] == task["id"]
    wait_until(lambda: value(restarted.env, "SELECT count(*) FROM push_jobs") == 0, timeout=10,
               message="the outbox is empty")


def test_mcp_tools_push_like_the_rest_routes(deck, mock):
    _, client, _, _, key, secret = deck
    created = tool(client, secret, "create_task", {"title": "Through MCP"})
    task = created["structuredContent"]
    tool(client, secret, "update_task", {"task_id": task["id"], "progress": 30})
    tool(client, secret, "update_task", {"task_id": task["id"], "status": "in_progress"})
    asked = tool(client, secret, "ask_user", {"prompt": "Pick one", "kind": "choice", "options": ["A", "B"],
                                              "task_id": task["id"], "wait_seconds": 0})
    question = asked["structuredContent"]
    tool(client, secret, "delete_task", {"task_id": task["id"]})
    requests = mock.wait_for(6)
    assert [(r.json.get("event"), headers(r)["apns-push-type"]) for r in requests] == [
        ("task.created", "alert"), ("task.updated", "background"), ("task.updated", "alert"),
        ("question.created", "alert"), ("task.deleted", "alert"), ("question.updated", "background")]
    assert requests[2].json["aps"]["alert"]["subtitle"] == "Task started"
    assert requests[3].json["aps"]["category"] == "QUESTION_CHOICE"
    assert requests[3].json["options"] == ["A", "B"]
    assert requests[3].json["task_id"] == task["id"]
    assert requests[5].json == {"aps": {"content-available": 1}, "event": "question.updated",
                                "question_id": question["id"], "key_id": key["id"]}


def test_a_refused_activity_token_removes_the_registration_and_a_deleted_key_ends_the_activity(deck, mock):
    server, client, _, token, key, secret = deck
    first = create_task(client, secret=secret, title="First", status="in_progress", notify=False)
    second = create_task(client, secret=secret, title="Second", status="in_progress", notify=False)
    for task, push_token in ((first, ACTIVITY), (second, "f7" * 32)):
        response = client.call("PUT", f"/v1/tasks/{task['id']}/live-activity",
                               json={"device_id": PHONE, "push_token": push_token}, token=token)
        assert response.status == 204, response
    mock.fail_next(400, "BadDeviceToken", token=ACTIVITY, count=None)
    client.call("PATCH", f"/v1/tasks/{first['id']}", json={"progress": 10}, api_key=secret)
    mock.wait_until(lambda m: len(requests_for(m, ACTIVITY)) == 1)

    def registered():
        return [row["task_id"] for row in rows(server.env, "SELECT task_id FROM live_activities ORDER BY task_id")]
    wait_until(lambda: registered() == [second["id"]], timeout=10, message="the refused registration is removed")
    response = client.call("DELETE", f"/v1/keys/{key['id']}", token=token)
    assert response.status == 204, response
    mock.wait_until(lambda m: len(requests_for(m, "f7" * 32)) == 1)
    [end] = requests_for(mock, "f7" * 32)
    assert end.json["aps"]["event"] == "end"
    assert end.json["aps"]["content-state"]["title"] == "Second"
    assert registered() == []


def test_a_push_answered_429_is_retried_and_a_sandbox_device_is_served(deck, mock):
    _, client, _, token, _, secret = deck
    assert put_device(client, token, PHONE, apns_token=APNS, apns_environment="sandbox").status == 200
    mock.fail_next(429, count=1)
    task = create_task(client, secret=secret, title="Busy")
    mock.wait_until(lambda m: any(r.status == 200 for r in m.requests), timeout=30)
    assert [r.status for r in mock.requests] == [429, 200]
    assert mock.requests[1].json["task_id"] == task["id"]


def test_a_watch_without_a_watch_bundle_id_gets_nothing_but_counts(mock, start_server, tmp_path):
    server = start_server({
        "APNS_TEAM_ID": mock.team_id, "APNS_KEY_ID": mock.key_id, "APNS_PRIVATE_KEY_FILE": mock.private_key_file,
        "APNS_BUNDLE_ID": BUNDLE, "APNS_PRODUCTION_URL": mock.url, "APNS_SANDBOX_URL": mock.url,
        "APNS_CA_FILE": mock.ca_file,
    })
    client = PythonClient(server.host, server.port)
    _, token = create_account(client)
    _, secret = create_key(client, token, "Claude Code")
    assert put_device(client, token, TABLET, platform="watchos", apns_token=WATCH_APNS).status == 200
    assert put_device(client, token, PHONE, apns_token=APNS).status == 200
    result = tool(client, secret, "notify_user", {"title": "Hello", "body": "Both count."})
    assert result["structuredContent"] == {"sent": True, "devices": 2}
    [request] = mock.wait_for(1)
    assert request.device_token == APNS
    time.sleep(0.5)
    assert len(mock.requests) == 1


def test_a_private_key_that_is_not_p256_stops_the_start_with_one_line(tmp_path):
    key = tmp_path / "rsa.p8"
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", str(key)],
                   check=True, capture_output=True)
    env = base_environment(Path(tmp_path), {"APNS_TEAM_ID": "TEAM123456", "APNS_KEY_ID": "KEY1234567",
                                            "APNS_PRIVATE_KEY_FILE": str(key), "APNS_BUNDLE_ID": BUNDLE})
    done = subprocess.run([str(binary_path())], env=env, capture_output=True, text=True, timeout=20,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "relaydeckd: cannot start: the APNs private key is not an EC P-256 key"
    assert "BEGIN" not in done.stderr
    checked = subprocess.run([str(binary_path()), "check-config"], env=env, capture_output=True, text=True, timeout=20,
                             stdin=subprocess.DEVNULL)
    assert checked.returncode == 1
    assert checked.stderr == "relaydeckd: cannot start: the APNs private key is not an EC P-256 key\n"
