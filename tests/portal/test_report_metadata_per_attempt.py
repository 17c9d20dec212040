"""The report's metadata is what each delivered file holds (the metadata its attempt was converted
with), not the session's values now; what changed since is said beside it, and automatic fixes are
listed change by change in the transcript."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from conversions.models import ChatMessage, ConversionAttempt, ConversionSession, MetadataField
from conversions.services import sessions
from tests.conftest import World
from tests.factories import AttemptFactory, IssueFactory, MessageFactory, MetadataFieldFactory

ALLOWED = {"ada": True, "ben": False, "mia": True, "carl": False, "staff": True}
FIRST = {"institution": "MIT", "experimenter": ["Smith, Jane"], "subject_id": "mouse001", "species": "Mus musculus"}
THIRD = {**FIRST, "institution": "Stanford", "species": "Mus musculus"}


def _plan(session: ConversionSession, attempt: int, values: dict[str, Any], sources: dict[str, str]) -> None:
    MessageFactory(
        session=session,
        role=ChatMessage.Role.ASSISTANT,
        text=f"Plan for attempt {attempt}",
        card="plan",
        data={
            "attempt": attempt,
            "metadata": [
                {"name": name, "label": name, "value": value, "source": sources[name]} for name, value in values.items()
            ],
        },
    )


def _attempt(session: ConversionSession, number: int, state: str, metadata: dict[str, Any]) -> ConversionAttempt:
    return AttemptFactory(
        session=session,
        number=number,
        state=state,
        metadata=metadata,
        size_bytes=1000 if state == "succeeded" else None,
        validation="passed_with_issues" if state == "succeeded" else "pending",
    )


@pytest.fixture
def session(world: World) -> ConversionSession:
    """Attempt 1 delivered with MIT, attempt 2 failed, attempt 3 delivered with Stanford; the user has
    since changed the institution to Harvard and the subject id is gone."""
    session = sessions.create_session(user=world.users["ada"], title="Three attempts")
    sources = {"institution": "user", "experimenter": "auto_fix", "subject_id": "user", "species": "llm"}
    _plan(session, 1, FIRST, sources)
    _attempt(session, 1, "succeeded", FIRST)
    _attempt(session, 2, "failed", FIRST)
    _plan(session, 3, THIRD, {**sources, "institution": "lab_default"})
    third = _attempt(session, 3, "succeeded", THIRD)
    # Queued after its plan, as a real attempt is.
    ConversionAttempt.objects.filter(id=third.id).update(queued_at=timezone.now() + timedelta(seconds=1))
    IssueFactory(
        attempt=third, check_name="check_keywords", importance="BEST_PRACTICE_SUGGESTION", message="no keywords"
    )
    now = {
        "institution": ("Harvard", "user"),
        "experimenter": (["Smith, Jane"], "auto_fix"),
        "species": ("Mus musculus", "llm"),
    }
    MetadataField.objects.filter(session=session).delete()
    for name, (value, source) in now.items():
        MetadataFieldFactory(session=session, name=name, value=value, source=source)
    return session


def test_each_delivered_file_lists_the_metadata_it_was_converted_with(world: World, session: ConversionSession) -> None:
    report = world.client("ada").get(f"/api/sessions/{session.id}/report.json").json()

    assert report["delivered"] == [1, 3]
    first, failed, third = report["attempts"]
    assert failed["metadata"] == [], "an attempt that delivered no file has no file metadata"
    first_rows = {row["name"]: row for row in first["metadata"]}
    assert {name: row["value"] for name, row in first_rows.items()} == FIRST
    assert first_rows["institution"]["source_label"] == "you" and first_rows["institution"]["now"] == "Harvard"
    assert first_rows["experimenter"]["source_label"] == "auto-fix" and first_rows["experimenter"]["now"] is None
    assert first_rows["subject_id"]["now"] == "removed"
    third_rows = {row["name"]: row for row in third["metadata"]}
    assert third_rows["institution"]["value"] == "Stanford" and third_rows["institution"]["source"] == "lab_default"
    # The validated file also lists what its issues ask for, as not in the file.
    assert third_rows["keywords"]["display"] == "not in the file" and third_rows["keywords"]["source"] is None
    assert "keywords" not in first_rows
    assert [row["name"] for row in third["metadata"]][:2] == ["experimenter", "institution"], "in the panel's order"
    # The session's values now are still there, as they are.
    assert {row["name"]: row["value"] for row in report["metadata"] if row["source"]}["institution"] == "Harvard"


def test_the_page_shows_each_file_newest_first_and_points_issue_links_at_the_validated_one(
    world: World, session: ConversionSession
) -> None:
    html = world.client("ada").get(f"/api/sessions/{session.id}/report.html").content.decode()

    metadata = html[html.index('id="metadata-heading"') : html.index('id="attempts-heading"')]
    assert metadata.index("In the file of attempt 3") < metadata.index("In the file of attempt 1")
    assert "attempt 2" not in metadata
    assert "Stanford" in metadata and "now Harvard" in metadata and "now removed" in metadata
    ids = Counter(re.findall(r'id="([^"]+)"', html))
    assert ids["field-keywords"] == 1 and ids["field-institution"] == 1, "one target per link"
    third = metadata[metadata.index("In the file of attempt 3") : metadata.index("In the file of attempt 1")]
    assert 'id="field-institution"' in third and 'href="#field-keywords"' in html
    assert "No file has been delivered yet" not in metadata


def test_before_any_file_the_values_the_next_conversion_will_use_are_listed(world: World) -> None:
    fresh = sessions.create_session(user=world.users["ada"], title="Nothing yet")
    MetadataFieldFactory(session=fresh, name="institution", value="MIT", source="user")

    report = world.client("ada").get(f"/api/sessions/{fresh.id}/report.json").json()
    html = world.client("ada").get(f"/api/sessions/{fresh.id}/report.html").content.decode()

    assert report["delivered"] == []
    assert "No file has been delivered yet. The values the next conversion will use:" in html
    assert '<tr id="field-institution"><th scope="row">institution</th><td>MIT</td>' in html


def test_automatic_fixes_are_listed_change_by_change_in_the_transcript(
    world: World, session: ConversionSession
) -> None:
    MessageFactory(
        session=session,
        role=ChatMessage.Role.ASSISTANT,
        text="Fixed automatically: 1 value written the way DANDI accepts (subject id).",
        card="fixes",
        data={
            "fixes": [
                {
                    "field": "subject_id",
                    "label": "subject id",
                    "before": "mouse/7",
                    "after": "mouse-7",
                    "reason": "no '/'",
                }
            ]
        },
    )

    report = world.client("ada").get(f"/api/sessions/{session.id}/report.json").json()
    html = world.client("ada").get(f"/api/sessions/{session.id}/report.html").content.decode()

    (entry,) = [e for e in report["transcript"] if e.get("card") == "fixes"]
    assert entry["details"] == ["subject id: “mouse/7” → “mouse-7” (no '/')"]
    assert "<li>subject id: “mouse/7” → “mouse-7” (no &#x27;/&#x27;)</li>" in html


@pytest.mark.parametrize("person", [*ALLOWED, None])
def test_only_those_who_may_see_the_session_see_its_files_metadata(
    world: World, session: ConversionSession, person: str | None
) -> None:
    for endpoint in ("report.json", "report.html"):
        response = world.client(person).get(f"/api/sessions/{session.id}/{endpoint}")

        if person is None:
            assert response.status_code == 401
        elif ALLOWED[person]:
            assert response.status_code == 200 and "Stanford" in response.content.decode()
        else:
            assert response.status_code == 404 and "Stanford" not in response.content.decode()
