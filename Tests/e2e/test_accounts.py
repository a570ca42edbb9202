"""POST /v1/accounts, GET/PATCH/DELETE /v1/account (rest-api.md#accounts)."""

import re
import time

import pytest

from api import (
    ACCOUNT_TOKEN, NOT_JSON, UNAUTHORIZED, assert_account, assert_error, assert_json_content_type,
    assert_validation, create_account, create_key,
)


def test_create_account_returns_account_and_token(client):
    before = time.time()
    response = client.call("POST", "/v1/accounts", json={})
    assert response.status == 201, response
    assert_json_content_type(response)
    body = response.json
    assert set(body) == {"account", "token"}
    assert ACCOUNT_TOKEN.match(body["token"])
    assert_account(body["account"])
    assert before - 2 <= body["account"]["created_at"] <= time.time() + 2


def test_timestamps_are_written_with_a_fraction(py):
    response = py.call("POST", "/v1/accounts", json={})
    assert re.search(rb'"created_at":\s*\d{10}\.\d+', response.body), response.body


def test_create_account_with_empty_body(client):
    response = client.call("POST", "/v1/accounts", body=b"", headers={"Content-Type": "application/json"})
    assert response.status == 201, response
    assert_account(response.json["account"])


def test_create_account_without_any_body(py):
    response = py.call("POST", "/v1/accounts")
    assert response.status == 201, response
    assert_account(response.json["account"])


def test_attestation_is_accepted_and_ignored_while_app_attest_is_off(client):
    response = client.call("POST", "/v1/accounts", json={"attestation": {"key_id": "x", "object": "y"}})
    assert response.status == 201, response
    assert_account(response.json["account"])


def test_accounts_and_tokens_are_distinct(py):
    made = [create_account(py) for _ in range(5)]
    assert len({a["id"] for a, _ in made}) == 5
    assert len({t for _, t in made}) == 5


def test_create_account_rejects_unknown_fields(client):
    assert_validation(client.call("POST", "/v1/accounts", json={"email": "a@b.c", "name": "x"}),
                      {"email": "Unknown field.", "name": "Unknown field."})


def test_create_account_rejects_a_duplicate_field(client):
    body = '{"attestation": 1, "attestation": 2}'
    assert_validation(client.call("POST", "/v1/accounts", body=body), {"attestation": "Appears more than once."})


@pytest.mark.parametrize("body", ["[]", "[{}]", "\"{}\"", "1", "true", "null"])
def test_create_account_rejects_a_body_that_is_not_an_object(client, body):
    assert_validation(client.call("POST", "/v1/accounts", body=body), {"body": "Must be a JSON object."})


@pytest.mark.parametrize("body", ["{", "{}}", "{\"a\":}", "nul", "{'a': 1}", "\xff"])
def test_create_account_rejects_a_body_that_is_not_json(client, body):
    assert_error(client.call("POST", "/v1/accounts", body=body.encode("latin-1")), 400, NOT_JSON)


def test_get_account(client):
    account, token = create_account(client)
    response = client.call("GET", "/v1/account", token=token)
    assert response.status == 200, response
    assert_json_content_type(response)
    assert response.json == account


def test_get_account_without_credential_is_401(client):
    assert_error(client.call("GET", "/v1/account"), 401, UNAUTHORIZED)


def test_patch_account_settings(client):
    account, token = create_account(client)
    response = client.call("PATCH", "/v1/account", json={"settings": {"live_activities": False}}, token=token)
    assert response.status == 200, response
    assert response.json == {**account, "settings": {"live_activities": False}}
    assert client.call("GET", "/v1/account", token=token).json["settings"] == {"live_activities": False}
    back = client.call("PATCH", "/v1/account", json={"settings": {"live_activities": True}}, token=token)
    assert back.status == 200 and back.json == account


@pytest.mark.parametrize("body", [{}, {"settings": {}}])
def test_patch_account_without_changes_keeps_it(client, body):
    account, token = create_account(client)
    response = client.call("PATCH", "/v1/account", json=body, token=token)
    assert response.status == 200, response
    assert response.json == account


def test_patch_account_with_empty_body_keeps_it(py):
    account, token = create_account(py)
    response = py.call("PATCH", "/v1/account", body=b"", token=token)
    assert response.status == 200, response
    assert response.json == account


@pytest.mark.parametrize("body, fields", [
    ({"settings": 1}, {"settings": "Must be an object."}),
    ({"settings": None}, {"settings": "Must be an object."}),
    ({"settings": [True]}, {"settings": "Must be an object."}),
    ({"settings": {"live_activities": "no"}}, {"settings.live_activities": "Must be true or false."}),
    ({"settings": {"live_activities": 0}}, {"settings.live_activities": "Must be true or false."}),
    ({"settings": {"live_activities": None}}, {"settings.live_activities": "Must be true or false."}),
    ({"settings": {"foo": True}}, {"settings.foo": "Unknown field."}),
    ({"settings": {"live_activities": "x", "zz": 1}, "id": "acc_x"},
     {"id": "Unknown field.", "settings.live_activities": "Must be true or false.", "settings.zz": "Unknown field."}),
    ({"created_at": 1.5}, {"created_at": "Unknown field."}),
])
def test_patch_account_validation(client, body, fields):
    account, token = create_account(client)
    assert_validation(client.call("PATCH", "/v1/account", json=body, token=token), fields)
    assert client.call("GET", "/v1/account", token=token).json == account


def test_patch_account_rejects_duplicates_nested(client):
    _, token = create_account(client)
    body = '{"settings": {"live_activities": true, "live_activities": false}}'
    assert_validation(client.call("PATCH", "/v1/account", body=body, token=token),
                      {"settings.live_activities": "Appears more than once."})


@pytest.mark.parametrize("body", ["[]", "false", "\"settings\""])
def test_patch_account_rejects_a_body_that_is_not_an_object(client, body):
    _, token = create_account(client)
    assert_validation(client.call("PATCH", "/v1/account", body=body, token=token), {"body": "Must be a JSON object."})


def test_delete_account_refuses_its_token_and_keys_at_once(client, py):
    _, token = create_account(py)
    _, secret1 = create_key(py, token, "one")
    _, secret2 = create_key(py, token, "two")
    response = client.call("DELETE", "/v1/account", token=token)
    assert response.status == 204, response
    assert response.body == b""
    assert_error(client.call("GET", "/v1/account", token=token), 401, UNAUTHORIZED)
    assert_error(client.call("GET", "/v1/keys", token=token), 401, UNAUTHORIZED)
    assert_error(client.call("DELETE", "/v1/account", token=token), 401, UNAUTHORIZED)
    assert_error(client.call("GET", "/v1/keys", token=secret1), 401, UNAUTHORIZED)
    assert_error(client.call("GET", "/v1/keys", api_key=secret2), 401, UNAUTHORIZED)


def test_delete_account_leaves_other_accounts_alone(py):
    keep, keep_token = create_account(py)
    _, keep_secret = create_key(py, keep_token)
    _, gone_token = create_account(py)
    assert py.call("DELETE", "/v1/account", token=gone_token).status == 204
    assert py.call("GET", "/v1/account", token=keep_token).json == keep
    assert py.call("GET", "/v1/keys", token=keep_secret).status == 403
