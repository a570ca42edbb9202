"""The one-time challenges on two relaydeckd on one PostgreSQL (issue 25): an App Attest
challenge given by node A makes an account on node B, once; a passkey registered and used to
sign in with each challenge from the other node, once. Behind a load balancer the app's or the
browser's next request may reach either node. The module has a cluster of its own
(two_nodes.py), in either mode of the suite."""

import re

import pytest

from api import UNAUTHORIZED, assert_error, create_account
from attest_forge import Authority, attestation
from postgres_cluster import binaries
from test_app_attest import APP_ID, INVALID, RELAXED
from two_nodes import nodes, postgres  # noqa: F401 (the fixtures)
from webauthn_soft import SoftAuthenticator

pytestmark = [pytest.mark.skipif(binaries() is None, reason="needs Debian's postgresql package (make test-deps)"),
              pytest.mark.slow]

# Both nodes serve one console's origin, as behind a load balancer.
PUBLIC = "https://console.example.test"
COOKIE = "__Host-relaydeck_session"


def challenge(client) -> str:
    response = client.call("POST", "/v1/attest/challenge")
    assert response.status == 200, response
    return response.json["challenge"]


def test_an_app_attest_challenge_from_one_node_makes_an_account_on_the_other_once(nodes, tmp_path):
    authority = Authority()
    root = tmp_path / "root.pem"
    root.write_bytes(authority.root_pem())
    (_, a), (_, b) = nodes(dict(RELAXED, APP_ATTEST_APP_IDS=APP_ID, APP_ATTEST_ENVIRONMENT="development",
                                APP_ATTEST_ROOT_CA_FILE=str(root)))
    for first, second in ((a, b), (b, a)):
        field = attestation(authority, APP_ID, challenge(first))
        created = second.call("POST", "/v1/accounts", json={"attestation": field})
        assert created.status == 201, created
        assert first.call("GET", "/v1/account", token=created.json["token"]).status == 200
        # Used on one node, it is used on both.
        again = attestation(authority, APP_ID, field["challenge"])
        assert_error(first.call("POST", "/v1/accounts", json={"attestation": again}), 401, INVALID)
        assert_error(second.call("POST", "/v1/accounts", json={"attestation": again}), 401, INVALID)
    # A failed attempt on one node uses it on the other too.
    text = challenge(a)
    assert_error(b.call("POST", "/v1/accounts", json={"attestation": attestation(authority, APP_ID, text, counter=1)}),
                 401, INVALID)
    assert_error(a.call("POST", "/v1/accounts", json={"attestation": attestation(authority, APP_ID, text)}), 401, INVALID)


def call(client, method, path, cookie=None, **kwargs):
    headers = {"Origin": PUBLIC}
    if cookie:
        headers["Cookie"] = f"{COOKIE}={cookie}"
    return client.call(method, path, headers=headers, **kwargs)


def cookie_of(response) -> str:
    match = re.match(rf"^{COOKIE}=(mcs_[0-9A-Za-z]{{43}}); ", response.header("Set-Cookie"))
    assert match, response
    return match.group(1)


def test_a_passkey_registers_and_signs_in_with_challenges_from_the_other_node_once(nodes):
    (_, a), (_, b) = nodes({"PUBLIC_URL": PUBLIC})
    account, token = create_account(a)
    signed_in = call(a, "POST", "/web/session", json={"account_token": token})
    assert signed_in.status == 201, signed_in
    cookie = cookie_of(signed_in)
    authenticator = SoftAuthenticator()

    options = call(a, "POST", "/web/passkeys/registration-options", cookie=cookie)
    assert options.status == 200, options
    credential = authenticator.create(options.json, PUBLIC)
    made = call(b, "POST", "/web/passkeys", cookie=cookie, json={"name": "My laptop", "credential": credential})
    assert made.status == 201, made
    # The registration's challenge is used on both nodes.
    for node in (a, b):
        again = call(node, "POST", "/web/passkeys", cookie=cookie, json={"name": "Again", "credential": credential})
        assert again.status == 422, again

    options = call(b, "POST", "/web/passkeys/authentication-options")
    assert options.status == 200, options
    assertion = authenticator.get(options.json, PUBLIC)
    signed = call(a, "POST", "/web/passkeys/authentication", json={"credential": assertion})
    assert signed.status == 201 and signed.json["account_id"] == account["id"], signed
    assert call(b, "GET", "/v1/account", cookie=cookie_of(signed)).status == 200
    for node in (a, b):
        assert_error(call(node, "POST", "/web/passkeys/authentication", json={"credential": assertion}), 401, UNAUTHORIZED)
