"""Logging in, and the dashboard in the browser: the list, its filters and pages, and starting a
conversion, by mouse and by keyboard, on a 1366×768 screen."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from conversions.models import ConversionSession
from tests.browser.conftest import log_in
from tests.conftest import World
from tests.factories import SourceFileFactory

pytestmark = pytest.mark.django_db(transaction=True)

# The dashboard's parts these tests use; change them here if the page changes.
LOGIN = {"username": "#id_username", "password": "#id_password", "error": ".error"}
DASHBOARD = {
    "rows": "#sessions tbody tr",
    "search": "#q",
    "title": "#title",
    "empty": "#empty",
    "status_filter": ".status-filters a[data-status='{}']",
    "next_page": "a[rel=next]",
}
SESSION_TITLE = "h1"


def _session(world: World, owner: str, title: str, status: str = "idle", **fields: object) -> ConversionSession:
    return ConversionSession.objects.create(
        owner=world.users[owner], lab=world.lab, title=title, status=status, timezone="UTC", **fields
    )


def _fits_the_screen(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_logging_in_through_the_form(live_world: World, page: Page) -> None:
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/$"))
    page.locator(LOGIN["username"]).fill("ada")
    page.locator(LOGIN["password"]).fill("not her password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(LOGIN["error"])).to_contain_text("didn't match")
    expect(page.locator(LOGIN["username"])).to_have_value("ada")

    page.locator(LOGIN["password"]).fill("ada-password")
    page.locator(LOGIN["password"]).press("Enter")
    expect(page).to_have_url(re.compile(r"/$"))
    expect(page.locator(".topbar")).to_contain_text("ada")
    expect(page.get_by_role("heading", name="Your conversions")).to_be_visible()


def test_the_dashboard_lists_sessions_and_filters_them_by_status_and_words(
    live_world: World, page: Page, screenshot: Callable[[str], Path]
) -> None:
    waiting = _session(live_world, "ada", "V1 day 1", "awaiting_user_input", awaiting="required_metadata")
    SourceFileFactory(session=waiting, relative_path="Noise4Sam_g0/Noise4Sam_g0_t0.imec0.ap.bin", size_bytes=889_350)
    _session(live_world, "ada", "V1 day 2", "converting")
    _session(live_world, "ada", "V1 day 3", "completed", format="spikeglx")
    _session(live_world, "ada", "V1 day 4", "failed")
    _session(live_world, "ada", "A_very_long_name_without_any_space_" * 5, "cancelled")
    _session(live_world, "ben", "Ben's own", "completed")

    log_in(page, "ada")
    rows = page.locator(DASHBOARD["rows"])
    expect(rows).to_have_count(5)
    expect(page.locator("#sessions")).not_to_contain_text("Ben's own")
    assert _fits_the_screen(page), "a long name wraps instead of widening the page"
    screenshot("dashboard")

    page.locator(DASHBOARD["status_filter"].format("failed")).click()
    expect(page).to_have_url(re.compile(r"\?status=failed$"))
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("V1 day 4")
    expect(rows.first).to_contain_text("failed")

    # By keyboard: the search field, then Enter; the status filter stays.
    page.locator(DASHBOARD["search"]).focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("noise4sam")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?status=failed&q=noise4sam$"))
    expect(page.locator(DASHBOARD["empty"])).to_contain_text("No conversion matches these filters")

    page.locator(DASHBOARD["status_filter"].format("all")).focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"\?q=noise4sam$"))
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("V1 day 1")
    expect(rows.first).to_contain_text("needs you")
    expect(rows.first).to_contain_text("868.5 KB")

    # The filters live in the address, so a bookmark opens the same list.
    page.goto("/?status=needs_answer&q=day")
    expect(rows).to_have_count(1)
    expect(page.locator(DASHBOARD["search"])).to_have_value("day")


def test_a_long_list_comes_in_pages(live_world: World, page: Page) -> None:
    for n in range(30):
        _session(live_world, "ada", f"Run {n:02d}", "completed")
    log_in(page, "ada")
    rows = page.locator(DASHBOARD["rows"])
    expect(rows).to_have_count(25)
    page.locator(DASHBOARD["next_page"]).click()
    expect(page).to_have_url(re.compile(r"\?page=2$"))
    expect(rows).to_have_count(5)
    expect(page.get_by_text("Page 2 of 2")).to_be_visible()


def test_a_lab_manager_sees_the_labs_sessions_and_their_owners(
    live_world: World, page: Page, screenshot: Callable[[str], Path]
) -> None:
    _session(live_world, "ada", "Ada's V1", "awaiting_approval", awaiting="approval")
    _session(live_world, "ben", "Ben's M1", "completed")
    log_in(page, "mia")
    rows = page.locator(DASHBOARD["rows"])
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="Ada's V1")).to_contain_text("ada")
    expect(rows.filter(has_text="Ada's V1")).to_contain_text("needs an answer")
    expect(rows.filter(has_text="Ben's M1")).to_contain_text("ben")
    screenshot("dashboard-manager")

    page.context.clear_cookies()
    log_in(page, "carl")
    expect(page.locator(DASHBOARD["empty"])).to_contain_text("No conversions yet")


def test_starting_a_conversion_from_an_empty_dashboard(
    live_world: World, page: Page, screenshot: Callable[[str], Path]
) -> None:
    log_in(page, "ben")
    expect(page.locator(DASHBOARD["empty"])).to_contain_text("No conversions yet")
    screenshot("dashboard-empty")

    page.locator(DASHBOARD["title"]).fill("M1 reaching, mouse 7")
    page.locator(DASHBOARD["title"]).press("Enter")
    expect(page).to_have_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    expect(page.locator(SESSION_TITLE)).to_contain_text("M1 reaching, mouse 7")
    assert ConversionSession.objects.get(owner=live_world.users["ben"]).title == "M1 reaching, mouse 7"

    page.goto("/")
    rows = page.locator(DASHBOARD["rows"])
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("M1 reaching, mouse 7")
    expect(rows.first).to_contain_text("needs you")
    rows.first.get_by_role("link").click()
    expect(page.locator(SESSION_TITLE)).to_contain_text("M1 reaching, mouse 7")
