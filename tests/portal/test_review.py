"""Asking for an expert flags the session; admins download everything about it in one bundle."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from conversions.models import AuditEvent, ConversionSession
from conversions.services import sessions
from tests.conftest import World
from tests.factories import AttemptFactory

pytestmark = pytest.mark.django_db


def _failed_session(world: World) -> ConversionSession:
    session = sessions.create_session(user=world.users["ada"], title="stuck")
    ConversionSession.objects.filter(id=session.id).update(status="failed", state={**session.state, "attempts": 1})
    AttemptFactory(
        session=session,
        number=1,
        state="failed",
        error_message="The conversion failed while reading x.bin.",
        error_detail="Traceback (most recent call last): ...",
        metadata={"experimenter": ["Smith, Jane"]},
    )
    session.refresh_from_db()
    return session


@pytest.mark.parametrize(("who", "status"), [("ada", 200), ("mia", 200), ("ben", 404), ("carl", 404), (None, 401)])
def test_asking_for_an_expert(world: World, who: str | None, status: int) -> None:
    session = _failed_session(world)

    response = world.client(who).post(
        f"/api/sessions/{session.id}/actions", {"action": "request_help"}, content_type="application/json"
    )

    assert response.status_code == status
    session.refresh_from_db()
    assert session.needs_review is (status == 200)
    if status == 200:
        assert session.review_reason == "asked for help (button)"
        assert "admins" in response.json()["replies"][-1]["text"]
        assert AuditEvent.objects.filter(session=session, kind="flagged_for_review").exists()


def test_asking_for_an_expert_in_words(world: World) -> None:
    session = _failed_session(world)
    world.client("ada").post(
        f"/api/sessions/{session.id}/messages",
        {"text": "this is going nowhere, can I talk to a human?"},
        content_type="application/json",
    )
    session.refresh_from_db()
    assert session.needs_review and "talk to a human" in session.review_reason


def _logged_in(world: World, name: str) -> Client:
    # The admin's own pages are exercised with its CSRF protection off, as Django's admin tests do.
    client = Client()
    client.force_login(world.users[name])
    return client


def _bundle_request(client: Any, session: ConversionSession) -> Any:
    return client.post(
        "/admin/conversions/conversionsession/",
        {"action": "download_debug_bundle", "_selected_action": [str(session.id)]},
    )


def test_an_admin_downloads_the_debug_bundle(world: World) -> None:
    session = _failed_session(world)
    sessions.perform_action(session=session, user=world.users["ada"], action="request_help")
    world.users["staff"].is_superuser = True
    world.users["staff"].save()
    admin = _logged_in(world, "staff")

    response = _bundle_request(admin, session)

    assert response.status_code == 200, response.content[:300]
    assert f"nwbportal-session-{session.id}.json" in response["Content-Disposition"]
    bundle = json.loads(response.content)
    assert bundle["session"]["needs_review"] is True and bundle["session"]["owner"] == "ada"
    (attempt,) = bundle["attempts"]
    assert attempt["error_detail"].startswith("Traceback") and attempt["metadata"] == {"experimenter": ["Smith, Jane"]}
    assert any(m["text"].startswith("I've asked the portal's admins") for m in bundle["messages"])
    assert {"neuroconv", "nwbinspector", "pynwb"} <= {k for k, v in bundle["versions"].items() if v}
    assert any(event["kind"] == "flagged_for_review" for event in bundle["audit"])
    assert bundle["llm_calls"] == [], "no language model without a key"


@pytest.mark.parametrize("who", ["ada", "mia"])
def test_lab_members_cannot_reach_the_bundle(world: World, who: str) -> None:
    session = _failed_session(world)
    response = _bundle_request(_logged_in(world, who), session)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
