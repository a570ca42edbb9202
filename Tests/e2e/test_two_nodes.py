"""Two relaydeckd on one PostgreSQL database (issue 25, README "Serving from PostgreSQL"): a
call waiting on node A is answered by a change made on node B, quickly; an event stream on A
carries B's changes in commit order, once each; a key deleted on B stops working on A at its
next request; a credential's rate limit counts its requests on both nodes together. The module
has a cluster of its own (two_nodes.py), in either mode of the suite."""

import threading
import time

import pytest

from api import create_account, create_key
from postgres_cluster import binaries
from test_events import SSE
from two_nodes import nodes, postgres  # noqa: F401 (the fixtures)

pytestmark = [pytest.mark.skipif(binaries() is None, reason="needs Debian's postgresql package (make test-deps)"),
              pytest.mark.slow]


def test_a_call_waiting_on_one_node_is_answered_by_a_change_on_the_other(nodes):
    (_, a), (_, b) = nodes()
    account, token = create_account(a)
    _, secret = create_key(b, token)
    delays = []
    for _ in range(40):
        question = a.call("POST", "/v1/questions", json={"prompt": "Ship it?"}, token=secret).json
        waited = {}

        def wait():
            waited["response"] = a.call("GET", f"/v1/questions/{question['id']}?wait=30", token=secret)
            waited["at"] = time.monotonic()

        waiter = threading.Thread(target=wait)
        waiter.start()
        # The call parks on A before B answers (A answers at once what is not pending).
        time.sleep(0.05)
        answered = b.call("POST", f"/v1/questions/{question['id']}/answer", json={"answer": "Yes"}, token=token)
        done = time.monotonic()
        assert answered.status == 200, answered
        waiter.join(10)
        response = waited["response"]
        assert response.status == 200 and response.json["status"] == "answered", response
        assert response.json["answer"] == "Yes"
        delays.append(max(0.0, waited["at"] - done))
    delays.sort()
    # From B's answer to A's: the feed's NOTIFY, A's read of the row, its wait's read.
    assert delays[int(len(delays) * 0.99)] < 0.05, delays


def test_an_event_stream_on_one_node_carries_the_other_nodes_changes_in_order_once(nodes):
    (server_a, a), (_, b) = nodes()
    account, token = create_account(a)
    stream = SSE(server_a, token)
    assert stream.head().startswith("HTTP/1.1 200 OK")
    assert stream.next() == ("ready", {"account_id": account["id"]})
    key, secret = create_key(b, token)
    tasks = [b.call("POST", "/v1/tasks", json={"title": f"Task {n}"}, token=secret).json for n in range(5)]
    patched = b.call("PATCH", f"/v1/tasks/{tasks[0]['id']}", json={"progress": 50}, token=secret).json
    expected = [("key.created", {"key": key})] + [("task.created", {"task": task}) for task in tasks] + \
        [("task.updated", {"task": patched})]
    received = []
    while len(received) < len(expected):
        event = stream.next()
        if event[0] != "comment":
            received.append(event)
    assert received == expected
    # Nothing twice: a change of A's own comes next, and nothing before it.
    own = a.call("POST", "/v1/tasks", json={"title": "On A"}, token=secret).json
    event = stream.next()
    while event[0] == "comment":
        event = stream.next()
    assert event == ("task.created", {"task": own})
    stream.close()


def test_a_key_deleted_on_one_node_stops_working_on_the_other_at_once(nodes):
    (_, a), (_, b) = nodes()
    _, token = create_account(a)
    key, secret = create_key(a, token)
    assert a.call("GET", "/v1/tasks", token=secret).status == 200
    assert b.call("DELETE", f"/v1/keys/{key['id']}", token=token).status == 204
    assert a.call("GET", "/v1/tasks", token=secret).status == 401


def test_a_credentials_rate_limit_counts_its_requests_on_both_nodes(nodes):
    (_, a), (_, b) = nodes({"RATE_LIMIT_REQUESTS_PER_MINUTE": "4"})
    _, token = create_account(a)
    statuses = [client.call("GET", "/v1/account", token=token).status for client in (a, b, a, b)]
    assert statuses == [200, 200, 200, 200]
    refused = b.call("GET", "/v1/account", token=token)
    assert refused.status == 429 and int(refused.header("Retry-After")) >= 1, refused
    assert a.call("GET", "/v1/account", token=token).status == 429
