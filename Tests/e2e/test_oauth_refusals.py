"""Every refusal of the token endpoint that a client can cause, against the built binary and
through http.client and curl (issue 24): a wrong PKCE verifier, a code used twice (its grant
revoked), a code for another client or redirect, a refresh token used twice (the grant
revoked), scope escalation at refresh, a revoked token, a token sent where it is no credential.
Consent is given as the console gives it (a web session posting the person's answer). Expiry
(60 s, 1 h, 30 days) needs a clock the test can move: the unit tests
(`OAuthGrantsTests`, `TokenEndpointTests`) hold it."""

import base64
import hashlib
import secrets
import urllib.parse

import pytest

from api import create_account, create_key
from http_clients import CurlClient, PythonClient

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
REDIRECT = "https://connector.example/callback"
OTHER_REDIRECT = "https://connector.example/other"


class Flow:
    """A server with OAuth on, an account, a key, a registered public client, and the person's
    session: codes on demand."""

    def __init__(self, server, cls):
        # The server's own origin (PUBLIC_URL): the console's Origin and the resource's base.
        self.origin = PUBLIC_URL
        self.client = cls(server.host, server.port)
        _, self.account_token = create_account(self.client)
        self.key, self.secret = create_key(self.client, self.account_token, "Connector")
        self.client_id = self.register()
        signed_in = self.client.call("POST", "/web/session", json={"account_token": self.account_token}, headers={"Origin": self.origin})
        assert signed_in.status == 201, signed_in
        self.cookie = signed_in.header("Set-Cookie").split(";", 1)[0]

    def register(self, name="Claude"):
        answer = self.client.call("POST", "/oauth/register", json={"client_name": name, "redirect_uris": [REDIRECT, OTHER_REDIRECT],
                                                                   "token_endpoint_auth_method": "none"})
        assert answer.status == 201, answer
        return answer.json["client_id"]

    def code(self, scopes=("tasks:read", "tasks:write", "inbox"), client_id=None, redirect=REDIRECT):
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        request = urllib.parse.urlencode({
            "response_type": "code", "client_id": client_id or self.client_id, "redirect_uri": redirect, "state": "s",
            "code_challenge": challenge, "code_challenge_method": "S256", "resource": self.origin + "/mcp", "scope": " ".join(scopes)})
        answer = self.client.call("POST", "/web/oauth/authorization", headers={"Cookie": self.cookie, "Origin": self.origin},
                                  json={"request": request, "decision": "allow", "key_id": self.key["id"], "scopes": list(scopes)})
        assert answer.status == 200, answer
        query = dict(urllib.parse.parse_qsl(answer.json["redirect"].split("?", 1)[1]))
        return query["code"], verifier

    def token(self, **fields):
        fields.setdefault("client_id", self.client_id)
        return self.client.call("POST", "/oauth/token", body=urllib.parse.urlencode(fields), headers=FORM)

    def trade(self, code, verifier, redirect=REDIRECT, client_id=None):
        return self.token(grant_type="authorization_code", code=code, redirect_uri=redirect, code_verifier=verifier,
                          client_id=client_id or self.client_id)

    def works(self, access):
        return self.client.call("GET", "/v1/tasks", token=access).status == 200


PUBLIC_URL = "https://relay.example.test"


@pytest.fixture(params=["python", "curl"])
def flow(request, start_server):
    server = start_server({"PUBLIC_URL": PUBLIC_URL})
    return Flow(server, PythonClient if request.param == "python" else CurlClient)


def refused(response, error, description):
    assert response.status == 400, response
    assert response.header("Cache-Control") == "no-store"
    assert response.json == {"error": error, "error_description": description}


def test_the_code_is_traded_once_and_the_token_acts_as_the_key(flow):
    code, verifier = flow.code()
    answer = flow.trade(code, verifier)
    assert answer.status == 200, answer
    assert answer.json["scope"] == "tasks:read tasks:write inbox" and answer.json["expires_in"] == 3600
    assert flow.works(answer.json["access_token"])
    created = flow.client.call("POST", "/v1/tasks", json={"title": "From the connector"}, token=answer.json["access_token"])
    assert created.status == 201 and created.json["key_id"] == flow.key["id"]


def test_a_wrong_pkce_verifier_is_refused(flow):
    code, _ = flow.code()
    refused(flow.trade(code, secrets.token_urlsafe(48)), "invalid_grant", "code_verifier does not match the code challenge.")


def test_a_code_used_twice_is_refused_and_revokes_what_it_gave(flow):
    code, verifier = flow.code()
    access = flow.trade(code, verifier).json["access_token"]
    assert flow.works(access)
    refused(flow.trade(code, verifier), "invalid_grant", "The code was used already; the grant made from it is revoked.")
    assert not flow.works(access)


def test_a_code_for_another_client_or_redirect_is_refused(flow):
    other = flow.register("Other")
    code, verifier = flow.code()
    refused(flow.trade(code, verifier, client_id=other), "invalid_grant", "The code was issued to another client.")
    refused(flow.trade(code, verifier, redirect=OTHER_REDIRECT), "invalid_grant", "redirect_uri differs from the authorization request's.")
    # Neither spent it.
    assert flow.trade(code, verifier).status == 200


def test_a_refresh_token_used_twice_revokes_the_grant(flow):
    code, verifier = flow.code()
    first = flow.trade(code, verifier).json
    second = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"])
    assert second.status == 200 and flow.works(second.json["access_token"])
    refused(flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"]), "invalid_grant",
            "The refresh token was used already; the grant is revoked.")
    assert not flow.works(second.json["access_token"]) and not flow.works(first["access_token"])
    refused(flow.token(grant_type="refresh_token", refresh_token=second.json["refresh_token"]), "invalid_grant",
            "The refresh token is unknown, expired or revoked.")


def test_scope_escalation_at_refresh_is_refused(flow):
    code, verifier = flow.code(scopes=("tasks:read",))
    first = flow.trade(code, verifier).json
    refused(flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"], scope="tasks:read notify"),
            "invalid_scope", "scope may only name scopes of the grant.")
    narrowed = flow.token(grant_type="refresh_token", refresh_token=first["refresh_token"], scope="tasks:read")
    assert narrowed.status == 200 and narrowed.json["scope"] == "tasks:read"


def test_a_revoked_token_and_a_deleted_keys_token_are_refused(flow):
    code, verifier = flow.code()
    tokens = flow.trade(code, verifier).json
    revoke = flow.client.call("POST", "/oauth/revoke", headers=FORM,
                              body=urllib.parse.urlencode({"token": tokens["access_token"], "client_id": flow.client_id}))
    assert revoke.status == 200 and revoke.body == b""
    assert not flow.works(tokens["access_token"])
    renewed = flow.token(grant_type="refresh_token", refresh_token=tokens["refresh_token"]).json
    assert flow.works(renewed["access_token"])
    assert flow.client.call("DELETE", f"/v1/keys/{flow.key['id']}", token=flow.account_token).status == 204
    assert not flow.works(renewed["access_token"])


def test_an_access_token_is_no_credential_in_x_api_key_or_the_query(flow):
    code, verifier = flow.code()
    access = flow.trade(code, verifier).json["access_token"]
    assert flow.client.call("GET", "/v1/tasks", headers={"X-API-Key": access}).status == 401
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    assert flow.client.call("POST", f"/mcp?key={access}", json=listing).status == 401
    assert flow.client.call("POST", "/mcp", json=listing, token=access, headers={"MCP-Protocol-Version": "2025-06-18"}).status == 200
