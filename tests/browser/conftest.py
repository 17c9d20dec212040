"""Browser tests: Playwright driving Debian's Chromium against the real ASGI application (pages, API
and websockets), served by uvicorn in a thread of the test process, with the real Celery worker of
tests/conftest.py for the jobs. Both modes work: embedded (SQLite, in-memory broker and channel
layer) and, with DATABASE_URL and REDIS_URL set, PostgreSQL and Redis.

Without /usr/bin/chromium (`apt-get install chromium`; `make test` does it when run as root) the
tests skip and say why; on CI a skip here is a failure.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from django.conf import settings
from django.test.utils import override_settings
from playwright.sync_api import Page, expect

from tests.conftest import ON_CI, wait_for

HERE = Path(__file__).resolve().parent
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = HERE.parents[1] / "var" / "test-artifacts" / "screenshots"
# The machine's closed network refuses Chromium's look-ups of outside hosts; the resolver rule stops
# them (the portal is on 127.0.0.1).
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]
# A bound on waiting for what a page shows; conversions get more (see the tests).
expect.set_options(timeout=30_000)


def _is_browser_test(item: pytest.Item) -> bool:
    return Path(str(item.path)).is_relative_to(HERE)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last: Playwright's synchronous API keeps an event loop marked as running in
    the main thread until the end of the run, which other tests' own event loops would meet."""
    items.sort(key=_is_browser_test)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if ON_CI and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped on CI, where the browser tests must run: {report.longrepr}"


@pytest.fixture(scope="session", autouse=True)
def _chromium() -> None:
    if not CHROMIUM.exists():
        pytest.skip(
            f"Chromium is not installed at {CHROMIUM}: install Debian's chromium package "
            "(`make test` does it when run as root) to run the browser tests"
        )


@pytest.fixture(scope="session", autouse=True)
def _orm_beside_playwright() -> Iterator[None]:
    """Playwright's synchronous API marks its event loop as running in the main thread, so Django
    would refuse the ORM there (the test's own set-up and checks); nothing async runs in that thread."""
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def portal_url(django_db_setup: None) -> Iterator[str]:
    """The portal's real ASGI application (nwbportal.asgi: Django for HTTP, Channels for websockets)
    on a free port. Static files are served from the sources, as `make run` does in the embedded
    mode, so the production mode needs no collectstatic either."""
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    from nwbportal.asgi import application

    # Plain HTTP on 127.0.0.1: the production mode's secure-only cookies would never come back.
    served = override_settings(
        ALLOWED_HOSTS=[*settings.ALLOWED_HOSTS, "127.0.0.1"], SESSION_COOKIE_SECURE=False, CSRF_COOKIE_SECURE=False
    )
    served.enable()
    config = uvicorn.Config(
        ASGIStaticFilesHandler(application),
        host="127.0.0.1",
        port=0,
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="portal-server", daemon=True)
    thread.start()
    wait_for(lambda: server.started or not thread.is_alive(), timeout=30, what="the portal's server to start")
    assert server.started, "the portal's server did not start (see the log above)"
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=30)
    served.disable()


@pytest.fixture(scope="session")
def base_url(portal_url: str) -> str:
    """Pages open with paths (`page.goto("/")`), relative to the portal's server."""
    return portal_url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    # The smallest common laptop screen.
    return {**browser_context_args, "viewport": {"width": 1366, "height": 768}, "accept_downloads": True}


@pytest.fixture
def page(page: Page) -> Iterator[Page]:
    """The test's page; a script error on it, or anything the Content-Security-Policy refused (an
    inline script or style, another origin), fails the test, with the error."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"{error.name}: {error.message}"))
    page.on(
        "console",
        lambda message: errors.append(message.text) if "Content Security Policy" in message.text else None,
    )
    yield page
    assert not errors, f"the page's scripts failed or were refused: {errors}"


@pytest.fixture
def screenshot(page: Page) -> Callable[[str], Path]:
    """Save the whole page as var/test-artifacts/screenshots/<name>.png, a record of how it looked."""

    def take(name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take


def log_in(page: Page, username: str) -> None:
    """Log in through the login form as one of tests.conftest.World's people (by username)."""
    page.goto("/accounts/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(f"{username}-password")
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(re.compile(r"/$"))


def start_session(page: Page, title: str) -> str:
    """Start a conversion from the dashboard; the new session's id."""
    page.goto("/")
    page.locator("#title").fill(title)
    page.locator("#new-session [type=submit]").click()
    expect(page).to_have_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    # The URL changes before the page's scripts run; files chosen before then would go unnoticed.
    page.wait_for_load_state("load")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def upload(page: Page, files: list[Path]) -> None:
    """Choose files in the session page's uploader (#uploader-files; #files on the older form)."""
    page.locator("#uploader-files, #files").set_input_files([str(f) for f in files])
    # The upload starts with a button where the page has one, and by itself where it has none.
    button = page.locator("#upload-form [type=submit]")
    if button.count() and button.first.is_visible():
        button.first.click()
