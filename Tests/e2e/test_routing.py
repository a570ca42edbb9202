"""/health, unknown paths, wrong methods, HEAD, and the order in which routing checks run."""

import pytest

from api import (
    KEY_FORBIDDEN, METHOD_NOT_ALLOWED, NOT_FOUND, NOT_JSON, UNAUTHORIZED, UNKNOWN_KEY_ID,
    assert_error, assert_json_content_type, create_account, create_key, assert_validation,
)


def test_health_answers_ok_without_credential(client):
    response = client.call("GET", "/health")
    assert response.status == 200
    assert_json_content_type(response)
    assert response.json == {"status": "ok", "store": "ok"}


def test_health_ignores_a_credential(py):
    response = py.call("GET", "/health", token="mca_" + "x" * 43)
    assert response.status == 200
    assert response.json == {"status": "ok", "store": "ok"}


def test_head_health_has_the_get_headers_and_no_body(client, py):
    get = py.call("GET", "/health")
    head = client.call("HEAD", "/health")
    assert head.status == 200
    assert head.body == b""
    assert head.header("Content-Type") == "application/json"
    assert head.header("Content-Length") == get.header("Content-Length") == str(len(get.body))


@pytest.mark.parametrize("path", [
    # `/` is the home page now (test_site.py); the paths around it stay unknown.
    "/nope",
    "/docs/",
    "/install/",
    "/v1",
    "/v1/",
    "/v1/task",
    "/v1/question",
    # `/v1/devices/{device_id}` and `/v1/keys/{key_id}/activity` exist now (rest-api.md#devices,
    # #activity-log), and `GET /v1/devices` for the web console: a GET there is 405 or 401, so
    # only the paths around them stay unknown.
    "/v1/devices/dev_1/x",
    "/v1/keys/" + UNKNOWN_KEY_ID + "/activity/x",
    "/v1/keys/" + UNKNOWN_KEY_ID + "/x",
    "/healthz",
    "/health/",
    "/v1/account/x",
])
def test_unknown_path_is_404(client, path):
    assert_error(client.call("GET", path), 404, NOT_FOUND)


def test_unknown_path_is_404_before_the_credential_is_checked(py):
    assert_error(py.call("POST", "/v1/nothing", body="{not json", token="garbage"), 404, NOT_FOUND)


def test_head_of_unknown_path_is_404_without_body(client):
    response = client.call("HEAD", "/nope")
    assert response.status == 404
    assert response.body == b""


def allowed(response) -> set[str]:
    value = response.header("Allow")
    assert value is not None, response
    methods = value.split(", ")
    assert all(m and m == m.strip() and m.isupper() for m in methods), value
    return set(methods)


@pytest.mark.parametrize("method, path, expected", [
    ("POST", "/health", {"GET", "HEAD"}),
    ("DELETE", "/health", {"GET", "HEAD"}),
    ("GET", "/v1/accounts", {"POST"}),
    ("DELETE", "/v1/accounts", {"POST"}),
    ("POST", "/v1/account", {"GET", "HEAD", "PATCH", "DELETE"}),
    ("PUT", "/v1/account", {"GET", "HEAD", "PATCH", "DELETE"}),
    ("DELETE", "/v1/keys", {"GET", "HEAD", "POST"}),
    ("PATCH", "/v1/keys", {"GET", "HEAD", "POST"}),
    ("GET", "/v1/keys/" + UNKNOWN_KEY_ID, {"PATCH", "DELETE"}),
    ("POST", "/v1/keys/" + UNKNOWN_KEY_ID, {"PATCH", "DELETE"}),
    ("GET", "/v1/devices/dev_1", {"PUT", "DELETE"}),
    ("POST", "/v1/keys/" + UNKNOWN_KEY_ID + "/activity", {"GET", "HEAD"}),
    ("GET", "/v1/tasks/tsk_1/live-activity", {"PUT", "DELETE"}),
])
def test_wrong_method_is_405_with_allow(client, method, path, expected):
    response = client.call(method, path)
    assert_error(response, 405, METHOD_NOT_ALLOWED)
    assert allowed(response) == expected


def test_405_comes_before_the_credential_check(py):
    response = py.call("POST", "/v1/account", body="{", token="wrong")
    assert_error(response, 405, METHOD_NOT_ALLOWED)


def test_body_that_is_not_json_is_400_before_the_credential_check(client):
    assert_error(client.call("POST", "/v1/keys", body="{label:", token="wrong"), 400, NOT_JSON)


def test_body_that_is_not_json_is_400_with_a_valid_token(client):
    _, token = create_account(client)
    for body in ["{", "label", "{\"label\": \"a\",}", "{\"label\": 'a'}", "\"unterminated", "[1, 2"]:
        assert_error(client.call("POST", "/v1/keys", body=body, token=token), 400, NOT_JSON)


def test_credential_is_checked_before_validation(client):
    response = client.call("POST", "/v1/keys", json={"nonsense": 1})
    assert_error(response, 401, UNAUTHORIZED)


def test_forbidden_comes_before_validation(client):
    _, token = create_account(client)
    _, secret = create_key(client, token)
    response = client.call("POST", "/v1/keys", json={"nonsense": 1}, token=secret)
    assert_error(response, 403, KEY_FORBIDDEN)


def test_validation_with_a_valid_token(client):
    _, token = create_account(client)
    assert_validation(client.call("POST", "/v1/keys", json={"nonsense": 1}, token=token),
                      {"label": "Required.", "nonsense": "Unknown field."})


def test_head_works_where_get_does(client, py):
    _, token = create_account(py)
    create_key(py, token, "Head")
    for path in ["/v1/account", "/v1/keys"]:
        get = py.call("GET", path, token=token)
        head = client.call("HEAD", path, token=token)
        assert head.status == 200 == get.status
        assert head.body == b""
        assert head.header("Content-Type") == "application/json"
        assert head.header("Content-Length") == str(len(get.body))


def test_head_without_credential_is_401_without_body(client):
    response = client.call("HEAD", "/v1/keys")
    assert response.status == 401
    assert response.body == b""
    assert response.header("Content-Type") == "application/json"
