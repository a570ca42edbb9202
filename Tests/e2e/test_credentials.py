"""Authentication (overview.md#authentication): which credential is read, and what each gets."""

import pytest

from api import (
    KEY_FORBIDDEN, UNAUTHORIZED, UNKNOWN_ACCOUNT_TOKEN, UNKNOWN_KEY_SECRET, assert_error,
    create_account, create_key,
)

ACCOUNT_ROUTES = [
    ("GET", "/v1/account", None),
    ("HEAD", "/v1/account", None),
    ("PATCH", "/v1/account", {"settings": {"live_activities": False}}),
    ("DELETE", "/v1/account", None),
    ("GET", "/v1/keys", None),
    ("POST", "/v1/keys", {"label": "x"}),
    ("PATCH", "/v1/keys/{key_id}", {"label": "x"}),
    ("DELETE", "/v1/keys/{key_id}", None),
]


def call(client, method, path, body, key_id, **credential):
    path = path.replace("{key_id}", key_id)
    if body is None:
        return client.call(method, path, **credential)
    return client.call(method, path, json=body, **credential)


@pytest.mark.parametrize("method, path, body", ACCOUNT_ROUTES)
def test_api_key_on_an_account_route_is_403_and_changes_nothing(client, py, method, path, body):
    account, token = create_account(py)
    key, secret = create_key(py, token, "agent")
    for credential in ({"token": secret}, {"api_key": secret}):
        response = call(client, method, path, body, key["id"], **credential)
        if method == "HEAD":
            assert response.status == 403 and response.body == b"", response
        else:
            assert_error(response, 403, KEY_FORBIDDEN)
    assert py.call("GET", "/v1/account", token=token).json == account
    assert [k["label"] for k in py.call("GET", "/v1/keys", token=token).json["keys"]] == ["agent"]


@pytest.mark.parametrize("method, path, body", ACCOUNT_ROUTES)
def test_no_credential_is_401(client, method, path, body):
    response = call(client, method, path, body, "key_" + "0" * 26)
    assert response.status == 401, response
    if method != "HEAD":
        assert_error(response, 401, UNAUTHORIZED)


@pytest.mark.parametrize("authorization", [
    "Bearer " + UNKNOWN_ACCOUNT_TOKEN,
    "Bearer " + UNKNOWN_KEY_SECRET,
    "Bearer mca_short",
    "Bearer mca_" + "A" * 44,
    "Bearer mca_" + "A" * 42 + "!",
    "Bearer abc_" + "A" * 43,
    "Bearer ",
    "Bearer",
    "Basic dXNlcjpwYXNz",
    "Token {token}",
    "{token}",
    "bearer-{token}",
])
def test_wrong_or_malformed_authorization_is_401(client, py, authorization):
    _, token = create_account(py)
    response = client.call("GET", "/v1/account", headers={"Authorization": authorization.replace("{token}", token)})
    assert_error(response, 401, UNAUTHORIZED)


@pytest.mark.parametrize("value", [UNKNOWN_KEY_SECRET, "mck_short", "Bearer " + UNKNOWN_KEY_SECRET, ""])
def test_wrong_x_api_key_is_401(client, value):
    response = client.call("GET", "/v1/account", headers={"X-API-Key": value})
    assert_error(response, 401, UNAUTHORIZED)


def test_account_token_is_read_from_authorization(client):
    account, token = create_account(client)
    response = client.call("GET", "/v1/account", headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200 and response.json == account


def test_api_key_is_recognized_in_both_headers(client, py):
    _, token = create_account(py)
    _, secret = create_key(py, token)
    assert_error(client.call("GET", "/v1/keys", headers={"Authorization": f"Bearer {secret}"}), 403, KEY_FORBIDDEN)
    assert_error(client.call("GET", "/v1/keys", headers={"X-API-Key": secret}), 403, KEY_FORBIDDEN)


def test_both_headers_with_the_same_key_are_accepted(client, py):
    _, token = create_account(py)
    _, secret = create_key(py, token)
    response = client.call("GET", "/v1/keys", headers={"Authorization": f"Bearer {secret}", "X-API-Key": secret})
    assert_error(response, 403, KEY_FORBIDDEN)


def test_both_headers_with_different_values_are_401(client, py):
    _, token = create_account(py)
    _, secret = create_key(py, token, "one")
    _, other = create_key(py, token, "two")
    for headers in [
        {"Authorization": f"Bearer {secret}", "X-API-Key": other},
        {"Authorization": f"Bearer {token}", "X-API-Key": secret},
        {"Authorization": f"Bearer {token}", "X-API-Key": UNKNOWN_KEY_SECRET},
    ]:
        assert_error(client.call("GET", "/v1/keys", headers=headers), 401, UNAUTHORIZED)


def test_x_api_key_does_not_carry_an_account_token(client):
    _, token = create_account(client)
    assert_error(client.call("GET", "/v1/account", headers={"X-API-Key": token}), 401, UNAUTHORIZED)


def test_deleted_key_is_401_while_live_key_is_403(client, py):
    _, token = create_account(py)
    gone, gone_secret = create_key(py, token, "gone")
    _, live_secret = create_key(py, token, "live")
    assert py.call("DELETE", f"/v1/keys/{gone['id']}", token=token).status == 204
    assert_error(client.call("GET", "/v1/keys", token=gone_secret), 401, UNAUTHORIZED)
    assert_error(client.call("GET", "/v1/keys", token=live_secret), 403, KEY_FORBIDDEN)


def test_a_token_of_another_account_sees_only_its_own(client):
    account_a, token_a = create_account(client)
    account_b, token_b = create_account(client)
    assert client.call("GET", "/v1/account", token=token_a).json == account_a
    assert client.call("GET", "/v1/account", token=token_b).json == account_b
