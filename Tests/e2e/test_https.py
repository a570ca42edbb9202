"""HTTPS served directly (TLS_CERT_FILE, TLS_KEY_FILE): curl with a test CA, openssl s_client
(TLS 1.1 refused, 1.2 and 1.3 accepted, ALPN http/1.1 and nothing else), requests that span
many TLS records and pipelined ones, and SIGHUP: a new certificate for new connections while
an old connection stays up on the old one."""

import json
import shutil
import signal
import socket
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from server_process import wait_until

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl program")


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture
def pki(tmp_path):
    """A test CA and two server certificates it signed (for 127.0.0.1 and localhost)."""
    d = tmp_path / "pki"
    d.mkdir()
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-out", "ca.pem", "-subj", "/CN=Relaydeck Test CA", "-days", "2", cwd=d)
    (d / "ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for name in ["first", "second"]:
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key",
                "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.pem", "-days", "2", "-extfile", "ext", cwd=d)
    shutil.copy(d / "first.pem", d / "cert.pem")
    shutil.copy(d / "first.key", d / "key.pem")
    return d


@pytest.fixture
def https_server(start_server, pki):
    return start_server({"TLS_CERT_FILE": str(pki / "cert.pem"), "TLS_KEY_FILE": str(pki / "key.pem")})


def der(path: Path) -> bytes:
    return ssl.PEM_cert_to_DER_cert(path.read_text())


class TLSConnection:
    def __init__(self, port: int, cafile: Path):
        context = ssl.create_default_context(cafile=str(cafile))
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock = context.wrap_socket(raw, server_hostname="127.0.0.1")
        self.buffer = b""

    def peer_certificate(self) -> bytes:
        return self.sock.getpeercert(binary_form=True)

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_response(self) -> tuple[int, bytes]:
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            assert chunk, "closed before a full head"
            self.buffer += chunk
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        length = next(int(l.split(":", 1)[1]) for l in lines[1:] if l.lower().startswith("content-length:"))
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            assert chunk, "closed before the whole body"
            rest += chunk
        self.buffer = rest[length:]
        return status, rest[:length]

    def get(self, path: str) -> tuple[int, bytes]:
        self.send(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        return self.read_response()

    def close(self):
        self.sock.close()


def test_curl_with_the_test_ca_gets_http_1_1(https_server, pki):
    done = subprocess.run(["curl", "-sS", "-v", "--cacert", str(pki / "ca.pem"),
                           f"https://127.0.0.1:{https_server.port}/health"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"status": "ok", "store": "ok"}
    assert "ALPN: server accepted http/1.1" in done.stderr
    # Plain HTTP on the HTTPS port is not served.
    plain = subprocess.run(["curl", "-sS", f"http://127.0.0.1:{https_server.port}/health"],
                           capture_output=True, text=True, timeout=30)
    assert plain.returncode != 0 or "ok" not in plain.stdout


def s_client(port: int, *args) -> subprocess.CompletedProcess:
    return subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", *args],
                          input="", capture_output=True, text=True, timeout=30)


def test_tls_1_2_and_1_3_only_and_alpn_http_1_1_only(https_server, pki):
    port = https_server.port
    old = s_client(port, "-tls1_1")
    assert "Cipher is (NONE)" in old.stdout or "alert protocol version" in old.stderr, old
    for version, name in [("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")]:
        done = s_client(port, version, "-alpn", "http/1.1", "-CAfile", str(pki / "ca.pem"))
        assert f"Protocol  : {name}" in done.stdout or f"New, {name}" in done.stdout, done.stdout
        assert "ALPN protocol: http/1.1" in done.stdout
        assert "Verify return code: 0 (ok)" in done.stdout
    h2_only = s_client(port, "-alpn", "h2")
    assert "no application protocol" in h2_only.stderr, h2_only
    # The server is still there for everyone else.
    assert TLSConnection(port, pki / "ca.pem").get("/health")[0] == 200


def test_large_bodies_and_pipelined_requests_cross_tls_records(https_server, pki):
    conn = TLSConnection(https_server.port, pki / "ca.pem")
    # Twenty requests in one write: their answers come back in order on the one connection.
    conn.send(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n" * 20)
    for _ in range(20):
        assert conn.read_response() == (200, b'{"status":"ok","store":"ok"}')
    # A body of many TLS records (16 KiB each at most), read whole before the answer.
    body = json.dumps({"unknown": "a" * 900_000}).encode()
    conn.send(b"POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    status, answer = conn.read_response()
    assert status == 422, answer
    # Answers of many records, more than a socket buffer takes at once.
    conn.send(b"GET /install HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 40)
    pages = [conn.read_response() for _ in range(40)]
    assert all(status == 200 for status, _ in pages)
    assert len({page for _, page in pages}) == 1 and sum(len(page) for _, page in pages) > 400_000
    assert pages[0][1].startswith(b"#!/bin/sh") and b"SERVER='https://127.0.0.1'" in pages[0][1]
    conn.close()


def test_sighup_reloads_the_certificate_for_new_connections_only(https_server, pki):
    ca = pki / "ca.pem"
    old = TLSConnection(https_server.port, ca)
    assert old.get("/health")[0] == 200
    assert old.peer_certificate() == der(pki / "first.pem")

    shutil.copy(pki / "second.pem", pki / "cert.pem")
    shutil.copy(pki / "second.key", pki / "key.pem")
    https_server.signal(signal.SIGHUP)
    wait_until(lambda: any("reloaded the TLS certificate" in l for l in https_server.log_lines()), timeout=10,
               message="the reload line")
    new = TLSConnection(https_server.port, ca)
    assert new.peer_certificate() == der(pki / "second.pem")
    assert new.get("/health")[0] == 200
    # The old connection is still up, on its old session.
    assert old.get("/health")[0] == 200
    assert old.peer_certificate() == der(pki / "first.pem")

    # A broken file keeps the certificate there is.
    (pki / "cert.pem").write_text("not a certificate\n")
    https_server.signal(signal.SIGHUP)
    wait_until(lambda: any("could not reload the TLS certificate" in l for l in https_server.log_lines()),
               timeout=10, message="the failed reload line")
    third = TLSConnection(https_server.port, ca)
    assert third.peer_certificate() == der(pki / "second.pem")
    assert third.get("/health")[0] == 200
    for conn in [old, new, third]:
        conn.close()
    assert https_server.stop() == 0


def test_home_page_over_https_names_the_https_address(https_server, pki):
    conn = TLSConnection(https_server.port, pki / "ca.pem")
    status, page = conn.get("/")
    assert status == 200
    assert b"<code>https://127.0.0.1/mcp</code>" in page
    conn.close()


def test_a_handshake_that_never_finishes_is_cut_after_the_header_timeout(start_server, pki):
    # The idle timeout is long; an unfinished handshake gets the (short) header timeout instead,
    # even while it trickles bytes in.
    server = start_server({"TLS_CERT_FILE": str(pki / "cert.pem"), "TLS_KEY_FILE": str(pki / "key.pem"),
                           "HTTP_HEADER_TIMEOUT": "0.5", "HTTP_IDLE_TIMEOUT": "600"})
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=20)
    # The first bytes of a TLS record header (a handshake record), never the rest.
    for byte in [b"\x16", b"\x03", b"\x01"]:
        sock.sendall(byte)
        time.sleep(0.2)
    sock.settimeout(20)
    assert sock.recv(100) == b""
    sock.close()
    # A well-behaved client still gets in.
    assert TLSConnection(server.port, pki / "ca.pem").get("/health")[0] == 200


@pytest.mark.skipif(shutil.which("systemd-socket-activate") is None, reason="needs systemd-socket-activate")
def test_https_on_a_socket_from_systemd(start_server, pki):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = {"TLS_CERT_FILE": str(pki / "cert.pem"), "TLS_KEY_FILE": str(pki / "key.pem"), "DATABASE_PATH": ":memory:"}
    prefix = ["systemd-socket-activate", "-l", f"127.0.0.1:{port}"]
    for name, value in settings.items():
        prefix += ["-E", f"{name}={value}"]
    server = start_server(settings, wait_listening=False, argv_prefix=prefix, name="activated-tls")

    def health():
        try:
            return TLSConnection(port, pki / "ca.pem").get("/health")
        except OSError:
            return None
    assert wait_until(health, timeout=20, interval=0.1, message="HTTPS on the activated socket")[0] == 200
    assert server.stop() == 0


def curl_json(pki, *args):
    done = subprocess.run(["curl", "-sS", "-i", "--cacert", str(pki / "ca.pem"), *args],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    # text mode turns each CRLF into a newline
    head, _, body = done.stdout.partition("\n\n")
    return head, body


def test_the_web_console_on_https_without_public_url_uses_the_https_origin_and_a_host_cookie(https_server, pki):
    base = f"https://localhost:{https_server.port}"
    head, body = curl_json(pki, "-X", "POST", f"{base}/v1/accounts")
    assert head.startswith("HTTP/1.1 201"), head
    token = json.loads(body)["token"]
    # The page's own origin is https: the sign-in is accepted, and the cookie is a __Host- one.
    head, body = curl_json(pki, "-X", "POST", f"{base}/web/session", "-H", f"Origin: {base}",
                           "-H", "Content-Type: application/json", "--data", json.dumps({"account_token": token}))
    assert head.startswith("HTTP/1.1 201"), head
    cookies = [line for line in head.split("\n") if line.lower().startswith("set-cookie:")]
    assert len(cookies) == 1
    assert cookies[0].split(":", 1)[1].strip().startswith("__Host-relaydeck_session=")
    assert "; Secure" in cookies[0] and "; HttpOnly" in cookies[0]
    # The cookie works on the account routes over HTTPS, and a change needs the https origin.
    cookie = cookies[0].split(":", 1)[1].strip().split(";")[0]
    head, body = curl_json(pki, f"{base}/v1/keys", "-H", f"Cookie: {cookie}")
    assert head.startswith("HTTP/1.1 200"), head
    head, _ = curl_json(pki, "-X", "POST", f"{base}/v1/keys", "-H", f"Cookie: {cookie}", "-H", "Origin: https://elsewhere.example",
                        "-H", "Content-Type: application/json", "--data", json.dumps({"label": "x"}))
    assert head.startswith("HTTP/1.1 403"), head


def test_a_large_page_streamed_in_pieces_crosses_tls_whole(https_server, pki):
    """A page over 64 KiB is written chunked as the client reads (`HTTPBodyProducer`); over
    TLS each piece crosses many records and the writes that wait for the socket resume."""
    import http.client

    context = ssl.create_default_context(cafile=str(pki / "ca.pem"))
    conn = http.client.HTTPSConnection("127.0.0.1", https_server.port, context=context, timeout=30)

    def call(method, path, body=None, token=None):
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = conn.getresponse()
        return response, json.loads(response.read())

    _, created = call("POST", "/v1/accounts", {})
    _, made = call("POST", "/v1/keys", {"label": "TLS"}, created["token"])
    secret = made["secret"]
    description = "\U0001F600" * 20_000  # 80,000 bytes
    for index in range(30):
        response, _ = call("POST", "/v1/tasks", {"title": f"Task {index}", "description": description}, secret)
        assert response.status == 201
    seen, cursor = [], None
    while True:
        response, page = call("GET", "/v1/tasks?limit=500" + (f"&cursor={cursor}" if cursor else ""), token=secret)
        assert response.status == 200
        if len(page["tasks"]) > 1:
            assert response.getheader("Transfer-Encoding") == "chunked"
        assert all(task["description"] == description for task in page["tasks"])
        seen += [task["id"] for task in page["tasks"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 30 == len(set(seen))
    conn.close()
