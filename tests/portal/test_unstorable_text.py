"""A NUL character or a lone surrogate, in any field of any request, is refused with 400 naming the
field; nothing is stored and the session goes on as before. Names, ids and other short fields also
refuse markup and control characters, saying why."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.models import ChatMessage, ConversionSession, Lab, Subject
from tests.conftest import World

pytestmark = pytest.mark.django_db

NUL = "V1\x00 recording"
# The first half of an emoji, as "\ud83d" in JSON. Only JSON can carry one: form fields, query strings
# and addresses are UTF-8 bytes, which cannot encode it (Django reads broken bytes as U+FFFD).
SURROGATE = "V1 \ud83d recording"
JSON_REQUESTS = 9


def _json(text: Any) -> bytes:
    return json.dumps(text).encode()  # ensure_ascii: the character travels as a \u escape, as browsers send it


@pytest.fixture
def session_id(world: World) -> str:
    return world.client("ada").post("/api/sessions", {}, content_type="application/json").json()["id"]


def _requests(world: World, session_id: str, bad: str) -> list[tuple[str, str, Any]]:
    """(what, the field the answer must name, a function sending the request)."""
    client = world.client("ada")
    lab = world.lab.id
    return [
        (
            "a chat message",
            "text",
            lambda: client.post(
                f"/api/sessions/{session_id}/messages", _json({"text": bad}), content_type="application/json"
            ),
        ),
        (
            "a new session's title",
            "title",
            lambda: client.post("/api/sessions", _json({"title": bad}), content_type="application/json"),
        ),
        (
            "a metadata value",
            "value",
            lambda: client.post(
                f"/api/sessions/{session_id}/metadata/experiment_description",
                _json({"value": bad}),
                content_type="application/json",
            ),
        ),
        (
            "a list of experimenters",
            "value[1]",
            lambda: client.post(
                f"/api/sessions/{session_id}/metadata/experimenter",
                _json({"value": ["Smith, Jane", bad]}),
                content_type="application/json",
            ),
        ),
        (
            "the lab's institution",
            "institution",
            lambda: client.put(
                f"/api/labs/{lab}/settings", _json({"institution": bad}), content_type="application/json"
            ),
        ),
        (
            "the lab's keywords",
            "keywords[0]",
            lambda: client.put(
                f"/api/labs/{lab}/settings", _json({"keywords": [bad]}), content_type="application/json"
            ),
        ),
        (
            "a subject's id",
            "subject_id",
            lambda: client.post(
                f"/api/labs/{lab}/subjects", _json({"subject_id": bad}), content_type="application/json"
            ),
        ),
        (
            "a file to upload in pieces",
            "files[0].path",
            lambda: client.post(
                f"/api/sessions/{session_id}/uploads",
                _json({"files": [{"path": bad, "size_bytes": 10}]}),
                content_type="application/json",
            ),
        ),
        (
            "a path on the lab's storage",
            "paths[0]",
            lambda: client.post(
                f"/api/sessions/{session_id}/import", _json({"paths": [bad]}), content_type="application/json"
            ),
        ),
        (
            "a search",
            "q",
            lambda: client.get("/api/sessions", {"q": bad}),
        ),
        (
            "the relative path of an uploaded file",
            "relative_paths",
            lambda: client.post(
                f"/api/sessions/{session_id}/files",
                {"files": [SimpleUploadedFile("a.bin", b"x")], "relative_paths": [bad]},
            ),
        ),
        (
            "a file's path in the address",
            "address",
            lambda: client.delete(f"/api/sessions/{session_id}/files/{bad.replace(' ', '%20')}"),
        ),
        (
            "the lab's settings page",
            "institution",
            lambda: world.browser("mia").post(
                f"/labs/{lab}/settings", {"institution": bad, "timezone": "UTC"}, HTTP_X_CSRFTOKEN="unused"
            ),
        ),
    ]


@pytest.mark.parametrize(
    ("bad", "index"), [(NUL, i) for i in range(13)] + [(SURROGATE, i) for i in range(JSON_REQUESTS)]
)
def test_every_field_refuses_what_cannot_be_stored(world: World, session_id: str, bad: str, index: int) -> None:
    what, field, send = _requests(world, session_id, bad)[index]
    before = (
        ChatMessage.objects.count(),
        ConversionSession.objects.count(),
        Subject.objects.count(),
        Lab.objects.get(id=world.lab.id).institution,
    )
    response = send()
    assert response.status_code == 400, (what, response.status_code, response.content[:300])
    text = response.content.decode()
    assert field in text and ("NUL" in text or "surrogate" in text), (what, text)
    after = (
        ChatMessage.objects.count(),
        ConversionSession.objects.count(),
        Subject.objects.count(),
        Lab.objects.get(id=world.lab.id).institution,
    )
    assert after == before, f"{what}: something was stored"


def test_an_uploaded_file_named_with_a_nul_is_stored_without_it(world: World, session_id: str) -> None:
    """Django's upload parser drops unprintable characters from file names before anything sees them."""
    response = world.client("ada").post(
        f"/api/sessions/{session_id}/files", {"files": [SimpleUploadedFile("V1\x00.bin", b"x")]}
    )
    assert response.status_code == 201
    assert [f["path"] for f in response.json()["files"]] == ["V1.bin"]


def test_the_session_goes_on_after_a_refusal(world: World, session_id: str) -> None:
    client = world.client("ada")
    refused = client.post(
        f"/api/sessions/{session_id}/messages", _json({"text": "Jane\x00 Smith"}), content_type="application/json"
    )
    assert refused.status_code == 400 and refused.json()["field"] == "The field “text”"
    turn = client.post(
        f"/api/sessions/{session_id}/messages", {"text": "where are we?"}, content_type="application/json"
    )
    assert turn.status_code == 200


def test_a_token_with_a_nul_is_refused_not_a_server_error(world: World) -> None:
    from django.test import Client

    response = Client(headers={"Authorization": "Token abc\x00def"}).get("/api/sessions")
    assert response.status_code == 400 and "Authorization" in response.json()["detail"]


@pytest.mark.parametrize("who", ["ada", "ben", "carl", None, "staff"])
def test_everyone_gets_the_same_plain_refusal_and_no_more(world: World, session_id: str, who: str | None) -> None:
    """The check runs before any view: it says nothing about the session to anyone, and the answer
    to a request without the bad character is the usual one (the owner and staff 200, other members
    404, anonymous 401)."""
    client = world.client(who)
    path = f"/api/sessions/{session_id}/messages"
    refused = client.post(path, _json({"text": NUL}), content_type="application/json")
    assert refused.status_code == 400 and set(refused.json()) == {"detail", "field"}
    usual = client.post(path, {"text": "where are we?"}, content_type="application/json")
    assert usual.status_code == {"ada": 200, "ben": 404, "carl": 404, None: 401, "staff": 200}[who]


@pytest.mark.parametrize(
    ("what", "send", "says"),
    [
        (
            "a metadata value",
            lambda c, sid, lab: c.post(
                f"/api/sessions/{sid}/metadata/experimenter",
                {"value": "Jane <b>Smith</b>"},
                content_type="application/json",
            ),
            "markup",
        ),
        (
            "a new session's title",
            lambda c, sid, lab: c.post("/api/sessions", {"title": "one\ntwo"}, content_type="application/json"),
            "line break",
        ),
        (
            "the lab's institution",
            lambda c, sid, lab: c.put(
                f"/api/labs/{lab}/settings", {"institution": "<i>MIT</i>"}, content_type="application/json"
            ),
            "markup",
        ),
        (
            "a subject's id",
            lambda c, sid, lab: c.post(
                f"/api/labs/{lab}/subjects", {"subject_id": "M1\x07"}, content_type="application/json"
            ),
            "U+0007",
        ),
        (
            "a lab experimenter",
            lambda c, sid, lab: c.put(
                f"/api/labs/{lab}/settings", {"experimenters": ["<script>x</script>"]}, content_type="application/json"
            ),
            "markup",
        ),
    ],
)
def test_short_fields_refuse_markup_and_control_characters(
    world: World, session_id: str, what: str, send: Any, says: str
) -> None:
    before = (ConversionSession.objects.count(), Subject.objects.count(), Lab.objects.get(id=world.lab.id).institution)
    response = send(world.client("mia"), session_id, world.lab.id)
    assert response.status_code == 400, (what, response.content[:300])
    assert says in response.content.decode(), (what, response.content.decode())
    after = (ConversionSession.objects.count(), Subject.objects.count(), Lab.objects.get(id=world.lab.id).institution)
    assert after == before, f"{what}: something was stored"
