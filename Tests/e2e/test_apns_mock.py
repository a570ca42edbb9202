"""The mock APNs server itself: it must accept what APNs accepts and refuse what APNs refuses,
or the push tests that use it prove nothing. Checked with curl (its own HTTP/2 client,
nghttp2) and with a small client on the `h2` package for what curl cannot show."""

import base64
import json
import shutil
import socket
import ssl
import subprocess
import time

import h2.config
import h2.connection
import h2.events
import h2.settings
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from apns_mock import APNsMock, verify_provider_token

TOKEN = "ab" * 32


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def provider_token(private_key_pem: str, key_id="KEY1234567", team_id="TEAM123456", iat=None) -> str:
    key = serialization.load_pem_private_key(private_key_pem.encode(), None)
    head = b64url(json.dumps({"alg": "ES256", "kid": key_id}).encode())
    claims = b64url(json.dumps({"iss": team_id, "iat": int(time.time()) if iat is None else iat}).encode())
    r, s = decode_dss_signature(key.sign(f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256())))
    return f"{head}.{claims}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


@pytest.fixture
def mock():
    server = APNsMock().start()
    yield server
    server.stop()


def curl(mock, path=f"/3/device/{TOKEN}", token=None, body='{"aps":{"alert":"hi"}}', topic="com.example.app"):
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    command = ["curl", "-sS", "--http2", "--cacert", mock.ca_file, "-o", "-", "-w", "\n%{http_code} %{http_version}",
               "-X", "POST", f"{mock.url}{path}", "-H", f"apns-topic: {topic}", "-H", "apns-push-type: alert",
               "--data-binary", body]
    if token is not False:
        command += ["-H", f"authorization: bearer {token or provider_token(mock.private_key_pem)}"]
    out = subprocess.run(command, capture_output=True, text=True, timeout=20, check=True).stdout
    body, _, last = out.rpartition("\n")
    status, version = last.split()
    return int(status), version, json.loads(body) if body else None


def test_curl_over_http2_is_answered_200_and_recorded(mock):
    status, version, body = curl(mock)
    assert (status, version, body) == (200, "2", None)
    [request] = mock.wait_for(1)
    assert request.method == "POST"
    assert request.path == f"/3/device/{TOKEN}"
    assert request.device_token == TOKEN
    assert request.headers["apns-topic"] == "com.example.app"
    assert request.headers["apns-push-type"] == "alert"
    assert request.json == {"aps": {"alert": "hi"}}
    assert request.jwt_error is None
    assert request.jwt_claims["iss"] == "TEAM123456"
    assert request.jwt_header == {"alg": "ES256", "kid": "KEY1234567"}


def test_provider_tokens_that_apns_refuses_are_refused(mock):
    other_key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    assert curl(mock, token=False)[::2] == (403, {"reason": "MissingProviderToken"})
    assert curl(mock, token=provider_token(other_key))[::2] == (403, {"reason": "InvalidProviderToken"})
    assert curl(mock, token=provider_token(mock.private_key_pem, key_id="OTHERKEY00"))[::2] == \
        (403, {"reason": "InvalidProviderToken"})
    assert curl(mock, token=provider_token(mock.private_key_pem, team_id="OTHERTEAM0"))[::2] == \
        (403, {"reason": "InvalidProviderToken"})
    old = provider_token(mock.private_key_pem, iat=int(time.time()) - 3700)
    assert curl(mock, token=old)[::2] == (403, {"reason": "ExpiredProviderToken"})


def test_the_signature_must_be_raw_r_and_s_not_der():
    key = ec.generate_private_key(ec.SECP256R1())
    head = b64url(json.dumps({"alg": "ES256", "kid": "K"}).encode())
    claims = b64url(json.dumps({"iss": "T", "iat": int(time.time())}).encode())
    der = key.sign(f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    error, _, _ = verify_provider_token(f"{head}.{claims}.{b64url(der)}", key.public_key(), "K", "T")
    assert error == "InvalidProviderToken"
    r, s = decode_dss_signature(der)
    raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    assert verify_provider_token(f"{head}.{claims}.{b64url(raw)}", key.public_key(), "K", "T")[0] is None


def test_bad_paths_topics_and_payloads_are_refused(mock):
    assert curl(mock, path="/3/device/")[::2] == (404, {"reason": "BadPath"})
    assert curl(mock, topic="")[::2] == (400, {"reason": "MissingTopic"})
    assert curl(mock, body="")[::2] == (400, {"reason": "PayloadEmpty"})


def test_failures_on_demand_for_the_next_requests_and_for_a_token(mock):
    mock.fail_next(410)
    mock.fail_next(429, count=2)
    mock.fail_next(400, "BadDeviceToken", token="cd" * 32, count=None)
    status, _, body = curl(mock)
    assert status == 410 and body["reason"] == "Unregistered" and isinstance(body["timestamp"], int)
    assert curl(mock)[::2] == (429, {"reason": "TooManyRequests"})
    assert curl(mock)[::2] == (429, {"reason": "TooManyRequests"})
    assert curl(mock)[::2] == (200, None)
    for _ in range(2):
        assert curl(mock, path=f"/3/device/{'cd' * 32}")[::2] == (400, {"reason": "BadDeviceToken"})
    mock.fail_next(503)
    mock.fail_next(500)
    mock.fail_next(403, "ExpiredProviderToken")
    assert curl(mock)[::2] == (503, {"reason": "ServiceUnavailable"})
    assert curl(mock)[::2] == (500, {"reason": "InternalServerError"})
    assert curl(mock)[::2] == (403, {"reason": "ExpiredProviderToken"})
    assert [r.status for r in mock.wait_for(9)] == [410, 429, 429, 200, 400, 400, 503, 500, 403]


class H2Client:
    """Just enough of an HTTP/2 client to see SETTINGS, GOAWAY and PING answers."""

    def __init__(self, mock):
        context = ssl.create_default_context(cafile=mock.ca_file)
        context.set_alpn_protocols(["h2"])
        self.sock = context.wrap_socket(socket.create_connection(("127.0.0.1", mock.port), timeout=5),
                                        server_hostname="localhost")
        assert self.sock.selected_alpn_protocol() == "h2"
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())
        self.token = provider_token(mock.private_key_pem)

    def events(self, until):
        seen = []
        while not any(until(e) for e in seen):
            data = self.sock.recv(65536)
            if not data:
                break
            seen += self.conn.receive_data(data)
            self.sock.sendall(self.conn.data_to_send())
        return seen

    def post(self):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"),
                                        (":path", f"/3/device/{TOKEN}"), ("authorization", f"bearer {self.token}"),
                                        ("apns-topic", "t")])
        self.conn.send_data(stream, b"{}", end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        return stream


def test_it_advertises_max_concurrent_streams_and_answers_ping():
    with APNsMock(max_concurrent_streams=3) as mock:
        client = H2Client(mock)
        events = client.events(lambda e: isinstance(e, h2.events.RemoteSettingsChanged))
        [settings] = [e for e in events if isinstance(e, h2.events.RemoteSettingsChanged)]
        assert settings.changed_settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS].new_value == 3
        client.conn.ping(b"12345678")
        client.sock.sendall(client.conn.data_to_send())
        client.events(lambda e: isinstance(e, h2.events.PingAckReceived))
        mock.wait_until(lambda m: m.pings == 1)


def test_goaway_leaves_the_request_unprocessed_and_closes():
    with APNsMock() as mock:
        client = H2Client(mock)
        first = client.post()
        client.events(lambda e: isinstance(e, h2.events.StreamEnded) and e.stream_id == first)
        mock.fail_next("goaway")
        second = client.post()
        events = client.events(lambda e: isinstance(e, h2.events.ConnectionTerminated))
        [goaway] = [e for e in events if isinstance(e, h2.events.ConnectionTerminated)]
        assert goaway.last_stream_id == first < second
        assert goaway.error_code == 0
        assert [r.reason for r in mock.wait_for(2)] == [None, "goaway"]
        assert mock.goaways == 1


def test_runs_as_a_program_with_a_script(tmp_path):
    ready, events = tmp_path / "ready.json", tmp_path / "events.jsonl"
    process = subprocess.Popen([__import__("sys").executable, "apns_mock.py", "--ready-file", str(ready),
                                "--events-file", str(events), "--script", "429,400:BadDeviceToken",
                                "--max-streams", "7"], cwd=str(__import__("pathlib").Path(__file__).parent))
    try:
        for _ in range(200):
            if ready.exists():
                break
            time.sleep(0.05)
        info = json.loads(ready.read_text())
        assert info["url"] == f"https://127.0.0.1:{info['port']}"

        class Remote:
            url, ca_file = info["url"], info["ca_file"]
            private_key_pem = open(info["private_key_file"]).read()

        assert curl(Remote)[::2] == (429, {"reason": "TooManyRequests"})
        assert curl(Remote)[::2] == (400, {"reason": "BadDeviceToken"})
        assert curl(Remote)[::2] == (200, None)
    finally:
        process.terminate()
        assert process.wait(10) == 0
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    statuses = [line["status"] for line in lines if line["event"] == "request"]
    assert statuses == [429, 400, 200]
    assert all(line["headers"]["apns-topic"] == "com.example.app" for line in lines if line["event"] == "request")
