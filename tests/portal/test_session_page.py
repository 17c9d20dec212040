"""The session page: who may open it, what it carries for the script (the metadata panel's fields,
the places the upload and result parts go), editing a value from the panel as a message to the
orchestrator, and a page catching up after its websocket was down."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.models import ConversionSession, MetadataField
from conversions.nwb.fields import CRITICAL_FIELDS, FIELDS, FILE_FACTS, SUBJECT_FIELDS, Placement
from conversions.nwb.synthetic import write_spikeglx
from conversions.services import sessions
from tests.conftest import World, wait_for_status

ALLOWED = {"ada": True, "ben": False, "mia": True, "carl": False, "staff": True}


@pytest.fixture
def session(world: World) -> ConversionSession:
    return sessions.create_session(user=world.users["ada"], title="V1 day 3")


def _json_script(html: str, element_id: str) -> Any:
    match = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.DOTALL)
    assert match, f"no {element_id} in the page"
    return json.loads(match.group(1))


def _edit(client: Any, session_id: Any, name: str, value: Any) -> Any:
    return client.post(f"/api/sessions/{session_id}/metadata/{name}", {"value": value}, content_type="application/json")


# --- the page -------------------------------------------------------------------------------------


@pytest.mark.parametrize("person", [*ALLOWED, None])
def test_who_may_open_the_page(world: World, session: ConversionSession, person: str | None) -> None:
    client = world.browser(person) if person else world.client(None)
    response = client.get(f"/sessions/{session.id}/")
    if person is None:
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
        return
    assert response.status_code == (200 if ALLOWED[person] else 404)
    if ALLOWED[person]:
        assert _json_script(response.content.decode(), "initial-session")["id"] == str(session.id)


def test_the_panel_lists_every_field_with_its_label_and_need(world: World, session: ConversionSession) -> None:
    html = world.browser("ada").get(f"/sessions/{session.id}/").content.decode()
    fields = {f["name"]: f for f in _json_script(html, "metadata-fields")}

    # A session without video or pose is never asked when the camera started.
    timing = {name for name, spec in FIELDS.items() if spec.placement is Placement.TIMING}
    assert set(fields) == (set(FIELDS) - timing) | set(FILE_FACTS)
    for name, spec in FIELDS.items():
        if name in timing:
            continue
        assert fields[name]["label"] == spec.label and fields[name]["editable"]
        assert fields[name]["description"] == spec.question and fields[name]["example"] == spec.example
    assert {n for n, f in fields.items() if f["need"] == "required"} == {*CRITICAL_FIELDS, "session_start_time"}
    assert {n for n, f in fields.items() if f["need"] == "dandi"} == set(SUBJECT_FIELDS)
    assert not any(fields[name]["editable"] for name in FILE_FACTS), "what the files say is never typed in"
    order = list(fields)
    assert order[: len(CRITICAL_FIELDS)] == list(CRITICAL_FIELDS), "what is required comes first"


def test_the_page_has_the_elements_its_script_and_the_other_parts_use(world: World, session: ConversionSession) -> None:
    html = world.browser("ada").get(f"/sessions/{session.id}/").content.decode()
    for marker in (
        'id="chat"',
        'id="message"',
        'data-testid="send"',
        'id="progress-bar" role="progressbar"',
        'aria-live="polite"',
        'id="metadata"',
        'id="connection"',
        'id="uploader"',
        'id="uploader-files"',
        'id="uploader-folder"',
        'id="result"',
        'id="result-beside"',
        "js/session.js",
        "js/upload.js",
        "js/result.js",
    ):
        assert marker in html, marker
    steps = re.findall(r'data-step="(\w+)"', html)
    assert steps == ["detect", "metadata", "plan", "convert", "validate", "done"]
    for source in ("file", "user", "lab_default", "llm", "auto_fix"):
        assert f'data-source="{source}"' in html, f"the legend explains {source}"


def test_a_long_title_is_shown_whole_in_its_tooltip(world: World) -> None:
    title = "Neuropixels V1 recording " * 8
    session = sessions.create_session(user=world.users["ada"], title=title)
    html = world.browser("ada").get(f"/sessions/{session.id}/").content.decode()
    assert f'title="{title.strip()[:200]}"' in html


# --- editing a value from the panel ---------------------------------------------------------------


@pytest.mark.parametrize("person", [*ALLOWED, None])
def test_who_may_edit_a_value(world: World, session: ConversionSession, person: str | None) -> None:
    response = _edit(world.client(person), session.id, "institution", "Stanford")
    expected = 401 if person is None else 200 if ALLOWED[person] else 404
    assert response.status_code == expected
    stored = MetadataField.objects.filter(session=session, name="institution").first()
    said = session.messages.filter(role="user", text="Set the institution to “Stanford”.").exists()
    if expected == 200:
        assert stored is not None and (stored.value, stored.source) == ("Stanford", "user")
        assert said
    else:
        assert stored is None and not said
        assert response.json()["detail"]


def test_the_edit_is_a_message_in_the_chat_and_the_value_is_normalised(
    world: World, session: ConversionSession
) -> None:
    client = world.client("ada")
    response = _edit(client, session.id, "sex", "female")

    assert response.status_code == 200
    turn = response.json()
    assert turn["session"]["metadata"]["sex"] == {"value": "F", "source": "user"}
    assert turn["replies"] and "sex: F" in turn["replies"][0]["text"]
    messages = client.get(f"/api/sessions/{session.id}").json()["messages"]
    said = [m for m in messages if m["role"] == "user"]
    assert [m["text"] for m in said] == ["Set the sex to “female”."]
    assert messages[-len(turn["replies"]) :] == turn["replies"], "the portal's answer follows it in the chat"


def test_a_list_value_is_edited_as_one_text(world: World, session: ConversionSession) -> None:
    client = world.client("ada")
    both = {"value": ["Smith, Jane", "Lee, Bob"], "source": "user"}
    response = _edit(client, session.id, "experimenter", ["Jane Smith", "Bob Lee"])
    assert response.status_code == 200
    assert response.json()["session"]["metadata"]["experimenter"] == both
    # The panel offers the list as "Smith, Jane; Lee, Bob" to edit; saved unchanged, it stays the same.
    again = _edit(client, session.id, "experimenter", "Smith, Jane; Lee, Bob").json()
    assert again["session"]["metadata"]["experimenter"] == both


def test_a_lab_default_becomes_the_users_value(world: World) -> None:
    world.lab.institution = "Institut Pasteur"
    world.lab.save()
    session = sessions.create_session(user=world.users["ada"])
    detail = world.client("ada").get(f"/api/sessions/{session.id}").json()
    assert detail["metadata"]["institution"] == {"value": "Institut Pasteur", "source": "lab_default"}

    turn = _edit(world.client("ada"), session.id, "institution", "the University of Lisbon").json()
    assert turn["session"]["metadata"]["institution"] == {"value": "University of Lisbon", "source": "user"}


def test_an_unknown_field_is_refused_plainly_and_nothing_is_said(world: World, session: ConversionSession) -> None:
    before = session.messages.count()
    response = _edit(world.client("ada"), session.id, "favourite_colour", "blue")
    assert response.status_code == 400
    assert "“favourite_colour” is not a metadata field" in response.json()["detail"]
    assert "institution" in response.json()["detail"], "the answer lists the fields there are"
    assert session.messages.count() == before


def test_a_field_the_files_give_cannot_be_typed_in(world: World, session: ConversionSession) -> None:
    response = _edit(world.client("ada"), session.id, "sampling_rate_hz", "30000")
    assert response.status_code == 400
    assert not MetadataField.objects.filter(session=session, name="sampling_rate_hz").exists()


@pytest.mark.parametrize(
    ("name", "good", "bad", "words"),
    [
        ("sex", "unknown", "banana", "male, female"),
        ("institution", "MIT", "   ", "empty"),
        ("age", "P90D", None, "empty"),
    ],
)
def test_a_value_that_cannot_be_used_is_refused_and_loses_nothing(
    world: World, session: ConversionSession, name: str, good: str, bad: Any, words: str
) -> None:
    client = world.client("ada")
    assert _edit(client, session.id, name, good).status_code == 200
    before = client.get(f"/api/sessions/{session.id}").json()

    response = _edit(client, session.id, name, bad)

    assert response.status_code == 400
    assert words in response.json()["detail"]
    after = client.get(f"/api/sessions/{session.id}").json()
    assert after["metadata"] == before["metadata"] and after["messages"] == before["messages"]


def test_while_a_conversion_runs_the_portal_says_the_value_waits_for_the_next_one(
    world: World, session: ConversionSession
) -> None:
    # The state a running job leaves the session in; the job itself is not needed to edit.
    ConversionSession.objects.filter(id=session.id).update(status="converting")
    turn = _edit(world.client("ada"), session.id, "subject_id", "mouse-7").json()
    assert turn["session"]["status"] == "converting"
    assert "under way" in turn["replies"][-1]["text"] and "converted again" in turn["replies"][-1]["text"]
    assert turn["session"]["metadata"]["subject_id"] == {"value": "mouse-7", "source": "user"}


@pytest.mark.django_db(transaction=True)
def test_changing_a_value_of_a_plan_gives_a_new_plan(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    recording = write_spikeglx(tmp_path / "rec", run="v1", duration_s=1.0, n_channels=8, seed=3)
    files = sorted(p for p in recording["ap_bin"].parent.iterdir() if p.is_file())
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    upload = client.post(
        f"/api/sessions/{session_id}/files",
        {
            "files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in files],
            "relative_paths": [p.name for p in files],
        },
    )
    assert upload.status_code == 201, upload.content
    wait_for_status(client, session_id, {"awaiting_user_input"})
    answer = "Jane Smith, MIT, V1 recording during passive viewing, subject mouse-7, mouse, female, 12 weeks"
    turn = client.post(f"/api/sessions/{session_id}/messages", {"text": answer}, content_type="application/json")
    assert turn.json()["session"]["awaiting"] == "approval"

    turn = _edit(client, session_id, "institution", "Stanford").json()

    assert turn["session"]["awaiting"] == "approval"
    plan = turn["replies"][-1]
    assert plan["card"] == "plan"
    shown = {f["name"]: (f["value"], f["source"]) for f in plan["data"]["metadata"]}
    assert shown["institution"] == ("Stanford", "user")
    assert "Stanford" in plan["text"]


# --- live updates and catching up -----------------------------------------------------------------


def _headers(world: World, person: str) -> list[tuple[bytes, bytes]]:
    return [(b"authorization", f"Token {world.tokens[person]}".encode())]


async def _events_until_status(communicator: WebsocketCommunicator) -> list[dict[str, Any]]:
    events = []
    while True:
        event = await communicator.receive_json_from(timeout=5)
        events.append(event)
        if event["type"] == "status":
            return events


@pytest.mark.django_db(transaction=True)
async def test_a_page_that_reconnects_catches_up_without_repeats(live_world: World) -> None:
    from nwbportal.asgi import application

    session = await sync_to_async(sessions.create_session)(user=live_world.users["ada"])
    path = f"/ws/sessions/{session.id}/"
    first = WebsocketCommunicator(application, path, headers=_headers(live_world, "ada"))
    assert (await first.connect())[0]
    seen = [e["message"]["id"] for e in await _events_until_status(first) if e["type"] == "message"]
    await first.disconnect()

    # While the page is away: a value set, which the orchestrator answers.
    turn = await sync_to_async(sessions.edit_field)(
        session=session, user=live_world.users["ada"], name="species", value="mouse"
    )
    missed = [m.id for m in turn.replies]

    detail = await sync_to_async(live_world.client("ada").get)(f"/api/sessions/{session.id}")
    ids = [m["id"] for m in detail.json()["messages"]]
    assert set(seen) < set(ids) and len(ids) == len(set(ids))
    new = [i for i in ids if i not in seen]
    assert len(new) == 1 + len(missed) and new[1:] == missed, "the user's words, then the answer"
    assert detail.json()["metadata"]["species"] == {"value": "Mus musculus", "source": "user"}

    again = WebsocketCommunicator(application, f"{path}?after={max(seen)}", headers=_headers(live_world, "ada"))
    assert (await again.connect())[0]
    try:
        caught_up = [e["message"]["id"] for e in await _events_until_status(again) if e["type"] == "message"]
    finally:
        await again.disconnect()
    assert caught_up == new


@pytest.mark.django_db(transaction=True)
async def test_two_pages_of_the_same_session_both_see_an_edit(live_world: World) -> None:
    from nwbportal.asgi import application

    session = await sync_to_async(sessions.create_session)(user=live_world.users["ada"])
    pages = [
        WebsocketCommunicator(application, f"/ws/sessions/{session.id}/", headers=_headers(live_world, person))
        for person in ("ada", "mia")
    ]
    for page in pages:
        assert (await page.connect())[0]
        await _events_until_status(page)
    try:
        response = await sync_to_async(_edit)(live_world.client("ada"), session.id, "age", "12 weeks")
        assert response.status_code == 200
        for page in pages:
            events = await _events_until_status(page)
            said = [e["message"] for e in events if e["type"] == "message"]
            assert said[0]["role"] == "user" and said[0]["text"] == "Set the age to “12 weeks”."
            assert any("P12W" in m["text"] for m in said[1:])
    finally:
        for page in pages:
            await page.disconnect()


def test_a_session_with_a_video_offers_when_the_camera_started(world: World, session: ConversionSession) -> None:
    session.detection = {"streams": [{"id": "video:cam.mp4", "kind": "video"}]}
    session.save(update_fields=["detection"])
    html = world.browser("ada").get(f"/sessions/{session.id}/").content.decode()
    fields = {f["name"]: f for f in _json_script(html, "metadata-fields")}
    assert fields["behaviour_start_s"]["label"] == "video start" and fields["behaviour_start_s"]["editable"]
    assert "pose_rate_hz" in fields
