"""A lab member converts a real SpikeGLX recording in the browser: log in, start a conversion, upload
the files, give the metadata in one message, approve, watch it convert and download the NWB file."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from playwright.sync_api import Page, expect
from pynwb import NWBHDF5IO

from conversions.models import ConversionAttempt, ConversionSession, SourceFile
from tests.browser.conftest import log_in, start_session, upload
from tests.conftest import World, real_data, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

# The session page's parts these tests use, by their stable ids; change them here if the page changes.
SESSION_PAGE = {
    "status": "#status",
    "chat": "#chat",
    "message": "#message",
    # The uploader's file input (#uploader-files); #files on pages that have the older form.
    "files": "#uploader-files, #files",
    "upload": "#upload-form [type=submit]",
    "approve": "[data-action=approve]",
    "accept_as_is": "[data-action=accept_as_is]",
    "progress_bar": "#progress-bar",
    "download": "a[href*='/output?attempt=']",
    "result": "#result",
    "plot": "#result-plot",
    "tree_toggle": "#result-tree-box summary",
    "tree": "#result-tree",
    "report": "#result-links a[href$='report.html']",
    "error": "#error",
}
DASHBOARD = {"title": "#title", "start": "#new-session [type=submit]", "sessions": "#sessions"}

FULL_METADATA = (
    "Dr. Jane Smith, MIT, Neuropixels recording of V1 neurons during passive viewing, "
    "subject mouse001, Mus musculus, male, P90D"
)
# Generous bounds on waiting for the worker (not speed assertions).
DETECTION_MS = 120_000
CONVERSION_MS = 300_000

# Progress the page showed, whichever element the page uses for it (a <progress> value or an ARIA
# progressbar's aria-valuenow), recorded as it happens because the bar hides once validation starts.
RECORD_PROGRESS = """
(selector) => {
  window.progressShown = [];
  const note = () => {
    const bar = document.querySelector(selector);
    if (!bar) return;
    const value = bar.getAttribute("aria-valuenow") ?? (bar.hasAttribute("value") ? String(bar.value) : null);
    if (value !== null && window.progressShown.at(-1) !== Number(value)) window.progressShown.push(Number(value));
  };
  new MutationObserver(note).observe(document.body, { subtree: true, attributes: true, childList: true });
}
"""


def _source_samples(bin_path: Path, channels: int) -> np.ndarray:
    raw = np.fromfile(bin_path, dtype=np.int16)
    return raw.reshape(-1, channels + 1)[:, :channels]


def test_a_member_converts_a_real_recording_and_downloads_the_nwb_file(
    live_world: World, celery_worker_thread: Any, page: Page, screenshot: Callable[[str], Path], tmp_path: Path
) -> None:
    folder = real_data("spikeglx/Noise4Sam_g0")
    log_in(page, "ada")
    session_id = start_session(page, "V1 Noise4Sam, day 3")
    expect(page.locator("h1")).to_contain_text("V1 Noise4Sam, day 3")
    page.evaluate(RECORD_PROGRESS, SESSION_PAGE["progress_bar"])

    upload(page, sorted(folder.iterdir()))
    chat = page.locator(SESSION_PAGE["chat"])
    expect(chat).to_contain_text("experimenter", timeout=DETECTION_MS)
    expect(chat).to_contain_text("institution")
    screenshot("session-asking-for-metadata")

    page.locator(SESSION_PAGE["message"]).fill(FULL_METADATA)
    page.locator(SESSION_PAGE["message"]).press("Enter")
    expect(chat).to_contain_text(FULL_METADATA)
    approve = page.locator(SESSION_PAGE["approve"]).filter(visible=True).last
    expect(approve).to_be_visible()
    expect(chat).to_contain_text("Europe/Paris")  # the plan says which time zone the start time is read in
    # So does the panel, beside the file's start time, which has no offset of its own.
    start = page.locator("#metadata [data-field=session_start_time] .field-value")
    expect(start).to_have_text("2020-11-03T10:35:10 (Europe/Paris)")
    screenshot("session-plan")
    approve.click()
    screenshot("session-converting")

    status = page.locator(SESSION_PAGE["status"])
    finished = re.compile(r"done|completed|awaiting user input|waiting for you|needs you", re.I)
    expect(status).to_have_text(finished, timeout=CONVERSION_MS)
    session = ConversionSession.objects.get(id=session_id)
    if session.status == "awaiting_user_input":
        # Validation found only notes that need a decision (best practice, not errors).
        assert session.awaiting == "correction"
        page.locator(SESSION_PAGE["accept_as_is"]).filter(visible=True).last.click()
    expect(status).to_have_text(re.compile(r"done|completed", re.I))
    expect(page.locator(SESSION_PAGE["error"])).to_be_hidden()
    screenshot("session-done")

    # The result: a plot of the first second, the file's tree, the report.
    result = page.locator(SESSION_PAGE["result"])
    expect(result).to_be_visible()
    expect(page.locator(SESSION_PAGE["plot"])).to_have_attribute("src", re.compile(r"/attempts/1/plot\.svg"))
    page.wait_for_function(
        "(selector) => { const img = document.querySelector(selector); return img.complete && img.naturalWidth > 0; }",
        arg=SESSION_PAGE["plot"],
    )
    page.locator(SESSION_PAGE["tree_toggle"]).click()
    expect(page.locator(SESSION_PAGE["tree"])).to_contain_text("ElectricalSeries")
    page.locator(SESSION_PAGE["plot"]).scroll_into_view_if_needed()
    screenshot("session-result")
    report_url = page.locator(SESSION_PAGE["report"]).first.get_attribute("href")
    report = page.request.get(report_url)
    assert report.status == 200 and FULL_METADATA in report.text(), "the report carries the conversation"

    attempt = ConversionAttempt.objects.get(session_id=session_id)
    assert attempt.state == "succeeded" and attempt.progress == 100.0
    assert attempt.validation in ("passed", "passed_with_issues")
    shown = page.evaluate("window.progressShown")
    assert shown == sorted(shown) and shown[-1] == 100, f"the bar moves forward to 100 %: {shown}"

    with page.expect_download() as download_info:
        page.locator(SESSION_PAGE["download"]).filter(visible=True).first.click()
    download = download_info.value
    assert re.fullmatch(r"sub-mouse001_ses-.+_ecephys\.nwb", download.suggested_filename)
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    with NWBHDF5IO(str(target), "r") as io:
        nwbfile = io.read()
        assert nwbfile.experimenter == ("Smith, Jane",)
        assert nwbfile.institution == "MIT"
        assert nwbfile.subject.subject_id == "mouse001" and nwbfile.subject.species == "Mus musculus"
        series = next(iter(nwbfile.acquisition.values()))
        source = _source_samples(folder / "Noise4Sam_g0_t0.imec0.ap.bin", 384)
        np.testing.assert_array_equal(series.data[:], source)


def test_the_chat_keeps_going_live_after_a_reload(live_world: World, celery_worker_thread: Any, page: Page) -> None:
    """What the worker says arrives over the websocket, also on a page opened after the upload."""
    folder = real_data("spikeglx/Noise4Sam_g0")
    log_in(page, "ada")
    session_id = start_session(page, "Reloaded")
    files = sorted(folder.iterdir())
    upload(page, files)
    # Reloaded once the upload is in (a reload during it would stop it); the rest reaches the new page.
    wait_for(lambda: SourceFile.objects.filter(session_id=session_id).count() == len(files), what="the upload")
    page.reload()
    expect(page.locator(SESSION_PAGE["chat"])).to_contain_text("experimenter", timeout=DETECTION_MS)
    page.locator(SESSION_PAGE["message"]).fill(FULL_METADATA)
    page.locator(SESSION_PAGE["message"]).press("Enter")
    expect(page.locator(SESSION_PAGE["approve"]).filter(visible=True).last).to_be_visible()
    page.reload()
    page.locator(SESSION_PAGE["approve"]).filter(visible=True).last.click()
    # No reload from here: the status changes reach the page by the websocket alone.
    expect(page.locator(SESSION_PAGE["status"])).to_have_text(
        re.compile(r"done|completed|awaiting user input|waiting for you|needs you", re.I), timeout=CONVERSION_MS
    )
    expect(page.locator(SESSION_PAGE["download"]).first).to_be_attached(timeout=CONVERSION_MS)


def test_another_member_of_the_lab_cannot_open_the_session_page(live_world: World, page: Page) -> None:
    log_in(page, "ada")
    session_id = start_session(page, "Private")
    page.context.clear_cookies()
    log_in(page, "ben")
    response = page.goto(f"/sessions/{session_id}/")
    assert response is not None and response.status == 404
    log_in(page, "mia")
    response = page.goto(f"/sessions/{session_id}/")
    assert response is not None and response.status == 200, "the lab's manager may"
