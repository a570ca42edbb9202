"""The official MCP Python SDK (`mcp` 2.x) as the client of POST /mcp, in its 2026-07-28 mode
(discover, stateless) and in its legacy mode (initialize): list the tools, call every tool,
read both resources, get both prompts. The SDK validates each structured result against the
tool's output schema itself."""

import asyncio
import json

import pytest

from api import create_account, create_key
from http_clients import PythonClient

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402

TOOLS = ["create_task", "list_tasks", "get_task", "update_task", "delete_task", "notify_user", "ask_user",
         "get_answer", "check_inbox", "send_message", "list_agents"]


def connect(server, secret: str, mode: str, via_query: bool = False) -> Client:
    url = f"http://{server.host}:{server.port}/mcp"
    if via_query:
        return Client(url + f"?key={secret}", mode=mode, client_info=Implementation(name="sdk-test", version="2.0"))
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {secret}", "X-Relaydeck-Host": "ci-box"})
    return Client(streamable_http_client(url, http_client=http), mode=mode,
                  client_info=Implementation(name="sdk-test", version="2.0"))


async def every_tool(client: Client, other_label: str) -> dict:
    listed = await client.list_tools()
    assert [t.name for t in listed.tools] == TOOLS
    assert all(t.output_schema for t in listed.tools)

    def structured(result):
        assert not result.is_error, result
        assert result.content[0].text
        return result.structured_content

    task = structured(await client.call_tool("create_task", {"title": "Migrate the database", "priority": "high"}))
    assert task["host"] == "ci-box" or task["host"] is None
    assert task["created_at_iso"].endswith("Z")
    tasks = structured(await client.call_tool("list_tasks", {"status": "todo,in_progress", "limit": 10}))
    assert task["id"] in [t["id"] for t in tasks["tasks"]]
    assert structured(await client.call_tool("get_task", {"task_id": task["id"]}))["title"] == "Migrate the database"
    updated = structured(await client.call_tool("update_task", {"task_id": task["id"], "status": "in_progress",
                                                                "progress": 30, "status_note": "Copying rows"}))
    assert updated["progress"] == 30
    sent = structured(await client.call_tool("notify_user", {"title": "Deploy", "body": "Ready to deploy."}))
    assert sent == {"sent": False, "devices": 0}
    question = structured(await client.call_tool("ask_user", {"prompt": "Deploy now?", "wait_seconds": 0}))
    assert question["status"] == "pending"
    again = structured(await client.call_tool("get_answer", {"question_id": question["id"], "wait_seconds": 0}))
    assert again["id"] == question["id"]
    inbox = structured(await client.call_tool("check_inbox", {"wait_seconds": 0}))
    assert inbox["unread"] == 0
    message = structured(await client.call_tool("send_message", {"to": other_label, "text": "The schema is ready."}))
    assert message["kind"] == "message"
    agents = structured(await client.call_tool("list_agents", {}))
    assert sum(a["is_self"] for a in agents["agents"]) == 1
    deleted = structured(await client.call_tool("delete_task", {"task_id": task["id"]}))
    assert deleted == {"deleted": True, "task_id": task["id"]}
    failed = await client.call_tool("get_task", {"task_id": task["id"]})
    assert failed.is_error and failed.content[0].text.startswith("Error not_found: Task not found.")

    kept = structured(await client.call_tool("create_task", {"title": "Keep"}))
    resources = await client.list_resources()
    assert [str(r.uri) for r in resources.resources] == ["tasks://open"]
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["tasks://task/{task_id}"]
    open_tasks = json.loads((await client.read_resource("tasks://open")).contents[0].text)
    assert kept["id"] in [t["id"] for t in open_tasks["tasks"]]
    one = json.loads((await client.read_resource(f"tasks://task/{kept['id']}")).contents[0].text)
    assert one["id"] == kept["id"]
    prompts = await client.list_prompts()
    assert [p.name for p in prompts.prompts] == ["plan_work", "status_report"]
    plan = await client.get_prompt("plan_work", {"goal": "Ship v2"})
    assert "Ship v2" in plan.messages[0].content.text
    report = await client.get_prompt("status_report")
    assert "list_tasks" in report.messages[0].content.text
    return {"protocol": client.protocol_version, "instructions": client.instructions}


@pytest.mark.parametrize("mode,version", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_official_sdk_uses_every_tool(server, mode, version):
    http = PythonClient(server.host, server.port)
    _, token = create_account(http)
    key, secret = create_key(http, token, "Claude Code")
    create_key(http, token, "Codex")

    async def run():
        async with connect(server, secret, mode) as client:
            return await every_tool(client, "Codex")

    seen = asyncio.run(run())
    assert seen["protocol"] == version
    assert "1. Create a task before you start" in seen["instructions"]
    keys = http.call("GET", "/v1/keys", token=token).json["keys"]
    mine = next(k for k in keys if k["id"] == key["id"])
    assert mine["last_client"] == {"name": "sdk-test", "version": "2.0"}
    actions = [e["action"] for e in http.call("GET", f"/v1/keys/{key['id']}/activity?limit=100", token=token).json["items"]]
    assert set(TOOLS) <= set(actions) and "tools/list" in actions


def test_the_sdk_connects_with_the_key_in_the_url(server):
    http = PythonClient(server.host, server.port)
    _, token = create_account(http)
    _, secret = create_key(http, token, "Cursor")

    async def run():
        async with connect(server, secret, "auto", via_query=True) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert asyncio.run(run()) == TOOLS
