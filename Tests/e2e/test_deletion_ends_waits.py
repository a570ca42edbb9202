"""Deleting a key or an account ends its waiting calls at once (issue 26, defect 2): REST inbox
and question waits, MCP `check_inbox` and `get_answer`, are answered within 100 ms of the
DELETE's answer with the 401 a request with that credential gets now (on /mcp too:
`mcp.md#connect`). Another key's deletion, or a deletion that fails, ends nothing. The
account's own waiting calls are capped at 64, like a key's 32."""

import asyncio
import json
import select
import threading
import time

import pytest

from api import UNAUTHORIZED, UNKNOWN_KEY_ID, assert_error, assert_rate_limited, create_account, create_key
from mcp_support import MODERN, meta
from raw_http import RawConnection, request_bytes

# The bound from the DELETE's answer to the waiting call's.
BOUND = 0.100
# Long enough for the server to have parked a call sent just before.
SETTLE = 0.3


def setup(client):
    _, token = create_account(client)
    key, secret = create_key(client, token)
    return token, key["id"], secret


def rest_wait(target: str, credential: str) -> bytes:
    return request_bytes("GET", target, None, {"Authorization": f"Bearer {credential}"})


def mcp_call(tool: str, arguments: dict, secret: str) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments, "_meta": meta()}})
    return request_bytes("POST", "/mcp", body, {"Authorization": f"Bearer {secret}", "Content-Type": "application/json",
                                                "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call",
                                                "Mcp-Name": tool})


def park(server, request: bytes) -> RawConnection:
    connection = RawConnection(server.port, timeout=30)
    connection.send(request)
    return connection


def still_waiting(connection: RawConnection, seconds: float = SETTLE) -> bool:
    readable, _, _ = select.select([connection.sock], [], [], seconds)
    return not readable


def web_session(server, client, token: str) -> str:
    """A session cookie of the account (the web console's sign-in with its token)."""
    origin = f"http://{server.host}:{server.port}"
    response = client.call("POST", "/web/session", json={"account_token": token}, headers={"Origin": origin})
    assert response.status == 201, response
    return response.header("Set-Cookie").split(";", 1)[0]


def session_wait(target: str, cookie: str) -> bytes:
    return request_bytes("GET", target, None, {"Cookie": cookie})


def ask(client, secret: str) -> str:
    response = client.call("POST", "/v1/questions", json={"prompt": "Deploy now?"}, token=secret)
    assert response.status == 201, response
    return response.json["id"]


def fresh(server, request: bytes):
    with RawConnection(server.port) as connection:
        connection.send(request)
        return connection.read_response()


def expect_ended(server, waiters: list[tuple[RawConnection, bytes]], deleted_at: float) -> None:
    """Each waiting call answered within the bound with the 401 a new request gets."""
    answers = []
    for connection, request in waiters:
        answers.append((connection.read_response(timeout=5), time.monotonic() - deleted_at, request))
    for response, elapsed, request in answers:
        assert elapsed < BOUND, (elapsed, response)
        assert_error(response, 401, UNAUTHORIZED)
        now = fresh(server, request)
        assert (now.status, now.body) == (response.status, response.body)
    for connection, _ in waiters:
        connection.close()


def test_deleting_a_key_ends_its_rest_waits_at_once_with_401(server, py):
    token, key_id, secret = setup(py)
    question = ask(py, secret)
    requests = [rest_wait("/v1/inbox?wait=50", secret), rest_wait(f"/v1/questions/{question}?wait=50", secret)]
    waiters = [(park(server, r), r) for r in requests]
    time.sleep(SETTLE)
    assert all(still_waiting(c, 0) for c, _ in waiters)
    assert py.call("DELETE", f"/v1/keys/{key_id}", token=token).status == 204
    expect_ended(server, waiters, time.monotonic())


def test_deleting_a_key_ends_its_mcp_waits_with_the_transports_answer_to_a_wrong_key(server, py):
    token, key_id, secret = setup(py)
    question = ask(py, secret)
    requests = [mcp_call("check_inbox", {"wait_seconds": 50}, secret),
                mcp_call("get_answer", {"question_id": question, "wait_seconds": 50}, secret)]
    waiters = [(park(server, r), r) for r in requests]
    time.sleep(SETTLE)
    assert all(still_waiting(c, 0) for c, _ in waiters)
    assert py.call("DELETE", f"/v1/keys/{key_id}", token=token).status == 204
    # `mcp.md#connect`: no API key, or a wrong one, is 401 with the REST error body.
    expect_ended(server, waiters, time.monotonic())


def test_deleting_the_account_ends_the_waits_of_its_token_and_every_key(server, py):
    token, _, secret = setup(py)
    _, other = create_key(py, token, "Codex")
    question = ask(py, secret)
    cookie = web_session(server, py, token)
    requests = [rest_wait(f"/v1/questions/{question}?wait=50", token), rest_wait("/v1/inbox?wait=50", secret),
                session_wait(f"/v1/questions/{question}?wait=50", cookie),
                mcp_call("check_inbox", {"wait_seconds": 50}, other),
                mcp_call("get_answer", {"question_id": question, "wait_seconds": 50}, secret)]
    waiters = [(park(server, r), r) for r in requests]
    _, stranger_key, stranger = setup(py)
    strangers_wait = park(server, rest_wait("/v1/inbox?wait=50", stranger))
    time.sleep(SETTLE)
    assert py.call("DELETE", "/v1/account", token=token).status == 204
    expect_ended(server, waiters, time.monotonic())
    assert still_waiting(strangers_wait)
    strangers_wait.close()


def test_another_keys_deletion_or_a_failed_deletion_ends_nothing(server, py):
    token, key_id, secret = setup(py)
    other, _ = create_key(py, token, "Codex")
    waiting = park(server, rest_wait("/v1/inbox?wait=50", secret))
    time.sleep(SETTLE)
    assert py.call("DELETE", f"/v1/keys/{other['id']}", token=token).status == 204
    assert still_waiting(waiting)
    # Deletions that fail: a key that does not exist, a key of another account, the account
    # deletion from a key (403).
    _, stranger = create_account(py)
    assert py.call("DELETE", f"/v1/keys/{UNKNOWN_KEY_ID}", token=token).status == 404
    assert py.call("DELETE", f"/v1/keys/{key_id}", token=stranger).status == 404
    assert py.call("DELETE", "/v1/account", token=secret).status == 403
    assert still_waiting(waiting)
    sent = py.call("POST", "/v1/messages", json={"key_id": key_id, "text": "Still here."}, token=token)
    assert sent.status == 201, sent
    response = waiting.read_response(timeout=5)
    assert response.status == 200 and response.json["items"][0]["text"] == "Still here.", response
    waiting.close()


def test_the_accounts_own_waiting_calls_are_capped_at_64(server, py):
    token, _, secret = setup(py)
    question = ask(py, secret)
    target = f"/v1/questions/{question}?wait=50"
    # The token and the web sessions count together.
    cookie = web_session(server, py, token)
    waiters = [park(server, rest_wait(target, token)) for _ in range(32)]
    waiters += [park(server, session_wait(target, cookie)) for _ in range(32)]
    time.sleep(SETTLE * 2)
    assert all(still_waiting(c, 0) for c in waiters)
    for over in (py.call("GET", target, token=token), py.call("GET", target, headers={"Cookie": cookie})):
        assert_rate_limited(over, 1)
        assert over.header("Retry-After") == "1"
    # `wait=0` is not counted, and a key of the account has its own 32.
    assert py.call("GET", f"/v1/questions/{question}?wait=0", token=token).status == 200
    keys_wait = park(server, rest_wait(target, secret))
    # A call that ends frees its place.
    waiters.pop().close()
    time.sleep(SETTLE)
    again = park(server, rest_wait(target, token))
    assert still_waiting(again) and still_waiting(keys_wait, 0)
    for connection in [*waiters, again, keys_wait]:
        connection.close()


mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402


def test_the_official_sdk_sees_its_waiting_check_inbox_end_when_its_key_is_deleted(server, py):
    token, key_id, secret = setup(py)
    url = f"http://{server.host}:{server.port}/mcp"
    deleted_at: list[float] = []

    def delete_soon():
        time.sleep(1.0)
        assert py.call("DELETE", f"/v1/keys/{key_id}", token=token).status == 204
        deleted_at.append(time.monotonic())

    async def run():
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"})
        async with Client(streamable_http_client(url, http_client=http), mode="auto",
                          client_info=Implementation(name="sdk-test", version="2.0")) as client:
            deleter = threading.Thread(target=delete_soon)
            deleter.start()
            try:
                with pytest.raises(Exception) as raised:
                    await client.call_tool("check_inbox", {"wait_seconds": 50})
                ended_at = time.monotonic()
            finally:
                deleter.join()
            # The SDK sees what it sees for any call with the deleted key now.
            with pytest.raises(Exception) as fresh_call:
                await client.call_tool("check_inbox", {"wait_seconds": 0})
            return ended_at, raised.value, fresh_call.value

    ended_at, error, fresh_error = asyncio.run(asyncio.wait_for(run(), timeout=20))
    assert deleted_at and ended_at - deleted_at[0] < 1.0, (ended_at - deleted_at[0], error)
    assert type(error) is type(fresh_error) and str(error) == str(fresh_error), (error, fresh_error)
