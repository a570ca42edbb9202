"""The web console's sign-in without a browser (docs/web-console-api.md): login links from the
operator's command (once, 15 minutes), the account token, the session cookie and its flags,
the session as an account credential on /v1 and the event stream, the Origin rule, sign-out
and removed sessions, passkeys registered and used with a software authenticator (and every
way an assertion is refused), and the console's static files with their headers."""

import re
import socket
import subprocess
import time

import pytest

from api import UNAUTHORIZED, assert_error, create_account
from http_clients import PythonClient
from server_process import base_environment, binary_path, record_secrets
from stored_rows import execute
from webauthn_soft import UP, SoftAuthenticator

SESSION_ID = re.compile(r"^wss_[0-9a-hjkmnp-tv-z]{26}$")
PASSKEY_ID = re.compile(r"^psk_[0-9a-hjkmnp-tv-z]{26}$")
FORBIDDEN_ORIGIN = ("forbidden", "The Origin header is not the origin of this server.")
PUBLIC = "https://console.example.test"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "manifest-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


class Console:
    """One server, its database for the operator's command, and the origin its pages have."""

    def __init__(self, start_server, tmp_path, public_url: str | None = None):
        self.env = {"PUBLIC_URL": public_url} if public_url else {}
        self.tmp_path = tmp_path
        self.server = start_server(self.env)
        self.py = PythonClient(self.server.host, self.server.port)
        self.origin = public_url or f"http://{self.server.host}:{self.server.port}"
        self.cookie_name = "__Host-relaydeck_session" if public_url else "relaydeck_session"

    def login_link(self, account_id: str) -> str:
        done = subprocess.run([str(binary_path()), "account", "login-link", "--account", account_id],
                              env=base_environment(self.tmp_path, self.env), capture_output=True, text=True, timeout=30)
        record_secrets(done.stdout)
        assert done.returncode == 0, done
        return done.stdout.strip()

    def login_token(self, account_id: str) -> str:
        link = self.login_link(account_id)
        return link.split("#login=", 1)[1]

    def call(self, method, path, cookie=None, origin=None, **kwargs):
        headers = dict(kwargs.pop("headers", {}))
        if cookie:
            headers["Cookie"] = f"{self.cookie_name}={cookie}"
        if origin:
            headers["Origin"] = origin
        return self.py.call(method, path, headers=headers, **kwargs)

    def sign_in(self, body: dict):
        """POST /web/session; returns (response, cookie value)."""
        response = self.call("POST", "/web/session", json=body, origin=self.origin)
        assert response.status == 201, response
        cookie = response.header("Set-Cookie")
        match = re.match(rf"^{re.escape(self.cookie_name)}=(mcs_[0-9A-Za-z]{{43}}); ", cookie)
        assert match, cookie
        return response, match.group(1)

    def new_account(self):
        account, token = create_account(self.py)
        _, cookie = self.sign_in({"account_token": token})
        return account, token, cookie


@pytest.fixture
def console(start_server, tmp_path):
    return Console(start_server, tmp_path)


def assert_session(session: dict, current: bool) -> None:
    assert set(session) == {"id", "created_at", "last_used_at", "user_agent", "current"}, session
    assert SESSION_ID.match(session["id"]) and session["current"] is current, session
    assert abs(session["created_at"] - time.time()) < 120, session


# MARK: Login links and the account token


def test_a_login_link_signs_in_once(console):
    account, _ = create_account(console.py)
    link = console.login_link(account["id"])
    assert re.match(rf"^{re.escape(console.origin.replace('127.0.0.1:' + str(console.server.port), '127.0.0.1:0'))}/app/#login=mcl_[0-9A-Za-z]{{43}}$", link), link
    token = link.split("#login=", 1)[1]
    response, cookie = console.sign_in({"login_token": token})
    assert set(response.json) == {"session", "account_id"} and response.json["account_id"] == account["id"]
    assert_session(response.json["session"], current=True)
    assert response.header("Set-Cookie") == f"relaydeck_session={cookie}; Path=/; HttpOnly; SameSite=Strict"
    assert response.header("Cache-Control") == "no-store"
    # Used once: the same link again is refused, as is a token never issued.
    assert_error(console.call("POST", "/web/session", json={"login_token": token}), 401, UNAUTHORIZED)
    assert_error(console.call("POST", "/web/session", json={"login_token": "mcl_" + "A" * 43}), 401, UNAUTHORIZED)
    # The session it made works.
    current = console.call("GET", "/web/session", cookie=cookie)
    assert current.status == 200 and current.json["account_id"] == account["id"] and current.json["passkeys"] == 0, current


def test_an_expired_login_link_is_refused(console):
    account, _ = create_account(console.py)
    token = console.login_token(account["id"])
    # 15 minutes pass: the row's expiry is moved into the past, in the server's own database.
    assert execute(console.server.env, "UPDATE web_login_links SET expires_at = ?", (int(time.time() * 1000) - 1,)) == 1
    assert_error(console.call("POST", "/web/session", json={"login_token": token}), 401, UNAUTHORIZED)


def test_the_account_token_signs_in_and_bad_bodies_are_refused(console):
    account, token = create_account(console.py)
    response, _ = console.sign_in({"account_token": token})
    assert response.json["account_id"] == account["id"]
    assert_error(console.call("POST", "/web/session", json={"account_token": "mca_" + "A" * 43}), 401, UNAUTHORIZED)
    for body in ({}, {"account_token": token, "login_token": "mcl_x"}):
        refused = console.call("POST", "/web/session", json=body)
        assert refused.status == 422 and refused.json["error"]["code"] == "validation_failed", refused
    # Another page's Origin cannot sign the browser in.
    assert_error(console.call("POST", "/web/session", json={"account_token": token}, origin="https://evil.example"),
                 403, FORBIDDEN_ORIGIN)


def test_sign_in_attempts_are_rate_limited_by_address(console):
    for _ in range(20):
        assert_error(console.call("POST", "/web/session", json={"login_token": "mcl_" + "B" * 43}), 401, UNAUTHORIZED)
    limited = console.call("POST", "/web/session", json={"login_token": "mcl_" + "B" * 43})
    assert limited.status == 429 and limited.json["error"]["code"] == "rate_limited", limited


def test_with_an_https_public_url_the_cookie_is_host_prefixed_and_secure(start_server, tmp_path):
    console = Console(start_server, tmp_path, PUBLIC)
    account, _ = create_account(console.py)
    link = console.login_link(account["id"])
    assert link.startswith(f"{PUBLIC}/app/#login=mcl_"), link
    response, cookie = console.sign_in({"login_token": link.split("#login=", 1)[1]})
    assert response.header("Set-Cookie") == f"__Host-relaydeck_session={cookie}; Path=/; HttpOnly; Secure; SameSite=Strict"
    assert console.call("GET", "/v1/account", cookie=cookie).status == 200
    # The plain name is not this server's cookie where the origin is HTTPS.
    plain = console.py.call("GET", "/v1/account", headers={"Cookie": f"relaydeck_session={cookie}"})
    assert_error(plain, 401, UNAUTHORIZED)
    # Changes need the public origin; the loopback address the request really went to is not it.
    assert_error(console.call("POST", "/v1/keys", cookie=cookie, json={"label": "x"},
                              origin=f"http://{console.server.host}:{console.server.port}"), 403, FORBIDDEN_ORIGIN)
    assert console.call("POST", "/v1/keys", cookie=cookie, json={"label": "x"}, origin=PUBLIC).status == 201


# MARK: The session as an account credential


def test_the_session_is_an_account_credential_and_changes_need_the_origin(console):
    account, _, cookie = console.new_account()
    got = console.call("GET", "/v1/account", cookie=cookie)
    assert got.status == 200 and got.json["id"] == account["id"], got
    assert console.call("GET", "/v1/keys", cookie=cookie).status == 200
    made = console.call("POST", "/v1/keys", cookie=cookie, json={"label": "From the web"}, origin=console.origin)
    assert made.status == 201, made
    # Without Origin, or with another one, a change with the cookie is refused before anything happens.
    assert_error(console.call("POST", "/v1/keys", cookie=cookie, json={"label": "x"}), 403, FORBIDDEN_ORIGIN)
    assert_error(console.call("POST", "/v1/keys", cookie=cookie, json={"label": "x"}, origin="https://evil.example"),
                 403, FORBIDDEN_ORIGIN)
    assert_error(console.call("DELETE", f"/v1/keys/{made.json['key']['id']}", cookie=cookie, origin="null"),
                 403, FORBIDDEN_ORIGIN)
    assert len(console.call("GET", "/v1/keys", cookie=cookie).json["keys"]) == 1
    # A cookie that names no session is no credential.
    assert_error(console.call("GET", "/v1/account", cookie="mcs_" + "A" * 43), 401, UNAUTHORIZED)


def test_the_session_needs_no_app_code(start_server, tmp_path):
    console = Console(start_server, tmp_path)
    # The app code is checked for the account token only; the server restarts with it on.
    console.server.teardown()
    console.server = start_server({"APP_TOTP_SECRET": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"})
    console.py = PythonClient(console.server.host, console.server.port)
    console.origin = f"http://{console.server.host}:{console.server.port}"
    done = subprocess.run([str(binary_path()), "account", "create"], env=base_environment(tmp_path), capture_output=True,
                          text=True, timeout=30)
    record_secrets(done.stdout)
    token = re.search(r'"token":"(mca_[0-9A-Za-z]{43})"', done.stdout).group(1)
    account_id = re.search(r'"id":"(acc_[0-9a-z]{26})"', done.stdout).group(1)
    assert console.py.call("GET", "/v1/account", token=token).json["error"]["code"] == "app_code_invalid"
    _, cookie = console.sign_in({"login_token": console.login_token(account_id)})
    assert console.call("GET", "/v1/account", cookie=cookie).status == 200


def test_the_event_stream_takes_the_session(console):
    _, _, cookie = console.new_account()
    sock = socket.create_connection((console.server.host, console.server.port), timeout=10)
    try:
        sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: {console.server.host}\r\nAccept: text/event-stream\r\n"
                     f"Cookie: relaydeck_session={cookie}\r\n\r\n".encode())
        received = b""
        while b"event: ready" not in received:
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk
        head = received.split(b"\r\n\r\n", 1)[0].decode()
        assert head.startswith("HTTP/1.1 200") and "text/event-stream" in head, head
    finally:
        sock.close()


def test_ending_the_session_ends_its_event_stream(console):
    _, token, cookie = console.new_account()
    streams = []
    for header in (f"Cookie: relaydeck_session={cookie}", f"Authorization: Bearer {token}"):
        sock = socket.create_connection((console.server.host, console.server.port), timeout=10)
        sock.sendall(f"GET /v1/events HTTP/1.1\r\nHost: {console.server.host}\r\n{header}\r\n\r\n".encode())
        received = b""
        while b"event: ready" not in received:
            received += sock.recv(65536)
        streams.append(sock)
    try:
        assert console.call("DELETE", "/web/session", cookie=cookie, origin=console.origin).status == 204
        # The session's stream ends (the server closes it); the token's stream goes on.
        session_stream, token_stream = streams
        while chunk := session_stream.recv(65536):
            assert b"event:" not in chunk or b": ping" in chunk, chunk
        token_stream.settimeout(0.5)
        with pytest.raises(socket.timeout):
            token_stream.recv(65536)
    finally:
        for sock in streams:
            sock.close()


def test_sign_out_and_a_removed_session_end_the_cookie(console):
    account, token, first = console.new_account()
    _, second = console.sign_in({"account_token": token})
    listed = console.call("GET", "/web/sessions", cookie=first)
    assert listed.status == 200 and len(listed.json["sessions"]) == 2, listed
    for session in listed.json["sessions"]:
        assert_session(session, current=session["current"])
    assert [s["current"] for s in listed.json["sessions"]].count(True) == 1
    other = next(s for s in listed.json["sessions"] if not s["current"])
    # Removing needs the Origin too.
    assert_error(console.call("DELETE", f"/web/sessions/{other['id']}", cookie=first), 403, FORBIDDEN_ORIGIN)
    assert console.call("DELETE", f"/web/sessions/{other['id']}", cookie=first, origin=console.origin).status == 204
    assert_error(console.call("GET", "/v1/account", cookie=second), 401, UNAUTHORIZED)
    assert console.call("DELETE", f"/web/sessions/{other['id']}", cookie=first, origin=console.origin).status == 404
    out = console.call("DELETE", "/web/session", cookie=first, origin=console.origin)
    assert out.status == 204 and out.header("Set-Cookie") == "relaydeck_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
    assert_error(console.call("GET", "/web/session", cookie=first), 401, UNAUTHORIZED)
    assert_error(console.call("GET", "/v1/keys", cookie=first), 401, UNAUTHORIZED)


def test_deleting_the_account_ends_its_sessions(console):
    _, _, cookie = console.new_account()
    assert console.call("DELETE", "/v1/account", cookie=cookie, origin=console.origin).status == 204
    assert_error(console.call("GET", "/web/session", cookie=cookie), 401, UNAUTHORIZED)


# MARK: Passkeys


def register(console, cookie, authenticator, name="My laptop"):
    options = console.call("POST", "/web/passkeys/registration-options", cookie=cookie, origin=console.origin)
    assert options.status == 200, options
    credential = authenticator.create(options.json, console.origin)
    made = console.call("POST", "/web/passkeys", cookie=cookie, origin=console.origin,
                        json={"name": name, "credential": credential})
    assert made.status == 201, made
    return options.json, made.json["passkey"]


def authentication_options(console):
    options = console.call("POST", "/web/passkeys/authentication-options", origin=console.origin)
    assert options.status == 200, options
    return options.json


@pytest.mark.parametrize("algorithm", ["ES256", "Ed25519"])
def test_a_passkey_registers_and_signs_in(console, algorithm):
    account, _, cookie = console.new_account()
    authenticator = SoftAuthenticator(algorithm)
    options, passkey = register(console, cookie, authenticator)
    public_key = options["publicKey"]
    assert public_key["rp"] == {"id": console.server.host, "name": "Relaydeck"}
    assert public_key["pubKeyCredParams"] == [{"type": "public-key", "alg": -7}, {"type": "public-key", "alg": -8}]
    assert public_key["attestation"] == "none" and public_key["excludeCredentials"] == []
    assert public_key["authenticatorSelection"]["residentKey"] == "required"
    assert public_key["authenticatorSelection"]["userVerification"] == "required"
    assert set(passkey) == {"id", "name", "created_at", "last_used_at"} and PASSKEY_ID.match(passkey["id"])
    assert passkey["name"] == "My laptop" and passkey["last_used_at"] is None
    assert console.call("GET", "/web/passkeys", cookie=cookie).json == {"passkeys": [passkey]}
    assert console.call("GET", "/web/session", cookie=cookie).json["passkeys"] == 1
    # The next registration leaves this one out.
    again = console.call("POST", "/web/passkeys/registration-options", cookie=cookie, origin=console.origin)
    assert [c["type"] for c in again.json["publicKey"]["excludeCredentials"]] == ["public-key"]

    options = authentication_options(console)
    assert options["publicKey"]["rpId"] == console.server.host and options["publicKey"]["allowCredentials"] == []
    assert options["publicKey"]["userVerification"] == "required"
    signed = console.call("POST", "/web/passkeys/authentication", origin=console.origin,
                          json={"credential": authenticator.get(options, console.origin)})
    assert signed.status == 201 and signed.json["account_id"] == account["id"], signed
    new_cookie = re.match(r"^relaydeck_session=(mcs_[0-9A-Za-z]{43}); ", signed.header("Set-Cookie")).group(1)
    assert console.call("GET", "/v1/account", cookie=new_cookie).status == 200
    used = console.call("GET", "/web/passkeys", cookie=new_cookie).json["passkeys"][0]
    assert used["last_used_at"] is not None
    # Removed, it signs in no more.
    assert console.call("DELETE", f"/web/passkeys/{passkey['id']}", cookie=new_cookie, origin=console.origin).status == 204
    options = authentication_options(console)
    assert_error(console.call("POST", "/web/passkeys/authentication",
                              json={"credential": authenticator.get(options, console.origin)}), 401, UNAUTHORIZED)


def test_a_registration_that_does_not_check_out_is_refused(console):
    _, _, cookie = console.new_account()
    authenticator = SoftAuthenticator()
    refused = {"error": {"code": "validation_failed", "message": "Invalid fields: credential.",
                         "fields": {"credential": "The passkey could not be verified."}}}
    for change in ({"origin": "https://evil.example"}, {"rp_id": "evil.example"}, {"flags": UP | 0x40},
                   {"kind": "webauthn.get"}, {"challenge": "A" * 43}):
        options = console.call("POST", "/web/passkeys/registration-options", cookie=cookie, origin=console.origin).json
        origin = change.pop("origin", console.origin)
        credential = authenticator.create(options, origin, **change)
        answer = console.call("POST", "/web/passkeys", cookie=cookie, origin=console.origin,
                              json={"name": "x", "credential": credential})
        assert answer.status == 422 and answer.json == refused, (change, answer)
    # Without a session there is nothing to register to.
    assert_error(console.call("POST", "/web/passkeys/registration-options", origin=console.origin), 401, UNAUTHORIZED)
    assert console.call("GET", "/web/passkeys", cookie=cookie).json == {"passkeys": []}


def test_a_passkey_assertion_is_refused_for_every_broken_check(console):
    _, _, cookie = console.new_account()
    authenticator = SoftAuthenticator()
    register(console, cookie, authenticator)

    def attempt(**change):
        options = authentication_options(console)
        origin = change.pop("origin", console.origin)
        credential = authenticator.get(options, origin, **change)
        return console.call("POST", "/web/passkeys/authentication", origin=console.origin, json={"credential": credential})

    assert attempt().status == 201  # counter 1
    assert attempt(counter=5).status == 201
    for change in ({"origin": "https://evil.example"}, {"challenge": "A" * 43}, {"rp_id": "evil.example"},
                   {"counter": 5}, {"counter": 3}, {"flags": UP}, {"tamper": True}, {"kind": "webauthn.create"}):
        assert_error(attempt(counter=change.pop("counter", 6), **change), 401, UNAUTHORIZED)
    # A challenge works once: the same assertion sent again is refused.
    options = authentication_options(console)
    credential = authenticator.get(options, console.origin, counter=7)
    assert console.call("POST", "/web/passkeys/authentication", json={"credential": credential}).status == 201
    assert_error(console.call("POST", "/web/passkeys/authentication", json={"credential": credential}), 401, UNAUTHORIZED)
    # A userHandle of another account is refused.
    other = authenticator.get(authentication_options(console), console.origin, counter=9)
    other["response"]["userHandle"] = "YWNjX290aGVy"
    assert_error(console.call("POST", "/web/passkeys/authentication", json={"credential": other}), 401, UNAUTHORIZED)


# MARK: The console's files


def test_the_console_files_are_served_with_their_headers(console):
    page = console.py.call("GET", "/app/")
    assert page.status == 200 and page.header("Content-Type") == "text/html; charset=utf-8", page
    assert page.body.lstrip().lower().startswith(b"<!doctype html>")
    assert page.header("Content-Security-Policy") == CSP
    assert "unsafe-inline" not in CSP and "unsafe-eval" not in CSP
    assert page.header("X-Content-Type-Options") == "nosniff"
    assert page.header("Referrer-Policy") == "no-referrer"
    assert page.header("X-Frame-Options") == "DENY"
    etag = page.header("ETag")
    assert re.match(r'^"[0-9a-f]{32}"$', etag), etag
    assert console.py.call("GET", "/app/index.html").body == page.body
    unchanged = console.py.call("GET", "/app/", headers={"If-None-Match": etag})
    assert unchanged.status == 304 and unchanged.body == b"" and unchanged.header("ETag") == etag
    moved = console.py.call("GET", "/app")
    assert moved.status == 308 and moved.header("Location") == "/app/"
    for path in ("/app/nothing-here.js", "/app/../README.md", "/app/%69ndex.html", "/app//index.html"):
        missing = console.py.call("GET", path)
        assert_error(missing, 404, ("not_found", "Not found."))
        assert missing.header("Content-Security-Policy") == CSP
    refused = console.py.call("POST", "/app/", json={})
    assert refused.status == 405 and refused.header("Allow") == "GET, HEAD"
