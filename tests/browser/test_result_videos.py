"""The result panel offers the videos an NWB file links to beside the file itself, and says where they
must be kept: in the folder the file names them by, next to it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from conversions.models import ConversionSession
from conversions.services import sessions
from tests.browser.conftest import log_in
from tests.conftest import World
from tests.factories import AttemptFactory

pytestmark = pytest.mark.django_db(transaction=True)

# The result panel's parts this test uses; change them here if the page changes.
RESULT = {
    "panel": "#result",
    "downloads": "#result-links",
    "videos": "#result-beside",
    "note": "#result-beside-note",
    "video_links": "#result-beside-links a",
}
CLIP = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 100


def _converted(world: World, title: str, videos: dict[str, bytes]) -> tuple[ConversionSession, Path]:
    """A finished session of Ada's whose NWB file has `videos` beside it."""
    session = sessions.create_session(user=world.users["ada"], title=title)
    ConversionSession.objects.filter(id=session.id).update(status="completed")
    attempt = AttemptFactory(session=session, number=1, metadata={"subject_id": "mouse001"})
    output = sessions.attempt_output_path(session, attempt)
    output.parent.mkdir(parents=True)
    output.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    folder = output.parent / f"{output.stem}_video"
    folder.mkdir()
    for name, content in videos.items():
        (folder / name).write_bytes(content)
    attempt.output_path, attempt.size_bytes = str(output), output.stat().st_size
    attempt.save(update_fields=["output_path", "size_bytes"])
    return session, folder


def test_the_videos_are_offered_with_the_nwb_file_and_where_to_keep_them(
    live_world: World, page: Page, screenshot: Callable[[str], Path], tmp_path: Path
) -> None:
    session, folder = _converted(live_world, "V1 with the camera", {"clip.mp4": CLIP})
    log_in(page, "ada")
    page.goto(f"/sessions/{session.id}/")

    expect(page.locator(RESULT["downloads"])).to_contain_text("Download the NWB file")
    expect(page.locator(RESULT["videos"])).to_be_visible()
    expect(page.locator(RESULT["note"])).to_have_text(
        "The NWB file links to this video by its relative path, so keep it in a folder named "
        f"{folder.name} next to the NWB file."
    )
    expect(page.locator(f"{RESULT['note']} code")).to_have_text(folder.name)
    link = page.locator(RESULT["video_links"])
    expect(link).to_have_text(f"Download {folder.name}/clip.mp4")
    page.locator(RESULT["panel"]).scroll_into_view_if_needed()
    screenshot("session-result-videos")
    with page.expect_download() as download_info:
        link.click()
    download = download_info.value
    assert download.suggested_filename == "clip.mp4"
    download.save_as(tmp_path / "clip.mp4")
    assert (tmp_path / "clip.mp4").read_bytes() == CLIP


def test_a_file_without_videos_offers_none(live_world: World, page: Page) -> None:
    session, folder = _converted(live_world, "V1 only", {})
    folder.rmdir()
    log_in(page, "ada")
    page.goto(f"/sessions/{session.id}/")

    expect(page.locator(RESULT["downloads"])).to_contain_text("Download the NWB file")
    expect(page.locator(RESULT["videos"])).to_be_hidden()
