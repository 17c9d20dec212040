"""Celery tasks: ids in, one job function out (conversions.workers.jobs), nothing else."""

from __future__ import annotations

import os
import threading
from typing import Any

from celery import Task, shared_task
from celery.signals import task_prerun, worker_process_init, worker_ready
from django.conf import settings

from conversions.services import attempts, outbox
from conversions.services.outbox import TASK
from conversions.workers import jobs


@shared_task(name=TASK.format("detect_recording"), acks_late=True, soft_time_limit=120, time_limit=180)
def detect_recording(session_id: str, files_version: int, format_key: str | None = None) -> None:
    jobs.detect_recording(session_id, files_version, format_key=format_key)


@shared_task(
    name=TASK.format("convert_attempt"),
    bind=True,
    acks_late=True,
    soft_time_limit=settings.CONVERSION_SOFT_TIME_LIMIT,
    time_limit=settings.CONVERSION_TIME_LIMIT,
)
def convert_attempt(self: Task, attempt_id: int) -> None:
    jobs.convert_attempt(attempt_id, worker=self.request.hostname or "")


@shared_task(name=TASK.format("preview_recording"), acks_late=True, soft_time_limit=300, time_limit=360)
def preview_recording(preview_id: int) -> None:
    jobs.preview_recording(preview_id)


@shared_task(
    name=TASK.format("validate_attempt"),
    acks_late=True,
    soft_time_limit=settings.VALIDATION_SOFT_TIME_LIMIT,
    time_limit=settings.VALIDATION_TIME_LIMIT,
)
def validate_attempt(attempt_id: int) -> None:
    jobs.validate_attempt(attempt_id)


@shared_task(name=TASK.format("recover_stalled_jobs"), acks_late=True, soft_time_limit=60, time_limit=90)
def recover_stalled_jobs(*, on_start: bool = False) -> int:
    return attempts.recover_stalled_jobs(on_start=on_start)


@shared_task(name=TASK.format("close_idle_sessions"), acks_late=True, soft_time_limit=120, time_limit=180)
def close_idle_sessions() -> int:
    return attempts.close_idle_sessions()


def warm_up_worker() -> None:
    """Import the readers and validators once when a worker starts, and validate a small file:
    otherwise the first detection pays about a second of neuroconv/neo imports, and the first
    validation ~0.5 s of nwbinspector/dandi imports and first-use set-up, while the user waits."""
    import neuroconv.datainterfaces  # noqa: F401

    import conversions.nwb.conversion
    import conversions.nwb.detection  # noqa: F401
    from conversions.nwb.dandi_validation import warm_up

    warm_up()


def lower_priority() -> None:
    """Run the calling thread, and the threads it starts, at WORKER_NICENESS: a conversion that takes
    every core then leaves the web processes (the chat, the pages) the CPU they need. Linux keeps a
    nice value per thread, so this touches nothing else of the process. Raising it needs no rights;
    lowering it back would."""
    niceness = settings.WORKER_NICENESS
    thread = threading.get_native_id()
    if os.getpriority(os.PRIO_PROCESS, thread) < niceness:
        os.setpriority(os.PRIO_PROCESS, thread, niceness)


@worker_process_init.connect
def _warm_up_process(**_: object) -> None:
    # Prefork workers (`celery worker`, production): each child process. The embedded mode's worker
    # threads are warmed by nwbportal.embedded before they take jobs.
    lower_priority()
    warm_up_worker()


@task_prerun.connect
def _job_at_lower_priority(task: Any = None, **_: object) -> None:
    # The embedded mode runs jobs in threads of the web process itself: each such thread steps back
    # before its first job (a prefork child already did, above). A task applied eagerly runs in its
    # caller's thread, which keeps its priority.
    if task is not None and task.request.is_eager:
        return
    lower_priority()


@worker_ready.connect
def _on_worker_ready(**_: object) -> None:
    # Sent by `celery worker` (production) once it consumes. A worker that starts after a crash
    # picks up what the crashed one left (heartbeat-based, so jobs still running on other workers
    # are left alone).
    if not settings.EMBEDDED:
        outbox.start_housekeeping("recover_stalled_jobs", on_start=True)


@shared_task(name=TASK.format("sweep_review_queue"), acks_late=True, soft_time_limit=60, time_limit=90)
def sweep_review_queue() -> int:
    """Email staff about conversions that entered the review queue; forget those that left it."""
    from conversions.services import review_queue

    return review_queue.sweep()
