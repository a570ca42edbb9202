"""App Attest end to end (app-integrity.md#app-attest): a server started with a root CA of the
test's own (APP_ATTEST_ROOT_CA_FILE) and APP_ATTEST_APP_IDS, attestations built here for the
current time, the success case and one failure for each validation step, and the rules of
POST /v1/attest/challenge."""

import datetime
import os

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from api import assert_error, assert_rate_limited, assert_validation, ACCOUNT_TOKEN
from attest_forge import Authority, attestation
from http_clients import CurlClient, PythonClient
from server_process import ServerProcess, wait_until

APP_ID = "ABCDE12345.com.example.relaydeck"
REQUIRED = ("attestation_required", "This server needs an App Attest attestation.")
INVALID = ("attestation_invalid", "The attestation is not valid.")
RELAXED = {"RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000", "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000",
           "RATE_LIMIT_CHALLENGES_PER_HOUR": "1000000"}


@pytest.fixture(scope="module")
def authority():
    return Authority()


@pytest.fixture(scope="module")
def attest_server(tmp_path_factory, authority):
    workdir = tmp_path_factory.mktemp("attest")
    root = workdir / "root.pem"
    root.write_bytes(authority.root_pem())
    env = dict(RELAXED, APP_ATTEST_APP_IDS=f"ZZZZZ99999.com.example.other,{APP_ID}",
               APP_ATTEST_ENVIRONMENT="development", APP_ATTEST_ROOT_CA_FILE=str(root))
    process = ServerProcess(workdir, env).start()
    yield process
    process.teardown()


@pytest.fixture(params=["python", "curl"])
def client(request, attest_server):
    cls = PythonClient if request.param == "python" else CurlClient
    return cls(attest_server.host, attest_server.port)


def challenge(client) -> str:
    response = client.call("POST", "/v1/attest/challenge")
    assert response.status == 200, response
    assert response.header("Content-Type") == "application/json"
    assert response.header("Cache-Control") == "no-store"
    assert set(response.json) == {"challenge", "expires_in"}
    assert response.json["expires_in"] == 300
    return response.json["challenge"]


def create(client, field):
    return client.call("POST", "/v1/accounts", json={"attestation": field})


def test_a_valid_attestation_makes_an_account(client, authority):
    response = create(client, attestation(authority, APP_ID, challenge(client)))
    assert response.status == 201, response
    assert set(response.json) == {"account", "token"}
    assert ACCOUNT_TOKEN.match(response.json["token"])
    assert client.call("GET", "/v1/account", token=response.json["token"]).status == 200


def test_apples_validation_category_one_to_six_is_accepted(client, authority):
    for value in (1, 6):
        field = attestation(authority, APP_ID, challenge(client), category=value.to_bytes(4, "little"))
        assert create(client, field).status == 201


@pytest.mark.parametrize("step, knobs, reason", [
    ("1: signed by a CA that does not chain to the root", {"issuer": "other"},
     "the certificate chain does not lead to the App Attest root"),
    ("1: the leaf expired", {"leaf_not_after": "past"}, "a certificate is not valid at the time of the request"),
    ("2: the nonce is not SHA-256(authData || clientDataHash)", {"nonce": bytes(32)}, "the nonce does not match"),
    ("3: the key ID is not the hash of the public key", {"key_id": os.urandom(32)},
     "the key ID is not the hash of the certificate's key"),
    ("4: the RP ID hash is of an app ID not configured", {"app_id": "ABCDE12345.com.example.stranger"},
     "the RP ID hash is not one of a configured app ID"),
    ("5: the counter is not 0", {"counter": 1}, "the counter is not 0"),
    ("6: the aaguid is production's", {"environment": "production"}, "the aaguid is not the configured environment's"),
    ("7: the credential ID is not the key ID", {"credential_id": os.urandom(32)}, "the credential ID is not the key ID"),
    ("8: apple_validation_category_01 is 7", {"category": (7).to_bytes(4, "little")},
     "apple_validation_category_01 is not 1 to 6"),
    ("8: apple_validation_category_01 is 0", {"category": bytes(4)}, "apple_validation_category_01 is not 1 to 6"),
    ("the format is not apple-appattest", {"fmt": "packed"}, "fmt is not apple-appattest"),
])
def test_each_failed_validation_step_is_attestation_invalid(client, authority, attest_server, step, knobs, reason):
    knobs = dict(knobs)
    if knobs.get("issuer") == "other":
        knobs["issuer"] = Authority()
    if knobs.get("leaf_not_after") == "past":
        knobs["leaf_not_after"] = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=1)
    app_id = knobs.pop("app_id", APP_ID)
    logged = f'attestation refused reason="{reason}"'
    before = attest_server.log().count(logged)
    assert_error(create(client, attestation(authority, app_id, challenge(client), **knobs)), 401, INVALID)
    # The answer is the same for every step; the log says which one failed.
    wait_until(lambda: attest_server.log().count(logged) == before + 1, timeout=5, message=logged)


def test_without_an_attestation_the_server_asks_for_one(client):
    assert_error(client.call("POST", "/v1/accounts", json={}), 401, REQUIRED)


def test_a_challenge_works_once_also_after_a_failure(client, authority):
    text = challenge(client)
    field = attestation(authority, APP_ID, text)
    assert create(client, field).status == 201
    # The same attestation again: the challenge is used.
    assert_error(create(client, field), 401, INVALID)
    # A failed attempt uses the challenge too.
    text = challenge(client)
    assert_error(create(client, attestation(authority, APP_ID, text, counter=1)), 401, INVALID)
    assert_error(create(client, attestation(authority, APP_ID, text)), 401, INVALID)
    # A challenge the server never gave.
    assert_error(create(client, attestation(authority, APP_ID, "never-given")), 401, INVALID)


def test_a_challenge_is_for_the_text_the_app_hashed(client, authority):
    # Made for one challenge, sent with another the server did give out.
    field = attestation(authority, APP_ID, challenge(client))
    field["challenge"] = challenge(client)
    assert_error(create(client, field), 401, INVALID)


def test_the_shape_of_the_attestation_is_a_422_and_uses_the_challenge(client, authority):
    text = challenge(client)
    assert_validation(create(client, {"key_id": "not base64!", "challenge": text, "object": "AAAA"}),
                      {"attestation.key_id": "Must be base64 text."})
    assert_validation(create(client, {"key_id": "AQID", "challenge": text, "object": "%%"}),
                      {"attestation.key_id": "Must be 32 bytes.", "attestation.object": "Must be base64 text."})
    assert_validation(create(client, "x"), {"attestation": "Must be an object."})
    # An attempt that fails uses the challenge, also one refused for its shape.
    assert_error(create(client, attestation(authority, APP_ID, text)), 401, INVALID)


@pytest.mark.parametrize("expired", ["root", "intermediate"])
def test_every_certificate_must_be_valid_now(start_server, tmp_path, expired):
    past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    authority = Authority(**{f"{expired}_not_after": past})
    root = tmp_path / "root.pem"
    root.write_bytes(authority.root_pem())
    server = start_server(dict(RELAXED, APP_ATTEST_APP_IDS=APP_ID, APP_ATTEST_ENVIRONMENT="development",
                               APP_ATTEST_ROOT_CA_FILE=str(root)))
    client = PythonClient(server.host, server.port)
    assert_error(create(client, attestation(authority, APP_ID, challenge(client))), 401, INVALID)
    wait_until(lambda: "a certificate is not valid at the time of the request" in server.log(), timeout=5,
               message="the reason in the log")


def test_one_key_makes_one_account_again_after_its_deletion(attest_server, authority):
    client = PythonClient(attest_server.host, attest_server.port)
    key = ec.generate_private_key(ec.SECP256R1())
    created = create(client, attestation(authority, APP_ID, challenge(client), key=key))
    assert created.status == 201, created
    # The same key, attested again for a new challenge: it has an account.
    assert_error(create(client, attestation(authority, APP_ID, challenge(client), key=key)), 401, INVALID)
    assert client.call("DELETE", "/v1/account", token=created.json["token"]).status == 204
    # Once that account is deleted, the key can make a new one (app-integrity.md#what-the-server-validates).
    assert create(client, attestation(authority, APP_ID, challenge(client), key=key)).status == 201


def test_challenges_are_limited_for_each_address(start_server):
    server = start_server({"RATE_LIMIT_CHALLENGES_PER_HOUR": "3"})
    py = PythonClient(server.host, server.port)
    curl = CurlClient(server.host, server.port)
    # Also with App Attest off.
    for client in (py, curl, py):
        assert client.call("POST", "/v1/attest/challenge").status == 200
    assert_rate_limited(curl.call("POST", "/v1/attest/challenge"), max_seconds=1200)
    # Account creation has its own limit.
    assert py.call("POST", "/v1/accounts", json={}).status == 201
