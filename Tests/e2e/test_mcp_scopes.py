"""A key's scopes on POST /mcp (issue 24), through raw HTTP with every message validated
against the specification's JSON Schemas, and through the official MCP Python SDK in both of
its modes: `tools/list` and the resource lists show only what the key may use, a tool it may
not call is a tool error naming the scope, and a change of scopes shows at the next request."""

import asyncio

import pytest

from api import create_account
from http_clients import PythonClient
from mcp_support import LEGACY, MODERN, legacy, modern, tool, validate

TOOLS = ["create_task", "list_tasks", "get_task", "update_task", "delete_task", "notify_user", "ask_user",
         "get_answer", "check_inbox", "send_message", "list_agents"]
SCOPE_OF = {"create_task": "tasks:write", "list_tasks": "tasks:read", "get_task": "tasks:read",
            "update_task": "tasks:write", "delete_task": "tasks:write", "notify_user": "notify",
            "ask_user": "questions", "get_answer": "questions", "check_inbox": "inbox",
            "send_message": "messages", "list_agents": "messages"}


def refusal(scope: str, what: str) -> str:
    return f"The key lacks the scope {scope}, which {what} needs. The person can give the key this scope in the web console."


def key_with(client, token: str, scopes: list[str]) -> tuple[str, str]:
    response = client.call("POST", "/v1/keys", json={"label": "Agent", "scopes": scopes}, token=token)
    assert response.status == 201, response
    return response.json["key"]["id"], response.json["secret"]


@pytest.mark.parametrize("scopes", [["tasks:read", "inbox"], ["notify"], ["questions", "messages"], ["tasks:write"]])
def test_tools_list_shows_only_the_tools_of_the_keys_scopes_in_every_revision(client, scopes):
    _, token = create_account(client)
    _, secret = key_with(client, token, scopes)
    expected = [name for name in TOOLS if SCOPE_OF[name] in scopes]
    response = modern(client, secret, "tools/list")
    validate(response.json, "JSONRPCResultResponse")
    validate(response.json["result"], "ListToolsResult")
    result = response.json["result"]
    assert [t["name"] for t in result["tools"]] == expected
    assert result["cacheScope"] == "private" and result["ttlMs"] == 60_000
    for version in LEGACY:
        old = legacy(client, secret, "tools/list", version=version)
        validate(old.json, "JSONRPCResponse", version)
        validate(old.json["result"], "ListToolsResult", version)
        assert [t["name"] for t in old.json["result"]["tools"]] == expected


def test_a_tool_the_key_may_not_call_is_a_tool_error_naming_the_scope(client):
    _, token = create_account(client)
    key_id, secret = key_with(client, token, ["tasks:read"])
    for name in TOOLS:
        if SCOPE_OF[name] == "tasks:read":
            continue
        result = tool(client, secret, name, {"title": 12, "unknown": True})
        assert result["isError"] is True, (name, result)
        assert result["content"] == [{"type": "text", "text": f"Error insufficient_scope: {refusal(SCOPE_OF[name], name)}"}]
        assert result["_meta"]["relaydeck/code"] == "insufficient_scope"
        assert "structuredContent" not in result
    allowed = tool(client, secret, "list_tasks")
    assert allowed["isError"] is False and allowed["structuredContent"] == {"tasks": [], "next_cursor": None}
    entries = client.call("GET", f"/v1/keys/{key_id}/activity?limit=100", token=token).json["items"]
    refused = {e["action"]: e["code"] for e in entries if e["status"] == "error"}
    assert refused == {name: "insufficient_scope" for name in TOOLS if SCOPE_OF[name] != "tasks:read"}


def test_an_unknown_tool_stays_a_protocol_error(client):
    _, token = create_account(client)
    _, secret = key_with(client, token, ["notify"])
    response = modern(client, secret, "tools/call", {"name": "drop_tables", "arguments": {}}, name="drop_tables")
    validate(response.json, "JSONRPCErrorResponse")
    assert response.json["error"]["code"] == -32602


def test_the_resources_need_tasks_read(client):
    _, token = create_account(client)
    key_id, secret = key_with(client, token, ["tasks:write"])
    made = tool(client, secret, "create_task", {"title": "Open one"})["structuredContent"]
    listed = modern(client, secret, "resources/list").json["result"]
    validate(listed, "ListResourcesResult")
    assert listed["resources"] == []
    templates = modern(client, secret, "resources/templates/list").json["result"]
    validate(templates, "ListResourceTemplatesResult")
    assert templates["resourceTemplates"] == []
    for uri in ("tasks://open", f"tasks://task/{made['id']}"):
        response = modern(client, secret, "resources/read", {"uri": uri}, name=uri)
        assert response.status == 200, response
        validate(response.json, "JSONRPCErrorResponse")
        assert response.json["error"] == {"code": -32602, "message": f"Invalid params: {refusal('tasks:read', 'resources/read')}"}
    assert client.call("PATCH", f"/v1/keys/{key_id}", json={"scopes": ["tasks:read"]}, token=token).status == 200
    read = modern(client, secret, "resources/read", {"uri": "tasks://open"}, name="tasks://open").json["result"]
    validate(read, "ReadResourceResult")
    assert made["id"] in read["contents"][0]["text"]


def test_the_inbox_line_is_left_out_for_a_key_that_may_not_read_its_inbox(client):
    _, token = create_account(client)
    key_id, secret = key_with(client, token, ["tasks:read", "inbox"])
    client.call("POST", "/v1/messages", json={"key_id": key_id, "text": "Rebase first."}, token=token)
    assert tool(client, secret, "list_tasks")["content"][0]["text"].endswith("Inbox: 1 unread. Call check_inbox.")
    client.call("PATCH", f"/v1/keys/{key_id}", json={"scopes": ["tasks:read"]}, token=token)
    assert "Inbox:" not in tool(client, secret, "list_tasks")["content"][0]["text"]


mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import Implementation  # noqa: E402


def connect(server, secret: str, mode: str) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {secret}"})
    return Client(streamable_http_client(f"http://{server.host}:{server.port}/mcp", http_client=http), mode=mode,
                  client_info=Implementation(name="sdk-test", version="2.0"))


@pytest.mark.parametrize("mode,version", [("auto", MODERN), ("legacy", "2025-11-25")])
def test_the_official_sdk_sees_only_what_the_key_may_use(server, mode, version):
    http = PythonClient(server.host, server.port)
    _, token = create_account(http)
    key_id, secret = key_with(http, token, ["tasks:read", "questions"])

    async def run():
        async with connect(server, secret, mode) as client:
            assert client.protocol_version == version
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["list_tasks", "get_task", "ask_user", "get_answer"]
            refused = await client.call_tool("create_task", {"title": "Not allowed"})
            assert refused.is_error and refused.content[0].text == f"Error insufficient_scope: {refusal('tasks:write', 'create_task')}"
            asked = await client.call_tool("ask_user", {"prompt": "Deploy now?", "wait_seconds": 0})
            assert not asked.is_error and asked.structured_content["status"] == "pending"
            assert [str(r.uri) for r in (await client.list_resources()).resources] == ["tasks://open"]
            # The person takes `questions` and `tasks:read` away, and gives `tasks:write`.
            changed = http.call("PATCH", f"/v1/keys/{key_id}", json={"scopes": ["tasks:write"]}, token=token)
            assert changed.status == 200, changed
            # A client that keeps the list for its `ttlMs` (the SDK does) sees the change when
            # it asks again; the calls themselves are held to the new scopes at once.
            names = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            assert names == ["create_task", "update_task", "delete_task"]
            made = await client.call_tool("create_task", {"title": "Allowed now"})
            assert not made.is_error and made.structured_content["title"] == "Allowed now"
            again = await client.call_tool("get_answer", {"question_id": asked.structured_content["id"], "wait_seconds": 0})
            assert again.is_error and again.content[0].text == f"Error insufficient_scope: {refusal('questions', 'get_answer')}"
            assert (await client.list_resources(cache_mode="refresh")).resources == []
            with pytest.raises(MCPError) as refused_read:
                await client.read_resource("tasks://open")
            assert refused_read.value.error.code == -32602
            assert refusal("tasks:read", "resources/read") in refused_read.value.error.message

    asyncio.run(run())
