"""/oauth/authorize against the built binary as an attacker would try it (issue 24), through
http.client and curl: an unknown client, a redirect URI not registered (in every near-miss
shape), a parameter twice and a huge state never redirect; a request that checks out goes to
the console; later problems go back to the client's own URI with state and iss."""

import urllib.parse

import pytest

from http_clients import CurlClient, PythonClient

PUBLIC_URL = "https://relay.example.test"
REDIRECT = "https://connector.example/callback"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


@pytest.fixture(params=["python", "curl"])
def oauth(request, start_server):
    server = start_server({"PUBLIC_URL": PUBLIC_URL})
    cls = PythonClient if request.param == "python" else CurlClient
    client = cls(server.host, server.port)
    registered = client.call("POST", "/oauth/register", json={"client_name": "Claude", "redirect_uris": [REDIRECT],
                                                              "token_endpoint_auth_method": "none"})
    assert registered.status == 201
    return client, registered.json["client_id"]


def target(client_id, **changes):
    parameters = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "s1",
                  "code_challenge": CHALLENGE, "code_challenge_method": "S256", "resource": PUBLIC_URL + "/mcp"}
    parameters.update(changes)
    return "/oauth/authorize?" + urllib.parse.urlencode({k: v for k, v in parameters.items() if v is not None})


def assert_page(response, text):
    assert response.status == 400, response
    assert response.header("Location") is None
    assert response.header("Content-Type") == "text/html; charset=utf-8"
    assert response.header("X-Frame-Options") == "DENY"
    assert text in response.text


def test_a_request_that_checks_out_goes_to_the_consent_page(oauth):
    client, client_id = oauth
    path = target(client_id, scope="tasks:read")
    response = client.call("GET", path)
    assert response.status == 302
    assert response.header("Location") == "/app/#/authorize?" + path.split("?", 1)[1]


@pytest.mark.parametrize("redirect", [
    "https://evil.example/callback", "https://connector.example/callback/", "https://connector.example/callback?next=x",
    "https://connector.example.evil.example/callback", "https://connector.example@evil.example/callback",
    "//evil.example/callback", "javascript:alert(1)", "HTTPS://connector.example/callback", "https://connector.example/Callback",
])
def test_a_redirect_uri_not_registered_never_redirects(oauth, redirect):
    client, client_id = oauth
    assert_page(client.call("GET", target(client_id, redirect_uri=redirect)), "The redirect URI is not one the client registered.")


def test_an_unknown_client_never_redirects(oauth):
    client, _ = oauth
    assert_page(client.call("GET", target("oac_" + "0" * 26)),
                "The client is not registered with this server. Start again from the application.")


def test_a_redirect_uri_sent_twice_never_redirects(oauth):
    client, client_id = oauth
    path = target(client_id) + "&redirect_uri=" + urllib.parse.quote("https://evil.example/", safe="")
    assert_page(client.call("GET", path), "A parameter was sent more than once, or is not valid encoding.")


def test_a_state_of_100_kb_is_refused_before_anything(oauth):
    client, client_id = oauth
    response = client.call("GET", target(client_id, state="s" * 100_000))
    assert response.status == 414 and response.header("Location") is None


@pytest.mark.parametrize("changes, error", [
    ({"code_challenge_method": "plain"}, "invalid_request"),
    ({"code_challenge": None}, "invalid_request"),
    ({"resource": "https://other.example/mcp"}, "invalid_target"),
    ({"resource": None}, "invalid_target"),
    ({"response_type": "token"}, "unsupported_response_type"),
    ({"scope": "tasks:read admin"}, "invalid_scope"),
])
def test_later_problems_go_back_to_the_clients_own_uri(oauth, changes, error):
    client, client_id = oauth
    response = client.call("GET", target(client_id, **changes))
    assert response.status == 302
    location = response.header("Location")
    assert location.startswith(REDIRECT + "?")
    query = dict(urllib.parse.parse_qsl(location.split("?", 1)[1]))
    assert query["error"] == error and query["state"] == "s1" and query["iss"] == PUBLIC_URL
