"""The contract's shapes and the steps most tests share (see /work/notes/api-behaviour.md)."""

import re
import time

ACCOUNT_ID = re.compile(r"^acc_[0-9a-hjkmnp-tv-z]{26}$")
KEY_ID = re.compile(r"^key_[0-9a-hjkmnp-tv-z]{26}$")
ACCOUNT_TOKEN = re.compile(r"^mca_[0-9A-Za-z]{43}$")
KEY_SECRET = re.compile(r"^mck_[0-9A-Za-z]{43}$")

KEY_FIELDS = {"id", "label", "prefix", "last4", "created_at", "last_used_at", "last_client",
              "last_host", "scopes", "counts"}
# Every scope, in the order a Key lists them (what a key made without `scopes` holds).
ALL_SCOPES = ["tasks:read", "tasks:write", "questions", "notify", "messages", "inbox"]
ZERO_COUNTS = {"todo": 0, "in_progress": 0, "done": 0, "cancelled": 0}

# A key ID that has the right shape but belongs to nobody.
UNKNOWN_KEY_ID = "key_" + "0" * 26
# Tokens with the right shape that the server never issued.
UNKNOWN_ACCOUNT_TOKEN = "mca_" + "A" * 43
UNKNOWN_KEY_SECRET = "mck_" + "A" * 43

MALFORMED = ("bad_request", "The request is malformed.")
NOT_JSON = ("bad_request", "The body is not valid JSON.")
UNAUTHORIZED = ("unauthorized", "The credential is missing or wrong.")
KEY_FORBIDDEN = ("forbidden", "An API key cannot use this route.")
NOT_FOUND = ("not_found", "Not found.")
KEY_NOT_FOUND = ("not_found", "Key not found.")
METHOD_NOT_ALLOWED = ("method_not_allowed", "Method not allowed.")
STORE_UNAVAILABLE = ("unavailable", "The store is unavailable. Try again in 1 seconds.")
KEY_LIMIT = ("conflict", "An account can have 20 keys.")


def assert_json_content_type(response) -> None:
    assert response.header("Content-Type") == "application/json", response


def assert_error(response, status: int, code_message: tuple[str, str], fields: dict | None = None) -> dict:
    """Exact status, Content-Type and body `{"error": {"code", "message"[, "fields"]}}`."""
    code, message = code_message
    assert response.status == status, response
    assert_json_content_type(response)
    expected = {"code": code, "message": message}
    if fields is not None:
        expected["fields"] = fields
    assert response.json == {"error": expected}, response
    return response.json


def assert_validation(response, fields: dict[str, str]) -> None:
    """422 validation_failed naming the fields sorted, with their messages."""
    names = ", ".join(sorted(fields))
    assert_error(response, 422, ("validation_failed", f"Invalid fields: {names}."), fields)


def assert_rate_limited(response, max_seconds: int) -> int:
    """429 with `Retry-After: N` (1..max_seconds) and the message naming the same N."""
    assert response.status == 429, response
    retry_after = response.header("Retry-After")
    assert retry_after is not None and retry_after.isdigit(), response
    seconds = int(retry_after)
    assert 1 <= seconds <= max_seconds, response
    assert_error(response, 429, ("rate_limited", f"Too many requests. Try again in {seconds} seconds."))
    return seconds


def assert_timestamp(value, near: float | None = None, slack: float = 120.0) -> None:
    """Unix seconds as a JSON number (the parser gives float or int)."""
    assert isinstance(value, (int, float)) and not isinstance(value, bool), value
    if near is not None:
        assert abs(value - near) <= slack, (value, near)


def assert_account(account: dict, live_activities: bool = True) -> None:
    assert set(account) == {"id", "created_at", "settings"}, account
    assert ACCOUNT_ID.match(account["id"]), account
    assert_timestamp(account["created_at"], near=time.time())
    assert account["settings"] == {"live_activities": live_activities}, account


def assert_new_key(key: dict, secret: str, label: str, scopes: list[str] = ALL_SCOPES) -> None:
    """A fresh key: its fields, prefix and last4 from the secret, nothing used yet."""
    assert set(key) == KEY_FIELDS, key
    assert KEY_ID.match(key["id"]), key
    assert KEY_SECRET.match(secret), secret
    assert key["label"] == label, key
    assert key["prefix"] == secret[:8], (key, secret[:8])
    assert key["last4"] == secret[-4:], key
    assert_timestamp(key["created_at"], near=time.time())
    assert key["last_used_at"] is None, key
    assert key["last_client"] is None, key
    assert key["last_host"] is None, key
    assert key["scopes"] == scopes, key
    assert key["counts"] == ZERO_COUNTS, key


def create_account(client, **kwargs) -> tuple[dict, str]:
    """POST /v1/accounts with `{}`; returns (account, token)."""
    response = client.call("POST", "/v1/accounts", json={}, **kwargs)
    assert response.status == 201, response
    body = response.json
    assert set(body) == {"account", "token"}, body
    assert ACCOUNT_TOKEN.match(body["token"]), body
    return body["account"], body["token"]


def create_key(client, token: str, label: str = "Cursor") -> tuple[dict, str]:
    """POST /v1/keys; returns (key, secret)."""
    response = client.call("POST", "/v1/keys", json={"label": label}, token=token)
    assert response.status == 201, response
    body = response.json
    assert set(body) == {"key", "secret"}, body
    return body["key"], body["secret"]


def list_keys(client, token: str) -> list[dict]:
    response = client.call("GET", "/v1/keys", token=token)
    assert response.status == 200, response
    assert set(response.json) == {"keys"}, response
    return response.json["keys"]


def find_key(client, token: str, key_id: str) -> dict:
    matches = [k for k in list_keys(client, token) if k["id"] == key_id]
    assert len(matches) == 1, (key_id, matches)
    return matches[0]


# Tasks (rest-api.md#task).
TASK_ID = re.compile(r"^tsk_[0-9a-hjkmnp-tv-z]{26}$")
TASK_FIELDS = {"id", "key_id", "title", "description", "status", "priority", "notify", "progress", "status_note",
               "source", "created_at", "updated_at", "completed_at", "seen_at", "host"}
TASK_NOT_FOUND = ("not_found", "Task not found.")
ACCOUNT_ONLY = "Not permitted with an API key."


def create_task(client, secret: str | None = None, token: str | None = None, headers: dict | None = None,
                **fields) -> dict:
    """POST /v1/tasks with the API key `secret` or the account `token`; returns the Task."""
    body = {"title": "Write tests", **fields}
    response = client.call("POST", "/v1/tasks", json=body, api_key=secret, token=token, headers=headers)
    assert response.status == 201, response
    assert_json_content_type(response)
    task = response.json
    assert set(task) == TASK_FIELDS, task
    assert TASK_ID.match(task["id"]), task
    return task


def list_tasks(client, query: str = "", secret: str | None = None, token: str | None = None) -> dict:
    response = client.call("GET", "/v1/tasks" + query, api_key=secret, token=token)
    assert response.status == 200, response
    assert set(response.json) == {"tasks", "next_cursor"}, response
    return response.json


def all_tasks(client, query: str = "", secret: str | None = None, token: str | None = None) -> list[dict]:
    """Every page of GET /v1/tasks, in order."""
    tasks: list[dict] = []
    page = list_tasks(client, query, secret=secret, token=token)
    while True:
        tasks += page["tasks"]
        if page["next_cursor"] is None:
            return tasks
        # A query that already names a cursor continues with the new one.
        base = "&".join(part for part in query.lstrip("?").split("&") if not part.startswith("cursor="))
        page = list_tasks(client, f"?{base}&cursor={page['next_cursor']}", secret=secret, token=token)
