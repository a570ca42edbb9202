"""OAuth discovery and the token endpoint's refusals against the built binary (issue 24),
through http.client and curl: /mcp without a credential sends a client to the metadata, the
two documents, RFC 6749's error shape, and OAuth off without PUBLIC_URL."""

import json

import pytest

from api import assert_error, create_account, create_key
from http_clients import CurlClient, PythonClient

PUBLIC_URL = "https://relay.example.test"
METADATA = PUBLIC_URL + "/.well-known/oauth-protected-resource"
EVERY_SCOPE = "tasks:read tasks:write questions notify messages inbox"
FORM = {"Content-Type": "application/x-www-form-urlencoded"}
OFF = ("not_found", "OAuth is off on this server: its operator sets PUBLIC_URL to turn it on. Use an API key meanwhile.")
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


@pytest.fixture(params=["python", "curl"])
def oauth(request, start_server):
    server = start_server({"PUBLIC_URL": PUBLIC_URL})
    cls = PythonClient if request.param == "python" else CurlClient
    return cls(server.host, server.port)


def test_mcp_without_a_credential_points_to_the_resource_metadata(oauth):
    response = oauth.call("POST", "/mcp", json=LIST)
    assert response.status == 401
    assert response.header("WWW-Authenticate") == f'Bearer resource_metadata="{METADATA}", scope="{EVERY_SCOPE}"'
    assert_error(response, 401, ("unauthorized", "The credential is missing or wrong."))


def test_mcp_with_a_token_that_does_not_work_says_invalid_token(oauth):
    response = oauth.call("POST", "/mcp", json=LIST, token="mco_" + "A" * 43)
    assert response.status == 401
    assert response.header("WWW-Authenticate") == f'Bearer error="invalid_token", resource_metadata="{METADATA}"'


def test_an_api_key_works_on_mcp_as_before(oauth):
    _, token = create_account(oauth)
    _, secret = create_key(oauth, token)
    response = oauth.call("POST", "/mcp", json=LIST, token=secret, headers={"MCP-Protocol-Version": "2025-06-18"})
    assert response.status == 200 and response.header("WWW-Authenticate") is None
    assert [tool["name"] for tool in response.json["result"]["tools"]][:2] == ["create_task", "list_tasks"]


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"])
def test_the_protected_resource_metadata(oauth, path):
    response = oauth.call("GET", path)
    assert response.status == 200
    assert response.header("Content-Type") == "application/json"
    assert response.header("Access-Control-Allow-Origin") == "*"
    assert response.json == {
        "resource": PUBLIC_URL + "/mcp", "authorization_servers": [PUBLIC_URL],
        "scopes_supported": EVERY_SCOPE.split(" "), "bearer_methods_supported": ["header"], "resource_name": "Relaydeck",
    }


def test_the_authorization_server_metadata(oauth):
    response = oauth.call("GET", "/.well-known/oauth-authorization-server")
    assert response.status == 200
    document = response.json
    assert document["issuer"] == PUBLIC_URL
    assert document["token_endpoint"] == PUBLIC_URL + "/oauth/token"
    assert document["revocation_endpoint"] == PUBLIC_URL + "/oauth/revoke"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["response_types_supported"] == ["code"]
    assert document["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert document["scopes_supported"] == EVERY_SCOPE.split(" ")


@pytest.mark.parametrize("body, code, description", [
    ("grant_type=authorization_code&code=mcc_x&redirect_uri=https://a.example/cb&code_verifier=" + "a" * 43
     + "&client_id=oac_nobody", "invalid_client", "The client is unknown."),
    ("grant_type=password&client_id=x", "unsupported_grant_type", "grant_type must be authorization_code or refresh_token."),
    ("grant_type=refresh_token&grant_type=refresh_token&client_id=x", "invalid_request", "A parameter was sent more than once."),
    ("grant_type=refresh_token&state=" + "s" * 100_000 + "&client_id=oac_nobody", "invalid_client", "The client is unknown."),
])
def test_a_refused_token_request_has_oauths_shape_and_is_never_cached(oauth, body, code, description):
    response = oauth.call("POST", "/oauth/token", body=body, headers=FORM)
    assert response.status == 400
    assert response.header("Content-Type") == "application/json"
    assert response.header("Cache-Control") == "no-store" and response.header("Pragma") == "no-cache"
    assert json.loads(response.body) == {"error": code, "error_description": description}


def test_a_token_request_that_is_not_a_form_is_invalid_request(oauth):
    response = oauth.call("POST", "/oauth/token", json={"grant_type": "refresh_token"})
    assert response.status == 400
    assert response.json == {"error": "invalid_request", "error_description": "The body must be application/x-www-form-urlencoded."}


def test_revoking_an_unknown_token_is_refused_only_for_an_unknown_client(oauth):
    response = oauth.call("POST", "/oauth/revoke", body="token=mcr_nothing&client_id=oac_nobody", headers=FORM)
    assert response.status == 400
    assert response.json == {"error": "invalid_client", "error_description": "The client is unknown."}


def test_without_public_url_oauth_is_off(start_server):
    server = start_server()
    warning = "warn OAuth is off: set PUBLIC_URL to let connectors that only speak OAuth connect; API keys work as before"
    assert any(line.endswith(warning) for line in server.log_lines()), server.log()
    for cls in (PythonClient, CurlClient):
        client = cls(server.host, server.port)
        for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"]:
            assert_error(client.call("GET", path), 404, OFF)
        assert_error(client.call("POST", "/oauth/token", body="grant_type=refresh_token", headers=FORM), 404, OFF)
        response = client.call("POST", "/mcp", json=LIST)
        assert response.status == 401 and response.header("WWW-Authenticate") is None
