"""The consent page of OAuth in the console (issue 24), driven as a person would: a connector
sends the browser to /oauth/authorize, the person signs in (the request waits across it),
sees who asks, where they will be sent back and what it asks for, chooses the key and the
scopes, and allows or denies; the connector's loopback callback gets the code or the refusal.
The key's page lists the grant and removes it. A request with an unknown redirect URI shows
this server's page and goes nowhere."""

import base64
import hashlib
import http.server
import json
import secrets
import threading
import urllib.parse
import urllib.request

import pytest
from playwright.sync_api import expect

from browser_support import free_port, sign_in_with_token
from server_process import record_secrets

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


class Callback:
    """The connector's redirect URI: a loopback server of the test's own that keeps each query."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/callback"
        self.queries = []
        # Told of each query as it comes (the SDK's test waits on it).
        self.on_query = None
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                # The browser also asks for /favicon.ico: only the callback counts.
                parts = urllib.parse.urlsplit(self.path)
                if parts.path == "/callback":
                    query = dict(urllib.parse.parse_qsl(parts.query))
                    outer.queries.append(query)
                    if outer.on_query:
                        outer.on_query(query)
                body = b"<!doctype html><title>Connected</title><h1>Back in the application</h1>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def callback():
    started = Callback()
    yield started
    started.stop()


def register(relaydeck, callback, name="Claude"):
    answer = relaydeck.http.call("POST", "/oauth/register", {
        "client_name": name, "redirect_uris": [callback.url], "token_endpoint_auth_method": "none"})
    assert answer.status == 201, answer
    return answer.json["client_id"]


def authorization(relaydeck, client_id, callback, scope="tasks:read tasks:write inbox"):
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": callback.url, "state": "state-42",
        "code_challenge": challenge, "code_challenge_method": "S256", "resource": relaydeck.origin + "/mcp", "scope": scope,
    })
    return relaydeck.origin + "/oauth/authorize?" + query, verifier


def trade(relaydeck, client_id, callback, code, verifier):
    body = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": callback.url,
                                   "code_verifier": verifier, "client_id": client_id}).encode()
    request = urllib.request.Request(relaydeck.origin + "/oauth/token", data=body, method="POST", headers=FORM)
    with urllib.request.urlopen(request, timeout=30) as answer:
        tokens = json.loads(answer.read())
    record_secrets(json.dumps(tokens))
    return tokens


def tool_names(relaydeck, access):
    answer = relaydeck.http.call("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                                 token=access, headers={"MCP-Protocol-Version": "2025-06-18"})
    assert answer.status == 200, answer
    return [tool["name"] for tool in answer.json["result"]["tools"]]


def test_signing_in_then_allowing_gives_the_connector_a_key_of_its_own(relaydeck, page, callback, console):
    _, token = relaydeck.new_account()
    client_id = register(relaydeck, callback)
    url, verifier = authorization(relaydeck, client_id, callback)
    page.goto(url)
    # Not signed in: the sign-in comes first, and the request waits across it.
    page.get_by_label("Account token").fill(token)
    page.get_by_role("button", name="Sign in with the token").click()
    page.get_by_role("dialog").get_by_role("button", name="Not now").click()
    expect(page.get_by_role("heading", name="Connect Claude?", level=1)).to_be_visible()
    expect(page.locator(".consent-host")).to_have_text("127.0.0.1")
    expect(page.locator(".consent-redirect")).to_have_text(callback.url)
    group = page.get_by_role("group", name="What Claude may do")
    boxes = group.get_by_role("checkbox")
    expect(boxes).to_have_count(3)
    assert [boxes.nth(i).get_attribute("value") for i in range(3)] == ["tasks:read", "tasks:write", "inbox"]
    group.get_by_role("checkbox", name="tasks:write", exact=True).uncheck()
    # No key yet: a new one, named after the client.
    expect(page.get_by_label("Key", exact=True)).to_have_value("new")
    expect(page.get_by_label("Name of the new key")).to_have_value("Claude")
    page.get_by_role("button", name="Allow").click()
    page.get_by_role("heading", name="Back in the application").wait_for()
    assert len(callback.queries) == 1
    query = callback.queries[0]
    assert sorted(query) == ["code", "iss", "state"] and query["state"] == "state-42" and query["iss"] == relaydeck.origin
    tokens = trade(relaydeck, client_id, callback, query["code"], verifier)
    assert tokens["scope"] == "tasks:read inbox"
    assert tool_names(relaydeck, tokens["access_token"]) == ["list_tasks", "get_task", "check_inbox"]
    keys = relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"]
    assert [key["label"] for key in keys] == ["Claude"] and keys[0]["scopes"] == ["tasks:read", "inbox"]
    console.assert_clean()


def test_the_key_page_lists_the_connector_and_removing_it_signs_it_out(relaydeck, page, callback, console):
    _, token = relaydeck.new_account()
    key, _ = relaydeck.new_key(token, "Laptop")
    client_id = register(relaydeck, callback, name="Research bot")
    sign_in_with_token(page, relaydeck, token)
    url, verifier = authorization(relaydeck, client_id, callback, scope="")
    page.goto(url)
    expect(page.get_by_role("heading", name="Connect Research bot?", level=1)).to_be_visible()
    expect(page.get_by_role("group", name="What Research bot may do").get_by_role("checkbox")).to_have_count(6)
    expect(page.get_by_label("Key", exact=True)).to_have_value(key["id"])
    page.get_by_role("button", name="Allow").click()
    page.get_by_role("heading", name="Back in the application").wait_for()
    tokens = trade(relaydeck, client_id, callback, callback.queries[0]["code"], verifier)
    assert relaydeck.http.call("GET", "/v1/tasks", token=tokens["access_token"]).status == 200
    page.goto(f"{relaydeck.app_url}#/key/{key['id']}")
    connectors = page.get_by_role("list", name="Connectors")
    expect(connectors.get_by_role("listitem")).to_have_count(1)
    expect(connectors.get_by_role("listitem").first).to_contain_text("Research bot")
    connectors.get_by_role("button", name="Remove Research bot").click()
    expect(connectors).to_contain_text("No application acts as this key.")
    assert relaydeck.http.call("GET", "/v1/tasks", token=tokens["access_token"]).status == 401
    console.assert_clean()


def test_denying_sends_the_person_back_with_access_denied(relaydeck, page, callback, console):
    _, token = relaydeck.new_account()
    relaydeck.new_key(token, "Laptop")
    client_id = register(relaydeck, callback)
    sign_in_with_token(page, relaydeck, token)
    url, _ = authorization(relaydeck, client_id, callback)
    page.goto(url)
    page.get_by_role("button", name="Deny").click()
    page.get_by_role("heading", name="Back in the application").wait_for()
    assert callback.queries == [{"error": "access_denied", "error_description": "The person declined.", "state": "state-42",
                                 "iss": relaydeck.origin}]
    console.assert_clean()


def test_an_unregistered_redirect_uri_shows_this_servers_page_and_goes_nowhere(relaydeck, page, callback, console):
    client_id = register(relaydeck, callback)
    url, _ = authorization(relaydeck, client_id, callback)
    elsewhere = url.replace(urllib.parse.quote(callback.url, safe=""), urllib.parse.quote("http://127.0.0.1:1/steal", safe=""))
    answer = page.goto(elsewhere)
    assert answer.status == 400
    expect(page.get_by_role("heading", name="This sign-in cannot go on", level=1)).to_be_visible()
    expect(page.get_by_text("The redirect URI is not one the client registered.")).to_be_visible()
    assert page.url == elsewhere and callback.queries == []
    # The page itself is a 400, and the browser asks this server for a /favicon.ico it has not.
    console.assert_clean(allowed=("400 (Bad Request)", "404 (Not Found)"))
