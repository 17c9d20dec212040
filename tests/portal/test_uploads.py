"""Uploads in pieces: a real recording sent piece by piece, interrupted and resumed; refused pieces;
who may declare, list, send and discard."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client

from conversions.models import AuditEvent, ConversionSession, PendingUpload
from conversions.services import sessions, uploads
from tests.conftest import World, real_data, wait_for_status

PIECE = 256 * 1024


@pytest.fixture(autouse=True)
def small_pieces(settings: Any) -> None:
    settings.UPLOAD_PIECE_BYTES = PIECE


def _url(session_id: Any, path: str = "") -> str:
    base = f"/api/sessions/{session_id}/uploads"
    return f"{base}/{quote(path)}" if path else base


def _declare(client: Client, session_id: Any, files: dict[str, int]) -> Any:
    body = {"files": [{"path": path, "size_bytes": size} for path, size in files.items()]}
    return client.post(_url(session_id), body, content_type="application/json")


def _put(client: Client, session_id: Any, path: str, offset: int, data: bytes) -> Any:
    return client.put(f"{_url(session_id, path)}?offset={offset}", data, content_type="application/octet-stream")


def _send_from(
    client: Client, session_id: Any, path: str, content: bytes, offset: int, *, stop: int | None = None
) -> Any:
    """Send `content` from `offset` in pieces, up to `stop` (the end by default); the last answer."""
    stop = len(content) if stop is None else stop
    response = None
    while offset < stop:
        piece = content[offset : min(offset + PIECE, stop)]
        response = _put(client, session_id, path, offset, piece)
        assert response.status_code == 200, response.content
        offset += len(piece)
    return response


def _new_session(client: Client) -> str:
    return str(client.post("/api/sessions", {}, content_type="application/json").json()["id"])


@pytest.mark.django_db(transaction=True)
def test_a_real_recording_sent_in_pieces_is_interrupted_resumed_and_recognised(
    live_world: World, celery_worker_thread: Any
) -> None:
    folder = real_data("spikeglx/Noise4Sam_g0")
    contents = {f"{folder.name}/{p.name}": p.read_bytes() for p in sorted(folder.iterdir())}
    ap_bin = f"{folder.name}/Noise4Sam_g0_t0.imec0.ap.bin"
    ap_meta = f"{folder.name}/Noise4Sam_g0_t0.imec0.ap.meta"
    assert len(contents[ap_bin]) > 3 * PIECE, "the recording must take several pieces"
    client = live_world.client("ada")
    session_id = _new_session(client)

    declared = _declare(client, session_id, {p: len(c) for p, c in contents.items()})
    assert declared.status_code == 201, declared.content
    assert declared.json()["piece_bytes"] == PIECE
    assert {u["path"]: u["missing_bytes"] for u in declared.json()["uploads"]} == {
        p: len(c) for p, c in contents.items()
    }

    # The .meta arrives whole, the .bin up to half; then the connection is lost.
    _send_from(client, session_id, ap_meta, contents[ap_meta], 0)
    half = 2 * PIECE
    _send_from(client, session_id, ap_bin, contents[ap_bin], 0, stop=half)
    body = client.get(f"/api/sessions/{session_id}").json()
    assert body["status"] == "idle", "no detection before every declared file is in"
    assert [f["path"] for f in body["files"]] == [ap_meta], "a complete file is in place at once"

    # Later (another page, the same files chosen again): the server says what is missing.
    pending = client.get(_url(session_id)).json()["uploads"]
    assert [(u["path"], u["received_bytes"], u["missing_bytes"]) for u in pending] == [
        (ap_bin, half, len(contents[ap_bin]) - half),
        (ap_meta, len(contents[ap_meta]), 0),
    ]
    assert pending[0]["tail_sha256"] == hashlib.sha256(contents[ap_bin][half - uploads.TAIL_BYTES : half]).hexdigest()
    again = _declare(client, session_id, {p: len(c) for p, c in contents.items()})
    assert {u["path"]: u["received_bytes"] for u in again.json()["uploads"]}[ap_bin] == half, "progress is kept"
    started_over = _put(client, session_id, ap_bin, 0, contents[ap_bin][:PIECE])
    assert started_over.status_code == 409 and started_over.json()["expected_offset"] == half

    last = _send_from(client, session_id, ap_bin, contents[ap_bin], half)
    assert last.json() == {"upload": None, "detection_started": True}

    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["format"] == "spikeglx", body["messages"][-1]["text"]
    assert sorted(f["path"] for f in body["files"]) == sorted(contents)
    session = ConversionSession.objects.get(id=session_id)
    for path, content in contents.items():
        stored = session.source_directory / path
        assert hashlib.sha256(stored.read_bytes()).digest() == hashlib.sha256(content).digest(), path
    assert not PendingUpload.objects.filter(session=session).exists()
    assert not list(uploads.staging_directory(session).glob("*.part"))
    added = AuditEvent.objects.filter(session=session, kind="files_added")
    assert [(e.detail["how"], sorted(e.detail["files"])) for e in added] == [("pieces", sorted(contents))]
    received = [m for m in body["messages"] if m["text"].startswith("Received")]
    assert len(received) == 1 and received[0]["text"].startswith("Received 2 files"), "one detection for the set"


@pytest.fixture
def session(world: World) -> ConversionSession:
    return sessions.create_session(user=world.users["ada"])


def test_a_piece_elsewhere_than_where_the_server_stopped_is_refused(world: World, session: ConversionSession) -> None:
    client = world.client("ada")
    _declare(client, session.id, {"run/a.bin": 3 * PIECE})
    assert _put(client, session.id, "run/a.bin", 0, b"x" * PIECE).status_code == 200

    for offset in (0, PIECE + 1, 2 * PIECE):
        response = _put(client, session.id, "run/a.bin", offset, b"y" * 10)
        assert response.status_code == 409
        assert response.json()["expected_offset"] == PIECE
        assert f"must start there, not at {offset}" in response.json()["detail"]
    assert PendingUpload.objects.get(session=session).received_bytes == PIECE
    part = uploads.part_path(session, PendingUpload.objects.get(session=session))
    assert part.read_bytes() == b"x" * PIECE, "a refused piece changes nothing"


def test_a_piece_sent_without_its_length_is_still_held_to_the_limit(world: World, session: ConversionSession) -> None:
    """A chunked request carries no Content-Length: the piece is counted as it arrives, and refused
    (413) once it passes the limit, with nothing of it kept."""
    import io

    _declare(world.client("ada"), session.id, {"a.bin": 3 * PIECE})
    with pytest.raises(uploads.PieceTooLarge, match=str(PIECE)):
        uploads.receive_piece(
            session=session,
            user=world.users["ada"],
            relative_path="a.bin",
            offset=0,
            body=io.BytesIO(b"x" * (2 * PIECE)),
            length=None,
        )
    pending = PendingUpload.objects.get(session=session)
    assert pending.received_bytes == 0 and uploads.part_path(session, pending).stat().st_size == 0


def test_a_file_whose_name_clashes_with_a_folder_is_a_conflict(world: World, session: ConversionSession) -> None:
    """ "run" sent as a file, then "run/a.bin": the name is the sender's to change (409), not a
    server failure (it was 503)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = world.client("ada")
    first = client.post(
        f"/api/sessions/{session.id}/files", {"files": [SimpleUploadedFile("run", b"x")], "relative_paths": ["run"]}
    )
    assert first.status_code == 201
    clash = client.post(
        f"/api/sessions/{session.id}/files",
        {"files": [SimpleUploadedFile("a.bin", b"y")], "relative_paths": ["run/a.bin"]},
    )
    assert clash.status_code == 409 and "clashes" in clash.json()["detail"]


def test_pieces_too_big_or_past_the_declared_end_are_refused(world: World, session: ConversionSession) -> None:
    client = world.client("ada")
    _declare(client, session.id, {"a.bin": PIECE + 10})
    too_big = _put(client, session.id, "a.bin", 0, b"x" * (PIECE + 1))
    assert too_big.status_code == 413 and str(PIECE) in too_big.json()["detail"]
    assert _put(client, session.id, "a.bin", 0, b"x" * PIECE).status_code == 200
    past_end = _put(client, session.id, "a.bin", PIECE, b"x" * 11)
    assert past_end.status_code == 400 and "past the end of a.bin" in past_end.json()["detail"]
    pending = PendingUpload.objects.get(session=session)
    assert pending.received_bytes == PIECE
    assert uploads.part_path(session, pending).stat().st_size == PIECE


def test_an_undeclared_file_and_unusable_paths_are_refused(
    world: World, session: ConversionSession, data_root: Path
) -> None:
    client = world.client("ada")
    response = _put(client, session.id, "never-declared.bin", 0, b"x")
    assert response.status_code == 404 and "declare the files" in response.json()["detail"]
    for files in ({"../escape.bin": 1}, {"run/../../escape.bin": 1}, {"C:/x.bin": 1}):
        response = _declare(client, session.id, files)
        assert response.status_code == 400, files
        assert "not a usable file path" in response.json()["detail"]
    nul = _declare(client, session.id, {"a\x00b": 1})  # refused before the view (nwbportal.middleware)
    assert nul.status_code == 400 and "NUL" in nul.json()["detail"]
    clash = _declare(client, session.id, {"run": 1, "run/a.bin": 1})
    assert clash.status_code == 400 and "both a file and the folder" in clash.json()["detail"]
    negative = _declare(client, session.id, {"a.bin": -1})
    assert negative.status_code == 422
    assert not PendingUpload.objects.filter(session=session).exists()
    assert not list(data_root.parent.rglob("escape.bin"))


def test_more_than_the_free_disk_space_is_refused_before_anything_is_sent(
    world: World, session: ConversionSession
) -> None:
    response = _declare(world.client("ada"), session.id, {"huge.bin": 10**18})
    assert response.status_code == 507  # Insufficient Storage: the server's capacity, not the request
    assert "free" in response.json()["detail"] and "Nothing was received" in response.json()["detail"]
    assert not PendingUpload.objects.filter(session=session).exists()


def test_while_a_conversion_runs_files_cannot_change(world: World, session: ConversionSession) -> None:
    client = world.client("ada")
    _declare(client, session.id, {"a.bin": 10})
    ConversionSession.objects.filter(id=session.id).update(status="converting")
    for response in (_declare(client, session.id, {"b.bin": 10}), _put(client, session.id, "a.bin", 0, b"x" * 10)):
        assert response.status_code == 409
        assert "A conversion is running" in response.json()["detail"]
        assert "nothing received so far is lost" in response.json()["detail"]
    assert PendingUpload.objects.get(session=session).received_bytes == 0

    # Refused at the very end: the bytes are kept, and a piece of nothing at the end places the file.
    ConversionSession.objects.filter(id=session.id).update(status="idle")
    session.refresh_from_db()
    _put(client, session.id, "a.bin", 0, b"x" * 5)
    ConversionSession.objects.filter(id=session.id).update(status="converting")
    # (the check before writing refuses it too)
    assert _put(client, session.id, "a.bin", 5, b"x" * 5).status_code == 409
    ConversionSession.objects.filter(id=session.id).update(status="idle")
    done = _put(client, session.id, "a.bin", 5, b"x" * 5)
    assert done.json() == {"upload": None, "detection_started": True}
    assert (session.source_directory / "a.bin").read_bytes() == b"x" * 10


def test_the_same_path_with_another_size_starts_again(world: World, session: ConversionSession) -> None:
    client = world.client("ada")
    _declare(client, session.id, {"a.bin": 2 * PIECE})
    _put(client, session.id, "a.bin", 0, b"x" * PIECE)
    again = _declare(client, session.id, {"a.bin": 2 * PIECE + 1}).json()["uploads"]
    assert (again[0]["received_bytes"], again[0]["missing_bytes"]) == (0, 2 * PIECE + 1)
    pending = PendingUpload.objects.get(session=session)
    assert uploads.part_path(session, pending).stat().st_size == 0


def test_discarding_the_last_unfinished_file_sends_the_others_to_detection(
    world: World, session: ConversionSession
) -> None:
    client = world.client("ada")
    _declare(client, session.id, {"run/a.meta": 4, "run/a.bin": 2 * PIECE})
    _put(client, session.id, "run/a.meta", 0, b"meta")
    _put(client, session.id, "run/a.bin", 0, b"x" * PIECE)
    part = uploads.part_path(session, PendingUpload.objects.get(session=session, relative_path="run/a.bin"))

    response = client.delete(_url(session.id, "run/a.bin"))
    assert response.status_code == 200, response.content
    assert response.json() == {"piece_bytes": PIECE, "uploads": [], "detection_started": True}
    assert not part.exists()
    session.refresh_from_db()
    assert session.status == "detecting_format"
    assert [f.relative_path for f in session.files.all()] == ["run/a.meta"]
    assert client.delete(_url(session.id, "run/a.bin")).status_code == 404


def test_empty_files_are_complete_when_declared(world: World, session: ConversionSession) -> None:
    response = _declare(world.client("ada"), session.id, {"empty.txt": 0})
    assert response.json()["detection_started"] is True
    assert (session.source_directory / "empty.txt").read_bytes() == b""
    assert session.files.get().size_bytes == 0


# --- who may do what ------------------------------------------------------------------------------

ALLOWED = {"ada": True, "ben": False, "mia": True, "carl": False, "staff": True}
PEOPLE = [*ALLOWED, None]


def _expected(person: str | None, ok: int) -> int:
    if person is None:
        return 401
    return ok if ALLOWED[person] else 404


@pytest.mark.parametrize("person", PEOPLE)
def test_who_may_declare(world: World, session: ConversionSession, person: str | None) -> None:
    response = _declare(world.client(person), session.id, {"a.bin": 10})
    assert response.status_code == _expected(person, 201)
    assert PendingUpload.objects.filter(session=session).count() == (1 if response.status_code == 201 else 0)


@pytest.mark.parametrize("person", PEOPLE)
def test_who_may_list(world: World, session: ConversionSession, person: str | None) -> None:
    _declare(world.client("ada"), session.id, {"a.bin": 10})
    response = world.client(person).get(_url(session.id))
    assert response.status_code == _expected(person, 200)
    if response.status_code == 200:
        assert [u["path"] for u in response.json()["uploads"]] == ["a.bin"]
    else:
        assert "a.bin" not in response.content.decode()


@pytest.mark.parametrize("person", PEOPLE)
def test_who_may_send_a_piece(world: World, session: ConversionSession, person: str | None) -> None:
    _declare(world.client("ada"), session.id, {"a.bin": 10})
    response = _put(world.client(person), session.id, "a.bin", 0, b"x" * 4)
    assert response.status_code == _expected(person, 200)
    assert PendingUpload.objects.get(session=session).received_bytes == (4 if response.status_code == 200 else 0)


@pytest.mark.parametrize("person", PEOPLE)
def test_who_may_discard(world: World, session: ConversionSession, person: str | None) -> None:
    _declare(world.client("ada"), session.id, {"a.bin": 10, "b.bin": 10})
    response = world.client(person).delete(_url(session.id, "a.bin"))
    assert response.status_code == _expected(person, 200)
    assert PendingUpload.objects.filter(session=session).count() == (1 if response.status_code == 200 else 2)


def test_a_browser_needs_the_csrf_token_to_send_a_piece(world: World, session: ConversionSession) -> None:
    _declare(world.client("ada"), session.id, {"a.bin": 4})
    browser = world.browser("ada")
    refused = browser.put(f"{_url(session.id, 'a.bin')}?offset=0", b"abcd", content_type="application/octet-stream")
    assert refused.status_code == 403
    browser.get(f"/sessions/{session.id}/")
    token = browser.cookies["csrftoken"].value
    accepted = browser.put(
        f"{_url(session.id, 'a.bin')}?offset=0",
        b"abcd",
        content_type="application/octet-stream",
        HTTP_X_CSRFTOKEN=token,
    )
    assert accepted.status_code == 200, accepted.content
    assert (session.source_directory / "a.bin").read_bytes() == b"abcd"


def test_names_with_spaces_and_unicode_arrive_under_their_own_name(world: World, session: ConversionSession) -> None:
    client = world.client("ada")
    name = "Rat 7 – jour 2/ses #1?.bin"
    _declare(client, session.id, {name: 3})
    assert _put(client, session.id, name, 0, b"abc").json()["detection_started"] is True
    assert (session.source_directory / "Rat 7 – jour 2" / "ses #1?.bin").read_bytes() == b"abc"
