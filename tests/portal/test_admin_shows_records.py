"""The admin shows a conversion's rows and never edits them: the services are their one writer, and
staff act on a session from its review page. Staff may delete a session, with its files."""

from __future__ import annotations

import os

import pytest
from django.contrib import admin
from django.test import Client, RequestFactory

from conversions.models import ChatMessage, ConversionAttempt, ConversionSession, MetadataField
from conversions.services import sessions
from tests.conftest import World
from tests.factories import AttemptFactory, MessageFactory, MetadataFieldFactory, UserFactory
from tests.structure.test_structure import CONVERSION_ROWS


def _superuser(world: World) -> Client:
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_no_row_of_a_conversion_can_be_added_or_changed_in_the_admin(world: World) -> None:
    request = RequestFactory().get("/admin/")
    request.user = UserFactory(username="root", is_staff=True, is_superuser=True)
    shown = {model.__name__: model_admin for model, model_admin in admin.site._registry.items()}
    for name in CONVERSION_ROWS & shown.keys():
        model_admin = shown[name]
        assert not model_admin.has_add_permission(request), name
        assert not model_admin.has_change_permission(request), name
        for inline in model_admin.get_inline_instances(request):
            assert not inline.has_change_permission(request), f"{name}: {type(inline).__name__}"
            assert not inline.has_add_permission(request, None), f"{name}: {type(inline).__name__}"
        assert model_admin.has_delete_permission(request) is (name == "ConversionSession"), name


def test_a_superuser_sees_a_session_but_cannot_change_it(world: World) -> None:
    session = sessions.create_session(user=world.users["ada"], title="V1 day 3")
    attempt = AttemptFactory(session=session, state="failed")
    message = MessageFactory(session=session, text="The recording is from Tuesday.")
    field = MetadataFieldFactory(session=session, name="institution", value="MIT")
    client = _superuser(world)

    page = client.get(f"/admin/conversions/conversionsession/{session.id}/change/")
    assert page.status_code == 200 and "V1 day 3" in page.content.decode()
    assert 'name="_save"' not in page.content.decode()

    refused = client.post(
        f"/admin/conversions/conversionsession/{session.id}/change/", {"title": "changed", "status": "completed"}
    )
    assert refused.status_code == 403
    assert (
        client.post(f"/admin/conversions/conversionattempt/{attempt.id}/change/", {"state": "succeeded"}).status_code
        == 403
    )
    assert client.post(f"/admin/conversions/chatmessage/{message.id}/change/", {"text": "x"}).status_code == 403
    assert client.post(f"/admin/conversions/metadatafield/{field.id}/delete/", {"post": "yes"}).status_code == 403
    assert client.get("/admin/conversions/conversionattempt/add/").status_code == 403

    session.refresh_from_db()
    assert (session.title, session.status) == ("V1 day 3", "idle")
    assert ConversionAttempt.objects.get(id=attempt.id).state == "failed"
    assert ChatMessage.objects.get(id=message.id).text == "The recording is from Tuesday."
    assert MetadataField.objects.filter(id=field.id).exists()


@pytest.mark.parametrize("how", ["one", "selected"])
def test_staff_delete_a_session_with_its_files(world: World, how: str) -> None:
    session = sessions.create_session(user=world.users["ada"], title="to go")
    kept = sessions.create_session(user=world.users["ada"], title="to keep")
    folder = session.source_directory
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.bin").write_bytes(b"\0" * 10)
    (folder / "clip.mp4").write_bytes(b"a video")
    # An attempt's NWB file, and the video it links to beside it: a hard link to the upload, as the
    # conversion places it.
    output = sessions.attempt_output_path(session, AttemptFactory(session=session, number=1))
    videos = output.parent / f"{output.stem}_video"
    videos.mkdir(parents=True)
    output.write_bytes(b"\x89HDF")
    os.link(folder / "clip.mp4", videos / "clip.mp4")
    client = _superuser(world)

    if how == "one":
        response = client.post(f"/admin/conversions/conversionsession/{session.id}/delete/", {"post": "yes"})
    else:
        response = client.post(
            "/admin/conversions/conversionsession/",
            {"action": "delete_selected", "_selected_action": [str(session.id)], "post": "yes"},
        )

    assert response.status_code == 302
    assert not ConversionSession.objects.filter(id=session.id).exists()
    assert ConversionSession.objects.filter(id=kept.id).exists()
    assert not folder.exists()
    assert not videos.exists() and not session.directory.exists(), "the NWB files and their videos go too"
