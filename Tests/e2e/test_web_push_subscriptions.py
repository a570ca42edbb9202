"""Web Push subscriptions against the binary (issue 21): the VAPID key is made at the first
start and is the same after a restart (a new key would orphan every subscription); a browser's
PushSubscription.toJSON() is stored and given back without its keys, through curl too; an
endpoint on this machine is refused unless WEB_PUSH_ALLOW_PRIVATE_HOSTS=true, which
check-config shows; bad input is a 422 naming the field; an API key gets 403."""

import base64
import subprocess

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from api import assert_error, assert_validation, create_account, create_key
from http_clients import CurlClient, PythonClient
from server_process import base_environment, binary_path

PRIVATE = "Must be a push service on the internet, not an address of this machine or its network."


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def browser_subscription(endpoint: str) -> dict:
    """What PushSubscription.toJSON() gives: a P-256 key made as a browser makes it."""
    key = ec.generate_private_key(ec.SECP256R1())
    point = key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return {"endpoint": endpoint, "expirationTime": None, "keys": {"p256dh": b64url(point), "auth": b64url(bytes(range(16)))}}


def test_the_key_is_made_once_and_survives_a_restart(start_server, tmp_path):
    first = start_server()
    _, token = create_account(PythonClient(first.host, first.port))
    key = PythonClient(first.host, first.port).call("GET", "/v1/web-push/key", token=token)
    assert key.status == 200, key
    point = base64.urlsafe_b64decode(key.json["public_key"] + "==")
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)  # a point on the curve
    first.stop()
    second = start_server()
    again = PythonClient(second.host, second.port).call("GET", "/v1/web-push/key", token=token)
    assert again.json == key.json


def test_a_browser_subscription_is_stored_listed_and_deleted_through_curl(start_server):
    server = start_server()
    curl = CurlClient(server.host, server.port)
    _, token = create_account(curl)
    subscription = browser_subscription("https://updates.push.example.net/wpush/v2/gAAAAA")
    put = curl.call("PUT", "/v1/web-push/subscriptions/wps_firefox-1", json={**subscription, "label": "Firefox"}, token=token)
    assert put.status == 200, put
    assert put.json["id"] == "wps_firefox-1" and put.json["endpoint"] == subscription["endpoint"]
    assert put.json["label"] == "Firefox" and put.json["expiration_time"] is None
    assert "keys" not in put.json and subscription["keys"]["p256dh"] not in put.text
    listed = curl.call("GET", "/v1/web-push/subscriptions", token=token)
    assert listed.json == {"subscriptions": [put.json]}
    assert curl.call("DELETE", "/v1/web-push/subscriptions/wps_firefox-1", token=token).status == 204
    assert curl.call("DELETE", "/v1/web-push/subscriptions/wps_firefox-1", token=token).status == 404
    _, secret = create_key(curl, token)
    assert_error(curl.call("GET", "/v1/web-push/key", token=secret), 403,
                 ("forbidden", "An API key cannot use this route."))


def test_a_push_service_on_this_machine_needs_the_setting(start_server, tmp_path):
    mock = browser_subscription("https://127.0.0.1:8443/push/1")
    refused = start_server()
    py = PythonClient(refused.host, refused.port)
    _, token = create_account(py)
    assert_validation(py.call("PUT", "/v1/web-push/subscriptions/wps_a", json=mock, token=token), {"endpoint": PRIVATE})
    refused.stop()
    env = {"WEB_PUSH_ALLOW_PRIVATE_HOSTS": "true"}
    allowed = start_server(env)
    py = PythonClient(allowed.host, allowed.port)
    assert py.call("PUT", "/v1/web-push/subscriptions/wps_a", json=mock, token=token).status == 200
    checked = subprocess.run([str(binary_path()), "check-config"], env=base_environment(tmp_path, env),
                             capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0 and "\nWEB_PUSH_ALLOW_PRIVATE_HOSTS=true\n" in checked.stdout, checked
    wrong = subprocess.run([str(binary_path()), "check-config"], env=base_environment(tmp_path, {"WEB_PUSH_ALLOW_PRIVATE_HOSTS": "yes"}),
                           capture_output=True, text=True, timeout=30)
    assert wrong.returncode != 0 and "WEB_PUSH_ALLOW_PRIVATE_HOSTS" in wrong.stderr, wrong


def test_keys_that_are_not_a_browsers_are_refused_naming_the_field(start_server):
    server = start_server()
    py = PythonClient(server.host, server.port)
    _, token = create_account(py)
    bad = browser_subscription("https://push.example.net/x")
    point = bytearray(base64.urlsafe_b64decode(bad["keys"]["p256dh"] + "=="))
    point[-1] ^= 1
    bad["keys"] = {"p256dh": b64url(bytes(point)), "auth": b64url(bytes(15))}
    assert_validation(py.call("PUT", "/v1/web-push/subscriptions/wps_b", json=bad, token=token), {
        "keys.p256dh": "Must be a P-256 public key: base64url of an uncompressed point.",
        "keys.auth": "Must be base64url of 16 bytes.",
    })
