"""POST /mcp over raw HTTP (mcp.md, and the MCP specification's streamable-http transport):
every header rule, error code and edge case, each answer validated against the JSON Schema of
its revision."""


import pytest

from server_process import wait_until
from mcp_support import LEGACY, MODERN, legacy, meta, modern, tool, validate

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def test_only_post_is_served(client, agent):
    _, _, secret = agent
    for method in ["GET", "DELETE", "PUT"]:
        response = client.call(method, "/mcp", api_key=secret)
        assert response.status == 405, response
        assert response.header("Allow") == "POST"


def test_the_credential_and_its_refusals(client, agent):
    token, _, secret = agent
    no_key = client.call("POST", "/mcp", json=PING)
    assert no_key.status == 401 and no_key.json == {"error": {"code": "unauthorized", "message": "The credential is missing or wrong."}}
    assert client.call("POST", "/mcp", json=PING, headers={"Authorization": "Bearer mck_wrong"}).status == 401
    assert client.call("POST", "/mcp", json=PING, token=token).status == 403
    assert client.call("POST", "/mcp", json=PING, api_key=secret).status == 200
    assert client.call("POST", f"/mcp?key={secret}", json=PING).status == 200
    assert client.call("POST", "/mcp", json=PING, headers={"Authorization": f"Bearer {secret}"}).status == 200


def test_a_foreign_origin_is_forbidden(client, agent, server):
    _, _, secret = agent
    foreign = client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Origin": "https://evil.example"})
    assert foreign.status == 403
    own = client.call("POST", "/mcp", json=PING, api_key=secret, headers={"Origin": f"http://{server.host}:{server.port}"})
    assert own.status == 200, own


def test_a_notification_is_202_without_a_body(client, agent):
    _, _, secret = agent
    response = client.call("POST", "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, api_key=secret)
    assert response.status == 202 and response.body == b""


@pytest.mark.parametrize("body,code", [
    (b"{", -32700), (b"[]", -32600), (b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600),
    (b'{"jsonrpc":"1.0","id":1,"method":"ping"}', -32600), (b'{"jsonrpc":"2.0","id":null,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":1}', -32600),
])
def test_malformed_json_rpc_gets_the_specifications_errors(client, agent, body, code):
    _, _, secret = agent
    response = client.call("POST", "/mcp", body=body, api_key=secret, headers={"Content-Type": "application/json"})
    assert response.status == 400, response
    assert response.json["error"]["code"] == code and "id" not in response.json
    validate(response.json, "JSONRPCErrorResponse")


def test_discover_and_every_result_of_the_modern_revision(client, agent):
    _, _, secret = agent
    response = modern(client, secret, "server/discover")
    assert response.status == 200 and response.header("Content-Type") == "application/json"
    validate(response.json, "JSONRPCResultResponse")
    validate(response.json["result"], "DiscoverResult")
    result = response.json["result"]
    assert result["supportedVersions"] == [MODERN, *LEGACY]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "relaydeck"
    assert "7. A task_changed item with a cancelled status means: stop that work." in result["instructions"]
    listed = modern(client, secret, "tools/list").json["result"]
    validate(listed, "ListToolsResult")
    assert [t["name"] for t in listed["tools"]] == [
        "create_task", "list_tasks", "get_task", "update_task", "delete_task", "notify_user", "ask_user",
        "get_answer", "check_inbox", "send_message", "list_agents"]
    for name, definition in [("resources/list", "ListResourcesResult"), ("resources/templates/list", "ListResourceTemplatesResult"),
                             ("prompts/list", "ListPromptsResult")]:
        validate(modern(client, secret, name).json["result"], definition)
    read = modern(client, secret, "resources/read", {"uri": "tasks://open"}, name="tasks://open").json["result"]
    validate(read, "ReadResourceResult")
    prompt = modern(client, secret, "prompts/get", {"name": "status_report"}, name="status_report").json["result"]
    validate(prompt, "GetPromptResult")


@pytest.mark.parametrize("headers", [
    {"Mcp-Method": "tools/list"},
    {"MCP-Protocol-Version": MODERN},
    {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call"},
])
def test_a_header_that_does_not_match_the_body_is_32020(client, agent, headers):
    _, _, secret = agent
    response = modern(client, secret, "tools/list", headers=headers)
    assert response.status == 400, response
    assert response.json["error"]["code"] == -32020 and response.json["id"] == 1
    validate(response.json, "HeaderMismatchError")


def test_mcp_name_must_match_and_may_be_base64(client, agent):
    _, _, secret = agent
    params = {"name": "list_agents", "arguments": {}}
    assert modern(client, secret, "tools/call", params, name="get_task").json["error"]["code"] == -32020
    assert modern(client, secret, "tools/call", params).json["error"]["code"] == -32020
    assert modern(client, secret, "tools/call", params, name="=?base64?bGlzdF9hZ2VudHM=?=").status == 200


def test_an_unsupported_version_names_the_supported_ones(client, agent):
    _, _, secret = agent
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta("1900-01-01")}}
    response = client.call("POST", "/mcp", json=body, api_key=secret,
                           headers={"MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/list"})
    assert response.status == 400
    assert response.json["error"] == {"code": -32022, "message": "Unsupported protocol version",
                                      "data": {"supported": [MODERN, *LEGACY], "requested": "1900-01-01"}}
    validate(response.json, "UnsupportedProtocolVersionError")


def test_an_unknown_method_is_404_in_the_modern_revision_and_an_error_in_the_legacy_ones(client, agent):
    _, _, secret = agent
    response = modern(client, secret, "tasks/list")
    assert response.status == 404 and response.json["error"]["code"] == -32601
    validate(response.json, "JSONRPCErrorResponse")
    old = legacy(client, secret, "tasks/list")
    assert old.status == 200 and old.json["error"]["code"] == -32601
    validate(old.json, "JSONRPCError", "2025-06-18")


@pytest.mark.parametrize("version", LEGACY)
def test_initialize_negotiates_and_the_legacy_revision_serves(client, agent, version):
    _, _, secret = agent
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "cursor", "version": "3.2"}}
    response = legacy(client, secret, "initialize", params, version=None)
    assert response.status == 200 and response.header("Mcp-Session-Id") is None
    validate(response.json, "JSONRPCResponse", version)
    validate(response.json["result"], "InitializeResult", version)
    assert response.json["result"]["protocolVersion"] == version
    assert client.call("POST", "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, api_key=secret,
                       headers={"MCP-Protocol-Version": version}).status == 202
    assert legacy(client, secret, "ping", version=version).json == {"jsonrpc": "2.0", "id": 1, "result": {}}
    listed = legacy(client, secret, "tools/list", version=version).json
    validate(listed, "JSONRPCResponse", version)
    validate(listed["result"], "ListToolsResult", version)
    called = legacy(client, secret, "tools/call", {"name": "list_agents", "arguments": {}}, version=version).json
    validate(called["result"], "CallToolResult", version)


def test_a_tool_error_has_the_rest_code_and_the_inbox_line(client, agent):
    token, key, secret = agent
    assert client.call("POST", "/v1/messages", json={"key_id": key["id"], "text": "Stop."}, token=token).status == 201
    result = tool(client, secret, "get_task", {"task_id": "tsk_nope"})
    assert result["isError"] is True and result["_meta"]["relaydeck/code"] == "not_found"
    assert result["content"][0]["text"] == ("Error not_found: Task not found. Call list_tasks to see the task IDs of this key."
                                            "\nInbox: 1 unread. Call check_inbox.")
    activity = client.call("GET", f"/v1/keys/{key['id']}/activity", token=token).json["items"]
    assert (activity[0]["action"], activity[0]["status"], activity[0]["code"], activity[0]["surface"]) == \
        ("get_task", "error", "not_found", "mcp")
    assert activity[0]["client"] == {"name": "pytest", "version": "1.0"}


def test_last_client_and_host_follow_the_request(client, agent):
    token, key, secret = agent
    modern(client, secret, "tools/list", headers={"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list",
                                                  "X-Relaydeck-Host": "studio-mac"})
    keys = client.call("GET", "/v1/keys", token=token).json["keys"]
    mine = next(k for k in keys if k["id"] == key["id"])
    assert mine["last_client"] == {"name": "pytest", "version": "1.0"} and mine["last_host"] == "studio-mac"
    made = tool(client, secret, "create_task", {"title": "Ship"})
    assert made["structuredContent"]["host"] is None


def test_check_inbox_waits_without_holding_the_server(client, agent, server):
    import threading
    import time
    from http_clients import PythonClient
    token, key, secret = agent
    answers = []
    waiter = threading.Thread(target=lambda: answers.append(
        tool(PythonClient(server.host, server.port), secret, "check_inbox", {"wait_seconds": 20})))
    waiter.start()
    time.sleep(0.5)
    # The server answers others while the call waits.
    assert modern(client, secret, "tools/list").status == 200
    started = time.monotonic()
    assert client.call("POST", "/v1/messages", json={"key_id": key["id"], "text": "Go."}, token=token).status == 201
    waiter.join(10)
    assert time.monotonic() - started < 5
    assert answers[0]["structuredContent"]["items"][0]["text"] == "Go."


def test_the_activity_log_names_each_request_and_leaves_out_notifications_and_empty_waits(client, agent):
    token, key, secret = agent
    client.call("POST", "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, api_key=secret)
    tool(client, secret, "check_inbox", {"wait_seconds": 1})
    modern(client, secret, "tools/call", {"name": "make_coffee", "arguments": {}}, name="make_coffee")
    modern(client, secret, "no/such/method")
    client.call("POST", "/mcp", body=b"{", api_key=secret)
    tool(client, secret, "list_agents")
    # An entry is written after its answer is out: it can come a moment later.
    wait_until(lambda: len(client.call("GET", f"/v1/keys/{key['id']}/activity", token=token).json["items"]) >= 4,
               timeout=5, message="four activity entries")
    items = client.call("GET", f"/v1/keys/{key['id']}/activity", token=token).json["items"]
    assert sorted((i["action"], i["status"], i["code"] or "") for i in items) == sorted([
        ("list_agents", "ok", ""), ("POST /mcp", "error", "bad_request"), ("unknown method", "error", "not_found"),
        ("tools/call", "error", "not_found")])
    assert all(i["surface"] == "mcp" for i in items)
