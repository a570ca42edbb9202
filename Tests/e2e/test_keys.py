"""GET/POST /v1/keys, PATCH/DELETE /v1/keys/{key_id} (rest-api.md#keys)."""

import re

import pytest

from api import (
    KEY_LIMIT, KEY_NOT_FOUND, UNAUTHORIZED, UNKNOWN_KEY_ID, assert_error, assert_json_content_type,
    assert_new_key, assert_validation, create_account, create_key, find_key, list_keys,
)

LENGTH = "Must be 1 to 40 characters."
CONTROL = "Must not contain control characters."


def test_create_key_returns_key_and_secret_once(client):
    _, token = create_account(client)
    response = client.call("POST", "/v1/keys", json={"label": "Cursor"}, token=token)
    assert response.status == 201, response
    assert_json_content_type(response)
    body = response.json
    assert set(body) == {"key", "secret"}
    assert_new_key(body["key"], body["secret"], "Cursor")
    listed = list_keys(client, token)
    assert listed == [body["key"]]
    assert body["secret"] not in client.call("GET", "/v1/keys", token=token).text
    assert re.search(rb'"created_at":\s*\d{10}\.\d+', response.body), response.body


def test_new_account_has_no_keys(client):
    _, token = create_account(client)
    response = client.call("GET", "/v1/keys", token=token)
    assert response.status == 200
    assert_json_content_type(response)
    assert response.json == {"keys": []}


def test_keys_are_listed_newest_first(client):
    _, token = create_account(client)
    made = [create_key(client, token, f"key {i}")[0] for i in range(5)]
    assert list_keys(client, token) == list(reversed(made))


def test_keys_of_one_account_are_not_listed_for_another(py):
    _, token_a = create_account(py)
    _, token_b = create_account(py)
    key_a, _ = create_key(py, token_a, "mine")
    assert list_keys(py, token_b) == []
    assert list_keys(py, token_a) == [key_a]


def test_secrets_and_ids_are_distinct(py):
    _, token = create_account(py)
    made = [create_key(py, token, "same") for _ in range(6)]
    assert len({k["id"] for k, _ in made}) == 6
    assert len({s for _, s in made}) == 6


@pytest.mark.parametrize("label, stored", [
    ("Claude Code", "Claude Code"),
    ("  Cursor  ", "Cursor"),
    ("a\tb", "a b"),
    ("a\nb", "a b"),
    ("a\r\nb", "a b"),
    (" \t\n multi   line\n\n\tlabel \t ", "multi line label"),
    ("x" * 40, "x" * 40),
    ("  " + "x" * 40 + "\n", "x" * 40),
    ("x" * 20 + " \t \n " + "y" * 19, "x" * 20 + " " + "y" * 19),
    ("é" * 40, "é" * 40),
    ("\U0001F600" * 40, "\U0001F600" * 40),
    ("日本語のラベル", "日本語のラベル"),
])
def test_label_is_normalized_to_one_line(client, label, stored):
    _, token = create_account(client)
    key, secret = create_key(client, token, label)
    assert_new_key(key, secret, stored)
    assert find_key(client, token, key["id"])["label"] == stored


@pytest.mark.parametrize("label", [
    "x" * 41,
    "é" * 41,
    "字" * 41,
    "x" * 20 + " " + "y" * 20,
    "",
    " ",
    "\t\n \r\n",
])
def test_label_length_is_checked_after_normalization(client, label):
    _, token = create_account(client)
    assert_validation(client.call("POST", "/v1/keys", json={"label": label}, token=token), {"label": LENGTH})
    assert list_keys(client, token) == []


@pytest.mark.parametrize("label", ["a\u0000b", "bell\u0007", "\u001b[31mred", "del\u007f"])
def test_label_with_control_characters_is_refused(client, label):
    _, token = create_account(client)
    assert_validation(client.call("POST", "/v1/keys", json={"label": label}, token=token), {"label": CONTROL})


@pytest.mark.parametrize("body, fields", [
    ({}, {"label": "Required."}),
    ({"label": 5}, {"label": "Must be a string."}),
    ({"label": ["a"]}, {"label": "Must be a string."}),
    ({"label": {"text": "a"}}, {"label": "Must be a string."}),
    ({"label": True}, {"label": "Must be a string."}),
    ({"label": "ok", "foo": 1}, {"foo": "Unknown field."}),
    ({"label": "ok", "secret": "mck_x"}, {"secret": "Unknown field."}),
    ({"label": 5, "zzz": 1, "aaa": 2}, {"aaa": "Unknown field.", "label": "Must be a string.", "zzz": "Unknown field."}),
])
def test_create_key_validation(client, body, fields):
    _, token = create_account(client)
    assert_validation(client.call("POST", "/v1/keys", json=body, token=token), fields)
    assert list_keys(client, token) == []


def test_create_key_with_empty_body_needs_a_label(py):
    _, token = create_account(py)
    assert_validation(py.call("POST", "/v1/keys", body=b"", token=token), {"label": "Required."})


def test_create_key_rejects_a_duplicate_label(client):
    _, token = create_account(client)
    body = '{"label": "a", "label": "b"}'
    assert_validation(client.call("POST", "/v1/keys", body=body, token=token), {"label": "Appears more than once."})


@pytest.mark.parametrize("body", ["[{\"label\": \"a\"}]", "\"Cursor\"", "null"])
def test_create_key_rejects_a_body_that_is_not_an_object(client, body):
    _, token = create_account(client)
    assert_validation(client.call("POST", "/v1/keys", body=body, token=token), {"body": "Must be a JSON object."})


def test_twenty_keys_then_409(py, curl):
    _, token = create_account(py)
    made = [create_key(py, token, f"k{i}")[0] for i in range(20)]
    assert_error(curl.call("POST", "/v1/keys", json={"label": "one too many"}, token=token), 409, KEY_LIMIT)
    assert_error(py.call("POST", "/v1/keys", json={"label": "still too many"}, token=token), 409, KEY_LIMIT)
    assert len(list_keys(py, token)) == 20
    # The limit counts live keys: deleting one makes room for exactly one more.
    assert py.call("DELETE", f"/v1/keys/{made[3]['id']}", token=token).status == 204
    create_key(py, token, "replacement")
    assert_error(py.call("POST", "/v1/keys", json={"label": "again"}, token=token), 409, KEY_LIMIT)
    # Another account has its own twenty.
    _, other = create_account(py)
    create_key(py, other, "fine")


def test_patch_key_label(client):
    _, token = create_account(client)
    key, _ = create_key(client, token, "Cursor")
    response = client.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "  Cursor \n (work) "}, token=token)
    assert response.status == 200, response
    assert_json_content_type(response)
    assert response.json == {**key, "label": "Cursor (work)"}
    assert find_key(client, token, key["id"]) == response.json


def test_patch_key_with_empty_object_changes_nothing(client):
    _, token = create_account(client)
    key, _ = create_key(client, token, "Same")
    response = client.call("PATCH", f"/v1/keys/{key['id']}", json={}, token=token)
    assert response.status == 200, response
    assert response.json == key


def test_patch_key_with_empty_body_changes_nothing(py):
    _, token = create_account(py)
    key, _ = create_key(py, token, "Same")
    response = py.call("PATCH", f"/v1/keys/{key['id']}", body=b"", token=token)
    assert response.status == 200, response
    assert response.json == key


@pytest.mark.parametrize("body, fields", [
    ({"label": ""}, {"label": LENGTH}),
    ({"label": "x" * 41}, {"label": LENGTH}),
    ({"label": " \n "}, {"label": LENGTH}),
    ({"label": "a\u0001"}, {"label": CONTROL}),
    ({"label": None}, {"label": "Must be a string."}),
    ({"label": 1}, {"label": "Must be a string."}),
    ({"prefix": "mck_aaaa"}, {"prefix": "Unknown field."}),
    ({"label": "ok", "last_host": "x"}, {"last_host": "Unknown field."}),
])
def test_patch_key_validation(client, body, fields):
    _, token = create_account(client)
    key, _ = create_key(client, token, "Before")
    assert_validation(client.call("PATCH", f"/v1/keys/{key['id']}", json=body, token=token), fields)
    assert find_key(client, token, key["id"]) == key


def test_patch_key_rejects_a_body_that_is_not_an_object(py):
    _, token = create_account(py)
    key, _ = create_key(py, token)
    assert_validation(py.call("PATCH", f"/v1/keys/{key['id']}", body="[]", token=token), {"body": "Must be a JSON object."})


@pytest.mark.parametrize("key_id", [UNKNOWN_KEY_ID, "key_zzzzzzzzzzzzzzzzzzzzzzzzzz", "abc", "acc_" + "0" * 26])
def test_patch_unknown_key_is_404(client, key_id):
    _, token = create_account(client)
    assert_error(client.call("PATCH", f"/v1/keys/{key_id}", json={"label": "x"}, token=token), 404, KEY_NOT_FOUND)


@pytest.mark.parametrize("key_id", [UNKNOWN_KEY_ID, "abc"])
def test_delete_unknown_key_is_404(client, key_id):
    _, token = create_account(client)
    assert_error(client.call("DELETE", f"/v1/keys/{key_id}", token=token), 404, KEY_NOT_FOUND)


def test_key_of_another_account_is_404(client):
    _, owner = create_account(client)
    _, stranger = create_account(client)
    key, secret = create_key(client, owner, "Owned")
    assert_error(client.call("PATCH", f"/v1/keys/{key['id']}", json={"label": "Mine now"}, token=stranger), 404, KEY_NOT_FOUND)
    assert_error(client.call("DELETE", f"/v1/keys/{key['id']}", token=stranger), 404, KEY_NOT_FOUND)
    assert find_key(client, owner, key["id"]) == key
    assert client.call("GET", "/v1/keys", token=secret).status == 403


def test_delete_key(client):
    _, token = create_account(client)
    keep, keep_secret = create_key(client, token, "keep")
    gone, gone_secret = create_key(client, token, "gone")
    response = client.call("DELETE", f"/v1/keys/{gone['id']}", token=token)
    assert response.status == 204, response
    assert response.body == b""
    assert list_keys(client, token) == [keep]
    assert_error(client.call("GET", "/v1/keys", token=gone_secret), 401, UNAUTHORIZED)
    assert_error(client.call("GET", "/v1/keys", api_key=gone_secret), 401, UNAUTHORIZED)
    assert client.call("GET", "/v1/keys", api_key=keep_secret).status == 403
    assert_error(client.call("DELETE", f"/v1/keys/{gone['id']}", token=token), 404, KEY_NOT_FOUND)
    assert_error(client.call("PATCH", f"/v1/keys/{gone['id']}", json={"label": "back"}, token=token), 404, KEY_NOT_FOUND)


def test_key_routes_need_the_account_token(client):
    _, token = create_account(client)
    key, _ = create_key(client, token)
    for method, path in [("GET", "/v1/keys"), ("POST", "/v1/keys"), ("PATCH", f"/v1/keys/{key['id']}"),
                         ("DELETE", f"/v1/keys/{key['id']}")]:
        assert_error(client.call(method, path), 401, UNAUTHORIZED)
    assert find_key(client, token, key["id"]) == key
