"""Celery tasks: ids in, one job function out (conversions.jobs), nothing else."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings

from conversions import jobs


@shared_task(acks_late=True, soft_time_limit=120, time_limit=180)
def detect_recording(session_id: str, files_version: int, format_key: str | None = None) -> None:
    jobs.detect_recording(session_id, files_version, format_key=format_key)


@shared_task(
    bind=True,
    acks_late=True,
    soft_time_limit=settings.CONVERSION_SOFT_TIME_LIMIT,
    time_limit=settings.CONVERSION_TIME_LIMIT,
)
def convert_attempt(self, attempt_id: int) -> None:  # type: ignore[no-untyped-def]
    jobs.convert_attempt(attempt_id, worker=self.request.hostname or "")


@shared_task(
    acks_late=True,
    soft_time_limit=settings.VALIDATION_SOFT_TIME_LIMIT,
    time_limit=settings.VALIDATION_TIME_LIMIT,
)
def validate_attempt(attempt_id: int) -> None:
    jobs.validate_attempt(attempt_id)


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def recover_stalled_jobs() -> int:
    return jobs.recover_stalled_jobs()


@worker_ready.connect
def _recover_on_start(**_: object) -> None:
    # A worker that starts after a crash picks up what the crashed one left (heartbeat-based, so
    # jobs still running on other workers are left alone).
    if not settings.EMBEDDED:
        recover_stalled_jobs.delay()
