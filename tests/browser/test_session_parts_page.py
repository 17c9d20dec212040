"""A recording with its pose and video on the session page: the portal asks when the camera started,
the plan draws every part on the session's clock, and the conversion writes them into one file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from conversions.models import ConversionSession
from conversions.nwb.synthetic import write_spikeglx
from tests.browser.conftest import log_in, start_session, upload
from tests.conftest import World, real_data

pytestmark = pytest.mark.django_db(transaction=True)

DETECTION_MS = 120_000
CONVERSION_MS = 180_000


def _say(page: Page, text: str) -> None:
    page.locator("#message").fill(text)
    page.locator("#message").press("Enter")


def test_the_plan_draws_each_part_on_the_sessions_clock(
    live_world: World, celery_worker_thread: Any, page: Page, screenshot: Callable[[str], Path], tmp_path: Path
) -> None:
    recording = write_spikeglx(tmp_path / "rec", run="v1", duration_s=1.0, n_channels=8, seed=3)
    sleap = real_data("sleap/clip")
    log_in(page, "ada")
    session_id = start_session(page, "A session with its video")
    upload(page, [*sorted(p for p in recording["ap_bin"].parent.iterdir() if p.is_file()), *sorted(sleap.iterdir())])
    chat = page.locator("#chat")
    expect(chat).to_contain_text("video clip.mp4", timeout=DETECTION_MS)

    asked = page.locator("#chat li", has_text="When did the video start, in seconds after the recording started")
    expect(asked).to_have_count(1)  # with the other questions, after detection
    _say(page, "Jane Smith, MIT, V1 recording, subject mouse001, Mus musculus, male, P90D")
    expect(asked).to_have_count(2)  # then alone, once the rest is given
    _say(page, "video start: 2 s later")

    plan = page.locator("#chat [data-card=plan]").last
    expect(plan).to_contain_text("the camera started 2 s after the recording")
    axis = plan.locator("svg.time-axis")
    expect(axis).to_be_visible()
    expect(axis.locator("rect.time-axis-bar")).to_have_count(3)  # the AP band, the pose, the video
    expect(axis.locator("rect.time-axis-bar.unknown")).to_have_count(0)
    expect(plan.locator("fieldset.streams input[type=checkbox]:checked")).to_have_count(3)
    screenshot("session-parts-plan")

    plan.locator("[data-action=approve]").click()
    expect(chat).to_contain_text("Conversion finished", timeout=CONVERSION_MS)
    session = ConversionSession.objects.get(id=session_id)
    attempt = session.attempts.get(number=1)
    output = Path(attempt.output_path)
    assert output.name.endswith("_behavior+ecephys+image.nwb")
    assert (output.parent / f"{output.stem}_video" / "clip.mp4").is_file()
