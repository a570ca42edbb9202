"""The activity log of a key (rest-api.md#activity-log): what has an entry, what it holds, and
GET /v1/keys/{key_id}/activity with limit and cursor.

No route of this server answers an API key with success yet (the tasks and questions come on
other branches), so the key's requests here are ones the contract refuses: a 403 on an
account route. A key's 429 needs a route the key may use (a 403 comes before a 429), so the
entries of a 429, a 422 and an `ok` answer are covered by the API tests (ActivityRecordingTests)
until those routes land.
"""

import re
import time

import pytest

from api import (
    KEY_FORBIDDEN, KEY_NOT_FOUND, UNKNOWN_KEY_ID, UNKNOWN_KEY_SECRET, assert_error, assert_json_content_type,
    assert_rate_limited, assert_timestamp, assert_validation, create_account, create_key,
)
from test_devices import BODY, PHONE

ENTRY_FIELDS = {"id", "at", "surface", "action", "status", "code", "message", "duration_ms", "client", "host"}
ACTIVITY_ID = re.compile(r"^act_[0-9a-hjkmnp-tv-z]{26}$")
LIMIT = "Must be an integer from 1 to 100."
CURSOR = "Must be the next_cursor of an earlier page."


def read_log(client, token, key_id, query=""):
    response = client.call("GET", f"/v1/keys/{key_id}/activity{query}", token=token)
    assert response.status == 200, response
    assert_json_content_type(response)
    assert set(response.json) == {"items", "next_cursor"}, response
    return response.json


def forbidden_call(client, secret, host=None):
    """One request of the key that the server answers 403 (an account route)."""
    headers = {"X-Relaydeck-Host": host} if host else None
    assert_error(client.call("GET", "/v1/keys", token=secret, headers=headers), 403, KEY_FORBIDDEN)


@pytest.fixture
def key(client):
    _, token = create_account(client)
    key, secret = create_key(client, token)
    return token, key["id"], secret


def test_a_new_key_has_an_empty_last_page(client, key):
    token, key_id, _ = key
    assert read_log(client, token, key_id) == {"items": [], "next_cursor": None}


def test_a_request_of_the_key_has_one_entry_with_every_field(client, key):
    token, key_id, secret = key
    before = time.time()
    forbidden_call(client, secret, host="  studio-mac ")
    items = read_log(client, token, key_id)["items"]
    assert len(items) == 1, items
    entry = items[0]
    assert set(entry) == ENTRY_FIELDS
    assert ACTIVITY_ID.match(entry["id"]), entry
    assert_timestamp(entry["at"], near=before, slack=5)
    assert isinstance(entry["duration_ms"], int) and 0 <= entry["duration_ms"] < 5000, entry
    assert entry == {**entry, "surface": "rest", "action": "GET /v1/keys", "status": "error", "code": "forbidden",
                     "message": "An API key cannot use this route.", "client": None, "host": "studio-mac"}


def test_the_action_names_the_route_never_the_id(client, key):
    token, key_id, secret = key
    response = client.call("PUT", f"/v1/devices/{PHONE}", json=BODY, token=secret)
    assert_error(response, 403, KEY_FORBIDDEN)
    log = client.call("GET", f"/v1/keys/{key_id}/activity", token=token)
    assert log.json["items"][0]["action"] == "PUT /v1/devices/{device_id}"
    assert PHONE not in log.text


def test_requests_that_have_no_entry(client, key, py):
    token, key_id, secret = key
    # An account token, a wrong key, no credential.
    assert client.call("GET", "/v1/keys", token=token).status == 200
    assert client.call("GET", "/v1/keys", token=UNKNOWN_KEY_SECRET).status == 401
    assert client.call("GET", "/v1/keys").status == 401
    # Refused before the credential is read: an unknown path, a body that is not JSON, a method.
    assert client.call("GET", "/v1/nothing", token=secret).status == 404
    assert client.call("PUT", f"/v1/devices/{PHONE}", body="{not json", token=secret).status == 400
    assert client.call("POST", f"/v1/keys/{key_id}/activity", token=secret).status == 405
    assert py.call("POST", "/v1/keys", body=b"x" * (1024 * 1024 + 10), token=secret).status == 413
    # Health.
    assert client.call("GET", "/health", token=secret).status == 200
    assert read_log(client, token, key_id)["items"] == []
    forbidden_call(client, secret)
    assert len(read_log(client, token, key_id)["items"]) == 1


def test_pages_are_newest_first_and_the_cursor_visits_each_entry_once(client, key):
    token, key_id, secret = key
    for _ in range(7):
        forbidden_call(client, secret)
    everything = read_log(client, token, key_id)
    assert len(everything["items"]) == 7 and everything["next_cursor"] is None
    seen, cursor, sizes = [], None, []
    while True:
        query = "?limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = read_log(client, token, key_id, query)
        sizes.append(len(page["items"]))
        seen += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert isinstance(cursor, str) and cursor, page
    assert sizes == [3, 3, 1]
    assert seen == everything["items"]
    ats = [entry["at"] for entry in seen]
    assert ats == sorted(ats, reverse=True)


@pytest.mark.parametrize("query, problems", [
    ("?limit=0", {"limit": LIMIT}),
    ("?limit=101", {"limit": LIMIT}),
    ("?limit=ten", {"limit": LIMIT}),
    ("?cursor=", {"cursor": CURSOR}),
    ("?cursor=abc", {"cursor": CURSOR}),
    ("?cursor=1760000000000.key_01jb2q7m3kabcdefghjkmnpqrs&limit=0", {"cursor": CURSOR, "limit": LIMIT}),
])
def test_a_bad_limit_or_cursor_is_422(client, key, query, problems):
    token, key_id, _ = key
    assert_validation(client.call("GET", f"/v1/keys/{key_id}/activity{query}", token=token), problems)


def test_another_accounts_key_or_an_unknown_key_is_404(client, key):
    token, key_id, secret = key
    forbidden_call(client, secret)
    _, other = create_account(client)
    assert_error(client.call("GET", f"/v1/keys/{key_id}/activity", token=other), 404, KEY_NOT_FOUND)
    assert_error(client.call("GET", f"/v1/keys/{UNKNOWN_KEY_ID}/activity", token=token), 404, KEY_NOT_FOUND)


def test_a_deleted_key_has_no_log(client, key):
    token, key_id, secret = key
    forbidden_call(client, secret)
    assert client.call("DELETE", f"/v1/keys/{key_id}", token=token).status == 204
    assert_error(client.call("GET", f"/v1/keys/{key_id}/activity", token=token), 404, KEY_NOT_FOUND)


def test_an_api_key_cannot_read_a_log(client, key):
    token, key_id, secret = key
    assert_error(client.call("GET", f"/v1/keys/{key_id}/activity", token=secret), 403, KEY_FORBIDDEN)
    assert read_log(client, token, key_id)["items"][0]["action"] == "GET /v1/keys/{key_id}/activity"


def test_a_log_keeps_the_newest_200(py, curl):
    _, token = create_account(py)
    key, secret = create_key(py, token)
    for _ in range(205):
        forbidden_call(py, secret)
    first = read_log(curl, token, key["id"], "?limit=100")
    second = read_log(curl, token, key["id"], f"?limit=100&cursor={first['next_cursor']}")
    assert len(first["items"]) == len(second["items"]) == 100
    assert second["next_cursor"] is None
