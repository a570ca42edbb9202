"""PUT/DELETE /v1/tasks/{task_id}/live-activity (rest-api.md#live-activities).

The tasks routes are written on another branch: the tests put task rows into the store
beside the running server, and read the registrations from it.
"""

import pytest

from api import KEY_FORBIDDEN, assert_error, assert_validation, create_account, create_key
from stored_rows import execute, rows
from test_devices import HEX, BAD_ID, DEVICE_NOT_FOUND, PHONE, TABLET, put_device

TASK_NOT_FOUND = ("not_found", "Task not found.")
PUSH = "e5f6" * 20


def insert_task(server, task_id, account_id, key_id):
    execute(server.env,
            "INSERT INTO tasks (id, account_id, key_id, title, description, status, priority, notify, source, "
            "created_at, updated_at, created_seq, changed_seq) "
            "VALUES (?, ?, ?, 't', '', 'todo', 'medium', 0, 'agent', 1, 1, 1, 1)", (task_id, account_id, key_id))


def registrations(server, task_id):
    return [tuple(row.values()) for row in
            rows(server.env, "SELECT device_id, push_token FROM live_activities WHERE task_id = ? ORDER BY device_id", (task_id,))]


@pytest.fixture
def setup(client, server, request):
    """An account with a key, a task of that key and a device; the task ID is unique per test."""
    account, token = create_account(client)
    key, _ = create_key(client, token)
    task_id = "tsk_" + account["id"][4:]
    insert_task(server, task_id, account["id"], key["id"])
    assert put_device(client, token, PHONE).status == 200
    return account, token, task_id


def path(task_id):
    return f"/v1/tasks/{task_id}/live-activity"


def test_put_registers_and_delete_removes_both_204(client, server, setup):
    _, token, task_id = setup
    response = client.call("PUT", path(task_id), json={"device_id": PHONE, "push_token": PUSH.upper()}, token=token)
    assert response.status == 204, response
    assert response.body == b""
    assert registrations(server, task_id) == [(PHONE, PUSH)]
    # A new token from ActivityKit replaces the last one.
    client.call("PUT", path(task_id), json={"device_id": PHONE, "push_token": "ab" * 30}, token=token)
    assert registrations(server, task_id) == [(PHONE, "ab" * 30)]
    response = client.call("DELETE", path(task_id), json={"device_id": PHONE}, token=token)
    assert response.status == 204, response
    assert registrations(server, task_id) == []


def test_delete_is_204_when_nothing_is_registered(client, setup):
    _, token, task_id = setup
    assert client.call("DELETE", path(task_id), json={"device_id": PHONE}, token=token).status == 204


def test_deleting_the_device_removes_its_registrations(client, server, setup):
    _, token, task_id = setup
    client.call("PUT", path(task_id), json={"device_id": PHONE, "push_token": PUSH}, token=token)
    assert client.call("DELETE", f"/v1/devices/{PHONE}", token=token).status == 204
    assert registrations(server, task_id) == []


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_an_unknown_task_or_device_is_404(client, setup, method):
    _, token, task_id = setup
    body = {"device_id": PHONE, "push_token": PUSH} if method == "PUT" else {"device_id": PHONE}
    assert_error(client.call(method, path("tsk_nothing"), json=body, token=token), 404, TASK_NOT_FOUND)
    body["device_id"] = TABLET
    assert_error(client.call(method, path(task_id), json=body, token=token), 404, DEVICE_NOT_FOUND)


def test_the_task_and_device_of_another_account_are_404(client, server, setup):
    _, token, task_id = setup
    _, other = create_account(client)
    put_device(client, other, TABLET)
    body = {"device_id": TABLET, "push_token": PUSH}
    assert_error(client.call("PUT", path(task_id), json=body, token=other), 404, TASK_NOT_FOUND)
    assert_error(client.call("PUT", path(task_id), json=body, token=token), 404, DEVICE_NOT_FOUND)
    assert registrations(server, task_id) == []


def test_a_task_of_a_deleted_key_is_404(client, server):
    account, token = create_account(client)
    key, _ = create_key(client, token)
    task_id = "tsk_" + account["id"][4:]
    insert_task(server, task_id, account["id"], key["id"])
    put_device(client, token, PHONE)
    assert client.call("DELETE", f"/v1/keys/{key['id']}", token=token).status == 204
    assert_error(client.call("PUT", path(task_id), json={"device_id": PHONE, "push_token": PUSH}, token=token),
                 404, TASK_NOT_FOUND)


@pytest.mark.parametrize("method, body, problems", [
    ("PUT", {}, {"device_id": "Required.", "push_token": "Required."}),
    ("PUT", {"device_id": "dev_1", "push_token": "xyz", "x": 1}, {"device_id": BAD_ID, "push_token": HEX, "x": "Unknown field."}),
    ("PUT", {"device_id": PHONE, "push_token": None}, {"push_token": HEX}),
    ("DELETE", {}, {"device_id": "Required."}),
    ("DELETE", {"device_id": PHONE, "push_token": PUSH}, {"push_token": "Unknown field."}),
    ("DELETE", [PHONE], {"body": "Must be a JSON object."}),
])
def test_bad_bodies_are_422(client, setup, method, body, problems):
    _, token, task_id = setup
    assert_validation(client.call(method, path(task_id), json=body, token=token), problems)


def test_an_api_key_is_forbidden(client, setup):
    _, token, task_id = setup
    _, secret = create_key(client, token, "agent")
    assert_error(client.call("PUT", path(task_id), json={"device_id": PHONE, "push_token": PUSH}, token=secret),
                 403, KEY_FORBIDDEN)
