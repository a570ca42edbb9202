"""A key's scopes over REST (issue 24): set on POST and PATCH /v1/keys, refused as a whole when
any item is wrong, enforced on every route a key may call (403 insufficient_scope naming the
scope), at once after a change, also for a call already waiting; only the account sets them."""

import re

import pytest

from api import (
    ALL_SCOPES, KEY_FORBIDDEN, assert_error, assert_new_key, assert_validation, create_account, create_key, find_key,
)
from http_clients import PythonClient
from raw_http import RawConnection, request_bytes
from server_process import wait_until

ONE_OF = "Must be one of: tasks:read, tasks:write, questions, notify, messages, inbox."


def refusal(scope: str, what: str = "this route") -> tuple[str, str]:
    return ("insufficient_scope",
            f"The key lacks the scope {scope}, which {what} needs. The person can give the key this scope in the web console.")


def key_with(client, token: str, scopes: list[str], label: str = "Agent") -> tuple[dict, str]:
    response = client.call("POST", "/v1/keys", json={"label": label, "scopes": scopes}, token=token)
    assert response.status == 201, response
    return response.json["key"], response.json["secret"]


def test_a_key_made_with_scopes_holds_them_in_the_servers_order(client):
    _, token = create_account(client)
    key, secret = key_with(client, token, ["inbox", "notify", "tasks:read"], "Reader")
    assert_new_key(key, secret, "Reader", scopes=["tasks:read", "notify", "inbox"])
    assert find_key(client, token, key["id"]) == key


def test_a_key_made_without_scopes_holds_every_scope(client):
    _, token = create_account(client)
    key, secret = create_key(client, token, "Cursor")
    assert_new_key(key, secret, "Cursor", scopes=ALL_SCOPES)


@pytest.mark.parametrize("scopes, fields", [
    (["tasks:read", "Tasks:Read"], {"scopes[1]": ONE_OF}),
    (["TASKS:WRITE"], {"scopes[0]": ONE_OF}),
    (["tasks:read\u0000"], {"scopes[0]": ONE_OF}),
    (["tasks:\u0072ead\u200b"], {"scopes[0]": ONE_OF}),
    (["inbox", "inbox"], {"scopes[1]": "Repeats an earlier item."}),
    ([], {"scopes": "Must have 1 to 6 items."}),
    (ALL_SCOPES + ["inbox"], {"scopes": "Must have 1 to 6 items."}),
    ([1, None, True, {"inbox": 1}, ["inbox"], 1.5], {f"scopes[{i}]": ONE_OF for i in range(6)}),
    ("tasks:read", {"scopes": "Must be an array."}),
    (None, {"scopes": "Must be an array."}),
    ({"tasks:read": True}, {"scopes": "Must be an array."}),
])
def test_invalid_scopes_are_a_422_naming_each_item_and_no_key_is_made(client, scopes, fields):
    _, token = create_account(client)
    response = client.call("POST", "/v1/keys", json={"label": "Agent", "scopes": scopes}, token=token)
    assert_validation(response, fields)
    assert client.call("GET", "/v1/keys", token=token).json == {"keys": []}


def test_a_hundred_thousand_scopes_and_a_huge_name_are_refused_and_not_echoed(client):
    _, token = create_account(client)
    many = client.call("POST", "/v1/keys", json={"label": "Agent", "scopes": ["inbox"] * 100_000}, token=token)
    assert_validation(many, {"scopes": "Must have 1 to 6 items."})
    huge = "tasks:read" * 90_000
    long = client.call("POST", "/v1/keys", json={"label": "Agent", "scopes": [huge]}, token=token)
    assert_validation(long, {"scopes[0]": ONE_OF})
    assert len(long.body) < 300
    # Both at once, on a PATCH: still one small answer, and nothing changed.
    key, _ = create_key(client, token, "Kept")
    patch = client.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "x" * 41, "scopes": ["inbox"] * 90_000}, token=token)
    assert_validation(patch, {"label": "Must be 1 to 40 characters.", "scopes": "Must have 1 to 6 items."})
    assert find_key(client, token, key["id"]) == key


def test_patch_sets_the_scopes_and_a_bad_one_changes_nothing_not_even_the_label(client):
    _, token = create_account(client)
    key, _ = create_key(client, token, "Cursor")
    changed = client.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "Reader", "scopes": ["tasks:read"]}, token=token)
    assert changed.status == 200, changed
    assert changed.json == {**key, "label": "Reader", "scopes": ["tasks:read"]}
    refused = client.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "Writer", "scopes": ["tasks:read", "tasks:writ"]},
                          token=token)
    assert_validation(refused, {"scopes[1]": ONE_OF})
    assert find_key(client, token, key["id"]) == changed.json


def test_an_api_key_cannot_change_any_key_so_it_cannot_escalate_itself(client):
    _, token = create_account(client)
    key, secret = key_with(client, token, ["tasks:read"])
    for method, path, body in [
        ("PATCH", f"/v1/keys/{key['id']}", {"scopes": ALL_SCOPES}),
        ("POST", "/v1/keys", {"label": "Escalated", "scopes": ALL_SCOPES}),
        ("DELETE", f"/v1/keys/{key['id']}", None),
    ]:
        for credential in ({"token": secret}, {"api_key": secret}):
            kwargs = {"json": body} if body is not None else {}
            assert_error(client.call(method, path, **kwargs, **credential), 403, KEY_FORBIDDEN)
    assert find_key(client, token, key["id"])["scopes"] == ["tasks:read"]
    assert len(client.call("GET", "/v1/keys", token=token).json["keys"]) == 1


def routes(other_key_id: str):
    """Each route a key may call, its scope, and the status it gets when allowed."""
    return [
        ("GET", "/v1/tasks", None, "tasks:read", 200),
        ("GET", "/v1/tasks/tsk_unknown", None, "tasks:read", 404),
        ("POST", "/v1/tasks", {"title": "Write tests"}, "tasks:write", 201),
        ("PATCH", "/v1/tasks/tsk_unknown", {"progress": 5}, "tasks:write", 404),
        ("DELETE", "/v1/tasks/tsk_unknown", None, "tasks:write", 404),
        ("GET", "/v1/questions", None, "questions", 200),
        ("POST", "/v1/questions", {"prompt": "Deploy?"}, "questions", 201),
        ("GET", "/v1/questions/qst_unknown", None, "questions", 404),
        ("DELETE", "/v1/questions/qst_unknown", None, "questions", 404),
        ("GET", "/v1/inbox", None, "inbox", 200),
        ("POST", "/v1/messages", {"to": other_key_id, "text": "Rebase first."}, "messages", 201),
        ("GET", "/v1/agents", None, "messages", 200),
    ]


@pytest.mark.parametrize("missing", ALL_SCOPES)
def test_a_key_without_one_scope_is_refused_exactly_the_routes_that_need_it(client, missing):
    _, token = create_account(client)
    other, _ = create_key(client, token, "Other")
    _, secret = key_with(client, token, [s for s in ALL_SCOPES if s != missing])
    for method, path, body, scope, allowed in routes(other["id"]):
        kwargs = {"json": body} if body is not None else {}
        response = client.call(method, path, token=secret, **kwargs)
        if scope == missing:
            assert_error(response, 403, refusal(missing))
        else:
            assert response.status == allowed, (method, path, response)


def test_the_account_token_keeps_every_power(client):
    _, token = create_account(client)
    key, _ = key_with(client, token, ["notify"])
    task = client.call("POST", "/v1/tasks", json={"key_id": key["id"], "title": "For the agent"}, token=token)
    assert task.status == 201, task
    assert client.call("GET", "/v1/tasks", token=token).status == 200
    assert client.call("GET", "/v1/questions", token=token).status == 200
    assert client.call("POST", "/v1/messages", json={"key_id": key["id"], "text": "Hi"}, token=token).status == 201
    assert client.call("DELETE", f"/v1/tasks/{task.json['id']}", token=token).status == 204


def test_a_scope_change_holds_for_the_keys_next_request(client):
    _, token = create_account(client)
    key, secret = create_key(client, token, "Agent")
    assert client.call("GET", "/v1/tasks", token=secret).status == 200
    assert client.call("PATCH", f"/v1/keys/{key['id']}", json={"scopes": ["tasks:write"]}, token=token).status == 200
    assert_error(client.call("GET", "/v1/tasks", token=secret), 403, refusal("tasks:read"))
    assert client.call("POST", "/v1/tasks", json={"title": "Allowed"}, token=secret).status == 201
    assert client.call("PATCH", f"/v1/keys/{key['id']}", json={"scopes": ["tasks:read"]}, token=token).status == 200
    assert client.call("GET", "/v1/tasks", token=secret).status == 200
    assert_error(client.call("POST", "/v1/tasks", json={"title": "Refused"}, token=secret), 403, refusal("tasks:write"))


def test_a_refusal_has_its_activity_entry(client):
    _, token = create_account(client)
    key, secret = key_with(client, token, ["notify"])
    client.call("GET", "/v1/tasks", token=secret)
    entries = client.call("GET", f"/v1/keys/{key['id']}/activity", token=token).json["items"]
    assert [(e["action"], e["status"], e["code"], e["message"]) for e in entries] == [
        ("GET /v1/tasks", "error", "insufficient_scope", refusal("tasks:read")[1]),
    ]


def metrics(server) -> str:
    with RawConnection(server.port) as connection:
        connection.send(request_bytes("GET", "/metrics", None, {"Authorization": "Bearer metrics-secret-of-the-scopes-test"}))
        return connection.read_response().body.decode()


def parked_calls(server) -> int:
    return int(re.search(r"^relaydeck_parked_calls (\d+)$", metrics(server), re.M).group(1))


def test_taking_a_scope_ends_the_calls_waiting_on_it_and_leaves_the_others(start_server):
    server = start_server({"METRICS_TOKEN": "metrics-secret-of-the-scopes-test"})
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    key, secret = create_key(py, token, "Agent")
    question = py.call("POST", "/v1/questions", json={"prompt": "Deploy?"}, token=secret).json["id"]
    inbox = RawConnection(server.port, timeout=60)
    inbox.send(request_bytes("GET", "/v1/inbox?wait=50", None, {"Authorization": f"Bearer {secret}"}))
    waiting = RawConnection(server.port, timeout=60)
    waiting.send(request_bytes("GET", f"/v1/questions/{question}?wait=50", None, {"Authorization": f"Bearer {secret}"}))
    wait_until(lambda: parked_calls(server) == 2, timeout=20, message="two parked calls")

    assert py.call("PATCH", f"/v1/keys/{key['id']}", json={"scopes": ["questions"]}, token=token).status == 200
    # Answered long before its 50 s, with the refusal (an ended wait would be 200 with no items).
    ended = inbox.read_response(timeout=40)
    assert_error(ended, 403, refusal("inbox", "this waiting call"))
    inbox.close()
    assert parked_calls(server) == 1
    # The question's wait needs `questions`, which the key kept: it answers when the person does.
    assert py.call("POST", f"/v1/questions/{question}/answer", json={"answer": "Yes"}, token=token).status == 200
    answered = waiting.read_response(timeout=40)
    assert answered.status == 200 and answered.json["status"] == "answered"
    waiting.close()
    entries = py.call("GET", f"/v1/keys/{key['id']}/activity", token=token).json["items"]
    assert ("GET /v1/inbox", "insufficient_scope") in [(e["action"], e["code"]) for e in entries]
    counted = metrics(server)
    assert 'relaydeck_scope_refusals_total{scope="inbox",surface="rest"} 1' in counted
