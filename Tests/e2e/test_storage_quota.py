"""The storage quota per account (ACCOUNT_STORAGE_LIMIT): a write that would take the
account's text past the limit is 409 on REST and a tool error with the REST code on MCP;
shrinking and deleting make room; the count survives a restart byte for byte."""

from api import assert_error, create_account, create_key
from http_clients import CurlClient, PythonClient
from mcp_support import tool

LIMIT = 64 * 1024
FULL = ("conflict", "The account's storage is full: its tasks, questions and messages may hold 64 KiB of text. "
        "Delete tasks or questions, or shorten their text, to make room.")
# Four tasks of a 4-byte title and a 16,380-byte description fill 64 KiB exactly.
FILL_DESCRIPTION = 16_380


def new_task(py, secret, title, description=""):
    return py.call("POST", "/v1/tasks", json={"title": title, "description": description}, api_key=secret)


def test_a_full_account_is_refused_on_rest_and_mcp_until_it_makes_room(start_server, tmp_path):
    server = start_server({"ACCOUNT_STORAGE_LIMIT": "64KiB"})
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    key, secret = create_key(py, token, "Claude Code")
    other, other_secret = create_key(py, token, "Codex")
    tasks = []
    for index in range(4):
        made = new_task(py, secret if index % 2 == 0 else other_secret, "Fill", "d" * FILL_DESCRIPTION)
        assert made.status == 201, made
        tasks.append((made.json["id"], secret if index % 2 == 0 else other_secret))

    # Full to the byte: every write that adds text is refused, by every key and the account.
    for client in (py, CurlClient(server.host, server.port)):
        assert_error(new_task(client, secret, "x"), 409, FULL)
        assert_error(client.call("POST", "/v1/tasks", json={"title": "x", "key_id": key["id"]}, token=token), 409, FULL)
        assert_error(client.call("POST", "/v1/questions", json={"prompt": "Go?"}, api_key=other_secret), 409, FULL)
        assert_error(client.call("POST", "/v1/messages", json={"key_id": key["id"], "text": "Hi"}, token=token), 409, FULL)
        assert_error(client.call("PATCH", f"/v1/tasks/{tasks[0][0]}", json={"title": "Fill!"}, api_key=secret), 409, FULL)
    for name, arguments in (("create_task", {"title": "x"}), ("ask_user", {"prompt": "Go?", "wait_seconds": 0}),
                            ("send_message", {"to": "Codex", "text": "Hi"}),
                            ("update_task", {"task_id": tasks[0][0], "status_note": "almost"})):
        result = tool(py, secret, name, arguments)
        assert result["isError"] is True, (name, result)
        assert result["_meta"]["relaydeck/code"] == "conflict", (name, result)
        assert result["content"][0]["text"].startswith(f"Error conflict: {FULL[1]}"), (name, result)

    # What changes no text still works, and so does shrinking.
    assert py.call("PATCH", f"/v1/tasks/{tasks[0][0]}", json={"status": "in_progress", "progress": 50},
                   api_key=secret).status == 200
    assert py.call("PATCH", f"/v1/tasks/{tasks[1][0]}", json={"description": ""}, api_key=other_secret).status == 200
    assert tool(py, secret, "create_task", {"title": "Room again"})["isError"] is False
    # Deleting makes room too.
    assert py.call("DELETE", f"/v1/tasks/{tasks[2][0]}", api_key=secret).status == 204
    assert new_task(py, secret, "More", "m" * 10_000).status == 201


def test_the_count_is_right_after_a_restart(start_server, tmp_path):
    env = {"ACCOUNT_STORAGE_LIMIT": str(LIMIT)}
    server = start_server(env)
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    _, secret = create_key(py, token)
    ids = [new_task(py, secret, "Fill", "d" * FILL_DESCRIPTION).json["id"] for _ in range(4)]
    assert py.call("PATCH", f"/v1/tasks/{ids[0]}", json={"description": ""}, api_key=secret).status == 200
    assert new_task(py, secret, "x").status == 201
    assert server.stop() == 0

    again = start_server(env)
    py = PythonClient(again.host, again.port)
    # 16,379 bytes are left: exactly that fits, one byte more does not.
    assert_error(new_task(py, secret, "y", "d" * 16_379), 409, FULL)
    made = new_task(py, secret, "y", "d" * 16_378)
    assert made.status == 201, made
    assert_error(new_task(py, secret, "z"), 409, FULL)
    assert py.call("DELETE", f"/v1/tasks/{made.json['id']}", api_key=secret).status == 204
    assert new_task(py, secret, "z").status == 201
