"""Security: every route of the REST surface (and /mcp) tried with no credential, with a
credential that does not exist, with the wrong credential type, and with the ids of another
key and of another account. Each gets the contract's 401, 403 or 404 (`overview.md`,
`rest-api.md`), nothing changes, and no secret issued during the run is in the server's log."""

import json
import re

import pytest

from conftest import RELAXED_LIMITS
from server_process import SECRET_PATTERN, ServerProcess
from torture_support import KeepAlive, new_account

UNAUTHORIZED = {"code": "unauthorized", "message": "The credential is missing or wrong."}
FOR_KEY = {"code": "forbidden", "message": "An API key cannot use this route."}
FOR_ACCOUNT = {"code": "forbidden", "message": "An account token cannot use this route."}
UNKNOWN_TOKEN = "mca_" + "B" * 43
UNKNOWN_SECRET = "mck_" + "B" * 43
DEVICE_IDS = {"A": "dev_00000000-0000-4000-8000-00000000000a", "B": "dev_00000000-0000-4000-8000-00000000000b"}
DEVICE = {"platform": "ios", "model": "iPhone18,1", "os_version": "27.0", "app_version": "1.0 (1)",
          "apns_environment": "production"}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Account A with keys a1 and a2, account B with key b1; a task, a question and a device of each."""
    server = ServerProcess(tmp_path_factory.mktemp("security"), RELAXED_LIMITS).start()
    client = KeepAlive(server.port)
    w = {"server": server, "client": client}
    try:
        build_world(w, client)
    except BaseException:
        server.teardown()  # a failed set-up must not leave the server running
        raise
    yield w
    client.close()
    server.teardown()


def build_world(w, client):
    for name, keys in (("A", 2), ("B", 1)):
        token, made = new_account(client, keys)
        w[f"t{name}"] = token
        for n, (key_id, secret) in enumerate(made, 1):
            tag = f"{name.lower()}{n}"
            w[f"k{tag}"], w[f"s{tag}"] = key_id, secret
            w[f"task_{tag}"] = client.json("POST", "/v1/tasks", {"title": f"task of {tag}"}, key=secret, expect=201)["id"]
            w[f"q_{tag}"] = client.json("POST", "/v1/questions", {"prompt": f"question of {tag}?"}, key=secret,
                                        expect=201)["id"]
        device_id = DEVICE_IDS[name]
        status, _, body = client.call("PUT", f"/v1/devices/{device_id}", DEVICE, token=token)
        assert status == 200, body


# (method, path template, body, who may call: "account", "key" or "both")
ROUTES = [
    ("GET", "/v1/account", None, "account"),
    ("PATCH", "/v1/account", {"settings": {"live_activities": False}}, "account"),
    ("DELETE", "/v1/account", None, "account"),
    ("GET", "/v1/keys", None, "account"),
    ("POST", "/v1/keys", {"label": "x"}, "account"),
    ("PATCH", "/v1/keys/{key}", {"label": "stolen"}, "account"),
    ("DELETE", "/v1/keys/{key}", None, "account"),
    ("GET", "/v1/keys/{key}/activity", None, "account"),
    ("GET", "/v1/keys/{key}/inbox", None, "account"),
    ("PUT", "/v1/devices/{device}", DEVICE, "account"),
    ("DELETE", "/v1/devices/{device}", None, "account"),
    ("PUT", "/v1/tasks/{task}/live-activity", {"device_id": DEVICE_IDS["A"], "push_token": "ef" * 32}, "account"),
    ("DELETE", "/v1/tasks/{task}/live-activity", {"device_id": DEVICE_IDS["A"]}, "account"),
    ("GET", "/v1/events", None, "account"),
    ("POST", "/v1/questions/{question}/answer", {"answer": "Yes"}, "account"),
    ("GET", "/v1/tasks", None, "both"),
    ("POST", "/v1/tasks", {"title": "x"}, "both"),
    ("GET", "/v1/tasks/{task}", None, "both"),
    ("PATCH", "/v1/tasks/{task}", {"title": "stolen"}, "both"),
    ("DELETE", "/v1/tasks/{task}", None, "both"),
    ("POST", "/v1/messages", {"to": "{key}", "key_id": "{key}", "text": "hi"}, "both"),
    ("GET", "/v1/questions", None, "both"),
    ("GET", "/v1/questions/{question}", None, "both"),
    ("GET", "/v1/inbox", None, "key"),
    ("GET", "/v1/agents", None, "key"),
    ("POST", "/v1/questions", {"prompt": "x?"}, "key"),
    ("DELETE", "/v1/questions/{question}", None, "key"),
]


def fill(template, ids):
    if template is None:
        return None
    text = json.dumps(template) if not isinstance(template, str) else template
    for name, value in ids.items():
        text = text.replace("{" + name + "}", value)
    return json.loads(text) if not isinstance(template, str) else text


def call(w, method, path, body, token=None, key=None):
    if isinstance(body, dict) and {"to", "key_id"} <= body.keys():
        # A message: the account names `key_id`, a key names `to`.
        body = {k: v for k, v in body.items() if k != ("to" if token else "key_id")}
    status, headers, data = w["client"].call(method, path, None if body is None else body, token=token, key=key)
    return status, (json.loads(data) if data and headers.get("content-type") == "application/json" else data)


def own_ids(w, tag):
    return {"key": w[f"k{tag}"], "task": w[f"task_{tag}"], "question": w[f"q_{tag}"], "device": DEVICE_IDS[tag[0].upper()]}


@pytest.mark.parametrize("method,path,body,who", ROUTES, ids=[f"{m} {p}" for m, p, _, _ in ROUTES])
def test_no_credential_and_unknown_credentials_are_401(world, method, path, body, who):
    ids = own_ids(world, "a1")
    target, payload = fill(path, ids), fill(body, ids)
    # (A key's secret in `Authorization: Bearer` is that key: overview.md#authentication.)
    for credentials in ({}, {"token": UNKNOWN_TOKEN}, {"key": UNKNOWN_SECRET}, {"token": UNKNOWN_SECRET},
                        {"key": world["tA"]}):
        status, answer = call(world, method, target, payload, **credentials)
        assert (status, answer) == (401, {"error": UNAUTHORIZED}), (credentials.keys(), status, answer)


@pytest.mark.parametrize("method,path,body,who", [r for r in ROUTES if r[3] != "both"],
                         ids=[f"{m} {p}" for m, p, _, w in ROUTES if w != "both"])
def test_the_wrong_credential_type_is_403(world, method, path, body, who):
    ids = own_ids(world, "a1")
    target, payload = fill(path, ids), fill(body, ids)
    if who == "account":
        assert call(world, method, target, payload, key=world["sa1"]) == (403, {"error": FOR_KEY})
    else:
        assert call(world, method, target, payload, token=world["tA"]) == (403, {"error": FOR_ACCOUNT})


def with_ids(w, tag):
    """The routes that name an id, filled with the ids of `tag`."""
    ids = own_ids(w, tag)
    named = re.compile(r"\{(key|task|question|device)\}")
    return [(m, fill(p, ids), fill(b, ids), who) for m, p, b, who in ROUTES if named.search(p + json.dumps(b))]


NOT_FOUND_CODES = {"not_found"}


def test_another_accounts_ids_are_404_for_the_token_and_the_key(world):
    for method, target, payload, who in with_ids(world, "b1"):
        if target.startswith("/v1/devices/"):
            continue  # a device ID is the client's own name, per account (PUT makes A's own)
        credentials = []
        if who in ("account", "both"):
            credentials.append({"token": world["tA"]})
        if who in ("key", "both"):
            credentials.append({"key": world["sa1"]})
        for credential in credentials:
            status, answer = call(world, method, target, payload, **credential)
            assert status == 404 and answer["error"]["code"] in NOT_FOUND_CODES, (method, target, credential.keys(),
                                                                                 status, answer)


def test_another_keys_ids_are_404_for_a_key(world):
    for method, target, payload, who in with_ids(world, "a2"):
        if who not in ("key", "both") or target == "/v1/messages":
            continue  # a key may send a message to another key of its account
        status, answer = call(world, method, target, payload, key=world["sa1"])
        assert status == 404 and answer["error"]["code"] in NOT_FOUND_CODES, (method, target, status, answer)


def test_nothing_changed_and_no_secret_is_in_the_log(world):
    client = world["client"]
    for tag, token, secret in (("a2", "tA", "sa2"), ("b1", "tB", "sb1")):
        task = client.json("GET", f"/v1/tasks/{world['task_' + tag]}", key=world[secret], expect=200)
        assert task["title"] == f"task of {tag}", task
        question = client.json("GET", f"/v1/questions/{world['q_' + tag]}", key=world[secret], expect=200)
        assert question["status"] == "pending", question
    assert client.json("GET", "/v1/account", token=world["tB"], expect=200)
    labels = [k["label"] for k in client.json("GET", "/v1/keys", token=world["tB"], expect=200)["keys"]]
    assert labels == ["agent 0"], labels
    # The module's server log, now: no secret issued in this run, nothing shaped like one.
    raw = world["server"].log_path.read_bytes()
    for name in ("tA", "tB", "sa1", "sa2", "sb1"):
        assert world[name].encode() not in raw, name
    assert not SECRET_PATTERN.findall(raw)
