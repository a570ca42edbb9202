"""Web Push from the console's button to the notification, through the server's real sender:
Settings subscribes this browser, the server stores the subscription, and what the server then
sends (a test notification, an agent's question, the question's end) goes over HTTPS to a push
service on this machine (`Tests/e2e/webpush_mock.py`, which checks VAPID and decrypts each push
with the subscription's key as a browser does), and from there into the service worker through
the DevTools protocol, as the browser's push service would hand it over. A button of the
question's notification then answers the agent's waiting call.

What stands in, and why: Chromium registers a subscription with Google's push service only,
which no test machine reaches (and Playwright's contexts are off the record, where Chromium
refuses the Push API outright). So `PushManager.subscribe` and `getSubscription` of the page are
replaced by an init script that hands out a subscription the mock push service made (its
endpoint and keys), after recording the options the console passed (`userVisibleOnly` and the
server's VAPID key). Everything else is the shipped console, worker and server."""

import json
import os
import time

import pytest
from playwright.sync_api import expect

from browser_support import start_relaydeck
from test_web_push import click_while_the_agent_waits, deliver, shown, signed_in_with_notifications, wait_shown
from webpush_mock import WebPushMock

# The stand-in of the browser's push service registration (see the module's text): the
# subscription survives reloads of the page through sessionStorage, as a real one would.
STAND_IN = """(() => {
  const made = %s;
  const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - text.length %% 4) %% 4)), (c) => c.charCodeAt(0));
  const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const subscription = () => ({
    endpoint: made.endpoint, expirationTime: null,
    getKey: (name) => bytes(name === 'p256dh' ? made.p256dh : made.auth).buffer,
    toJSON: () => ({ endpoint: made.endpoint, expirationTime: null, keys: { p256dh: made.p256dh, auth: made.auth } }),
    unsubscribe: async () => { sessionStorage.removeItem('standIn.subscribed'); return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    const calls = JSON.parse(sessionStorage.getItem('standIn.calls') || '[]');
    calls.push({ userVisibleOnly: options.userVisibleOnly, applicationServerKey: b64(options.applicationServerKey) });
    sessionStorage.setItem('standIn.calls', JSON.stringify(calls));
    sessionStorage.setItem('standIn.subscribed', '1');
    return subscription();
  };
  PushManager.prototype.getSubscription = async function () {
    return sessionStorage.getItem('standIn.subscribed') ? subscription() : null;
  };
})();"""


@pytest.fixture(scope="module")
def push_service(tmp_path_factory):
    directory = tmp_path_factory.mktemp("webpush")
    mock = WebPushMock(str(directory), str(directory / "events.jsonl")).start()
    yield mock
    mock.stop()


@pytest.fixture(scope="module")
def relaydeck(tmp_path_factory, push_service):
    """A server whose pushes go to the mock push service on this machine, which it trusts."""
    server = start_relaydeck(tmp_path_factory.mktemp("relaydeck"), {
        "WEB_PUSH_ALLOW_PRIVATE_HOSTS": "true", "WEB_PUSH_CA_FILE": push_service.ca_file})
    yield server
    server.process.teardown()


def pushes(push_service, sub_id):
    """The pushes the service got for `sub_id`, each as its decrypted JSON and its headers."""
    if not os.path.exists(push_service.events_file):
        return []
    with open(push_service.events_file) as events:
        lines = [json.loads(line) for line in events]
    return [{**event, "payload": json.loads(event["plaintext"])} for event in lines
            if event["path"] == f"/push/{sub_id}" and "plaintext" in event]


def wait_pushes(push_service, sub_id, count, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = pushes(push_service, sub_id)
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{len(pushes(push_service, sub_id))} pushes of {sub_id}, not {count}")


def subscribed_in_settings(relaydeck, new_context, push_service, name):
    """A signed-in console whose Settings subscribed this browser with the mock's subscription."""
    made = push_service.subscribe(name)
    context, page, token, secret = signed_in_with_notifications(relaydeck, new_context)
    page.add_init_script(STAND_IN % json.dumps(made.as_json()))
    page.goto(relaydeck.app_url + "#/settings")
    page.reload()
    section = page.get_by_role("region", name="Notifications on this device")
    section.get_by_role("button", name="Turn on notifications").click()
    expect(section.get_by_role("button", name="Send a test notification")).to_be_visible()
    calls = json.loads(page.evaluate("sessionStorage.getItem('standIn.calls')"))
    server_key = relaydeck.http.ok("GET", "/v1/web-push/key", token=token)["public_key"]
    assert calls == [{"userVisibleOnly": True, "applicationServerKey": server_key}]
    [stored] = relaydeck.http.ok("GET", "/v1/web-push/subscriptions", token=token)["subscriptions"]
    assert stored["endpoint"] == made.endpoint
    return context, page, token, secret, section, made


def test_settings_subscribe_and_the_servers_test_notification_reaches_the_worker(relaydeck, new_context, console, push_service):
    context, page, token, _, section, made = subscribed_in_settings(relaydeck, new_context, push_service, "settings")
    listed = page.get_by_role("list", name="Browsers with notifications").get_by_role("listitem")
    expect(listed).to_have_count(1)
    expect(listed.first).to_contain_text("This browser")

    section.get_by_role("button", name="Send a test notification").click()
    [push] = wait_pushes(push_service, made.id, 1)
    assert push["status"] == 201 and push["vapid"]["problems"] == []
    assert push["payload"]["event"] == "test" and push["payload"]["tag"] == "relaydeck-test"
    deliver(context, page, relaydeck, push["payload"])
    [notification] = wait_shown(context, "relaydeck-test", 1)
    assert notification["title"] == "Relaydeck"
    assert notification["body"] == "Notifications from this server reach this browser."

    # Turned off on this browser: the server forgets it and sends it nothing more.
    section.get_by_role("button", name="Turn off on this browser").click()
    expect(section.get_by_role("button", name="Turn on notifications")).to_be_visible()
    assert relaydeck.http.ok("GET", "/v1/web-push/subscriptions", token=token)["subscriptions"] == []
    console.assert_clean()


def test_an_agents_question_goes_through_the_push_service_and_its_button_answers_the_agent(relaydeck, new_context, console, push_service):
    context, page, _, secret, _, made = subscribed_in_settings(relaydeck, new_context, push_service, "question")
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Merge the release branch?"}, token=secret)
    [push] = wait_pushes(push_service, made.id, 1)
    assert push["urgency"] == "high" and push["topic"] and int(push["ttl"]) <= 3600
    assert push["payload"]["question_id"] == question["id"] and push["payload"]["options"] == ["Yes", "No"]
    deliver(context, page, relaydeck, push["payload"])
    [first] = wait_shown(context, question["id"], 1)
    assert first["body"] == "Merge the release branch?" and first["actions"] == [["answer:0", "Yes"], ["answer:1", "No"]]

    answer = click_while_the_agent_waits(context, page, relaydeck, secret, question["id"], "answer:1")
    assert answer.status == 200 and answer.json["answer"] == "No", answer

    # The question's end goes out too, and replaces its notification with a quiet one.
    [_, ended] = wait_pushes(push_service, made.id, 2)
    assert ended["payload"]["event"] == "question.updated" and ended["urgency"] == "low"
    assert ended["topic"] == push["topic"]
    deliver(context, page, relaydeck, ended["payload"])
    quiet = wait_shown(context, question["id"], 3)[-1]
    assert quiet["silent"] is True and quiet["actions"] == [] and quiet["tag"] == question["id"]
    assert shown(context, question["id"])[-1]["title"] == ended["payload"]["title"]
    console.assert_clean()
