"""What agents do shows in the open page without a reload, and the person's answers reach the
agent that waits for them."""

import re
import threading
import time

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


def wait_for_answer(relaydeck, secret, question_id, results):
    results.append(relaydeck.http.call("GET", f"/v1/questions/{question_id}?wait=30", token=secret, timeout=40))


def test_an_agents_task_and_question_show_live_and_the_answer_reaches_the_waiting_agent(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    marker = page.evaluate("() => (window.__noReload = 'still here')")
    task = relaydeck.http.ok("POST", "/v1/tasks", {"title": "Migrate the database", "priority": "high"}, token=secret)
    # The bar: both show within a second, without a reload.
    agent = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name="Claude Code"))
    expect(agent.get_by_role("link", name="Migrate the database")).to_be_visible(timeout=1000)
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Deploy to production now?", "task_id": task["id"]}, token=secret)
    waiting = page.get_by_role("list", name="Questions waiting for you")
    expect(waiting.get_by_text("Deploy to production now?")).to_be_visible(timeout=1000)
    expect(page.get_by_role("link", name="Questions 1")).to_be_visible()

    results = []
    waiter = threading.Thread(target=wait_for_answer, args=(relaydeck, secret, question["id"], results))
    waiter.start()
    relaydeck.http.ok("PATCH", f"/v1/tasks/{task['id']}", {"progress": 60, "status_note": "Copying rows", "status": "in_progress"}, token=secret)
    expect(agent.get_by_text("Copying rows")).to_be_visible()
    expect(agent.get_by_role("progressbar", name="Progress of Migrate the database")).to_have_attribute("value", "60")

    waiting.get_by_role("group", name="Deploy to production now?").get_by_role("button", name="Yes").click()
    waiter.join(45)
    assert results and results[0].status == 200, results
    assert results[0].json["status"] == "answered" and results[0].json["answer"] == "Yes"
    expect(page.get_by_role("list", name="Questions waiting for you")).to_be_hidden()
    assert page.evaluate("() => window.__noReload") == marker
    console.assert_clean()


def test_choice_and_text_questions_are_answered_in_the_page(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    choice = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Which environment?", "kind": "choice", "options": ["Staging", "Production", "Both"]}, token=secret)
    text = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "What should the release be called?", "kind": "text"}, token=secret)
    page.get_by_role("link", name="Questions").click()
    pending = page.get_by_role("list", name="Pending questions")
    pending.get_by_role("group", name="Which environment?").get_by_role("button", name="Production").click()
    box = pending.get_by_role("listitem").filter(has_text="What should the release be called?")
    box.get_by_role("button", name="Send answer").click()
    expect(box.get_by_text("Type an answer first.")).to_be_visible()
    box.get_by_label("Your answer").fill("  Northern Lights  ")
    box.get_by_role("button", name="Send answer").click()
    earlier = page.get_by_role("list", name="Answered, expired and cancelled questions")
    expect(earlier.get_by_text("Northern Lights")).to_be_visible()
    expect(earlier.get_by_text("Production", exact=True)).to_be_visible()
    assert relaydeck.http.ok("GET", f"/v1/questions/{choice['id']}", token=secret)["answer"] == "Production"
    assert relaydeck.http.ok("GET", f"/v1/questions/{text['id']}", token=secret)["answer"] == "Northern Lights"
    console.assert_clean()


def test_a_question_counts_down_and_shows_expired(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    # The page's clock moves on 65 seconds at once; the server's question still expires later.
    page.clock.install()
    page.reload()
    expect(page.get_by_role("heading", name="Claude Code")).to_be_visible()
    relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Quick one?", "expires_in": 60}, token=secret)
    card = page.get_by_role("list", name="Questions waiting for you").get_by_role("listitem").filter(has_text="Quick one?")
    timer = card.get_by_role("timer")
    expect(timer).to_contain_text("Expires in 0:")
    page.clock.fast_forward("01:05")
    expect(timer).to_have_text("Expired")
    expect(card.get_by_role("button", name="Yes")).to_be_disabled()
    console.assert_clean()


def test_a_question_cancelled_by_the_agent_leaves_the_waiting_list(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    question = relaydeck.http.ok("POST", "/v1/questions", {"prompt": "Still needed?"}, token=secret)
    waiting = page.get_by_role("list", name="Questions waiting for you")
    expect(waiting.get_by_text("Still needed?")).to_be_visible()
    relaydeck.http.ok("DELETE", f"/v1/questions/{question['id']}", token=secret)
    expect(waiting).to_be_hidden()
    console.assert_clean()


def test_tasks_filter_and_page_through_with_the_cursor(relaydeck, signed_in, console):
    page, token, key, secret = signed_in
    other, other_secret = relaydeck.new_key(token, "Cursor")
    for number in range(55):
        relaydeck.http.ok("POST", "/v1/tasks", {"title": f"Chore {number:02d}"}, token=secret)
    done = relaydeck.http.ok("POST", "/v1/tasks", {"title": "Finished work", "status": "done"}, token=other_secret)
    page.get_by_role("link", name="Tasks", exact=True).click()
    tasks = page.get_by_role("list", name="Tasks")
    expect(tasks.get_by_role("link", name="Chore 54")).to_be_visible()
    expect(tasks.get_by_role("listitem")).to_have_count(50)
    page.get_by_role("button", name="Load more tasks").click()
    expect(tasks.get_by_role("listitem")).to_have_count(55)
    expect(page.get_by_role("button", name="Load more tasks")).to_be_hidden()

    page.get_by_label("Status").select_option("done")
    expect(tasks.get_by_role("link", name="Finished work")).to_be_visible()
    expect(tasks.get_by_role("listitem")).to_have_count(1)
    page.get_by_label("Status").select_option("")
    page.get_by_label("Agent").select_option(label="Cursor")
    expect(tasks.get_by_role("listitem")).to_have_count(1)
    # A live task of the filtered key joins the list; one of another key does not.
    relaydeck.http.ok("POST", "/v1/tasks", {"title": "Live one"}, token=other_secret)
    relaydeck.http.ok("POST", "/v1/tasks", {"title": "Not for this filter"}, token=secret)
    expect(tasks.get_by_role("link", name="Live one")).to_be_visible()
    expect(tasks.get_by_role("listitem")).to_have_count(2)
    assert done["status"] == "done" and other["label"] == "Cursor"
    console.assert_clean()


def test_a_task_opens_with_its_markdown_and_the_person_changes_it(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    description = "# Plan\n\nUse **bold** and *care*.\n\n- one\n- two\n\n```\ncode block\n```\n\n[docs](https://example.com/docs)"
    task = relaydeck.http.ok("POST", "/v1/tasks", {"title": "Write the plan", "description": description}, token=secret)
    page.get_by_role("link", name="Write the plan").click()
    expect(page.get_by_role("heading", name="Write the plan", level=1)).to_be_visible()
    body = page.get_by_role("region", name="Description")
    expect(body.get_by_role("heading", name="Plan", level=3)).to_be_visible()
    expect(body.locator("strong")).to_have_text("bold")
    expect(body.locator("em")).to_have_text("care")
    expect(body.get_by_role("listitem")).to_have_count(2)
    expect(body.locator("pre code")).to_have_text("code block")
    link = body.get_by_role("link", name="docs")
    expect(link).to_have_attribute("href", "https://example.com/docs")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    expect(link).to_have_attribute("target", "_blank")

    page.get_by_label("Status").select_option("in_progress")
    page.get_by_label("Priority").select_option("high")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_text("High priority", exact=True)).to_be_visible()
    inbox = relaydeck.http.ok("GET", "/v1/inbox", token=secret)
    # One save, one item that names both changes.
    assert [item["kind"] for item in inbox["items"]] == ["task_changed"]
    assert "in_progress" in inbox["items"][0]["text"] and "high" in inbox["items"][0]["text"]
    # The agent's change shows on the open task.
    relaydeck.http.ok("PATCH", f"/v1/tasks/{task['id']}", {"status_note": "Halfway there", "progress": 50}, token=secret)
    expect(page.get_by_text("Halfway there")).to_be_visible()
    console.assert_clean()


def test_an_answer_to_the_pages_own_change_that_arrives_after_a_newer_event_is_not_shown(relaydeck, signed_in, console):
    # The answer to the page's PATCH and the stream's events travel apart. Here the answer is held
    # until the agent's later change has come over the stream, then let through: the page keeps
    # the newer task.
    page, _, _, secret = signed_in
    task = relaydeck.http.ok("POST", "/v1/tasks", {"title": "Race the stream"}, token=secret)
    held = []

    def hold(route):
        if route.request.method != "PATCH":
            route.continue_()
            return
        held.append((route, route.fetch()))

    page.route(f"**/v1/tasks/{task['id']}", hold)
    page.get_by_role("link", name="Race the stream").click()
    expect(page.get_by_role("heading", name="Race the stream", level=1)).to_be_visible()
    page.get_by_label("Priority").select_option("urgent")
    page.get_by_role("button", name="Save changes").click()
    # The page's own change reaches it over the stream while its answer is held.
    expect(page.get_by_text("Urgent priority", exact=True)).to_be_visible()
    relaydeck.http.ok("PATCH", f"/v1/tasks/{task['id']}", {"status_note": "Later words", "progress": 70}, token=secret)
    expect(page.get_by_text("Later words")).to_be_visible()
    assert len(held) == 1
    route, answer = held[0]
    route.fulfill(response=answer)
    expect(page.get_by_role("status")).to_have_text("Changes saved.")
    expect(page.get_by_text("Later words")).to_be_visible()
    expect(page.get_by_text("Urgent priority", exact=True)).to_be_visible()
    console.assert_clean()


def test_the_page_reconnects_after_a_restart_and_fetches_what_it_missed(tmp_path, new_context, console):
    from browser_support import ServerProcess, start_relaydeck
    first = start_relaydeck(tmp_path)
    second = None
    try:
        _, token = first.new_account()
        key, secret = first.new_key(token, "Claude Code")
        page = new_context().new_page()
        sign_in_with_token(page, first, token)
        expect(page.get_by_role("heading", name="Claude Code")).to_be_visible()
        assert first.process.stop() == 0
        expect(page.get_by_role("status").filter(has_text="Reconnecting…")).to_be_visible()
        # The same port and database: the browser's origin and cookie stay valid.
        second = ServerProcess(tmp_path, {k: v for k, v in first.process.env.items() if k not in ("PATH",)}).start()
        # Made while the page may still be disconnected: the refetch after `ready` brings it.
        first.http.ok("POST", "/v1/tasks", {"title": "Made during the outage"}, token=secret)
        expect(page.get_by_role("link", name="Made during the outage")).to_be_visible(timeout=30_000)
        expect(page.get_by_role("status").filter(has_text="Reconnecting…")).to_be_hidden()
        # And live events flow again on the new stream.
        first.http.ok("POST", "/v1/tasks", {"title": "Made after the reconnect"}, token=secret)
        expect(page.get_by_role("link", name="Made after the reconnect")).to_be_visible()
        assert key["label"] == "Claude Code"
        # The outage made failed loads and a broken stream; nothing else may be in the log.
        console.errors[:] = [e for e in console.errors if "ERR_CONNECTION_REFUSED" not in e and "Failed to load resource" not in e]
        console.assert_clean()
    finally:
        for process in (second, first.process):
            if process:
                process.teardown()


def test_the_person_creates_edits_and_deletes_a_task_for_an_agent(relaydeck, signed_in, console):
    page, token, key, secret = signed_in
    page.get_by_role("link", name="Tasks", exact=True).click()
    page.get_by_role("button", name="New task").click()
    dialog = page.get_by_role("dialog", name="New task")
    dialog.get_by_label("Title").fill("Rotate the logs")
    dialog.get_by_label("Description (Markdown)").fill("Keep *seven* days.")
    dialog.get_by_label("Priority").select_option("urgent")
    dialog.get_by_role("button", name="Create task").click()
    expect(dialog).to_be_hidden()
    page.get_by_role("list", name="Tasks").get_by_role("link", name="Rotate the logs").click()
    expect(page.get_by_text("The agent has not picked it up yet")).to_be_visible()
    [task] = relaydeck.http.ok("GET", "/v1/tasks", token=secret)["tasks"]
    assert (task["title"], task["priority"], task["source"]) == ("Rotate the logs", "urgent", "app")
    # The agent gets it from its inbox; the open page shows that it did.
    inbox = relaydeck.http.ok("GET", "/v1/inbox", token=secret)["items"]
    assert [(i["kind"], i["text"]) for i in inbox] == [("task_assigned", "Rotate the logs")]
    expect(page.get_by_text(re.compile("The agent got it"))).to_be_visible()

    page.get_by_role("button", name="Edit title and description").click()
    edit = page.get_by_role("dialog", name="Edit task")
    edit.get_by_label("Title").fill("Rotate and compress the logs")
    edit.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Rotate and compress the logs", level=1)).to_be_visible()

    page.get_by_role("button", name="Delete task").click()
    page.get_by_role("dialog", name="Delete this task?").get_by_role("button", name="Delete task").click()
    expect(page.get_by_role("heading", name="Tasks", level=1)).to_be_visible()
    assert relaydeck.http.ok("GET", "/v1/tasks", token=secret)["tasks"] == []
    kinds = [i["kind"] for i in relaydeck.http.ok("GET", "/v1/inbox", token=secret)["items"]]
    assert kinds == ["task_changed", "task_deleted"]
    assert key["label"] == "Claude Code" and token
    console.assert_clean()


def items_in_order(relaydeck, secret, count):
    """`count` tasks "Item 00", "Item 01", ...; the first three each in a millisecond of its own.
    Lists order by `updated_at`, then by ID, and the IDs of one millisecond are in random order,
    so tasks made in the same millisecond would page in any order: 00 and 01 must be the two
    oldest, and 01 newer than 00, for the pages the tests expect."""
    made = []
    for number in range(count):
        made.append(relaydeck.http.ok("POST", "/v1/tasks", {"title": f"Item {number:02d}"}, token=secret))
        if number < 3:
            time.sleep(0.003)
    return made


def test_the_last_page_moves_the_focus_even_when_live_events_already_listed_its_tasks(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    made = items_in_order(relaydeck, secret, 52)
    page.get_by_role("link", name="Tasks", exact=True).click()
    rows = page.get_by_role("list", name="Tasks").get_by_role("listitem")
    expect(rows).to_have_count(50)
    # The two oldest change: their events list them at the top before their page is asked for.
    for task in made[:2]:
        relaydeck.http.ok("PATCH", f"/v1/tasks/{task['id']}", {"progress": 10}, token=secret)
    expect(rows).to_have_count(52)
    page.get_by_role("button", name="Load more tasks").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Load more tasks")).to_be_hidden()
    expect(page.get_by_role("link", name="Item 01")).to_be_focused()
    expect(rows).to_have_count(52)
    console.assert_clean()


def test_loading_the_last_page_moves_the_focus_to_the_first_new_task(relaydeck, signed_in, console):
    page, _, _, secret = signed_in
    items_in_order(relaydeck, secret, 52)
    page.get_by_role("link", name="Tasks", exact=True).click()
    expect(page.get_by_role("list", name="Tasks").get_by_role("listitem")).to_have_count(50)
    page.get_by_role("button", name="Load more tasks").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="Item 01")).to_be_focused()
    console.assert_clean()
