"""Web Push and the installable console: the manifest's icons, the service worker, subscribing
from Settings, a push fed to the worker through the DevTools protocol and the notification it
shows, answering a question from a notification's button, question.updated replacing the
notification, the offline page, and the Home Screen steps on an iPhone.

A notification cannot be clicked from outside the browser (the DevTools protocol has no such
command), so the tests call the worker's own `handleNotificationClick`, the function its
`notificationclick` listener calls, in the worker's scope with a notification it showed."""

import json
import struct
import threading
import zlib

from playwright.sync_api import expect

import pytest

from browser_support import sign_in_with_token, start_relaydeck
from test_page_rules import WEB

IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")


@pytest.fixture(scope="module")
def relaydeck(tmp_path_factory):
    """The module's server takes subscriptions without looking their names up, so the page can
    store one at `push.example.invalid`, a name that never resolves (RFC 6761): no push of
    these tests ever leaves the machine (they are fed to the worker through DevTools)."""
    server = start_relaydeck(tmp_path_factory.mktemp("relaydeck"), {"WEB_PUSH_ALLOW_PRIVATE_HOSTS": "true"})
    yield server
    server.process.teardown()


def png_size(raw):
    """(width, height) of a PNG whose image data inflates to the size its header says."""
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    offset, chunks = 8, {}
    while offset < len(raw):
        length, kind = struct.unpack(">I4s", raw[offset:offset + 8])
        chunks.setdefault(kind, b"")
        chunks[kind] += raw[offset + 8:offset + 8 + length]
        offset += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    assert depth == 8
    assert len(zlib.decompress(chunks[b"IDAT"])) == height * (1 + width * channels)
    return width, height


def test_every_icon_of_the_manifest_and_the_page_is_a_png_of_its_size(relaydeck):
    manifest = json.loads(relaydeck.http.call("GET", "/app/manifest.webmanifest").body)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/app/"
    assert manifest["theme_color"] and manifest["background_color"]
    pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
    assert {icon["sizes"] for icon in pngs} >= {f"{s}x{s}" for s in (48, 72, 96, 128, 144, 152, 167, 180, 192, 256, 384, 512)}
    assert any(icon["purpose"] == "maskable" for icon in pngs)
    html = (WEB / "index.html").read_text()
    touch = [(f"{s}x{s}", f"icons/apple-touch-icon-{s}.png") for s in (180, 167, 152, 120)]
    for sizes, src in touch:
        assert f'<link rel="apple-touch-icon" sizes="{sizes}" href="{src}">' in html
    assert '<meta name="apple-mobile-web-app-capable" content="yes">' in html
    for sizes, src in [(icon["sizes"], icon["src"]) for icon in pngs] + touch:
        answer = relaydeck.http.call("GET", "/app/" + src)
        assert answer.status == 200 and answer.headers["Content-Type"] == "image/png", src
        width, height = png_size(answer.raw)
        assert f"{width}x{height}" == sizes, src


def signed_in_with_notifications(relaydeck, new_context, **options):
    context = new_context(**options)
    context.grant_permissions(["notifications"], origin=relaydeck.origin)
    page = context.new_page()
    _, token = relaydeck.new_account()
    key, secret = relaydeck.new_key(token, "Claude Code")
    sign_in_with_token(page, relaydeck, token)
    page.wait_for_function("async () => !!(await navigator.serviceWorker.ready).active")
    worker_of(context).evaluate(RECORD)
    return context, page, token, secret


def worker_of(context):
    if not context.service_workers:
        context.wait_for_event("serviceworker")
    return context.service_workers[0]


def deliver(context, page, relaydeck, payload):
    """Feeds a push to the worker as the push service would, through the DevTools protocol."""
    cdp = context.new_cdp_session(page)
    registrations = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"]))
    cdp.send("ServiceWorker.enable")
    page.wait_for_timeout(200)
    registration = next(r for r in registrations if r["scopeURL"] == relaydeck.app_url and not r["isDeleted"])
    cdp.send("ServiceWorker.deliverPushMessage", {
        "origin": relaydeck.origin, "registrationId": registration["registrationId"], "data": json.dumps(payload)})


# Headless Chromium closes a notification about as soon as it is shown (it has no notification
# centre), so `getNotifications()` sees it only for a moment. The test records what the worker
# asks for instead: it wraps showNotification in the worker's scope (the shipped worker is
# unchanged) and keeps each call's title and options, the latest one per tag standing for what
# the person sees (a notification with the same tag replaces the earlier one).
RECORD = """() => {
  if (self.__shown) return;
  self.__shown = [];
  const original = ServiceWorkerRegistration.prototype.showNotification;
  ServiceWorkerRegistration.prototype.showNotification = function (title, options) {
    self.__shown.push({ title, ...options, actions: (options.actions || []).map(a => [a.action, a.title]) });
    return original.call(this, title, options);
  };
}"""
SHOWN = """(tag) => self.__shown.filter(n => tag === null || n.tag === tag)"""
# A click on the latest notification of `tag`: the worker's own notificationclick handler,
# given that notification's data as the browser would.
CLICK = """async ([tag, action]) => {
  const shown = self.__shown.filter(n => n.tag === tag).at(-1);
  await handleNotificationClick({ data: shown.data, close() {} }, action);
}"""


def shown(context, tag):
    return worker_of(context).evaluate(SHOWN, tag)


def wait_shown(context, tag, count):
    for _ in range(100):
        if len(shown(context, tag)) >= count:
            return shown(context, tag)
        context.pages[0].wait_for_timeout(50)
    raise AssertionError(shown(context, tag))


def click_while_the_agent_waits(context, page, relaydeck, secret, question_id, action):
    """Presses a button of the question's notification while the agent waits on
    `GET /v1/questions/{id}?wait=30`; the agent's answer."""
    results = []
    waiter = threading.Thread(target=lambda: results.append(
        relaydeck.http.call("GET", f"/v1/questions/{question_id}?wait=30", token=secret, timeout=40)))
    waiter.start()
    page.wait_for_timeout(300)
    worker_of(context).evaluate(CLICK, [question_id, action])
    waiter.join(45)
    assert results, "the agent's wait did not end"
    return results[0]


def question_payload(question, secret_key_id=None):
    return {"event": "question.created", "title": "Claude Code: Question", "body": question["prompt"],
            "tag": question["id"], "url": f"/app/#/questions/{question['id']}", "key_id": question["key_id"],
            "task_id": None, "question_id": question["id"], "kind": question["kind"],
            "options": question["options"], "expires_at": None}


def test_the_worker_registers_and_the_settings_offer_notifications_on_a_click(relaydeck, new_context, console):
    context, page, token, _ = signed_in_with_notifications(relaydeck, new_context)
    assert page.evaluate("async () => (await navigator.serviceWorker.ready).scope") == relaydeck.app_url
    page.goto(relaydeck.app_url + "#/settings")
    section = page.get_by_role("region", name="Notifications on this device")
    button = section.get_by_role("button", name="Turn on notifications")
    expect(button).to_be_visible()
    # Subscribing needs the browser's push service: Playwright's contexts are off the record,
    # where Chromium refuses pushManager.subscribe (AbortError, and a console line saying so),
    # and this machine reaches no push service anyway. So the subscribe either works or fails
    # with the browser's error shown, never a stuck page.
    button.click()
    subscribed = section.get_by_role("button", name="Send a test notification")
    failed = page.get_by_role("alert").filter(has_text="The browser could not subscribe")
    expect(subscribed.or_(failed)).to_be_visible(timeout=15_000)
    print("subscribe in this browser:", "worked" if subscribed.is_visible() else failed.inner_text())
    # The server's side of a subscription, with a PushSubscription-shaped body from the page
    # (its session cookie and Origin), and the list marking this browser.
    page.evaluate("""async () => {
      // The ID the console makes for this browser on its first subscribe.
      const id = localStorage.getItem('relaydeck.webPushId') || 'wps_madeByTheTest';
      localStorage.setItem('relaydeck.webPushId', id);
      const key = new Uint8Array(65); key[0] = 4;
      const point = (await crypto.subtle.exportKey('raw', (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])).publicKey));
      const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
      const response = await fetch(`/v1/web-push/subscriptions/${id}`, { method: 'PUT', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ endpoint: 'https://push.example.invalid/send/abc', expirationTime: null,
          keys: { p256dh: b64(point), auth: b64(crypto.getRandomValues(new Uint8Array(16))) }, label: 'Chrome on Linux' }) });
      if (!response.ok) throw new Error(await response.text());
    }""")
    page.reload()
    listed = page.get_by_role("list", name="Browsers with notifications").get_by_role("listitem")
    expect(listed).to_have_count(1)
    expect(listed.first).to_contain_text("This browser")
    stored = relaydeck.http.ok("GET", "/v1/web-push/subscriptions", token=token)["subscriptions"]
    assert [s["label"] for s in stored] == ["Chrome on Linux"]
    listed.first.get_by_role("button", name="Remove Chrome on Linux").click()
    expect(page.get_by_role("list", name="Browsers with notifications")).to_contain_text("No browser gets notifications yet.")
    assert relaydeck.http.ok("GET", "/v1/web-push/subscriptions", token=token)["subscriptions"] == []
    # Playwright's contexts are off the record, where Chromium refuses the Push API and logs why.
    console.assert_clean(allowed=("does not support the Push API in incognito mode",))


def test_a_pushed_question_shows_with_buttons_and_a_button_answers_the_waiting_agent(relaydeck, new_context, console):
    context, page, _, secret = signed_in_with_notifications(relaydeck, new_context)
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Deploy to production now?"}, token=secret)
    deliver(context, page, relaydeck, question_payload(question))
    [first] = wait_shown(context, question["id"], 1)
    assert first["title"] == "Claude Code: Question" and first["body"] == "Deploy to production now?"
    assert first["requireInteraction"] is True and first["data"]["question_id"] == question["id"]
    assert first["actions"] == [["answer:0", "Yes"], ["answer:1", "No"]]

    answer = click_while_the_agent_waits(context, page, relaydeck, secret, question["id"], "answer:0")
    assert answer.status == 200 and answer.json["answer"] == "Yes", answer
    after = shown(context, question["id"])[-1]
    assert after["title"] == "Answered: Yes" and after["silent"] is True and "actions" not in after or after["actions"] == []

    # A second press on a stale notification: the server says 409, the worker says so.
    deliver(context, page, relaydeck, question_payload(question))
    wait_shown(context, question["id"], 3)
    worker_of(context).evaluate(CLICK, [question["id"], "answer:1"])
    assert shown(context, question["id"])[-1]["title"] == "No longer waiting"
    console.assert_clean()


def test_a_button_pressed_when_signed_out_says_so_and_opens_the_console(relaydeck, new_context, console):
    context, page, _, secret = signed_in_with_notifications(relaydeck, new_context)
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Deploy to production now?"}, token=secret)
    deliver(context, page, relaydeck, question_payload(question))
    wait_shown(context, question["id"], 1)
    context.clear_cookies()
    worker_of(context).evaluate(CLICK, [question["id"], "answer:0"])
    assert shown(context, question["id"])[-1]["title"] == "Signed out"
    expect(page).to_have_url(relaydeck.app_url + f"#/questions/{question['id']}")
    assert relaydeck.http.ok("GET", f"/v1/questions/{question['id']}", token=secret)["status"] == "pending"
    console.assert_clean()


def test_question_updated_replaces_the_questions_notification_with_a_quiet_one(relaydeck, new_context, console):
    context, page, _, secret = signed_in_with_notifications(relaydeck, new_context)
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Which environment?", "kind": "choice", "options": ["Staging", "Production", "Both"]}, token=secret)
    deliver(context, page, relaydeck, question_payload(question))
    [first] = wait_shown(context, question["id"], 1)
    assert [title for _, title in first["actions"]][:2] == ["Staging", "Production"]
    deliver(context, page, relaydeck, {**question_payload(question), "event": "question.updated", "title": "Claude Code: Answered",
                                       "body": "Which environment?", "kind": None, "options": []})
    [_, quiet] = wait_shown(context, question["id"], 2)
    assert quiet["title"] == "Claude Code: Answered" and quiet["body"] == "Which environment?"
    assert quiet["tag"] == question["id"] and quiet["silent"] is True and quiet["actions"] == []
    assert not quiet.get("requireInteraction")
    console.assert_clean()


def test_a_tap_on_a_text_questions_notification_opens_the_console_at_that_question(relaydeck, new_context, console):
    context, page, _, secret = signed_in_with_notifications(relaydeck, new_context)
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "What should the release be called?", "kind": "text"}, token=secret)
    deliver(context, page, relaydeck, question_payload(question))
    [first] = wait_shown(context, question["id"], 1)
    assert first["actions"] == [] and first["requireInteraction"] is True
    worker_of(context).evaluate(CLICK, [question["id"], ""])
    expect(page).to_have_url(relaydeck.app_url + f"#/questions/{question['id']}")
    card = page.locator(f"li[data-key='{question['id']}']")
    expect(card).to_be_focused()
    console.assert_clean()


def test_a_link_to_a_question_scrolls_to_and_focuses_it(relaydeck, new_context, console):
    context, page, _, secret = signed_in_with_notifications(relaydeck, new_context)
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Ship it?"}, token=secret)
    page.goto(relaydeck.app_url + f"#/questions/{question['id']}")
    card = page.locator(f"li[data-key='{question['id']}']")
    expect(card).to_be_focused()
    expect(card).to_have_attribute("aria-current", "true")
    console.assert_clean()


def test_the_offline_page_shows_when_the_server_is_away_and_no_shell_is_kept(tmp_path, new_context, console):
    from browser_support import start_relaydeck
    server = start_relaydeck(tmp_path)
    try:
        page = new_context().new_page()
        page.goto(server.app_url)
        page.wait_for_function("async () => (await navigator.serviceWorker.ready) && (await caches.keys()).length === 1")
        page.wait_for_function("async () => !!(await caches.match('/app/offline.html'))")
        # The shell's page itself goes: only the offline page is left to answer a navigation.
        page.evaluate("async () => { const cache = await caches.open((await caches.keys())[0]); await cache.delete('/app/index.html'); await cache.delete('/app/'); }")
        assert server.process.stop() == 0
        page.goto(server.app_url + "tasks/nowhere")
        expect(page.get_by_role("heading", name="You are offline")).to_be_visible()
        expect(page.get_by_role("link", name="open the console again")).to_be_visible()
    finally:
        server.process.teardown()
    console.errors[:] = [e for e in console.errors if "ERR_CONNECTION_REFUSED" not in e and "Failed to load resource" not in e]
    console.assert_clean()


def test_an_iphone_outside_the_home_screen_is_told_how_to_add_it(relaydeck, new_context, console):
    context = new_context(user_agent=IPHONE, viewport={"width": 390, "height": 844})
    page = context.new_page()
    _, token = relaydeck.new_account()
    page.add_init_script("delete window.PushManager")
    sign_in_with_token(page, relaydeck, token)
    page.goto(relaydeck.app_url + "#/settings")
    steps = page.get_by_role("list", name="Add Relaydeck to the Home Screen")
    expect(steps).to_be_visible()
    expect(steps.get_by_role("listitem")).to_have_count(4)
    expect(page.get_by_text("iOS and iPadOS 16.4 or later", exact=False)).to_be_visible()
    expect(page.get_by_role("button", name="Turn on notifications")).to_have_count(0)
    console.assert_clean()
