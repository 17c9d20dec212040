"""An NWB file, and each video beside it, is sent in blocks by the ASGI server, never read whole into
the web process first."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest
from asgiref.testing import ApplicationCommunicator

from conversions.models import ConversionAttempt, ConversionSession
from conversions.services import sessions
from tests.conftest import World
from tests.factories import AttemptFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _converted(world: World, size: int) -> tuple[ConversionSession, bytes]:
    session = sessions.create_session(user=world.users["ada"])
    attempt = AttemptFactory(session=session, number=1, state=ConversionAttempt.State.SUCCEEDED)
    path = sessions.attempt_output_path(session, attempt)
    path.parent.mkdir(parents=True, exist_ok=True)
    content = os.urandom(size)
    path.write_bytes(content)
    attempt.output_path, attempt.size_bytes = str(path), size
    attempt.save(update_fields=["output_path", "size_bytes"])
    return session, content


async def _download(path: str, token: str) -> tuple[int, dict[bytes, bytes], list[bytes]]:
    from nwbportal.asgi import application

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path.split("?")[0],
        "raw_path": path.split("?")[0].encode(),
        "query_string": path.partition("?")[2].encode(),
        "headers": [(b"host", b"127.0.0.1"), (b"authorization", f"Token {token}".encode())],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    communicator = ApplicationCommunicator(application, scope)
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(timeout=30)
    bodies: list[bytes] = []
    while True:
        message = await communicator.receive_output(timeout=30)
        bodies.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    await communicator.wait(timeout=5)
    return start["status"], {name.lower(): value for name, value in start["headers"]}, bodies


async def test_the_nwb_file_is_streamed_in_blocks_under_asgi(live_world: World, settings: object) -> None:
    from asgiref.sync import sync_to_async

    settings.ALLOWED_HOSTS = ["127.0.0.1"]  # type: ignore[attr-defined]
    session, content = await sync_to_async(_converted)(live_world, 5 * 1024 * 1024 + 17)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, headers, bodies = await _download(
            f"/api/sessions/{session.id}/output?attempt=1", live_world.tokens["ada"]
        )

    assert status == 200
    assert headers[b"content-length"] == str(len(content)).encode()
    assert b"attachment" in headers[b"content-disposition"]
    assert b"".join(bodies) == content
    assert len([b for b in bodies if b]) >= 5, "sent in blocks of at most 1 MiB"
    assert not [w for w in caught if "must consume synchronous iterators" in str(w.message)], (
        "Django read the whole file into memory to serve it"
    )


async def test_someone_else_cannot_stream_it(live_world: World, settings: object) -> None:
    from asgiref.sync import sync_to_async

    settings.ALLOWED_HOSTS = ["127.0.0.1"]  # type: ignore[attr-defined]
    session, _ = await sync_to_async(_converted)(live_world, 1024)
    for person, expected in (("ben", 404), ("carl", 404), ("mia", 200)):
        status, _, _ = await _download(f"/api/sessions/{session.id}/output", live_world.tokens[person])
        assert status == expected, person


def _with_a_video(world: World, size: int) -> tuple[ConversionSession, bytes, str]:
    """A converted session with a video of `size` bytes beside its NWB file, and the video's address."""
    session, _ = _converted(world, 1024)
    output = Path(session.attempts.get().output_path)
    folder = output.parent / f"{output.stem}_video"
    folder.mkdir()
    content = os.urandom(size)
    (folder / "clip.mp4").write_bytes(content)
    return session, content, f"/api/sessions/{session.id}/attempts/1/beside/{folder.name}/clip.mp4"


async def test_a_video_beside_it_is_streamed_in_blocks_too_and_only_to_those_who_see_the_file(
    live_world: World, settings: object
) -> None:
    from asgiref.sync import sync_to_async

    settings.ALLOWED_HOSTS = ["127.0.0.1"]  # type: ignore[attr-defined]
    _, content, url = await sync_to_async(_with_a_video)(live_world, 5 * 1024 * 1024 + 17)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, headers, bodies = await _download(url, live_world.tokens["ada"])

    assert status == 200
    assert headers[b"content-disposition"] == b'attachment; filename="clip.mp4"'
    assert b"".join(bodies) == content
    assert len([b for b in bodies if b]) >= 5, "sent in blocks of at most 1 MiB"
    assert not [w for w in caught if "must consume synchronous iterators" in str(w.message)]
    for person, expected in (("ben", 404), ("carl", 404), ("mia", 200), ("staff", 200)):
        status, _, _ = await _download(url, live_world.tokens[person])
        assert status == expected, person
