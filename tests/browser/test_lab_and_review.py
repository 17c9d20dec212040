"""A lab manager edits the lab's defaults and a member's next conversion starts with them; portal staff
resolve a stuck conversion from the review queue and its owner reads their note."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from conversions.models import ConversionSession
from tests.browser.conftest import log_in
from tests.conftest import World

pytestmark = pytest.mark.django_db(transaction=True)

# The pages' parts these tests use; change them here if the pages change.
LAB_SETTINGS = {
    "institution": "#id_institution",
    "timezone": "#id_timezone",
    "keywords": "#id_keywords",
    "save": "Save settings",
    "messages": ".flash",
}
REVIEW = {"resolve_text": "#resolve-text", "tell_user": "input[name=tell_user]", "resolve": "Resolve"}
DASHBOARD = {"title": "#title", "start": "#new-session [type=submit]"}
SESSION_PAGE = {"chat": "#chat", "metadata": "#metadata"}


def test_a_lab_manager_edits_the_defaults_and_new_sessions_start_with_them(
    live_world: World, page: Page, screenshot: Callable[[str], Path]
) -> None:
    log_in(page, "mia")
    page.get_by_role("link", name="Visual Lab settings").click()
    expect(page).to_have_url(re.compile(rf"/labs/{live_world.lab.id}/settings$"))

    # A wrong value is refused with a reason, and what was typed stays in the form.
    page.locator(LAB_SETTINGS["institution"]).fill("MIT")
    page.locator(LAB_SETTINGS["timezone"]).fill("Mars/Olympus_Mons")
    page.get_by_role("button", name=LAB_SETTINGS["save"]).click()
    expect(page.locator(LAB_SETTINGS["messages"])).to_contain_text("not saved")
    expect(page.locator(LAB_SETTINGS["institution"])).to_have_value("MIT")
    live_world.lab.refresh_from_db()
    assert live_world.lab.institution == "" and live_world.lab.timezone == "Europe/Paris"

    page.locator(LAB_SETTINGS["timezone"]).fill("America/New_York")
    page.locator(LAB_SETTINGS["keywords"]).fill("V1, Neuropixels")
    page.get_by_role("button", name=LAB_SETTINGS["save"]).click()
    expect(page.locator(LAB_SETTINGS["messages"])).to_contain_text("Settings saved")
    screenshot("lab-settings")
    live_world.lab.refresh_from_db()
    assert live_world.lab.institution == "MIT" and live_world.lab.timezone == "America/New_York"

    # A member may not change them, and is told who can.
    page.context.clear_cookies()
    log_in(page, "ben")
    response = page.goto(f"/labs/{live_world.lab.id}/settings")
    assert response is not None and response.status == 403
    expect(page.locator("main")).to_contain_text("mia")

    page.goto("/")
    page.locator(DASHBOARD["title"]).fill("After the new defaults")
    page.locator(DASHBOARD["start"]).click()
    expect(page.locator(SESSION_PAGE["metadata"])).to_contain_text("MIT")
    session = ConversionSession.objects.get(title="After the new defaults")
    assert session.timezone == "America/New_York"
    institution = session.metadata_fields.get(name="institution")
    assert (institution.value, institution.source) == ("MIT", "lab_default")


def test_staff_resolve_a_stuck_conversion_and_its_owner_reads_the_note(
    live_world: World, page: Page, screenshot: Callable[[str], Path]
) -> None:
    stuck = ConversionSession.objects.create(
        owner=live_world.users["ada"],
        lab=live_world.lab,
        title="Stuck V1 run",
        status="failed",
        timezone="UTC",
        needs_review=True,
        review_reason="The conversion failed for a reason the portal could not explain.",
        review_since=timezone.now() - timedelta(hours=3),
    )
    log_in(page, "sam")
    page.goto("/review/")
    page.get_by_role("link", name="Stuck V1 run").click()
    expect(page).to_have_url(re.compile(rf"/review/sessions/{stuck.id}/$"))
    screenshot("review-session")

    note = "The recording's header was damaged; upload the copy from the rig and retry."
    page.locator(REVIEW["resolve_text"]).fill(note)
    page.locator(REVIEW["tell_user"]).check()
    page.get_by_role("button", name=REVIEW["resolve"], exact=True).click()
    expect(page.locator(".flash")).to_contain_text("Resolved")
    stuck.refresh_from_db()
    assert not stuck.needs_review

    page.goto("/review/")
    expect(page.get_by_role("link", name="Stuck V1 run")).to_have_count(0)

    page.context.clear_cookies()
    log_in(page, "ada")
    page.goto("/?status=failed")
    page.get_by_role("link", name="Stuck V1 run").click()
    expect(page.locator(SESSION_PAGE["chat"])).to_contain_text(note)
