"""The rules of the page itself: the security headers of /app/, no inline script or style and
no HTML parsing of strings in the source, the PWA pieces (manifest, icons, a service worker
that caches the shell and not API answers), accessible names on every control, and use with
the keyboard alone."""

import json
import re
from pathlib import Path

from playwright.sync_api import expect

from browser_support import sign_in_with_token

WEB = Path(__file__).resolve().parents[2] / "web"


def test_app_answers_carry_the_security_headers(relaydeck):
    for path in ("/app/", "/app/js/main.js", "/app/css/app.css", "/app/sw.js"):
        answer = relaydeck.http.call("GET", path)
        assert answer.status == 200, (path, answer)
        csp = answer.headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert answer.headers["X-Content-Type-Options"] == "nosniff"


def test_the_source_has_no_inline_script_or_style_and_parses_no_html():
    html = (WEB / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline script"
    assert "<style" not in html and " style=" not in html and not re.search(r"\son\w+=", html)
    for path in WEB.rglob("*.js"):
        text = path.read_text()
        for banned in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "DOMParser"):
            assert banned not in text, f"{banned} in {path.relative_to(WEB)}"
        assert "setAttribute(\"style\"" not in text


def test_the_manifest_names_the_icons_and_the_scope(relaydeck):
    manifest = json.loads(relaydeck.http.call("GET", "/app/manifest.webmanifest").body)
    assert manifest["start_url"] == "/app/" and manifest["scope"] == "/app/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        answer = relaydeck.http.call("GET", "/app/" + icon["src"])
        assert answer.status == 200 and answer.headers["Content-Type"] == icon["type"], icon


def test_the_service_worker_caches_the_shell_but_not_api_answers(relaydeck, page, console):
    _, token = relaydeck.new_account()
    sign_in_with_token(page, relaydeck, token)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("async () => (await caches.keys()).length === 1 && (await (await caches.open((await caches.keys())[0])).keys()).length > 20")
    cached = page.evaluate("async () => (await (await caches.open((await caches.keys())[0])).keys()).map(r => new URL(r.url).pathname)")
    assert "/app/js/main.js" in cached and "/app/index.html" in cached
    page.reload()
    page.get_by_role("heading", name="Agents", level=1).wait_for()
    cached = page.evaluate("async () => (await (await caches.open((await caches.keys())[0])).keys()).map(r => new URL(r.url).pathname)")
    assert all(path.startswith("/app/") for path in cached), cached
    console.assert_clean()


NAMELESS_CONTROLS = """() => {
  const nameless = [];
  for (const el of document.querySelectorAll('a[href], button, input, select, textarea, [role=tab], progress')) {
    if (el.closest('[hidden]')) continue;
    const labelled = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
      || (el.labels && el.labels.length) || (el.textContent || '').trim() || el.getAttribute('alt');
    if (!labelled) nameless.push(el.outerHTML.slice(0, 120));
  }
  return nameless;
}"""


def test_every_control_has_an_accessible_name_on_every_view(relaydeck, page, console):
    _, token = relaydeck.new_account()
    key, secret = relaydeck.new_key(token, "Claude Code")
    task = relaydeck.http.ok("POST", "/v1/tasks", {"title": "A task", "description": "Some *text*"}, token=secret)
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Text?", "kind": "text"}, token=secret)
    relaydeck.http.ok("PATCH", f"/v1/tasks/{task['id']}", {"progress": 30}, token=secret)
    page.goto(relaydeck.app_url)
    assert page.evaluate(NAMELESS_CONTROLS) == []
    sign_in_with_token(page, relaydeck, token)
    for route in ("#/agents", "#/tasks", f"#/task/{task['id']}", "#/questions", "#/keys", f"#/key/{key['id']}", "#/settings"):
        page.goto(relaydeck.app_url + route)
        page.get_by_role("heading", level=1).first.wait_for()
        page.wait_for_timeout(300)
        assert page.evaluate(NAMELESS_CONTROLS) == [], route
        # One h1 per view, and landmarks for the navigation and the content.
        assert page.locator("h1").count() == 1, route
        expect(page.get_by_role("main")).to_be_visible()
        expect(page.get_by_role("navigation", name="Sections")).to_be_visible()
    console.assert_clean()


def test_the_console_works_with_the_keyboard_alone(relaydeck, page, console):
    _, token = relaydeck.new_account()
    key, secret = relaydeck.new_key(token, "Claude Code")
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Ship it?"}, token=secret)
    sign_in_with_token(page, relaydeck, token)
    # The first Tab reaches the skip link, which moves focus to the content.
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("main")).to_be_focused()
    # Focus is visible: the focused control has an outline.
    page.keyboard.press("Tab")
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", ""), outline
    # Tab through to the Yes button of the question and answer it with Enter.
    # (By its accessible name: the button's text has a mark beside the word.)
    yes = page.get_by_role("button", name="Yes", exact=True)
    for _ in range(30):
        if yes.evaluate("(el) => el === document.activeElement"):
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.get_by_role("list", name="Questions waiting for you")).to_be_hidden()
    # The answered card left the page; the focus went to the page's heading, not to nowhere.
    expect(page.get_by_role("heading", name="Agents", level=1)).to_be_focused()

    # A dialog takes the focus, keeps it inside, and gives it back on Escape.
    page.goto(relaydeck.app_url + "#/keys")
    new_key = page.get_by_role("button", name="New key")
    new_key.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="New key")
    expect(dialog.get_by_label("Label")).to_be_focused()
    for _ in range(6):
        page.keyboard.press("Tab")
        assert page.evaluate("() => !!document.activeElement.closest('dialog') || document.activeElement === document.body")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(new_key).to_be_focused()
    console.assert_clean()


def test_live_updates_are_announced_to_screen_readers(relaydeck, page, console):
    _, token = relaydeck.new_account()
    key, secret = relaydeck.new_key(token, "Claude Code")
    sign_in_with_token(page, relaydeck, token)
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Merge the branch?"}, token=secret)
    announcer = page.locator("#announcer")
    expect(announcer).to_have_attribute("aria-live", "polite")
    expect(announcer).to_have_text("Claude Code asks: Merge the branch?")
    assert key["label"] == "Claude Code"
    console.assert_clean()


def test_the_service_worker_lists_every_file_of_the_shell():
    listed = set(re.findall(r'"([^"]+)"', (WEB / "sw.js").read_text().split("const SHELL = [", 1)[1].split("];", 1)[0]))
    files = {str(p.relative_to(WEB)) for p in WEB.rglob("*") if p.is_file() and p.name != "sw.js"}
    assert listed - {"./"} == files


def test_the_shell_opens_from_the_service_workers_cache_without_a_network(relaydeck, page, console):
    page.goto(relaydeck.app_url)
    page.get_by_role("heading", name="Sign in to Relaydeck").wait_for()
    page.wait_for_function("async () => (await navigator.serviceWorker.ready) && (await caches.keys()).length === 1")
    page.wait_for_function("async () => (await (await caches.open((await caches.keys())[0])).keys()).length >= 30")
    page.context.set_offline(True)
    page.reload()
    # The page itself came from the cache; the API did not, so it says the server is away.
    expect(page.get_by_role("heading", name="The server cannot be reached")).to_be_visible()
    expect(page.get_by_role("button", name="Try again")).to_be_visible()
    page.context.set_offline(False)
    page.get_by_role("button", name="Try again").click()
    expect(page.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    console.errors[:] = [e for e in console.errors if "ERR_INTERNET_DISCONNECTED" not in e]
    console.assert_clean()
