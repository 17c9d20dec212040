"""Cancelling a running conversion stops the worker and removes its partial file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.models import ConversionAttempt
from conversions.nwb.conversion import temporary_path_for
from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import World, wait_for, wait_for_status

pytestmark = pytest.mark.django_db(transaction=True)


def test_cancel_by_words_stops_the_running_job(live_world: World, celery_worker_thread: Any, tmp_path: Path) -> None:
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    folder = write_spikeglx(tmp_path / "rec", run="big", duration_s=20.0, seed=5)["ap_bin"].parent
    files = sorted(p for p in folder.iterdir())
    client.post(
        f"/api/sessions/{session_id}/files", {"files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in files]}
    )
    wait_for_status(client, session_id, {"awaiting_user_input"})
    client.post(f"/api/sessions/{session_id}/messages", {"text": "just convert it"}, content_type="application/json")
    attempt = wait_for(
        lambda: ConversionAttempt.objects.filter(session_id=session_id, state="running", progress__gt=0).first(),
        what="the conversion to be under way",
    )
    partial = temporary_path_for(Path(attempt.output_path))

    turn = client.post(f"/api/sessions/{session_id}/messages", {"text": "cancel"}, content_type="application/json")
    assert turn.json()["session"]["status"] == "cancelled"
    wait_for(lambda: not partial.exists(), what="the partial file to be removed")
    attempt.refresh_from_db()
    assert attempt.state == "cancelled"
    assert not Path(attempt.output_path).exists(), "a cancelled conversion never moves its file into place"

    # Nothing already given is lost: retrying offers the plan again.
    retried = client.post(f"/api/sessions/{session_id}/actions", {"action": "retry"}, content_type="application/json")
    assert retried.status_code == 200
    assert retried.json()["session"]["status"] in ("awaiting_approval", "converting", "awaiting_user_input")
    client.post(f"/api/sessions/{session_id}/actions", {"action": "cancel"}, content_type="application/json")
    wait_for(
        lambda: (
            not ConversionAttempt.objects.filter(session_id=session_id, state__in=["queued", "running"]).exists()
            and not list(Path(attempt.output_path).parent.parent.glob("attempt-*/.*partial"))
        ),
        what="the second job to stop",
    )


def test_deleting_a_session_stops_its_running_job(live_world: World, celery_worker_thread: Any, tmp_path: Path) -> None:
    from celery.worker.state import active_requests

    from conversions.models import ConversionSession

    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    folder = write_spikeglx(tmp_path / "rec", run="gone", duration_s=20.0, seed=6)["ap_bin"].parent
    client.post(
        f"/api/sessions/{session_id}/files",
        {"files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in sorted(folder.iterdir())]},
    )
    wait_for_status(client, session_id, {"awaiting_user_input"})
    client.post(f"/api/sessions/{session_id}/messages", {"text": "just convert it"}, content_type="application/json")
    attempt = wait_for(
        lambda: ConversionAttempt.objects.filter(session_id=session_id, state="running", progress__gt=0).first(),
        what="the conversion to be under way",
    )
    session_dir = Path(attempt.output_path).parent.parent
    ConversionSession.objects.get(id=session_id).delete()
    assert not session_dir.exists(), "the session's files go with it"
    wait_for(lambda: not active_requests, what="the worker to let go of the deleted session's job")
    assert not session_dir.exists(), "the stopped job wrote nothing back"
