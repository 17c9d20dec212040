"""The videos an NWB file links to, kept beside it in `<stem>_video/`: the session lists them with the
attempt or preview that made them, and each downloads on its own. Nothing else on the server is
served through that address: not another folder, not `..`, not a link, not a name the folder lacks.

The videos here are placeholder bytes: the portal serves them, it never reads them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from conversions.errors import NotFound
from conversions.models import ConversionAttempt, ConversionSession, Preview
from conversions.nwb.formats.video import place_beside
from conversions.services import sessions
from tests.conftest import World
from tests.factories import AttemptFactory, PreviewFactory

METADATA = {"subject_id": "mouse001", "session_start_time": "2024-03-15T14:30:00"}
STEM = "sub-mouse001_ses-20240315T143000_ecephys"
PREVIEW_STEM = "sub-mouse001_ses-20240315T143000_desc-preview_ecephys"
CLIP = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 100


@pytest.fixture
def session(world: World) -> ConversionSession:
    return sessions.create_session(user=world.users["ada"], title="V1 with the camera")


def _delivered(row: ConversionAttempt | Preview, output: Path, videos: dict[str, bytes]) -> Path:
    """`row`'s NWB file at `output`, with `videos` in the folder beside it, as the conversion leaves them."""
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    folder = output.parent / f"{output.stem}_video"
    folder.mkdir(exist_ok=True)
    for name, content in videos.items():
        (folder / name).write_bytes(content)
    row.output_path, row.size_bytes = str(output), output.stat().st_size
    row.save(update_fields=["output_path", "size_bytes"])
    return folder


def converted(session: ConversionSession, number: int = 1, videos: dict[str, bytes] | None = None) -> Path:
    """Attempt `number` of `session`, converted with `videos` (clip.mp4 unless told) beside its file."""
    attempt = AttemptFactory(session=session, number=number, metadata=METADATA)
    return _delivered(
        attempt, sessions.attempt_output_path(session, attempt), {"clip.mp4": CLIP} if videos is None else videos
    )


def previewed(session: ConversionSession, number: int = 1) -> Path:
    preview = PreviewFactory(session=session, number=number, metadata=METADATA)
    return _delivered(preview, sessions.preview_output_path(session, preview), {"clip.mp4": CLIP})


def _detail(world: World, session: ConversionSession) -> dict[str, Any]:
    response = world.client("ada").get(f"/api/sessions/{session.id}")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def _get(world: World, session: ConversionSession, tail: str, person: str | None = "ada") -> Any:
    return world.client(person).get(f"/api/sessions/{session.id}/{tail}")


# --- listed with the file that links to them --------------------------------------------------------


def test_the_session_lists_the_videos_beside_its_nwb_file(world: World, session: ConversionSession) -> None:
    converted(session, videos={"clip.mp4": CLIP, "top camera.avi": b"avi"})

    body = _detail(world, session)

    base = f"/api/sessions/{session.id}/attempts/1/beside/{STEM}_video"
    expected = [
        {"path": f"{STEM}_video/clip.mp4", "size_bytes": len(CLIP), "url": f"{base}/clip.mp4"},
        {"path": f"{STEM}_video/top camera.avi", "size_bytes": 3, "url": f"{base}/top%20camera.avi"},
    ]
    assert body["output"]["beside"] == expected
    assert body["attempts"][0]["beside"] == expected


def test_a_file_without_videos_lists_none(world: World, session: ConversionSession) -> None:
    converted(session, videos={}).rmdir()

    body = _detail(world, session)

    assert body["output"]["beside"] == [] and body["attempts"][0]["beside"] == []


def test_each_attempt_lists_its_own_videos(world: World, session: ConversionSession) -> None:
    converted(session, 1, {"first.mp4": b"1"})
    converted(session, 2, {"second.mp4": b"22"})

    body = _detail(world, session)

    assert [b["path"] for b in body["attempts"][0]["beside"]] == [f"{STEM}_video/first.mp4"]
    assert [b["path"] for b in body["attempts"][1]["beside"]] == [f"{STEM}_video/second.mp4"]
    assert body["output"]["attempt"] == 2 and body["output"]["beside"] == body["attempts"][1]["beside"]


def test_what_the_conversion_places_beside_the_file_is_what_is_listed(tmp_path: Path) -> None:
    source = tmp_path / "upload" / "clip.mp4"
    source.parent.mkdir()
    source.write_bytes(CLIP)
    output = tmp_path / "attempt-1" / f"{STEM}.nwb"

    relative = place_beside(source, output)

    (listed,) = sessions.files_beside(str(output))
    assert listed.relative_path == relative == f"{STEM}_video/clip.mp4", "the name the NWB file links to"
    assert listed.size_bytes == len(CLIP)


def test_an_attempt_that_failed_offers_nothing_beside(world: World, session: ConversionSession) -> None:
    converted(session)
    ConversionAttempt.objects.filter(session=session).update(state=ConversionAttempt.State.FAILED)

    body = _detail(world, session)

    assert body["output"] is None and body["attempts"][0]["beside"] == []
    assert _get(world, session, f"attempts/1/beside/{STEM}_video/clip.mp4").status_code == 404


def test_a_preview_lists_and_serves_its_videos(world: World, session: ConversionSession) -> None:
    folder = previewed(session)

    listed = _detail(world, session)["previews"][0]["beside"]
    response = world.client("ada").get(listed[0]["url"])

    assert listed[0]["path"] == f"{PREVIEW_STEM}_video/clip.mp4" == f"{folder.name}/clip.mp4"
    assert listed[0]["url"] == f"/api/sessions/{session.id}/previews/1/beside/{folder.name}/clip.mp4"
    assert response.status_code == 200 and b"".join(response.streaming_content) == CLIP


# --- downloaded one by one ----------------------------------------------------------------------------


def test_a_video_downloads_as_an_attachment_under_its_own_name(world: World, session: ConversionSession) -> None:
    converted(session)

    response = _get(world, session, f"attempts/1/beside/{STEM}_video/clip.mp4")

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == CLIP
    assert response["Content-Disposition"] == 'attachment; filename="clip.mp4"'
    assert response["Content-Type"] == "video/mp4"
    assert response["Content-Length"] == str(len(CLIP))


def test_a_name_with_a_space_is_served_by_the_url_the_session_gives(world: World, session: ConversionSession) -> None:
    converted(session, videos={"top camera.avi": b"avi"})

    url = _detail(world, session)["output"]["beside"][0]["url"]

    assert b"".join(world.client("ada").get(url).streaming_content) == b"avi"


# --- and nothing else ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "asked",
    [
        f"{STEM}_video/unknown.mp4",  # a name the folder lacks
        f"{STEM}_video",  # the folder itself
        f"{STEM}.nwb",  # the NWB file is downloaded as itself, not as something beside it
        f"{STEM}_video/../{STEM}.nwb",
        f"{STEM}_video/./clip.mp4",
        "other_video/clip.mp4",
        f"../attempt-1/{STEM}_video/clip.mp4",
        f"%2e%2e/%2e%2e/{STEM}_video/clip.mp4",
        f"..%2f..%2fsource/{STEM}_video/clip.mp4",
        "/etc/passwd",
        "../../../../../../etc/passwd",
        "clip.mp4",
    ],
)
def test_only_what_lies_in_the_folder_beside_the_file_is_served(
    world: World, session: ConversionSession, asked: str
) -> None:
    converted(session)

    response = _get(world, session, f"attempts/1/beside/{asked}")

    assert response.status_code == 404
    assert response.json()["detail"].startswith("There is no file")


def test_another_attempts_video_is_not_served_as_this_ones(world: World, session: ConversionSession) -> None:
    converted(session, 1, {"first.mp4": b"1"})
    converted(session, 2, {"second.mp4": b"22"})

    assert _get(world, session, f"attempts/1/beside/{STEM}_video/second.mp4").status_code == 404
    assert _get(world, session, f"attempts/2/beside/{STEM}_video/first.mp4").status_code == 404
    assert _get(world, session, f"attempts/1/beside/../attempt-2/{STEM}_video/second.mp4").status_code == 404
    assert _get(world, session, f"attempts/3/beside/{STEM}_video/first.mp4").status_code == 404
    assert _get(world, session, f"attempts/2/beside/{STEM}_video/second.mp4").status_code == 200


def test_a_preview_does_not_serve_the_attempts_videos_nor_the_reverse(world: World, session: ConversionSession) -> None:
    converted(session)
    folder = previewed(session)

    assert _get(world, session, f"previews/1/beside/{STEM}_video/clip.mp4").status_code == 404
    assert _get(world, session, f"attempts/1/beside/{folder.name}/clip.mp4").status_code == 404


def test_another_sessions_video_is_not_served(world: World, session: ConversionSession) -> None:
    converted(session)
    other = sessions.create_session(user=world.users["ada"], title="another day")
    converted(other, videos={"other.mp4": b"other"})

    assert _get(world, session, f"attempts/1/beside/{STEM}_video/other.mp4").status_code == 404
    asked = f"attempts/1/beside/../../../{other.id}/attempt-1/{STEM}_video/other.mp4"
    assert _get(world, session, asked).status_code == 404


def test_a_link_in_the_folder_is_neither_listed_nor_followed(
    world: World, session: ConversionSession, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"not the user's")
    folder = converted(session)
    (folder / "elsewhere.mp4").symlink_to(secret)

    listed = [b["path"] for b in _detail(world, session)["output"]["beside"]]

    assert listed == [f"{STEM}_video/clip.mp4"]
    assert _get(world, session, f"attempts/1/beside/{STEM}_video/elsewhere.mp4").status_code == 404


def test_a_folder_that_is_a_link_is_not_followed(world: World, session: ConversionSession, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "clip.mp4").write_bytes(b"outside")
    folder = converted(session, videos={})
    folder.rmdir()
    folder.symlink_to(outside, target_is_directory=True)

    assert _detail(world, session)["output"]["beside"] == []
    assert _get(world, session, f"attempts/1/beside/{STEM}_video/clip.mp4").status_code == 404


def test_a_video_gone_or_replaced_by_a_link_once_listed_is_not_served(world: World, session: ConversionSession) -> None:
    folder = converted(session)
    (beside,) = sessions.files_beside(str(folder.parent / f"{STEM}.nwb"))
    (folder / "clip.mp4").unlink()

    with pytest.raises(NotFound, match="no longer on the server"):
        beside.open()
    os.symlink(folder.parent / f"{STEM}.nwb", folder / "clip.mp4")
    with pytest.raises(NotFound, match="no longer on the server"):
        beside.open()
