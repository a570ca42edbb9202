"""Keys (the secret shown once with ready-made MCP settings, rename, delete), messages and the
inbox view, the activity log, the account settings and deleting the account."""

import json
import re
import stat
import subprocess

import pytest
from playwright.sync_api import expect

from browser_support import sign_in_with_token


@pytest.fixture
def signed_in(relaydeck, page):
    _, token = relaydeck.new_account()
    sign_in_with_token(page, relaydeck, token)
    return page, token


def run_claude_recipe(recipe: str, secret: str, mcp: str, tmp_path) -> None:
    """Runs the console's Claude Code commands in a fresh home, the key pasted on standard input,
    with a stand-in claude that records its arguments; then the headersHelper as Claude Code
    runs it (a shell command that prints the headers as JSON)."""
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    bin_dir.mkdir()
    (bin_dir / "claude").write_text('#!/bin/sh\nprintf "%s\\n" "$@" >"$HOME/claude-argv"\n')
    (bin_dir / "claude").chmod(0o755)
    env = {"HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin"}
    done = subprocess.run(["sh", "-e", "-c", recipe], input=secret + "\n", env=env, capture_output=True, text=True,
                          timeout=30)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE((home / ".config/relaydeck/api-key").stat().st_mode) == 0o600
    argv = (home / "claude-argv").read_text().splitlines()
    assert secret not in "".join(argv)
    assert argv[:5] == ["mcp", "add-json", "--scope", "user", "relaydeck"]
    entry = json.loads(argv[5])
    assert entry["type"] == "http" and entry["url"] == mcp
    helper = subprocess.run(["sh", "-c", entry["headersHelper"]], env=env, capture_output=True, text=True, timeout=10)
    assert json.loads(helper.stdout) == {"Authorization": f"Bearer {secret}"}, helper


def test_a_new_keys_secret_shows_once_with_mcp_settings_and_works(relaydeck, signed_in, console, tmp_path):
    page, token = signed_in
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("link", name="Keys").click()
    page.get_by_role("button", name="New key").click()
    dialog = page.get_by_role("dialog", name="New key")
    dialog.get_by_label("Label").fill("Gemini")
    dialog.get_by_role("button", name="Create key").click()

    shown = page.get_by_role("dialog", name="The secret of Gemini")
    secret = shown.locator(".secret").inner_text()
    assert re.fullmatch(r"mck_[0-9A-Za-z]{43}", secret), secret
    shown.get_by_role("button", name="Copy secret").click()
    assert page.evaluate("() => navigator.clipboard.readText()") == secret
    mcp = f"{relaydeck.origin}/mcp"
    # First the install script, which asks for the key; then each agent by hand, as the script
    # sets it up. Nothing to run in a terminal has the key in it: a command line is seen by
    # every user in the process list, and stays in the shell's history.
    script = shown.locator("#mcp-panel-script")
    expect(script).to_be_visible()
    expect(script).to_contain_text(f"curl -fsSL {relaydeck.origin}/install | sh")
    shown.get_by_role("tab", name="Claude Code").click()
    claude = shown.locator("#mcp-panel-claude")
    expect(claude).to_be_visible()
    expect(claude).to_contain_text("(umask 077 && cat > ~/.config/relaydeck/api-key)")
    expect(claude).to_contain_text(
        f'claude mcp add-json --scope user relaydeck \'{{"type":"http","url":"{mcp}",'
        '"headersHelper":"~/.config/relaydeck/mcp-headers"}\'')
    for panel in (script, claude):
        assert secret not in panel.text_content() and "--header" not in panel.text_content()
    run_claude_recipe(claude.locator("code").text_content(), secret, mcp, tmp_path)
    for name, expected in (("Codex", f'url = "{mcp}"'), ("Cursor", f'"url": "{mcp}"'), ("Gemini CLI", f'"httpUrl": "{mcp}"')):
        shown.get_by_role("tab", name=name).click()
        expect(shown.get_by_role("tabpanel")).to_contain_text(expected)
        expect(shown.get_by_role("tabpanel")).to_contain_text(secret)
        expect(shown.get_by_role("tabpanel")).to_contain_text("chmod 600")
    shown.get_by_role("tab", name="Codex").click()
    expect(shown.get_by_role("tabpanel")).to_contain_text(f"# ~/.codex/.env\nRELAYDECK_API_KEY={secret}")
    shown.get_by_role("tab", name="Gemini CLI").press("Home")
    expect(shown.get_by_role("tab", name="Install script")).to_be_focused()
    shown.get_by_role("button", name="Done").click()
    expect(shown).to_be_hidden()
    # Shown once: nowhere on the page after the dialog (removed from the document when it
    # closes), and the key list shows only its ends.
    expect(page.locator("dialog")).to_have_count(0)
    assert secret not in page.content()
    keys = page.get_by_role("list", name="API keys")
    expect(keys.get_by_role("link", name="Gemini")).to_be_visible()
    expect(keys.get_by_text(secret[:8] + "…" + secret[-4:])).to_be_visible()
    assert relaydeck.http.call("GET", "/v1/agents", token=secret).status == 200
    console.assert_clean()


def test_a_key_is_renamed_and_deleted(relaydeck, signed_in, console):
    page, token = signed_in
    key, secret = relaydeck.new_key(token, "Old name")
    page.get_by_role("link", name="Keys").click()
    keys = page.get_by_role("list", name="API keys")
    keys.get_by_role("button", name="Rename Old name").click()
    dialog = page.get_by_role("dialog", name="Rename Old name")
    dialog.get_by_label("Label").fill("")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog.get_by_role("alert")).not_to_be_empty()
    # The server's 422 is shown in the dialog (and Chromium logs the failed load).
    console.errors.remove("Failed to load resource: the server responded with a status of 422 (Unprocessable Content)")
    dialog.get_by_label("Label").fill("New name")
    dialog.get_by_label("Label").press("Enter")
    expect(keys.get_by_role("link", name="New name")).to_be_visible()
    assert relaydeck.http.ok("GET", "/v1/keys", token=token)["keys"][0]["label"] == "New name"

    keys.get_by_role("button", name="Delete New name").click()
    confirm = page.get_by_role("dialog", name="Delete New name?")
    confirm.press("Escape")
    expect(confirm).to_be_hidden()
    # Escape gave focus back to the button that opened the dialog.
    expect(keys.get_by_role("button", name="Delete New name")).to_be_focused()
    keys.get_by_role("button", name="Delete New name").click()
    page.get_by_role("dialog", name="Delete New name?").get_by_role("button", name="Delete key").click()
    expect(keys.get_by_role("link", name="New name")).to_be_hidden()
    assert relaydeck.http.call("GET", "/v1/agents", token=secret).status == 401
    assert key["id"] not in str(relaydeck.http.ok("GET", "/v1/keys", token=token))
    console.assert_clean()


def test_a_key_made_elsewhere_shows_up_live(relaydeck, signed_in, console):
    page, token = signed_in
    page.get_by_role("link", name="Keys").click()
    key, secret = relaydeck.new_key(token, "From the shell")
    keys = page.get_by_role("list", name="API keys")
    expect(keys.get_by_role("link", name="From the shell")).to_be_visible()
    # Counts come with no event: opening the keys again fetches them.
    for title in ("One", "Two"):
        relaydeck.http.ok("POST", "/v1/tasks", {"title": title}, token=secret)
    page.get_by_role("link", name="Agents").click()
    page.get_by_role("link", name="Keys").click()
    expect(keys.get_by_text("2 to do, 0 in progress, 0 done, 0 cancelled")).to_be_visible()
    assert key["label"] == "From the shell"
    console.assert_clean()


def test_messages_reach_the_agent_and_the_inbox_view_shows_them(relaydeck, signed_in, console):
    page, token = signed_in
    key, secret = relaydeck.new_key(token, "Codex")
    other, other_secret = relaydeck.new_key(token, "Cursor")
    page.reload()
    agent = page.get_by_role("listitem").filter(has=page.get_by_role("heading", name="Codex"))
    agent.get_by_role("button", name="Message Codex").click()
    dialog = page.get_by_role("dialog", name="Message to Codex")
    dialog.get_by_label("Message").fill("Stop and rebase first.")
    dialog.get_by_role("button", name="Send").click()
    expect(dialog).to_be_hidden()
    expect(agent.get_by_text("Inbox: 1 unread")).to_be_visible()

    relaydeck.http.ok("POST", "/v1/messages", {"to": "Codex", "text": "The API is ready for you."}, token=other_secret)
    agent.get_by_role("link", name="Inbox and activity of Codex").click()
    inbox = page.get_by_role("list", name="Inbox items")
    expect(inbox.get_by_text("Stop and rebase first.")).to_be_visible()
    expect(inbox.get_by_text("The API is ready for you.")).to_be_visible()
    expect(inbox.get_by_text("From Cursor")).to_be_visible()

    page.get_by_label("Message to Codex").fill("One more thing.")
    page.get_by_role("button", name="Send message").click()
    expect(inbox.get_by_text("One more thing.")).to_be_visible()
    items = relaydeck.http.ok("GET", "/v1/inbox", token=secret)["items"]
    assert [item["text"] for item in items] == ["Stop and rebase first.", "The API is ready for you.", "One more thing."]
    # The agent read them: the view updates live to read.
    expect(page.get_by_text("0 unread.")).to_be_visible()
    expect(inbox.get_by_text("Unread")).to_have_count(0)
    assert other["label"] == "Cursor" and key["label"] == "Codex"
    console.assert_clean()


def test_the_activity_log_of_a_key(relaydeck, signed_in, console):
    page, token = signed_in
    key, secret = relaydeck.new_key(token, "Logger")
    relaydeck.http.call("GET", "/v1/tasks/tsk_missing", token=secret, headers={"X-Relaydeck-Host": "build-box"})
    relaydeck.http.ok("GET", "/v1/tasks", token=secret)
    page.goto(f"{relaydeck.app_url}#/key/{key['id']}")
    log = page.get_by_role("table", name="Activity log, newest first")
    # The server writes an entry just after its answer: refresh until both are there.
    for _ in range(50):
        if log.get_by_role("row").count() == 3:
            break
        page.get_by_role("button", name="Refresh the log").click()
        page.wait_for_timeout(100)
    expect(log.get_by_role("row")).to_have_count(3)
    expect(log.get_by_role("row").nth(1)).to_contain_text("GET /v1/tasks")
    expect(log.get_by_role("row").nth(2)).to_contain_text("GET /v1/tasks/{task_id}")
    expect(log.get_by_role("row").nth(2)).to_contain_text("not_found")
    expect(log.get_by_role("row").nth(2)).to_contain_text("build-box")
    # An entry is copied whole, as JSON, to hand it to the agent.
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    log.get_by_role("row").nth(2).get_by_role("button", name="Copy the entry GET /v1/tasks/{task_id} of").click()
    copied = json.loads(page.evaluate("() => navigator.clipboard.readText()"))
    assert (copied["action"], copied["status"], copied["code"], copied["host"]) == ("GET /v1/tasks/{task_id}", "error", "not_found", "build-box")
    console.assert_clean()


def test_account_settings_and_devices(relaydeck, signed_in, console):
    page, token = signed_in
    device_id = "dev_3f2b8c1e-5a4d-4e6f-9b7a-1c2d3e4f5a6b"
    relaydeck.http.ok("PUT", f"/v1/devices/{device_id}", {
        "platform": "ios", "model": "iPhone18,1", "os_version": "27.0", "app_version": "1.0 (1)",
        "apns_environment": "production", "apns_token": "a1b2" * 16}, token=token)
    page.get_by_role("link", name="Settings").click()
    toggle = page.get_by_label("Live Activities on the iPhone for tasks in progress")
    expect(toggle).to_be_checked()
    toggle.uncheck()
    expect(page.get_by_role("status").filter(has_text="Live Activities off")).to_have_count(1)
    assert relaydeck.http.ok("GET", "/v1/account", token=token)["settings"]["live_activities"] is False

    devices = page.get_by_role("list", name="Devices")
    if relaydeck.http.call("GET", "/v1/devices", token=token).status != 200:
        expect(devices.get_by_text("This server cannot list devices.")).to_be_visible()
        pytest.skip("GET /v1/devices is not served: the devices list cannot be shown")
    expect(devices.get_by_text("iPhone18,1 (ios)")).to_be_visible()
    devices.get_by_role("button", name="Remove iPhone18,1").click()
    page.get_by_role("dialog", name="Remove this device?").get_by_role("button", name="Remove device").click()
    expect(devices.get_by_text("iPhone18,1 (ios)")).to_be_hidden()
    assert relaydeck.http.ok("GET", "/v1/devices", token=token)["devices"] == []
    console.assert_clean()


def test_deleting_the_account_needs_a_confirmation_and_signs_out(relaydeck, signed_in, console):
    page, token = signed_in
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("button", name="Delete the account…").click()
    dialog = page.get_by_role("dialog", name="Delete the account?")
    dialog.get_by_role("button", name="Delete the account").click()
    expect(dialog.get_by_text("Type DELETE in capital letters to confirm.")).to_be_visible()
    assert relaydeck.http.call("GET", "/v1/account", token=token).status == 200
    dialog.get_by_label("Type DELETE to confirm").fill("DELETE")
    dialog.get_by_role("button", name="Delete the account").click()
    expect(page.get_by_text("The account was deleted.")).to_be_visible()
    expect(page.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    assert relaydeck.http.call("GET", "/v1/account", token=token).status == 401
    page.reload()
    expect(page.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    console.assert_clean()


def test_an_account_deleted_elsewhere_signs_the_open_page_out(relaydeck, signed_in, console):
    page, token = signed_in
    relaydeck.http.ok("DELETE", "/v1/account", token=token)
    # account.deleted on the event stream, without any click.
    expect(page.get_by_text("The account was deleted.")).to_be_visible()
    expect(page.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    console.assert_clean()
