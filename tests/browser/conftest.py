"""Browser tests: Playwright's async API driving Debian's chromium against a live server.

The server runs in the test's own event loop (``tests.support.server.serve``) and the
async Playwright API shares that loop, so nothing blocks it. Without /usr/bin/chromium
the tests skip, unless ROLLHOUSE_REQUIRE_BROWSER=1 makes a missing browser a failure.

One Chromium per test module: the module's tests run in one event loop (the module's,
marked here), so they share the browser that Playwright launched in it, and each test
still gets fresh contexts (own storage, cookies, permissions), closed when it ends, and a
server of its own. An async fixture of a browser test therefore runs in the module's loop
too (``@pytest_asyncio.fixture(loop_scope="module")``), as ``live_server`` does here.
"""

from __future__ import annotations

import inspect
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tests.support.server import LiveServer, serve

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
VIEWPORT = {"width": 1366, "height": 860}
TRACE_LINES = 150
"""What a page's trace keeps (its latest console lines and websocket frames)."""
CALL_FAILED = pytest.StashKey[bool]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


def pytest_collectstart(collector: pytest.Collector) -> None:
    """A module of async browser tests runs them in its own event loop, as a module-level
    ``pytestmark = pytest.mark.asyncio(loop_scope="module")`` would say."""
    if isinstance(collector, pytest.Module) and Path(__file__).parent in collector.path.parents:
        tests = [f for name, f in vars(collector.obj).items() if name.startswith("test_")]
        if any(inspect.iscoroutinefunction(f) for f in tests):
            collector.add_marker(pytest.mark.asyncio(loop_scope="module"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    """Whether the test itself failed, for the fixtures' teardown (:func:`new_page`)."""
    report = yield
    if report.when == "call":
        item.stash[CALL_FAILED] = report.failed
    return report


def trace(page: Any, name: str | None, start: float) -> deque[str]:
    """The page's latest console lines and websocket frames (each cut to 300 characters;
    seconds since ``start``, shared by a test's pages), printed when the test fails: a
    wait that timed out then says what each page saw."""
    lines: deque[str] = deque(maxlen=TRACE_LINES)

    def note(what: str) -> None:
        lines.append(f"{time.monotonic() - start:7.3f} {name}: {what[:300]}")

    page.on("console", lambda msg: note(f"console.{msg.type}: {msg.text}"))

    def navigated(frame: Any) -> None:
        if frame.parent_frame is None:
            note(f"page {frame.url}")

    page.on("framenavigated", navigated)

    def socket(ws: Any) -> None:
        note(f"ws open {ws.url}")
        ws.on("framesent", lambda data: note(f"ws -> {data!r}"))
        ws.on("framereceived", lambda data: note(f"ws <- {data!r}"))
        ws.on("close", lambda _ws: note("ws closed"))

    page.on("websocket", socket)
    return lines


def traced(traces: list[deque[str]]) -> str:
    """Pages' traces merged in time order (each line starts with its time, padded)."""
    return "\n".join(sorted(line for lines in traces for line in lines))


def require_chromium() -> None:
    """Skip (or fail, when ROLLHOUSE_REQUIRE_BROWSER=1) without a chromium binary."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is not installed"
    if os.environ.get("ROLLHOUSE_REQUIRE_BROWSER") == "1":
        pytest.fail(message + " and ROLLHOUSE_REQUIRE_BROWSER=1")
    pytest.skip(message)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Any]:
    """The module's Chromium, launched once (about 0.8 s with Playwright's driver)."""
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


@pytest_asyncio.fixture(loop_scope="module")
async def browser(chromium: Any) -> AsyncIterator[Any]:
    """The module's Chromium; the contexts a test leaves open are closed when it ends, so
    the next test starts with none, as in a browser of its own."""
    before = set(chromium.contexts)
    yield chromium
    for context in chromium.contexts:
        if context not in before:
            await context.close()


@pytest_asyncio.fixture(loop_scope="module")
async def live_server() -> AsyncIterator[LiveServer]:
    """``tests.support.server.live_server`` in the module's event loop."""
    async with serve() as server:
        yield server


NewPage = Callable[..., Awaitable[Any]]


@pytest_asyncio.fixture(loop_scope="module")
async def new_page(browser: Any, request: pytest.FixtureRequest) -> AsyncIterator[NewPage]:
    """A page in a fresh context (own localStorage), with a player name and a language.

    Page errors (uncaught exceptions) are collected and fail the test at teardown. When
    the test fails, each page's trace (:func:`trace`) is printed.
    """
    errors: list[str] = []
    contexts: list[Any] = []
    traces: list[deque[str]] = []
    start = time.monotonic()

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
        traces.append(trace(page, name, start))
        return page

    yield make
    if request.node.stash.get(CALL_FAILED, False):
        print(traced(traces))
    for context in contexts:
        await context.close()
    assert not errors, f"uncaught errors in the pages: {errors}"
