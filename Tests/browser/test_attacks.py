"""Attacks from the page's side: script payloads in every user text field and in Markdown stay
text (a flag an injected script would set stays unset, no dialog opens), a cross-origin POST
that carries the session cookie gets 403, and passkey assertions that are replayed or come
with a lower sign counter are refused."""

import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from browser_support import add_authenticator, free_port, sign_in_with_token

# Each payload sets window.__pwned if it ever runs as script.
PAYLOADS = [
    '<img src=x onerror="window.__pwned=1">',
    '<script>window.__pwned=1</script>',
    '"><svg onload="window.__pwned=1">',
    "javascript:window.__pwned=1",
]
MARKDOWN_PAYLOAD = "\n\n".join([
    "# <img src=x onerror=\"window.__pwned=1\">",
    "[click](javascript:window.__pwned=1) and [data](data:text/html,<script>window.__pwned=1</script>)",
    "<iframe src=\"javascript:window.__pwned=1\"></iframe>",
    "**<b onmouseover=\"window.__pwned=1\">bold</b>** `<script>window.__pwned=1</script>`",
    "- <img src=x onerror=window.__pwned=1>\n- [ok](https://example.com/\" onmouseover=\"window.__pwned=1)",
    "```\n</code></pre><img src=x onerror=window.__pwned=1>\n```",
    "<https://example.com/<img src=x onerror=window.__pwned=1>>",
])


def assert_not_pwned(page, console):
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__pwned") is None
    # No element the payloads could have made exists in the page's own document.
    assert page.locator("main img, main script, main svg, main iframe, main [onerror], main [onload], main [onmouseover]").count() == 0
    assert page.locator('a[href^="javascript:"], a[href^="data:"]').count() == 0
    console.assert_clean()


def test_script_payloads_in_every_user_text_stay_text(relaydeck, new_context, console):
    _, token = relaydeck.new_account()
    # The browser's own User-Agent is user text too: the sessions list shows it.
    context = new_context(user_agent=PAYLOADS[1])
    page = context.new_page()
    add_authenticator(context, page)
    evil = PAYLOADS[0]
    key, secret = relaydeck.new_key(token, evil[:40])
    other, other_secret = relaydeck.new_key(token, PAYLOADS[1][:40])
    task = relaydeck.http.ok("POST", "/v1/tasks", {"title": PAYLOADS[2], "description": MARKDOWN_PAYLOAD}, token=secret)
    relaydeck.http.ok("PATCH", f"/v1/tasks/{task['id']}", {"status_note": PAYLOADS[1], "progress": 10}, token=secret)
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": PAYLOADS[0], "kind": "choice", "options": [PAYLOADS[3][:30], PAYLOADS[1][:30]], "task_id": task["id"]}, token=secret)
    text_question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": PAYLOADS[2], "kind": "text"}, token=secret)
    relaydeck.http.ok("POST", "/v1/messages", {"to": key["id"], "text": PAYLOADS[0] + PAYLOADS[1]}, token=other_secret)
    relaydeck.http.call("GET", "/v1/tasks", token=secret, headers={"X-Relaydeck-Host": "<img src=x onerror=1>"})

    sign_in_with_token(page, relaydeck, token)
    expect(page.get_by_text(PAYLOADS[2]).first).to_be_visible()
    assert_not_pwned(page, console)

    # The person's own typed answer goes back out as text too.
    card = page.get_by_role("listitem").filter(has_text=PAYLOADS[2]).filter(has=page.get_by_label("Your answer"))
    card.get_by_label("Your answer").fill(PAYLOADS[1])
    card.get_by_role("button", name="Send answer").click()
    page.get_by_role("link", name="Questions").click()
    expect(page.get_by_role("list", name="Answered, expired and cancelled questions").get_by_text(PAYLOADS[1])).to_be_visible()
    assert relaydeck.http.ok("GET", f"/v1/questions/{text_question['id']}", token=secret)["answer"] == PAYLOADS[1]

    for route in ("#/tasks", f"#/task/{task['id']}", "#/keys", f"#/key/{key['id']}", "#/settings"):
        page.goto(relaydeck.app_url + route)
        page.get_by_role("heading", level=1).first.wait_for()
        assert_not_pwned(page, console)

    page.goto(relaydeck.app_url + f"#/task/{task['id']}")
    description = page.get_by_role("region", name="Description")
    expect(description.get_by_role("heading", level=3)).to_have_text('<img src=x onerror="window.__pwned=1">')
    # Links with other schemes stay visible as text; the http(s) one is a real link.
    expect(description).to_contain_text("[click](javascript:window.__pwned=1)")
    for link in description.get_by_role("link").all():
        assert link.get_attribute("href").startswith("https://")
        assert link.get_attribute("rel") == "noopener noreferrer"
    description.hover()
    assert_not_pwned(page, console)
    # A passkey's name, as typed by the person.
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Add a passkey").click()
    dialog = page.get_by_role("dialog", name="Add a passkey")
    dialog.get_by_label("Name of the passkey").fill(PAYLOADS[2][:40])
    dialog.get_by_role("button", name="Register a passkey").click()
    expect(page.get_by_role("list", name="Passkeys").get_by_text(PAYLOADS[2][:40]).first).to_be_visible()
    expect(page.get_by_role("list", name="Signed-in browsers").get_by_text(PAYLOADS[1]).first).to_be_visible()
    assert_not_pwned(page, console)


class AttackerPage(SimpleHTTPRequestHandler):
    """A second origin (another port) whose page posts to the console's server with credentials."""

    target = ""

    def do_GET(self):
        body = f"""<!doctype html><title>attacker</title>
<form id="f" method="POST" action="{self.target}/v1/keys" enctype="text/plain">
<input name='{{"label":"evil","x":"' value='"}}'></form>
<script>
fetch("{self.target}/v1/keys", {{method: "POST", mode: "no-cors", credentials: "include",
  headers: {{"Content-Type": "text/plain"}}, body: JSON.stringify({{label: "evil"}})}})
  .finally(() => document.getElementById("f").submit());
</script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_cross_origin_post_with_the_session_cookie_gets_403(relaydeck, page, console):
    _, token = relaydeck.new_account()
    sign_in_with_token(page, relaydeck, token)
    # localhost on another port: same site, so SameSite=Strict still sends the cookie, and only
    # the Origin check stands between the attacker and the account.
    AttackerPage.target = relaydeck.origin
    attacker = ThreadingHTTPServer(("127.0.0.1", free_port()), AttackerPage)
    threading.Thread(target=attacker.serve_forever, daemon=True).start()
    statuses = []
    attack = page.context.new_page()
    attack.on("response", lambda r: r.url.endswith("/v1/keys") and statuses.append((r.request.method, r.status, "cookie" in r.request.all_headers())))
    try:
        with attack.expect_navigation(url=f"{relaydeck.origin}/v1/keys"):
            attack.goto(f"http://localhost:{attacker.server_address[1]}/")
    finally:
        attacker.shutdown()
        attacker.server_close()
    assert [s[:2] for s in statuses] == [("POST", 403), ("POST", 403)], statuses
    # The form's POST carried the session cookie for certain (a navigation of the same site).
    assert statuses[-1][2], statuses
    assert relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"] == []
    console.errors.clear()


def test_a_replayed_passkey_assertion_and_a_lower_counter_are_refused(relaydeck, new_context, console):
    account_id, _ = relaydeck.new_account()
    context = new_context()
    page = context.new_page()
    cdp, authenticator = add_authenticator(context, page)
    page.goto(relaydeck.login_link(account_id))
    offer = page.get_by_role("dialog", name="Sign in faster next time")
    offer.get_by_role("button", name="Register a passkey").click()
    expect(offer).to_be_hidden()
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Sign out of this browser").click()

    captured = []
    page.on("request", lambda r: r.url.endswith("/web/passkeys/authentication") and captured.append(r.post_data))
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page.get_by_role("heading", name="Agents", level=1)).to_be_visible()
    # The same assertion again: its challenge was used up.
    replay = relaydeck.http.call("POST", "/web/passkeys/authentication", json.loads(captured[0]), headers={"Origin": relaydeck.origin})
    assert replay.status == 401, replay

    # The authenticator forgets how often it signed: its next counter is lower than the server's.
    credential = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"][0]
    assert credential["signCount"] >= 1
    cdp.send("WebAuthn.removeCredential", {"authenticatorId": authenticator, "credentialId": credential["credentialId"]})
    cdp.send("WebAuthn.addCredential", {"authenticatorId": authenticator, "credential": {**credential, "signCount": 0}})
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Sign out of this browser").click()
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page.get_by_text("That passkey is not known to this server.")).to_be_visible()
    expect(page.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    console.assert_clean()
