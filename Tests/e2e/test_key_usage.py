"""What a request of an API key records on the key: last_used_at and last_host
(overview.md#host-name, rest-api.md#key). The key routes of this issue all answer an API key
403, and such a request still counts as a use."""

import time

import pytest

from api import KEY_FORBIDDEN, assert_error, assert_timestamp, create_account, create_key, find_key


def use_key(client, secret, host=None, via="authorization"):
    headers = {} if host is None else {"X-Relaydeck-Host": host}
    credential = {"token": secret} if via == "authorization" else {"api_key": secret}
    assert_error(client.call("GET", "/v1/keys", headers=headers, **credential), 403, KEY_FORBIDDEN)


@pytest.fixture
def key(py):
    _, token = create_account(py)
    key, secret = create_key(py, token, "agent")
    return token, key, secret


def test_last_used_at_is_set_on_first_use(client, py, key):
    token, created, secret = key
    assert find_key(py, token, created["id"])["last_used_at"] is None
    before = time.time()
    use_key(client, secret)
    used = find_key(py, token, created["id"])
    assert_timestamp(used["last_used_at"], near=before, slack=30)
    assert used["last_used_at"] >= created["created_at"]
    assert {**used, "last_used_at": None} == created


def test_last_used_at_does_not_change_within_the_minute(client, py, key):
    token, created, secret = key
    use_key(client, secret, via="x-api-key")
    first = find_key(py, token, created["id"])["last_used_at"]
    assert first is not None
    time.sleep(1.1)
    use_key(client, secret)
    use_key(client, secret, via="x-api-key")
    assert find_key(py, token, created["id"])["last_used_at"] == first


def test_account_token_requests_do_not_touch_the_key(client, py, key):
    token, created, _ = key
    client.call("GET", "/v1/keys", token=token, headers={"X-Relaydeck-Host": "studio-mac"})
    client.call("PATCH", f"/v1/keys/{created['id']}", json={}, token=token, headers={"X-Relaydeck-Host": "x"})
    assert find_key(py, token, created["id"]) == created


def test_unknown_credential_touches_no_key(client, py, key):
    token, created, secret = key
    wrong = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    response = client.call("GET", "/v1/keys", token=wrong, headers={"X-Relaydeck-Host": "studio-mac"})
    assert response.status == 401
    assert find_key(py, token, created["id"]) == created


@pytest.mark.parametrize("sent, stored", [
    ("studio-mac", "studio-mac"),
    ("  studio-mac  ", "studio-mac"),
    ("build box 7", "build box 7"),
    ("a", "a"),
    ("h" * 64, "h" * 64),
    ("  " + "h" * 64 + "  ", "h" * 64),
    ("~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./"),
])
def test_valid_host_becomes_last_host(client, py, key, sent, stored):
    token, created, secret = key
    use_key(client, secret, host=sent)
    assert find_key(py, token, created["id"])["last_host"] == stored


@pytest.mark.parametrize("sent", [
    "h" * 65,
    "",
    "   ",
    "caf\u00e9",
    "tab\there",
])
def test_invalid_host_is_ignored(py, key, sent):
    token, created, secret = key
    use_key(py, secret, host="first-host")
    # http.client sends exactly what it is given, so the bytes reach the server as written.
    response = py.call("GET", "/v1/keys", token=secret,
                       headers={"X-Relaydeck-Host": sent.encode("utf-8").decode("latin-1")})
    assert_error(response, 403, KEY_FORBIDDEN)
    assert find_key(py, token, created["id"])["last_host"] == "first-host"


def test_invalid_host_on_a_fresh_key_leaves_it_null(py, key):
    token, created, secret = key
    use_key(py, secret, host="x" * 100)
    used = find_key(py, token, created["id"])
    assert used["last_host"] is None
    assert used["last_used_at"] is not None


def test_request_without_host_keeps_last_host(client, py, key):
    token, created, secret = key
    use_key(client, secret, host="laptop")
    use_key(client, secret)
    use_key(client, secret, via="x-api-key")
    assert find_key(py, token, created["id"])["last_host"] == "laptop"


def test_last_host_follows_the_latest_valid_header(client, py, key):
    token, created, secret = key
    use_key(client, secret, host="first")
    use_key(client, secret, host="second")
    assert find_key(py, token, created["id"])["last_host"] == "second"
    use_key(client, secret, host="x" * 65)
    assert find_key(py, token, created["id"])["last_host"] == "second"


def test_host_of_one_key_does_not_reach_another(py, key):
    token, created, secret = key
    other, other_secret = create_key(py, token, "other")
    use_key(py, secret, host="only-mine")
    assert find_key(py, token, other["id"])["last_host"] is None
    assert find_key(py, token, other["id"])["last_used_at"] is None
