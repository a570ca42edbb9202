"""Fixtures of the browser tests (the helpers are in browser_support.py): one relaydeckd per
module, Debian's chromium for the session, fresh browser contexts per test whose pages are
watched for console errors, exceptions and dialogs."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_support import CHROMIUM, Console, binary_path, start_relaydeck  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def built_binary():
    path = binary_path()
    if not path.exists():
        pytest.exit(f"{path} does not exist: run `make build` (or set RELAYDECKD)", returncode=1)
    if not Path(CHROMIUM).exists():
        pytest.exit(f"{CHROMIUM} does not exist: run `make test-deps` (it installs Debian's chromium)", returncode=1)
    return path


@pytest.fixture(scope="module")
def relaydeck(tmp_path_factory):
    server = start_relaydeck(tmp_path_factory.mktemp("relaydeck"))
    yield server
    server.process.teardown()


@pytest.fixture(scope="session")
def playwright_driver():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright_driver):
    chromium = playwright_driver.chromium.launch(executable_path=CHROMIUM, headless=True)
    yield chromium
    chromium.close()


@pytest.fixture
def console():
    return Console()


@pytest.fixture
def new_context(browser, console):
    """new_context(**options) -> a fresh browser context (own cookies); closed after the test."""
    contexts = []

    def make(**options):
        options.setdefault("viewport", {"width": 1280, "height": 800})
        context = browser.new_context(**options)
        context.set_default_timeout(10_000)
        context.on("page", console.watch)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_context):
    context = new_context()
    return context.new_page()


