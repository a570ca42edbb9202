"""The official MCP Python SDK's OAuth client with a Client ID Metadata Document (issue 24):
`OAuthClientProvider(client_metadata_url=...)` names the URL of its document as its client_id
(the server announces `client_id_metadata_document_supported`), the server fetches the
document from the test's HTTPS server on loopback (OAUTH_ALLOW_PRIVATE_HOSTS=true, the test's
CA in OAUTH_CA_FILE), the person allows it in Chromium, and the SDK uses /mcp. No registration
is made."""

import http.server
import json
import ssl
import threading

import pytest
from playwright.sync_api import expect

from browser_support import sign_in_with_token, start_relaydeck
from mock_tls import make_certificate
from test_oauth_consent import Callback
from test_oauth_mcp_sdk import HAND_OVER, Connector, finished

pytest.importorskip("mcp")


class DocumentServer:
    """HTTPS on 127.0.0.1 serving one document; counts the requests."""

    def __init__(self, directory, callback_url):
        self.cert, key = make_certificate(str(directory), "client-document")
        self.asked = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                outer.asked += 1
                body = json.dumps({"client_id": outer.url, "client_name": "Document client", "redirect_uris": [callback_url],
                                   "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                                   "token_endpoint_auth_method": "none"}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "max-age=3600")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}/oauth/client.json"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def setting(tmp_path):
    callback = Callback()
    documents = DocumentServer(tmp_path, callback.url)
    relaydeck = start_relaydeck(tmp_path, {"OAUTH_ALLOW_PRIVATE_HOSTS": "true", "OAUTH_CA_FILE": documents.cert})
    yield relaydeck, callback, documents
    relaydeck.process.teardown()
    documents.stop()
    callback.stop()


def test_the_sdk_signs_in_with_its_metadata_document(setting, page, console):
    relaydeck, callback, documents = setting
    _, token = relaydeck.new_account()
    key, _ = relaydeck.new_key(token, "Phone")
    sign_in_with_token(page, relaydeck, token)
    connector = Connector(relaydeck, callback, client_metadata_url=documents.url)
    thread, result = connector.run(lambda client: client.list_tools())
    authorization = connector.authorizations.get(True, HAND_OVER)
    page.goto(authorization)
    # The name is the document's, not what the SDK would have registered.
    expect(page.get_by_role("heading", name="Connect Document client?", level=1)).to_be_visible()
    expect(page.locator(".consent-redirect")).to_have_text(callback.url)
    page.get_by_role("button", name="Allow").click()
    page.get_by_role("heading", name="Back in the application").wait_for()
    assert len(finished(thread, result).tools) == 11
    assert connector.storage.client_info.client_id == documents.url
    assert documents.asked == 1
    grants = relaydeck.http.ok("GET", f"/v1/keys/{key['id']}/grants", token=token)["grants"]
    assert [(grant["client_id"], grant["client_name"]) for grant in grants] == [(documents.url, "Document client")]
    console.assert_clean()
