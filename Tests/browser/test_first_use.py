"""The console as a new user meets it (issue 21): pages opened by reload or link name their
agent, a refused answer says why and stays, the lists load when the event stream cannot
connect, and the smaller things: the activity log at 1280 px, Yes and No told apart, "Last used"
and relative times that move on, and a sign-in error that looks like one and is announced."""

import re
import threading

import pytest
from playwright.sync_api import expect

from browser_support import sign_in_with_token


@pytest.fixture
def signed_in(relaydeck, page):
    _, token = relaydeck.new_account()
    key, secret = relaydeck.new_key(token, "Claude Code")
    sign_in_with_token(page, relaydeck, token)
    expect(page.get_by_role("heading", name="Claude Code")).to_be_visible()
    return page, token, key, secret


def test_a_task_and_a_key_opened_by_reload_name_their_agent(relaydeck, signed_in, console):
    page, _, key, secret = signed_in
    task = relaydeck.http.ok("POST", "/v1/tasks", {"title": "Opened by a bookmark"}, token=secret)
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Asked about the bookmark?", "task_id": task["id"]}, token=secret)
    page.goto(f"{relaydeck.app_url}#/task/{task['id']}")
    page.reload()
    expect(page.get_by_role("heading", name="Opened by a bookmark", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Claude Code", exact=True)).to_be_visible()
    expect(page.get_by_label("Message to Claude Code")).to_be_visible()
    expect(page.get_by_role("list", name="Questions about this task").get_by_text("From Claude Code")).to_be_visible()
    expect(page.get_by_text("Deleted key")).to_have_count(0)

    page.goto(f"{relaydeck.app_url}#/key/{key['id']}")
    page.reload()
    expect(page.get_by_role("heading", name="Claude Code", level=1)).to_be_visible()
    expect(page.get_by_label("Message to Claude Code")).to_be_visible()
    expect(page.get_by_text("Deleted key")).to_have_count(0)
    console.assert_clean()


def test_an_answer_refused_because_it_was_answered_elsewhere_says_so_and_stays(relaydeck, signed_in, console):
    page, token, _, secret = signed_in
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Ship it tonight?"}, token=secret)
    waiting = page.get_by_role("list", name="Questions waiting for you")
    card = waiting.get_by_role("listitem").filter(has_text="Ship it tonight?")
    expect(card.get_by_role("button", name="Yes")).to_be_visible()

    # Another browser answers "No" just before this page's "Yes" reaches the server.
    def answer_elsewhere_first(route):
        relaydeck.http.ok("POST", f"/v1/questions/{question['id']}/answer", {"answer": "No"}, token=token, status=200)
        route.continue_()

    page.route(f"**/v1/questions/{question['id']}/answer", answer_elsewhere_first)
    card.get_by_role("button", name="Yes").click()
    message = card.get_by_role("alert")
    expect(message).to_have_text(re.compile("This question is no longer waiting for an answer."))
    # What happened instead is on the card, and it stays until the person is done with it.
    expect(card.get_by_text("No", exact=True)).to_be_visible()
    page.wait_for_timeout(1500)
    expect(message).to_be_visible()
    expect(card.get_by_role("button", name="Yes")).to_have_count(0)
    # The focus that was on "Yes" is on the card's Dismiss, not lost.
    expect(card.get_by_role("button", name=re.compile("^Dismiss"))).to_be_focused()
    page.keyboard.press("Enter")
    expect(card).to_have_count(0)
    console.errors.remove("Failed to load resource: the server responded with a status of 409 (Conflict)")
    console.assert_clean()


def make_lists(relaydeck):
    _, token = relaydeck.new_account()
    _, secret = relaydeck.new_key(token, "Claude Code")
    relaydeck.http.ok("POST", "/v1/tasks", {"title": "Known before the page"}, token=secret)
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Asked before the page?"}, token=secret)
    return token, secret


def expect_lists(page):
    expect(page.get_by_role("heading", name="Claude Code")).to_be_visible()
    expect(page.get_by_role("link", name="Known before the page")).to_be_visible()
    expect(page.get_by_role("list", name="Questions waiting for you").get_by_text("Asked before the page?")).to_be_visible()
    page.get_by_role("link", name="Keys").click()
    expect(page.get_by_role("list", name="API keys").get_by_role("link", name="Claude Code")).to_be_visible()
    page.get_by_role("link", name="Questions").click()
    expect(page.get_by_role("list", name="Pending questions").get_by_text("Asked before the page?")).to_be_visible()
    page.get_by_role("link", name="Agents").click()


def test_the_lists_load_when_the_event_stream_cannot_connect(relaydeck, page, console):
    token, _ = make_lists(relaydeck)
    page.route("**/v1/events", lambda route: route.abort())
    sign_in_with_token(page, relaydeck, token, live=False)
    expect_lists(page)
    expect(page.get_by_role("status").filter(has_text="Reconnecting…")).to_be_visible()
    # Past the wait for `ready`: a stream that fails says it reconnects, not that it is held.
    page.wait_for_timeout(5500)
    expect(page.get_by_role("status").filter(has_text="Reconnecting…")).to_be_visible()
    console.errors[:] = [e for e in console.errors if "ERR_FAILED" not in e]
    console.assert_clean()


def test_the_lists_load_behind_a_proxy_that_holds_the_stream_and_nothing_is_lost_after(relaydeck, page, console):
    token, secret = make_lists(relaydeck)
    held = []
    page.route("**/v1/events", lambda route: held.append(route) if not held else route.continue_())
    sign_in_with_token(page, relaydeck, token, live=False)
    expect_lists(page)
    expect(page.get_by_role("status").filter(has_text="Live updates are not coming through")).to_be_visible(timeout=15_000)
    # Made after the lists came over REST and before the stream started: the lists fetched
    # again after `ready` bring it, and it shows once.
    relaydeck.http.ok("POST", "/v1/tasks", {"title": "Made while the stream was held"}, token=secret)
    held[0].continue_()
    expect(page.get_by_role("link", name="Made while the stream was held")).to_have_count(1)
    expect(page.get_by_role("status").filter(has_text="Live updates are not coming through")).to_be_hidden()
    relaydeck.http.ok("POST", "/v1/tasks", {"title": "Made on the live stream"}, token=secret)
    expect(page.get_by_role("link", name="Made on the live stream")).to_have_count(1)
    expect(page.get_by_role("link", name="Made while the stream was held")).to_have_count(1)
    console.assert_clean()


WORDS_BROKEN = """(table) => {
  const broken = [];
  for (const cell of table.querySelectorAll("td, th")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
    if (cell.scrollWidth > cell.clientWidth + 1) broken.push(`overflow: ${cell.textContent}`);
  }
  return broken;
}"""


def test_the_activity_log_breaks_no_word_at_1280_px(relaydeck, signed_in, console):
    page, _, key, secret = signed_in
    mcp = {"Authorization": f"Bearer {secret}", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
           "Mcp-Name": "update_task", "X-Relaydeck-Host": "studio-mac-mini.local"}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.290"}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "update_task", "arguments": {"task_id": "tsk_missing", "progress": 5}, "_meta": meta}}
    assert relaydeck.http.call("POST", "/mcp", body, headers=mcp).status == 200
    relaydeck.http.call("GET", "/v1/tasks/tsk_missing", token=secret, headers={"X-Relaydeck-Host": "build-box"})
    page.goto(f"{relaydeck.app_url}#/key/{key['id']}")
    log = page.get_by_role("table", name="Activity log, newest first")
    for _ in range(50):
        if log.get_by_role("row").count() == 3:
            break
        page.get_by_role("button", name="Refresh the log").click()
        page.wait_for_timeout(100)
    expect(log.get_by_role("row")).to_have_count(3)
    assert page.viewport_size["width"] == 1280
    assert log.evaluate(WORDS_BROKEN) == []
    console.assert_clean()


def test_yes_and_no_of_a_confirm_question_look_different_beyond_colour(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Restart the worker?"}, token=secret)
    group = page.get_by_role("group", name="Restart the worker?")
    yes, no = group.get_by_role("button", name="Yes", exact=True), group.get_by_role("button", name="No", exact=True)
    expect(yes).to_be_visible()
    expect(no).to_be_visible()
    look = "(b) => { const s = getComputedStyle(b); return [s.backgroundColor, s.fontWeight, b.innerText.trim()]; }"
    yes_look, no_look = yes.evaluate(look), no.evaluate(look)
    assert yes_look[0] != no_look[0], (yes_look, no_look)
    # Not only the colour: a mark beside the word (hidden from screen readers, which read the
    # word) sets them apart in grey too.
    assert yes_look[2] != "Yes" and no_look[2] != "No", (yes_look, no_look)
    assert yes_look[2].replace("Yes", "") != no_look[2].replace("No", ""), (yes_look, no_look)
    console.assert_clean()


def test_last_used_follows_the_agents_requests_and_relative_times_tick(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    page.clock.install()
    page.reload()
    page.get_by_role("link", name="Keys").click()
    card = page.get_by_role("list", name="API keys").get_by_role("listitem").filter(has_text="Claude Code")
    expect(card.get_by_text("Last used never")).to_be_visible()
    relaydeck.http.ok("POST", "/v1/tasks", {"title": "Uses the key"}, token=secret)
    expect(card.get_by_text(re.compile(r"Last used (now|\d+ seconds? ago)"))).to_be_visible(timeout=5000)
    # The relative times move on without an event or a click.
    page.clock.fast_forward("05:00")
    expect(card.get_by_text(re.compile(r"Created (5|6) minutes ago"))).to_be_visible()
    expect(card.get_by_text(re.compile(r"Last used (5|6) minutes ago"))).to_be_visible()
    console.assert_clean()


def test_a_sign_in_error_is_styled_as_an_error_and_announced(relaydeck, new_context, console):
    account_id, _ = relaydeck.new_account()
    link = relaydeck.login_link(account_id)
    first = new_context().new_page()
    first.goto(link)
    expect(first.get_by_role("dialog", name="Sign in faster next time")).to_be_visible()
    second = new_context().new_page()
    second.goto(link)
    expect(second.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    message = second.get_by_role("alert").filter(has_text="That login link was already used or has expired.")
    expect(message).to_be_visible()
    danger = second.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--danger').trim()")
    assert danger == "#b3261e"
    expect(message).to_have_css("color", "rgb(179, 38, 30)")

    second.get_by_label("Account token").fill("mca_" + "A" * 43)
    second.get_by_role("button", name="Sign in with the token").click()
    wrong = second.get_by_role("alert").filter(has_text="That account token is not valid on this server.")
    expect(wrong).to_have_css("color", "rgb(179, 38, 30)")
    console.assert_clean()
