"""A key's scopes in the console: chosen in the new-key dialog (every scope by default, each
with its one-line explanation), shown on the key list, and seen and changed on the key's page,
live when another client changes them. The server enforces what the page sets."""

import pytest
from playwright.sync_api import expect

from browser_support import sign_in_with_token

ALL = ["tasks:read", "tasks:write", "questions", "notify", "messages", "inbox"]
EXPLANATIONS = {
    "tasks:read": "Read the key's tasks.",
    "tasks:write": "Create, change and delete the key's tasks.",
    "questions": "Ask you questions and read your answers.",
    "notify": "Send you notifications.",
    "messages": "See your other agents and send them messages.",
    "inbox": "Read the key's inbox: tasks you assign, change or delete, answers, messages.",
}


@pytest.fixture
def signed_in(relaydeck, page):
    _, token = relaydeck.new_account()
    sign_in_with_token(page, relaydeck, token)
    return page, token


def scope_refusal(scope):
    return {"error": {"code": "insufficient_scope", "message":
                      f"The key lacks the scope {scope}, which this route needs. The person can give the key this scope in the web console."}}


def test_the_new_key_dialog_offers_every_scope_checked_with_its_explanation(relaydeck, signed_in, console):
    page, token = signed_in
    page.get_by_role("link", name="Keys").click()
    page.get_by_role("button", name="New key").click()
    dialog = page.get_by_role("dialog", name="New key")
    group = dialog.get_by_role("group", name="What the agent may do")
    boxes = group.get_by_role("checkbox")
    expect(boxes).to_have_count(len(ALL))
    # The server's names, in the server's order: a key made without scopes lists the same.
    assert [boxes.nth(i).get_attribute("value") for i in range(len(ALL))] == ALL
    made = relaydeck.http.ok("POST", "/v1/keys", {"label": "Default"}, token=token)
    assert made["key"]["scopes"] == ALL
    for name in ALL:
        box = group.get_by_role("checkbox", name=name, exact=True)
        expect(box).to_be_checked()
        expect(box).to_have_accessible_description(EXPLANATIONS[name])
    dialog.press("Escape")
    console.assert_clean()


def test_a_new_key_gets_the_scopes_chosen_and_the_server_holds_it_to_them(relaydeck, signed_in, console):
    page, token = signed_in
    page.get_by_role("link", name="Keys").click()
    page.get_by_role("button", name="New key").click()
    dialog = page.get_by_role("dialog", name="New key")
    dialog.get_by_label("Label").fill("Reader")
    # With the keyboard: Tab to the box, Space to change it.
    dialog.get_by_role("checkbox", name="notify", exact=True).focus()
    page.keyboard.press("Space")
    dialog.get_by_role("checkbox", name="messages", exact=True).uncheck()
    dialog.get_by_role("checkbox", name="tasks:write", exact=True).uncheck()
    dialog.get_by_role("button", name="Create key").click()
    shown = page.get_by_role("dialog", name="The secret of Reader")
    secret = shown.locator(".secret").inner_text()
    shown.get_by_role("button", name="Done").click()

    key = relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"][0]
    assert key["label"] == "Reader" and key["scopes"] == ["tasks:read", "questions", "inbox"]
    keys = page.get_by_role("list", name="API keys")
    expect(keys.locator(".key-scopes")).to_have_text("Scopes: tasks:read, questions, inbox")
    assert relaydeck.http.call("GET", "/v1/tasks", token=secret).status == 200
    refused = relaydeck.http.call("GET", "/v1/agents", token=secret)
    assert refused.status == 403 and refused.json == scope_refusal("messages")
    refused = relaydeck.http.call("POST", "/v1/tasks", {"title": "No"}, token=secret)
    assert refused.status == 403 and refused.json == scope_refusal("tasks:write")
    console.assert_clean()


def test_a_new_key_without_any_scope_is_not_made(relaydeck, signed_in, console):
    page, token = signed_in
    page.get_by_role("link", name="Keys").click()
    page.get_by_role("button", name="New key").click()
    dialog = page.get_by_role("dialog", name="New key")
    dialog.get_by_label("Label").fill("Nothing")
    for name in ALL:
        dialog.get_by_role("checkbox", name=name, exact=True).uncheck()
    dialog.get_by_role("button", name="Create key").click()
    expect(dialog.get_by_role("alert")).to_have_text("Choose at least one thing the agent may do.")
    expect(dialog.get_by_role("checkbox", name="tasks:read", exact=True)).to_be_focused()
    assert relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"] == []
    dialog.get_by_role("checkbox", name="inbox", exact=True).check()
    dialog.get_by_role("button", name="Create key").click()
    page.get_by_role("dialog", name="The secret of Nothing").get_by_role("button", name="Done").click()
    assert relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"][0]["scopes"] == ["inbox"]
    console.assert_clean()


def test_the_key_page_shows_and_changes_the_scopes_and_follows_changes_made_elsewhere(relaydeck, signed_in, console):
    page, token = signed_in
    made = relaydeck.http.ok("POST", "/v1/keys", {"label": "Agent", "scopes": ["tasks:read", "notify"]}, token=token)
    key, secret = made["key"], made["secret"]
    page.goto(f"{relaydeck.app_url}#/key/{key['id']}")
    scopes = page.get_by_role("group", name="What the agent with this key may do")
    for name in ALL:
        box = scopes.get_by_role("checkbox", name=name, exact=True)
        (expect(box).to_be_checked if name in ("tasks:read", "notify") else expect(box).not_to_be_checked)()
        expect(box).to_have_accessible_description(EXPLANATIONS[name])

    scopes.get_by_role("checkbox", name="tasks:read", exact=True).uncheck()
    scopes.get_by_role("checkbox", name="inbox", exact=True).check()
    page.get_by_role("button", name="Save scopes").click()
    expect(page.locator("#announcer")).to_have_text("Scopes of Agent saved.")
    assert relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"][0]["scopes"] == ["notify", "inbox"]
    # The key's next request is held to them.
    assert relaydeck.http.call("GET", "/v1/inbox", token=secret).status == 200
    refused = relaydeck.http.call("GET", "/v1/tasks", token=secret)
    assert refused.status == 403 and refused.json == scope_refusal("tasks:read")

    # None at all is refused in the page.
    for name in ("notify", "inbox"):
        scopes.get_by_role("checkbox", name=name, exact=True).uncheck()
    page.get_by_role("button", name="Save scopes").click()
    expect(page.locator("#main").get_by_role("alert")).to_have_text("Choose at least one thing the agent may do.")
    assert relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"][0]["scopes"] == ["notify", "inbox"]

    # A change from another client (the app) shows at once, through the event stream.
    relaydeck.http.ok("PATCH", f"/v1/keys/{key['id']}", {"scopes": ["questions", "messages"]}, token=token)
    expect(scopes.get_by_role("checkbox", name="questions", exact=True)).to_be_checked()
    expect(page.get_by_role("group", name="What the agent with this key may do").get_by_role("checkbox", name="messages", exact=True)).to_be_checked()
    group = page.get_by_role("group", name="What the agent with this key may do")
    for name in ("tasks:read", "tasks:write", "notify", "inbox"):
        expect(group.get_by_role("checkbox", name=name, exact=True)).not_to_be_checked()
    page.get_by_role("link", name="← All keys").click()
    expect(page.get_by_role("list", name="API keys").locator(".key-scopes")).to_have_text("Scopes: questions, messages")
    console.assert_clean()
