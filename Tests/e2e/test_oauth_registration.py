"""RFC 7591 registration against the built binary (issue 24), through http.client and curl:
a public and a confidential client, refusals in RFC 7591's words, and the limit an address
meets when it registers many clients."""

import pytest

from http_clients import CurlClient, PythonClient

PUBLIC_URL = "https://relay.example.test"


@pytest.fixture(params=["python", "curl"])
def oauth(request, start_server):
    server = start_server({"PUBLIC_URL": PUBLIC_URL})
    cls = PythonClient if request.param == "python" else CurlClient
    return cls(server.host, server.port)


def test_a_public_client_registers(oauth):
    response = oauth.call("POST", "/oauth/register", json={
        "client_name": "Claude", "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"],
        "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
    })
    assert response.status == 201
    assert response.header("Cache-Control") == "no-store"
    body = response.json
    assert body["client_id"].startswith("oac_") and "client_secret" not in body
    assert {k: v for k, v in body.items() if k not in ("client_id", "client_id_issued_at")} == {
        "client_name": "Claude", "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }


def test_a_confidential_client_gets_a_secret_it_can_use(oauth):
    response = oauth.call("POST", "/oauth/register", json={"client_name": "Server", "redirect_uris": ["https://a.example/cb"],
                                                          "token_endpoint_auth_method": "client_secret_post"})
    assert response.status == 201
    body = response.json
    assert body["client_secret"].startswith("mcx_") and body["client_secret_expires_at"] == 0
    # The secret proves the client: a refresh token it never had is then the only problem.
    token = oauth.call("POST", "/oauth/token", headers={"Content-Type": "application/x-www-form-urlencoded"},
                       body=f"grant_type=refresh_token&refresh_token=mcr_x&client_id={body['client_id']}"
                            f"&client_secret={body['client_secret']}")
    assert token.status == 400
    assert token.json == {"error": "invalid_grant", "error_description": "The refresh token is unknown, expired or revoked."}
    wrong = oauth.call("POST", "/oauth/token", headers={"Content-Type": "application/x-www-form-urlencoded"},
                       body=f"grant_type=refresh_token&refresh_token=mcr_x&client_id={body['client_id']}&client_secret=mcx_no")
    assert wrong.json == {"error": "invalid_client", "error_description": "The client secret is wrong."}


@pytest.mark.parametrize("metadata, error", [
    ({"redirect_uris": ["http://evil.example/cb"]}, "invalid_redirect_uri"),
    ({"redirect_uris": ["https://a.example/cb#x"]}, "invalid_redirect_uri"),
    ({"redirect_uris": ["https://a.example/" + "a" * 2000]}, "invalid_redirect_uri"),
    ({"redirect_uris": [f"https://a.example/{n}" for n in range(1000)]}, "invalid_redirect_uri"),
    ({"redirect_uris": ["https://a.example/cb"], "client_name": "x" * 100_000}, "invalid_client_metadata"),
    ({"redirect_uris": ["https://a.example/cb"], "grant_types": ["implicit"]}, "invalid_client_metadata"),
])
def test_what_cannot_be_honoured_is_refused(oauth, metadata, error):
    response = oauth.call("POST", "/oauth/register", json=metadata)
    assert response.status == 400
    assert response.json["error"] == error


def test_one_address_registers_twenty_clients_an_hour(oauth):
    metadata = {"redirect_uris": ["https://a.example/cb"], "token_endpoint_auth_method": "none"}
    for _ in range(20):
        assert oauth.call("POST", "/oauth/register", json=metadata).status == 201
    limited = oauth.call("POST", "/oauth/register", json=metadata)
    assert limited.status == 429
    # The window slides: the wait is what is left of the oldest registration's 180 seconds.
    seconds = int(limited.header("Retry-After"))
    assert 0 < seconds <= 180
    assert limited.json == {"error": "rate_limited", "error_description": f"Too many requests. Try again in {seconds} seconds."}
