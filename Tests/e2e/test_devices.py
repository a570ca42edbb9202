"""PUT/DELETE /v1/devices/{device_id} (rest-api.md#devices, rest-api.md#device)."""

import time

import pytest

from api import UNAUTHORIZED, KEY_FORBIDDEN, assert_error, assert_json_content_type, assert_timestamp, \
    assert_validation, create_account, create_key
from stored_rows import rows

PHONE = "dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b"
TABLET = "dev_00000000-0000-4000-8000-000000000001"
TOKEN = "a1b2" * 16
BODY = {"platform": "ios", "model": "iPhone18,1", "os_version": "27.0", "app_version": "1.0 (1)",
        "apns_environment": "production"}
DEVICE_FIELDS = {"id", "platform", "model", "os_version", "app_version", "apns_environment", "apns_token",
                 "push_to_start_token", "widget_push_token", "updated_at"}
HEX = "Must be hexadecimal text of 16 to 512 digits, whole bytes."
BAD_ID = "Must be dev_ plus a lowercase UUID."
DEVICE_NOT_FOUND = ("not_found", "Device not found.")
DEVICE_LIMIT = ("conflict", "An account can have 20 devices.")


def device_id(n: int) -> str:
    return f"dev_00000000-0000-4000-8000-{n:012d}"


def put_device(client, token, device=PHONE, **fields):
    return client.call("PUT", f"/v1/devices/{device}", json={**BODY, **fields}, token=token)


def stored_device(server, account_id, device):
    """The row as the store has it, read beside the running server."""
    found = rows(server.env, "SELECT * FROM devices WHERE account_id = ? AND id = ?", (account_id, device))
    return found[0] if found else None


def test_put_makes_the_device_and_repeats_its_fields(client):
    _, token = create_account(client)
    before = time.time()
    response = put_device(client, token, apns_token=TOKEN.upper(), widget_push_token=None)
    assert response.status == 200, response
    assert_json_content_type(response)
    assert response.header("Cache-Control") == "no-store"
    body = response.json
    assert set(body) == DEVICE_FIELDS
    assert_timestamp(body["updated_at"], near=before)
    assert body == {**BODY, "id": PHONE, "apns_token": TOKEN, "push_to_start_token": None,
                    "widget_push_token": None, "updated_at": body["updated_at"]}


def test_a_second_put_replaces_and_drops_the_tokens_it_leaves_out(client):
    _, token = create_account(client)
    put_device(client, token, apns_token=TOKEN, push_to_start_token="cc" * 40, widget_push_token="dd" * 40)
    response = put_device(client, token, platform="watchos", model="Watch7,1", apns_environment="sandbox")
    assert response.status == 200, response
    assert response.json["platform"] == "watchos" and response.json["apns_environment"] == "sandbox"
    assert [response.json[t] for t in ("apns_token", "push_to_start_token", "widget_push_token")] == [None] * 3


@pytest.mark.parametrize("fields, problems", [
    ({"platform": "android"}, {"platform": "Must be one of: ios, ipados, watchos."}),
    ({"apns_environment": "development"}, {"apns_environment": "Must be one of: production, sandbox."}),
    ({"model": ""}, {"model": "Must be 1 to 64 characters."}),
    ({"os_version": "9" * 65}, {"os_version": "Must be 1 to 64 characters."}),
    ({"app_version": 1}, {"app_version": "Must be a string."}),
    ({"apns_token": "xyz"}, {"apns_token": HEX}),
    ({"apns_token": "abc"}, {"apns_token": HEX}),
    ({"push_to_start_token": "a" * 514}, {"push_to_start_token": HEX}),
    ({"widget_push_token": 12}, {"widget_push_token": HEX}),
    ({"id": PHONE, "updated_at": 1}, {"id": "Unknown field.", "updated_at": "Unknown field."}),
])
def test_bad_fields_are_422_all_at_once(client, fields, problems):
    _, token = create_account(client)
    assert_validation(put_device(client, token, **fields), problems)


def test_missing_fields_and_a_bad_id_are_one_422(client):
    _, token = create_account(client)
    response = client.call("PUT", "/v1/devices/dev_1", json={}, token=token)
    assert_validation(response, {"platform": "Required.", "model": "Required.", "os_version": "Required.",
                                 "app_version": "Required.", "apns_environment": "Required.", "device_id": BAD_ID})


@pytest.mark.parametrize("device", ["dev_3F2B8C1E-5A4D-4E6F-9B7A-1C2D3E4F5A6B", "dev_3f2b8c1e5a4d4e6f9b7a1c2d3e4f5a6b",
                                    "3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b", "dev_x"])
def test_a_malformed_device_id_is_422_on_device_id(client, device):
    _, token = create_account(client)
    assert_validation(put_device(client, token, device), {"device_id": BAD_ID})


def test_twenty_devices_then_409_and_replacing_is_fine(py, curl):
    _, token = create_account(py)
    for n in range(20):
        assert put_device(py, token, device_id(n)).status == 200
    assert_error(put_device(curl, token, PHONE), 409, DEVICE_LIMIT)
    assert put_device(curl, token, device_id(7), model="iPad").status == 200
    assert py.call("DELETE", f"/v1/devices/{device_id(3)}", token=token).status == 204
    assert put_device(py, token, PHONE).status == 200
    # Another account has its own twenty.
    _, other = create_account(py)
    assert put_device(py, other, PHONE).status == 200


def test_an_older_registration_of_the_same_apns_token_loses_all_its_tokens(py, server):
    account, token = create_account(py)
    other_account, other = create_account(py)
    put_device(py, token, PHONE, apns_token=TOKEN, push_to_start_token="cc" * 40, widget_push_token="dd" * 40)
    assert put_device(py, token, TABLET, apns_token=TOKEN).json["apns_token"] == TOKEN
    older = stored_device(server, account["id"], PHONE)
    assert [older[t] for t in ("apns_token", "push_to_start_token", "widget_push_token")] == [None] * 3
    # One token belongs to one registration across accounts too (the app installed again).
    put_device(py, other, PHONE, apns_token=TOKEN.upper())
    assert stored_device(server, account["id"], TABLET)["apns_token"] is None
    assert stored_device(server, other_account["id"], PHONE)["apns_token"] == TOKEN


def test_delete_is_204_and_an_unknown_device_is_404(client):
    _, token = create_account(client)
    put_device(client, token)
    response = client.call("DELETE", f"/v1/devices/{PHONE}", token=token)
    assert response.status == 204, response
    assert response.body == b""
    assert_error(client.call("DELETE", f"/v1/devices/{PHONE}", token=token), 404, DEVICE_NOT_FOUND)
    assert_error(client.call("DELETE", "/v1/devices/dev_1", token=token), 404, DEVICE_NOT_FOUND)


def test_an_account_never_touches_another_accounts_device(client, server):
    account, token = create_account(client)
    _, other = create_account(client)
    put_device(client, token, apns_token=TOKEN)
    assert_error(client.call("DELETE", f"/v1/devices/{PHONE}", token=other), 404, DEVICE_NOT_FOUND)
    # The same ID under the other account is the other account's own device.
    assert put_device(client, other, model="Other").json["apns_token"] is None
    assert stored_device(server, account["id"], PHONE)["model"] == "iPhone18,1"


def test_an_api_key_is_forbidden_and_a_deleted_account_is_unauthorized(client):
    _, token = create_account(client)
    _, secret = create_key(client, token)
    assert_error(put_device(client, secret), 403, KEY_FORBIDDEN)
    assert_error(client.call("DELETE", f"/v1/devices/{PHONE}", token=secret), 403, KEY_FORBIDDEN)
    put_device(client, token)
    assert client.call("DELETE", "/v1/account", token=token).status == 204
    assert_error(put_device(client, token), 401, UNAUTHORIZED)
    assert_error(client.call("DELETE", f"/v1/devices/{PHONE}", token=token), 401, UNAUTHORIZED)


def test_get_of_a_device_is_405(client):
    _, token = create_account(client)
    response = client.call("GET", f"/v1/devices/{PHONE}", token=token)
    assert response.status == 405, response
    assert set(response.header("Allow").split(", ")) == {"PUT", "DELETE"}


def test_get_devices_lists_the_accounts_devices_oldest_first(client):
    # Not in rest-api.md: the web console's list of devices (issue 13).
    _, token = create_account(client)
    _, other = create_account(client)
    listed = client.call("GET", "/v1/devices", token=token)
    assert listed.status == 200 and listed.json == {"devices": []}, listed
    assert_json_content_type(listed)
    phone = put_device(client, token, apns_token=TOKEN).json
    tablet = put_device(client, token, device=TABLET, platform="ipados").json
    put_device(client, other)
    assert client.call("GET", "/v1/devices", token=token).json == {"devices": [phone, tablet]}
    assert client.call("DELETE", f"/v1/devices/{PHONE}", token=token).status == 204
    assert client.call("GET", "/v1/devices", token=token).json == {"devices": [tablet]}


def test_get_devices_is_for_the_account_only(client):
    _, token = create_account(client)
    _, secret = create_key(client, token)
    assert_error(client.call("GET", "/v1/devices", token=secret), 403, KEY_FORBIDDEN)
    assert_error(client.call("GET", "/v1/devices"), 401, UNAUTHORIZED)
