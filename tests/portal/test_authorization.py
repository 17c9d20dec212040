"""Who may see and do what, on every endpoint, page and the websocket.

Owner (ada), a colleague in the same lab (ben), the lab's manager (mia), a member of another lab
(carl), staff (sam) and anonymous. Another user's session answers 404, never 403.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.models import ConversionSession
from conversions.services import sessions
from tests.conftest import World
from tests.factories import AttemptFactory, PreviewFactory

ALLOWED = {"ada": True, "ben": False, "mia": True, "carl": False, "staff": True}
PEOPLE = [*ALLOWED, None]


@pytest.fixture
def session(world: World) -> ConversionSession:
    return sessions.create_session(user=world.users["ada"])


def _expected(person: str | None, ok: int) -> int:
    if person is None:
        return 401
    return ok if ALLOWED[person] else 404


@pytest.mark.parametrize("person", PEOPLE)
def test_session_detail(world: World, session: ConversionSession, person: str | None) -> None:
    response = world.client(person).get(f"/api/sessions/{session.id}")
    assert response.status_code == _expected(person, 200)
    if response.status_code == 200:
        assert response.json()["id"] == str(session.id)


@pytest.mark.parametrize("person", PEOPLE)
def test_post_message(world: World, session: ConversionSession, person: str | None) -> None:
    response = world.client(person).post(
        f"/api/sessions/{session.id}/messages", {"text": "status"}, content_type="application/json"
    )
    assert response.status_code == _expected(person, 200)
    user_messages = session.messages.filter(role="user").count()
    assert user_messages == (1 if response.status_code == 200 else 0)


@pytest.mark.parametrize("person", PEOPLE)
def test_action(world: World, session: ConversionSession, person: str | None) -> None:
    response = world.client(person).post(
        f"/api/sessions/{session.id}/actions", {"action": "cancel"}, content_type="application/json"
    )
    assert response.status_code == _expected(person, 200)
    session.refresh_from_db()
    assert session.status == ("cancelled" if response.status_code == 200 else "idle")


@pytest.mark.parametrize("person", PEOPLE)
def test_upload(world: World, session: ConversionSession, person: str | None) -> None:
    upload = SimpleUploadedFile("notes.txt", b"not a recording")
    response = world.client(person).post(f"/api/sessions/{session.id}/files", {"files": [upload]})
    assert response.status_code == _expected(person, 201)
    assert session.files.count() == (1 if response.status_code == 201 else 0)


@pytest.mark.parametrize("person", PEOPLE)
def test_remove_file(world: World, session: ConversionSession, person: str | None) -> None:
    sessions.add_files(
        session=session, user=world.users["ada"], uploads=[SimpleUploadedFile("a.txt", b"x")], relative_paths=[]
    )
    response = world.client(person).delete(f"/api/sessions/{session.id}/files/a.txt")
    assert response.status_code == _expected(person, 200)
    assert session.files.count() == (0 if response.status_code == 200 else 1)
    assert (session.source_directory / "a.txt").exists() is (response.status_code != 200)


@pytest.mark.parametrize("person", PEOPLE)
def test_download(world: World, session: ConversionSession, person: str | None, tmp_path: Path) -> None:
    nwb = tmp_path / "out.nwb"
    nwb.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    AttemptFactory(session=session, number=1, state="succeeded", output_path=str(nwb), size_bytes=nwb.stat().st_size)
    response = world.client(person).get(f"/api/sessions/{session.id}/output")
    assert response.status_code == _expected(person, 200)
    if response.status_code == 200:
        assert b"".join(response.streaming_content) == nwb.read_bytes()


@pytest.mark.parametrize("kind", ["attempts", "previews"])
@pytest.mark.parametrize("person", PEOPLE)
def test_download_a_video_beside_the_nwb_file(
    world: World, session: ConversionSession, person: str | None, kind: str, tmp_path: Path
) -> None:
    nwb = tmp_path / "out.nwb"
    nwb.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 64)
    (tmp_path / "out_video").mkdir()
    (tmp_path / "out_video" / "clip.mp4").write_bytes(b"a video")
    made = AttemptFactory if kind == "attempts" else PreviewFactory
    made(session=session, number=1, state="succeeded", output_path=str(nwb), size_bytes=nwb.stat().st_size)
    response = world.client(person).get(f"/api/sessions/{session.id}/{kind}/1/beside/out_video/clip.mp4")
    assert response.status_code == _expected(person, 200)
    if response.status_code == 200:
        assert b"".join(response.streaming_content) == b"a video"


@pytest.mark.parametrize("person", PEOPLE)
def test_list_shows_own_sessions_and_for_managers_the_labs(
    world: World, session: ConversionSession, person: str | None
) -> None:
    response = world.client(person).get("/api/sessions")
    if person is None:
        assert response.status_code == 401
        return
    ids = {s["id"] for s in response.json()}
    assert (str(session.id) in ids) is ALLOWED[person]


@pytest.mark.parametrize("person", PEOPLE)
def test_create_session(world: World, person: str | None) -> None:
    response = world.client(person).post("/api/sessions", {"title": "x"}, content_type="application/json")
    if person is None:
        assert response.status_code == 401
    elif person == "staff":
        assert response.status_code == 400, "staff without a lab cannot own a conversion"
        assert "lab" in response.json()["detail"]
    else:
        assert response.status_code == 201
        assert ConversionSession.objects.get(id=response.json()["id"]).owner == world.users[person]


def test_creating_a_session_in_someone_elses_lab_is_refused(world: World) -> None:
    response = world.client("carl").post("/api/sessions", {"lab": world.lab.id}, content_type="application/json")
    assert response.status_code == 400


@pytest.mark.parametrize("person", PEOPLE)
def test_session_page(world: World, session: ConversionSession, person: str | None) -> None:
    client = world.browser(person) if person else world.client(None)
    response = client.get(f"/sessions/{session.id}/")
    if person is None:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    else:
        assert response.status_code == (200 if ALLOWED[person] else 404)


@pytest.mark.parametrize("person", PEOPLE)
def test_dashboard_lists_only_visible_sessions(world: World, session: ConversionSession, person: str | None) -> None:
    client = world.browser(person) if person else world.client(None)
    response = client.get("/")
    if person is None:
        assert response.status_code == 302
        return
    # Staff reach every session (the review queue, the session page) but their dashboard lists
    # their own work, not the whole portal's.
    sees = ALLOWED[person] and person != "staff"
    assert (str(session.id) in response.content.decode()) is sees


def test_browser_posts_need_the_csrf_token(world: World, session: ConversionSession) -> None:
    client = world.browser("ada")
    response = client.post(f"/api/sessions/{session.id}/messages", {"text": "status"}, content_type="application/json")
    assert response.status_code in (401, 403)
    client.get(f"/sessions/{session.id}/")
    token = client.cookies["csrftoken"].value
    response = client.post(
        f"/api/sessions/{session.id}/messages",
        {"text": "status"},
        content_type="application/json",
        headers={"X-CSRFToken": token},
    )
    assert response.status_code == 200


def test_a_wrong_token_is_anonymous(world: World, session: ConversionSession) -> None:
    from django.test import Client

    client = Client(headers={"Authorization": "Token not-a-real-token"})
    assert client.get(f"/api/sessions/{session.id}").status_code == 401


def test_unknown_session_is_404_for_everyone(world: World) -> None:
    assert world.client("staff").get("/api/sessions/00000000-0000-0000-0000-000000000000").status_code == 404


# --- the websocket, through the real ASGI router --------------------------------------------------


def _headers(world: World, person: str | None) -> list[tuple[bytes, bytes]]:
    if person is None:
        return []
    return [(b"authorization", f"Token {world.tokens[person]}".encode())]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("person", PEOPLE)
async def test_websocket(live_world: World, person: str | None) -> None:
    from asgiref.sync import sync_to_async

    from nwbportal.asgi import application

    session = await sync_to_async(sessions.create_session)(user=live_world.users["ada"])
    communicator = WebsocketCommunicator(
        application, f"/ws/sessions/{session.id}/", headers=_headers(live_world, person)
    )
    connected, _ = await communicator.connect()
    try:
        if person is None:
            assert connected
            assert (await communicator.receive_output(timeout=5))["code"] == 4401
        elif ALLOWED[person]:
            assert connected
            first: dict[str, Any] = await communicator.receive_json_from(timeout=5)
            assert first["type"] == "message" and first["message"]["role"] == "assistant"
        else:
            assert connected
            assert (await communicator.receive_output(timeout=5))["code"] == 4404
    finally:
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_websocket_refuses_a_foreign_origin(live_world: World) -> None:
    from asgiref.sync import sync_to_async

    from nwbportal.asgi import application

    session = await sync_to_async(sessions.create_session)(user=live_world.users["ada"])
    headers = [*_headers(live_world, "ada"), (b"origin", b"https://evil.example.com")]
    communicator = WebsocketCommunicator(application, f"/ws/sessions/{session.id}/", headers=headers)
    connected, code = await communicator.connect()
    assert (connected, code) == (False, 4403)
