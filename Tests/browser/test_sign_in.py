"""Signing in: the login link (once only), registering a passkey after it, signing out and in
again with the passkey, the pasted account token, and a session removed from another browser."""

import re

from playwright.sync_api import expect

from browser_support import add_authenticator, sign_in_with_token


def test_login_link_then_passkey_then_sign_out_and_in_with_the_passkey(relaydeck, new_context, console):
    account_id, _ = relaydeck.new_account()
    link = relaydeck.login_link(account_id)
    context = new_context()
    page = context.new_page()
    add_authenticator(context, page)

    page.goto(link)
    offer = page.get_by_role("dialog", name="Sign in faster next time")
    expect(offer).to_be_visible()
    # The one-time token left the address bar at once.
    assert "login=" not in page.url
    offer.get_by_label("Name of the passkey").fill("Test laptop")
    offer.get_by_role("button", name="Register a passkey").click()
    expect(offer).to_be_hidden()
    expect(page.get_by_role("heading", name="Agents", level=1)).to_be_visible()

    page.get_by_role("link", name="Settings").click()
    expect(page.get_by_role("list", name="Passkeys").get_by_text("Test laptop", exact=True)).to_be_visible()
    page.get_by_role("button", name="Sign out of this browser").click()
    expect(page.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    expect(page.get_by_role("navigation", name="Sections")).to_be_hidden()

    # A reload still shows the sign-in page: the cookie is gone.
    page.reload()
    page.get_by_role("button", name="Sign in with a passkey").click()
    expect(page.get_by_role("heading", name="Agents", level=1)).to_be_visible()
    page.get_by_role("link", name="Settings").click()
    expect(page.get_by_role("list", name="Passkeys").get_by_text(re.compile("Last used"))).to_be_visible()
    console.assert_clean()


def test_a_login_link_works_once(relaydeck, new_context, console):
    account_id, _ = relaydeck.new_account()
    link = relaydeck.login_link(account_id)
    first = new_context().new_page()
    first.goto(link)
    expect(first.get_by_role("dialog", name="Sign in faster next time")).to_be_visible()

    second = new_context().new_page()
    second.goto(link)
    expect(second.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    expect(second.get_by_text("That login link was already used or has expired.")).to_be_visible()
    assert "login=" not in second.url
    console.assert_clean()


def test_the_pasted_account_token_signs_in_and_a_wrong_one_does_not(relaydeck, page, console):
    _, token = relaydeck.new_account()
    page.goto(relaydeck.app_url)
    page.get_by_label("Account token").fill("mca_" + "A" * 43)
    page.get_by_role("button", name="Sign in with the token").click()
    expect(page.get_by_text("That account token is not valid on this server.")).to_be_visible()
    sign_in_with_token(page, relaydeck, token)
    expect(page.get_by_role("navigation", name="Sections")).to_be_visible()
    console.assert_clean()


def test_a_session_removed_in_another_browser_signs_that_browser_out(relaydeck, new_context, console):
    _, token = relaydeck.new_account()
    laptop = new_context(user_agent="Laptop browser").new_page()
    phone = new_context(user_agent="Phone browser").new_page()
    sign_in_with_token(laptop, relaydeck, token)
    sign_in_with_token(phone, relaydeck, token)

    laptop.get_by_role("link", name="Settings").click()
    sessions = laptop.get_by_role("list", name="Signed-in browsers")
    expect(sessions.get_by_role("button", name="Sign out there Phone browser")).to_be_visible()
    sessions.get_by_role("button", name="Sign out there Phone browser").click()
    expect(sessions.get_by_role("button", name="Sign out there Phone browser")).to_be_hidden()

    # The server ends the phone's event stream with its session; the page reconnects, finds no
    # session and shows the sign-in by itself, without a click.
    expect(phone.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible(timeout=20_000)
    expect(phone.get_by_text("Your session ended. Sign in again.")).to_be_visible()
    phone.reload()
    expect(phone.get_by_role("heading", name="Sign in to Relaydeck")).to_be_visible()
    console.assert_clean()
