"""GET /v1/inbox, POST /v1/messages, GET /v1/keys/{key_id}/inbox, GET /v1/agents (inbox.md)."""

import http.client
import json
import threading
import time

import pytest

from api import (
    ACCOUNT_ONLY, KEY_NOT_FOUND, TASK_NOT_FOUND, UNKNOWN_KEY_ID, assert_error, assert_rate_limited, assert_timestamp,
    assert_validation, create_account, create_key, create_task,
)
from http_clients import PythonClient

ITEM_FIELDS = {"id", "kind", "from", "task_id", "question_id", "text", "created_at", "read_at"}
PERSON = {"type": "person"}


@pytest.fixture
def agent(client):
    _, token = create_account(client)
    key, secret = create_key(client, token, "Claude Code")
    return token, key, secret


def inbox(client, secret: str, query: str = "") -> dict:
    response = client.call("GET", "/v1/inbox" + query, api_key=secret)
    assert response.status == 200, response
    assert set(response.json) == {"items", "unread"}, response
    for item in response.json["items"]:
        assert set(item) == ITEM_FIELDS, item
    return response.json


def send(client, text: str, token: str | None = None, secret: str | None = None, **fields):
    return client.call("POST", "/v1/messages", json={"text": text, **fields}, token=token, api_key=secret)


def test_the_persons_task_changes_reach_the_inbox_with_their_exact_lines(client, agent):
    token, key, secret = agent
    task = create_task(client, token=token, key_id=key["id"], title="Fix the login loop")
    change = {"status": "cancelled", "priority": "urgent", "title": "Fix the loop", "description": "Now."}
    assert client.call("PATCH", f"/v1/tasks/{task['id']}", json=change, token=token).status == 200
    quiet = {"notify": False, "progress": 10, "status_note": "reading"}
    assert client.call("PATCH", f"/v1/tasks/{task['id']}", json=quiet, token=token).status == 200
    assert client.call("DELETE", f"/v1/tasks/{task['id']}", token=token).status == 204
    body = inbox(client, secret)
    assert body["unread"] == 0
    assert [(i["kind"], i["text"], i["task_id"], i["from"], i["question_id"]) for i in body["items"]] == [
        ("task_assigned", "Fix the login loop", task["id"], PERSON, None),
        ("task_changed", 'Status changed from todo to cancelled. Priority changed from medium to urgent. '
                         'Title changed to "Fix the loop". Description changed.', task["id"], PERSON, None),
        ("task_deleted", "Fix the loop", task["id"], PERSON, None),
    ]
    for item in body["items"]:
        assert_timestamp(item["read_at"], near=time.time())


def test_the_agents_own_changes_add_nothing(client, agent):
    _, _, secret = agent
    task = create_task(client, secret)
    client.call("PATCH", f"/v1/tasks/{task['id']}", json={"status": "done", "title": "x"}, api_key=secret)
    client.call("DELETE", f"/v1/tasks/{task['id']}", api_key=secret)
    assert inbox(client, secret) == {"items": [], "unread": 0}


def test_an_item_gives_the_task_its_seen_at_without_moving_it(client, agent):
    token, key, secret = agent
    task = create_task(client, token=token, key_id=key["id"])
    assert task["seen_at"] is None
    peek = inbox(client, secret, "?mark_read=false")
    assert peek["unread"] == 1 and peek["items"][0]["read_at"] is None
    seen = client.call("GET", f"/v1/tasks/{task['id']}", token=token).json
    assert_timestamp(seen["seen_at"], near=time.time())
    assert seen["updated_at"] == task["updated_at"] and seen == {**task, "seen_at": seen["seen_at"]}
    inbox(client, secret)
    assert client.call("GET", f"/v1/tasks/{task['id']}", token=token).json["seen_at"] == seen["seen_at"]


def test_limit_mark_read_and_unread(client, agent):
    token, key, secret = agent
    for text in ("a", "b", "c"):
        assert send(client, text, token=token, key_id=key["id"]).status == 201
    peek = inbox(client, secret, "?limit=2&mark_read=false")
    assert [i["text"] for i in peek["items"]] == ["a", "b"] and peek["unread"] == 3
    first = inbox(client, secret, "?limit=2")
    assert [i["text"] for i in first["items"]] == ["a", "b"] and first["unread"] == 1
    assert [i["text"] for i in inbox(client, secret)["items"]] == ["c"]
    response = client.call("GET", f"/v1/keys/{key['id']}/inbox", token=token)
    assert response.status == 200, response
    assert [i["text"] for i in response.json["items"]] == ["c", "b", "a"] and response.json["unread"] == 0
    assert all(i["read_at"] is not None for i in response.json["items"])


def test_the_person_and_another_agent_send_messages(client, agent):
    token, key, secret = agent
    other, other_secret = create_key(client, token, "Cursor")
    response = send(client, "  Stop and\nrebase first.  ", token=token, key_id=key["id"])
    assert response.status == 201, response
    item = response.json
    assert set(item) == ITEM_FIELDS
    assert (item["kind"], item["from"], item["text"], item["read_at"]) == ("message", PERSON, "Stop and\nrebase first.", None)
    by_label = send(client, "The API is ready for you.", secret=other_secret, to="Claude Code")
    assert by_label.status == 201, by_label
    assert by_label.json["from"] == {"type": "agent", "key_id": other["id"], "label": "Cursor"}
    by_id = send(client, "again", secret=other_secret, to=key["id"])
    assert by_id.status == 201, by_id
    assert [i["id"] for i in inbox(client, secret)["items"]] == [item["id"], by_label.json["id"], by_id.json["id"]]
    assert inbox(client, other_secret)["items"] == []


def test_unknown_ambiguous_or_own_recipients_are_404(client, agent):
    token, key, secret = agent
    create_key(client, token, "twin")
    create_key(client, token, "twin")
    _, stranger = create_account(client)
    their_key, _ = create_key(client, stranger, "theirs")
    for to in ("Claude Code", key["id"], "nobody", their_key["id"], "theirs", "claude code"):
        assert_error(send(client, "hi", secret=secret, to=to), 404, KEY_NOT_FOUND)
    # A shared label is 404 too, with a message that says why (test_input_bounds.py).
    assert_error(send(client, "hi", secret=secret, to="twin"), 404,
                 ("not_found", "Key not found: more than one key has this label. Send to the key ID instead."))
    for key_id in (their_key["id"], UNKNOWN_KEY_ID):
        assert_error(send(client, "hi", token=token, key_id=key_id), 404, KEY_NOT_FOUND)


def test_a_message_names_only_a_task_the_sender_can_read(client, agent):
    token, key, secret = agent
    other, other_secret = create_key(client, token, "Cursor")
    theirs = create_task(client, other_secret)
    assert_error(send(client, "look", secret=secret, to=other["id"], task_id=theirs["id"]), 404, TASK_NOT_FOUND)
    response = send(client, "look", token=token, key_id=key["id"], task_id=theirs["id"])
    assert response.status == 201 and response.json["task_id"] == theirs["id"], response
    # The receiver cannot read that task, so it stays unseen by it.
    inbox(client, secret)
    assert_error(client.call("GET", f"/v1/tasks/{theirs['id']}", api_key=secret), 404, TASK_NOT_FOUND)


def test_bad_messages_name_every_field(client, agent):
    token, key, secret = agent
    assert_validation(send(client, " ", token=token, to="x"), {
        "key_id": "Required.", "text": "Must be 1 to 2,000 characters.", "to": "Not permitted with an account token."})
    assert_validation(send(client, "x" * 2001, secret=secret, key_id=key["id"]), {
        "key_id": ACCOUNT_ONLY, "text": "Must be 1 to 2,000 characters.", "to": "Required."})
    assert_validation(client.call("POST", "/v1/messages", json={"key_id": key["id"], "text": 5, "extra": 1}, token=token),
                      {"extra": "Unknown field.", "text": "Must be a string."})


@pytest.mark.parametrize("query, fields", [
    ("?wait=51", {"wait": "Must be an integer from 0 to 50."}),
    ("?limit=0&mark_read=yes", {"limit": "Must be an integer from 1 to 50.", "mark_read": "Must be true or false."}),
])
def test_bad_inbox_parameters_are_422(client, agent, query, fields):
    _, _, secret = agent
    assert_validation(client.call("GET", "/v1/inbox" + query, api_key=secret), fields)


def test_each_route_takes_its_credential(client, agent):
    token, key, secret = agent
    assert_error(client.call("GET", "/v1/inbox", token=token), 403, ("forbidden", "An account token cannot use this route."))
    assert_error(client.call("GET", "/v1/agents", token=token), 403, ("forbidden", "An account token cannot use this route."))
    assert_error(client.call("GET", f"/v1/keys/{key['id']}/inbox", api_key=secret), 403,
                 ("forbidden", "An API key cannot use this route."))
    _, stranger = create_account(client)
    assert_error(client.call("GET", f"/v1/keys/{key['id']}/inbox", token=stranger), 404, KEY_NOT_FOUND)


def test_agents_lists_the_keys_of_the_account_newest_first(client, agent):
    token, key, secret = agent
    other, _ = create_key(client, token, "Cursor")
    _, stranger = create_account(client)
    create_key(client, stranger, "theirs")
    response = client.call("GET", "/v1/agents", api_key=secret, headers={"X-Relaydeck-Host": "studio-mac"})
    assert response.status == 200, response
    agents = response.json["agents"]
    assert [(a["key_id"], a["label"], a["is_self"], a["last_client"]) for a in agents] == [
        (other["id"], "Cursor", False, None), (key["id"], "Claude Code", True, None)]
    assert agents[1]["host"] == "studio-mac" and agents[0]["host"] is None and agents[0]["last_used_at"] is None
    assert_timestamp(agents[1]["last_used_at"], near=time.time())


def test_the_sixty_first_message_in_an_hour_is_429(py):
    _, token = create_account(py)
    key, secret = create_key(py, token)
    for index in range(60):
        assert send(py, f"m{index}", token=token, key_id=key["id"]).status == 201
    assert_rate_limited(send(py, "one more", token=token, key_id=key["id"]), 60)
    _, other_secret = create_key(py, token, "other")
    assert send(py, "mine", secret=other_secret, to=key["id"]).status == 201


def test_a_waiting_read_returns_as_soon_as_a_message_comes(server):
    client = PythonClient(server.host, server.port)
    _, token = create_account(client)
    key, secret = create_key(client, token)
    result = {}

    def wait():
        started = time.monotonic()
        result["response"] = client.call("GET", "/v1/inbox?wait=20", api_key=secret)
        result["seconds"] = time.monotonic() - started

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    assert send(client, "wake up", token=token, key_id=key["id"]).status == 201
    waiter.join(10)
    response = result["response"]
    assert response.status == 200 and [i["text"] for i in response.json["items"]] == ["wake up"], response
    assert 0.3 <= result["seconds"] < 2, result


def test_of_several_waiters_that_mark_read_one_gets_the_item(server):
    client = PythonClient(server.host, server.port)
    _, token = create_account(client)
    key, secret = create_key(client, token)
    answers = []

    def wait():
        answers.append(client.call("GET", "/v1/inbox?wait=2", api_key=secret).json)

    waiters = [threading.Thread(target=wait) for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    time.sleep(0.3)
    assert send(client, "only one", token=token, key_id=key["id"]).status == 201
    for waiter in waiters:
        waiter.join(10)
    got = [a for a in answers if a["items"]]
    assert len(got) == 1 and got[0]["items"][0]["text"] == "only one", answers
    assert sorted(answers, key=lambda a: len(a["items"]))[:2] == [{"items": [], "unread": 0}] * 2


def test_a_waiting_read_with_nothing_new_ends_empty(client, agent):
    _, _, secret = agent
    started = time.monotonic()
    assert inbox(client, secret, "?wait=1") == {"items": [], "unread": 0}
    assert time.monotonic() - started >= 0.9


def test_the_two_hundred_and_first_unread_item_pushes_out_the_oldest(server):
    client = PythonClient(server.host, server.port)
    _, token = create_account(client)
    key, secret = create_key(client, token)
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        for index in range(201):
            body = json.dumps({"key_id": key["id"], "title": f"t{index}"})
            conn.request("POST", "/v1/tasks", body=body, headers={"Authorization": f"Bearer {token}"})
            response = conn.getresponse()
            assert response.status == 201, (response.status, response.read())
            response.read()
    finally:
        conn.close()
    first = inbox(client, secret, "?limit=1&mark_read=false")
    assert first["unread"] == 200 and [i["text"] for i in first["items"]] == ["t1"], first
