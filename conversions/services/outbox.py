"""Jobs for the workers, handed to the queue only once the change that needs them is saved, and
handed again when the queue could not take them or lost them.

`enqueue` writes an OutboxJob row inside the caller's transaction and sends the job when it commits.
A send that fails (the broker is down) leaves the row unsent; `flush`, run by the recovery every few
seconds, sends it once the broker is back. A job sent to a Redis that has since restarted (and so
forgotten its queue) is sent again; so is every queued job of the embedded mode after the process
restarts, its in-memory queue gone with it. Sending twice is harmless: every job claims its row with
an atomic update, and a copy that finds it taken does nothing.

A job that a worker reserved and then lost with itself (a retry kept by the worker until its time,
the worker killed before then) would come back from Redis only after its visibility timeout, hours
later: once it is overdue by JOB_STALL_SECONDS and neither the queue nor any live worker has it,
`flush` sends it again.

A row is kept while its job still waits to be taken, and deleted by `flush` once it has been.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from conversions.models import ConversionAttempt, ConversionSession, OutboxJob, Preview
from conversions.orchestrator.state import Status

logger = logging.getLogger(__name__)

# A row not yet sent this long after it was written is sent by `flush` (before that, the send that
# follows its commit may still be on its way).
UNSENT_GRACE = timedelta(seconds=2)
# This process's life, for a broker whose queue lives in the process (the embedded mode).
_PROCESS_RUN = uuid.uuid4().hex


def _detection_waits(session_id: str, files_version: int, _format_key: str | None = None) -> bool:
    session = ConversionSession.objects.filter(id=session_id, status=Status.DETECTING_FORMAT).first()
    return session is not None and session.memory.files_version == files_version


def _conversion_waits(attempt_id: int) -> bool:
    return ConversionAttempt.objects.filter(id=attempt_id, state=ConversionAttempt.State.QUEUED).exists()


def _preview_waits(preview_id: int) -> bool:
    return Preview.objects.filter(id=preview_id, state=Preview.State.QUEUED).exists()


def _validation_waits(attempt_id: int) -> bool:
    return ConversionAttempt.objects.filter(
        id=attempt_id, state=ConversionAttempt.State.SUCCEEDED, validation=ConversionAttempt.Validation.PENDING
    ).exists()


# For each job the outbox carries: whether it is still waiting for a worker to take it.
WAITING: dict[str, Callable[..., bool]] = {
    "detect_recording": _detection_waits,
    "convert_attempt": _conversion_waits,
    "preview_recording": _preview_waits,
    "validate_attempt": _validation_waits,
}


# How the tasks are registered (conversions/workers/tasks.py): the name jobs carry in the broker.
TASK = "conversions.tasks.{}"
HOUSEKEEPING = frozenset({"recover_stalled_jobs", "close_idle_sessions", "sweep_review_queue"})


def enqueue(task: str, *args: Any, countdown: float = 0, task_id: str = "") -> OutboxJob:
    """Record the job in the current transaction; send it when the transaction commits (at once
    outside one). Never raises for the broker: a job it refuses waits in the outbox."""
    if task not in WAITING:
        raise ValueError(f"the outbox does not carry {task!r}")
    key = f"{task}:{json.dumps(list(args), separators=(',', ':'))}"
    due = timezone.now() + timedelta(seconds=countdown)
    job, _ = OutboxJob.objects.update_or_create(
        key=key,
        defaults={"task": task, "args": list(args), "task_id": task_id, "due_at": due, "sent_at": None, "sent_to": ""},
    )
    job_id = job.id
    transaction.on_commit(lambda: send(job_id))
    return job


def send(job_id: int) -> bool:
    """Hand one job to the broker and note which run of it took the job. False (logged, and left for
    `flush`) when the broker cannot be reached."""
    job = OutboxJob.objects.filter(id=job_id).first()
    if job is None:
        return False
    countdown = max((job.due_at - timezone.now()).total_seconds(), 0.0)
    try:
        before = broker_run()
        _task(job.task).apply_async(
            tuple(job.args),
            countdown=countdown or None,
            task_id=job.task_id or None,
            # The default retries for several seconds: a request would wait that long for a broker
            # that is down, while the outbox can send the job later anyway.
            retry_policy={"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2},
        )
        after = broker_run()
    except Exception as exc:
        logger.warning("could not queue %s, it waits in the outbox: %s", job, exc)
        OutboxJob.objects.filter(id=job.id).update(last_error=f"{type(exc).__name__}: {exc}"[:500])
        return False
    # A broker that restarted between the two looks may have lost the job: left unmarked, the next
    # flush sends it again.
    OutboxJob.objects.filter(id=job.id).update(
        sent_at=timezone.now(), sent_to=before if before == after else "", sends=job.sends + 1, last_error=""
    )
    return True


def start_housekeeping(task: str, **kwargs: Any) -> None:
    """Queue one of the housekeeping tasks (recovery, closing idle sessions, the review queue's
    sweep), which need no outbox: they run again on the next tick of their schedule anyway."""
    if task not in HOUSEKEEPING:
        raise ValueError(f"{task!r} is not a housekeeping task")
    _task(task).delay(**kwargs)


def _task(name: str) -> Any:
    """The registered task `name` (conversions/workers/tasks.py), found by its name so that the
    services do not import the workers that call them."""
    from nwbportal.celery import app

    return app.tasks[TASK.format(name)]


def flush() -> int:
    """Send the jobs the queue never took or has lost; forget those a worker has taken. Returns how
    many were sent."""
    try:
        run = broker_run()
    except Exception as exc:
        logger.warning("the job queue is unreachable; the outbox waits: %s", exc)
        return 0
    now = timezone.now()
    overdue_before = now - timedelta(seconds=settings.JOB_STALL_SECONDS)
    held: set[str] | None = None
    sent = 0
    for job in OutboxJob.objects.all():
        if not WAITING[job.task](*job.args):
            OutboxJob.objects.filter(id=job.id, sent_at=job.sent_at).delete()
            continue
        unsent = job.sent_at is None and job.created < now - UNSENT_GRACE
        lost = job.sent_at is not None and job.sent_to != run
        if not (unsent or lost) and job.sent_at is not None and job.task_id and job.due_at < overdue_before:
            # Due for longer than a job may go unseen, yet not taken: unless the queue still has it or
            # a live worker holds it, the worker that had reserved it (a retry kept until its time)
            # is gone, and the broker would hand it out again only after its visibility timeout.
            if held is None:
                held = _held_task_ids()
            lost = held is not None and job.task_id not in held
        if (unsent or lost) and send(job.id):
            sent += 1
    return sent


def _held_task_ids() -> set[str] | None:
    """The ids of the jobs the queue still has or a live worker holds (reserved, kept until their
    time, or running); None when that cannot be known (the broker or the workers did not answer)."""
    from nwbportal.celery import app

    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None  # an in-memory queue lives and dies with its one process: nothing is held elsewhere
    try:
        queued = _redis_client(url).lrange(app.conf.task_default_queue, 0, -1)
        inspect = app.control.inspect(timeout=1.0)
        answers = [inspect.active(), inspect.reserved(), inspect.scheduled()]
    except Exception as exc:
        logger.warning("could not ask the queue and the workers which jobs they hold: %s", exc)
        return None
    ids = {str(json.loads(message).get("headers", {}).get("id", "")) for message in queued}
    for answer in answers:
        for tasks in (answer or {}).values():
            for task in tasks:
                ids.add(str(task.get("id") or task.get("request", {}).get("id", "")))
    return ids


def broker_run() -> str:
    """Which life of the broker this is: Redis's run id, or this process's for an in-memory queue."""
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return _PROCESS_RUN
    return str(_redis_client(url).info("server")["run_id"])


_clients: dict[str, Any] = {}


def _redis_client(url: str) -> Any:
    import redis

    client = _clients.get(url)
    if client is None:
        client = _clients[url] = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    return client
