"""The staff review queue: which conversions need a human and why, one conversion's review page, the
staff actions on it, the email to staff, and who may see or do any of it."""

from __future__ import annotations

import contextlib
import re
import shutil
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from conversions.models import AuditEvent, ChatMessage, ConversionAttempt, ConversionSession
from conversions.services import review, review_queue, sessions
from tests.conftest import World, real_data, wait_for, wait_for_status
from tests.factories import AttemptFactory, IssueFactory

CSRF = "r" * 32


def _staff_with_email(world: World) -> None:
    staff = world.users["staff"]
    staff.email = "sam@example.org"
    staff.save()


def _browser(world: World, name: str | None) -> Client:
    """A logged-in browser (CSRF enforced) carrying a CSRF cookie its forms can echo."""
    client = Client(enforce_csrf_checks=True)
    if name is not None:
        client.force_login(world.users[name])
    client.cookies["csrftoken"] = CSRF
    return client


def _act(client: Client, session: ConversionSession, action: str, **data: str) -> Any:
    return client.post(f"/review/sessions/{session.id}/{action}", {"csrfmiddlewaretoken": CSRF, **data}, follow=True)


def _page_text(response: Any) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def _session(
    world: World, *, status: str = "failed", awaiting: str | None = None, title: str = ""
) -> ConversionSession:
    session = sessions.create_session(user=world.users["ada"], title=title)
    ConversionSession.objects.filter(id=session.id).update(status=status, awaiting=awaiting)
    session.refresh_from_db()
    return session


def _attempt(
    session: ConversionSession, number: int, state: str, *, ago: timedelta, **fields: Any
) -> ConversionAttempt:
    """An attempt whose job was queued `ago` (the timestamps a worker would have written)."""
    queued = timezone.now() - ago
    attempt = AttemptFactory(session=session, number=number, state=state, **fields)
    ConversionAttempt.objects.filter(id=attempt.id).update(queued_at=queued)
    attempt.refresh_from_db()
    return attempt


def _failed(
    session: ConversionSession, number: int, *, deliveries: int = 1, message: str = "could not read x.bin"
) -> None:
    finished = timezone.now() - timedelta(minutes=10 - number)
    _attempt(
        session,
        number,
        "failed",
        ago=timedelta(minutes=20),
        started_at=finished - timedelta(minutes=1),
        finished_at=finished,
        deliveries=deliveries,
        error_message=message,
        error_detail="Traceback (most recent call last): ...",
    )


def _reasons(session: ConversionSession) -> set[str]:
    queued = review_queue.review_queue().filter(id=session.id).first()
    return {r.code.value for r in review_queue.reasons_of(queued)} if queued else set()


# --- each reason --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_asking_for_help_puts_the_session_in_the_queue_and_emails_staff_once(
    world: World, mailoutbox: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    _staff_with_email(world)
    session = _session(world, title="spikes")
    ada = world.client("ada")

    with django_capture_on_commit_callbacks(execute=True):
        response = ada.post(
            f"/api/sessions/{session.id}/actions", {"action": "request_help"}, content_type="application/json"
        )
    assert response.status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        ada.post(f"/api/sessions/{session.id}/actions", {"action": "request_help"}, content_type="application/json")
    assert review_queue.sweep() == 0

    assert _reasons(session) == {"flagged"}
    (email,) = mailoutbox
    assert email.to == ["sam@example.org"] and "spikes" in email.subject and "flagged" in email.subject
    assert "asked for help (button)" in email.body and f"/review/sessions/{session.id}/" in email.body
    page = _page_text(_browser(world, "staff").get("/review/"))
    assert "1 conversion needs a human." in page
    assert "Flagged: <strong>1</strong>" in page and "asked for help (button)" in page


@pytest.mark.django_db
def test_failing_again_and_again_puts_the_session_in_the_queue(world: World, settings: Any) -> None:
    twice = _session(world, title="twice")
    _failed(twice, 1)
    _failed(twice, 2)
    all_runs = _session(world, title="all runs")
    _failed(all_runs, 1, deliveries=settings.JOB_MAX_RUNS, message="took longer than the time limit")
    once = _session(world, title="once")
    _failed(once, 1)
    recovered = _session(world, status="completed", title="recovered")
    _failed(recovered, 1)
    _failed(recovered, 2)
    _attempt(recovered, 3, "succeeded", ago=timedelta(minutes=5))

    assert _reasons(twice) == {"failing"} and _reasons(all_runs) == {"failing"}
    assert _reasons(once) == set() and _reasons(recovered) == set()
    page = _page_text(_browser(world, "staff").get("/review/"))
    assert "2 failed attempts: could not read x.bin" in page
    assert f"the latest failed after all its {settings.JOB_MAX_RUNS} runs" in page

    settings.REVIEW_FAILED_ATTEMPTS = 3
    assert _reasons(twice) == set(), "the threshold is a setting"


@pytest.mark.django_db
def test_a_job_running_far_longer_than_expected_is_in_the_queue(world: World, settings: Any) -> None:
    now = timezone.now()
    silent = _session(world, status="converting", title="silent worker")
    _attempt(
        silent,
        1,
        "running",
        ago=timedelta(hours=3),
        started_at=now - timedelta(hours=3),
        heartbeat_at=now - timedelta(hours=2),
        deliveries=1,
    )
    slow = _session(world, status="converting", title="slow but alive")
    ConversionSession.objects.filter(id=slow.id).update(
        detection={"streams": [{"id": "imec0.ap", "size_bytes": 2_000_000_000}]}
    )
    _attempt(
        slow,
        1,
        "running",
        ago=timedelta(hours=2),
        streams=["imec0.ap"],
        started_at=now - timedelta(hours=2),
        heartbeat_at=now,
        deliveries=1,
    )
    fresh = _session(world, status="converting", title="fresh")
    _attempt(fresh, 1, "running", ago=timedelta(minutes=2), started_at=now - timedelta(minutes=2), heartbeat_at=now)

    # 2 GB at 5 MB/s is 400 s: three times that after an hour's grace is about 1 h 20 min.
    assert _reasons(silent) == {"running_long"} and _reasons(slow) == {"running_long"}
    assert _reasons(fresh) == set()
    settings.REVIEW_RUNNING_GRACE_SECONDS = 3 * 3600
    assert _reasons(slow) == set(), "by size, the grace time and rate are settings"
    assert _reasons(silent) == {"running_long"}, "a silent worker is overdue whatever the size"
    page = _page_text(_browser(world, "staff").get("/review/?reason=running_long"))
    assert "silent worker" in page and "last sign of life 2 h ago" in page and "fresh" not in page


@pytest.mark.django_db
def test_a_job_waiting_long_for_a_worker_is_in_the_queue(world: World, settings: Any) -> None:
    stuck = _session(world, status="converting", title="stuck in the queue")
    _attempt(stuck, 1, "queued", ago=timedelta(hours=1))
    just_queued = _session(world, status="converting", title="just queued")
    _attempt(just_queued, 1, "queued", ago=timedelta(minutes=1))

    assert _reasons(stuck) == {"waiting_long"} and _reasons(just_queued) == set()
    settings.REVIEW_QUEUED_SECONDS = 30
    assert _reasons(just_queued) == {"waiting_long"}


@pytest.mark.django_db
def test_the_queue_is_oldest_first_and_filters_by_reason_and_lab(world: World) -> None:
    from conversions.models import Membership

    newer = _session(world, title="newer")
    _failed(newer, 1)
    _failed(newer, 2)
    older = _session(world, status="converting", title="older")
    _attempt(older, 1, "queued", ago=timedelta(days=2))
    Membership.objects.filter(user=world.users["carl"]).update(role="member")
    elsewhere = sessions.create_session(user=world.users["carl"], title="elsewhere")
    sessions.perform_action(session=elsewhere, user=world.users["carl"], action="request_help")
    staff = _browser(world, "staff")

    titles = [str(s) for s in review_queue.review_queue()]
    assert titles.index("older") < titles.index("newer")
    lab_page = _page_text(staff.get(f"/review/?lab={world.other_lab.id}"))
    assert "elsewhere" in lab_page and "newer" not in lab_page
    failing_page = _page_text(staff.get("/review/?reason=failing"))
    assert "newer" in failing_page and "older" not in failing_page and "elsewhere" not in failing_page
    assert "3 conversions need a human." in failing_page, "the counts are of the whole queue"
    unknown = _page_text(staff.get("/review/?reason=whatever&lab=x"))
    assert "“whatever” is not a reason of the queue" in unknown and "That lab is not known" in unknown

    api = world.client("staff").get("/api/review/queue?reason=waiting_long").json()
    assert api["counts"] == {"total": 3, "flagged": 1, "failing": 1, "running_long": 0, "waiting_long": 1}
    assert [s["title"] for s in api["sessions"]] == ["older"]
    assert api["sessions"][0]["reasons"][0]["code"] == "waiting_long"
    assert world.client("staff").get("/api/review/queue?reason=nope").status_code == 400


# --- the sweep's email ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_title_stored_with_a_line_break_does_not_stop_the_email(world: World, mailoutbox: list[Any]) -> None:
    """Titles are refused with a line break now; one stored before could break the e-mail's header
    (BadHeaderError), and staff were never told."""
    _staff_with_email(world)
    session = _session(world, title="first line")
    ConversionSession.objects.filter(id=session.id).update(title="first line\nsecond line")
    _failed(session, 1)
    _failed(session, 2)
    assert review_queue.sweep() == 1
    (email,) = mailoutbox
    assert "first line second line" in email.subject and "\n" not in email.subject


@pytest.mark.django_db
def test_the_sweep_emails_staff_once_per_entry_into_the_queue(world: World, mailoutbox: list[Any]) -> None:
    _staff_with_email(world)
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("gone", email="gone@example.org", is_staff=True, is_active=False)
    session = _session(world, title="failing")
    _failed(session, 1)
    _failed(session, 2)

    assert review_queue.sweep() == 1
    assert review_queue.sweep() == 0
    (email,) = mailoutbox
    assert email.to == ["sam@example.org"] and "failed several times" in email.subject
    session.refresh_from_db()
    assert session.review_notified_at is not None and session.review_since is not None

    # A retry that worked takes it out of the queue; failing again later is a new entry.
    _attempt(session, 3, "succeeded", ago=timedelta(minutes=1))
    assert review_queue.sweep() == 0
    session.refresh_from_db()
    assert session.review_notified_at is None and session.review_since is None
    _failed(session, 4)
    ConversionAttempt.objects.filter(session=session, number=4).update(finished_at=timezone.now())
    assert review_queue.sweep() == 1 and len(mailoutbox) == 2


@pytest.mark.django_db
def test_the_sweep_runs_as_a_celery_task(world: World, mailoutbox: list[Any]) -> None:
    from conversions.workers.tasks import sweep_review_queue

    _staff_with_email(world)
    session = _session(world)
    _failed(session, 1)
    _failed(session, 2)

    assert sweep_review_queue.apply().get() == 1
    assert len(mailoutbox) == 1


# --- the review page ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_review_page_shows_everything_about_the_session(world: World, data_root: Path) -> None:
    from conversions.models import LlmCall

    session = _session(world, status="awaiting_user_input", awaiting="correction", title="with issues")
    sessions.perform_action(session=session, user=world.users["ada"], action="request_help")
    _failed(session, 1, message="the probe file is damaged")
    output = data_root / "sessions" / str(session.id) / "attempt-2" / "sub-1_ecephys.nwb"
    output.parent.mkdir(parents=True)
    output.write_bytes(b"an NWB file")
    good = _attempt(
        session, 2, "succeeded", ago=timedelta(minutes=3), output_path=str(output), size_bytes=11, validation="failed"
    )
    IssueFactory(attempt=good, check_name="check_subject_exists", importance="CRITICAL", message="Subject is missing.")
    LlmCall.objects.create(
        session=session, model="claude-test", outcome="ok", input_tokens=812, output_tokens=64, latency_ms=930
    )
    review.post_note(session=session, user=world.users["staff"], text="Looking at it now.")
    staff = _browser(world, "staff")

    page = _page_text(staff.get(f"/review/sessions/{session.id}/"))

    for expected in (
        "asked for help (button)",
        "I&#x27;ve asked the portal&#x27;s admins",
        "Looking at it now.",
        'class="message reviewer"',
        "the probe file is damaged",
        "Traceback (most recent call last)",
        "check_subject_exists",
        "Subject is missing.",
        "claude-test",
        "812 / 64",
        "930 ms",
        "flagged_for_review",
        "reviewer_note",
        f"/api/sessions/{session.id}/output?attempt=2",
        f"/review/sessions/{session.id}/bundle.json",
    ):
        assert expected in page, expected
    download = staff.get(f"/api/sessions/{session.id}/output?attempt=2")
    assert download.status_code == 200 and b"".join(download.streaming_content) == b"an NWB file"
    bundle = staff.get(f"/review/sessions/{session.id}/bundle.json")
    assert bundle.status_code == 200 and f"nwbportal-session-{session.id}.json" in bundle["Content-Disposition"]
    assert bundle.json()["session"]["needs_review"] is True
    assert [m["role"] for m in bundle.json()["messages"]][-1] == "reviewer"


# --- actions --------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_accept_as_is_and_a_refused_action_explained(world: World) -> None:
    session = _session(world, status="awaiting_user_input", awaiting="correction")
    _attempt(session, 1, "succeeded", ago=timedelta(minutes=3), validation="passed_with_issues")
    failed = _session(world)
    staff = _browser(world, "staff")

    accepted = _page_text(_act(staff, session, "accept_as_is"))
    refused = _page_text(_act(staff, failed, "accept_as_is"))

    session.refresh_from_db()
    failed.refresh_from_db()
    assert session.status == "completed_with_issues" and "Accepted as it is" in accepted
    assert session.messages.last().text.startswith("Accepted as it is.")
    event = AuditEvent.objects.filter(session=session, kind="action").last()
    assert event.actor == world.users["staff"] and event.detail == {"action": "accept_as_is"}
    assert "Not done: There is no validated file waiting for a decision." in refused
    assert failed.status == "failed"


@pytest.mark.django_db
def test_cancel_keeps_the_session_usable(world: World) -> None:
    session = _session(world, status="awaiting_approval", awaiting="approval")
    staff = _browser(world, "staff")

    page = _page_text(_act(staff, session, "cancel"))

    session.refresh_from_db()
    assert session.status == "cancelled" and "Cancelled: the files and attempts are kept." in page
    assert AuditEvent.objects.filter(session=session, kind="status_changed", actor=world.users["staff"]).exists()
    reply = world.client("ada").post(
        f"/api/sessions/{session.id}/messages", {"text": "hello again"}, content_type="application/json"
    )
    assert reply.status_code == 200, "the owner can go on talking"


@pytest.mark.django_db
def test_a_note_reaches_the_user_as_the_reviewer(world: World) -> None:
    session = _session(world)
    staff = _browser(world, "staff")

    page = _page_text(_act(staff, session, "note", text="The probe file is truncated; please upload it again."))
    empty = _page_text(_act(staff, session, "note", text="   "))

    assert "Note sent" in page and "Not done: Write the note first" in empty
    messages = world.client("ada").get(f"/api/sessions/{session.id}").json()["messages"]
    assert messages[-1]["role"] == "reviewer" and messages[-1]["text"].startswith("The probe file is truncated")
    assert ChatMessage.objects.filter(session=session, role="reviewer").count() == 1
    assert AuditEvent.objects.get(session=session, kind="reviewer_note").actor == world.users["staff"]


@pytest.mark.django_db
def test_reassigning_hands_the_session_to_a_lab_member_only(world: World) -> None:
    session = _session(world)
    staff = _browser(world, "staff")

    outsider = _page_text(_act(staff, session, "reassign", owner=str(world.users["carl"].pk)))
    session.refresh_from_db()
    assert session.owner == world.users["ada"]
    assert "Not done: carl is not a member of Visual Lab" in outsider
    nobody = _page_text(_act(staff, session, "reassign", owner="not a number"))
    assert "Not done: Choose the new owner among the lab" in nobody

    page = _page_text(_act(staff, session, "reassign", owner=str(world.users["ben"].pk), text="Ada has left."))

    session.refresh_from_db()
    assert session.owner == world.users["ben"] and "Handed to the new owner." in page
    event = AuditEvent.objects.get(session=session, kind="reassigned")
    assert event.actor == world.users["staff"] and event.detail == {"from": "ada", "to": "ben"}
    assert world.client("ben").get(f"/api/sessions/{session.id}").status_code == 200
    assert world.client("ada").get(f"/api/sessions/{session.id}").status_code == 404
    last = session.messages.last()
    assert last.role == "reviewer" and "from ada to ben" in last.text and last.text.endswith("Ada has left.")


@pytest.mark.django_db
def test_resolving_takes_the_session_out_of_the_queue_until_something_new_happens(
    world: World, mailoutbox: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    _staff_with_email(world)
    session = _session(world)
    _failed(session, 1)
    _failed(session, 2)
    with django_capture_on_commit_callbacks(execute=True):
        sessions.perform_action(session=session, user=world.users["ada"], action="request_help")
    assert _reasons(session) == {"flagged", "failing"} and len(mailoutbox) == 1
    staff = _browser(world, "staff")

    refused = _page_text(_act(staff, session, "resolve", text=""))
    session.refresh_from_db()
    assert session.needs_review and "Not done: Write the note first" in refused

    page = _page_text(_act(staff, session, "resolve", text="Told Ada to re-export the file.", tell_user="1"))

    session.refresh_from_db()
    assert "Resolved" in page and _reasons(session) == set()
    assert not session.needs_review and session.review_notified_at is None and session.review_since is None
    event = AuditEvent.objects.get(session=session, kind="review_resolved")
    assert event.actor == world.users["staff"]
    assert event.detail == {"note": "Told Ada to re-export the file.", "reasons": ["flagged", "failing"]}
    assert session.messages.last().role == "reviewer"
    assert "Not in the review queue." in _page_text(staff.get(f"/review/sessions/{session.id}/"))

    # Asking again is a new entry: in the queue again, and staff are told again.
    with django_capture_on_commit_callbacks(execute=True):
        sessions.perform_action(session=session, user=world.users["ada"], action="request_help")
    assert _reasons(session) == {"flagged"} and len(mailoutbox) == 2
    # A failure after the resolution brings the failing reason back.
    _failed(session, 3)
    ConversionAttempt.objects.filter(session=session, number=3).update(finished_at=timezone.now())
    assert _reasons(session) == {"flagged", "failing"}


@pytest.mark.django_db(transaction=True)
def test_retry_runs_the_conversion_again_on_a_real_worker(
    live_world: World, celery_worker_thread: Any, mailoutbox: list[Any]
) -> None:
    """A recording damaged after it was recognised fails to convert, for real; staff retry it once,
    it fails again, and the session is in the queue for failing twice."""
    _staff_with_email(live_world)
    folder = real_data("spikeglx/Noise4Sam_g0")
    ada = live_world.client("ada")
    session_id = ada.post("/api/sessions", {"title": "damaged"}, content_type="application/json").json()["id"]
    from django.core.files.uploadedfile import SimpleUploadedFile

    files = [SimpleUploadedFile(p.name, p.read_bytes()) for p in sorted(folder.iterdir())]
    paths = [f"{folder.name}/{p.name}" for p in sorted(folder.iterdir())]
    assert ada.post(f"/api/sessions/{session_id}/files", {"files": files, "relative_paths": paths}).status_code == 201
    wait_for_status(ada, session_id, {"awaiting_user_input"})
    session = ConversionSession.objects.get(id=session_id)
    stored = next(session.source_directory.rglob("*.ap.bin"))
    stored.write_bytes(stored.read_bytes()[:1000])  # the copy on the server got damaged
    ada.post(f"/api/sessions/{session_id}/messages", {"text": "skip the questions"}, content_type="application/json")
    wait_for_status(ada, session_id, {"failed"})
    assert _reasons(session) == set(), "one failure is the user's to deal with"

    page = _page_text(_act(_browser(live_world, "staff"), session, "retry"))

    assert "Retried" in page
    wait_for(lambda: session.attempts.filter(number=2).exists(), what="a second attempt")
    wait_for_status(ada, session_id, {"failed"})
    assert list(session.attempts.values_list("state", flat=True)) == ["failed", "failed"]
    assert AuditEvent.objects.get(session=session, kind="action", actor=live_world.users["staff"]).detail == {
        "action": "retry"
    }
    assert _reasons(session) == {"failing"}
    assert review_queue.sweep() == 1 and "damaged" in mail.outbox[0].subject
    shutil.rmtree(session.directory, ignore_errors=True)


@contextlib.asynccontextmanager
async def _open_page(world: World, who: str, session: ConversionSession) -> AsyncIterator[Any]:
    """The session's websocket as `who`'s open page has it, past the catch-up (the greeting, then
    the status)."""
    from channels.testing import WebsocketCommunicator

    from nwbportal.asgi import application

    headers = [(b"authorization", f"Token {world.tokens[who]}".encode())]
    communicator = WebsocketCommunicator(application, f"/ws/sessions/{session.id}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    try:
        while (await communicator.receive_json_from(timeout=5))["type"] != "status":
            pass
        yield communicator
    finally:
        await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_notes_and_reassignment_reach_the_open_page_live(live_world: World) -> None:
    from asgiref.sync import sync_to_async

    session = await sync_to_async(_session)(live_world)
    async with _open_page(live_world, "ada", session) as communicator:
        await sync_to_async(review.post_note)(session=session, user=live_world.users["staff"], text="Hello from staff.")
        note = await communicator.receive_json_from(timeout=5)
        assert note["type"] == "message" and note["message"]["role"] == "reviewer"
        assert note["message"]["text"] == "Hello from staff."
        assert (await communicator.receive_json_from(timeout=5))["type"] == "status"

        await sync_to_async(review.reassign)(
            session=session, user=live_world.users["staff"], new_owner_id=live_world.users["ben"].pk
        )
        events = [await communicator.receive_json_from(timeout=5) for _ in range(3)]
        assert [e["type"] for e in events] == ["message", "status", "session"]
        assert events[2]["owner"] == "ben"
        # Ada may no longer see the session: her page is closed as "not found", and hears nothing more.
        assert await communicator.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}


@pytest.mark.django_db(transaction=True)
async def test_a_lab_manager_watching_a_reassigned_session_keeps_it(live_world: World) -> None:
    from asgiref.sync import sync_to_async

    session = await sync_to_async(_session)(live_world)
    async with _open_page(live_world, "mia", session) as communicator:
        await sync_to_async(review.reassign)(
            session=session, user=live_world.users["staff"], new_owner_id=live_world.users["ben"].pk
        )
        events = [await communicator.receive_json_from(timeout=5) for _ in range(3)]
        assert [e["type"] for e in events] == ["message", "status", "session"]
        await sync_to_async(review.post_note)(session=session, user=live_world.users["staff"], text="Still yours, Mia.")
        assert (await communicator.receive_json_from(timeout=5))["message"]["text"] == "Still yours, Mia."


# --- who may see and do it ----------------------------------------------------------------------


PEOPLE = ["staff", "ada", "ben", "mia", "carl", None]


@pytest.mark.django_db
@pytest.mark.parametrize("person", PEOPLE)
def test_only_staff_see_the_queue_and_the_review_pages(world: World, person: str | None) -> None:
    session = _session(world)
    sessions.perform_action(session=session, user=world.users["ada"], action="request_help")
    browser = _browser(world, person)

    pages = [
        browser.get("/review/"),
        browser.get(f"/review/sessions/{session.id}/"),
        browser.get(f"/review/sessions/{session.id}/bundle.json"),
    ]
    api = world.client(person).get("/api/review/queue")

    if person == "staff":
        assert [p.status_code for p in pages] == [200, 200, 200] and api.status_code == 200
        assert [s["id"] for s in api.json()["sessions"]] == [str(session.id)]
    elif person is None:
        assert all(p.status_code == 302 and p["Location"].startswith("/accounts/login/") for p in pages)
        assert api.status_code == 401
    else:
        assert [p.status_code for p in pages] == [403, 403, 403] and api.status_code == 403
        assert str(session.id) not in api.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("person", ["ada", "ben", "mia", "carl", None])
@pytest.mark.parametrize(
    ("action", "data"),
    [
        ("cancel", {}),
        ("note", {"text": "not staff"}),
        ("reassign", {"owner": "0"}),
        ("resolve", {"text": "not staff"}),
    ],
)
def test_only_staff_act(world: World, person: str | None, action: str, data: dict[str, str]) -> None:
    session = _session(world, status="awaiting_approval", awaiting="approval")
    sessions.perform_action(session=session, user=world.users["ada"], action="request_help")
    data = {"owner": str(world.users["ben"].pk)} if action == "reassign" else data
    messages_before = session.messages.count()

    response = _browser(world, person).post(
        f"/review/sessions/{session.id}/{action}", {"csrfmiddlewaretoken": CSRF, **data}
    )

    assert response.status_code == (302 if person is None else 403)
    session.refresh_from_db()
    assert session.status == "awaiting_approval" and session.needs_review and session.owner == world.users["ada"]
    assert session.messages.count() == messages_before


@pytest.mark.django_db
def test_actions_need_post_and_csrf(world: World) -> None:
    session = _session(world, status="awaiting_approval", awaiting="approval")
    without_token = Client(enforce_csrf_checks=True)
    without_token.force_login(world.users["staff"])

    assert _browser(world, "staff").get(f"/review/sessions/{session.id}/cancel").status_code == 405
    assert without_token.post(f"/review/sessions/{session.id}/cancel").status_code == 403
    assert _act(_browser(world, "staff"), session, "delete").status_code == 404
    session.refresh_from_db()
    assert session.status == "awaiting_approval"


@pytest.mark.django_db
def test_the_staff_functions_refuse_anyone_else(world: World) -> None:
    from django.core.exceptions import PermissionDenied

    session = _session(world)
    for call in (
        lambda: review.post_note(session=session, user=world.users["mia"], text="hi"),
        lambda: review.resolve(session=session, user=world.users["ada"], note="done"),
        lambda: review.reassign(session=session, user=world.users["mia"], new_owner_id=world.users["ben"].pk),
        lambda: review.staff_action(session=session, user=world.users["mia"], action="cancel"),
    ):
        with pytest.raises(PermissionDenied):
            call()
    session.refresh_from_db()
    assert session.status == "failed" and session.owner == world.users["ada"]
