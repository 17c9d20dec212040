"""Faults on the real services: a broker that goes away and comes back empty, a worker process killed
under a job. Nothing is lost, nothing waits for a human, and the user is told what happened.

The broker is a redis-server the test starts itself (tests.portal.processes.OwnRedis); the workers
and beat are real `celery` processes on it and on the test database.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from conversions.models import ConversionAttempt, OutboxJob
from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import World, wait_for, wait_for_status
from tests.portal.processes import BeatProcess, OwnRedis, WorkerProcess, to_plan, upload_folder, wait_until_converting

pytestmark = pytest.mark.django_db(transaction=True)

# Short enough for a test, in the same proportions as the defaults (5 s, 30 s, 10 s).
FAST_RECOVERY = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_STALL_SECONDS": "3", "RECOVERY_INTERVAL_SECONDS": "1"}
DONE = {"awaiting_user_input", "completed", "failed"}


def _session_at_plan(world: World, folder: Path) -> str:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    upload_folder(client, session_id, folder)
    to_plan(client, session_id)
    return session_id


def _approve(world: World, session_id: str) -> dict:
    response = world.client("ada").post(
        f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def _converted(world: World, session_id: str) -> ConversionAttempt:
    body = wait_for_status(world.client("ada"), session_id, DONE, timeout=240)
    assert body["status"] != "failed", body["messages"][-1]["text"]
    attempt = ConversionAttempt.objects.get(session_id=session_id)
    assert attempt.state == "succeeded" and Path(attempt.output_path).is_file()
    return attempt


def _broker_env(broker: OwnRedis) -> dict[str, str]:
    return {"REDIS_URL": broker.url, **FAST_RECOVERY}


def test_an_approval_while_the_broker_is_down_converts_once_it_is_back(
    live_world: World, own_broker: OwnRedis, queue: str, data_root: Path, tmp_path: Path
) -> None:
    folder = write_spikeglx(tmp_path / "rec", run="outage", duration_s=0.5, seed=3)["ap_bin"].parent
    worker = WorkerProcess(queue, data_root, tmp_path / "worker.log", _broker_env(own_broker))
    beat = BeatProcess(queue, data_root, tmp_path / "beat.log", _broker_env(own_broker))
    try:
        session_id = _session_at_plan(live_world, folder)
        own_broker.stop()

        started = time.monotonic()
        turn = _approve(live_world, session_id)
        assert time.monotonic() - started < 10, "the request does not wait on a broker that is down"
        assert turn["session"]["status"] == "converting"
        job = OutboxJob.objects.get(task="convert_attempt")
        assert job.sent_at is None and job.last_error, "the job waits in the outbox, with why"
        assert ConversionAttempt.objects.get(session_id=session_id).state == "queued"

        own_broker.start()
        attempt = _converted(live_world, session_id)
        assert attempt.deliveries == 1
        assert worker.alive() and beat.alive()
        # The recovery forgets the job once taken: while beat and the worker still run it.
        wait_for(lambda: not OutboxJob.objects.exists(), timeout=30, what="the outbox to forget the job it sent")
    finally:
        worker.stop()
        beat.stop()


def test_a_broker_restart_mid_conversion_loses_neither_the_running_job_nor_the_queued_one(
    live_world: World, own_broker: OwnRedis, queue: str, data_root: Path, tmp_path: Path
) -> None:
    first_folder = write_spikeglx(tmp_path / "a", run="long", duration_s=12.0, seed=4)["ap_bin"].parent
    second_folder = write_spikeglx(tmp_path / "b", run="short", duration_s=0.5, seed=5)["ap_bin"].parent
    worker = WorkerProcess(queue, data_root, tmp_path / "worker.log", _broker_env(own_broker))
    beat = BeatProcess(queue, data_root, tmp_path / "beat.log", _broker_env(own_broker))
    try:
        first = _session_at_plan(live_world, first_folder)
        second = _session_at_plan(live_world, second_folder)
        _approve(live_world, first)
        wait_until_converting(first)
        _approve(live_world, second)  # waits in the queue behind the first: one worker, one process
        run_before = own_broker.run_id()

        own_broker.stop()  # the queue and the second job in it are gone
        time.sleep(2)
        own_broker.start()
        assert own_broker.run_id() != run_before

        first_attempt = _converted(live_world, first)
        second_attempt = _converted(live_world, second)
        assert worker.alive(), "the worker outlived the broker's restart"
    finally:
        worker.stop()
        beat.stop()
    assert first_attempt.deliveries == 1, "the running conversion was not started over"
    assert second_attempt.deliveries == 1
    second_job = ConversionAttempt.objects.get(session_id=second)
    assert second_job.started_at is not None


def test_a_job_whose_worker_process_is_killed_is_taken_over_by_its_redelivery(
    live_world: World, queue: str, data_root: Path, tmp_path: Path
) -> None:
    """As when the kernel's OOM killer takes the process converting: Celery hands the job out again
    at once, and that delivery takes the attempt over once its run has gone silent."""
    folder = write_spikeglx(tmp_path / "rec", run="killed", duration_s=12.0, seed=6)["ap_bin"].parent
    worker = WorkerProcess(queue, data_root, tmp_path / "worker.log", FAST_RECOVERY)
    try:
        session_id = _session_at_plan(live_world, folder)
        _approve(live_world, session_id)
        wait_until_converting(session_id)
        (child,) = worker.children()
        os.kill(child, signal.SIGKILL)
        attempt = _converted(live_world, session_id)
        assert worker.alive()
    finally:
        worker.stop()
    assert attempt.deliveries == 2
    messages = [m["text"] for m in live_world.client("ada").get(f"/api/sessions/{session_id}").json()["messages"]]
    told = [text for text in messages if "interrupted" in text]
    assert len(told) == 1 and "worker process running it stopped" in told[0] and "starts again by itself now" in told[0]
    assert not list(Path(attempt.output_path).parent.glob(".*partial*")), "no partial file is left behind"


def test_a_retry_kept_by_a_worker_that_is_then_killed_is_sent_again(
    live_world: World, queue: str, data_root: Path, tmp_path: Path, settings: Any
) -> None:
    """A conversion that ran into its time limit runs again after a wait (services/attempts.run_again); a worker
    keeps that retry until its time (a reserved ETA message). Killed meanwhile, it takes the message
    with it, and Redis would hand it out again only after its visibility timeout (hours): the
    recovery sees the job overdue, in no live worker's hands and no longer in the queue, and sends it
    again to the worker still there."""
    from conversions.services import attempts

    folder = write_spikeglx(tmp_path / "rec", run="eta", duration_s=0.5, seed=7)["ap_bin"].parent
    settings.JOB_RETRY_BACKOFF_SECONDS = 6
    detecting = WorkerProcess(queue, data_root, tmp_path / "detecting.log", FAST_RECOVERY)
    try:
        session_id = _session_at_plan(live_world, folder)
    finally:
        detecting.stop()
    _approve(live_world, session_id)
    redis.Redis.from_url(settings.CELERY_BROKER_URL).delete(queue)  # as if a worker had taken it
    attempt = ConversionAttempt.objects.get(session_id=session_id)
    ConversionAttempt.objects.filter(id=attempt.id).update(state="running", deliveries=1)
    attempt.refresh_from_db()
    assert attempts.run_again(attempt, "it took longer than the portal's time limit")  # sent with a countdown

    keeping = WorkerProcess(queue, data_root, tmp_path / "keeping.log", FAST_RECOVERY)
    second = beat = None
    try:
        wait_for(lambda: _scheduled_on(queue), timeout=30, what="the worker to keep the retry until its time")
        keeping.kill()
        killed = time.monotonic()
        second = WorkerProcess(queue, data_root, tmp_path / "second.log", FAST_RECOVERY)
        beat = BeatProcess(queue, data_root, tmp_path / "beat.log", FAST_RECOVERY)
        _converted(live_world, session_id)
        assert time.monotonic() - killed < 60, "sent again within the stall time of its due time, not hours later"
        assert ConversionAttempt.objects.get(id=attempt.id).deliveries == 2
        assert second.alive()
    finally:
        for process in (keeping, second, beat):
            if process is not None:
                process.stop()


def _scheduled_on(queue: str) -> bool:
    """Whether a live worker on this test's queue keeps a job until its time."""
    from nwbportal.celery import app

    answer = app.control.inspect(timeout=1.0).scheduled() or {}
    return any(tasks for name, tasks in answer.items() if name.startswith(queue))
