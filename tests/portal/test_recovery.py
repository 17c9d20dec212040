"""Jobs whose worker vanished: requeued once, then the session is flagged for a human."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from conversions import services
from conversions.jobs import recover_stalled_jobs
from conversions.models import ConversionAttempt, ConversionSession
from tests.conftest import World

pytestmark = pytest.mark.django_db(transaction=True)


def _converting(world: World, deliveries: int, minutes_silent: int) -> tuple[ConversionSession, ConversionAttempt]:
    session = services.create_session(user=world.users["ada"])
    session.status = "converting"
    session.state = {**session.state, "attempts": 1}
    session.save()
    stale = timezone.now() - timedelta(minutes=minutes_silent)
    attempt = ConversionAttempt.objects.create(
        session=session, number=1, state="running", deliveries=deliveries, heartbeat_at=stale, worker="gone@host"
    )
    return session, attempt


def test_a_second_loss_fails_the_attempt_and_flags_the_session(live_world: World, monkeypatch: Any) -> None:
    session, attempt = _converting(live_world, deliveries=2, minutes_silent=30)
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


def test_a_first_loss_is_requeued(live_world: World, celery_worker_thread: Any) -> None:
    _, attempt = _converting(live_world, deliveries=1, minutes_silent=30)
    assert recover_stalled_jobs(stall_seconds=60) == 1
    attempt.refresh_from_db()
    # The requeued job runs on the worker; with no files it fails with a plain message.
    from tests.conftest import wait_for

    wait_for(lambda: ConversionAttempt.objects.get(id=attempt.id).state == "failed", what="the requeued job")
    attempt.refresh_from_db()
    assert attempt.deliveries == 2
