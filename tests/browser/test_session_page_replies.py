"""Replies a person reads on the session page, on a 1366×768 screen: automatic fixes in one line
with their details behind a toggle, the buttons of old cards disabled, a rejected plan no longer
offered for approval, the answer to an unrecognised upload naming the closest formats first, and a
page that ends with the chat (no blank area to scroll to below it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from conversions.models import ConversionSession
from conversions.nwb.detection import EVERY_FORMAT_HEADING, SUPPORTED_FORMATS
from conversions.nwb.synthetic import write_spikeglx
from tests.browser.conftest import log_in, start_session, upload
from tests.conftest import World

pytestmark = pytest.mark.django_db(transaction=True)

# The session page's parts these tests use, by their stable ids; change them here if the page changes.
SESSION_PAGE = {
    "chat": "#chat",
    "message": "#message",
    "files": "#uploader-files, #files",
    "upload": "#upload-form [type=submit]",
    "state_note": "#state-note",
    "plans": "#chat [data-card=plan]",
    "fixes": "#chat [data-card=fixes]",
    "chat_card": ".chat-card",
    "side": ".side",
}
DASHBOARD = {"title": "#title", "start": "#new-session [type=submit]"}
DETECTION_MS = 120_000
# The page's own margin below its columns (main's 1rem); a rounding error more, never a blank area.
PAGE_MARGIN_PX = 16
SLACK_PX = 1


def _say(page: Page, text: str) -> None:
    page.locator(SESSION_PAGE["message"]).fill(text)
    page.locator(SESSION_PAGE["message"]).press("Enter")


def _blank_below_the_columns(page: Page) -> float:
    """How far the page scrolls past the bottom of its two columns, in CSS pixels."""
    return page.evaluate(
        """(selectors) => {
          const bottom = Math.max(...selectors.map((s) => document.querySelector(s).getBoundingClientRect().bottom));
          return document.documentElement.scrollHeight - (bottom + window.scrollY);
        }""",
        [SESSION_PAGE["chat_card"], SESSION_PAGE["side"]],
    )


def test_fixes_old_cards_and_a_rejected_plan_on_a_laptop_screen(
    live_world: World, celery_worker_thread: Any, page: Page, screenshot: Callable[[str], Path], tmp_path: Path
) -> None:
    # Lab defaults written the way DANDI refuses (saved before the settings form checked them).
    live_world.lab.experimenters = ["Jane Smith"]
    live_world.lab.institution = " MIT "
    live_world.lab.save()
    recording = write_spikeglx(tmp_path / "rec", run="v1", duration_s=1.0, n_channels=8, seed=3)
    log_in(page, "ada")
    session_id = start_session(page, "Replies on the page")
    upload(page, sorted(p for p in recording["ap_bin"].parent.iterdir() if p.is_file()))
    chat = page.locator(SESSION_PAGE["chat"])
    expect(chat).to_contain_text("experiment", timeout=DETECTION_MS)

    # The fixes: one line, and every change behind "details".
    fixes = page.locator(SESSION_PAGE["fixes"]).first
    expect(fixes.locator(".message-text")).to_have_text(
        "Fixed automatically: 2 values written the way DANDI accepts (experimenter, institution)."
    )
    details = fixes.locator("details")
    expect(details.locator("li").first).to_be_hidden()
    details.locator("summary").click()
    expect(details.locator("li")).to_have_count(2)
    expect(details.locator("li").first).to_contain_text("experimenter: “Jane Smith” → “Smith, Jane”")
    expect(details.locator("li").nth(1)).to_contain_text("institution: “ MIT ” → “MIT”")
    expect(page.locator("#metadata [data-field=experimenter] .badge")).to_have_text("auto-fix")

    _say(page, "V1 recording, subject mouse001, Mus musculus, male, P90D")
    plans = page.locator(SESSION_PAGE["plans"])
    expect(plans).to_have_count(1)
    first_plan = plans.first
    expect(first_plan.locator("[data-action=approve]")).to_be_enabled()
    expect(page.locator(SESSION_PAGE["state_note"])).to_contain_text("approve it")

    # A new plan: the old one's buttons stay, disabled.
    _say(page, "institution: Stanford")
    expect(plans).to_have_count(2)
    for action in ("approve", "modify", "reject"):
        expect(first_plan.locator(f"[data-action={action}]")).to_be_disabled()
    newest = plans.last
    expect(newest.locator("[data-action=approve]")).to_be_enabled()

    # Rejected: nothing says to approve it, and it is not offered for approval; Modify still helps.
    newest.locator("[data-action=reject]").click()
    expect(chat).to_contain_text("Not converting this plan.")
    note = page.locator(SESSION_PAGE["state_note"])
    expect(note).to_contain_text("Plan rejected")
    expect(note).not_to_contain_text("approve")
    expect(newest.locator("[data-action=approve]")).to_be_disabled()
    expect(newest.locator("[data-action=reject]")).to_be_disabled()
    expect(newest.locator("[data-action=modify]")).to_be_enabled()
    page.reload()
    expect(page.locator(SESSION_PAGE["state_note"])).to_contain_text("Plan rejected")
    expect(page.locator(SESSION_PAGE["plans"]).last.locator("[data-action=approve]")).to_be_disabled()

    # The page ends with its two columns: nothing blank to scroll to below the chat.
    expect(page.locator(SESSION_PAGE["chat_card"])).to_be_visible()
    assert _blank_below_the_columns(page) <= PAGE_MARGIN_PX + SLACK_PX
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    assert page.evaluate("document.documentElement.scrollHeight - window.innerHeight") <= SLACK_PX, (
        "the page fits the screen: the chat and the panel scroll inside it"
    )
    screenshot("session-rejected-plan")

    # A change after the rejection brings a new plan, which may be approved.
    _say(page, "keywords: V1")
    expect(page.locator(SESSION_PAGE["plans"])).to_have_count(3)
    expect(page.locator(SESSION_PAGE["plans"]).last.locator("[data-action=approve]")).to_be_enabled()
    expect(page.locator(SESSION_PAGE["state_note"])).to_contain_text("approve it")
    session = ConversionSession.objects.get(id=session_id)
    assert session.awaiting == "approval"


def test_an_unrecognised_upload_names_the_closest_format_and_keeps_the_list_folded(
    live_world: World, celery_worker_thread: Any, page: Page, screenshot: Callable[[str], Path], tmp_path: Path
) -> None:
    export = tmp_path / "cell3.abf2"
    export.write_bytes(b"\x00" * 512)
    log_in(page, "ada")
    start_session(page, "Not a format")
    upload(page, [export])
    chat = page.locator(SESSION_PAGE["chat"])
    expect(chat).to_contain_text("not a recording format", timeout=DETECTION_MS)

    answer = page.locator("#chat .message", has_text="not a recording format").last
    axon = SUPPORTED_FORMATS["axon"]
    expect(answer.locator(".message-text").first).to_contain_text(f"The closest format it converts is {axon.label}")
    expect(answer).to_contain_text(EVERY_FORMAT_HEADING)
    folded = answer.locator("details")
    expect(folded.locator("li").first).to_be_hidden()
    folded.locator("summary").click()
    expect(folded.locator("li")).to_have_count(len(SUPPORTED_FORMATS))
    expect(folded.locator("li").last).to_be_visible()
    screenshot("session-unrecognised-upload")


def test_a_message_typed_while_the_last_is_answered_stays_in_the_box(live_world: World, page: Page) -> None:
    log_in(page, "ada")
    start_session(page, "Two messages at once")
    # Both submits run in one task of the page, before any answer can arrive.
    page.evaluate(
        """() => {
          const box = document.querySelector('#message');
          const form = document.getElementById('message-form');
          box.value = 'Jane Smith, MIT';
          form.requestSubmit();
          box.value = 'species: mouse';
          form.requestSubmit();
        }"""
    )
    assert page.locator("#error").text_content() == (
        "Your last message is still being answered; send this one once the reply is here."
    )
    chat = page.locator(SESSION_PAGE["chat"])
    expect(chat).to_contain_text("Jane Smith, MIT")
    expect(page.locator("#chat li", has_text="species: mouse")).to_have_count(0)
    expect(page.locator(SESSION_PAGE["message"])).to_have_value("species: mouse")
    # Said while the first was in flight; gone once its answer came (the text stays, to send now).
    expect(page.locator("#error")).to_be_hidden()
