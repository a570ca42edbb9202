"""POST /mcp refuses a message with a key twice in one object, at every level, with -32600
Invalid Request and a null id, and runs nothing of it: under 2025-06-18,
{"method":"tools/list","method":"tools/call",...} once ran delete_task (the last key won)."""

import json

from mcp_support import meta, tool, validate


def post(client, secret: str, text: str, version: str = "2025-06-18", headers: dict | None = None):
    sent = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json", "MCP-Protocol-Version": version}
    return client.call("POST", "/mcp", body=text.encode(), headers={**sent, **(headers or {})})


def assert_invalid_request(response, place: str) -> None:
    assert response.status == 400, response
    body = response.json
    assert body["error"]["code"] == -32600, body
    assert body["error"]["message"].endswith(f"more than once in {place}."), body
    assert "id" not in body or body["id"] is None, body
    validate(body, "JSONRPCErrorResponse")


def open_task_ids(client, secret: str) -> list[str]:
    listed = client.call("GET", "/v1/tasks", api_key=secret)
    assert listed.status == 200, listed
    return [task["id"] for task in listed.json["tasks"]]


def test_a_repeated_method_runs_nothing(client, agent):
    _, _, secret = agent
    created = tool(client, secret, "create_task", {"title": "Keep me"})["structuredContent"]
    params = json.dumps({"name": "delete_task", "arguments": {"task_id": created["id"]}})
    text = '{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":' + params + "}"
    assert_invalid_request(post(client, secret, text), "the message")
    assert created["id"] in open_task_ids(client, secret)


def test_a_repeated_key_is_refused_at_every_level(client, agent):
    _, _, secret = agent
    before = open_task_ids(client, secret)
    cases = [
        ('{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', "the message"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_agents","name":"create_task",'
         '"arguments":{"title":"x"}}}', "params"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task",'
         '"arguments":{"title":"a","title":"b"}}}', "params.arguments"),
        ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task",'
         '"arguments":{"title":"a","description":"b","x":{"k":1,"k":2}}}}', "a value of the message"),
    ]
    for text, place in cases:
        assert_invalid_request(post(client, secret, text), place)
    # 2026-07-28, headers and _meta as a client sends them.
    modern = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task",'
              '"arguments":{"title":"a","title":"b"},"_meta":' + json.dumps(meta()) + "}}")
    assert_invalid_request(post(client, secret, modern, version="2026-07-28",
                                headers={"Mcp-Method": "tools/call", "Mcp-Name": "create_task"}), "params.arguments")
    assert open_task_ids(client, secret) == before
