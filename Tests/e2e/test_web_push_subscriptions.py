"""Web Push subscriptions against the binary (issue 21): the VAPID key is made at the first
start and is the same after a restart (a new key would orphan every subscription); a browser's
PushSubscription.toJSON() is stored and given back without its keys, through curl too; an
endpoint on this machine is refused unless WEB_PUSH_ALLOW_PRIVATE_HOSTS=true, which
check-config shows, and so is a name that resolves to such an address (looked up by the server
itself, through an /etc/hosts of the test's: `hosts_namespace.py`), at the PUT and again at each
send; bad input is a 422 naming the field; an API key gets 403.

The names that resolve to a public address here are only stored: no test makes a question or a
task for their accounts, so nothing is ever sent to them."""

import base64
import subprocess
import time

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from api import assert_error, assert_validation, create_account, create_key
from hosts_namespace import HostsFile
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


# A public address for names that must look like a push service's; nothing is sent to it.
PUBLIC = "93.184.215.14"


def test_a_browser_subscription_is_stored_listed_and_deleted_through_curl(start_server, tmp_path):
    hosts = HostsFile(tmp_path, {"updates.push.example.net": PUBLIC})
    server = start_server(argv_prefix=hosts.argv_prefix())
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


def test_a_name_that_leads_to_this_machine_or_its_network_is_refused_and_a_public_one_stored(start_server, tmp_path):
    hosts = HostsFile(tmp_path, {"push.rebind.test": "127.0.0.9", "push.lan.test": "192.168.1.20",
                                 "push.v6.test": "fd00::1", "push.metadata.test": "169.254.169.254",
                                 "push.public.test": PUBLIC})
    server = start_server(argv_prefix=hosts.argv_prefix())
    for client in (PythonClient(server.host, server.port), CurlClient(server.host, server.port)):
        _, token = create_account(client)
        for name in ("push.rebind.test", "push.lan.test", "push.v6.test", "push.metadata.test"):
            refused = client.call("PUT", "/v1/web-push/subscriptions/wps_a", json=browser_subscription(f"https://{name}/p"), token=token)
            assert_validation(refused, {"endpoint": PRIVATE})
        unknown = client.call("PUT", "/v1/web-push/subscriptions/wps_a", json=browser_subscription("https://push.nowhere.invalid/p"), token=token)
        assert_validation(unknown, {"endpoint": "Must be a push service on the internet: its host name has no address."})
        assert client.call("GET", "/v1/web-push/subscriptions", token=token).json == {"subscriptions": []}
        stored = client.call("PUT", "/v1/web-push/subscriptions/wps_a", json=browser_subscription("https://push.public.test/p"), token=token)
        assert stored.status == 200 and stored.json["endpoint"] == "https://push.public.test/p", stored


def test_a_name_that_turns_private_after_it_was_stored_gets_no_push(start_server, tmp_path):
    """DNS can change between the PUT and a send: each send looks the name up again and refuses
    this machine's addresses (the `blocked` outcome), so a mock push service listening on
    127.0.0.1 gets nothing."""
    from webpush_mock import WebPushMock
    mock = WebPushMock(str(tmp_path), str(tmp_path / "events.jsonl")).start()
    try:
        hosts = HostsFile(tmp_path, {"push.flip.test": PUBLIC})
        server = start_server({"WEB_PUSH_CA_FILE": mock.ca_file, "METRICS_TOKEN": "t" * 32}, argv_prefix=hosts.argv_prefix())
        client = PythonClient(server.host, server.port)
        _, token = create_account(client)
        _, secret = create_key(client, token)
        made = mock.subscribe("flip")
        endpoint = made.endpoint.replace("127.0.0.1", "push.flip.test")
        body = {"endpoint": endpoint, "expirationTime": None, "keys": {"p256dh": made.as_json()["p256dh"], "auth": made.as_json()["auth"]}}
        assert client.call("PUT", "/v1/web-push/subscriptions/wps_flip", json=body, token=token).status == 200
        # Now the name leads to this machine, where the mock listens; only then is a push planned.
        hosts.write({"push.flip.test": "127.0.0.1"})
        assert client.call("POST", "/v1/questions", json={"prompt": "Go?"}, token=secret).status == 201
        blocked = 'relaydeck_pushes_total{service="webpush",kind="question",outcome="blocked"} 1'
        for _ in range(200):
            metrics = client.call("GET", "/metrics", token="t" * 32).text
            if blocked in metrics:
                break
            time.sleep(0.05)
        assert blocked in metrics, [line for line in metrics.splitlines() if "webpush" in line]
        assert not (tmp_path / "events.jsonl").exists() or (tmp_path / "events.jsonl").read_text() == ""
    finally:
        mock.stop()


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
