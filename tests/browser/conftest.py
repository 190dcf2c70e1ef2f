"""Browser tests: Playwright's async API driving Debian's chromium against a live server.

The server runs in the test's own event loop (``tests.support.server.serve``) and the
async Playwright API shares that loop, so nothing blocks it. Without /usr/bin/chromium
the tests skip, unless ROLLHOUSE_REQUIRE_BROWSER=1 makes a missing browser a failure.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
VIEWPORT = {"width": 1366, "height": 860}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def require_chromium() -> None:
    """Skip (or fail, when ROLLHOUSE_REQUIRE_BROWSER=1) without a chromium binary."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is not installed"
    if os.environ.get("ROLLHOUSE_REQUIRE_BROWSER") == "1":
        pytest.fail(message + " and ROLLHOUSE_REQUIRE_BROWSER=1")
    pytest.skip(message)


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    require_chromium()
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        instance = await pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield instance
        finally:
            await instance.close()


NewPage = Callable[..., Awaitable[Any]]


@pytest.fixture
async def new_page(browser: Any) -> AsyncIterator[NewPage]:
    """A page in a fresh context (own localStorage), with a player name and a language.

    Page errors (uncaught exceptions) are collected and fail the test at teardown.
    """
    errors: list[str] = []
    contexts: list[Any] = []

    async def make(name: str | None = None, lang: str = "en", locale: str = "en-US") -> Any:
        context = await browser.new_context(viewport=VIEWPORT, locale=locale)
        script = f"localStorage.setItem('rollhouse.lang', {lang!r});" if lang else ""
        if name:
            script += f"localStorage.setItem('rollhouse.name', {name!r});"
        if script:
            # only on the first load: later reloads must keep what the page stored
            await context.add_init_script(
                "if (!sessionStorage.getItem('rh.init')) {"
                f"{script} sessionStorage.setItem('rh.init', '1'); }}"
            )
        contexts.append(context)
        page = await context.new_page()
        page.on("pageerror", lambda exc: errors.append(f"{name}: {exc}"))
        return page

    yield make
    for context in contexts:
        await context.close()
    assert not errors, f"uncaught errors in the pages: {errors}"
