"""Helpers of the browser tests: the real static binary on a loopback port (started as
Tests/e2e does, through its server_process), Debian's chromium driven by Playwright, and an
HTTP client for the agent's side.

The page is opened at http://localhost:PORT/app/ with PUBLIC_URL the same origin: WebAuthn
refuses an IP address as relying party, and browsers treat localhost as a secure context over
plain HTTP (so the session cookie, passkeys and the clipboard work).

Every page records console errors (a CSP violation is one), uncaught exceptions and any
alert/confirm/prompt; `console` asserts at teardown that there were none.
"""

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "e2e"))

from server_process import ServerProcess, base_environment, binary_path, record_secrets  # noqa: E402

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# The README's pictures are replaced only when asked (SCREENSHOTS=update), so that a test run
# leaves the checkout as it was; otherwise they go under .build, for a look after a run.
SCREENSHOTS = (HERE.parents[1] / "docs" / "screenshots" if os.environ.get("SCREENSHOTS") == "update"
               else HERE.parents[1] / ".build" / "screenshots")
RELAXED_LIMITS = {
    "RATE_LIMIT_REQUESTS_PER_MINUTE": "1000000",
    "RATE_LIMIT_ACCOUNTS_PER_HOUR": "1000000",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Response:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers
        self.raw = raw
        self.body = raw.decode("utf-8", "replace")
        self.json = json.loads(self.body) if raw and headers.get("Content-Type", "").startswith("application/json") else None

    def __repr__(self):
        return f"<{self.status} {self.body[:300]!r}>"


class Http:
    """The agent's and the operator's side: plain HTTP to the server, never through the page."""

    def __init__(self, origin):
        self.origin = origin

    def call(self, method, path, body=None, token=None, headers=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.origin + path, data=data, method=method)
        if body is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                result = Response(answer.status, dict(answer.headers), answer.read())
        except urllib.error.HTTPError as error:
            result = Response(error.code, dict(error.headers), error.read())
        record_secrets(result.body)
        return result

    def ok(self, method, path, body=None, token=None, status=None, **kw):
        result = self.call(method, path, body, token, **kw)
        expected = status or (201 if method == "POST" else 204 if method == "DELETE" else 200)
        assert result.status == expected, result
        return result.json


class Relaydeck:
    """One server: its origin, HTTP access, and the operator's commands on its database."""

    def __init__(self, process, origin):
        self.process = process
        self.origin = origin
        self.http = Http(origin)
        self.app_url = origin + "/app/"

    def cli(self, *arguments):
        done = subprocess.run([str(binary_path()), *arguments], env=self.process.env, capture_output=True,
                              text=True, timeout=30, cwd=self.process.workdir)
        record_secrets(done.stdout)
        assert done.returncode == 0, done
        return done.stdout

    def new_account(self):
        """(account id, account token) of a fresh account, made over REST."""
        body = self.http.ok("POST", "/v1/accounts", {})
        return body["account"]["id"], body["token"]

    def login_link(self, account_id):
        """The one-time link `account login-link` prints (the last line with /app/#login=)."""
        output = self.cli("account", "login-link", "--account", account_id)
        lines = [line.strip() for line in output.splitlines() if "/app/#login=" in line]
        assert lines, output
        return lines[-1]

    def new_key(self, token, label):
        body = self.http.ok("POST", "/v1/keys", {"label": label}, token=token)
        return body["key"], body["secret"]


def start_relaydeck(workdir, env=None):
    port = free_port()
    origin = f"http://localhost:{port}"
    settings = {**RELAXED_LIMITS, "LISTEN": f"127.0.0.1:{port}", "PUBLIC_URL": origin, **(env or {})}
    process = ServerProcess(workdir, settings).start()
    return Relaydeck(process, origin)


class Console:
    """What a page said that it should not: console errors, exceptions, dialogs."""

    def __init__(self):
        self.errors = []
        self.dialogs = []

    def watch(self, page):
        page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))

        def on_dialog(dialog):
            self.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()
        page.on("dialog", on_dialog)
        return page

    # The page asks GET /web/session whether it is signed in; without a session that is a 401,
    # which Chromium logs as a failed resource load. Nothing else may fail.
    EXPECTED = ("Failed to load resource: the server responded with a status of 401 (Unauthorized)",)

    def assert_clean(self, allowed=()):
        errors = [e for e in self.errors if e not in self.EXPECTED and not any(a in e for a in allowed)]
        assert not errors, errors
        assert not self.dialogs, self.dialogs


def add_authenticator(context, page):
    """A virtual platform authenticator with user verification, through the DevTools protocol."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True,
    }})
    return cdp, added["authenticatorId"]


def sign_in_with_token(page, relaydeck, token, live=True):
    """Opens the console and signs in by pasting the account token; dismisses the passkey offer.
    `live`: waits for the event stream too (a test that blocks the stream says False)."""
    page.goto(relaydeck.app_url)
    page.get_by_label("Account token").fill(token)
    page.get_by_role("button", name="Sign in with the token").click()
    page.get_by_role("dialog").get_by_role("button", name="Not now").click()
    page.get_by_role("heading", name="Agents", level=1).wait_for()
    # The event stream is up and the lists were read again after its `ready`: from here on
    # every change reaches the page as an event, and no late re-read redraws a list under
    # the test's hands.
    if live:
        page.locator('body[data-synced="true"]').wait_for()
