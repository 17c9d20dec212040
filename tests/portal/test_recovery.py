"""Jobs whose worker vanished: run again with backoff up to JOB_MAX_RUNS runs, then the session is
flagged for a human; sessions left waiting too long are closed without losing anything."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from conversions.models import ConversionAttempt, ConversionSession
from conversions.services import sessions
from conversions.services.attempts import recover_stalled_jobs
from tests.conftest import World
from tests.factories import AttemptFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _converting(world: World, deliveries: int, minutes_silent: int) -> tuple[ConversionSession, ConversionAttempt]:
    session = sessions.create_session(user=world.users["ada"])
    session.status = "converting"
    session.state = {**session.state, "attempts": 1}
    session.save()
    stale = timezone.now() - timedelta(minutes=minutes_silent)
    attempt = AttemptFactory(
        session=session, number=1, state="running", deliveries=deliveries, heartbeat_at=stale, worker="gone@host"
    )
    return session, attempt


def test_a_loss_on_the_last_run_fails_the_attempt_and_flags_the_session(live_world: World, settings: Any) -> None:
    session, attempt = _converting(live_world, deliveries=settings.JOB_MAX_RUNS, minutes_silent=30)
    assert recover_stalled_jobs(stall_seconds=60) == 0
    attempt.refresh_from_db()
    session.refresh_from_db()
    assert attempt.state == "failed"
    assert session.status == "failed" and session.needs_review
    assert "retry" in session.messages.last().text


def test_a_job_that_still_reports_is_left_alone(live_world: World) -> None:
    _, attempt = _converting(live_world, deliveries=1, minutes_silent=0)
    assert recover_stalled_jobs(stall_seconds=600) == 0
    attempt.refresh_from_db()
    assert attempt.state == "running"


def test_a_first_loss_is_run_again_and_the_user_is_told(
    live_world: World, celery_worker_thread: Any, settings: Any
) -> None:
    settings.JOB_RETRY_BACKOFF_SECONDS = 0
    session, attempt = _converting(live_world, deliveries=1, minutes_silent=30)
    assert recover_stalled_jobs(stall_seconds=60) == 1
    told = session.messages.filter(text__contains="interrupted").last()
    assert told is not None and "not a problem with your data" in told.text
    assert f"run 2 of at most {settings.JOB_MAX_RUNS}" in told.text
    attempt.refresh_from_db()
    # The requeued job runs on the worker; with no files it fails with a plain message.
    from tests.conftest import wait_for

    wait_for(lambda: ConversionAttempt.objects.get(id=attempt.id).state == "failed", what="the requeued job")
    attempt.refresh_from_db()
    assert attempt.deliveries == 2


def test_the_recover_jobs_command_runs_the_recovery_and_says_how_many_were_requeued(
    live_world: World, settings: Any
) -> None:
    from io import StringIO

    from django.core.management import call_command

    settings.JOB_RETRY_BACKOFF_SECONDS = 0
    session, _ = _converting(live_world, deliveries=1, minutes_silent=30)
    out = StringIO()
    call_command("recover_jobs", "--stall-seconds", "60", stdout=out)
    assert out.getvalue().strip() == "1 job(s) requeued"
    assert session.messages.filter(text__contains="interrupted").exists()


def test_after_a_gap_the_recovery_gives_running_jobs_a_round_to_report(live_world: World) -> None:
    """The recovery could not run for a while (the database was out of reach): neither could the
    jobs mark themselves alive, so none is judged lost before it had one more round to do so. A
    worker that starts judges at once: it is likely there because another one stopped."""
    from conversions.models import Housekeeping

    def told(session: ConversionSession) -> bool:
        return session.messages.filter(text__contains="interrupted").exists()

    session, attempt = _converting(live_world, deliveries=1, minutes_silent=30)
    Housekeeping.objects.create(name="recover_stalled_jobs", last_run=timezone.now() - timedelta(minutes=10))
    assert recover_stalled_jobs(stall_seconds=60) == 0
    attempt.refresh_from_db()
    assert attempt.state == "running" and attempt.deliveries == 1 and not told(session)
    # The next round: still silent, so lost, and run again (a worker may have taken it already).
    assert recover_stalled_jobs(stall_seconds=60) == 1
    assert told(session)

    other_session, _ = _converting(live_world, deliveries=1, minutes_silent=30)
    Housekeeping.objects.filter(name="recover_stalled_jobs").update(last_run=timezone.now() - timedelta(minutes=10))
    assert recover_stalled_jobs(stall_seconds=60, on_start=True) == 1
    assert told(other_session)


@pytest.mark.parametrize(("run", "seconds"), [(2, 30), (3, 60), (4, 120)])
def test_runs_again_wait_twice_as_long_each_time(settings: Any, run: int, seconds: int) -> None:
    from conversions.services.attempts import retry_delay_s

    settings.JOB_RETRY_BACKOFF_SECONDS = 30
    assert retry_delay_s(run) == seconds


def _waiting(world: World, hours_ago: int, status: str = "awaiting_approval") -> ConversionSession:
    session = sessions.create_session(user=world.users["ada"])
    ConversionSession.objects.filter(id=session.id).update(
        status=status,
        awaiting="approval" if status == "awaiting_approval" else None,
        updated=timezone.now() - timedelta(hours=hours_ago),
    )
    return session


def test_a_session_left_waiting_too_long_is_closed_and_says_how_to_resume(live_world: World, settings: Any) -> None:
    from conversions.services.attempts import close_idle_sessions

    settings.SESSION_IDLE_HOURS = 72
    old = _waiting(live_world, hours_ago=80)
    recent = _waiting(live_world, hours_ago=10)
    finished = _waiting(live_world, hours_ago=500, status="completed")

    assert close_idle_sessions() == 1

    for session in (old, recent, finished):
        session.refresh_from_db()
    assert old.status == "cancelled" and old.awaiting is None
    assert "waited 72 hours" in old.messages.last().text and "retry" in old.messages.last().text
    assert recent.status == "awaiting_approval"
    assert finished.status == "completed"


def test_only_housekeeping_tasks_are_queued_outside_the_outbox() -> None:
    """A conversion, a detection or a validation always goes through the outbox (which keeps it until
    the broker takes it); start_housekeeping refuses them."""
    from conversions.services import outbox

    for task in ("convert_attempt", "detect_recording", "validate_attempt", "preview_recording"):
        with pytest.raises(ValueError, match="not a housekeeping task"):
            outbox.start_housekeeping(task)
