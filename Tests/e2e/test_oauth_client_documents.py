"""Client ID Metadata Documents against the built binary (issue 24), through http.client and
curl: a client whose client_id is an https URL is fetched from a loopback HTTPS server of the
test's own (with OAUTH_ALLOW_PRIVATE_HOSTS=true and the test's CA in OAUTH_CA_FILE), kept as
its caching allows, and refused, on this server's page and never with a redirect, when it is
at a private address (the setting off), never answers, sends 10 MB, redirects to another host,
or does not name itself."""

import http.server
import json
import ssl
import threading
import time
import urllib.parse

import pytest

from http_clients import CurlClient, PythonClient
from mock_tls import make_certificate

PUBLIC_URL = "https://relay.example.test"
REDIRECT = "http://127.0.0.1:33418/callback"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


class DocumentServer:
    """HTTPS on 127.0.0.1: each path answers what `routes` says; every request is counted."""

    def __init__(self, directory):
        self.cert, key = make_certificate(str(directory), "documents")
        self.routes = {}
        self.asked = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.asked.append(self.path)
                route = outer.routes.get(self.path)
                if route is None:
                    self.send_error(404)
                    return
                status, headers, body = route(self)
                if status is None:
                    return
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"https://127.0.0.1:{self.port}{path}"

    def document(self, path, cache="max-age=3600", **changes):
        body = {"client_id": self.url(path), "client_name": "Metadata client", "redirect_uris": [REDIRECT],
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                "token_endpoint_auth_method": "none"}
        body.update(changes)
        data = json.dumps(body).encode()
        self.routes[path] = lambda _: (200, {"Content-Type": "application/json", "Cache-Control": cache}, data)
        return self.url(path)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def documents(tmp_path):
    started = DocumentServer(tmp_path)
    yield started
    started.stop()


def authorize_target(client_id):
    return "/oauth/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "state": "s1", "code_challenge": CHALLENGE,
        "code_challenge_method": "S256", "resource": PUBLIC_URL + "/mcp", "scope": "tasks:read"})


def clients(server):
    return [PythonClient(server.host, server.port), CurlClient(server.host, server.port)]


def assert_page(response, text):
    assert response.status == 400, response
    assert response.header("Location") is None
    assert text in response.text, response.text


def test_a_document_is_fetched_kept_as_its_caching_allows_and_the_request_goes_on(start_server, documents):
    server = start_server({"PUBLIC_URL": PUBLIC_URL, "OAUTH_ALLOW_PRIVATE_HOSTS": "true", "OAUTH_CA_FILE": documents.cert})
    url = documents.document("/client.json")
    for client in clients(server):
        response = client.call("GET", authorize_target(url))
        assert response.status == 302, response
        assert response.header("Location") == "/app/#/authorize?" + authorize_target(url).split("?", 1)[1]
    # Fetched once: the copy is kept for its max-age.
    assert documents.asked == ["/client.json"]
    # A document that may not be cached is fetched at each authorization.
    fresh = documents.document("/fresh.json", cache="no-store")
    for client in clients(server):
        assert client.call("GET", authorize_target(fresh)).status == 302
    assert documents.asked.count("/fresh.json") == 2


def test_a_document_at_a_private_address_is_refused_without_the_setting(start_server, documents):
    server = start_server({"PUBLIC_URL": PUBLIC_URL, "OAUTH_CA_FILE": documents.cert})
    url = documents.document("/client.json")
    for client in clients(server):
        assert_page(client.call("GET", authorize_target(url)),
                    "The client metadata document is on an address of this machine or its network")
    assert documents.asked == []


def test_a_document_that_never_answers_or_sends_10_mb_is_refused(start_server, documents):
    server = start_server({"PUBLIC_URL": PUBLIC_URL, "OAUTH_ALLOW_PRIVATE_HOSTS": "true", "OAUTH_CA_FILE": documents.cert})
    release = threading.Event()

    def silent(_):
        release.wait(30)
        return None, {}, b""

    documents.routes["/silent.json"] = silent
    big = documents.url("/big.json")
    documents.routes["/big.json"] = lambda _: (200, {"Content-Type": "application/json"}, b" " * (10 * 1024 * 1024))
    try:
        client = PythonClient(server.host, server.port)
        assert_page(client.call("GET", authorize_target(documents.url("/silent.json"))),
                    "The client metadata document did not arrive within 5 seconds.")
        assert_page(client.call("GET", authorize_target(big)), "The client metadata document is larger than 64 KiB.")
    finally:
        release.set()


@pytest.mark.parametrize("changes, text", [
    ({"client_id": "https://someone.example/else.json"}, "client_id is not the URL it was fetched from"),
    ({"token_endpoint_auth_method": "client_secret_basic"}, "must be public"),
    ({"redirect_uris": ["http://evil.example/cb"]}, "Each redirect URI must be"),
])
def test_a_document_that_does_not_hold_is_refused(start_server, documents, changes, text):
    server = start_server({"PUBLIC_URL": PUBLIC_URL, "OAUTH_ALLOW_PRIVATE_HOSTS": "true", "OAUTH_CA_FILE": documents.cert})
    url = documents.document("/client.json", **changes)
    for client in clients(server):
        assert_page(client.call("GET", authorize_target(url)), text)


def test_a_redirect_to_another_host_is_not_followed(start_server, documents):
    server = start_server({"PUBLIC_URL": PUBLIC_URL, "OAUTH_ALLOW_PRIVATE_HOSTS": "true", "OAUTH_CA_FILE": documents.cert})
    documents.routes["/moved.json"] = lambda _: (302, {"Location": "https://localhost:1/client.json"}, b"")
    assert_page(PythonClient(server.host, server.port).call("GET", authorize_target(documents.url("/moved.json"))),
                "redirects to another host")
