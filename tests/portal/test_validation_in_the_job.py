"""The conversion job validates the file it wrote, without a trip through the queue; a validation
its worker did not get to is handed to another worker; workers warm their validators up."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from conversions.models import ConversionAttempt, ValidationIssue
from conversions.nwb import namespaces
from conversions.nwb.synthetic import write_spikeglx
from conversions.services import sessions
from conversions.services.attempts import recover_stalled_jobs
from conversions.workers import tasks
from nwbportal import embedded
from tests.conftest import World, wait_for_status
from tests.factories import AttemptFactory
from tests.nwb.test_dandi_validation import MOUSE, _write_nwb
from tests.portal.test_end_to_end import _converse_to_completion, _upload

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def queued_validations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every validation sent to the queue, which still runs it."""
    sent: list[int] = []
    apply_async = tasks.validate_attempt.apply_async

    def recorded(args: tuple[int], **options: Any) -> Any:
        sent.append(args[0])
        return apply_async(args, **options)

    monkeypatch.setattr(tasks.validate_attempt, "apply_async", recorded)
    return sent


def test_the_conversion_job_validates_its_own_file(
    live_world: World, celery_worker_thread: Any, queued_validations: list[int], tmp_path: Path
) -> None:
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    recording = write_spikeglx(tmp_path / "rec", run="own", duration_s=0.5, n_channels=384, seed=5)
    _upload(client, session_id, recording["ap_bin"].parent)

    _converse_to_completion(client, session_id)

    attempt = ConversionAttempt.objects.get(session_id=session_id)
    assert attempt.validation in ("passed", "passed_with_issues")
    assert ValidationIssue.objects.filter(attempt=attempt).exists()
    assert attempt.validation_started_at == attempt.finished_at  # claimed with the success, by the same job
    assert queued_validations == []


def _validating(world: World, output: Path, *, minutes_ago: int) -> ConversionAttempt:
    """A session whose conversion finished and whose worker stopped before it validated the file."""
    session = sessions.create_session(user=world.users["ada"])
    session.status = "validating"
    session.state = {**session.state, "attempts": 1}
    session.save()
    started = timezone.now() - timedelta(minutes=minutes_ago)
    return AttemptFactory(
        session=session,
        number=1,
        state="succeeded",
        output_path=str(output),
        finished_at=started,
        validation="running",
        validation_started_at=started,
        worker="gone@host",
    )


def test_a_validation_its_worker_did_not_finish_is_handed_to_another(
    live_world: World, celery_worker_thread: Any, queued_validations: list[int], tmp_path: Path
) -> None:
    attempt = _validating(live_world, _write_nwb(tmp_path / "recording.nwb", None), minutes_ago=30)
    assert recover_stalled_jobs(stall_seconds=60) == 1
    assert queued_validations == [attempt.id]

    body = wait_for_status(live_world.client("ada"), str(attempt.session_id), {"awaiting_user_input", "completed"})
    attempt.refresh_from_db()
    assert attempt.validation == "failed"  # no subject: DANDI would refuse it
    assert any(issue["check_name"] == "check_subject_exists" for issue in body["issues"])


def test_a_validation_under_way_is_left_alone(live_world: World, queued_validations: list[int], tmp_path: Path) -> None:
    attempt = _validating(live_world, _write_nwb(tmp_path / "recording.nwb", MOUSE), minutes_ago=0)
    assert recover_stalled_jobs(stall_seconds=600) == 0
    attempt.refresh_from_db()
    assert attempt.validation == "running" and queued_validations == []


def test_a_worker_warms_up_its_validators(tmp_path: Path) -> None:
    namespaces.install()
    namespaces.clear()
    portal_file = _write_nwb(tmp_path / "recording.nwb", MOUSE)

    tasks.warm_up_worker()

    # The schema the portal's files carry is built already: the first validation will not build it.
    assert namespaces.specification_digest(portal_file) in namespaces._kept


def test_the_embedded_worker_warms_up_before_its_first_job(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    class Worker:
        def start(self) -> None:
            calls.append("start")

    monkeypatch.setattr(tasks, "warm_up_worker", lambda: calls.append("warm up"))
    embedded._warm_up_and_start(Worker())
    assert calls == ["warm up", "start"]

    def broken() -> None:
        raise RuntimeError("no disk for the warm-up file")

    calls.clear()
    monkeypatch.setattr(tasks, "warm_up_worker", broken)
    embedded._warm_up_and_start(Worker())
    assert calls == ["start"]  # a slower first job, never a worker that does not start


def test_warm_up_never_stops_a_worker(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from conversions.nwb import dandi_validation

    def crash(path: Path) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(dandi_validation, "check_nwb", crash)
    dandi_validation.warm_up()
    assert "warming up the validators failed" in caplog.text
