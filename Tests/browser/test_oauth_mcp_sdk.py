"""The official MCP Python SDK's OAuth client (`OAuthClientProvider`, `mcp` 2.x) against the
built binary, end to end (issue 24): discovery from /mcp's 401, registration (RFC 7591: the
server does not announce Client ID Metadata Documents yet), PKCE, the consent page driven in
Chromium, the token used on /mcp, a refresh, and revocation. The SDK runs on a thread of its
own (Playwright's sync API owns this one); the two meet through queues: the SDK hands over the
authorization URL, the test's loopback callback hands back the code."""

import asyncio
import base64
import json
import queue
import threading
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect

from browser_support import sign_in_with_token
from server_process import record_secrets
from test_oauth_consent import Callback

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.auth import OAuthClientMetadata  # noqa: E402
from mcp.types import Implementation  # noqa: E402

# A bound on each hand-over, so a failure ends the test instead of hanging it; never asserted.
HAND_OVER = 60


class MemoryStorage(TokenStorage):
    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        record_secrets(json.dumps([tokens.access_token, tokens.refresh_token]))
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class Connector:
    """The SDK as a connector: its provider, and what each session of it saw."""

    def __init__(self, relaydeck, callback, client_metadata_url=None):
        self.url = relaydeck.origin + "/mcp"
        # The URL of a Client ID Metadata Document, used instead of registering when given.
        self.client_metadata_url = client_metadata_url
        self.callback = callback
        self.storage = MemoryStorage()
        self.authorizations = queue.Queue()
        self.codes = queue.Queue()
        self.callback.on_query = self.codes.put

    def provider(self):
        async def redirect(url):
            self.authorizations.put(url)

        async def wait_for_code():
            query = await asyncio.to_thread(self.codes.get, True, HAND_OVER)
            return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

        metadata = OAuthClientMetadata(client_name="SDK connector", redirect_uris=[self.callback.url],
                                       grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                       token_endpoint_auth_method="none", scope="tasks:read tasks:write inbox")
        self.current = OAuthClientProvider(server_url=self.url, client_metadata=metadata, storage=self.storage,
                                           redirect_handler=redirect, callback_handler=wait_for_code,
                                           client_metadata_url=self.client_metadata_url)
        return self.current

    async def session(self, work):
        http = create_mcp_http_client(auth=self.provider())
        async with Client(streamable_http_client(self.url, http_client=http), mode="legacy",
                          client_info=Implementation(name="sdk-connector", version="1.0")) as client:
            return await work(client)

    def run(self, work):
        """`work(client)` in a session on a thread of its own; (thread, result holder)."""
        result = {}

        def body():
            try:
                result["value"] = asyncio.run(self.session(work))
            except BaseException as error:  # noqa: BLE001 - handed to the test
                result["error"] = error

        thread = threading.Thread(target=body, daemon=True)
        thread.start()
        return thread, result


def finished(thread, result):
    thread.join(HAND_OVER)
    assert not thread.is_alive(), "the SDK's session did not end"
    if "error" in result:
        raise result["error"]
    return result["value"]


@pytest.fixture
def callback():
    started = Callback()
    yield started
    started.stop()


def session_of(connector):
    async def work(client):
        tools = [tool.name for tool in (await client.list_tools()).tools]
        created = await client.call_tool("create_task", {"title": "Connected through OAuth"})
        refused = await client.call_tool("notify_user", {"title": "Hi", "body": "There."})
        first = connector.storage.tokens.model_copy()
        # The SDK now believes its access token expired: it refreshes before the next request.
        connector.current.context.token_expiry_time = 1
        again = [tool.name for tool in (await client.list_tools()).tools]
        return tools, created.structured_content, refused, first, again
    return work


def test_the_sdk_discovers_registers_is_allowed_uses_and_refreshes_and_a_reused_refresh_token_ends_it(relaydeck, page, callback, console):
    _, token = relaydeck.new_account()
    key, _ = relaydeck.new_key(token, "Phone")
    sign_in_with_token(page, relaydeck, token)
    connector = Connector(relaydeck, callback)

    thread, result = connector.run(session_of(connector))
    authorization = connector.authorizations.get(True, HAND_OVER)
    parts = urllib.parse.urlsplit(authorization)
    query = dict(urllib.parse.parse_qsl(parts.query))
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == relaydeck.origin + "/oauth/authorize"
    assert query["code_challenge_method"] == "S256" and query["resource"] == relaydeck.origin + "/mcp"
    # The scopes of /mcp's 401 (the specification puts them before the client's own): all of
    # them; the person gives fewer.
    assert query["client_id"].startswith("oac_") and query["scope"] == "tasks:read tasks:write questions notify messages inbox"
    page.goto(authorization)
    expect(page.get_by_role("heading", name="Connect SDK connector?", level=1)).to_be_visible()
    group = page.get_by_role("group", name="What SDK connector may do")
    for scope in ("questions", "notify", "messages"):
        group.get_by_role("checkbox", name=scope, exact=True).uncheck()
    expect(page.get_by_label("Key", exact=True)).to_have_value(key["id"])
    page.get_by_role("button", name="Allow").click()
    page.get_by_role("heading", name="Back in the application").wait_for()
    tools, task, refused, first, again = finished(thread, result)

    # The tools of the scopes it holds, and a tool error naming the scope it does not.
    assert tools == ["create_task", "list_tasks", "get_task", "update_task", "delete_task", "check_inbox"]
    assert task["title"] == "Connected through OAuth"
    assert refused.is_error and "notify" in refused.content[0].text
    # The task is the key's, and the activity log names the connector.
    tasks = relaydeck.http.ok("GET", f"/v1/tasks?key_id={key['id']}", token=token)["tasks"]
    assert [t["title"] for t in tasks] == ["Connected through OAuth"]
    entries = relaydeck.http.ok("GET", f"/v1/keys/{key['id']}/activity", token=token)["items"]
    assert {entry["client"]["name"] for entry in entries} == {"SDK connector"}

    # The refresh gave a new pair, and the session went on with it.
    assert again == tools
    renewed = connector.storage.tokens
    assert renewed.access_token != first.access_token and renewed.refresh_token != first.refresh_token
    assert relaydeck.http.call("GET", "/v1/tasks", token=renewed.access_token).status == 200
    assert connector.authorizations.empty()
    # The spent refresh token, used again (as a thief would): the grant is revoked.
    reused = post_form(relaydeck, "/oauth/token", {"grant_type": "refresh_token", "refresh_token": first.refresh_token,
                                                   "client_id": connector.storage.client_info.client_id})
    assert reused == (400, b'{"error":"invalid_grant","error_description":"The refresh token was used already; the grant is revoked."}')
    assert relaydeck.http.call("GET", "/v1/tasks", token=renewed.access_token).status == 401
    assert relaydeck.http.ok("GET", f"/v1/keys/{key['id']}/grants", token=token) == {"grants": []}
    console.assert_clean()


def test_revoking_the_sdks_refresh_token_signs_it_out(relaydeck, page, callback, console):
    _, token = relaydeck.new_account()
    key, _ = relaydeck.new_key(token, "Phone")
    sign_in_with_token(page, relaydeck, token)
    connector = Connector(relaydeck, callback)
    thread, result = connector.run(lambda client: client.list_tools())
    page.goto(connector.authorizations.get(True, HAND_OVER))
    page.get_by_role("button", name="Allow").click()
    page.get_by_role("heading", name="Back in the application").wait_for()
    assert len(finished(thread, result).tools) == 11
    tokens = connector.storage.tokens
    assert relaydeck.http.call("GET", "/v1/tasks", token=tokens.access_token).status == 200
    # RFC 7009: the refresh token ends the grant, its access token with it.
    answer = post_form(relaydeck, "/oauth/revoke", {"token": tokens.refresh_token, "token_type_hint": "refresh_token",
                                                    "client_id": connector.storage.client_info.client_id})
    assert answer == (200, b"")
    assert relaydeck.http.call("GET", "/v1/tasks", token=tokens.access_token).status == 401
    assert relaydeck.http.ok("GET", f"/v1/keys/{key['id']}/grants", token=token) == {"grants": []}
    console.assert_clean()


def post_form(relaydeck, path, fields):
    request = urllib.request.Request(relaydeck.origin + path, data=urllib.parse.urlencode(fields).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
