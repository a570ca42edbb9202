"""Screenshots of the console for the README, at a phone size (390x844) and a desktop size
(1280x800), light and dark: into docs/screenshots/ with SCREENSHOTS=update, else under
.build/screenshots/, so a test run leaves the checkout unchanged. The test also checks
that each layout fits: nothing wider than the screen."""

import pytest
from playwright.sync_api import expect

from browser_support import SCREENSHOTS, sign_in_with_token

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


@pytest.fixture(scope="module")
def showcase(relaydeck):
    """An account with three agents at work, a question for each kind, and a message."""
    _, token = relaydeck.new_account()
    claude, claude_secret = relaydeck.new_key(token, "Claude Code")
    codex, codex_secret = relaydeck.new_key(token, "Codex")
    relaydeck.new_key(token, "Cursor")
    http = relaydeck.http
    for secret, host in ((claude_secret, "studio-mac"), (codex_secret, "build-box")):
        http.call("GET", "/v1/tasks", token=secret, headers={"X-Relaydeck-Host": host})
    dark = http.ok("POST", "/v1/tasks", {"title": "Add dark mode support", "priority": "high",
                                         "description": "Implement a **dark theme** in all views.\n\n- color tokens\n- previews"}, token=claude_secret)
    http.ok("PATCH", f"/v1/tasks/{dark['id']}", {"status": "in_progress", "progress": 40, "status_note": "Updating the color tokens"}, token=claude_secret)
    tests = http.ok("POST", "/v1/tasks", {"title": "Write unit tests for the parser"}, token=claude_secret)
    http.ok("PATCH", f"/v1/tasks/{tests['id']}", {"status": "in_progress", "progress": 75, "status_note": "18 of 24 cases pass"}, token=claude_secret)
    migrate = http.ok("POST", "/v1/tasks", {"title": "Migrate the orders table", "priority": "urgent"}, token=codex_secret)
    http.ok("PATCH", f"/v1/tasks/{migrate['id']}", {"status": "in_progress", "progress": 90, "status_note": "Verifying row counts"}, token=codex_secret)
    http.ok("POST", "/v1/tasks", {"title": "Update the changelog", "priority": "low"}, token=codex_secret)
    http.ok("POST", "/v1/questions", {"prompt": "Deploy the migration to production now?", "task_id": migrate["id"]}, token=codex_secret)
    http.ok("POST", "/v1/questions", {"prompt": "Which palette for dark mode?", "kind": "choice",
                                      "options": ["Graphite", "Midnight", "Solarized"], "task_id": dark["id"]}, token=claude_secret)
    return token


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_screenshot(relaydeck, new_context, console, showcase, size, scheme):
    context = new_context(viewport=SIZES[size], color_scheme=scheme, device_scale_factor=1,
                          is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    sign_in_with_token(page, relaydeck, showcase)
    expect(page.get_by_text("Deploy the migration to production now?")).to_be_visible()
    expect(page.get_by_text("Verifying row counts")).to_be_visible()
    page.wait_for_timeout(200)
    # Nothing sticks out sideways: the page is as wide as the screen.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SIZES[size]["width"]
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background == ("rgb(21, 23, 28)" if scheme == "dark" else "rgb(246, 247, 249)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"console-{size}-{scheme}.png"))
    if size == "desktop" and scheme == "light":
        page.get_by_role("link", name="Add dark mode support").first.click()
        expect(page.get_by_role("heading", name="Add dark mode support", level=1)).to_be_visible()
        page.screenshot(path=str(SCREENSHOTS / "console-task-desktop-light.png"))
    console.assert_clean()
